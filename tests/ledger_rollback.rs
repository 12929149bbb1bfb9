//! The ledger going back in time, and limits changed behind idgen's back, with
//! real faults (issue 19): an asynchronous MariaDB replica promoted after it
//! lagged, a dump restored into the same server, `max_limit_id` lowered by SQL
//! and by `idgen app set`, and a Redis dataset swapped back to an older copy
//! with `SWAPDB` inside the same server process. Every case runs a queue app
//! and a range app, concurrent `idgen next` takers and `idgen reload-segments`
//! reloaders, and ends with zero repeated IDs (and, for a limit, zero IDs above
//! it).
//!
//! `IDGEN_CHAOS_IDS` sets how many IDs each case issues (100 000 by default;
//! `scripts/chaos.sh` runs them with 1 000 000).

use crate::harness::faults::{Persistence, RedisProcess, chaos_ids};
use crate::harness::mysql_faults::{MariadbPair, MariadbProcess, gtid_seq};
use crate::harness::takers::take_during;
use crate::harness::{
    Run, StopOnDrop, Test, TestEnv, gate_pass_for, limit_with_last_index, segment_parts, wait_until,
};
use idgen::exit_code;
use std::collections::HashSet;
use std::os::unix::process::ExitStatusExt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Both dispensers: the app and its dispenser.
const APPS: [(u8, &str); 2] = [(1, "queue"), (2, "range")];
/// Concurrent `idgen next` processes.
const TAKERS: usize = 4;
/// Concurrent `idgen reload-segments` loops.
const RELOADERS: usize = 1;
/// IDs per `next` call, in turn: one whose shortfall is taken straight from
/// the ledger (`take_direct`), and one a shard's stock serves. A round starts
/// with the first, so that right after a fault every shard takes from the
/// ledger at once.
const COUNTS: [u64; 2] = [150, 10];
/// How long a round of takers may take before the test fails.
const ROUND_LIMIT: Duration = Duration::from_secs(600);

/// The servers a round's commands talk to.
#[derive(Clone)]
struct Backends {
    redis: String,
    mysql: String,
}

impl Backends {
    fn of(env: &TestEnv) -> Self {
        Backends {
            redis: env.redis_url.clone(),
            mysql: env.mysql_url.clone(),
        }
    }

    fn test<'e>(&self, env: &'e TestEnv) -> Test<'e> {
        Test::within(env)
            .env("IDGEN_REDIS_URL", &self.redis)
            .env("IDGEN_MYSQL_URL", &self.mysql)
    }
}

/// A queue app and a range app, every segment `step` indexes, every shard
/// stocked.
fn init_apps(env: &TestEnv, at: &Backends, step: u64) {
    let step = step.to_string();
    for (app, kind) in APPS {
        at.test(env)
            .args(["init-app", "--app", &app.to_string(), "--name", kind])
            .args(["--step", &step, "--min-step", &step, "--max-step", &step])
            .env("IDGEN_DISPENSER", kind)
            .status(exit_code::OK)
            .run();
    }
    at.test(env)
        .args(["reload-segments", "--quiet"])
        .status(exit_code::OK)
        .run();
}

/// A gate pass for each of the 64 shards, by shard.
fn gate_passes() -> Vec<String> {
    (0..64).map(gate_pass_for).collect()
}

/// How takers pick shards.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shards {
    /// Every shard of both apps in turn (by gate pass), so each moves on alike.
    InTurn,
    /// At random, as `next` without a gate pass.
    Random,
}

/// Everything the processes of a round issued and said.
#[derive(Default)]
struct Round {
    /// Every ID printed, by successful and failed runs alike.
    ids: Vec<u64>,
    /// Every run that failed, in full.
    failures: Vec<String>,
    /// The `ledger_rollbacks` entries of every `reload-segments --json`.
    ledger_rollbacks: Vec<serde_json::Value>,
    /// Every stderr line that reports a ledger behind what was taken from it.
    notices: Vec<String>,
}

/// [`Round`] being gathered from many threads.
#[derive(Default)]
struct Record {
    round: Mutex<Round>,
    issued: AtomicU64,
}

impl Record {
    fn issued(&self) -> u64 {
        self.issued.load(Ordering::SeqCst)
    }

    fn notices_of(run: &Run) -> impl Iterator<Item = String> + '_ {
        run.stderr
            .lines()
            .filter(|l| {
                let l = l.to_lowercase();
                l.contains("ledger") && l.contains("behind")
            })
            .map(str::to_string)
    }

    /// A `next` run, a failure unless it exited with one of `expected`.
    fn take(&self, run: &Run, expected: &[i32]) {
        let ids = run.ids();
        self.issued.fetch_add(ids.len() as u64, Ordering::SeqCst);
        let mut round = self.round.lock().unwrap();
        round.ids.extend(ids);
        round.notices.extend(Self::notices_of(run));
        if !run
            .status
            .code()
            .is_some_and(|code| expected.contains(&code))
        {
            round.failures.push(run.to_string());
        }
    }

    fn reload(&self, run: &Run) {
        let mut round = self.round.lock().unwrap();
        round.notices.extend(Self::notices_of(run));
        if !run.success() {
            round.failures.push(run.to_string());
            return;
        }
        let report = run.json();
        if let Some(found) = report["ledger_rollbacks"].as_array() {
            round.ledger_rollbacks.extend(found.iter().cloned());
        }
    }

    fn finish(self) -> Round {
        self.round.into_inner().unwrap()
    }
}

/// Runs `reload-segments --json` in [`RELOADERS`] loops beside `body`, until
/// `body` returns; they begin once the takers have issued `from` IDs.
fn with_reloaders<T>(
    env: &TestEnv,
    at: &Backends,
    record: &Record,
    from: u64,
    body: impl FnOnce() -> T,
) -> T {
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..RELOADERS {
            scope.spawn(|| {
                wait_until(ROUND_LIMIT, "the takers to warm up", || {
                    record.issued() >= from || stop.load(Ordering::SeqCst)
                });
                while !stop.load(Ordering::SeqCst) {
                    let run = at.test(env).args(["reload-segments", "--json"]).run();
                    record.reload(&run);
                }
            });
        }
        let _stop = StopOnDrop(&stop);
        body()
    })
}

/// Takers and reloaders on `at` until the takers have issued `target` IDs;
/// `halfway` runs once they have issued half, with both still running.
fn round(
    env: &TestEnv,
    at: &Backends,
    shards: Shards,
    target: u64,
    halfway: impl FnOnce(),
) -> Round {
    let passes = gate_passes();
    let calls = AtomicU64::new(0);
    let record = Record::default();
    let take = || {
        let n = calls.fetch_add(1, Ordering::SeqCst) as usize;
        let (app, kind) = APPS[n % APPS.len()];
        let count = COUNTS[(n / 128) % COUNTS.len()];
        let mut test = at
            .test(env)
            .args(["next", "--app", &app.to_string()])
            .args(["--count", &count.to_string()])
            .env("IDGEN_DISPENSER", kind);
        if shards == Shards::InTurn {
            test = test.args(["--gate-pass", &passes[(n / APPS.len()) % 64]]);
        }
        let run = test.run();
        record.take(&run, &[0]);
        run
    };
    take_during(TAKERS, take, |_| {
        // A cron job runs now and then, while takers run all along: each
        // shard first meets a fault through its takers.
        with_reloaders(env, at, &record, target / 4, || {
            wait_until(ROUND_LIMIT, "the takers to issue half the round", || {
                record.issued() >= target / 2
            });
            halfway();
            wait_until(ROUND_LIMIT, "the takers to issue the round", || {
                record.issued() >= target
            });
        })
    });
    record.finish()
}

/// Fails naming the first repeated ID and how many repeated, if any did.
fn assert_no_repeat(ids: &[u64]) {
    let mut seen = HashSet::with_capacity(ids.len());
    let repeated: Vec<u64> = ids.iter().copied().filter(|id| !seen.insert(*id)).collect();
    if let Some(&first) = repeated.first() {
        let (index, shard, app) = segment_parts(first);
        panic!(
            "ID {first} was issued twice (of {} IDs): {} IDs were issued more than once (the first: index {index} of shard {shard}, app {app})",
            ids.len(),
            repeated.len()
        );
    }
}

/// Fails showing the first failed runs, if any failed.
fn assert_no_failure(what: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} runs failed {what}; the first:\n{}",
        failures.len(),
        failures[..failures.len().min(3)].join("\n")
    );
}

/// `max_id` of every shard of both apps, as `(app, shard, max_id)`, from
/// `max_ids(app)` (by shard).
fn positions(max_ids: impl Fn(u8) -> Vec<u64>) -> Vec<(u8, u8, u64)> {
    APPS.iter()
        .flat_map(|&(app, _)| {
            max_ids(app)
                .into_iter()
                .enumerate()
                .map(move |(shard, max_id)| (app, shard as u8, max_id))
        })
        .collect()
}

/// [`positions`] on a test's own MariaDB.
fn ledger_positions(server: &MariadbProcess) -> Vec<(u8, u8, u64)> {
    positions(|app| server.max_ids(app))
}

/// [`positions`] on the environment's ledger.
fn env_positions(env: &TestEnv) -> Vec<(u8, u8, u64)> {
    positions(|app| (0..64).map(|shard| env.max_id(app, shard)).collect())
}

/// A precondition of a fault: every shard of both apps is at least
/// `segments` segments of `step` further in `ahead` than in `behind`.
fn assert_every_shard_ahead(
    what: &str,
    ahead: &[(u8, u8, u64)],
    behind: &[(u8, u8, u64)],
    step: u64,
    segments: u64,
) {
    assert_eq!(ahead.len(), behind.len());
    let apart: u64 = ahead
        .iter()
        .zip(behind)
        .map(|(a, b)| a.2.saturating_sub(b.2))
        .sum();
    eprintln!("{what}: {apart} indexes in all over {} shards", ahead.len());
    let short: Vec<String> = ahead
        .iter()
        .zip(behind)
        .filter(|((_, _, ahead), (_, _, behind))| behind + segments * step > *ahead)
        .map(|((app, shard, ahead), (_, _, behind))| {
            format!("app {app} shard {shard}: {ahead} against {behind}")
        })
        .collect();
    assert!(
        short.is_empty(),
        "precondition: {what}, by {segments} segments of {step} on every shard, but not on {short:?}"
    );
}

/// The segments of issue 19: small, so each shard takes many of them.
const SMALL_STEP: u64 = 10;

#[test]
fn a_lagging_replica_promoted_as_the_ledger_repeats_nothing_and_is_reported() {
    let env = TestEnv::distributed();
    let mut pair = MariadbPair::start();
    let on_primary = Backends {
        redis: env.redis_url.clone(),
        mysql: pair.primary.ledger_url(),
    };
    init_apps(&env, &on_primary, SMALL_STEP);

    // Halfway, the replica stops applying what it keeps receiving, wherever
    // its lag has left it.
    let before = round(&env, &on_primary, Shards::InTurn, chaos_ids() / 2, || {
        pair.stop_applying();
    });
    assert_no_failure("on the primary", &before.failures);
    pair.wait_received_all();
    let (applied, received) = (pair.replica_applied(), pair.replica_received());
    assert!(
        gtid_seq(&applied) < gtid_seq(&received),
        "the replica holds transactions it never applied: applied {applied}, received {received}"
    );
    let on_the_primary = ledger_positions(&pair.primary);
    pair.kill_primary();
    pair.promote_replica();
    assert_every_shard_ahead(
        "the promoted replica's ledger is behind the primary's",
        &on_the_primary,
        &ledger_positions(&pair.replica),
        SMALL_STEP,
        3,
    );

    // Redis keeps its stock; every command now uses the promoted replica.
    let on_replica = Backends {
        mysql: pair.replica.ledger_url(),
        ..on_primary
    };
    let after = round(&env, &on_replica, Shards::InTurn, chaos_ids() / 2, || {});
    let mut ids = before.ids;
    ids.extend(&after.ids);
    assert_no_repeat(&ids);
    assert_no_failure("on the promoted replica", &after.failures);
    assert!(
        !after.ledger_rollbacks.is_empty() || !after.notices.is_empty(),
        "the ledger behind what was taken from it was not reported: no `ledger_rollbacks` in any `reload-segments --json`, no stderr line naming the ledger behind"
    );
    // `status` shows the last time the witness found the ledger behind.
    let status = on_replica
        .test(&env)
        .args(["status", "--json"])
        .run()
        .json();
    let found = status["ledger_rollbacks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        found
            .first()
            .is_some_and(|r| r["shards"].as_u64() > Some(0)),
        "{status}"
    );
}

/// App 5 on the default node `main` and a second node `hot`, its ledger a
/// MariaDB primary with an asynchronous replica: the moves across a ledger
/// that goes back in time.
struct MovingApp {
    env: TestEnv,
    pair: MariadbPair,
    /// The commands' servers: the primary's ledger until [`Self::promote`].
    at: Backends,
}

impl MovingApp {
    /// App 5, every segment [`SMALL_STEP`] indexes, applied on the replica.
    fn start() -> Self {
        let env = TestEnv::distributed_with_nodes();
        let pair = MariadbPair::start();
        let at = Backends {
            redis: env.redis_url.clone(),
            mysql: pair.primary.ledger_url(),
        };
        let step = SMALL_STEP.to_string();
        at.test(&env)
            .args(["init-app", "--app", "5", "--name", "moving"])
            .args(["--step", &step, "--min-step", &step, "--max-step", &step])
            .status(exit_code::OK)
            .run();
        pair.wait_applied(&pair.primary_position());
        MovingApp { env, pair, at }
    }

    /// 500 IDs of shard 0.
    fn next(&self) -> Vec<u64> {
        self.at
            .test(&self.env)
            .args(["next", "--app", "5", "--count", "500"])
            .args(["--gate-pass", &gate_pass_for(0)])
            .status(exit_code::OK)
            .run()
            .ids()
    }

    /// `migrate --app 5 --to NODE`, to the end.
    fn migrate(&self, to: &str) {
        self.at
            .test(&self.env)
            .args(["migrate", "--app", "5", "--to", to, "--yes"])
            .status(exit_code::OK)
            .run();
    }

    /// `migrate --app 5 --to NODE`, killed at `failpoint`.
    fn migrate_killed_at(&self, to: &str, failpoint: &str) {
        let killed = self
            .at
            .test(&self.env)
            .args(["migrate", "--app", "5", "--to", to, "--yes"])
            .env("IDGEN_FAILPOINTS", failpoint)
            .run();
        assert_eq!(killed.status.signal(), Some(libc::SIGKILL), "{killed}");
    }

    /// The replica stops applying what the primary commits from now on,
    /// once it has applied everything committed so far (a command that just
    /// answered may not be applied there yet).
    fn lag(&self) {
        self.pair.wait_applied(&self.pair.primary_position());
        self.pair.stop_applying();
    }

    /// The primary killed and its replica, which received everything but
    /// applied nothing since [`Self::lag`], promoted: the ledger went back.
    fn promote(&mut self) {
        self.pair.wait_received_all();
        self.pair.kill_primary();
        self.pair.promote_replica();
        self.at.mysql = self.pair.replica.ledger_url();
    }

    /// The ledger's route for app 5: its node and the node it moves to.
    fn route(&self) -> (Option<String>, Option<String>) {
        let rows = self
            .pair
            .replica
            .query("SELECT node, target_node FROM idgen_route WHERE app_id = 5");
        rows.into_iter()
            .next()
            .map_or((None, None), |row| (row[0].clone(), row[1].clone()))
    }
}

/// The witness of what the ledger handed out lives on the node that stocked
/// each segment, so an app that moves after the ledger went back must not be
/// stocked on its new node from below what the node it leaves witnessed.
/// Found by the nemesis (`scripts/nemesis`, seed 30001): an app moved back to
/// `main` after a lagging replica was promoted served again what it had
/// served on the other node.
#[test]
fn an_app_moved_after_the_ledger_went_back_repeats_nothing() {
    let mut app = MovingApp::start();
    app.migrate("hot");

    // Taken while the replica lags: witnessed on `hot` alone.
    app.lag();
    let mut ids = app.next();
    app.promote();
    app.migrate("main");
    ids.extend(app.next());

    assert_eq!(ids.len(), 1000);
    assert_no_repeat(&ids);
}

/// A move killed after stocking its new node, then a ledger that went back
/// to before the move began: the ledger's route names the old node alone
/// again, and it hands out once more the indexes the new node was stocked
/// with. The old node must not stock them; the new node's stock, served once
/// the move is run again, must not repeat what the old node served meanwhile.
/// Found by the nemesis (`scripts/nemesis --profile distributed --seed 30001`,
/// 21 repeated IDs): seals on the nodes, not the ledger's route, now say
/// which node stocks a shard.
#[test]
fn a_move_undone_by_the_ledger_going_back_repeats_nothing() {
    let mut app = MovingApp::start();

    // The move, killed with `hot` stocked: its route and its segments are
    // committed on the primary alone.
    app.lag();
    app.migrate_killed_at("hot", "migrate.before_switch");
    app.promote();
    assert_eq!(app.route().1, None, "the move is undone");

    // Served on `main`, where the ledger now routes the app.
    let mut ids = app.next();
    app.migrate("hot");
    // Served on `hot`, from the stock the killed move left there and above.
    ids.extend(app.next());
    ids.extend(app.next());

    assert_eq!(ids.len(), 1500);
    assert_no_repeat(&ids);
}

/// A move killed between sealing a shard on the node it leaves and admitting
/// it on the new one, after the old node served indexes the ledger then
/// lost: the take that finds the seal follows it to a node whose witness
/// knows nothing of them. It carries the sealed node's witness there first,
/// so the new node stocks above them, whatever the ledger hands out.
#[test]
fn a_move_killed_between_seal_and_admit_repeats_nothing_after_the_ledger_went_back() {
    let mut app = MovingApp::start();
    // The move begun, and the replica has it.
    app.migrate_killed_at("hot", "migrate.began");
    app.pair.wait_applied(&app.pair.primary_position());

    // Served on `main` from segments the replica never applies.
    app.lag();
    let mut ids = app.next();
    app.migrate_killed_at("hot", "migrate.sealed_shard");
    app.promote();
    assert_eq!(
        app.route(),
        (Some("main".to_string()), Some("hot".to_string())),
        "the ledger still has the move under way"
    );

    // `main` is sealed for shard 0: served on `hot`.
    ids.extend(app.next());
    ids.extend(app.next());

    assert_eq!(ids.len(), 1500);
    assert_no_repeat(&ids);
}

#[test]
fn a_ledger_restored_from_an_older_dump_repeats_nothing() {
    let env = TestEnv::distributed();
    let mysql = MariadbProcess::start();
    let at = Backends {
        redis: env.redis_url.clone(),
        mysql: mysql.ledger_url(),
    };
    init_apps(&env, &at, SMALL_STEP);

    // A hot backup, halfway through the first half.
    let dump = Mutex::new(None);
    let before = round(&env, &at, Shards::InTurn, chaos_ids() / 2, || {
        *dump.lock().unwrap() = Some(mysql.dump("backup"));
    });
    assert_no_failure("before the restore", &before.failures);
    let on_the_ledger = ledger_positions(&mysql);
    mysql.restore(&dump.into_inner().unwrap().expect("the dump was taken"));
    assert_every_shard_ahead(
        "the restored ledger is behind the one it replaced",
        &on_the_ledger,
        &ledger_positions(&mysql),
        SMALL_STEP,
        3,
    );

    let after = round(&env, &at, Shards::InTurn, chaos_ids() / 2, || {});
    let mut ids = before.ids;
    ids.extend(&after.ids);
    assert_no_repeat(&ids);
    assert_no_failure("after the restore", &after.failures);
    // The pushes the witness refused dropped the indexes they had buffered.
    assert_eq!(env.push_buffers_left(), Vec::<String>::new());
}

// ---- max_limit_id lowered -------------------------------------------------------

/// Segments for the limit cases: large enough that each shard's stock spans
/// the lowered limit.
const LIMIT_STEP: u64 = 100;
/// IDs per `next` call while draining an app to its limit.
const DRAIN_COUNT: u64 = 300;
/// A shard still issuing after this many drain calls ignores its limit.
const DRAIN_CALLS: usize = 200;
/// The index that becomes the last one every shard of `app` may issue: half a
/// segment below the median shard's `max_id`, so about half the shards hold
/// stock above it and the others still have room below it.
fn lowered_last_index(env: &TestEnv, app: u8) -> u64 {
    let mut max_ids: Vec<u64> = (0..64).map(|shard| env.max_id(app, shard)).collect();
    max_ids.sort_unstable();
    max_ids[32].saturating_sub(LIMIT_STEP / 2).max(1)
}

/// Takes from every shard of both apps, with reloaders running, until each
/// says its app is exhausted (exit 4).
fn drain_until_exhausted(env: &TestEnv, at: &Backends) -> Round {
    let passes = gate_passes();
    let shards: Vec<(u8, &str, u8)> = APPS
        .iter()
        .flat_map(|&(app, kind)| (0..64).map(move |shard| (app, kind, shard)))
        .collect();
    let record = Record::default();
    with_reloaders(env, at, &record, 0, || {
        std::thread::scope(|scope| {
            for taker in 0..TAKERS {
                let (shards, passes, record) = (&shards, &passes, &record);
                scope.spawn(move || {
                    for &(app, kind, shard) in shards.iter().skip(taker).step_by(TAKERS) {
                        let ended = (0..DRAIN_CALLS).any(|_| {
                            let run = at
                                .test(env)
                                .args(["next", "--app", &app.to_string()])
                                .args(["--count", &DRAIN_COUNT.to_string()])
                                .args(["--gate-pass", &passes[shard as usize]])
                                .env("IDGEN_DISPENSER", kind)
                                .run();
                            // Exit 4 (exhausted) is the end sought, not a failure.
                            record.take(&run, &[0, i32::from(exit_code::EXHAUSTED)]);
                            run.status.code() != Some(0)
                        });
                        if !ended {
                            record.round.lock().unwrap().failures.push(format!(
                                "app {app} shard {shard} still issued after {DRAIN_CALLS} calls of {DRAIN_COUNT}"
                            ));
                        }
                    }
                });
            }
        })
    });
    record.finish()
}

/// The limit cases: IDs issued under the old limit, the limit lowered by
/// `lower(app, new_limit)`, a `reload-segments`, then every shard drained:
/// none of the IDs issued from then on is above the new limit, and none
/// repeats.
fn after_a_lowered_limit_no_id_is_above_it(lower: impl Fn(&TestEnv, u8, u64)) {
    let env = TestEnv::distributed();
    let at = Backends::of(&env);
    init_apps(&env, &at, LIMIT_STEP);
    let before = round(&env, &at, Shards::Random, chaos_ids(), || {});
    assert_no_failure("under the old limit", &before.failures);

    let limits: Vec<(u8, u64)> = APPS
        .iter()
        .map(|&(app, _)| {
            (
                app,
                limit_with_last_index(lowered_last_index(&env, app), app),
            )
        })
        .collect();
    for &(app, limit) in &limits {
        lower(&env, app, limit);
    }
    at.test(&env)
        .args(["reload-segments", "--quiet"])
        .status(exit_code::OK)
        .run();
    let after = drain_until_exhausted(&env, &at);

    let above: Vec<u64> = after
        .ids
        .iter()
        .copied()
        .filter(|&id| {
            let (_, _, app) = segment_parts(id);
            limits.iter().any(|&(a, limit)| a == app && id > limit)
        })
        .collect();
    if let Some(&first) = above.first() {
        let (index, shard, app) = segment_parts(first);
        let limit = limits.iter().find(|&&(a, _)| a == app).unwrap().1;
        panic!(
            "{} of the {} IDs issued after max_limit_id was lowered are above it; the first, {first} (index {index} of shard {shard}, app {app}), is above {limit}",
            above.len(),
            after.ids.len()
        );
    }
    let mut ids = before.ids;
    ids.extend(&after.ids);
    assert_no_repeat(&ids);
    assert_no_failure("after the limit was lowered", &after.failures);
}

#[test]
fn a_limit_lowered_by_sql_is_never_exceeded_after_a_reload() {
    after_a_lowered_limit_no_id_is_above_it(|env, app, limit| {
        env.sql(&format!(
            "UPDATE id_alloc SET max_limit_id = {limit} WHERE app_id = {app}"
        ));
    });
}

#[test]
fn a_limit_lowered_by_app_set_is_never_exceeded() {
    after_a_lowered_limit_no_id_is_above_it(|env, app, limit| {
        Test::within(env)
            .args(["app", "set", &app.to_string()])
            .args(["--max-limit-id", &limit.to_string(), "--yes"])
            .status(exit_code::OK)
            .run();
    });
}

// ---- SWAPDB ------------------------------------------------------------------------

/// Segments for the SWAPDB case: the copy holds up to a segment per shard
/// (two in a range), and each shard takes several more before the swap, so
/// the ledger has moved on from the copy: idgen can tell the copy is older
/// only by that. (A copy swapped back before any shard took a segment since
/// is indistinguishable from the live dataset, to idgen as to the ledger.)
const SWAP_STEP: u64 = 100;
/// The database the older copy is kept in, on the test's own Redis.
const COPY_DB: u8 = 9;

/// Copies every key of database 0 to [`COPY_DB`] (`COPY … DB … REPLACE`).
fn copy_every_key(redis: &RedisProcess) -> usize {
    let mut conn = redis.conn();
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut conn).unwrap();
    for key in &keys {
        let copied: bool = redis::cmd("COPY")
            .arg(key)
            .arg(key)
            .arg("DB")
            .arg(COPY_DB)
            .arg("REPLACE")
            .query(&mut conn)
            .unwrap();
        assert!(copied, "COPY {key}");
    }
    keys.len()
}

#[test]
fn a_dataset_swapped_back_to_an_older_copy_repeats_nothing_after_a_reload() {
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    let at = Backends {
        redis: redis.url(),
        mysql: env.mysql_url.clone(),
    };
    init_apps(&env, &at, SWAP_STEP);
    assert!(copy_every_key(&redis) > 0, "the stocked dataset has keys");
    let at_the_copy = env_positions(&env);

    let before = round(&env, &at, Shards::InTurn, chaos_ids() / 2, || {});
    assert_no_failure("before the swap", &before.failures);
    assert_every_shard_ahead(
        "the ledger moved on from the copy",
        &env_positions(&env),
        &at_the_copy,
        SWAP_STEP,
        2,
    );
    // The same server process, so the same run_id and replication ID.
    let run_id = redis.run_id();
    let _: () = redis::cmd("SWAPDB")
        .arg(0)
        .arg(COPY_DB)
        .query(&mut redis.conn())
        .unwrap();
    assert_eq!(redis.run_id(), run_id);
    at.test(&env)
        .args(["reload-segments", "--quiet"])
        .status(exit_code::OK)
        .run();

    let after = round(&env, &at, Shards::InTurn, chaos_ids() / 2, || {});
    let mut ids = before.ids;
    ids.extend(&after.ids);
    assert_no_repeat(&ids);
    assert_no_failure("after the swap", &after.failures);
}
