//! Storage behind small traits: a [`Ledger`] decides uniqueness durably (MySQL or
//! SQLite), a [`Dispenser`] serves ready indexes fast (a Redis node or SQLite).
//!
//! The one rule the split rests on: only [`SegmentSource::take_segments`] hands out
//! indexes, each exactly once. A dispenser merely caches indexes already taken,
//! so losing or corrupting a dispenser costs gaps, never repeats.

mod app;
pub mod distributed;
pub mod locking;
pub mod mysql;
pub mod nodes;
pub mod redis;
mod rollback;
mod route;
pub mod sizing;
pub(crate) mod sql_rows;
pub mod sqlite;
mod take;
pub mod tls;
mod traits;

pub use app::{
    AppChange, AppPolicy, AppRecord, AppSpec, ForeignRow, InitOutcome, InitReport, SealedApp,
    SealedShard, Sealing, ShardRow,
};
pub use nodes::NodeSet;
pub use rollback::{LedgerRollback, LedgerRollbackRecord, Rollback, RollbackRecord, short_id};
pub use route::{MovePhase, Route};
pub use take::{
    RefillMark, Segment, SegmentPlan, SegmentRequest, ShardState, ShardTake, TakenSegment,
};
pub use traits::{
    AppCatalog, Dispenser, Eviction, LeaseAdmin, LeaseStore, Ledger, Locked, PushOutcome, Pushed,
    Restock, RouteHints, RouteMoves, SegmentSource, Settled, Stock, StockPush, Taken, hints_of,
};

use crate::error::{Error, Result};
use crate::shard::DispenserKind;

/// Is `version` (`7.2.4`) at least `minimum` (major, minor)?
pub fn version_at_least(version: &str, minimum: (u32, u32)) -> bool {
    let mut parts = version
        .trim()
        .split(['.', '-'])
        .map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), Some(minor)) => (major, minor) >= minimum,
        (Some(major), None) => major > minimum.0,
        _ => false,
    }
}

/// Indexes left in a range dispenser's hash: the current segment `next..=last`
/// and the pending one, if any (an empty span counts 0). The one count both
/// Rust dispensers use; `lua/stock/prelude.lua`'s `stock_of` is its script twin.
pub fn range_count(next: i128, last: i128, pending: Option<(i128, i128)>) -> u64 {
    let span = |first: i128, last: i128| (last - first + 1).max(0);
    let stock = span(next, last) + pending.map_or(0, |(first, last)| span(first, last));
    u64::try_from(stock).unwrap_or(u64::MAX)
}

/// A held refill lock: the token proves it is still ours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockToken(pub String);

impl LockToken {
    /// A fresh random token.
    pub fn random() -> Self {
        LockToken(fresh_token())
    }
}

/// A fresh random token for a lock or a lease holder: 128 bits, as hex. The
/// one generator; two holders never draw the same.
pub fn fresh_token() -> String {
    random_hex(16)
}

/// Lowercase hex of `bytes` random bytes.
fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // getrandom only fails when the OS has no entropy source at all.
    getrandom::fill(&mut buf).expect("the OS random source is available");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}
/// What a node records beside each shard's stock about the ledger: the
/// witness of its highest segment, and the `max_limit_id` the stock obeys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShardMarks {
    pub witness: Option<u64>,
    pub max_limit_id: Option<u64>,
}

impl ShardMarks {
    /// Whether the shard must be brought in line with its ledger (whose
    /// `max_id` and `max_limit_id` are given): its stock may be older than
    /// the ledger (the witness is missing or behind `max_id`), or it obeys
    /// another limit (a changed one, or none recorded).
    pub fn out_of_line(&self, max_id: u64, max_limit_id: u64) -> bool {
        self.witness.is_none_or(|w| w < max_id) || self.max_limit_id != Some(max_limit_id)
    }
}
/// An entry in a dispenser that is not an index idgen could have stocked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    /// Where it was: the Redis key, or the embedded store's table and shard.
    pub key: String,
    /// The first such entry, as stored.
    pub entry: String,
    /// How many were dropped.
    pub count: u64,
}
/// One (app, shard) stock on a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slot {
    pub app: u8,
    pub shard: u8,
}

/// The one answer of a batch of one: the batch calls (`lock_many`,
/// `push_many`, `take_segments` …) answer once per item, so a call for one
/// item that gets no answer, or several, is a bug, not an outage.
pub(crate) fn only_one<T>(answers: Vec<T>) -> Result<T> {
    let mut answers = answers.into_iter();
    match (answers.next(), answers.next()) {
        (Some(answer), None) => Ok(answer),
        _ => Err(Error::Internal(
            "a batch of one did not give one answer".into(),
        )),
    }
}
