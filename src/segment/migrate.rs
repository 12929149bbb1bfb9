//! Moving an app's stock to another Redis node.
//!
//! Why a move never issues an index twice:
//! * one node at a time stocks each shard, and the nodes themselves say
//!   which, not the ledger alone (whose route can go back in time): before
//!   the new node is stocked, each shard is sealed on the old node under its
//!   refill lock (it stocks nothing more, whatever the ledger says) and its
//!   witness is carried to the new node in the same step as the new node is
//!   admitted (`SegmentAllocator::reseat_shard`);
//! * the new node is stocked only with fresh segments from the ledger, taken
//!   above that witness;
//! * the old node's stock is retired shard by shard under each shard's refill
//!   lock, so a refill in flight finishes (or is fenced off by its token) before
//!   the delete, and nothing can be pushed there afterwards: once the route is
//!   switched the ledger refuses segments for the old node;
//! * a client that still reads the old node meanwhile pops indexes that were
//!   cached there only, which nobody else can get.
//!
//! Every step is idempotent and the phase is durable in the ledger, so a move
//! killed at any point is finished by running it again.

use super::DispenserKind;
use super::allocator::{Notes, RefillOutcome, SegmentAllocator, Trigger};
use super::id::SHARDS;
use crate::error::{Error, Result};
use crate::retry::Backoff;
pub use crate::store::MovePhase;
use crate::store::locking::under_lock;
use crate::store::{Dispenser, Rollback, Route, Slot};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What `migrate` will do, shown by `--dry-run` and before the confirmation.
#[derive(Debug, Clone, Serialize)]
pub struct MovePlan {
    pub app: u8,
    pub name: String,
    pub from: String,
    pub to: String,
    pub phase: MovePhase,
    pub dispenser: DispenserKind,
    pub shards: u8,
    /// Indexes cached on the old node now; they become a gap when retired.
    pub stock_on_from: u64,
}

/// What a move did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MoveReport {
    pub shards_stocked: u64,
    pub ids_stocked: u64,
    pub shards_retired: u64,
    pub ids_retired: u64,
    /// Shards another refiller was stocking on the new node; they fill on demand.
    pub shards_busy: u64,
    pub warnings: Vec<String>,
    /// Stale stock found and retired on a node that went back in time.
    pub rollbacks: Vec<Rollback>,
    /// Shards whose ledger was found behind a node's witness, and moved past it.
    pub ledger_rollbacks: Vec<crate::store::LedgerRollback>,
}

/// Progress of a move, for a progress bar in the binary.
pub trait MoveProgress: Send + Sync {
    /// A phase begins with `shards` steps.
    fn phase(&self, what: &str, shards: u64);
    fn advance(&self);
}

/// How long a move waits for a shard's refill lock (to carry its witness, or
/// to retire its stock) before giving up; the lock expires well within it.
const LOCK_WAIT: Duration = Duration::from_secs(60);

impl SegmentAllocator {
    /// The ledger's moves, or why this deployment cannot move apps.
    fn moves(&self, app: u8, to: &str) -> Result<&dyn crate::store::RouteMoves> {
        self.ledger().moves().ok_or_else(|| {
            Error::invalid(
                "migrate",
                format!("app {app} cannot move to node {to:?}: this store has one node"),
                "to move apps to Redis and MySQL, use `idgen migrate --from-store` with --redis and --mysql",
            )
        })
    }

    /// Works out what moving `app` to node `to` involves.
    pub async fn plan_move(&self, app: u8, to: &str) -> Result<MovePlan> {
        let record = self
            .ledger()
            .app(app)
            .await?
            .ok_or(Error::UnknownApp { app })?;
        if !self.nodes().contains(to).await {
            return Err(Error::UnknownNode {
                node: to.to_string(),
            });
        }
        let route = self
            .ledger()
            .routes()
            .await?
            .remove(&app)
            .unwrap_or_else(Route::default_node);
        let (from, phase) = route.move_to(app, to)?;
        if !self.nodes().contains(&from).await {
            return Err(Error::RouteToUnknownNode { app, node: from });
        }
        if phase != MovePhase::Done {
            // Reach the destination as the move will (its address, its
            // credentials), so a dry run fails where the move would.
            self.nodes().get(to).await?;
        }
        let dispenser = record.dispenser;
        let stock_on_from = if phase == MovePhase::Done {
            0
        } else {
            let node = self.nodes().get(&from).await?;
            app_stock(&*node, app).await?
        };
        Ok(MovePlan {
            app,
            name: record.name,
            from,
            to: to.to_string(),
            phase,
            dispenser,
            shards: SHARDS,
            stock_on_from,
        })
    }

    /// Carries out (or resumes) a planned move. Stops between shards when `cancel`
    /// is set, leaving a state that the next run resumes.
    pub async fn run_move(
        &self,
        plan: &MovePlan,
        progress: &dyn MoveProgress,
        cancel: &AtomicBool,
    ) -> Result<MoveReport> {
        let mut report = MoveReport::default();
        if plan.phase == MovePhase::Done {
            return Ok(report);
        }
        let (app, to) = (plan.app, plan.to.as_str());
        let moves = self.moves(app, to)?;
        let target = self.nodes().get(to).await?;
        let source = self.nodes().get(&plan.from).await?;
        let default = self.nodes().get(self.nodes().default_node()).await?;
        if plan.phase == MovePhase::NotStarted || plan.phase == MovePhase::Stocking {
            moves.begin_move(app, to).await?;
            crate::failpoint::hit("migrate.began")?;
            if to != self.nodes().default_node() {
                // A hint left from an earlier move away from `to` would bounce clients.
                crate::store::hints_of(&*target)?
                    .set_route_hint(app, None)
                    .await?;
            }
            for shard in 0..SHARDS {
                check_cancel(cancel, "migrate")?;
                self.reseat_waiting(plan, &*source, &*target, shard, cancel)
                    .await?;
            }
            self.stock_target(plan, &*target, progress, cancel, &mut report)
                .await?;
            crate::failpoint::hit("migrate.before_switch")?;
            moves.switch_route(app, to).await?;
        }
        // Point clients at the new node: those that look on the default node, and
        // those still reading the old one.
        let hint = (to != self.nodes().default_node()).then_some(to);
        crate::store::hints_of(&*default)?
            .set_route_hint(app, hint)
            .await?;
        if plan.from != self.nodes().default_node() {
            crate::store::hints_of(&*source)?
                .set_route_hint(app, Some(to))
                .await?;
        }
        crate::failpoint::hit("migrate.after_switch")?;
        self.retire_source(plan, &*source, &*target, progress, cancel, &mut report)
            .await?;
        moves.finish_move(app).await?;
        Ok(report)
    }

    async fn stock_target(
        &self,
        plan: &MovePlan,
        target: &dyn Dispenser,
        progress: &dyn MoveProgress,
        cancel: &AtomicBool,
        report: &mut MoveReport,
    ) -> Result<()> {
        progress.phase(&format!("stocking {}", plan.to), u64::from(SHARDS));
        let mut notes = Notes::default();
        for shard in 0..SHARDS {
            check_cancel(cancel, "migrate")?;
            let slot = Slot {
                app: plan.app,
                shard,
            };
            // The same threshold as the cron job: a resumed move does not restock.
            let trigger = Trigger::Restock {
                idle: self.options().idle,
            };
            match self
                .refill_shard(target, plan.dispenser, slot, trigger, &mut notes)
                .await?
            {
                RefillOutcome::Refilled { added } => {
                    report.shards_stocked += 1;
                    report.ids_stocked += added;
                }
                RefillOutcome::Busy => report.shards_busy += 1,
                RefillOutcome::NotNeeded
                | RefillOutcome::LockLost
                | RefillOutcome::Full
                | RefillOutcome::Skipped => {}
            }
            progress.advance();
        }
        report.warnings.extend(notes.warnings);
        report.rollbacks.extend(notes.rollbacks);
        report.ledger_rollbacks.extend(notes.ledger_rollbacks);
        Ok(())
    }

    /// Moves the right to stock a shard from node `from` to node `into`:
    /// seals it on `from` under its refill lock (a refill of `from` holds the
    /// lock from its ledger take to its push, so every segment stocked there
    /// is in the witness), reading `from`'s witness in the same step, then
    /// admits it on `into` with that witness. From then on `from` stocks
    /// nothing for the shard and `into` stocks above everything `from`
    /// stocked, whatever the ledger's route says: a ledger that went back in
    /// time cannot make two nodes stock the same indexes. Indexes already
    /// stocked on `from` stay there until retired; each is served once, from
    /// there. Idempotent. `false`: the lock was held elsewhere, nothing done.
    pub(crate) async fn reseat_shard(
        &self,
        from: &dyn Dispenser,
        into: &dyn Dispenser,
        kind: DispenserKind,
        slot: Slot,
    ) -> Result<bool> {
        let sealed = under_lock(
            from,
            kind,
            slot,
            self.options().lock_ttl,
            |locked| async move {
                crate::store::hints_of(from)?
                    .seal(slot, &locked.token, into.node())
                    .await
            },
        )
        .await?;
        let Some(Some(witness)) = sealed else {
            return Ok(false);
        };
        crate::failpoint::hit("migrate.sealed_shard")?;
        crate::store::hints_of(into)?.admit(slot, witness).await?;
        Ok(true)
    }

    /// [`Self::reseat_shard`] for a move, waiting for the lock.
    async fn reseat_waiting(
        &self,
        plan: &MovePlan,
        source: &dyn Dispenser,
        target: &dyn Dispenser,
        shard: u8,
        cancel: &AtomicBool,
    ) -> Result<()> {
        let slot = Slot {
            app: plan.app,
            shard,
        };
        self.waiting_for_lock(source, slot, cancel, || async move {
            Ok(self
                .reseat_shard(source, target, plan.dispenser, slot)
                .await?
                .then_some(()))
        })
        .await
    }

    async fn retire_source(
        &self,
        plan: &MovePlan,
        source: &dyn Dispenser,
        target: &dyn Dispenser,
        progress: &dyn MoveProgress,
        cancel: &AtomicBool,
        report: &mut MoveReport,
    ) -> Result<()> {
        progress.phase(&format!("retiring {}", plan.from), u64::from(SHARDS));
        for shard in 0..SHARDS {
            check_cancel(cancel, "migrate")?;
            let slot = Slot {
                app: plan.app,
                shard,
            };
            // Again: a move begun by an idgen that did not seal resumes here.
            self.reseat_waiting(plan, source, target, shard, cancel)
                .await?;
            let dropped = self.retire_shard(source, slot, cancel).await?;
            report.shards_retired += 1;
            report.ids_retired += dropped;
            crate::failpoint::hit("migrate.retired_shard")?;
            progress.advance();
        }
        Ok(())
    }

    /// Deletes one shard's stock of both kinds under its refill lock, waiting
    /// for a refill in flight to finish (or its lock to expire).
    async fn retire_shard(
        &self,
        node: &dyn Dispenser,
        slot: Slot,
        cancel: &AtomicBool,
    ) -> Result<u64> {
        let mut dropped = 0;
        for kind in [DispenserKind::Queue, DispenserKind::Range] {
            dropped += self
                .waiting_for_lock(node, slot, cancel, || {
                    self.retire_under_lock(node, kind, slot)
                })
                .await?;
        }
        Ok(dropped)
    }

    /// Runs `attempt` (an act under the shard's refill lock on `node`; `None`
    /// while another holds the lock) until it gets the lock, waiting for a
    /// refill in flight to finish or its lock to expire.
    async fn waiting_for_lock<T, Fut>(
        &self,
        node: &dyn Dispenser,
        slot: Slot,
        cancel: &AtomicBool,
        mut attempt: impl FnMut() -> Fut,
    ) -> Result<T>
    where
        Fut: std::future::Future<Output = Result<Option<T>>>,
    {
        let mut poll = Backoff::held_elsewhere(Instant::now() + LOCK_WAIT);
        loop {
            if let Some(done) = attempt().await? {
                return Ok(done);
            }
            check_cancel(cancel, "migrate")?;
            if !poll.pause().await {
                return Err(Error::MigrationConflict {
                    app: slot.app,
                    target: node.node().to_string(),
                    detail: format!(
                        "shard {}'s refill lock stayed held for a minute",
                        slot.shard
                    ),
                });
            }
        }
    }
}

/// Indexes cached for `app` on a dispenser, over both dispenser kinds.
async fn app_stock(node: &dyn Dispenser, app: u8) -> Result<u64> {
    let slots: Vec<Slot> = (0..SHARDS).map(|shard| Slot { app, shard }).collect();
    let mut total = 0;
    for kind in [DispenserKind::Queue, DispenserKind::Range] {
        total += node
            .stock(kind, &slots)
            .await?
            .into_iter()
            .map(|s| s.unwrap_or(0))
            .sum::<u64>();
    }
    Ok(total)
}

fn check_cancel(cancel: &AtomicBool, what: &str) -> Result<()> {
    if cancel.load(Ordering::Acquire) {
        Err(Error::Interrupted {
            what: what.to_string(),
        })
    } else {
        Ok(())
    }
}

/// What moving an app out of an embedded store into this deployment involves.
#[derive(Debug, Clone, Serialize)]
pub struct StoreExitPlan {
    pub app: u8,
    pub name: String,
    /// The embedded store's file.
    pub source: String,
    /// The Redis node that will serve the app.
    pub to: String,
    /// Already sealed by an earlier run (it resumes).
    pub sealed: bool,
    /// Indexes cached in the embedded store now; they become a gap.
    pub stock_in_source: u64,
}

/// What moving out of an embedded store did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StoreExitReport {
    /// The highest index the embedded store handed out, per shard; MySQL starts above.
    pub sealed_max_ids: Vec<u64>,
    /// `false` when an earlier run had already taken the app over.
    pub adopted: bool,
    pub ids_dropped_from_source: u64,
    pub shards_stocked: u64,
    pub ids_stocked: u64,
    pub warnings: Vec<String>,
    /// Stale stock found and retired on a node that went back in time.
    pub rollbacks: Vec<Rollback>,
    /// Shards whose ledger was found behind a node's witness, and moved past it.
    pub ledger_rollbacks: Vec<crate::store::LedgerRollback>,
}

/// Moving an app from an embedded store (a laptop's) into a Redis + MySQL deployment.
///
/// Why nothing repeats: sealing is one transaction that fixes the embedded
/// store's final `max_id` per shard and makes it refuse any further segment;
/// MySQL then continues strictly above those (and refuses an app that already
/// issued IDs of its own). Indexes still cached in the embedded store are at or
/// below the sealed `max_id`s, so whatever an embedded client pops meanwhile is
/// never issued again; the cache is dropped (a gap), never copied.
pub struct StoreExit<'a> {
    pub source: &'a crate::store::sqlite::SqliteStore,
    pub mysql: &'a crate::store::mysql::MysqlLedger,
    pub allocator: &'a SegmentAllocator,
}

impl StoreExit<'_> {
    /// The name under which the destination is recorded in the source: stable
    /// across reruns, so a rerun resumes instead of being refused.
    fn destination(&self) -> String {
        self.mysql.recorded_name()
    }

    pub async fn plan(&self, app: u8, to: &str) -> Result<StoreExitPlan> {
        use crate::store::AppCatalog;
        if !self.allocator.nodes().contains(to).await {
            return Err(Error::UnknownNode {
                node: to.to_string(),
            });
        }
        let sealing = self.source.sealing(app).await?;
        if let Some(sealed) = sealing
            .as_ref()
            .filter(|s| s.destination != self.destination())
        {
            return Err(Error::AppMovedOut {
                app,
                to: sealed.destination.clone(),
            });
        }
        let record = self
            .source
            .app(app)
            .await?
            .ok_or(Error::UnknownApp { app })?;
        let source = self.source.path().display().to_string();
        // What the run would refuse, a dry run refuses too: MySQL reached
        // with the same credentials, judged by the same rule, and the node.
        self.mysql
            .check_adoption(
                app,
                &record.name,
                &Self::adopted_from(&source),
                sealing.as_ref(),
            )
            .await?;
        self.allocator.nodes().get(to).await?;
        let stock_in_source = app_stock(self.source, app).await?;
        Ok(StoreExitPlan {
            app,
            name: record.name,
            source,
            to: to.to_string(),
            sealed: sealing.is_some(),
            stock_in_source,
        })
    }

    /// How MySQL records the store an app was taken over from.
    fn adopted_from(source: &str) -> String {
        format!("embedded store {source}")
    }

    /// Seals, adopts, drops the embedded stock, routes and stocks the node.
    /// Each step is idempotent: a killed run is finished by running it again.
    pub async fn run(
        &self,
        plan: &StoreExitPlan,
        progress: &dyn MoveProgress,
        cancel: &AtomicBool,
    ) -> Result<StoreExitReport> {
        let app = plan.app;
        let mut report = StoreExitReport::default();
        let sealed = self.source.seal_app(app, &self.destination()).await?;
        report.sealed_max_ids = sealed.shards.iter().map(|s| s.max_id).collect();
        crate::failpoint::hit("store_exit.after_seal")?;
        report.adopted = self
            .mysql
            .adopt(&sealed, &Self::adopted_from(&plan.source))
            .await?;
        crate::failpoint::hit("store_exit.after_adopt")?;
        report.ids_dropped_from_source = self.source.drop_app_stock(app).await?;

        let allocator = self.allocator;
        let default = allocator.nodes().default_node().to_string();
        if plan.to != default {
            // Route the app to its node the way a move would, durably.
            let moves = allocator.moves(app, &plan.to)?;
            moves.begin_move(app, &plan.to).await?;
            moves.switch_route(app, &plan.to).await?;
            moves.finish_move(app).await?;
            let main = allocator.nodes().get(&default).await?;
            crate::store::hints_of(&*main)?
                .set_route_hint(app, Some(&plan.to))
                .await?;
        }
        let node = allocator.nodes().get(&plan.to).await?;
        let kind = allocator.ledger().dispenser(app).await?;
        progress.phase(&format!("stocking {}", plan.to), u64::from(SHARDS));
        let mut notes = Notes::default();
        for shard in 0..SHARDS {
            check_cancel(cancel, "migrate")?;
            let trigger = Trigger::Restock {
                idle: allocator.options().idle,
            };
            let slot = Slot { app, shard };
            if let RefillOutcome::Refilled { added } = allocator
                .refill_shard(&*node, kind, slot, trigger, &mut notes)
                .await?
            {
                report.shards_stocked += 1;
                report.ids_stocked += added;
            }
            progress.advance();
        }
        report.warnings.extend(notes.warnings);
        report.rollbacks.extend(notes.rollbacks);
        report.ledger_rollbacks.extend(notes.ledger_rollbacks);
        Ok(report)
    }
}
