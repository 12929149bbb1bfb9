//! `idgen inspect-freelist`: lease state, inconsistencies and their repair.

use crate::harness::{Coprocess, TestEnv};
use redis::Commands;

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
    let worker = process.event("acquired")["worker"].as_u64().unwrap();
    process.request(5);
    (process, worker)
}

fn inspect(env: &TestEnv, args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["inspect-freelist", "--json"];
    all.extend_from_slice(args);
    let run = env.run(&all);
    let json = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run}"));
    (run.code(), json)
}

#[test]
fn shows_layout_capacity_and_each_holder() {
    let env = TestEnv::distributed();
    let (_holder, worker) = hold(&env, "shown");
    let (code, state) = inspect(&env, &["--namespace", "shown"]);
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

#[test]
fn finds_every_kind_of_inconsistency_and_exits_for_monitoring() {
    let env = TestEnv::distributed();
    let (_holder, worker) = hold(&env, "broken");
    let mut conn = env.redis();
    let free = "idgen:{broken}:free";
    let _: () = conn.rpush(free, worker).unwrap(); // free but held
    let _: () = conn.rpush(free, 900).unwrap(); // a duplicate
    let _: () = conn.lrem(free, 1, 901).unwrap(); // leaked
    let _: () = conn
        .persist(format!("idgen:{{broken}}:w:{worker}"))
        .unwrap(); // no expiry
    let (code, state) = inspect(&env, &["--namespace", "broken"]);
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

#[test]
fn repair_fixes_everything_without_freeing_a_held_worker() {
    let env = TestEnv::distributed();
    let (mut holder, worker) = hold(&env, "fixme");
    let mut conn = env.redis();
    let free = "idgen:{fixme}:free";
    let _: () = conn.rpush(free, worker).unwrap();
    let _: () = conn.rpush(free, 900).unwrap();
    let _: () = conn.lrem(free, 1, 901).unwrap();
    let key = format!("idgen:{{fixme}}:w:{worker}");
    let _: () = conn.persist(&key).unwrap();

    let (code, state) = inspect(&env, &["--namespace", "fixme", "--repair", "--yes"]);
    assert_eq!(code, 0, "{state}");
    assert_eq!(state["repaired"], true);
    assert_eq!(state["problems"], serde_json::json!([]));
    let listed: Vec<u64> = conn.lrange(free, 0, -1).unwrap();
    assert!(!listed.contains(&worker), "a held worker was freed");
    assert_eq!(listed.len(), 1023);
    assert!(
        conn.pttl::<_, i64>(&key).unwrap() > 0,
        "the held key got no expiry"
    );
    // The holder keeps its lease and goes on issuing.
    assert_eq!(holder.request(3).len(), 3);
}

#[test]
fn repair_without_a_terminal_needs_yes_and_changes_nothing() {
    let env = TestEnv::distributed();
    let (_holder, worker) = hold(&env, "ask");
    let _: () = env.redis().rpush("idgen:{ask}:free", worker).unwrap();
    let run = env.run(&["inspect-freelist", "--namespace", "ask", "--repair"]);
    assert_eq!(run.code(), 2, "{run}");
    assert!(run.stderr.contains("--yes"), "{run}");
    let (code, _) = inspect(&env, &["--namespace", "ask"]);
    assert_eq!(code, 8, "the problem is still there");
}

#[test]
fn an_unused_namespace_is_not_found() {
    let env = TestEnv::distributed();
    let run = env.run(&["inspect-freelist", "--namespace", "never"]);
    assert_eq!(run.code(), 3, "{run}");
    assert!(run.stderr.contains("\"never\""), "{run}");
}
