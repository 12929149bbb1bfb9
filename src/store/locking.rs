//! Lock → act → unlock on one shard, written once.
//!
//! Every change to a shard's stock outside a take runs under the shard's
//! refill lock (a refill, a retirement, a dispenser switch), and the lock is
//! given back whatever the act returned, so a failed act never leaves a shard
//! locked until its TTL runs out.

use super::{Dispenser, Locked, Slot};
use crate::error::Result;
use crate::shard::DispenserKind;
use std::future::Future;
use std::time::Duration;

/// Runs `act` while holding `slot`'s refill lock on `node`, then unlocks.
/// `None`: someone else holds the lock, and nothing was done. An error of the
/// act is returned after the unlock; a failed unlock is returned only when the
/// act succeeded (the lock then runs out by its TTL).
pub async fn under_lock<T, Fut>(
    node: &dyn Dispenser,
    kind: DispenserKind,
    slot: Slot,
    ttl: Duration,
    act: impl FnOnce(Locked) -> Fut,
) -> Result<Option<T>>
where
    Fut: Future<Output = Result<T>>,
{
    let Some(locked) = node.lock(kind, slot, ttl).await? else {
        return Ok(None);
    };
    let token = locked.token.clone();
    let outcome = act(locked).await;
    let unlocked = node.unlock(slot, &token).await;
    let value = outcome?;
    unlocked?;
    Ok(Some(value))
}
