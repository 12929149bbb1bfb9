//! Servers that speak only TLS, for the TLS tests: a CA, server and client
//! certificates made with the `openssl` CLI; a redis-server on a TLS port only
//! (it requires a client certificate, Redis's default `tls-auth-clients yes`);
//! a mariadbd with `--require-secure-transport=ON`. Started once per test run
//! on first use; each test takes its own Redis database and MySQL database.

use super::servers::{
    free_port, log_file, mysql_exec_with, scratch_root, spawn_tied_to_process, start_mariadb_with,
    wait_for,
};
use super::{StoreKind, Test, TestEnv};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The certificate files, PEM.
pub struct Certs {
    dir: PathBuf,
}

impl Certs {
    /// The CA that signed the servers' and the client's certificates.
    pub fn ca(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }

    /// A CA that signed nothing here: verifying against it must fail.
    pub fn other_ca(&self) -> PathBuf {
        self.dir.join("other-ca.pem")
    }

    pub fn client_cert(&self) -> PathBuf {
        self.dir.join("client.pem")
    }

    pub fn client_key(&self) -> PathBuf {
        self.dir.join("client.key")
    }

    fn server_cert(&self) -> PathBuf {
        self.dir.join("server.pem")
    }

    fn server_key(&self) -> PathBuf {
        self.dir.join("server.key")
    }

    /// A redis-server's TLS settings, `(name, file)`: its certificate, the CA
    /// it checks clients against, and the client certificate it presents on
    /// its own TLS connections (replication, the cluster bus, a sentinel's).
    pub fn redis_server_settings(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("tls-cert-file", self.server_cert()),
            ("tls-key-file", self.server_key()),
            ("tls-ca-cert-file", self.ca()),
            ("tls-client-cert-file", self.client_cert()),
            ("tls-client-key-file", self.client_key()),
        ]
    }

    /// [`Self::redis_server_settings`] as redis-server arguments.
    pub fn redis_server_args(&self) -> Vec<std::ffi::OsString> {
        self.redis_server_settings()
            .into_iter()
            .flat_map(|(name, file)| [format!("--{name}").into(), file.into_os_string()])
            .collect()
    }

    /// The arguments that make `redis-cli` speak TLS with the test CA and client certificate.
    pub fn redis_cli_args(&self) -> Vec<std::ffi::OsString> {
        vec![
            "--tls".into(),
            "--cacert".into(),
            self.ca().into(),
            "--cert".into(),
            self.client_cert().into(),
            "--key".into(),
            self.client_key().into(),
        ]
    }
}

/// The certificates, made on first use.
pub fn certs() -> &'static Certs {
    static CERTS: OnceLock<Certs> = OnceLock::new();
    CERTS.get_or_init(|| {
        let dir = scratch_root()
            .join(format!("run-{}", std::process::id()))
            .join("tls");
        std::fs::create_dir_all(&dir).expect("tls dir");
        for ca in ["ca", "other-ca"] {
            openssl(
                &dir,
                &[
                    "req",
                    "-x509",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-days",
                    "3",
                    "-subj",
                    &format!("/CN=idgen test {ca}"),
                    "-addext",
                    "basicConstraints=critical,CA:TRUE",
                    "-addext",
                    "keyUsage=critical,keyCertSign,cRLSign",
                    "-keyout",
                    &format!("{ca}.key"),
                    "-out",
                    &format!("{ca}.pem"),
                ],
            );
        }
        for (name, usage) in [("server", "serverAuth"), ("client", "clientAuth")] {
            openssl(
                &dir,
                &[
                    "req",
                    "-new",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-subj",
                    &format!("/CN=idgen test {name}"),
                    "-keyout",
                    &format!("{name}.key"),
                    "-out",
                    &format!("{name}.csr"),
                ],
            );
            std::fs::write(
                dir.join(format!("{name}.ext")),
                format!(
                    "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage={usage}\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n"
                ),
            )
            .expect("extension file");
            openssl(
                &dir,
                &[
                    "x509",
                    "-req",
                    "-in",
                    &format!("{name}.csr"),
                    "-CA",
                    "ca.pem",
                    "-CAkey",
                    "ca.key",
                    "-CAcreateserial",
                    "-days",
                    "3",
                    "-extfile",
                    &format!("{name}.ext"),
                    "-out",
                    &format!("{name}.pem"),
                ],
            );
        }
        Certs { dir }
    })
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            panic!("the TLS tests need the openssl CLI (apt-get install openssl): {e}")
        });
    assert!(
        out.status.success(),
        "openssl {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The TLS-only servers.
pub struct TlsServers {
    /// The redis-server's TLS port (it has no plain port).
    pub redis_port: u16,
    /// `mysql://root@127.0.0.1:PORT`, reachable only over TLS.
    pub mysql: String,
    next: AtomicUsize,
}

/// The servers, started on first use.
pub fn tls_servers() -> &'static TlsServers {
    static SERVERS: OnceLock<TlsServers> = OnceLock::new();
    SERVERS.get_or_init(|| {
        idgen::store::tls::install_crypto_provider();
        let certs = certs();
        let root = scratch_root().join(format!("run-{}", std::process::id()));
        let redis_port = start_redis(&root.join("redis-tls"));
        // With grants checked: --skip-grant-tables also skips the transport check.
        let mysql = start_mariadb_with(
            &root.join("mariadb-tls"),
            false,
            &[
                format!("--ssl-cert={}", certs.server_cert().display()),
                format!("--ssl-key={}", certs.server_key().display()),
                format!("--ssl-ca={}", certs.ca().display()),
                "--require-secure-transport=ON".into(),
            ],
            Some(&harness_ssl()),
        );
        TlsServers {
            redis_port,
            mysql,
            next: AtomicUsize::new(0),
        }
    })
}

impl TlsServers {
    /// Runs `;`-separated statements on the TLS mariadbd as root.
    pub fn mysql_exec(&self, statements: &str) {
        mysql_exec_with(
            &format!("{}/mysql", self.mysql),
            Some(&harness_ssl()),
            statements,
        );
    }
}

/// How the harness itself reaches the TLS mariadbd.
fn harness_ssl() -> mysql_async::SslOpts {
    mysql_async::SslOpts::default()
        .with_root_certs(vec![certs().ca().into()])
        .with_disable_built_in_roots(true)
}

/// A redis-server in `dir` that speaks only TLS (with the test certificates),
/// kept for the life of the test process; its TLS port.
pub fn start_redis(dir: &Path) -> u16 {
    std::fs::create_dir_all(dir).expect("redis dir");
    let port = free_port();
    let mut cmd = Command::new("redis-server");
    cmd.args(["--port", "0"])
        .args(["--tls-port", &port.to_string()])
        .args(certs().redis_server_args())
        .args(["--bind", "127.0.0.1"])
        .args(["--save", ""])
        .args(["--appendonly", "no"])
        .args(["--databases", "64"])
        .arg("--dir")
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(log_file(&dir.join("redis.log")))
        .stderr(log_file(&dir.join("redis.err")));
    super::servers::keep(spawn_tied_to_process(cmd));
    let url = format!("rediss://127.0.0.1:{port}/0");
    wait_for("redis-server with TLS", dir, || {
        redis_client(&url)
            .get_connection()
            .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c))
            .is_ok()
    });
    port
}

/// A connection to a harness server on loopback `port`, over TLS (the test
/// CA and client certificate) or not; `None` while it does not answer.
pub fn loopback_conn(port: u16, tls: bool) -> Option<redis::Connection> {
    let client = if tls {
        Ok(redis_client(&format!("rediss://127.0.0.1:{port}")))
    } else {
        redis::Client::open(format!("redis://127.0.0.1:{port}").as_str())
    };
    client
        .and_then(|c| c.get_connection_with_timeout(std::time::Duration::from_secs(2)))
        .ok()
}

/// A client of the TLS redis-server with the test CA and client certificate.
pub fn redis_client(url: &str) -> redis::Client {
    let read = |p: PathBuf| std::fs::read(p).expect("test certificate");
    let certs = certs();
    redis::Client::build_with_tls(
        url,
        redis::TlsCertificates {
            client_tls: Some(redis::ClientTlsConfig {
                client_cert: read(certs.client_cert()),
                client_key: read(certs.client_key()),
            }),
            root_cert: Some(read(certs.ca())),
        },
    )
    .expect("TLS test client")
}

/// One test's world on the TLS servers: idgen runs with `rediss://` and a
/// MySQL URL with `require_ssl=true`, and the CA and client certificate in
/// `IDGEN_REDIS_CA` and friends.
pub struct TlsEnv {
    pub env: TestEnv,
    pub vars: Vec<(&'static str, String)>,
    /// The test's own Redis database (on every TLS server with databases).
    pub db: usize,
}

impl TlsEnv {
    pub fn new() -> Self {
        let servers = tls_servers();
        let n = servers.next.fetch_add(1, Ordering::Relaxed);
        assert!(n < 64, "more TLS tests than the TLS Redis has databases");
        let database = format!("idgen_tls_{n}");
        servers.mysql_exec(&format!(
            "DROP DATABASE IF EXISTS {database}; CREATE DATABASE {database}"
        ));
        let mut env = TestEnv::embedded();
        env.backend = StoreKind::Distributed;
        env.redis_url = format!("rediss://127.0.0.1:{}/{n}", servers.redis_port);
        env.mysql_url = format!("{}/{database}?require_ssl=true", servers.mysql);
        let certs = certs();
        let path = |p: PathBuf| p.display().to_string();
        TlsEnv {
            env,
            vars: vec![
                ("IDGEN_REDIS_CA", path(certs.ca())),
                ("IDGEN_REDIS_CERT", path(certs.client_cert())),
                ("IDGEN_REDIS_KEY", path(certs.client_key())),
                ("IDGEN_MYSQL_CA", path(certs.ca())),
            ],
            db: n,
        }
    }

    /// The MySQL URL without its parameters.
    pub fn mysql_base(&self) -> String {
        self.env
            .mysql_url
            .trim_end_matches("?require_ssl=true")
            .into()
    }

    /// idgen with the TLS settings, `changes` replacing or (with an empty
    /// value) removing some of them.
    pub fn test(&self, args: &[&str], changes: &[(&str, &str)]) -> Test<'_> {
        let changed = |name: &str| changes.iter().any(|(changed, _)| *changed == name);
        let kept = self.vars.iter().filter(|(name, _)| !changed(name));
        let test = kept.fold(
            Test::within(&self.env).args(args.iter().copied()),
            |test, (name, value)| test.env(name, value.as_str()),
        );
        changes.iter().fold(test, |test, (name, value)| {
            if value.is_empty() {
                test.unset(name)
            } else {
                test.env(name, *value)
            }
        })
    }
}
