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
//!   written before the loss, lies in the past.

use super::super::RedisNode;
use super::super::scripts::scripts;
use super::{grant_of, key, millis, worker_prefix};
use crate::error::{Error, Result};
use crate::lease::{
    Grant, LeaseAdmin, LeaseStore, NamespaceSnapshot, NamespaceSpec, QUARANTINE_MARGIN, Renewal,
};
use crate::store::fresh_token;
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Duration;

/// Worker leases kept in one Redis node and nowhere else.
pub struct RedisLeaseStore {
    redis: Arc<RedisNode>,
}

impl RedisLeaseStore {
    pub fn new(redis: Arc<RedisNode>) -> Self {
        RedisLeaseStore { redis }
    }
}

impl RedisNode {
    async fn alone_acquire(
        &self,
        namespace: &NamespaceSpec,
        holder: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<Grant> {
        let token = fresh_token();
        let ns = &namespace.name;
        let now_ms = fence_ms - ttl.as_millis() as i64;
        let answer: Vec<String> = self
            .invoke(
                &scripts().alone_acquire,
                &[&key(ns, "meta"), &key(ns, "free"), &key(ns, "last")],
                &[
                    namespace.signature.clone(),
                    namespace.capacity.to_string(),
                    worker_prefix(ns),
                    holder.to_string(),
                    token.clone(),
                    millis(ttl),
                    fence_ms.to_string(),
                    now_ms.to_string(),
                    millis(QUARANTINE_MARGIN),
                ],
            )
            .await?;
        grant_of(&answer, token, namespace, now_ms)
    }

    async fn alone_renew(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<bool> {
        let renewed: i64 = self
            .invoke(
                &scripts().alone_renew,
                &[
                    &key(namespace, "meta"),
                    &format!("{}{worker}", worker_prefix(namespace)),
                    &key(namespace, "last"),
                    &key(namespace, "free"),
                ],
                &[
                    token.to_string(),
                    millis(ttl),
                    worker.to_string(),
                    fence_ms.to_string(),
                    (fence_ms - ttl.as_millis() as i64).to_string(),
                    millis(QUARANTINE_MARGIN),
                    worker_prefix(namespace),
                ],
            )
            .await?;
        Ok(renewed == 1)
    }

    async fn alone_release(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        last_ms: i64,
    ) -> Result<bool> {
        let released: i64 = self
            .invoke(
                &scripts().alone_release,
                &[
                    &key(namespace, "meta"),
                    &format!("{}{worker}", worker_prefix(namespace)),
                    &key(namespace, "last"),
                    &key(namespace, "free"),
                ],
                &[token.to_string(), worker.to_string(), last_ms.to_string()],
            )
            .await?;
        Ok(released == 1)
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
            Some("unknown") => Err(Error::UnknownNamespace {
                namespace: namespace.to_string(),
            }),
            Some("in_use") => {
                let held = answer.get(1).and_then(|n| n.parse().ok()).unwrap_or(0);
                let fence = answer.get(2).and_then(|f| f.parse().ok());
                let detail = crate::lease::in_use_because(held, fence, now_ms)
                    .unwrap_or_else(|| "a worker ID is held".into());
                Err(Error::NamespaceInUse {
                    namespace: namespace.to_string(),
                    detail,
                })
            }
            _ => Err(Error::Internal(format!(
                "unexpected namespace delete answer {answer:?}"
            ))),
        }
    }
}

#[async_trait]
impl LeaseStore for RedisLeaseStore {
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

    async fn acquire(
        &self,
        namespace: &NamespaceSpec,
        holder: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<Grant> {
        self.redis
            .alone_acquire(namespace, holder, ttl, fence_ms)
            .await
    }

    async fn renew(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<Renewal> {
        // Nothing else holds the lease, so a key Redis lost cannot be put back:
        // the lease is lost, and the holder acquires again under the quarantine.
        Ok(
            if self
                .redis
                .alone_renew(namespace, worker, token, ttl, fence_ms)
                .await?
            {
                Renewal::Held
            } else {
                Renewal::Lost
            },
        )
    }

    async fn release(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        last_ms: i64,
    ) -> Result<bool> {
        let released = self
            .redis
            .alone_release(namespace, worker, token, last_ms)
            .await;
        match released {
            // A link that broke (a Redis restart) was dropped: the one release
            // a holder makes gets one more try, on a new link. Renewals and
            // acquires are retried on their own schedule.
            Err(e) if e.kind() == crate::ErrorKind::Unavailable => {
                self.redis
                    .alone_release(namespace, worker, token, last_ms)
                    .await
            }
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
