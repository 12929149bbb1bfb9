//! A Sentinel deployment of a test's own: one master and one replica
//! ([`RedisProcess`]es) watched by three sentinels (`redis-server --sentinel`
//! with a generated config), all on free loopback ports in temp dirs.
//!
//! For the TLS tests, [`TlsSentinels`]: a master that speaks only TLS and
//! sentinels that speak only TLS, to clients and to the master alike.

use super::faults::{Persistence, RedisProcess};
use super::servers::{free_port, log_file, scratch_root, spawn_tied_to_process, wait_for};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// The name the sentinels monitor the master by.
pub const MASTER_NAME: &str = "idgen-master";

struct SentinelProcess {
    _dir: tempfile::TempDir,
    port: u16,
    /// Speaks only TLS.
    tls: bool,
    child: Child,
}

impl SentinelProcess {
    fn conn(&self) -> Option<redis::Connection> {
        super::tls::loopback_conn(self.port, self.tls)
    }
}

impl Drop for SentinelProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct SentinelGroup {
    /// The two data servers; either may be the master after a failover.
    pub servers: Vec<RedisProcess>,
    sentinels: Vec<SentinelProcess>,
}

impl SentinelGroup {
    /// Master, synced replica and three sentinels that know each other and the
    /// replica (so that a failover can start at once).
    pub fn start() -> Self {
        let master = RedisProcess::start(Persistence::None);
        let replica = RedisProcess::replica_of(&master);
        let sentinels: Vec<SentinelProcess> = (0..3)
            .map(|_| sentinel(&scratch_root(), master.port(), false))
            .collect();
        wait_acquainted(&sentinels, 1);
        SentinelGroup {
            servers: vec![master, replica],
            sentinels,
        }
    }

    /// `redis-sentinel://` URL naming all three sentinels.
    pub fn url(&self) -> String {
        let hosts: Vec<String> = self
            .sentinels
            .iter()
            .map(|s| format!("127.0.0.1:{}", s.port))
            .collect();
        format!("redis-sentinel://{}/0#{MASTER_NAME}", hosts.join(","))
    }

    /// The master's port as the first sentinel that answers reports it.
    pub fn master_port(&self) -> Option<u16> {
        self.sentinels.iter().find_map(named_master)
    }

    /// The data server on `port`.
    pub fn server(&mut self, port: u16) -> &mut RedisProcess {
        self.servers
            .iter_mut()
            .find(|s| s.port() == port)
            .expect("a server of the group")
    }

    /// Asks a sentinel to fail over now (`SENTINEL FAILOVER`).
    pub fn failover(&self) {
        let mut conn = self.sentinels[0].conn().expect("a sentinel");
        let _: () = redis::cmd("SENTINEL")
            .arg("FAILOVER")
            .arg(MASTER_NAME)
            .query(&mut conn)
            .expect("SENTINEL FAILOVER");
    }

    /// Waits until every sentinel names a master other than `old`, and that
    /// server says it is a master; returns its port.
    pub fn wait_for_new_master(&self, old: u16) -> u16 {
        let mut new = None;
        super::wait_until(Duration::from_secs(60), "the sentinels to promote", || {
            let named: Vec<Option<u16>> = self.sentinels.iter().map(named_master).collect();
            let Some(Some(port)) = named.first().copied() else {
                return false;
            };
            let agreed = port != old && named.iter().all(|p| *p == Some(port));
            let is_master = agreed
                && redis::Client::open(format!("redis://127.0.0.1:{port}").as_str())
                    .and_then(|c| c.get_connection())
                    .and_then(|mut c| redis::cmd("ROLE").query::<Vec<redis::Value>>(&mut c))
                    .is_ok_and(|role| {
                        matches!(role.first(), Some(redis::Value::BulkString(b)) if b == b"master")
                    });
            new = Some(port);
            is_master
        });
        new.expect("a new master")
    }
}

/// Waits until each sentinel sees the others and `replicas` replicas, and
/// calls the master a master.
fn wait_acquainted(sentinels: &[SentinelProcess], replicas: usize) {
    let others = (sentinels.len() - 1).to_string();
    let replicas = replicas.to_string();
    super::wait_until(
        Duration::from_secs(60),
        "the sentinels to see each other and the replicas",
        || {
            sentinels.iter().all(|s| {
                let fields = sentinel_master(s);
                fields.get("num-other-sentinels") == Some(&others)
                    && fields.get("num-slaves") == Some(&replicas)
                    && fields.get("flags").map(String::as_str) == Some("master")
            })
        },
    );
}

/// Sentinels that speak only TLS (two), watching a master that speaks only
/// TLS ([`super::tls::start_redis`], 64 databases, no replica). Started on
/// first use and shared: each TLS test keeps to its own database.
pub struct TlsSentinels {
    sentinels: Vec<SentinelProcess>,
}

impl TlsSentinels {
    pub fn shared() -> &'static TlsSentinels {
        static SHARED: OnceLock<TlsSentinels> = OnceLock::new();
        SHARED.get_or_init(|| {
            let root = scratch_root().join(format!("run-{}", std::process::id()));
            let master = super::tls::start_redis(&root.join("redis-tls-sentinel-master"));
            let sentinels: Vec<SentinelProcess> =
                (0..2).map(|_| sentinel(&root, master, true)).collect();
            wait_acquainted(&sentinels, 0);
            TlsSentinels { sentinels }
        })
    }

    /// `rediss-sentinel://` URL naming both sentinels and database `db`.
    pub fn url(&self, db: usize) -> String {
        let hosts: Vec<String> = self
            .sentinels
            .iter()
            .map(|s| format!("127.0.0.1:{}", s.port))
            .collect();
        format!("rediss-sentinel://{}/{db}#{MASTER_NAME}", hosts.join(","))
    }
}

/// The master's port as `sentinel` names it.
fn named_master(sentinel: &SentinelProcess) -> Option<u16> {
    let mut conn = sentinel.conn()?;
    let addr: Option<(String, u16)> = redis::cmd("SENTINEL")
        .arg("GET-MASTER-ADDR-BY-NAME")
        .arg(MASTER_NAME)
        .query(&mut conn)
        .ok()?;
    addr.map(|(_, port)| port)
}

/// `SENTINEL MASTER` as field → value.
fn sentinel_master(sentinel: &SentinelProcess) -> std::collections::HashMap<String, String> {
    let Some(mut conn) = sentinel.conn() else {
        return Default::default();
    };
    let fields: Vec<String> = redis::cmd("SENTINEL")
        .arg("MASTER")
        .arg(MASTER_NAME)
        .query(&mut conn)
        .unwrap_or_default();
    fields
        .chunks(2)
        .filter_map(|pair| Some((pair.first()?.clone(), pair.get(1)?.clone())))
        .collect()
}

/// A sentinel in a temp dir under `parent` watching the master on
/// `master_port`; with `tls`, it speaks only TLS, to its clients and to the
/// servers and sentinels it talks to.
fn sentinel(parent: &Path, master_port: u16, tls: bool) -> SentinelProcess {
    let dir = tempfile::Builder::new()
        .prefix("sentinel-")
        .tempdir_in({
            std::fs::create_dir_all(parent).expect("sentinel parent dir");
            parent
        })
        .expect("sentinel dir");
    let port = free_port();
    let config = dir.path().join("sentinel.conf");
    let ports = if tls {
        let files = super::tls::certs().redis_server_settings();
        let files = files
            .iter()
            .map(|(name, file)| format!("{name} {}\n", file.display()));
        format!(
            "port 0\ntls-port {port}\ntls-replication yes\n{}",
            files.collect::<String>()
        )
    } else {
        format!("port {port}\n")
    };
    // Quick failure detection, so that a killed master is replaced in seconds.
    std::fs::write(
        &config,
        format!(
            "{ports}bind 127.0.0.1\ndir {dir}\n\
             sentinel monitor {MASTER_NAME} 127.0.0.1 {master_port} 2\n\
             sentinel down-after-milliseconds {MASTER_NAME} 1000\n\
             sentinel failover-timeout {MASTER_NAME} 10000\n\
             sentinel parallel-syncs {MASTER_NAME} 1\n",
            dir = dir.path().display()
        ),
    )
    .expect("write sentinel.conf");
    let mut cmd = Command::new("redis-server");
    cmd.arg(&config)
        .arg("--sentinel")
        .stdin(Stdio::null())
        .stdout(log_file(&dir.path().join("sentinel.log")))
        .stderr(log_file(&dir.path().join("sentinel.err")));
    let child = spawn_tied_to_process(cmd);
    let process = SentinelProcess {
        _dir: dir,
        port,
        tls,
        child,
    };
    wait_for("redis-server --sentinel", process._dir.path(), || {
        process
            .conn()
            .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c).ok())
            .is_some()
    });
    process
}
