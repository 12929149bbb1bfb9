//! `idgen status` is right about every state, each with its severity, on both
//! backends where the state applies (issue 10).

use crate::harness::{
    StoreKind, Test, TestEnv, init_app_1_capped_at_index_10, segment_id, tiny_namespace_lease,
};
use crate::status::{attention_kinds, status};
use idgen::exit_code::{self, nagios};
use serde_json::Value;

fn finding<'a>(report: &'a Value, kind: &str) -> &'a Value {
    report["attention"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} finding: {report}"))
}

fn check_code(env: &TestEnv) -> i32 {
    let run = Test::within(env).args(["status", "--check"]).run();
    assert_eq!(run.stdout.lines().count(), 1, "{run}");
    run.code()
}

fn now_s() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Shard 0 of app 9 may issue indexes 1..=3; the gate pass lands on shard 0.
/// Returns the `next` that now refuses.
pub fn exhaust_shard_0_of_app_9(env: &TestEnv) -> [&'static str; 5] {
    let limit = segment_id(3, 0, 9).to_string();
    env.ok(&[
        "init-app",
        "--app",
        "9",
        "--name",
        "small",
        "--step",
        "2",
        "--max-limit-id",
        &limit,
    ]);
    let next = ["next", "--app", "9", "--gate-pass", "polygenelubricants"];
    for _ in 0..3 {
        env.ok(&next);
    }
    Test::within(env)
        .args(next)
        .status(exit_code::EXHAUSTED)
        .run();
    next
}

fn a_shard_at_its_limit_is_critical_and_called_exhausted(env: &TestEnv) {
    exhaust_shard_0_of_app_9(env);
    let (run, report) = status(env);
    assert_eq!(report["severity"], "critical", "{run}");
    let exhausted = finding(&report, "limit_reached");
    assert_eq!(exhausted["severity"], "critical");
    let message = exhausted["message"].as_str().unwrap();
    assert!(message.contains("exhausted"), "{message}");
    assert!(!message.contains("reload-segments"), "{message}");
    let app = &report["apps"][0];
    assert_eq!(app["exhausted_shards"], serde_json::json!([0]));
    assert_eq!(app["severity"], "critical");
    // Not also near the limit, nor low stock a reload could fix.
    assert!(
        !app["near_limit_shards"]
            .as_array()
            .unwrap()
            .contains(&0.into())
    );
    assert!(!app["low_shards"].as_array().unwrap().contains(&0.into()));
    Test::within(env)
        .arg("status")
        .stdout("EXHAUSTED (1 shards)")
        .run();
    assert_eq!(check_code(env), i32::from(nagios::CRITICAL));
}

fn a_shard_near_its_limit_is_a_warning(env: &TestEnv) {
    // Index 10 is the last on every shard; reload takes all ten, so every shard
    // still has stock but can never be refilled.
    init_app_1_capped_at_index_10(env);
    env.ok(&["reload-segments"]);
    let (run, report) = status(env);
    assert_eq!(attention_kinds(&report), ["near_limit"], "{run}");
    assert_eq!(report["severity"], "warning");
    assert_eq!(check_code(env), i32::from(nagios::WARNING));
}

fn every_worker_id_held_is_critical(env: &TestEnv) {
    let tiny = tiny_namespace_lease(&["--stdin"]);
    let mut holders: Vec<_> = (0..2)
        .map(|i| {
            let holder = format!("web-{i}");
            let mut p = env.coprocess(&[&tiny[..], &["--holder", &holder][..]].concat(), &[]);
            p.request(1);
            p
        })
        .collect();
    let (run, report) = status(env);
    let used_up = finding(&report, "workers_exhausted");
    assert_eq!(used_up["severity"], "critical", "{run}");
    let ns = &report["namespaces"][0];
    assert_eq!(ns["available"], 0);
    assert_eq!(ns["severity"], "critical");
    assert_eq!(check_code(env), i32::from(nagios::CRITICAL));
    // As reported: a new lease fails.
    Test::within(env)
        .args(tiny_namespace_lease(&["--count", "1"]))
        .status(exit_code::EXHAUSTED)
        .run();
    for p in holders.drain(..) {
        assert!(p.finish().0.success());
    }
    let (run, report) = status(env);
    assert_eq!(report["severity"], "ok", "{run}");
}

fn a_namespace_whose_epoch_is_in_the_future_is_critical(env: &TestEnv) {
    let epoch = ((now_s() + 86_400) * 1000).to_string();
    // A holder whose clock ran two days ahead recorded it (a lease that cannot
    // issue at all records nothing).
    Test::within(env)
        .args([
            "lease",
            "--namespace",
            "later",
            "--epoch",
            &epoch,
            "--count",
            "1",
        ])
        .env("IDGEN_TEST_CLOCK_OFFSET_MS", "172800000")
        .status(exit_code::OK)
        .run();
    let (run, report) = status(env);
    let future = finding(&report, "epoch_in_future");
    assert_eq!(future["severity"], "critical", "{run}");
    assert!(
        future["message"]
            .as_str()
            .unwrap()
            .starts_with("namespace later ")
    );
    assert_eq!(report["namespaces"][0]["severity"], "critical");
    assert_eq!(check_code(env), i32::from(nagios::CRITICAL));
}

fn layouts_warn_within_a_year_and_are_critical_within_30_days(env: &TestEnv) {
    // The store must exist for the embedded backend to be healthy.
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    env.ok(&["reload-segments"]);
    let epoch_ending_in = |days: u64| (now_s() - (1u64 << 28) + days * 86_400) * 1000;
    for (days, severity, code) in [(180, "warning", 1), (10, "critical", 2)] {
        env.write_config(&format!(
            "[snowflake]\nlayout = \"uid-generator\"\nepoch = {}\n",
            epoch_ending_in(days)
        ));
        let (run, report) = status(env);
        assert_eq!(attention_kinds(&report), ["layout_expiring"], "{run}");
        assert_eq!(report["severity"], severity, "{run}");
        assert_eq!(check_code(env), code);
    }
    env.write_config("[snowflake]\nlayout = \"uid-generator\"\n");
    let (_, report) = status(env);
    assert_eq!(finding(&report, "layout_exhausted")["severity"], "critical");
}

fn low_stock_is_a_warning_and_crit_stock_makes_it_critical(env: &TestEnv) {
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    env.ok(&["reload-segments"]);
    env.ok(&[
        "next",
        "--app",
        "1",
        "--gate-pass",
        "polygenelubricants",
        "-n",
        "95",
    ]);
    let (run, report) = status(env);
    assert_eq!(attention_kinds(&report), ["low_stock"], "{run}");
    assert_eq!(report["apps"][0]["low_shards"], serde_json::json!([0]));
    if env.backend == StoreKind::Embedded {
        // `next` refills an empty shard in its own transaction: nothing to run.
        assert_eq!(report["severity"], "ok", "{run}");
        assert_eq!(report["low_stock_is_a_note"], true);
        assert_eq!(check_code(env), i32::from(nagios::OK));
        Test::within(env)
            .args(["status", "--check", "--warn-stock", "0.2"])
            .status(nagios::WARNING)
            .run();
    } else {
        assert_eq!(report["severity"], "warning");
        assert_eq!(check_code(env), i32::from(nagios::WARNING));
    }
    Test::within(env)
        .args(["status", "--check", "--warn-stock", "0.01"])
        .status(nagios::OK)
        .run();
    Test::within(env)
        .args(["status", "--check", "--crit-stock", "0.05"])
        .status(nagios::CRITICAL)
        .stdout("critical threshold")
        .run();
}

fn a_leaked_worker_is_information_until_it_outlives_a_lease(env: &TestEnv) {
    env.ok(&["lease", "--count", "1"]);
    // Worker 5 was never held: it is neither free nor held, as if its holder died.
    env.tamper_free_remove("default", 5);
    let (run, report) = status(env);
    assert_eq!(run.code(), i32::from(exit_code::OK), "{run}");
    let leaked = finding(&report, "leaked_workers");
    assert_eq!(leaked["severity"], "ok");
    assert_eq!(check_code(env), i32::from(nagios::OK));
    Test::within(env)
        .arg("status")
        .stdout("note: ")
        .stdout("all good")
        .run();

    // A worker whose holder stopped an hour ago and is still stranded: a warning.
    Test::within(env)
        .args(["lease", "--namespace", "old", "--count", "1"])
        .env("IDGEN_TEST_CLOCK_OFFSET_MS", "-3600000")
        .status(exit_code::OK)
        .run();
    let worker = env
        .lease_snapshot("old")
        .fences
        .first()
        .map(|(w, _)| *w)
        .expect("the released worker has a fence");
    env.tamper_free_remove("old", worker);
    let (run, report) = status(env);
    let stale: Vec<&Value> = report["attention"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == "leaked_workers" && a["severity"] == "warning")
        .collect();
    assert_eq!(stale.len(), 1, "{run}");
    assert!(stale[0]["message"].as_str().unwrap().contains("--repair"));
}

fn rows_idgen_cannot_serve_are_a_warning_naming_the_collision(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    env.ok(&["reload-segments"]);
    env.sql("INSERT INTO id_alloc (app_id, app_name, shard_id, max_id, step) VALUES (300, 'big', 5, 0, 1000)");
    env.sql("DELETE FROM id_alloc WHERE app_id = 1 AND shard_id = 7");
    let (run, report) = status(env);
    assert_eq!(report["severity"], "warning", "{run}");
    let messages: Vec<&str> = report["attention"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == "foreign_rows")
        .map(|a| a["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 2, "{run}");
    assert!(
        messages[0].contains("app_id 300 shard_id 5"),
        "{messages:?}"
    );
    assert!(messages[0].contains("collide with") && messages[0].contains("app 44 shard 6"));
    assert!(messages[1].contains("shard(s) 7"), "{messages:?}");
    assert_eq!(report["foreign_rows"][0]["app"], 300);
    assert_eq!(report["apps"][0]["missing_shards"], serde_json::json!([7]));
    assert_eq!(check_code(env), i32::from(nagios::WARNING));
}

fn the_stock_runway_follows_the_observed_rate(env: &TestEnv) {
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    env.ok(&["reload-segments"]);
    let (_, report) = status(env);
    // Nothing issued since the refill: no rate to judge by.
    assert_eq!(report["apps"][0]["runway_secs"], Value::Null);
    env.ok(&[
        "next",
        "--app",
        "1",
        "--gate-pass",
        "polygenelubricants",
        "-n",
        "50",
    ]);
    let (run, report) = status(env);
    let app = &report["apps"][0];
    let rate = app["issue_rate_per_sec"]
        .as_f64()
        .unwrap_or_else(|| panic!("{run}"));
    assert!(rate > 0.0, "{run}");
    let runway = app["runway_secs"].as_u64().unwrap();
    // 6,350 left at the observed rate.
    assert_eq!(runway, (6350.0 / rate).round() as u64);
    // The table shows it as a span of time.
    let human = Test::within(env).arg("status").run();
    let row = human.stdout.lines().find(|l| l.contains("orders")).unwrap();
    assert!(
        [" s ", " min ", " h ", " d ", " y "]
            .iter()
            .any(|unit| row.contains(unit)),
        "{human}"
    );
}

crate::on_both_backends!(
    the_stock_runway_follows_the_observed_rate,
    a_shard_at_its_limit_is_critical_and_called_exhausted,
    a_shard_near_its_limit_is_a_warning,
    every_worker_id_held_is_critical,
    a_namespace_whose_epoch_is_in_the_future_is_critical,
    layouts_warn_within_a_year_and_are_critical_within_30_days,
    low_stock_is_a_warning_and_crit_stock_makes_it_critical,
    a_leaked_worker_is_information_until_it_outlives_a_lease,
    rows_idgen_cannot_serve_are_a_warning_naming_the_collision,
);

#[test]
fn under_10_percent_of_worker_ids_free_is_a_warning() {
    let env = TestEnv::embedded();
    let small = [
        "lease",
        "--stdin",
        "--namespace",
        "small",
        "--bits",
        "time:41,worker:4,seq:18",
        "--epoch",
        "2024-01-01",
    ];
    let holders: Vec<_> = (0..15)
        .map(|_| {
            let mut p = env.coprocess(&small, &[]);
            p.request(1);
            p
        })
        .collect();
    let (run, report) = status(&env);
    assert_eq!(
        finding(&report, "workers_low")["severity"],
        "warning",
        "{run}"
    );
    assert_eq!(report["namespaces"][0]["available"], 1);
    assert_eq!(check_code(&env), i32::from(nagios::WARNING));
    for p in holders {
        assert!(p.finish().0.success());
    }
}

#[test]
fn a_failed_login_is_named_as_such() {
    let env = TestEnv::distributed();
    // The user has a password; the URL gives none.
    let url = crate::secrets::mysql_user("statuslogin", "right-pass", "ALL");
    let run = Test::within(&env)
        .args(["status", "--json"])
        .env("IDGEN_MYSQL_URL", &url)
        .run();
    let report = run.json();
    assert_eq!(report["stores"][0]["state"], "access_denied", "{run}");
    assert_eq!(finding(&report, "access_denied")["severity"], "critical");
    assert_eq!(report["apps_known"], false);
    Test::within(&env)
        .arg("status")
        .env("IDGEN_MYSQL_URL", url)
        .stdout("ACCESS DENIED")
        .stdout_lacks("UNREACHABLE")
        .run();
}

#[test]
fn a_redis_that_evicts_any_key_when_full_is_a_warning_naming_the_fix() {
    use crate::harness::faults::{Persistence, RedisProcess};
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    let url = redis.url();
    let config = |name: &str, value: &str| redis.config_set(&[(name, value)]);
    let status = || {
        let run = Test::within(&env)
            .env("IDGEN_REDIS_URL", &url)
            .args(["status", "--json"])
            .run();
        let report = run.json();
        (run, report)
    };
    config("maxmemory", "1gb");
    config("maxmemory-policy", "allkeys-lru");
    let (run, report) = status();
    let found = finding(&report, "evicting");
    assert_eq!(found["severity"], "warning", "{run}");
    let message = found["message"].as_str().unwrap();
    for part in [
        "\"main\"",
        "maxmemory 1073741824 bytes",
        "allkeys-lru",
        "set maxmemory-policy noeviction",
    ] {
        assert!(message.contains(part), "{part:?} not in {message:?}");
    }
    assert_eq!(report["severity"], "warning", "{run}");
    // Keys with an expiry (leases, refill locks) may go: nothing is lost but a lock or a key MySQL backs.
    config("maxmemory-policy", "volatile-lru");
    let (run, report) = status();
    assert!(
        !attention_kinds(&report).contains(&"evicting".to_string()),
        "{run}"
    );
    // No limit evicts nothing, whatever the policy.
    config("maxmemory-policy", "allkeys-random");
    config("maxmemory", "0");
    let (run, report) = status();
    assert!(
        !attention_kinds(&report).contains(&"evicting".to_string()),
        "{run}"
    );
}

fn store_findings(env: &TestEnv) -> (i32, Value) {
    let run = Test::within(env).args(["status", "--json"]).run();
    (run.code(), run.json())
}

#[test]
fn a_missing_corrupt_or_read_only_store_is_critical() {
    let env = TestEnv::embedded();
    assert!(env.backend == StoreKind::Embedded);
    // Missing.
    let (code, report) = store_findings(&env);
    assert_eq!(code, 8);
    assert_eq!(report["severity"], "critical");
    assert_eq!(report["stores"][0]["state"], "unusable");
    assert_eq!(finding(&report, "store_unusable")["severity"], "critical");
    assert_eq!(check_code(&env), i32::from(nagios::CRITICAL));
    assert!(
        !env.store_path().exists(),
        "status must not create the store"
    );

    // Read-only.
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let path = env.store_path();
    let mut mode = std::fs::metadata(&path).unwrap().permissions();
    mode.set_readonly(true);
    std::fs::set_permissions(&path, mode.clone()).unwrap();
    let (code, report) = store_findings(&env);
    assert_eq!(code, 8);
    let message = finding(&report, "store_unusable")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("read-only"), "{message}");
    assert_eq!(check_code(&env), i32::from(nagios::CRITICAL));
    #[allow(clippy::permissions_set_readonly_false)]
    mode.set_readonly(false);
    std::fs::set_permissions(&path, mode).unwrap();

    // Corrupt, with no WAL left to read the pages from.
    for suffix in ["-wal", "-shm"] {
        let mut side = path.clone().into_os_string();
        side.push(suffix);
        let _ = std::fs::remove_file(side);
    }
    std::fs::write(
        &path,
        b"this is not an SQLite database, not even close; garbage follows",
    )
    .unwrap();
    let (code, report) = store_findings(&env);
    assert_eq!(code, 8);
    assert_eq!(report["stores"][0]["state"], "unusable", "{report}");
    assert_eq!(report["stores"][1]["state"], "unusable", "{report}");
    assert_eq!(report["severity"], "critical");
    Test::within(&env)
        .arg("status")
        .stdout("UNUSABLE")
        .stdout_lacks("| ok")
        .run();
}

#[test]
fn status_takes_about_one_timeout_whatever_is_down() {
    let env = TestEnv::distributed();
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100",
    ]);
    env.ok(&["reload-segments"]);
    // A port that completes the handshake and then never answers: the worst kind of down.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    env.write_config(&format!(
        "[redis.nodes]\ncold = \"redis://127.0.0.1:{port}/0\"\n"
    ));
    let mysql = format!("mysql://root@127.0.0.1:{port}/idgen");
    let started = std::time::Instant::now();
    let run = Test::within(&env)
        .args(["status", "--json", "--timeout", "2s"])
        .env("IDGEN_MYSQL_URL", mysql)
        .run();
    let took = started.elapsed();
    let report = run.json();
    assert_eq!(report["severity"], "critical", "{run}");
    assert_eq!(report["stores"][0]["reachable"], false);
    assert!(
        took < std::time::Duration::from_millis(3900),
        "status took {took:?}, more than one 2s timeout: {run}"
    );
    drop(silent);
}
