//! The health of a deployment, for `idgen status` and for monitoring.
//!
//! [`gather`] never fails as a whole: a backend that cannot be reached is
//! reported while everything that can still be read is shown. Every finding is
//! an [`Attention`] entry with a [`Severity`]; the report's severity is the
//! worst of them, and the binary's exit code follows from it.

use crate::backend::Backend;
use crate::config::Settings;
use crate::layout::Layout;
use crate::lease::durable::{DurableSource, DurableWorker, InRedis};
use crate::lease::{Assigner, HeldWorker, Problem};
use crate::segment::DispenserKind;
use crate::store::{AppRecord, ForeignRow, LedgerRollbackRecord, RollbackRecord, Route, Slot};
use crate::{Error, ErrorKind};
use serde::Serialize;

mod apps;
mod layouts;
mod leases;
mod stores;

use apps::check_apps;
use layouts::{judge_layout, layout_status};
use leases::check_leases;
pub use leases::namespaces;
use stores::{check_ledger, check_nodes};

/// A layout whose time bits run out within this long is a warning.
pub const LAYOUT_WARNING_MS: i64 = 365 * DAY_MS;
/// ... and within this long, critical.
pub const LAYOUT_CRITICAL_MS: i64 = 30 * DAY_MS;
/// A namespace with less than this share of its worker IDs free is a warning.
pub const WORKERS_FREE_WARNING: f64 = 0.10;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// How bad a finding is, worst last. Ordered like the monitoring plugins'
/// `max_state_alt`: a check that could not read something (unknown) outranks
/// ok, but never hides a warning or a critical state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Ok,
    Unknown,
    Warning,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Unknown => "unknown",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

/// What to check against.
#[derive(Debug, Clone)]
pub struct StatusRequest {
    /// Refill threshold: a shard at or below `idle` × its step is low (a warning).
    pub idle: f64,
    /// `idle` was asked for (`--warn-stock` or `IDGEN_IDLE`), not defaulted.
    /// On the embedded store `next` refills an empty shard in its own
    /// transaction, with nothing to wait for, so low stock there is a note
    /// unless a threshold was asked for.
    pub idle_asked: bool,
    /// A shard at or below `crit_stock` × its step is critical; `None`: only a
    /// shard that is empty and cannot be refilled is.
    pub crit_stock: Option<f64>,
    /// The layout `lease` and `decode` use when none is named.
    pub default_layout: Layout,
    /// The lease TTL: a leaked worker ID older than this is a warning.
    pub lease_ttl_ms: i64,
    /// The current time, Unix ms.
    pub now_ms: i64,
}

impl StatusRequest {
    /// Whether a shard at or below the refill threshold is only a note: on
    /// the embedded store, unless a threshold was asked for.
    pub fn low_stock_is_a_note(&self, backend: &Backend) -> bool {
        backend.is_embedded() && !self.idle_asked
    }
}

/// Everything `idgen status` shows.
#[derive(Debug, Clone, Serialize)]
pub struct StatusReport {
    /// The worst severity of any finding; `ok` when there is none.
    pub severity: Severity,
    /// `redis+mysql` or `embedded`.
    pub backend: String,
    pub config_file: Option<String>,
    pub idle: f64,
    /// Low stock is a note, not a warning (see [`StatusRequest::idle_asked`]).
    pub low_stock_is_a_note: bool,
    pub crit_stock: Option<f64>,
    pub stores: Vec<StoreStatus>,
    /// False when the ledger could not be read: the apps are unknown, not none.
    pub apps_known: bool,
    pub apps: Vec<AppStatus>,
    pub namespaces: Vec<NamespaceStatus>,
    pub layouts: Vec<LayoutStatus>,
    /// The last time each Redis node was found to have gone back in time (its
    /// stale stock was retired unserved).
    pub redis_rollbacks: Vec<RollbackRecord>,
    /// The last time each Redis node's witness found the ledger behind (it had
    /// gone back in time and was moved past the witness).
    pub ledger_rollbacks: Vec<LedgerRollbackRecord>,
    /// Rows of `id_alloc` idgen cannot serve (app outside 0..=255, shard outside 0..=63).
    pub foreign_rows: Vec<ForeignRow>,
    /// Every finding, each with its severity; informational ones are `ok`.
    pub attention: Vec<Attention>,
}

impl StatusReport {
    /// Does anything need an operator (a finding worse than ok)?
    pub fn needs_attention(&self) -> bool {
        self.severity > Severity::Ok
    }

    /// The findings worse than ok, worst first (in the order found otherwise).
    pub fn findings(&self) -> Vec<&Attention> {
        let mut found: Vec<&Attention> = self
            .attention
            .iter()
            .filter(|a| a.severity > Severity::Ok)
            .collect();
        found.sort_by_key(|a| std::cmp::Reverse(a.severity));
        found
    }

    fn flag(&mut self, kind: AttentionKind, severity: Severity, message: String) {
        self.attention.push(Attention {
            kind,
            severity,
            message,
        });
    }
}

/// What a store does for the deployment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreRole {
    /// Decides uniqueness: MySQL, or the embedded store.
    Ledger,
    /// Serves ready indexes (and, for the default node, leases): a Redis node.
    Node,
}

/// Whether a backend can be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreState {
    Ok,
    /// Did not answer in time, or refused the connection.
    Unreachable,
    /// Refused the credentials, or the user lacks a permission.
    AccessDenied,
    /// The store file is missing, corrupt, unreadable or read-only, or a
    /// server's data is corrupt.
    Unusable,
}

impl StoreState {
    fn of(error: &Error) -> Self {
        match error.kind() {
            ErrorKind::Access => StoreState::AccessDenied,
            ErrorKind::Store | ErrorKind::BadData => StoreState::Unusable,
            _ => StoreState::Unreachable,
        }
    }

    fn attention(self) -> AttentionKind {
        match self {
            StoreState::AccessDenied => AttentionKind::AccessDenied,
            StoreState::Unusable => AttentionKind::StoreUnusable,
            StoreState::Ok | StoreState::Unreachable => AttentionKind::Unreachable,
        }
    }
}

/// Reachability of one backend.
#[derive(Debug, Clone, Serialize)]
pub struct StoreStatus {
    pub role: StoreRole,
    pub name: String,
    /// Where it lives, without a password.
    pub location: String,
    pub state: StoreState,
    pub reachable: bool,
    pub version: Option<String>,
    pub error: Option<String>,
}

/// The stock of one shard; `None` when the node holds none for it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ShardStock {
    pub shard: u8,
    pub stock: u64,
}

/// One app's stock and limits.
#[derive(Debug, Clone, Serialize)]
pub struct AppStatus {
    pub app: u8,
    pub name: String,
    /// The worst severity of this app's findings.
    pub severity: Severity,
    /// The node that serves the app.
    pub node: String,
    /// The durable route, when the app has one (it moved, or is moving).
    pub route: Option<Route>,
    pub moving: bool,
    pub dispenser: DispenserKind,
    pub shards: usize,
    /// Shards 0..=63 with no row in `id_alloc`: IDs routed there cannot be issued.
    pub missing_shards: Vec<u8>,
    /// Smallest and average stock over the shards (a missing stock counts as 0);
    /// `None` when the node could not be read.
    pub min_stock: Option<u64>,
    pub avg_stock: Option<f64>,
    /// Each shard's stock, when the node could be read.
    pub stock: Vec<ShardStock>,
    /// Shards with no stock at all (empty, or never stocked).
    pub empty_shards: Vec<u8>,
    /// Indexes left in the other dispenser, which the app is not served by
    /// (its dispenser was changed, or wave 1 stocked it by a setting): never
    /// served; each shard's next refill retires them.
    pub unserved_stock: u64,
    /// Indexes issued per second since each shard's last refill, summed over
    /// the shards; `None` before any refill was recorded.
    pub issue_rate_per_sec: Option<f64>,
    /// How long the current stock lasts at that rate; `None` when nothing was
    /// issued since the refills.
    pub runway_secs: Option<u64>,
    /// Shards at or below the refill threshold that a refill can still top up.
    pub low_shards: Vec<u8>,
    /// Shards at or below the critical stock threshold (`--crit-stock`).
    pub critical_shards: Vec<u8>,
    /// 0: no limit. A string in JSON, like every value that may exceed 2^53.
    #[serde(serialize_with = "u64_as_string")]
    pub max_limit_id: u64,
    /// The largest share of its `max_limit_id` range any shard has taken, in percent.
    pub limit_used_percent: Option<f64>,
    /// Shards that have taken 90% or more of what `max_limit_id` allows and
    /// can still issue.
    pub near_limit_shards: Vec<u8>,
    /// Shards that took all `max_limit_id` allows and hold no stock: `next` refuses.
    pub exhausted_shards: Vec<u8>,
    pub error: Option<String>,
}

/// Worker-ID leases of one namespace.
#[derive(Debug, Clone, Serialize)]
pub struct NamespaceStatus {
    pub name: String,
    /// The worst severity of this namespace's findings.
    pub severity: Severity,
    pub layout: Option<String>,
    pub epoch_ms: Option<i64>,
    pub assigner: Option<Assigner>,
    pub capacity: u64,
    pub held: Vec<HeldWorker>,
    /// Entries on the free list.
    pub free: usize,
    /// Worker IDs a new `lease` can still get: the capacity less those held
    /// (an empty free list is rebuilt from the unheld IDs).
    pub available: u64,
    pub problems: Vec<Problem>,
    pub error: Option<String>,
    /// Where the durable record of the namespace is; `None` when it could not be read.
    pub durable_record: Option<DurableSource>,
    /// Whether Redis holds the namespace's record, where MySQL is the durable one.
    pub redis: Option<InRedis>,
    /// Every worker as the durable record (MySQL) has it; `None` without one.
    pub durable: Option<Vec<DurableWorker>>,
    /// On Redis alone, the replicas every grant and renewal must reach and
    /// those connected now; `None` elsewhere, or when unreadable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<crate::lease::Replicas>,
}

/// How soon a layout's time bits run out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayoutState {
    /// More than a year left.
    Ok,
    /// Runs out within a year.
    Expiring,
    /// Runs out within 30 days.
    ExpiringSoon,
    /// Already ran out: it cannot issue IDs.
    Exhausted,
    /// Its epoch is in the future: it cannot issue IDs yet.
    NotStarted,
    /// No time field (segment).
    Untimed,
}

#[derive(Debug, Clone, Serialize)]
pub struct LayoutStatus {
    /// `default`, or `namespace NAME`.
    pub used_by: String,
    pub layout: String,
    pub epoch_ms: Option<i64>,
    pub exhausted_at_ms: Option<i64>,
    pub exhausted_at: Option<String>,
    pub days_left: Option<i64>,
    pub seconds_left: Option<i64>,
    pub state: LayoutState,
}

/// Why an entry needs an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionKind {
    /// A backend did not answer.
    Unreachable,
    /// A backend refused the login or a permission.
    AccessDenied,
    /// The store file is missing, corrupt, unreadable or read-only.
    StoreUnusable,
    /// Something could not be read from a backend that did answer.
    Unreadable,
    /// The ledger could not be read, so nothing is known about the apps.
    AppsUnknown,
    /// An app is routed to a node this configuration does not name.
    UnknownNode,
    /// Shards at or below the refill threshold.
    LowStock,
    /// Shards at or below the critical stock threshold.
    CriticalStock,
    /// Shards within 10% of `max_limit_id`.
    NearLimit,
    /// Shards that reached `max_limit_id` and hold no stock: `next` refuses.
    LimitReached,
    /// An app in the middle of a move between nodes.
    Moving,
    /// Inconsistent worker-ID lease state.
    LeaseProblem,
    /// Redis lost a namespace or leases that MySQL, the durable record, still has.
    LeasesNotInRedis,
    /// Worker IDs whose holder died; the next rebuild of the free list takes them back.
    LeakedWorkers,
    /// Few worker IDs of a namespace are free.
    WorkersLow,
    /// Every worker ID of a namespace is held: a new `lease` fails.
    WorkersExhausted,
    /// A namespace's epoch is in the future: it cannot issue an ID.
    EpochInFuture,
    /// A layout runs out of time bits within a year (warning) or 30 days (critical).
    LayoutExpiring,
    /// A layout has run out of time bits.
    LayoutExhausted,
    /// Rows of `id_alloc` idgen cannot serve, or apps missing shards.
    ForeignRows,
    /// Stock left in the dispenser an app is no longer served by.
    UnservedStock,
    /// A Redis node evicts any key when it is full (`allkeys-*`).
    Evicting,
    /// On Redis alone, a master with fewer replicas connected than a
    /// namespace's leases must reach: none is granted or renewed.
    ReplicasMissing,
}

#[derive(Debug, Clone, Serialize)]
pub struct Attention {
    pub kind: AttentionKind,
    pub severity: Severity,
    pub message: String,
}

/// Serializes a 64-bit ID (or a limit on one) as a decimal string: JSON readers
/// that hold numbers as doubles (JavaScript, jq 1.6) would round it above 2^53.
pub fn u64_as_string<S: serde::Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// What one check found, merged into the report afterwards so checks can run
/// concurrently.
#[derive(Default)]
struct Part {
    stores: Vec<StoreStatus>,
    apps: Vec<AppStatus>,
    namespaces: Vec<NamespaceStatus>,
    layouts: Vec<LayoutStatus>,
    redis_rollbacks: Vec<RollbackRecord>,
    ledger_rollbacks: Vec<LedgerRollbackRecord>,
    attention: Vec<Attention>,
}

impl Part {
    fn flag(&mut self, kind: AttentionKind, severity: Severity, message: String) -> Severity {
        self.attention.push(Attention {
            kind,
            severity,
            message,
        });
        severity
    }

    fn merge_into(self, report: &mut StatusReport) {
        report.stores.extend(self.stores);
        report.apps.extend(self.apps);
        report.namespaces.extend(self.namespaces);
        report.layouts.extend(self.layouts);
        report.redis_rollbacks.extend(self.redis_rollbacks);
        report.ledger_rollbacks.extend(self.ledger_rollbacks);
        report.attention.extend(self.attention);
    }
}

/// What the ledger holds, when it could be read (nothing on Redis alone).
#[derive(Default)]
struct LedgerView {
    apps: Vec<AppRecord>,
    marks: std::collections::BTreeMap<Slot, crate::store::RefillMark>,
    routes: std::collections::BTreeMap<u8, Route>,
    foreign: Vec<ForeignRow>,
}

/// Collects the report. Only reads; never changes stored state. Backends are
/// asked concurrently, each within the configured timeout.
pub async fn gather(
    backend: &Backend,
    settings: &Settings,
    request: &StatusRequest,
) -> StatusReport {
    let mut report = StatusReport {
        severity: Severity::Ok,
        backend: backend.kind.to_string(),
        config_file: settings
            .config_file
            .as_ref()
            .map(|p| p.display().to_string()),
        idle: request.idle,
        low_stock_is_a_note: request.low_stock_is_a_note(backend),
        crit_stock: request.crit_stock,
        stores: Vec::new(),
        apps_known: false,
        apps: Vec::new(),
        namespaces: Vec::new(),
        layouts: Vec::new(),
        redis_rollbacks: Vec::new(),
        ledger_rollbacks: Vec::new(),
        foreign_rows: Vec::new(),
        attention: Vec::new(),
    };
    // Everything that may wait on a backend that is down runs at once, so a
    // report takes about one timeout however many backends are down.
    // Redis alone keeps leases only: no ledger, no apps to read.
    let ledger_check = async {
        if backend.has_ledger() {
            let (part, view) = check_ledger(backend).await;
            (part, view.ok_or(()))
        } else {
            (Part::default(), Ok(LedgerView::default()))
        }
    };
    let ((ledger_part, ledger), (mut nodes_part, unreachable), leases_part) = tokio::join!(
        ledger_check,
        check_nodes(backend),
        check_leases(backend, request.now_ms, request.lease_ttl_ms)
    );
    let embedded = backend.is_embedded();
    let ledger_store = ledger_part.stores.first().cloned();
    let ledger_state = ledger_store.as_ref().map_or(StoreState::Ok, |s| s.state);
    if embedded && ledger_state != StoreState::Ok {
        // The embedded dispenser is the same file: it is as unusable as the ledger,
        // and said so once.
        for store in &mut nodes_part.stores {
            store.state = ledger_state;
            store.reachable = false;
            store.error = ledger_store.as_ref().and_then(|s| s.error.clone());
        }
    }
    ledger_part.merge_into(&mut report);
    nodes_part.merge_into(&mut report);
    // Leases live on the default node (or in the store file): when that is
    // down, it is reported already, and once.
    let leases_part = if unreachable.contains(backend.servers().default_node())
        || (embedded && ledger_state != StoreState::Ok)
    {
        Part::default()
    } else {
        leases_part
    };
    // Stock is read only from nodes that answered: no second wait.
    let apps_part = match &ledger {
        Ok(view) => check_apps(backend, request, view, &unreachable).await,
        Err(()) => Part::default(),
    };
    match ledger {
        Ok(view) => {
            report.apps_known = true;
            report.foreign_rows = view.foreign;
        }
        Err(()) => report.flag(
            AttentionKind::AppsUnknown,
            Severity::Unknown,
            "the apps are unknown: the ledger cannot be read".into(),
        ),
    }
    apps_part.merge_into(&mut report);
    report.layouts.push(layout_status(
        "default",
        &request.default_layout,
        request.now_ms,
    ));
    leases_part.merge_into(&mut report);
    let mut layout_findings = Part::default();
    for layout in &report.layouts {
        judge_layout(layout, &mut layout_findings);
    }
    layout_findings.merge_into(&mut report);
    report.severity = report
        .attention
        .iter()
        .map(|a| a.severity)
        .max()
        .unwrap_or(Severity::Ok);
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_rank_unknown_above_ok_and_below_warning() {
        assert!(Severity::Ok < Severity::Unknown);
        assert!(Severity::Unknown < Severity::Warning);
        assert!(Severity::Warning < Severity::Critical);
    }
}
