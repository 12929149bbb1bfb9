//! Each app's limits, stock and runway, read from the ledger and its node.

use super::{AppStatus, AttentionKind, LedgerView, Part, Severity, ShardStock, StatusRequest};
use crate::backend::Backend;
use crate::segment::sizing::{Trigger, near_limit, needs_refill};
use crate::segment::{DispenserKind, max_index_within};
use crate::store::{AppRecord, ForeignRow, Route, Slot};
use std::collections::BTreeSet;

pub(super) async fn check_apps(
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
            let refilled_on_demand = request.low_stock_is_a_note(backend);
            worst = worst.max(part.flag(
                AttentionKind::LowStock,
                if refilled_on_demand {
                    Severity::Ok
                } else {
                    Severity::Warning
                },
                format!(
                    "{who}: {} of {} shards at or below the refill threshold ({} x step){}; {}",
                    status.low_shards.len(),
                    status.shards,
                    request.idle,
                    match status.empty_shards.len() {
                        0 => String::new(),
                        n => format!(", {n} empty"),
                    },
                    if refilled_on_demand {
                        "`next` refills them as it needs, in its own transaction (the embedded store needs no cron; `idgen reload-segments` stocks them ahead)"
                    } else {
                        "run `idgen reload-segments`"
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
        "{what} is outside apps 0 to 255 and shards 0 to 63: idgen cannot serve it{collides}; move it to a free app number"
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
