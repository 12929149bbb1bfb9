//! Decoding what both SQL ledgers (MySQL, SQLite) store the same way: shard
//! rows with their refill history, per-app step bounds and routes.

use super::{
    AppPolicy, RefillMark, Route, Segment, SegmentRequest, ShardState, ShardTake, TakenSegment,
};
use crate::error::{Error, Result};
use crate::shard::DispenserKind;
use crate::shard::max_index_within;
use crate::store::sizing::Want;
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

/// An `id_alloc` row and its refill history, as both ledgers read it under
/// the row lock before taking a segment.
pub(crate) struct StoredShard {
    pub shard: u8,
    pub max_id: i64,
    pub step: i64,
    pub max_limit_id: i64,
    pub loaded_at_ms: Option<i64>,
    pub loaded: Option<i64>,
    pub stock_after: Option<i64>,
}

/// The app's step bounds and route, read beside its locked rows.
#[derive(Default)]
pub(crate) struct StoredAppExtra {
    pub min_step: Option<i64>,
    pub max_step: Option<i64>,
    pub target_secs: Option<i64>,
    pub node: Option<String>,
    pub target_node: Option<String>,
    pub phase: Option<String>,
    /// `idgen_dispenser.kind`: the dispenser a refill stocks.
    pub dispenser: Option<String>,
}

/// The locked rows of some shards of one app, with their refill history, in
/// shard order; `?`-style placeholders: the app, then each shard. Both ledgers
/// run it inside the transaction that takes the segments (MySQL adds
/// `FOR UPDATE` on `id_alloc` alone; SQLite already holds the write lock).
pub(crate) fn shard_rows_sql(shards: usize, for_update: bool) -> String {
    let marks = vec!["?"; shards.max(1)].join(", ");
    let rows = format!(
        "SELECT shard_id, max_id, step, max_limit_id FROM id_alloc WHERE app_id = ? AND shard_id IN ({marks}) ORDER BY shard_id"
    );
    if for_update {
        format!("{rows} FOR UPDATE")
    } else {
        rows
    }
}

/// A locked `id_alloc` row: shard, max_id, step, max_limit_id.
pub(crate) type LockedRow = (u8, i64, i64, i64);

/// A refill history row: shard, then loaded_at_ms, loaded, stock_after.
pub(crate) type HistoryRow = (u8, Option<i64>, Option<i64>, Option<i64>);

/// Joins locked rows with their shards' refill history.
pub(crate) fn join_history(rows: Vec<LockedRow>, history: Vec<HistoryRow>) -> Vec<StoredShard> {
    let mut history: std::collections::BTreeMap<_, _> = history
        .into_iter()
        .map(|(shard, at, loaded, after)| (shard, (at, loaded, after)))
        .collect();
    rows.into_iter()
        .map(|(shard, max_id, step, max_limit_id)| {
            let (loaded_at_ms, loaded, stock_after) = history.remove(&shard).unwrap_or_default();
            StoredShard {
                shard,
                max_id,
                step,
                max_limit_id,
                loaded_at_ms,
                loaded,
                stock_after,
            }
        })
        .collect()
}

/// The refill history of every shard of an app (placeholder: the app).
pub(crate) const REFILL_ROWS_SQL: &str =
    "SELECT shard_id, loaded_at_ms, loaded, stock_after FROM idgen_refill WHERE app_id = ?";

/// The app's bounds and route, as both ledgers select them after the locked
/// `id_alloc` rows (`?`-style placeholders: app, app).
pub(crate) const APP_EXTRA_SQL: &str =
    "SELECT p.min_step, p.max_step, p.target_secs, r.node, r.target_node, r.phase, d.kind
     FROM (SELECT 1 AS one) x
     LEFT JOIN idgen_app p ON p.app_id = ?
     LEFT JOIN idgen_route r ON r.app_id = ?
     LEFT JOIN idgen_dispenser d ON d.app_id = ?";

impl StoredShard {
    /// The shard as the planner sees it.
    fn into_state(self, app: u8, extra: &StoredAppExtra, default_node: &str) -> Result<ShardState> {
        let step = to_u64(self.step, "step")?;
        Ok(ShardState {
            app,
            shard: self.shard,
            max_id: to_u64(self.max_id, "max_id")?,
            step,
            max_limit_id: to_u64(self.max_limit_id, "max_limit_id")?,
            policy: policy_from(step, extra.min_step, extra.max_step, extra.target_secs),
            dispenser: dispenser_from(extra.dispenser.as_deref())?,
            last_refill: match (self.loaded_at_ms, self.loaded, self.stock_after) {
                (Some(at), Some(loaded), Some(after)) => Some(RefillMark {
                    loaded_at_ms: at,
                    loaded: loaded.max(0) as u64,
                    stock_after: after.max(0) as u64,
                }),
                _ => None,
            },
            route: route_from(
                default_node,
                extra.node.clone(),
                extra.target_node.clone(),
                extra.phase.clone(),
            ),
        })
    }
}

/// What a batch writes to one shard: its new `max_id`, and the refill mark.
pub(crate) struct ShardWrite {
    pub shard: u8,
    pub max_id: i64,
    pub mark: Option<RefillMark>,
}

/// Applies a [`SegmentRequest`] to the shards read under their locks: the one
/// place both SQL ledgers size segments (the pure planner), check the route
/// and re-check the limit, and compute the new `max_id`. Returns one answer
/// per requested shard and the writes to make before committing; a shard whose
/// row is missing, whose limit is reached or whose route is elsewhere gets an
/// error and no write.
pub(crate) fn apply_request(
    request: &SegmentRequest,
    rows: Vec<StoredShard>,
    extra: &StoredAppExtra,
    default_node: &str,
) -> Result<(Vec<ShardTake>, Vec<ShardWrite>)> {
    let app = request.app;
    let mut states = std::collections::BTreeMap::new();
    for row in rows {
        states.insert(row.shard, row.into_state(app, extra, default_node)?);
    }
    let mut takes = Vec::with_capacity(request.shards.len());
    let mut writes = Vec::new();
    for &(shard, want) in &request.shards {
        let taken = match states.remove(&shard) {
            None => Err(Error::ShardMissing { app, shard }),
            Some(state) => apply_one(request, state, want).map(|(taken, write)| {
                writes.extend(write);
                taken
            }),
        };
        takes.push((shard, taken));
    }
    Ok((takes, writes))
}

fn apply_one(
    request: &SegmentRequest,
    mut state: ShardState,
    want: Want,
) -> Result<(TakenSegment, Option<ShardWrite>)> {
    let (app, shard) = (state.app, state.shard);
    if let Some(node) = &request.node
        && !state.route.allows(node)
    {
        return Err(Error::Moved {
            app,
            node: state.route.node.clone(),
        });
    }
    // A witness outside the ledger saw it hand out indexes up to the floor: a
    // `max_id` below it went back in time, and taking from it would hand them
    // out again. Move past the floor first; the indexes between are a gap.
    let behind = match request.floors.get(&shard) {
        Some(&floor) if state.max_id < floor => {
            let found = state.max_id;
            state.max_id = floor;
            Some(found)
        }
        _ => None,
    };
    let moved = |max_id: u64| -> Result<ShardWrite> {
        Ok(ShardWrite {
            shard,
            max_id: i64::try_from(max_id).map_err(|_| {
                Error::Internal(format!(
                    "max_id {max_id} of app {app} shard {shard} does not fit a signed 64-bit integer"
                ))
            })?,
            mark: None,
        })
    };
    // An error (the limit reached past the floor) writes nothing: every later
    // take is checked against the same witness, so none can serve below it.
    let planned = crate::store::sizing::plan(&state, want, request.now_ms)?;
    if planned.count == 0 {
        let write = behind.map(|_| moved(state.max_id)).transpose()?;
        return Ok((
            TakenSegment {
                segment: None,
                direct: planned.direct,
                state,
                behind,
            },
            write,
        ));
    }
    let limit = max_index_within(state.max_limit_id, app, shard).unwrap_or(0);
    if state.max_id.saturating_add(planned.count) > limit {
        return Err(Error::Internal(format!(
            "planner asked for {} indexes past max_id {} of app {app} shard {shard} (limit {limit})",
            planned.count, state.max_id
        )));
    }
    let new_max = state.max_id + planned.count;
    let mut write = moved(new_max)?;
    write.mark = planned.mark;
    let segment = Segment {
        first: state.max_id + 1,
        last: new_max,
    };
    Ok((
        TakenSegment {
            segment: Some(segment),
            direct: planned.direct,
            state,
            behind,
        },
        Some(write),
    ))
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
