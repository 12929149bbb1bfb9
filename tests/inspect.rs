//! `idgen inspect-freelist`: lease state, inconsistencies and their repair, on
//! both backends.

use crate::harness::{Coprocess, Test, TestEnv};
use idgen::exit_code;

fn hold(env: &TestEnv, namespace: &str) -> (Coprocess, u64) {
    let mut process = env.coprocess(
        &[
            "lease",
            "--namespace",
            namespace,
            "--json",
            "--stdin",
            "--holder",
            "api-7:8080",
        ],
        &[],
    );
    let worker = process.acquired_worker();
    process.request(5);
    (process, worker)
}

fn inspect(env: &TestEnv, args: &[&str]) -> (i32, serde_json::Value) {
    let run = Test::within(env)
        .args(["inspect-freelist", "--json"])
        .args(args.iter().copied())
        .run();
    (run.code(), run.json())
}

/// Every kind of damage at once: the held worker also listed free, a duplicate,
/// a leaked ID and a lease without expiry.
fn break_namespace(env: &TestEnv, namespace: &str, held: u64) {
    env.tamper_free_push(namespace, held);
    env.tamper_free_push(namespace, 900);
    env.tamper_free_remove(namespace, 901);
    env.tamper_no_expiry(namespace, held);
}

fn shows_layout_capacity_and_each_holder(env: &TestEnv) {
    let (_holder, worker) = hold(env, "shown");
    let (code, state) = inspect(env, &["--namespace", "shown"]);
    assert_eq!(code, 0, "{state}");
    assert_eq!(state["namespace"], "shown");
    assert_eq!(state["layout"], "snowflake");
    assert_eq!(state["capacity"], 1024);
    assert_eq!(state["free_count"], 1023);
    assert_eq!(state["problems"], serde_json::json!([]));
    let held = &state["held"][0];
    assert_eq!(held["worker"], worker);
    assert_eq!(held["holder"], "api-7:8080");
    let ttl = held["ttl_ms"].as_u64().unwrap();
    assert!(ttl > 0 && ttl <= 30_000, "{ttl}");
    assert!(held["last_unix_ms"].as_i64().unwrap() > 1_700_000_000_000);
}

fn finds_every_kind_of_inconsistency_and_exits_for_monitoring(env: &TestEnv) {
    let (_holder, worker) = hold(env, "broken");
    break_namespace(env, "broken", worker);
    let (code, state) = inspect(env, &["--namespace", "broken"]);
    assert_eq!(code, 8, "{state}");
    let kinds: Vec<&str> = state["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    for kind in ["free_but_held", "no_expiry", "duplicate_free", "leaked"] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
}

fn repair_fixes_everything_without_freeing_a_held_worker(env: &TestEnv) {
    let (mut holder, worker) = hold(env, "fixme");
    break_namespace(env, "fixme", worker);
    let (code, state) = inspect(env, &["--namespace", "fixme", "--repair", "--yes"]);
    assert_eq!(code, 0, "{state}");
    assert_eq!(state["repaired"], true);
    assert_eq!(state["problems"], serde_json::json!([]));
    let snapshot = env.lease_snapshot("fixme");
    assert!(!snapshot.free.contains(&worker), "a held worker was freed");
    assert_eq!(snapshot.free.len(), 1023);
    let lease = snapshot.held.iter().find(|h| h.worker == worker).unwrap();
    assert!(lease.ttl_ms.is_some(), "the held lease got no expiry");
    // The holder keeps its lease and goes on issuing.
    assert_eq!(holder.request(3).len(), 3);
}

fn repair_without_a_terminal_needs_yes_and_changes_nothing(env: &TestEnv) {
    let (_holder, worker) = hold(env, "ask");
    env.tamper_free_push("ask", worker);
    Test::within(env)
        .args(["inspect-freelist", "--namespace", "ask", "--repair"])
        .status(exit_code::USAGE)
        .stderr("--yes")
        .run();
    let (code, _) = inspect(env, &["--namespace", "ask"]);
    assert_eq!(code, 8, "the problem is still there");
}

fn an_unused_namespace_is_not_found(env: &TestEnv) {
    // An existing store: a missing one is refused before any namespace is looked up.
    env.ok(&["init-app", "--app", "1", "--name", "one"]);
    Test::within(env)
        .args(["inspect-freelist", "--namespace", "never"])
        .status(exit_code::NOT_FOUND)
        .stderr("\"never\"")
        .run();
}

#[test]
fn a_namespace_redis_lost_shows_its_workers_as_mysql_records_them() {
    use crate::harness::faults::{Persistence, RedisProcess};
    use crate::namespace::{flushed_namespace, with_redis};
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    let worker = flushed_namespace(&env, &redis);
    let run = with_redis(&env, &redis)
        .args(["inspect-freelist", "--namespace", "kept", "--json"])
        .status(exit_code::OK)
        .run();
    let state = run.json();
    assert_eq!(state["layout"], "snowflake", "{state}");
    assert_eq!(state["capacity"], 1024);
    assert_eq!(state["durable_record"], "mysql");
    assert_eq!(state["redis"], "missing");
    let held = state["durable"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["worker"] == worker)
        .unwrap();
    assert_eq!(
        (&held["holder"], &held["held"]),
        (&"web-1".into(), &true.into())
    );
    assert_eq!(held["redis"], "missing");
    with_redis(&env, &redis)
        .args(["inspect-freelist", "--namespace", "kept"])
        .status(exit_code::OK)
        .stdout("holder (MySQL)")
        .stdout("web-1")
        .stdout("warning: namespace \"kept\" is missing from Redis")
        .run();
}

#[test]
fn on_redis_alone_it_says_there_is_no_durable_record() {
    use crate::namespace::{leased_on_redis_alone, on_redis_alone};
    let env = TestEnv::distributed();
    let alone = || on_redis_alone(&env);
    leased_on_redis_alone(&env);
    let state = alone()
        .args(["inspect-freelist", "--namespace", "alone", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(state["durable_record"], "none");
    alone()
        .args(["inspect-freelist", "--namespace", "alone"])
        .status(exit_code::OK)
        .stdout("no durable record")
        .run();
}

crate::on_both_backends!(
    shows_layout_capacity_and_each_holder,
    finds_every_kind_of_inconsistency_and_exits_for_monitoring,
    repair_fixes_everything_without_freeing_a_held_worker,
    repair_without_a_terminal_needs_yes_and_changes_nothing,
    an_unused_namespace_is_not_found,
);
