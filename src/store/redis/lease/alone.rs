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
use super::{key, millis, renew_args, worker_key, worker_prefix};
use crate::error::{Error, Result};
use crate::lease::{Grant, LeaseAdmin, NamespaceSnapshot, QUARANTINE_MARGIN, Renewal};
use crate::store::traits::lease::{
    Acquire, LeaseCalls, Release, Renew, held_or_lost, refuse_in_use, refuse_unknown,
};
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
        let margin = [millis(QUARANTINE_MARGIN)];
        self.redis
            .run_acquire(&scripts().alone_acquire, &call, call.now_ms(), &margin)
            .await
    }

    async fn renew(&self, call: Renew) -> Result<Renewal> {
        let ns = &call.namespace;
        let mut args = renew_args(&call);
        args.extend([
            call.now_ms().to_string(),
            millis(QUARANTINE_MARGIN),
            worker_prefix(ns),
        ]);
        let renewed: i64 = self
            .redis
            .invoke(
                &scripts().alone_renew,
                &[
                    &key(ns, "meta"),
                    &worker_key(ns, call.worker),
                    &key(ns, "last"),
                    &key(ns, "free"),
                ],
                &args,
            )
            .await?;
        // Nothing else holds the lease, so a key Redis lost cannot be put back:
        // the lease is lost, and the holder acquires again under the quarantine.
        Ok(held_or_lost(renewed == 1))
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
