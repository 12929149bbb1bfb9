//! Issuing segment IDs and keeping dispensers stocked.
//!
//! Why an index can never be issued twice:
//! * indexes come only from [`Ledger::take_segment`], which advances `max_id`
//!   under a row lock before anything else sees the range;
//! * a dispenser only caches such ranges, and pops are atomic (`LPOP`, a script),
//!   so each cached index leaves the dispenser once;
//! * stock is pushed only while the refill lock's token is still ours, so a
//!   refiller that stalled past its lock cannot stock a shard it no longer owns
//!   (its segment becomes a gap);
//! * a crash between taking a segment and pushing it leaves a gap, since the
//!   ledger has already moved past it;
//! * a Redis dataset that went back in time still holds popped indexes, so a
//!   node serves and stocks a shard only after proving, inside the same
//!   script, that the stock was stocked by the server process serving it now;
//!   otherwise it retires that stock first ([`Rollback`]);
//! * no index past the shard's `max_limit_id` is served, whoever stocked it.

use super::DispenserKind;
use super::id::{SHARDS, SegmentId};
pub use super::sizing::Trigger;
use super::sizing::{near_limit, plan_direct, plan_refill};
use crate::error::{Error, Result};
use crate::store::{
    Dispenser, Ledger, LockToken, NodeSet, PushOutcome, Rollback, Route, Segment, SegmentPlan,
    ShardState, Slot, Taken,
};
use futures::StreamExt;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most IDs one `next` call hands out.
pub const MAX_COUNT: u64 = 10_000_000;

/// How many times `next` stocks a shard itself before taking straight from the ledger.
const INLINE_REFILLS: u32 = 3;

/// How many route hints `next` follows before giving up (a loop is a misconfiguration).
const MAX_HOPS: u32 = 3;

/// Tunables of the allocator.
#[derive(Debug, Clone)]
pub struct AllocatorOptions {
    /// Expiry of a refill lock; a crashed refiller blocks a shard at most this long.
    pub lock_ttl: Duration,
    /// How long `next` waits for another process's refill before taking directly.
    pub lock_wait: Duration,
    /// Refill threshold for moves: stock at or below idle × the last segment.
    pub idle: f64,
    /// The dispenser `next` tries first. Only a guess, worth a round trip: the
    /// dispenser recorded for the app decides what is served and stocked.
    pub dispenser: DispenserKind,
}

impl Default for AllocatorOptions {
    fn default() -> Self {
        AllocatorOptions {
            lock_ttl: Duration::from_secs(10),
            lock_wait: Duration::from_millis(300),
            idle: 0.2,
            dispenser: DispenserKind::Queue,
        }
    }
}

/// What an operator should hear about, gathered along the way.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Notes {
    /// Near `max_limit_id`, and the like.
    pub warnings: Vec<String>,
    /// Stale stock found and retired on a node that went back in time.
    pub rollbacks: Vec<Rollback>,
}

impl Notes {
    fn rollback(&mut self, rollback: Option<Rollback>) {
        self.rollbacks.extend(rollback);
    }
}

/// IDs handed out by one `next` call.
#[derive(Debug)]
pub struct Issued {
    pub app: u8,
    pub shard: u8,
    pub ids: Vec<u64>,
    /// Things an operator should know (near `max_limit_id`, a Redis rollback).
    pub notes: Notes,
    /// Set when fewer IDs than asked were issued; `ids` are still valid and unique.
    pub failure: Option<Error>,
}

/// What refilling one shard did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefillOutcome {
    Refilled {
        added: u64,
    },
    /// The stock was above the threshold when checked under the lock.
    NotNeeded,
    /// Another process holds the shard's refill lock.
    Busy,
    /// The lock expired before the push: the segment became a gap.
    LockLost,
    /// A range dispenser had no free slot: the segment became a gap.
    Full,
    /// Not started: the job was told to stop.
    Skipped,
}

/// What `reload-segments` should do.
#[derive(Debug, Clone)]
pub struct ReloadOptions {
    pub app: Option<u8>,
    pub idle: f64,
    pub prune: bool,
    /// Shards refilled at once.
    pub jobs: usize,
    /// Once set, no further refill starts; those under way finish.
    pub cancel: Option<Arc<AtomicBool>>,
}

/// Progress of a reload, for a progress bar in the binary.
pub trait ReloadProgress: Send + Sync {
    fn start(&self, shards: u64);
    fn advance(&self);
}

/// A progress sink that ignores everything.
pub struct NoProgress;

impl ReloadProgress for NoProgress {
    fn start(&self, _: u64) {}
    fn advance(&self) {}
}

#[derive(Debug, Clone, Serialize)]
pub struct ShardFailure {
    pub app: u8,
    pub shard: u8,
    pub node: String,
    pub error: String,
}

/// Stock on a node that no app routed there owns.
#[derive(Debug, Clone, Serialize)]
pub struct OrphanStock {
    pub node: String,
    pub app: u8,
    pub dispenser: DispenserKind,
    pub shards: Vec<u8>,
    pub reason: String,
    pub pruned_ids: Option<u64>,
}

/// Shards of one app that failed for the same reason, so that output stays one
/// line per app and cause however many shards there are.
#[derive(Debug, Clone, Serialize)]
pub struct FailureGroup {
    pub app: u8,
    pub node: String,
    pub shards: Vec<u8>,
    pub error: String,
}

/// An app whose shards reached `max_limit_id`: reported, not a failure, since
/// every later run would fail the same way until an operator acts.
#[derive(Debug, Clone, Serialize)]
pub struct ExhaustedApp {
    pub app: u8,
    pub shards: Vec<u8>,
    /// A string in JSON: it may exceed 2^53.
    #[serde(serialize_with = "crate::status::u64_as_string")]
    pub max_limit_id: u64,
}

/// The summary of `reload-segments`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReloadReport {
    pub shards_checked: u64,
    pub shards_below_threshold: u64,
    pub shards_refilled: u64,
    pub ids_added: u64,
    pub shards_busy: u64,
    pub segments_dropped: u64,
    pub failures: Vec<ShardFailure>,
    /// `failures` per app, node and cause.
    pub failure_groups: Vec<FailureGroup>,
    pub exhausted: Vec<ExhaustedApp>,
    pub orphans: Vec<OrphanStock>,
    pub warnings: Vec<String>,
    /// Stale stock found and retired on a node that went back in time.
    pub rollbacks: Vec<Rollback>,
    /// Stopped early by `cancel`: these shards were not refilled.
    pub shards_skipped: u64,
}

/// `3`, or `0-63` or `1,4-6`: shard numbers with runs collapsed, for messages.
pub fn shard_list(shards: &[u8]) -> String {
    let mut runs: Vec<String> = Vec::new();
    let mut start = 0;
    for i in 1..=shards.len() {
        if i == shards.len() || u16::from(shards[i]) != u16::from(shards[i - 1]) + 1 {
            runs.push(match i - start {
                1 => shards[start].to_string(),
                _ => format!("{}-{}", shards[start], shards[i - 1]),
            });
            start = i;
        }
    }
    runs.join(",")
}

impl ReloadReport {
    /// Merges warnings that differ only in the shard (`app A shard S: …`) into
    /// one per app, so a whole app near its limit is one line, not 64.
    fn group_warnings(&mut self) {
        let mut per_app: BTreeMap<(String, String), Vec<u8>> = BTreeMap::new();
        let mut others = Vec::new();
        for warning in self.warnings.drain(..) {
            let parsed = warning.strip_prefix("app ").and_then(|rest| {
                let (app, rest) = rest.split_once(" shard ")?;
                let (shard, tail) = rest.split_once(' ')?;
                Some((app.to_string(), shard.parse::<u8>().ok()?, tail.to_string()))
            });
            match parsed {
                Some((app, shard, tail)) => per_app.entry((app, tail)).or_default().push(shard),
                None => others.push(warning),
            }
        }
        for ((app, tail), mut shards) in per_app {
            shards.sort_unstable();
            others.push(match shards.as_slice() {
                [shard] => format!("app {app} shard {shard} {tail}"),
                _ => format!("app {app} shards {}: {tail}", shard_list(&shards)),
            });
        }
        others.sort();
        self.warnings = others;
    }

    /// Fills `failure_groups` from `failures`: by app, node and message, in shard order.
    fn group_failures(&mut self) {
        let mut groups: Vec<FailureGroup> = Vec::new();
        for failure in &self.failures {
            match groups.iter_mut().find(|g| {
                g.app == failure.app && g.node == failure.node && g.error == failure.error
            }) {
                Some(group) => group.shards.push(failure.shard),
                None => groups.push(FailureGroup {
                    app: failure.app,
                    node: failure.node.clone(),
                    shards: vec![failure.shard],
                    error: failure.error.clone(),
                }),
            }
        }
        self.failure_groups = groups;
    }
}

/// Issues segment IDs and refills dispensers, over any ledger and node set.
pub struct SegmentAllocator {
    ledger: Arc<dyn Ledger>,
    nodes: Arc<NodeSet>,
    options: AllocatorOptions,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn random_shard() -> u8 {
    let mut byte = [0u8; 1];
    getrandom::fill(&mut byte).expect("the OS random source is available");
    byte[0] % SHARDS
}

/// Records what the planner saw, for warnings after the transaction.
#[derive(Default)]
struct Seen {
    max_limit_id: u64,
    direct: bool,
}

/// How a shortfall in stock was made up.
enum Refilled {
    /// A segment to hand out directly.
    Direct(Segment),
    /// The dispenser was (or may have been) stocked: take again.
    Stocked,
    /// The app is served elsewhere.
    Moved(String),
}

impl SegmentAllocator {
    pub fn new(ledger: Arc<dyn Ledger>, nodes: Arc<NodeSet>, options: AllocatorOptions) -> Self {
        SegmentAllocator {
            ledger,
            nodes,
            options,
        }
    }

    pub fn ledger(&self) -> &Arc<dyn Ledger> {
        &self.ledger
    }

    pub fn nodes(&self) -> &Arc<NodeSet> {
        &self.nodes
    }

    pub fn options(&self) -> &AllocatorOptions {
        &self.options
    }

    /// Issues `count` IDs of `app`, from the gate pass's shard or a random one.
    ///
    /// A warm call is one round trip to the default node. MySQL is touched only
    /// when the shard's stock runs short.
    pub async fn next(&self, app: u8, gate_pass: Option<&str>, count: u64) -> Result<Issued> {
        if count == 0 || count > MAX_COUNT {
            return Err(Error::invalid(
                "count",
                format!("{count} is outside 1..={MAX_COUNT}"),
                "ask for between 1 and 10000000 IDs per call",
            ));
        }
        let shard = gate_pass.map_or_else(random_shard, super::id::shard_for_gate_pass);
        let mut issued = Issued {
            app,
            shard,
            ids: Vec::with_capacity(count.min(1 << 20) as usize),
            notes: Notes::default(),
            failure: None,
        };
        if let Err(e) = self.fill(&mut issued, count).await {
            if issued.ids.is_empty() {
                return Err(e);
            }
            issued.failure = Some(e);
        }
        Ok(issued)
    }

    async fn fill(&self, issued: &mut Issued, count: u64) -> Result<()> {
        let slot = Slot {
            app: issued.app,
            shard: issued.shard,
        };
        let guess = self.options.dispenser;
        let mut node_name = self.nodes.default_node().to_string();
        let (mut hops, mut refills) = (0, 0);
        loop {
            let node = self.nodes.get(&node_name).await?;
            let remaining = count - issued.ids.len() as u64;
            let mut taken = node.take(guess, slot, remaining).await?;
            let kind = taken.kind.unwrap_or(guess);
            issued.notes.rollback(taken.rollback.take());
            let max_limit_id = self.limit_of(&*node, slot, &taken).await?;
            let malformed = taken.malformed.take();
            compose_within(&mut issued.ids, slot, max_limit_id, taken.indexes)?;
            if let Some(bad) = malformed {
                return Err(Error::BadData {
                    backend: "dispenser",
                    key: bad.key,
                    detail: format!(
                        "{} entr{} not an index idgen could have stocked, such as {:?}; dropped unserved",
                        bad.count,
                        if bad.count == 1 { "y is" } else { "ies are" },
                        bad.entry
                    ),
                });
            }
            if issued.ids.len() as u64 == count {
                return Ok(());
            }
            let remaining = count - issued.ids.len() as u64;
            let moved = match taken.route_hint {
                Some(hint) if hint != node_name => Some(hint),
                _ => match self
                    .make_up(&*node, kind, slot, remaining, &mut refills, issued)
                    .await?
                {
                    Refilled::Direct(segment) => {
                        // Usually the whole shortfall; less only near max_limit_id,
                        // and the next round then reports the limit.
                        compose_into(&mut issued.ids, slot, segment.indexes())?;
                        if issued.ids.len() as u64 == count {
                            return Ok(());
                        }
                        None
                    }
                    Refilled::Stocked => None,
                    Refilled::Moved(to) => {
                        // Repair the hint so the next call goes straight there.
                        let default = self.nodes.get(self.nodes.default_node()).await?;
                        default.set_route_hint(slot.app, Some(&to)).await?;
                        Some(to)
                    }
                },
            };
            if let Some(to) = moved {
                hops += 1;
                if hops > MAX_HOPS {
                    return Err(Error::Internal(format!(
                        "route hints for app {} loop between nodes",
                        slot.app
                    )));
                }
                if !self.nodes.contains(&to).await {
                    return Err(Error::RouteToUnknownNode {
                        app: slot.app,
                        node: to,
                    });
                }
                node_name = to;
            }
        }
    }

    /// The `max_limit_id` the taken indexes must respect: as recorded with the
    /// stock, else (stock another tool pushed) from the ledger, then recorded.
    async fn limit_of(&self, node: &dyn Dispenser, slot: Slot, taken: &Taken) -> Result<u64> {
        if let Some(limit) = taken.max_limit_id {
            return Ok(limit);
        }
        if taken.indexes.is_empty() {
            return Ok(0);
        }
        let app = self
            .ledger
            .app(slot.app)
            .await?
            .ok_or(Error::UnknownApp { app: slot.app })?;
        let limit = app
            .shards
            .iter()
            .find(|s| s.shard == slot.shard)
            .ok_or(Error::ShardMissing {
                app: slot.app,
                shard: slot.shard,
            })?
            .max_limit_id;
        node.note_limit(slot, limit).await?;
        Ok(limit)
    }

    /// The stock ran short: refill it under the lock, wait for another
    /// refiller, or take a segment straight from the ledger.
    async fn make_up(
        &self,
        node: &dyn Dispenser,
        kind: DispenserKind,
        slot: Slot,
        remaining: u64,
        refills: &mut u32,
        issued: &mut Issued,
    ) -> Result<Refilled> {
        if *refills >= INLINE_REFILLS {
            return self
                .take_direct(slot, remaining, issued)
                .await
                .map(Refilled::Direct);
        }
        *refills += 1;
        match node.lock(kind, slot, self.options.lock_ttl).await? {
            Some(mut locked) => {
                issued.notes.rollback(locked.rollback.take());
                let stock = locked.stock.unwrap_or(0);
                if stock > 0 {
                    // Someone stocked it between our take and our lock.
                    node.unlock(slot, &locked.token).await?;
                    return Ok(Refilled::Stocked);
                }
                let outcome = self
                    .refill_with(
                        node,
                        slot,
                        &locked.token,
                        stock,
                        Trigger::Empty,
                        Some(remaining),
                        &mut issued.notes,
                    )
                    .await;
                node.unlock(slot, &locked.token).await?;
                match outcome {
                    Ok((_, Some(direct))) => Ok(Refilled::Direct(direct)),
                    Ok((_, None)) => Ok(Refilled::Stocked),
                    Err(Error::Moved { node, .. }) => Ok(Refilled::Moved(node)),
                    Err(e) => Err(e),
                }
            }
            None => {
                // Another process is refilling: give it a moment, then stop waiting.
                let deadline = Instant::now() + self.options.lock_wait;
                while Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    let stock = node.stock(kind, &[slot]).await?;
                    if stock.first().copied().flatten().unwrap_or(0) > 0 {
                        return Ok(Refilled::Stocked);
                    }
                }
                self.take_direct(slot, remaining, issued)
                    .await
                    .map(Refilled::Direct)
            }
        }
    }

    /// Takes a segment for the caller alone; no dispenser involved, so no lock.
    async fn take_direct(&self, slot: Slot, wanted: u64, issued: &mut Issued) -> Result<Segment> {
        let seen = Mutex::new(Seen::default());
        let plan = |state: &ShardState| -> Result<SegmentPlan> {
            seen.lock().expect("not poisoned").max_limit_id = state.max_limit_id;
            plan_direct(state, wanted)
        };
        let segment = self
            .ledger
            .take_segment(slot.app, slot.shard, &plan)
            .await?
            .ok_or(Error::StockEmpty {
                app: slot.app,
                shard: slot.shard,
            })?;
        let limit = seen.lock().expect("not poisoned").max_limit_id;
        warn_near_limit(&mut issued.notes.warnings, limit, slot, segment.last);
        Ok(segment)
    }

    /// The common refill: plan inside the ledger's transaction, then push under
    /// the token. With `direct_for`, a shortfall of at least a step is served
    /// straight from the segment, which is returned instead of pushed.
    ///
    /// The push goes to the dispenser the ledger records for the app, read
    /// while `token` holds the lock: `app set --dispenser` switches a shard
    /// under that lock, so a refill never restocks the dispenser it left.
    #[allow(clippy::too_many_arguments)]
    async fn refill_with(
        &self,
        node: &dyn Dispenser,
        slot: Slot,
        token: &LockToken,
        stock: u64,
        trigger: Trigger,
        direct_for: Option<u64>,
        notes: &mut Notes,
    ) -> Result<(RefillOutcome, Option<Segment>)> {
        let node_name = node.node();
        let kind = self.ledger.dispenser(slot.app).await?;
        let now = now_ms();
        let seen = Mutex::new(Seen::default());
        let plan = |state: &ShardState| -> Result<SegmentPlan> {
            check_route(&state.route, slot.app, node_name)?;
            let mut seen = seen.lock().expect("not poisoned");
            seen.max_limit_id = state.max_limit_id;
            match direct_for {
                Some(wanted) if wanted >= state.step => {
                    seen.direct = true;
                    plan_direct(state, wanted)
                }
                _ => plan_refill(state, trigger, stock, now),
            }
        };
        let Some(segment) = self
            .ledger
            .take_segment(slot.app, slot.shard, &plan)
            .await?
        else {
            return Ok((RefillOutcome::NotNeeded, None));
        };
        let (limit, direct) = {
            let seen = seen.lock().expect("not poisoned");
            (seen.max_limit_id, seen.direct)
        };
        warn_near_limit(&mut notes.warnings, limit, slot, segment.last);
        if direct {
            return Ok((RefillOutcome::NotNeeded, Some(segment)));
        }
        // A crash from here until the push leaves a gap: the ledger has moved on.
        crate::failpoint::hit("segment.after_take")?;
        let pushed = node.push(kind, slot, segment, limit, token).await?;
        notes.rollback(pushed.rollback);
        if pushed.switched > 0 {
            notes.warnings.push(format!(
                "app {} shard {} on node {node_name}: retired {} indexes left in the {} dispenser unserved (a gap): the app is served by the {} dispenser",
                slot.app,
                slot.shard,
                pushed.switched,
                kind.other().as_str(),
                kind.as_str()
            ));
        }
        let outcome = match pushed.outcome {
            PushOutcome::Stocked(_) => RefillOutcome::Refilled {
                added: segment.count(),
            },
            PushOutcome::LockLost => RefillOutcome::LockLost,
            PushOutcome::Full => RefillOutcome::Full,
        };
        Ok((outcome, None))
    }

    /// Refills one shard if the trigger's threshold says so, under its lock.
    pub async fn refill_shard(
        &self,
        node: &dyn Dispenser,
        kind: DispenserKind,
        slot: Slot,
        trigger: Trigger,
        notes: &mut Notes,
    ) -> Result<RefillOutcome> {
        let Some(mut locked) = node.lock(kind, slot, self.options.lock_ttl).await? else {
            return Ok(RefillOutcome::Busy);
        };
        notes.rollback(locked.rollback.take());
        let outcome = self
            .refill_with(
                node,
                slot,
                &locked.token,
                locked.stock.unwrap_or(0),
                trigger,
                None,
                notes,
            )
            .await;
        node.unlock(slot, &locked.token).await?;
        outcome.map(|(outcome, _)| outcome)
    }

    /// Tops up every shard at or below the threshold; safe to run many at once.
    pub async fn reload(
        &self,
        options: &ReloadOptions,
        progress: &dyn ReloadProgress,
    ) -> Result<ReloadReport> {
        /// A whole backend down, refusing access or unwritable, rather than
        /// one shard being wrong.
        fn stops_the_run(error: &Error) -> bool {
            matches!(
                error.kind(),
                crate::ErrorKind::Unavailable
                    | crate::ErrorKind::Access
                    | crate::ErrorKind::Tls
                    | crate::ErrorKind::Store
            ) && !matches!(error, Error::StockEmpty { .. })
        }
        let mut report = ReloadReport::default();
        let apps = self.ledger.apps().await?;
        let apps: Vec<_> = match options.app {
            Some(app) => {
                let found: Vec<_> = apps.into_iter().filter(|a| a.app == app).collect();
                if found.is_empty() {
                    return Err(Error::UnknownApp { app });
                }
                found
            }
            None => apps,
        };
        let routes = self.ledger.routes().await?;
        let default = self.nodes.default_node().to_string();

        // Group shards by the node and dispenser that serve them.
        let mut groups: BTreeMap<(String, DispenserKind), Vec<(Slot, u64)>> = BTreeMap::new();
        for app in &apps {
            let node = routes
                .get(&app.app)
                .map_or(default.clone(), |r| r.node.clone());
            let kind = app.dispenser;
            for row in &app.shards {
                let reference = row.last_loaded.unwrap_or(row.step).max(1);
                groups.entry((node.clone(), kind)).or_default().push((
                    Slot {
                        app: app.app,
                        shard: row.shard,
                    },
                    reference,
                ));
            }
        }

        let mut work: Vec<(String, DispenserKind, Slot)> = Vec::new();
        // A node that is down, refuses access or cannot be written fails every
        // shard alike: when no node answered at all, stop with that one error.
        let mut answered = groups.is_empty();
        let mut first_down: Option<Error> = None;
        for ((node_name, kind), slots) in &groups {
            report.shards_checked += slots.len() as u64;
            let stocks = match self.nodes.get(node_name).await {
                Ok(node) => {
                    let only: Vec<Slot> = slots.iter().map(|(s, _)| *s).collect();
                    node.stock(*kind, &only).await
                }
                Err(e) => Err(e),
            };
            let stocks = match stocks {
                Ok(stocks) => {
                    answered = true;
                    stocks
                }
                Err(e) => {
                    report
                        .failures
                        .extend(slots.iter().map(|(slot, _)| ShardFailure {
                            app: slot.app,
                            shard: slot.shard,
                            node: node_name.clone(),
                            error: e.to_string(),
                        }));
                    if stops_the_run(&e) {
                        first_down.get_or_insert(e);
                    } else {
                        answered = true;
                    }
                    continue;
                }
            };
            for ((slot, reference), stock) in slots.iter().zip(stocks) {
                let stock = stock.unwrap_or(0);
                if super::sizing::needs_refill(
                    Trigger::Threshold { idle: options.idle },
                    stock,
                    *reference,
                ) {
                    work.push((node_name.clone(), *kind, *slot));
                }
            }
        }
        if let (false, Some(down)) = (answered, first_down) {
            return Err(down);
        }
        report.shards_below_threshold = work.len() as u64;
        progress.start(work.len() as u64);

        // Set by the first refill that finds a backend down or refusing: the
        // shards still queued would only fail the same way, each after a timeout.
        let backend_down = AtomicBool::new(false);
        let backend_down = &backend_down;
        let results: Vec<_> = futures::stream::iter(work)
            .map(|(node_name, kind, slot)| async move {
                let mut notes = Notes::default();
                let cancelled = options
                    .cancel
                    .as_ref()
                    .is_some_and(|c| c.load(Ordering::Acquire))
                    || backend_down.load(Ordering::Acquire);
                if cancelled {
                    progress.advance();
                    return (node_name, slot, Ok(RefillOutcome::Skipped), notes);
                }
                let outcome = match self.nodes.get(&node_name).await {
                    Ok(node) => {
                        let trigger = Trigger::Threshold { idle: options.idle };
                        self.refill_shard(&*node, kind, slot, trigger, &mut notes)
                            .await
                    }
                    Err(e) => Err(e),
                };
                if outcome.as_ref().is_err_and(stops_the_run) {
                    backend_down.store(true, Ordering::Release);
                }
                progress.advance();
                (node_name, slot, outcome, notes)
            })
            .buffer_unordered(options.jobs.max(1))
            .collect()
            .await;
        let mut down = None;
        for (node, slot, outcome, notes) in results {
            report.warnings.extend(notes.warnings);
            report.rollbacks.extend(notes.rollbacks);
            match outcome {
                Ok(RefillOutcome::Refilled { added }) => {
                    report.shards_refilled += 1;
                    report.ids_added += added;
                }
                Ok(RefillOutcome::NotNeeded) => {}
                Ok(RefillOutcome::Skipped) => report.shards_skipped += 1,
                Ok(RefillOutcome::Busy) => report.shards_busy += 1,
                Ok(RefillOutcome::LockLost | RefillOutcome::Full) => report.segments_dropped += 1,
                // A move switched the app's node after this run read the routes:
                // the new node is the mover's (and the next run's) to fill.
                Err(Error::Moved { .. }) => {}
                // Sealed for a move out of the embedded store: nothing to refill, nothing broken.
                Err(Error::AppMovedOut { app, to }) => report.warnings.push(format!(
                    "app {app} has moved out of this store to {to}; its shards are no longer refilled here"
                )),
                Err(Error::LimitReached {
                    app, max_limit_id, ..
                }) => {
                    match report.exhausted.iter_mut().find(|x| x.app == app) {
                        Some(known) => known.shards.push(slot.shard),
                        None => report.exhausted.push(ExhaustedApp {
                            app,
                            shards: vec![slot.shard],
                            max_limit_id,
                        }),
                    }
                }
                Err(e) if stops_the_run(&e) => {
                    down.get_or_insert(e);
                }
                Err(e) => report.failures.push(ShardFailure {
                    app: slot.app,
                    shard: slot.shard,
                    node,
                    error: e.to_string(),
                }),
            }
        }
        if let Some(down) = down {
            return Err(down);
        }
        report.failures.sort_by_key(|f| (f.app, f.shard));
        report.exhausted.sort_by_key(|x| x.app);
        for exhausted in &mut report.exhausted {
            exhausted.shards.sort_unstable();
        }
        if report.shards_skipped > 0 {
            // Stopped early: leave the route hints and orphans for the next run.
            report.group_failures();
            report.group_warnings();
            return Ok(report);
        }
        report.warnings.sort();
        report.warnings.dedup();

        self.sync_route_hints(&routes, options.app, &mut report)
            .await;
        self.find_orphans(&apps, &routes, options, &mut report)
            .await;
        report.group_failures();
        report.group_warnings();
        Ok(report)
    }

    /// Makes the default node's route hints match the durable routes.
    async fn sync_route_hints(
        &self,
        routes: &BTreeMap<u8, Route>,
        only: Option<u8>,
        report: &mut ReloadReport,
    ) {
        let default_name = self.nodes.default_node().to_string();
        let result: Result<()> = async {
            let default = self.nodes.get(&default_name).await?;
            let hints = default.route_hints().await?;
            let in_scope = |app: &u8| only.is_none_or(|o| o == *app);
            for (app, route) in routes.iter().filter(|(a, _)| in_scope(a)) {
                let wanted = (route.node != default_name).then_some(route.node.as_str());
                if hints.get(app).map(String::as_str) != wanted {
                    default.set_route_hint(*app, wanted).await?;
                }
            }
            for app in hints
                .keys()
                .filter(|a| in_scope(a) && !routes.contains_key(a))
            {
                default.set_route_hint(*app, None).await?;
            }
            Ok(())
        }
        .await;
        if let Err(e) = result {
            report
                .warnings
                .push(format!("could not sync route hints: {e}"));
        }
    }

    /// Reports (and with `prune`, retires) stock that no app routed to its node owns.
    async fn find_orphans(
        &self,
        apps: &[crate::store::AppRecord],
        routes: &BTreeMap<u8, Route>,
        options: &ReloadOptions,
        report: &mut ReloadReport,
    ) {
        let known: BTreeSet<u8> = apps.iter().map(|a| a.app).collect();
        let recorded: BTreeMap<u8, DispenserKind> =
            apps.iter().map(|a| (a.app, a.dispenser)).collect();
        let default = self.nodes.default_node().to_string();
        for node_name in self.nodes.names().await {
            let node = match self.nodes.get(&node_name).await {
                Ok(node) => node,
                Err(e) => {
                    report.warnings.push(format!(
                        "could not check node {node_name} for orphaned stock: {e}"
                    ));
                    continue;
                }
            };
            for kind in [DispenserKind::Queue, DispenserKind::Range] {
                let slots = match node.stocked_slots(kind).await {
                    Ok(slots) => slots,
                    Err(e) => {
                        report
                            .warnings
                            .push(format!("could not list stock on node {node_name}: {e}"));
                        continue;
                    }
                };
                let mut by_app: BTreeMap<u8, Vec<Slot>> = BTreeMap::new();
                for slot in slots {
                    if options.app.is_some_and(|a| a != slot.app) {
                        continue;
                    }
                    by_app.entry(slot.app).or_default().push(slot);
                }
                for (app, slots) in by_app {
                    let reason = if options.app.is_none() && !known.contains(&app) {
                        "app is not in id_alloc".to_string()
                    } else if known.contains(&app) {
                        let route = routes.get(&app);
                        let serving = route.map_or(default.as_str(), |r| r.node.as_str());
                        let incoming = route.and_then(|r| r.incoming.as_deref());
                        let served_here =
                            serving == node_name || incoming == Some(node_name.as_str());
                        match recorded.get(&app) {
                            _ if !served_here => format!("app is served by node {serving}"),
                            Some(&served) if served != kind => format!(
                                "app is served by the {} dispenser (the next refill of a shard retires this stock)",
                                served.as_str()
                            ),
                            _ => continue,
                        }
                    } else {
                        continue;
                    };
                    let pruned_ids = if options.prune {
                        self.retire_slots(&*node, kind, &slots, report).await
                    } else {
                        None
                    };
                    report.orphans.push(OrphanStock {
                        node: node_name.clone(),
                        app,
                        dispenser: kind,
                        shards: slots.iter().map(|s| s.shard).collect(),
                        reason,
                        pruned_ids,
                    });
                }
            }
        }
    }

    /// Deletes the stock of `slots`, each under its own refill lock; a shard whose
    /// lock is held is left for the next run.
    pub async fn retire_slots(
        &self,
        node: &dyn Dispenser,
        kind: DispenserKind,
        slots: &[Slot],
        report: &mut ReloadReport,
    ) -> Option<u64> {
        let mut dropped = 0;
        for &slot in slots {
            match self.retire_under_lock(node, kind, slot).await {
                Ok(Some(n)) => dropped += n,
                Ok(None) => report.warnings.push(format!(
                    "app {} shard {} on node {} is locked by a refiller; not pruned this time",
                    slot.app,
                    slot.shard,
                    node.node()
                )),
                Err(e) => report.failures.push(ShardFailure {
                    app: slot.app,
                    shard: slot.shard,
                    node: node.node().to_string(),
                    error: format!("prune failed: {e}"),
                }),
            }
        }
        Some(dropped)
    }

    /// Deletes one shard's stock under its refill lock, so a refill in flight
    /// is never cut in half. `None`: someone holds the lock; nothing deleted.
    pub async fn retire_under_lock(
        &self,
        node: &dyn Dispenser,
        kind: DispenserKind,
        slot: Slot,
    ) -> Result<Option<u64>> {
        let Some(locked) = node.lock(kind, slot, self.options.lock_ttl).await? else {
            return Ok(None);
        };
        let retired = node.retire(kind, slot, &locked.token).await;
        node.unlock(slot, &locked.token).await?;
        // Retiring under a lock we just took cannot lose it within the TTL.
        Ok(Some(retired?.unwrap_or(0)))
    }
}

fn check_route(route: &Route, app: u8, node: &str) -> Result<()> {
    if route.allows(node) {
        Ok(())
    } else {
        Err(Error::Moved {
            app,
            node: route.node.clone(),
        })
    }
}

fn warn_near_limit(warnings: &mut Vec<String>, limit: u64, slot: Slot, max_id: u64) {
    if limit > 0 && near_limit(limit, slot.app, slot.shard, max_id) {
        warnings.push(format!(
            "app {} shard {} has used 90% or more of max_limit_id {limit}",
            slot.app, slot.shard
        ));
    }
}

/// Composes taken indexes, refusing every one past the shard's `max_limit_id`:
/// stock can outlive a lowered limit, or come from a tool that never checks it.
fn compose_within(
    ids: &mut Vec<u64>,
    slot: Slot,
    max_limit_id: u64,
    indexes: Vec<u64>,
) -> Result<()> {
    let ceiling = super::id::max_index_within(max_limit_id, slot.app, slot.shard).unwrap_or(0);
    let within = indexes
        .iter()
        .take_while(|&&index| index <= ceiling)
        .count();
    compose_into(ids, slot, indexes[..within].iter().copied())?;
    if within < indexes.len() {
        return Err(Error::LimitReached {
            app: slot.app,
            shard: slot.shard,
            max_limit_id,
        });
    }
    Ok(())
}

fn compose_into(ids: &mut Vec<u64>, slot: Slot, indexes: impl Iterator<Item = u64>) -> Result<()> {
    for index in indexes {
        ids.push(
            SegmentId {
                index,
                shard: slot.shard,
                app: slot.app,
            }
            .compose()?,
        );
    }
    Ok(())
}
