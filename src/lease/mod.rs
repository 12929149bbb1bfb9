//! Worker-ID leases: which worker ID a snowflake generator may use,
//! and up to which time.
//!
//! Why two holders can never produce the same (time, worker, sequence):
//! * a worker ID is claimed atomically (a script, or one SQLite transaction):
//!   its key is created only if absent, with the holder's token and an expiry;
//! * every holder records a *time fence* per worker: at acquire and at each
//!   renewal it raises `last[worker]` to `now + ttl`, and its generator never
//!   issues a time unit past that fence;
//! * a new holder of the worker starts strictly after the recorded fence;
//! * renewal and release check the token, so a holder whose key expired and was
//!   claimed by another cannot extend it, and learns it lost the lease.
//!
//! So even if two processes believe they hold one worker ID at once (a paused
//! process waking up, a clock jump), their time ranges do not overlap. On top of
//! that a holder stops issuing once it cannot prove its lease is still valid.
//!
//! Where the fences live decides what can go back in time: on Redis + MySQL
//! each authority is checked against a witness in the other; on Redis alone a
//! dataset Redis cannot prove continuous starts a quarantine of the longest
//! TTL plus [`QUARANTINE_MARGIN`] (`store::redis::lease`).

pub mod durable;
pub mod repair;
pub mod session;

use crate::error::Result;
use async_trait::async_trait;
use serde::Serialize;
use std::time::Duration;

/// The lease traits live beside the segment traits (`store::traits`), named here too.
pub use crate::store::{LeaseAdmin, LeaseStore};
pub use session::{LeaseEvent, LeaseEvents, LeaseSession, LeaseStatus};

/// How worker IDs are handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Assigner {
    /// Leased from a free list with expiry and renewal; IDs are reused.
    Lease,
    /// A new row in `WORKER_NODE` per start; IDs are never reused (uid-generator).
    WorkerNode,
}

impl Assigner {
    pub fn as_str(self) -> &'static str {
        match self {
            Assigner::Lease => "lease",
            Assigner::WorkerNode => "worker-node",
        }
    }
}

/// The most worker IDs a leased namespace may have: rebuilding the free list
/// scans every ID, which must stay quick. Wider layouts use `worker-node`.
pub const MAX_LEASE_CAPACITY: u64 = 1 << 16;

/// A namespace: holders that share one layout, epoch and assigner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceSpec {
    pub name: String,
    /// Layout signature plus assigner; holders with another are refused.
    pub signature: String,
    /// How many worker IDs exist (`0..capacity`).
    pub capacity: u64,
}

/// A lease just granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub worker: u64,
    /// Proves ownership on renew and release.
    pub token: String,
    /// The fence the previous holders left: issue only later time units.
    pub floor_ms: Option<i64>,
    /// Leases Redis had lost (it offered workers that MySQL shows held) and
    /// that were put back on the way to this grant.
    pub restored: u64,
    /// On Redis alone, after Redis could not prove its state continuous: no
    /// time unit up to this instant may be issued, since any worker may still
    /// be held by someone whose fence the lost state recorded.
    pub quarantine_until_ms: Option<i64>,
}

/// What a quarantine adds to the longest lease TTL a namespace allows: the
/// clocks of the holders and of Redis may disagree by this much.
pub const QUARANTINE_MARGIN: Duration = Duration::from_secs(1);

/// The answer of [`LeaseStore::renew`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renewal {
    /// Extended, fence raised.
    Held,
    /// Extended, fence raised; Redis had lost the lease's key (a restart or a
    /// failover) and it was put back.
    Restored,
    /// Another holder has the worker now: issue nothing more under it.
    Lost,
}

/// A worker ID someone holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeldWorker {
    pub worker: u64,
    pub holder: String,
    /// Time left on the lease; `None` when the key has no expiry.
    pub ttl_ms: Option<u64>,
    /// The worker's time fence.
    pub last_unix_ms: Option<i64>,
}

/// The replicas every grant and renewal in a namespace must reach (Redis
/// alone, whose leases count only once every replica has them), and those
/// its master has in sync now (connected, past their first copy): fewer than required, no lease can be
/// granted or renewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Replicas {
    pub required: u64,
    pub in_sync: u64,
}

/// How to lower the replicas a namespace's leases must reach after removing
/// a replica for good (on Redis alone; the hint of a refusal and of `status`).
pub fn replicas_fix(namespace: &str) -> String {
    format!(
        "after removing a replica for good, have the Sentinels forget it (SENTINEL RESET its master on each) or the cluster (CLUSTER FORGET it on every node), if any, and lower the count (redis-cli HSET 'idgen:{{{namespace}}}:meta' replicas N)"
    )
}

/// Everything a lease store knows about one namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NamespaceSnapshot {
    pub signature: Option<String>,
    pub capacity: u64,
    pub held: Vec<HeldWorker>,
    /// The free list in order, duplicates and all.
    pub free: Vec<u64>,
    /// Time fences of workers nobody holds.
    pub fences: Vec<(u64, i64)>,
}

impl NamespaceSnapshot {
    /// A snapshot from what a store read: each held worker gets its fence, and
    /// `fences` keeps only those of workers nobody holds.
    pub fn assemble(
        signature: Option<String>,
        capacity: u64,
        held: impl IntoIterator<Item = (u64, String, Option<u64>)>,
        free: Vec<u64>,
        fences: std::collections::BTreeMap<u64, i64>,
    ) -> Self {
        let held: Vec<HeldWorker> = held
            .into_iter()
            .map(|(worker, holder, ttl_ms)| HeldWorker {
                worker,
                holder,
                ttl_ms,
                last_unix_ms: fences.get(&worker).copied(),
            })
            .collect();
        let held_ids: std::collections::BTreeSet<u64> = held.iter().map(|h| h.worker).collect();
        let fences = fences
            .into_iter()
            .filter(|(worker, _)| !held_ids.contains(worker))
            .collect();
        NamespaceSnapshot {
            signature,
            capacity,
            held,
            free,
            fences,
        }
    }
}

/// Hands out a never-reused worker ID per start (uid-generator's `WORKER_NODE`).
#[async_trait]
pub trait WorkerNodeAssigner: Send + Sync {
    /// Records the namespace and inserts a row; its auto-increment ID is the worker.
    async fn assign(&self, namespace: &NamespaceSpec, host: &str, port: &str) -> Result<u64>;
}

/// Why a namespace cannot be deleted now: the workers held, and the latest
/// fence in the future; `None` when it can.
pub fn in_use(snapshot: &NamespaceSnapshot, now_ms: i64) -> Option<String> {
    let fence = snapshot
        .held
        .iter()
        .filter_map(|h| h.last_unix_ms)
        .chain(snapshot.fences.iter().map(|&(_, fence)| fence))
        .max();
    in_use_because(snapshot.held.len() as u64, fence, now_ms)
}

/// The one wording of why a namespace is in use: `held` workers, or the
/// latest fence when it is still in the future.
pub fn in_use_because(held: u64, latest_fence: Option<i64>, now_ms: i64) -> Option<String> {
    match (held, latest_fence.filter(|&fence| fence > now_ms)) {
        (0, None) => None,
        (0, Some(fence)) => Some(format!(
            "a worker ID is fenced until {}",
            crate::layout::format_timestamp(fence)
        )),
        (n, _) => Some(format!("{n} worker ID(s) held")),
    }
}

/// Something wrong with a namespace's lease state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Problem {
    /// In the free list and held at once: a later acquire skips it, but the list lies.
    FreeButHeld { worker: u64 },
    /// Neither free nor held: nobody can lease it until the list is rebuilt.
    Leaked { worker: u64 },
    /// Listed more than once in the free list.
    DuplicateFree { worker: u64, times: u64 },
    /// Held with no expiry: it would never come back if its holder died.
    NoExpiry { worker: u64, holder: String },
    /// In the free list but outside the namespace's capacity.
    OutOfRange { worker: u64 },
}

/// The problems in a snapshot, in worker order.
pub fn problems(snapshot: &NamespaceSnapshot) -> Vec<Problem> {
    use std::collections::BTreeMap;
    let held: BTreeMap<u64, &HeldWorker> = snapshot.held.iter().map(|h| (h.worker, h)).collect();
    let mut free_counts: BTreeMap<u64, u64> = BTreeMap::new();
    for id in &snapshot.free {
        *free_counts.entry(*id).or_default() += 1;
    }
    let mut found = Vec::new();
    for (&worker, &times) in &free_counts {
        if worker >= snapshot.capacity {
            found.push(Problem::OutOfRange { worker });
        } else if held.contains_key(&worker) {
            found.push(Problem::FreeButHeld { worker });
        }
        if times > 1 {
            found.push(Problem::DuplicateFree { worker, times });
        }
    }
    for h in held.values().filter(|h| h.ttl_ms.is_none()) {
        found.push(Problem::NoExpiry {
            worker: h.worker,
            holder: h.holder.clone(),
        });
    }
    // Acquire rebuilds an empty (or missing) free list from the unheld IDs, so an
    // ID is stranded only while the list still has other entries.
    if !snapshot.free.is_empty() {
        found.extend(
            (0..snapshot.capacity)
                .filter(|id| !held.contains_key(id) && !free_counts.contains_key(id))
                .map(|worker| Problem::Leaked { worker }),
        );
    }
    found.sort_by_key(|p| match p {
        Problem::FreeButHeld { worker }
        | Problem::Leaked { worker }
        | Problem::DuplicateFree { worker, .. }
        | Problem::NoExpiry { worker, .. }
        | Problem::OutOfRange { worker } => *worker,
    });
    found
}

impl NamespaceSpec {
    /// The namespace `name` for holders of `layout` using `assigner`.
    pub fn new(name: &str, layout: &crate::layout::Layout, assigner: Assigner) -> Result<Self> {
        use crate::error::Error;
        if !crate::name::is_well_formed(name) {
            return Err(Error::invalid(
                "--namespace",
                format!("{name:?} is not a namespace name"),
                format!("use {}", crate::name::NAME_RULE),
            ));
        }
        layout.check_generatable()?;
        let capacity = layout.worker_capacity();
        if assigner == Assigner::Lease && capacity > MAX_LEASE_CAPACITY {
            return Err(Error::invalid(
                "--layout",
                format!(
                    "{} has {capacity} worker IDs, more than a leased namespace holds ({MAX_LEASE_CAPACITY})",
                    layout.name()
                ),
                "use --assigner worker-node (never-reused IDs, as uid-generator does), or fix some worker-ID fields (--fix datacenter=3)",
            ));
        }
        Ok(NamespaceSpec {
            name: name.to_string(),
            signature: format!("{};assigner={}", layout.signature(), assigner.as_str()),
            capacity,
        })
    }

    /// `worker` as the worker-node table handed it out, if the layout can hold it.
    pub fn check_assigned(&self, worker: u64) -> Result<u64> {
        if worker >= self.capacity {
            return Err(crate::error::Error::WorkerIdsExhausted {
                layout: self.signature.clone(),
                assigned: worker,
                capacity: self.capacity,
            });
        }
        Ok(worker)
    }
}

/// A namespace's stored signature as an operator reads it: the layout's
/// fields, unit, epoch as a date, and the assigner (the raw text if it does not parse).
pub fn describe_signature(signature: &str) -> String {
    let Ok((layout, assigner)) = read_signature(signature) else {
        return signature.to_string();
    };
    let fields: Vec<String> = layout
        .fields()
        .iter()
        .map(|f| format!("{}:{}", f.name(), f.width()))
        .collect();
    let mut text = format!("{} ({}", layout.name(), fields.join(","));
    if let (Some(unit), Some(epoch)) = (layout.unit(), layout.epoch_ms()) {
        text.push_str(&format!(
            ", {unit} since {}",
            crate::layout::format_timestamp(epoch)
        ));
    }
    text.push_str(&format!(", assigner {})", assigner.as_str()));
    text
}

/// The layout and assigner a namespace's stored signature names.
pub fn read_signature(signature: &str) -> Result<(crate::layout::Layout, Assigner)> {
    let (layout, assigner) = signature
        .rsplit_once(";assigner=")
        .unwrap_or((signature, Assigner::Lease.as_str()));
    let assigner = match assigner {
        "worker-node" => Assigner::WorkerNode,
        _ => Assigner::Lease,
    };
    Ok((crate::layout::Layout::from_signature(layout)?, assigner))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(worker: u64, ttl_ms: Option<u64>) -> HeldWorker {
        HeldWorker {
            worker,
            holder: format!("h{worker}"),
            ttl_ms,
            last_unix_ms: None,
        }
    }

    #[test]
    fn a_snapshot_gives_held_workers_their_fences_and_lists_only_the_others() {
        let fences = [(1, 100), (2, 200)].into_iter().collect();
        let snapshot = NamespaceSnapshot::assemble(
            Some("sig".into()),
            4,
            [
                (2, "host".to_string(), Some(5)),
                (3, "other".to_string(), None),
            ],
            vec![0],
            fences,
        );
        assert_eq!(snapshot.held[0].last_unix_ms, Some(200));
        assert_eq!(snapshot.held[1].last_unix_ms, None);
        assert_eq!(snapshot.fences, [(1, 100)]);
        assert_eq!((snapshot.capacity, snapshot.free), (4, vec![0]));
    }

    #[test]
    fn a_consistent_namespace_has_no_problems() {
        let snapshot = NamespaceSnapshot {
            signature: Some("s".into()),
            capacity: 4,
            held: vec![held(0, Some(1000))],
            free: vec![1, 2, 3],
            fences: vec![],
        };
        assert!(problems(&snapshot).is_empty());
    }

    #[test]
    fn every_kind_of_inconsistency_is_found() {
        let snapshot = NamespaceSnapshot {
            signature: Some("s".into()),
            capacity: 5,
            held: vec![held(0, Some(1000)), held(1, None)],
            free: vec![0, 2, 2, 9],
            fences: vec![],
        };
        assert_eq!(
            problems(&snapshot),
            vec![
                Problem::FreeButHeld { worker: 0 },
                Problem::NoExpiry {
                    worker: 1,
                    holder: "h1".into()
                },
                Problem::DuplicateFree {
                    worker: 2,
                    times: 2
                },
                Problem::Leaked { worker: 3 },
                Problem::Leaked { worker: 4 },
                Problem::OutOfRange { worker: 9 },
            ]
        );
    }
}
