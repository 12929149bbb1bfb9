//! TLS to Redis and MySQL on real servers that accept nothing else: success,
//! a certificate that cannot be verified, a missing client certificate,
//! plain text against a TLS port and the reverse, JDBC-style parameters. And
//! TLS to a Redis Cluster (`rediss-cluster://`) and through Sentinel
//! (`rediss-sentinel://`), whose servers also speak only TLS.

use crate::harness::cluster::Cluster;
use crate::harness::sentinel::TlsSentinels;
use crate::harness::tls::{TlsEnv, certs, tls_servers};
use crate::harness::{Test, TestEnv};
use idgen::exit_code;
use std::time::{Duration, Instant};

#[test]
fn segments_leases_and_status_work_over_tls_to_both_servers() {
    let tls = TlsEnv::new();
    let run = tls
        .test(
            &["init-app", "--app", "1", "--name", "one", "--step", "50"],
            &[],
        )
        .run();
    assert!(run.success(), "{run}");
    let run = tls
        .test(&["next", "--app", "1", "--count", "120"], &[])
        .run();
    assert!(run.success(), "{run}");
    crate::harness::assert_unique(&run.ids());
    assert_eq!(run.ids().len(), 120);
    let run = tls.test(&["reload-segments"], &[]).run();
    assert!(run.success(), "{run}");
    let run = tls.test(&["lease", "--count", "3"], &[]).run();
    assert!(run.success(), "{run}");
    assert_eq!(run.ids().len(), 3, "{run}");
    let run = tls.test(&["status", "--json"], &[]).run();
    assert!(run.success(), "{run}");
    let report = run.json();
    for store in report["stores"].as_array().unwrap() {
        assert_eq!(store["state"], "ok", "{run}");
    }
}

fn path(p: std::path::PathBuf) -> String {
    p.display().to_string()
}

/// A Redis URL (`rediss://`, `rediss-cluster://`, `rediss-sentinel://`) with a
/// password in it, checked against another CA: exit 15, one line naming
/// `--redis-ca`, and no password.
fn another_ca_is_refused_without_showing_the_password(tls: &TlsEnv) {
    let other = path(certs().other_ca());
    let (scheme, rest) = tls.env.redis_url.split_once("://").unwrap();
    let with_password = format!("{scheme}://:Zq7SecretTls@{rest}");
    tls.test(
        &["next", "--app", "1"],
        &[
            ("IDGEN_REDIS_CA", &other),
            ("IDGEN_REDIS_URL", &with_password),
        ],
    )
    .status(exit_code::TLS)
    .one_line_error("UnknownIssuer")
    .stderr("--redis-ca")
    .stderr_lacks("Zq7SecretTls")
    .run();
}

/// Redis refuses the handshake without a client certificate: exit 15, one
/// line naming `--redis-cert`.
fn a_missing_client_certificate_is_refused(tls: &TlsEnv) {
    tls.test(
        &["next", "--app", "1"],
        &[("IDGEN_REDIS_CERT", ""), ("IDGEN_REDIS_KEY", "")],
    )
    .status(exit_code::TLS)
    .one_line_error("--redis-cert")
    .run();
}

/// `init-app`, `reload-segments` and `next --count N` for `app`, with unique
/// IDs; then every store `status` reports is reachable and ok (exit 8 may flag
/// the app's stock, low after the takes).
fn serves_unique_ids_and_every_store_is_ok(tls: &TlsEnv, app: &str, count: usize) {
    tls.test(
        &["init-app", "--app", app, "--name", "tls", "--step", "50"],
        &[],
    )
    .status(exit_code::OK)
    .run();
    tls.test(&["reload-segments", "--app", app], &[])
        .status(exit_code::OK)
        .run();
    let count_arg = count.to_string();
    let ids = tls
        .test(&["next", "--app", app, "--count", &count_arg], &[])
        .status(exit_code::OK)
        .run()
        .ids();
    assert_eq!(ids.len(), count);
    crate::harness::assert_unique(&ids);
    let run = tls.test(&["status", "--json"], &[]).run();
    assert!([0, 8].contains(&run.code()), "{run}");
    for store in run.json()["stores"].as_array().unwrap() {
        assert_eq!(store["state"], "ok", "{run}");
        assert_eq!(store["reachable"], true, "{run}");
    }
}

#[test]
fn a_server_certificate_from_another_ca_is_refused_with_the_tls_exit_code() {
    let tls = TlsEnv::new();
    another_ca_is_refused_without_showing_the_password(&tls);
    let other = path(certs().other_ca());
    let run = tls
        .test(
            &["init-app", "--app", "1", "--name", "one"],
            &[("IDGEN_MYSQL_CA", &other)],
        )
        .run();
    assert_eq!(run.code(), i32::from(exit_code::TLS), "{run}");
    assert!(run.stderr.contains("UnknownIssuer"), "{run}");
    assert!(run.stderr.contains("--mysql-ca"), "{run}");

    // Without a CA file the system's roots are used, which do not hold the test CA.
    let run = tls
        .test(&["next", "--app", "1"], &[("IDGEN_REDIS_CA", "")])
        .run();
    assert_eq!(run.code(), i32::from(exit_code::TLS), "{run}");
}

#[test]
fn without_a_client_certificate_redis_refuses_the_handshake_with_the_tls_exit_code() {
    a_missing_client_certificate_is_refused(&TlsEnv::new());
}

#[test]
fn a_plain_redis_url_against_a_tls_port_fails_within_the_timeout_and_says_why() {
    let tls = TlsEnv::new();
    let plain = tls.env.redis_url.replace("rediss://", "redis://");
    let started = Instant::now();
    let run = tls
        .test(
            &["--timeout", "2s", "next", "--app", "1"],
            &[
                ("IDGEN_REDIS_URL", &plain),
                ("IDGEN_REDIS_CA", ""),
                ("IDGEN_REDIS_CERT", ""),
                ("IDGEN_REDIS_KEY", ""),
            ],
        )
        .run();
    let took = started.elapsed();
    assert_eq!(run.code(), i32::from(exit_code::UNAVAILABLE), "{run}");
    assert!(run.stderr.contains("rediss://"), "{run}");
    assert!(took < Duration::from_secs(4), "took {took:?}: {run}");
}

/// Redis reads a TLS hello as the start of a command and waits for the rest:
/// the handshake ends at `--timeout`, not before.
#[test]
fn a_rediss_url_against_a_plain_port_fails_within_the_timeout() {
    let tls = TlsEnv::new();
    let plain = TestEnv::distributed();
    let url = plain.redis_url.replace("redis://", "rediss://");
    let started = Instant::now();
    let run = tls
        .test(
            &["--timeout", "2s", "next", "--app", "1"],
            &[("IDGEN_REDIS_URL", &url)],
        )
        .run();
    assert_eq!(run.code(), i32::from(exit_code::UNAVAILABLE), "{run}");
    assert!(run.stderr.contains("within 2s"), "{run}");
    assert!(started.elapsed() < Duration::from_secs(4), "{run}");
}

#[test]
fn a_plain_mysql_url_against_a_tls_only_server_points_at_require_ssl() {
    let tls = TlsEnv::new();
    let run = tls
        .test(
            &["init-app", "--app", "1", "--name", "one"],
            &[
                ("IDGEN_MYSQL_URL", &tls.mysql_base()),
                ("IDGEN_MYSQL_CA", ""),
            ],
        )
        .run();
    assert_eq!(run.code(), i32::from(exit_code::ACCESS), "{run}");
    assert!(run.stderr.contains("require_ssl=true"), "{run}");
}

#[test]
fn require_ssl_against_a_server_without_tls_is_an_error_not_a_panic() {
    let env = TestEnv::distributed();
    for param in ["require_ssl=true", "useSSL=true", "sslMode=REQUIRED"] {
        let url = format!("{}?{param}", env.mysql_url);
        Test::within(&env)
            .args(["init-app", "--app", "1", "--name", "one"])
            .env("IDGEN_MYSQL_URL", url)
            .status(exit_code::TLS)
            .stderr_lacks("panicked")
            .stderr("does not offer TLS")
            .run();
    }
}

#[test]
fn jdbc_parameters_from_a_java_config_are_translated_or_refused_by_name() {
    let tls = TlsEnv::new();
    let base = tls.mysql_base();
    let java = format!(
        "{base}?useUnicode=true&characterEncoding=utf8&useSSL=true&serverTimezone=Asia/Shanghai"
    );
    let run = tls
        .test(
            &["init-app", "--app", "1", "--name", "one", "--step", "20"],
            &[("IDGEN_MYSQL_URL", &java)],
        )
        .run();
    assert!(run.success(), "{run}");
    // VERIFY_IDENTITY also checks the host name: the certificate names 127.0.0.1.
    for url in [
        format!("{base}?sslMode=VERIFY_IDENTITY"),
        format!("{base}?sslMode=verify_ca&requireSSL=true"),
    ] {
        let run = tls
            .test(
                &["next", "--app", "1", "--count", "30"],
                &[("IDGEN_MYSQL_URL", &url)],
            )
            .run();
        assert!(run.success(), "{url}: {run}");
    }
    for (param, hint) in [
        ("sslMode=PREFERRED", "sslMode=REQUIRED"),
        ("autoReconnect=true", "remove autoReconnect"),
        ("verifyServerCertificate=false", "--mysql-ca"),
        ("useSSL=true&sslMode=DISABLED", "keep one"),
        ("bogus=1", "require_ssl"),
    ] {
        let url = format!("{base}?{param}");
        let run = tls
            .test(&["next", "--app", "1"], &[("IDGEN_MYSQL_URL", &url)])
            .run();
        assert_eq!(run.code(), i32::from(exit_code::USAGE), "{param}: {run}");
        assert!(run.stderr.contains(hint), "{param}: {run}");
        assert_eq!(run.stderr.lines().count(), 1, "{param}: {run}");
    }
}

#[test]
fn valkey_urls_are_accepted_with_and_without_tls() {
    let tls = TlsEnv::new();
    let url = tls.env.redis_url.replace("rediss://", "valkeys://");
    let run = tls
        .test(&["init-app", "--app", "1", "--name", "one"], &[])
        .run();
    assert!(run.success(), "{run}");
    let run = tls
        .test(
            &["next", "--app", "1", "--count", "3"],
            &[("IDGEN_REDIS_URL", &url)],
        )
        .run();
    assert!(run.success(), "{run}");
    assert_eq!(run.ids().len(), 3);

    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "one"]);
    let url = env.redis_url.replace("redis://", "valkey://");
    for args in [
        &["next", "--app", "1"][..],
        &["reload-segments"],
        &["status"],
    ] {
        Test::within(&env)
            .args(args.iter().copied())
            .env("IDGEN_REDIS_URL", &url)
            .status(exit_code::OK)
            .run();
    }
}

#[test]
fn tls_files_come_from_flags_and_the_config_file_and_config_names_their_source() {
    let tls = TlsEnv::new();
    let certs = certs();
    let no_vars = [
        ("IDGEN_REDIS_CA", ""),
        ("IDGEN_REDIS_CERT", ""),
        ("IDGEN_REDIS_KEY", ""),
        ("IDGEN_MYSQL_CA", ""),
    ];
    let (ca, cert, key) = (
        path(certs.ca()),
        path(certs.client_cert()),
        path(certs.client_key()),
    );
    let flags = [
        "--redis-ca",
        &ca,
        "--redis-cert",
        &cert,
        "--redis-key",
        &key,
        "--mysql-ca",
        &ca,
    ];
    let mut args = flags.to_vec();
    args.extend(["init-app", "--app", "1", "--name", "one"]);
    let run = tls.test(&args, &no_vars).run();
    assert!(run.success(), "{run}");
    let mut args = flags.to_vec();
    args.extend(["config", "--json"]);
    let run = tls.test(&args, &no_vars).run();
    assert!(run.success(), "{run}");
    assert!(run.stdout.contains("\"--redis-cert\""), "{run}");

    // Relative paths in the file start at the file's directory.
    let dir = tls.env.home.path().join("etc");
    std::fs::create_dir_all(&dir).unwrap();
    for (from, to) in [(&ca, "ca.pem"), (&cert, "client.pem"), (&key, "client.key")] {
        std::fs::copy(from, dir.join(to)).unwrap();
    }
    let config = dir.join("idgen.toml");
    std::fs::write(
        &config,
        "[tls.redis]\nca = \"ca.pem\"\ncert = \"client.pem\"\nkey = \"client.key\"\n\n[tls.mysql]\nca = \"ca.pem\"\n",
    )
    .unwrap();
    let config = path(config);
    let mut vars = no_vars.to_vec();
    vars.push(("IDGEN_CONFIG", &config));
    let run = tls
        .test(&["next", "--app", "1", "--count", "2"], &vars)
        .run();
    assert!(run.success(), "{run}");
    let run = tls.test(&["config", "--json"], &vars).run();
    let shown = run.json();
    let row = shown["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "tls.redis.key")
        .unwrap_or_else(|| panic!("no tls.redis.key row: {run}"));
    assert_eq!(row["source"], format!("{config}:4"), "{run}");
}

#[test]
fn bad_tls_settings_are_one_line_usage_errors_before_connecting() {
    let tls = TlsEnv::new();
    let plain = format!("redis://127.0.0.1:{}/0", tls_servers().redis_port);
    let key = path(certs().client_key());
    for (changes, expected) in [
        (
            vec![("IDGEN_REDIS_CA", "/nonexistent/ca.pem")],
            "--redis-ca",
        ),
        (
            vec![("IDGEN_REDIS_CERT", "/nonexistent/c.pem")],
            "--redis-cert",
        ),
        (vec![("IDGEN_REDIS_KEY", "")], "--redis-key"),
        (vec![("IDGEN_REDIS_CA", key.as_str())], "no PEM certificate"),
        (vec![("IDGEN_REDIS_URL", plain.as_str())], "rediss://"),
        (
            vec![("IDGEN_MYSQL_URL", tls.mysql_base().leak() as &str)],
            "require_ssl=true",
        ),
    ] {
        let run = tls.test(&["next", "--app", "1"], &changes).run();
        assert_eq!(
            run.code(),
            i32::from(exit_code::USAGE),
            "{changes:?}: {run}"
        );
        assert!(run.stderr.contains(expected), "{changes:?}: {run}");
        assert_eq!(run.stderr.lines().count(), 1, "{changes:?}: {run}");
    }
}

#[test]
fn a_mysql_user_that_requires_a_client_certificate_gets_it_from_the_settings() {
    let tls = TlsEnv::new();
    tls_servers().mysql_exec(
        "CREATE USER IF NOT EXISTS 'idgen_x509'@'127.0.0.1' REQUIRE X509; \
         GRANT ALL ON *.* TO 'idgen_x509'@'127.0.0.1'",
    );
    let url = tls.env.mysql_url.replacen("root@", "idgen_x509@", 1);
    let (cert, key) = (path(certs().client_cert()), path(certs().client_key()));
    let run = tls
        .test(
            &["init-app", "--app", "1", "--name", "one"],
            &[
                ("IDGEN_MYSQL_URL", &url),
                ("IDGEN_MYSQL_CERT", &cert),
                ("IDGEN_MYSQL_KEY", &key),
            ],
        )
        .run();
    assert!(run.success(), "{run}");
    let run = tls
        .test(
            &["init-app", "--app", "2", "--name", "two"],
            &[("IDGEN_MYSQL_URL", &url)],
        )
        .run();
    assert_eq!(run.code(), i32::from(exit_code::ACCESS), "{run}");
}

/// The TLS environment with its Redis URL on the shared TLS cluster.
fn on_tls_cluster() -> TlsEnv {
    let mut tls = TlsEnv::new();
    tls.env.redis_url = Cluster::shared_tls().url();
    tls
}

/// The TLS environment with its Redis URL through the shared TLS sentinels,
/// on the test's own database of their master.
fn through_tls_sentinels() -> TlsEnv {
    let mut tls = TlsEnv::new();
    tls.env.redis_url = TlsSentinels::shared().url(tls.db);
    tls
}

#[test]
fn segments_and_status_work_over_tls_to_a_redis_cluster() {
    let tls = on_tls_cluster();
    assert!(tls.env.redis_url.starts_with("rediss-cluster://"));
    // The cluster is shared: this test keeps to its own app.
    serves_unique_ids_and_every_store_is_ok(&tls, "41", 300);
}

#[test]
fn a_tls_cluster_refuses_another_ca_and_a_missing_client_certificate_with_the_tls_exit_code() {
    let tls = on_tls_cluster();
    another_ca_is_refused_without_showing_the_password(&tls);
    a_missing_client_certificate_is_refused(&tls);
}

#[test]
fn ids_come_through_tls_sentinels_from_a_tls_master() {
    let tls = through_tls_sentinels();
    assert!(tls.env.redis_url.starts_with("rediss-sentinel://"));
    serves_unique_ids_and_every_store_is_ok(&tls, "1", 200);
}

#[test]
fn tls_sentinels_refuse_another_ca_with_the_tls_exit_code() {
    another_ca_is_refused_without_showing_the_password(&through_tls_sentinels());
}
