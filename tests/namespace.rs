//! `idgen namespace list|show` on both backends, and after Redis lost its
//! data on Redis + MySQL (MySQL's durable record still shows everything).

use crate::harness::faults::{Persistence, RedisProcess};
use crate::harness::{Test, TestEnv, tiny_namespace_lease};
use idgen::exit_code;

fn namespaces_are_listed_and_shown_with_their_holders(env: &TestEnv) {
    env.ok(&["lease", "--count", "1"]);
    env.ok(&tiny_namespace_lease(&["--count", "1"]));
    let mut holder = env.coprocess(&["lease", "--stdin", "--holder", "web-1"], &[]);
    holder.request(1);

    let listed = Test::within(env)
        .args(["namespace", "list", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|ns| ns["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["default", "tiny"]);
    assert_eq!(listed[1]["capacity"], 2);
    assert_eq!(listed[0]["available"], 1023);
    Test::within(env)
        .args(["namespace", "list"])
        .status(exit_code::OK)
        .stdout("1,023")
        .stdout("tiny")
        .run();

    Test::within(env)
        .args(["namespace", "show", "default"])
        .status(exit_code::OK)
        .stdout("web-1")
        .stdout("fenced until")
        .run();
    let json = Test::within(env)
        .args(["namespace", "show", "default", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(json["held"][0]["holder"], "web-1");
    assert!(holder.finish().0.success());

    Test::within(env)
        .args(["namespace", "show", "nope"])
        .status(exit_code::NOT_FOUND)
        .stderr("idgen lease --namespace")
        .run();
}

fn delete_refuses_a_held_or_future_fenced_namespace_and_asks_first(env: &TestEnv) {
    env.ok(&["lease", "--namespace", "old", "--count", "1"]);
    let mut holder = env.coprocess(&["lease", "--stdin", "--namespace", "busy"], &[]);
    holder.request(1);
    // Its clock an hour ahead: the fence it leaves is in the future.
    Test::within(env)
        .args(["lease", "--namespace", "ahead", "--count", "1"])
        .env("IDGEN_TEST_CLOCK_OFFSET_MS", "3600000")
        .status(exit_code::OK)
        .run();

    Test::within(env)
        .args(["namespace", "delete", "busy", "--yes"])
        .status(exit_code::CONFLICT)
        .stderr("held")
        .run();
    Test::within(env)
        .args(["namespace", "delete", "ahead", "--yes"])
        .status(exit_code::CONFLICT)
        .stderr("fenced until")
        .run();
    // No terminal, no --yes.
    Test::within(env)
        .args(["namespace", "delete", "old"])
        .status(exit_code::USAGE)
        .stderr("--yes")
        .run();

    Test::within(env)
        .args(["namespace", "delete", "old", "--yes"])
        .status(exit_code::OK)
        .run();
    Test::within(env)
        .args(["namespace", "show", "old"])
        .status(exit_code::NOT_FOUND)
        .run();
    Test::within(env)
        .args(["namespace", "delete", "old", "--yes"])
        .status(exit_code::NOT_FOUND)
        .run();
    Test::within(env)
        .args(["namespace", "list"])
        .status(exit_code::OK)
        .stdout_lacks("old")
        .stdout("busy")
        .stdout("ahead")
        .run();
    // The name is free for another layout now.
    env.ok(&[
        "lease",
        "--namespace",
        "old",
        "--layout",
        "sonyflake",
        "--count",
        "1",
    ]);

    assert!(holder.finish().0.success());
    env.ok(&["namespace", "delete", "busy", "--yes"]);
}

/// A run against a private Redis (`redis`) with this test's MySQL.
pub fn with_redis<'e>(env: &'e TestEnv, redis: &RedisProcess) -> Test<'e> {
    Test::within(env).env("IDGEN_REDIS_URL", redis.url())
}

/// Namespace `kept` on a private Redis + MySQL: worker 0 released by a
/// finished `lease`, another held by `web-1`, killed so that nobody puts its
/// Redis key back; then Redis loses everything (FLUSHALL). Returns the held worker.
pub fn flushed_namespace(env: &TestEnv, redis: &RedisProcess) -> u64 {
    let lease = ["lease", "--namespace", "kept", "--ttl", "10m"];
    with_redis(env, redis)
        .args(lease)
        .args(["--count", "1"])
        .status(exit_code::OK)
        .run();
    let cmd = with_redis(env, redis)
        .args(lease)
        .args(["--json", "--stdin", "--holder", "web-1"])
        .command();
    let mut holder = crate::harness::Coprocess::spawn(cmd);
    let worker = holder.acquired_worker();
    holder.request(1);
    holder.signal(libc::SIGKILL);
    holder.wait();
    let _: () = redis::cmd("FLUSHALL").query(&mut redis.conn()).unwrap();
    worker
}

#[test]
fn a_namespace_redis_lost_is_still_listed_as_mysql_records_it() {
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    flushed_namespace(&env, &redis);
    let listed = with_redis(&env, &redis)
        .args(["namespace", "list", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    let kept = &listed[0];
    assert_eq!(kept["name"], "kept", "{listed}");
    assert_eq!(kept["layout"], "snowflake");
    assert_eq!(kept["capacity"], 1024);
    assert_eq!(
        kept["available"], 1023,
        "the killed holder's worker is held until its fence"
    );
    assert_eq!(kept["durable_record"], "mysql");
    assert_eq!(kept["redis"], "missing");
    with_redis(&env, &redis)
        .args(["namespace", "list"])
        .status(exit_code::OK)
        .stdout("kept")
        .stdout("redis: missing")
        .run();
}

#[test]
fn a_namespace_redis_lost_shows_its_layout_and_durable_fences() {
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    let worker = flushed_namespace(&env, &redis);
    let shown = with_redis(&env, &redis)
        .args(["namespace", "show", "kept", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert!(shown["epoch_ms"].as_i64().is_some(), "{shown}");
    let durable = shown["durable"].as_array().unwrap();
    let held = durable.iter().find(|w| w["worker"] == worker).unwrap();
    assert_eq!(held["holder"], "web-1");
    assert_eq!(held["held"], true);
    assert_eq!(held["redis"], "missing");
    assert!(held["fence_ms"].as_i64().unwrap() > 1_700_000_000_000);
    assert!(durable.iter().any(|w| w["held"] == false), "{shown}");
    with_redis(&env, &redis)
        .args(["namespace", "show", "kept"])
        .status(exit_code::OK)
        .stdout("web-1")
        .stdout("holder (MySQL)")
        .stdout("missing")
        .stdout("FLUSHALL")
        .stdout("idgen lease --namespace kept")
        .run();
}

/// A run on Redis alone: no MySQL, so no durable record.
pub fn on_redis_alone(env: &TestEnv) -> Test<'_> {
    Test::within(env).unset("IDGEN_MYSQL_URL")
}

/// Namespace `alone` used once on Redis alone.
pub fn leased_on_redis_alone(env: &TestEnv) {
    on_redis_alone(env)
        .args([
            "lease",
            "--namespace",
            "alone",
            "--ttl",
            "300ms",
            "--count",
            "1",
        ])
        .status(exit_code::OK)
        .run();
}

#[test]
fn on_redis_alone_namespace_show_says_there_is_no_durable_record() {
    let env = TestEnv::distributed();
    let alone = || on_redis_alone(&env);
    leased_on_redis_alone(&env);
    let shown = alone()
        .args(["namespace", "show", "alone", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(shown["durable_record"], "none");
    assert_eq!(shown["durable"], serde_json::Value::Null);
    alone()
        .args(["namespace", "show", "alone"])
        .status(exit_code::OK)
        .stdout("no durable record")
        .run();
    alone()
        .args(["namespace", "list"])
        .status(exit_code::OK)
        .stdout("no durable record")
        .run();
}

#[test]
fn on_the_embedded_store_the_store_is_the_durable_record() {
    let env = TestEnv::embedded();
    env.ok(&["lease", "--count", "1"]);
    let shown = env.json(&["namespace", "show", "default", "--json"]);
    assert_eq!(shown["durable_record"], "embedded");
    assert_eq!(shown["redis"], serde_json::Value::Null);
    Test::within(&env)
        .args(["namespace", "show", "default"])
        .status(exit_code::OK)
        .stdout_lacks("durable record")
        .stdout_lacks("redis")
        .run();
}

crate::on_both_backends!(
    namespaces_are_listed_and_shown_with_their_holders,
    delete_refuses_a_held_or_future_fenced_namespace_and_asks_first,
);
