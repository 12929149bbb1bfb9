//! Worker-ID leases and namespaces in MySQL: the durable record a Redis lease
//! store checks against, and uid-generator's `WORKER_NODE` assigner.

use super::schema::WORKER_NODE_DDL;
use super::{MissingTable, MysqlLedger};
use crate::error::{Error, Result};
use crate::lease::Grant;
use crate::lease::durable::{DurableNamespace, DurableWorker};
use crate::store::Ledger;
use crate::store::traits::lease::{Acquire, Release, Renew, check_signature, refuse_in_use};
use mysql_async::prelude::Queryable;
use mysql_async::{Params, TxOpts};
use std::future::Future;
use std::sync::atomic::Ordering;

/// Ends a lease under its token: the fence becomes the last time unit issued.
const RELEASE: &str =
    "UPDATE idgen_worker_lease SET token = '', fence_ms = ?, renewals = renewals + 1
             WHERE namespace = ? AND worker = ? AND token = ?";

/// What the ledger said about a worker ID a Redis free list offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerClaim {
    /// Ours now; only time units after `floor_ms` (every earlier holder's fence) may be issued.
    Granted { floor_ms: Option<i64> },
    /// Someone holds it durably although Redis offered it: Redis lost that lease.
    Held {
        holder: String,
        token: String,
        fence_ms: i64,
    },
}

/// Durable worker leases: the authority on who holds a worker ID and up to
/// which time, so that a Redis that loses or reverts its lease keys can never
/// hand a held worker to a second holder below the first one's fence.
///
/// Why two holders can never issue the same (time, worker, sequence):
/// * a holder adopts a fence only after writing it here, under its token;
/// * a new holder takes the row under its lock, starts above the recorded
///   fence, and replaces the token, so every later renewal of the old holder
///   fails: the old holder stops at the fence it had written.
impl MysqlLedger {
    /// Connects to a server checked for its version, before the first
    /// lease, and keeps the connection for it. The lease tables are not
    /// looked for here: the lease's first statement finds them (see
    /// `with_lease_tables`).
    pub async fn prepare_leases(&self) -> Result<()> {
        // A connection and the version it announced: safe to run again.
        let conn = self.retrying(|| self.checked_conn()).await?;
        self.keep_warm(conn);
        Ok(())
    }

    /// Runs a lease `attempt` through [`Self::retrying`]. Its first statement
    /// doubles as the look for the lease tables, a round trip fewer on every
    /// run than asking `information_schema` first: when it finds one missing
    /// (a database's first lease, or a table dropped since), the schema is
    /// made and the attempt runs again. An attempt that finds a table missing
    /// has written nothing, so running it again is running it first.
    async fn with_lease_tables<T, Fut>(&self, mut attempt: impl FnMut() -> Fut) -> Result<T>
    where
        Fut: Future<Output = Result<std::result::Result<T, MissingTable>>>,
    {
        let done = match self.retrying(&mut attempt).await? {
            Ok(done) => done,
            Err(_missing) => {
                self.ensure_schema().await?;
                self.retrying(&mut attempt).await??
            }
        };
        self.leases_ready.store(true, Ordering::Release);
        Ok(done)
    }

    /// Makes sure the lease tables exist before reading them: one look, the
    /// full schema (DDL) only when they are missing.
    async fn lease_schema(&self) -> Result<()> {
        if self.ready.load(Ordering::Acquire) || self.leases_ready.load(Ordering::Acquire) {
            return Ok(());
        }
        const TABLES: &[&str] = &["idgen_schema", "idgen_namespace", "idgen_worker_lease"];
        if self.tables_present(TABLES).await?.len() == TABLES.len() {
            self.leases_ready.store(true, Ordering::Release);
            return Ok(());
        }
        self.ensure_schema().await
    }

    /// Records the namespace's layout signature on first use; refuses another.
    pub async fn claim_namespace(
        &self,
        namespace: &crate::lease::NamespaceSpec,
        now_ms: i64,
    ) -> Result<()> {
        // A read and an insert that leaves an existing row as it is: safe to
        // run again.
        self.with_lease_tables(|| async move {
            let mut conn = self.checked_conn().await?;
            self.check_namespace(&mut conn, namespace, now_ms).await
        })
        .await
    }

    async fn check_namespace<Q: Queryable>(
        &self,
        conn: &mut Q,
        namespace: &crate::lease::NamespaceSpec,
        now_ms: i64,
    ) -> Result<std::result::Result<(), MissingTable>> {
        // A shared lock: acquirers do not wait for each other, but
        // `delete_namespace` (which locks the row for update) waits for every
        // acquire under way, and every later acquire waits for it.
        const READ: &str =
            "SELECT signature FROM idgen_namespace WHERE name = ? LOCK IN SHARE MODE";
        let mut recorded: Option<String> = match self
            .bounded_if_tables(conn.exec_first(READ, (&namespace.name,)))
            .await?
        {
            Ok(recorded) => recorded,
            Err(missing) => return Ok(Err(missing)),
        };
        if recorded.is_none() {
            // First use: a write only now, not on every acquire.
            self.bounded(conn.exec_drop(
                "INSERT INTO idgen_namespace (name, signature, capacity, created_ms) VALUES (?, ?, ?, ?)
                 ON DUPLICATE KEY UPDATE name = name",
                (&namespace.name, &namespace.signature, namespace.capacity, now_ms),
            ))
            .await?;
            recorded = self
                .bounded(conn.exec_first(READ, (&namespace.name,)))
                .await?;
        }
        check_signature(namespace, recorded).map(Ok)
    }

    /// Takes the worker Redis offered for `call`, under the offer's token,
    /// unless someone holds it durably (a fence after the holder's clock
    /// under another token). On success the row carries our token and at
    /// least the call's fence.
    pub(crate) async fn take_worker(&self, call: &Acquire, offer: &Grant) -> Result<WorkerClaim> {
        // Each attempt reads the lease row under its lock and decides on what
        // it read; an aborted one committed nothing, so the next decides as
        // the first would have.
        self.with_lease_tables(|| self.take_worker_once(call, offer))
            .await
    }

    async fn take_worker_once(
        &self,
        call: &Acquire,
        offer: &Grant,
    ) -> Result<std::result::Result<WorkerClaim, MissingTable>> {
        let (namespace, worker, token) = (&call.namespace, offer.worker, offer.token.as_str());
        let (fence_ms, now_ms) = (call.fence_ms, call.now_ms());
        let mut conn = self.checked_conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(Self::tx_opts()))
            .await?;
        if let Err(missing) = self.check_namespace(&mut tx, namespace, now_ms).await? {
            return Ok(Err(missing));
        }
        const LOCK_ROW: &str = "SELECT token, holder, fence_ms FROM idgen_worker_lease WHERE namespace = ? AND worker = ? FOR UPDATE";
        let row: Option<(String, String, i64)> = match self
            .bounded_if_tables(tx.exec_first(LOCK_ROW, (&namespace.name, worker)))
            .await?
        {
            Ok(row) => row,
            Err(missing) => return Ok(Err(missing)),
        };
        let holder: String = call.holder.chars().take(255).collect();
        // A worker's first lease makes its row, with our token, in one
        // statement. Two takers serialise on the key: the second's insert
        // waits for the first's, then is refused as a duplicate (having
        // written nothing), and the second reads the first's row under its
        // lock, as for any worker with a row. A row, once made, is deleted
        // only by `delete_namespace`, which locks the namespace first.
        /// ER_DUP_ENTRY.
        const DUP_ENTRY: u16 = 1062;
        let made = row.is_none()
            && {
                crate::failpoint::hit("lease.take_worker.before_first_row")?;
                self.bounded_unless(
                DUP_ENTRY,
                tx.exec_drop(
                    "INSERT INTO idgen_worker_lease (namespace, worker, token, holder, fence_ms) VALUES (?, ?, ?, ?, ?)",
                    (&namespace.name, worker, token, &holder, fence_ms),
                ),
            )
            .await?
            .is_ok()
            };
        // The fence earlier holders left (none when this grant made the row).
        let floor_ms = if made {
            None
        } else {
            let row = match row {
                Some(row) => Some(row),
                None => {
                    self.bounded(tx.exec_first(LOCK_ROW, (&namespace.name, worker)))
                        .await?
                }
            };
            let (held_by, held_holder, fence) =
                row.ok_or_else(|| Error::Internal("the worker lease row vanished".into()))?;
            if !held_by.is_empty() && held_by != token && fence > now_ms {
                self.bounded(tx.commit()).await?;
                return Ok(Ok(WorkerClaim::Held {
                    holder: held_holder,
                    token: held_by,
                    fence_ms: fence,
                }));
            }
            self.bounded(tx.exec_drop(
                "UPDATE idgen_worker_lease SET token = ?, holder = ?, fence_ms = GREATEST(fence_ms, ?), renewals = 0
                 WHERE namespace = ? AND worker = ?",
                (token, holder, fence_ms, &namespace.name, worker),
            ))
            .await?;
            (fence > 0).then_some(fence)
        };
        crate::failpoint::hit("lease.take_worker.before_commit")?;
        self.bounded(tx.commit()).await?;
        // A short `lease` releases the worker right after this.
        self.keep_warm(conn);
        Ok(Ok(WorkerClaim::Granted { floor_ms }))
    }

    /// Raises the worker's fence while the call's token still holds it.
    /// `false`: another holder took the worker; this one must stop at the
    /// fence it had.
    pub(crate) async fn renew_worker(&self, call: &Renew) -> Result<bool> {
        // Only raises the fence, so running it again is the same.
        self.update_under_token(
            "UPDATE idgen_worker_lease SET fence_ms = GREATEST(fence_ms, ?), renewals = renewals + 1
             WHERE namespace = ? AND worker = ? AND token = ?",
            (call.fence_ms, call.namespace.as_str(), call.worker, call.token.as_str()),
        )
        .await
    }

    /// Ends the lease if the call's token still holds it: the fence becomes
    /// `last_ms`, the last time unit really issued (never below any earlier
    /// holder's fence, which the caller's floor already covers).
    pub(crate) async fn release_worker(&self, call: &Release) -> Result<bool> {
        self.update_under_token(
            RELEASE,
            (
                call.last_ms,
                call.namespace.as_str(),
                call.worker,
                call.token.as_str(),
            ),
        )
        .await
    }

    /// Prepares the release's statement on the kept connection, meant to run
    /// while the holder issues: the driver keeps a connection's prepared
    /// statements, so the release is then one round trip instead of two. A
    /// failure only leaves the release to prepare it (and the connection to
    /// the pool's recycling).
    pub async fn ready_release(&self) {
        let Some(mut conn) = self.warm.lock().expect("not poisoned").take() else {
            return;
        };
        if self.bounded(conn.prep(RELEASE)).await.is_ok() {
            self.keep_warm(conn);
        }
    }

    /// Runs one UPDATE of a lease row that matches only under the holder's
    /// token; `true` when it matched. The statement changes `renewals`
    /// every time, so the row counts as affected whenever it matched. One
    /// statement under our token: an aborted one changed nothing, so the
    /// token is still ours when it runs again.
    async fn update_under_token(
        &self,
        statement: &str,
        params: impl Into<Params> + Clone + Send,
    ) -> Result<bool> {
        self.retrying(|| async {
            let mut conn = self.conn().await?;
            self.bounded(conn.exec_drop(statement, params.clone()))
                .await?;
            Ok(conn.affected_rows() == 1)
        })
        .await
    }

    /// Every durable lease of a namespace: (worker, holder, fence), held ones only.
    /// Deletes a namespace's durable rows once `others` (the Redis side) has
    /// checked and cleared its part, all under the namespace row's lock, which
    /// every new lease takes first: no lease starts in between. Refuses while a
    /// worker is held or fenced past `now_ms`.
    pub async fn delete_namespace<F, Fut>(
        &self,
        namespace: &str,
        now_ms: i64,
        others: F,
    ) -> Result<()>
    where
        F: Fn(bool) -> Fut,
        Fut: Future<Output = Result<()>>,
    {
        self.ensure_schema().await?;
        // Each attempt checks everything again under the namespace row's
        // lock; an aborted one deleted nothing here. `others` may then run
        // twice: its second run checks again and finds its part gone.
        self.retrying(|| self.delete_namespace_once(namespace, now_ms, &others))
            .await
    }

    async fn delete_namespace_once<F, Fut>(
        &self,
        namespace: &str,
        now_ms: i64,
        others: &F,
    ) -> Result<()>
    where
        F: Fn(bool) -> Fut,
        Fut: Future<Output = Result<()>>,
    {
        let mut conn = self.conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(TxOpts::default()))
            .await?;
        let known: Option<String> = self
            .bounded(tx.exec_first(
                "SELECT name FROM idgen_namespace WHERE name = ? FOR UPDATE",
                (namespace,),
            ))
            .await?;
        let (held, fence): (Option<i64>, Option<i64>) = self
            .bounded(tx.exec_first(
                "SELECT SUM(token <> '' AND fence_ms > ?), MAX(fence_ms) FROM idgen_worker_lease WHERE namespace = ? FOR UPDATE",
                (now_ms, namespace),
            ))
            .await?
            .unwrap_or((None, None));
        let held = held.unwrap_or(0).max(0) as u64;
        refuse_in_use(namespace, crate::lease::in_use_because(held, fence, now_ms))?;
        others(known.is_some()).await?;
        self.bounded(tx.exec_drop(
            "DELETE FROM idgen_worker_lease WHERE namespace = ?",
            (namespace,),
        ))
        .await?;
        self.bounded(tx.exec_drop("DELETE FROM idgen_namespace WHERE name = ?", (namespace,)))
            .await?;
        self.bounded(tx.commit()).await
    }

    /// The durable record of every namespace (or only `only`): its signature,
    /// capacity and every worker's lease row, `held` as of `now_ms`, not yet
    /// compared with Redis.
    pub async fn durable_namespaces(
        &self,
        only: Option<&str>,
        now_ms: i64,
    ) -> Result<Vec<DurableNamespace>> {
        self.lease_schema().await?;
        // Reads only: safe to run again.
        self.retrying(|| async move {
            let mut conn = self.conn().await?;
            // `?` IS NULL selects every namespace; a name, only that one.
            let namespaces: Vec<(String, String, i64)> = self
                .bounded(conn.exec(
                    "SELECT name, signature, capacity FROM idgen_namespace
                     WHERE ? IS NULL OR name = ? ORDER BY name",
                    (only, only),
                ))
                .await?;
            let rows: Vec<(String, i64, String, String, i64)> = self
                .bounded(conn.exec(
                    "SELECT namespace, worker, token, holder, fence_ms FROM idgen_worker_lease
                     WHERE ? IS NULL OR namespace = ? ORDER BY namespace, worker",
                    (only, only),
                ))
                .await?;
            Ok(namespaces
                .into_iter()
                .map(|(name, signature, capacity)| DurableNamespace {
                    workers: rows
                        .iter()
                        .filter(|row| row.0 == name)
                        .filter_map(|(_, worker, token, holder, fence_ms)| {
                            Some(DurableWorker {
                                worker: u64::try_from(*worker).ok()?,
                                holder: holder.clone(),
                                fence_ms: *fence_ms,
                                held: !token.is_empty() && *fence_ms > now_ms,
                                redis: None,
                            })
                        })
                        .collect(),
                    name,
                    signature,
                    capacity: u64::try_from(capacity).unwrap_or(0),
                    redis: None,
                })
                .collect())
        })
        .await
    }

    /// Who holds `worker` under `token`, as recorded when it was taken.
    pub async fn lease_holder(
        &self,
        namespace: &str,
        worker: u64,
        token: &str,
    ) -> Result<Option<String>> {
        self.lease_schema().await?;
        // A read: safe to run again.
        self.retrying(|| async move {
            let mut conn = self.conn().await?;
            self.bounded(conn.exec_first(
                "SELECT holder FROM idgen_worker_lease WHERE namespace = ? AND worker = ? AND token = ?",
                (namespace, worker, token),
            ))
            .await
        })
        .await
    }
}

impl MysqlLedger {
    /// Inserts a `WORKER_NODE` row; its ID, above `above` (the highest the
    /// witness saw handed out), is a worker ID nobody ever had and nobody
    /// will get again.
    pub async fn insert_worker_node(&self, host: &str, port: &str, above: u64) -> Result<u64> {
        // An aborted insert took no ID. One that committed unseen would only
        // leave a worker ID nobody holds: a gap, never a second holder.
        self.retrying(|| self.insert_worker_node_once(host, port, above))
            .await
    }

    async fn insert_worker_node_once(&self, host: &str, port: &str, above: u64) -> Result<u64> {
        let mut conn = self.conn().await?;
        self.bounded(conn.query_drop(WORKER_NODE_DDL)).await?;
        let host: String = host.chars().take(64).collect();
        let port: String = port.chars().take(64).collect();
        // TYPE 1 is uid-generator's ACTUAL (a host, not a container).
        self.bounded(conn.exec_drop(
            "INSERT INTO WORKER_NODE (HOST_NAME, PORT, TYPE, LAUNCH_DATE) VALUES (?, ?, 1, CURDATE())",
            (&host, &port),
        ))
        .await?;
        let id = conn
            .last_insert_id()
            .ok_or_else(|| Error::Internal("WORKER_NODE insert returned no ID".into()))?;
        if id > above {
            return Ok(id);
        }
        // MySQL went back in time (a restored backup, a lagging replica
        // promoted): its counter hands out IDs it handed out before, which
        // processes may still run under. The row just made is a gap; the
        // next is put above the highest ID the witness saw, which moves the
        // counter past it too.
        self.bounded(conn.exec_drop(
            "INSERT INTO WORKER_NODE (ID, HOST_NAME, PORT, TYPE, LAUNCH_DATE)
             SELECT GREATEST(COALESCE(MAX(ID), 0), ?) + 1, ?, ?, 1, CURDATE() FROM WORKER_NODE",
            (above, host, port),
        ))
        .await?;
        conn.last_insert_id()
            .filter(|&id| id > above)
            .ok_or_else(|| {
                Error::Internal("WORKER_NODE insert returned no ID above the witness".into())
            })
    }
}
