//! The one harness every test shares.
//!
//! It starts its own `redis-server`s and `mariadbd` on free loopback ports in a
//! temporary directory, once per test run, or uses `IDGEN_TEST_REDIS_URL`,
//! `IDGEN_TEST_REDIS2_URL` and `IDGEN_TEST_MYSQL_URL` when they are set. It never
//! touches any other server. Each test takes a [`TestEnv`]: its own Redis
//! database number and its own MySQL database, wiped when taken, plus a home
//! directory, so tests run in parallel without seeing each other.
//!
//! Servers are started from one long-lived thread with `PR_SET_PDEATHSIG`, so
//! they die with the test process however it ends. Tests of refused access get a
//! second `mariadbd` that checks privileges ([`servers::mysql_with_grants`]),
//! started only when such a test runs.

pub mod cluster;
pub mod coprocess;
pub mod faults;
pub mod galera;
pub mod mysql_faults;
pub mod sentinel;
pub mod served;
pub mod servers;
mod stores;
pub mod takers;
pub mod test;
pub mod tls;

use std::collections::HashSet;
use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use idgen::shard::SegmentId;

pub use coprocess::Coprocess;
pub use servers::servers;
pub use test::Test;

/// How long any single idgen process may run before the test fails.
pub const PROCESS_LIMIT: Duration = Duration::from_secs(120);

/// The `idgen` binary under test.
pub fn idgen_bin() -> &'static str {
    env!("CARGO_BIN_EXE_idgen")
}

/// Which storage a test runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// Redis + MySQL.
    Distributed,
    /// One SQLite file in the test's home (`IDGEN_STORE`); no server at all.
    Embedded,
}

/// Slots: pairs of (Redis db, MySQL database) handed to one test at a time.
struct SlotPool {
    free: Mutex<Vec<usize>>,
    returned: Condvar,
}

fn pool() -> &'static SlotPool {
    static POOL: OnceLock<SlotPool> = OnceLock::new();
    POOL.get_or_init(|| SlotPool {
        free: Mutex::new((0..servers().slots).rev().collect()),
        returned: Condvar::new(),
    })
}

/// One test's isolated world.
pub struct TestEnv {
    pub backend: StoreKind,
    /// The server slot held (distributed only).
    slot: Option<usize>,
    pub redis_url: String,
    /// Node `hot`: a database on the second redis-server.
    pub hot_url: String,
    /// Node `cold`: another database on the first server, a third keyspace.
    pub cold_url: String,
    pub mysql_url: String,
    /// Whether commands see nodes `hot` and `cold` besides `main`.
    named_nodes: bool,
    pub home: tempfile::TempDir,
}

impl TestEnv {
    /// A fresh, empty environment on the distributed backend.
    pub fn distributed() -> Self {
        let pool = pool();
        let slot = {
            let mut free = pool.free.lock().unwrap();
            loop {
                if let Some(slot) = free.pop() {
                    break slot;
                }
                free = pool.returned.wait(free).unwrap();
            }
        };
        let servers = servers();
        let redis_url = servers.redis_db_url(slot);
        let mysql_url = servers.mysql_db_url(slot);
        let hot_url = servers.redis2_db_url(slot);
        let cold_url = servers.redis_db_url(slot + servers.slots);
        servers.wipe(slot);
        TestEnv {
            backend: StoreKind::Distributed,
            slot: Some(slot),
            redis_url,
            hot_url,
            cold_url,
            mysql_url,
            named_nodes: false,
            home: tempfile::tempdir().expect("temp home"),
        }
    }

    /// The same, with Redis nodes `hot` (the second server) and `cold` configured
    /// through `IDGEN_REDIS_NODES`.
    pub fn distributed_with_nodes() -> Self {
        let mut env = Self::distributed();
        env.named_nodes = true;
        env
    }

    /// A fresh environment on the embedded store: no server, the store file in
    /// the test's own home.
    pub fn embedded() -> Self {
        TestEnv {
            backend: StoreKind::Embedded,
            slot: None,
            redis_url: String::new(),
            hot_url: String::new(),
            cold_url: String::new(),
            mysql_url: String::new(),
            named_nodes: false,
            home: tempfile::tempdir().expect("temp home"),
        }
    }

    /// The embedded store's file (`IDGEN_STORE` of every command).
    pub fn store_path(&self) -> std::path::PathBuf {
        self.home.path().join("idgen.db")
    }

    /// A connection to the embedded store's file, for inspecting or tampering.
    pub fn sqlite(&self) -> rusqlite::Connection {
        let conn = rusqlite::Connection::open(self.store_path()).expect("open the test store");
        conn.busy_timeout(Duration::from_secs(10))
            .expect("set a busy timeout");
        conn
    }

    /// An `idgen` command with only this environment's settings: no inherited
    /// `IDGEN_*`, a private HOME and XDG directories.
    pub fn idgen(&self) -> Command {
        let mut cmd = Command::new(idgen_bin());
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("XDG_DATA_HOME", self.home.path().join("data"))
            .env("IDGEN_TIMEOUT", "10s")
            .stdin(Stdio::null());
        match self.backend {
            StoreKind::Distributed => {
                cmd.env("IDGEN_REDIS_URL", &self.redis_url)
                    .env("IDGEN_MYSQL_URL", &self.mysql_url);
                if self.named_nodes {
                    cmd.env(
                        "IDGEN_REDIS_NODES",
                        format!("hot={} cold={}", self.hot_url, self.cold_url),
                    );
                }
            }
            StoreKind::Embedded => {
                cmd.env("IDGEN_STORE", self.store_path());
            }
        }
        cmd
    }

    /// Starts `idgen args…` as a coprocess with piped stdin, stdout and stderr.
    pub fn coprocess(&self, args: &[&str], vars: &[(&str, &str)]) -> Coprocess {
        let mut cmd = self.idgen();
        cmd.args(args);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        Coprocess::spawn(cmd)
    }

    /// Where idgen looks by default in this environment:
    /// `$XDG_CONFIG_HOME/idgen/config.toml`.
    pub fn config_path(&self) -> std::path::PathBuf {
        self.home.path().join("config/idgen/config.toml")
    }

    /// Writes `text` as this environment's default config file; returns its path.
    pub fn write_config(&self, text: &str) -> std::path::PathBuf {
        let path = self.config_path();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A setup step: runs `idgen args…`, insists on exit 0 and returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        Test::within(self)
            .args(args.iter().copied())
            .status(idgen::exit_code::OK)
            .run()
            .stdout
    }

    /// A setup step whose answer a test reads: runs `idgen args…`, insists on
    /// exit 0 and returns stdout as one JSON document.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        Test::within(self)
            .args(args.iter().copied())
            .status(idgen::exit_code::OK)
            .run()
            .json()
    }

    /// This test's database on the second Redis server, for a second node.
    pub fn redis2_url(&self) -> String {
        self.hot_url.clone()
    }

    /// A Redis connection to this test's database.
    pub fn redis(&self) -> redis::Connection {
        redis::Client::open(self.redis_url.as_str())
            .and_then(|c| c.get_connection())
            .expect("redis test connection")
    }

    /// A connection to the database of node `hot` (the second redis-server).
    pub fn redis_hot(&self) -> redis::Connection {
        redis::Client::open(self.hot_url.as_str())
            .and_then(|c| c.get_connection())
            .expect("hot redis test connection")
    }

    /// Closes, from the server's side, every connection process `pid`
    /// holds to this test's Redis server (matched by their local ports, read
    /// from `/proc`), as a server that dies under a request would; returns
    /// how many.
    pub fn cut_redis_connections_of(&self, pid: i32) -> usize {
        let ports = local_tcp_ports(pid);
        let mut redis = self.redis();
        let clients: String = redis::cmd("CLIENT")
            .arg("LIST")
            .query(&mut redis)
            .expect("CLIENT LIST");
        let mut cut = 0;
        for client in clients.lines() {
            let field = |name: &str| {
                client
                    .split_whitespace()
                    .find_map(|f| f.strip_prefix(name))
                    .unwrap_or_default()
                    .to_string()
            };
            let port = field("addr=")
                .rsplit(':')
                .next()
                .unwrap_or_default()
                .parse::<u16>();
            if port.is_ok_and(|port| ports.contains(&port)) {
                let _: redis::Value = redis::cmd("CLIENT")
                    .arg("KILL")
                    .arg("ID")
                    .arg(field("id="))
                    .query(&mut redis)
                    .expect("CLIENT KILL");
                cut += 1;
            }
        }
        cut
    }

    /// The push buffers left in this test's database: none, ever, once every
    /// push has answered (each script moves or drops its buffer).
    pub fn push_buffers_left(&self) -> Vec<String> {
        use redis::Commands;
        self.redis()
            .scan_match::<_, String>(keys::buffers())
            .expect("SCAN")
            .collect::<Result<_, _>>()
            .expect("SCAN")
    }
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            let pool = pool();
            pool.free.lock().unwrap().push(slot);
            pool.returned.notify_one();
        }
    }
}

/// A finished idgen process.
#[derive(Debug)]
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Runs `cmd` to its end, failing the test if it outlives [`PROCESS_LIMIT`].
    pub fn of(mut cmd: Command) -> Run {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let child = cmd.spawn().expect("spawn idgen");
        Run::wait(child)
    }

    /// Waits for a spawned child with piped output.
    pub fn wait(mut child: Child) -> Run {
        let mut stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let out_reader = std::thread::spawn(move || {
            let mut text = String::new();
            stdout.read_to_string(&mut text).map(|_| text)
        });
        let err_reader = std::thread::spawn(move || {
            let mut text = String::new();
            stderr.read_to_string(&mut text).map(|_| text)
        });
        let (done, finished) = mpsc::channel();
        let pid = child.id();
        let waiter = std::thread::spawn(move || {
            let status = child.wait();
            let _ = done.send(());
            status
        });
        if finished.recv_timeout(PROCESS_LIMIT).is_err() {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("idgen (pid {pid}) ran longer than {PROCESS_LIMIT:?}");
        }
        let status = waiter.join().unwrap().expect("wait for idgen");
        Run {
            status,
            stdout: out_reader.join().unwrap().expect("read stdout"),
            stderr: err_reader.join().unwrap().expect("read stderr"),
        }
    }

    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// The exit code; panics if the process died of a signal.
    pub fn code(&self) -> i32 {
        self.status
            .code()
            .unwrap_or_else(|| panic!("idgen died of a signal: {self}"))
    }

    /// stdout as one JSON document.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {self}"))
    }

    /// The IDs printed on stdout, one per line.
    pub fn ids(&self) -> Vec<u64> {
        parse_ids(&self.stdout)
    }

    /// The one stderr line of a failed run, checked to be an error that names
    /// its fix (`error: …; hint: …`).
    pub fn one_line_error(&self) -> &str {
        let lines: Vec<&str> = self
            .stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        assert_eq!(lines.len(), 1, "expected one stderr line: {self}");
        assert!(lines[0].starts_with("error: "), "{self}");
        assert!(
            lines[0].contains("; hint: "),
            "the error names no fix: {self}"
        );
        lines[0]
    }
}

/// The worker ID of the `acquired` event a `lease --json` printed on stderr.
pub fn acquired_worker(stderr: &str) -> u64 {
    stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["event"] == "acquired")
        .and_then(|v| v["worker"].as_u64())
        .unwrap_or_else(|| panic!("no acquired event in {stderr}"))
}

/// `lease --namespace NS --json EXTRA…`.
pub fn lease_args<'a>(namespace: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["lease", "--namespace", namespace, "--json"];
    args.extend_from_slice(extra);
    args
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.status,
            truncate(&self.stdout),
            truncate(&self.stderr)
        )
    }
}

fn truncate(text: &str) -> &str {
    let end = text.char_indices().nth(4000).map_or(text.len(), |(i, _)| i);
    &text[..end]
}

/// Parses one ID per line.
pub fn parse_ids(text: &str) -> Vec<u64> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.trim()
                .parse()
                .unwrap_or_else(|e| panic!("not an ID: {l:?}: {e}"))
        })
        .collect()
}

/// `idgen status --json` with node `hot` at `hot_url`, given once by
/// `--redis-node` and once in `IDGEN_REDIS_NODES` beside `cold`, with `vars`
/// set: each run and its report's entry for `hot`.
pub fn status_of_hot_node(
    env: &TestEnv,
    hot_url: &str,
    vars: &[(&str, &str)],
) -> Vec<(Run, serde_json::Value)> {
    let by_flag = (
        vec!["--redis-node".to_string(), format!("hot={hot_url}")],
        None,
    );
    let by_list = (vec![], Some(format!("cold={} hot={hot_url}", env.cold_url)));
    [by_flag, by_list]
        .into_iter()
        .map(|(args, nodes)| {
            let test = Test::within(env).args(&args).args(["status", "--json"]);
            let test = match nodes {
                Some(nodes) => test.env("IDGEN_REDIS_NODES", nodes),
                None => test,
            };
            let run = test.envs(vars).run();
            let report = run.json();
            let hot = report["stores"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"] == "hot")
                .unwrap_or_else(|| panic!("no node hot: {report}"))
                .clone();
            (run, hot)
        })
        .collect()
}

/// Asserts that no ID occurs twice, naming the first repeat.
pub fn assert_unique(ids: &[u64]) {
    let mut seen = HashSet::with_capacity(ids.len());
    for id in ids {
        assert!(
            seen.insert(*id),
            "ID {id} was issued twice (of {} IDs)",
            ids.len()
        );
    }
}

/// A gate pass (`--gate-pass`) that `next` sends to `shard`: the first of
/// `k0`, `k1`, … that lands there.
pub fn gate_pass_for(shard: u8) -> String {
    (0..)
        .map(|i| format!("k{i}"))
        .find(|pass| idgen::segment::shard_for_gate_pass(pass) == shard)
        .expect("every shard has a gate pass among k0, k1, ...")
}

/// The fields of a segment ID: (index, shard, app), by the core's layout.
pub fn segment_parts(id: u64) -> (u64, u8, u8) {
    let parts = SegmentId::decompose(id);
    (parts.index, parts.shard, parts.app)
}

/// The index fields of segment IDs, in order.
pub fn segment_indexes(ids: &[u64]) -> Vec<u64> {
    ids.iter().map(|&id| segment_parts(id).0).collect()
}

/// The segment ID of `index` on `shard` of `app`, by the core's layout; also how
/// a test writes a `max_limit_id` (the ID of the last index a shard may issue).
pub fn segment_id(index: u64, shard: u8, app: u8) -> u64 {
    SegmentId { index, shard, app }
        .compose()
        .unwrap_or_else(|e| panic!("no segment ID for index {index} shard {shard} app {app}: {e}"))
}

/// The `max_limit_id` under which the last index every shard of `app` may issue
/// is `index`: the ID of index `index` on shard 63, the tightest.
pub fn limit_with_last_index(index: u64, app: u8) -> u64 {
    segment_id(index, 63, app)
}

/// App 1, `capped`, whose every shard may issue indexes 1..=10 and no more;
/// returns its `max_limit_id`.
pub fn init_app_1_capped_at_index_10(env: &TestEnv) -> u64 {
    let limit = limit_with_last_index(10, 1);
    env.ok(&[
        "init-app",
        "--app",
        "1",
        "--name",
        "capped",
        "--max-limit-id",
        &limit.to_string(),
    ]);
    limit
}

/// `lease` in namespace `tiny`, which has room for two worker IDs
/// (`time:41,worker:1,seq:21` from 2024-01-01), then `extra`.
pub fn tiny_namespace_lease<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "lease",
        "--namespace",
        "tiny",
        "--bits",
        "time:41,worker:1,seq:21",
        "--epoch",
        "2024-01-01",
    ];
    args.extend_from_slice(extra);
    args
}

/// The fields of a namespace with room for four worker IDs.
const FOUR_WORKERS: &str = "time:41,worker:2,seq:20";
/// Its epoch.
const FOUR_WORKERS_EPOCH: &str = "2024-01-01";

/// `lease --json` in `namespace`, which has room for four worker IDs
/// (`time:41,worker:2,seq:20` from 2024-01-01), then `how`.
pub fn four_worker_lease<'a>(namespace: &'a str, how: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "lease",
        "--json",
        "--namespace",
        namespace,
        "--bits",
        FOUR_WORKERS,
        "--epoch",
        FOUR_WORKERS_EPOCH,
    ];
    args.extend_from_slice(how);
    args
}

/// The worker ID in an ID of a [`four_worker_lease`], by the core's layout.
pub fn worker_of_four_worker_id(id: u64) -> u64 {
    let epoch = idgen::layout::parse_epoch(FOUR_WORKERS_EPOCH).unwrap();
    idgen::layout::Layout::custom(FOUR_WORKERS, None, Some(epoch))
        .unwrap()
        .decompose(id)
        .unwrap()
        .get(idgen::layout::FieldKind::Worker)
        .unwrap()
}

/// Redis key names, as the core names them.
pub mod keys {
    use idgen::store::Slot;
    use idgen::store::redis;

    pub fn queue(app: u8, shard: u8) -> String {
        redis::queue_key(Slot { app, shard })
    }

    pub fn lock(app: u8, shard: u8) -> String {
        redis::lock_key(Slot { app, shard })
    }

    pub fn route(app: u8) -> String {
        redis::route_key(app)
    }

    pub fn stamp(app: u8, shard: u8) -> String {
        redis::stamp_key(Slot { app, shard })
    }

    /// The shard's witness (and the node a move sealed it for, `moved_to`).
    pub fn witness(app: u8, shard: u8) -> String {
        redis::witness_key(Slot { app, shard })
    }

    /// A KEYS/SCAN pattern for every queue of `app`.
    pub fn queues_of(app: u8) -> String {
        format!("{}{app}_*", redis::QUEUE_PREFIX)
    }

    /// A KEYS/SCAN pattern for every push buffer (empty between pushes).
    pub fn buffers() -> String {
        format!("{}*", redis::BUFFER_PREFIX)
    }

    /// The free list of lease namespace `namespace` (the core keeps this name
    /// private to its lease store).
    pub fn free_list(namespace: &str) -> String {
        format!("idgen:{{{namespace}}}:free")
    }

    /// The time fence per worker of lease namespace `namespace` (on Redis +
    /// MySQL, Redis's witness of the fences MySQL records).
    pub fn fences(namespace: &str) -> String {
        format!("idgen:{{{namespace}}}:last")
    }

    /// A KEYS/SCAN pattern for every lock of `app` (tagged ones on a cluster too).
    pub fn locks_of(app: u8) -> String {
        format!("{}{app}_*", redis::LOCK_PREFIX)
    }
}

/// Sets its flag when dropped, so that loops watching it end even when the
/// test fails (a panic inside `std::thread::scope` waits for every thread).
pub struct StopOnDrop<'a>(pub &'a std::sync::atomic::AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The local ports of the TCP sockets process `pid` holds: its socket
/// inodes (`/proc/PID/fd`) looked up in `/proc/net/tcp` and `tcp6`.
pub fn local_tcp_ports(pid: i32) -> HashSet<u16> {
    let inodes: HashSet<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("the process's file descriptors")
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter_map(|target| {
            let target = target.to_string_lossy().into_owned();
            Some(
                target
                    .strip_prefix("socket:[")?
                    .strip_suffix(']')?
                    .to_string(),
            )
        })
        .collect();
    let mut ports = HashSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl, local_address (HEX_IP:HEX_PORT), rem_address, st, …, inode (10th).
            if let (Some(local), Some(inode)) = (fields.get(1), fields.get(9))
                && inodes.contains(*inode)
                && let Some((_, port)) = local.rsplit_once(':')
                && let Ok(port) = u16::from_str_radix(port, 16)
            {
                ports.insert(port);
            }
        }
    }
    ports
}

/// Waits until process `pid` is stopped (`T` in `/proc/PID/stat`), as a
/// `=stop` failpoint leaves it; fails the test after 30 s.
pub fn wait_until_stopped(pid: i32, what: &str) {
    let stopped = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| {
                // The command name, in parentheses, may hold spaces.
                stat.rsplit_once(')')
                    .map(|(_, rest)| rest.trim_start().starts_with('T'))
            })
            .unwrap_or(false)
    };
    wait_until(Duration::from_secs(30), what, stopped);
}

/// Waits until `check` holds, polling; fails the test after `limit`.
pub fn wait_until(limit: Duration, what: &str, check: impl FnMut() -> bool) {
    assert!(poll_until(limit, check), "timed out waiting for {what}");
}

/// Polls `check` until it holds (true) or `limit` passes (false).
pub fn poll_until(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while !check() {
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}
