//! A Redis node as a [`LeaseStore`].
//!
//! Every key of a namespace carries the hash tag `{ns}`, so the multi-key
//! scripts run on Redis Cluster too:
//! `idgen:{ns}:meta` (signature, capacity), `idgen:{ns}:free` (the free list),
//! `idgen:{ns}:last` (time fence per worker), `idgen:{ns}:w:<id>` (a held
//! worker: holder, token; with an expiry) and `idgen:{ns}:lock` (repair lock).

use super::RedisNode;
use crate::error::{Error, Result};
use crate::lease::{Grant, LeaseStore, NamespaceSnapshot, NamespaceSpec, Renewal};
use crate::store::Ledger;
use crate::store::fresh_token;
use crate::store::mysql::{MysqlLedger, WorkerClaim};
use async_trait::async_trait;
use redis::Script;
use std::sync::Arc;
use std::sync::OnceLock;
use std::time::Duration;

fn key(namespace: &str, part: &str) -> String {
    format!("idgen:{{{namespace}}}:{part}")
}

fn worker_prefix(namespace: &str) -> String {
    key(namespace, "w:")
}

struct LeaseScripts {
    acquire: Script,
    renew: Script,
    release: Script,
    snapshot: Script,
    repair: Script,
    claim_namespace: Script,
    restore: Script,
    unlock: Script,
}

fn scripts() -> &'static LeaseScripts {
    static SCRIPTS: OnceLock<LeaseScripts> = OnceLock::new();
    SCRIPTS.get_or_init(|| LeaseScripts {
        acquire: super::acl::script(include_str!("lua/lease_acquire.lua")),
        renew: super::acl::script(include_str!("lua/lease_renew.lua")),
        release: super::acl::script(include_str!("lua/lease_release.lua")),
        snapshot: super::acl::script(include_str!("lua/lease_snapshot.lua")),
        repair: super::acl::script(include_str!("lua/lease_repair.lua")),
        claim_namespace: super::acl::script(include_str!("lua/lease_claim_namespace.lua")),
        restore: super::acl::script(include_str!("lua/lease_restore.lua")),
        unlock: super::acl::script(include_str!("lua/unlock.lua")),
    })
}

fn millis(d: Duration) -> String {
    d.as_millis().max(1).to_string()
}

impl RedisNode {
    /// Records the namespace's signature, or checks it against the recorded one.
    pub async fn claim_namespace(&self, namespace: &NamespaceSpec) -> Result<()> {
        let recorded: String = self
            .invoke(
                &scripts().claim_namespace,
                &[&key(&namespace.name, "meta")],
                &[
                    namespace.signature.clone(),
                    namespace.capacity.to_string(),
                    crate::clock::process_now_ms().to_string(),
                ],
            )
            .await?;
        if recorded.is_empty() || recorded == namespace.signature {
            Ok(())
        } else {
            Err(Error::NamespaceMismatch {
                namespace: namespace.name.clone(),
                recorded,
                requested: namespace.signature.clone(),
            })
        }
    }
}

/// The Redis half of a lease: a fast free list and the keys that show who holds
/// what. Only [`FencedLeaseStore`] uses it, because Redis alone can lose or
/// revert these keys.
impl RedisNode {
    async fn lease_acquire(
        &self,
        namespace: &NamespaceSpec,
        holder: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<Grant> {
        let token = fresh_token();
        let ns = &namespace.name;
        let answer: Vec<String> = self
            .invoke(
                &scripts().acquire,
                &[&key(ns, "meta"), &key(ns, "free"), &key(ns, "last")],
                &[
                    namespace.signature.clone(),
                    namespace.capacity.to_string(),
                    worker_prefix(ns),
                    holder.to_string(),
                    token.clone(),
                    millis(ttl),
                    fence_ms.to_string(),
                    crate::clock::process_now_ms().to_string(),
                ],
            )
            .await?;
        match answer.first().map(String::as_str) {
            Some("ok") => {
                let worker = answer
                    .get(1)
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| Error::Internal("acquire returned no worker".into()))?;
                let floor_ms = answer.get(2).and_then(|f| f.parse().ok());
                Ok(Grant {
                    worker,
                    token,
                    floor_ms,
                    restored: 0,
                })
            }
            Some("mismatch") => Err(Error::NamespaceMismatch {
                namespace: ns.clone(),
                recorded: answer.get(1).cloned().unwrap_or_default(),
                requested: namespace.signature.clone(),
            }),
            Some("full") => Err(Error::AllWorkersHeld {
                namespace: ns.clone(),
                capacity: namespace.capacity,
            }),
            _ => Err(Error::Internal(format!(
                "unexpected acquire answer {answer:?}"
            ))),
        }
    }

    async fn lease_renew(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<i64> {
        self.invoke(
            &scripts().renew,
            &[
                &format!("{}{worker}", worker_prefix(namespace)),
                &key(namespace, "last"),
            ],
            &[
                token.to_string(),
                millis(ttl),
                worker.to_string(),
                fence_ms.to_string(),
            ],
        )
        .await
    }

    /// Gives a worker we claimed in Redis back to the holder MySQL names.
    async fn lease_restore(
        &self,
        namespace: &str,
        worker: u64,
        our_token: &str,
        holder: &str,
        their_token: &str,
        ttl: Duration,
    ) -> Result<()> {
        let _: i64 = self
            .invoke(
                &scripts().restore,
                &[&format!("{}{worker}", worker_prefix(namespace))],
                &[
                    our_token.to_string(),
                    holder.to_string(),
                    their_token.to_string(),
                    millis(ttl),
                    crate::clock::process_now_ms().to_string(),
                ],
            )
            .await?;
        Ok(())
    }

    async fn lease_release(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        last_ms: i64,
    ) -> Result<bool> {
        let released: i64 = self
            .invoke(
                &scripts().release,
                &[
                    &format!("{}{worker}", worker_prefix(namespace)),
                    &key(namespace, "last"),
                    &key(namespace, "free"),
                ],
                &[token.to_string(), worker.to_string(), last_ms.to_string()],
            )
            .await?;
        Ok(released == 1)
    }

    pub async fn namespaces(&self) -> Result<Vec<String>> {
        let keys = self.scan("idgen:{*}:meta").await?;
        let mut names: Vec<String> = keys
            .iter()
            .filter_map(|k| {
                let inner = k.strip_prefix("idgen:{")?.strip_suffix("}:meta")?;
                Some(inner.to_string())
            })
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    pub async fn snapshot(&self, namespace: &str) -> Result<NamespaceSnapshot> {
        type Raw = (String, String, Vec<String>, Vec<String>, Vec<String>);
        let (signature, capacity, free, last, held): Raw = self
            .invoke(
                &scripts().snapshot,
                &[
                    &key(namespace, "meta"),
                    &key(namespace, "free"),
                    &key(namespace, "last"),
                ],
                &[worker_prefix(namespace)],
            )
            .await?;
        let fences: std::collections::BTreeMap<u64, i64> = last
            .chunks(2)
            .filter_map(|kv| Some((kv.first()?.parse().ok()?, kv.get(1)?.parse().ok()?)))
            .collect();
        let held = held.chunks(3).filter_map(|h| {
            let worker: u64 = h.first()?.parse().ok()?;
            let pttl: i64 = h.get(2)?.parse().ok()?;
            Some((worker, h.get(1)?.clone(), u64::try_from(pttl).ok()))
        });
        Ok(NamespaceSnapshot::assemble(
            (!signature.is_empty()).then_some(signature),
            capacity.parse().unwrap_or(0),
            held,
            free.iter().filter_map(|id| id.parse().ok()).collect(),
            fences,
        ))
    }

    pub async fn repair(&self, namespace: &str, ttl: Duration) -> Result<()> {
        let _: i64 = self
            .invoke(
                &scripts().repair,
                &[&key(namespace, "meta"), &key(namespace, "free")],
                &[worker_prefix(namespace), millis(ttl)],
            )
            .await?;
        Ok(())
    }

    /// Deletes every key of the namespace; `status` and `lease` then know it no more.
    pub async fn delete_namespace_keys(&self, namespace: &str) -> Result<()> {
        let keys = self.scan(&format!("idgen:{{{namespace}}}:*")).await?;
        if keys.is_empty() {
            return Ok(());
        }
        let mut conn = self.conn().await?;
        let _: i64 = self
            .bounded(redis::cmd("DEL").arg(&keys).query_async(&mut conn))
            .await?;
        Ok(())
    }

    pub async fn lock_namespace(&self, namespace: &str, ttl: Duration) -> Result<Option<String>> {
        let token = fresh_token();
        let mut conn = self.conn().await?;
        let set: Option<String> = self
            .bounded(
                redis::cmd("SET")
                    .arg(key(namespace, "lock"))
                    .arg(&token)
                    .arg("NX")
                    .arg("PX")
                    .arg(millis(ttl))
                    .query_async(&mut conn),
            )
            .await?;
        Ok(set.map(|_| token))
    }

    pub async fn unlock_namespace(&self, namespace: &str, token: &str) -> Result<()> {
        let _: i64 = self
            .invoke(
                &scripts().unlock,
                &[&key(namespace, "lock")],
                &[token.to_string()],
            )
            .await?;
        Ok(())
    }
}

/// Worker leases on the distributed backend: Redis hands out free worker IDs
/// fast and shows who holds what; MySQL decides, durably, who holds a worker
/// and up to which time ([`MysqlLedger::take_worker`]).
///
/// Redis can lose or revert its keys (a restart without persistence, an older
/// snapshot, a lagging replica promoted, FLUSHALL). Then it may offer a worker
/// that is still held: the MySQL row shows the live holder, the offer is handed
/// back to that holder in Redis, and the next free worker is tried. A holder
/// whose Redis key vanished keeps its lease (MySQL says so) and puts the key back.
pub struct FencedLeaseStore {
    redis: Arc<RedisNode>,
    ledger: Arc<MysqlLedger>,
}

impl FencedLeaseStore {
    pub fn new(redis: Arc<RedisNode>, ledger: Arc<MysqlLedger>) -> Self {
        FencedLeaseStore { redis, ledger }
    }
}

#[async_trait]
impl LeaseStore for FencedLeaseStore {
    fn describe(&self) -> String {
        format!(
            "redis node {} ({}) with fences in {}",
            self.redis.name,
            self.redis.url,
            Ledger::describe(&*self.ledger)
        )
    }

    async fn acquire(
        &self,
        namespace: &NamespaceSpec,
        holder: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<Grant> {
        let now = fence_ms - i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        // Checked durably first: a Redis that lost the namespace's record must
        // not let another layout into it.
        self.ledger.claim_namespace(namespace, now).await?;
        let mut restored = 0;
        // Each offer Redis makes of a held worker is handed back, so the free
        // list shrinks; it runs out after at most `capacity` offers.
        for _ in 0..=namespace.capacity {
            let offer = self
                .redis
                .lease_acquire(namespace, holder, ttl, fence_ms)
                .await?;
            let claim = self
                .ledger
                .take_worker(namespace, offer.worker, &offer.token, holder, fence_ms, now)
                .await;
            match claim {
                Ok(WorkerClaim::Granted { floor_ms }) => {
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
                    let _ = self
                        .redis
                        .lease_release(
                            &namespace.name,
                            offer.worker,
                            &offer.token,
                            offer.floor_ms.unwrap_or(0),
                        )
                        .await;
                    return Err(e);
                }
            }
        }
        Err(Error::AllWorkersHeld {
            namespace: namespace.name.clone(),
            capacity: namespace.capacity,
        })
    }

    async fn renew(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<Renewal> {
        if !self
            .ledger
            .renew_worker(namespace, worker, token, fence_ms)
            .await?
        {
            return Ok(Renewal::Lost);
        }
        // MySQL holds the lease; Redis only mirrors it. A Redis that is down or
        // lost the key does not end the lease.
        let mirrored = self
            .redis
            .lease_renew(namespace, worker, token, ttl, fence_ms)
            .await;
        if mirrored.ok() != Some(2) {
            return Ok(Renewal::Held);
        }
        let holder = self.redis_holder(namespace, worker, token).await;
        let put_back = self
            .redis
            .lease_restore(namespace, worker, token, &holder, token, ttl)
            .await;
        Ok(if put_back.is_ok() {
            Renewal::Restored
        } else {
            Renewal::Held
        })
    }

    async fn release(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        last_ms: i64,
    ) -> Result<bool> {
        let released = self
            .ledger
            .release_worker(namespace, worker, token, last_ms)
            .await?;
        // Redis's key expires by itself if this fails: the worker only comes back later.
        let _ = self
            .redis
            .lease_release(namespace, worker, token, last_ms)
            .await;
        Ok(released)
    }

    async fn namespaces(&self) -> Result<Vec<String>> {
        self.redis.namespaces().await
    }

    async fn snapshot(&self, namespace: &str) -> Result<NamespaceSnapshot> {
        self.redis.snapshot(namespace).await
    }

    async fn repair(&self, namespace: &str, ttl: Duration) -> Result<()> {
        self.redis.repair(namespace, ttl).await
    }

    async fn delete_namespace(&self, namespace: &str, now_ms: i64) -> Result<()> {
        let redis = &self.redis;
        self.ledger
            .delete_namespace(namespace, now_ms, |durable| async move {
                let known = durable || redis.namespaces().await?.iter().any(|n| n == namespace);
                if !known {
                    return Err(Error::UnknownNamespace {
                        namespace: namespace.to_string(),
                    });
                }
                if let Some(detail) =
                    crate::lease::in_use(&redis.snapshot(namespace).await?, now_ms)
                {
                    return Err(Error::NamespaceInUse {
                        namespace: namespace.to_string(),
                        detail,
                    });
                }
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
    async fn redis_holder(&self, namespace: &str, worker: u64, token: &str) -> String {
        self.ledger
            .lease_holder(namespace, worker, token)
            .await
            .ok()
            .flatten()
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::redis::keys::hash_slot;

    /// In a Redis Cluster every lease script's keys must share a slot: all of
    /// a namespace's keys hash by its `{namespace}` tag alone.
    #[test]
    fn a_namespaces_keys_share_one_slot() {
        for namespace in ["default", "orders", "a-b_c.d", "x}y", "{z"] {
            let slot = hash_slot(key(namespace, "meta").as_bytes());
            let keys = ["free", "last", "lock"]
                .map(|part| key(namespace, part))
                .into_iter()
                .chain((0..1024).map(|w| format!("{}{w}", worker_prefix(namespace))));
            for k in keys {
                assert_eq!(hash_slot(k.as_bytes()), slot, "{k}");
            }
        }
    }
}
