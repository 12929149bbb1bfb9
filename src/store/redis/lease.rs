//! Worker-ID leases in a Redis node: the Redis half of the fenced store on
//! Redis + MySQL ([`FencedLeaseStore`](crate::store::distributed::FencedLeaseStore):
//! MySQL decides, Redis offers free workers and witnesses every fence), and
//! [`RedisLeaseStore`] (Redis alone, seed 000: Redis decides, and waits out
//! every TTL whenever it cannot prove its state continuous).
//!
//! Every key of a namespace carries the hash tag `{ns}`, so the multi-key
//! scripts run on Redis Cluster too:
//! `idgen:{ns}:meta` (signature, capacity; on Redis alone also the server's
//! identity, the incarnation, the longest TTL and the quarantine; with the
//! `worker-node` assigner the witness of the highest ID MySQL handed out),
//! `idgen:{ns}:free` (the free list), `idgen:{ns}:last` (time fence per
//! worker: on Redis + MySQL the witness of MySQL's), `idgen:{ns}:w:<id>` (a
//! held worker: holder, token; with an expiry) and `idgen:{ns}:lock` (repair lock).
//!
//! Every lease script first checks that its server is the master
//! (`lua/shared/master.lua`); a replica answers `READONLY`.

mod alone;

pub use alone::RedisLeaseStore;

use super::RedisNode;
use super::scripts::scripts;
use crate::error::{Error, Result};
use crate::lease::{Grant, NamespaceSnapshot, NamespaceSpec};
use crate::store::fresh_token;
use crate::store::traits::lease::{Acquire, Release, Renew, check_signature, mismatch};
use redis::Script;
use std::time::Duration;

fn key(namespace: &str, part: &str) -> String {
    format!("idgen:{{{namespace}}}:{part}")
}

fn worker_prefix(namespace: &str) -> String {
    key(namespace, "w:")
}

/// The key of a held worker (holder, token; with an expiry).
fn worker_key(namespace: &str, worker: u64) -> String {
    format!("{}{worker}", worker_prefix(namespace))
}

fn millis(d: Duration) -> String {
    d.as_millis().max(1).to_string()
}

/// The arguments every renew script starts with.
fn renew_args(call: &Renew) -> Vec<String> {
    vec![
        call.token.clone(),
        millis(call.ttl),
        call.worker.to_string(),
        call.fence_ms.to_string(),
    ]
}

impl RedisNode {
    /// Records the namespace's signature, or checks it against the recorded one.
    pub async fn claim_namespace(&self, namespace: &NamespaceSpec) -> Result<()> {
        let recorded: String = self
            .invoke(
                &scripts().lease_claim_namespace,
                &[&key(&namespace.name, "meta")],
                &[
                    namespace.signature.clone(),
                    namespace.capacity.to_string(),
                    crate::clock::process_now_ms().to_string(),
                ],
            )
            .await?;
        check_signature(namespace, (!recorded.is_empty()).then_some(recorded))
    }

    /// Raises the namespace's witness of the highest `worker-node` ID handed
    /// out to `id` (0: only reads it); returns the highest before.
    pub async fn note_worker_node(&self, namespace: &str, id: u64) -> Result<u64> {
        let held: String = self
            .invoke(
                &scripts().lease_worker_node,
                &[&key(namespace, "meta")],
                &[id.to_string()],
            )
            .await?;
        held.parse().map_err(|_| Error::Corrupt {
            detail: format!(
                "{} holds a worker-node witness that is not a number: {held:?}",
                key(namespace, "meta")
            ),
        })
    }

    /// Runs an acquire script, the fenced store's or Redis alone's, and reads
    /// its answer (see [`acquire_call`]).
    async fn run_acquire(
        &self,
        script: &Script,
        call: &Acquire,
        now_ms: i64,
        more: &[String],
    ) -> Result<Grant> {
        let token = fresh_token();
        let (keys, args) = acquire_call(call, &token, now_ms, more);
        let keys = keys.each_ref().map(String::as_str);
        let answer: Vec<String> = self.invoke(script, &keys, &args).await?;
        grant_of(&answer, token, call)
    }

    /// Runs a release script, the fenced store's or Redis alone's: both take
    /// the worker's key, the fences and the free list (after the keys in
    /// `ahead`) and the same arguments. `true`: the lease was ours and ended.
    async fn run_release(&self, script: &Script, ahead: &[&str], call: &Release) -> Result<bool> {
        let ns = &call.namespace;
        let own = [
            worker_key(ns, call.worker),
            key(ns, "last"),
            key(ns, "free"),
        ];
        let keys: Vec<&str> = ahead
            .iter()
            .copied()
            .chain(own.iter().map(String::as_str))
            .collect();
        let released: i64 = self
            .invoke(
                script,
                &keys,
                &[
                    call.token.clone(),
                    call.worker.to_string(),
                    call.last_ms.to_string(),
                ],
            )
            .await?;
        Ok(released == 1)
    }
}

/// The Redis half of a lease on Redis + MySQL: a fast free list, the keys that
/// show who holds what, and the witness of every fence. Only the fenced store
/// uses these; [`RedisLeaseStore`] has its own scripts.
impl RedisNode {
    pub(crate) async fn lease_acquire(&self, call: &Acquire) -> Result<Grant> {
        // This script never answers a quarantine: the time it is judged at
        // does not matter.
        let now_ms = crate::clock::process_now_ms();
        self.run_acquire(&scripts().lease_acquire, call, now_ms, &[])
            .await
    }

    /// Raises Redis's witness of the fence and extends the worker's key:
    /// 1 when extended, 2 when the key is gone, 0 when another token holds it.
    pub(crate) async fn lease_renew(&self, call: &Renew) -> Result<i64> {
        let ns = &call.namespace;
        self.invoke(
            &scripts().lease_renew,
            &[&worker_key(ns, call.worker), &key(ns, "last")],
            &renew_args(call),
        )
        .await
    }

    /// Gives a worker we claimed in Redis back to the holder MySQL names.
    pub async fn lease_restore(
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
                &scripts().lease_restore,
                &[&worker_key(namespace, worker)],
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

    pub(crate) async fn lease_release(&self, call: &Release) -> Result<bool> {
        self.run_release(&scripts().lease_release, &[], call).await
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

    /// The namespace as Redis holds it. The lease keys of workers below
    /// `scan_at_least` are looked up even when Redis lost the namespace's own
    /// record (a holder may have put its key back since).
    pub async fn snapshot(&self, namespace: &str, scan_at_least: u64) -> Result<NamespaceSnapshot> {
        type Raw = (String, String, Vec<String>, Vec<String>, Vec<String>);
        let (signature, capacity, free, last, held): Raw = self
            .invoke(
                &scripts().lease_snapshot,
                &[
                    &key(namespace, "meta"),
                    &key(namespace, "free"),
                    &key(namespace, "last"),
                ],
                &[worker_prefix(namespace), scan_at_least.to_string()],
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
                &scripts().lease_repair,
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

/// Reads an acquire script's answer: `{'ok', worker, floor ('': none)[,
/// quarantine until]}`, `{'mismatch', recorded}` or `{'full'}`. A quarantine
/// already over is kept: the holder waits for nothing, but it is the time the
/// grant issues after when the worker's own fence went with what Redis lost
/// (the `acquired` event reports it).
/// The keys and arguments of an acquire script, the fenced store's or Redis
/// alone's. Both take the namespace's meta, free list and fences, and the
/// same arguments up to `now_ms`; `more` follows them.
fn acquire_call(
    call: &Acquire,
    token: &str,
    now_ms: i64,
    more: &[String],
) -> ([String; 3], Vec<String>) {
    let ns = &call.namespace.name;
    let mut args = vec![
        call.namespace.signature.clone(),
        call.namespace.capacity.to_string(),
        worker_prefix(ns),
        call.holder.clone(),
        token.to_string(),
        millis(call.ttl),
        call.fence_ms.to_string(),
        now_ms.to_string(),
    ];
    args.extend_from_slice(more);
    ([key(ns, "meta"), key(ns, "free"), key(ns, "last")], args)
}

fn grant_of(answer: &[String], token: String, call: &Acquire) -> Result<Grant> {
    let number = |i: usize| answer.get(i).and_then(|f| f.parse::<i64>().ok());
    match answer.first().map(String::as_str) {
        Some("ok") => {
            let worker = answer
                .get(1)
                .and_then(|w| w.parse().ok())
                .ok_or_else(|| Error::Internal("acquire returned no worker".into()))?;
            Ok(Grant {
                quarantine_until_ms: number(3),
                ..call.granted(worker, token, number(2))
            })
        }
        Some("mismatch") => Err(mismatch(
            &call.namespace,
            answer.get(1).cloned().unwrap_or_default(),
        )),
        Some("full") => Err(call.all_held()),
        _ => Err(Error::Internal(format!(
            "unexpected acquire answer {answer:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::{key, worker_key};
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
                .chain((0..1024).map(|w| worker_key(namespace, w)));
            for k in keys {
                assert_eq!(hash_slot(k.as_bytes()), slot, "{k}");
            }
        }
    }
}
