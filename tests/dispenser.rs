//! Each app's dispenser is durable: recorded when the app is created, changed
//! only by `idgen app set --dispenser`, and served alike by every host whatever
//! its own `IDGEN_DISPENSER` says.

use crate::harness::{Test, TestEnv, assert_unique};
use idgen::exit_code::{self, nagios};
use serde_json::Value;

/// The IDs of `idgen next ARGS`, which must succeed.
fn next(env: &TestEnv, args: &[&str]) -> Vec<u64> {
    Test::within(env)
        .arg("next")
        .args(args.iter().copied())
        .status(exit_code::OK)
        .run()
        .ids()
}

fn dispenser_of(env: &TestEnv, app: u8) -> Value {
    env.json(&["app", "show", &app.to_string(), "--json"])["dispenser"].clone()
}

fn status_of_app(env: &TestEnv, vars: &[(&str, &str)]) -> Value {
    let report = Test::within(env)
        .args(["status", "--json"])
        .envs(vars)
        .run()
        .json();
    report["apps"][0].clone()
}

fn init_app_records_the_dispenser_it_was_given(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    env.ok(&[
        "init-app",
        "--app",
        "2",
        "--name",
        "bulk",
        "--dispenser",
        "range",
    ]);
    assert_eq!(dispenser_of(env, 1), "queue");
    assert_eq!(dispenser_of(env, 2), "range");
    // A rerun keeps the record and says that the setting was not applied.
    Test::within(env)
        .args([
            "init-app",
            "--app",
            "2",
            "--name",
            "bulk",
            "--dispenser",
            "queue",
        ])
        .status(exit_code::OK)
        .stderr("keeps its range dispenser")
        .stderr("idgen app set 2 --dispenser queue")
        .run();
    assert_eq!(dispenser_of(env, 2), "range");
}

fn hosts_with_other_settings_serve_the_same_stock(env: &TestEnv) {
    env.ok(&[
        "init-app",
        "--app",
        "1",
        "--name",
        "orders",
        "--dispenser",
        "range",
    ]);
    env.ok(&["reload-segments"]);
    let stocked = status_of_app(env, &[]);
    assert_eq!(stocked["dispenser"], "range");
    let before = stocked["avg_stock"].as_f64().unwrap();
    assert!(before > 0.0, "{stocked}");
    // A host that guesses queue takes from the range stock all the same.
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.extend(
            Test::within(env)
                .args(["next", "--app", "1", "-n", "20", "--gate-pass", "k"])
                .env("IDGEN_DISPENSER", "queue")
                .status(exit_code::OK)
                .run()
                .ids(),
        );
    }
    ids.extend(next(env, &["--app", "1", "-n", "20", "--gate-pass", "k"]));
    assert_eq!(ids.len(), 80);
    assert_unique(&ids);
    // No refill was needed: the queue guess found the range stock.
    let after = status_of_app(env, &[("IDGEN_DISPENSER", "queue")]);
    assert_eq!(
        after["dispenser"], "range",
        "the record, not the host setting"
    );
    assert_eq!(after["unserved_stock"], 0);
    assert!(
        after["low_shards"].as_array().unwrap().is_empty(),
        "{after}"
    );
}

fn status_judges_the_recorded_dispenser_not_the_flag(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    env.ok(&["reload-segments"]);
    // A full queue is not LOW when this host's flag says range.
    Test::within(env)
        .args(["status", "--dispenser", "range", "--check"])
        .status(nagios::OK)
        .run();
    let app = status_of_app(env, &[("IDGEN_DISPENSER", "range")]);
    assert_eq!(app["dispenser"], "queue");
    assert!(app["low_shards"].as_array().unwrap().is_empty(), "{app}");
}

fn switching_retires_the_old_stock_and_never_repeats(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "orders", "--step", "50"]);
    env.ok(&["reload-segments"]);
    let mut ids = next(env, &["--app", "1", "-n", "500"]);
    let switched = env.json(&["app", "set", "1", "--dispenser", "range", "--json"]);
    assert_eq!(switched["dispenser"], "range");
    assert_eq!(switched["dispenser_switch"]["from"], "queue");
    assert_eq!(switched["dispenser_switch"]["to"], "range");
    let retired: u64 = switched["dispenser_switch"]["ids_retired"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retired > 0, "the queue stock went: {switched}");
    let app = status_of_app(env, &[]);
    assert_eq!(app["dispenser"], "range");
    assert_eq!(app["unserved_stock"], 0, "{app}");
    ids.extend(next(env, &["--app", "1", "-n", "500"]));
    env.ok(&["reload-segments"]);
    ids.extend(next(env, &["--app", "1", "-n", "500"]));
    // And back: the range stock is retired in turn.
    env.ok(&["app", "set", "1", "--dispenser", "queue"]);
    ids.extend(next(env, &["--app", "1", "-n", "500"]));
    assert_eq!(ids.len(), 2000);
    assert_unique(&ids);
}

fn only_the_command_line_changes_the_dispenser(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    Test::within(env)
        .args(["app", "set", "1"])
        .env("IDGEN_DISPENSER", "range")
        .stderr("nothing to change")
        .status(exit_code::USAGE)
        .run();
    Test::within(env)
        .args(["app", "set", "1", "--step", "2000"])
        .env("IDGEN_DISPENSER", "range")
        .status(exit_code::OK)
        .run();
    assert_eq!(dispenser_of(env, 1), "queue");
}

fn stock_left_in_the_other_dispenser_is_shown_and_retired(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "orders", "--step", "50"]);
    env.ok(&["reload-segments"]);
    // As wave 1 left it: the record says range, the stock is in the queue.
    env.sql("UPDATE idgen_dispenser SET kind = 'range' WHERE app_id = 1");
    let app = status_of_app(env, &[]);
    let unserved = app["unserved_stock"].as_u64().unwrap();
    assert!(unserved > 0, "{app}");
    // The range is empty, so the app is short of stock; the queue is named.
    Test::within(env).arg("status").stdout("never served").run();
    // Pruning retires it; the IDs served afterwards come from the range.
    Test::within(env)
        .args(["reload-segments", "--prune", "--json"])
        .status(exit_code::OK)
        .run();
    assert_eq!(status_of_app(env, &[])["unserved_stock"], 0);
    let ids = next(env, &["--app", "1", "-n", "100"]);
    assert_eq!(ids.len(), 100);
}

crate::on_both_backends!(
    init_app_records_the_dispenser_it_was_given,
    hosts_with_other_settings_serve_the_same_stock,
    status_judges_the_recorded_dispenser_not_the_flag,
    switching_retires_the_old_stock_and_never_repeats,
    only_the_command_line_changes_the_dispenser,
    stock_left_in_the_other_dispenser_is_shown_and_retired,
    a_ledger_from_before_the_record_is_upgraded_in_place,
);

/// Concurrent takers on both guesses while the dispenser flips back and forth:
/// every ID is issued once.
#[test]
fn takers_during_switches_never_get_an_id_twice() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "orders", "--step", "20"]);
    let switching = std::sync::atomic::AtomicBool::new(true);
    let mut ids: Vec<u64> = std::thread::scope(|s| {
        let takers: Vec<_> = ["queue", "range", "queue", "range"]
            .into_iter()
            .map(|guess| {
                let (env, switching) = (&env, &switching);
                s.spawn(move || {
                    let mut ids = Vec::new();
                    // Until the switches are over, and a few takes after.
                    let mut after = 0;
                    while after < 5 {
                        if !switching.load(std::sync::atomic::Ordering::Acquire) {
                            after += 1;
                        }
                        let run = Test::within(env)
                            .args(["next", "--app", "1", "-n", "7"])
                            .env("IDGEN_DISPENSER", guess)
                            .status(exit_code::OK)
                            .run();
                        ids.extend(run.ids());
                    }
                    ids
                })
            })
            .collect();
        for kind in ["range", "queue", "range", "queue"] {
            env.ok(&["app", "set", "1", "--dispenser", kind]);
        }
        switching.store(false, std::sync::atomic::Ordering::Release);
        takers.into_iter().flat_map(|t| t.join().unwrap()).collect()
    });
    ids.sort_unstable();
    assert!(ids.len() >= 4 * 7 * 5, "{}", ids.len());
    assert_unique(&ids);
}

/// A shard whose refill lock stays held is named, and the command exits 6
/// (partial) after waiting out one lock lifetime.
#[test]
fn a_shard_locked_past_the_wait_is_reported_pending() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let mut redis = env.redis();
    redis::cmd("SET")
        .arg(crate::harness::keys::lock(1, 7))
        .arg("someone-else")
        .arg("PX")
        .arg(60_000)
        .exec(&mut redis)
        .unwrap();
    Test::within(&env)
        .args(["app", "set", "1", "--dispenser", "range"])
        .stderr("shard(s) 7")
        .status(exit_code::PARTIAL)
        .run();
    // The ledger changed all the same: every host now serves range.
    assert_eq!(dispenser_of(&env, 1), "range");
}

/// A ledger made by the previous idgen (no `idgen_dispenser`) is upgraded in
/// place, and its apps are served by the queue, as they were by default.
fn a_ledger_from_before_the_record_is_upgraded_in_place(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let previous = match env.backend {
        crate::harness::StoreKind::Distributed => 2,
        crate::harness::StoreKind::Embedded => 1,
    };
    env.sql(&format!(
        "DROP TABLE idgen_dispenser; UPDATE idgen_schema SET version = {previous}"
    ));
    assert_eq!(next(env, &["--app", "1", "-n", "3"]).len(), 3);
    assert_eq!(dispenser_of(env, 1), "queue");
    let version = env.query("SELECT version FROM idgen_schema");
    assert_eq!(version[0][0].as_deref(), Some(&*(previous + 1).to_string()));
}
