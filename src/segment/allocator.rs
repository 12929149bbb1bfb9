//! Issuing segment IDs and keeping dispensers stocked.
//!
//! Why an index can never be issued twice:
//! * indexes come only from [`SegmentSource::take_segments`](crate::store::SegmentSource::take_segments), which advances `max_id`
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
pub use super::reload::{
    ExhaustedApp, FailureGroup, NoProgress, OrphanStock, ReloadOptions, ReloadProgress,
    ReloadReport, ShardFailure, shard_list,
};
use super::sizing::near_limit;
pub use super::sizing::{Trigger, Want};
use crate::error::{Error, Result};
use crate::retry::Backoff;
use crate::store::locking::under_lock;
use crate::store::{
    Dispenser, Ledger, LedgerRollback, LockToken, NodeSet, PushOutcome, Rollback, Segment,
    SegmentRequest, Settled, ShardMarks, ShardTake, Slot, StockPush, Taken, TakenSegment,
};
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The most IDs one `next` call hands out.
pub const MAX_COUNT: u64 = 10_000_000;

/// The one rule for how many IDs one call may ask for.
pub fn check_count(count: u64) -> Result<()> {
    if count == 0 || count > MAX_COUNT {
        return Err(Error::invalid(
            "--count",
            format!("{count} is not between 1 and {MAX_COUNT}"),
            format!("ask for between 1 and {MAX_COUNT} IDs per call"),
        ));
    }
    Ok(())
}

/// How many times `next` stocks a shard itself before taking straight from the ledger.
const INLINE_REFILLS: u32 = 3;

/// How many route hints `next` follows before giving up (a loop is a misconfiguration).
const MAX_HOPS: u32 = 3;

/// How many times a shard's segment is taken again after the node's witness
/// refused it. The retake is floored at the witness, so only a witness raised
/// again meanwhile (a concurrent direct take) refuses it a second time.
const WITNESS_ROUNDS: u32 = 4;

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
    /// Shards whose ledger was found behind the node's witness, and moved past it.
    pub ledger_rollbacks: Vec<LedgerRollback>,
}

impl Notes {
    fn rollback(&mut self, rollback: Option<Rollback>) {
        self.rollbacks.extend(rollback);
    }

    /// Every note as a line for an operator: dataset changes first, then the
    /// ledger found behind, then the warnings. `ledger` describes the ledger.
    pub fn lines(&self, ledger: &str) -> Vec<String> {
        let mut lines = Rollback::summarize(&self.rollbacks);
        lines.extend(LedgerRollback::summarize(ledger, &self.ledger_rollbacks));
        lines.extend(self.warnings.iter().cloned());
        lines
    }

    /// Reports what bringing a shard in line with its ledger retired.
    fn settled(&mut self, node: &str, slot: Slot, max_limit_id: u64, settled: Settled) {
        if settled.stale > 0 {
            self.warnings.push(format!(
                "app {} shard {} on node {node}: retired {} indexes unserved (a gap): the stock was older than the ledger (its dataset was replaced inside the server, by SWAPDB, a COPY or MOVE back or DEBUG RELOAD, or a segment taken meanwhile was never recorded)",
                slot.app, slot.shard, settled.stale
            ));
        }
        if settled.over_limit > 0 {
            self.warnings.push(format!(
                "app {} shard {} on node {node}: retired {} indexes above max_limit_id {max_limit_id} unserved (a gap): the limit was lowered",
                slot.app, slot.shard, settled.over_limit
            ));
        }
    }
}

/// A shard whose refill lock the caller holds, with what its refill wants.
pub(crate) struct LockedShard {
    pub slot: Slot,
    pub token: LockToken,
    pub want: Want,
    /// What the node records about the ledger beside the stock (the witness
    /// floors the ledger take); `None` when it records nothing.
    pub marks: Option<ShardMarks>,
}

/// Whether a shard that a refill takes no segment for must still be brought
/// in line with its ledger ([`ShardMarks::out_of_line`]); a dispenser that
/// keeps no marks is its own ledger.
fn out_of_line(marks: Option<ShardMarks>, taken: &TakenSegment) -> bool {
    marks.is_some_and(|m| m.out_of_line(taken.state.max_id, taken.state.max_limit_id))
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

/// Issues segment IDs and refills dispensers, over any ledger and node set.
pub struct SegmentAllocator {
    ledger: Arc<dyn Ledger>,
    nodes: Arc<NodeSet>,
    options: AllocatorOptions,
}

fn random_shard() -> u8 {
    let mut byte = [0u8; 1];
    getrandom::fill(&mut byte).expect("the OS random source is available");
    byte[0] % SHARDS
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
        self.next_on(app, Self::shard_for(gate_pass), count).await
    }

    /// Takes segments from the ledger, counted for `--verbose`.
    async fn take_from_ledger(&self, request: &SegmentRequest) -> Result<Vec<ShardTake>> {
        let takes = self.ledger.take_segments(request).await?;
        let segments = takes
            .iter()
            .filter_map(|(_, taken)| taken.as_ref().ok()?.segment);
        let (count, indexes) = segments.fold((0, 0), |(n, sum), s| (n + 1, sum + s.count()));
        crate::activity::took_segments(count, indexes);
        Ok(takes)
    }

    /// The shard a gate pass picks, as the Java service does; without one, a
    /// random shard.
    pub fn shard_for(gate_pass: Option<&str>) -> u8 {
        gate_pass.map_or_else(random_shard, super::id::shard_for_gate_pass)
    }

    /// Issues `count` IDs of `app` from `shard`: what [`Self::next`] does
    /// once the shard is picked. A caller streaming a large count asks for it
    /// in pieces on one shard.
    pub async fn next_on(&self, app: u8, shard: u8, count: u64) -> Result<Issued> {
        check_count(count)?;
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
                        crate::store::hints_of(&*default)?
                            .set_route_hint(slot.app, Some(&to))
                            .await?;
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
                .take_direct(node, slot, remaining, issued)
                .await
                .map(Refilled::Direct);
        }
        *refills += 1;
        let notes = &mut issued.notes;
        let refilled = under_lock(
            node,
            kind,
            slot,
            self.options.lock_ttl,
            |mut locked| async move {
                notes.rollback(locked.rollback.take());
                let stock = locked.stock.unwrap_or(0);
                if stock > 0 {
                    // Someone stocked it between our take and our lock.
                    return Ok(Refilled::Stocked);
                }
                let want = Want::Refill {
                    trigger: Trigger::Empty,
                    stock,
                    direct_for: Some(remaining),
                };
                let batch = [LockedShard {
                    slot,
                    token: locked.token,
                    want,
                    marks: locked.marks,
                }];
                let outcome = self.refill_locked(node, &batch, notes).await;
                match outcome.and_then(only_one).and_then(|(_, outcome)| outcome) {
                    Ok((_, Some(direct))) => Ok(Refilled::Direct(direct)),
                    Ok((_, None)) => Ok(Refilled::Stocked),
                    Err(Error::Moved { node, .. }) => Ok(Refilled::Moved(node)),
                    Err(e) => Err(e),
                }
            },
        )
        .await?;
        match refilled {
            Some(refilled) => Ok(refilled),
            None => {
                // Another process is refilling: give it a moment, then stop waiting.
                let mut poll = Backoff::held_elsewhere(Instant::now() + self.options.lock_wait);
                while poll.pause().await {
                    let stock = node.stock(kind, &[slot]).await?;
                    if stock.first().copied().flatten().unwrap_or(0) > 0 {
                        return Ok(Refilled::Stocked);
                    }
                }
                self.take_direct(node, slot, remaining, issued)
                    .await
                    .map(Refilled::Direct)
            }
        }
    }

    /// Takes a segment for the caller alone: no stock, so no lock. It is
    /// recorded in the node's witness before it is served; one the witness
    /// refuses (the ledger went back, or another process recorded a later
    /// segment first) is a gap, and the ledger is asked again above it.
    async fn take_direct(
        &self,
        node: &dyn Dispenser,
        slot: Slot,
        wanted: u64,
        issued: &mut Issued,
    ) -> Result<Segment> {
        let mut floor = None;
        for _ in 0..WITNESS_ROUNDS {
            let request = SegmentRequest {
                app: slot.app,
                node: None,
                now_ms: crate::clock::process_now_ms(),
                shards: vec![(slot.shard, Want::Direct { wanted })],
                floors: floor.map(|f| (slot.shard, f)).into_iter().collect(),
            };
            let (_, taken) = only_one(self.take_from_ledger(&request).await?)?;
            let taken = taken?;
            self.note_behind(node, &[(slot, &taken)], &mut issued.notes)
                .await;
            let segment = taken.segment.ok_or(Error::StockEmpty {
                app: slot.app,
                shard: slot.shard,
            })?;
            match node.witness(slot, segment).await? {
                None => {
                    warn_near_limit(
                        &mut issued.notes.warnings,
                        taken.state.max_limit_id,
                        slot,
                        segment.last,
                    );
                    return Ok(segment);
                }
                Some(witness) => floor = Some(witness),
            }
        }
        Err(witness_ahead(node, slot, floor))
    }

    /// Reports the shards a ledger take found behind their floors, and
    /// records them on the node for `status` (losing that record must not
    /// fail the take).
    async fn note_behind(
        &self,
        node: &dyn Dispenser,
        takes: &[(Slot, &TakenSegment)],
        notes: &mut Notes,
    ) {
        let found: Vec<LedgerRollback> = takes
            .iter()
            .filter_map(|(slot, taken)| {
                Some(LedgerRollback {
                    app: slot.app,
                    shard: slot.shard,
                    ledger_max_id: taken.behind?,
                    witness: taken.state.max_id,
                })
            })
            .collect();
        if found.is_empty() {
            return;
        }
        let _: Result<()> = node.note_ledger_rollback(&found).await;
        notes.ledger_rollbacks.extend(found);
    }

    /// The common refill of shards of one app on one node, each already
    /// locked by the caller with its token: their segments come from one
    /// ledger transaction (which checks the route, moves a shard that went
    /// back in time past the node's witness, and sizes each from its want),
    /// then go to the node in one batch, each pushed only while its token
    /// holds. A segment sized for the caller (`direct`) is recorded in the
    /// witness and returned instead of pushed. A shard that takes no segment
    /// is still brought in line with the ledger (its limit, stock older than
    /// it). A segment the witness refuses is a gap, taken again above it. An
    /// error for the whole batch (the ledger or the node down) leaves every
    /// segment already taken a gap.
    ///
    /// The pushes go to the dispenser the ledger records for the app, read
    /// while the tokens hold the locks: `app set --dispenser` switches a shard
    /// under its lock, so a refill never restocks the dispenser it left.
    pub(crate) async fn refill_locked(
        &self,
        node: &dyn Dispenser,
        locked: &[LockedShard],
        notes: &mut Notes,
    ) -> Result<Vec<(Slot, Result<(RefillOutcome, Option<Segment>)>)>> {
        type Answer = Result<(RefillOutcome, Option<Segment>)>;
        let Some(first) = locked.first() else {
            return Ok(Vec::new());
        };
        let mut answers: Vec<Option<Answer>> = locked.iter().map(|_| None).collect();
        // The shards still to take (by position in `locked`), each with its floor.
        let mut pending: Vec<(usize, Option<u64>)> = locked
            .iter()
            .enumerate()
            .map(|(i, shard)| (i, shard.marks.and_then(|m| m.witness)))
            .collect();
        for _ in 0..WITNESS_ROUNDS {
            if pending.is_empty() {
                break;
            }
            let request = SegmentRequest {
                app: first.slot.app,
                node: Some(node.node().to_string()),
                now_ms: crate::clock::process_now_ms(),
                shards: pending
                    .iter()
                    .map(|&(i, _)| (locked[i].slot.shard, locked[i].want))
                    .collect(),
                floors: pending
                    .iter()
                    .filter_map(|&(i, floor)| Some((locked[i].slot.shard, floor?)))
                    .collect(),
            };
            let takes = self.take_from_ledger(&request).await?;
            let taken_ok: Vec<(Slot, &TakenSegment)> = pending
                .iter()
                .zip(&takes)
                .filter_map(|(&(i, _), (_, taken))| Some((locked[i].slot, taken.as_ref().ok()?)))
                .collect();
            self.note_behind(node, &taken_ok, notes).await;
            let mut retake = Vec::new();
            let (mut pushes, mut pushed_at) = (Vec::new(), Vec::new());
            // The app's recorded dispenser, read in the segments' transaction.
            let mut kind = None;
            for (&(i, _), (_, taken)) in pending.iter().zip(takes) {
                let shard = &locked[i];
                let taken = match taken {
                    Ok(taken) => taken,
                    Err(e) => {
                        // A shard at its limit takes nothing, but its stock
                        // must still obey the limit (lowered by SQL, say).
                        if let (Error::LimitReached { max_limit_id, .. }, Some(marks)) =
                            (&e, shard.marks)
                        {
                            let at = marks.witness.unwrap_or(0);
                            if let Ok(Some(settled)) = node
                                .settle(shard.slot, &shard.token, at, *max_limit_id)
                                .await
                            {
                                notes.settled(node.node(), shard.slot, *max_limit_id, settled);
                            }
                        }
                        answers[i] = Some(Err(e));
                        continue;
                    }
                };
                kind = Some(taken.state.dispenser);
                let limit = taken.state.max_limit_id;
                let Some(segment) = taken.segment else {
                    if !out_of_line(shard.marks, &taken) {
                        answers[i] = Some(Ok((RefillOutcome::NotNeeded, None)));
                        continue;
                    }
                    let settled = node
                        .settle(shard.slot, &shard.token, taken.state.max_id, limit)
                        .await;
                    answers[i] = Some(settled.map(|settled| match settled {
                        Some(settled) => {
                            notes.settled(node.node(), shard.slot, limit, settled);
                            (RefillOutcome::NotNeeded, None)
                        }
                        None => (RefillOutcome::LockLost, None),
                    }));
                    continue;
                };
                warn_near_limit(&mut notes.warnings, limit, shard.slot, segment.last);
                if taken.direct {
                    // Served by the caller: witnessed first, like a direct take.
                    match node.witness(shard.slot, segment).await {
                        Ok(None) => {
                            answers[i] = Some(Ok((RefillOutcome::NotNeeded, Some(segment))))
                        }
                        Ok(Some(witness)) => retake.push((i, Some(witness))),
                        Err(e) => answers[i] = Some(Err(e)),
                    }
                    continue;
                }
                pushed_at.push(i);
                pushes.push(StockPush {
                    slot: shard.slot,
                    segment,
                    max_limit_id: limit,
                    token: shard.token.clone(),
                });
            }
            if let Some(kind) = kind.filter(|_| !pushes.is_empty()) {
                // A crash from here until the push leaves gaps: the ledger has moved on.
                crate::failpoint::hit("segment.after_take")?;
                let pushed = node.push_many(kind, &pushes).await?;
                for ((push, pushed), i) in pushes.iter().zip(pushed).zip(pushed_at) {
                    let pushed = match pushed {
                        Ok(pushed) => pushed,
                        Err(e) => {
                            answers[i] = Some(Err(e));
                            continue;
                        }
                    };
                    notes.rollback(pushed.rollback);
                    notes.settled(node.node(), push.slot, push.max_limit_id, pushed.settled);
                    if pushed.switched > 0 {
                        notes.warnings.push(format!(
                            "app {} shard {} on node {}: retired {} indexes left in the {} dispenser unserved (a gap): the app is served by the {} dispenser",
                            push.slot.app,
                            push.slot.shard,
                            node.node(),
                            pushed.switched,
                            kind.other().as_str(),
                            kind.as_str()
                        ));
                    }
                    let outcome = match pushed.outcome {
                        PushOutcome::Stocked(_) => RefillOutcome::Refilled {
                            added: push.segment.count(),
                        },
                        PushOutcome::LockLost => RefillOutcome::LockLost,
                        PushOutcome::Full => RefillOutcome::Full,
                        PushOutcome::Behind(witness) => {
                            retake.push((i, Some(witness)));
                            continue;
                        }
                    };
                    answers[i] = Some(Ok((outcome, None)));
                }
            }
            pending = retake;
        }
        for (i, floor) in pending {
            answers[i] = Some(Err(witness_ahead(node, locked[i].slot, floor)));
        }
        Ok(locked
            .iter()
            .zip(answers)
            .map(|(shard, answer)| {
                let answer = answer.unwrap_or_else(|| {
                    Err(Error::Internal(format!(
                        "the refill of app {} shard {} gave no answer",
                        shard.slot.app, shard.slot.shard
                    )))
                });
                (shard.slot, answer)
            })
            .collect())
    }

    /// Refills shards of one app on one node where the trigger's threshold
    /// says so: locks them in one batch (a shard someone else holds is
    /// `Busy`), refills the locked ones together, and unlocks them.
    pub async fn refill_shards(
        &self,
        node: &dyn Dispenser,
        kind: DispenserKind,
        slots: &[Slot],
        trigger: Trigger,
        notes: &mut Notes,
    ) -> Result<Vec<(Slot, Result<RefillOutcome>)>> {
        let answers = node.lock_many(kind, slots, self.options.lock_ttl).await?;
        let mut results: Vec<(Slot, Result<RefillOutcome>)> = Vec::with_capacity(slots.len());
        let mut locked = Vec::new();
        for (&slot, answer) in slots.iter().zip(answers) {
            match answer {
                Ok(Some(mut lock)) => {
                    notes.rollback(lock.rollback.take());
                    let want = Want::Refill {
                        trigger,
                        stock: lock.stock.unwrap_or(0),
                        direct_for: None,
                    };
                    locked.push(LockedShard {
                        slot,
                        token: lock.token,
                        want,
                        marks: lock.marks,
                    });
                }
                Ok(None) => results.push((slot, Ok(RefillOutcome::Busy))),
                Err(e) => results.push((slot, Err(e))),
            }
        }
        let refilled = self.refill_locked(node, &locked, notes).await;
        let tokens: Vec<(Slot, LockToken)> = locked
            .into_iter()
            .map(|shard| (shard.slot, shard.token))
            .collect();
        let unlocked = node.unlock_many(&tokens).await;
        results.extend(
            refilled?
                .into_iter()
                .map(|(slot, outcome)| (slot, outcome.map(|(outcome, _)| outcome))),
        );
        unlocked?;
        Ok(results)
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
        let results = self
            .refill_shards(node, kind, &[slot], trigger, notes)
            .await?;
        only_one(results)?.1
    }
}

/// The error for a shard whose segments the witness kept refusing.
fn witness_ahead(node: &dyn Dispenser, slot: Slot, witness: Option<u64>) -> Error {
    Error::WitnessAhead {
        app: slot.app,
        shard: slot.shard,
        node: node.node().to_string(),
        witness: witness.unwrap_or(0),
    }
}

/// The one answer of a batch of one.
fn only_one<T>(answers: Vec<T>) -> Result<T> {
    let mut answers = answers.into_iter();
    match (answers.next(), answers.next()) {
        (Some(answer), None) => Ok(answer),
        _ => Err(Error::Internal(
            "a batch of one shard did not give one answer".into(),
        )),
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
