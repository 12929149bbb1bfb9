//! Starting (or finding) the real servers the tests talk to.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Where the tests' servers are, and how many isolated slots they offer.
pub struct Servers {
    redis: String,
    redis2: String,
    mysql: String,
    /// How many tests may hold an environment at once.
    pub slots: usize,
}

impl Servers {
    pub fn redis_db_url(&self, slot: usize) -> String {
        format!("{}/{slot}", self.redis)
    }

    pub fn redis2_db_url(&self, slot: usize) -> String {
        format!("{}/{slot}", self.redis2)
    }

    pub fn mysql_db_url(&self, slot: usize) -> String {
        format!("{}/idgen_test_{slot}", self.mysql)
    }

    /// Empties a slot: its Redis databases and its MySQL database.
    pub fn wipe(&self, slot: usize) {
        let cold = self.redis_db_url(slot + self.slots);
        for url in [self.redis_db_url(slot), self.redis2_db_url(slot), cold] {
            let mut conn = redis::Client::open(url.as_str())
                .and_then(|c| c.get_connection())
                .unwrap_or_else(|e| panic!("test Redis {url}: {e}"));
            redis::cmd("FLUSHDB").exec(&mut conn).expect("FLUSHDB");
        }
        mysql_exec(
            &format!("{}/mysql", self.mysql),
            &format!(
                "DROP DATABASE IF EXISTS idgen_test_{slot}; CREATE DATABASE idgen_test_{slot}"
            ),
        );
    }
}

/// The servers, started on first use.
pub fn servers() -> &'static Servers {
    static SERVERS: OnceLock<Servers> = OnceLock::new();
    SERVERS.get_or_init(start)
}

fn start() -> Servers {
    let root = scratch_root().join(format!("run-{}", std::process::id()));
    remove_stale_runs(&scratch_root());
    std::fs::create_dir_all(&root).expect("harness scratch dir");
    let given = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    require_servers(
        given("IDGEN_TEST_REDIS_URL").is_none() || given("IDGEN_TEST_REDIS2_URL").is_none(),
        given("IDGEN_TEST_MYSQL_URL").is_none(),
    );
    let redis = given("IDGEN_TEST_REDIS_URL")
        .map(|url| strip_path(&url))
        .unwrap_or_else(|| start_redis(&root.join("redis")));
    let redis2 = given("IDGEN_TEST_REDIS2_URL")
        .map(|url| strip_path(&url))
        .unwrap_or_else(|| start_redis(&root.join("redis2")));
    let mysql = given("IDGEN_TEST_MYSQL_URL")
        .map(|url| strip_path(&url))
        .unwrap_or_else(|| start_mariadb(&root.join("mariadb")));
    let slots = redis_databases(&redis)
        .min(redis_databases(&redis2))
        .min(32);
    assert!(slots > 0, "the test Redis offers no databases");
    Servers {
        redis,
        redis2,
        mysql,
        slots,
    }
}

/// On a fresh machine, says once what is missing and how to install it, and
/// stops the run, instead of a panic in every test that needs a server.
fn require_servers(redis: bool, mariadb: bool) {
    let on_path = |bin: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(bin).is_file()))
    };
    let missing: Vec<&str> = [
        (redis, "redis-server"),
        (mariadb, "mariadbd"),
        (mariadb, "mariadb-install-db"),
    ]
    .into_iter()
    .filter(|&(needed, bin)| needed && !on_path(bin))
    .map(|(_, bin)| bin)
    .collect();
    if !missing.is_empty() {
        // Straight to the process's stderr: the test harness captures eprintln!,
        // and would drop it on exit.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "error: the integration tests need {} on PATH; install them with `sudo apt-get install -y redis-server mariadb-server` (or set IDGEN_TEST_REDIS_URL, IDGEN_TEST_REDIS2_URL and IDGEN_TEST_MYSQL_URL to running servers)",
            missing.join(", ")
        );
        std::process::exit(2);
    }
}

/// `redis://host:port/3` → `redis://host:port`; the harness picks databases itself.
fn strip_path(url: &str) -> String {
    let scheme_end = url.find("://").map_or(0, |i| i + 3);
    match url[scheme_end..].find('/') {
        Some(i) => url[..scheme_end + i].to_string(),
        None => url.trim_end_matches('/').to_string(),
    }
}

fn redis_databases(url: &str) -> usize {
    let mut conn = redis::Client::open(format!("{url}/0").as_str())
        .and_then(|c| c.get_connection())
        .unwrap_or_else(|e| panic!("test Redis {url}: {e}"));
    let answer: redis::RedisResult<Vec<String>> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("databases")
        .query(&mut conn);
    answer
        .ok()
        .and_then(|kv| kv.get(1).and_then(|n| n.parse().ok()))
        .unwrap_or(16)
}

/// The directory under `target/` where the harness keeps its servers' data.
pub fn scratch_root() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("idgen-harness")
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Runs `spawn` on one thread that lives as long as the test process, so that
/// `PR_SET_PDEATHSIG` (tied to the spawning thread) fires only when the process ends.
pub fn spawn_tied_to_process(mut cmd: Command) -> Child {
    type Request = (Command, mpsc::Sender<std::io::Result<Child>>);
    static SPAWNER: OnceLock<mpsc::Sender<Request>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Request>();
        std::thread::Builder::new()
            .name("harness-spawner".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
                // The sender lives in a static, so this loop never ends.
            })
            .expect("spawner thread");
        tx
    });
    // SAFETY: prctl in the forked child before exec; async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let (reply, answer) = mpsc::channel();
    spawner.send((cmd, reply)).expect("spawner alive");
    answer
        .recv()
        .expect("spawner answered")
        .expect("start test server")
}

/// Keeps the servers' handles for the life of the test process; they are killed
/// by `PR_SET_PDEATHSIG` when it ends, not waited for.
pub fn keep(child: Child) {
    static CHILDREN: std::sync::Mutex<Vec<Child>> = std::sync::Mutex::new(Vec::new());
    CHILDREN.lock().unwrap().push(child);
}

pub fn log_file(path: &Path) -> Stdio {
    std::fs::File::create(path)
        .map(Stdio::from)
        .unwrap_or_else(|_| Stdio::null())
}

fn start_redis(dir: &Path) -> String {
    std::fs::create_dir_all(dir).expect("redis dir");
    let port = free_port();
    let mut cmd = Command::new("redis-server");
    cmd.args(["--port", &port.to_string()])
        .args(["--bind", "127.0.0.1"])
        .args(["--save", ""])
        .args(["--appendonly", "no"])
        .args(["--databases", "64"])
        .args(["--maxclients", "4000"])
        // Every RESTORE payload a queue push sends is checked entry by entry.
        .args(["--sanitize-dump-payload", "yes"])
        .arg("--dir")
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(log_file(&dir.join("redis.log")))
        .stderr(log_file(&dir.join("redis.err")));
    keep(spawn_tied_to_process(cmd));
    let url = format!("redis://127.0.0.1:{port}");
    wait_for("redis-server", dir, || {
        redis::Client::open(format!("{url}/0").as_str())
            .and_then(|c| c.get_connection())
            .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c))
            .is_ok()
    });
    url
}

/// A second MariaDB that checks users and privileges (the shared one runs with
/// `--skip-grant-tables`), for tests of refused access; started on first use.
/// Its root logs in over TCP without a password. `IDGEN_TEST_MYSQL_GRANTS_URL`
/// names an existing one instead (a root URL; tests create users and databases).
pub fn mysql_with_grants() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        if let Some(url) = std::env::var("IDGEN_TEST_MYSQL_GRANTS_URL")
            .ok()
            .filter(|v| !v.trim().is_empty())
        {
            return strip_path(&url);
        }
        let root = scratch_root().join(format!("run-{}", std::process::id()));
        start_mariadb_with(&root.join("mariadb-grants"), false, &[], None)
    })
}

fn start_mariadb(dir: &Path) -> String {
    start_mariadb_with(dir, true, &[], None)
}

/// Starts a mariadbd in `dir` with `extra` arguments; `ssl` is how the
/// harness itself connects to it (when it accepts only TLS).
pub fn start_mariadb_with(
    dir: &Path,
    skip_grants: bool,
    extra: &[String],
    ssl: Option<&mysql_async::SslOpts>,
) -> String {
    let data = dir.join("data");
    // Each server keeps its temporary tables in its own directory: a mariadbd
    // starting up removes the `#sql…` files it finds in its tmpdir, and with a
    // shared /tmp it removed those of another server's bootstrap.
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).expect("mariadb dir");
    let install = Command::new("mariadb-install-db")
        .arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .arg(format!("--tmpdir={}", tmp.display()))
        .args([
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            "--user=root",
        ])
        .stdout(log_file(&dir.join("install.log")))
        .stderr(log_file(&dir.join("install.err")))
        .status()
        .expect("mariadb-install-db is installed");
    assert!(
        install.success(),
        "mariadb-install-db failed; see {}",
        dir.display()
    );
    let port = free_port();
    let mut cmd = Command::new("mariadbd");
    cmd.arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .arg(format!("--tmpdir={}", tmp.display()))
        .arg(format!("--socket={}", dir.join("mysqld.sock").display()))
        .arg(format!("--pid-file={}", dir.join("mysqld.pid").display()))
        .arg(format!("--port={port}"))
        .args([
            "--bind-address=127.0.0.1",
            "--user=root",
            "--skip-name-resolve",
            "--skip-log-bin",
            "--max-connections=2000",
            "--innodb-buffer-pool-size=128M",
            "--innodb-flush-log-at-trx-commit=2",
        ])
        .args(skip_grants.then_some("--skip-grant-tables"))
        .args(extra)
        .stdin(Stdio::null())
        .stdout(log_file(&dir.join("mariadbd.log")))
        .stderr(log_file(&dir.join("mariadbd.err")));
    keep(spawn_tied_to_process(cmd));
    let url = format!("mysql://root@127.0.0.1:{port}");
    let probe = format!("{url}/mysql");
    wait_for("mariadbd", dir, || mysql_ping(&probe, ssl));
    url
}

pub fn wait_for(what: &str, dir: &Path, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(
            Instant::now() < deadline,
            "{what} did not start within 60s; logs in {}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Deletes scratch directories of earlier test runs whose process is gone.
fn remove_stale_runs(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("run-")) else {
            continue;
        };
        let alive = PathBuf::from(format!("/proc/{pid}")).exists();
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("test runtime")
        .block_on(future)
}

/// The options to reach `url`, over TLS when `ssl` is given.
fn mysql_opts(url: &str, ssl: Option<&mysql_async::SslOpts>) -> Option<mysql_async::Opts> {
    let opts = mysql_async::Opts::from_url(url).ok()?;
    Some(
        mysql_async::OptsBuilder::from_opts(opts)
            .ssl_opts(ssl.cloned())
            .into(),
    )
}

fn mysql_ping(url: &str, ssl: Option<&mysql_async::SslOpts>) -> bool {
    use mysql_async::prelude::Queryable;
    block_on(async {
        let Some(opts) = mysql_opts(url, ssl) else {
            return false;
        };
        match mysql_async::Conn::new(opts).await {
            Ok(mut conn) => {
                let ok = conn.query_drop("SELECT 1").await.is_ok();
                let _ = conn.disconnect().await;
                ok
            }
            Err(_) => false,
        }
    })
}

/// Runs `;`-separated statements.
pub fn mysql_exec(url: &str, statements: &str) {
    mysql_exec_with(url, None, statements);
}

/// Runs `;`-separated statements, over TLS when `ssl` is given.
pub fn mysql_exec_with(url: &str, ssl: Option<&mysql_async::SslOpts>, statements: &str) {
    use mysql_async::prelude::Queryable;
    block_on(async {
        let opts = mysql_opts(url, ssl).expect("test MySQL URL");
        let mut conn = mysql_async::Conn::new(opts)
            .await
            .unwrap_or_else(|e| panic!("test MySQL: {e}"));
        conn.query_drop(statements)
            .await
            .unwrap_or_else(|e| panic!("{statements}: {e}"));
        let _ = conn.disconnect().await;
    })
}

/// Runs a query; every value as text.
pub fn mysql_query(url: &str, query: &str) -> Vec<Vec<Option<String>>> {
    use mysql_async::prelude::Queryable;
    block_on(async {
        let opts = mysql_async::Opts::from_url(url).expect("test MySQL URL");
        let mut conn = mysql_async::Conn::new(opts)
            .await
            .unwrap_or_else(|e| panic!("test MySQL: {e}"));
        let rows: Vec<mysql_async::Row> = conn
            .query(query)
            .await
            .unwrap_or_else(|e| panic!("{query}: {e}"));
        let _ = conn.disconnect().await;
        rows.into_iter()
            .map(|row| {
                (0..row.len())
                    .map(|i| match row.as_ref(i) {
                        Some(mysql_async::Value::NULL) | None => None,
                        Some(mysql_async::Value::Bytes(b)) => {
                            Some(String::from_utf8_lossy(b).into_owned())
                        }
                        Some(mysql_async::Value::Int(n)) => Some(n.to_string()),
                        Some(mysql_async::Value::UInt(n)) => Some(n.to_string()),
                        Some(other) => Some(format!("{other:?}")),
                    })
                    .collect()
            })
            .collect()
    })
}
