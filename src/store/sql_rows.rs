//! Decoding what both SQL ledgers (MySQL, SQLite) store the same way: shard
//! rows with their refill history, per-app step bounds and routes.

use super::{AppPolicy, RefillMark, Route, ShardState};
use crate::error::{Error, Result};
use crate::segment::DispenserKind;
use std::time::Duration;

/// `idgen_route.phase` while the incoming node is being stocked.
pub(crate) const PHASE_STOCKING: &str = "stocking";
/// `idgen_route.phase` while the outgoing node is being retired.
pub(crate) const PHASE_RETIRING: &str = "retiring";

/// A stored count; negative means someone wrote the row by hand.
pub(crate) fn to_u64(value: i64, column: &str) -> Result<u64> {
    u64::try_from(value).map_err(|_| Error::Corrupt {
        detail: format!("id_alloc.{column} is negative ({value})"),
    })
}

/// An app's step bounds; apps idgen did not create get the defaults for their step.
pub(crate) fn policy_from(
    step: u64,
    min: Option<i64>,
    max: Option<i64>,
    target: Option<i64>,
) -> AppPolicy {
    let default = AppPolicy::for_step(step.max(1));
    AppPolicy {
        min_step: min.map_or(default.min_step, |v| v.max(1) as u64),
        max_step: max.map_or(default.max_step, |v| v.max(1) as u64),
        target: target.map_or(default.target, |v| Duration::from_secs(v.max(1) as u64)),
    }
}

/// An `idgen_dispenser.kind` value; no row means the Java service's queue.
pub(crate) fn dispenser_from(kind: Option<&str>) -> Result<DispenserKind> {
    match kind {
        None => Ok(DispenserKind::Queue),
        Some(kind) => DispenserKind::parse(kind).map_err(|_| Error::Corrupt {
            detail: format!("idgen_dispenser.kind is {kind:?}, neither queue nor range"),
        }),
    }
}

/// A route row: during stocking `target_node` is the incoming node, while
/// retiring the outgoing one. No row means `default_node`.
pub(crate) fn route_from(
    default_node: &str,
    node: Option<String>,
    target: Option<String>,
    phase: Option<String>,
) -> Route {
    let (incoming, outgoing) = match phase.as_deref() {
        Some(PHASE_STOCKING) => (target, None),
        Some(PHASE_RETIRING) => (None, target),
        _ => (None, None),
    };
    Route {
        node: node.unwrap_or_else(|| default_node.to_string()),
        incoming,
        outgoing,
    }
}

/// The `target_node` and `phase` columns that store a route.
pub(crate) fn route_columns(route: &Route) -> (Option<String>, Option<&'static str>) {
    match (&route.incoming, &route.outgoing) {
        (Some(incoming), _) => (Some(incoming.clone()), Some(PHASE_STOCKING)),
        (None, Some(outgoing)) => (Some(outgoing.clone()), Some(PHASE_RETIRING)),
        (None, None) => (None, None),
    }
}

/// The columns both ledgers read, under the shard's row lock, before taking a segment.
pub(crate) struct StoredShard {
    pub max_id: i64,
    pub step: i64,
    pub max_limit_id: i64,
    pub loaded_at_ms: Option<i64>,
    pub loaded: Option<i64>,
    pub stock_after: Option<i64>,
    pub min_step: Option<i64>,
    pub max_step: Option<i64>,
    pub target_secs: Option<i64>,
    pub node: Option<String>,
    pub target_node: Option<String>,
    pub phase: Option<String>,
}

/// The history, bounds and route columns, as both ledgers select them after
/// the locked `id_alloc` row (`?`-style placeholders: app, shard, app, app).
pub(crate) const SHARD_EXTRA_SQL: &str = "SELECT h.loaded_at_ms, h.loaded, h.stock_after, p.min_step, p.max_step, p.target_secs, r.node, r.target_node, r.phase
     FROM (SELECT 1 AS one) x
     LEFT JOIN idgen_refill h ON h.app_id = ? AND h.shard_id = ?
     LEFT JOIN idgen_app p ON p.app_id = ?
     LEFT JOIN idgen_route r ON r.app_id = ?";

impl StoredShard {
    /// The shard as the planner sees it.
    pub(crate) fn into_state(self, app: u8, shard: u8, default_node: &str) -> Result<ShardState> {
        let step = to_u64(self.step, "step")?;
        Ok(ShardState {
            app,
            shard,
            max_id: to_u64(self.max_id, "max_id")?,
            step,
            max_limit_id: to_u64(self.max_limit_id, "max_limit_id")?,
            policy: policy_from(step, self.min_step, self.max_step, self.target_secs),
            last_refill: match (self.loaded_at_ms, self.loaded, self.stock_after) {
                (Some(at), Some(loaded), Some(after)) => Some(RefillMark {
                    loaded_at_ms: at,
                    loaded: loaded.max(0) as u64,
                    stock_after: after.max(0) as u64,
                }),
                _ => None,
            },
            route: route_from(default_node, self.node, self.target_node, self.phase),
        })
    }
}

/// One `id_alloc` row with its last loaded segment size, as listed for `apps()`.
pub(crate) struct StoredAppShard {
    pub app: u8,
    pub name: String,
    pub description: Option<String>,
    pub shard: u8,
    pub max_id: i64,
    pub step: i64,
    pub max_limit_id: i64,
    pub loaded: Option<i64>,
}

/// Groups rows ordered by app then shard into apps, with their step bounds
/// (`policies`: app → min step, max step, target seconds) and their recorded
/// dispensers (`dispensers`: app → `idgen_dispenser.kind`).
pub(crate) fn group_apps(
    rows: impl IntoIterator<Item = StoredAppShard>,
    policies: &std::collections::BTreeMap<u8, (i64, i64, i64)>,
    dispensers: &std::collections::BTreeMap<u8, String>,
) -> Result<Vec<super::AppRecord>> {
    let mut apps: Vec<super::AppRecord> = Vec::new();
    for row in rows {
        let step = to_u64(row.step, "step")?;
        if apps.last().is_none_or(|a| a.app != row.app) {
            let (min, max, target) = policies
                .get(&row.app)
                .map(|&(a, b, c)| (Some(a), Some(b), Some(c)))
                .unwrap_or_default();
            apps.push(super::AppRecord {
                app: row.app,
                name: row.name,
                description: row.description,
                policy: policy_from(step, min, max, target),
                dispenser: dispenser_from(dispensers.get(&row.app).map(String::as_str))?,
                shards: Vec::new(),
            });
        }
        if let Some(record) = apps.last_mut() {
            record.shards.push(super::ShardRow {
                shard: row.shard,
                max_id: to_u64(row.max_id, "max_id")?,
                step,
                max_limit_id: to_u64(row.max_limit_id, "max_limit_id")?,
                last_loaded: row.loaded.and_then(|l| u64::try_from(l).ok()),
            });
        }
    }
    Ok(apps)
}
