//! The lease store's traits (the holder's hot path, the operator's
//! administration), the one request each of the holder's calls makes, and
//! the rules every store reads its answers by, so that the stores (Redis +
//! MySQL, Redis alone, the embedded store) differ only in how they keep
//! leases, never in what a call means.

use crate::error::{Error, Result};
use crate::lease::durable::DurableRecord;
use crate::lease::{Grant, NamespaceSnapshot, NamespaceSpec, Renewal};
use async_trait::async_trait;
use std::time::Duration;

/// Worker-ID leases as their holder uses them: acquire, renew, release.
/// A store of leases (Redis + MySQL, Redis alone, or the embedded store)
/// also implements [`LeaseAdmin`] for inspection and repair.
#[async_trait]
pub trait LeaseStore: Send + Sync {
    /// Where the leases live, redacted.
    fn describe(&self) -> String;

    /// Succeeds when every server the leases live on answers, for health
    /// checks; else the first failure.
    async fn check_reachable(&self) -> Result<()>;

    /// Claims a free worker ID for `holder` and raises its fence to `fence_ms`.
    /// Records the namespace's signature on first use and refuses another one.
    async fn acquire(
        &self,
        namespace: &NamespaceSpec,
        holder: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<Grant>;

    /// Extends the lease and raises the fence, only while `token` holds it.
    async fn renew(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<Renewal>;

    /// Ends the lease if `token` still holds it: the fence becomes `last_ms`
    /// (the last time unit really issued) and the ID returns to the free list.
    async fn release(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        last_ms: i64,
    ) -> Result<bool>;
}

/// Worker-ID namespaces as an operator sees them: listed, inspected,
/// repaired under the namespace's lock, deleted (`status`, `namespace`,
/// `inspect-freelist`). Kept apart from [`LeaseStore`], the holder's hot path.
#[async_trait]
pub trait LeaseAdmin: Send + Sync {
    /// Every namespace that has been used, for `status`.
    async fn namespaces(&self) -> Result<Vec<String>>;

    /// The namespace as stored, for `inspect-freelist`.
    async fn snapshot(&self, namespace: &str) -> Result<NamespaceSnapshot>;

    /// The replicas every grant and renewal in the namespace must reach, and
    /// those connected now, for `status`; `None` where no lease waits for
    /// replicas (every store but Redis alone).
    async fn replicas(&self, _namespace: &str) -> Result<Option<crate::lease::Replicas>> {
        Ok(None)
    }

    /// The durable record of every namespace (`only`: of one), each compared
    /// with what Redis still holds of it, so that a namespace Redis lost is
    /// still shown as it is. A store that keeps nothing durable (Redis
    /// alone) has none.
    async fn durable(&self, _only: Option<&str>, _now_ms: i64) -> Result<DurableRecord> {
        Ok(DurableRecord::Nothing)
    }

    /// Rebuilds the free list from the IDs nobody holds, and gives held keys
    /// without expiry one of `ttl`. Never frees a held ID.
    async fn repair(&self, namespace: &str, ttl: Duration) -> Result<()>;

    /// Forgets the namespace: its signature, free list, fences and leases.
    /// Refuses while any worker ID is held, or fenced past `now_ms`: a holder
    /// could still issue under it.
    async fn delete_namespace(&self, namespace: &str, now_ms: i64) -> Result<()>;

    /// Takes the namespace lock for an operator's repair.
    async fn lock_namespace(&self, namespace: &str, ttl: Duration) -> Result<Option<String>>;

    async fn unlock_namespace(&self, namespace: &str, token: &str) -> Result<()>;
}

/// [`LeaseStore`] as a store writes it: each of the holder's calls arrives
/// as one request, built in one place (the impl below), so no store repeats
/// the calls' argument lists. Every store of the crate implements this and
/// gets [`LeaseStore`] from it.
#[async_trait]
pub(crate) trait LeaseCalls: Send + Sync {
    /// See [`LeaseStore::describe`].
    fn describe(&self) -> String;

    /// See [`LeaseStore::check_reachable`].
    async fn check_reachable(&self) -> Result<()>;

    /// See [`LeaseStore::acquire`].
    async fn acquire(&self, call: Acquire) -> Result<Grant>;

    /// See [`LeaseStore::renew`].
    async fn renew(&self, call: Renew) -> Result<Renewal>;

    /// See [`LeaseStore::release`].
    async fn release(&self, call: Release) -> Result<bool>;
}

#[async_trait]
impl<T: LeaseCalls> LeaseStore for T {
    fn describe(&self) -> String {
        LeaseCalls::describe(self)
    }

    async fn check_reachable(&self) -> Result<()> {
        LeaseCalls::check_reachable(self).await
    }

    async fn acquire(
        &self,
        namespace: &NamespaceSpec,
        holder: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<Grant> {
        let call = Acquire {
            namespace: namespace.clone(),
            holder: holder.to_string(),
            ttl,
            fence_ms,
        };
        LeaseCalls::acquire(self, call).await
    }

    async fn renew(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        ttl: Duration,
        fence_ms: i64,
    ) -> Result<Renewal> {
        let call = Renew {
            namespace: namespace.to_string(),
            worker,
            token: token.to_string(),
            ttl,
            fence_ms,
        };
        LeaseCalls::renew(self, call).await
    }

    async fn release(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
        last_ms: i64,
    ) -> Result<bool> {
        let call = Release {
            namespace: namespace.to_string(),
            worker,
            token: token.to_string(),
            last_ms,
        };
        LeaseCalls::release(self, call).await
    }
}

/// One [`LeaseStore::acquire`]. Owned, so that a store may serve it on
/// another thread (the embedded store's blocking pool).
#[derive(Debug, Clone)]
pub(crate) struct Acquire {
    pub namespace: NamespaceSpec,
    pub holder: String,
    pub ttl: Duration,
    /// The fence the holder asks for: its clock plus `ttl`.
    pub fence_ms: i64,
}

impl Acquire {
    /// The holder's clock when it asked (see [`holder_now_ms`]).
    pub fn now_ms(&self) -> i64 {
        holder_now_ms(self.fence_ms, self.ttl)
    }

    /// The refusal when every worker ID of the namespace is held.
    pub fn all_held(&self) -> Error {
        Error::AllWorkersHeld {
            namespace: self.namespace.name.clone(),
            capacity: self.namespace.capacity,
        }
    }

    /// A lease granted for this call: `worker` under `token`, above the
    /// fence `floor_ms` earlier holders left, restoring nothing and under no
    /// quarantine (a store that has one sets it).
    pub fn granted(&self, worker: u64, token: String, floor_ms: Option<i64>) -> Grant {
        Grant {
            worker,
            token,
            floor_ms,
            restored: 0,
            quarantine_until_ms: None,
        }
    }
}

/// One [`LeaseStore::renew`].
#[derive(Debug, Clone)]
pub(crate) struct Renew {
    pub namespace: String,
    pub worker: u64,
    pub token: String,
    pub ttl: Duration,
    /// The fence the holder asks for: its clock plus `ttl`.
    pub fence_ms: i64,
}

impl Renew {
    /// The holder's clock when it asked (see [`holder_now_ms`]).
    pub fn now_ms(&self) -> i64 {
        holder_now_ms(self.fence_ms, self.ttl)
    }
}

/// One [`LeaseStore::release`].
#[derive(Debug, Clone)]
pub(crate) struct Release {
    pub namespace: String,
    pub worker: u64,
    pub token: String,
    /// The last time unit the holder really issued: the worker's fence from now on.
    pub last_ms: i64,
}

/// The holder's clock when it asked for `fence_ms`: a holder asks for its
/// clock plus the lease's TTL, so the stores that judge expiry by the
/// holder's clock (Redis alone, MySQL) take it back from the fence.
fn holder_now_ms(fence_ms: i64, ttl: Duration) -> i64 {
    fence_ms - i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)
}

/// Another layout's signature is recorded for the namespace.
pub(crate) fn mismatch(namespace: &NamespaceSpec, recorded: String) -> Error {
    Error::NamespaceMismatch {
        namespace: namespace.name.clone(),
        recorded: crate::lease::describe_signature(&recorded),
        requested: crate::lease::describe_signature(&namespace.signature),
    }
}

/// The one rule for a namespace's recorded signature: none recorded yet,
/// or ours, lets the holder in; another refuses it.
pub(crate) fn check_signature(namespace: &NamespaceSpec, recorded: Option<String>) -> Result<()> {
    match recorded {
        Some(recorded) if recorded != namespace.signature => Err(mismatch(namespace, recorded)),
        _ => Ok(()),
    }
}

/// A renewal's answer where the store holds the lease itself (nothing else
/// could put a lost lease back): held, or lost.
pub(crate) fn held_or_lost(held: bool) -> Renewal {
    if held { Renewal::Held } else { Renewal::Lost }
}

/// Refuses to delete a namespace the store does not know.
pub(crate) fn refuse_unknown(namespace: &str, known: bool) -> Result<()> {
    if known {
        Ok(())
    } else {
        Err(Error::UnknownNamespace {
            namespace: namespace.to_string(),
        })
    }
}

/// Refuses to delete a namespace in use: `why`, as
/// [`crate::lease::in_use_because`] words it (`None`: not in use).
pub(crate) fn refuse_in_use(namespace: &str, why: Option<String>) -> Result<()> {
    match why {
        None => Ok(()),
        Some(detail) => Err(Error::NamespaceInUse {
            namespace: namespace.to_string(),
            detail,
        }),
    }
}
