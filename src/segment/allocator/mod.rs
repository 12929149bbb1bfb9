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

//!
//! The work is split by path: `take` serves a `next` call (from stock, by a
//! refill it runs itself, or straight from the ledger), `refill` stocks
//! locked shards from one ledger transaction, and `compose` turns taken
//! indexes into IDs within the shard's limit. What both paths share (the
//! options, the notes, the ledger take and its reports) stays here.

mod compose;
mod refill;
mod take;

use super::DispenserKind;
use super::id::SHARDS;
pub use super::reload::{
    ExhaustedApp, FailureGroup, NoProgress, OrphanStock, ReloadOptions, ReloadProgress,
    ReloadReport, ShardFailure, shard_list,
};
use super::sizing::near_limit;
pub use super::sizing::{Trigger, Want};
use crate::error::{Error, Result};
use crate::store::{
    Dispenser, Ledger, LedgerRollback, LockToken, NodeSet, Rollback, SegmentRequest, Settled,
    ShardMarks, ShardTake, Slot, TakenSegment,
};
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;

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
    /// Nothing to hear about.
    pub fn is_empty(&self) -> bool {
        self.warnings.is_empty() && self.rollbacks.is_empty() && self.ledger_rollbacks.is_empty()
    }

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
    /// The node a move sealed the shard for: nothing is taken for it here.
    pub moved_to: Option<String>,
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

fn warn_near_limit(warnings: &mut Vec<String>, limit: u64, slot: Slot, max_id: u64) {
    if limit > 0 && near_limit(limit, slot.app, slot.shard, max_id) {
        warnings.push(format!(
            "app {} shard {} has used 90% or more of max_limit_id {limit}",
            slot.app, slot.shard
        ));
    }
}
