//! Segment IDs end to end: `init-app`, `next`, `reload-segments` on real Redis and MySQL.

use crate::harness::{
    StoreKind, Test, TestEnv, assert_unique, parse_ids, segment_id, segment_indexes, segment_parts,
    wait_until_stopped,
};
use idgen::exit_code;
use redis::Commands;
use std::os::unix::process::ExitStatusExt;
use std::sync::Barrier;
use std::time::{Duration, Instant};

fn shard_rows(env: &TestEnv, app: u8) -> u64 {
    env.query_u64(&format!(
        "SELECT COUNT(*) FROM id_alloc WHERE app_id = {app}"
    ))
}

/// App 9 with step 2 and a `max_limit_id`.
fn init_limited_app_9(env: &TestEnv, name: &str, limit: u64) {
    let limit = limit.to_string();
    env.ok(&[
        "init-app",
        "--app",
        "9",
        "--name",
        name,
        "--step",
        "2",
        "--max-limit-id",
        &limit,
    ]);
}

// ---- init-app ------------------------------------------------------------

fn init_app_seeds_64_shards_starting_at_zero(env: &TestEnv) {
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "500",
    ]);
    assert_eq!(shard_rows(env, 1), 64);
    let rows = env.query(
        "SELECT MIN(shard_id), MAX(shard_id), MAX(max_id), MIN(step), MAX(step), MIN(app_name) FROM id_alloc WHERE app_id = 1",
    );
    let row: Vec<String> = rows[0].iter().map(|v| v.clone().unwrap()).collect();
    assert_eq!(row, ["0", "63", "0", "500", "500", "orders"]);
}

#[test]
fn init_app_creates_id_alloc_exactly_as_the_java_service_defines_it() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let columns = env.query(
        "SELECT column_name, column_type, is_nullable, column_default FROM information_schema.columns
         WHERE table_schema = DATABASE() AND table_name = 'id_alloc' ORDER BY ordinal_position",
    );
    let described: Vec<String> = columns
        .iter()
        .map(|c| {
            format!(
                "{} {} {}",
                c[0].clone().unwrap(),
                c[1].clone().unwrap(),
                c[2].clone().unwrap()
            )
        })
        .collect();
    assert_eq!(
        described,
        [
            "app_id int(11) NO",
            "app_name varchar(128) NO",
            "max_id bigint(20) NO",
            "shard_id int(11) NO",
            "step int(11) NO",
            "description varchar(255) YES",
            "create_time datetime NO",
            "update_time datetime NO",
            "max_limit_id bigint(20) NO",
        ]
    );
}

fn init_app_rerun_with_the_same_name_changes_nothing_and_says_so(env: &TestEnv) {
    env.ok(&["init-app", "--app", "2", "--name", "coupons"]);
    env.ok(&["next", "--app", "2", "--gate-pass", "alice@example.com"]);
    let before = env.max_id(2, 61);
    let report = Test::within(env)
        .args(["init-app", "--app", "2", "--name", "coupons", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(report["outcome"], "unchanged");
    assert_eq!(report["shards_added"], 0);
    assert_eq!(shard_rows(env, 2), 64);
    assert_eq!(env.max_id(2, 61), before);
}

fn init_app_refuses_a_different_name_for_an_existing_app(env: &TestEnv) {
    env.ok(&["init-app", "--app", "3", "--name", "users"]);
    Test::within(env)
        .args(["init-app", "--app", "3", "--name", "accounts"])
        .status(exit_code::CONFLICT)
        .one_line_error("\"users\"")
        .run();
    let names = env.query("SELECT DISTINCT app_name FROM id_alloc WHERE app_id = 3");
    assert_eq!(names, vec![vec![Some("users".to_string())]]);
}

fn init_app_completes_an_app_the_java_procedure_left_half_seeded(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "other"]);
    let values: Vec<String> = (0..10).map(|s| format!("(12, 'half', 0, {s})")).collect();
    env.sql(&format!(
        "INSERT INTO id_alloc (app_id, app_name, max_id, shard_id) VALUES {}",
        values.join(", ")
    ));
    let report = Test::within(env)
        .args(["init-app", "--app", "12", "--name", "half", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(report["outcome"], "completed");
    assert_eq!(report["shards_added"], 54);
    assert_eq!(shard_rows(env, 12), 64);
}

fn init_app_killed_before_commit_leaves_no_shard_behind(env: &TestEnv) {
    let run = Test::within(env)
        .args(["init-app", "--app", "4", "--name", "crashy"])
        .env("IDGEN_FAILPOINTS", "init_app.before_commit")
        .run();
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    assert_eq!(shard_rows(env, 4), 0);
    env.ok(&["init-app", "--app", "4", "--name", "crashy"]);
    assert_eq!(shard_rows(env, 4), 64);
}

fn init_app_rejects_bad_input_with_a_usage_error_and_changes_nothing(env: &TestEnv) {
    let long_name = "n".repeat(129);
    let long_description = "d".repeat(256);
    let cases: Vec<Vec<&str>> = vec![
        vec!["--app", "256", "--name", "x"],
        vec!["--app", "-1", "--name", "x"],
        vec!["--app", "one", "--name", "x"],
        vec!["--app", "5", "--name", ""],
        vec!["--app", "5", "--name", "   "],
        vec!["--app", "5", "--name", &long_name],
        vec!["--app", "5", "--name", "evil\u{1b}[31m"],
        vec!["--app", "5", "--name", "two\nlines"],
        vec!["--app", "5", "--name", "x", "--description", "a\nb"],
        vec!["--app", "5", "--name", "x", "--step", "0"],
        vec!["--app", "5", "--name", "x", "--step", "3000000000"],
        vec!["--app", "5", "--name", "x", "--max-limit-id", "5"],
        vec![
            "--app",
            "5",
            "--name",
            "x",
            "--description",
            &long_description,
        ],
        vec![
            "--app",
            "5",
            "--name",
            "x",
            "--min-step",
            "10",
            "--max-step",
            "5",
        ],
        vec!["--app", "5", "--name", "x", "--target-interval", "0s"],
        vec!["--app", "5", "--name", "x", "--target-interval", "soon"],
        vec!["--name", "x"],
    ];
    for case in cases {
        Test::within(env)
            .arg("init-app")
            .args(case)
            .status(exit_code::USAGE)
            .stderr_lacks("panicked")
            .stdout_is("")
            .run();
    }
    assert!(
        !env.has_schema(),
        "a rejected init-app must not create the schema"
    );
}

// ---- next ----------------------------------------------------------------

fn issued_ids_decode_to_their_app_shard_and_index(env: &TestEnv) {
    env.ok(&[
        "init-app", "--app", "9", "--name", "decode", "--step", "100",
    ]);
    let ids = Test::within(env)
        .args(["next", "--app", "9", "--count", "250"])
        .run()
        .ids();
    assert_eq!(ids.len(), 250);
    assert_unique(&ids);
    let shard = segment_parts(ids[0]).1;
    let indexes: Vec<u64> = ids
        .iter()
        .map(|&id| {
            let (index, s, app) = segment_parts(id);
            assert_eq!((s, app), (shard, 9), "ID {id}");
            index
        })
        .collect();
    assert_eq!(indexes, (1..=250).collect::<Vec<u64>>());
}

fn gate_pass_lands_on_the_shard_java_computes(env: &TestEnv) {
    // Shards from Java 17's String.hashCode: Math.abs(h) % 64.
    let cases = [
        ("alice@example.com", 61),
        ("13800138000", 48),
        ("\u{5f20}\u{4e09}", 41),            // 张三
        ("\u{dc}n\u{ef}c\u{f6}d\u{e9}", 21), // Ünïcödé
        ("\u{1f600}emoji", 61),              // a surrogate pair
        ("polygenelubricants", 0),           // hashCode == Integer.MIN_VALUE
    ];
    env.ok(&["init-app", "--app", "10", "--name", "gate"]);
    for (gate_pass, shard) in cases {
        let ids = Test::within(env)
            .args(["next", "--app", "10", "--gate-pass", gate_pass])
            .run()
            .ids();
        assert_eq!(segment_parts(ids[0]).1, shard, "gate pass {gate_pass:?}");
    }
}

#[test]
fn java_hash_code_matches_java_for_known_strings() {
    // Values printed by Java 17 for "s".hashCode().
    let cases: [(&str, i32); 8] = [
        ("", 0),
        ("hello", 99162322),
        ("alice@example.com", 2145772861),
        ("\u{5f20}\u{4e09}", 774889),
        ("\u{1f600}emoji", -1233692477),
        ("polygenelubricants", i32::MIN),
        ("GydZG_", i32::MIN),
        ("user-42", -147182656),
    ];
    for (text, hash) in cases {
        assert_eq!(idgen::segment::java_hash_code(text), hash, "{text:?}");
    }
    assert_eq!(idgen::segment::shard_for_gate_pass("GydZG_"), 0);
    assert_eq!(idgen::segment::shard_for_gate_pass("user-42"), 0);
}

#[test]
fn warm_next_does_not_need_mysql() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "11", "--name", "warm"]);
    env.ok(&["next", "--app", "11", "--gate-pass", "alice@example.com"]);
    let dead_mysql = "mysql://root@127.0.0.1:1/nothing";
    let run = Test::within(&env)
        .args(["next", "--app", "11", "--gate-pass", "alice@example.com"])
        .env("IDGEN_MYSQL_URL", dead_mysql)
        .status(exit_code::OK)
        .run();
    assert_eq!(segment_parts(run.ids()[0]).0, 2);
}

/// Every command clients send to `db` while `during` runs, by name, as
/// MONITOR reports them (other tests' commands run in other databases); the
/// commands a script runs inside the server are left out, and so are clients
/// that only set up a connection (AUTH, HELLO, SELECT, CLIENT): a database is
/// handed to the next test when one ends, and a process of an earlier test
/// reconnecting with a password showed up once as an AUTH in it.
fn commands_in_db(env: &TestEnv, db: &str, during: impl FnOnce()) -> Vec<String> {
    use std::io::{BufRead, BufReader, Write};
    let address = env
        .redis_url
        .trim_start_matches("redis://")
        .split('/')
        .next()
        .unwrap();
    let mut monitor = std::net::TcpStream::connect(address).unwrap();
    monitor.write_all(b"MONITOR\r\n").unwrap();
    let mut lines = BufReader::new(monitor.try_clone().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "+OK");
    during();
    // A marker in the same database: MONITOR shows it after everything before it.
    let marker = format!("marker-{}", std::process::id());
    let _: String = redis::cmd("ECHO")
        .arg(&marker)
        .query(&mut env.redis())
        .unwrap();
    let tag = format!("[{db} ");
    // (client, command) in the order the server ran them.
    let mut seen: Vec<(String, String)> = Vec::new();
    for line in lines {
        let line = line.unwrap();
        if line.contains(&marker) {
            break;
        }
        if let Some(rest) = line.split_once(&tag).map(|(_, rest)| rest)
            && !rest.starts_with("lua]")
        {
            let client = rest.split(']').next().unwrap_or_default().to_string();
            let name = rest
                .split('"')
                .nth(1)
                .unwrap_or_default()
                .to_ascii_uppercase();
            seen.push((client, name));
        }
    }
    let setup = |name: &str| matches!(name, "AUTH" | "HELLO" | "SELECT" | "CLIENT");
    let working: std::collections::HashSet<String> = seen
        .iter()
        .filter(|(_, name)| !setup(name))
        .map(|(client, _)| client.clone())
        .collect();
    seen.into_iter()
        .filter(|(client, _)| working.contains(client))
        .map(|(_, name)| name)
        .collect()
}

#[test]
fn a_first_next_is_one_round_trip_the_probe_and_a_verified_take() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "12", "--name", "trips"]);
    env.ok(&["next", "--app", "12", "--gate-pass", "a"]);
    let db = env.redis_url.rsplit('/').next().unwrap().to_string();
    let commands = commands_in_db(&env, &db, || {
        env.ok(&["next", "--app", "12", "--gate-pass", "a"]);
    });
    let data: Vec<&str> = commands
        .iter()
        .map(String::as_str)
        .filter(|c| !matches!(*c, "CLIENT" | "SELECT" | "HELLO"))
        .collect();
    // One pipeline: what the server is (INFO) and that the connection ends
    // at it (CLIENT INFO, filtered out above), the take by script (which
    // checks the shard's stamp against the server's own run_id and
    // replication ID) and the route hint.
    assert_eq!(
        data,
        ["INFO", "EVALSHA", "GET"],
        "all commands: {commands:?}"
    );
}

/// A new connection asks nothing of the server before the take: not even the
/// client library's `CLIENT SETINFO`, which cost every `next` a round trip of
/// its own and which Redis before 7.2 refuses, counting two error replies per
/// connection in the `INFO errorstats` that monitoring watches.
#[test]
fn a_warm_next_leaves_no_error_reply_in_the_servers_counters() {
    use crate::harness::faults::{Persistence, RedisProcess};
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    let on_redis = || Test::within(&env).env("IDGEN_REDIS_URL", redis.url());
    on_redis()
        .args(["init-app", "--app", "14", "--name", "quiet"])
        .status(exit_code::OK)
        .run();
    // The first take loads the scripts (a NOSCRIPT answer is expected there).
    on_redis()
        .args(["next", "--app", "14"])
        .status(exit_code::OK)
        .run();
    // One connection of the test's own, opened (and its setup counted) before
    // the counters are reset.
    let mut admin = redis.conn();
    let _: () = redis::cmd("CONFIG")
        .arg("RESETSTAT")
        .query(&mut admin)
        .unwrap();
    on_redis()
        .args(["next", "--app", "14"])
        .status(exit_code::OK)
        .run();
    let mut stat = |name: &str| RedisProcess::info_field_over(&mut admin, "stats", name);
    assert_eq!(stat("total_connections_received"), "1");
    assert_eq!(stat("total_error_replies"), "0");
}

/// The nemesis's hung `next` (distributed seeds 30011 and 30013): a first
/// take held the connection's lock while its pipeline ran, and a pipeline
/// that broke forgot the broken link by taking that same lock, waiting for
/// itself with no timer left to end it.
#[test]
fn a_first_take_whose_connection_breaks_fails_with_exit_5_and_never_hangs() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "13", "--name", "cut"]);
    env.ok(&["reload-segments", "--app", "13", "--quiet"]);
    let process = env.coprocess(
        &["next", "--app", "13"],
        &[("IDGEN_FAILPOINTS", "redis.first_take=stop")],
    );
    wait_until_stopped(process.pid(), "next to stop before its first take");
    let cut = env.cut_redis_connections_of(process.pid());
    assert_eq!(cut, 1, "next held {cut} connections to Redis");
    process.signal(libc::SIGCONT);
    let (status, stdout, stderr) =
        process.exit_within(Duration::from_secs(30), "next whose connection broke");
    assert_eq!(
        status.code(),
        Some(i32::from(exit_code::UNAVAILABLE)),
        "{stderr:?}"
    );
    assert_eq!(
        stdout, "",
        "printed an ID from a take it never saw answered"
    );
}

#[test]
fn later_takes_on_a_direct_connection_are_one_verified_pop_and_one_route_read() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "12", "--name", "trips"]);
    env.ok(&["reload-segments", "--app", "12", "--quiet"]);
    let db = env.redis_url.rsplit('/').next().unwrap().to_string();
    // A count past one piece (131,072) takes twice on one connection.
    let commands = commands_in_db(&env, &db, || {
        Test::within(&env)
            .args([
                "next",
                "--app",
                "12",
                "--gate-pass",
                "a",
                "--count",
                "131073",
            ])
            .status(exit_code::OK)
            .run();
    });
    let data: Vec<&str> = commands
        .iter()
        .map(String::as_str)
        .filter(|c| !matches!(*c, "CLIENT" | "SELECT" | "HELLO"))
        .collect();
    // The stamp and limit, the pop, the route hint and the server's
    // replication ID (INFO replication, which a demotion and promotion
    // change under a live connection); no script.
    let later = data
        .windows(4)
        .any(|w| w == ["HMGET", "LPOP", "GET", "INFO"]);
    assert!(later, "all commands: {commands:?}");
}

fn next_for_an_unknown_app_is_not_found(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "known"]);
    Test::within(env)
        .args(["next", "--app", "77"])
        .status(exit_code::NOT_FOUND)
        .one_line_error("init-app --app 77")
        .run();
}

fn next_rejects_bad_input_with_a_usage_error(env: &TestEnv) {
    for args in [
        vec!["next"],
        vec!["next", "--app", "256"],
        vec!["next", "--app", "1", "--count", "0"],
        vec!["next", "--app", "1", "--count", "10000001"],
        vec!["next", "--app", "1", "--count", "many"],
        vec!["next", "--app", "1", "--dispenser", "stack"],
        vec!["next", "--app", "1", "--timeout", "forever"],
    ] {
        Test::within(env)
            .args(args)
            .status(exit_code::USAGE)
            .stdout_is("")
            .run();
    }
}

fn max_limit_id_is_refused_never_wrapped(env: &TestEnv) {
    // Shard 0 of app 9 may issue indexes 1..=3.
    let limit = segment_id(3, 0, 9);
    init_limited_app_9(env, "small", limit);
    let gate = ["--gate-pass", "polygenelubricants"];
    let mut ids = Vec::new();
    for _ in 0..3 {
        let run = Test::within(env)
            .args(["next", "--app", "9"])
            .args(gate)
            .status(exit_code::OK)
            .run();
        ids.extend(run.ids());
    }
    Test::within(env)
        .args(["next", "--app", "9"])
        .args(gate)
        .status(exit_code::EXHAUSTED)
        .stderr("max_limit_id")
        .run();
    assert!(ids.iter().all(|&id| id <= limit), "{ids:?} passes {limit}");
    assert_eq!(segment_indexes(&ids), [1, 2, 3]);
}

fn a_batch_that_reaches_max_limit_id_prints_what_it_got_then_fails(env: &TestEnv) {
    let limit = segment_id(5, 0, 9);
    init_limited_app_9(env, "small", limit);
    let run = Test::within(env)
        .args(["next", "--app", "9", "--gate-pass", "polygenelubricants"])
        .args(["--count", "10"])
        .status(exit_code::EXHAUSTED)
        .stderr("issued 5 of 10")
        // A warning before the limit.
        .stderr("90%")
        .run();
    assert_eq!(segment_indexes(&run.ids()), [1, 2, 3, 4, 5]);
}

fn a_crash_between_the_ledger_update_and_the_dispenser_push_leaves_a_gap(env: &TestEnv) {
    env.ok(&[
        "init-app", "--app", "13", "--name", "crash", "--step", "100",
    ]);
    let gate = "alice@example.com"; // shard 61
    let run = Test::within(env)
        .args(["next", "--app", "13", "--gate-pass", gate])
        .env("IDGEN_FAILPOINTS", "segment.after_take")
        .stdout_is("")
        .run();
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    assert_eq!(env.max_id(13, 61), 100, "the segment was taken from MySQL");
    assert_eq!(env.stock(13, 61), 0, "…but never reached the dispenser");

    // The dead refiller's lock is still there; later calls must not repeat 1..=100.
    let mut ids = Vec::new();
    for _ in 0..5 {
        ids.extend(
            Test::within(env)
                .args(["next", "--app", "13", "--gate-pass", gate, "--count", "30"])
                .run()
                .ids(),
        );
    }
    assert_eq!(ids.len(), 150);
    assert_unique(&ids);
    assert!(
        ids.iter().all(|&id| segment_parts(id).0 > 100),
        "an index of the lost segment was issued"
    );
}

fn a_stale_lock_does_not_block_next(env: &TestEnv) {
    env.ok(&["init-app", "--app", "14", "--name", "locked"]);
    env.hold_refill_lock(14, 61, 60);
    let started = Instant::now();
    Test::within(env)
        .args(["next", "--app", "14", "--gate-pass", "alice@example.com"])
        .status(exit_code::OK)
        .run();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "next waited {:?}",
        started.elapsed()
    );
}

// ---- concurrency and Redis loss --------------------------------------------

fn hammer(
    env: &TestEnv,
    app: &str,
    dispenser: &str,
    workers: usize,
    calls: usize,
    count: u64,
) -> Vec<u64> {
    let count = count.to_string();
    let done = std::sync::atomic::AtomicBool::new(false);
    // Stops the reloaders even when a worker's assertion fails.
    struct Done<'a>(&'a std::sync::atomic::AtomicBool);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::Release);
        }
    }
    std::thread::scope(|s| {
        let reloaders: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut runs = 0;
                    while !done.load(std::sync::atomic::Ordering::Acquire) || runs == 0 {
                        Test::within(env)
                            .args(["reload-segments", "--app", app, "--quiet"])
                            .env("IDGEN_DISPENSER", dispenser)
                            .status(exit_code::OK)
                            .run();
                        runs += 1;
                    }
                    runs
                })
            })
            .collect();
        let workers: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut ids = Vec::new();
                    for _ in 0..calls {
                        let run = Test::within(env)
                            .args(["next", "--app", app, "--count", &count])
                            .env("IDGEN_DISPENSER", dispenser)
                            .status(exit_code::OK)
                            .run();
                        ids.extend(run.ids());
                    }
                    ids
                })
            })
            .collect();
        let stop = Done(&done);
        let ids: Vec<u64> = workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        drop(stop);
        for reloader in reloaders {
            assert!(reloader.join().unwrap() > 0);
        }
        ids
    })
}

fn eight_next_processes_and_two_reloads_issue_no_duplicate_queue(env: &TestEnv) {
    env.ok(&["init-app", "--app", "20", "--name", "load", "--step", "64"]);
    let ids = hammer(env, "20", "queue", 8, 40, 160);
    assert!(ids.len() >= 50_000, "only {} IDs", ids.len());
    assert_unique(&ids);
    assert!(ids.iter().all(|&id| segment_parts(id).2 == 20));
}

fn eight_next_processes_and_two_reloads_issue_no_duplicate_range(env: &TestEnv) {
    env.ok(&["init-app", "--app", "21", "--name", "load", "--step", "64"]);
    let ids = hammer(env, "21", "range", 8, 40, 160);
    assert!(ids.len() >= 50_000, "only {} IDs", ids.len());
    assert_unique(&ids);
}

#[test]
fn redis_flushed_mid_run_causes_no_duplicate() {
    let env = TestEnv::distributed();
    env.ok(&[
        "init-app", "--app", "22", "--name", "flush", "--step", "200",
    ]);
    let barrier = Barrier::new(5);
    let ids: Vec<u64> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    let mut ids = Vec::new();
                    for round in 0..2 {
                        if round == 1 {
                            barrier.wait(); // every worker has finished round 0
                            barrier.wait(); // Redis has been flushed
                        }
                        for _ in 0..15 {
                            let run = Test::within(&env)
                                .args(["next", "--app", "22", "--count", "50"])
                                .run();
                            ids.extend(run.ids());
                            env.ok(&["reload-segments", "--app", "22", "--quiet"]);
                        }
                    }
                    ids
                })
            })
            .collect();
        barrier.wait();
        let _: () = redis::cmd("FLUSHDB").query(&mut env.redis()).unwrap();
        barrier.wait();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert_eq!(ids.len(), 4 * 2 * 15 * 50);
    assert_unique(&ids);
}

// ---- reload-segments -----------------------------------------------------------

fn reload_tops_up_every_shard_below_the_threshold(env: &TestEnv) {
    env.ok(&["init-app", "--app", "30", "--name", "cron", "--step", "100"]);
    let report = Test::within(env)
        .args(["reload-segments", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(report["shards_checked"], 64);
    assert_eq!(report["shards_refilled"], 64);
    assert_eq!(report["ids_added"], 6400);
    for shard in 0..64 {
        assert_eq!(env.stock(30, shard), 100, "shard {shard}");
    }
    // Full shards are left alone.
    let again = Test::within(env)
        .args(["reload-segments", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(again["shards_refilled"], 0);
}

fn reload_skips_a_shard_whose_lock_another_refiller_holds(env: &TestEnv) {
    env.ok(&["init-app", "--app", "31", "--name", "busy", "--step", "10"]);
    env.hold_refill_lock(31, 5, 60);
    let report = Test::within(env)
        .args(["reload-segments", "--app", "31", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(report["shards_busy"], 1);
    assert_eq!(report["shards_refilled"], 63);
    assert_eq!(env.stock(31, 5), 0);
    assert_eq!(
        env.held_refill_locks(31),
        1,
        "someone else's lock must not be touched"
    );
}

fn reload_reports_orphaned_queues_and_prunes_them_only_when_asked(env: &TestEnv) {
    env.ok(&["init-app", "--app", "32", "--name", "gone", "--step", "10"]);
    env.ok(&["init-app", "--app", "33", "--name", "stays", "--step", "10"]);
    env.ok(&["reload-segments", "--quiet"]);
    env.sql("DELETE FROM id_alloc WHERE app_id = 32");
    if env.backend == StoreKind::Distributed {
        // The Java service uses the bare prefix as a lock key: not a queue.
        let _: () = env
            .redis()
            .set(idgen::store::redis::QUEUE_PREFIX, "1700000000000")
            .unwrap();
    }

    let report = Test::within(env)
        .args(["reload-segments", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    let orphans = report["orphans"].as_array().unwrap();
    assert_eq!(orphans.len(), 1, "{report}");
    assert_eq!(orphans[0]["app"], 32);
    assert_eq!(orphans[0]["shards"].as_array().unwrap().len(), 64);
    assert_eq!(env.stock(32, 0), 10, "reported only");

    let report = Test::within(env)
        .args(["reload-segments", "--prune", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(report["orphans"][0]["pruned_ids"], 640);
    assert_eq!(env.stocked_shards(32), 0);
    assert_eq!(env.stock(33, 0), 10);
}

fn reload_reports_an_exhausted_app_once_not_as_a_failure(env: &TestEnv) {
    let limit = segment_id(2, 0, 9);
    init_limited_app_9(env, "tiny", limit);
    env.ok(&[
        "next",
        "--app",
        "9",
        "--gate-pass",
        "polygenelubricants",
        "--count",
        "2",
    ]);
    // An exhausted shard is reported once, with the fix, and is not a failure.
    let run = Test::within(env)
        .args(["reload-segments", "--app", "9", "--json"])
        .status(exit_code::OK)
        .run();
    let report = run.json();
    assert_eq!(report["failures"], serde_json::json!([]), "{report}");
    assert_eq!(report["exhausted"][0]["app"], 9, "{report}");
    assert_eq!(report["exhausted"][0]["shards"], serde_json::json!([0]));
    assert_eq!(report["exhausted"][0]["max_limit_id"], limit.to_string());
    assert_eq!(run.stderr.matches("--max-limit-id N").count(), 1, "{run}");
    // Shards near the limit are one line for the app, not one per shard.
    assert!(run.stderr.lines().count() <= 2, "{run}");
}

fn reload_prints_nothing_with_quiet_when_all_went_well(env: &TestEnv) {
    env.ok(&["init-app", "--app", "34", "--name", "quiet", "--step", "10"]);
    let run = Test::within(env)
        .args(["reload-segments", "--quiet"])
        .status(exit_code::OK)
        .stdout_is("")
        .run();
    assert_eq!(run.stderr, "", "{run}");
}

// ---- a queue push: the indexes go through a buffer the script moves -------------

/// The indexes in shard `shard`'s queue, front first, as numbers.
fn queued(env: &TestEnv, app: u8, shard: u8) -> Vec<u64> {
    let entries: Vec<String> = env
        .redis()
        .lrange(crate::harness::keys::queue(app, shard), 0, -1)
        .unwrap();
    entries.iter().map(|e| e.parse().unwrap()).collect()
}

/// `reload-segments ARGS --json`'s `ids_added`.
fn reload_adding(env: &TestEnv, args: &[&str]) -> u64 {
    let report = Test::within(env)
        .arg("reload-segments")
        .args(args.iter().copied())
        .arg("--json")
        .status(exit_code::OK)
        .run()
        .json();
    report["ids_added"].as_u64().unwrap()
}

#[test]
fn a_queue_topped_up_keeps_what_was_left_in_front_in_order() {
    let env = TestEnv::distributed();
    env.ok(&[
        "init-app", "--app", "43", "--name", "topped", "--step", "100",
    ]);
    env.ok(&["reload-segments", "--app", "43", "--quiet"]);
    // Another consumer (the Java service) pops 95 of shard 7's 100.
    let mut conn = env.redis();
    for _ in 0..95 {
        java_pop(&mut conn, 43, 7).unwrap();
    }
    // The five left are fewer than the segment: they go in front of it.
    let added = reload_adding(&env, &["--app", "43"]);
    assert!(added >= 10, "shard 7 took a segment: {added}");
    assert_eq!(queued(&env, 43, 7), (96..=100 + added).collect::<Vec<_>>());
    assert_eq!(env.push_buffers_left(), Vec::<String>::new());
}

#[test]
fn a_queue_holding_more_than_the_segment_gets_it_appended_in_order() {
    let env = TestEnv::distributed();
    env.ok(&[
        "init-app",
        "--app",
        "44",
        "--name",
        "deep",
        "--step",
        "100",
        "--min-step",
        "10",
    ]);
    env.ok(&["reload-segments", "--app", "44", "--quiet"]);
    // Every shard is full and counts as idle at 1.0: each takes the smallest
    // segment its sizing allows, fewer than the 100 it holds.
    let added = reload_adding(&env, &["--app", "44", "--idle", "1.0"]) / 64;
    assert!((10..100).contains(&added), "{added} a shard");
    for shard in [0, 7, 63] {
        assert_eq!(
            queued(&env, 44, shard),
            (1..=100 + added).collect::<Vec<_>>(),
            "shard {shard}"
        );
    }
    assert_eq!(env.push_buffers_left(), Vec::<String>::new());
}

// ---- compatibility with the Java service ---------------------------------------

/// The Java service's `getIdFromQueue`: LPOP, `isDigits`, then compose (the
/// layout idgen shares with it).
fn java_pop(conn: &mut redis::Connection, app: u8, shard: u8) -> Option<u64> {
    let next: Option<String> = conn
        .lpop(crate::harness::keys::queue(app, shard), None)
        .unwrap();
    let next = next.filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))?;
    Some(segment_id(next.parse().unwrap(), shard, app))
}

#[test]
fn the_java_algorithm_consumes_a_queue_idgen_filled() {
    let env = TestEnv::distributed();
    env.ok(&[
        "init-app", "--app", "40", "--name", "shared", "--step", "50",
    ]);
    env.ok(&["reload-segments", "--app", "40", "--quiet"]);
    let mut conn = env.redis();
    let java: Vec<u64> = (0..20)
        .filter_map(|_| java_pop(&mut conn, 40, 61))
        .collect();
    assert_eq!(java.len(), 20);
    assert_eq!(segment_indexes(&java), (1..=20).collect::<Vec<_>>());
    let ours = Test::within(&env)
        .args(["next", "--app", "40", "--gate-pass", "alice@example.com"])
        .args(["--count", "100"])
        .run()
        .ids();
    let all: Vec<u64> = java.iter().chain(&ours).copied().collect();
    assert_unique(&all);
}

#[test]
fn idgen_consumes_a_queue_the_java_algorithm_filled() {
    let env = TestEnv::distributed();
    env.ok(&[
        "init-app", "--app", "41", "--name", "shared", "--step", "25",
    ]);
    // idgen has served the shard once, so its stock carries this server's stamp.
    let first = env.ok(&[
        "next",
        "--app",
        "41",
        "--gate-pass",
        "13800138000",
        "--count",
        "25",
    ]);
    assert_eq!(parse_ids(&first).len(), 25);
    // The Java service's updateSegmentFromDb: UPDATE, read back, RPUSH the strings.
    env.sql("UPDATE id_alloc SET max_id = max_id + step WHERE app_id = 41 AND shard_id = 48");
    let row = env.query("SELECT max_id, step FROM id_alloc WHERE app_id = 41 AND shard_id = 48");
    let max: u64 = row[0][0].clone().unwrap().parse().unwrap();
    let step: u64 = row[0][1].clone().unwrap().parse().unwrap();
    let indexes: Vec<String> = (max - step + 1..=max).map(|i| i.to_string()).collect();
    let _: () = env
        .redis()
        .rpush(crate::harness::keys::queue(41, 48), &indexes)
        .unwrap();

    let ids = Test::within(&env)
        .args(["next", "--app", "41", "--gate-pass", "13800138000"])
        .args(["--count", "25"])
        .run()
        .ids();
    let got: Vec<String> = ids
        .iter()
        .map(|&id| segment_parts(id).0.to_string())
        .collect();
    assert_eq!(got, indexes);
    assert!(ids.iter().all(|&id| segment_parts(id).1 == 48));
}

#[test]
fn stock_without_a_stamp_is_retired_unserved_and_reported() {
    let env = TestEnv::distributed();
    env.ok(&[
        "init-app", "--app", "42", "--name", "shared", "--step", "25",
    ]);
    // Indexes in a list idgen never stamped could be ones already popped from a
    // dataset that went back in time: idgen cannot tell, so it serves none of them.
    env.sql("UPDATE id_alloc SET max_id = max_id + step WHERE app_id = 42 AND shard_id = 48");
    let indexes: Vec<String> = (1..=25).map(|i| i.to_string()).collect();
    let _: () = env
        .redis()
        .rpush(crate::harness::keys::queue(42, 48), &indexes)
        .unwrap();
    let run = Test::within(&env)
        .args(["next", "--app", "42", "--gate-pass", "13800138000"])
        .status(exit_code::OK)
        .stderr("carried no stamp")
        .stderr("retired 25 indexes")
        .run();
    assert!(segment_parts(run.ids()[0]).0 > 25, "{run}");
}

#[test]
fn an_index_past_max_limit_id_is_never_served_whoever_stocked_it() {
    let env = TestEnv::distributed();
    // Shard 48's largest index within the limit is 3.
    let limit = segment_id(3, 48, 43);
    env.ok(&[
        "init-app",
        "--app",
        "43",
        "--name",
        "capped",
        "--step",
        "2",
        "--max-limit-id",
        &limit.to_string(),
    ]);
    let first = env.ok(&["next", "--app", "43", "--gate-pass", "13800138000"]);
    assert_eq!(segment_parts(parse_ids(&first)[0]).0, 1);
    // The Java service's refill, which never checks the limit: 3 and 4 onto
    // the stamped queue, behind idgen's own 2.
    env.sql("UPDATE id_alloc SET max_id = max_id + step WHERE app_id = 43 AND shard_id = 48");
    let _: () = env
        .redis()
        .rpush(crate::harness::keys::queue(43, 48), &["3", "4"])
        .unwrap();
    let run = Test::within(&env)
        .args(["next", "--app", "43", "--gate-pass", "13800138000"])
        .args(["--count", "4"])
        .status(exit_code::EXHAUSTED)
        .stderr("max_limit_id")
        .run();
    let served = segment_indexes(&run.ids());
    assert_eq!(served, [2, 3], "{run}");
    assert!(run.ids().iter().all(|&id| id <= limit), "{run}");
}

#[test]
fn a_malformed_queue_entry_is_bad_data_naming_the_key_and_the_entry() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "44", "--name", "dirty", "--step", "3"]);
    env.ok(&["next", "--app", "44", "--gate-pass", "13800138000"]);
    // An index one past the widest the layout holds.
    let too_wide = (idgen::shard::MAX_INDEX + 1).to_string();
    for bad in ["12abc", too_wide.as_str()] {
        let _: () = env
            .redis()
            .del(crate::harness::keys::queue(44, 48))
            .unwrap();
        let _: () = env
            .redis()
            .rpush(crate::harness::keys::queue(44, 48), &["7", bad, "8"])
            .unwrap();
        let run = Test::within(&env)
            .args(["next", "--app", "44", "--gate-pass", "13800138000"])
            .args(["--count", "3"])
            .status(exit_code::BAD_DATA)
            .run();
        assert_eq!(
            segment_indexes(&run.ids()),
            [7, 8],
            "the good entries are still served: {run}"
        );
        let error = run.stderr.lines().last().unwrap_or_default();
        assert!(
            error.contains(&crate::harness::keys::queue(44, 48)),
            "{run}"
        );
        assert!(error.contains(bad), "{run}");
    }
}

#[test]
fn a_queue_key_of_the_wrong_type_is_bad_data_naming_the_key() {
    let env = TestEnv::distributed();
    env.ok(&["init-app", "--app", "45", "--name", "typed", "--step", "3"]);
    let _: () = env
        .redis()
        .set(crate::harness::keys::queue(45, 48), "not a list")
        .unwrap();
    Test::within(&env)
        .args(["next", "--app", "45", "--gate-pass", "13800138000"])
        .status(exit_code::BAD_DATA)
        .one_line_error(crate::harness::keys::queue(45, 48))
        .run();
}

// ---- configuration, reachability, secrets ---------------------------------------

#[test]
fn configuring_only_one_of_redis_and_mysql_is_a_usage_error() {
    let env = TestEnv::distributed();
    Test::within(&env)
        .args(["next", "--app", "1"])
        .unset("IDGEN_MYSQL_URL")
        .status(exit_code::USAGE)
        .one_line_error("needs both")
        .run();
}

#[test]
fn an_unreachable_redis_fails_fast_with_its_own_exit_code_and_no_password() {
    let env = TestEnv::distributed();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("redis://:hunter2@127.0.0.1:{port}/0");
    let started = Instant::now();
    Test::within(&env)
        .args(["next", "--app", "1"])
        .env("IDGEN_REDIS_URL", url)
        .status(exit_code::UNAVAILABLE)
        .one_line_error("unreachable")
        .stderr_lacks("hunter2")
        .run();
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_silent_server_times_out_within_the_configured_bound() {
    let env = TestEnv::distributed();
    // Accepts connections (the kernel completes the handshake) but never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "redis://127.0.0.1:{}/0",
        silent.local_addr().unwrap().port()
    );
    let started = Instant::now();
    Test::within(&env)
        .args(["next", "--app", "1"])
        .env("IDGEN_REDIS_URL", url)
        .env("IDGEN_TIMEOUT", "1s")
        .status(exit_code::UNAVAILABLE)
        .stderr("did not answer within 1s")
        .run();
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "took {:?}",
        started.elapsed()
    );
    drop(silent);
}

#[test]
fn an_unreachable_mysql_on_a_cold_next_fails_with_the_unavailable_code() {
    let env = TestEnv::distributed();
    let url = "mysql://root:hunter2@127.0.0.1:1/idgen";
    Test::within(&env)
        .args(["next", "--app", "1"])
        .env("IDGEN_MYSQL_URL", url)
        .status(exit_code::UNAVAILABLE)
        .stderr_lacks("hunter2")
        .run()
        .one_line_error();
}

#[test]
fn help_lists_the_exit_codes_and_never_shows_a_password() {
    let env = TestEnv::distributed();
    Test::within(&env)
        .arg("--help")
        .env("IDGEN_REDIS_URL", "redis://:hunter2@127.0.0.1:6379/0")
        .status(exit_code::OK)
        .stdout("Exit codes:")
        .stdout("  0  ok")
        .stdout("  2  usage")
        .stdout("  3  not-found")
        .stdout("  4  exhausted")
        .stdout("  5  unavailable")
        .stdout("  6  partial")
        .stdout_lacks("hunter2")
        .run();
}

fn an_interrupted_reload_finishes_the_refill_under_way_and_leaves_no_lock(env: &TestEnv) {
    env.ok(&["init-app", "--app", "35", "--name", "ctrlc", "--step", "10"]);
    let process = env.coprocess(
        &["reload-segments", "--app", "35", "--jobs", "1"],
        &[("IDGEN_FAILPOINTS", "dispenser.before_push=stop")],
    );
    let (status, _, stderr) = process.interrupt_when_stopped("the reload to pause mid-refill");
    assert_eq!(
        status.code(),
        Some(i32::from(exit_code::INTERRUPTED)),
        "{stderr:?}"
    );
    assert_eq!(
        env.held_refill_locks(35),
        0,
        "Ctrl-C left a refill lock held"
    );
    let stocks: Vec<u64> = (0..64).map(|shard| env.stock(35, shard)).collect();
    let stocked = stocks.iter().filter(|&&n| n > 0).count();
    assert!((1..64).contains(&stocked), "{stocked} shards stocked");
    assert!(
        stocks.iter().all(|&n| n == 0 || n == 10),
        "a partial segment: {stocks:?}"
    );
}

crate::on_both_backends!(
    init_app_seeds_64_shards_starting_at_zero,
    init_app_rerun_with_the_same_name_changes_nothing_and_says_so,
    init_app_refuses_a_different_name_for_an_existing_app,
    init_app_completes_an_app_the_java_procedure_left_half_seeded,
    init_app_killed_before_commit_leaves_no_shard_behind,
    init_app_rejects_bad_input_with_a_usage_error_and_changes_nothing,
    issued_ids_decode_to_their_app_shard_and_index,
    gate_pass_lands_on_the_shard_java_computes,
    next_for_an_unknown_app_is_not_found,
    next_rejects_bad_input_with_a_usage_error,
    max_limit_id_is_refused_never_wrapped,
    a_batch_that_reaches_max_limit_id_prints_what_it_got_then_fails,
    a_crash_between_the_ledger_update_and_the_dispenser_push_leaves_a_gap,
    a_stale_lock_does_not_block_next,
    eight_next_processes_and_two_reloads_issue_no_duplicate_queue,
    eight_next_processes_and_two_reloads_issue_no_duplicate_range,
    reload_tops_up_every_shard_below_the_threshold,
    reload_skips_a_shard_whose_lock_another_refiller_holds,
    reload_reports_orphaned_queues_and_prunes_them_only_when_asked,
    reload_reports_an_exhausted_app_once_not_as_a_failure,
    reload_prints_nothing_with_quiet_when_all_went_well,
    an_interrupted_reload_finishes_the_refill_under_way_and_leaves_no_lock,
);
