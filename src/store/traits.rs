//! The capability traits a store implements: a ledger's (apps, segments,
//! route moves), a dispenser's (stock, restock, route hints) and a lease
//! store's (the holder's hot path, the operator's administration: see
//! `lease`), with the answers their calls return.

use super::{
    AppChange, AppRecord, AppSpec, ForeignRow, InitReport, LedgerRollback, LedgerRollbackRecord,
    LockToken, Malformed, RefillMark, Rollback, RollbackRecord, Route, Segment, SegmentRequest,
    ShardMarks, ShardTake, Slot, only_one,
};
use crate::error::Result;
use crate::shard::DispenserKind;
use async_trait::async_trait;
use std::collections::BTreeMap;
use std::time::Duration;

pub(crate) mod lease;

pub use lease::{LeaseAdmin, LeaseStore};

/// Durable allocation: the only place where uniqueness is decided.
#[async_trait]
pub trait Ledger: AppCatalog + SegmentSource {
    /// Where the ledger lives, redacted.
    fn describe(&self) -> String;

    /// The server's (or library's) version, for `status`.
    async fn server_version(&self) -> Result<String>;

    /// Creates `id_alloc` and idgen's own tables if missing.
    async fn ensure_schema(&self) -> Result<()>;

    /// Moving apps between nodes, when this ledger routes apps to several
    /// (MySQL does; the embedded store has one node and lacks it).
    fn moves(&self) -> Option<&dyn RouteMoves> {
        None
    }
}

/// The apps a ledger knows: their rows, limits, step bounds and recorded
/// dispenser, read and changed under the rows' locks.
#[async_trait]
pub trait AppCatalog: Send + Sync {
    /// Seeds an app's 64 shards in one transaction: all or nothing.
    async fn init_app(&self, spec: &AppSpec) -> Result<InitReport>;

    /// One app, or `None` if it has no shard rows.
    async fn app(&self, app: u8) -> Result<Option<AppRecord>>;

    /// Every app with its shards.
    async fn apps(&self) -> Result<Vec<AppRecord>>;

    /// Rows of `id_alloc` with an app outside 0..=255 or a shard outside 0..=63,
    /// which [`AppCatalog::apps`] leaves out, for `status` to report.
    async fn foreign_rows(&self) -> Result<Vec<ForeignRow>>;

    /// The dispenser recorded for `app` ([`DispenserKind::Queue`] when none is).
    async fn dispenser(&self, app: u8) -> Result<DispenserKind>;

    /// Changes an existing app under its row locks; returns it as changed.
    /// [`AppChange::apply_to`] decides what is allowed.
    async fn update_app(&self, app: u8, change: &AppChange) -> Result<AppRecord>;
}

/// The one source of indexes: segments taken under the shards' row locks,
/// the refill history that sizes them, and the routes that say where they go.
#[async_trait]
pub trait SegmentSource: Send + Sync {
    /// Takes segments for shards of one app in one transaction: reads the
    /// shards locked, sizes each with the pure planner, advances their
    /// `max_id` and records the refill marks. The returned indexes are never
    /// returned again. One answer per requested shard, in request order; an
    /// error for the whole request (the app unknown or sealed, the store down)
    /// takes nothing.
    async fn take_segments(&self, request: &SegmentRequest) -> Result<Vec<ShardTake>>;

    /// The last refill of every shard that has had one, for the stock runway `status` shows.
    async fn refill_marks(&self) -> Result<Vec<(Slot, RefillMark)>>;

    /// Routes of the apps that have one; apps without a route use the default node.
    async fn routes(&self) -> Result<BTreeMap<u8, Route>>;
}

/// Moving an app between Redis nodes: the durable route changes, made under
/// the route row's lock. [`Route`]'s transitions decide what is allowed; the
/// ledger only persists them.
#[async_trait]
pub trait RouteMoves: Send + Sync {
    /// Starts (or resumes) moving `app` to node `to`: refills may stock `to` from
    /// now on, and still the current node. Refuses a move to another node while
    /// one is under way. Returns the route after the call.
    async fn begin_move(&self, app: u8, to: &str) -> Result<Route>;

    /// Makes `to` the app's node; the old one is only retired from now on.
    async fn switch_route(&self, app: u8, to: &str) -> Result<Route>;

    /// Ends the move once the old node's stock is gone.
    async fn finish_move(&self, app: u8) -> Result<Route>;
}

/// The answer of [`Stock::take`].
#[derive(Debug, Default)]
pub struct Taken {
    /// The indexes handed out, in order.
    pub indexes: Vec<u64>,
    /// Entries that were not valid indexes: dropped (a gap, never a repeat) and reported.
    pub malformed: Option<Malformed>,
    /// The route hint this node holds for the app, if any.
    pub route_hint: Option<String>,
    /// The shard's `max_limit_id` as recorded with the stock (0: no limit);
    /// `None` when the dispenser does not know it.
    pub max_limit_id: Option<u64>,
    /// Set when the stock was retired before the take: see [`Rollback`].
    pub rollback: Option<Rollback>,
    /// The dispenser the shard's stock records it is served by; `None` when
    /// it records none (never stocked, or stocked by another tool): the
    /// ledger's record then decides.
    pub kind: Option<DispenserKind>,
}

/// The answer of [`Restock::lock`] when the lock was taken.
#[derive(Debug)]
pub struct Locked {
    pub token: LockToken,
    /// The stock seen under the lock (`None`: missing).
    pub stock: Option<u64>,
    /// Set when stale stock was retired under the lock.
    pub rollback: Option<Rollback>,
    /// What the node records about the ledger beside the stock (the witness
    /// is the floor of the refill's ledger take); `None` for a dispenser that
    /// is its own ledger and records nothing.
    pub marks: Option<ShardMarks>,
    /// The node a move sealed the shard for: this node stocks nothing for it
    /// (see [`RouteHints::seal`]). Always `None` on a store of one node.
    pub moved_to: Option<String>,
}

/// What happened to a pushed segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushOutcome {
    /// Stocked; the stock now holds this many indexes.
    Stocked(u64),
    /// Our lock expired or was taken over: the segment was dropped (a gap).
    LockLost,
    /// A range dispenser already holds a current and a pending segment: dropped (a gap).
    Full,
    /// The segment is at or below the shard's witness (the end of the
    /// highest segment ever taken from the ledger): the ledger handed out
    /// those indexes before, or another process recorded a later segment
    /// first. Nothing was stocked; take again above the witness.
    Behind(u64),
}

/// One segment for [`Restock::push_many`].
#[derive(Debug, Clone)]
pub struct StockPush {
    pub slot: Slot,
    pub segment: Segment,
    pub max_limit_id: u64,
    pub token: LockToken,
    /// Release the lock in the same call when the push ends the shard's
    /// refill (anything but [`PushOutcome::Behind`], after which the refill
    /// takes again under the lock), if the node can; [`Pushed::unlocked`]
    /// says whether it did.
    pub release: bool,
}

/// The answer of [`Restock::push`].
#[derive(Debug)]
pub struct Pushed {
    pub outcome: PushOutcome,
    /// Set when stale stock was retired before the push.
    pub rollback: Option<Rollback>,
    /// Indexes retired unserved from the other dispenser, because the shard
    /// was served by it before (the app's dispenser was changed).
    pub switched: u64,
    /// Indexes retired unserved before the push (see [`Settled`]).
    pub settled: Settled,
    /// The lock is no longer ours to release: the push released it (asked
    /// with [`StockPush::release`]), or found it gone.
    pub unlocked: bool,
}

/// What bringing a shard in line with its ledger retired, unserved (a gap).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Settled {
    /// Stock older than the ledger: the shard's witness was behind the
    /// ledger's `max_id` (the dataset was replaced inside the server process,
    /// or a segment taken meanwhile was never recorded). Not counted the
    /// first time a shard gets a witness.
    pub stale: u64,
    /// Stock above the shard's `max_limit_id` (lowered since it was stocked).
    pub over_limit: u64,
}

/// A fast store of ready indexes: a Redis node, or the embedded store.
#[async_trait]
pub trait Dispenser: Stock + Restock {
    /// The node's name in the configuration.
    fn node(&self) -> &str;

    /// Where the node lives, redacted.
    fn describe(&self) -> String;

    /// Route hints, when this node keeps them (a Redis node does; the
    /// embedded store has one node, so no app is ever elsewhere).
    fn hints(&self) -> Option<&dyn RouteHints> {
        None
    }

    /// The server's version, for `status`.
    async fn server_version(&self) -> Result<String>;

    /// Whether the server evicts keys that have no expiry when it is full (a
    /// `maxmemory` limit under an `allkeys-*` policy), for `status`. `None`
    /// when it never does; a store that keeps what it is given never does.
    async fn eviction(&self) -> Result<Option<Eviction>> {
        Ok(None)
    }
}

/// A server that evicts any key when it reaches its memory limit: idgen's
/// stock, stamps and witnesses included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Eviction {
    /// `maxmemory-policy`, an `allkeys-*` one.
    pub policy: String,
    /// `maxmemory`, in bytes (never 0: no limit evicts nothing).
    pub maxmemory: u64,
}

impl Eviction {
    /// The eviction `INFO memory` describes, if any key can be evicted.
    pub fn from_info(maxmemory: &str, policy: &str) -> Option<Eviction> {
        let maxmemory = maxmemory.trim().parse::<u64>().ok().filter(|&m| m > 0)?;
        policy.trim().starts_with("allkeys-").then(|| Eviction {
            policy: policy.trim().to_string(),
            maxmemory,
        })
    }
}

/// Reading and taking a node's stock: what `next` and `status` need.
#[async_trait]
pub trait Stock: Send + Sync {
    /// Takes up to `n` indexes from one shard's stock, in one round trip.
    async fn take(&self, kind: DispenserKind, slot: Slot, n: u64) -> Result<Taken>;

    /// Stock of many shards (`None`: missing), in one round trip.
    async fn stock(&self, kind: DispenserKind, slots: &[Slot]) -> Result<Vec<Option<u64>>>;

    /// [`Stock::stock`], each shard judged alone: one whose keys hold data
    /// idgen did not write fails by itself, naming the key. An error for the
    /// whole call is the node's (down, refusing, not the master).
    async fn stock_each(
        &self,
        kind: DispenserKind,
        slots: &[Slot],
    ) -> Result<Vec<Result<Option<u64>>>> {
        Ok(self.stock(kind, slots).await?.into_iter().map(Ok).collect())
    }

    /// Every shard that has stock of this kind on the node (for pruning).
    async fn stocked_slots(&self, kind: DispenserKind) -> Result<Vec<Slot>>;

    /// Records the shard's `max_limit_id` beside its stock, after a take that
    /// found it unknown (stock another tool pushed). A dispenser that always
    /// knows the limit has nothing to record.
    async fn note_limit(&self, _slot: Slot, _max_limit_id: u64) -> Result<()> {
        Ok(())
    }

    /// The last dataset change this node detected (see [`Rollback`]), for
    /// `status`. A dispenser that is its own ledger never goes back in time
    /// alone, so it has none.
    async fn last_rollback(&self) -> Result<Option<RollbackRecord>> {
        Ok(None)
    }

    /// What the node records about the ledger beside each shard's stock, in
    /// one round trip, so that `reload-segments` can find shards to bring in
    /// line with it; each shard judged alone, as by [`Stock::stock_each`]. A
    /// dispenser that is its own ledger records nothing: `None`.
    async fn marks(&self, _slots: &[Slot]) -> Result<Option<Vec<Result<ShardMarks>>>> {
        Ok(None)
    }

    /// Records that the ledger was found behind this node's witnesses, for `status`.
    async fn note_ledger_rollback(&self, _rollbacks: &[LedgerRollback]) -> Result<()> {
        Ok(())
    }

    /// The last time the ledger was found behind this node's witnesses.
    async fn last_ledger_rollback(&self) -> Result<Option<LedgerRollbackRecord>> {
        Ok(None)
    }
}

/// Refilling a node's stock under each shard's refill lock: what refills,
/// moves and dispenser switches need.
#[async_trait]
pub trait Restock: Send + Sync {
    /// Takes the shard's refill lock (`None` if someone holds it), reading
    /// the stock under it: a batch of one.
    async fn lock(&self, kind: DispenserKind, slot: Slot, ttl: Duration) -> Result<Option<Locked>> {
        only_one(self.lock_many(kind, &[slot], ttl).await?)?
    }

    /// [`Restock::lock`] for many shards; one answer per slot, in order, in
    /// one round trip or one transaction.
    async fn lock_many(
        &self,
        kind: DispenserKind,
        slots: &[Slot],
        ttl: Duration,
    ) -> Result<Vec<Result<Option<Locked>>>>;

    /// Appends a segment to the stock, only while `token` still holds the lock,
    /// and records the shard's `max_limit_id` beside it (0: no limit). The
    /// lock stays: a batch of one.
    async fn push(
        &self,
        kind: DispenserKind,
        slot: Slot,
        segment: Segment,
        max_limit_id: u64,
        token: &LockToken,
    ) -> Result<Pushed> {
        let push = StockPush {
            slot,
            segment,
            max_limit_id,
            token: token.clone(),
            release: false,
        };
        only_one(self.push_many(kind, &[push]).await?)?
    }

    /// [`Restock::push`] for many shards, each under its own lock (and
    /// releasing it when asked, see [`StockPush::release`]); one answer per
    /// push, in order, in one round trip or one transaction.
    async fn push_many(
        &self,
        kind: DispenserKind,
        pushes: &[StockPush],
    ) -> Result<Vec<Result<Pushed>>>;

    /// Records a segment taken from the ledger for one caller (no stock, no
    /// lock) in the shard's witness before any index of it is served. Returns
    /// `Some(witness)`, recording nothing, when the segment is at or below it.
    /// A dispenser that is its own ledger cannot see it go back: `None`.
    async fn witness(&self, _slot: Slot, _segment: Segment) -> Result<Option<u64>> {
        Ok(None)
    }

    /// Brings a shard that a refill took no segment for in line with the
    /// ledger, while `token` holds its lock: records `max_limit_id`, and
    /// retires stock older than the ledger's `max_id` or above the limit.
    /// `None`: the lock was lost, nothing changed. A dispenser that is its own
    /// ledger is always in line.
    async fn settle(
        &self,
        _slot: Slot,
        _token: &LockToken,
        _ledger_max_id: u64,
        _max_limit_id: u64,
    ) -> Result<Option<Settled>> {
        Ok(Some(Settled::default()))
    }

    /// Releases the lock if `token` still holds it.
    async fn unlock(&self, slot: Slot, token: &LockToken) -> Result<bool>;

    /// [`Restock::unlock`] for many shards; a lock no longer ours is left alone.
    async fn unlock_many(&self, locks: &[(Slot, LockToken)]) -> Result<()> {
        for (slot, token) in locks {
            self.unlock(*slot, token).await?;
        }
        Ok(())
    }

    /// Deletes the shard's stock while `token` holds the lock; returns how many
    /// indexes were dropped (`None`: the lock was lost, nothing deleted).
    async fn retire(
        &self,
        kind: DispenserKind,
        slot: Slot,
        token: &LockToken,
    ) -> Result<Option<u64>>;

    /// Makes `kind` the shard's dispenser while `token` holds the lock: the
    /// other dispenser's stock is retired unserved (a gap). Returns how many
    /// indexes that dropped (`None`: the lock was lost, nothing changed).
    async fn switch_kind(
        &self,
        kind: DispenserKind,
        slot: Slot,
        token: &LockToken,
    ) -> Result<Option<u64>>;
}

/// Which node serves a moved app, kept on the default node so that `next`
/// finds it in the same round trip as its take.
#[async_trait]
pub trait RouteHints: Send + Sync {
    /// Records which node serves `app` (`None`: clear).
    async fn set_route_hint(&self, app: u8, node: Option<&str>) -> Result<()>;

    /// Every route hint the node holds.
    async fn route_hints(&self) -> Result<BTreeMap<u8, String>>;

    /// Seals a shard on this node for a move to node `to`, while `token`
    /// holds its refill lock: from then on this node stocks nothing for the
    /// shard, whatever the ledger's route says, until [`RouteHints::admit`]
    /// lets it again. Returns the shard's witness, read in the same step
    /// (`Ok(None)`: the lock was lost, nothing changed; `Ok(Some(None))`: no
    /// witness yet). The seal lives beside the witness, not in the ledger,
    /// so a ledger that goes back in time cannot lift it.
    async fn seal(&self, slot: Slot, token: &LockToken, to: &str) -> Result<Option<Option<u64>>>;

    /// Lets this node stock a shard again: raises its witness to `witness`
    /// (the sealed node's; never lowered), then lifts its seal, in one step.
    async fn admit(&self, slot: Slot, witness: Option<u64>) -> Result<()>;

    /// Raises this node's witness for a shard to `witness` (a sealed node's;
    /// never lowered) and leaves its seal, if any, as it is, unless the seal
    /// is for `lift_sealed_for`: then it is lifted, in the same step as the
    /// check, so a seal set here later, for another node, is never lifted.
    /// This is what a take does before it follows a seal here, since a move
    /// killed between sealing the other node and admitting this one left
    /// this node's witness behind (and, on a move back, this node sealed for
    /// the other). Returns the node the shard stays sealed for here, if any.
    async fn carry(
        &self,
        slot: Slot,
        witness: Option<u64>,
        lift_sealed_for: Option<&str>,
    ) -> Result<Option<String>>;
}

/// The route hints of `node`, which a move between Redis nodes needs.
pub fn hints_of(node: &dyn Dispenser) -> Result<&dyn RouteHints> {
    node.hints().ok_or_else(|| {
        crate::error::Error::Internal(format!(
            "node {} keeps no route hints, yet an app moved to or from it",
            node.node()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::Eviction;

    #[test]
    fn only_a_limit_under_an_allkeys_policy_evicts_any_key() {
        assert_eq!(
            Eviction::from_info("1073741824", "allkeys-lru"),
            Some(Eviction {
                policy: "allkeys-lru".into(),
                maxmemory: 1 << 30,
            })
        );
        assert!(Eviction::from_info("100", "allkeys-random").is_some());
        // No limit: nothing is evicted, whatever the policy says.
        assert_eq!(Eviction::from_info("0", "allkeys-lru"), None);
        // Only keys with an expiry, or none at all.
        assert_eq!(Eviction::from_info("100", "volatile-lru"), None);
        assert_eq!(Eviction::from_info("100", "noeviction"), None);
        // A server that does not say (an old or odd one) is not accused.
        assert_eq!(Eviction::from_info("", ""), None);
    }
}
