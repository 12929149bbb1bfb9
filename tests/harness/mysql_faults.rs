//! Real faults of the ledger, for the tests that try to make an ID repeat when
//! MySQL goes back in time: MariaDB servers of a test's own that it kills with
//! SIGKILL, a primary with an asynchronous replica that it lets lag and then
//! promotes, and dumps (`mariadb-dump`) it restores into the same server.
//!
//! Each [`MariadbProcess`] is a `mariadbd` on its own loopback port in its own
//! directory, started by [`start_mariadb_with`] and so tied to the test process
//! like the shared servers; dropping it kills it at once.

use super::servers::{mysql_exec, mysql_query, scratch_root, start_mariadb_with};
use super::wait_until;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The database idgen keeps its ledger in on a test's own server.
pub const LEDGER_DB: &str = "idgen_ledger";

/// What a server is in a replication set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// No binary log: nothing replicates from it.
    Standalone,
    /// Binary log (which, on MariaDB, always carries GTIDs), server ID 1.
    Primary,
    /// Read-only, server ID 2, with a relay log of its own.
    Replica,
}

/// A `mariadbd` of one test's own; `--skip-grant-tables`, so its root needs no
/// password (and a replica logs in to its primary as root).
pub struct MariadbProcess {
    /// Its data and logs; kept when the test fails, for a look at the logs
    /// (the next run deletes it with the rest of this run's scratch).
    dir: PathBuf,
    /// `mysql://root@127.0.0.1:PORT`, no database.
    url: String,
    port: u16,
    /// Its process, until killed.
    pid: Option<i32>,
}

impl MariadbProcess {
    /// A server without a binary log, holding an empty [`LEDGER_DB`].
    pub fn start() -> Self {
        let server = Self::launch(Role::Standalone);
        server.create_ledger_db();
        server
    }

    fn launch(role: Role) -> Self {
        require_tool("mariadbd");
        require_tool("mariadb-install-db");
        let run = scratch_root().join(format!("run-{}", std::process::id()));
        std::fs::create_dir_all(&run).expect("harness scratch dir");
        let dir = tempfile::Builder::new()
            .prefix("mariadb-")
            .tempdir_in(&run)
            .expect("mariadb test dir")
            .keep();
        let path = dir.as_path();
        let extra: Vec<String> = match role {
            Role::Standalone => vec![],
            // Row events: what the replica applies is exactly what the
            // primary's transactions wrote, whatever their statements.
            Role::Primary => vec![
                "--server-id=1".into(),
                format!("--log-bin={}", path.join("binlog").display()),
                "--binlog-format=ROW".into(),
                "--gtid-strict-mode=1".into(),
            ],
            Role::Replica => vec![
                "--server-id=2".into(),
                format!("--relay-log={}", path.join("relay").display()),
                "--read-only=1".into(),
                "--skip-slave-start".into(),
            ],
        };
        // Later arguments win: `--log-bin` overrides the harness's `--skip-log-bin`.
        let url = start_mariadb_with(path, true, &extra, None);
        let port = url
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {url}"));
        let pid = std::fs::read_to_string(path.join("mysqld.pid"))
            .ok()
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("mariadbd wrote no pid file in {}", path.display()));
        MariadbProcess {
            dir,
            url,
            port,
            pid: Some(pid),
        }
    }

    fn create_ledger_db(&self) {
        self.exec(&format!("CREATE DATABASE {LEDGER_DB}"));
    }

    /// The URL idgen's ledger is at on this server (`IDGEN_MYSQL_URL`).
    pub fn ledger_url(&self) -> String {
        format!("{}/{LEDGER_DB}", self.url)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Runs `;`-separated statements (no default database).
    pub fn exec(&self, statements: &str) {
        mysql_exec(&format!("{}/mysql", self.url), statements);
    }

    /// Runs a query on the ledger's database; every value as text.
    pub fn query(&self, query: &str) -> Vec<Vec<Option<String>>> {
        mysql_query(&self.ledger_url(), query)
    }

    /// One value of a one-row query, as text.
    pub fn value(&self, query: &str) -> String {
        mysql_query(&format!("{}/mysql", self.url), query)
            .first()
            .and_then(|row| row.first().cloned().flatten())
            .unwrap_or_else(|| panic!("{query} returned no value"))
    }

    /// `id_alloc.max_id` of every shard of `app`, by shard.
    pub fn max_ids(&self, app: u8) -> Vec<u64> {
        self.query(&format!(
            "SELECT max_id FROM id_alloc WHERE app_id = {app} ORDER BY shard_id"
        ))
        .into_iter()
        .map(|row| {
            row[0]
                .as_deref()
                .and_then(|v| v.parse().ok())
                .expect("a max_id")
        })
        .collect()
    }

    /// SIGKILL: the server dies with nothing flushed that it had not synced,
    /// its clients cut mid-transaction. Returns once it is dead.
    pub fn kill(&mut self) {
        let Some(pid) = self.pid.take() else {
            return;
        };
        // SAFETY: kill(2) on the mariadbd this harness started, by its pid.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        // The harness keeps the child's handle, so it lingers as a zombie
        // until the test process ends: dead is `Z`, or gone.
        wait_until(Duration::from_secs(30), "mariadbd to die", || {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    stat.rsplit_once(')')
                        .map(|(_, rest)| rest.trim_start().starts_with('Z'))
                })
                .unwrap_or(true)
        });
    }

    /// A consistent dump of the ledger's database, taken with `mariadb-dump
    /// --single-transaction` while writers may be running: the backup an
    /// operator would restore.
    pub fn dump(&self, name: &str) -> PathBuf {
        let file = self.dir.join(format!("{name}.sql"));
        let out = std::fs::File::create(&file).expect("create the dump file");
        let run = self
            .client("mariadb-dump")
            .args(["--single-transaction", "--skip-lock-tables", LEDGER_DB])
            .stdout(out)
            .stderr(Stdio::piped())
            .output()
            .expect("run mariadb-dump");
        assert!(
            run.status.success(),
            "mariadb-dump failed: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        file
    }

    /// Restores a dump into the ledger's database on this same server (the
    /// `mariadb` client, as an operator would): every table in it is dropped
    /// and written back as it was when the dump was taken.
    pub fn restore(&self, dump: &Path) {
        let input = std::fs::File::open(dump).expect("open the dump");
        let run = self
            .client("mariadb")
            .arg(LEDGER_DB)
            .stdin(input)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("run the mariadb client");
        assert!(
            run.status.success(),
            "restoring {} failed: {}",
            dump.display(),
            String::from_utf8_lossy(&run.stderr)
        );
    }

    /// A MariaDB client tool aimed at this server, ignoring every option file.
    fn client(&self, tool: &str) -> Command {
        require_tool(tool);
        let mut cmd = Command::new(tool);
        cmd.arg("--no-defaults")
            .args(["--protocol=tcp", "--host=127.0.0.1", "--user=root"])
            .arg(format!("--port={}", self.port));
        cmd
    }

    /// `SHOW SLAVE STATUS` as column → value (empty when not a replica).
    fn slave_status(&self) -> HashMap<String, String> {
        use mysql_async::prelude::Queryable;
        let url = format!("{}/mysql", self.url);
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("test runtime")
            .block_on(async {
                let opts = mysql_async::Opts::from_url(&url).expect("test MySQL URL");
                let mut conn = mysql_async::Conn::new(opts)
                    .await
                    .unwrap_or_else(|e| panic!("test MariaDB: {e}"));
                let rows: Vec<mysql_async::Row> = conn
                    .query("SHOW SLAVE STATUS")
                    .await
                    .expect("SHOW SLAVE STATUS");
                let _ = conn.disconnect().await;
                let Some(row) = rows.into_iter().next() else {
                    return HashMap::new();
                };
                let names: Vec<String> = row
                    .columns_ref()
                    .iter()
                    .map(|c| c.name_str().into_owned())
                    .collect();
                names
                    .into_iter()
                    .enumerate()
                    .map(|(i, name)| {
                        let value = match row.as_ref(i) {
                            Some(mysql_async::Value::Bytes(b)) => {
                                String::from_utf8_lossy(b).into_owned()
                            }
                            Some(mysql_async::Value::Int(n)) => n.to_string(),
                            Some(mysql_async::Value::UInt(n)) => n.to_string(),
                            _ => String::new(),
                        };
                        (name, value)
                    })
                    .collect()
            })
    }
}

impl Drop for MariadbProcess {
    fn drop(&mut self) {
        self.kill();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The last sequence number of replication domain 0 in a GTID position
/// (`0-1-123`, or empty before the first transaction).
pub fn gtid_seq(position: &str) -> u64 {
    position
        .split(',')
        .map(str::trim)
        .find(|gtid| gtid.starts_with("0-"))
        .and_then(|gtid| gtid.rsplit('-').next())
        .and_then(|seq| seq.parse().ok())
        .unwrap_or(0)
}

/// A MariaDB primary (binary log, GTIDs) with an asynchronous replica of its
/// own that replicates by GTID (`MASTER_USE_GTID=slave_pos`), both started at
/// once. The replica can be made to lag ([`MariadbPair::stop_applying`]: it
/// keeps receiving the primary's transactions into its relay log but applies
/// none), then be promoted after the primary is killed, with part of its
/// relay log never applied: the unplanned failover of MHA, Orchestrator or a
/// managed service.
pub struct MariadbPair {
    pub primary: MariadbProcess,
    pub replica: MariadbProcess,
}

impl MariadbPair {
    /// Both servers, replicating, with [`LEDGER_DB`] created on the primary and
    /// applied on the replica.
    pub fn start() -> Self {
        let (primary, replica) = std::thread::scope(|s| {
            let primary = s.spawn(|| MariadbProcess::launch(Role::Primary));
            let replica = s.spawn(|| MariadbProcess::launch(Role::Replica));
            (primary.join().unwrap(), replica.join().unwrap())
        });
        // A dead primary is retried every second; the tests never let it come back.
        replica.exec(&format!(
            "CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = {}, MASTER_USER = 'root', \
             MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1; START SLAVE",
            primary.port()
        ));
        let pair = MariadbPair { primary, replica };
        wait_until(Duration::from_secs(60), "the replica to connect", || {
            let status = pair.replica.slave_status();
            status.get("Slave_IO_Running").map(String::as_str) == Some("Yes")
                && status.get("Slave_SQL_Running").map(String::as_str) == Some("Yes")
        });
        pair.primary.create_ledger_db();
        pair.wait_applied(&pair.primary_position());
        pair
    }

    /// The primary's GTID position: its last committed transaction.
    pub fn primary_position(&self) -> String {
        self.primary.value("SELECT @@gtid_binlog_pos")
    }

    /// The replica's applied position.
    pub fn replica_applied(&self) -> String {
        self.replica.value("SELECT @@gtid_slave_pos")
    }

    /// The replica's received position: what its relay log holds.
    pub fn replica_received(&self) -> String {
        self.replica
            .slave_status()
            .remove("Gtid_IO_Pos")
            .unwrap_or_default()
    }

    /// Waits, on the replica (`MASTER_GTID_WAIT`), until it has applied
    /// `position`.
    pub fn wait_applied(&self, position: &str) {
        let waited = self
            .replica
            .value(&format!("SELECT MASTER_GTID_WAIT('{position}', 60)"));
        assert_eq!(
            waited,
            "0",
            "the replica did not apply {position} within 60s (it is at {})",
            self.replica_applied()
        );
    }

    /// The replica stops applying (`STOP SLAVE SQL_THREAD`) but keeps
    /// receiving: from here on it lags the primary, its relay log growing.
    pub fn stop_applying(&self) {
        self.replica.exec("STOP SLAVE SQL_THREAD");
    }

    /// Waits until the replica's relay log holds everything the primary has
    /// committed (applied or not).
    pub fn wait_received_all(&self) {
        let wanted = gtid_seq(&self.primary_position());
        wait_until(
            Duration::from_secs(60),
            "the replica to receive the primary's binary log",
            || gtid_seq(&self.replica_received()) >= wanted,
        );
    }

    /// SIGKILL of the primary: it never comes back.
    pub fn kill_primary(&mut self) {
        self.primary.kill();
    }

    /// Promotes the replica as a failover tool does when the primary is gone:
    /// `STOP SLAVE; RESET SLAVE ALL` (the relay log it had not applied is
    /// thrown away) and `read_only` off. It serves from what it had applied.
    pub fn promote_replica(&self) {
        self.replica
            .exec("STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = 0");
    }
}

/// Fails the test, naming the package, when a MariaDB tool is not on PATH: a
/// test never skips because a tool is missing.
fn require_tool(tool: &str) {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()));
    assert!(
        found,
        "the ledger fault tests need {tool} on PATH; install it with `sudo apt-get install -y mariadb-server mariadb-client`"
    );
}
