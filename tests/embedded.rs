//! What is particular to the embedded store: where the file lives, what makes
//! it unusable, SQLite-level crash points, sealing for a move out.
//!
//! Behaviour it shares with Redis + MySQL is tested once, on both backends, by
//! the suites that use `on_both_backends!` (segments, lease, inspect).

use crate::harness::{
    Run, Test, TestEnv, acquired_worker, assert_unique, segment_indexes, segment_parts,
    wait_until_stopped,
};
use idgen::exit_code;
use idgen::segment::DispenserKind;
use idgen::store::Slot;
use idgen::store::sqlite::SqliteStore;
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

/// The shard's queue stock as the store counts it: its table and its reserve.
fn queue_stock(env: &TestEnv, app: u8, shard: u8) -> u64 {
    use idgen::store::Stock;
    let store = SqliteStore::open(&env.store_path(), Duration::from_secs(10));
    let stock = runtime()
        .block_on(store.stock(DispenserKind::Queue, &[Slot { app, shard }]))
        .unwrap();
    stock[0].unwrap_or(0)
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
    let default_store = |args: &[&str]| {
        Test::within(&env)
            .args(args.iter().copied())
            .unset("IDGEN_STORE")
    };
    default_store(&["init-app", "--app", "1", "--name", "demo"])
        .status(exit_code::OK)
        .run();
    let ids = default_store(&["next", "--app", "1"])
        .status(exit_code::OK)
        .run()
        .ids();
    assert_eq!(ids.len(), 1);
    assert_eq!(segment_parts(ids[0]).2, 1);
    let store = env.home.path().join("data").join("idgen").join("idgen.db");
    assert!(store.is_file(), "no store at {}", store.display());
    assert!(!env.store_path().exists());
}

#[test]
fn without_xdg_data_home_the_store_lives_under_home_local_share() {
    let env = TestEnv::embedded();
    Test::within(&env)
        .args(["init-app", "--app", "1", "--name", "demo"])
        .unset("IDGEN_STORE")
        .unset("XDG_DATA_HOME")
        .status(exit_code::OK)
        .run();
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
        Test::within(&env)
            .args(args)
            .status(exit_code::OK)
            .stderr(&expected)
            .run();
    }
}

#[test]
fn eight_processes_creating_the_store_at_once_all_succeed() {
    let env = TestEnv::embedded();
    let runs: Vec<Run> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    Test::within(&env)
                        .args(["init-app", "--app", "1", "--name", "demo", "--json"])
                        .status(exit_code::OK)
                        .run()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut outcomes = Vec::new();
    for run in &runs {
        outcomes.push(run.json()["outcome"].as_str().unwrap().to_string());
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

#[test]
fn a_store_held_busy_past_the_timeout_fails_with_the_unavailable_code() {
    let env = TestEnv::embedded();
    init_app(&env, "1", "100");
    let holder = sqlite(&env);
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = Instant::now();
    Test::within(&env)
        .args(["next", "--app", "1", "--timeout", "300ms"])
        .status(exit_code::UNAVAILABLE)
        .one_line_error("did not answer within 300ms")
        .stderr("kept the store busy")
        .run();
    assert!(started.elapsed() < Duration::from_secs(5));
    holder.execute_batch("ROLLBACK").unwrap();
    env.ok(&["next", "--app", "1"]);
}

/// Whether a thread of process `pid` sleeps in `nanosleep` or
/// `clock_nanosleep` (x86-64 numbers), as SQLite's busy handler does while
/// another process holds the write lock.
fn sleeping_in_a_busy_wait(pid: i32) -> bool {
    let Ok(threads) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    threads.flatten().any(|thread| {
        std::fs::read_to_string(thread.path().join("syscall"))
            .is_ok_and(|call| call.starts_with("35 ") || call.starts_with("230 "))
    })
}

/// Embedded-store calls of a one-shot command run on its main thread, which
/// then never yields while SQLite waits for another process's write lock:
/// the first signal must end the command there and then, not once the wait
/// times out, and leave nothing half-done.
#[test]
fn a_signal_ends_a_command_waiting_for_a_busy_store_at_once() {
    let env = TestEnv::embedded();
    init_app(&env, "1", "100");
    let holder = sqlite(&env);
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let waiting = env.coprocess(
        &[
            "init-app",
            "--app",
            "2",
            "--name",
            "waiting",
            "--timeout",
            "120s",
        ],
        &[],
    );
    crate::harness::wait_until(
        Duration::from_secs(30),
        "init-app to wait for the store's write lock",
        || sleeping_in_a_busy_wait(waiting.pid()),
    );
    waiting.signal(libc::SIGINT);
    let (status, _, stderr) = waiting.wait();
    assert_eq!(
        status.code(),
        Some(i32::from(exit_code::INTERRUPTED)),
        "{status:?} {stderr:?}"
    );
    holder.execute_batch("ROLLBACK").unwrap();
    assert_eq!(
        query_i64(&env, "SELECT COUNT(*) FROM idgen_app WHERE app_id = 2"),
        0
    );
    env.ok(&["init-app", "--app", "2", "--name", "waiting"]);
}

// ---- crashes -------------------------------------------------------------------

#[test]
fn a_process_killed_inside_the_ledger_transaction_takes_nothing() {
    let env = TestEnv::embedded();
    init_app(&env, "14", "100");
    let run = Test::within(&env)
        .args(["next", "--app", "14", "--gate-pass", ALICE])
        .env("IDGEN_FAILPOINTS", "sqlite.take_segment.before_commit")
        .run();
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    assert_eq!(
        max_id(&env, 14, ALICE_SHARD),
        0,
        "the transaction rolled back"
    );
    let ids = Test::within(&env)
        .args(["next", "--app", "14", "--gate-pass", ALICE, "--count", "5"])
        .run()
        .ids();
    assert_eq!(segment_indexes(&ids), [1, 2, 3, 4, 5]);
}

#[test]
fn a_process_killed_while_taking_from_stock_hands_nothing_out() {
    let env = TestEnv::embedded();
    init_app(&env, "15", "100");
    env.ok(&["reload-segments", "--app", "15", "--quiet"]);
    assert_eq!(queue_stock(&env, 15, ALICE_SHARD), 100);
    let run = Test::within(&env)
        .args(["next", "--app", "15", "--gate-pass", ALICE, "--count", "10"])
        .env("IDGEN_FAILPOINTS", "sqlite.take.before_commit")
        .stdout_is("")
        .run();
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    assert_eq!(
        queue_stock(&env, 15, ALICE_SHARD),
        100,
        "the pop rolled back"
    );
    let ids = Test::within(&env)
        .args(["next", "--app", "15", "--gate-pass", ALICE, "--count", "10"])
        .run()
        .ids();
    assert_eq!(segment_parts(ids[0]).0, 1);
    assert_eq!(queue_stock(&env, 15, ALICE_SHARD), 90);
}

// ---- the reserve ---------------------------------------------------------------------

/// One ID of app `app` on ALICE's shard, with `--verbose`'s last line.
fn one_alice_id(env: &TestEnv, app: &str) -> Run {
    Test::within(env)
        .args(["next", "--app", app, "--gate-pass", ALICE, "--verbose"])
        .status(exit_code::OK)
        .run()
}

/// A store with app `app` (step 1000) initialised and stocked.
fn stocked(app: &str) -> TestEnv {
    let env = TestEnv::embedded();
    init_app(&env, app, "1000");
    env.ok(&["reload-segments", "--app", app, "--quiet"]);
    env
}

fn reserve_path(env: &TestEnv) -> std::path::PathBuf {
    let store = env.store_path();
    let name = store.file_name().unwrap().to_string_lossy().into_owned();
    store.with_file_name(format!(".{name}.reserve"))
}

/// Dates the store's files a second back, as if nothing had written them
/// since: a take records the reserve's fingerprint of them only once they
/// last changed longer ago than a tick of the clock that stamps them.
fn settle(env: &TestEnv) {
    let past = std::time::SystemTime::now() - Duration::from_secs(1);
    for suffix in ["", "-wal"] {
        let mut name = env.store_path().into_os_string();
        name.push(suffix);
        let file = std::fs::File::options().write(true).open(name).unwrap();
        file.set_modified(past).unwrap();
    }
}

#[test]
fn a_take_of_one_id_lends_the_next_ones_and_later_processes_take_them_without_a_transaction() {
    let env = stocked("20");
    let lent = one_alice_id(&env, "20");
    assert!(
        lent.stderr.contains("embedded store: 1 transaction"),
        "{lent}"
    );
    // Just written: the next take reads the store again, in a transaction,
    // and records the fingerprint of the files it read.
    settle(&env);
    let read_again = one_alice_id(&env, "20");
    assert!(
        read_again.stderr.contains("embedded store: 1 transaction"),
        "{read_again}"
    );
    let reserved = one_alice_id(&env, "20");
    assert!(
        reserved
            .stderr
            .contains("embedded store: 1 take from its reserve"),
        "{reserved}"
    );
    assert_eq!(
        segment_indexes(&[lent.ids(), read_again.ids(), reserved.ids()].concat()),
        [1, 2, 3]
    );
    assert_eq!(
        queue_stock(&env, 20, ALICE_SHARD),
        997,
        "what the reserve holds is stock"
    );
}

#[test]
fn a_process_killed_inside_a_take_from_the_reserve_hands_out_nothing_twice() {
    let env = stocked("21");
    let mut ids = one_alice_id(&env, "21").ids();
    settle(&env);
    ids.extend(one_alice_id(&env, "21").ids());
    for failpoint in ["sqlite.reserve.before_write", "sqlite.reserve.before_raise"] {
        let run = Test::within(&env)
            .args(["next", "--app", "21", "--gate-pass", ALICE])
            .env("IDGEN_FAILPOINTS", failpoint)
            .stdout_is("")
            .run();
        assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
        ids.extend(one_alice_id(&env, "21").ids());
    }
    // Killed before its record was written, the take took nothing (3 comes
    // next); killed after it was synced, it took 4, a gap.
    assert_eq!(segment_indexes(&ids), [1, 2, 3, 5]);
}

#[test]
fn a_reserve_file_restored_from_an_older_copy_hands_out_nothing_it_handed_out() {
    let env = stocked("22");
    let mut ids = one_alice_id(&env, "22").ids();
    let copy = tempfile::NamedTempFile::new().unwrap().into_temp_path();
    std::fs::copy(reserve_path(&env), &copy).unwrap();
    for _ in 0..5 {
        ids.extend(one_alice_id(&env, "22").ids());
    }
    std::fs::copy(&copy, reserve_path(&env)).unwrap();
    let after = Test::within(&env)
        .args(["next", "--app", "22", "--gate-pass", ALICE])
        .status(exit_code::OK)
        .stderr("the embedded store went back in time")
        .run();
    ids.extend(after.ids());
    assert_unique(&ids);
    assert!(highest_index(&after.ids()) > 6, "{after}");
}

#[test]
fn a_reserve_file_deleted_costs_a_gap_and_no_repeat() {
    let env = stocked("23");
    let mut ids = one_alice_id(&env, "23").ids();
    ids.extend(one_alice_id(&env, "23").ids());
    std::fs::remove_file(reserve_path(&env)).unwrap();
    let after = one_alice_id(&env, "23");
    ids.extend(after.ids());
    assert_unique(&ids);
    assert!(highest_index(&after.ids()) > 2, "{after}");
}

#[test]
fn a_limit_lowered_by_sql_holds_at_once_for_what_the_reserve_holds() {
    let env = stocked("24");
    one_alice_id(&env, "24");
    // The ID of index 2: index 3, which the reserve holds, is past it.
    let limit = 2u64 << 14 | u64::from(ALICE_SHARD) << 8 | 24;
    sqlite(&env)
        .execute(
            "UPDATE id_alloc SET max_limit_id = ?1 WHERE app_id = 24 AND shard_id = ?2",
            rusqlite::params![limit as i64, ALICE_SHARD],
        )
        .unwrap();
    let within = one_alice_id(&env, "24");
    assert_eq!(segment_indexes(&within.ids()), [2]);
    Test::within(&env)
        .args(["next", "--app", "24", "--gate-pass", ALICE])
        .status(exit_code::EXHAUSTED)
        .stdout_is("")
        .run();
}

#[test]
fn dropping_an_apps_stock_drops_its_reserve_too() {
    let env = stocked("25");
    one_alice_id(&env, "25");
    let held: u64 = (0..64).map(|shard| queue_stock(&env, 25, shard)).sum();
    let in_table = query_i64(
        &env,
        "SELECT SUM(last - first + 1) FROM idgen_queue WHERE app_id = 25",
    );
    assert_eq!(held, in_table as u64 + 256, "the reserve holds 256");
    let store = SqliteStore::open(&env.store_path(), Duration::from_secs(10));
    let dropped = runtime().block_on(store.drop_app_stock(25)).unwrap();
    assert_eq!(dropped, held);
    assert_eq!(queue_stock(&env, 25, ALICE_SHARD), 0);
}

// ---- the store going back in time ---------------------------------------------------

/// A consistent copy of the store, as a backup taken while nothing runs.
fn back_up(env: &TestEnv) -> tempfile::TempPath {
    let copy = tempfile::NamedTempFile::new().unwrap().into_temp_path();
    std::fs::remove_file(&copy).unwrap();
    sqlite(env)
        .execute("VACUUM INTO ?1", [copy.to_str().unwrap()])
        .unwrap();
    copy
}

/// Deletes the store file, with its WAL and shared memory.
fn delete_store(env: &TestEnv) {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = env.store_path().into_os_string();
        name.push(suffix);
        let _ = std::fs::remove_file(name);
    }
}

/// Puts `copy` in place of the store file, as an operator restoring a backup
/// does: the store's WAL and shared memory go with the file they belonged to.
fn restore(env: &TestEnv, copy: &std::path::Path) {
    delete_store(env);
    std::fs::copy(copy, env.store_path()).unwrap();
}

fn alice_ids(env: &TestEnv, app: &str, count: &str) -> Run {
    Test::within(env)
        .args(["next", "--app", app, "--gate-pass", ALICE, "--count", count])
        .status(exit_code::OK)
        .run()
}

fn highest_index(ids: &[u64]) -> u64 {
    segment_indexes(ids).into_iter().max().unwrap()
}

/// `before` IDs of the app, a backup, `after` more, then the backup restored:
/// every ID issued, and the highest index among them.
fn issued_then_restored(env: &TestEnv, app: &str, before: &str, after: &str) -> (Vec<u64>, u64) {
    let mut ids = alice_ids(env, app, before).ids();
    let copy = back_up(env);
    ids.extend(alice_ids(env, app, after).ids());
    let highest = highest_index(&ids);
    restore(env, &copy);
    (ids, highest)
}

/// The restored store's ledger is behind what it handed out.
fn assert_ledger_behind(env: &TestEnv, app: u8, highest: u64) {
    assert!(
        max_id(env, app, ALICE_SHARD) < highest as i64,
        "the restored copy is older"
    );
}

#[test]
fn a_store_file_restored_from_an_older_copy_takes_nothing_it_took_before_from_its_ledger() {
    let env = TestEnv::embedded();
    init_app(&env, "16", "100");
    // Each call takes its own segments, beyond one step: no stock is left.
    let (mut ids, highest) = issued_then_restored(&env, "16", "150", "150");
    assert_ledger_behind(&env, 16, highest);
    let after = Test::within(&env)
        .args([
            "next",
            "--app",
            "16",
            "--gate-pass",
            ALICE,
            "--count",
            "150",
        ])
        .status(exit_code::OK)
        .stderr("is behind what it handed out: app 16 shard 61")
        .run();
    assert!(segment_indexes(&after.ids())[0] > highest, "{after}");
    ids.extend(after.ids());
    assert_eq!(ids.len(), 450);
    assert_unique(&ids);
}

/// Stock served, the store restored from a copy taken before: what the copy
/// still holds was handed out since.
fn restored_stock_is_retired_not_served_again(dispenser: &str) {
    let env = TestEnv::embedded();
    let app = ["--app", "17", "--name", "demo", "--step", "1000"];
    env.ok(&[&["init-app"], &app[..], &["--dispenser", dispenser]].concat());
    env.ok(&["reload-segments", "--app", "17", "--quiet"]);
    // Takes of 300 lend nothing to the reserve: the stock stays in the file.
    let (mut ids, _) = issued_then_restored(&env, "17", "300", "300");
    let after = Test::within(&env)
        .args([
            "next",
            "--app",
            "17",
            "--gate-pass",
            ALICE,
            "--count",
            "300",
        ])
        .status(exit_code::OK)
        .stderr("the embedded store went back in time")
        .stderr("retired 700 indexes from 1 shard unserved")
        .run();
    ids.extend(after.ids());
    assert_eq!(ids.len(), 900);
    assert_unique(&ids);
    assert_eq!(segment_indexes(&after.ids())[0], 1001, "{after}");
}

#[test]
fn queue_stock_restored_with_its_store_file_is_retired_not_served_again() {
    restored_stock_is_retired_not_served_again("queue");
}

#[test]
fn range_stock_restored_with_its_store_file_is_retired_not_served_again() {
    restored_stock_is_retired_not_served_again("range");
}

#[test]
fn a_store_deleted_and_created_again_hands_out_nothing_it_handed_out_before() {
    let env = TestEnv::embedded();
    init_app(&env, "18", "100");
    let mut ids = alice_ids(&env, "18", "10").ids();
    let highest = highest_index(&ids);
    // An empty store where the old one was: nothing in it knows the IDs above.
    delete_store(&env);
    init_app(&env, "18", "100");
    let after = alice_ids(&env, "18", "10");
    assert!(segment_indexes(&after.ids())[0] > highest, "{after}");
    ids.extend(after.ids());
    assert_unique(&ids);
}

#[test]
fn a_move_out_of_a_restored_store_starts_above_what_it_handed_out() {
    let env = TestEnv::embedded();
    init_app(&env, "19", "100");
    let (_, highest) = issued_then_restored(&env, "19", "10", "150");
    assert_ledger_behind(&env, 19, highest);
    let store = SqliteStore::open(&env.store_path(), Duration::from_secs(10));
    let sealed = runtime().block_on(store.seal_app(19, "main")).unwrap();
    let shard = sealed
        .shards
        .iter()
        .find(|s| s.shard == ALICE_SHARD)
        .unwrap();
    assert!(shard.max_id >= highest, "{} < {highest}", shard.max_id);
}

#[test]
fn a_witness_file_idgen_did_not_write_is_refused_with_the_store_code() {
    let env = TestEnv::embedded();
    init_app(&env, "20", "100");
    let witness = env.store_path().with_file_name(".idgen.db.witness");
    std::fs::write(&witness, b"not a witness\n").unwrap();
    Test::within(&env)
        .args(["next", "--app", "20"])
        .status(exit_code::STORE)
        .one_line_error(".idgen.db.witness is not one idgen wrote (14 bytes)")
        .run();
    assert_eq!(max_id(&env, 20, ALICE_SHARD), 0, "nothing was taken");
}

#[test]
fn a_take_caught_in_a_restore_holds_back_the_takes_of_the_restored_file() {
    let env = TestEnv::embedded();
    init_app(&env, "22", "100");
    let mut ids = alice_ids(&env, "22", "10").ids();
    let copy = back_up(&env);
    ids.extend(alice_ids(&env, "22", "150").ids());
    // A take stopped inside its transaction on the file about to be replaced.
    let next = [
        "next",
        "--app",
        "22",
        "--gate-pass",
        ALICE,
        "--count",
        "150",
    ];
    let paused = env.coprocess(
        &next,
        &[("IDGEN_FAILPOINTS", "sqlite.take_segment.before_commit=stop")],
    );
    wait_until_stopped(paused.pid(), "the take to stop before its commit");
    restore(&env, &copy);
    // The restored file's witness does not show that take's segment yet: a
    // take from it waits for the unfinished one, here past its timeout.
    Test::within(&env)
        .args([&next[..], &["--timeout", "1s"]].concat())
        .status(exit_code::UNAVAILABLE)
        .stdout_is("")
        .run();
    paused.signal(libc::SIGCONT);
    let (status, stdout, _) = paused.wait();
    assert!(status.success(), "{status:?}");
    ids.extend(crate::harness::parse_ids(&stdout));
    ids.extend(alice_ids(&env, "22", "150").ids());
    assert_eq!(ids.len(), 460);
    assert_unique(&ids);
}

/// Two workers and two IDs a millisecond each: a run of 2,000 IDs spans a
/// second of its clock, so a later run can be put inside it.
const SLOW_LAYOUT: [&str; 4] = ["--bits", "time:61,worker:1,seq:1", "--epoch", "2020-01-01"];

fn slow_layout() -> idgen::layout::Layout {
    idgen::layout::Layout::custom("time:61,worker:1,seq:1", None, Some(1_577_836_800_000)).unwrap()
}

fn lease_run(env: &TestEnv, namespace: &str, count: &str, clock_offset_ms: i64) -> Run {
    let mut args = crate::harness::lease_args(namespace, &SLOW_LAYOUT);
    args.extend(["--count", count]);
    Test::within(env)
        .args(args)
        .env("IDGEN_TEST_CLOCK_OFFSET_MS", clock_offset_ms.to_string())
        .status(exit_code::OK)
        .run()
}

fn unix_ms_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// The earliest and latest time of `ids`, and that they all have `worker`.
fn time_span(ids: &[u64], worker: u64) -> (i64, i64) {
    let layout = slow_layout();
    let parts: Vec<_> = ids
        .iter()
        .map(|&id| layout.decompose(id).unwrap())
        .collect();
    let kind = idgen::layout::FieldKind::Worker;
    assert!(parts.iter().all(|p| p.get(kind) == Some(worker)));
    let times = parts.iter().map(|p| p.unix_ms.unwrap());
    (times.clone().min().unwrap(), times.max().unwrap())
}

#[test]
fn a_holder_after_a_restore_whose_clock_is_inside_an_earlier_holders_span_starts_after_it() {
    let env = TestEnv::embedded();
    lease_run(&env, "other", "1", 0);
    let copy = back_up(&env);
    // A second of IDs on worker 0, then released: its fence is its last unit.
    let first = lease_run(&env, "back", "2000", 0);
    let (earliest, latest) = time_span(&first.ids(), acquired_worker(&first.stderr));
    restore(&env, &copy);
    // The restored file never saw that lease, and this holder's clock reads
    // inside the span the first one used: only the witness's fence keeps it
    // off those time units.
    let inside = earliest + 20 - unix_ms_now();
    let second = lease_run(&env, "back", "100", inside);
    let worker = acquired_worker(&second.stderr);
    assert_eq!(worker, 0, "the restored free list offers worker 0 again");
    let (after, _) = time_span(&second.ids(), worker);
    assert!(after > latest, "{after} <= {latest}: {second}");
    let mut ids = first.ids();
    ids.extend(second.ids());
    assert_unique(&ids);
}

#[test]
fn a_holder_living_through_a_restore_keeps_its_worker_to_itself_until_its_fence() {
    let env = TestEnv::embedded();
    lease_run(&env, "other", "1", 0);
    let copy = back_up(&env);
    let mut args = crate::harness::lease_args("live", &["--stdin", "--ttl", "3s"]);
    args.extend(SLOW_LAYOUT);
    let mut live = env.coprocess(&args, &[]);
    let worker = live.acquired_worker();
    let mut ids = live.request(2000);
    let (earliest, latest) = time_span(&ids, worker);
    restore(&env, &copy);
    // The restored file knows no holder in the namespace and grants the live
    // holder's worker again, to a holder whose clock reads inside the span
    // the live one used: it starts above the fence the live one wrote.
    let inside = earliest + 20 - unix_ms_now();
    let later = lease_run(&env, "live", "10", inside);
    assert_eq!(acquired_worker(&later.stderr), worker);
    let (after, _) = time_span(&later.ids(), worker);
    assert!(after > latest, "{after} <= {latest}: {later}");
    // The live holder's process opened the file that was replaced: it follows
    // the path to the restored one, where its lease is unknown.
    ids.extend(live.request(10));
    assert_eq!(live.event("lost")["worker"].as_u64(), Some(worker));
    ids.extend(later.ids());
    assert_unique(&ids);
    let (status, _, _) = live.finish();
    assert!(status.success());
}

#[test]
fn a_worker_node_id_is_not_assigned_again_by_a_restored_store() {
    let env = TestEnv::embedded();
    let args = crate::lease::uid_generator_lease("2024-01-01", "1");
    env.ok(&args);
    let copy = back_up(&env);
    let run = || Test::within(&env).args(&args).status(exit_code::OK).run();
    let assigned = acquired_worker(&run().stderr);
    restore(&env, &copy);
    let again = acquired_worker(&run().stderr);
    assert!(again > assigned, "{again} <= {assigned}");
}

#[test]
fn a_lease_witness_file_idgen_did_not_write_is_refused_with_the_store_code() {
    let env = TestEnv::embedded();
    lease_run(&env, "other", "1", 0);
    let witness = env.store_path().with_file_name(".idgen.db.witness-leases");
    for suffix in ["", "-wal", "-shm"] {
        let mut name = witness.clone().into_os_string();
        name.push(suffix);
        let _ = std::fs::remove_file(name);
    }
    let stranger = rusqlite::Connection::open(&witness).unwrap();
    stranger
        .execute("CREATE TABLE notes (text TEXT)", [])
        .unwrap();
    drop(stranger);
    let mut args = crate::harness::lease_args("other", &SLOW_LAYOUT);
    args.extend(["--count", "1"]);
    Test::within(&env)
        .args(args)
        .status(exit_code::STORE)
        .one_line_error(".idgen.db.witness-leases is not one idgen wrote")
        .stdout_is("")
        .run();
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
        Test::within(&env)
            .args(args)
            .status(exit_code::STORE)
            .one_line_error(env.store_path().display().to_string())
            .stderr("not a database")
            .stdout_is("")
            .run();
    }
    assert_eq!(std::fs::read(env.store_path()).unwrap(), garbage);
}

#[test]
fn a_store_whose_directory_is_a_regular_file_is_unusable() {
    let env = TestEnv::embedded();
    let file = env.home.path().join("plain-file");
    std::fs::write(&file, b"x").unwrap();
    let store = file.join("idgen.db");
    Test::within(&env)
        .args(["--store", store.to_str().unwrap(), "next", "--app", "1"])
        .status(exit_code::STORE)
        .one_line_error("is not a directory")
        .run();
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

#[test]
fn a_store_in_a_missing_directory_is_unusable_and_not_created() {
    let env = TestEnv::embedded();
    let store = env.home.path().join("nowhere").join("idgen.db");
    Test::within(&env)
        .args(["--store", store.to_str().unwrap()])
        .args(["init-app", "--app", "1", "--name", "x"])
        .status(exit_code::STORE)
        .one_line_error("does not exist")
        .run();
    assert!(!store.parent().unwrap().exists());
}

#[test]
fn a_store_path_that_is_a_directory_is_unusable() {
    let env = TestEnv::embedded();
    std::fs::create_dir(env.store_path()).unwrap();
    Test::within(&env)
        .args(["next", "--app", "1"])
        .status(exit_code::STORE)
        .one_line_error("is a directory")
        .run();
}

#[test]
fn another_applications_sqlite_database_is_refused_and_left_alone() {
    let env = TestEnv::embedded();
    sqlite(&env)
        .execute_batch(
            "CREATE TABLE customers (id INTEGER PRIMARY KEY); INSERT INTO customers VALUES (7);",
        )
        .unwrap();
    Test::within(&env)
        .args(["init-app", "--app", "1", "--name", "demo"])
        .status(exit_code::STORE)
        .one_line_error("something else")
        .run();
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
    Test::within(&env)
        .args(["next", "--app", "1"])
        .status(exit_code::STORE)
        .one_line_error("upgrade idgen")
        .run();
}

#[test]
fn configuring_only_one_of_redis_and_mysql_is_still_a_usage_error() {
    let env = TestEnv::embedded();
    for (var, url) in [
        ("IDGEN_REDIS_URL", "redis://127.0.0.1:1/0"),
        ("IDGEN_MYSQL_URL", "mysql://root@127.0.0.1:1/idgen"),
    ] {
        Test::within(&env)
            .args(["next", "--app", "1"])
            .env(var, url)
            .status(exit_code::USAGE)
            .one_line_error("needs both")
            .run();
    }
    assert!(
        !env.store_path().exists(),
        "a usage error must not create the store"
    );
}

// ---- sealing an app for a move out of the store ---------------------------------------

#[test]
fn a_sealed_app_serves_only_its_stock_and_its_max_ids_are_final() {
    let env = TestEnv::embedded();
    init_app(&env, "5", "100");
    env.ok(&["reload-segments", "--app", "5", "--quiet"]);
    let first = Test::within(&env)
        .args(["next", "--app", "5", "--gate-pass", ALICE, "--count", "30"])
        .run()
        .ids();
    assert_eq!(first.len(), 30);

    let store = SqliteStore::open(&env.store_path(), Duration::from_secs(10));
    let runtime = runtime();
    let sealed = runtime
        .block_on(store.seal_app(5, "redis+mysql at db.example"))
        .unwrap();
    assert_eq!(sealed.spec.app, 5);
    assert_eq!(sealed.spec.name, "demo");
    assert_eq!(sealed.spec.step, 100);
    assert_eq!(sealed.shards.len(), 64);
    assert!(sealed.shards.iter().all(|s| s.max_id == 100), "{sealed:?}");
    let json = serde_json::to_value(&sealed).unwrap();
    assert_eq!(json["shards"][ALICE_SHARD as usize]["max_id"], 100);

    // Stock already taken may still be served: it lies at or below the final max_id.
    let rest = Test::within(&env)
        .args(["next", "--app", "5", "--gate-pass", ALICE, "--count", "70"])
        .status(exit_code::OK)
        .run();
    // A call that needs a segment is refused.
    Test::within(&env)
        .args(["next", "--app", "5", "--gate-pass", ALICE])
        .status(exit_code::CONFLICT)
        .one_line_error("moved out")
        .run();
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
    Test::within(&env)
        .args(["next", "--app", "5", "--count", "1"])
        .status(exit_code::CONFLICT)
        .run();
    Test::within(&env)
        .args(["reload-segments", "--app", "5"])
        .status(exit_code::OK)
        .stderr("moved out")
        .run();
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
    let run = Test::within(&env)
        .args(["init-app", "--app", "1", "--name", "demo"])
        .env("IDGEN_FAILPOINTS", "sqlite.schema.before_commit")
        .run();
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
    init_app(&env, "1", "100");
    env.ok(&["next", "--app", "1"]);
}

#[test]
fn a_holder_killed_while_acquiring_leaves_the_worker_free() {
    let env = TestEnv::embedded();
    let run = Test::within(&env)
        .args(crate::harness::lease_args("crash", &["--count", "1"]))
        .env("IDGEN_FAILPOINTS", "sqlite.lease.before_commit")
        .stdout_is("")
        .run();
    assert_eq!(run.status.signal(), Some(libc::SIGKILL), "{run}");
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
    let run = Test::within(&env)
        .args(crate::harness::lease_args("crash", &["--count", "1"]))
        .status(exit_code::OK)
        .run();
    assert_eq!(acquired_worker(&run.stderr), 0);
}

#[test]
fn status_reports_the_embedded_store_and_its_apps() {
    let env = TestEnv::embedded();
    init_app(&env, "1", "100");
    env.ok(&["reload-segments", "--quiet"]);
    let report = Test::within(&env)
        .args(["status", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(report["backend"], "embedded");
    assert_eq!(report["apps"][0]["app"], 1);
    assert!(
        report["stores"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["reachable"] == true),
        "{report}"
    );
    // An emptied shard is refilled by `next` in its own transaction: a note,
    // not something to act on, unless a threshold is asked for.
    env.ok(&["next", "--app", "1", "--gate-pass", ALICE, "--count", "100"]);
    Test::within(&env)
        .arg("status")
        .status(exit_code::OK)
        .stdout("low: next refills")
        .stdout("needs no cron")
        .run();
    Test::within(&env)
        .args(["status", "--warn-stock", "0.2"])
        .status(exit_code::ATTENTION)
        .stdout("run `idgen reload-segments`")
        .run();
}

#[test]
fn a_mistyped_store_path_is_refused_and_never_created() {
    let env = TestEnv::embedded();
    let typo = env.home.path().join("idgne.db");
    let typo_arg = typo.to_str().unwrap();
    for args in [
        &["next", "--app", "1"][..],
        &["inspect-freelist"],
        &["reload-segments"],
    ] {
        Test::within(&env)
            .args(["--store", typo_arg])
            .args(args.iter().copied())
            .status(exit_code::STORE)
            .one_line_error(typo_arg)
            .run();
        assert!(!typo.exists(), "{args:?} created {}", typo.display());
    }
    // status reports it as a critical finding naming the path (issue 10).
    for args in [&["status"][..], &["status", "--json"]] {
        Test::within(&env)
            .args(["--store", typo_arg])
            .args(args.iter().copied())
            .status(exit_code::ATTENTION)
            .stdout(typo_arg)
            .run();
        assert!(!typo.exists(), "{args:?} created {}", typo.display());
    }
    // decode needs no store, and does not create one.
    Test::within(&env)
        .args(["--store", typo_arg, "decode", "175928847299117063"])
        .status(exit_code::OK)
        .run();
    assert!(!typo.exists());
    // Without --store, the default location is not created either.
    let run = Test::within(&env)
        .arg("status")
        .unset("IDGEN_STORE")
        .status(exit_code::ATTENTION)
        .run();
    assert!(
        !env.home.path().join("data").join("idgen").exists(),
        "{run}"
    );

    // init-app creates it and says where.
    Test::within(&env)
        .args([
            "--store", typo_arg, "init-app", "--app", "1", "--name", "one",
        ])
        .status(exit_code::OK)
        .stderr(format!("created the embedded store {typo_arg}"))
        .run();
    assert!(typo.is_file());
    Test::within(&env)
        .args(["--store", typo_arg, "next", "--app", "1"])
        .status(exit_code::OK)
        .run();
}

#[test]
fn lease_creates_a_new_store_and_says_where() {
    let env = TestEnv::embedded();
    let store = env.home.path().join("leases.db");
    let store_arg = store.to_str().unwrap();
    Test::within(&env)
        .args(["--store", store_arg, "lease", "--count", "1"])
        .status(exit_code::OK)
        .stderr(format!("created the embedded store {store_arg}"))
        .run();
    assert!(store.is_file());
    Test::within(&env)
        .args(["--store", store_arg, "lease", "--count", "1"])
        .stderr_lacks("created")
        .run();
}

/// The crash tests rely on failpoints: the test suite's binary must have the
/// `test-hooks` feature (a release build has not; see Cargo.toml).
#[test]
fn the_binary_under_test_honours_failpoints() {
    let env = TestEnv::embedded();
    Test::within(&env)
        .args(["init-app", "--app", "1", "--name", "one"])
        .env("IDGEN_FAILPOINTS", "init_app.before_commit=error")
        .status(exit_code::INTERNAL)
        .stderr("failpoint init_app.before_commit fired")
        .run();
}
