//! A Redis that is not the master never serves, locks or pushes (issue 19).
//!
//! With `replica-read-only no` (a real setting, used for scratch keys) a
//! replica takes writes, so a pop or a refill on it goes through while its
//! master serves the same stock. A master demoted by `REPLICAOF` or by Redis's
//! own `FAILOVER` keeps its client connections, so a long-lived client (`idgen
//! serve`, the library) keeps talking to it while others take from the new
//! master. Each case runs concurrent takers on both servers at once, with
//! both dispensers, and ends with zero repeated IDs; the demoted server's
//! clients get a retryable error naming it, and ride through once it is the
//! master again.
//!
//! `IDGEN_CHAOS_IDS` sets how many IDs each case issues (100 000 by default).

use crate::harness::faults::{Persistence, RedisProcess, chaos_ids};
use crate::harness::served::{Served, try_get};
use crate::harness::takers::take_during;
use crate::harness::{Test, TestEnv, assert_unique, parse_ids, wait_until};
use idgen::exit_code;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

const APP: &str = "7";
/// Concurrent `idgen next` processes on each server.
const TAKERS: usize = 3;
/// IDs per `next` call and per HTTP request.
const BATCH: u64 = 500;
/// How long a phase may take to collect its IDs before the test fails: 5
/// minutes, more for a chaos run of millions.
fn phase_limit() -> Duration {
    Duration::from_secs(300).max(Duration::from_millis(3 * chaos_ids()))
}

/// App 7, recording dispenser `kind`, stocked on `redis` (the master).
fn stocked_app(env: &TestEnv, redis: &str, kind: &str) {
    let step = (chaos_ids() / 64).max(1000).to_string();
    Test::within(env)
        .args(["init-app", "--app", APP, "--name", "demotion"])
        .args(["--step", &step, "--max-step", &step])
        .env("IDGEN_DISPENSER", kind)
        .status(exit_code::OK)
        .run();
    Test::within(env)
        .args(["reload-segments", "--app", APP, "--quiet"])
        .env("IDGEN_REDIS_URL", redis)
        .env("IDGEN_DISPENSER", kind)
        .status(exit_code::OK)
        .run();
}

/// `idgen next --app 7 --count BATCH` on `redis`.
fn next_on<'e>(env: &'e TestEnv, redis: &str, kind: &str) -> Test<'e> {
    Test::within(env)
        .args(["next", "--app", APP, "--count", &BATCH.to_string()])
        .env("IDGEN_REDIS_URL", redis)
        .env("IDGEN_DISPENSER", kind)
}

/// What a server that is not the master answers, naming it and its master.
fn not_the_master(master: &RedisProcess) -> String {
    format!(
        "is not the master: it is a replica of 127.0.0.1:{}",
        master.port()
    )
}

// ---- long-lived clients through the phases of a demotion ----------------------------

/// The phases of a demotion, in order; roles change only in `CHANGING`.
const MASTER: usize = 0;
const CHANGING: usize = 1;
const DEMOTED: usize = 2;
const MASTER_AGAIN: usize = 3;

/// One call of a long-lived client: the phases it began and ended in, and
/// its IDs or its error.
struct Call {
    began: usize,
    ended: usize,
    outcome: Result<Vec<u64>, String>,
}

/// What the test's `during` sees while the clients call.
struct Clients {
    phase: AtomicUsize,
    ids: AtomicU64,
}

impl Clients {
    /// Calls that begin from now on are in `phase`.
    fn enter(&self, phase: usize) {
        self.phase.store(phase, Ordering::SeqCst);
    }

    /// Waits until the clients have `more` IDs beyond what they had.
    fn wait_for_more(&self, more: u64, what: &str) {
        let target = self.ids.load(Ordering::SeqCst) + more;
        wait_until(phase_limit(), what, || {
            self.ids.load(Ordering::SeqCst) >= target
        });
    }
}

/// Runs `threads` loops of `call`, one long-lived client's calls, until
/// `during` returns; each call is tagged with the phases it began and ended in.
fn calls_during<T>(
    threads: usize,
    call: impl Fn() -> Result<Vec<u64>, String> + Sync,
    during: impl FnOnce(&Clients) -> T,
) -> (Vec<Call>, T) {
    let calls = Mutex::new(Vec::new());
    let stop = std::sync::atomic::AtomicBool::new(false);
    let clients = Clients {
        phase: AtomicUsize::new(MASTER),
        ids: AtomicU64::new(0),
    };
    let outcome = std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while !stop.load(Ordering::SeqCst) {
                    let began = clients.phase.load(Ordering::SeqCst);
                    let outcome = call();
                    let ended = clients.phase.load(Ordering::SeqCst);
                    if let Ok(ids) = &outcome {
                        clients.ids.fetch_add(ids.len() as u64, Ordering::SeqCst);
                    }
                    calls.lock().unwrap().push(Call {
                        began,
                        ended,
                        outcome,
                    });
                }
            });
        }
        let _stop = crate::harness::StopOnDrop(&stop);
        during(&clients)
    });
    (calls.into_inner().unwrap(), outcome)
}

/// Says how many IDs a case issued and how many of them repeat (shown with
/// `--nocapture`, and by `scripts/chaos.sh`), then asserts there are none.
fn assert_no_repeats(case: &str, ids: &[u64]) {
    let distinct: std::collections::HashSet<u64> = ids.iter().copied().collect();
    eprintln!(
        "{case}: {} IDs, {} issued twice",
        ids.len(),
        ids.len() - distinct.len()
    );
    assert_unique(ids);
}

/// Every ID the calls got.
fn ids_of(calls: &[Call]) -> Vec<u64> {
    calls
        .iter()
        .filter_map(|c| c.outcome.as_ref().ok())
        .flatten()
        .copied()
        .collect()
}

/// The demoted server served nothing: every call made wholly while it was a
/// replica failed, with `error` in its message; and there were such calls.
fn assert_refused_while_demoted(calls: &[Call], error: &str) {
    let demoted: Vec<&Call> = calls
        .iter()
        .filter(|c| c.began == DEMOTED && c.ended == DEMOTED)
        .collect();
    assert!(!demoted.is_empty(), "no call was made while demoted");
    let served: usize = demoted
        .iter()
        .filter_map(|c| c.outcome.as_ref().ok())
        .map(Vec::len)
        .sum();
    assert_eq!(served, 0, "the demoted server served {served} IDs");
    for call in demoted {
        let message = call.outcome.as_ref().unwrap_err();
        assert!(message.contains(error), "{message}");
    }
}

/// Rode through: calls made wholly after the server was the master again got IDs.
fn assert_served_again(calls: &[Call]) {
    let again = calls
        .iter()
        .filter(|c| c.began == MASTER_AGAIN && c.outcome.is_ok())
        .count();
    assert!(again > 0, "no call succeeded once it was the master again");
}

/// A long-lived client of `idgen serve` on `port`: one list request per call.
fn serve_call(port: u16) -> impl Fn() -> Result<Vec<u64>, String> + Sync {
    move || {
        let reply = try_get(port, &format!("/api/segment/list/{APP}/{BATCH}"), &[])
            .map_err(|e| format!("no HTTP answer: {e}"))?;
        match reply.status {
            200 => Ok(parse_ids(&reply.body)),
            status => Err(format!("{status} {}", reply.body)),
        }
    }
}

/// `idgen serve` on `redis`, serving app 7's dispenser `kind`, without its
/// buffer: every request takes from Redis, so an answer while the server is
/// demoted could only come from the replica. (A buffer holds IDs issued
/// while it was the master, which it may still hand out: not a repeat.)
fn serve_on(env: &TestEnv, redis: &RedisProcess, kind: &str) -> Served {
    let url = redis.url();
    let vars = [("IDGEN_REDIS_URL", url.as_str()), ("IDGEN_DISPENSER", kind)];
    Served::start_with(env, &["--buffer", "0"], &vars, Some(200))
}

/// `next` takers on `redis` (the new master) until they have `count` IDs.
fn take_on_new_master(env: &TestEnv, redis: &RedisProcess, kind: &str, count: u64) -> Vec<u64> {
    let url = redis.url();
    let taken = take_during(
        TAKERS,
        || next_on(env, &url, kind).run(),
        |takers| {
            wait_until(phase_limit(), "the new master's takers", || {
                takers.taken() * BATCH >= count
            })
        },
    );
    assert!(taken.failures.is_empty(), "{}", taken.failures[0]);
    taken.ids
}

/// A master (A, writable once demoted) with a writable replica (B), and app 7
/// stocked on A.
fn master_and_writable_replica(env: &TestEnv, kind: &str) -> (RedisProcess, RedisProcess) {
    let a = RedisProcess::start(Persistence::None).writable_as_replica();
    let b = RedisProcess::replica_of(&a).writable_as_replica();
    stocked_app(env, &a.url(), kind);
    (a, b)
}

// ---- a writable replica beside its master --------------------------------------------

fn a_writable_replica_beside_its_master_serves_nothing(kind: &str) {
    let env = TestEnv::distributed();
    let (master, replica) = master_and_writable_replica(&env, kind);
    let (master_url, replica_url) = (master.url(), replica.url());

    // Takers on both at once, until the master's have issued the case's IDs.
    let on_master = take_during(
        TAKERS,
        || next_on(&env, &master_url, kind).run(),
        |masters| {
            take_during(
                TAKERS,
                || next_on(&env, &replica_url, kind).run(),
                |_| {
                    wait_until(phase_limit(), "the master's takers", || {
                        masters.taken() * BATCH >= chaos_ids()
                    })
                },
            )
        },
    );
    let on_replica = on_master.outcome;
    let mut ids = on_master.ids;
    ids.extend(&on_replica.ids);
    assert_no_repeats(
        &format!("a writable replica beside its master ({kind})"),
        &ids,
    );
    assert!(on_master.failures.is_empty(), "{}", on_master.failures[0]);
    assert!(on_replica.ids.is_empty(), "the replica served IDs");
    for failure in &on_replica.failures {
        assert!(failure.contains("exit status: 5"), "{failure}");
        assert!(failure.contains(&not_the_master(&master)), "{failure}");
    }
    next_on(&env, &replica_url, kind)
        .status(exit_code::UNAVAILABLE)
        .one_line_error(format!(
            "Redis node \"main\" at {replica_url} {}",
            not_the_master(&master)
        ))
        .run();
}

#[test]
fn a_writable_replica_beside_its_master_serves_nothing_from_a_queue() {
    a_writable_replica_beside_its_master_serves_nothing("queue");
}

#[test]
fn a_writable_replica_beside_its_master_serves_nothing_from_a_range() {
    a_writable_replica_beside_its_master_serves_nothing("range");
}

// ---- a master demoted under idgen serve, by REPLICAOF or Redis's own FAILOVER -----------

/// How the master role moves from one node to the other.
#[derive(Clone, Copy)]
enum Handover {
    /// `REPLICAOF NO ONE` on the replica, then `REPLICAOF` on the old master.
    Replicaof,
    /// Redis's own `FAILOVER TO`, which demotes the master itself.
    Failover,
}

impl Handover {
    fn name(self) -> &'static str {
        match self {
            Handover::Replicaof => "REPLICAOF",
            Handover::Failover => "FAILOVER",
        }
    }

    /// `from` hands the master role to `to`.
    fn hand(self, from: &mut RedisProcess, to: &mut RedisProcess) {
        match self {
            Handover::Replicaof => {
                to.promote();
                from.demote_to_replica_of(to);
            }
            Handover::Failover => from.fail_over_to(to),
        }
    }
}

/// `call` from two threads all along while A hands the master role to B,
/// which `next` takers use meanwhile, and then takes it back. Every call, and
/// every ID issued (by the calls and on B), checked for repeats.
fn through_a_handover(
    env: &TestEnv,
    kind: &str,
    (a, b): (&mut RedisProcess, &mut RedisProcess),
    handover: Handover,
    who: &str,
    call: impl Fn() -> Result<Vec<u64>, String> + Sync,
) -> Vec<Call> {
    let quarter = chaos_ids() / 4;
    let (calls, on_b) = calls_during(2, call, |clients| {
        clients.wait_for_more(quarter, &format!("{who}'s IDs from the master"));
        clients.enter(CHANGING);
        handover.hand(a, b);
        clients.enter(DEMOTED);
        let on_b = take_on_new_master(env, b, kind, 2 * quarter);
        clients.enter(CHANGING);
        handover.hand(b, a);
        clients.enter(MASTER_AGAIN);
        clients.wait_for_more(quarter, &format!("{who}'s IDs from the master again"));
        on_b
    });
    let mut ids = ids_of(&calls);
    ids.extend(on_b);
    assert_no_repeats(
        &format!("{who} through a {} ({kind})", handover.name()),
        &ids,
    );
    assert!(ids.len() as u64 >= chaos_ids());
    calls
}

/// A (serve's) hands the master role to B and takes it back: serve refuses
/// while A is a replica, naming no host, and serves again after.
fn a_master_demoted_under_serve_serves_nothing(kind: &str, handover: Handover) {
    let env = TestEnv::distributed();
    let (mut a, mut b) = master_and_writable_replica(&env, kind);
    let served = serve_on(&env, &a, kind);
    let call = serve_call(served.port);
    let calls = through_a_handover(&env, kind, (&mut a, &mut b), handover, "serve", call);
    assert_refused_while_demoted(&calls, "503 {\"code\":\"unavailable\"");
    // serve's answers name no host: not the new master's address either.
    assert_refused_while_demoted(&calls, "Redis is not the master: it is a replica\"");
    assert_served_again(&calls);
}

#[test]
fn a_master_demoted_by_replicaof_under_serve_serves_nothing_from_a_queue() {
    a_master_demoted_under_serve_serves_nothing("queue", Handover::Replicaof);
}

#[test]
fn a_master_demoted_by_replicaof_under_serve_serves_nothing_from_a_range() {
    a_master_demoted_under_serve_serves_nothing("range", Handover::Replicaof);
}

#[test]
fn a_master_demoted_by_failover_under_serve_serves_nothing_from_a_queue() {
    a_master_demoted_under_serve_serves_nothing("queue", Handover::Failover);
}

#[test]
fn a_master_demoted_by_failover_under_serve_serves_nothing_from_a_range() {
    a_master_demoted_under_serve_serves_nothing("range", Handover::Failover);
}

/// A long-lived allocator in this process, on `redis` and the env's MySQL.
fn allocator_on(env: &TestEnv, redis: &str, kind: &str) -> idgen::segment::SegmentAllocator {
    let mut settings = env.settings();
    settings.redis_nodes.insert(
        idgen::config::DEFAULT_NODE.into(),
        idgen::redact::SecretUrl::new(redis.to_string()),
    );
    settings.dispenser = idgen::segment::DispenserKind::parse(kind).unwrap();
    idgen::backend::Backend::open(&settings)
        .unwrap()
        .allocator(&settings)
}

/// The library's allocator on A, called from two threads all along, while A
/// hands the master role to B by `FAILOVER` and takes it back.
fn a_library_client_rides_through_a_failover_without_serving_from_the_replica(kind: &str) {
    let env = TestEnv::distributed();
    let (mut a, mut b) = master_and_writable_replica(&env, kind);
    let allocator = allocator_on(&env, &a.url(), kind);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let call = || match runtime.block_on(allocator.next(7, None, BATCH)) {
        Ok(issued) => Ok(issued.ids),
        Err(e) => Err(format!("{:?}: {e}", e.kind())),
    };
    let handover = Handover::Failover;
    let calls = through_a_handover(&env, kind, (&mut a, &mut b), handover, "the library", call);
    assert_refused_while_demoted(&calls, "Unavailable: Redis node \"main\"");
    assert_refused_while_demoted(&calls, &not_the_master(&b));
    assert_served_again(&calls);
}

#[test]
fn a_library_client_rides_through_a_failover_without_serving_from_the_replica_from_a_queue() {
    a_library_client_rides_through_a_failover_without_serving_from_the_replica("queue");
}

#[test]
fn a_library_client_rides_through_a_failover_without_serving_from_the_replica_from_a_range() {
    a_library_client_rides_through_a_failover_without_serving_from_the_replica("range");
}
