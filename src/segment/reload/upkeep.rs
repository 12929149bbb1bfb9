//! What a full `reload-segments` run tends to besides refills: the default
//! node's route hints brought in line with the durable routes, and stock no
//! app routed to its node owns, reported or (with `--prune`) retired under
//! its refill lock.

use super::ReloadOptions;
use super::report::{OrphanStock, ReloadReport, ShardFailure};
use crate::error::Result;
use crate::segment::DispenserKind;
use crate::segment::allocator::SegmentAllocator;
use crate::store::locking::under_lock;
use crate::store::{Dispenser, Route, Slot};
use std::collections::{BTreeMap, BTreeSet};

impl SegmentAllocator {
    /// Makes the default node's route hints match the durable routes.
    pub(super) async fn sync_route_hints(
        &self,
        routes: &BTreeMap<u8, Route>,
        only: Option<u8>,
        report: &mut ReloadReport,
    ) {
        let default_name = self.nodes().default_node().to_string();
        let result: Result<()> = async {
            let default = self.nodes().get(&default_name).await?;
            // A node without hints (the embedded store) serves every app itself.
            let Some(keeper) = default.hints() else {
                return Ok(());
            };
            let hints = keeper.route_hints().await?;
            let in_scope = |app: &u8| only.is_none_or(|o| o == *app);
            for (app, route) in routes.iter().filter(|(a, _)| in_scope(a)) {
                let wanted = (route.node != default_name).then_some(route.node.as_str());
                if hints.get(app).map(String::as_str) != wanted {
                    keeper.set_route_hint(*app, wanted).await?;
                }
            }
            for app in hints
                .keys()
                .filter(|a| in_scope(a) && !routes.contains_key(a))
            {
                keeper.set_route_hint(*app, None).await?;
            }
            Ok(())
        }
        .await;
        if let Err(e) = result {
            report
                .warnings
                .push(format!("could not sync route hints: {e}"));
        }
    }

    /// Reports (and with `prune`, retires) stock that no app routed to its node owns.
    pub(super) async fn find_orphans(
        &self,
        apps: &[crate::store::AppRecord],
        routes: &BTreeMap<u8, Route>,
        options: &ReloadOptions,
        report: &mut ReloadReport,
    ) {
        let known: BTreeSet<u8> = apps.iter().map(|a| a.app).collect();
        let recorded: BTreeMap<u8, DispenserKind> =
            apps.iter().map(|a| (a.app, a.dispenser)).collect();
        let default = self.nodes().default_node().to_string();
        for node_name in self.nodes().names().await {
            let node = match self.nodes().get(&node_name).await {
                Ok(node) => node,
                Err(e) => {
                    report.warnings.push(format!(
                        "could not check node {node_name} for orphaned stock: {e}"
                    ));
                    continue;
                }
            };
            for kind in [DispenserKind::Queue, DispenserKind::Range] {
                let slots = match node.stocked_slots(kind).await {
                    Ok(slots) => slots,
                    Err(e) => {
                        report
                            .warnings
                            .push(format!("could not list stock on node {node_name}: {e}"));
                        continue;
                    }
                };
                let mut by_app: BTreeMap<u8, Vec<Slot>> = BTreeMap::new();
                for slot in slots {
                    if options.app.is_some_and(|a| a != slot.app) {
                        continue;
                    }
                    by_app.entry(slot.app).or_default().push(slot);
                }
                for (app, slots) in by_app {
                    let reason = if options.app.is_none() && !known.contains(&app) {
                        "app is not in id_alloc".to_string()
                    } else if known.contains(&app) {
                        let route = routes.get(&app);
                        let serving = route.map_or(default.as_str(), |r| r.node.as_str());
                        let incoming = route.and_then(|r| r.incoming.as_deref());
                        let served_here =
                            serving == node_name || incoming == Some(node_name.as_str());
                        match recorded.get(&app) {
                            _ if !served_here => format!("app is served by node {serving}"),
                            Some(&served) if served != kind => format!(
                                "app is served by the {} dispenser (the next refill of a shard retires this stock)",
                                served.as_str()
                            ),
                            _ => continue,
                        }
                    } else {
                        continue;
                    };
                    let pruned_ids = if options.prune {
                        self.retire_slots(&*node, kind, &slots, report).await
                    } else {
                        None
                    };
                    report.orphans.push(OrphanStock {
                        node: node_name.clone(),
                        app,
                        dispenser: kind,
                        shards: slots.iter().map(|s| s.shard).collect(),
                        reason,
                        pruned_ids,
                    });
                }
            }
        }
    }

    /// Deletes the stock of `slots`, each under its own refill lock; a shard whose
    /// lock is held is left for the next run.
    pub async fn retire_slots(
        &self,
        node: &dyn Dispenser,
        kind: DispenserKind,
        slots: &[Slot],
        report: &mut ReloadReport,
    ) -> Option<u64> {
        let mut dropped = 0;
        for &slot in slots {
            match self.retire_under_lock(node, kind, slot).await {
                Ok(Some(n)) => dropped += n,
                Ok(None) => report.warnings.push(format!(
                    "app {} shard {} on node {} is locked by a refiller; not pruned this time",
                    slot.app,
                    slot.shard,
                    node.node()
                )),
                Err(e) => report.failures.push(ShardFailure {
                    error: format!("prune failed: {e}"),
                    ..ShardFailure::of(node.node(), slot, &e)
                }),
            }
        }
        Some(dropped)
    }

    /// Deletes one shard's stock under its refill lock, so a refill in flight
    /// is never cut in half. `None`: someone holds the lock; nothing deleted.
    pub async fn retire_under_lock(
        &self,
        node: &dyn Dispenser,
        kind: DispenserKind,
        slot: Slot,
    ) -> Result<Option<u64>> {
        let retired = under_lock(
            node,
            kind,
            slot,
            self.options().lock_ttl,
            |locked| async move { node.retire(kind, slot, &locked.token).await },
        )
        .await?;
        // Retiring under a lock we just took cannot lose it within the TTL.
        Ok(retired.map(|retired| retired.unwrap_or(0)))
    }
}
