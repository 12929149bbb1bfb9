//! Redis going back in time, with real faults: a restart from an older RDB
//! snapshot, an AOF that lost its tail, a lagging replica promoted, FLUSHALL
//! and a restart without persistence under live leases. Each case runs
//! concurrent takers and ends with zero repeated IDs.
//!
//! `IDGEN_CHAOS_IDS` sets how many IDs each case issues (100 000 by default;
//! `scripts/chaos.sh` runs them with 1 000 000).

use crate::harness::faults::{Persistence, RedisProcess, TcpProxy, chaos_ids};
use crate::harness::served::{self, Served, try_get};
use crate::harness::{
    Coprocess, Test, TestEnv, assert_unique, four_worker_lease, keys, parse_ids, segment_id,
    wait_until, worker_of_four_worker_id,
};
use idgen::exit_code;
use redis::Commands;
use std::sync::Mutex;
use std::time::Duration;

const APP: &str = "7";
/// Concurrent `idgen next` processes.
const TAKERS: u64 = 4;
/// IDs per `next` call.
const BATCH: u64 = 500;

/// Runs `TAKERS` concurrent loops of `idgen next --count BATCH` against `redis`
/// until they have `total` IDs between them.
fn take(env: &TestEnv, redis: &str, kind: &str, total: u64) -> Vec<u64> {
    let ids = Mutex::new(Vec::new());
    let calls = total.div_ceil(BATCH * TAKERS);
    std::thread::scope(|scope| {
        for _ in 0..TAKERS {
            scope.spawn(|| {
                for _ in 0..calls {
                    let run = Test::within(env)
                        .args(["next", "--app", APP, "--count", &BATCH.to_string()])
                        .env("IDGEN_REDIS_URL", redis)
                        .env("IDGEN_DISPENSER", kind)
                        .status(exit_code::OK)
                        .run();
                    ids.lock().unwrap().extend(run.ids());
                }
            });
        }
    });
    ids.into_inner().unwrap()
}

/// An app whose 64 shards are stocked on `redis` with enough for the first half.
fn stocked_app(env: &TestEnv, redis: &str, kind: &str) {
    let step = (chaos_ids() / 64).max(1000).to_string();
    env.ok(&[
        "init-app",
        "--app",
        APP,
        "--name",
        "chaos",
        "--step",
        &step,
        "--max-step",
        &step,
    ]);
    Test::within(env)
        .args(["reload-segments", "--app", APP, "--quiet"])
        .env("IDGEN_REDIS_URL", redis)
        .env("IDGEN_DISPENSER", kind)
        .status(exit_code::OK)
        .run();
}

/// The second half, on the dataset after the fault: the first `next` says the
/// stock is not the one idgen stocked, and no ID of either half repeats.
fn after_the_fault(env: &TestEnv, redis: &str, kind: &str, mut ids: Vec<u64>) {
    let first = Test::within(env)
        .args(["next", "--app", APP, "--count", "100"])
        .env("IDGEN_REDIS_URL", redis)
        .env("IDGEN_DISPENSER", kind)
        .status(exit_code::OK)
        .stderr("is not the dataset idgen stocked")
        .run();
    ids.extend(first.ids());
    ids.extend(take(env, redis, kind, chaos_ids() / 2));
    assert_unique(&ids);
}

/// A replica of `master` that has had every write the master has had so far.
fn caught_up_replica_of(master: &RedisProcess) -> RedisProcess {
    let replica = RedisProcess::replica_of(master);
    let _: i64 = redis::cmd("WAIT")
        .arg(1)
        .arg(10_000)
        .query(&mut master.conn())
        .unwrap();
    replica
}

/// A long-lived allocator in this process, on `redis` and the env's MySQL.
fn allocator_on(env: &TestEnv, redis: &str) -> idgen::segment::SegmentAllocator {
    let mut settings = env.settings();
    settings.redis_nodes.insert(
        idgen::config::DEFAULT_NODE.into(),
        idgen::redact::SecretUrl::new(redis.to_string()),
    );
    idgen::backend::Backend::open(&settings)
        .unwrap()
        .allocator(&settings)
}

fn a_restart_from_an_older_snapshot_repeats_nothing(kind: &str) {
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::Snapshot);
    stocked_app(&env, &redis.url(), kind);
    let snapshot = redis.snapshot("stocked");
    let ids = take(&env, &redis.url(), kind, chaos_ids() / 2);

    redis.restart_from_snapshot(&snapshot);
    after_the_fault(&env, &redis.url(), kind, ids);
}

#[test]
fn a_restart_from_an_older_snapshot_repeats_nothing_from_a_queue() {
    a_restart_from_an_older_snapshot_repeats_nothing("queue");
}

#[test]
fn a_restart_from_an_older_snapshot_repeats_nothing_from_a_range() {
    a_restart_from_an_older_snapshot_repeats_nothing("range");
}

fn an_aof_that_lost_its_tail_repeats_nothing(kind: &str) {
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::Aof);
    stocked_app(&env, &redis.url(), kind);
    let synced = redis.aof_length();
    let ids = take(&env, &redis.url(), kind, chaos_ids() / 2);

    // A power loss: every pop after `synced` never reached the disk.
    redis.restart_with_aof_cut_to(synced);
    after_the_fault(&env, &redis.url(), kind, ids);
}

#[test]
fn an_aof_that_lost_its_tail_repeats_nothing_from_a_queue() {
    an_aof_that_lost_its_tail_repeats_nothing("queue");
}

#[test]
fn an_aof_that_lost_its_tail_repeats_nothing_from_a_range() {
    an_aof_that_lost_its_tail_repeats_nothing("range");
}

fn a_replica_promoted_after_lag_repeats_nothing(kind: &str) {
    let env = TestEnv::distributed();
    let mut master = RedisProcess::start(Persistence::None);
    stocked_app(&env, &master.url(), kind);
    let mut replica = caught_up_replica_of(&master);
    // The replica stops receiving writes; the master pops on without it.
    replica.pause();
    let ids = take(&env, &master.url(), kind, chaos_ids() / 2);
    master.kill();
    replica.resume();
    replica.promote();

    after_the_fault(&env, &replica.url(), kind, ids);
}

#[test]
fn a_replica_promoted_after_lag_repeats_nothing_from_a_queue() {
    a_replica_promoted_after_lag_repeats_nothing("queue");
}

#[test]
fn a_replica_promoted_after_lag_repeats_nothing_from_a_range() {
    a_replica_promoted_after_lag_repeats_nothing("range");
}

// ---- a master demoted and promoted again -----------------------------------------

/// IDs per shard in the demotion case: stock is 50 a shard, small enough to drain.
const STEP: &str = "50";

/// The `id.gen.*` keys of `redis`, sorted, each with its `DUMP` payload.
fn idgen_dataset(redis: &RedisProcess) -> Vec<(String, Vec<u8>)> {
    let mut conn = redis.conn();
    let mut names: Vec<String> = conn
        .scan_match::<_, String>("id.gen.*")
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    names.sort();
    names
        .into_iter()
        .map(|key| {
            let dump: Vec<u8> = redis::cmd("DUMP").arg(&key).query(&mut conn).unwrap();
            (key, dump)
        })
        .collect()
}

/// Copies every `id.gen.*` key of `from` onto `to` (`RESTORE … REPLACE`):
/// `to` holds `from`'s stock under `from`'s stamps.
fn copy_idgen_keys(from: &RedisProcess, to: &RedisProcess) {
    let mut source = from.conn();
    let mut target = to.conn();
    for (key, dump) in idgen_dataset(from) {
        let pttl: i64 = source.pttl(&key).unwrap();
        let _: () = redis::cmd("RESTORE")
            .arg(&key)
            .arg(pttl.max(0))
            .arg(dump)
            .arg("REPLACE")
            .query(&mut target)
            .unwrap();
    }
}

/// `per_shard` IDs from each of the app's 64 shards (a gate pass per shard,
/// as takers pick shards at random), one `next` per shard.
fn take_from_every_shard(env: &TestEnv, redis: &str, kind: &str, per_shard: u64) -> Vec<u64> {
    let mut ids = Vec::new();
    for shard in 0..64 {
        let pass = (0..)
            .map(|i| format!("k{i}"))
            .find(|pass| idgen::segment::shard_for_gate_pass(pass) == shard)
            .unwrap();
        let run = Test::within(env)
            .args(["next", "--app", APP, "--count", &per_shard.to_string()])
            .args(["--gate-pass", &pass])
            .env("IDGEN_REDIS_URL", redis)
            .env("IDGEN_DISPENSER", kind)
            .status(exit_code::OK)
            .run();
        ids.extend(run.ids());
    }
    ids
}

/// A master (A) demoted to a replica of B and promoted again keeps its
/// process, so its `run_id`; B holds a stale copy of A's stock, stamped by A.
/// After the round trip A must not serve that copy again.
fn a_master_demoted_and_promoted_again_repeats_nothing(kind: &str) {
    let env = TestEnv::distributed();
    let mut a = RedisProcess::start(Persistence::None);
    let b = RedisProcess::start(Persistence::None);
    env.ok(&[
        "init-app",
        "--app",
        APP,
        "--name",
        "failback",
        "--step",
        STEP,
        "--max-step",
        STEP,
    ]);
    Test::within(&env)
        .args(["reload-segments", "--app", APP, "--quiet"])
        .env("IDGEN_REDIS_URL", a.url())
        .env("IDGEN_DISPENSER", kind)
        .status(exit_code::OK)
        .run();
    copy_idgen_keys(&a, &b);
    assert_eq!(idgen_dataset(&a), idgen_dataset(&b));
    let mut conn = b.conn();
    let stamp: std::collections::HashMap<String, String> = conn.hgetall(keys::stamp(7, 0)).unwrap();
    assert!(
        stamp.values().any(|v| v.contains(&a.run_id())),
        "B holds A's stamp: {stamp:?}"
    );

    let mut ids = take_from_every_shard(&env, &a.url(), kind, 20);
    let run_id = a.run_id();
    let replid = a.info_field("replication", "master_replid");

    a.demote_to_replica_of(&b);
    crate::harness::wait_until(Duration::from_secs(30), "A to hold B's data", || {
        idgen_dataset(&a) == idgen_dataset(&b)
    });
    a.promote();
    assert_eq!(a.run_id(), run_id, "the same process, the same run_id");
    assert_ne!(
        a.info_field("replication", "master_replid"),
        replid,
        "a promotion starts a new replication history"
    );

    // Drain what is there, stock anew, and take again.
    ids.extend(take_from_every_shard(&env, &a.url(), kind, 20));
    ids.extend(take_from_every_shard(&env, &a.url(), kind, 50));
    Test::within(&env)
        .args(["reload-segments", "--app", APP, "--quiet"])
        .env("IDGEN_REDIS_URL", a.url())
        .env("IDGEN_DISPENSER", kind)
        .status(exit_code::OK)
        .run();
    ids.extend(take_from_every_shard(&env, &a.url(), kind, 20));
    assert_unique(&ids);
}

#[test]
fn a_master_demoted_and_promoted_again_repeats_nothing_from_a_queue() {
    a_master_demoted_and_promoted_again_repeats_nothing("queue");
}

#[test]
fn a_master_demoted_and_promoted_again_repeats_nothing_from_a_range() {
    a_master_demoted_and_promoted_again_repeats_nothing("range");
}

#[test]
fn reload_after_a_rollback_restocks_and_reports_it_once_per_node() {
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::Snapshot);
    stocked_app(&env, &redis.url(), "queue");
    let snapshot = redis.snapshot("stocked");
    redis.restart_from_snapshot(&snapshot);

    let run = Test::within(&env)
        .args(["reload-segments", "--app", APP])
        .env("IDGEN_REDIS_URL", redis.url())
        .status(exit_code::OK)
        .run();
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("is not the dataset idgen stocked"))
        .collect();
    assert_eq!(warnings.len(), 1, "{run}");
    assert!(warnings[0].contains("from 64 shards"), "{run}");
    let status = Test::within(&env)
        .args(["status", "--json"])
        .env("IDGEN_REDIS_URL", redis.url())
        .run();
    let report = status.json();
    let rollback = &report["redis_rollbacks"][0];
    assert_eq!(rollback["shards"], 64, "{status}");
    assert_eq!(rollback["serving"], redis.run_id(), "{status}");
}

#[test]
fn a_long_lived_client_rides_through_a_restart_without_repeating() {
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::Snapshot);
    stocked_app(&env, &redis.url(), "queue");
    let snapshot = redis.snapshot("stocked");
    let allocator = allocator_on(&env, &redis.url());
    let per_half = chaos_ids() / 2;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut ids = Vec::new();
    let issue = |ids: &mut Vec<u64>| {
        while (ids.len() as u64) < per_half {
            let issued = runtime.block_on(allocator.next(7, None, 1000)).unwrap();
            ids.extend(issued.ids);
        }
    };
    issue(&mut ids);
    redis.restart_from_snapshot(&snapshot);
    // The same allocator and connection: the first call after the restart may
    // fail while it reconnects; it never serves the restored stock.
    let mut errors = 0;
    let mut after = Vec::new();
    let mut rollbacks = 0;
    while (after.len() as u64) < per_half {
        match runtime.block_on(allocator.next(7, None, 1000)) {
            Ok(issued) => {
                rollbacks += issued.notes.rollbacks.len();
                after.extend(issued.ids);
            }
            Err(e) => {
                errors += 1;
                assert!(errors < 5, "no reconnect after {errors} errors: {e}");
            }
        }
    }
    ids.extend(after);
    assert_unique(&ids);
    assert!(rollbacks > 0, "the restored stock was noticed");
}

#[test]
fn a_failover_behind_a_proxy_that_keeps_connections_repeats_nothing() {
    let env = TestEnv::distributed();
    let mut master = RedisProcess::start(Persistence::None);
    let proxy = TcpProxy::to(&format!("127.0.0.1:{}", master.port()));
    let through_proxy = format!("redis://127.0.0.1:{}/0", proxy.port());
    stocked_app(&env, &through_proxy, "queue");
    let mut replica = caught_up_replica_of(&master);
    replica.pause();

    // One long-lived client, one connection through the proxy, all along.
    let allocator = allocator_on(&env, &through_proxy);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let half = chaos_ids() / 2;
    let mut ids = Vec::new();
    while (ids.len() as u64) < half {
        ids.extend(runtime.block_on(allocator.next(7, None, 1000)).unwrap().ids);
    }
    master.kill();
    replica.resume();
    replica.promote();
    proxy.switch_to(&format!("127.0.0.1:{}", replica.port()));

    let mut rollbacks = 0;
    let mut after = Vec::new();
    while (after.len() as u64) < half {
        let issued = runtime.block_on(allocator.next(7, None, 1000)).unwrap();
        rollbacks += issued.notes.rollbacks.len();
        after.extend(issued.ids);
    }
    ids.extend(after);
    assert_unique(&ids);
    assert!(rollbacks > 0, "the replica's stale stock was noticed");
}

// ---- leases ------------------------------------------------------------------------

/// A `lease --stdin` holder on `redis` that has acquired its worker.
fn holder(env: &TestEnv, redis: &str, namespace: &str) -> (Coprocess, u64) {
    let mut holder = env.coprocess(
        &four_worker_lease(namespace, &["--stdin", "--ttl", "3s"]),
        &[("IDGEN_REDIS_URL", redis)],
    );
    let worker = holder.acquired_worker();
    (holder, worker)
}

fn lease_ids(env: &TestEnv, redis: &str, namespace: &str, count: u64) -> (Vec<u64>, String) {
    let count = count.to_string();
    let run = Test::within(env)
        .args(four_worker_lease(namespace, &["--count", &count]))
        .env("IDGEN_REDIS_URL", redis)
        .status(exit_code::OK)
        .run();
    (run.ids(), run.stderr)
}

/// IDs from a `--stdin` holder, in requests of at most 50 000.
fn request(holder: &mut Coprocess, count: u64) -> Vec<u64> {
    let mut ids = Vec::new();
    while (ids.len() as u64) < count {
        let n = (count - ids.len() as u64).min(50_000);
        ids.extend(holder.request(n as usize));
    }
    ids
}

#[test]
fn flushall_under_a_live_lease_gives_the_next_holder_another_worker() {
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    let (mut first, worker) = holder(&env, &redis.url(), "flushed");
    let mut ids = request(&mut first, chaos_ids() / 4);
    let _: () = redis::cmd("FLUSHALL").query(&mut redis.conn()).unwrap();

    // Started at once: Redis offers every worker again, the first one included.
    let (second, stderr) = lease_ids(&env, &redis.url(), "flushed", chaos_ids() / 4);
    assert!(stderr.contains("\"restored\":1"), "{stderr}");
    assert!(
        second
            .iter()
            .all(|&id| worker_of_four_worker_id(id) != worker)
    );
    ids.extend(second);
    ids.extend(request(&mut first, chaos_ids() / 2));
    let (status, rest, stderr) = first.finish();
    assert!(status.success(), "{stderr:?}");
    assert!(!stderr.iter().any(|l| l.contains("\"lost\"")), "{stderr:?}");
    ids.extend(parse_ids(&rest));
    assert_unique(&ids);
}

#[test]
fn a_holder_puts_back_the_lease_key_a_flush_removed() {
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    let (mut holder, worker) = holder(&env, &redis.url(), "put-back");
    let mut ids = request(&mut holder, 1000);
    let _: () = redis::cmd("FLUSHALL").query(&mut redis.conn()).unwrap();
    let restored = holder.event("restored");
    assert_eq!(restored["worker"], worker);
    let key = format!("idgen:{{put-back}}:w:{worker}");
    let pttl: i64 = redis.conn().pttl(&key).unwrap();
    assert!(pttl > 0, "the key is back with an expiry: {pttl}");
    ids.extend(request(&mut holder, 1000));
    assert!(holder.finish().0.success());
    assert_unique(&ids);
}

#[test]
fn a_restart_without_persistence_under_a_live_lease_repeats_nothing() {
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::None);
    let (mut first, worker) = holder(&env, &redis.url(), "restarted");
    let mut ids = request(&mut first, chaos_ids() / 4);
    redis.restart();
    let (mut second, second_worker) = holder(&env, &redis.url(), "restarted");
    assert_ne!(second_worker, worker);
    ids.extend(request(&mut second, chaos_ids() / 4));
    ids.extend(request(&mut first, chaos_ids() / 4));
    ids.extend(request(&mut second, chaos_ids() / 4));
    assert!(first.finish().0.success());
    assert!(second.finish().0.success());
    assert_unique(&ids);
}

#[test]
fn a_count_holder_paused_through_a_flush_repeats_nothing() {
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    // More than one batch (65,536), so the holder issues again after the flush.
    let paused_count = (chaos_ids() / 2).max(150_000);
    let count = paused_count.to_string();
    let mut paused = Test::within(&env)
        .args(four_worker_lease("paused", &["--count", &count]))
        .env("IDGEN_REDIS_URL", redis.url())
        .env("IDGEN_FAILPOINTS", "lease.between_batches=stop")
        .command();
    paused
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = paused.spawn().unwrap();
    let pid = child.id() as i32;
    // Read its output all along, so that a full pipe never blocks it.
    let run = std::thread::spawn(move || crate::harness::Run::wait(child));
    crate::harness::wait_until_stopped(pid, "the holder to stop at its failpoint");
    let _: () = redis::cmd("FLUSHALL").query(&mut redis.conn()).unwrap();
    let (mut ids, _) = lease_ids(&env, &redis.url(), "paused", chaos_ids() / 2);
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let run = run.join().unwrap();
    assert!(run.success(), "{run}");
    ids.extend(run.ids());
    assert_eq!(ids.len() as u64, paused_count + chaos_ids() / 2);
    assert_unique(&ids);
}

#[test]
fn a_holder_waits_out_an_outage_of_both_backends_and_carries_on() {
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    let redis_proxy = TcpProxy::to(&format!("127.0.0.1:{}", redis.port()));
    let mysql_address = env
        .mysql_url
        .trim_start_matches("mysql://")
        .split_once('@')
        .map_or("", |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let mysql_proxy = TcpProxy::to(&mysql_address);
    let database = env.mysql_url.rsplit('/').next().unwrap();
    let mysql_url = format!("mysql://root@127.0.0.1:{}/{database}", mysql_proxy.port());
    let redis_url = format!("redis://127.0.0.1:{}/0", redis_proxy.port());
    let mut holder = env.coprocess(
        &[
            "lease",
            "--stdin",
            "--json",
            "--namespace",
            "outage",
            "--ttl",
            "1s",
        ],
        &[
            ("IDGEN_REDIS_URL", &redis_url),
            ("IDGEN_MYSQL_URL", &mysql_url),
            ("IDGEN_TIMEOUT", "300ms"),
        ],
    );
    holder.event("acquired");
    let mut ids = request(&mut holder, 10_000);

    redis_proxy.cut();
    mysql_proxy.cut();
    // Renewals run every third of the 1s TTL; once four in a row have failed,
    // more than a TTL has passed since the last proof of the lease.
    for _ in 0..4 {
        holder.event("renew_failed");
    }
    // Asked now, nothing comes until a lease is proven again.
    holder.send("1000");
    holder.event("waiting");
    let asked = 1000;
    redis_proxy.restore();
    mysql_proxy.restore();
    ids.extend((0..asked).map(|_| holder.read_id()));
    ids.extend(request(&mut holder, 10_000));
    let (status, rest, _) = holder.finish();
    assert!(status.success());
    ids.extend(parse_ids(&rest));
    assert_unique(&ids);
}

#[test]
fn the_java_algorithm_cannot_pop_a_rollback_idgen_retired() {
    // After a rollback the first idgen touch retires the stale stock, so a
    // Java-style LPOP that comes later finds nothing to re-serve.
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::Snapshot);
    stocked_app(&env, &redis.url(), "queue");
    let snapshot = redis.snapshot("stocked");
    let mut ids = take(&env, &redis.url(), "queue", 20_000);
    redis.restart_from_snapshot(&snapshot);
    Test::within(&env)
        .args(["reload-segments", "--app", APP, "--quiet"])
        .env("IDGEN_REDIS_URL", redis.url())
        .status(exit_code::OK)
        .run();
    let mut conn = redis.conn();
    for shard in 0..64 {
        let popped: Option<String> = conn.lpop(keys::queue(7, shard), None).unwrap();
        let index: u64 = popped.expect("restocked").parse().unwrap();
        ids.push(segment_id(index, shard, 7));
    }
    assert_unique(&ids);
}

/// The last index in each of app `APP`'s queues on `redis`: a push changes
/// it, a pop never does.
fn queue_tails(redis: &RedisProcess) -> Vec<Option<String>> {
    let app: u8 = APP.parse().unwrap();
    (0..64)
        .map(|shard| {
            let queue = keys::queue(app, shard);
            redis::cmd("LINDEX")
                .arg(queue)
                .arg(-1)
                .query::<Option<String>>(&mut redis.conn())
                .unwrap()
        })
        .collect()
}

/// A warm take in `serve` pops stock that another server process stocked,
/// and is held before it retires it. Meanwhile the server restarts again,
/// another request reconnects the node to the new process, and every shard
/// is stocked there afresh. The held take's retire must not run on that new
/// connection: there it would take the new server for the one it popped
/// from, retire stock the new server stocked itself (a gap) and stamp the
/// shard for a server that is gone. It runs on the connection it popped
/// over, which died with its server: the take fails, nothing is retired.
#[test]
fn a_held_warm_take_never_retires_stock_a_newer_server_stocked() {
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::Snapshot);
    stocked_app(&env, &redis.url(), "queue");
    let snapshot = redis.snapshot("stocked");
    let hold = tempfile::tempdir().unwrap();
    let served = Served::start_with(
        &env,
        &["--buffer", "0"],
        &[
            ("IDGEN_REDIS_URL", redis.url().as_str()),
            ("IDGEN_FAILPOINTS", "take.before_retire=pause"),
            ("IDGEN_FAILPOINT_DIR", hold.path().to_str().unwrap()),
        ],
        Some(200),
    );
    let port = served.port;
    let get = move || try_get(port, &format!("/api/segment/get/{APP}"), &[]).unwrap();
    let id_of = |reply: &served::Reply| {
        (reply.status == 200).then(|| reply.body.trim().parse::<u64>().unwrap())
    };

    // Every shard's stamp now names the process before this one.
    redis.restart_from_snapshot(&snapshot);
    let paused = hold.path().join("take.before_retire.paused");
    // Requests one at a time: the first after the restart finds the link
    // dead, and one after it pops stale stock on a new link and is held.
    let watched = paused.clone();
    let held = std::thread::spawn(move || {
        let mut ids = Vec::new();
        loop {
            ids.extend(id_of(&get()));
            if watched.exists() {
                return ids;
            }
        }
    });
    wait_until(
        Duration::from_secs(60),
        "a warm take held before its retire",
        || paused.exists(),
    );

    // The server it popped from goes; a request reconnects to the new one,
    // where every shard is then stocked anew (its stale stock retired).
    redis.restart_from_snapshot(&snapshot);
    let mut ids = Vec::new();
    wait_until(
        Duration::from_secs(30),
        "serve to take from the new server",
        || {
            let taken = id_of(&get());
            ids.extend(taken);
            taken.is_some()
        },
    );
    ids.extend(take_from_every_shard(&env, &redis.url(), "queue", 1));
    let stocked = queue_tails(&redis);

    std::fs::write(hold.path().join("take.before_retire.go"), b"").unwrap();
    ids.extend(held.join().unwrap());
    assert_eq!(
        queue_tails(&redis),
        stocked,
        "the held take retired (and restocked) stock the new server had stocked"
    );
    ids.extend((0..20).filter_map(|_| id_of(&get())));
    assert!(ids.len() > 64, "{} IDs", ids.len());
    assert_unique(&ids);
}
