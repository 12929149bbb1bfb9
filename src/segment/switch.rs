//! Changing an app: the ledger records the change, and a change of dispenser
//! is carried to every shard on the nodes that serve the app.
//!
//! The ledger is changed first. Each shard is then switched under its refill
//! lock, which a refill holds while it reads the recorded dispenser and
//! pushes: a refill that read the old dispenser has pushed before the switch
//! (whose retirement takes that stock), and one that starts after it reads
//! the new one. Stock left in the old dispenser is retired unserved, a gap.

use super::allocator::SegmentAllocator;
use crate::error::Result;
use crate::segment::{DispenserKind, SHARDS};
use crate::store::{AppChange, AppRecord, Dispenser, Slot};
use serde::Serialize;
use std::time::{Duration, Instant};

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
        let record = self.ledger().update_app(app, change).await?;
        let mut switch = DispenserSwitch::default();
        if change.dispenser.is_none() {
            return Ok((record, switch));
        }
        // Run even when the ledger already had this kind: finishes a switch
        // that an earlier run left pending (a node was down, a lock was held).
        switch.from = Some(before);
        switch.to = Some(record.dispenser);
        let route = self.ledger().routes().await?.remove(&app);
        let mut nodes = vec![
            route
                .as_ref()
                .map_or(self.nodes().default_node().to_string(), |r| r.node.clone()),
        ];
        nodes.extend(route.and_then(|r| r.incoming));
        for name in nodes {
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
        let deadline = Instant::now() + options.lock_ttl;
        let mut waiting: Vec<u8> = (0..SHARDS).collect();
        loop {
            let mut still = Vec::new();
            for shard in waiting {
                let slot = Slot { app, shard };
                let Some(locked) = node.lock(kind, slot, options.lock_ttl).await? else {
                    still.push(shard);
                    continue;
                };
                let switched = node.switch_kind(kind, slot, &locked.token).await;
                node.unlock(slot, &locked.token).await?;
                match switched? {
                    Some(n) => *retired += n,
                    None => still.push(shard),
                }
            }
            if still.is_empty() || Instant::now() >= deadline {
                return Ok(still);
            }
            waiting = still;
            // A refill holds a lock for one ledger round trip and one push.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
