//! Changing an app: the ledger records the change, and a change of dispenser
//! is carried to every shard on the nodes that serve the app.
//!
//! A lowered `max_limit_id` goes the other way round: every shard of the app
//! is locked on the nodes serving it, the new limit is recorded beside each
//! stock and the stock above it retired (in one script per shard), and only
//! then does the ledger change, before the locks are released. No refill can
//! push under the old limit meanwhile, and a take never serves above the new
//! one once the command has answered. If a lock stays held past a lock's
//! lifetime, nothing changes and the command fails, to be run again.
//!
//! The ledger is changed first. Each shard is then switched under its refill
//! lock, which a refill holds while it reads the recorded dispenser and
//! pushes: a refill that read the old dispenser has pushed before the switch
//! (whose retirement takes that stock), and one that starts after it reads
//! the new one. Stock left in the old dispenser is retired unserved, a gap.

use super::allocator::SegmentAllocator;
use crate::error::{Error, Result};
use crate::retry::Backoff;
use crate::segment::{DispenserKind, SHARDS};
use crate::store::locking::under_lock;
use crate::store::{AppChange, AppRecord, Dispenser, LockToken, Slot};
use serde::Serialize;
use std::time::Instant;

/// What carrying a change of dispenser to the nodes did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DispenserSwitch {
    /// The dispenser the app had, and has now.
    pub from: Option<DispenserKind>,
    pub to: Option<DispenserKind>,
    /// Nodes whose 64 shards now record the new dispenser.
    pub nodes: Vec<String>,
    /// Indexes retired unserved from the old dispenser (a gap).
    pub ids_retired: u64,
    /// Shards whose lock stayed held by a refill past the wait, by node; their
    /// next refill switches them, or run the command again.
    pub pending: Vec<(String, Vec<u8>)>,
    /// Indexes above a lowered `max_limit_id` retired unserved (a gap).
    pub ids_over_limit: u64,
}

impl SegmentAllocator {
    /// Changes `app` in the ledger; a new dispenser is then recorded on every
    /// shard of the nodes serving it (see the module docs).
    pub async fn update_app(
        &self,
        app: u8,
        change: &AppChange,
    ) -> Result<(AppRecord, DispenserSwitch)> {
        let before = self.ledger().dispenser(app).await?;
        let mut switch = DispenserSwitch::default();
        let record = match self.ledger().app(app).await? {
            Some(current) if change.lowers_limit(&current) => {
                // Refused here, before any stock is retired, if not agreed.
                change.apply_to(&current)?;
                self.lower_limit(&current, change, &mut switch.ids_over_limit)
                    .await?
            }
            _ => self.ledger().update_app(app, change).await?,
        };
        if change.dispenser.is_none() {
            return Ok((record, switch));
        }
        // Run even when the ledger already had this kind: finishes a switch
        // that an earlier run left pending (a node was down, a lock was held).
        switch.from = Some(before);
        switch.to = Some(record.dispenser);
        for name in self.serving_nodes(app).await? {
            let node = self.nodes().get(&name).await?;
            let pending = self
                .switch_node(&*node, app, record.dispenser, &mut switch.ids_retired)
                .await?;
            if pending.is_empty() {
                switch.nodes.push(name);
            } else {
                switch.pending.push((name, pending));
            }
        }
        Ok((record, switch))
    }

    /// The nodes that may hold the app's stock: its node, and the one it is moving to.
    async fn serving_nodes(&self, app: u8) -> Result<Vec<String>> {
        let route = self.ledger().routes().await?.remove(&app);
        let mut nodes = vec![
            route
                .as_ref()
                .map_or(self.nodes().default_node().to_string(), |r| r.node.clone()),
        ];
        nodes.extend(route.and_then(|r| r.incoming));
        Ok(nodes)
    }

    /// Lowers the app's `max_limit_id` (see the module docs): every shard
    /// locked on every serving node, its stock above the new limit retired,
    /// then the ledger changed, then the locks released.
    async fn lower_limit(
        &self,
        current: &AppRecord,
        change: &AppChange,
        retired: &mut u64,
    ) -> Result<AppRecord> {
        let app = current.app;
        let limit = change.max_limit_id.unwrap_or_default();
        let kind = current.dispenser;
        // Each serving node with the locks taken on it, released at the end.
        type Held = (std::sync::Arc<dyn Dispenser>, Vec<(Slot, LockToken)>);
        let mut held: Vec<Held> = Vec::new();
        let outcome = async {
            for name in self.serving_nodes(app).await? {
                let node = self.nodes().get(&name).await?;
                let (locks, missing) = self.lock_every_shard(&*node, app, kind).await?;
                held.push((node.clone(), locks));
                if let Some(&shard) = missing.first() {
                    return Err(Error::ShardBusy {
                        app,
                        shard,
                        node: name,
                    });
                }
            }
            for (node, locks) in &held {
                for (slot, token) in locks {
                    let max_id = current
                        .shards
                        .iter()
                        .find(|row| row.shard == slot.shard)
                        .map_or(0, |row| row.max_id);
                    match node.settle(*slot, token, max_id, limit).await? {
                        Some(settled) => *retired += settled.over_limit + settled.stale,
                        None => {
                            return Err(Error::ShardBusy {
                                app,
                                shard: slot.shard,
                                node: node.node().to_string(),
                            });
                        }
                    }
                }
            }
            self.ledger().update_app(app, change).await
        }
        .await;
        for (node, locks) in &held {
            // A lock left behind expires with its lifetime; the outcome stands.
            let _ = node.unlock_many(locks).await;
        }
        outcome
    }

    /// Takes the refill lock of every shard of `app` on `node`, waiting up to
    /// a lock's lifetime for refills under way; returns the locks taken and
    /// the shards still held by someone else.
    async fn lock_every_shard(
        &self,
        node: &dyn Dispenser,
        app: u8,
        kind: DispenserKind,
    ) -> Result<(Vec<(Slot, LockToken)>, Vec<u8>)> {
        let options = self.options();
        // A refill holds a lock for one ledger round trip and one push.
        let mut poll = Backoff::held_elsewhere(Instant::now() + options.lock_ttl);
        let mut locks = Vec::new();
        let mut waiting: Vec<u8> = (0..SHARDS).collect();
        loop {
            let slots: Vec<Slot> = waiting.iter().map(|&shard| Slot { app, shard }).collect();
            let answers = node.lock_many(kind, &slots, options.lock_ttl).await?;
            let mut still = Vec::new();
            for (slot, answer) in slots.into_iter().zip(answers) {
                match answer {
                    Ok(Some(locked)) => locks.push((slot, locked.token)),
                    Ok(None) => still.push(slot.shard),
                    Err(e) => {
                        let _ = node.unlock_many(&locks).await;
                        return Err(e);
                    }
                }
            }
            if still.is_empty() || !poll.pause().await {
                return Ok((locks, still));
            }
            waiting = still;
        }
    }

    /// Switches the app's shards on one node; returns the shards still locked
    /// by someone else after waiting out a lock's lifetime.
    async fn switch_node(
        &self,
        node: &dyn Dispenser,
        app: u8,
        kind: DispenserKind,
        retired: &mut u64,
    ) -> Result<Vec<u8>> {
        let options = self.options();
        // A refill holds a lock for one ledger round trip and one push.
        let mut poll = Backoff::held_elsewhere(Instant::now() + options.lock_ttl);
        let mut waiting: Vec<u8> = (0..SHARDS).collect();
        loop {
            let mut still = Vec::new();
            for shard in waiting {
                let slot = Slot { app, shard };
                let switched =
                    under_lock(node, kind, slot, options.lock_ttl, |locked| async move {
                        node.switch_kind(kind, slot, &locked.token).await
                    })
                    .await?;
                // Held elsewhere, or lost before the switch: tried again.
                match switched.flatten() {
                    Some(n) => *retired += n,
                    None => still.push(shard),
                }
            }
            if still.is_empty() || !poll.pause().await {
                return Ok(still);
            }
            waiting = still;
        }
    }
}
