//! Inspecting a namespace's lease state and repairing it, shaped like
//! `segment::migrate`: look first (the plan), then run the repair protocol.
//!
//! The protocol: take the namespace's lock (no acquire, renewal or other
//! repair runs meanwhile), rebuild the free list from the held leases, release
//! the lock, and look again, so the caller reports the state after the repair.

use super::{LeaseStore, NamespaceSnapshot, Problem, problems};
use crate::error::{Error, Result};
use std::time::Duration;

/// How long the repair holds the namespace's lock at most: a few exchanges
/// with the store, each bounded by the connection timeout, fit well within.
/// Expiry only matters if the repairing process dies holding it.
pub const REPAIR_LOCK_TTL: Duration = Duration::from_secs(30);

/// A namespace as found: its lease state and what is wrong with it.
#[derive(Debug, Clone)]
pub struct Inspection {
    pub snapshot: NamespaceSnapshot,
    pub problems: Vec<Problem>,
}

/// The lease state of one namespace, to inspect and repair.
pub struct NamespaceRepair<'a> {
    pub store: &'a dyn LeaseStore,
    pub namespace: &'a str,
}

impl NamespaceRepair<'_> {
    /// Looks at the namespace; refuses one that was never used.
    pub async fn inspect(&self) -> Result<Inspection> {
        let snapshot = self.store.snapshot(self.namespace).await?;
        if snapshot.signature.is_none() {
            return Err(Error::UnknownNamespace {
                namespace: self.namespace.to_string(),
            });
        }
        let problems = problems(&snapshot);
        Ok(Inspection { snapshot, problems })
    }

    /// Runs the repair protocol (see the module docs) and returns the
    /// namespace as it is afterwards. `lease_ttl` is the lease lifetime the
    /// rebuilt state assumes for the holders' keys.
    pub async fn run(&self, lease_ttl: Duration) -> Result<Inspection> {
        let Some(token) = self
            .store
            .lock_namespace(self.namespace, REPAIR_LOCK_TTL)
            .await?
        else {
            return Err(Error::NamespaceBusy {
                namespace: self.namespace.to_string(),
            });
        };
        let repaired = self.store.repair(self.namespace, lease_ttl).await;
        self.store.unlock_namespace(self.namespace, &token).await?;
        repaired?;
        self.inspect().await
    }
}
