//! Worker leases on Redis alone (seed 000: worker IDs "without depending on a
//! database"). Redis decides who holds a worker and up to which time, so it
//! must also say when it cannot know: see `lua/lease/alone/prelude.lua`.
//!
//! Why two holders of one worker never overlap in time:
//! * while Redis's state is continuous (the same server process, the same
//!   replication history, the namespace's record present), a worker's key is
//!   claimed atomically, renewed only under its token, and a new holder starts
//!   after the worker's recorded fence, which every holder raises before it
//!   issues up to it;
//! * when Redis cannot prove that (a restart, an older snapshot, a promoted
//!   replica, FLUSHALL), every lease granted before is lost (a new incarnation
//!   of the namespace), and every lease granted after starts only once the
//!   longest TTL the namespace allows, plus [`QUARANTINE_MARGIN`], has passed
//!   since the discontinuity was seen: by then every earlier holder's fence,
//!   written before the loss, lies in the past;
//! * a grant or renewal counts only once every replica the namespace
//!   requires acknowledged it (`WAIT`, [`RedisLeaseStore::replicated`]), so a
//!   master a failover left behind (a split brain, a pause) proves no lease
//!   past the moment its replicas stopped following it, which is before any
//!   of them was promoted and began its quarantine.

use super::super::RedisNode;
use super::super::scripts::scripts;
use super::{acquire_call, grant_of, key, millis, renew_args, worker_key, worker_prefix};
use crate::error::{Error, Result};
use crate::lease::{Grant, LeaseAdmin, NamespaceSnapshot, QUARANTINE_MARGIN, Renewal, Replicas};
use crate::store::fresh_token;
use crate::store::traits::lease::{
    Acquire, LeaseCalls, Release, Renew, held_or_lost, refuse_in_use, refuse_unknown,
};
use async_trait::async_trait;
use redis::Script;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Worker leases kept in one Redis node and nowhere else.
pub struct RedisLeaseStore {
    redis: Arc<RedisNode>,
    /// The replicas a grant or renewal must reach, as the scripts last said:
    /// the count each one's `WAIT` asks for.
    replicas: AtomicU64,
}

impl RedisLeaseStore {
    pub fn new(redis: Arc<RedisNode>) -> Self {
        RedisLeaseStore {
            redis,
            replicas: AtomicU64::new(0),
        }
    }

    /// Runs a script that grants or renews a lease (its last arguments the
    /// replicas the `WAIT` behind it asks for and the replicas the Sentinels
    /// know, which the master's data cannot lower), and counts the replicas that
    /// acknowledged it. Its answer, the count it requires taken off, and
    /// the error to fail with when fewer acknowledged it (the write was made
    /// but does not count). A script that required more replicas than were
    /// asked for wrote nothing, and goes again once, asking for them.
    async fn replicated(
        &self,
        script: &Script,
        namespace: &str,
        keys: &[&str],
        args: &[String],
        ttl: Duration,
    ) -> Result<(Vec<String>, Option<Error>)> {
        // Linked first: through Sentinel, making the link is what asks the
        // Sentinels for the replicas they know.
        self.redis.conn().await?;
        for attempt in 0..2 {
            let offered = self.replicas.load(Ordering::Relaxed);
            let mut args = args.to_vec();
            args.push(offered.to_string());
            args.push(self.redis.sentinel_replicas().to_string());
            let (value, acknowledged) = self
                .redis
                .invoke_acknowledged(script, keys, &args, offered, replica_wait(ttl))
                .await?;
            let mut answer: Vec<String> = redis::from_redis_value(value)
                .map_err(|e| Error::Internal(format!("unexpected lease answer: {e}")))?;
            let number = |field: Option<&String>| field.and_then(|n| n.parse::<u64>().ok());
            match answer.first().map(String::as_str) {
                Some("replicas") => {
                    let required = number(answer.get(1)).unwrap_or(u64::MAX);
                    let in_sync = number(answer.get(2)).unwrap_or(0);
                    self.replicas.store(required, Ordering::Relaxed);
                    if attempt == 0 && in_sync >= required {
                        continue;
                    }
                    return Err(self.unreplicated(namespace, required, in_sync, None));
                }
                Some("ok" | "renewed" | "lost") => {
                    let required = number(answer.last()).ok_or_else(|| {
                        Error::Internal(format!("a lease answer names no replicas: {answer:?}"))
                    })?;
                    answer.pop();
                    self.replicas.store(required, Ordering::Relaxed);
                    let acknowledged = acknowledged.unwrap_or(0);
                    let short = (acknowledged < required).then(|| {
                        self.unreplicated(namespace, required, required, Some(acknowledged))
                    });
                    return Ok((answer, short));
                }
                // Refusals (another layout, every worker held) wrote nothing.
                _ => return Ok((answer, None)),
            }
        }
        Err(Error::Internal(
            "a lease script asked for other replicas twice".into(),
        ))
    }

    fn unreplicated(
        &self,
        namespace: &str,
        required: u64,
        in_sync: u64,
        acknowledged: Option<u64>,
    ) -> Error {
        Error::Unreplicated {
            backend: "Redis",
            url: self.redis.url.to_string(),
            namespace: namespace.to_string(),
            required,
            in_sync,
            acknowledged,
        }
    }
}

/// How long a grant or renewal waits for its replicas: a quarter of its TTL
/// (the renewal before the next is due a third of the TTL in), and at most
/// half the node's timeout.
fn replica_wait(ttl: Duration) -> Duration {
    (ttl / 4).max(Duration::from_millis(10))
}

impl RedisNode {
    /// The replicas the namespace's leases must reach and those in sync
    /// now, counted by the scripts' own rule (`replicas_needed`), read from
    /// the master of its keys in one round trip.
    async fn alone_replicas(&self, namespace: &str) -> Result<Replicas> {
        // Linked first: through Sentinel, that asks for the replicas they know.
        self.conn().await?;
        let (required, in_sync): (u64, u64) = self
            .invoke(
                &scripts().alone_replicas,
                &[&key(namespace, "meta")],
                &[self.sentinel_replicas().to_string()],
            )
            .await?;
        Ok(Replicas { required, in_sync })
    }

    async fn alone_delete(&self, namespace: &str, now_ms: i64) -> Result<()> {
        let answer: Vec<String> = self
            .invoke(
                &scripts().alone_delete,
                &[
                    &key(namespace, "meta"),
                    &key(namespace, "free"),
                    &key(namespace, "last"),
                    &key(namespace, "lock"),
                ],
                &[worker_prefix(namespace), now_ms.to_string()],
            )
            .await?;
        match answer.first().map(String::as_str) {
            Some("deleted") => Ok(()),
            Some("unknown") => refuse_unknown(namespace, false),
            Some("in_use") => {
                let held = answer.get(1).and_then(|n| n.parse().ok()).unwrap_or(0);
                let fence = answer.get(2).and_then(|f| f.parse().ok());
                let detail = crate::lease::in_use_because(held, fence, now_ms)
                    .unwrap_or_else(|| "a worker ID is held".into());
                refuse_in_use(namespace, Some(detail))
            }
            _ => Err(Error::Internal(format!(
                "unexpected namespace delete answer {answer:?}"
            ))),
        }
    }
}

#[async_trait]
impl LeaseCalls for RedisLeaseStore {
    fn describe(&self) -> String {
        format!(
            "redis node {} ({}) alone, no MySQL",
            self.redis.name, self.redis.url
        )
    }

    async fn check_reachable(&self) -> Result<()> {
        crate::store::Dispenser::server_version(&*self.redis)
            .await
            .map(drop)
    }

    async fn acquire(&self, call: Acquire) -> Result<Grant> {
        let token = fresh_token();
        let margin = [millis(QUARANTINE_MARGIN)];
        let (keys, args) = acquire_call(&call, &token, call.now_ms(), &margin);
        let keys = keys.each_ref().map(String::as_str);
        let (answer, short) = self
            .replicated(
                &scripts().alone_acquire,
                &call.namespace.name,
                &keys,
                &args,
                call.ttl,
            )
            .await?;
        let grant = grant_of(&answer, token, &call)?;
        if let Some(short) = short {
            // Nothing was issued under it: the worker goes back at once, its
            // fence as it was, instead of staying held for a TTL.
            let _ = self
                .release(Release {
                    namespace: call.namespace.name.clone(),
                    worker: grant.worker,
                    token: grant.token,
                    last_ms: grant.floor_ms.unwrap_or(0),
                })
                .await;
            return Err(short);
        }
        Ok(grant)
    }

    async fn renew(&self, call: Renew) -> Result<Renewal> {
        let ns = &call.namespace;
        let mut args = renew_args(&call);
        args.extend([
            call.now_ms().to_string(),
            millis(QUARANTINE_MARGIN),
            worker_prefix(ns),
        ]);
        let (meta, worker, last, free) = (
            key(ns, "meta"),
            worker_key(ns, call.worker),
            key(ns, "last"),
            key(ns, "free"),
        );
        let (answer, short) = self
            .replicated(
                &scripts().alone_renew,
                ns,
                &[&meta, &worker, &last, &free],
                &args,
                call.ttl,
            )
            .await?;
        match answer.first().map(String::as_str) {
            Some("renewed") => match short {
                // Made on a master its replicas may no longer follow: the
                // lease stays as valid as the last renewal they acknowledged.
                Some(short) => Err(short),
                None => Ok(held_or_lost(true)),
            },
            // Nothing else holds the lease, so a key Redis lost cannot be put
            // back: the lease is lost, and the holder acquires again under the
            // quarantine.
            Some("lost") => Ok(held_or_lost(false)),
            _ => Err(Error::Internal(format!(
                "unexpected renewal answer {answer:?}"
            ))),
        }
    }

    async fn release(&self, call: Release) -> Result<bool> {
        // The script first proves the namespace's incarnation from its meta.
        let meta = key(&call.namespace, "meta");
        let ahead = [meta.as_str()];
        let release = || {
            self.redis
                .run_release(&scripts().alone_release, &ahead, &call)
        };
        match release().await {
            // A link that broke (a Redis restart) was dropped: the one release
            // a holder makes gets one more try, on a new link. Renewals and
            // acquires are retried on their own schedule.
            Err(e) if e.kind() == crate::ErrorKind::Unavailable => release().await,
            answer => answer,
        }
    }
}

#[async_trait]
impl LeaseAdmin for RedisLeaseStore {
    async fn namespaces(&self) -> Result<Vec<String>> {
        self.redis.namespaces().await
    }

    async fn snapshot(&self, namespace: &str) -> Result<NamespaceSnapshot> {
        self.redis.snapshot(namespace, 0).await
    }

    async fn replicas(&self, namespace: &str) -> Result<Option<Replicas>> {
        self.redis.alone_replicas(namespace).await.map(Some)
    }

    async fn repair(&self, namespace: &str, ttl: Duration) -> Result<()> {
        self.redis.repair(namespace, ttl).await
    }

    async fn delete_namespace(&self, namespace: &str, now_ms: i64) -> Result<()> {
        self.redis.alone_delete(namespace, now_ms).await
    }

    async fn lock_namespace(&self, namespace: &str, ttl: Duration) -> Result<Option<String>> {
        self.redis.lock_namespace(namespace, ttl).await
    }

    async fn unlock_namespace(&self, namespace: &str, token: &str) -> Result<()> {
        self.redis.unlock_namespace(namespace, token).await
    }
}
