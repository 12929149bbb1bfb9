//! The embedded store as the [`LeaseStore`], the [`LeaseAdmin`] and the
//! [`WorkerNodeAssigner`], with the semantics of the Redis scripts in
//! `store/redis/lease.rs`.
//!
//! A held worker is a row in `idgen_lease_held` with an expiry; a row past its
//! expiry is treated exactly as a Redis key that expired: not held, and deleted
//! when someone claims the worker (or on repair). Every call is one
//! transaction, which is what the scripts' atomicity gave on Redis.

use super::lease_witness::LeaseWitness;
use super::{DbError, DbResult, SqliteStore, ms, now_ms};
use crate::error::{Error, Result};
use crate::lease::durable::DurableRecord;
use crate::lease::{
    Grant, LeaseAdmin, NamespaceSnapshot, NamespaceSpec, Renewal, WorkerNodeAssigner,
};
use crate::store::traits::lease::{
    Acquire, LeaseCalls, Release, Renew, check_signature, held_or_lost, refuse_in_use,
    refuse_unknown,
};
use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// A namespace's capacity as SQLite stores it.
fn sql_capacity(capacity: u64) -> i64 {
    i64::try_from(capacity).unwrap_or(i64::MAX)
}

/// Records the namespace's signature on first use; refuses another one later.
fn claim_namespace(conn: &Connection, namespace: &NamespaceSpec, now: i64) -> DbResult<()> {
    let recorded: Option<String> = conn
        .prepare_cached("SELECT signature FROM idgen_lease_namespace WHERE namespace = ?1")?
        .query_row([&namespace.name], |r| r.get(0))
        .optional()?;
    if recorded.is_none() {
        conn.prepare_cached(
            "INSERT INTO idgen_lease_namespace (namespace, signature, capacity, created_ms) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![
            namespace.name,
            namespace.signature,
            sql_capacity(namespace.capacity),
            now
        ])?;
    }
    check_signature(namespace, recorded).map_err(DbError::Idgen)
}

/// Workers held right now (rows with no expiry count as held).
fn live_holders(conn: &Connection, namespace: &str, now: i64) -> DbResult<BTreeSet<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT worker FROM idgen_lease_held WHERE namespace = ?1 AND (expires_at_ms IS NULL OR expires_at_ms > ?2)",
    )?;
    let held = stmt
        .query_map(params![namespace, now], |r| r.get(0))?
        .collect::<rusqlite::Result<BTreeSet<i64>>>()?;
    Ok(held)
}

fn is_held(conn: &Connection, namespace: &str, worker: i64, now: i64) -> DbResult<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT 1 FROM idgen_lease_held WHERE namespace = ?1 AND worker = ?2 AND (expires_at_ms IS NULL OR expires_at_ms > ?3)",
        )?
        .query_row(params![namespace, worker, now], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Appends workers to the end of the free list.
fn push_free(conn: &Connection, namespace: &str, workers: &[i64]) -> DbResult<()> {
    let mut pos: i64 = conn
        .prepare_cached("SELECT COALESCE(MAX(pos), 0) FROM idgen_lease_free WHERE namespace = ?1")?
        .query_row([namespace], |r| r.get(0))?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO idgen_lease_free (namespace, pos, worker) VALUES (?1, ?2, ?3)",
    )?;
    for &worker in workers {
        pos += 1;
        insert.execute(params![namespace, pos, worker])?;
    }
    Ok(())
}

/// Claims `worker` unless someone holds it; an expired row is replaced.
struct Claim<'a> {
    namespace: &'a str,
    holder: &'a str,
    token: &'a str,
    now: i64,
    expires_at_ms: i64,
}

impl Claim<'_> {
    fn try_claim(&self, conn: &Connection, worker: i64) -> DbResult<bool> {
        if is_held(conn, self.namespace, worker, self.now)? {
            return Ok(false);
        }
        conn.prepare_cached(
            "INSERT INTO idgen_lease_held (namespace, worker, holder, token, since_ms, expires_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (namespace, worker) DO UPDATE SET holder = excluded.holder, token = excluded.token,
               since_ms = excluded.since_ms, expires_at_ms = excluded.expires_at_ms",
        )?
        .execute(params![
            self.namespace,
            worker,
            self.holder,
            self.token,
            self.now,
            self.expires_at_ms
        ])?;
        Ok(true)
    }
}

/// Raises the worker's fence to `fence_ms`, in the store and in its witness;
/// returns the higher of the fences they had (the floor): a store file
/// restored from an older copy does not know the fences reached since.
fn raise_fence(
    conn: &Connection,
    witness: &LeaseWitness,
    namespace: &str,
    worker: i64,
    fence_ms: i64,
) -> DbResult<Option<i64>> {
    let floor: Option<i64> = conn
        .prepare_cached(
            "SELECT last_ms FROM idgen_lease_fence WHERE namespace = ?1 AND worker = ?2",
        )?
        .query_row(params![namespace, worker], |r| r.get(0))
        .optional()?;
    if floor.is_none_or(|f| f < fence_ms) {
        set_fence(conn, namespace, worker, fence_ms)?;
    }
    let witnessed = witness.fence(namespace, worker)?;
    witness.raise(namespace, worker, fence_ms)?;
    Ok(floor.max(witnessed))
}

fn set_fence(conn: &Connection, namespace: &str, worker: i64, last_ms: i64) -> DbResult<()> {
    conn.prepare_cached(
        "INSERT INTO idgen_lease_fence (namespace, worker, last_ms) VALUES (?1, ?2, ?3)
         ON CONFLICT (namespace, worker) DO UPDATE SET last_ms = excluded.last_ms",
    )?
    .execute(params![namespace, worker, last_ms])?;
    Ok(())
}

fn acquire(conn: &Connection, witness: &LeaseWitness, call: &Acquire) -> DbResult<Grant> {
    let now = now_ms();
    claim_namespace(conn, &call.namespace, now)?;
    let ns = call.namespace.name.as_str();
    let capacity = sql_capacity(call.namespace.capacity);
    let token = crate::store::fresh_token();
    let claim = Claim {
        namespace: ns,
        holder: &call.holder,
        token: &token,
        now,
        expires_at_ms: now.saturating_add(ms(call.ttl)),
    };
    let grant = |worker: i64| -> DbResult<Grant> {
        let floor_ms = raise_fence(conn, witness, ns, worker, call.fence_ms)?;
        crate::failpoint::hit("sqlite.lease.before_commit")?;
        Ok(call.granted(worker as u64, token.clone(), floor_ms))
    };
    loop {
        let head: Option<(i64, i64)> = conn
            .prepare_cached(
                "SELECT pos, worker FROM idgen_lease_free WHERE namespace = ?1 ORDER BY pos LIMIT 1",
            )?
            .query_row([ns], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((pos, worker)) = head else { break };
        conn.prepare_cached("DELETE FROM idgen_lease_free WHERE namespace = ?1 AND pos = ?2")?
            .execute(params![ns, pos])?;
        if (0..capacity).contains(&worker) && claim.try_claim(conn, worker)? {
            return grant(worker);
        }
    }
    // The free list is used up or missing: rebuild it from the IDs nobody holds.
    let held = live_holders(conn, ns, now)?;
    let mut unheld = (0..capacity).filter(|id| !held.contains(id));
    let Some(found) = unheld.next() else {
        return Err(DbError::Idgen(call.all_held()));
    };
    let rest: Vec<i64> = unheld.collect();
    push_free(conn, ns, &rest)?;
    claim.try_claim(conn, found)?;
    grant(found)
}

/// `worker`: the call's, as SQLite stores it.
fn renew(conn: &Connection, witness: &LeaseWitness, call: &Renew, worker: i64) -> DbResult<bool> {
    let (namespace, token) = (&call.namespace, &call.token);
    let now = now_ms();
    let renewed = conn
        .prepare_cached(
            "UPDATE idgen_lease_held SET expires_at_ms = ?4 WHERE namespace = ?1 AND worker = ?2 AND token = ?3
               AND (expires_at_ms IS NULL OR expires_at_ms > ?5)",
        )?
        .execute(params![
            namespace,
            worker,
            token,
            now.saturating_add(ms(call.ttl)),
            now
        ])?;
    if renewed == 0 {
        return Ok(false);
    }
    raise_fence(conn, witness, namespace, worker, call.fence_ms)?;
    Ok(true)
}

/// `worker`: the call's, as SQLite stores it.
fn release(
    conn: &Connection,
    witness: &LeaseWitness,
    call: &Release,
    worker: i64,
) -> DbResult<bool> {
    let namespace = &call.namespace;
    let released = conn
        .prepare_cached(
            "DELETE FROM idgen_lease_held WHERE namespace = ?1 AND worker = ?2 AND token = ?3
               AND (expires_at_ms IS NULL OR expires_at_ms > ?4)",
        )?
        .execute(params![namespace, worker, call.token, now_ms()])?;
    if released == 0 {
        return Ok(false);
    }
    set_fence(conn, namespace, worker, call.last_ms)?;
    witness.set(namespace, worker, call.last_ms)?;
    push_free(conn, namespace, &[worker])?;
    Ok(true)
}

fn snapshot(conn: &Connection, namespace: &str) -> DbResult<NamespaceSnapshot> {
    let now = now_ms();
    let meta: Option<(String, i64)> = conn
        .prepare_cached(
            "SELECT signature, capacity FROM idgen_lease_namespace WHERE namespace = ?1",
        )?
        .query_row([namespace], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let (signature, capacity) = match meta {
        Some((signature, capacity)) => (Some(signature), capacity.max(0)),
        None => (None, 0),
    };
    let free: Vec<u64> = {
        let mut stmt = conn.prepare_cached(
            "SELECT worker FROM idgen_lease_free WHERE namespace = ?1 ORDER BY pos",
        )?;
        stmt.query_map([namespace], |r| r.get::<_, i64>(0))?
            .collect::<rusqlite::Result<Vec<i64>>>()?
            .into_iter()
            .filter_map(|w| u64::try_from(w).ok())
            .collect()
    };
    let fences: BTreeMap<u64, i64> = {
        let mut stmt = conn
            .prepare_cached("SELECT worker, last_ms FROM idgen_lease_fence WHERE namespace = ?1")?;
        stmt.query_map([namespace], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?
        .into_iter()
        .filter_map(|(w, last)| Some((u64::try_from(w).ok()?, last)))
        .collect()
    };
    let held: Vec<(u64, String, Option<u64>)> = {
        let mut stmt = conn.prepare_cached(
            "SELECT worker, holder, expires_at_ms FROM idgen_lease_held
             WHERE namespace = ?1 AND worker >= 0 AND worker < ?2 AND (expires_at_ms IS NULL OR expires_at_ms > ?3)
             ORDER BY worker",
        )?;
        stmt.query_map(params![namespace, capacity, now], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<i64>>(2)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?
        .into_iter()
        .map(|(worker, holder, expires)| {
            // The WHERE clause keeps the worker non-negative.
            let ttl_ms = expires.map(|at| (at - now).max(0) as u64);
            (worker as u64, holder, ttl_ms)
        })
        .collect()
    };
    Ok(NamespaceSnapshot::assemble(
        signature,
        capacity as u64,
        held,
        free,
        fences,
    ))
}

fn repair(conn: &Connection, namespace: &str, ttl: Duration) -> DbResult<()> {
    let now = now_ms();
    let capacity: i64 = conn
        .prepare_cached("SELECT capacity FROM idgen_lease_namespace WHERE namespace = ?1")?
        .query_row([namespace], |r| r.get(0))
        .optional()?
        .unwrap_or(0);
    conn.prepare_cached("DELETE FROM idgen_lease_free WHERE namespace = ?1")?
        .execute([namespace])?;
    // Expired rows are keys Redis would already have dropped.
    conn.prepare_cached(
        "DELETE FROM idgen_lease_held WHERE namespace = ?1 AND expires_at_ms IS NOT NULL AND expires_at_ms <= ?2",
    )?
    .execute(params![namespace, now])?;
    conn.prepare_cached(
        "UPDATE idgen_lease_held SET expires_at_ms = ?2 WHERE namespace = ?1 AND expires_at_ms IS NULL",
    )?
    .execute(params![namespace, now.saturating_add(ms(ttl))])?;
    let held = live_holders(conn, namespace, now)?;
    let unheld: Vec<i64> = (0..capacity.max(0))
        .filter(|id| !held.contains(id))
        .collect();
    push_free(conn, namespace, &unheld)
}

#[async_trait]
impl LeaseCalls for SqliteStore {
    fn describe(&self) -> String {
        format!("embedded store {}", self.path().display())
    }

    async fn check_reachable(&self) -> Result<()> {
        self.namespaces().await.map(drop)
    }

    async fn acquire(&self, call: Acquire) -> Result<Grant> {
        let db = self.db.clone();
        self.write(move |tx| acquire(tx, &*db.lease_witness()?, &call))
            .await
    }

    async fn renew(&self, call: Renew) -> Result<Renewal> {
        // A worker ID beyond SQLite's integers is nobody's lease.
        let Ok(worker) = i64::try_from(call.worker) else {
            return Ok(Renewal::Lost);
        };
        let db = self.db.clone();
        let held = self
            .write(move |tx| renew(tx, &*db.lease_witness()?, &call, worker))
            .await?;
        Ok(held_or_lost(held))
    }

    async fn release(&self, call: Release) -> Result<bool> {
        let Ok(worker) = i64::try_from(call.worker) else {
            return Ok(false);
        };
        let db = self.db.clone();
        self.write(move |tx| release(tx, &*db.lease_witness()?, &call, worker))
            .await
    }
}

#[async_trait]
impl LeaseAdmin for SqliteStore {
    async fn namespaces(&self) -> Result<Vec<String>> {
        self.read(|tx| {
            let mut stmt = tx
                .prepare_cached("SELECT namespace FROM idgen_lease_namespace ORDER BY namespace")?;
            let names = stmt
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(names)
        })
        .await
    }

    async fn snapshot(&self, namespace: &str) -> Result<NamespaceSnapshot> {
        let namespace = namespace.to_string();
        self.read(move |tx| snapshot(tx, &namespace)).await
    }

    async fn durable(&self, _only: Option<&str>, _now_ms: i64) -> Result<DurableRecord> {
        Ok(DurableRecord::Itself)
    }

    async fn repair(&self, namespace: &str, ttl: Duration) -> Result<()> {
        let namespace = namespace.to_string();
        self.write(move |tx| repair(tx, &namespace, ttl)).await
    }

    async fn delete_namespace(&self, namespace: &str, now_ms: i64) -> Result<()> {
        let namespace = namespace.to_string();
        // One write transaction: no lease is taken between the check and the delete.
        self.write(move |tx| {
            let known = tx
                .prepare_cached("SELECT 1 FROM idgen_lease_namespace WHERE namespace = ?1")?
                .query_row([&namespace], |_| Ok(()))
                .optional()?
                .is_some();
            refuse_unknown(&namespace, known)?;
            let state = snapshot(tx, &namespace)?;
            refuse_in_use(&namespace, crate::lease::in_use(&state, now_ms))?;
            for table in [
                "idgen_lease_namespace",
                "idgen_lease_free",
                "idgen_lease_held",
                "idgen_lease_fence",
                "idgen_lease_lock",
            ] {
                tx.execute(
                    &format!("DELETE FROM {table} WHERE namespace = ?1"),
                    [&namespace],
                )?;
            }
            Ok(())
        })
        .await
    }

    async fn lock_namespace(&self, namespace: &str, ttl: Duration) -> Result<Option<String>> {
        let namespace = namespace.to_string();
        self.write(move |tx| {
            let now = now_ms();
            let held = tx
                .prepare_cached(
                    "SELECT 1 FROM idgen_lease_lock WHERE namespace = ?1 AND expires_at_ms > ?2",
                )?
                .query_row(params![namespace, now], |_| Ok(()))
                .optional()?
                .is_some();
            if held {
                return Ok(None);
            }
            let token = crate::store::fresh_token();
            tx.prepare_cached(
                "INSERT INTO idgen_lease_lock (namespace, token, expires_at_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT (namespace) DO UPDATE SET token = excluded.token, expires_at_ms = excluded.expires_at_ms",
            )?
            .execute(params![namespace, token, now.saturating_add(ms(ttl))])?;
            Ok(Some(token))
        })
        .await
    }

    async fn unlock_namespace(&self, namespace: &str, token: &str) -> Result<()> {
        let (namespace, token) = (namespace.to_string(), token.to_string());
        self.write(move |tx| {
            tx.prepare_cached("DELETE FROM idgen_lease_lock WHERE namespace = ?1 AND token = ?2")?
                .execute(params![namespace, token])?;
            Ok(())
        })
        .await
    }
}

#[async_trait]
impl WorkerNodeAssigner for SqliteStore {
    async fn assign(&self, namespace: &NamespaceSpec, host: &str, port: &str) -> Result<u64> {
        let namespace = namespace.clone();
        let host: String = host.chars().take(64).collect();
        let port: String = port.chars().take(64).collect();
        let db = self.db.clone();
        self.write(move |tx| {
            claim_namespace(tx, &namespace, now_ms())?;
            // TYPE 1 is uid-generator's ACTUAL (a host, not a container).
            tx.prepare_cached(
                "INSERT INTO WORKER_NODE (HOST_NAME, PORT, TYPE, LAUNCH_DATE) VALUES (?1, ?2, 1, date('now'))",
            )?
            .execute(params![host, port])?;
            let mut row = tx.last_insert_rowid();
            // A store file restored from an older copy hands out its IDs
            // again: the new row moves past the highest its witness saw.
            let witness = db.lease_witness()?;
            let highest = witness.highest_worker_node()?;
            if row <= highest {
                let past = highest.saturating_add(1);
                tx.prepare_cached("UPDATE WORKER_NODE SET ID = ?1 WHERE ID = ?2")?
                    .execute(params![past, row])?;
                row = past;
            }
            let worker = u64::try_from(row).map_err(|_| {
                DbError::Idgen(Error::Corrupt {
                    detail: "WORKER_NODE handed out a negative ID".into(),
                })
            })?;
            // An error rolls back: the table does not grow with IDs nobody can use.
            namespace.check_assigned(worker).map_err(DbError::Idgen)?;
            witness.raise_worker_node(row)?;
            Ok(worker)
        })
        .await
    }
}
