//! `reload-segments`: the cron job that tops up every shard below its
//! threshold, syncs route hints and reports orphaned stock.
//!
//! It keeps every guarantee of a single refill (see [`super::allocator`]), in
//! batches: the shards of one app on one node are locked in one round trip
//! (a shard someone else holds is skipped), their segments taken in one
//! ledger transaction that re-checks each shard's threshold, route and limit
//! under its row lock, and pushed in one round trip, each push checking its
//! own lock token and stamp inside its script. A crash anywhere leaves gaps:
//! the ledger has moved past every segment it handed out.

use super::DispenserKind;
use super::allocator::{Notes, RefillOutcome, SegmentAllocator, Trigger};
use crate::error::{Error, Result};
use crate::store::locking::under_lock;
use crate::store::{Dispenser, LedgerRollback, Rollback, Route, ShardMarks, Slot};
use futures::StreamExt;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Shards of one app refilled together: one lock round trip, one ledger
/// transaction and one push round trip each. Two per app of 64 shards, so
/// that an interrupted run leaves whole batches, and one slow transaction
/// holds few row locks.
pub const RELOAD_BATCH: usize = 32;

/// What `reload-segments` should do.
#[derive(Debug, Clone)]
pub struct ReloadOptions {
    pub app: Option<u8>,
    pub idle: f64,
    pub prune: bool,
    /// Batches (up to [`RELOAD_BATCH`] shards of one app) refilled at once.
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
    /// The error's class, named as its exit code is (`bad-data`).
    pub kind: crate::ErrorKind,
    /// The fix, when there is a clear one.
    pub hint: Option<String>,
}

impl ShardFailure {
    fn of(node: &str, slot: Slot, error: &Error) -> Self {
        ShardFailure {
            app: slot.app,
            shard: slot.shard,
            node: node.to_string(),
            error: error.to_string(),
            kind: error.kind(),
            hint: error.hint(),
        }
    }
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
    pub kind: crate::ErrorKind,
    pub hint: Option<String>,
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
    /// Shards whose ledger was found behind a node's witness, and moved past it.
    pub ledger_rollbacks: Vec<LedgerRollback>,
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
    /// Whether a failure's cause is data idgen did not write under its keys:
    /// that, not the generic partial failure, is what an operator must fix.
    pub fn failed_on_bad_data(&self) -> bool {
        self.failures
            .iter()
            .any(|f| f.kind == crate::ErrorKind::BadData)
    }

    /// Records a shard's error: a move or the limit is reported, not a failure.
    fn shard_error(&mut self, node: &str, slot: Slot, error: &Error) {
        match error {
            // A move switched the app's node after this run read the routes:
            // the new node is the mover's (and the next run's) to fill.
            Error::Moved { .. } => {}
            // Sealed for a move out of the embedded store: nothing to refill, nothing broken.
            Error::AppMovedOut { app, to } => self.warnings.push(format!(
                "app {app} has moved out of this store to {to}; its shards are no longer refilled here"
            )),
            Error::LimitReached {
                app, max_limit_id, ..
            } => match self.exhausted.iter_mut().find(|x| x.app == *app) {
                Some(known) => known.shards.push(slot.shard),
                None => self.exhausted.push(ExhaustedApp {
                    app: *app,
                    shards: vec![slot.shard],
                    max_limit_id: *max_limit_id,
                }),
            },
            e => self.failures.push(ShardFailure::of(node, slot, e)),
        }
    }

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

    /// Fills `failure_groups` from `failures`: by app, node and message, in
    /// shard order. Messages that differ only in the shard's key
    /// (`id.gen.idList_1_5`) are one cause: the group names the keys as a
    /// shell brace expansion (`id.gen.idList_1_{0..63}`), which `redis-cli DEL`
    /// in a hint takes as it is.
    fn group_failures(&mut self) {
        let mut groups: Vec<FailureGroup> = Vec::new();
        for failure in &self.failures {
            let (app, shard) = (failure.app, failure.shard);
            let error = shard_keys_generic(&failure.error, app, shard);
            let hint = failure
                .hint
                .as_deref()
                .map(|h| shard_keys_generic(h, app, shard));
            match groups.iter_mut().find(|g| {
                g.app == app && g.node == failure.node && g.error == error && g.hint == hint
            }) {
                Some(group) => group.shards.push(shard),
                None => groups.push(FailureGroup {
                    app,
                    node: failure.node.clone(),
                    shards: vec![shard],
                    error,
                    kind: failure.kind,
                    hint,
                }),
            }
        }
        for group in &mut groups {
            group.shards.sort_unstable();
            let shards = match group.shards.as_slice() {
                [one] => one.to_string(),
                many => brace_list(many),
            };
            group.error = group.error.replace(SHARD_PLACEHOLDER, &shards);
            group.hint = group
                .hint
                .take()
                .map(|h| h.replace(SHARD_PLACEHOLDER, &shards));
        }
        self.failure_groups = groups;
    }
}

/// Stands for the shard number in a shard's key while failures are grouped.
const SHARD_PLACEHOLDER: &str = "\u{0}";

/// `text` with every key of shard `app`/`shard` (`…_{app}_{shard}`, the
/// number ending there) naming the shard by [`SHARD_PLACEHOLDER`].
fn shard_keys_generic(text: &str, app: u8, shard: u8) -> String {
    let key = format!("_{app}_{shard}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&key) {
        let after = &rest[at + key.len()..];
        out.push_str(&rest[..at]);
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(&key);
        } else {
            out.push_str(&format!("_{app}_{SHARD_PLACEHOLDER}"));
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Shards as a shell brace expansion: `{0..63}` for a run, else `{1,4,5}`.
fn brace_list(shards: &[u8]) -> String {
    let (first, last) = (shards[0], shards[shards.len() - 1]);
    if usize::from(last - first) + 1 == shards.len() {
        format!("{{{first}..{last}}}")
    } else {
        let each: Vec<String> = shards.iter().map(u8::to_string).collect();
        format!("{{{}}}", each.join(","))
    }
}

impl SegmentAllocator {
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
                crate::ErrorKind::Unavailable | crate::ErrorKind::Access | crate::ErrorKind::Store
            ) && !matches!(error, Error::StockEmpty { .. })
        }
        let mut report = ReloadReport::default();
        let apps = self.ledger().apps().await?;
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
        let routes = self.ledger().routes().await?;
        let default = self.nodes().default_node().to_string();

        // Group shards by the node and dispenser that serve them.
        // Each shard with its refill reference size and the ledger's view of
        // it (max_id, max_limit_id), to find shards out of line with it.
        type Shard = (Slot, u64, (u64, u64));
        let mut groups: BTreeMap<(String, DispenserKind), Vec<Shard>> = BTreeMap::new();
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
                    (row.max_id, row.max_limit_id),
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
            let stocks = match self.nodes().get(node_name).await {
                Ok(node) => {
                    let only: Vec<Slot> = slots.iter().map(|(s, ..)| *s).collect();
                    match node.stock_each(*kind, &only).await {
                        Ok(stocks) => node.marks(&only).await.map(|marks| (stocks, marks)),
                        Err(e) => Err(e),
                    }
                }
                Err(e) => Err(e),
            };
            let stocks = match stocks {
                Ok(stocks) => {
                    answered = true;
                    stocks
                }
                Err(e) => {
                    report.failures.extend(
                        slots
                            .iter()
                            .map(|(slot, ..)| ShardFailure::of(node_name, *slot, &e)),
                    );
                    if stops_the_run(&e) {
                        first_down.get_or_insert(e);
                    } else {
                        answered = true;
                    }
                    continue;
                }
            };
            let (stocks, marks) = stocks;
            let marks: Vec<Option<Result<ShardMarks>>> = match marks {
                Some(marks) => marks.into_iter().map(Some).collect(),
                None => slots.iter().map(|_| None).collect(),
            };
            for (((slot, reference, (max_id, max_limit_id)), stock), marks) in
                slots.iter().zip(stocks).zip(marks)
            {
                // A shard whose keys hold data idgen did not write fails alone;
                // the others are judged and refilled as usual.
                let (stock, marks) = match (stock, marks.transpose()) {
                    (Ok(stock), Ok(marks)) => (stock.unwrap_or(0), marks),
                    (Err(e), _) | (_, Err(e)) => {
                        report.shard_error(node_name, *slot, &e);
                        continue;
                    }
                };
                // A shard whose stock may be older than the ledger (its witness
                // is behind max_id: replaced inside the server, SWAPDB) or that
                // obeys another limit (changed by SQL) is brought in line with
                // the ledger under its lock, however much stock it holds.
                let out_of_line = marks.is_some_and(|m| m.out_of_line(*max_id, *max_limit_id));
                if out_of_line
                    || super::sizing::needs_refill(
                        Trigger::Threshold { idle: options.idle },
                        stock,
                        *reference,
                    )
                {
                    work.push((node_name.clone(), *kind, *slot));
                }
            }
        }
        if let (false, Some(down)) = (answered, first_down) {
            return Err(down);
        }
        report.shards_below_threshold = work.len() as u64;
        progress.start(work.len() as u64);

        // Shards of one app on one node go together: one lock round trip, one
        // ledger transaction, one push round trip per batch.
        let mut batches: BTreeMap<(String, DispenserKind, u8), Vec<Slot>> = BTreeMap::new();
        for (node, kind, slot) in work {
            batches
                .entry((node, kind, slot.app))
                .or_default()
                .push(slot);
        }
        let batches: Vec<(String, DispenserKind, Vec<Slot>)> = batches
            .into_iter()
            .flat_map(|((node, kind, _), slots)| {
                slots
                    .chunks(RELOAD_BATCH)
                    .map(|chunk| (node.clone(), kind, chunk.to_vec()))
                    .collect::<Vec<_>>()
            })
            .collect();

        // Set by the first batch that finds a backend down or refusing: the
        // batches still queued would only fail the same way, each after a timeout.
        let backend_down = AtomicBool::new(false);
        let backend_down = &backend_down;
        let results: Vec<_> = futures::stream::iter(batches)
            .map(|(node_name, kind, slots)| async move {
                let mut notes = Notes::default();
                let cancelled = options
                    .cancel
                    .as_ref()
                    .is_some_and(|c| c.load(Ordering::Acquire))
                    || backend_down.load(Ordering::Acquire);
                let outcome = if cancelled {
                    Ok(slots
                        .iter()
                        .map(|&slot| (slot, Ok(RefillOutcome::Skipped)))
                        .collect())
                } else {
                    match self.nodes().get(&node_name).await {
                        Ok(node) => {
                            let trigger = Trigger::Threshold { idle: options.idle };
                            self.refill_shards(&*node, kind, &slots, trigger, &mut notes)
                                .await
                        }
                        Err(e) => Err(e),
                    }
                };
                let stops = match &outcome {
                    Ok(shards) => shards
                        .iter()
                        .any(|(_, o)| o.as_ref().is_err_and(stops_the_run)),
                    Err(e) => stops_the_run(e),
                };
                if stops {
                    backend_down.store(true, Ordering::Release);
                }
                for _ in &slots {
                    progress.advance();
                }
                (node_name, slots, outcome, notes)
            })
            .buffer_unordered(options.jobs.max(1))
            .collect()
            .await;
        let mut down = None;
        for (node, slots, outcome, notes) in results {
            report.warnings.extend(notes.warnings);
            report.rollbacks.extend(notes.rollbacks);
            report.ledger_rollbacks.extend(notes.ledger_rollbacks);
            match outcome {
                Ok(shards) => {
                    for (slot, outcome) in shards {
                        match outcome {
                            Ok(RefillOutcome::Refilled { added }) => {
                                report.shards_refilled += 1;
                                report.ids_added += added;
                            }
                            Ok(RefillOutcome::NotNeeded) => {}
                            Ok(RefillOutcome::Skipped) => report.shards_skipped += 1,
                            Ok(RefillOutcome::Busy) => report.shards_busy += 1,
                            Ok(RefillOutcome::LockLost | RefillOutcome::Full) => {
                                report.segments_dropped += 1
                            }
                            Err(e) if stops_the_run(&e) => {
                                down.get_or_insert(e);
                            }
                            Err(e) => report.shard_error(&node, slot, &e),
                        }
                    }
                }
                Err(e) if stops_the_run(&e) => {
                    down.get_or_insert(e);
                }
                Err(e) => {
                    for &slot in &slots {
                        report.shard_error(&node, slot, &e);
                    }
                }
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
        let default_name = self.nodes().default_node().to_string();
        let result: Result<()> = async {
            let default = self.nodes().get(&default_name).await?;
            // A node without hints (the embedded store) serves every app itself.
            let Some(keeper) = default.hints() else {
                return Ok(());
            };
            let hints = keeper.route_hints().await?;
            let in_scope = |app: &u8| only.is_none_or(|o| o == *app);
            for (app, route) in routes.iter().filter(|(a, _)| in_scope(a)) {
                let wanted = (route.node != default_name).then_some(route.node.as_str());
                if hints.get(app).map(String::as_str) != wanted {
                    keeper.set_route_hint(*app, wanted).await?;
                }
            }
            for app in hints
                .keys()
                .filter(|a| in_scope(a) && !routes.contains_key(a))
            {
                keeper.set_route_hint(*app, None).await?;
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
        let default = self.nodes().default_node().to_string();
        for node_name in self.nodes().names().await {
            let node = match self.nodes().get(&node_name).await {
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
                    error: format!("prune failed: {e}"),
                    ..ShardFailure::of(node.node(), slot, &e)
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
        let retired = under_lock(
            node,
            kind,
            slot,
            self.options().lock_ttl,
            |locked| async move { node.retire(kind, slot, &locked.token).await },
        )
        .await?;
        // Retiring under a lock we just took cannot lose it within the TTL.
        Ok(retired.map(|retired| retired.unwrap_or(0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shards_keys_are_made_generic_and_named_again_as_a_brace_expansion() {
        let five =
            "key id.gen.idList_1_5 (not id.gen.idList_1_50): redis-cli DEL id.gen.idList_1_5";
        let seven =
            "key id.gen.idList_1_7 (not id.gen.idList_1_50): redis-cli DEL id.gen.idList_1_7";
        let generic = shard_keys_generic(five, 1, 5);
        assert_eq!(generic, shard_keys_generic(seven, 1, 7));
        assert_eq!(
            generic.replace(SHARD_PLACEHOLDER, &brace_list(&[0, 1, 2])),
            "key id.gen.idList_1_{0..2} (not id.gen.idList_1_50): redis-cli DEL id.gen.idList_1_{0..2}"
        );
        assert_eq!(brace_list(&[1, 4, 5]), "{1,4,5}");
    }
}
