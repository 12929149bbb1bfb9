//! A real three-node MariaDB Galera cluster on loopback, for the tests of a
//! multi-primary ledger: each node a `mariadbd` of its own (its own datadir,
//! MySQL port and group-communication ports), tied to the test process like
//! the shared servers. A test can kill one node with SIGKILL and have it rejoin.
//!
//! * The first node is bootstrapped (`--wsrep-new-cluster`) from a datadir of
//!   `mariadb-install-db`; the others start from an empty datadir and receive
//!   it by a full state transfer (SST, `rsync`).
//! * A killed node rejoins the way `mysqld_safe` (`galera_recovery`) restarts
//!   one: `--wsrep-recover` reads the last committed position from InnoDB, and
//!   the node starts from it, so the cluster sends only the write sets it
//!   missed (IST) from its gcache. Without a recovered position it gets a
//!   full SST into its old datadir instead (which works, but an rsync SST
//!   locks its donor, and flow control then stalls the cluster for the copy).
//! * Every wait is on a condition: a node is ready when its
//!   `wsrep_local_state_comment` is `Synced`.
//!
//! The SST's rsync daemon, started by a root `mariadbd`, drops to user
//! `nobody`, which may not replace or chmod what root made: so every datadir
//! is world-writable, and every node makes its files with `UMASK=0666`,
//! `UMASK_DIR=0777`, for any later SST into it.

use super::servers::{free_port, log_file, scratch_root, spawn_tied_to_process};
use super::wait_until;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Galera's replication library, from Debian's `galera-4`.
pub const PROVIDER: &str = "/usr/lib/galera/libgalera_smm.so";

/// How long a node may take to start and reach `Synced` (an SST on a busy
/// two-core machine included).
const SYNC_LIMIT: Duration = Duration::from_secs(180);

/// A Galera cluster of the test's own.
pub struct GaleraCluster {
    /// Holds every node's directory; removed when the cluster is dropped,
    /// but for the logs when the test failed.
    dir: Option<tempfile::TempDir>,
    nodes: Vec<GaleraNode>,
}

/// One `mariadbd` of the cluster.
pub struct GaleraNode {
    /// 1-based, as the test names it.
    number: usize,
    dir: PathBuf,
    mysql_port: u16,
    /// Group communication (gcomm), which every node lists in its cluster address.
    gcomm_port: u16,
    /// Where it receives incremental state transfers.
    ist_port: u16,
    /// Where it receives full state transfers.
    sst_port: u16,
    /// How many times it was started, naming its log files.
    starts: u32,
    child: Option<Child>,
}

/// A free port none of `taken` is, added to them. `free_port` lets each
/// port go, so two calls can find the same one: two nodes given one gcomm
/// port cannot both listen on it (a test run found nodes 1 and 2 sharing
/// one, and node 2's retry kept it).
fn port_besides(taken: &mut Vec<u16>) -> u16 {
    loop {
        let port = free_port();
        if !taken.contains(&port) {
            taken.push(port);
            return port;
        }
    }
}

impl GaleraCluster {
    /// Starts `size` nodes (3 for a cluster that keeps a majority when one
    /// dies) and returns once every one is `Synced` in a cluster of `size`.
    pub fn start(size: usize) -> Self {
        assert!(
            Path::new(PROVIDER).exists(),
            "the Galera tests need {PROVIDER}; install it with `sudo apt-get install -y galera-4 rsync`"
        );
        std::fs::create_dir_all(scratch_root()).expect("harness scratch dir");
        let dir = tempfile::Builder::new()
            .prefix("galera-")
            .tempdir_in(scratch_root())
            .expect("galera test dir");
        let mut taken = Vec::new();
        let nodes = (1..=size)
            .map(|number| GaleraNode {
                number,
                dir: dir.path().join(format!("node{number}")),
                mysql_port: port_besides(&mut taken),
                gcomm_port: port_besides(&mut taken),
                ist_port: port_besides(&mut taken),
                sst_port: port_besides(&mut taken),
                starts: 0,
                child: None,
            })
            .collect();
        let mut cluster = GaleraCluster {
            dir: Some(dir),
            nodes,
        };
        cluster.bootstrap();
        let members = cluster.members();
        let mut taken = cluster.ports();
        for node in &mut cluster.nodes[1..] {
            node.empty_datadir();
            node.launch(&members, &[]);
        }
        for node in &mut cluster.nodes[1..] {
            if let Err(exit) = node.synced_or_exit() {
                // The state transfer's rsync daemon binds a port taken with
                // `free_port` and let go, which another test can take first
                // ("the rsync or stunnel daemon terminated unexpectedly"); so
                // can the server's own port, which a joiner binds only once
                // the transfer is done ("Bind on TCP/IP port … Address
                // already in use"): once more, from an empty datadir, on
                // fresh ports. (Clients read the port after `start`.)
                eprintln!(
                    "galera node {} exited ({exit}) before it was Synced; joining once more on fresh ports",
                    node.number
                );
                node.mysql_port = port_besides(&mut taken);
                node.sst_port = port_besides(&mut taken);
                node.ist_port = port_besides(&mut taken);
                let _ = std::fs::remove_dir_all(node.data());
                node.empty_datadir();
                node.launch(&members, &[]);
                node.wait_until_synced();
            }
        }
        cluster.wait_until_size(1, size);
        cluster
    }

    /// Starts node 1 as a new cluster and waits until it is `Synced`. Its
    /// ports were taken with `free_port` and let go, and another test's
    /// server may bind one first ("Bind on TCP/IP port … Address already in
    /// use"): then once more, from a new datadir, on fresh ports. No other
    /// node has started yet, so each will read the new gcomm port.
    fn bootstrap(&mut self) {
        for attempt in 1..=2 {
            let members = self.members();
            let mut taken = self.ports();
            let first = &mut self.nodes[0];
            let _ = std::fs::remove_dir_all(first.data());
            first.install();
            first.launch(&members, &["--wsrep-new-cluster".to_string()]);
            match first.synced_or_exit() {
                Ok(()) => return,
                Err(exit) if attempt == 1 => {
                    eprintln!(
                        "galera node 1 exited ({exit}) before it was Synced; bootstrapping once more on fresh ports"
                    );
                    first.mysql_port = port_besides(&mut taken);
                    first.gcomm_port = port_besides(&mut taken);
                    first.ist_port = port_besides(&mut taken);
                    first.sst_port = port_besides(&mut taken);
                }
                Err(exit) => panic!(
                    "Galera node 1 exited ({exit}) before it was Synced, twice; logs in {}",
                    first.dir.display()
                ),
            }
        }
    }

    /// Every port the nodes were given.
    fn ports(&self) -> Vec<u16> {
        self.nodes
            .iter()
            .flat_map(|n| [n.mysql_port, n.gcomm_port, n.ist_port, n.sst_port])
            .collect()
    }

    /// `wsrep_cluster_address`: every node's gcomm endpoint.
    fn members(&self) -> String {
        let peers: Vec<String> = self
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.gcomm_port))
            .collect();
        format!("gcomm://{}", peers.join(","))
    }

    pub fn node(&self, number: usize) -> &GaleraNode {
        &self.nodes[number - 1]
    }

    /// Node `number`'s MySQL endpoint, `127.0.0.1:PORT`.
    pub fn address(&self, number: usize) -> String {
        format!("127.0.0.1:{}", self.node(number).mysql_port)
    }

    /// The URL of `database` on node `number` (1-based).
    pub fn url(&self, number: usize, database: &str) -> String {
        format!(
            "mysql://root@127.0.0.1:{}/{database}",
            self.node(number).mysql_port
        )
    }

    /// SIGKILL: the node dies with nothing flushed or said to its peers.
    pub fn kill(&mut self, number: usize) {
        self.nodes[number - 1].kill();
    }

    /// Starts a killed node again from its last committed position (IST; a
    /// full SST if none was recovered) and waits until it is `Synced` and
    /// counted in the cluster again.
    pub fn rejoin(&mut self, number: usize) {
        let members = self.members();
        let node = &mut self.nodes[number - 1];
        assert!(node.child.is_none(), "node {number} is still running");
        let position = node.recovered_position();
        let extra: Vec<String> = position
            .map(|p| format!("--wsrep-start-position={p}"))
            .into_iter()
            .collect();
        node.launch(&members, &extra);
        self.wait_until_synced(number);
        let size = self.nodes.len();
        self.wait_until_size(number, size);
    }

    /// SIGSTOP: the node freezes with its connections open, as a stalled
    /// VM or a long GC pause would, and its peers evict it after
    /// `evs.suspect_timeout`. Nothing may query it until [`Self::resume`].
    pub fn pause(&mut self, number: usize) {
        self.nodes[number - 1].signal(libc::SIGSTOP);
    }

    /// SIGCONT, then waits until the node has rejoined: a view newer than
    /// `evicted` (the conf_id node `peer` reported once the node was out)
    /// that counts every node, seen alike by the node and `peer`. Until the
    /// node learns it was evicted, it still reports the old view as
    /// `Synced`, so its own state alone proves nothing.
    pub fn resume(&mut self, number: usize, peer: usize, evicted: u64) {
        self.nodes[number - 1].signal(libc::SIGCONT);
        let size = self.nodes.len().to_string();
        wait_until(
            SYNC_LIMIT,
            &format!("node {number} to rejoin after its pause"),
            || {
                let (node, peer) = (self.node(number), self.node(peer));
                matches!((node.conf_id(), peer.conf_id()), (Some(mine), Some(theirs)) if mine == theirs && theirs > evicted)
                    && peer.status("wsrep_cluster_size").as_deref() == Some(&size)
            },
        );
        self.wait_until_synced(number);
    }

    /// Node `number`'s view number (`wsrep_cluster_conf_id`) once it counts
    /// `size` members in its primary component.
    pub fn conf_id_at_size(&self, number: usize, size: usize) -> u64 {
        self.wait_until_size(number, size);
        self.node(number)
            .conf_id()
            .expect("a running node reports its view number")
    }

    /// Waits until node `number` reports `Synced`.
    pub fn wait_until_synced(&mut self, number: usize) {
        self.nodes[number - 1].wait_until_synced();
    }

    /// Waits until node `number` counts `size` members in its primary component.
    pub fn wait_until_size(&self, number: usize, size: usize) {
        let node = self.node(number);
        wait_until(
            SYNC_LIMIT,
            &format!("node {number} to see a cluster of {size}"),
            || {
                node.status("wsrep_cluster_size").as_deref() == Some(&size.to_string())
                    && node.status("wsrep_cluster_status").as_deref() == Some("Primary")
            },
        );
    }

    /// A counter of `SHOW GLOBAL STATUS` summed over the running nodes.
    pub fn status_sum(&self, name: &str) -> u64 {
        self.nodes
            .iter()
            .filter(|n| n.child.is_some())
            .filter_map(|n| n.status(name)?.parse::<u64>().ok())
            .sum()
    }
}

impl Drop for GaleraCluster {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            node.kill();
        }
        if std::thread::panicking()
            && let Some(dir) = self.dir.take()
        {
            // The logs tell why a node failed; the datadirs are only bulk.
            for node in &self.nodes {
                let _ = std::fs::remove_dir_all(node.data());
            }
            eprintln!("Galera node logs kept in {}", dir.keep().display());
        }
    }
}

impl GaleraNode {
    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Its own temporary directory: a mariadbd starting up removes the
    /// `#sql…` files in its tmpdir, another server's included in a shared /tmp.
    fn tmp(&self) -> PathBuf {
        let tmp = self.dir.join("tmp");
        std::fs::create_dir_all(&tmp).expect("galera node tmpdir");
        tmp
    }

    /// The bootstrap node's datadir, with the system tables.
    fn install(&self) {
        std::fs::create_dir_all(&self.dir).expect("galera node dir");
        let install = Command::new("mariadb-install-db")
            .arg("--no-defaults")
            .arg(format!("--datadir={}", self.data().display()))
            .arg(format!("--tmpdir={}", self.tmp().display()))
            .args([
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--user=root",
            ])
            .env("UMASK", "0666")
            .env("UMASK_DIR", "0777")
            .stdout(log_file(&self.dir.join("install.log")))
            .stderr(log_file(&self.dir.join("install.err")))
            .status()
            .expect("mariadb-install-db is installed");
        assert!(
            install.success(),
            "mariadb-install-db failed; see {}",
            self.dir.display()
        );
        self.open_datadir();
    }

    /// A joiner's datadir: empty, for the SST to fill.
    fn empty_datadir(&self) {
        std::fs::create_dir_all(self.data()).expect("galera joiner datadir");
        self.open_datadir();
    }

    /// Makes the datadir world-writable. The SST's rsync daemon writes as
    /// `nobody`, and sets the joiner's datadir to the donor's mode, which it
    /// may not do to a root-owned directory unless the modes already match.
    fn open_datadir(&self) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(self.data(), std::fs::Permissions::from_mode(0o777))
            .expect("open the datadir to the SST");
    }

    /// Every option of this node; `extra` last.
    fn command(&self, members: &str, extra: &[String]) -> Command {
        let mut cmd = Command::new("mariadbd");
        cmd.arg("--no-defaults")
            .arg(format!("--datadir={}", self.data().display()))
            .arg(format!("--tmpdir={}", self.tmp().display()))
            .arg(format!("--socket={}", self.dir.join("mysqld.sock").display()))
            .arg(format!("--pid-file={}", self.dir.join("mysqld.pid").display()))
            .arg(format!("--port={}", self.mysql_port))
            .args([
                "--bind-address=127.0.0.1",
                "--user=root",
                "--skip-name-resolve",
                "--skip-grant-tables",
                "--skip-log-bin",
                "--max-connections=1000",
                "--innodb-buffer-pool-size=64M",
                "--innodb-log-file-size=16M",
                "--innodb-flush-log-at-trx-commit=2",
                // What Galera requires of every node.
                "--binlog-format=ROW",
                "--innodb-autoinc-lock-mode=2",
                "--default-storage-engine=InnoDB",
                "--wsrep-on=ON",
                "--wsrep-cluster-name=idgen-test",
                "--wsrep-sst-method=rsync",
            ])
            .arg(format!("--wsrep-provider={PROVIDER}"))
            .arg(format!("--wsrep-cluster-address={members}"))
            .arg(format!("--wsrep-node-name=node{}", self.number))
            .arg(format!("--wsrep-node-address=127.0.0.1:{}", self.gcomm_port))
            .arg(format!(
                "--wsrep-sst-receive-address=127.0.0.1:{}",
                self.sst_port
            ))
            // Timeouts stay Galera's defaults: a dead node is suspected after
            // 5 s, as in production.
            .arg(format!(
                "--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:{};ist.recv_addr=127.0.0.1:{};gcache.size=64M",
                self.gcomm_port, self.ist_port
            ))
            .args(extra)
            .env("UMASK", "0666")
            .env("UMASK_DIR", "0777")
            .stdin(Stdio::null());
        cmd
    }

    fn launch(&mut self, members: &str, extra: &[String]) {
        self.starts += 1;
        let log = self.dir.join(format!("mariadbd.{}.log", self.starts));
        let mut cmd = self.command(members, extra);
        cmd.stdout(log_file(&log)).stderr(log_file(&log));
        self.child = Some(spawn_tied_to_process(cmd));
    }

    /// The position (`uuid:seqno`) InnoDB committed last, by `--wsrep-recover`;
    /// `None` if it recovered none (the node then needs a full SST).
    fn recovered_position(&self) -> Option<String> {
        let log = self.dir.join(format!("recover.{}.log", self.starts));
        let status = self
            .command("gcomm://", &[])
            .arg("--wsrep-recover")
            .arg(format!("--log-error={}", log.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run mariadbd --wsrep-recover");
        assert!(
            status.success(),
            "mariadbd --wsrep-recover failed; see {}",
            log.display()
        );
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.lines()
            .filter_map(|l| l.split_once("WSREP: Recovered position: "))
            .map(|(_, p)| p.trim().to_string())
            .next_back()
            .filter(|p| !p.starts_with("00000000-0000-0000-0000-000000000000"))
    }

    /// Sends `signal` to the running node.
    fn signal(&self, signal: i32) {
        let child = self.child.as_ref().expect("the node is running");
        let pid = i32::try_from(child.id()).expect("a pid fits an i32");
        // SAFETY: kill(2) with the pid of a child this harness started.
        unsafe { libc::kill(pid, signal) };
    }

    /// Its view number (`wsrep_cluster_conf_id`), or `None` while it does not answer.
    fn conf_id(&self) -> Option<u64> {
        self.status("wsrep_cluster_conf_id")?.parse().ok()
    }

    /// SIGKILL, then reaps the process.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// A `SHOW GLOBAL STATUS` value, or `None` while the node does not answer.
    pub fn status(&self, name: &str) -> Option<String> {
        let url = format!("mysql://root@127.0.0.1:{}/mysql", self.mysql_port);
        let query = format!("SHOW GLOBAL STATUS LIKE '{name}'");
        block_on(async {
            use mysql_async::prelude::Queryable;
            let opts = mysql_async::Opts::from_url(&url).ok()?;
            let mut conn = mysql_async::Conn::new(opts).await.ok()?;
            let row: Option<(String, String)> = conn.query_first(query).await.ok()?;
            let _ = conn.disconnect().await;
            row.map(|(_, value)| value)
        })
    }

    /// Waits until the node is `Synced` and ready for queries; fails the
    /// test at once if its process exits meanwhile (a failed state transfer).
    fn wait_until_synced(&mut self) {
        if let Err(exit) = self.synced_or_exit() {
            panic!(
                "Galera node {} exited ({exit}) before it was Synced; logs in {}",
                self.number,
                self.dir.display()
            );
        }
    }

    /// Waits until the node is `Synced` and ready for queries, or its
    /// process exits (`Err`, with how).
    fn synced_or_exit(&mut self) -> Result<(), std::process::ExitStatus> {
        let what = format!(
            "Galera node {} to be Synced (logs in {})",
            self.number,
            self.dir.display()
        );
        let mut exited = None;
        wait_until(SYNC_LIMIT, &what, || {
            if let Some(Ok(Some(exit))) = self.child.as_mut().map(Child::try_wait) {
                exited = Some(exit);
                return true;
            }
            self.status("wsrep_local_state_comment").as_deref() == Some("Synced")
                && self.status("wsrep_ready").as_deref() == Some("ON")
        });
        exited.map_or(Ok(()), Err)
    }
}

impl Drop for GaleraNode {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Runs one query's future on a runtime of its own (the harness is synchronous).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("test runtime")
        .block_on(future)
}
