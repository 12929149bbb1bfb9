//! The durable record of worker-ID namespaces beside Redis's copy of it, so
//! that `namespace` and `inspect-freelist` stay true after Redis lost its data
//! (a restart without persistence, FLUSHALL): on Redis + MySQL, MySQL records
//! every namespace and every worker's fence, and Redis only mirrors them.

use super::{HeldWorker, NamespaceSnapshot};
use serde::Serialize;

/// Where a lease store keeps the durable record of its namespaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DurableSource {
    /// MySQL, which Redis mirrors (Redis + MySQL).
    Mysql,
    /// The embedded store is the one record: there is no second copy to compare.
    Embedded,
    /// Redis alone: nothing durable; what Redis lost is gone.
    None,
}

impl DurableSource {
    /// The one line saying there is no durable record, when there is none.
    pub fn absence(self) -> Option<&'static str> {
        (self == DurableSource::None).then_some(
            "no durable record: on Redis alone the leases live in Redis only, so a namespace Redis lost is not shown; configure MySQL (--mysql) to keep one",
        )
    }
}

/// Whether Redis still holds something the durable record has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum InRedis {
    Present,
    Missing,
}

impl InRedis {
    fn of(present: bool) -> Self {
        if present {
            InRedis::Present
        } else {
            InRedis::Missing
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            InRedis::Present => "present",
            InRedis::Missing => "missing",
        }
    }
}

/// One worker ID as the durable record has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DurableWorker {
    pub worker: u64,
    /// The last holder recorded.
    pub holder: String,
    /// The durable fence: no holder issued a time unit past it, and the next
    /// starts after it.
    pub fence_ms: i64,
    /// Leased now: a holder's token with a fence still ahead.
    pub held: bool,
    /// Whether Redis holds the worker's fence witness (and, when held, its
    /// lease key); `None` until compared with Redis.
    pub redis: Option<InRedis>,
}

/// One namespace as the durable record has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DurableNamespace {
    pub name: String,
    pub signature: String,
    pub capacity: u64,
    /// Whether Redis holds the namespace's record; `None` until compared with Redis.
    pub redis: Option<InRedis>,
    /// Every worker ever leased, in worker order.
    pub workers: Vec<DurableWorker>,
}

impl DurableNamespace {
    /// Marks what Redis, as `snapshot` read it, no longer holds.
    pub fn compare(&mut self, snapshot: &NamespaceSnapshot) {
        self.redis = Some(InRedis::of(snapshot.signature.is_some()));
        for w in &mut self.workers {
            let lease = snapshot.held.iter().find(|h| h.worker == w.worker);
            let witness = lease.and_then(|h| h.last_unix_ms).is_some()
                || snapshot.fences.iter().any(|&(f, _)| f == w.worker);
            w.redis = Some(InRedis::of(witness && (!w.held || lease.is_some())));
        }
    }

    /// Workers leased durably that Redis shows no lease of.
    pub fn unmirrored(&self) -> impl Iterator<Item = &DurableWorker> {
        self.workers
            .iter()
            .filter(|w| w.held && w.redis == Some(InRedis::Missing))
    }

    /// Every worker held, as Redis shows it and as the durable record adds:
    /// a lease Redis lost is held until its durable fence.
    pub fn held_with(&self, redis_held: &[HeldWorker], now_ms: i64) -> Vec<HeldWorker> {
        let mut held = redis_held.to_vec();
        for w in self.workers.iter().filter(|w| w.held) {
            if !held.iter().any(|h| h.worker == w.worker) {
                held.push(HeldWorker {
                    worker: w.worker,
                    holder: w.holder.clone(),
                    ttl_ms: u64::try_from(w.fence_ms - now_ms).ok(),
                    last_unix_ms: Some(w.fence_ms),
                });
            }
        }
        held.sort_by_key(|h| h.worker);
        held
    }

    /// The findings of the comparison with Redis, worded for an operator.
    pub fn findings(&self) -> Vec<String> {
        let name = &self.name;
        let mut found = Vec::new();
        if self.redis == Some(InRedis::Missing) {
            found.push(format!(
                "namespace {name:?} is missing from Redis (redis: missing), which lost its data (a restart without persistence, or FLUSHALL): shown as MySQL records it; the next `idgen lease --namespace {name}` writes it back to Redis"
            ));
        }
        let lost = self.unmirrored().count();
        if lost > 0 {
            found.push(format!(
                "namespace {name:?}: {lost} worker ID(s) leased in MySQL have no lease in Redis (redis: missing); each live holder puts its lease back at its next renewal, and MySQL keeps any other holder off them until their fences"
            ));
        }
        found
    }
}

/// A namespace's signature and capacity: as Redis holds them, or as the
/// durable record has them when Redis lost them.
pub fn signature_and_capacity<'a>(
    snapshot: &'a NamespaceSnapshot,
    recorded: Option<&'a DurableNamespace>,
) -> (Option<&'a str>, u64) {
    match (&snapshot.signature, recorded) {
        (None, Some(ns)) => (Some(&ns.signature), ns.capacity),
        (signature, _) => (signature.as_deref(), snapshot.capacity),
    }
}

/// What a lease store reads of its durable record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DurableRecord {
    /// The store's own snapshot is the durable record (the embedded store).
    Itself,
    /// Nothing durable exists (Redis alone).
    Nothing,
    /// MySQL's record of the namespaces, by name, compared with Redis.
    Mysql(Vec<DurableNamespace>),
}

impl DurableRecord {
    pub fn source(&self) -> DurableSource {
        match self {
            DurableRecord::Itself => DurableSource::Embedded,
            DurableRecord::Nothing => DurableSource::None,
            DurableRecord::Mysql(_) => DurableSource::Mysql,
        }
    }

    /// The namespaces recorded (none unless MySQL's).
    pub fn namespaces(&self) -> &[DurableNamespace] {
        match self {
            DurableRecord::Mysql(found) => found,
            _ => &[],
        }
    }

    /// The record of one namespace.
    pub fn namespace(&self, name: &str) -> Option<&DurableNamespace> {
        self.namespaces().iter().find(|ns| ns.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(worker: u64, held: bool) -> DurableWorker {
        DurableWorker {
            worker,
            holder: format!("h{worker}"),
            fence_ms: 5_000,
            held,
            redis: None,
        }
    }

    fn recorded() -> DurableNamespace {
        DurableNamespace {
            name: "ns".into(),
            signature: "sig".into(),
            capacity: 4,
            redis: None,
            workers: vec![worker(0, true), worker(1, false), worker(2, true)],
        }
    }

    #[test]
    fn an_empty_redis_is_missing_everything() {
        let mut ns = recorded();
        ns.compare(&NamespaceSnapshot::default());
        assert_eq!(ns.redis, Some(InRedis::Missing));
        assert!(ns.workers.iter().all(|w| w.redis == Some(InRedis::Missing)));
        assert_eq!(ns.unmirrored().count(), 2);
        assert_eq!(ns.findings().len(), 2);
    }

    #[test]
    fn a_lease_redis_lost_is_missing_and_still_held_until_its_fence() {
        let mut ns = recorded();
        let snapshot = NamespaceSnapshot::assemble(
            Some("sig".into()),
            4,
            [(0, "h0".to_string(), Some(100))],
            vec![3],
            [(0, 5_000), (1, 4_000), (2, 5_000)].into_iter().collect(),
        );
        ns.compare(&snapshot);
        let marks: Vec<_> = ns.workers.iter().map(|w| w.redis.unwrap()).collect();
        assert_eq!(
            marks,
            [InRedis::Present, InRedis::Present, InRedis::Missing]
        );
        let held = ns.held_with(&snapshot.held, 4_000);
        assert_eq!(held.len(), 2);
        assert_eq!((held[1].worker, held[1].ttl_ms), (2, Some(1_000)));
    }
}
