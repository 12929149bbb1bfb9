//! The health of a deployment, for `idgen status` and for monitoring.
//!
//! [`gather`] never fails as a whole: a backend that cannot be reached is
//! reported while everything that can still be read is shown. Every finding is
//! an [`Attention`] entry with a [`Severity`]; the report's severity is the
//! worst of them, and the binary's exit code follows from it.

use crate::backend::Backend;
use crate::config::Settings;
use crate::layout::{Layout, format_timestamp};
use crate::lease::{Assigner, HeldWorker, LeaseStore, Problem, problems, read_signature};
use crate::segment::sizing::{Trigger, near_limit, needs_refill};
use crate::segment::{DispenserKind, max_index_within};
use crate::store::{AppRecord, ForeignRow, RollbackRecord, Route, Slot};
use crate::{Error, ErrorKind};
use serde::Serialize;
use std::collections::BTreeSet;

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

/// Everything `idgen status` shows.
#[derive(Debug, Clone, Serialize)]
pub struct StatusReport {
    /// The worst severity of any finding; `ok` when there is none.
    pub severity: Severity,
    /// `redis+mysql` or `embedded`.
    pub backend: String,
    pub config_file: Option<String>,
    pub idle: f64,
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
        report.attention.extend(self.attention);
    }
}

/// What the ledger holds, when it could be read.
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
        crit_stock: request.crit_stock,
        stores: Vec::new(),
        apps_known: false,
        apps: Vec::new(),
        namespaces: Vec::new(),
        layouts: Vec::new(),
        redis_rollbacks: Vec::new(),
        foreign_rows: Vec::new(),
        attention: Vec::new(),
    };
    // Everything that may wait on a backend that is down runs at once, so a
    // report takes about one timeout however many backends are down.
    let ((ledger_part, ledger), (mut nodes_part, unreachable), leases_part) = tokio::join!(
        check_ledger(backend),
        check_nodes(backend),
        check_leases(backend, request.now_ms, request.lease_ttl_ms)
    );
    let embedded = backend.is_embedded();
    let ledger_state = ledger_part.stores[0].state;
    if embedded && ledger_state != StoreState::Ok {
        // The embedded dispenser is the same file: it is as unusable as the ledger,
        // and said so once.
        for store in &mut nodes_part.stores {
            store.state = ledger_state;
            store.reachable = false;
            store.error = ledger_part.stores[0].error.clone();
        }
    }
    ledger_part.merge_into(&mut report);
    nodes_part.merge_into(&mut report);
    // Leases live on the default node (or in the store file): when that is
    // down, it is reported already, and once.
    let leases_part = if unreachable.contains(backend.nodes.default_node())
        || (embedded && ledger_state != StoreState::Ok)
    {
        Part::default()
    } else {
        leases_part
    };
    // Stock is read only from nodes that answered: no second wait.
    let apps_part = match &ledger {
        Some(view) => check_apps(backend, request, view, &unreachable).await,
        None => Part::default(),
    };
    match ledger {
        Some(view) => {
            report.apps_known = true;
            report.foreign_rows = view.foreign;
        }
        None => report.flag(
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

fn judge_layout(layout: &LayoutStatus, part: &mut Part) {
    let whose = match layout.used_by.as_str() {
        "default" => "the default layout".to_string(),
        other => other.to_string(),
    };
    let when = layout.exhausted_at.clone().unwrap_or_default();
    let days = layout.days_left.unwrap_or(0);
    let name = &layout.layout;
    match layout.state {
        LayoutState::Exhausted => part.flag(
            AttentionKind::LayoutExhausted,
            Severity::Critical,
            format!("{whose} ({name}) ran out of time bits at {when}; it cannot issue IDs"),
        ),
        LayoutState::ExpiringSoon => part.flag(
            AttentionKind::LayoutExpiring,
            Severity::Critical,
            format!(
                "{whose} ({name}) runs out of time bits at {when}, in {days} days; move to a later epoch or a wider layout now"
            ),
        ),
        LayoutState::Expiring => part.flag(
            AttentionKind::LayoutExpiring,
            Severity::Warning,
            format!(
                "{whose} ({name}) runs out of time bits at {when}, in {days} days; plan a later epoch or a wider layout"
            ),
        ),
        LayoutState::NotStarted => part.flag(
            AttentionKind::EpochInFuture,
            Severity::Critical,
            format!(
                "{whose} ({name}) has its epoch in the future ({}); it cannot issue an ID until then: check the epoch",
                layout.epoch_ms.map_or_else(String::new, format_timestamp)
            ),
        ),
        LayoutState::Ok | LayoutState::Untimed => Severity::Ok,
    };
}

/// Reads the ledger: its version, apps, routes and rows idgen cannot serve.
async fn check_ledger(backend: &Backend) -> (Part, Option<LedgerView>) {
    let mut part = Part::default();
    let read = async {
        backend.check_store_file()?;
        let version = backend.ledger.server_version().await?;
        // Reading the apps opens the file and checks its schema: a corrupt store fails here.
        let view = LedgerView {
            apps: backend.ledger.apps().await?,
            marks: backend.ledger.refill_marks().await?.into_iter().collect(),
            routes: backend.ledger.routes().await?,
            foreign: backend.ledger.foreign_rows().await?,
        };
        Ok::<_, Error>((version, view))
    };
    let (state, version, error, view) = match read.await {
        Ok((version, view)) => (StoreState::Ok, Some(version), None, Some(view)),
        Err(e) => {
            let state = StoreState::of(&e);
            part.flag(
                state.attention(),
                Severity::Critical,
                format!("ledger: {e}"),
            );
            (state, None, Some(e.to_string()), None)
        }
    };
    part.stores.push(StoreStatus {
        role: StoreRole::Ledger,
        name: "ledger".into(),
        location: backend.ledger.describe(),
        state,
        reachable: state == StoreState::Ok,
        version,
        error,
    });
    (part, view)
}

/// Checks every node concurrently; returns the names of those that did not answer.
async fn check_nodes(backend: &Backend) -> (Part, BTreeSet<String>) {
    let names = backend.nodes.names().await;
    let checks = names.into_iter().map(|name| async move {
        let node = backend.nodes.get(&name).await;
        let location = backend
            .nodes
            .describe(&name)
            .unwrap_or_else(|| match &node {
                Ok(node) => node.describe(),
                Err(_) => name.clone(),
            });
        let mut rollback = None;
        let version = match node {
            Ok(node) => {
                let version = node.server_version().await;
                if version.is_ok()
                    && let Ok(Some(found)) = node.last_rollback().await
                {
                    rollback = Some(found);
                }
                version
            }
            Err(e) => Err(e),
        };
        (name, location, version, rollback)
    });
    let mut part = Part::default();
    let mut unreachable = BTreeSet::new();
    for (name, location, version, rollback) in futures::future::join_all(checks).await {
        part.redis_rollbacks.extend(rollback);
        let state = match &version {
            Ok(_) => StoreState::Ok,
            Err(e) => {
                unreachable.insert(name.clone());
                let state = StoreState::of(e);
                part.flag(
                    state.attention(),
                    Severity::Critical,
                    format!("Redis node {name:?}: {e}"),
                );
                state
            }
        };
        part.stores.push(StoreStatus {
            role: StoreRole::Node,
            name,
            location,
            state,
            reachable: state == StoreState::Ok,
            version: version.as_ref().ok().cloned(),
            error: version.err().map(|e| e.to_string()),
        });
    }
    (part, unreachable)
}

async fn check_apps(
    backend: &Backend,
    request: &StatusRequest,
    view: &LedgerView,
    unreachable: &BTreeSet<String>,
) -> Part {
    let mut part = Part::default();
    for row in &view.foreign {
        part.flag(
            AttentionKind::ForeignRows,
            Severity::Warning,
            foreign_row_message(row),
        );
    }
    let checks = view
        .apps
        .iter()
        .map(|app| check_app(backend, request, view, unreachable, app));
    for app_part in futures::future::join_all(checks).await {
        part.apps.extend(app_part.apps);
        part.attention.extend(app_part.attention);
    }
    part
}

/// One app's limits and stock; apps are checked concurrently.
async fn check_app(
    backend: &Backend,
    request: &StatusRequest,
    view: &LedgerView,
    unreachable: &BTreeSet<String>,
    app: &AppRecord,
) -> Part {
    let mut part = Part::default();
    {
        let route = view.routes.get(&app.app).cloned();
        let node = route.as_ref().map_or_else(
            || backend.nodes.default_node().to_string(),
            |r| r.node.clone(),
        );
        let mut status = app_limits(app, route, node, app.dispenser);
        let mut worst = Severity::Ok;
        let who = format!("app {} ({})", app.app, app.name);
        if !status.missing_shards.is_empty() {
            worst = worst.max(part.flag(
                AttentionKind::ForeignRows,
                Severity::Warning,
                format!(
                    "{who} has no id_alloc row for shard(s) {}: requests routed there fail; rerun `idgen init-app --app {} --name {}` to add them",
                    list(&status.missing_shards),
                    app.app,
                    app.name
                ),
            ));
        }
        if let Some(detail) = status.route.as_ref().and_then(move_detail) {
            worst = worst.max(part.flag(
                AttentionKind::Moving,
                Severity::Warning,
                format!("{who} is moving {detail}; finish it with `idgen migrate`"),
            ));
        }
        if !backend.nodes.contains(&status.node).await {
            status.error = Some(format!("node {:?} is not configured", status.node));
            worst = worst.max(part.flag(
                AttentionKind::UnknownNode,
                Severity::Critical,
                format!(
                    "{who} is served by node {:?}, which is not configured here",
                    status.node
                ),
            ));
        } else if unreachable.contains(&status.node) {
            status.error = Some(format!("node {:?} is unreachable", status.node));
            worst = worst.max(Severity::Unknown);
        } else {
            match read_stock(backend, app, &status).await {
                Ok((stock, unserved)) => {
                    apply_stock(&mut status, app, &stock, request);
                    apply_runway(&mut status, &view.marks, request.now_ms);
                    status.unserved_stock = unserved;
                    if unserved > 0 {
                        part.flag(
                            AttentionKind::UnservedStock,
                            Severity::Ok,
                            format!(
                                "{who}: {unserved} indexes in the {} dispenser are never served (the app records {}); each shard's next refill retires them, or now: `idgen reload-segments --app {} --prune`",
                                status.dispenser.other().as_str(),
                                status.dispenser.as_str(),
                                app.app
                            ),
                        );
                    }
                }
                Err(e) => {
                    worst = worst.max(part.flag(
                        AttentionKind::Unreadable,
                        Severity::Unknown,
                        format!(
                            "cannot read the stock of app {} on node {:?}: {e}",
                            app.app, status.node
                        ),
                    ));
                    status.error = Some(e.to_string());
                }
            }
        }
        if !status.exhausted_shards.is_empty() {
            worst = worst.max(part.flag(
                AttentionKind::LimitReached,
                Severity::Critical,
                format!(
                    "{who}: {} shard(s) exhausted: they took all max_limit_id {} allows and hold no stock, so `next` refuses there (shards {}); only a higher max_limit_id or another app helps",
                    status.exhausted_shards.len(),
                    status.max_limit_id,
                    list(&status.exhausted_shards)
                ),
            ));
        }
        if !status.critical_shards.is_empty() {
            worst = worst.max(part.flag(
                AttentionKind::CriticalStock,
                Severity::Critical,
                format!(
                    "{who}: {} of {} shards at or below the critical threshold ({} x step) (shards {}); run `idgen reload-segments`",
                    status.critical_shards.len(),
                    status.shards,
                    request.crit_stock.unwrap_or(0.0),
                    list(&status.critical_shards)
                ),
            ));
        }
        if !status.low_shards.is_empty() {
            worst = worst.max(part.flag(
                AttentionKind::LowStock,
                Severity::Warning,
                format!(
                    "{who}: {} of {} shards at or below the refill threshold ({} x step){}; run `idgen reload-segments`",
                    status.low_shards.len(),
                    status.shards,
                    request.idle,
                    match status.empty_shards.len() {
                        0 => String::new(),
                        n => format!(", {n} empty"),
                    }
                ),
            ));
        }
        if !status.near_limit_shards.is_empty() {
            worst = worst.max(part.flag(
                AttentionKind::NearLimit,
                Severity::Warning,
                format!(
                    "{who}: {} shard(s) have taken 90% or more of max_limit_id {} (shards {}); idgen refuses rather than wraps: raise max_limit_id before they run out",
                    status.near_limit_shards.len(),
                    status.max_limit_id,
                    list(&status.near_limit_shards)
                ),
            ));
        }
        status.severity = worst;
        part.apps.push(status);
    }
    part
}

/// Where the Java service's IDs for a row land: it composes `index << 14 |
/// shard << 8 | app` without masking, so an app above 255 spills into the
/// shard bits and a shard above 63 into the index.
fn foreign_row_message(row: &ForeignRow) -> String {
    let what = format!(
        "id_alloc row app_id {} shard_id {} ({:?})",
        row.app, row.shard, row.name
    );
    let collides = match (u64::try_from(row.app), u64::try_from(row.shard)) {
        (Ok(app), Ok(shard)) => {
            let low = (shard << 8).wrapping_add(app);
            let (app2, shard2, carry) = (low & 0xff, (low >> 8) & 0x3f, low >> 14);
            let index = if carry > 0 {
                format!(" at index + {carry}")
            } else {
                String::new()
            };
            format!(
                "; the Java service composes it into the bits of app {app2} shard {shard2}{index}, so its IDs collide with that app's"
            )
        }
        _ => String::new(),
    };
    format!(
        "{what} is outside app 0..=255, shard 0..=63: idgen cannot serve it{collides}; move it to a free app number"
    )
}

/// Where a moving app goes, and which step of the move it is in; `None` when it is not moving.
fn move_detail(route: &Route) -> Option<String> {
    match (&route.incoming, &route.outgoing) {
        (Some(to), _) => Some(format!(
            "from node {:?} to {to:?} (stocking the new node)",
            route.node
        )),
        (None, Some(from)) => Some(format!(
            "from node {from:?} to {:?} (retiring the old stock)",
            route.node
        )),
        (None, None) => None,
    }
}

/// Has the shard taken every index its `max_limit_id` allows?
fn ledger_exhausted(app: u8, row: &crate::store::ShardRow) -> bool {
    max_index_within(row.max_limit_id, app, row.shard).is_none_or(|max| row.max_id >= max)
}

/// The parts of an app's status that come from the ledger alone.
fn app_limits(
    app: &AppRecord,
    route: Option<Route>,
    node: String,
    dispenser: DispenserKind,
) -> AppStatus {
    let mut used_percent: Option<f64> = None;
    let mut near = Vec::new();
    for row in app.shards.iter().filter(|row| row.max_limit_id > 0) {
        if near_limit(row.max_limit_id, app.app, row.shard, row.max_id) {
            near.push(row.shard);
        }
        let used = match max_index_within(row.max_limit_id, app.app, row.shard) {
            Some(0) | None => 100.0,
            Some(max) => (row.max_id as f64 / max as f64 * 100.0).min(100.0),
        };
        used_percent = Some(used_percent.map_or(used, |u: f64| u.max(used)));
    }
    let present: BTreeSet<u8> = app.shards.iter().map(|row| row.shard).collect();
    AppStatus {
        app: app.app,
        name: app.name.clone(),
        severity: Severity::Ok,
        node,
        moving: route.as_ref().is_some_and(Route::moving),
        route,
        dispenser,
        shards: app.shards.len(),
        missing_shards: (0..crate::shard::SHARDS)
            .filter(|shard| !present.contains(shard))
            .collect(),
        min_stock: None,
        avg_stock: None,
        stock: Vec::new(),
        issue_rate_per_sec: None,
        runway_secs: None,
        empty_shards: Vec::new(),
        unserved_stock: 0,
        low_shards: Vec::new(),
        critical_shards: Vec::new(),
        max_limit_id: app.max_limit_id(),
        limit_used_percent: used_percent,
        near_limit_shards: near,
        exhausted_shards: Vec::new(),
        error: None,
    }
}

async fn read_stock(
    backend: &Backend,
    app: &AppRecord,
    status: &AppStatus,
) -> crate::Result<(Vec<Option<u64>>, u64)> {
    let node = backend.nodes.get(&status.node).await?;
    let slots: Vec<Slot> = app
        .shards
        .iter()
        .map(|row| Slot {
            app: app.app,
            shard: row.shard,
        })
        .collect();
    let served = node.stock(status.dispenser, &slots).await?;
    let unserved = node.stock(status.dispenser.other(), &slots).await?;
    Ok((served, unserved.into_iter().flatten().sum()))
}

fn apply_stock(
    status: &mut AppStatus,
    app: &AppRecord,
    stock: &[Option<u64>],
    request: &StatusRequest,
) {
    let mut total: u64 = 0;
    let mut min: Option<u64> = None;
    for (row, stock) in app.shards.iter().zip(stock) {
        let stock = stock.unwrap_or(0);
        status.stock.push(ShardStock {
            shard: row.shard,
            stock,
        });
        if stock == 0 {
            status.empty_shards.push(row.shard);
        }
        total = total.saturating_add(stock);
        min = Some(min.map_or(stock, |m| m.min(stock)));
        if ledger_exhausted(app.app, row) {
            // No refill can help: with stock left it is near its limit, without
            // any `next` refuses.
            if stock == 0 {
                status.near_limit_shards.retain(|&s| s != row.shard);
                status.exhausted_shards.push(row.shard);
            }
            continue;
        }
        let reference = row.last_loaded.unwrap_or(row.step).max(1);
        if needs_refill(Trigger::Threshold { idle: request.idle }, stock, reference) {
            status.low_shards.push(row.shard);
        }
        if let Some(crit) = request.crit_stock
            && needs_refill(Trigger::Threshold { idle: crit }, stock, reference)
        {
            status.critical_shards.push(row.shard);
        }
    }
    status.min_stock = min;
    status.avg_stock = (!stock.is_empty()).then(|| total as f64 / stock.len() as f64);
}

/// The stock runway: what each shard issued since its last refill, over the
/// time since, gives the app's rate; the stock left divided by it, the runway.
fn apply_runway(
    status: &mut AppStatus,
    marks: &std::collections::BTreeMap<Slot, crate::store::RefillMark>,
    now_ms: i64,
) {
    let mut rate: Option<f64> = None;
    let mut total: u64 = 0;
    for shard in &status.stock {
        total = total.saturating_add(shard.stock);
        let slot = Slot {
            app: status.app,
            shard: shard.shard,
        };
        let Some(mark) = marks.get(&slot) else {
            continue;
        };
        let elapsed_ms = (now_ms - mark.loaded_at_ms).max(1) as f64;
        // Stock above the mark was pushed by another path since: no rate from it.
        let issued = mark.stock_after.saturating_sub(shard.stock) as f64;
        rate = Some(rate.unwrap_or(0.0) + issued * 1000.0 / elapsed_ms);
    }
    status.issue_rate_per_sec = rate;
    status.runway_secs = rate
        .filter(|&r| r > 0.0)
        .map(|r| (total as f64 / r).round() as u64);
}

/// Every worker-ID namespace with its findings, for `idgen namespace`.
pub async fn namespaces(
    backend: &Backend,
    now_ms: i64,
    lease_ttl_ms: i64,
) -> (Vec<NamespaceStatus>, Vec<Attention>) {
    let part = check_leases(backend, now_ms, lease_ttl_ms).await;
    (part.namespaces, part.attention)
}

async fn check_leases(backend: &Backend, now_ms: i64, lease_ttl_ms: i64) -> Part {
    let mut part = Part::default();
    let read = async {
        let store = backend.lease_store().await?;
        let names = store.namespaces().await?;
        Ok::<_, crate::Error>((store, names))
    };
    let (store, names): (std::sync::Arc<dyn LeaseStore>, Vec<String>) = match read.await {
        Ok(found) => found,
        Err(e) => {
            part.flag(
                AttentionKind::Unreadable,
                Severity::Unknown,
                format!("cannot read worker-ID leases: {e}"),
            );
            return part;
        }
    };
    let snapshots = futures::future::join_all(names.iter().map(|name| store.snapshot(name))).await;
    for (name, snapshot) in names.into_iter().zip(snapshots) {
        let mut status = NamespaceStatus {
            name: name.clone(),
            severity: Severity::Ok,
            layout: None,
            epoch_ms: None,
            assigner: None,
            capacity: 0,
            held: Vec::new(),
            free: 0,
            available: 0,
            problems: Vec::new(),
            error: None,
        };
        let mut worst = Severity::Ok;
        let mut fences = Vec::new();
        match snapshot {
            Ok(snapshot) => {
                status.capacity = snapshot.capacity;
                status.free = snapshot.free.len();
                status.problems = problems(&snapshot);
                status.available = snapshot.capacity.saturating_sub(snapshot.held.len() as u64);
                status.held = snapshot.held;
                fences = snapshot.fences;
                match snapshot.signature.as_deref().map(read_signature) {
                    Some(Ok((layout, assigner))) => {
                        status.layout = Some(layout.name().to_string());
                        status.epoch_ms = layout.epoch_ms();
                        status.assigner = Some(assigner);
                        let layout = layout_status(&format!("namespace {name}"), &layout, now_ms);
                        if matches!(
                            layout.state,
                            LayoutState::NotStarted
                                | LayoutState::Exhausted
                                | LayoutState::ExpiringSoon
                        ) {
                            worst = Severity::Critical;
                        } else if layout.state == LayoutState::Expiring {
                            worst = Severity::Warning;
                        }
                        part.layouts.push(layout);
                    }
                    Some(Err(e)) => {
                        status.error = Some(format!("its recorded layout is unreadable: {e}"));
                    }
                    None => {}
                }
            }
            Err(e) => status.error = Some(e.to_string()),
        }
        if let Some(error) = &status.error {
            worst = worst.max(part.flag(
                AttentionKind::Unreadable,
                Severity::Unknown,
                format!("namespace {name:?}: {error}"),
            ));
        }
        if status.error.is_none() && status.capacity > 0 {
            if status.available == 0 {
                worst = worst.max(part.flag(
                    AttentionKind::WorkersExhausted,
                    Severity::Critical,
                    format!(
                        "namespace {name:?}: all {} worker IDs are held, so a new `lease` fails; stop unused holders or use a layout with more worker bits",
                        status.capacity
                    ),
                ));
            } else if (status.available as f64) < status.capacity as f64 * WORKERS_FREE_WARNING {
                worst = worst.max(part.flag(
                    AttentionKind::WorkersLow,
                    Severity::Warning,
                    format!(
                        "namespace {name:?}: only {} of {} worker IDs are free",
                        status.available, status.capacity
                    ),
                ));
            }
        }
        let (leaked, other): (Vec<&Problem>, Vec<&Problem>) = status
            .problems
            .iter()
            .partition(|p| matches!(p, Problem::Leaked { .. }));
        if !leaked.is_empty() {
            // A killed holder's ID comes back when the free list is next rebuilt;
            // only one stranded for longer than a lease lasts is worth a warning.
            let stale = leaked.iter().filter(|p| {
                let Problem::Leaked { worker } = p else {
                    return false;
                };
                fences
                    .iter()
                    .find(|(w, _)| w == worker)
                    .is_some_and(|(_, fence)| now_ms - fence > lease_ttl_ms)
            });
            let stale = stale.count();
            let severity = if stale > 0 {
                Severity::Warning
            } else {
                Severity::Ok
            };
            worst = worst.max(part.flag(
                AttentionKind::LeakedWorkers,
                severity,
                if stale > 0 {
                    format!(
                        "namespace {name:?}: {stale} worker ID(s) stranded for longer than a lease lasts ({} leaked in all); rebuild the free list with `idgen inspect-freelist --namespace {name} --repair`",
                        leaked.len()
                    )
                } else {
                    format!(
                        "namespace {name:?}: {} worker ID(s) left by holders that stopped; the next rebuild of the free list takes them back",
                        leaked.len()
                    )
                },
            ));
        }
        if !other.is_empty() {
            worst = worst.max(part.flag(
                AttentionKind::LeaseProblem,
                Severity::Warning,
                format!(
                    "namespace {name:?} has {} lease problem(s); see `idgen inspect-freelist --namespace {name}` and repair with --repair",
                    other.len()
                ),
            ));
        }
        status.severity = worst;
        part.namespaces.push(status);
    }
    part
}

fn layout_status(used_by: &str, layout: &Layout, now_ms: i64) -> LayoutStatus {
    let end = layout.exhausted_at_ms();
    let state = match end {
        None => LayoutState::Untimed,
        Some(_) if layout.epoch_ms().is_some_and(|epoch| epoch > now_ms) => LayoutState::NotStarted,
        Some(end) if end <= now_ms => LayoutState::Exhausted,
        Some(end) if end - now_ms <= LAYOUT_CRITICAL_MS => LayoutState::ExpiringSoon,
        Some(end) if end - now_ms <= LAYOUT_WARNING_MS => LayoutState::Expiring,
        Some(_) => LayoutState::Ok,
    };
    LayoutStatus {
        used_by: used_by.to_string(),
        layout: layout.name().to_string(),
        epoch_ms: layout.epoch_ms(),
        exhausted_at_ms: end,
        exhausted_at: end.map(format_timestamp),
        days_left: end.map(|end| (end - now_ms).max(0) / DAY_MS),
        seconds_left: end.map(|end| (end - now_ms).max(0) / 1000),
        state,
    }
}

/// `0, 5, 7`, or the first few and a count.
fn list(shards: &[u8]) -> String {
    const SHOWN: usize = 8;
    let mut text: Vec<String> = shards.iter().take(SHOWN).map(u8::to_string).collect();
    if shards.len() > SHOWN {
        text.push(format!("and {} more", shards.len() - SHOWN));
    }
    text.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_judged_against_a_year_and_30_days() {
        let layout = Layout::named("uid-generator").unwrap();
        let end = layout.exhausted_at_ms().unwrap();
        let state = |now| layout_status("default", &layout, now).state;
        assert_eq!(state(end), LayoutState::Exhausted);
        assert_eq!(state(end - LAYOUT_CRITICAL_MS), LayoutState::ExpiringSoon);
        assert_eq!(state(end - LAYOUT_CRITICAL_MS - 1), LayoutState::Expiring);
        assert_eq!(state(end - LAYOUT_WARNING_MS), LayoutState::Expiring);
        assert_eq!(state(end - LAYOUT_WARNING_MS - 1), LayoutState::Ok);
        let epoch = layout.epoch_ms().unwrap();
        assert_eq!(state(epoch - 1), LayoutState::NotStarted);
        let segment = Layout::named("segment").unwrap();
        assert_eq!(
            layout_status("default", &segment, 0).state,
            LayoutState::Untimed
        );
    }

    #[test]
    fn severities_rank_unknown_above_ok_and_below_warning() {
        assert!(Severity::Ok < Severity::Unknown);
        assert!(Severity::Unknown < Severity::Warning);
        assert!(Severity::Warning < Severity::Critical);
    }

    #[test]
    fn foreign_rows_name_the_app_their_ids_collide_with() {
        let row = ForeignRow {
            app: 300,
            shard: 5,
            name: "big".into(),
        };
        let message = foreign_row_message(&row);
        assert!(message.contains("app 44 shard 6"), "{message}");
        let row = ForeignRow {
            app: 1,
            shard: 64,
            name: "wide".into(),
        };
        assert!(foreign_row_message(&row).contains("app 1 shard 0 at index + 1"));
    }

    #[test]
    fn shard_lists_stay_short() {
        assert_eq!(list(&[0, 5]), "0, 5");
        let many: Vec<u8> = (0..20).collect();
        assert_eq!(list(&many), "0, 1, 2, 3, 4, 5, 6, 7, and 12 more");
    }
}
