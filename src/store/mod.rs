//! Storage behind small traits: a [`Ledger`] decides uniqueness durably (MySQL or
//! SQLite), a [`Dispenser`] serves ready indexes fast (a Redis node or SQLite).
//!
//! The one rule the split rests on: only [`SegmentSource::take_segments`] hands out
//! indexes, each exactly once. A dispenser merely caches indexes already taken,
//! so losing or corrupting a dispenser costs gaps, never repeats.

pub mod distributed;
pub mod locking;
pub mod mysql;
pub mod nodes;
pub mod redis;
mod route;
pub mod sizing;
pub(crate) mod sql_rows;
pub mod sqlite;
pub mod tls;
mod traits;

pub use nodes::NodeSet;
pub use route::{MovePhase, Route};
pub use traits::{
    AppCatalog, Dispenser, LeaseAdmin, LeaseStore, Ledger, Locked, PushOutcome, Pushed, Restock,
    RouteHints, RouteMoves, SegmentSource, Settled, Stock, StockPush, Taken, hints_of,
};

use crate::error::Result;
use crate::shard::DispenserKind;
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

/// A new app as `init-app` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
        if name.chars().any(char::is_control) {
            return Err(Error::invalid(
                "--name",
                "the app name holds a control character (a newline, a tab, an escape)",
                "give a name of printable characters",
            ));
        }
        if description.is_some_and(|d| d.chars().any(char::is_control)) {
            return Err(Error::invalid(
                "--description",
                "the description holds a control character (a newline, a tab, an escape)",
                "give a description of printable characters",
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
                format!("{step} is not between 1 and {}", i32::MAX),
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
                    "bounds {} to {} are not a valid range",
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
    /// The operator agreed to lower `max_limit_id`: stock above the new limit
    /// is retired unserved on every shard (see `SegmentAllocator::update_app`).
    pub lower_limit: bool,
}

impl AppChange {
    pub fn is_empty(&self) -> bool {
        AppChange {
            lower_limit: false,
            ..self.clone()
        } == AppChange::default()
    }

    /// Whether the change lowers the app's `max_limit_id` (0 is no limit: the highest of all).
    pub fn lowers_limit(&self, record: &AppRecord) -> bool {
        let current = record.max_limit_id();
        self.max_limit_id
            .is_some_and(|new| new != 0 && (current == 0 || new < current))
    }

    /// The app as it will be, checked against the app as stored, which the
    /// ledger reads under the app's row locks (the locks a refill takes), so
    /// no index is issued between the check and the change. `max_limit_id` is
    /// lowered only when the operator agreed ([`AppChange::lower_limit`]):
    /// `max_id` never goes back, so neither a lowered limit nor one raised
    /// again can hand out an index twice; what a lowering costs is the stock
    /// above it, retired unserved.
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
                    "{step} is not within the app's bounds, {} to {}",
                    policy.min_step, policy.max_step
                ),
                "give --min-step and --max-step that include the step",
            ));
        }
        if self.lowers_limit(record) && !self.lower_limit {
            return Err(Error::invalid(
                "--max-limit-id",
                format!(
                    "{} would lower app {}'s max_limit_id {}",
                    self.max_limit_id.unwrap_or_default(),
                    record.app,
                    if current == 0 {
                        "(no limit)".to_string()
                    } else {
                        current.to_string()
                    }
                ),
                "pass --yes to lower it: stock above the new limit is retired unserved (a gap) on every shard",
            ));
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
    /// The app as the store recorded it, to be created alike in the other one.
    #[serde(flatten)]
    pub spec: AppSpec,
    /// Per shard, the final `max_id`: this store will never take an index above it.
    pub shards: Vec<SealedShard>,
    /// The destination recorded by the first seal.
    pub moved_to: String,
    /// Unix ms of the first seal.
    pub sealed_at_ms: i64,
}

/// Where a sealed app went, and when it was sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealing {
    /// The destination recorded by the first seal.
    pub destination: String,
    /// Unix ms of the first seal.
    pub sealed_at_ms: i64,
}

/// One shard of a sealed app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SealedShard {
    pub shard: u8,
    pub max_id: u64,
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

/// A ledger found behind the witness of what it had handed out: its `max_id`
/// for a shard was below the end of a segment it handed out before (an async
/// replica promoted after lag, a restored backup, a crash that lost committed
/// transactions). It was moved past the witness before any index was taken,
/// so the indexes in between are a gap, never a repeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LedgerRollback {
    pub app: u8,
    pub shard: u8,
    /// The `max_id` the ledger had (a string in JSON: it may exceed 2^53).
    #[serde(serialize_with = "crate::status::u64_as_string")]
    pub ledger_max_id: u64,
    /// The witness it was moved past.
    #[serde(serialize_with = "crate::status::u64_as_string")]
    pub witness: u64,
}

impl LedgerRollback {
    /// One line per app for an operator: the shards found behind, added up.
    pub fn summarize(ledger: &str, rollbacks: &[LedgerRollback]) -> Vec<String> {
        let mut apps: BTreeMap<u8, (Vec<u8>, u64)> = BTreeMap::new();
        for r in rollbacks {
            let app = apps.entry(r.app).or_default();
            app.0.push(r.shard);
            app.1 += r.witness.saturating_sub(r.ledger_max_id);
        }
        apps.into_iter()
            .map(|(app, (mut shards, skipped))| {
                shards.sort_unstable();
                shards.dedup();
                format!(
                    "the ledger ({ledger}) is behind what it handed out: app {app} shard{} {} had handed out indexes it no longer records, so it went back in time (a promoted replica that lagged, a restored backup); moved past the witness in Redis, skipping {skipped} indexes, a gap and never a repeat",
                    if shards.len() == 1 { "" } else { "s" },
                    crate::segment::reload::shard_list(&shards),
                )
            })
            .collect()
    }
}

/// The last time a node's witness found the ledger behind, as `status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LedgerRollbackRecord {
    pub node: String,
    /// Unix ms of the first and the last detection since the record was made.
    pub first_ms: i64,
    pub last_ms: i64,
    /// Shards found behind, and indexes skipped, added up.
    pub shards: u64,
    pub skipped: u64,
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
