//! The health of a deployment, for `idgen status` and for monitoring.
//!
//! [`gather`] never fails as a whole: a backend that cannot be reached is
//! reported (and needs attention) while everything that can still be read is
//! shown. Whatever an operator must act on becomes an [`Attention`] entry, so
//! the binary's exit code follows from [`StatusReport::needs_attention`].

use crate::backend::Backend;
use crate::config::Settings;
use crate::layout::{Layout, format_timestamp};
use crate::lease::{Assigner, HeldWorker, LeaseStore, Problem, problems, read_signature};
use crate::segment::sizing::{Trigger, near_limit, needs_refill};
use crate::segment::{DispenserKind, max_index_within};
use crate::store::{AppRecord, RollbackRecord, Route, Slot};
use serde::Serialize;
use std::collections::BTreeSet;

/// A layout whose time bits run out within this long needs attention.
pub const LAYOUT_WARNING_MS: i64 = 365 * 24 * 60 * 60 * 1000;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// What to check against.
#[derive(Debug, Clone)]
pub struct StatusRequest {
    /// Refill threshold: a shard at or below `idle` × its step is low.
    pub idle: f64,
    /// The layout `lease` and `decode` use when none is named.
    pub default_layout: Layout,
    /// The current time, Unix ms.
    pub now_ms: i64,
}

/// Everything `idgen status` shows.
#[derive(Debug, Clone, Serialize)]
pub struct StatusReport {
    /// `redis+mysql` or `embedded`.
    pub backend: String,
    pub config_file: Option<String>,
    pub idle: f64,
    pub stores: Vec<StoreStatus>,
    pub apps: Vec<AppStatus>,
    pub namespaces: Vec<NamespaceStatus>,
    pub layouts: Vec<LayoutStatus>,
    /// The last time each Redis node was found to have gone back in time (its
    /// stale stock was retired unserved).
    pub redis_rollbacks: Vec<RollbackRecord>,
    /// What an operator should act on; empty when all is well.
    pub attention: Vec<Attention>,
}

impl StatusReport {
    pub fn needs_attention(&self) -> bool {
        !self.attention.is_empty()
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

/// Reachability of one backend.
#[derive(Debug, Clone, Serialize)]
pub struct StoreStatus {
    pub role: StoreRole,
    pub name: String,
    /// Where it lives, without a password.
    pub location: String,
    pub reachable: bool,
    pub version: Option<String>,
    pub error: Option<String>,
}

/// One app's stock and limits.
#[derive(Debug, Clone, Serialize)]
pub struct AppStatus {
    pub app: u8,
    pub name: String,
    /// The node that serves the app.
    pub node: String,
    /// The durable route, when the app has one (it moved, or is moving).
    pub route: Option<Route>,
    pub moving: bool,
    pub dispenser: DispenserKind,
    pub shards: usize,
    /// Smallest and average stock over the shards (a missing stock counts as 0);
    /// `None` when the node could not be read.
    pub min_stock: Option<u64>,
    pub avg_stock: Option<f64>,
    /// Shards with no stock at all (empty, or never stocked).
    pub empty_shards: Vec<u8>,
    /// Shards at or below the refill threshold.
    pub low_shards: Vec<u8>,
    /// 0: no limit. A string in JSON, like every value that may exceed 2^53.
    #[serde(serialize_with = "u64_as_string")]
    pub max_limit_id: u64,
    /// The largest share of its `max_limit_id` range any shard has taken, in percent.
    pub limit_used_percent: Option<f64>,
    /// Shards that have taken 90% or more of what `max_limit_id` allows.
    pub near_limit_shards: Vec<u8>,
    pub error: Option<String>,
}

/// Worker-ID leases of one namespace.
#[derive(Debug, Clone, Serialize)]
pub struct NamespaceStatus {
    pub name: String,
    pub layout: Option<String>,
    pub epoch_ms: Option<i64>,
    pub assigner: Option<Assigner>,
    pub capacity: u64,
    pub held: Vec<HeldWorker>,
    pub free: usize,
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
    /// Already ran out: it cannot issue IDs.
    Exhausted,
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
    pub state: LayoutState,
}

/// Why an entry needs an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionKind {
    /// A backend did not answer.
    Unreachable,
    /// Something could not be read from a backend that did answer.
    Unreadable,
    /// An app is routed to a node this configuration does not name.
    UnknownNode,
    /// Shards at or below the refill threshold.
    LowStock,
    /// Shards within 10% of `max_limit_id`.
    NearLimit,
    /// An app in the middle of a move between nodes.
    Moving,
    /// Inconsistent worker-ID lease state.
    LeaseProblem,
    /// A layout runs out of time bits within a year.
    LayoutExpiring,
    /// A layout has run out of time bits.
    LayoutExhausted,
}

#[derive(Debug, Clone, Serialize)]
pub struct Attention {
    pub kind: AttentionKind,
    pub message: String,
}

/// Serializes a 64-bit ID (or a limit on one) as a decimal string: JSON readers
/// that hold numbers as doubles (JavaScript, jq 1.6) would round it above 2^53.
pub fn u64_as_string<S: serde::Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// Collects the report. Only reads; never changes stored state.
pub async fn gather(
    backend: &Backend,
    settings: &Settings,
    request: &StatusRequest,
) -> StatusReport {
    let mut report = StatusReport {
        backend: backend.kind.to_string(),
        config_file: settings
            .config_file
            .as_ref()
            .map(|p| p.display().to_string()),
        idle: request.idle,
        stores: Vec::new(),
        apps: Vec::new(),
        namespaces: Vec::new(),
        layouts: Vec::new(),
        redis_rollbacks: Vec::new(),
        attention: Vec::new(),
    };
    let ledger_up = check_ledger(backend, &mut report).await;
    let unreachable = check_nodes(backend, &mut report).await;
    if ledger_up {
        check_apps(backend, settings, request, &unreachable, &mut report).await;
    }
    report.layouts.push(layout_status(
        "default",
        &request.default_layout,
        request.now_ms,
    ));
    check_leases(backend, request, &unreachable, &mut report).await;
    for layout in &report.layouts {
        let whose = match layout.used_by.as_str() {
            "default" => "the default layout".to_string(),
            other => other.to_string(),
        };
        let when = layout.exhausted_at.clone().unwrap_or_default();
        match layout.state {
            LayoutState::Exhausted => report.attention.push(Attention {
                kind: AttentionKind::LayoutExhausted,
                message: format!(
                    "{whose} ({}) ran out of time bits at {when}; it cannot issue IDs",
                    layout.layout
                ),
            }),
            LayoutState::Expiring => report.attention.push(Attention {
                kind: AttentionKind::LayoutExpiring,
                message: format!(
                    "{whose} ({}) runs out of time bits at {when}, in {} days; plan a later epoch or a wider layout",
                    layout.layout,
                    layout.days_left.unwrap_or(0)
                ),
            }),
            LayoutState::Ok | LayoutState::Untimed => {}
        }
    }
    report
}

async fn check_ledger(backend: &Backend, report: &mut StatusReport) -> bool {
    let version = backend.ledger.server_version().await;
    let up = version.is_ok();
    let location = backend.ledger.describe();
    if let Err(e) = &version {
        report.attention.push(Attention {
            kind: AttentionKind::Unreachable,
            message: format!("ledger: {e}"),
        });
    }
    report.stores.push(StoreStatus {
        role: StoreRole::Ledger,
        name: "ledger".into(),
        location,
        reachable: up,
        version: version.as_ref().ok().cloned(),
        error: version.err().map(|e| e.to_string()),
    });
    up
}

/// Checks every node; returns the names of those that did not answer.
async fn check_nodes(backend: &Backend, report: &mut StatusReport) -> BTreeSet<String> {
    let mut unreachable = BTreeSet::new();
    for name in backend.nodes.names().await {
        let node = backend.nodes.get(&name).await;
        let location = backend
            .nodes
            .describe(&name)
            .unwrap_or_else(|| match &node {
                Ok(node) => node.describe(),
                Err(_) => name.clone(),
            });
        let version = match node {
            Ok(node) => {
                let version = node.server_version().await;
                if version.is_ok()
                    && let Ok(Some(rollback)) = node.last_rollback().await
                {
                    report.redis_rollbacks.push(rollback);
                }
                version
            }
            Err(e) => Err(e),
        };
        if let Err(e) = &version {
            unreachable.insert(name.clone());
            report.attention.push(Attention {
                kind: AttentionKind::Unreachable,
                message: format!("Redis node {name:?}: {e}"),
            });
        }
        report.stores.push(StoreStatus {
            role: StoreRole::Node,
            name,
            location,
            reachable: version.is_ok(),
            version: version.as_ref().ok().cloned(),
            error: version.err().map(|e| e.to_string()),
        });
    }
    unreachable
}

async fn check_apps(
    backend: &Backend,
    settings: &Settings,
    request: &StatusRequest,
    unreachable: &BTreeSet<String>,
    report: &mut StatusReport,
) {
    let listed = async {
        Ok::<_, crate::Error>((backend.ledger.apps().await?, backend.ledger.routes().await?))
    };
    let (apps, routes) = match listed.await {
        Ok(found) => found,
        Err(e) => {
            report.attention.push(Attention {
                kind: AttentionKind::Unreadable,
                message: format!("cannot list apps: {e}"),
            });
            return;
        }
    };
    let default = backend.nodes.default_node().to_string();
    for app in &apps {
        let route = routes.get(&app.app).cloned();
        let node = route.as_ref().map_or(default.clone(), |r| r.node.clone());
        let mut status = app_limits(app, route, node, settings.dispenser_for(app.app));
        if let Some(detail) = status.route.as_ref().and_then(move_detail) {
            report.attention.push(Attention {
                kind: AttentionKind::Moving,
                message: format!(
                    "app {} ({}) is moving {detail}; finish it with `idgen migrate`",
                    app.app, app.name
                ),
            });
        }
        if !backend.nodes.contains(&status.node).await {
            status.error = Some(format!("node {:?} is not configured", status.node));
            report.attention.push(Attention {
                kind: AttentionKind::UnknownNode,
                message: format!(
                    "app {} ({}) is served by node {:?}, which is not configured here",
                    app.app, app.name, status.node
                ),
            });
        } else if unreachable.contains(&status.node) {
            status.error = Some(format!("node {:?} is unreachable", status.node));
        } else {
            match read_stock(backend, app, &status).await {
                Ok(stock) => apply_stock(&mut status, app, &stock, request.idle),
                Err(e) => {
                    report.attention.push(Attention {
                        kind: AttentionKind::Unreadable,
                        message: format!(
                            "cannot read the stock of app {} on node {:?}: {e}",
                            app.app, status.node
                        ),
                    });
                    status.error = Some(e.to_string());
                }
            }
        }
        if !status.low_shards.is_empty() {
            report.attention.push(Attention {
                kind: AttentionKind::LowStock,
                message: format!(
                    "app {} ({}): {} of {} shards at or below the refill threshold ({} x step){}; run `idgen reload-segments`",
                    app.app,
                    app.name,
                    status.low_shards.len(),
                    status.shards,
                    request.idle,
                    match status.empty_shards.len() {
                        0 => String::new(),
                        n => format!(", {n} empty"),
                    }
                ),
            });
        }
        if !status.near_limit_shards.is_empty() {
            report.attention.push(Attention {
                kind: AttentionKind::NearLimit,
                message: format!(
                    "app {} ({}): {} shard(s) have taken 90% or more of max_limit_id {} (shards {}); idgen refuses rather than wraps",
                    app.app,
                    app.name,
                    status.near_limit_shards.len(),
                    status.max_limit_id,
                    list(&status.near_limit_shards)
                ),
            });
        }
        report.apps.push(status);
    }
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
    AppStatus {
        app: app.app,
        name: app.name.clone(),
        node,
        moving: route.as_ref().is_some_and(Route::moving),
        route,
        dispenser,
        shards: app.shards.len(),
        min_stock: None,
        avg_stock: None,
        empty_shards: Vec::new(),
        low_shards: Vec::new(),
        max_limit_id: app.max_limit_id(),
        limit_used_percent: used_percent,
        near_limit_shards: near,
        error: None,
    }
}

async fn read_stock(
    backend: &Backend,
    app: &AppRecord,
    status: &AppStatus,
) -> crate::Result<Vec<Option<u64>>> {
    let node = backend.nodes.get(&status.node).await?;
    let slots: Vec<Slot> = app
        .shards
        .iter()
        .map(|row| Slot {
            app: app.app,
            shard: row.shard,
        })
        .collect();
    node.stock(status.dispenser, &slots).await
}

fn apply_stock(status: &mut AppStatus, app: &AppRecord, stock: &[Option<u64>], idle: f64) {
    let mut total: u64 = 0;
    let mut min: Option<u64> = None;
    for (row, stock) in app.shards.iter().zip(stock) {
        let stock = stock.unwrap_or(0);
        if stock == 0 {
            status.empty_shards.push(row.shard);
        }
        total = total.saturating_add(stock);
        min = Some(min.map_or(stock, |m| m.min(stock)));
        let reference = row.last_loaded.unwrap_or(row.step).max(1);
        if needs_refill(Trigger::Threshold { idle }, stock, reference) {
            status.low_shards.push(row.shard);
        }
    }
    status.min_stock = min;
    status.avg_stock = (!stock.is_empty()).then(|| total as f64 / stock.len() as f64);
}

async fn check_leases(
    backend: &Backend,
    request: &StatusRequest,
    unreachable: &BTreeSet<String>,
    report: &mut StatusReport,
) {
    // Leases live on the default node; its unreachability is reported already.
    if unreachable.contains(backend.nodes.default_node()) {
        return;
    }
    let read = async {
        let store = backend.lease_store().await?;
        let names = store.namespaces().await?;
        Ok::<_, crate::Error>((store, names))
    };
    let (store, names): (std::sync::Arc<dyn LeaseStore>, Vec<String>) = match read.await {
        Ok(found) => found,
        Err(e) => {
            report.attention.push(Attention {
                kind: AttentionKind::Unreadable,
                message: format!("cannot read worker-ID leases: {e}"),
            });
            return;
        }
    };
    for name in names {
        let mut status = NamespaceStatus {
            name: name.clone(),
            layout: None,
            epoch_ms: None,
            assigner: None,
            capacity: 0,
            held: Vec::new(),
            free: 0,
            problems: Vec::new(),
            error: None,
        };
        match store.snapshot(&name).await {
            Ok(snapshot) => {
                status.capacity = snapshot.capacity;
                status.free = snapshot.free.len();
                status.problems = problems(&snapshot);
                status.held = snapshot.held;
                match snapshot.signature.as_deref().map(read_signature) {
                    Some(Ok((layout, assigner))) => {
                        status.layout = Some(layout.name().to_string());
                        status.epoch_ms = layout.epoch_ms();
                        status.assigner = Some(assigner);
                        report.layouts.push(layout_status(
                            &format!("namespace {name}"),
                            &layout,
                            request.now_ms,
                        ));
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
            report.attention.push(Attention {
                kind: AttentionKind::Unreadable,
                message: format!("namespace {name:?}: {error}"),
            });
        }
        if !status.problems.is_empty() {
            report.attention.push(Attention {
                kind: AttentionKind::LeaseProblem,
                message: format!(
                    "namespace {name:?} has {} lease problem(s); see `idgen inspect-freelist --namespace {name}` and repair with --repair",
                    status.problems.len()
                ),
            });
        }
        report.namespaces.push(status);
    }
}

fn layout_status(used_by: &str, layout: &Layout, now_ms: i64) -> LayoutStatus {
    let end = layout.exhausted_at_ms();
    let state = match end {
        None => LayoutState::Untimed,
        Some(end) if end <= now_ms => LayoutState::Exhausted,
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
    fn layouts_are_judged_against_a_year() {
        let layout = Layout::named("uid-generator").unwrap();
        let end = layout.exhausted_at_ms().unwrap();
        assert_eq!(
            layout_status("default", &layout, end).state,
            LayoutState::Exhausted
        );
        assert_eq!(
            layout_status("default", &layout, end - LAYOUT_WARNING_MS).state,
            LayoutState::Expiring
        );
        assert_eq!(
            layout_status("default", &layout, end - LAYOUT_WARNING_MS - 1).state,
            LayoutState::Ok
        );
        let segment = Layout::named("segment").unwrap();
        assert_eq!(
            layout_status("default", &segment, 0).state,
            LayoutState::Untimed
        );
    }

    #[test]
    fn shard_lists_stay_short() {
        assert_eq!(list(&[0, 5]), "0, 5");
        let many: Vec<u8> = (0..20).collect();
        assert_eq!(list(&many), "0, 1, 2, 3, 4, 5, 6, 7, and 12 more");
    }
}
