//! What a ledger take asks for and gives: the request for segments of one
//! app's shards, the shard as read under its row lock, and the segment taken.
//! The one place indexes come from, so its types stand apart.

use super::{AppPolicy, DispenserKind, Route};
use crate::error::Result;
use serde::Serialize;
use std::collections::BTreeMap;

/// An inclusive run of indexes, `first..=last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Segment {
    pub first: u64,
    pub last: u64,
}

impl Segment {
    /// How many indexes the run holds (never 0).
    pub fn count(&self) -> u64 {
        self.last - self.first + 1
    }

    pub fn indexes(&self) -> impl Iterator<Item = u64> {
        self.first..=self.last
    }
}

/// What was loaded into a shard's stock last time, for sizing the next step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefillMark {
    /// Unix ms when the segment was taken.
    pub loaded_at_ms: i64,
    /// How many indexes it held.
    pub loaded: u64,
    /// The stock right after it was pushed.
    pub stock_after: u64,
}
/// A shard as the ledger sees it inside the transaction that takes a segment.
#[derive(Debug, Clone)]
pub struct ShardState {
    pub app: u8,
    pub shard: u8,
    pub max_id: u64,
    pub step: u64,
    pub max_limit_id: u64,
    pub policy: AppPolicy,
    pub last_refill: Option<RefillMark>,
    pub route: Route,
    /// The dispenser the app records, read in the same transaction: the one a
    /// refill stocks.
    pub dispenser: DispenserKind,
}

/// The planner's answer: how many indexes to take, and what to remember.
#[derive(Debug, Clone, Copy)]
pub struct SegmentPlan {
    pub count: u64,
    pub mark: Option<RefillMark>,
    /// The caller consumes the segment itself instead of stocking a dispenser.
    pub direct: bool,
}

/// Segments wanted from shards of one app, taken in one transaction: the
/// ledger locks the shards, sizes each with [`crate::store::sizing::plan`]
/// and advances them together.
#[derive(Debug, Clone)]
pub struct SegmentRequest {
    pub app: u8,
    /// The node to be stocked: refused ([`crate::Error::Moved`]) unless the
    /// app's route allows it. `None` for a segment the caller consumes.
    pub node: Option<String>,
    /// Unix ms, for the refill marks and the sizing from consumption.
    pub now_ms: i64,
    /// Distinct shards, each with what is wanted from it.
    pub shards: Vec<(u8, crate::store::sizing::Want)>,
    /// Per shard, the end of the highest segment a witness outside the ledger
    /// saw it hand out. A shard whose `max_id` is below its floor went back in
    /// time: the ledger moves it past the floor before taking, and says so
    /// ([`TakenSegment::behind`]).
    pub floors: BTreeMap<u8, u64>,
}

/// What one shard of a [`SegmentRequest`] gave.
#[derive(Debug, Clone)]
pub struct TakenSegment {
    /// The indexes taken, never returned again; `None`: the plan took none.
    pub segment: Option<Segment>,
    /// The segment is for the caller, not for a dispenser.
    pub direct: bool,
    /// The shard as read under its lock, before the take (and after being
    /// moved past its floor).
    pub state: ShardState,
    /// The shard's `max_id` as found, when it was below the request's floor:
    /// the ledger had gone back in time and was moved past the floor.
    pub behind: Option<u64>,
}

/// One shard's answer to a [`SegmentRequest`]: an error here (the limit
/// reached, a route elsewhere, a missing row) leaves that shard untouched and
/// the others taken.
pub type ShardTake = (u8, Result<TakenSegment>);
