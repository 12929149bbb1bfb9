//! `idgen lease`: worker IDs leased from Redis, and the IDs issued under them.

use crate::harness::{Coprocess, Test, TestEnv, acquired_worker, assert_unique, wait_until};
use idgen::exit_code;
use idgen::layout::{FieldKind, Layout};
use redis::Commands;
use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

/// A layout with two worker IDs, so tests can hold every one of them.
const TWO_WORKERS: [&str; 4] = ["--bits", "time:41,worker:1,seq:21", "--epoch", "2020-01-01"];

fn two_workers() -> Layout {
    Layout::custom("time:41,worker:1,seq:21", None, Some(1_577_836_800_000)).unwrap()
}

/// Every worker a run's JSON events say it acquired.
fn leased_workers(stderr: &str) -> BTreeSet<u64> {
    stderr
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|event| event["event"] == "acquired")
        .filter_map(|event| event["worker"].as_u64())
        .collect()
}

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

/// A `lease --stdin` holder that has acquired its worker.
fn holder(
    env: &TestEnv,
    namespace: &str,
    extra: &[&str],
    vars: &[(&str, &str)],
) -> (Coprocess, u64) {
    let mut args = crate::harness::lease_args(namespace, &["--stdin"]);
    args.extend_from_slice(extra);
    let mut process = env.coprocess(&args, vars);
    let worker = process.acquired_worker();
    (process, worker)
}

fn four_concurrent_holders_get_distinct_workers_and_issue_no_duplicate(env: &TestEnv) {
    let layout = Layout::named("snowflake").unwrap();
    let runs: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    Test::within(env)
                        .args(crate::harness::lease_args("load", &["--count", "200000"]))
                        .status(exit_code::OK)
                        .run()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut workers = BTreeSet::new();
    let mut all = Vec::new();
    for run in &runs {
        let worker = acquired_worker(&run.stderr);
        assert!(
            workers.insert(worker),
            "worker {worker} was leased twice at once"
        );
        // A run stalled past the fence it gave its lease back at (see
        // `a_stall_past_the_fence_given_back_ahead_carries_the_rest_to_a_new_lease`)
        // issues its last IDs under a second lease.
        let leased = leased_workers(&run.stderr);
        let ids = run.ids();
        assert_eq!(ids.len(), 200_000);
        assert!(
            ids.iter()
                .all(|&id| leased.contains(&worker_of(&layout, id)))
        );
        all.extend(ids);
    }
    assert_unique(&all);
}

fn a_paused_holder_issues_nothing_under_its_stale_worker_after_waking(env: &TestEnv) {
    let layout = two_workers();
    let mut extra = TWO_WORKERS.to_vec();
    extra.extend(["--ttl", "1s"]);
    let (mut paused, stale) = holder(env, "pause", &extra, &[]);
    let before = paused.request(3);

    paused.signal(libc::SIGSTOP);
    wait_until(
        Duration::from_secs(10),
        "the paused lease to expire",
        || !env.worker_held("pause", stale),
    );
    // Take both workers: the free one first, then the stale one.
    let (other_holder, other) = holder(env, "pause", &extra, &[]);
    let (mut taker, taken) = holder(env, "pause", &extra, &[]);
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

fn release_returns_the_worker_to_the_free_list(env: &TestEnv) {
    let run = Test::within(env)
        .args(crate::harness::lease_args("release", &["--count", "10"]))
        .status(exit_code::OK)
        .run();
    let worker = acquired_worker(&run.stderr);
    let snapshot = env.lease_snapshot("release");
    assert!(
        snapshot.free.contains(&worker),
        "worker {worker} not in {:?}",
        snapshot.free
    );
    assert!(snapshot.held.is_empty(), "{:?}", snapshot.held);
    let fence = snapshot
        .fences
        .iter()
        .find(|(w, _)| *w == worker)
        .map(|(_, fence)| *fence)
        .expect("a fence for the released worker");
    let layout = Layout::named("snowflake").unwrap();
    let last_issued = run
        .ids()
        .iter()
        .map(|&id| time_of(&layout, id))
        .max()
        .unwrap();
    assert_eq!(fence, last_issued, "the fence is the last time unit issued");
}

fn sigterm_releases_the_lease_before_exiting(env: &TestEnv) {
    let (mut process, worker) = holder(env, "term", &[], &[]);
    process.request(1);
    process.signal(libc::SIGTERM);
    let (status, _, stderr) = process.wait();
    assert_eq!(
        status.code(),
        Some(i32::from(exit_code::INTERRUPTED)),
        "{stderr:?}"
    );
    assert!(
        stderr.iter().any(|l| l.contains("\"released\"")),
        "{stderr:?}"
    );
    assert!(env.lease_snapshot("term").free.contains(&worker));
}

fn when_every_worker_is_held_the_error_is_clear(env: &TestEnv) {
    let (_a, _) = holder(env, "full", &TWO_WORKERS, &[]);
    let (_b, _) = holder(env, "full", &TWO_WORKERS, &[]);
    let mut args = crate::harness::lease_args("full", &["--count", "1"]);
    args.extend(TWO_WORKERS);
    Test::within(env)
        .args(args)
        .status(exit_code::EXHAUSTED)
        .stderr("all 2 worker IDs of namespace \"full\" are held")
        .stdout_is("")
        .run();
}

fn a_holder_with_another_layout_or_epoch_is_refused(env: &TestEnv) {
    env.ok(&crate::harness::lease_args("shared", &["--count", "1"]));
    for extra in [
        vec!["--layout", "discord"],
        vec!["--epoch", "2020-01-01"],
        vec!["--assigner", "worker-node"],
    ] {
        let mut args = crate::harness::lease_args("shared", &["--count", "1"]);
        args.extend(&extra);
        Test::within(env)
            .args(args)
            .status(exit_code::CONFLICT)
            .stderr("is recorded with snowflake")
            .stdout_is("")
            .run();
    }
}

fn a_lease_that_cannot_issue_leaves_no_trace_in_the_namespace(env: &TestEnv) {
    // An epoch in the future: no ID can be issued, so nothing may be recorded.
    let run = Test::within(env)
        .args(crate::harness::lease_args(
            "future",
            &["--count", "1", "--epoch", "2090-01-01"],
        ))
        .status(exit_code::USAGE)
        .stderr("before the epoch")
        .run();
    assert!(env.lease_namespaces().is_empty(), "{run}");
    // A correct holder is not refused by what the failed one tried.
    Test::within(env)
        .args(crate::harness::lease_args("future", &["--count", "1"]))
        .status(exit_code::OK)
        .run();
}

/// `lease` of `count` IDs in namespace `uid`: the uid-generator layout from
/// `epoch`, its worker IDs from the worker-node assigner.
pub(crate) fn uid_generator_lease<'a>(epoch: &'a str, count: &'a str) -> Vec<&'a str> {
    crate::harness::lease_args(
        "uid",
        &[
            "--layout",
            "uid-generator",
            "--epoch",
            epoch,
            "--assigner",
            "worker-node",
            "--count",
            count,
        ],
    )
}

fn the_worker_node_assigner_burns_no_worker_id_when_the_layout_cannot_issue(env: &TestEnv) {
    Test::within(env)
        .args(uid_generator_lease("2090-01-01", "1"))
        .status(exit_code::USAGE)
        .run();
    let run = Test::within(env)
        .args(uid_generator_lease("2025-01-01", "1"))
        .status(exit_code::OK)
        .run();
    assert_eq!(
        acquired_worker(&run.stderr),
        1,
        "the failed start took no ID"
    );
}

fn a_namespace_conflict_shows_the_recorded_epoch_as_a_date(env: &TestEnv) {
    env.ok(&crate::harness::lease_args("dated", &["--count", "1"]));
    Test::within(env)
        .args(crate::harness::lease_args(
            "dated",
            &["--count", "1", "--epoch", "2020-01-01"],
        ))
        .status(exit_code::CONFLICT)
        .stderr("since 2010-11-04T01:42:54.657Z")
        .stderr("since 2020-01-01T00:00:00.000Z")
        .stderr_lacks("1288834974657")
        .run();
}

fn a_holder_name_with_control_characters_is_shown_escaped(env: &TestEnv) {
    Test::within(env)
        .args([
            "lease",
            "--count",
            "1",
            "--holder",
            "evil\u{1b}[2Jhost\nnext",
        ])
        .status(exit_code::OK)
        .stderr_lacks("\u{1b}")
        .stderr("evil\\u{1b}[2Jhost\\nnext")
        .run();
}

fn a_later_holder_with_a_clock_behind_waits_past_the_recorded_fence(env: &TestEnv) {
    let layout = two_workers();
    let mut fixed = TWO_WORKERS.to_vec();
    fixed.extend(["--fix", "worker=0", "--count", "2000"]);
    let ahead = Test::within(env)
        .args(crate::harness::lease_args("skew", &fixed))
        .env("IDGEN_TEST_CLOCK_OFFSET_MS", "1500")
        .status(exit_code::OK)
        .run();
    let mut behind_args = fixed.clone();
    behind_args.extend(["--ttl", "5s"]);
    let behind = Test::within(env)
        .args(crate::harness::lease_args("skew", &behind_args))
        .status(exit_code::OK)
        .run();
    let latest_ahead = ahead
        .ids()
        .iter()
        .map(|&id| time_of(&layout, id))
        .max()
        .unwrap();
    let earliest_behind = behind
        .ids()
        .iter()
        .map(|&id| time_of(&layout, id))
        .min()
        .unwrap();
    assert!(
        earliest_behind > latest_ahead,
        "{earliest_behind} <= {latest_ahead}"
    );
    let all: Vec<u64> = ahead.ids().into_iter().chain(behind.ids()).collect();
    assert_unique(&all);
}

fn a_later_holder_far_behind_the_fence_refuses_with_the_clock_code(env: &TestEnv) {
    let mut fixed = TWO_WORKERS.to_vec();
    fixed.extend(["--fix", "worker=0", "--count", "10"]);
    env.ok(&{
        let mut args = crate::harness::lease_args("far", &fixed);
        args.extend(["--ttl", "1s"]);
        args
    });
    // Raise the recorded fence as a holder whose clock is a minute ahead would.
    Test::within(env)
        .args(crate::harness::lease_args("far", &fixed))
        .env("IDGEN_TEST_CLOCK_OFFSET_MS", "60000")
        .status(exit_code::OK)
        .run();
    let mut args = crate::harness::lease_args("far", &fixed);
    args.extend(["--ttl", "1s"]);
    Test::within(env)
        .args(args)
        .status(exit_code::CLOCK)
        .stdout_is("")
        .stderr("clock moved back")
        .run();
}

fn stdin_mode_answers_each_line_and_an_empty_line_means_one(env: &TestEnv) {
    let (mut process, _) = holder(env, "copro", &[], &[]);
    let first = process.request(5);
    process.send("");
    let one = process.read_id();
    let last = process.request(3);
    let (status, rest, _) = process.finish();
    assert!(status.success());
    assert_eq!(rest, "");
    let all: Vec<u64> = first.into_iter().chain([one]).chain(last).collect();
    assert_eq!(all.len(), 9);
    assert_unique(&all);
    assert!(
        all.windows(2).all(|w| w[0] < w[1]),
        "IDs from one holder increase"
    );
}

fn stdout_carries_ids_only(env: &TestEnv) {
    let run = Test::within(env)
        .args(["lease", "--namespace", "plain", "--count", "3"])
        .status(exit_code::OK)
        .stderr("leased worker")
        .run();
    assert_eq!(run.stdout.lines().count(), 3);
    assert!(
        run.stdout.lines().all(|l| l.parse::<u64>().is_ok()),
        "{run}"
    );
}

#[test]
fn lease_keys_share_the_namespace_hash_tag() {
    let env = TestEnv::distributed();
    let (_holding, _) = holder(&env, "tagged", &[], &[]);
    let keys: Vec<String> = env.redis().keys("idgen:*").unwrap();
    assert!(keys.len() >= 4, "{keys:?}");
    assert!(
        keys.iter().all(|k| k.starts_with("idgen:{tagged}:")),
        "{keys:?}"
    );
}

fn the_worker_node_assigner_never_reuses_a_worker(env: &TestEnv) {
    let args = uid_generator_lease("2025-01-01", "3");
    let workers: Vec<u64> = (0..3)
        .map(|_| {
            let run = Test::within(env).args(&args).status(exit_code::OK).run();
            acquired_worker(&run.stderr)
        })
        .collect();
    assert_eq!(workers, [1, 2, 3]);
    let rows = env.query_u64("SELECT COUNT(*) FROM WORKER_NODE");
    assert_eq!(rows, 3);
}

fn the_worker_node_assigner_refuses_once_the_worker_field_is_used_up(env: &TestEnv) {
    let args = [
        "lease",
        "--namespace",
        "tiny",
        "--bits",
        "time:41,worker:2,seq:20",
        "--epoch",
        "2025-01-01",
        "--assigner",
        "worker-node",
        "--count",
        "1",
    ];
    for _ in 0..3 {
        env.ok(&args);
    }
    let run = Test::within(env)
        .args(args)
        .status(exit_code::EXHAUSTED)
        .run();
    assert!(
        run.stderr.contains("WORKER_NODE") || run.stderr.contains("worker-node table"),
        "{run}"
    );
}

fn a_wide_worker_field_needs_the_worker_node_assigner(env: &TestEnv) {
    Test::within(env)
        .args([
            "lease",
            "--layout",
            "uid-generator",
            "--epoch",
            "2025-01-01",
            "--count",
            "1",
        ])
        .status(exit_code::USAGE)
        .stderr("--assigner worker-node")
        .run();
}

fn lease_rejects_bad_input_without_leasing_anything(env: &TestEnv) {
    for args in [
        vec!["lease", "--count", "0"],
        vec!["lease", "--ttl", "10ms"],
        vec!["lease", "--ttl", "soon"],
        vec!["lease", "--namespace", "a b"],
        vec!["lease", "--namespace", "{tag}"],
        vec!["lease", "--layout", "nope"],
        vec!["lease", "--layout", "segment"],
        vec!["lease", "--bits", "time:41,worker:10"],
        vec!["lease", "--count", "3", "--stdin"],
        vec!["lease", "--max-clock-back", "x"],
    ] {
        Test::within(env)
            .args(args)
            .status(exit_code::USAGE)
            .stdout_is("")
            .run();
    }
    assert!(
        env.lease_namespaces().is_empty(),
        "a rejected lease recorded a namespace"
    );
    // Too many is not too few: the hint says what to do instead.
    Test::within(env)
        .args(["lease", "--count", "100000001"])
        .status(exit_code::USAGE)
        .one_line_error("ask for at most 100000000 per run, or use --stdin")
        .run();
}

fn a_bad_stdin_line_fails_with_a_usage_error_and_releases(env: &TestEnv) {
    let (mut process, worker) = holder(env, "badline", &[], &[]);
    process.request(1);
    process.send("many");
    let (status, _, stderr) = process.wait();
    assert_eq!(
        status.code(),
        Some(i32::from(exit_code::USAGE)),
        "{stderr:?}"
    );
    assert!(stderr.iter().any(|l| l.contains("\"many\"")), "{stderr:?}");
    assert!(env.lease_snapshot("badline").free.contains(&worker));
}

fn a_killed_holder_leaves_a_fence_the_next_holder_respects(env: &TestEnv) {
    let mut fixed = TWO_WORKERS.to_vec();
    fixed.extend(["--fix", "worker=0", "--ttl", "1s"]);
    let (mut first, _) = holder(env, "killed", &fixed, &[]);
    let before = first.request(500);
    first.signal(libc::SIGKILL);
    let (status, _, _) = first.wait();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    // Nobody released the worker: it comes back when its key expires.
    the_next_holder_starts_after(env, "killed", &fixed, before);
}

/// Once the lease on worker 0 of `namespace` (of [`TWO_WORKERS`]) has
/// ended, its next holder (`fixed` flags) issues only after every ID in
/// `before`, and none of them again.
fn the_next_holder_starts_after(env: &TestEnv, namespace: &str, fixed: &[&str], before: Vec<u64>) {
    let layout = two_workers();
    wait_until(
        Duration::from_secs(10),
        "the killed holder's lease to end",
        || !env.worker_held(namespace, 0),
    );
    let mut args = crate::harness::lease_args(namespace, fixed);
    args.extend(["--count", "500"]);
    let run = Test::within(env).args(args).status(exit_code::OK).run();
    let latest_before = before.iter().map(|&id| time_of(&layout, id)).max().unwrap();
    assert!(
        run.ids()
            .iter()
            .all(|&id| time_of(&layout, id) > latest_before)
    );
    let all: Vec<u64> = before.into_iter().chain(run.ids()).collect();
    assert_unique(&all);
}

fn a_counted_lease_is_given_back_ahead_of_its_last_ids_fenced_after_them(env: &TestEnv) {
    let layout = Layout::named("snowflake").unwrap();
    let run = Test::within(env)
        .args(crate::harness::lease_args("ahead", &["--count", "100000"]))
        .status(exit_code::OK)
        .run();
    let ids = run.ids();
    assert_eq!(ids.len(), 100_000);
    assert_unique(&ids);
    let events: Vec<serde_json::Value> = run
        .stderr
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let grants: Vec<(u64, Option<i64>)> = events
        .iter()
        .filter(|event| event["event"] == "acquired")
        .map(|event| {
            (
                event["worker"].as_u64().unwrap(),
                event["floor_unix_ms"].as_i64(),
            )
        })
        .collect();
    let worker = grants[0].0;
    let released = events
        .iter()
        .find(|event| event["event"] == "released")
        .unwrap_or_else(|| panic!("no released event in {}", run.stderr));
    assert_eq!(released["ahead"], true, "{released}");
    assert_eq!(released["worker"], worker, "{released}");
    let fence = released["last_unix_ms"].as_i64().unwrap();
    for &id in &ids {
        let (w, time) = (worker_of(&layout, id), time_of(&layout, id));
        if w == worker && time <= fence {
            continue;
        }
        // Past that fence only a later grant issues: one a stall past the
        // fence made (`a_stall_past_the_fence_given_back_ahead_…`), above
        // its own floor, which on the same worker is the fence at least.
        assert!(
            grants[1..].iter().any(|&(gw, floor)| gw == w
                && floor.is_none_or(|floor| time > floor)
                && (gw != worker || floor.is_some_and(|floor| floor >= fence))),
            "ID {id} (worker {w}, at {time}) is after the fence {fence} worker {worker} was given back at, under no later grant: {}",
            run.stderr
        );
    }
    let snapshot = env.lease_snapshot("ahead");
    assert!(snapshot.held.is_empty(), "{:?}", snapshot.held);
    assert!(snapshot.free.contains(&worker), "{:?}", snapshot.free);
    if grants.len() == 1 {
        let recorded = snapshot
            .fences
            .iter()
            .find(|(w, _)| *w == worker)
            .map(|(_, fence)| *fence);
        assert_eq!(
            recorded,
            Some(fence),
            "the store's fence is the one reported"
        );
    }
}

fn a_holder_killed_after_giving_its_lease_back_ahead_leaves_a_fence_the_next_holder_respects(
    env: &TestEnv,
) {
    let mut fixed = TWO_WORKERS.to_vec();
    fixed.extend(["--fix", "worker=0", "--ttl", "1s"]);
    let mut args = crate::harness::lease_args("killedahead", &fixed);
    args.extend(["--count", "3000000"]);
    let killed = Test::within(env)
        .args(args)
        .env("IDGEN_FAILPOINTS", "lease.released_ahead")
        .run();
    assert_eq!(killed.status.signal(), Some(libc::SIGKILL), "{killed}");
    let before = killed.ids();
    assert!(!before.is_empty(), "{killed}");
    // Released ahead (or, if the kill came first, expired with its key).
    the_next_holder_starts_after(env, "killedahead", &fixed, before);
}

/// A lease in `namespace`, under `clock`, that issued 10,000 IDs and was
/// given back ahead of 20,000 more: its session, its generator, those IDs
/// and the grant's status, once the store recorded the fence it returns.
async fn issued_then_given_back(
    backend: &idgen::backend::Backend,
    namespace: &str,
    clock: &idgen::clock::ManualClock,
) -> (
    std::sync::Arc<idgen::lease::LeaseSession<idgen::clock::ManualClock>>,
    idgen::lease::session::LeasedGenerator<idgen::clock::ManualClock>,
    Vec<u64>,
    idgen::lease::session::LeaseStatus,
    i64,
) {
    use idgen::lease::session::LeasedGenerator;
    use idgen::snowflake::GeneratorOptions;

    let layout = Layout::named("snowflake").unwrap();
    let session = manual_session(backend, namespace, clock).await;
    let mut generator = LeasedGenerator::new(session.clone(), layout, GeneratorOptions::default());
    let mut ids = Vec::new();
    generator.issue(10_000, &mut ids).await.unwrap();
    let grant = session.status().unwrap();
    assert!(
        !generator.release_ahead(1_000_000),
        "a million IDs are due beyond the lead: nothing is given back yet"
    );
    assert!(
        generator.release_ahead(20_000),
        "20,000 IDs are due within the lead"
    );
    assert!(!generator.release_ahead(20_000), "given back once");
    let fence = fence_once_released(backend, namespace, grant.worker).await;
    (session, generator, ids, grant, fence)
}

fn a_lease_given_back_ahead_issues_nothing_after_its_fence(env: &TestEnv) {
    let backend = env.backend();
    env.block_on(async {
        let layout = Layout::named("snowflake").unwrap();
        let clock = idgen::clock::ManualClock::new(1_800_000_000_000);
        let (session, mut generator, mut ids, grant, fence) =
            issued_then_given_back(&backend, "aheadfence", &clock).await;
        generator.issue(20_000, &mut ids).await.unwrap();
        assert_eq!(ids.len(), 30_000);
        assert_unique(&ids);
        assert!(ids.iter().all(|&id| time_of(&layout, id) <= fence));
        assert_eq!(
            generator.worker(),
            Some(grant.worker),
            "no new lease was needed"
        );
        session.release(generator.last_issued_ms()).await.unwrap();
        let snapshot = snapshot(&backend, "aheadfence").await;
        assert!(snapshot.held.is_empty(), "{:?}", snapshot.held);
    });
}

fn a_stall_past_the_fence_given_back_ahead_carries_the_rest_to_a_new_lease(env: &TestEnv) {
    let backend = env.backend();
    env.block_on(async {
        let layout = Layout::named("snowflake").unwrap();
        let clock = idgen::clock::ManualClock::new(1_800_000_000_000);
        let (session, mut generator, mut ids, first, fence) =
            issued_then_given_back(&backend, "aheadstall", &clock).await;
        // The holder stalls past that fence with 20,000 IDs still to issue.
        clock.set_ms(fence + 50);
        generator.issue(20_000, &mut ids).await.unwrap();
        assert_eq!(ids.len(), 30_000);
        assert_unique(&ids);
        let second = session.status().expect("a new lease");
        assert!(second.generation > first.generation);
        let (before, after) = ids.split_at(10_000);
        assert!(before.iter().all(|&id| time_of(&layout, id) <= fence));
        for &id in after {
            assert_eq!(worker_of(&layout, id), second.worker);
            // The same worker again starts after the fence it was given back at.
            assert!(second.worker != first.worker || time_of(&layout, id) > fence);
        }
        session.release(generator.last_issued_ms()).await.unwrap();
        let snapshot = snapshot(&backend, "aheadstall").await;
        assert!(snapshot.held.is_empty(), "{:?}", snapshot.held);
    });
}

/// The lease store's view of `namespace`, from inside a test's runtime.
async fn snapshot(
    backend: &idgen::backend::Backend,
    namespace: &str,
) -> idgen::lease::NamespaceSnapshot {
    let admin = backend.lease_admin().await.expect("lease admin");
    admin.snapshot(namespace).await.expect("snapshot")
}

/// The fence the store records for `worker` once its lease, given back
/// ahead of its last IDs, is released (the release runs as a task).
async fn fence_once_released(
    backend: &idgen::backend::Backend,
    namespace: &str,
    worker: u64,
) -> i64 {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let snapshot = snapshot(backend, namespace).await;
        if !snapshot.held.iter().any(|h| h.worker == worker) {
            return snapshot
                .fences
                .iter()
                .find(|(w, _)| *w == worker)
                .map(|(_, fence)| *fence)
                .expect("the fence the lease was given back at");
        }
        assert!(
            std::time::Instant::now() < deadline,
            "worker {worker} still held 10 s after it was given back"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Events are not under test here.
struct Quiet;

impl idgen::lease::LeaseEvents for Quiet {
    fn event(&self, _: idgen::lease::LeaseEvent) {}
}

/// A lease session of the snowflake layout in its own namespace, on the
/// backend's lease store, under a clock the test moves (30 s TTL).
async fn manual_session(
    backend: &idgen::backend::Backend,
    namespace: &str,
    clock: &idgen::clock::ManualClock,
) -> std::sync::Arc<idgen::lease::LeaseSession<idgen::clock::ManualClock>> {
    use idgen::lease::session::WorkerSource;
    use idgen::lease::{Assigner, LeaseSession, NamespaceSpec};

    let layout = Layout::named("snowflake").unwrap();
    let namespace = NamespaceSpec::new(namespace, &layout, Assigner::Lease).unwrap();
    std::sync::Arc::new(LeaseSession::new(
        WorkerSource::Lease(backend.lease_store().await.unwrap()),
        namespace,
        "test".into(),
        Duration::from_secs(30),
        clock.clone(),
        std::sync::Arc::new(Quiet),
    ))
}

fn a_clock_moved_backwards_under_a_lease_produces_no_duplicate(env: &TestEnv) {
    use idgen::clock::{Clock, ManualClock};
    use idgen::lease::session::LeasedGenerator;
    use idgen::snowflake::GeneratorOptions;

    let backend = env.backend();
    env.block_on(async {
        let layout = Layout::named("snowflake").unwrap();
        let clock = ManualClock::new(1_800_000_000_000);
        let session = manual_session(&backend, "rewind", &clock).await;
        let options = GeneratorOptions {
            max_backward: Duration::from_millis(5),
        };
        let mut generator = LeasedGenerator::new(session.clone(), layout.clone(), options);
        let mut ids = Vec::new();
        generator.issue(10_000, &mut ids).await.unwrap();
        // A small step back is waited out…
        clock.rewind(Duration::from_millis(3));
        generator.issue(10_000, &mut ids).await.unwrap();
        // …a large one is refused, and nothing is issued from the past.
        clock.rewind(Duration::from_secs(2));
        let issued_before = ids.len();
        let refused = generator.issue(10, &mut ids).await.unwrap_err();
        assert!(
            matches!(refused, idgen::Error::ClockMovedBack { .. }),
            "{refused}"
        );
        assert_eq!(ids.len(), issued_before);
        // Once the clock has caught up, issuing continues where it left off.
        clock.advance(Duration::from_secs(3));
        generator.issue(10_000, &mut ids).await.unwrap();
        assert_unique(&ids);
        assert!(clock.now_ms() > 1_800_000_000_000);
        session.release(generator.last_issued_ms()).await.unwrap();
    });
}

fn the_ready_path_issues_only_under_a_proven_lease_within_its_fence(env: &TestEnv) {
    use idgen::clock::ManualClock;
    use idgen::lease::session::LeasedGenerator;
    use idgen::snowflake::GeneratorOptions;

    let backend = env.backend();
    env.block_on(async {
        let layout = Layout::named("snowflake").unwrap();
        let clock = ManualClock::new(1_800_000_000_000);
        let session = manual_session(&backend, "ready", &clock).await;
        let options = GeneratorOptions::default();
        let mut generator = LeasedGenerator::new(session.clone(), layout.clone(), options);
        let mut ids = Vec::new();
        // No lease yet: only the awaited path may acquire one.
        assert!(generator.issue_ready(1, &mut ids).is_none());
        assert!(ids.is_empty());
        generator.issue(1, &mut ids).await.unwrap();
        for _ in 0..100 {
            generator.issue_ready(1, &mut ids).unwrap().unwrap();
        }
        assert_eq!(ids.len(), 101);
        // Past the fence (the clock beyond the lease's TTL, no renewal since),
        // it issues nothing; the awaited path renews and goes on.
        clock.advance(Duration::from_secs(31));
        assert!(generator.issue_ready(1, &mut ids).is_none());
        assert_eq!(ids.len(), 101);
        generator.issue(1, &mut ids).await.unwrap();
        generator.issue_ready(1, &mut ids).unwrap().unwrap();
        assert_unique(&ids);
        // Released: nothing more without a new lease.
        session.release(generator.last_issued_ms()).await.unwrap();
        assert!(generator.issue_ready(1, &mut ids).is_none());
        assert_eq!(ids.len(), 103);
    });
}

crate::on_both_backends!(
    four_concurrent_holders_get_distinct_workers_and_issue_no_duplicate,
    a_paused_holder_issues_nothing_under_its_stale_worker_after_waking,
    release_returns_the_worker_to_the_free_list,
    sigterm_releases_the_lease_before_exiting,
    when_every_worker_is_held_the_error_is_clear,
    a_holder_with_another_layout_or_epoch_is_refused,
    a_lease_that_cannot_issue_leaves_no_trace_in_the_namespace,
    the_worker_node_assigner_burns_no_worker_id_when_the_layout_cannot_issue,
    a_namespace_conflict_shows_the_recorded_epoch_as_a_date,
    a_holder_name_with_control_characters_is_shown_escaped,
    a_later_holder_with_a_clock_behind_waits_past_the_recorded_fence,
    a_later_holder_far_behind_the_fence_refuses_with_the_clock_code,
    stdin_mode_answers_each_line_and_an_empty_line_means_one,
    stdout_carries_ids_only,
    the_worker_node_assigner_never_reuses_a_worker,
    the_worker_node_assigner_refuses_once_the_worker_field_is_used_up,
    a_wide_worker_field_needs_the_worker_node_assigner,
    lease_rejects_bad_input_without_leasing_anything,
    a_bad_stdin_line_fails_with_a_usage_error_and_releases,
    a_killed_holder_leaves_a_fence_the_next_holder_respects,
    a_clock_moved_backwards_under_a_lease_produces_no_duplicate,
    the_ready_path_issues_only_under_a_proven_lease_within_its_fence,
    a_counted_lease_is_given_back_ahead_of_its_last_ids_fenced_after_them,
    a_holder_killed_after_giving_its_lease_back_ahead_leaves_a_fence_the_next_holder_respects,
    a_lease_given_back_ahead_issues_nothing_after_its_fence,
    a_stall_past_the_fence_given_back_ahead_carries_the_rest_to_a_new_lease,
);
