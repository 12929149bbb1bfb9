//! Lock → act → unlock, written once.
//!
//! Every change to a shard's stock outside a take runs under the shard's
//! refill lock (a refill, a retirement, a dispenser switch), and an
//! operator's repair of a lease namespace under the namespace's lock. The
//! lock is given back whatever the act returned, so a failed act never
//! leaves it locked until its TTL runs out.

use super::{Dispenser, LeaseAdmin, Locked, Slot};
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
    unlocked_then(outcome, node.unlock(slot, &token)).await
}

/// Runs `act` while holding `namespace`'s lock in `store` (the lock an
/// operator's repair takes, so that two repairs never interleave), then
/// unlocks. `None` and errors as for [`under_lock`].
pub async fn under_namespace_lock<T, Fut>(
    store: &dyn LeaseAdmin,
    namespace: &str,
    ttl: Duration,
    act: impl FnOnce() -> Fut,
) -> Result<Option<T>>
where
    Fut: Future<Output = Result<T>>,
{
    let Some(token) = store.lock_namespace(namespace, ttl).await? else {
        return Ok(None);
    };
    let outcome = act().await;
    unlocked_then(outcome, store.unlock_namespace(namespace, &token)).await
}

/// The act's `outcome` once `unlock` has run: the act's error first, the
/// unlock's only when the act succeeded.
async fn unlocked_then<T, U>(
    outcome: Result<T>,
    unlock: impl Future<Output = Result<U>>,
) -> Result<Option<T>> {
    let unlocked = unlock.await;
    let value = outcome?;
    unlocked?;
    Ok(Some(value))
}
