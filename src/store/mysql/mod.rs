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

use super::{Ledger, RouteMoves};
mod adopt;
mod catalog;
mod error;
mod lease;
mod params;
mod schema;
mod segments;

pub use lease::WorkerClaim;

use error::committed_nothing;
pub use schema::SCHEMA_VERSION;
use schema::{ID_ALLOC_DDL, IDGEN_DDL};

use crate::config::TlsFiles;
use crate::error::{Error, Result};
use crate::redact::SecretUrl;
use crate::retry::Backoff;
use async_trait::async_trait;
use mysql_async::prelude::Queryable;
use mysql_async::{
    ClientIdentity, Conn, IsolationLevel, Opts, OptsBuilder, Pool, PoolConstraints, PoolOpts,
    TxOpts,
};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A statement found a table of idgen's missing (the server's error, as an
/// operator would read it): the schema is made, and the statement runs again.
struct MissingTable(Error);

impl From<MissingTable> for Error {
    fn from(missing: MissingTable) -> Self {
        missing.0
    }
}

/// Compiles, on a thread of its own, the patterns the driver reads a server's
/// version with: it compiles them (Unicode regexes, 1.6 M instructions for
/// MariaDB's, a third of a whole `lease --count 1`) when it reads the
/// process's first handshake, in the connection's path. Begun as the first
/// connection is dialled, they are ready, or nearly, when the server's
/// handshake arrives. Nothing depends on it: a thread that cannot start
/// leaves the driver to compile them as before.
fn compile_version_patterns_ahead() {
    let _ = std::thread::Builder::new()
        .name("mysql-version".into())
        .spawn(|| {
            use mysql_async::consts::{CapabilityFlags, StatusFlags};
            let handshake = mysql_common::packets::HandshakePacket::new(
                10,
                &b"5.5.5-10.11.0-MariaDB"[..],
                0,
                [0; 8],
                None::<&[u8]>,
                CapabilityFlags::empty(),
                0,
                StatusFlags::empty(),
                None::<&[u8]>,
            );
            // MariaDB's pattern; MySQL's is read only when it does not match.
            let _ = handshake.maria_db_server_version_parsed();
        });
}

/// The largest packet the driver sends or reads: MariaDB's default (MySQL's
/// is 4 MB in 5.7, 64 MB since 8.0). idgen's statements and rows are a few
/// kilobytes at most.
const MAX_ALLOWED_PACKET: usize = 16 << 20;

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
    /// The server was checked for its version ([`Self::checked_conn`]).
    version_checked: AtomicBool,
    /// The connection the schema check just used, for the next query: the
    /// pool takes a dropped connection back only once its recycler task has
    /// run, so the query right after the check opened a second one.
    warm: std::sync::Mutex<Option<Conn>>,
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
        // Given, the driver does not ask the server for it on every new
        // connection (a round trip each). idgen's own packets are a few
        // kilobytes; a URL's `max_allowed_packet` still wins.
        let max_allowed_packet = opts.max_allowed_packet().or(Some(MAX_ALLOWED_PACKET));
        let opts = OptsBuilder::from_opts(opts)
            .max_allowed_packet(max_allowed_packet)
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
            version_checked: AtomicBool::new(false),
            warm: std::sync::Mutex::new(None),
        })
    }

    /// The redacted URL, naming this ledger in records other stores keep.
    pub fn recorded_name(&self) -> String {
        self.url.to_string()
    }

    async fn conn(&self) -> Result<Conn> {
        if let Some(conn) = self.warm.lock().expect("not poisoned").take() {
            return Ok(conn);
        }
        static VERSION_PATTERNS: std::sync::Once = std::sync::Once::new();
        VERSION_PATTERNS.call_once(compile_version_patterns_ahead);
        let conn = self.timed(self.pool.get_conn()).await?;
        crate::activity::used_mysql_connection(conn.id());
        Ok(conn)
    }

    /// A connection to a server checked for its version (once a process: a
    /// pool's connections all reach the one server its URL names).
    async fn checked_conn(&self) -> Result<Conn> {
        let mut conn = self.conn().await?;
        if !self.version_checked.load(Ordering::Acquire) {
            self.check_version(&mut conn).await?;
            self.version_checked.store(true, Ordering::Release);
        }
        Ok(conn)
    }

    /// Keeps `conn`, idle and outside any transaction, for the next [`Self::conn`].
    fn keep_warm(&self, conn: Conn) {
        *self.warm.lock().expect("not poisoned") = Some(conn);
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

    /// Runs one exchange with the server with the time bound and error
    /// mapping, and counts it (`--verbose`).
    async fn bounded<T>(
        &self,
        exchange: impl Future<Output = mysql_async::Result<T>>,
    ) -> Result<T> {
        crate::activity::did(crate::activity::Work::MysqlQuery);
        self.timed(exchange).await
    }

    /// Runs one exchange like [`Self::bounded`], and hands back the
    /// server's refusal with `code` unmapped, for the caller to act on.
    async fn bounded_unless<T>(
        &self,
        code: u16,
        exchange: impl Future<Output = mysql_async::Result<T>>,
    ) -> Result<std::result::Result<T, mysql_async::Error>> {
        self.bounded(async {
            match exchange.await {
                Err(mysql_async::Error::Server(e)) if e.code == code => {
                    Ok(Err(mysql_async::Error::Server(e)))
                }
                answer => answer.map(Ok),
            }
        })
        .await
    }

    /// Runs one exchange like [`Self::bounded`], and tells apart the
    /// server's answer that a table the statement names does not exist
    /// (ER_NO_SUCH_TABLE): the caller makes the schema and runs it again.
    async fn bounded_if_tables<T>(
        &self,
        exchange: impl Future<Output = mysql_async::Result<T>>,
    ) -> Result<std::result::Result<T, MissingTable>> {
        /// ER_NO_SUCH_TABLE.
        const NO_SUCH_TABLE: u16 = 1146;
        let answer = self.bounded_unless(NO_SUCH_TABLE, exchange).await?;
        Ok(answer.map_err(|e| MissingTable(self.error(&e))))
    }

    /// The time bound and error mapping of [`Self::bounded`], uncounted.
    async fn timed<T>(&self, exchange: impl Future<Output = mysql_async::Result<T>>) -> Result<T> {
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

    fn tx_opts() -> TxOpts {
        let mut opts = TxOpts::default();
        opts.with_isolation_level(IsolationLevel::ReadCommitted);
        opts
    }

    /// Refuses a server older than idgen supports (MySQL 5.7, MariaDB 10.3).
    /// The version the server announced in its handshake answers without a
    /// round trip when it is recent enough (MariaDB numbers from 10, MySQL
    /// below it); a lower one is asked again, since a proxy may announce its
    /// own, and the refusal names what the server itself says.
    async fn check_version(&self, conn: &mut Conn) -> Result<()> {
        let (major, minor, _) = conn.server_version();
        let announced_minimum = if major >= 10 { (10, 3) } else { (5, 7) };
        if (major, minor) >= announced_minimum {
            return Ok(());
        }
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

    /// Which of `tables` the database holds, on a server checked for its
    /// version; the connection is kept for the next query.
    async fn tables_present(&self, tables: &'static [&'static str]) -> Result<Vec<String>> {
        // Our own constant names, quoted as literals: a plain query is one
        // round trip, where a prepared one is two on first use.
        let tables = tables
            .iter()
            .map(|name| format!("'{name}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let tables = tables.as_str();
        // Reads only: safe to run again.
        let (present, conn) = self
            .retrying(|| async move {
                let mut conn = self.checked_conn().await?;
                let present: Vec<String> = self
                    .bounded(conn.query(format!(
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN ({tables})"
                    )))
                    .await?;
                Ok((present, conn))
            })
            .await?;
        self.keep_warm(conn);
        Ok(present)
    }

    /// Checks once per process that the tables exist, creating idgen's own next
    /// to an `id_alloc` made by the Java service. Returns whether `id_alloc` exists.
    async fn ready(&self) -> Result<bool> {
        if self.ready.load(Ordering::Acquire) {
            return Ok(true);
        }
        let present = self
            .tables_present(&[
                "id_alloc",
                "idgen_schema",
                "idgen_app",
                "idgen_refill",
                "idgen_route",
            ])
            .await?;
        if !present.iter().any(|t| t == "id_alloc") {
            return Ok(false);
        }
        // Creating the rest needs the CREATE privilege; ensure_schema says so if it fails.
        self.ensure_schema().await?;
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
