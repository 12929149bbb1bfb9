//! MySQL/MariaDB as the [`Ledger`]: the Java service's `id_alloc`, unchanged, plus
//! idgen's own tables (per-app step bounds, refill history, routes).
//!
//! Transactions run at READ COMMITTED so that locking the `id_alloc` row takes
//! no gap locks: concurrent refills of different shards never deadlock.
//!
//! Every ledger call runs through `MysqlLedger::retrying`: an attempt the
//! server aborted or refused before committing anything (a Galera
//! certification conflict or a deadlock, a lock wait timeout, a Galera node not
//! ready) is run again after a backoff, within the `--timeout` budget. Each
//! call site says why running it again is safe.

use super::sql_rows::{
    APP_EXTRA_SQL, HistoryRow, LockedRow, REFILL_ROWS_SQL, StoredAppExtra, StoredAppShard,
    apply_request, dispenser_from, group_apps, join_history, route_columns, route_from,
    shard_rows_sql,
};
use super::{
    AppChange, AppRecord, AppSpec, ForeignRow, InitOutcome, InitReport, Ledger, RefillMark, Route,
    RouteMoves, SealedApp, SegmentRequest, ShardTake, Slot,
};
mod lease;
mod params;
mod schema;

pub use lease::WorkerClaim;

pub use schema::SCHEMA_VERSION;
use schema::{ID_ALLOC_DDL, IDGEN_DDL};

use crate::config::{DEFAULT_NODE, TlsFiles};
use crate::error::{Error, Result};
use crate::redact::SecretUrl;
use crate::retry::Backoff;
use crate::shard::{DispenserKind, SHARDS};
use async_trait::async_trait;
use mysql_async::prelude::Queryable;
use mysql_async::{
    ClientIdentity, Conn, IsolationLevel, Opts, OptsBuilder, Pool, PoolConstraints, PoolOpts,
    TxOpts,
};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The MySQL/MariaDB ledger. Connects lazily: a warm `next` never opens it.
pub struct MysqlLedger {
    url: SecretUrl,
    /// The connection is TLS (`require_ssl=true`).
    tls: bool,
    pool: Pool,
    timeout: Duration,
    ready: AtomicBool,
    /// The lease tables were seen (the rest of the schema may not have been).
    leases_ready: AtomicBool,
}

impl MysqlLedger {
    /// Prepares a pool; no connection is made until the first query. With
    /// `require_ssl=true` (or a JDBC alias, see `params`) the connection is
    /// TLS, verified against the CA in `tls` (else the built-in Mozilla roots).
    pub fn open(url: &SecretUrl, tls: &TlsFiles, timeout: Duration) -> Result<Self> {
        let opts = Opts::from_url(&params::driver_url(url)?).map_err(|e| {
            Error::invalid(
                "MySQL URL",
                format!("{url}: {}", url.scrub(&e.to_string())),
                "write it as mysql://user[:password]@host[:port]/database[?require_ssl=true]",
            )
        })?;
        if opts.db_name().is_none_or(str::is_empty) {
            return Err(Error::invalid(
                "MySQL URL",
                format!("{url} names no database"),
                "add the database to the URL: mysql://user@host:3306/idgen",
            ));
        }
        // Idle connections are kept a while, so one command reuses one
        // connection instead of handshaking again for every query.
        let pool_opts = PoolOpts::default()
            .with_constraints(PoolConstraints::new(0, 32).expect("0 <= 32"))
            .with_inactive_connection_ttl(Duration::from_secs(30))
            .with_reset_connection(false);
        // Unless the URL asks for it, stay on the TCP connection made: moving
        // to the server's socket is a second handshake per connection.
        let prefer_socket = opts.prefer_socket() && url.expose().contains("prefer_socket");
        let ssl_opts = match opts.ssl_opts() {
            Some(ssl) => {
                super::tls::install_crypto_provider();
                let mut ssl = ssl.clone();
                // Read now so that a bad file is reported before connecting; the
                // driver reads the paths again per connection (renewals apply).
                super::tls::read(super::tls::MYSQL, tls)?;
                if let Some(ca) = &tls.ca {
                    ssl = ssl
                        .with_root_certs(vec![ca.clone().into()])
                        .with_disable_built_in_roots(true);
                }
                if let (Some(cert), Some(key)) = (&tls.cert, &tls.key) {
                    ssl = ssl.with_client_identity(Some(ClientIdentity::new(
                        cert.clone().into(),
                        key.clone().into(),
                    )));
                }
                Some(ssl)
            }
            None => {
                super::tls::refuse_unused(super::tls::MYSQL, tls)?;
                None
            }
        };
        let tls = ssl_opts.is_some();
        let opts = OptsBuilder::from_opts(opts)
            .ssl_opts(ssl_opts)
            .pool_opts(pool_opts)
            .prefer_socket(prefer_socket)
            .wait_timeout(Some(28_800));
        Ok(MysqlLedger {
            url: url.clone(),
            tls,
            pool: Pool::new(opts),
            timeout,
            ready: AtomicBool::new(false),
            leases_ready: AtomicBool::new(false),
        })
    }

    /// The redacted URL, naming this ledger in records other stores keep.
    pub fn recorded_name(&self) -> String {
        self.url.to_string()
    }

    async fn conn(&self) -> Result<Conn> {
        self.bounded(self.pool.get_conn()).await
    }

    /// Runs `attempt` (one transaction, or reads) again after every failure
    /// the server reports as having committed nothing, pausing by
    /// [`Backoff::ledger_conflict`], until the `--timeout` budget is spent.
    ///
    /// Only such failures are retried: a connection lost or a timeout during
    /// `COMMIT` leaves the outcome unknown, and is reported as it is. `attempt`
    /// must not itself call `retrying`, or the budgets would multiply.
    async fn retrying<T, Fut>(&self, attempt: impl FnMut() -> Fut) -> Result<T>
    where
        Fut: Future<Output = Result<T>>,
    {
        Backoff::ledger_conflict(Instant::now() + self.timeout)
            .retry(attempt, committed_nothing)
            .await
    }

    /// Runs one exchange with the time bound and error mapping.
    async fn bounded<T>(
        &self,
        exchange: impl Future<Output = mysql_async::Result<T>>,
    ) -> Result<T> {
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(self.error(&e)),
            Err(_) => Err(Error::Timeout {
                backend: "MySQL",
                url: self.url.to_string(),
                after: self.timeout,
            }),
        }
    }

    fn error(&self, e: &mysql_async::Error) -> Error {
        // Access denied to a user, a database, a table, a column, an operation
        // needing a privilege (SUPER etc.) or a routine; a login without password.
        const ACCESS_DENIED: &[u16] = &[1044, 1045, 1142, 1143, 1227, 1370, 1698];
        // The server refuses plain connections (MySQL 3159, MariaDB 4151:
        // require_secure_transport).
        const TLS_REQUIRED: &[u16] = &[3159, 4151];
        if let Some(tls) = super::tls::failure(super::tls::MYSQL, &self.url, e) {
            return tls;
        }
        let detail = self.url.describe_error(e);
        let tls_error = |hint: &str| Error::Tls {
            backend: "MySQL",
            url: self.url.to_string(),
            detail: detail.clone(),
            hint: hint.into(),
        };
        match e {
            mysql_async::Error::Driver(mysql_async::DriverError::NoClientSslFlagFromServer) => {
                tls_error(
                    "the server does not offer TLS: enable it on the server, or drop require_ssl from the URL",
                )
            }
            mysql_async::Error::Server(server) if TLS_REQUIRED.contains(&server.code) => {
                tls_error("the server accepts only TLS: add require_ssl=true to the MySQL URL")
            }
            // MariaDB refuses a plain login to a server that requires secure
            // transport as a wrong password.
            mysql_async::Error::Server(server) if server.code == 1045 && !self.tls => {
                Error::AccessDenied {
                    backend: "MySQL",
                    url: self.url.to_string(),
                    detail: format!(
                        "{detail} (a server that accepts only TLS refuses this way too: then add require_ssl=true)"
                    ),
                }
            }
            mysql_async::Error::Server(server) if ACCESS_DENIED.contains(&server.code) => {
                Error::AccessDenied {
                    backend: "MySQL",
                    url: self.url.to_string(),
                    detail,
                }
            }
            // ER_LOCK_DEADLOCK (the transaction rolled back: an InnoDB
            // deadlock victim, or on Galera a certification conflict, reported
            // by COMMIT itself or by any statement of a transaction a
            // replicated one aborted), ER_LOCK_WAIT_TIMEOUT (the statement
            // rolled back; the caller's transaction is dropped, so rolled back
            // too) and ER_TRANSACTION_ROLLBACK_DURING_COMMIT (MySQL Group
            // Replication's certification conflict: COMMIT rolled it back):
            // nothing committed.
            mysql_async::Error::Server(server) if matches!(server.code, 1213 | 1205 | 3101) => {
                Error::TransactionAborted {
                    backend: "MySQL",
                    url: self.url.to_string(),
                    detail,
                }
            }
            // ER_UNKNOWN_COM_ERROR, which Galera sends as "WSREP has not yet
            // prepared node for application use": the node is outside the
            // primary component (joining, or cut off) and refused the
            // statement before running it.
            mysql_async::Error::Server(server) if server.code == 1047 => Error::NodeNotReady {
                backend: "MySQL",
                url: self.url.to_string(),
                detail,
            },
            mysql_async::Error::Server(_) => Error::Backend {
                backend: "MySQL",
                url: self.url.to_string(),
                detail,
            },
            _ => Error::Unreachable {
                backend: "MySQL",
                url: self.url.to_string(),
                detail,
            },
        }
    }

    fn tx_opts() -> TxOpts {
        let mut opts = TxOpts::default();
        opts.with_isolation_level(IsolationLevel::ReadCommitted);
        opts
    }

    /// Refuses a server older than idgen supports (MySQL 5.7, MariaDB 10.3).
    async fn check_version(&self, conn: &mut Conn) -> Result<()> {
        let version: Option<String> = self.bounded(conn.query_first("SELECT VERSION()")).await?;
        let version = version.unwrap_or_default();
        let (minimum, name) = if version.contains("MariaDB") {
            ((10, 3), "MariaDB")
        } else {
            ((5, 7), "MySQL")
        };
        if super::version_at_least(&version, minimum) {
            return Ok(());
        }
        Err(Error::ServerTooOld {
            backend: name,
            url: self.url.to_string(),
            version,
            minimum: format!("{}.{}", minimum.0, minimum.1),
        })
    }

    /// Checks once per process that the tables exist, creating idgen's own next
    /// to an `id_alloc` made by the Java service. Returns whether `id_alloc` exists.
    async fn ready(&self) -> Result<bool> {
        if self.ready.load(Ordering::Acquire) {
            return Ok(true);
        }
        // Reads only: safe to run again.
        let present: Vec<String> = self
            .retrying(|| async move {
                let mut conn = self.conn().await?;
                self.check_version(&mut conn).await?;
                self.bounded(conn.query(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()
                     AND table_name IN ('id_alloc', 'idgen_schema', 'idgen_app', 'idgen_refill', 'idgen_route')",
                ))
                .await
            })
            .await?;
        if !present.iter().any(|t| t == "id_alloc") {
            return Ok(false);
        }
        // Creating the rest needs the CREATE privilege; ensure_schema says so if it fails.
        self.ensure_schema().await?;
        Ok(true)
    }

    /// Takes the request's segments in one transaction: locks the rows in
    /// shard order, lets [`apply_request`] size them, then one `UPDATE` and one
    /// `INSERT` for all of them.
    async fn take_segments_locked(&self, request: &SegmentRequest) -> Result<Vec<ShardTake>> {
        let app = request.app;
        let mut shards: Vec<u8> = request.shards.iter().map(|&(s, _)| s).collect();
        shards.sort_unstable();
        let mut conn = self.conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(Self::tx_opts()))
            .await?;
        let mut params: Vec<mysql_async::Value> = vec![app.into()];
        params.extend(shards.iter().map(|&s| mysql_async::Value::from(s)));
        let rows: Vec<LockedRow> = self
            .bounded(tx.exec(shard_rows_sql(shards.len(), true), params))
            .await?;
        if rows.is_empty() {
            let count: Option<i64> = self
                .bounded(tx.exec_first("SELECT COUNT(*) FROM id_alloc WHERE app_id = ?", (app,)))
                .await?;
            if count.unwrap_or(0) == 0 {
                return Err(Error::UnknownApp { app });
            }
        }
        let history: Vec<HistoryRow> = self.bounded(tx.exec(REFILL_ROWS_SQL, (app,))).await?;
        type Extra = (
            Option<i64>,
            Option<i64>,
            Option<i64>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
        );
        let extra: Option<Extra> = self
            .bounded(tx.exec_first(APP_EXTRA_SQL, (app, app, app)))
            .await?;
        let extra = extra.map_or_else(StoredAppExtra::default, |e| StoredAppExtra {
            min_step: e.0,
            max_step: e.1,
            target_secs: e.2,
            node: e.3,
            target_node: e.4,
            phase: e.5,
            dispenser: e.6,
        });
        let rows = join_history(rows, history);
        let (takes, writes) = apply_request(request, rows, &extra, DEFAULT_NODE)?;
        if writes.is_empty() {
            self.bounded(tx.rollback()).await?;
            return Ok(takes);
        }
        let cases = vec!["WHEN ? THEN ?"; writes.len()].join(" ");
        let marks = vec!["?"; writes.len()].join(", ");
        let mut params: Vec<mysql_async::Value> = Vec::with_capacity(writes.len() * 3 + 1);
        for w in &writes {
            params.extend([w.shard.into(), w.max_id.into()]);
        }
        params.push(app.into());
        params.extend(writes.iter().map(|w| mysql_async::Value::from(w.shard)));
        self.bounded(tx.exec_drop(
            format!(
                "UPDATE id_alloc SET max_id = CASE shard_id {cases} END WHERE app_id = ? AND shard_id IN ({marks})"
            ),
            params,
        ))
        .await?;
        let marked: Vec<_> = writes
            .iter()
            .filter_map(|w| w.mark.map(|m| (w.shard, m)))
            .collect();
        if !marked.is_empty() {
            let values = vec!["(?, ?, ?, ?, ?)"; marked.len()].join(", ");
            let mut params: Vec<mysql_async::Value> = Vec::with_capacity(marked.len() * 5);
            for (shard, mark) in &marked {
                params.extend([
                    app.into(),
                    (*shard).into(),
                    mark.loaded_at_ms.into(),
                    mark.loaded.into(),
                    mark.stock_after.into(),
                ]);
            }
            self.bounded(tx.exec_drop(
                format!(
                    "INSERT INTO idgen_refill (app_id, shard_id, loaded_at_ms, loaded, stock_after) VALUES {values}
                     ON DUPLICATE KEY UPDATE loaded_at_ms = VALUES(loaded_at_ms), loaded = VALUES(loaded), stock_after = VALUES(stock_after)"
                ),
                params,
            ))
            .await?;
        }
        crate::failpoint::hit("mysql.take_segments.before_commit")?;
        self.bounded(tx.commit()).await?;
        Ok(takes)
    }

    async fn records(&self, app: Option<u8>) -> Result<Vec<AppRecord>> {
        let mut conn = self.conn().await?;
        type Row = (u8, String, Option<String>, u8, i64, i64, i64, Option<i64>);
        let sql = "SELECT a.app_id, a.app_name, a.description, a.shard_id, a.max_id, a.step, a.max_limit_id, h.loaded
                   FROM id_alloc a LEFT JOIN idgen_refill h ON h.app_id = a.app_id AND h.shard_id = a.shard_id";
        let rows: Vec<Row> = match app {
            Some(app) => {
                self.bounded(conn.exec(format!("{sql} WHERE a.app_id = ? ORDER BY a.shard_id"), (app,)))
                    .await?
            }
            None => {
                self.bounded(conn.query(format!(
                    "{sql} WHERE a.app_id BETWEEN 0 AND 255 AND a.shard_id BETWEEN 0 AND 63 ORDER BY a.app_id, a.shard_id"
                )))
                    .await?
            }
        };
        let policies: Vec<(u8, i64, i64, i64)> = self
            .bounded(conn.query("SELECT app_id, min_step, max_step, target_secs FROM idgen_app"))
            .await?;
        let policies: BTreeMap<u8, (i64, i64, i64)> = policies
            .into_iter()
            .map(|(app, min, max, target)| (app, (min, max, target)))
            .collect();
        let dispensers: Vec<(u8, String)> = self
            .bounded(
                conn.query(
                    "SELECT app_id, kind FROM idgen_dispenser WHERE app_id BETWEEN 0 AND 255",
                ),
            )
            .await?;
        let dispensers: BTreeMap<u8, String> = dispensers.into_iter().collect();
        let rows = rows.into_iter().map(
            |(app, name, description, shard, max_id, step, max_limit_id, loaded)| StoredAppShard {
                app,
                name,
                description,
                shard,
                max_id,
                step,
                max_limit_id,
                loaded,
            },
        );
        group_apps(rows, &policies, &dispensers)
    }
}

impl MysqlLedger {
    /// Takes over an app sealed in another store: creates it (or finds it
    /// empty) and starts every shard above the sealed `max_id`, in one
    /// transaction. Idempotent for the same source. Refuses an app that already
    /// issued IDs here: two ledgers may have handed out the same indexes.
    /// Returns `false` when this source was adopted before.
    pub async fn adopt(&self, sealed: &SealedApp, source: &str) -> Result<bool> {
        self.ensure_schema().await?;
        // Each attempt locks the marker row first and checks the shards
        // afresh; an aborted one committed nothing, so the next sees the app
        // as the first did. (One that committed unseen would make the next
        // answer "adopted before": no shard is written twice.)
        self.retrying(|| self.adopt_once(sealed, source)).await
    }

    async fn adopt_once(&self, sealed: &SealedApp, source: &str) -> Result<bool> {
        let app = sealed.spec.app;
        let mut conn = self.conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(Self::tx_opts()))
            .await?;
        // Lock the marker row (or its absence) before reading the shards.
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_adopted (app_id, source, sealed_at_ms) VALUES (?, '', 0)
             ON DUPLICATE KEY UPDATE app_id = app_id",
            (app,),
        ))
        .await?;
        let marker: Option<(String, i64)> = self
            .bounded(tx.exec_first(
                "SELECT source, sealed_at_ms FROM idgen_adopted WHERE app_id = ? FOR UPDATE",
                (app,),
            ))
            .await?;
        match marker.as_ref().map(|(done, at)| (done.as_str(), *at)) {
            // The same store file sealed at the same moment: a rerun. Another
            // store at the same path (a second laptop's default) was sealed
            // at another moment, and its IDs may overlap the first one's.
            Some((done, at)) if done == source && at == sealed.sealed_at_ms => {
                self.bounded(tx.rollback()).await?;
                return Ok(false);
            }
            Some(("", _)) | None => {}
            Some((other, _)) => {
                return Err(Error::MigrationConflict {
                    app,
                    target: source.to_string(),
                    detail: if other == source {
                        format!(
                            "the app was already taken over from another store file at the same path ({other}), sealed at another time"
                        )
                    } else {
                        format!("the app was already taken over from {other}")
                    },
                });
            }
        }
        let existing: Vec<(String, i64)> = self
            .bounded(tx.exec(
                "SELECT app_name, max_id FROM id_alloc WHERE app_id = ? FOR UPDATE",
                (app,),
            ))
            .await?;
        if let Some((name, _)) = existing.iter().find(|(name, _)| *name != sealed.spec.name) {
            return Err(Error::AppNameConflict {
                app,
                existing: name.clone(),
                requested: sealed.spec.name.clone(),
            });
        }
        if existing.iter().any(|(_, max_id)| *max_id > 0) {
            return Err(Error::MigrationConflict {
                app,
                target: source.to_string(),
                detail: "the destination already issued IDs of this app; both stores may hold the same ones, so move it under an unused app ID".into(),
            });
        }
        for shard in &sealed.shards {
            self.bounded(tx.exec_drop(
                "INSERT INTO id_alloc (app_id, app_name, max_id, shard_id, step, description, max_limit_id)
                 VALUES (?, ?, ?, ?, ?, ?, ?)
                 ON DUPLICATE KEY UPDATE max_id = GREATEST(max_id, VALUES(max_id))",
                (
                    app,
                    &sealed.spec.name,
                    shard.max_id,
                    shard.shard,
                    sealed.spec.step,
                    sealed.spec.description.as_deref(),
                    sealed.spec.max_limit_id,
                ),
            ))
            .await?;
        }
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_app (app_id, min_step, max_step, target_secs) VALUES (?, ?, ?, ?)
             ON DUPLICATE KEY UPDATE app_id = app_id",
            (
                app,
                sealed.spec.policy.min_step,
                sealed.spec.policy.max_step,
                sealed.spec.policy.target.as_secs(),
            ),
        ))
        .await?;
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_dispenser (app_id, kind) VALUES (?, ?) ON DUPLICATE KEY UPDATE app_id = app_id",
            (app, sealed.spec.dispenser.as_str()),
        ))
        .await?;
        self.bounded(tx.exec_drop(
            "UPDATE idgen_adopted SET source = ?, sealed_at_ms = ? WHERE app_id = ?",
            (source, sealed.sealed_at_ms, app),
        ))
        .await?;
        crate::failpoint::hit("adopt.before_commit")?;
        self.bounded(tx.commit()).await?;
        Ok(true)
    }
}

#[async_trait]
impl Ledger for MysqlLedger {
    fn describe(&self) -> String {
        format!("mysql {}", self.url)
    }

    async fn server_version(&self) -> Result<String> {
        let mut conn = self.conn().await?;
        let version: Option<String> = self.bounded(conn.query_first("SELECT VERSION()")).await?;
        Ok(version.unwrap_or_else(|| "unknown".into()))
    }

    async fn ensure_schema(&self) -> Result<()> {
        // `CREATE TABLE IF NOT EXISTS` and the version row are idempotent, so
        // the whole is safe to run again (on Galera, DDL runs in total order
        // and aborts conflicting local transactions).
        self.retrying(|| self.ensure_schema_once()).await?;
        self.ready.store(true, Ordering::Release);
        Ok(())
    }

    fn moves(&self) -> Option<&dyn RouteMoves> {
        Some(self)
    }
}

impl MysqlLedger {
    async fn ensure_schema_once(&self) -> Result<()> {
        let mut conn = self.conn().await?;
        self.bounded(conn.query_drop(ID_ALLOC_DDL)).await?;
        for ddl in IDGEN_DDL {
            self.bounded(conn.query_drop(*ddl)).await?;
        }
        let version: Option<u32> = self
            .bounded(conn.query_first("SELECT version FROM idgen_schema WHERE id = 1"))
            .await?;
        match version {
            None => {
                self.bounded(conn.exec_drop(
                    "INSERT IGNORE INTO idgen_schema (id, version) VALUES (1, ?)",
                    (SCHEMA_VERSION,),
                ))
                .await?
            }
            Some(v) if v > SCHEMA_VERSION => {
                return Err(Error::Corrupt {
                    detail: format!(
                        "the schema is at version {v}, newer than this idgen understands ({SCHEMA_VERSION}); upgrade idgen"
                    ),
                });
            }
            // Every table above exists now: record that this version set them up.
            Some(v) if v < SCHEMA_VERSION => {
                self.bounded(conn.exec_drop(
                    "UPDATE idgen_schema SET version = ? WHERE id = 1 AND version < ?",
                    (SCHEMA_VERSION, SCHEMA_VERSION),
                ))
                .await?
            }
            Some(_) => {}
        }
        Ok(())
    }
}

impl MysqlLedger {
    /// One attempt of [`super::AppCatalog::init_app`]'s transaction: how many
    /// shard rows it added.
    async fn init_app_once(&self, spec: &AppSpec) -> Result<u64> {
        let mut conn = self.conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(Self::tx_opts()))
            .await?;
        let mut added = 0u64;
        for shard in 0..SHARDS {
            self.bounded(tx.exec_drop(
                "INSERT INTO id_alloc (app_id, app_name, max_id, shard_id, step, description, max_limit_id)
                 VALUES (?, ?, 0, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE app_id = app_id",
                (
                    spec.app,
                    &spec.name,
                    shard,
                    spec.step,
                    spec.description.as_deref(),
                    spec.max_limit_id,
                ),
            ))
            .await?;
            added += tx.affected_rows();
        }
        let names: Vec<String> = self
            .bounded(tx.exec(
                "SELECT DISTINCT app_name FROM id_alloc WHERE app_id = ?",
                (spec.app,),
            ))
            .await?;
        if let Some(existing) = names.into_iter().find(|n| *n != spec.name) {
            self.bounded(tx.rollback()).await?;
            return Err(Error::AppNameConflict {
                app: spec.app,
                existing,
                requested: spec.name.clone(),
            });
        }
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_app (app_id, min_step, max_step, target_secs) VALUES (?, ?, ?, ?)
             ON DUPLICATE KEY UPDATE app_id = app_id",
            (
                spec.app,
                spec.policy.min_step,
                spec.policy.max_step,
                spec.policy.target.as_secs(),
            ),
        ))
        .await?;
        // An app that already exists keeps its recorded dispenser.
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_dispenser (app_id, kind) VALUES (?, ?) ON DUPLICATE KEY UPDATE app_id = app_id",
            (spec.app, spec.dispenser.as_str()),
        ))
        .await?;
        crate::failpoint::hit("init_app.before_commit")?;
        self.bounded(tx.commit()).await?;
        Ok(added)
    }
}

#[async_trait]
impl super::AppCatalog for MysqlLedger {
    async fn init_app(&self, spec: &AppSpec) -> Result<InitReport> {
        self.ensure_schema().await?;
        // Every insert leaves an existing row as it is, so an attempt run
        // again after an abort (which committed nothing) does what the first
        // would have; no `max_id` is written but the 0 of a new row.
        let added = self.retrying(|| self.init_app_once(spec)).await?;
        let app = self
            .app(spec.app)
            .await?
            .ok_or(Error::UnknownApp { app: spec.app })?;
        let outcome = InitOutcome::of_added(added);
        Ok(InitReport {
            outcome,
            shards_added: added,
            app,
        })
    }
    async fn app(&self, app: u8) -> Result<Option<AppRecord>> {
        if !self.ready().await? {
            return Ok(None);
        }
        // Reads only, here and below: safe to run again.
        Ok(self.retrying(|| self.records(Some(app))).await?.pop())
    }
    async fn apps(&self) -> Result<Vec<AppRecord>> {
        if !self.ready().await? {
            return Ok(Vec::new());
        }
        self.retrying(|| self.records(None)).await
    }
    async fn foreign_rows(&self) -> Result<Vec<ForeignRow>> {
        if !self.ready().await? {
            return Ok(Vec::new());
        }
        let rows: Vec<(i64, i64, String)> = self
            .retrying(|| async move {
                let mut conn = self.conn().await?;
                self.bounded(conn.query(
                    "SELECT app_id, shard_id, app_name FROM id_alloc WHERE app_id NOT BETWEEN 0 AND 255 OR shard_id NOT BETWEEN 0 AND 63 ORDER BY app_id, shard_id",
                )).await
            })
            .await?;
        Ok(rows
            .into_iter()
            .map(|(app, shard, name)| ForeignRow { app, shard, name })
            .collect())
    }
    async fn dispenser(&self, app: u8) -> Result<DispenserKind> {
        if !self.ready().await? {
            return Ok(DispenserKind::Queue);
        }
        let kind: Option<String> = self
            .retrying(|| async move {
                let mut conn = self.conn().await?;
                self.bounded(
                    conn.exec_first("SELECT kind FROM idgen_dispenser WHERE app_id = ?", (app,)),
                )
                .await
            })
            .await?;
        dispenser_from(kind.as_deref())
    }
    async fn update_app(&self, app: u8, change: &AppChange) -> Result<AppRecord> {
        self.ensure_schema().await?;
        // Each attempt applies the change to the record it read under the
        // rows' locks and writes absolute values: run again after an abort
        // (which committed nothing), it does what the first would have.
        self.retrying(|| self.update_app_once(app, change)).await?;
        self.retrying(|| self.records(Some(app)))
            .await?
            .pop()
            .ok_or(Error::UnknownApp { app })
    }
}

impl MysqlLedger {
    /// One attempt of [`super::AppCatalog::update_app`]'s transaction.
    async fn update_app_once(&self, app: u8, change: &AppChange) -> Result<()> {
        let mut conn = self.conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(mysql_async::TxOpts::default()))
            .await?;
        // The row locks a refill takes: no segment is taken while the change is checked and made.
        let locked: Vec<u8> = self
            .bounded(tx.exec(
                "SELECT shard_id FROM id_alloc WHERE app_id = ? AND shard_id BETWEEN 0 AND 63 FOR UPDATE",
                (app,),
            ))
            .await?;
        if locked.is_empty() {
            return Err(Error::UnknownApp { app });
        }
        let record = self
            .records(Some(app))
            .await?
            .pop()
            .ok_or(Error::UnknownApp { app })?;
        let spec = change.apply_to(&record)?;
        self.bounded(tx.exec_drop(
            "UPDATE id_alloc SET app_name = ?, step = ?, max_limit_id = ? WHERE app_id = ?",
            (&spec.name, spec.step, spec.max_limit_id, app),
        ))
        .await?;
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_app (app_id, min_step, max_step, target_secs) VALUES (?, ?, ?, ?)
             ON DUPLICATE KEY UPDATE min_step = VALUES(min_step), max_step = VALUES(max_step)",
            (
                app,
                spec.policy.min_step,
                spec.policy.max_step,
                spec.policy.target.as_secs(),
            ),
        ))
        .await?;
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_dispenser (app_id, kind) VALUES (?, ?) ON DUPLICATE KEY UPDATE kind = VALUES(kind)",
            (app, spec.dispenser.as_str()),
        ))
        .await?;
        self.bounded(tx.commit()).await?;
        Ok(())
    }
}

#[async_trait]
impl super::SegmentSource for MysqlLedger {
    async fn take_segments(&self, request: &SegmentRequest) -> Result<Vec<ShardTake>> {
        if !self.ready().await? {
            return Err(Error::UnknownApp { app: request.app });
        }
        if request.shards.is_empty() {
            return Ok(Vec::new());
        }
        // Concurrent batches lock the same rows, on one server or on several
        // Galera nodes. An aborted attempt committed nothing, so running it
        // again takes the segments it would have taken. Even an attempt that
        // had committed unseen would cost only a gap: the next one locks the
        // rows again and takes above whatever `max_id` they hold, and only
        // the segments of the attempt that returned are ever dispensed.
        self.retrying(|| self.take_segments_locked(request)).await
    }
    async fn refill_marks(&self) -> Result<Vec<(Slot, RefillMark)>> {
        if !self.ready().await? {
            return Ok(Vec::new());
        }
        let rows: Vec<(u8, u8, i64, u64, u64)> = self
            .retrying(|| async move {
                let mut conn = self.conn().await?;
                self.bounded(conn.query("SELECT app_id, shard_id, loaded_at_ms, loaded, stock_after FROM idgen_refill WHERE app_id BETWEEN 0 AND 255 AND shard_id BETWEEN 0 AND 63")).await
            })
            .await?;
        Ok(rows
            .into_iter()
            .map(|(app, shard, loaded_at_ms, loaded, stock_after)| {
                let mark = RefillMark {
                    loaded_at_ms,
                    loaded,
                    stock_after,
                };
                (Slot { app, shard }, mark)
            })
            .collect())
    }
    async fn routes(&self) -> Result<BTreeMap<u8, Route>> {
        if !self.ready().await? {
            return Ok(BTreeMap::new());
        }
        let rows: Vec<(u8, String, Option<String>, Option<String>)> = self
            .retrying(|| async move {
                let mut conn = self.conn().await?;
                self.bounded(conn.query("SELECT app_id, node, target_node, phase FROM idgen_route"))
                    .await
            })
            .await?;
        Ok(rows
            .into_iter()
            .map(|(app, node, target, phase)| {
                (app, route_from(DEFAULT_NODE, Some(node), target, phase))
            })
            .collect())
    }
}

#[async_trait]
impl RouteMoves for MysqlLedger {
    async fn begin_move(&self, app: u8, to: &str) -> Result<Route> {
        self.change_route(app, |route| route.begin(app, to)).await
    }

    async fn switch_route(&self, app: u8, to: &str) -> Result<Route> {
        self.change_route(app, |route| route.switch(app, to)).await
    }

    async fn finish_move(&self, app: u8) -> Result<Route> {
        self.change_route(app, |route| Ok(route.finish())).await
    }
}

impl MysqlLedger {
    /// Changes an app's route in one transaction, under the route row's lock.
    async fn change_route(
        &self,
        app: u8,
        change: impl Fn(&Route) -> Result<Route> + Send + Sync,
    ) -> Result<Route> {
        self.ensure_schema().await?;
        // Each attempt applies `change` to the route it read under the row's
        // lock: run again after an abort (which committed nothing), it moves
        // from the route as it is, as the first would have.
        self.retrying(|| self.change_route_once(app, &change)).await
    }

    async fn change_route_once(
        &self,
        app: u8,
        change: &(dyn Fn(&Route) -> Result<Route> + Send + Sync),
    ) -> Result<Route> {
        let mut conn = self.conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(Self::tx_opts()))
            .await?;
        let exists: Option<i64> = self
            .bounded(tx.exec_first("SELECT COUNT(*) FROM id_alloc WHERE app_id = ?", (app,)))
            .await?;
        if exists.unwrap_or(0) == 0 {
            return Err(Error::UnknownApp { app });
        }
        // Make sure a row exists to lock, so two moves serialise.
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_route (app_id, node) VALUES (?, ?) ON DUPLICATE KEY UPDATE app_id = app_id",
            (app, DEFAULT_NODE),
        ))
        .await?;
        let row: Option<(String, Option<String>, Option<String>)> = self
            .bounded(tx.exec_first(
                "SELECT node, target_node, phase FROM idgen_route WHERE app_id = ? FOR UPDATE",
                (app,),
            ))
            .await?;
        let (node, target, phase) = row.ok_or(Error::UnknownApp { app })?;
        let current = route_from(DEFAULT_NODE, Some(node), target, phase);
        let next = change(&current)?;
        let (target, phase) = route_columns(&next);
        crate::failpoint::hit("route.before_commit")?;
        self.bounded(tx.exec_drop(
            "UPDATE idgen_route SET node = ?, target_node = ?, phase = ? WHERE app_id = ?",
            (&next.node, target, phase, app),
        ))
        .await?;
        self.bounded(tx.commit()).await?;
        Ok(next)
    }
}

/// A failure after which the server holds nothing of the attempt: it rolled
/// the transaction back (1213, 1205, 3101) or refused the statement before
/// running it (1047). Running the attempt again is as safe as running it first.
fn committed_nothing(error: &Error) -> bool {
    matches!(
        error,
        Error::TransactionAborted { .. } | Error::NodeNotReady { .. }
    )
}
