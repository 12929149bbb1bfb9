//! The refill path: stocking shards whose refill locks are held, from one
//! ledger transaction per batch and one push per batch, each push checked
//! against its lock token. `next` runs it for one shard when its stock runs
//! short; `reload-segments`, `migrate` and `app set` run it for many.

use super::{
    LockedShard, Notes, RefillOutcome, SegmentAllocator, Trigger, WITNESS_ROUNDS, Want,
    warn_near_limit, witness_ahead,
};
use crate::error::{Error, Result};
use crate::segment::DispenserKind;
use crate::store::{
    Dispenser, LockToken, PushOutcome, Segment, SegmentRequest, ShardMarks, Slot, StockPush,
    TakenSegment, only_one,
};

/// Whether a shard that a refill takes no segment for must still be brought
/// in line with its ledger ([`ShardMarks::out_of_line`]); a dispenser that
/// keeps no marks is its own ledger.
fn out_of_line(marks: Option<ShardMarks>, taken: &TakenSegment) -> bool {
    marks.is_some_and(|m| m.out_of_line(taken.state.max_id, taken.state.max_limit_id))
}

impl SegmentAllocator {
    /// The common refill of shards of one app on one node, each already
    /// locked by the caller with its token: their segments come from one
    /// ledger transaction (which checks the route, moves a shard that went
    /// back in time past the node's witness, and sizes each from its want),
    /// then go to the node in one batch, each pushed only while its token
    /// holds. A segment sized for the caller (`direct`) is recorded in the
    /// witness and returned instead of pushed. A shard that takes no segment
    /// is still brought in line with the ledger (its limit, stock older than
    /// it). A segment the witness refuses is a gap, taken again above it. An
    /// error for the whole batch (the ledger or the node down) leaves every
    /// segment already taken a gap.
    ///
    /// The pushes go to the dispenser the ledger records for the app, read
    /// while the tokens hold the locks: `app set --dispenser` switches a shard
    /// under its lock, so a refill never restocks the dispenser it left.
    ///
    /// With `release`, a push that ends its shard's refill releases the lock
    /// in the same call where the node can: each answer says whether the
    /// lock is still the caller's to release.
    pub(crate) async fn refill_locked(
        &self,
        node: &dyn Dispenser,
        locked: &[LockedShard],
        release: bool,
        notes: &mut Notes,
    ) -> Result<Vec<(Slot, Result<(RefillOutcome, Option<Segment>)>, bool)>> {
        type Answer = Result<(RefillOutcome, Option<Segment>)>;
        let Some(first) = locked.first() else {
            return Ok(Vec::new());
        };
        // A shard sealed here by a move takes nothing from the ledger: the
        // node it moved to stocks it (the push would be refused anyway).
        let mut answers: Vec<Option<Answer>> = locked
            .iter()
            .map(|shard| {
                let to = shard.moved_to.clone()?;
                Some(Err(Error::ShardMoved {
                    app: shard.slot.app,
                    shard: shard.slot.shard,
                    node: node.node().to_string(),
                    to,
                }))
            })
            .collect();
        // Whether each shard's lock went with its push.
        let mut unlocked = vec![false; locked.len()];
        // The shards still to take (by position in `locked`), each with its floor.
        let mut pending: Vec<(usize, Option<u64>)> = locked
            .iter()
            .enumerate()
            .filter(|(_, shard)| shard.moved_to.is_none())
            .map(|(i, shard)| (i, shard.marks.and_then(|m| m.witness)))
            .collect();
        for _ in 0..WITNESS_ROUNDS {
            if pending.is_empty() {
                break;
            }
            let request = SegmentRequest {
                app: first.slot.app,
                node: Some(node.node().to_string()),
                now_ms: crate::clock::process_now_ms(),
                shards: pending
                    .iter()
                    .map(|&(i, _)| (locked[i].slot.shard, locked[i].want))
                    .collect(),
                floors: pending
                    .iter()
                    .filter_map(|&(i, floor)| Some((locked[i].slot.shard, floor?)))
                    .collect(),
            };
            let takes = self.take_from_ledger(&request).await?;
            let taken_ok: Vec<(Slot, &TakenSegment)> = pending
                .iter()
                .zip(&takes)
                .filter_map(|(&(i, _), (_, taken))| Some((locked[i].slot, taken.as_ref().ok()?)))
                .collect();
            self.note_behind(node, &taken_ok, notes).await;
            let mut retake = Vec::new();
            let (mut pushes, mut pushed_at) = (Vec::new(), Vec::new());
            // The app's recorded dispenser, read in the segments' transaction.
            let mut kind = None;
            for (&(i, _), (_, taken)) in pending.iter().zip(takes) {
                let shard = &locked[i];
                let taken = match taken {
                    Ok(taken) => taken,
                    Err(e) => {
                        // A shard at its limit takes nothing, but its stock
                        // must still obey the limit (lowered by SQL, say).
                        if let (Error::LimitReached { max_limit_id, .. }, Some(marks)) =
                            (&e, shard.marks)
                        {
                            let at = marks.witness.unwrap_or(0);
                            if let Ok(Some(settled)) = node
                                .settle(shard.slot, &shard.token, at, *max_limit_id)
                                .await
                            {
                                notes.settled(node.node(), shard.slot, *max_limit_id, settled);
                            }
                        }
                        answers[i] = Some(Err(e));
                        continue;
                    }
                };
                kind = Some(taken.state.dispenser);
                let limit = taken.state.max_limit_id;
                let Some(segment) = taken.segment else {
                    if !out_of_line(shard.marks, &taken) {
                        answers[i] = Some(Ok((RefillOutcome::NotNeeded, None)));
                        continue;
                    }
                    let settled = node
                        .settle(shard.slot, &shard.token, taken.state.max_id, limit)
                        .await;
                    answers[i] = Some(settled.map(|settled| match settled {
                        Some(settled) => {
                            notes.settled(node.node(), shard.slot, limit, settled);
                            (RefillOutcome::NotNeeded, None)
                        }
                        None => (RefillOutcome::LockLost, None),
                    }));
                    continue;
                };
                warn_near_limit(&mut notes.warnings, limit, shard.slot, segment.last);
                if taken.direct {
                    // Served by the caller: witnessed first, like a direct take.
                    match node.witness(shard.slot, segment).await {
                        Ok(None) => {
                            answers[i] = Some(Ok((RefillOutcome::NotNeeded, Some(segment))))
                        }
                        Ok(Some(witness)) => retake.push((i, Some(witness))),
                        Err(e) => answers[i] = Some(Err(e)),
                    }
                    continue;
                }
                pushed_at.push(i);
                pushes.push(StockPush {
                    slot: shard.slot,
                    segment,
                    max_limit_id: limit,
                    token: shard.token.clone(),
                    release,
                });
            }
            if let Some(kind) = kind.filter(|_| !pushes.is_empty()) {
                // A crash from here until the push leaves gaps: the ledger has moved on.
                crate::failpoint::hit("segment.after_take")?;
                let pushed = node.push_many(kind, &pushes).await?;
                for ((push, pushed), i) in pushes.iter().zip(pushed).zip(pushed_at) {
                    let pushed = match pushed {
                        Ok(pushed) => pushed,
                        Err(e) => {
                            answers[i] = Some(Err(e));
                            continue;
                        }
                    };
                    unlocked[i] = pushed.unlocked;
                    notes.rollback(pushed.rollback);
                    notes.settled(node.node(), push.slot, push.max_limit_id, pushed.settled);
                    if pushed.switched > 0 {
                        notes.warnings.push(format!(
                            "app {} shard {} on node {}: retired {} indexes left in the {} dispenser unserved (a gap): the app is served by the {} dispenser",
                            push.slot.app,
                            push.slot.shard,
                            node.node(),
                            pushed.switched,
                            kind.other().as_str(),
                            kind.as_str()
                        ));
                    }
                    let outcome = match pushed.outcome {
                        PushOutcome::Stocked(_) => RefillOutcome::Refilled {
                            added: push.segment.count(),
                        },
                        PushOutcome::LockLost => RefillOutcome::LockLost,
                        PushOutcome::Full => RefillOutcome::Full,
                        PushOutcome::Behind(witness) => {
                            retake.push((i, Some(witness)));
                            continue;
                        }
                    };
                    answers[i] = Some(Ok((outcome, None)));
                }
            }
            pending = retake;
        }
        for (i, floor) in pending {
            answers[i] = Some(Err(witness_ahead(node, locked[i].slot, floor)));
        }
        Ok(locked
            .iter()
            .zip(answers)
            .zip(unlocked)
            .map(|((shard, answer), unlocked)| {
                let answer = answer.unwrap_or_else(|| {
                    Err(Error::Internal(format!(
                        "the refill of app {} shard {} gave no answer",
                        shard.slot.app, shard.slot.shard
                    )))
                });
                (shard.slot, answer, !unlocked)
            })
            .collect())
    }

    /// Refills shards of one app on one node where the trigger's threshold
    /// says so: locks them in one batch (a shard someone else holds is
    /// `Busy`), refills the locked ones together, each push releasing its
    /// lock where the node can, and unlocks the rest.
    pub async fn refill_shards(
        &self,
        node: &dyn Dispenser,
        kind: DispenserKind,
        slots: &[Slot],
        trigger: Trigger,
        notes: &mut Notes,
    ) -> Result<Vec<(Slot, Result<RefillOutcome>)>> {
        let answers = node.lock_many(kind, slots, self.options.lock_ttl).await?;
        let mut results: Vec<(Slot, Result<RefillOutcome>)> = Vec::with_capacity(slots.len());
        let mut locked = Vec::new();
        for (&slot, answer) in slots.iter().zip(answers) {
            match answer {
                Ok(Some(mut lock)) => {
                    notes.rollback(lock.rollback.take());
                    let want = Want::Refill {
                        trigger,
                        stock: lock.stock.unwrap_or(0),
                        direct_for: None,
                    };
                    locked.push(LockedShard {
                        slot,
                        token: lock.token,
                        want,
                        marks: lock.marks,
                        moved_to: lock.moved_to,
                    });
                }
                Ok(None) => results.push((slot, Ok(RefillOutcome::Busy))),
                Err(e) => results.push((slot, Err(e))),
            }
        }
        let refilled = self.refill_locked(node, &locked, true, notes).await;
        // A whole batch that failed leaves every lock to release.
        let held: Vec<bool> = match &refilled {
            Ok(refilled) => refilled.iter().map(|&(_, _, held)| held).collect(),
            Err(_) => vec![true; locked.len()],
        };
        let tokens: Vec<(Slot, LockToken)> = locked
            .into_iter()
            .zip(held)
            .filter(|(_, held)| *held)
            .map(|(shard, _)| (shard.slot, shard.token))
            .collect();
        let unlocked = if tokens.is_empty() {
            Ok(())
        } else {
            node.unlock_many(&tokens).await
        };
        results.extend(
            refilled?
                .into_iter()
                .map(|(slot, outcome, _)| (slot, outcome.map(|(outcome, _)| outcome))),
        );
        unlocked?;
        Ok(results)
    }

    /// Refills one shard if the trigger's threshold says so, under its lock.
    pub async fn refill_shard(
        &self,
        node: &dyn Dispenser,
        kind: DispenserKind,
        slot: Slot,
        trigger: Trigger,
        notes: &mut Notes,
    ) -> Result<RefillOutcome> {
        let results = self
            .refill_shards(node, kind, &[slot], trigger, notes)
            .await?;
        only_one(results)?.1
    }
}
