//! The take path: how one `next` call gets its IDs. Stock is taken from the
//! node first; a shortfall is made up by a refill this call runs under the
//! shard's lock, by waiting briefly for another refiller, or by a segment
//! taken straight from the ledger for this call alone.

use super::compose::{compose_into, compose_within};
use super::{
    Issued, LockedShard, SegmentAllocator, Trigger, WITNESS_ROUNDS, Want, warn_near_limit,
    witness_ahead,
};
use crate::error::{Error, Result};
use crate::retry::Backoff;
use crate::segment::DispenserKind;
use crate::store::locking::under_lock;
use crate::store::{Dispenser, Segment, SegmentRequest, Slot, Taken, only_one};
use std::time::Instant;

/// How many times `next` stocks a shard itself before taking straight from the ledger.
const INLINE_REFILLS: u32 = 3;

/// How many times one take moves to another node (a hint followed, or the
/// ledger's route) before it gives up: more means the app kept moving.
const MAX_HOPS: u32 = 3;

/// How many rounds in a row one take may go without getting an index
/// before it gives up. A round that follows a seal back to the node it is
/// on, or finds stock another refiller pushed gone again, counts no hop and
/// no refill; while faults keep undoing what each round repairs (a node
/// restarted from an old snapshot again and again), the take would
/// otherwise go round for as long as they last, and print nothing.
const MAX_IDLE_ROUNDS: u32 = 16;

/// How a shortfall in stock was made up.
enum Refilled {
    /// A segment to hand out directly.
    Direct(Segment),
    /// The dispenser was (or may have been) stocked: take again.
    Stocked,
    /// The app is served elsewhere.
    Moved(String),
    /// A move sealed the shard on this node for the node named.
    Sealed(String),
}

/// A refusal that sends the take elsewhere, as a [`Refilled`]; other errors as they are.
fn redirected(outcome: Result<Refilled>) -> Result<Refilled> {
    match outcome {
        Err(Error::Moved { node, .. }) => Ok(Refilled::Moved(node)),
        Err(Error::ShardMoved { to, .. }) => Ok(Refilled::Sealed(to)),
        outcome => outcome,
    }
}

impl SegmentAllocator {
    pub(super) async fn fill(&self, issued: &mut Issued, count: u64) -> Result<()> {
        let slot = Slot {
            app: issued.app,
            shard: issued.shard,
        };
        let guess = self.options.dispenser;
        let mut node_name = self.nodes.default_node().to_string();
        let (mut hops, mut refills) = (0, 0);
        // Nodes whose hint this take followed away from them.
        let mut left: Vec<String> = Vec::new();
        // Set once the hints were found to loop: from then on only the
        // ledger (a refill's route check) says where the app is.
        let mut ledger_routes = false;
        let mut idle_rounds = 0;
        loop {
            if idle_rounds > MAX_IDLE_ROUNDS {
                return Err(Error::RouteUnsettled {
                    app: slot.app,
                    detail: format!(
                        "one take of shard {} went round {idle_rounds} times on node {node_name:?} without getting an index: its stock, seals or route kept changing under it",
                        slot.shard
                    ),
                });
            }
            let had = issued.ids.len();
            let node = self.nodes.get(&node_name).await?;
            let remaining = count - issued.ids.len() as u64;
            let mut taken = node.take(guess, slot, remaining).await?;
            let kind = taken.kind.unwrap_or(guess);
            issued.notes.rollback(taken.rollback.take());
            let max_limit_id = self.limit_of(&*node, slot, &taken).await?;
            let malformed = taken.malformed.take();
            compose_within(&mut issued.ids, slot, max_limit_id, taken.indexes)?;
            if let Some(bad) = malformed {
                return Err(Error::BadData {
                    backend: "dispenser",
                    key: bad.key,
                    detail: format!(
                        "{} entr{} not an index idgen could have stocked, such as {:?}; dropped unserved",
                        bad.count,
                        if bad.count == 1 { "y is" } else { "ies are" },
                        bad.entry
                    ),
                });
            }
            if issued.ids.len() as u64 == count {
                return Ok(());
            }
            let remaining = count - issued.ids.len() as u64;
            let moved = match taken.route_hint {
                Some(hint) if hint != node_name && !ledger_routes => {
                    if left.contains(&hint) {
                        // A hint led back to a node already left: one of them
                        // is stale (its dataset went back in time, or a master
                        // the sentinels have not demoted yet still serves it).
                        // Hints only save a round trip; the ledger decides.
                        ledger_routes = true;
                        Some(self.route_from_ledger(slot.app).await?)
                    } else {
                        left.push(node_name.clone());
                        Some(hint)
                    }
                }
                _ => match self
                    .make_up(&*node, kind, slot, remaining, &mut refills, issued)
                    .await?
                {
                    Refilled::Direct(segment) => {
                        // Usually the whole shortfall; less only near max_limit_id,
                        // and the next round then reports the limit.
                        compose_into(&mut issued.ids, slot, segment.indexes())?;
                        if issued.ids.len() as u64 == count {
                            return Ok(());
                        }
                        None
                    }
                    Refilled::Stocked => None,
                    Refilled::Moved(to) => {
                        self.repair_hint(slot.app, &to).await?;
                        Some(to)
                    }
                    Refilled::Sealed(to) => Some(self.follow_seal(&*node, kind, slot, &to).await?),
                },
            };
            if let Some(to) = moved.filter(|to| *to != node_name) {
                hops += 1;
                if hops > MAX_HOPS {
                    return Err(Error::RouteUnsettled {
                        app: slot.app,
                        detail: format!(
                            "one take was sent between nodes {hops} times (last to {to:?}): the ledger's route and the nodes disagree"
                        ),
                    });
                }
                if !self.nodes.contains(&to).await {
                    return Err(Error::RouteToUnknownNode {
                        app: slot.app,
                        node: to,
                    });
                }
                node_name = to;
            }
            if issued.ids.len() == had {
                idle_rounds += 1;
            } else {
                idle_rounds = 0;
            }
        }
    }

    /// Where a take goes when the shard ran out on `node`, which a move sealed
    /// for node `to`. The seals, not the ledger, keep one node stocking each
    /// shard; the ledger's route only says which way to settle a disagreement:
    /// * it lets `to` stock the app (the move is under way or done): follow,
    ///   carrying this node's witness into `to` first;
    /// * it lets only this node (it went back in time across the move, or
    ///   this node's dataset did, to before a move back here): the shard is
    ///   sealed on `to` and admitted here, carrying `to`'s witness, so this
    ///   node stocks above everything `to` stocked;
    /// * neither: go where it routes the app.
    async fn follow_seal(
        &self,
        node: &dyn Dispenser,
        kind: DispenserKind,
        slot: Slot,
        to: &str,
    ) -> Result<String> {
        let route = self
            .ledger
            .routes()
            .await?
            .remove(&slot.app)
            .unwrap_or_else(crate::store::Route::default_node);
        if route.allows(to) {
            // A move killed between sealing this node and admitting `to`
            // left `to`'s witness behind this node's. This node's witness is
            // frozen while sealed, so carrying it into `to` before following
            // is always safe, and makes `to` stock above everything stocked
            // here, even from a ledger that went back in time since.
            let witness = node
                .marks(&[slot])
                .await?
                .and_then(|marks| marks.into_iter().next())
                .transpose()?
                .and_then(|marks| marks.witness);
            // Sealed back for this node: a move killed between its seal and
            // its admit left the shard sealed on both (none stocks it). The
            // move's destination, as the ledger's route names it, is admitted,
            // as the move itself would have; every take reading that route
            // admits the same node, and the witness carried is frozen. Only a
            // seal for this node is lifted, checked in the same step: a move
            // onward that sealed `to` for a third node since keeps its seal.
            let destination = route.incoming.as_deref().unwrap_or(&route.node);
            let lift_sealed_for = (destination == to).then(|| node.node());
            let hints = self.nodes.get(to).await?;
            crate::store::hints_of(&*hints)?
                .carry(slot, witness, lift_sealed_for)
                .await?;
            crate::failpoint::hit("take.followed_seal")?;
            self.repair_hint(slot.app, to).await?;
            return Ok(to.to_string());
        }
        if !route.allows(node.node()) {
            self.repair_hint(slot.app, &route.node).await?;
            return Ok(route.node.clone());
        }
        let from = self.nodes.get(to).await?;
        let mut poll = Backoff::held_elsewhere(Instant::now() + self.options.lock_wait);
        while !self.reseat_shard(&*from, node, kind, slot).await? {
            if !poll.pause().await {
                return Err(Error::ShardBusy {
                    app: slot.app,
                    shard: slot.shard,
                    node: to.to_string(),
                });
            }
        }
        Ok(node.node().to_string())
    }

    /// Where the ledger routes `app`, once the hints were found to loop.
    async fn route_from_ledger(&self, app: u8) -> Result<String> {
        let node = self
            .ledger
            .routes()
            .await?
            .remove(&app)
            .map_or_else(|| self.nodes.default_node().to_string(), |route| route.node);
        self.repair_hint(app, &node).await?;
        Ok(node)
    }

    /// Points the default node's hint at `node` (none when the app is on the
    /// default node), so that the next take goes straight there;
    /// `reload-segments` repairs hints too, on the master the sentinels name.
    async fn repair_hint(&self, app: u8, node: &str) -> Result<()> {
        let default_name = self.nodes.default_node();
        let default = self.nodes.get(default_name).await?;
        crate::store::hints_of(&*default)?
            .set_route_hint(app, (node != default_name).then_some(node))
            .await
    }

    /// The `max_limit_id` the taken indexes must respect: as recorded with the
    /// stock, else (stock another tool pushed) from the ledger, then recorded.
    async fn limit_of(&self, node: &dyn Dispenser, slot: Slot, taken: &Taken) -> Result<u64> {
        if let Some(limit) = taken.max_limit_id {
            return Ok(limit);
        }
        if taken.indexes.is_empty() {
            return Ok(0);
        }
        let app = self
            .ledger
            .app(slot.app)
            .await?
            .ok_or(Error::UnknownApp { app: slot.app })?;
        let limit = app
            .shards
            .iter()
            .find(|s| s.shard == slot.shard)
            .ok_or(Error::ShardMissing {
                app: slot.app,
                shard: slot.shard,
            })?
            .max_limit_id;
        node.note_limit(slot, limit).await?;
        Ok(limit)
    }

    /// The stock ran short: refill it under the lock, wait for another
    /// refiller, or take a segment straight from the ledger.
    async fn make_up(
        &self,
        node: &dyn Dispenser,
        kind: DispenserKind,
        slot: Slot,
        remaining: u64,
        refills: &mut u32,
        issued: &mut Issued,
    ) -> Result<Refilled> {
        if *refills >= INLINE_REFILLS {
            return redirected(
                self.take_direct(node, slot, remaining, issued)
                    .await
                    .map(Refilled::Direct),
            );
        }
        *refills += 1;
        let notes = &mut issued.notes;
        let refilled = under_lock(
            node,
            kind,
            slot,
            self.options.lock_ttl,
            |mut locked| async move {
                notes.rollback(locked.rollback.take());
                let stock = locked.stock.unwrap_or(0);
                if stock > 0 {
                    // Someone stocked it between our take and our lock.
                    return Ok(Refilled::Stocked);
                }
                let want = Want::Refill {
                    trigger: Trigger::Empty,
                    stock,
                    direct_for: Some(remaining),
                };
                let batch = [LockedShard {
                    slot,
                    token: locked.token,
                    want,
                    marks: locked.marks,
                    moved_to: locked.moved_to,
                }];
                // The lock stays for `under_lock` to release.
                let outcome = self.refill_locked(node, &batch, false, notes).await;
                redirected(
                    outcome
                        .and_then(only_one)
                        .and_then(|(_, outcome, _)| outcome)
                        .map(|(_, direct)| direct.map_or(Refilled::Stocked, Refilled::Direct)),
                )
            },
        )
        .await?;
        match refilled {
            Some(refilled) => Ok(refilled),
            None => {
                // Another process is refilling: give it a moment, then stop waiting.
                let mut poll = Backoff::held_elsewhere(Instant::now() + self.options.lock_wait);
                while poll.pause().await {
                    let stock = node.stock(kind, &[slot]).await?;
                    if stock.first().copied().flatten().unwrap_or(0) > 0 {
                        return Ok(Refilled::Stocked);
                    }
                }
                redirected(
                    self.take_direct(node, slot, remaining, issued)
                        .await
                        .map(Refilled::Direct),
                )
            }
        }
    }

    /// Takes a segment for the caller alone: no stock, so no lock. It is
    /// recorded in the node's witness before it is served; one the witness
    /// refuses (the ledger went back, or another process recorded a later
    /// segment first) is a gap, and the ledger is asked again above it.
    async fn take_direct(
        &self,
        node: &dyn Dispenser,
        slot: Slot,
        wanted: u64,
        issued: &mut Issued,
    ) -> Result<Segment> {
        let mut floor = None;
        for _ in 0..WITNESS_ROUNDS {
            let request = SegmentRequest {
                app: slot.app,
                node: None,
                now_ms: crate::clock::process_now_ms(),
                shards: vec![(slot.shard, Want::Direct { wanted })],
                floors: floor.map(|f| (slot.shard, f)).into_iter().collect(),
            };
            let (_, taken) = only_one(self.take_from_ledger(&request).await?)?;
            let taken = taken?;
            self.note_behind(node, &[(slot, &taken)], &mut issued.notes)
                .await;
            let segment = taken.segment.ok_or(Error::StockEmpty {
                app: slot.app,
                shard: slot.shard,
            })?;
            match node.witness(slot, segment).await? {
                None => {
                    warn_near_limit(
                        &mut issued.notes.warnings,
                        taken.state.max_limit_id,
                        slot,
                        segment.last,
                    );
                    return Ok(segment);
                }
                Some(witness) => floor = Some(witness),
            }
        }
        Err(witness_ahead(node, slot, floor))
    }
}
