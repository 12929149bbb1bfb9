//! A Redis Cluster of a test's own: six `redis-server --cluster-enabled yes`
//! on free loopback ports in temp dirs, joined by `redis-cli --cluster create
//! … --cluster-replicas 1` (three masters, three replicas). Or, for the TLS
//! tests, three masters that speak only TLS, on the cluster bus as well
//! (`--tls-cluster yes`), with the certificates of [`super::tls::certs`].

use super::servers::{free_port, log_file, scratch_root, spawn_tied_to_process, wait_for};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

pub struct ClusterNode {
    dir: tempfile::TempDir,
    /// The node's one port: its TLS port on a TLS cluster.
    pub port: u16,
    /// Speaks only TLS.
    tls: bool,
    child: Option<Child>,
}

impl ClusterNode {
    /// A node on a port whose cluster bus port (port + 10000) is free too;
    /// one that exits before it answers (a port taken meanwhile) is started
    /// again on another.
    fn start(tls: bool) -> Self {
        std::fs::create_dir_all(scratch_root()).expect("scratch root");
        for _ in 0..5 {
            let dir = tempfile::Builder::new()
                .prefix("cluster-")
                .tempdir_in(scratch_root())
                .expect("cluster node dir");
            let port = cluster_port();
            let mut cmd = Command::new("redis-server");
            if tls {
                cmd.args(["--port", "0"])
                    .args(["--tls-port", &port.to_string()])
                    .args(["--tls-cluster", "yes", "--tls-replication", "yes"])
                    .args(super::tls::certs().redis_server_args());
            } else {
                cmd.args(["--port", &port.to_string()]);
            }
            cmd.args(["--bind", "127.0.0.1"])
                .args(["--save", ""])
                .args(["--appendonly", "no"])
                .args(["--cluster-enabled", "yes"])
                .args(["--cluster-node-timeout", "2000"])
                .args(["--maxclients", "2000"])
                .arg("--dir")
                .arg(dir.path())
                .stdin(Stdio::null())
                .stdout(log_file(&dir.path().join("redis.log")))
                .stderr(log_file(&dir.path().join("redis.err")));
            let mut node = ClusterNode {
                port,
                tls,
                child: Some(spawn_tied_to_process(cmd)),
                dir,
            };
            let mut exited = false;
            let dir = node.dir.path().to_path_buf();
            wait_for("redis-server (cluster)", &dir, || {
                exited = node
                    .child
                    .as_mut()
                    .is_some_and(|child| child.try_wait().ok().flatten().is_some());
                exited
                    || node
                        .try_conn()
                        .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c).ok())
                        .is_some()
            });
            if !exited {
                return node;
            }
        }
        panic!(
            "redis-server (cluster) exited on start 5 times; see its logs under {}",
            scratch_root().display()
        );
    }

    fn try_conn(&self) -> Option<redis::Connection> {
        super::tls::loopback_conn(self.port, self.tls)
    }

    pub fn conn(&self) -> redis::Connection {
        self.try_conn().expect("connect to a cluster node")
    }

    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn node_id(&self) -> String {
        redis::cmd("CLUSTER")
            .arg("MYID")
            .query(&mut self.conn())
            .unwrap()
    }

    pub fn is_master(&self) -> bool {
        self.try_conn()
            .and_then(|mut c| redis::cmd("ROLE").query::<Vec<redis::Value>>(&mut c).ok())
            .is_some_and(
                |role| matches!(role.first(), Some(redis::Value::BulkString(b)) if b == b"master"),
            )
    }

    /// The local port of each replica's replication connection to this
    /// master (`CLIENT LIST TYPE replica`).
    pub fn replica_link_ports(&self) -> Vec<u16> {
        let clients: String = redis::cmd("CLIENT")
            .arg("LIST")
            .arg("TYPE")
            .arg("replica")
            .query(&mut self.conn())
            .unwrap();
        clients
            .lines()
            .filter_map(|line| {
                let addr = line.split(' ').find_map(|f| f.strip_prefix("addr="))?;
                addr.rsplit_once(':')?.1.parse().ok()
            })
            .collect()
    }

    /// SIGKILL.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for ClusterNode {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A free port at most 55535 whose bus port (port + 10000) is free as well.
fn cluster_port() -> u16 {
    loop {
        let port = free_port();
        let bus_free =
            port <= 55535 && std::net::TcpListener::bind(("127.0.0.1", port + 10000)).is_ok();
        if bus_free {
            return port;
        }
    }
}

pub struct Cluster {
    pub nodes: Vec<ClusterNode>,
    /// Speaks only TLS.
    tls: bool,
}

impl Cluster {
    /// Six nodes joined into three masters with a replica each, `cluster_state:ok`.
    pub fn start() -> Self {
        Self::start_with(6, 1, false)
    }

    /// Three masters without replicas that speak only TLS, `cluster_state:ok`.
    pub fn start_tls() -> Self {
        Self::start_with(3, 0, true)
    }

    fn start_with(nodes: usize, replicas: u8, tls: bool) -> Self {
        let nodes: Vec<ClusterNode> = (0..nodes).map(|_| ClusterNode::start(tls)).collect();
        let cluster = Cluster { nodes, tls };
        let mut create = cluster.redis_cli();
        create.arg("--cluster").arg("create");
        for node in &cluster.nodes {
            create.arg(node.addr());
        }
        create.args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"]);
        let out = create
            .output()
            .unwrap_or_else(|e| panic!("redis-cli is needed to create the test cluster: {e}"));
        assert!(
            out.status.success(),
            "redis-cli --cluster create failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        cluster.wait_ok();
        // In sync on both ends: a replica's link is up once it has loaded its
        // copy, but its master counts it (`state=online`, what a lease on
        // Redis alone waits for) only at the replica's first acknowledgement.
        super::wait_until(Duration::from_secs(60), "the replicas to sync", || {
            cluster.nodes.iter().all(|n| {
                let info: String = redis::cmd("INFO")
                    .arg("replication")
                    .query(&mut n.conn())
                    .unwrap_or_default();
                if n.is_master() {
                    info.matches(",state=online,").count() >= usize::from(replicas)
                } else {
                    info.contains("master_link_status:up")
                }
            })
        });
        cluster
    }

    /// One cluster for the tests that do not disturb it; they keep to their own apps.
    pub fn shared() -> &'static Cluster {
        static SHARED: OnceLock<Cluster> = OnceLock::new();
        SHARED.get_or_init(Cluster::start)
    }

    /// One TLS cluster ([`Self::start_tls`]) for the TLS tests; they keep to their own apps.
    pub fn shared_tls() -> &'static Cluster {
        static SHARED: OnceLock<Cluster> = OnceLock::new();
        SHARED.get_or_init(Cluster::start_tls)
    }

    /// `redis-cli`, speaking TLS to a TLS cluster.
    fn redis_cli(&self) -> Command {
        let mut cli = Command::new("redis-cli");
        if self.tls {
            cli.args(super::tls::certs().redis_cli_args());
        }
        cli
    }

    /// Every live node says `cluster_state:ok`.
    pub fn wait_ok(&self) {
        super::wait_until(Duration::from_secs(60), "cluster_state:ok", || {
            self.nodes.iter().filter(|n| n.child.is_some()).all(|n| {
                n.try_conn()
                    .and_then(|mut c| {
                        redis::cmd("CLUSTER")
                            .arg("INFO")
                            .query::<String>(&mut c)
                            .ok()
                    })
                    .is_some_and(|info| info.contains("cluster_state:ok"))
            })
        });
    }

    /// `redis-cluster://` (`rediss-cluster://` on a TLS cluster) URL naming two seed nodes.
    pub fn url(&self) -> String {
        format!(
            "{}://{},{}",
            if self.tls {
                "rediss-cluster"
            } else {
                "redis-cluster"
            },
            self.nodes[0].addr(),
            self.nodes[1].addr()
        )
    }

    /// A connection to a node that is up.
    fn live_conn(&self) -> redis::Connection {
        self.nodes
            .iter()
            .find(|n| n.child.is_some())
            .expect("a live node")
            .conn()
    }

    /// The node serving `key` as master now.
    pub fn master_of(&self, key: &str) -> &ClusterNode {
        let slot: u16 = redis::cmd("CLUSTER")
            .arg("KEYSLOT")
            .arg(key)
            .query(&mut self.live_conn())
            .unwrap();
        self.master_of_slot(slot)
    }

    pub fn master_of_slot(&self, slot: u16) -> &ClusterNode {
        let shards: Vec<redis::Value> = redis::cmd("CLUSTER")
            .arg("SLOTS")
            .query(&mut self.live_conn())
            .unwrap();
        for range in shards {
            let redis::Value::Array(fields) = range else {
                continue;
            };
            let num = |i: usize| match fields.get(i) {
                Some(redis::Value::Int(n)) => *n,
                _ => -1,
            };
            if (num(0)..=num(1)).contains(&i64::from(slot)) {
                let Some(redis::Value::Array(master)) = fields.get(2) else {
                    continue;
                };
                let port = match master.get(1) {
                    Some(redis::Value::Int(p)) => *p as u16,
                    _ => continue,
                };
                return self.nodes.iter().find(|n| n.port == port).unwrap();
            }
        }
        panic!("no master serves slot {slot}");
    }

    /// A replica of `master`.
    pub fn replica_of(&self, master: &ClusterNode) -> &ClusterNode {
        let id = master.node_id();
        self.nodes
            .iter()
            .filter(|n| n.child.is_some() && n.port != master.port)
            .find(|n| {
                let nodes: String = redis::cmd("CLUSTER")
                    .arg("NODES")
                    .query(&mut n.conn())
                    .unwrap();
                nodes
                    .lines()
                    .any(|l| l.contains("myself") && l.contains("slave") && l.contains(&id))
            })
            .expect("a replica of the master")
    }

    /// Promotes `replica` with `CLUSTER FAILOVER [how]` and waits until it
    /// serves `key` and the cluster is ok. A manual failover gives up after
    /// 5 s when the replica has not caught up or won its election in time,
    /// which a loaded machine can make it do, so it is asked again every 10 s,
    /// for at most a minute.
    pub fn fail_over_to(&self, replica: &ClusterNode, how: Option<&str>, key: &str) {
        let took_over = || replica.is_master() && self.master_of(key).port == replica.port;
        let asked = (0..6).any(|_| {
            let mut failover = redis::cmd("CLUSTER");
            failover.arg("FAILOVER").arg(how);
            let _: () = failover.query(&mut replica.conn()).unwrap();
            super::poll_until(Duration::from_secs(10), took_over)
        });
        assert!(asked, "timed out waiting for the replica to take over");
        self.wait_ok();
    }

    /// Moves `count` slots from `from` to `to` with `redis-cli --cluster reshard`.
    pub fn reshard(&self, from: &ClusterNode, to: &ClusterNode, count: u32) {
        let out = self
            .redis_cli()
            .arg("--cluster")
            .arg("reshard")
            .arg(from.addr())
            .args(["--cluster-from", &from.node_id()])
            .args(["--cluster-to", &to.node_id()])
            .args(["--cluster-slots", &count.to_string()])
            .arg("--cluster-yes")
            .output()
            .expect("redis-cli --cluster reshard");
        assert!(
            out.status.success(),
            "reshard failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        self.wait_ok();
    }
}
