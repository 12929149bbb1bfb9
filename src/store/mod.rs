//! Storage behind small traits: a [`Ledger`] decides uniqueness durably (MySQL or
//! SQLite), a [`Dispenser`] serves ready indexes fast (a Redis node or SQLite).
//!
//! The one rule the split rests on: only [`SegmentSource::take_segments`] hands out
//! indexes, each exactly once. A dispenser merely caches indexes already taken,
//! so losing or corrupting a dispenser costs gaps, never repeats.

pub mod mysql;
pub mod nodes;
pub mod redis;
mod route;
pub mod sizing;
pub(crate) mod sql_rows;
pub mod sqlite;
pub mod tls;

pub use nodes::NodeSet;
pub use route::{MovePhase, Route};

use crate::error::Result;
use crate::shard::DispenserKind;
use async_trait::async_trait;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

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

/// Per-app bounds on the consumption-based step sizing (`segment::sizing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AppPolicy {
    pub min_step: u64,
    pub max_step: u64,
    /// A segment should last about this long at the observed rate.
    #[serde(serialize_with = "serialize_secs")]
    pub target: Duration,
}

impl AppPolicy {
    /// The policy of an app that idgen did not create (the Java service's apps).
    pub fn for_step(step: u64) -> Self {
        AppPolicy {
            min_step: step,
            max_step: step.saturating_mul(10),
            target: Duration::from_secs(300),
        }
    }
}

fn serialize_secs<S: serde::Serializer>(
    d: &Duration,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_secs())
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
}

/// What one shard of a [`SegmentRequest`] gave.
#[derive(Debug, Clone)]
pub struct TakenSegment {
    /// The indexes taken, never returned again; `None`: the plan took none.
    pub segment: Option<Segment>,
    /// The segment is for the caller, not for a dispenser.
    pub direct: bool,
    /// The shard as read under its lock, before the take.
    pub state: ShardState,
}

/// One shard's answer to a [`SegmentRequest`]: an error here (the limit
/// reached, a route elsewhere, a missing row) leaves that shard untouched and
/// the others taken.
pub type ShardTake = (u8, Result<TakenSegment>);

/// A new app as `init-app` describes it.
#[derive(Debug, Clone, Serialize)]
pub struct AppSpec {
    pub app: u8,
    pub name: String,
    pub description: Option<String>,
    pub step: u64,
    pub max_limit_id: u64,
    pub policy: AppPolicy,
    /// Which dispenser serves the app: recorded at creation, changed only by
    /// `idgen app set --dispenser`, so every host serves the same stock.
    pub dispenser: DispenserKind,
}

impl AppSpec {
    /// Checks every field; the error names the field and the fix.
    pub fn validated(
        app: u8,
        name: &str,
        description: Option<&str>,
        step: u64,
        max_limit_id: u64,
        policy: AppPolicy,
    ) -> Result<Self> {
        use crate::error::Error;
        if name.trim().is_empty() {
            return Err(Error::invalid(
                "--name",
                "the app name is empty",
                "give the app a name, e.g. --name orders",
            ));
        }
        if name.chars().count() > 128 {
            return Err(Error::invalid(
                "--name",
                format!(
                    "{} characters is longer than id_alloc.app_name allows (128)",
                    name.chars().count()
                ),
                "use a name of at most 128 characters",
            ));
        }
        if description.is_some_and(|d| d.chars().count() > 255) {
            return Err(Error::invalid(
                "--description",
                "longer than id_alloc.description allows (255 characters)",
                "shorten the description to 255 characters",
            ));
        }
        if step == 0 || step > i32::MAX as u64 {
            return Err(Error::invalid(
                "--step",
                format!("{step} is outside 1..={}", i32::MAX),
                "use a step of at least 1 (id_alloc.step is an int)",
            ));
        }
        if max_limit_id > i64::MAX as u64 {
            return Err(Error::invalid(
                "--max-limit-id",
                format!("{max_limit_id} does not fit id_alloc.max_limit_id (bigint)"),
                "use 0 for no limit, or a value up to 9223372036854775807",
            ));
        }
        if max_limit_id > 0
            && crate::shard::max_index_within(max_limit_id, app, crate::shard::SHARDS - 1).is_none()
        {
            let minimum = crate::shard::SegmentId {
                index: 1,
                shard: crate::shard::SHARDS - 1,
                app,
            }
            .compose()?;
            return Err(Error::invalid(
                "--max-limit-id",
                format!("{max_limit_id} leaves shard 63 of app {app} no ID at all"),
                format!("use 0 for no limit, or at least {minimum}"),
            ));
        }
        if policy.min_step == 0
            || policy.min_step > policy.max_step
            || policy.max_step > i32::MAX as u64
        {
            return Err(Error::invalid(
                "--min-step/--max-step",
                format!(
                    "bounds {}..={} are not a valid range",
                    policy.min_step, policy.max_step
                ),
                "use 1 <= --min-step <= --max-step <= 2147483647",
            ));
        }
        if policy.target.is_zero() {
            return Err(Error::invalid(
                "--target-interval",
                "the interval is zero",
                "use how long a segment should last, e.g. --target-interval 5m",
            ));
        }
        Ok(AppSpec {
            app,
            name: name.to_string(),
            description: description.map(str::to_string),
            step,
            max_limit_id,
            policy,
            dispenser: DispenserKind::Queue,
        })
    }

    /// The same app, served by `dispenser`.
    pub fn with_dispenser(self, dispenser: DispenserKind) -> Self {
        AppSpec { dispenser, ..self }
    }
}

/// A change to an existing app (`idgen app set`); `None` keeps the stored value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppChange {
    pub name: Option<String>,
    pub step: Option<u64>,
    pub min_step: Option<u64>,
    pub max_step: Option<u64>,
    pub max_limit_id: Option<u64>,
    pub dispenser: Option<DispenserKind>,
}

impl AppChange {
    pub fn is_empty(&self) -> bool {
        *self == AppChange::default()
    }

    /// The app as it will be, checked against the app as stored, which the
    /// ledger reads under the app's row locks (the locks a refill takes), so
    /// no index is issued between the check and the change. `max_limit_id` is
    /// only ever raised: an ID issued under the old limit could otherwise fall
    /// outside the new one, or a lowered limit be raised again over it.
    pub fn apply_to(&self, record: &AppRecord) -> Result<AppSpec> {
        use crate::error::Error;
        let step = self.step.unwrap_or(record.step());
        let policy = AppPolicy {
            min_step: self.min_step.unwrap_or(record.policy.min_step),
            max_step: self.max_step.unwrap_or(record.policy.max_step),
            target: record.policy.target,
        };
        let current = record.max_limit_id();
        let spec = AppSpec::validated(
            record.app,
            self.name.as_deref().unwrap_or(&record.name),
            record.description.as_deref(),
            step,
            self.max_limit_id.unwrap_or(current),
            policy,
        )?
        .with_dispenser(self.dispenser.unwrap_or(record.dispenser));
        if !(policy.min_step..=policy.max_step).contains(&step) {
            return Err(Error::invalid(
                "--step",
                format!(
                    "{step} is outside the app's bounds {}..={}",
                    policy.min_step, policy.max_step
                ),
                "give --min-step and --max-step that include the step",
            ));
        }
        if let Some(new) = self.max_limit_id {
            // 0 is no limit: the highest of all.
            let lowers = new != 0 && (current == 0 || new < current);
            if lowers {
                return Err(Error::invalid(
                    "--max-limit-id",
                    format!(
                        "{new} would lower app {}'s max_limit_id {}",
                        record.app,
                        if current == 0 {
                            "(no limit)".to_string()
                        } else {
                            current.to_string()
                        }
                    ),
                    "max_limit_id can only be raised (0: no limit); use a new app for a smaller range",
                ));
            }
            for row in &record.shards {
                let allowed = crate::shard::max_index_within(new, record.app, row.shard);
                if allowed.is_none_or(|max| row.max_id > max) {
                    return Err(Error::invalid(
                        "--max-limit-id",
                        format!(
                            "{new} is below index {} already issued on shard {} of app {}",
                            row.max_id, row.shard, record.app
                        ),
                        "raise it above every issued ID",
                    ));
                }
            }
        }
        Ok(spec)
    }
}

/// What `init-app` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InitOutcome {
    /// All 64 shards were created.
    Created,
    /// Some shards existed under the same name; the missing ones were added.
    Completed,
    /// Everything was already there.
    Unchanged,
}

impl InitOutcome {
    /// The outcome of a seeding that added `added` shard rows.
    pub fn of_added(added: u64) -> Self {
        match added {
            0 => InitOutcome::Unchanged,
            n if n == u64::from(crate::shard::SHARDS) => InitOutcome::Created,
            _ => InitOutcome::Completed,
        }
    }
}

/// One shard row of `id_alloc`.
#[derive(Debug, Clone, Serialize)]
pub struct ShardRow {
    pub shard: u8,
    pub max_id: u64,
    pub step: u64,
    pub max_limit_id: u64,
    /// Size of the segment last loaded into a dispenser, if idgen has loaded one.
    pub last_loaded: Option<u64>,
}

/// A row of `id_alloc` idgen cannot serve: its app or shard is out of range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForeignRow {
    pub app: i64,
    pub shard: i64,
    pub name: String,
}

/// An app with its shards.
#[derive(Debug, Clone, Serialize)]
pub struct AppRecord {
    pub app: u8,
    pub name: String,
    pub description: Option<String>,
    pub policy: AppPolicy,
    /// The recorded dispenser ([`DispenserKind::Queue`] for an app idgen did
    /// not create, as the Java service serves it).
    pub dispenser: DispenserKind,
    pub shards: Vec<ShardRow>,
}

impl AppRecord {
    /// The step configured for the app (of its first shard).
    pub fn step(&self) -> u64 {
        self.shards.first().map_or(0, |s| s.step)
    }

    /// The app's `max_limit_id` (0: none), the smallest non-zero of its shards.
    pub fn max_limit_id(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| s.max_limit_id)
            .filter(|&l| l > 0)
            .min()
            .unwrap_or(0)
    }
}

/// The report of `init-app`.
#[derive(Debug, Clone, Serialize)]
pub struct InitReport {
    pub outcome: InitOutcome,
    pub shards_added: u64,
    pub app: AppRecord,
}

/// Everything needed to recreate a sealed app in another deployment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SealedApp {
    pub app: u8,
    pub name: String,
    pub description: Option<String>,
    pub step: u64,
    pub max_limit_id: u64,
    pub policy: AppPolicy,
    pub dispenser: DispenserKind,
    /// Per shard, the final `max_id`: this store will never take an index above it.
    pub shards: Vec<SealedShard>,
    /// The destination recorded by the first seal.
    pub moved_to: String,
    /// Unix ms of the first seal.
    pub sealed_at_ms: i64,
}

/// One shard of a sealed app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SealedShard {
    pub shard: u8,
    pub max_id: u64,
}

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
/// Rust dispensers use; `lua/stock.lua`'s `stock_of` is its script twin.
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

/// A dispenser found that a shard's stock was not stocked by the server now
/// serving it (Redis restarted from an older snapshot, lost its AOF tail, or a
/// replica took over), and retired that stock unserved: a gap, never a repeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rollback {
    pub node: String,
    pub app: u8,
    pub shard: u8,
    /// The server identity the stock carried (`None`: no stamp at all, such as
    /// stock the Java service pushed before idgen ever stocked the shard).
    pub stamped: Option<String>,
    /// The identity of the server serving now.
    pub serving: String,
    /// Indexes retired unserved.
    pub retired: u64,
}

impl Rollback {
    /// One line per dataset change, for an operator: the shards of one node
    /// found stale under the same stamps are added up.
    pub fn summarize(rollbacks: &[Rollback]) -> Vec<String> {
        let mut groups: BTreeMap<(&str, Option<&str>, &str), (u64, u64)> = BTreeMap::new();
        for r in rollbacks {
            let group = groups
                .entry((r.node.as_str(), r.stamped.as_deref(), r.serving.as_str()))
                .or_default();
            group.0 += 1;
            group.1 += r.retired;
        }
        groups
            .into_iter()
            .map(|((node, stamped, serving), (shards, retired))| {
                let stamped = stamped.map_or_else(
                    || "carried no stamp (stocked by another tool, or before idgen stamped it)".to_string(),
                    |s| format!("was stocked by server {}", short_id(s)),
                );
                format!(
                    "Redis node {node} is not the dataset idgen stocked: its stock {stamped}, and server {} serves it now (a restart from an older snapshot, a lost AOF tail or a failover); retired {retired} indexes from {shards} shard{} unserved, a gap and never a repeat",
                    short_id(serving),
                    if shards == 1 { "" } else { "s" }
                )
            })
            .collect()
    }
}

/// The first 8 characters of a 40-character server `run_id`.
pub fn short_id(run_id: &str) -> &str {
    run_id.get(..8).unwrap_or(run_id)
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
}

/// One segment for [`Restock::push_many`].
#[derive(Debug, Clone)]
pub struct StockPush {
    pub slot: Slot,
    pub segment: Segment,
    pub max_limit_id: u64,
    pub token: LockToken,
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
}

/// The shards of one dataset change, added up, as `status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RollbackRecord {
    pub node: String,
    /// Unix ms of the first and the last shard found stale.
    pub first_ms: i64,
    pub last_ms: i64,
    /// The stamp found (`None`: none) and the server serving now.
    pub stamped: Option<String>,
    pub serving: String,
    pub shards: u64,
    pub retired: u64,
}

/// One (app, shard) stock on a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slot {
    pub app: u8,
    pub shard: u8,
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
}

/// Reading and taking a node's stock: what `next` and `status` need.
#[async_trait]
pub trait Stock: Send + Sync {
    /// Takes up to `n` indexes from one shard's stock, in one round trip.
    async fn take(&self, kind: DispenserKind, slot: Slot, n: u64) -> Result<Taken>;

    /// Stock of many shards (`None`: missing), in one round trip.
    async fn stock(&self, kind: DispenserKind, slots: &[Slot]) -> Result<Vec<Option<u64>>>;

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
}

/// Refilling a node's stock under each shard's refill lock: what refills,
/// moves and dispenser switches need.
#[async_trait]
pub trait Restock: Send + Sync {
    /// Takes the shard's refill lock (`None` if someone holds it), reading the stock under it.
    async fn lock(&self, kind: DispenserKind, slot: Slot, ttl: Duration) -> Result<Option<Locked>>;

    /// [`Restock::lock`] for many shards; one answer per slot, in order. A
    /// node that can, does it in one round trip.
    async fn lock_many(
        &self,
        kind: DispenserKind,
        slots: &[Slot],
        ttl: Duration,
    ) -> Result<Vec<Result<Option<Locked>>>> {
        let mut answers = Vec::with_capacity(slots.len());
        for &slot in slots {
            answers.push(self.lock(kind, slot, ttl).await);
        }
        Ok(answers)
    }

    /// Appends a segment to the stock, only while `token` still holds the lock,
    /// and records the shard's `max_limit_id` beside it (0: no limit).
    async fn push(
        &self,
        kind: DispenserKind,
        slot: Slot,
        segment: Segment,
        max_limit_id: u64,
        token: &LockToken,
    ) -> Result<Pushed>;

    /// [`Restock::push`] for many shards, each under its own lock; one
    /// answer per push, in order. A node that can, does it in one round trip.
    async fn push_many(
        &self,
        kind: DispenserKind,
        pushes: &[StockPush],
    ) -> Result<Vec<Result<Pushed>>> {
        let mut answers = Vec::with_capacity(pushes.len());
        for p in pushes {
            answers.push(
                self.push(kind, p.slot, p.segment, p.max_limit_id, &p.token)
                    .await,
            );
        }
        Ok(answers)
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
