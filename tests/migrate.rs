//! `idgen migrate`: moving an app's stock to another Redis node (two real redis-servers).

use crate::harness::{
    Test, TestEnv, assert_unique, gate_pass_for, keys, parse_ids, wait_until_stopped,
};
use idgen::exit_code;
use redis::Commands;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

fn queue_keys(conn: &mut redis::Connection, app: u8) -> Vec<String> {
    conn.keys(keys::queues_of(app)).unwrap()
}

fn stock(conn: &mut redis::Connection, app: u8) -> u64 {
    (0..64)
        .map(|shard| {
            conn.llen::<_, u64>(crate::harness::keys::queue(app, shard))
                .unwrap()
        })
        .sum()
}

fn route(env: &TestEnv, app: u8) -> Vec<Option<String>> {
    env.query(&format!(
        "SELECT node, target_node, phase FROM idgen_route WHERE app_id = {app}"
    ))
    .pop()
    .unwrap_or_default()
}

fn stocked_app(env: &TestEnv, app: &str) {
    env.ok(&[
        "init-app", "--app", app, "--name", "moving", "--step", "100",
    ]);
    env.ok(&["reload-segments", "--app", app, "--quiet"]);
}

#[test]
fn migrate_stocks_the_new_node_switches_the_route_and_retires_the_old_stock() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "1");
    let report = Test::within(&env)
        .args(["migrate", "--app", "1", "--to", "hot", "--yes", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(report["plan"]["from"], "main");
    assert_eq!(report["result"]["shards_retired"], 64);
    assert_eq!(report["result"]["ids_retired"], 6400);
    assert_eq!(report["result"]["shards_stocked"], 64);

    assert!(
        queue_keys(&mut env.redis(), 1).is_empty(),
        "old stock left on main"
    );
    assert_eq!(stock(&mut env.redis_hot(), 1), 6400);
    assert_eq!(route(&env, 1), vec![Some("hot".to_string()), None, None]);
    let hint: Option<String> = env.redis().get(crate::harness::keys::route(1)).unwrap();
    assert_eq!(hint.as_deref(), Some("hot"));
}

/// After a move, the old node is sealed: it stocks nothing for the app even
/// when the ledger's route names it again (changed by SQL here; a ledger that
/// went back in time does the same). A take then moves each shard back to the
/// node the ledger names, carrying the witness from the node it leaves, with
/// no operator and no repeat.
#[test]
fn a_route_changed_by_sql_back_to_the_old_node_repeats_nothing_and_needs_no_operator() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "3");
    let shard_zero = gate_pass_for(0);
    let next = |count: &str| {
        Test::within(&env)
            .args(["next", "--app", "3", "--count", count])
            .args(["--gate-pass", &shard_zero])
            .status(exit_code::OK)
            .run()
            .ids()
    };
    let mut ids = next("150");
    env.ok(&["migrate", "--app", "3", "--to", "hot", "--yes"]);
    ids.extend(next("250"));
    let sealed: Option<String> = env.redis().hget(keys::witness(3, 0), "moved_to").unwrap();
    assert_eq!(
        sealed.as_deref(),
        Some("hot"),
        "main is sealed for the shard"
    );

    env.sql(
        "UPDATE idgen_route SET node = 'main', target_node = NULL, phase = NULL WHERE app_id = 3",
    );
    ids.extend(next("400"));
    ids.extend(next("400"));

    assert_eq!(ids.len(), 1200);
    assert_unique(&ids);
    let on_hot: Option<String> = env
        .redis_hot()
        .hget(keys::witness(3, 0), "moved_to")
        .unwrap();
    assert_eq!(
        on_hot.as_deref(),
        Some("main"),
        "hot is sealed for the shard"
    );
    let on_main: Option<String> = env.redis().hget(keys::witness(3, 0), "moved_to").unwrap();
    assert_eq!(on_main, None, "main stocks the shard again");
}

/// 300 IDs of `app`, all from shard 0.
fn next_on_shard_0(env: &TestEnv, app: &str) -> Vec<u64> {
    Test::within(env)
        .args(["next", "--app", app, "--count", "300"])
        .args(["--gate-pass", &gate_pass_for(0)])
        .status(exit_code::OK)
        .run()
        .ids()
}

/// The node shard 0 of `app` is sealed for on the node `conn` reaches.
fn sealed_for(conn: &mut redis::Connection, app: u8) -> Option<String> {
    conn.hget(keys::witness(app, 0), "moved_to").unwrap()
}

/// `migrate --app APP --to NODE`, killed with its first shard sealed on the
/// node it leaves, before the node it goes to admits it.
fn migrate_killed_after_the_first_seal(env: &TestEnv, app: &str, to: &str) {
    let killed = Test::within(env)
        .args(["migrate", "--app", app, "--to", to, "--yes"])
        .env("IDGEN_FAILPOINTS", "migrate.sealed_shard")
        .run();
    assert_eq!(killed.status.signal(), Some(libc::SIGKILL), "{killed}");
}

/// App `app` stocked on main, moved to hot, then moved back with the move
/// killed between the seal and the admit: shard 0 is sealed on both nodes,
/// each for the other. Returns the IDs issued so far.
fn sealed_both_ways(env: &TestEnv, app: &str) -> Vec<u64> {
    stocked_app(env, app);
    let mut ids = next_on_shard_0(env, app);
    env.ok(&["migrate", "--app", app, "--to", "hot", "--yes"]);
    ids.extend(next_on_shard_0(env, app));
    migrate_killed_after_the_first_seal(env, app, "main");
    ids
}

/// A move back to a node the app left, killed between sealing the shard on
/// the node it leaves and admitting it on the node it returns to: the shard
/// is sealed on both, each for the other. The first take settles it as the
/// move would have (the ledger names the node the move goes to), with no
/// operator and no repeat.
#[test]
fn a_move_back_killed_between_seal_and_admit_is_settled_by_the_next_take() {
    let env = TestEnv::distributed_with_nodes();
    let mut ids = sealed_both_ways(&env, "14");
    assert_eq!(sealed_for(&mut env.redis(), 14).as_deref(), Some("hot"));
    assert_eq!(
        sealed_for(&mut env.redis_hot(), 14).as_deref(),
        Some("main")
    );

    ids.extend(next_on_shard_0(&env, "14"));
    ids.extend(next_on_shard_0(&env, "14"));

    assert_eq!(ids.len(), 1200);
    assert_unique(&ids);
    assert_eq!(sealed_for(&mut env.redis(), 14), None, "main is admitted");
    assert_eq!(
        sealed_for(&mut env.redis_hot(), 14).as_deref(),
        Some("main")
    );
}

/// A take that finds a shard sealed both ways lifts only the seal for the
/// node it came from, checked in the same step as the lift: a move onward,
/// which seals the shard for a third node while that take is paused, keeps
/// its seal, so the shard is never stocked on two nodes at once.
#[test]
fn a_take_settling_a_mutual_seal_never_lifts_a_seal_set_after_it() {
    let env = TestEnv::distributed_with_nodes();
    let mut ids = sealed_both_ways(&env, "15");
    let gate_pass = gate_pass_for(0);
    let paused = env.coprocess(
        &[
            "next",
            "--app",
            "15",
            "--count",
            "300",
            "--gate-pass",
            &gate_pass,
        ],
        &[("IDGEN_FAILPOINTS", "take.followed_seal=stop")],
    );
    wait_until_stopped(paused.pid(), "the take to settle the mutual seal");
    env.ok(&["migrate", "--app", "15", "--to", "main", "--yes"]);
    migrate_killed_after_the_first_seal(&env, "15", "cold");
    assert_eq!(sealed_for(&mut env.redis(), 15).as_deref(), Some("cold"));

    paused.signal(libc::SIGCONT);
    let (status, stdout, stderr) = paused.wait();
    assert!(status.success(), "{status:?} {stderr:?}");
    ids.extend(parse_ids(&stdout));
    assert_eq!(
        sealed_for(&mut env.redis(), 15).as_deref(),
        Some("cold"),
        "the paused take lifted the seal of the move onward"
    );
    env.ok(&["migrate", "--app", "15", "--to", "cold", "--yes"]);
    ids.extend(next_on_shard_0(&env, "15"));
    assert_eq!(ids.len(), 1200);
    assert_unique(&ids);
}

#[test]
fn after_the_move_next_and_reload_use_the_new_node_only() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "2");
    env.ok(&["migrate", "--app", "2", "--to", "hot", "--yes"]);
    let ids = Test::within(&env)
        .args(["next", "--app", "2", "--count", "50"])
        .run()
        .ids();
    assert_eq!(ids.len(), 50);
    assert_eq!(stock(&mut env.redis_hot(), 2), 6400 - 50);
    env.ok(&["reload-segments", "--quiet"]);
    assert!(
        queue_keys(&mut env.redis(), 2).is_empty(),
        "something refilled the old node"
    );
    let locks: Vec<String> = env.redis().keys(keys::locks_of(2)).unwrap();
    assert!(locks.is_empty(), "{locks:?}");
}

#[test]
fn concurrent_next_processes_during_a_move_issue_no_duplicate() {
    let env = TestEnv::distributed_with_nodes();
    env.ok(&["init-app", "--app", "3", "--name", "busy", "--step", "50"]);
    env.ok(&["reload-segments", "--app", "3", "--quiet"]);
    let moved = AtomicBool::new(false);
    let ids: Vec<u64> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..6)
            .map(|_| {
                s.spawn(|| {
                    let mut ids = Vec::new();
                    // Keep issuing until the move is over, then a few rounds more.
                    let mut after = 0;
                    while after < 5 {
                        if moved.load(Ordering::Acquire) {
                            after += 1;
                        }
                        let run = Test::within(&env)
                            .args(["next", "--app", "3", "--count", "40"])
                            .status(exit_code::OK)
                            .run();
                        ids.extend(run.ids());
                    }
                    ids
                })
            })
            .collect();
        let reloader = s.spawn(|| {
            while !moved.load(Ordering::Acquire) {
                env.ok(&["reload-segments", "--app", "3", "--quiet"]);
            }
        });
        let run = Test::within(&env)
            .args(["migrate", "--app", "3", "--to", "hot", "--yes"])
            .run();
        moved.store(true, Ordering::Release);
        assert!(run.success(), "{run}");
        reloader.join().unwrap();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert!(ids.len() >= 6 * 5 * 40);
    assert_unique(&ids);
    assert!(
        queue_keys(&mut env.redis(), 3).is_empty(),
        "old keys survived the move"
    );
    env.ok(&["reload-segments", "--quiet"]);
    assert!(queue_keys(&mut env.redis(), 3).is_empty());
}

#[test]
fn dry_run_prints_the_plan_and_changes_nothing() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "4");
    let plan = Test::within(&env)
        .args([
            "migrate",
            "--app",
            "4",
            "--to",
            "hot",
            "--dry-run",
            "--json",
        ])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(plan["plan"]["phase"], "not_started");
    assert_eq!(plan["plan"]["stock_on_from"], 6400);
    assert_eq!(plan["result"], serde_json::Value::Null);
    assert_eq!(stock(&mut env.redis(), 4), 6400);
    assert!(queue_keys(&mut env.redis_hot(), 4).is_empty());
    assert!(route(&env, 4).is_empty() || route(&env, 4)[0].as_deref() == Some("main"));
}

#[test]
fn without_a_terminal_migrate_refuses_unless_told_yes() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "5");
    Test::within(&env)
        .args(["migrate", "--app", "5", "--to", "hot"])
        .status(exit_code::USAGE)
        .stderr("--yes")
        .run();
    assert_eq!(stock(&mut env.redis(), 5), 6400);
    assert!(queue_keys(&mut env.redis_hot(), 5).is_empty());
}

#[test]
fn the_confirmation_prompt_is_answered_in_a_terminal() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "6");
    for (answer, code, moved) in [("n", 11, false), ("y", 0, true)] {
        let mut process = crate::harness::Coprocess::spawn(
            Test::within(&env)
                .args(["migrate", "--app", "6", "--to", "hot"])
                .terminal()
                .command(),
        );
        process.send(answer);
        let (status, _, _) = process.finish();
        assert_eq!(status.code(), Some(code), "answer {answer:?}");
        let stocked_hot = !queue_keys(&mut env.redis_hot(), 6).is_empty();
        assert_eq!(stocked_hot, moved, "answer {answer:?}");
    }
    assert_eq!(route(&env, 6)[0].as_deref(), Some("hot"));
}

#[test]
fn a_move_killed_midway_is_finished_by_running_it_again() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "7");
    for failpoint in ["migrate.before_switch", "migrate.retired_shard"] {
        let target = if failpoint == "migrate.before_switch" {
            "hot"
        } else {
            "cold"
        };
        let run = Test::within(&env)
            .args(["migrate", "--app", "7", "--to", target, "--yes"])
            .env("IDGEN_FAILPOINTS", failpoint)
            .run();
        assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
        // Meanwhile clients keep working.
        let during = Test::within(&env)
            .args(["next", "--app", "7", "--count", "100"])
            .run()
            .ids();
        assert_eq!(during.len(), 100);
        Test::within(&env)
            .args(["migrate", "--app", "7", "--to", target, "--yes", "--json"])
            .status(exit_code::OK)
            .run();
        assert_eq!(
            route(&env, 7),
            vec![Some(target.to_string()), None, None],
            "{failpoint}"
        );
    }
    assert!(queue_keys(&mut env.redis(), 7).is_empty());
    assert!(queue_keys(&mut env.redis_hot(), 7).is_empty());
}

#[test]
fn sigint_stops_a_move_between_shards_and_a_rerun_finishes_it() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "8");
    let process = env.coprocess(
        &["migrate", "--app", "8", "--to", "hot", "--yes"],
        &[("IDGEN_FAILPOINTS", "migrate.retired_shard=stop")],
    );
    let (status, _, stderr) = process.interrupt_when_stopped("the move to pause");
    assert_eq!(
        status.code(),
        Some(i32::from(exit_code::INTERRUPTED)),
        "{stderr:?}"
    );
    assert!(
        stderr.iter().any(|l| l.contains("hint: rerun")),
        "{stderr:?}"
    );
    assert_eq!(route(&env, 8)[2].as_deref(), Some("retiring"));
    let locks: Vec<String> = env.redis().keys(keys::locks_of(8)).unwrap();
    assert!(
        locks.is_empty(),
        "the interrupted move left locks: {locks:?}"
    );
    let left = queue_keys(&mut env.redis(), 8).len();
    assert!(
        (1..64).contains(&left),
        "the move stopped midway, {left} shards left"
    );

    env.ok(&["migrate", "--app", "8", "--to", "hot", "--yes"]);
    assert!(queue_keys(&mut env.redis(), 8).is_empty());
    assert_eq!(route(&env, 8), vec![Some("hot".to_string()), None, None]);
}

#[test]
fn a_second_move_to_another_node_waits_for_the_first() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "9");
    let run = Test::within(&env)
        .args(["migrate", "--app", "9", "--to", "hot", "--yes"])
        .env("IDGEN_FAILPOINTS", "migrate.before_switch")
        .run();
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    Test::within(&env)
        .args(["migrate", "--app", "9", "--to", "cold", "--yes"])
        .status(exit_code::CONFLICT)
        .stderr("idgen migrate --app 9 --to hot")
        .run();
}

#[test]
fn migrate_refuses_unknown_apps_and_nodes_and_does_nothing_when_already_there() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "10");
    Test::within(&env)
        .args(["migrate", "--app", "11", "--to", "hot", "--yes"])
        .status(exit_code::NOT_FOUND)
        .run();
    Test::within(&env)
        .args(["migrate", "--app", "10", "--to", "nowhere", "--yes"])
        .status(exit_code::NOT_FOUND)
        .stderr("\"nowhere\"")
        .run();
    Test::within(&env)
        .args(["migrate", "--app", "10", "--to", "main", "--yes"])
        .status(exit_code::OK)
        .stdout("nothing to do")
        .run();
    assert_eq!(stock(&mut env.redis(), 10), 6400);
}

#[test]
fn an_app_moved_back_and_forth_never_repeats_an_id() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "12");
    let mut ids = Vec::new();
    for to in ["hot", "cold", "main", "hot"] {
        let next = || {
            Test::within(&env)
                .args(["next", "--app", "12", "--count", "500"])
                .run()
        };
        ids.extend(next().ids());
        env.ok(&["migrate", "--app", "12", "--to", to, "--yes"]);
        ids.extend(next().ids());
    }
    assert_eq!(ids.len(), 4000);
    assert_unique(&ids);
}

/// A route hint can go back in time with its Redis dataset (a restart from an
/// older snapshot, a lagging replica promoted) or be served by a master the
/// sentinels have not demoted yet: main's hint then still names the node the
/// app came back from, whose own hint names main. The hints loop; the ledger's
/// route settles where the app is, and main's hint is repaired.
#[test]
fn a_stale_route_hint_that_loops_between_nodes_is_settled_by_the_ledger_route() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "13");
    env.ok(&["migrate", "--app", "13", "--to", "hot", "--yes"]);
    env.ok(&["migrate", "--app", "13", "--to", "main", "--yes"]);
    let _: () = env.redis().set(keys::route(13), "hot").unwrap();

    // More than a shard's stock (one step of 100): the take runs short and
    // looks where the app lives.
    let ids = Test::within(&env)
        .args(["next", "--app", "13", "--count", "500"])
        .status(exit_code::OK)
        .run()
        .ids();

    assert_eq!(ids.len(), 500);
    assert_unique(&ids);
    let hint: Option<String> = env.redis().get(keys::route(13)).unwrap();
    assert_eq!(hint, None, "main's stale hint was left in place");
    assert_eq!(
        stock(&mut env.redis_hot(), 13),
        0,
        "the node the app left was stocked"
    );
}

// ---- from an embedded store (a laptop) into Redis + MySQL ---------------------

/// `migrate --app 1 --from-store STORE`, run within `env`: app 1 moved out of
/// the embedded store file `store`.
fn migrate_app_1_from_store<'e>(env: &'e TestEnv, store: &Path) -> Test<'e> {
    Test::within(env).args([
        "migrate",
        "--app",
        "1",
        "--from-store",
        store.to_str().unwrap(),
    ])
}

/// 20 IDs of app 1 from the shard the gate pass `alice@example.com` lands on.
fn ids_from_alices_shard(env: &TestEnv) -> Vec<u64> {
    Test::within(env)
        .args(["next", "--app", "1", "--gate-pass", "alice@example.com"])
        .args(["--count", "20"])
        .run()
        .ids()
}

fn laptop_with_ids(laptop: &TestEnv) -> Vec<u64> {
    laptop.ok(&["init-app", "--app", "1", "--name", "demo", "--step", "50"]);
    let mut ids = Test::within(laptop)
        .args(["next", "--app", "1", "--count", "400"])
        .run()
        .ids();
    ids.extend(ids_from_alices_shard(laptop));
    laptop.ok(&["reload-segments", "--quiet"]);
    ids
}

#[test]
fn an_app_moves_from_the_embedded_store_into_redis_and_mysql_without_repeats() {
    let laptop = TestEnv::embedded();
    let production = TestEnv::distributed();
    let before = laptop_with_ids(&laptop);
    let store = laptop.store_path();
    let report = migrate_app_1_from_store(&production, &store)
        .args(["--yes", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(report["result"]["adopted"], true);
    assert_eq!(report["result"]["shards_stocked"], 64);
    assert!(
        report["result"]["ids_dropped_from_source"]
            .as_u64()
            .unwrap()
            > 0
    );
    let names = production.query("SELECT DISTINCT app_name FROM id_alloc WHERE app_id = 1");
    assert_eq!(names, vec![vec![Some("demo".to_string())]]);

    let mut after = Test::within(&production)
        .args(["next", "--app", "1", "--count", "500"])
        .run()
        .ids();
    for _ in 0..20 {
        after.extend(
            Test::within(&production)
                .args(["next", "--app", "1"])
                .run()
                .ids(),
        );
    }
    after.extend(ids_from_alices_shard(&production));
    let all: Vec<u64> = before.iter().chain(&after).copied().collect();
    assert_unique(&all);

    // The laptop takes no more segments for the app.
    Test::within(&laptop)
        .args(["next", "--app", "1", "--count", "100"])
        .status(exit_code::CONFLICT)
        .stderr("moved out")
        .run();
}

#[test]
fn a_second_store_file_at_the_same_path_is_not_taken_for_a_rerun_of_the_first() {
    let laptop = TestEnv::embedded();
    let production = TestEnv::distributed();
    laptop_with_ids(&laptop);
    let store = laptop.store_path();
    migrate_app_1_from_store(&production, &store)
        .arg("--yes")
        .status(exit_code::OK)
        .run();
    // Another laptop's store, at the same path, issued IDs of app 1 too: its
    // move would overlap the first one's, so it is refused, not skipped as done.
    std::fs::remove_file(&store).unwrap();
    laptop_with_ids(&laptop);
    migrate_app_1_from_store(&production, &store)
        .arg("--yes")
        .status(exit_code::CONFLICT)
        .one_line_error("another store file at the same path")
        .run();
}

#[test]
fn a_move_out_of_the_store_killed_midway_is_finished_by_running_it_again() {
    let laptop = TestEnv::embedded();
    let production = TestEnv::distributed();
    let before = laptop_with_ids(&laptop);
    let store = laptop.store_path();
    let move_out = || migrate_app_1_from_store(&production, &store).arg("--yes");
    for failpoint in [
        "store_exit.after_seal",
        "adopt.before_commit",
        "store_exit.after_adopt",
    ] {
        let run = move_out().env("IDGEN_FAILPOINTS", failpoint).run();
        assert_eq!(
            run.status.signal(),
            Some(libc::SIGKILL),
            "{failpoint}: {run}"
        );
    }
    move_out().status(exit_code::OK).run();
    move_out().status(exit_code::OK).run();
    let after = Test::within(&production)
        .args(["next", "--app", "1", "--count", "300"])
        .run()
        .ids();
    let all: Vec<u64> = before.iter().chain(&after).copied().collect();
    assert_unique(&all);
}

#[test]
fn laptop_clients_running_during_the_move_never_collide_with_production() {
    let laptop = TestEnv::embedded();
    let production = TestEnv::distributed();
    let mut ids = laptop_with_ids(&laptop);
    let store = laptop.store_path();
    let moved = AtomicBool::new(false);
    let during: Vec<u64> = std::thread::scope(|s| {
        let clients: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let mut ids = Vec::new();
                    while !moved.load(Ordering::Acquire) {
                        // Succeeds from the store's cache, or is refused once sealed.
                        let run = Test::within(&laptop)
                            .args(["next", "--app", "1", "--count", "7"])
                            .run();
                        assert!(
                            run.success() || run.code() == i32::from(exit_code::CONFLICT),
                            "{run}"
                        );
                        ids.extend(run.ids());
                    }
                    ids
                })
            })
            .collect();
        let run = migrate_app_1_from_store(&production, &store)
            .arg("--yes")
            .run();
        moved.store(true, Ordering::Release);
        assert!(run.success(), "{run}");
        clients
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    ids.extend(during);
    ids.extend(
        Test::within(&production)
            .args(["next", "--app", "1", "--count", "1000"])
            .run()
            .ids(),
    );
    assert_unique(&ids);
}

#[test]
fn an_app_that_already_issued_ids_in_the_destination_is_not_merged() {
    let laptop = TestEnv::embedded();
    let production = TestEnv::distributed();
    laptop_with_ids(&laptop);
    production.ok(&["init-app", "--app", "1", "--name", "demo"]);
    production.ok(&["next", "--app", "1"]);
    let store = laptop.store_path();
    migrate_app_1_from_store(&production, &store)
        .arg("--yes")
        .status(exit_code::CONFLICT)
        .stderr("unused app ID")
        .run();
}

#[test]
fn moving_out_of_a_store_needs_an_existing_store_and_a_distributed_destination() {
    let laptop = TestEnv::embedded();
    let production = TestEnv::distributed();
    laptop_with_ids(&laptop);
    let missing = laptop.home.path().join("nope.db");
    migrate_app_1_from_store(&production, &missing)
        .arg("--yes")
        .status(exit_code::STORE)
        .run();
    let store = laptop.store_path();
    migrate_app_1_from_store(&laptop, &store)
        .arg("--yes")
        .status(exit_code::USAGE)
        .stderr("--redis")
        .run();
    let dry = migrate_app_1_from_store(&production, &store)
        .args(["--dry-run", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(dry["plan"]["sealed"], false);
    // A dry run leaves the app unsealed.
    Test::within(&laptop)
        .args(["next", "--app", "1", "--count", "100"])
        .status(exit_code::OK)
        .run();
}

#[test]
fn a_dry_run_out_of_the_store_refuses_a_destination_app_of_another_name_as_the_run_does() {
    let laptop = TestEnv::embedded();
    let production = TestEnv::distributed();
    laptop_with_ids(&laptop);
    production.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let store = laptop.store_path();
    for extra in [&["--dry-run"][..], &["--yes"]] {
        migrate_app_1_from_store(&production, &store)
            .args(extra.iter().copied())
            .status(exit_code::CONFLICT)
            .one_line_error("MySQL names app 1 \"orders\", the store names it \"demo\"")
            .stderr("app set APP --name NAME")
            .stderr_lacks("--to embedded")
            .run();
    }
    // Neither sealed the app: the laptop still serves it.
    laptop.ok(&["next", "--app", "1"]);
}

#[test]
fn a_dry_run_out_of_the_store_refuses_a_destination_that_issued_ids_as_the_run_does() {
    let laptop = TestEnv::embedded();
    let production = TestEnv::distributed();
    laptop_with_ids(&laptop);
    production.ok(&["init-app", "--app", "1", "--name", "demo"]);
    production.ok(&["next", "--app", "1"]);
    migrate_app_1_from_store(&production, &laptop.store_path())
        .arg("--dry-run")
        .status(exit_code::CONFLICT)
        .one_line_error("MySQL has already issued IDs of app 1")
        .run();
}

#[test]
fn a_dry_run_out_of_the_store_with_a_wrong_mysql_password_is_refused_access() {
    let laptop = TestEnv::embedded();
    let production = TestEnv::distributed();
    laptop_with_ids(&laptop);
    let url = crate::secrets::mysql_user("dryrun", "dry-pass", "ALL");
    migrate_app_1_from_store(&production, &laptop.store_path())
        .env("IDGEN_MYSQL_URL", url.replacen('@', ":wrong-pass@", 1))
        .arg("--dry-run")
        .status(exit_code::ACCESS)
        .one_line_error("user name and password")
        .stderr_lacks("wrong-pass")
        .run();
}

#[test]
fn a_dry_run_between_nodes_reaches_the_destination_node() {
    let env = TestEnv::distributed_with_nodes();
    stocked_app(&env, "1");
    // The destination refuses the login: the move would fail, so the dry run does.
    let (user, _) = crate::secrets::redis_user(&env, "drymove", &["~*", "&*", "+@all"]);
    let wrong = crate::secrets::redis_url_for(&env, &format!("{user}:not-the-password"));
    Test::within(&env)
        .env("IDGEN_REDIS_NODES", format!("hot={wrong}"))
        .args(["migrate", "--app", "1", "--to", "hot", "--dry-run"])
        .status(exit_code::ACCESS)
        .one_line_error("refused access")
        .stderr_lacks("not-the-password")
        .run();
}
