//! Real faults for the tests that try to make an ID repeat: Redis servers of a
//! test's own that it kills, restarts from an old snapshot or a truncated AOF,
//! replicates and promotes, and a TCP proxy it can cut.
//!
//! Each [`RedisProcess`] is a redis-server on its own loopback port in its own
//! directory, tied to the test process like the shared servers.

use super::servers::{free_port, log_file, spawn_tied_to_process, wait_for};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How many IDs a chaos case issues in all: `IDGEN_CHAOS_IDS`, 100 000 by
/// default (`scripts/chaos.sh` runs the cases with 1 000 000).
pub fn chaos_ids() -> u64 {
    std::env::var("IDGEN_CHAOS_IDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000)
}

/// How a test's own Redis persists its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persistence {
    /// Nothing on disk: a restart comes back empty.
    None,
    /// RDB snapshots, taken only when the test says `SAVE`.
    Snapshot,
    /// An append-only file, synced on every write.
    Aof,
}

pub struct RedisProcess {
    dir: tempfile::TempDir,
    port: u16,
    persistence: Persistence,
    replica_of: Option<u16>,
    /// `replica-read-only no`: writes are taken while a replica.
    writable_as_replica: bool,
    child: Option<Child>,
}

impl RedisProcess {
    pub fn start(persistence: Persistence) -> Self {
        Self::launch(persistence, None)
    }

    /// A replica of `master`, synced before this returns: its link up, and
    /// the master counting it in sync (`state=online`, which it sets only
    /// at the replica's first acknowledgement after a diskless copy).
    pub fn replica_of(master: &RedisProcess) -> Self {
        let replica = Self::launch(Persistence::None, Some(master.port));
        super::wait_until(Duration::from_secs(30), "the replica to sync", || {
            let info: String = redis::cmd("INFO")
                .arg("replication")
                .query(&mut replica.conn())
                .unwrap();
            let seen: String = redis::cmd("INFO")
                .arg("replication")
                .query(&mut master.conn())
                .unwrap();
            info.contains("master_link_status:up") && seen.contains(",state=online,")
        });
        replica
    }

    fn launch(persistence: Persistence, replica_of: Option<u16>) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("redis-")
            .tempdir_in(super::servers::scratch_root())
            .or_else(|_| {
                std::fs::create_dir_all(super::servers::scratch_root())?;
                tempfile::Builder::new()
                    .prefix("redis-")
                    .tempdir_in(super::servers::scratch_root())
            })
            .expect("redis test dir");
        let mut process = RedisProcess {
            dir,
            port: free_port(),
            persistence,
            replica_of,
            writable_as_replica: false,
            child: None,
        };
        process.run();
        process
    }

    fn run(&mut self) {
        let mut cmd = Command::new("redis-server");
        cmd.args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", ""])
            .args(["--maxclients", "2000"])
            .args(["--sanitize-dump-payload", "yes"])
            .arg("--dir")
            .arg(self.dir.path());
        match self.persistence {
            Persistence::None | Persistence::Snapshot => {
                cmd.args(["--appendonly", "no"]);
            }
            Persistence::Aof => {
                cmd.args(["--appendonly", "yes", "--appendfsync", "always"]);
            }
        }
        if let Some(master) = self.replica_of {
            cmd.args(["--replicaof", "127.0.0.1", &master.to_string()]);
        }
        if self.writable_as_replica {
            cmd.args(["--replica-read-only", "no"]);
        }
        if self.persistence == Persistence::None {
            // A restart must come back empty, whatever an earlier SAVE left.
            let _ = std::fs::remove_file(self.dir.path().join("dump.rdb"));
        }
        cmd.stdin(Stdio::null())
            .stdout(log_file(&self.dir.path().join("redis.log")))
            .stderr(log_file(&self.dir.path().join("redis.err")));
        self.child = Some(spawn_tied_to_process(cmd));
        let url = self.url();
        wait_for("redis-server", self.dir.path(), || {
            redis::Client::open(url.as_str())
                .and_then(|c| c.get_connection())
                .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c))
                .is_ok()
        });
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn conn(&self) -> redis::Connection {
        self.connect()
            .expect("connect to the test's own redis-server")
    }

    /// A connection, or the error of a server that refused or ended it (one
    /// being demoted, restarted or paused): for polls that ask again.
    pub fn connect(&self) -> redis::RedisResult<redis::Connection> {
        redis::Client::open(self.url().as_str()).and_then(|c| c.get_connection())
    }

    pub fn run_id(&self) -> String {
        self.info_field("server", "run_id")
    }

    /// One field of `INFO section`, such as `master_replid` of `replication`.
    pub fn info_field(&self, section: &str, field: &str) -> String {
        Self::info_field_over(&mut self.conn(), section, field)
    }

    /// The same over a connection the caller holds: a new one would show in
    /// the server's own counters (connections, error replies).
    pub fn info_field_over(conn: &mut redis::Connection, section: &str, field: &str) -> String {
        let info: String = redis::cmd("INFO").arg(section).query(conn).unwrap();
        info.lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .unwrap_or_else(|| panic!("INFO {section} lacks {field}: {info}"))
            .trim()
            .to_string()
    }

    /// `SAVE`s the dataset and keeps a copy of the snapshot.
    pub fn snapshot(&self, name: &str) -> PathBuf {
        let _: () = redis::cmd("SAVE").query(&mut self.conn()).unwrap();
        let copy = self.dir.path().join(format!("{name}.rdb"));
        std::fs::copy(self.dir.path().join("dump.rdb"), &copy).expect("copy the snapshot");
        copy
    }

    /// The append-only file that grows with every write.
    fn aof_tail(&self) -> PathBuf {
        let dir = self.dir.path().join("appendonlydir");
        std::fs::read_dir(&dir)
            .expect("the AOF directory")
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(".incr.aof"))
            .expect("an incremental AOF file")
    }

    /// How long the AOF is now, to cut it back to later.
    pub fn aof_length(&self) -> u64 {
        std::fs::metadata(self.aof_tail()).unwrap().len()
    }

    /// SIGKILL: a crash with nothing flushed.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn restart(&mut self) {
        self.kill();
        self.run();
    }

    /// Kills the server and starts it again from an older snapshot.
    pub fn restart_from_snapshot(&mut self, snapshot: &Path) {
        self.kill();
        std::fs::copy(snapshot, self.dir.path().join("dump.rdb")).expect("restore the snapshot");
        self.run();
    }

    /// Kills the server, cuts its AOF back to `length` bytes (the writes a power
    /// loss took with it), and starts it again.
    pub fn restart_with_aof_cut_to(&mut self, length: u64) {
        self.kill();
        let tail = self.aof_tail();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&tail)
            .and_then(|f| f.set_len(length))
            .expect("truncate the AOF");
        self.run();
    }

    /// SIGSTOP: a replica that stops receiving the master's writes.
    pub fn pause(&self) {
        self.signal(libc::SIGSTOP);
    }

    pub fn resume(&self) {
        self.signal(libc::SIGCONT);
    }

    fn signal(&self, signal: i32) {
        let pid = self.child.as_ref().expect("running").id() as i32;
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(pid, signal) };
    }

    /// `REPLICAOF master`: a master demoted to a replica of another, with the
    /// link up (its dataset replaced by the master's) before this returns. The
    /// process, and so its `run_id`, stays the same.
    pub fn demote_to_replica_of(&mut self, master: &RedisProcess) {
        let _: () = redis::cmd("REPLICAOF")
            .arg("127.0.0.1")
            .arg(master.port)
            .query(&mut self.conn())
            .unwrap();
        self.replica_of = Some(master.port);
        super::wait_until(
            Duration::from_secs(30),
            "the demoted master to sync",
            || {
                let info: String = redis::cmd("INFO")
                    .arg("replication")
                    .query(&mut self.conn())
                    .unwrap();
                info.contains("master_link_status:up")
            },
        );
    }

    /// `replica-read-only no`, now and after a restart: while a replica (now,
    /// or once demoted) the server takes writes from its clients instead of
    /// answering `READONLY`. A real setting, used for scratch keys; it is what
    /// lets a replica's own clients pop and push.
    pub fn writable_as_replica(mut self) -> Self {
        self.config_set(&[("replica-read-only", "no")]);
        self.writable_as_replica = true;
        self
    }

    /// `CONFIG SET` of each (name, value), in one command: for now, not
    /// after a restart.
    pub fn config_set(&self, settings: &[(&str, &str)]) {
        let mut set = redis::cmd("CONFIG");
        set.arg("SET");
        for (name, value) in settings {
            set.arg(*name).arg(*value);
        }
        set.query::<()>(&mut self.conn()).unwrap();
    }

    /// This server's `role` in `INFO replication`: `master` or `slave`.
    pub fn role(&self) -> String {
        self.info_field("replication", "role")
    }

    /// Redis's own `FAILOVER TO replica` (6.2 and later): this master waits
    /// for `replica` to catch up, hands it the master role and becomes its
    /// replica, keeping every client connection (no Sentinel, nothing
    /// killed). Returns once both report their new roles, the link up.
    pub fn fail_over_to(&mut self, replica: &mut RedisProcess) {
        let _: () = redis::cmd("FAILOVER")
            .arg("TO")
            .arg("127.0.0.1")
            .arg(replica.port)
            .arg("TIMEOUT")
            .arg(10_000)
            .query(&mut self.conn())
            .unwrap();
        super::wait_until(Duration::from_secs(30), "the failover to finish", || {
            let info: String = redis::cmd("INFO")
                .arg("replication")
                .query(&mut self.conn())
                .unwrap();
            info.contains("master_failover_state:no-failover")
                && info.contains("role:slave")
                && info.contains("master_link_status:up")
                && replica.role() == "master"
        });
        self.replica_of = Some(replica.port);
        replica.replica_of = None;
    }

    /// `REPLICAOF NO ONE`: the replica becomes a master with what it has.
    pub fn promote(&mut self) {
        let _: () = redis::cmd("REPLICAOF")
            .arg("NO")
            .arg("ONE")
            .query(&mut self.conn())
            .unwrap();
        self.replica_of = None;
    }
}

impl Drop for RedisProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A TCP proxy on a loopback port of its own, forwarding to a server.
/// * `cut` drops every connection and refuses new ones until `restore`, as a
///   network partition or a server outage looks to a client;
/// * `switch_to` points it at another server while keeping its clients'
///   connections: a client whose server died goes on over the same connection
///   to the new one, as through a managed endpoint or a multiplexing proxy.
pub struct TcpProxy {
    port: u16,
    target: Arc<Mutex<String>>,
    cut: Arc<AtomicBool>,
    sessions: Arc<Mutex<Vec<Arc<Session>>>>,
    /// Reads from clients passed on: each at least one command of theirs.
    sends: Arc<AtomicU64>,
}

/// One client connection and its current upstream.
struct Session {
    client: TcpStream,
    upstream: Mutex<Option<TcpStream>>,
}

impl TcpProxy {
    pub fn to(target: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().unwrap().port();
        let proxy = TcpProxy {
            port,
            target: Arc::new(Mutex::new(target.to_string())),
            cut: Arc::new(AtomicBool::new(false)),
            sessions: Arc::default(),
            sends: Arc::default(),
        };
        let (target, cut, sessions, sends) = (
            proxy.target.clone(),
            proxy.cut.clone(),
            proxy.sessions.clone(),
            proxy.sends.clone(),
        );
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if cut.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                // Connected at once: some servers (MySQL) speak first.
                let Ok(server) = TcpStream::connect(target.lock().unwrap().as_str()) else {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                };
                backward(server.try_clone().unwrap(), client.try_clone().unwrap());
                let session = Arc::new(Session {
                    client,
                    upstream: Mutex::new(Some(server)),
                });
                sessions.lock().unwrap().push(session.clone());
                let (target, sends) = (target.clone(), sends.clone());
                std::thread::spawn(move || forward(&session, &target, &sends));
            }
        });
        proxy
    }

    /// A proxy to the server a URL names, and the URL through it.
    pub fn for_url(url: &str) -> (Self, String) {
        let rest = url.split_once('@').map_or(url, |(_, rest)| rest);
        let rest = rest.split_once("://").map_or(rest, |(_, rest)| rest);
        let address = rest.split('/').next().unwrap().to_string();
        let proxy = TcpProxy::to(&address);
        let through = url.replace(&address, &format!("127.0.0.1:{}", proxy.port()));
        (proxy, through)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// How often clients sent bytes through: a lower bound on the commands
    /// they sent (a MySQL client writes each command at once).
    pub fn sends(&self) -> u64 {
        self.sends.load(Ordering::SeqCst)
    }

    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for session in self.sessions.lock().unwrap().drain(..) {
            let _ = session.client.shutdown(Shutdown::Both);
            if let Some(upstream) = session.upstream.lock().unwrap().take() {
                let _ = upstream.shutdown(Shutdown::Both);
            }
        }
    }

    pub fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }

    /// Sends every client's next bytes to `target`; connections stay open.
    pub fn switch_to(&self, target: &str) {
        *self.target.lock().unwrap() = target.to_string();
        for session in self.sessions.lock().unwrap().iter() {
            if let Some(upstream) = session.upstream.lock().unwrap().take() {
                let _ = upstream.shutdown(Shutdown::Both);
            }
        }
    }
}

/// Client to upstream, (re)connecting the upstream whenever there is none.
fn forward(session: &Arc<Session>, target: &Mutex<String>, sends: &AtomicU64) {
    let mut client = session.client.try_clone().unwrap();
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match client.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut upstream = session.upstream.lock().unwrap();
        if upstream.is_none() {
            let Ok(server) = TcpStream::connect(target.lock().unwrap().as_str()) else {
                break;
            };
            backward(
                server.try_clone().unwrap(),
                session.client.try_clone().unwrap(),
            );
            *upstream = Some(server);
        }
        if upstream.as_mut().unwrap().write_all(&buf[..n]).is_err() {
            break;
        }
        sends.fetch_add(1, Ordering::SeqCst);
    }
    let _ = session.client.shutdown(Shutdown::Both);
}

/// Upstream to client; an upstream that ends leaves the client connected.
fn backward(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
    });
}

/// One direction of one loopback connection cut: every TCP packet from port
/// `from` to port `to` on `lo` is dropped (an iptables rule) until this is
/// dropped. The other direction still flows, so neither end sees the
/// connection fail until its own timeout: what a partition that loses one
/// stream looks like, such as a master's replication stream to its replica.
/// Needs root and iptables, which CI installs.
pub struct PacketDrop {
    iptables: &'static str,
    rule: Vec<String>,
}

impl PacketDrop {
    pub fn from_port_to_port(from: u16, to: u16) -> Self {
        let iptables = ["iptables-legacy", "iptables"]
            .into_iter()
            .find(|name| {
                Command::new(name)
                    .args(["-w", "-L", "INPUT", "-n"])
                    .output()
                    .is_ok_and(|out| out.status.success())
            })
            .expect("iptables-legacy or iptables, run as root: the harness drops packets with it");
        let rule: Vec<String> = [
            "INPUT",
            "-i",
            "lo",
            "-p",
            "tcp",
            "--sport",
            &from.to_string(),
            "--dport",
            &to.to_string(),
            "-j",
            "DROP",
        ]
        .map(String::from)
        .to_vec();
        let drop = PacketDrop { iptables, rule };
        drop.run("-I");
        drop
    }

    fn run(&self, action: &str) {
        let out = Command::new(self.iptables)
            .args(["-w", action])
            .args(&self.rule)
            .output()
            .expect("run iptables");
        assert!(
            out.status.success(),
            "{} {action} {}: {}",
            self.iptables,
            self.rule.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for PacketDrop {
    fn drop(&mut self) {
        self.run("-D");
    }
}
