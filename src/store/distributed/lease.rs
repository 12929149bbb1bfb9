//! Worker leases on Redis + MySQL: MySQL decides who holds a worker and up
//! to which time; Redis offers free workers and keeps a witness of every fence.

use crate::error::{Error, Result};
use crate::lease::durable::DurableRecord;
use crate::lease::{Grant, LeaseAdmin, NamespaceSnapshot, Renewal};
use crate::store::mysql::{MysqlLedger, WorkerClaim};
use crate::store::redis::RedisNode;
use crate::store::traits::lease::{
    Acquire, LeaseCalls, Release, Renew, refuse_in_use, refuse_unknown,
};
use crate::store::{Dispenser, Ledger};
use async_trait::async_trait;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Worker leases on the distributed backend: Redis hands out free worker IDs
/// fast and shows who holds what; MySQL decides, durably, who holds a worker
/// and up to which time ([`MysqlLedger`], `take_worker`).
///
/// Redis can lose or revert its keys (a restart without persistence, an older
/// snapshot, a lagging replica promoted, FLUSHALL). Then it may offer a worker
/// that is still held: the MySQL row shows the live holder, the offer is handed
/// back to that holder in Redis, and the next free worker is tried. A holder
/// whose Redis key vanished keeps its lease (MySQL says so) and puts the key back.
///
/// MySQL can go back in time too (a restored backup, a lagging replica
/// promoted). So Redis keeps a witness of every fence (`last`), written before
/// the holder issues up to it (at acquire, and at every renewal that raises
/// it), and a new holder starts after the higher of MySQL's fence and the
/// witness. Only both going back at once escapes this.
pub struct FencedLeaseStore {
    redis: Arc<RedisNode>,
    ledger: Arc<MysqlLedger>,
    /// Why MySQL could not be met while this store was opened: the first
    /// read of the durable record reports it at once instead of waiting out
    /// a second timeout (`status` takes about one, whatever is down).
    unmet: Mutex<Option<Error>>,
    /// The release's statement being prepared while the holder issues
    /// ([`MysqlLedger::ready_release`]); the release waits for it, so that it
    /// finds the connection kept for it.
    readying: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl FencedLeaseStore {
    /// `warmed`: how meeting MySQL went while Redis connected.
    pub fn new(redis: Arc<RedisNode>, ledger: Arc<MysqlLedger>, warmed: Result<()>) -> Self {
        FencedLeaseStore {
            redis,
            ledger,
            unmet: Mutex::new(warmed.err()),
            readying: Mutex::new(None),
        }
    }
}

#[async_trait]
impl LeaseCalls for FencedLeaseStore {
    fn describe(&self) -> String {
        format!(
            "{} with fences in {}",
            Dispenser::describe(&*self.redis),
            Ledger::describe(&*self.ledger)
        )
    }

    async fn check_reachable(&self) -> Result<()> {
        let (redis, mysql) = tokio::join!(
            crate::store::Dispenser::server_version(&*self.redis),
            Ledger::server_version(&*self.ledger)
        );
        redis.and(mysql).map(drop)
    }

    async fn acquire(&self, call: Acquire) -> Result<Grant> {
        let namespace = &call.namespace;
        let now = call.now_ms();
        // Checked durably first: a Redis that lost the namespace's record must
        // not let another layout into it.
        self.ledger.claim_namespace(namespace, now).await?;
        let mut restored = 0;
        // Each offer Redis makes of a held worker is handed back, so the free
        // list shrinks; it runs out after at most `capacity` offers.
        for _ in 0..=namespace.capacity {
            let offer = self.redis.lease_acquire(&call).await?;
            match self.ledger.take_worker(&call, &offer).await {
                Ok(WorkerClaim::Granted { floor_ms }) => {
                    let ledger = self.ledger.clone();
                    let readying = tokio::spawn(async move { ledger.ready_release().await });
                    *self.readying.lock().unwrap_or_else(|e| e.into_inner()) = Some(readying);
                    // The higher of MySQL's fence and Redis's witness: either
                    // authority may have gone back in time, not both at once.
                    return Ok(Grant {
                        floor_ms: offer.floor_ms.max(floor_ms),
                        restored,
                        ..offer
                    });
                }
                Ok(WorkerClaim::Held {
                    holder: live,
                    token,
                    fence_ms: until,
                }) => {
                    let left =
                        Duration::from_millis(u64::try_from(until - now).unwrap_or(1).max(1));
                    self.redis
                        .lease_restore(
                            &namespace.name,
                            offer.worker,
                            &offer.token,
                            &live,
                            &token,
                            left,
                        )
                        .await?;
                    restored += 1;
                }
                Err(e) => {
                    // Give the offer back (best effort: it expires in any case).
                    let _ = self.redis.lease_release(&give_back(&call, offer)).await;
                    return Err(e);
                }
            }
        }
        Err(call.all_held())
    }

    async fn renew(&self, call: Renew) -> Result<Renewal> {
        if !self.ledger.renew_worker(&call).await? {
            return Ok(Renewal::Lost);
        }
        // MySQL holds the lease; Redis keeps the key only as a mirror, but its
        // witness of the fence must be written before the holder issues up to
        // the fence: a Redis that cannot take it fails the renewal (the holder
        // keeps its old fence), so a MySQL restored from a backup cannot let a
        // new holder start below a fence this one issued up to.
        if self.redis.lease_renew(&call).await? != 2 {
            return Ok(Renewal::Held);
        }
        let holder = self.redis_holder(&call).await;
        let (worker, token) = (call.worker, &call.token);
        let put_back = self
            .redis
            .lease_restore(&call.namespace, worker, token, &holder, token, call.ttl)
            .await;
        Ok(if put_back.is_ok() {
            Renewal::Restored
        } else {
            Renewal::Held
        })
    }

    async fn release(&self, call: Release) -> Result<bool> {
        let readying = self
            .readying
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(readying) = readying {
            // Its one round trip, or none: it ended long before, as a rule.
            let _ = readying.await;
        }
        let released = self.ledger.release_worker(&call).await?;
        // Redis's key expires by itself if this fails: the worker only comes back later.
        let _ = self.redis.lease_release(&call).await;
        Ok(released)
    }
}

/// Ends the lease Redis offered for `call` and MySQL did not grant: nothing
/// was issued under it, so the worker's fence goes back to where the earlier
/// holders left it.
fn give_back(call: &Acquire, offer: Grant) -> Release {
    Release {
        namespace: call.namespace.name.clone(),
        worker: offer.worker,
        token: offer.token,
        last_ms: offer.floor_ms.unwrap_or(0),
    }
}

#[async_trait]
impl LeaseAdmin for FencedLeaseStore {
    async fn namespaces(&self) -> Result<Vec<String>> {
        self.redis.namespaces().await
    }

    async fn snapshot(&self, namespace: &str) -> Result<NamespaceSnapshot> {
        self.redis.snapshot(namespace, 0).await
    }

    async fn durable(&self, only: Option<&str>, now_ms: i64) -> Result<DurableRecord> {
        let unmet = self.unmet.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(e) = unmet {
            return Err(e);
        }
        let mut recorded = self.ledger.durable_namespaces(only, now_ms).await?;
        let snapshots = futures::future::join_all(
            recorded
                .iter()
                .map(|ns| self.redis.snapshot(&ns.name, ns.capacity)),
        )
        .await;
        for (ns, snapshot) in recorded.iter_mut().zip(snapshots) {
            ns.compare(&snapshot?);
        }
        Ok(DurableRecord::Mysql(recorded))
    }

    async fn repair(&self, namespace: &str, ttl: Duration) -> Result<()> {
        self.redis.repair(namespace, ttl).await
    }

    async fn delete_namespace(&self, namespace: &str, now_ms: i64) -> Result<()> {
        let redis = &self.redis;
        self.ledger
            .delete_namespace(namespace, now_ms, |durable| async move {
                let known = durable || redis.namespaces().await?.iter().any(|n| n == namespace);
                refuse_unknown(namespace, known)?;
                let snapshot = redis.snapshot(namespace, 0).await?;
                refuse_in_use(namespace, crate::lease::in_use(&snapshot, now_ms))?;
                redis.delete_namespace_keys(namespace).await
            })
            .await
    }

    async fn lock_namespace(&self, namespace: &str, ttl: Duration) -> Result<Option<String>> {
        self.redis.lock_namespace(namespace, ttl).await
    }

    async fn unlock_namespace(&self, namespace: &str, token: &str) -> Result<()> {
        self.redis.unlock_namespace(namespace, token).await
    }
}

impl FencedLeaseStore {
    /// The holder name MySQL records for our lease, to put back in Redis.
    async fn redis_holder(&self, call: &Renew) -> String {
        self.ledger
            .lease_holder(&call.namespace, call.worker, &call.token)
            .await
            .ok()
            .flatten()
            .unwrap_or_default()
    }
}
