//! Inspecting a namespace's lease state and repairing it, shaped like
//! `segment::migrate`: look first (the plan), then run the repair protocol.
//!
//! The protocol: take the namespace's lock, rebuild the free list from the
//! held leases, release the lock, and look again, so the caller reports the
//! state after the repair. The lock keeps two repairs from overlapping; it does
//! not stop holders (acquire and renew never read it). They need no stopping:
//! the rebuild is one atomic step in the store (a Redis script, an SQLite
//! transaction), so an acquire or renewal lands wholly before or after it.

use super::durable::{DurableNamespace, DurableRecord};
use super::{LeaseAdmin, NamespaceSnapshot, Problem, problems};
use crate::error::{Error, Result};
use crate::store::locking::under_namespace_lock;
use std::time::Duration;

/// How long the repair holds the namespace's lock at most: a few exchanges
/// with the store, each bounded by the connection timeout, fit well within.
/// Expiry only matters if the repairing process dies holding it.
pub const REPAIR_LOCK_TTL: Duration = Duration::from_secs(30);

/// A namespace as found: its lease state, what is wrong with it, and its
/// durable record.
#[derive(Debug, Clone)]
pub struct Inspection {
    pub snapshot: NamespaceSnapshot,
    pub problems: Vec<Problem>,
    /// The durable record of this namespace alone (see [`DurableRecord`]).
    pub durable: DurableRecord,
}

impl Inspection {
    /// The namespace as MySQL records it, where MySQL keeps the durable record.
    pub fn recorded(&self) -> Option<&DurableNamespace> {
        self.durable.namespaces().first()
    }

    /// The namespace's signature and capacity: Redis's, or the durable
    /// record's when Redis lost them.
    pub fn signature_and_capacity(&self) -> (Option<&str>, u64) {
        super::durable::signature_and_capacity(&self.snapshot, self.recorded())
    }
}

/// The lease state of one namespace, to inspect and repair.
pub struct NamespaceRepair<'a> {
    pub store: &'a dyn LeaseAdmin,
    pub namespace: &'a str,
}

impl NamespaceRepair<'_> {
    /// Looks at the namespace, in the store and in its durable record;
    /// refuses one that neither knows.
    pub async fn inspect(&self) -> Result<Inspection> {
        let now_ms = crate::clock::process_now_ms();
        let (snapshot, durable) = futures::future::join(
            self.store.snapshot(self.namespace),
            self.store.durable(Some(self.namespace), now_ms),
        )
        .await;
        let inspection = Inspection {
            problems: Vec::new(),
            snapshot: snapshot?,
            durable: durable?,
        };
        if inspection.signature_and_capacity().0.is_none() {
            return Err(Error::UnknownNamespace {
                namespace: self.namespace.to_string(),
            });
        }
        Ok(Inspection {
            problems: problems(&inspection.snapshot),
            ..inspection
        })
    }

    /// Runs the repair protocol (see the module docs) and returns the
    /// namespace as it is afterwards. `lease_ttl` is the lease lifetime the
    /// rebuilt state assumes for the holders' keys.
    pub async fn run(&self, lease_ttl: Duration) -> Result<Inspection> {
        let repaired = under_namespace_lock(self.store, self.namespace, REPAIR_LOCK_TTL, || {
            self.store.repair(self.namespace, lease_ttl)
        })
        .await?;
        if repaired.is_none() {
            return Err(Error::NamespaceBusy {
                namespace: self.namespace.to_string(),
            });
        }
        self.inspect().await
    }
}
