//! `reload-segments` in batches: the shards of one app locked, taken from the
//! ledger in one transaction and pushed together, with every guarantee of a
//! single refill.

use crate::harness::faults::{Persistence, RedisProcess};
use crate::harness::{StoreKind, Test, TestEnv, assert_unique, segment_id, segment_parts};
use idgen::exit_code;
use std::os::unix::process::ExitStatusExt;

/// The failpoint inside the ledger transaction that takes a batch's segments.
fn before_commit(env: &TestEnv) -> &'static str {
    match env.backend {
        StoreKind::Distributed => "mysql.take_segments.before_commit",
        StoreKind::Embedded => "sqlite.take_segment.before_commit",
    }
}

fn max_ids(env: &TestEnv, app: u8) -> Vec<u64> {
    (0..64).map(|shard| env.max_id(app, shard)).collect()
}

fn stocks(env: &TestEnv, app: u8) -> Vec<u64> {
    (0..64).map(|shard| env.stock(app, shard)).collect()
}

fn reload_report(env: &TestEnv, args: &[&str]) -> serde_json::Value {
    Test::within(env)
        .args(args.iter().copied())
        .status(exit_code::OK)
        .run()
        .json()
}

fn init(env: &TestEnv, app: u8, step: u64) {
    let (app, step) = (app.to_string(), step.to_string());
    env.ok(&[
        "init-app", "--app", &app, "--name", "batch", "--step", &step,
    ]);
}

fn many_apps_refilled_from_empty_in_batches_stock_every_shard_once(env: &TestEnv) {
    for app in 50..54 {
        init(env, app, 7);
    }
    let report = reload_report(env, &["reload-segments", "--jobs", "3", "--json"]);
    assert_eq!(report["shards_refilled"], 4 * 64, "{report}");
    assert_eq!(report["ids_added"], 4 * 64 * 7, "{report}");
    for app in 50..54 {
        assert_eq!(stocks(env, app), vec![7; 64], "app {app}");
        assert_eq!(max_ids(env, app), vec![7; 64], "app {app}");
    }
    // Nothing to do: the sweep only checks.
    let again = reload_report(env, &["reload-segments", "--json"]);
    assert_eq!(again["shards_below_threshold"], 0, "{again}");
    assert_eq!(again["shards_refilled"], 0, "{again}");
}

fn concurrent_reloaders_and_takers_over_many_apps_issue_no_duplicate(env: &TestEnv) {
    let apps: Vec<String> = (60..64).map(|a| a.to_string()).collect();
    for app in 60..64 {
        init(env, app, 16);
    }
    let done = std::sync::atomic::AtomicBool::new(false);
    let ids: Vec<u64> = std::thread::scope(|s| {
        let reloaders: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let mut runs = 0;
                    while !done.load(std::sync::atomic::Ordering::Acquire) || runs == 0 {
                        Test::within(env)
                            .args(["reload-segments", "--jobs", "4", "--quiet"])
                            .status(exit_code::OK)
                            .run();
                        runs += 1;
                    }
                    runs
                })
            })
            .collect();
        let takers: Vec<_> = (0..4)
            .map(|worker| {
                let apps = &apps;
                s.spawn(move || {
                    let mut ids = Vec::new();
                    for call in 0..25 {
                        let app = &apps[(worker + call) % apps.len()];
                        let run = Test::within(env)
                            .args(["next", "--app", app, "--count", "40"])
                            .status(exit_code::OK)
                            .run();
                        ids.extend(run.ids());
                    }
                    ids
                })
            })
            .collect();
        let ids: Vec<u64> = takers.into_iter().flat_map(|t| t.join().unwrap()).collect();
        done.store(true, std::sync::atomic::Ordering::Release);
        for reloader in reloaders {
            assert!(reloader.join().unwrap() > 0);
        }
        ids
    });
    assert_eq!(ids.len(), 4 * 25 * 40);
    assert_unique(&ids);
    // Every stocked index came from the ledger: none above a shard's max_id.
    for &id in &ids {
        let (index, shard, app) = segment_parts(id);
        assert!(index <= env.max_id(app, shard), "{id} beyond max_id");
    }
}

fn a_reload_killed_inside_the_batch_transaction_takes_nothing(env: &TestEnv) {
    init(env, 55, 10);
    let run = Test::within(env)
        .args(["reload-segments", "--app", "55", "--jobs", "1"])
        .env("IDGEN_FAILPOINTS", before_commit(env))
        .run();
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    assert_eq!(max_ids(env, 55), vec![0; 64], "a killed batch committed");
    assert_eq!(stocks(env, 55), vec![0; 64]);
    // The dead reloader's locks expire; IDs from then on start at 1, once each.
    let ids: Vec<u64> = (0..8)
        .flat_map(|_| {
            Test::within(env)
                .args(["next", "--app", "55", "--count", "25"])
                .run()
                .ids()
        })
        .collect();
    assert_eq!(ids.len(), 200);
    assert_unique(&ids);
}

fn a_reload_killed_between_the_ledger_commit_and_the_push_leaves_gaps(env: &TestEnv) {
    init(env, 56, 10);
    let run = Test::within(env)
        .args(["reload-segments", "--app", "56", "--jobs", "1"])
        .env("IDGEN_FAILPOINTS", "segment.after_take")
        .run();
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    let lost = max_ids(env, 56);
    let taken = lost.iter().filter(|&&m| m == 10).count();
    assert!(
        taken > 0 && lost.iter().all(|&m| m == 0 || m == 10),
        "one whole batch is taken from the ledger: {lost:?}"
    );
    assert_eq!(
        stocks(env, 56),
        vec![0; 64],
        "…and none reached the dispenser"
    );

    // The lost segments are gaps: no later ID reuses one of their indexes.
    let mut ids = Vec::new();
    for _ in 0..10 {
        let run = Test::within(env)
            .args(["next", "--app", "56", "--count", "30"])
            .run();
        ids.extend(run.ids());
        env.ok(&["reload-segments", "--app", "56", "--quiet"]);
    }
    assert_eq!(ids.len(), 300);
    assert_unique(&ids);
    for id in ids {
        let (index, shard, _) = segment_parts(id);
        assert!(
            index > lost[usize::from(shard)],
            "index {index} of shard {shard} was in a lost segment"
        );
    }
}

fn the_limit_reached_inside_a_batch_exhausts_those_shards_and_refills_the_rest(env: &TestEnv) {
    // Shards 0..=20 of app 57 may reach index 3, the others index 2.
    let limit = segment_id(3, 20, 57);
    let limit_text = limit.to_string();
    env.ok(&[
        "init-app",
        "--app",
        "57",
        "--name",
        "limited",
        "--step",
        "2",
        "--max-limit-id",
        &limit_text,
    ]);
    let first = reload_report(env, &["reload-segments", "--app", "57", "--json"]);
    assert_eq!(first["shards_refilled"], 64, "{first}");
    assert_eq!(max_ids(env, 57), vec![2; 64]);
    // At idle 1 every shard wants more: each batch mixes shards with room
    // (refilled with their last index) and shards without (exhausted).
    // An exhausted shard is not a failure.
    let run = Test::within(env)
        .args(["reload-segments", "--app", "57", "--idle", "1", "--json"])
        .status(exit_code::OK)
        .run();
    let second = run.json();
    assert_eq!(second["failures"], serde_json::json!([]), "{second}");
    assert_eq!(second["shards_refilled"], 21, "{second}");
    assert_eq!(second["ids_added"], 21, "{second}");
    assert_eq!(second["exhausted"][0]["app"], 57, "{second}");
    assert_eq!(
        second["exhausted"][0]["shards"],
        serde_json::json!((21..64).collect::<Vec<u8>>()),
        "{second}"
    );
    assert_eq!(second["exhausted"][0]["max_limit_id"], limit_text);
    assert_eq!(run.stderr.matches("--max-limit-id N").count(), 1, "{run}");
    let expected: Vec<u64> = (0..64).map(|s| if s <= 20 { 3 } else { 2 }).collect();
    assert_eq!(max_ids(env, 57), expected);
    assert_eq!(stocks(env, 57), expected);
    // Whatever is served stays unique and within the limit.
    let mut ids = Vec::new();
    for _ in 0..10 {
        let run = Test::within(env)
            .args(["next", "--app", "57", "--count", "3"])
            .run();
        ids.extend(run.ids());
    }
    assert!(!ids.is_empty());
    assert_unique(&ids);
    assert!(ids.iter().all(|&id| id <= limit), "an ID past max_limit_id");
}

fn a_sweep_at_idle_one_refills_every_shard_from_its_history(env: &TestEnv) {
    init(env, 58, 5);
    env.ok(&["reload-segments", "--app", "58", "--quiet"]);
    assert_eq!(max_ids(env, 58), vec![5; 64]);
    // Every shard is at idle 1 x its last load: all refilled, in batches.
    let report = reload_report(
        env,
        &["reload-segments", "--app", "58", "--idle", "1", "--json"],
    );
    assert_eq!(report["shards_refilled"], 64, "{report}");
    assert_eq!(report["exhausted"], serde_json::json!([]));
    assert_eq!(stocks(env, 58), vec![10; 64]);
    assert_eq!(max_ids(env, 58), vec![10; 64]);
}

crate::on_both_backends!(
    many_apps_refilled_from_empty_in_batches_stock_every_shard_once,
    concurrent_reloaders_and_takers_over_many_apps_issue_no_duplicate,
    a_reload_killed_inside_the_batch_transaction_takes_nothing,
    a_reload_killed_between_the_ledger_commit_and_the_push_leaves_gaps,
    the_limit_reached_inside_a_batch_exhausts_those_shards_and_refills_the_rest,
    a_sweep_at_idle_one_refills_every_shard_from_its_history,
);

/// App 1 with shard 5's queue key holding a string (`SET`), as something
/// other than idgen would leave it; returns the key.
/// A push whose answer was lost is sent again, as a cluster client does
/// after a timeout. A reload's push has released its shard's lock by then
/// (the lock goes with the push that ends a refill), so the witness, which
/// names the push's own segment and token, answers it: every shard is
/// stocked once and reported refilled, and no lock is left.
#[test]
fn a_reload_push_sent_again_after_releasing_its_lock_is_stocked_once() {
    let env = TestEnv::distributed();
    init(&env, 45, 7);
    let process = env.coprocess(
        &["reload-segments", "--app", "45", "--jobs", "1", "--json"],
        &[("IDGEN_FAILPOINTS", "dispenser.push_answer_lost=stop")],
    );
    crate::harness::wait_until_stopped(process.pid(), "the first batch to be pushed");
    // Stopped before it could unlock anything: the pushes released the locks.
    assert_eq!(env.held_refill_locks(45), 0);
    assert_eq!(stocks(&env, 45).iter().filter(|&&n| n == 7).count(), 32);
    process.signal(libc::SIGCONT);
    let (status, stdout, stderr) = process.wait();
    assert!(status.success(), "{stderr:?}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON report");
    assert_eq!(report["shards_refilled"], 64, "{report}");
    assert_eq!(report["segments_dropped"], 0, "{report}");
    assert_eq!(stocks(&env, 45), vec![7; 64]);
    assert_eq!(max_ids(&env, 45), vec![7; 64]);
    assert_eq!(env.held_refill_locks(45), 0);
}

fn spoil_shard_five(env: &TestEnv) -> String {
    init(env, 1, 10);
    let key = crate::harness::keys::queue(1, 5);
    let _: () = redis::cmd("SET")
        .arg(&key)
        .arg("x")
        .query(&mut env.redis())
        .unwrap();
    key
}

#[test]
fn a_key_of_the_wrong_type_fails_its_shard_alone_naming_the_key_and_the_fix() {
    let env = TestEnv::distributed();
    let key = spoil_shard_five(&env);
    let run = Test::within(&env)
        .args(["reload-segments", "--app", "1", "--json"])
        .status(exit_code::BAD_DATA)
        .run();
    let report = run.json();
    assert_eq!(report["shards_refilled"], 63, "{report}");
    let failures = report["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{report}");
    assert_eq!(failures[0]["shard"], 5);
    assert_eq!(failures[0]["kind"], "bad-data");
    let error = failures[0]["error"].as_str().unwrap();
    assert!(
        error.contains(&key) && error.contains("a string, not a list"),
        "{error}"
    );
    let hint = failures[0]["hint"].as_str().unwrap();
    assert!(hint.contains(&format!("redis-cli DEL {key}")), "{hint}");
    let others: Vec<u64> = (0..64)
        .filter(|&s| s != 5)
        .map(|s| env.stock(1, s))
        .collect();
    assert_eq!(others, vec![10; 63]);
    // The key is left as it was found.
    let value: String = redis::cmd("GET").arg(&key).query(&mut env.redis()).unwrap();
    assert_eq!(value, "x");
}

#[test]
fn a_key_of_the_wrong_type_is_named_once_in_the_human_report() {
    let env = TestEnv::distributed();
    let key = spoil_shard_five(&env);
    let run = Test::within(&env)
        .args(["reload-segments", "--app", "1"])
        .status(exit_code::BAD_DATA)
        .stderr(format!("app 1: shard 5 on node main: Redis key {key} holds unexpected data: a string, not a list"))
        .stderr(format!("redis-cli DEL {key}"))
        .run();
    assert_eq!(run.stderr.matches("error:").count(), 1, "{run}");
}

#[test]
fn next_on_a_shard_whose_key_has_the_wrong_type_names_the_key_and_the_fix() {
    let env = TestEnv::distributed();
    let key = spoil_shard_five(&env);
    // Java's hashCode of "E" is 69: shard 69 % 64 = 5.
    Test::within(&env)
        .args(["next", "--app", "1", "--gate-pass", "E"])
        .status(exit_code::BAD_DATA)
        .one_line_error(format!("{key} holds unexpected data: a string, not a list"))
        .stderr(format!("redis-cli DEL {key}"))
        .run();
}

/// What a reload costs Redis: each batch of an app's shards is locked by one
/// script call and pushed by one more (the queue's in one transaction with
/// its buffers), not one call per shard: a script's fixed cost was most of a
/// refill's time on the server.
fn script_calls_of_a_reload(dispenser: &str) -> (u64, serde_json::Value) {
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    env.ok(&["init-app", "--app", "1", "--name", "batched"]);
    let run = Test::within(&env)
        .args(["reload-segments", "--app", "1", "--json"])
        .env("IDGEN_REDIS_URL", redis.url())
        .env("IDGEN_DISPENSER", dispenser)
        .status(exit_code::OK)
        .run();
    // `calls=6,usec=…,failed_calls=2`: the first call of each script found
    // this new server without it (NOSCRIPT) and went again.
    let stats = redis.info_field("commandstats", "cmdstat_evalsha");
    let count = |name: &str| -> u64 {
        stats
            .split(',')
            .find_map(|field| field.strip_prefix(name)?.strip_prefix('='))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {stats:?}"))
    };
    let calls = count("calls") - count("failed_calls") - count("rejected_calls");
    (calls, run.json())
}

#[test]
fn a_queue_reload_locks_and_pushes_each_batch_of_shards_in_one_script_call() {
    let (calls, report) = script_calls_of_a_reload("queue");
    assert_eq!(report["shards_refilled"], 64, "{report}");
    // Two batches of 32 shards: a lock and a push each.
    assert_eq!(calls, 4, "{report}");
}

#[test]
fn a_range_reload_locks_and_pushes_each_batch_of_shards_in_one_script_call() {
    let (calls, report) = script_calls_of_a_reload("range");
    assert_eq!(report["shards_refilled"], 64, "{report}");
    assert_eq!(calls, 4, "{report}");
}
