//! The embedded store: everything in one SQLite file, no server, with the same
//! guarantees, through the real binary (and the library where a test needs it).

use crate::harness::{Coprocess, Run, TestEnv, assert_unique, segment_parts, wait_until};
use idgen::layout::{FieldKind, Layout};
use idgen::store::sqlite::SqliteStore;
use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

/// Shard of the gate pass "alice@example.com" (Java's hashCode).
const ALICE: &str = "alice@example.com";
const ALICE_SHARD: u8 = 61;

fn sqlite(env: &TestEnv) -> rusqlite::Connection {
    env.sqlite()
}

fn query_i64(env: &TestEnv, sql: &str) -> i64 {
    sqlite(env)
        .query_row(sql, [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn max_id(env: &TestEnv, app: u8, shard: u8) -> i64 {
    query_i64(
        env,
        &format!("SELECT max_id FROM id_alloc WHERE app_id = {app} AND shard_id = {shard}"),
    )
}

fn queue_stock(env: &TestEnv, app: u8, shard: u8) -> i64 {
    query_i64(
        env,
        &format!(
            "SELECT COALESCE(SUM(last - first + 1), 0) FROM idgen_queue WHERE app_id = {app} AND shard_id = {shard}"
        ),
    )
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn one_line_error(run: &Run) -> &str {
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(lines.len(), 1, "expected one stderr line: {run}");
    assert!(lines[0].starts_with("error: "), "{run}");
    assert!(lines[0].contains("hint: "), "the error names no fix: {run}");
    lines[0]
}

fn init_app(env: &TestEnv, app: &str, step: &str) {
    env.ok(&["init-app", "--app", app, "--name", "demo", "--step", step]);
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

// ---- first use -------------------------------------------------------------------

#[test]
fn a_newcomer_gets_ids_with_no_server_and_the_store_appears_in_the_xdg_data_dir() {
    let env = TestEnv::embedded();
    let run = |args: &[&str]| {
        let mut cmd = env.idgen();
        cmd.env_remove("IDGEN_STORE").args(args);
        Run::of(cmd)
    };
    let init = run(&["init-app", "--app", "1", "--name", "demo"]);
    assert!(init.success(), "{init}");
    let next = run(&["next", "--app", "1"]);
    assert!(next.success(), "{next}");
    let ids = next.ids();
    assert_eq!(ids.len(), 1);
    assert_eq!(segment_parts(ids[0]).2, 1);
    let store = env.home.path().join("data").join("idgen").join("idgen.db");
    assert!(store.is_file(), "no store at {}", store.display());
    assert!(!env.store_path().exists());
}

#[test]
fn without_xdg_data_home_the_store_lives_under_home_local_share() {
    let env = TestEnv::embedded();
    let mut cmd = env.idgen();
    cmd.env_remove("IDGEN_STORE")
        .env_remove("XDG_DATA_HOME")
        .args(["init-app", "--app", "1", "--name", "demo"]);
    let run = Run::of(cmd);
    assert!(run.success(), "{run}");
    let store = env.home.path().join(".local/share/idgen/idgen.db");
    assert!(store.is_file(), "no store at {}", store.display());
}

#[test]
fn verbose_names_the_embedded_backend_and_its_store_path() {
    let env = TestEnv::embedded();
    init_app(&env, "1", "100");
    let expected = format!("backend: embedded (store {})", env.store_path().display());
    for args in [
        vec!["--verbose", "next", "--app", "1"],
        vec!["--verbose", "reload-segments", "--quiet"],
        vec!["--verbose", "lease", "--count", "1"],
        vec!["--verbose", "inspect-freelist"],
    ] {
        let run = env.run(&args);
        assert!(run.success(), "{args:?}: {run}");
        assert!(run.stderr.contains(&expected), "{args:?}: {run}");
    }
}

#[test]
fn eight_processes_creating_the_store_at_once_all_succeed() {
    let env = TestEnv::embedded();
    let runs: Vec<Run> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| env.run(&["init-app", "--app", "1", "--name", "demo", "--json"])))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut outcomes = Vec::new();
    for run in &runs {
        assert!(run.success(), "{run}");
        let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        outcomes.push(report["outcome"].as_str().unwrap().to_string());
    }
    outcomes.sort();
    assert_eq!(outcomes.iter().filter(|o| *o == "created").count(), 1);
    assert_eq!(outcomes.iter().filter(|o| *o == "unchanged").count(), 7);
    assert_eq!(
        query_i64(&env, "SELECT COUNT(*) FROM id_alloc WHERE app_id = 1"),
        64
    );
}

#[test]
fn id_alloc_has_the_java_services_columns() {
    let env = TestEnv::embedded();
    init_app(&env, "1", "100");
    let conn = sqlite(&env);
    let mut stmt = conn
        .prepare("SELECT name FROM pragma_table_info('id_alloc') ORDER BY cid")
        .unwrap();
    let columns: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        columns,
        [
            "app_id",
            "app_name",
            "max_id",
            "shard_id",
            "step",
            "description",
            "create_time",
            "update_time",
            "max_limit_id"
        ]
    );
}

// ---- concurrency -------------------------------------------------------------------

/// `workers` processes each call `next --count count` `calls` times while two
/// `reload-segments` loops run; returns every ID issued.
fn hammer(
    env: &TestEnv,
    app: &str,
    dispenser: &str,
    workers: usize,
    calls: usize,
    count: u64,
) -> Vec<u64> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let vars = [("IDGEN_DISPENSER", dispenser)];
    let count = count.to_string();
    let done = AtomicBool::new(false);
    // Stops the reloaders even when a worker's assertion fails.
    struct Done<'a>(&'a AtomicBool);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
        }
    }
    std::thread::scope(|s| {
        let reloaders: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut runs = 0;
                    while !done.load(Ordering::Acquire) || runs == 0 {
                        let run =
                            env.run_with(&["reload-segments", "--app", app, "--quiet"], &vars);
                        assert!(run.success(), "{run}");
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
                        let run = env.run_with(&["next", "--app", app, "--count", &count], &vars);
                        assert!(run.success(), "{run}");
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

#[test]
fn eight_next_processes_and_two_reloads_issue_no_duplicate_queue() {
    let env = TestEnv::embedded();
    init_app(&env, "20", "64");
    let ids = hammer(&env, "20", "queue", 8, 100, 50);
    assert_eq!(ids.len(), 40_000);
    assert_unique(&ids);
    assert!(ids.iter().all(|&id| segment_parts(id).2 == 20));
}

#[test]
fn eight_next_processes_and_two_reloads_issue_no_duplicate_range() {
    let env = TestEnv::embedded();
    init_app(&env, "21", "64");
    let ids = hammer(&env, "21", "range", 8, 100, 50);
    assert_eq!(ids.len(), 40_000);
    assert_unique(&ids);
    assert!(ids.iter().all(|&id| segment_parts(id).2 == 21));
}

#[test]
fn a_store_held_busy_past_the_timeout_fails_with_the_unavailable_code() {
    let env = TestEnv::embedded();
    init_app(&env, "1", "100");
    let holder = sqlite(&env);
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = Instant::now();
    let run = env.run(&["next", "--app", "1", "--timeout", "300ms"]);
    assert_eq!(run.code(), 5, "{run}");
    let line = one_line_error(&run);
    assert!(line.contains("did not answer within 300ms"), "{run}");
    assert!(line.contains("kept the store busy"), "{run}");
    assert!(started.elapsed() < Duration::from_secs(5));
    holder.execute_batch("ROLLBACK").unwrap();
    env.ok(&["next", "--app", "1"]);
}

// ---- crashes -------------------------------------------------------------------

#[test]
fn a_refiller_killed_after_taking_a_segment_leaves_a_gap_and_no_duplicate() {
    let env = TestEnv::embedded();
    init_app(&env, "13", "100");
    let run = env.run_with(
        &["next", "--app", "13", "--gate-pass", ALICE],
        &[("IDGEN_FAILPOINTS", "segment.after_take")],
    );
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    assert!(run.stdout.is_empty());
    assert_eq!(max_id(&env, 13, ALICE_SHARD), 100, "the segment was taken");
    assert_eq!(queue_stock(&env, 13, ALICE_SHARD), 0, "…but never stocked");

    // The dead refiller's lock is still there; later calls must not repeat 1..=100.
    let mut ids = Vec::new();
    for _ in 0..5 {
        let run = env.run(&["next", "--app", "13", "--gate-pass", ALICE, "--count", "30"]);
        assert!(run.success(), "{run}");
        ids.extend(run.ids());
    }
    assert_eq!(ids.len(), 150);
    assert_unique(&ids);
    assert!(
        ids.iter().all(|&id| segment_parts(id).0 > 100),
        "an index of the lost segment was issued"
    );
}

#[test]
fn a_process_killed_inside_the_ledger_transaction_takes_nothing() {
    let env = TestEnv::embedded();
    init_app(&env, "14", "100");
    let run = env.run_with(
        &["next", "--app", "14", "--gate-pass", ALICE],
        &[("IDGEN_FAILPOINTS", "sqlite.take_segment.before_commit")],
    );
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    assert_eq!(
        max_id(&env, 14, ALICE_SHARD),
        0,
        "the transaction rolled back"
    );
    let ids = env
        .run(&["next", "--app", "14", "--gate-pass", ALICE, "--count", "5"])
        .ids();
    assert_eq!(
        ids.iter()
            .map(|&id| segment_parts(id).0)
            .collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
}

#[test]
fn a_process_killed_while_taking_from_stock_hands_nothing_out() {
    let env = TestEnv::embedded();
    init_app(&env, "15", "100");
    env.ok(&["reload-segments", "--app", "15", "--quiet"]);
    assert_eq!(queue_stock(&env, 15, ALICE_SHARD), 100);
    let run = env.run_with(
        &["next", "--app", "15", "--gate-pass", ALICE, "--count", "10"],
        &[("IDGEN_FAILPOINTS", "sqlite.take.before_commit")],
    );
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    assert!(run.stdout.is_empty());
    assert_eq!(
        queue_stock(&env, 15, ALICE_SHARD),
        100,
        "the pop rolled back"
    );
    let ids = env
        .run(&["next", "--app", "15", "--gate-pass", ALICE, "--count", "10"])
        .ids();
    assert_eq!(segment_parts(ids[0]).0, 1);
    assert_eq!(queue_stock(&env, 15, ALICE_SHARD), 90);
}

#[test]
fn init_app_killed_before_commit_leaves_no_shard_behind() {
    let env = TestEnv::embedded();
    init_app(&env, "1", "100");
    let run = env.run_with(
        &["init-app", "--app", "4", "--name", "crashy"],
        &[("IDGEN_FAILPOINTS", "init_app.before_commit")],
    );
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    assert_eq!(
        query_i64(&env, "SELECT COUNT(*) FROM id_alloc WHERE app_id = 4"),
        0
    );
    env.ok(&["init-app", "--app", "4", "--name", "crashy"]);
    assert_eq!(
        query_i64(&env, "SELECT COUNT(*) FROM id_alloc WHERE app_id = 4"),
        64
    );
}

#[test]
fn a_stale_refill_lock_does_not_block_next() {
    let env = TestEnv::embedded();
    init_app(&env, "16", "100");
    sqlite(&env)
        .execute(
            "INSERT INTO idgen_lock (app_id, shard_id, token, expires_at_ms) VALUES (16, ?1, 'dead', ?2)",
            rusqlite::params![ALICE_SHARD, now_ms() + 60_000],
        )
        .unwrap();
    let started = Instant::now();
    let run = env.run(&["next", "--app", "16", "--gate-pass", ALICE]);
    assert!(run.success(), "{run}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "next waited {:?}",
        started.elapsed()
    );
}

// ---- an unusable store -------------------------------------------------------------

#[test]
fn a_corrupt_store_fails_with_the_store_code_and_is_left_untouched() {
    let env = TestEnv::embedded();
    let garbage = b"this is not a database, just some bytes someone wrote here\n".repeat(100);
    std::fs::write(env.store_path(), &garbage).unwrap();
    for args in [
        vec!["next", "--app", "1"],
        vec!["init-app", "--app", "1", "--name", "demo"],
        vec!["lease", "--count", "1"],
    ] {
        let run = env.run(&args);
        assert_eq!(run.code(), 10, "{args:?}: {run}");
        let line = one_line_error(&run);
        assert!(
            line.contains(&env.store_path().display().to_string()),
            "{run}"
        );
        assert!(line.contains("not a database"), "{run}");
        assert!(run.stdout.is_empty());
    }
    assert_eq!(std::fs::read(env.store_path()).unwrap(), garbage);
}

#[test]
fn a_store_whose_directory_is_a_regular_file_is_unusable() {
    let env = TestEnv::embedded();
    let file = env.home.path().join("plain-file");
    std::fs::write(&file, b"x").unwrap();
    let store = file.join("idgen.db");
    let run = env.run(&["--store", store.to_str().unwrap(), "next", "--app", "1"]);
    assert_eq!(run.code(), 10, "{run}");
    assert!(one_line_error(&run).contains("is not a directory"), "{run}");
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

#[test]
fn a_store_in_a_missing_directory_is_unusable_and_not_created() {
    let env = TestEnv::embedded();
    let store = env.home.path().join("nowhere").join("idgen.db");
    let run = env.run(&[
        "--store",
        store.to_str().unwrap(),
        "init-app",
        "--app",
        "1",
        "--name",
        "x",
    ]);
    assert_eq!(run.code(), 10, "{run}");
    assert!(one_line_error(&run).contains("does not exist"), "{run}");
    assert!(!store.parent().unwrap().exists());
}

#[test]
fn a_store_path_that_is_a_directory_is_unusable() {
    let env = TestEnv::embedded();
    std::fs::create_dir(env.store_path()).unwrap();
    let run = env.run(&["next", "--app", "1"]);
    assert_eq!(run.code(), 10, "{run}");
    assert!(one_line_error(&run).contains("is a directory"), "{run}");
}

#[test]
fn another_applications_sqlite_database_is_refused_and_left_alone() {
    let env = TestEnv::embedded();
    sqlite(&env)
        .execute_batch(
            "CREATE TABLE customers (id INTEGER PRIMARY KEY); INSERT INTO customers VALUES (7);",
        )
        .unwrap();
    let run = env.run(&["init-app", "--app", "1", "--name", "demo"]);
    assert_eq!(run.code(), 10, "{run}");
    assert!(one_line_error(&run).contains("something else"), "{run}");
    assert_eq!(
        query_i64(
            &env,
            "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'"
        ),
        1
    );
}

#[test]
fn a_store_written_by_a_newer_idgen_is_refused() {
    let env = TestEnv::embedded();
    init_app(&env, "1", "100");
    sqlite(&env)
        .execute_batch("UPDATE idgen_schema SET version = 99")
        .unwrap();
    let run = env.run(&["next", "--app", "1"]);
    assert_eq!(run.code(), 10, "{run}");
    assert!(one_line_error(&run).contains("upgrade idgen"), "{run}");
}

#[test]
fn configuring_only_one_of_redis_and_mysql_is_still_a_usage_error() {
    let env = TestEnv::embedded();
    for (var, url) in [
        ("IDGEN_REDIS_URL", "redis://127.0.0.1:1/0"),
        ("IDGEN_MYSQL_URL", "mysql://root@127.0.0.1:1/idgen"),
    ] {
        let run = env.run_with(&["next", "--app", "1"], &[(var, url)]);
        assert_eq!(run.code(), 2, "{var}: {run}");
        assert!(one_line_error(&run).contains("needs both"), "{run}");
    }
    assert!(
        !env.store_path().exists(),
        "a usage error must not create the store"
    );
}

// ---- leases ----------------------------------------------------------------------

/// A layout with two worker IDs, so tests can hold every one of them.
const TWO_WORKERS: [&str; 4] = ["--bits", "time:41,worker:1,seq:21", "--epoch", "2020-01-01"];

fn worker_of(layout: &Layout, id: u64) -> u64 {
    layout
        .decompose(id)
        .unwrap()
        .get(FieldKind::Worker)
        .unwrap()
}

fn time_of(layout: &Layout, id: u64) -> i64 {
    layout.decompose(id).unwrap().unix_ms.unwrap()
}

fn lease_args<'a>(namespace: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["lease", "--namespace", namespace, "--json"];
    args.extend_from_slice(extra);
    args
}

/// A `lease --stdin` holder that has acquired its worker.
fn holder(env: &TestEnv, namespace: &str, extra: &[&str]) -> (Coprocess, u64) {
    let mut args = lease_args(namespace, &["--stdin"]);
    args.extend_from_slice(extra);
    let mut process = env.coprocess(&args, &[]);
    let acquired = process.event("acquired");
    let worker = acquired["worker"].as_u64().unwrap();
    (process, worker)
}

fn acquired_worker(stderr: &str) -> u64 {
    stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["event"] == "acquired")
        .and_then(|v| v["worker"].as_u64())
        .unwrap_or_else(|| panic!("no acquired event in {stderr}"))
}

/// Is `worker` of `namespace` held by a row that has not expired?
fn held(env: &TestEnv, namespace: &str, worker: u64) -> bool {
    sqlite(env)
        .query_row(
            "SELECT COUNT(*) FROM idgen_lease_held WHERE namespace = ?1 AND worker = ?2
               AND (expires_at_ms IS NULL OR expires_at_ms > ?3)",
            rusqlite::params![namespace, worker as i64, now_ms()],
            |r| r.get::<_, i64>(0),
        )
        .unwrap()
        > 0
}

fn free_list(env: &TestEnv, namespace: &str) -> Vec<i64> {
    let conn = sqlite(env);
    let mut stmt = conn
        .prepare("SELECT worker FROM idgen_lease_free WHERE namespace = ?1 ORDER BY pos")
        .unwrap();
    stmt.query_map([namespace], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn concurrent_lease_holders_get_distinct_workers_and_issue_no_duplicate() {
    let env = TestEnv::embedded();
    let layout = Layout::named("snowflake").unwrap();
    let runs: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| env.run(&lease_args("load", &["--count", "100000"]))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut workers = BTreeSet::new();
    let mut all = Vec::new();
    for run in &runs {
        assert!(run.success(), "{run}");
        let worker = acquired_worker(&run.stderr);
        assert!(
            workers.insert(worker),
            "worker {worker} was leased twice at once"
        );
        let ids = run.ids();
        assert_eq!(ids.len(), 100_000);
        assert!(ids.iter().all(|&id| worker_of(&layout, id) == worker));
        all.extend(ids);
    }
    assert_unique(&all);
}

#[test]
fn release_returns_the_worker_and_records_the_last_time_issued() {
    let env = TestEnv::embedded();
    let run = env.run(&lease_args("release", &["--count", "10"]));
    assert!(run.success(), "{run}");
    let worker = acquired_worker(&run.stderr);
    assert!(free_list(&env, "release").contains(&(worker as i64)));
    assert!(!held(&env, "release", worker));
    let fence = query_i64(
        &env,
        &format!(
            "SELECT last_ms FROM idgen_lease_fence WHERE namespace = 'release' AND worker = {worker}"
        ),
    );
    let layout = Layout::named("snowflake").unwrap();
    let last_issued = run
        .ids()
        .iter()
        .map(|&id| time_of(&layout, id))
        .max()
        .unwrap();
    assert_eq!(fence, last_issued, "the fence is the last time unit issued");
}

#[test]
fn when_every_worker_is_held_the_lease_error_is_clear() {
    let env = TestEnv::embedded();
    let (_a, _) = holder(&env, "full", &TWO_WORKERS);
    let (_b, _) = holder(&env, "full", &TWO_WORKERS);
    let mut args = lease_args("full", &["--count", "1"]);
    args.extend(TWO_WORKERS);
    let run = env.run(&args);
    assert_eq!(run.code(), 4, "{run}");
    assert!(
        run.stderr
            .contains("all 2 worker IDs of namespace \"full\" are held"),
        "{run}"
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn a_paused_lease_holder_issues_nothing_under_its_stale_worker_after_waking() {
    let env = TestEnv::embedded();
    let layout = Layout::custom("time:41,worker:1,seq:21", None, Some(1_577_836_800_000)).unwrap();
    let mut extra = TWO_WORKERS.to_vec();
    extra.extend(["--ttl", "1s"]);
    let (mut paused, stale) = holder(&env, "pause", &extra);
    let before = paused.request(3);

    paused.signal(libc::SIGSTOP);
    wait_until(
        Duration::from_secs(10),
        "the paused lease to expire",
        || !held(&env, "pause", stale),
    );
    // Take both workers: the free one first, then the stale one.
    let (other_holder, other) = holder(&env, "pause", &extra);
    let (mut taker, taken) = holder(&env, "pause", &extra);
    assert_eq!(taken, stale, "the expired worker should be leased again");
    assert_ne!(other, stale);
    let taker_ids = taker.request(50);
    // Free the other worker so the woken holder can lease again.
    let (status, _, _) = other_holder.finish();
    assert!(status.success());

    paused.signal(libc::SIGCONT);
    let after = paused.request(20);
    let lost = paused.event("lost");
    assert_eq!(lost["worker"].as_u64(), Some(stale));
    for id in &after {
        assert_ne!(
            worker_of(&layout, *id),
            stale,
            "ID {id} was issued under the stale worker"
        );
    }
    let all: Vec<u64> = before
        .iter()
        .chain(&taker_ids)
        .chain(&after)
        .copied()
        .collect();
    assert_unique(&all);
    let (status, _, _) = paused.finish();
    assert!(status.success());
}

#[test]
fn a_lease_holder_with_another_layout_is_refused() {
    let env = TestEnv::embedded();
    env.ok(&lease_args("shared", &["--count", "1"]));
    let run = env.run(&lease_args(
        "shared",
        &["--count", "1", "--layout", "discord"],
    ));
    assert_eq!(run.code(), 7, "{run}");
    assert!(run.stderr.contains("is recorded with snowflake"), "{run}");
}

#[test]
fn the_worker_node_assigner_never_reuses_a_worker_on_the_embedded_store() {
    let env = TestEnv::embedded();
    let args = [
        "lease",
        "--namespace",
        "uid",
        "--json",
        "--layout",
        "uid-generator",
        "--epoch",
        "2025-01-01",
        "--assigner",
        "worker-node",
        "--count",
        "3",
    ];
    let workers: Vec<u64> = (0..3)
        .map(|_| {
            let run = env.run(&args);
            assert!(run.success(), "{run}");
            acquired_worker(&run.stderr)
        })
        .collect();
    assert_eq!(workers, [1, 2, 3]);
    assert_eq!(query_i64(&env, "SELECT COUNT(*) FROM WORKER_NODE"), 3);
}

#[test]
fn inspect_freelist_finds_and_repairs_tampering_in_the_lease_tables() {
    let env = TestEnv::embedded();
    let bits = ["--bits", "time:41,worker:3,seq:19", "--epoch", "2020-01-01"];
    env.ok(&{
        let mut args = lease_args("tamper", &["--count", "1"]);
        args.extend(bits);
        args
    });
    let (holding, worker) = holder(&env, "tamper", &bits);
    assert!(!free_list(&env, "tamper").contains(&(worker as i64)));
    let idle: Vec<i64> = (0..8).filter(|&w| w != worker as i64).collect();
    let (dup, leaked, stuck) = (idle[0], idle[1], idle[2]);
    sqlite(&env)
        .execute_batch(&format!(
            "INSERT INTO idgen_lease_free (namespace, pos, worker) VALUES
               ('tamper', 1000, {worker}), ('tamper', 1001, {dup}), ('tamper', 1002, 99);
             DELETE FROM idgen_lease_free WHERE namespace = 'tamper' AND worker IN ({leaked}, {stuck});
             INSERT INTO idgen_lease_held (namespace, worker, holder, token, since_ms, expires_at_ms)
               VALUES ('tamper', {stuck}, 'by-hand', 't', 0, NULL);"
        ))
        .unwrap();

    let run = env.run(&["inspect-freelist", "--namespace", "tamper", "--json"]);
    assert_eq!(run.code(), 8, "{run}");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let mut found: Vec<(String, u64)> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["kind"].as_str().unwrap().to_string(),
                p["worker"].as_u64().unwrap(),
            )
        })
        .collect();
    found.sort();
    let mut expected = vec![
        ("duplicate_free".to_string(), dup as u64),
        ("free_but_held".to_string(), worker),
        ("leaked".to_string(), leaked as u64),
        ("no_expiry".to_string(), stuck as u64),
        ("out_of_range".to_string(), 99),
    ];
    expected.sort();
    assert_eq!(found, expected);

    let run = env.run(&[
        "inspect-freelist",
        "--namespace",
        "tamper",
        "--repair",
        "--yes",
        "--json",
    ]);
    assert_eq!(run.code(), 0, "{run}");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["problems"].as_array().unwrap().len(), 0, "{run}");
    assert!(
        held(&env, "tamper", worker),
        "repair never frees a held worker"
    );
    let mut free = free_list(&env, "tamper");
    free.sort();
    let unheld: Vec<i64> = idle.iter().copied().filter(|&w| w != stuck).collect();
    assert_eq!(free, unheld);
    let expires: Option<i64> = sqlite(&env)
        .query_row(
            "SELECT expires_at_ms FROM idgen_lease_held WHERE namespace = 'tamper' AND worker = ?1",
            [stuck],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        expires.is_some(),
        "repair gives a held row without expiry one"
    );
    drop(holding);
}

// ---- sealing an app for a move out of the store ---------------------------------------

#[test]
fn a_sealed_app_serves_only_its_stock_and_its_max_ids_are_final() {
    let env = TestEnv::embedded();
    init_app(&env, "5", "100");
    env.ok(&["reload-segments", "--app", "5", "--quiet"]);
    let first = env
        .run(&["next", "--app", "5", "--gate-pass", ALICE, "--count", "30"])
        .ids();
    assert_eq!(first.len(), 30);

    let store = SqliteStore::open(&env.store_path(), Duration::from_secs(10));
    let runtime = runtime();
    let sealed = runtime
        .block_on(store.seal_app(5, "redis+mysql at db.example"))
        .unwrap();
    assert_eq!(sealed.app, 5);
    assert_eq!(sealed.name, "demo");
    assert_eq!(sealed.step, 100);
    assert_eq!(sealed.shards.len(), 64);
    assert!(sealed.shards.iter().all(|s| s.max_id == 100), "{sealed:?}");
    let json = serde_json::to_value(&sealed).unwrap();
    assert_eq!(json["shards"][ALICE_SHARD as usize]["max_id"], 100);

    // Stock already taken may still be served: it lies at or below the final max_id.
    let rest = env.run(&["next", "--app", "5", "--gate-pass", ALICE, "--count", "70"]);
    assert!(rest.success(), "{rest}");
    // A call that needs a segment is refused.
    let run = env.run(&["next", "--app", "5", "--gate-pass", ALICE]);
    assert_eq!(run.code(), 7, "{run}");
    assert!(one_line_error(&run).contains("moved out"), "{run}");
    let all: Vec<u64> = first.into_iter().chain(rest.ids()).collect();
    assert_unique(&all);
    assert!(all.iter().all(|&id| segment_parts(id).0 <= 100));

    let again = runtime
        .block_on(store.seal_app(5, "redis+mysql at db.example"))
        .unwrap();
    assert_eq!(again, sealed, "sealing again returns the same data");
    assert!(
        runtime
            .block_on(store.seal_app(5, "somewhere else"))
            .is_err(),
        "a second destination would continue from the same max_id"
    );

    assert_eq!(runtime.block_on(store.drop_app_stock(5)).unwrap(), 63 * 100);
    assert_eq!(runtime.block_on(store.drop_app_stock(5)).unwrap(), 0);
    let run = env.run(&["next", "--app", "5", "--count", "1"]);
    assert_eq!(run.code(), 7, "{run}");
    let reload = env.run(&["reload-segments", "--app", "5"]);
    assert!(reload.success(), "{reload}");
    assert!(reload.stderr.contains("moved out"), "{reload}");
    for shard in 0..64 {
        assert_eq!(
            max_id(&env, 5, shard),
            100,
            "shard {shard} moved past its sealed max_id"
        );
    }
}

#[test]
fn a_process_killed_while_creating_the_store_leaves_it_creatable() {
    let env = TestEnv::embedded();
    let run = env.run_with(
        &["init-app", "--app", "1", "--name", "demo"],
        &[("IDGEN_FAILPOINTS", "sqlite.schema.before_commit")],
    );
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    init_app(&env, "1", "100");
    env.ok(&["next", "--app", "1"]);
}

#[test]
fn a_holder_killed_while_acquiring_leaves_the_worker_free() {
    let env = TestEnv::embedded();
    let run = env.run_with(
        &lease_args("crash", &["--count", "1"]),
        &[("IDGEN_FAILPOINTS", "sqlite.lease.before_commit")],
    );
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    assert!(run.stdout.is_empty());
    // Nothing of the acquire survived, not even the namespace.
    assert_eq!(
        query_i64(
            &env,
            "SELECT COUNT(*) FROM idgen_lease_held WHERE namespace = 'crash'"
        ),
        0
    );
    assert_eq!(
        query_i64(
            &env,
            "SELECT COUNT(*) FROM idgen_lease_namespace WHERE namespace = 'crash'"
        ),
        0
    );
    let run = env.run(&lease_args("crash", &["--count", "1"]));
    assert!(run.success(), "{run}");
    assert_eq!(acquired_worker(&run.stderr), 0);
}
