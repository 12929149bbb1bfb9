//! `reload-segments`: the cron job that tops up every shard below its
//! threshold, syncs route hints and reports orphaned stock.
//!
//! It keeps every guarantee of a single refill (see [`super::allocator`]), in
//! batches: the shards of one app on one node are locked in one round trip
//! (a shard someone else holds is skipped), their segments taken in one
//! ledger transaction that re-checks each shard's threshold, route and limit
//! under its row lock, and pushed in one round trip, each push checking its
//! own lock token and stamp inside its script and releasing the lock with
//! it where the node can (only shards left locked are unlocked after). A
//! crash anywhere leaves gaps: the ledger has moved past every segment it
//! handed out.
//!
//! This file is the run itself: which shards are below their threshold, and
//! their refills in batches. `report` holds what the run reports and how it
//! groups it; `upkeep` the route hints and orphaned stock a full run also
//! tends to.

mod report;
mod upkeep;

pub use report::{ExhaustedApp, FailureGroup, OrphanStock, ReloadReport, ShardFailure, shard_list};

use super::DispenserKind;
use super::allocator::{Notes, RefillOutcome, SegmentAllocator, Trigger};
use crate::error::{Error, Result};
use crate::store::{ShardMarks, Slot};
use futures::StreamExt;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Shards of one app refilled together: one lock round trip, one ledger
/// transaction and one push round trip each. Two per app of 64 shards, so
/// that an interrupted run leaves whole batches, and one slow transaction
/// holds few row locks.
pub const RELOAD_BATCH: usize = 32;

/// What `reload-segments` should do.
#[derive(Debug, Clone)]
pub struct ReloadOptions {
    pub app: Option<u8>,
    pub idle: f64,
    pub prune: bool,
    /// Batches (up to [`RELOAD_BATCH`] shards of one app) refilled at once.
    pub jobs: usize,
    /// Once set, no further refill starts; those under way finish.
    pub cancel: Option<Arc<AtomicBool>>,
}

/// Progress of a reload, for a progress bar in the binary.
pub trait ReloadProgress: Send + Sync {
    fn start(&self, shards: u64);
    fn advance(&self);
}

/// A progress sink that ignores everything.
pub struct NoProgress;

impl ReloadProgress for NoProgress {
    fn start(&self, _: u64) {}
    fn advance(&self) {}
}
impl SegmentAllocator {
    /// Tops up every shard at or below the threshold; safe to run many at once.
    pub async fn reload(
        &self,
        options: &ReloadOptions,
        progress: &dyn ReloadProgress,
    ) -> Result<ReloadReport> {
        /// A whole backend down, refusing access or unwritable, rather than
        /// one shard being wrong.
        fn stops_the_run(error: &Error) -> bool {
            matches!(
                error.kind(),
                crate::ErrorKind::Unavailable | crate::ErrorKind::Access | crate::ErrorKind::Store
            ) && !matches!(error, Error::StockEmpty { .. })
        }
        let mut report = ReloadReport::default();
        let apps = self.ledger().apps().await?;
        let apps: Vec<_> = match options.app {
            Some(app) => {
                let found: Vec<_> = apps.into_iter().filter(|a| a.app == app).collect();
                if found.is_empty() {
                    return Err(Error::UnknownApp { app });
                }
                found
            }
            None => apps,
        };
        let routes = self.ledger().routes().await?;
        let default = self.nodes().default_node().to_string();

        // Group shards by the node and dispenser that serve them.
        // Each shard with its refill reference size and the ledger's view of
        // it (max_id, max_limit_id), to find shards out of line with it.
        type Shard = (Slot, u64, (u64, u64));
        let mut groups: BTreeMap<(String, DispenserKind), Vec<Shard>> = BTreeMap::new();
        for app in &apps {
            let node = routes
                .get(&app.app)
                .map_or(default.clone(), |r| r.node.clone());
            let kind = app.dispenser;
            for row in &app.shards {
                let reference = row.last_loaded.unwrap_or(row.step).max(1);
                groups.entry((node.clone(), kind)).or_default().push((
                    Slot {
                        app: app.app,
                        shard: row.shard,
                    },
                    reference,
                    (row.max_id, row.max_limit_id),
                ));
            }
        }

        let mut work: Vec<(String, DispenserKind, Slot)> = Vec::new();
        // A node that is down, refuses access or cannot be written fails every
        // shard alike: when no node answered at all, stop with that one error.
        let mut answered = groups.is_empty();
        let mut first_down: Option<Error> = None;
        for ((node_name, kind), slots) in &groups {
            report.shards_checked += slots.len() as u64;
            let stocks = match self.nodes().get(node_name).await {
                Ok(node) => {
                    let only: Vec<Slot> = slots.iter().map(|(s, ..)| *s).collect();
                    match node.stock_each(*kind, &only).await {
                        Ok(stocks) => node.marks(&only).await.map(|marks| (stocks, marks)),
                        Err(e) => Err(e),
                    }
                }
                Err(e) => Err(e),
            };
            let stocks = match stocks {
                Ok(stocks) => {
                    answered = true;
                    stocks
                }
                Err(e) => {
                    report.failures.extend(
                        slots
                            .iter()
                            .map(|(slot, ..)| ShardFailure::of(node_name, *slot, &e)),
                    );
                    if stops_the_run(&e) {
                        first_down.get_or_insert(e);
                    } else {
                        answered = true;
                    }
                    continue;
                }
            };
            let (stocks, marks) = stocks;
            let marks: Vec<Option<Result<ShardMarks>>> = match marks {
                Some(marks) => marks.into_iter().map(Some).collect(),
                None => slots.iter().map(|_| None).collect(),
            };
            for (((slot, reference, (max_id, max_limit_id)), stock), marks) in
                slots.iter().zip(stocks).zip(marks)
            {
                // A shard whose keys hold data idgen did not write fails alone;
                // the others are judged and refilled as usual.
                let (stock, marks) = match (stock, marks.transpose()) {
                    (Ok(stock), Ok(marks)) => (stock.unwrap_or(0), marks),
                    (Err(e), _) | (_, Err(e)) => {
                        report.shard_error(node_name, *slot, &e);
                        continue;
                    }
                };
                // A shard whose stock may be older than the ledger (its witness
                // is behind max_id: replaced inside the server, SWAPDB) or that
                // obeys another limit (changed by SQL) is brought in line with
                // the ledger under its lock, however much stock it holds.
                let out_of_line = marks.is_some_and(|m| m.out_of_line(*max_id, *max_limit_id));
                if out_of_line
                    || super::sizing::needs_refill(
                        Trigger::Threshold { idle: options.idle },
                        stock,
                        *reference,
                    )
                {
                    work.push((node_name.clone(), *kind, *slot));
                }
            }
        }
        if let (false, Some(down)) = (answered, first_down) {
            return Err(down);
        }
        report.shards_below_threshold = work.len() as u64;
        progress.start(work.len() as u64);

        // Shards of one app on one node go together: one lock round trip, one
        // ledger transaction, one push round trip per batch.
        let mut batches: BTreeMap<(String, DispenserKind, u8), Vec<Slot>> = BTreeMap::new();
        for (node, kind, slot) in work {
            batches
                .entry((node, kind, slot.app))
                .or_default()
                .push(slot);
        }
        let batches: Vec<(String, DispenserKind, Vec<Slot>)> = batches
            .into_iter()
            .flat_map(|((node, kind, _), slots)| {
                slots
                    .chunks(RELOAD_BATCH)
                    .map(|chunk| (node.clone(), kind, chunk.to_vec()))
                    .collect::<Vec<_>>()
            })
            .collect();

        // Set by the first batch that finds a backend down or refusing: the
        // batches still queued would only fail the same way, each after a timeout.
        let backend_down = AtomicBool::new(false);
        let backend_down = &backend_down;
        let results: Vec<_> = futures::stream::iter(batches)
            .map(|(node_name, kind, slots)| async move {
                let mut notes = Notes::default();
                let cancelled = options
                    .cancel
                    .as_ref()
                    .is_some_and(|c| c.load(Ordering::Acquire))
                    || backend_down.load(Ordering::Acquire);
                let outcome = if cancelled {
                    Ok(slots
                        .iter()
                        .map(|&slot| (slot, Ok(RefillOutcome::Skipped)))
                        .collect())
                } else {
                    match self.nodes().get(&node_name).await {
                        Ok(node) => {
                            let trigger = Trigger::Threshold { idle: options.idle };
                            self.refill_shards(&*node, kind, &slots, trigger, &mut notes)
                                .await
                        }
                        Err(e) => Err(e),
                    }
                };
                let stops = match &outcome {
                    Ok(shards) => shards
                        .iter()
                        .any(|(_, o)| o.as_ref().is_err_and(stops_the_run)),
                    Err(e) => stops_the_run(e),
                };
                if stops {
                    backend_down.store(true, Ordering::Release);
                }
                for _ in &slots {
                    progress.advance();
                }
                (node_name, slots, outcome, notes)
            })
            .buffer_unordered(options.jobs.max(1))
            .collect()
            .await;
        let mut down = None;
        for (node, slots, outcome, notes) in results {
            report.warnings.extend(notes.warnings);
            report.rollbacks.extend(notes.rollbacks);
            report.ledger_rollbacks.extend(notes.ledger_rollbacks);
            match outcome {
                Ok(shards) => {
                    for (slot, outcome) in shards {
                        match outcome {
                            Ok(RefillOutcome::Refilled { added }) => {
                                report.shards_refilled += 1;
                                report.ids_added += added;
                            }
                            Ok(RefillOutcome::NotNeeded) => {}
                            Ok(RefillOutcome::Skipped) => report.shards_skipped += 1,
                            Ok(RefillOutcome::Busy) => report.shards_busy += 1,
                            Ok(RefillOutcome::LockLost | RefillOutcome::Full) => {
                                report.segments_dropped += 1
                            }
                            Err(e) if stops_the_run(&e) => {
                                down.get_or_insert(e);
                            }
                            Err(e) => report.shard_error(&node, slot, &e),
                        }
                    }
                }
                Err(e) if stops_the_run(&e) => {
                    down.get_or_insert(e);
                }
                Err(e) => {
                    for &slot in &slots {
                        report.shard_error(&node, slot, &e);
                    }
                }
            }
        }
        if let Some(down) = down {
            return Err(down);
        }
        report.failures.sort_by_key(|f| (f.app, f.shard));
        report.exhausted.sort_by_key(|x| x.app);
        for exhausted in &mut report.exhausted {
            exhausted.shards.sort_unstable();
        }
        if report.shards_skipped > 0 {
            // Stopped early: leave the route hints and orphans for the next run.
            report.group_failures();
            report.group_warnings();
            return Ok(report);
        }
        report.warnings.sort();
        report.warnings.dedup();

        self.sync_route_hints(&routes, options.app, &mut report)
            .await;
        self.find_orphans(&apps, &routes, options, &mut report)
            .await;
        report.group_failures();
        report.group_warnings();
        Ok(report)
    }
}
