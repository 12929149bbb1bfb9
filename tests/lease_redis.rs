//! Worker-ID leases on Redis alone (seed 000: no database), and Redis as the
//! witness of the fences MySQL records on Redis + MySQL.
//!
//! On Redis alone a dataset Redis cannot prove continuous (FLUSHALL, a restart
//! without persistence, a new namespace) starts a quarantine: the longest TTL
//! plus a margin before any new lease issues. The fault cases run real
//! redis-servers of their own and collect `IDGEN_CHAOS_IDS` IDs (100 000 by
//! default) from two holders.

use crate::harness::cluster::Cluster;
use crate::harness::faults::{PacketDrop, Persistence, RedisProcess, TcpProxy, chaos_ids};
use crate::harness::sentinel::SentinelGroup;
use crate::harness::{
    Coprocess, StopOnDrop, Test, TestEnv, acquired_worker, assert_unique, keys, parse_ids,
    wait_until,
};
use idgen::exit_code;
use idgen::layout::{FieldKind, Layout};
use redis::Commands;
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::ExitStatusExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A layout with two worker IDs: two holders share the namespace, and a
/// holder that loses its worker may get the other one's. Its 64 IDs per
/// millisecond spread a holder's IDs over time, so that two holders that
/// overlapped would show it.
const TWO_WORKERS: &str = "time:56,worker:1,seq:6";
const TWO_WORKERS_EPOCH: &str = "2024-01-01";

fn two_workers() -> Layout {
    let epoch = idgen::layout::parse_epoch(TWO_WORKERS_EPOCH).unwrap();
    Layout::custom(TWO_WORKERS, None, Some(epoch)).unwrap()
}

fn worker_of(id: u64) -> u64 {
    two_workers()
        .decompose(id)
        .unwrap()
        .get(FieldKind::Worker)
        .unwrap()
}

fn time_of(id: u64) -> i64 {
    two_workers().decompose(id).unwrap().unix_ms.unwrap()
}

/// `lease --json` in `namespace` of [`TWO_WORKERS`] with a 1s TTL, then `how`.
fn two_worker_lease<'a>(namespace: &'a str, how: &[&'a str]) -> Vec<&'a str> {
    let mut args = two_worker_lease_for(namespace, "1s");
    args.extend_from_slice(how);
    args
}

/// `lease --json` in `namespace` of [`TWO_WORKERS`] with a TTL of `ttl`.
fn two_worker_lease_for<'a>(namespace: &'a str, ttl: &'a str) -> Vec<&'a str> {
    vec![
        "lease",
        "--json",
        "--namespace",
        namespace,
        "--bits",
        TWO_WORKERS,
        "--epoch",
        TWO_WORKERS_EPOCH,
        "--ttl",
        ttl,
    ]
}

/// A run of idgen with Redis at `redis` and no MySQL.
fn on_redis_alone<'e>(env: &'e TestEnv, redis: &str) -> Test<'e> {
    Test::within(env)
        .unset("IDGEN_MYSQL_URL")
        .env("IDGEN_REDIS_URL", redis)
}

/// A `lease --stdin` holder on Redis alone that has acquired its worker.
fn holder_alone(env: &TestEnv, redis: &str, namespace: &str) -> (Coprocess, u64) {
    let mut cmd = env.idgen();
    cmd.env_remove("IDGEN_MYSQL_URL")
        .env("IDGEN_REDIS_URL", redis)
        .args(two_worker_lease(namespace, &["--stdin"]));
    let mut holder = Coprocess::spawn(cmd);
    let worker = holder.acquired_worker();
    (holder, worker)
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

/// The time units each worker issued, by one holder's IDs.
fn units_by_worker(ids: &[u64]) -> BTreeMap<u64, BTreeSet<i64>> {
    let mut units: BTreeMap<u64, BTreeSet<i64>> = BTreeMap::new();
    for &id in ids {
        units.entry(worker_of(id)).or_default().insert(time_of(id));
    }
    units
}

/// No two holders used one worker in overlapping time: the span in which the
/// second holder (a single lease) issued under a worker holds no time unit the
/// first holder issued under it, and the second started after everything the
/// first issued under that worker before the fault.
fn assert_no_overlap(first_before: &[u64], first_after: &[u64], second: &[u64]) {
    let before = units_by_worker(first_before);
    let first: Vec<u64> = first_before.iter().chain(first_after).copied().collect();
    let first = units_by_worker(&first);
    for (worker, units) in units_by_worker(second) {
        let (start, end) = (*units.first().unwrap(), *units.last().unwrap());
        if let Some(used) = first.get(&worker) {
            assert!(
                used.range(start..=end).next().is_none(),
                "both holders issued under worker {worker} within {start}..={end}"
            );
        }
        if let Some(last_before) = before.get(&worker).and_then(|u| u.last()) {
            assert!(
                start > *last_before,
                "the second holder of worker {worker} started at {start}, not after {last_before}"
            );
        }
    }
}

/// [`assert_no_overlap`], and no ID issued twice among all three: how many
/// IDs there were.
fn assert_held_apart(first_before: &[u64], first_after: &[u64], second: &[u64]) -> usize {
    assert_no_overlap(first_before, first_after, second);
    let all: Vec<u64> = first_before
        .iter()
        .chain(first_after)
        .chain(second)
        .copied()
        .collect();
    assert_unique(&all);
    all.len()
}

/// The IDs of a `lease --count` holder started now on Redis alone.
fn lease_alone(env: &TestEnv, redis: &str, namespace: &str, count: u64) -> (Vec<u64>, String) {
    let count = count.to_string();
    let run = on_redis_alone(env, redis)
        .args(two_worker_lease(namespace, &["--count", &count]))
        .status(exit_code::OK)
        .run();
    (run.ids(), run.stderr)
}

/// A live holder, a fault, and a second holder started at once while the
/// first goes on asking for IDs: together they issue `chaos_ids()` IDs
/// (at least) without a repeat, and never under one worker at the same time. The first
/// holder of a new namespace gets worker 0, and so does the first after a
/// flush: both want the same worker.
fn a_fault_under_a_live_holder_repeats_nothing<T>(
    persistence: Persistence,
    before: impl FnOnce(&RedisProcess) -> T,
    fault: impl FnOnce(&mut RedisProcess, T),
) {
    a_fault_under_a_live_holder_on(RedisProcess::start(persistence), before, fault);
}

/// [`a_fault_under_a_live_holder_repeats_nothing`] on a server the caller
/// started (and set up).
fn a_fault_under_a_live_holder_on<T>(
    mut redis: RedisProcess,
    before: impl FnOnce(&RedisProcess) -> T,
    fault: impl FnOnce(&mut RedisProcess, T),
) {
    let env = TestEnv::distributed();
    let (mut first, _) = holder_alone(&env, &redis.url(), "alone");
    let kept = before(&redis);
    let first_before = request(&mut first, chaos_ids() / 4);
    fault(&mut redis, kept);

    let url = redis.url();
    let second_done = AtomicBool::new(false);
    let ((second, stderr), mut first_after) = std::thread::scope(|scope| {
        let second = scope.spawn(|| {
            let _done = StopOnDrop(&second_done);
            lease_alone(&env, &url, "alone", chaos_ids() / 4)
        });
        // Small requests all along, so the first holder issues for as long as
        // the second one runs.
        let mut ids = Vec::new();
        while (ids.len() as u64) < chaos_ids() / 2 || !second_done.load(Ordering::SeqCst) {
            ids.extend(first.request(1000));
        }
        (second.join().unwrap(), ids)
    });
    assert!(stderr.contains("\"quarantined\""), "{stderr}");
    let (status, rest, stderr) = first.finish();
    assert!(status.success(), "{stderr:?}");
    first_after.extend(parse_ids(&rest));

    let issued = assert_held_apart(&first_before, &first_after, &second);
    assert!(issued as u64 >= chaos_ids());
}

#[test]
fn flushall_under_a_live_holder_on_redis_alone_repeats_nothing() {
    a_fault_under_a_live_holder_repeats_nothing(
        Persistence::None,
        |_| (),
        |redis, ()| {
            let _: () = redis::cmd("FLUSHALL").query(&mut redis.conn()).unwrap();
        },
    );
}

#[test]
fn an_empty_restart_under_a_live_holder_on_redis_alone_repeats_nothing() {
    a_fault_under_a_live_holder_repeats_nothing(
        Persistence::None,
        |_| (),
        |redis, ()| redis.restart(),
    );
}

#[test]
fn a_restart_that_kept_every_key_under_a_live_holder_on_redis_alone_repeats_nothing() {
    // As after an AOF synced on every write, or a failover to a replica that
    // had caught up: the keys are intact, the server process is another.
    a_fault_under_a_live_holder_repeats_nothing(
        Persistence::Snapshot,
        |_| (),
        |redis, ()| {
            let snapshot = redis.snapshot("current");
            redis.restart_from_snapshot(&snapshot);
        },
    );
}

#[test]
fn a_restart_from_an_older_snapshot_under_a_live_holder_on_redis_alone_repeats_nothing() {
    // The snapshot holds the namespace's record and the first holder's lease,
    // from before it issued: the record names the old server process.
    a_fault_under_a_live_holder_repeats_nothing(
        Persistence::Snapshot,
        |redis| redis.snapshot("leased"),
        |redis, snapshot| redis.restart_from_snapshot(&snapshot),
    );
}

#[test]
fn evicted_fences_under_a_live_holder_on_redis_alone_repeat_nothing() {
    // A server with a memory limit and an `allkeys-*` policy evicts keys one
    // at a time, whichever its policy picks: here the worker fences and the
    // live holder's own key, used least, while the namespace's record, used
    // most, stays. Before the record noted that fences exist, the second
    // holder got worker 0 with no fence and issued beside the first.
    let redis = RedisProcess::start(Persistence::None);
    evicting_the_least_used(&redis);
    a_fault_under_a_live_holder_on(
        redis,
        |_| (),
        |redis, ()| evict_the_fences_of(redis, "alone"),
    );
}

#[test]
fn a_split_brain_on_redis_alone_repeats_nothing() {
    // A master cut off from its replica, which is promoted (as Sentinels
    // that lost the master promote it), while the old master, told nothing,
    // keeps its clients: it still answers as master of its own history. The
    // first holder stays on it, the second leases on the promoted one. The
    // split lasts longer than the quarantine the promoted one imposes (the
    // TTL and the margin, 2 s): before a lease counted only once its replica
    // had it, the old master went on renewing the first holder's lease while
    // the second issued under the same worker.
    let env = TestEnv::distributed();
    let mut old = RedisProcess::start(Persistence::None);
    let mut new = RedisProcess::replica_of(&old);
    // The first holder reaches the master by a name that follows it (a
    // managed endpoint), so it can go on once the split heals.
    let (endpoint, through) = TcpProxy::for_url(&old.url());
    let (mut first, _) = holder_alone(&env, &through, "split");
    let first_before = request(&mut first, chaos_ids() / 4);

    let link = replication_link_port(&old);
    let partition = [
        PacketDrop::from_port_to_port(old.port(), link),
        PacketDrop::from_port_to_port(link, old.port()),
    ];
    new.promote();

    let second_done = AtomicBool::new(false);
    let url = new.url();
    let ((second, refused), first_during) = std::thread::scope(|scope| {
        let second = scope.spawn(|| {
            let _done = StopOnDrop(&second_done);
            lease_alone_retrying(&env, &url, "split", chaos_ids() / 4)
        });
        let first_during = scope.spawn(|| {
            let mut ids = Vec::new();
            while !second_done.load(Ordering::SeqCst) {
                ids.extend(first.request(1000));
            }
            ids
        });
        // The fault's length, not a wait for something: the split brain
        // lasts this long, then heals as Sentinels heal it, the old master
        // made a replica of the new one.
        std::thread::sleep(Duration::from_secs(4));
        drop(partition);
        old.demote_to_replica_of(&new);
        endpoint.switch_to(&format!("127.0.0.1:{}", new.port()));
        (second.join().unwrap(), first_during.join().unwrap())
    });
    let (status, rest, first_stderr) = first.finish();
    assert!(status.success(), "{first_stderr:?}");
    let mut first_after = first_during;
    first_after.extend(parse_ids(&rest));

    assert_held_apart(&first_before, &first_after, &second);
    // The promoted master had no replica until the old one came back: it
    // granted nothing meanwhile.
    assert!(
        refused > 0,
        "the promoted master granted a lease with no replica"
    );
}

#[test]
fn a_master_that_lost_its_replica_and_its_record_leases_nothing_where_sentinels_know_the_replica() {
    // FLUSHALL (or an older snapshot) takes the namespace's count of
    // replicas with its record; the Sentinels still know the replica the
    // master lost. Before they were asked, the master granted with no
    // replica to follow it: in a split brain, beside the promoted one.
    let env = TestEnv::distributed();
    let mut group = SentinelGroup::start();
    let url = group.url();
    leases_nothing_after_losing_its_replica_and_record(&env, &url, || {
        let master_port = group.master_port().unwrap();
        let replica = group
            .servers
            .iter_mut()
            .find(|s| s.port() != master_port)
            .unwrap();
        replica.kill();
        group.server(master_port).conn()
    });
}

#[test]
fn a_cluster_master_that_lost_its_replica_and_its_record_leases_nothing_where_the_cluster_lists_the_replica()
 {
    // The same on a Redis Cluster: the cluster lists the replica its master
    // lost (failed, until CLUSTER FORGET), whatever the master's data says.
    let env = TestEnv::distributed();
    let mut cluster = Cluster::start();
    let url = cluster.url();
    leases_nothing_after_losing_its_replica_and_record(&env, &url, || {
        let master = cluster.master_of("idgen:{flushed}:meta");
        let (master, replica) = (master.port, cluster.replica_of(master).port);
        let nodes = &mut cluster.nodes;
        nodes.iter_mut().find(|n| n.port == replica).unwrap().kill();
        nodes.iter().find(|n| n.port == master).unwrap().conn()
    });
}

/// A lease on Redis alone at `url`; then `lose_replica` kills the master's
/// one replica and returns a connection to the master, which is flushed
/// once it sees the replica go; then a lease is refused naming the replica.
fn leases_nothing_after_losing_its_replica_and_record(
    env: &TestEnv,
    url: &str,
    lose_replica: impl FnOnce() -> redis::Connection,
) {
    on_redis_alone(env, url)
        .args(two_worker_lease("flushed", &["--count", "10"]))
        .status(exit_code::OK)
        .run();
    let mut master = lose_replica();
    wait_until(
        Duration::from_secs(30),
        "the master to see its replica go",
        || RedisProcess::info_field_over(&mut master, "replication", "connected_slaves") == "0",
    );
    let _: () = redis::cmd("FLUSHALL").query(&mut master).unwrap();
    on_redis_alone(env, url)
        .args(two_worker_lease("flushed", &["--count", "10"]))
        .status(exit_code::UNAVAILABLE)
        .one_line_error("must reach 1 replica, and the master has 0 in sync")
        .run();
}

/// `lease --count` on Redis alone, run again after each refusal for want of
/// a replica (exit 5, naming it) as a caller that retries does, until it
/// leases: its IDs, and how often it was refused.
fn lease_alone_retrying(
    env: &TestEnv,
    redis: &str,
    namespace: &str,
    count: u64,
) -> (Vec<u64>, u32) {
    let count = count.to_string();
    let mut refused = 0;
    loop {
        let out = on_redis_alone(env, redis)
            .args(two_worker_lease(namespace, &["--count", &count]))
            .command()
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            return (parse_ids(&String::from_utf8_lossy(&out.stdout)), refused);
        }
        assert_eq!(
            out.status.code(),
            Some(i32::from(exit_code::UNAVAILABLE)),
            "{stderr}"
        );
        assert!(stderr.contains("must reach 1 replica"), "{stderr}");
        refused += 1;
        // The caller's pause between tries.
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The local port of the replication link `master` serves its one replica on.
fn replication_link_port(master: &RedisProcess) -> u16 {
    let replicas: String = redis::cmd("CLIENT")
        .arg("LIST")
        .arg("TYPE")
        .arg("replica")
        .query(&mut master.conn())
        .unwrap();
    let addr = replicas
        .split_whitespace()
        .find_map(|field| field.strip_prefix("addr="))
        .unwrap_or_else(|| panic!("no replica in {replicas:?}"));
    addr.rsplit_once(':').unwrap().1.parse().unwrap()
}

/// Makes `redis` evict, once it is short of memory, the keys used least,
/// exactly: every access counts (`lfu-log-factor 0`), nothing decays, and
/// eviction samples every key. Set before the keys are made: a key's use is
/// counted only under an LFU policy.
fn evicting_the_least_used(redis: &RedisProcess) {
    redis.config_set(&[
        ("maxmemory-policy", "allkeys-lfu"),
        ("lfu-log-factor", "0"),
        ("lfu-decay-time", "0"),
        ("maxmemory-samples", "64"),
    ]);
}

/// Memory pressure from another application's keys (read often) on the
/// server of `namespace`'s leases, under a `maxmemory` set just below what it
/// uses: the server evicts the worker fences and the held worker's key, which
/// were used least, while the namespace's record (read more than any) stays.
fn evict_the_fences_of(redis: &mut RedisProcess, namespace: &str) {
    let mut conn = redis.conn();
    let key = |part: &str| format!("idgen:{{{namespace}}}:{part}");
    let mut other = redis::pipe();
    for i in 0..8 {
        let name = format!("other-app:{i}");
        other.set(&name, vec![b'x'; 100_000]).ignore();
        for _ in 0..100 {
            other.cmd("STRLEN").arg(&name).ignore();
        }
    }
    for _ in 0..250 {
        other.hlen(key("meta")).ignore();
    }
    let _: () = other.query(&mut conn).unwrap();
    let used: i64 = RedisProcess::info_field_over(&mut conn, "memory", "used_memory")
        .parse()
        .unwrap();
    redis.config_set(&[("maxmemory", &(used - 50_000).to_string())]);
    redis.config_set(&[("maxmemory", "0")]);
    let exists =
        |conn: &mut redis::Connection, part: &str| -> bool { conn.exists(key(part)).unwrap() };
    assert!(!exists(&mut conn, "last"), "the fences were not evicted");
    assert!(
        !exists(&mut conn, "w:0"),
        "the holder's key was not evicted"
    );
    assert!(exists(&mut conn, "meta"), "the record was evicted too");
}

#[test]
fn a_lease_on_redis_alone_issues_ids_of_its_worker_and_releases_it() {
    let env = TestEnv::distributed();
    let run = on_redis_alone(&env, &env.redis_url)
        .args(two_worker_lease("solo", &["--count", "1000"]))
        .status(exit_code::OK)
        .stderr("\"released\"")
        .run();
    let ids = run.ids();
    assert_eq!(ids.len(), 1000);
    assert_unique(&ids);
    let worker = acquired_worker(&run.stderr);
    assert!(ids.iter().all(|&id| worker_of(id) == worker));
    let decoded = Test::within(&env)
        .args([
            "decode",
            "--bits",
            TWO_WORKERS,
            "--epoch",
            TWO_WORKERS_EPOCH,
        ])
        .arg(ids[0].to_string())
        .status(exit_code::OK)
        .run();
    assert!(
        decoded.stdout.contains(&format!("worker={worker}")),
        "{decoded}"
    );
    // Released: nobody holds the worker any more.
    let inspected = on_redis_alone(&env, &env.redis_url)
        .args(["inspect-freelist", "--namespace", "solo", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(inspected["held"], serde_json::json!([]), "{inspected}");
}

#[test]
fn the_first_lease_of_a_namespace_on_redis_alone_waits_out_one_ttl_and_the_margin() {
    // Redis cannot tell a new namespace from one whose record it lost.
    let env = TestEnv::distributed();
    let run = on_redis_alone(&env, &env.redis_url)
        .args(two_worker_lease("fresh", &["--count", "1"]))
        .status(exit_code::OK)
        .run();
    let event = |name: &str| {
        run.stderr
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|v| v["event"] == name)
            .unwrap_or_else(|| panic!("no {name} event: {run}"))
    };
    let until = event("quarantined")["until_unix_ms"].as_i64().unwrap();
    assert!(
        time_of(run.ids()[0]) > until,
        "the ID was issued within the quarantine"
    );
    // A second lease finds the record in place: no quarantine.
    on_redis_alone(&env, &env.redis_url)
        .args(two_worker_lease("fresh", &["--count", "1"]))
        .status(exit_code::OK)
        .stderr_lacks("\"quarantined\"")
        .run();
}

#[test]
fn namespace_list_and_inspect_freelist_read_the_namespace_redis_alone_records() {
    let env = TestEnv::distributed();
    on_redis_alone(&env, &env.redis_url)
        .args(two_worker_lease("listed", &["--count", "1"]))
        .status(exit_code::OK)
        .run();
    let list = on_redis_alone(&env, &env.redis_url)
        .args(["namespace", "list", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|ns| ns["name"] == "listed")
        .unwrap_or_else(|| panic!("namespace list lacks it: {list}"));
    assert_eq!(listed["capacity"], 2);
    on_redis_alone(&env, &env.redis_url)
        .args(["inspect-freelist", "--namespace", "listed"])
        .status(exit_code::OK)
        .stdout("listed")
        .stdout("no problems")
        .run();
}

#[test]
fn namespace_delete_on_redis_alone_refuses_a_held_namespace_and_forgets_a_free_one() {
    let env = TestEnv::distributed();
    let (holder, _) = holder_alone(&env, &env.redis_url, "gone");
    on_redis_alone(&env, &env.redis_url)
        .args(["namespace", "delete", "gone", "--yes"])
        .status(exit_code::CONFLICT)
        .one_line_error("held")
        .run();
    assert!(holder.finish().0.success());
    on_redis_alone(&env, &env.redis_url)
        .args(["namespace", "delete", "gone", "--yes"])
        .status(exit_code::OK)
        .run();
    on_redis_alone(&env, &env.redis_url)
        .args(["namespace", "list"])
        .status(exit_code::OK)
        .stdout_lacks("gone")
        .run();
}

#[test]
fn status_on_redis_alone_reports_the_server_and_the_namespaces() {
    let env = TestEnv::distributed();
    on_redis_alone(&env, &env.redis_url)
        .args(two_worker_lease("watched", &["--count", "1"]))
        .status(exit_code::OK)
        .run();
    let run = on_redis_alone(&env, &env.redis_url)
        .args(["status", "--json"])
        .run();
    let report = run.json();
    assert_eq!(report["backend"], "redis", "{run}");
    let stores = report["stores"].as_array().unwrap();
    assert_eq!(stores.len(), 1, "{run}");
    assert_eq!(stores[0]["role"], "node");
    assert_eq!(stores[0]["reachable"], true, "{run}");
    assert_eq!(report["apps_known"], true);
    assert_eq!(report["apps"].as_array().unwrap().len(), 0);
    let watched = report["namespaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|ns| ns["name"] == "watched")
        .unwrap_or_else(|| panic!("no namespace watched: {run}"));
    assert_eq!(watched["capacity"], 2);
    on_redis_alone(&env, &env.redis_url)
        .arg("status")
        .stdout("apps: none (Redis alone keeps worker-ID leases only)")
        .stdout("watched")
        .run();
    // No ledger to count in the Nagios line.
    on_redis_alone(&env, &env.redis_url)
        .args(["status", "--check"])
        .stdout("nodes_up=1")
        .stdout_lacks("ledger_up")
        .run();
}

#[test]
fn status_on_redis_alone_warns_of_a_server_that_evicts_leases() {
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    redis.config_set(&[("maxmemory", "1gb"), ("maxmemory-policy", "allkeys-random")]);
    on_redis_alone(&env, &redis.url())
        .args(["status", "--check"])
        .status(exit_code::nagios::WARNING)
        .stdout("IDGEN WARNING")
        .stdout("allkeys-random")
        .stdout("lose its lease")
        .stdout_lacks("MySQL")
        .run();
}

#[test]
fn status_on_redis_alone_is_critical_when_the_master_has_fewer_replicas_than_leases_must_reach() {
    let env = TestEnv::distributed();
    let master = RedisProcess::start(Persistence::None);
    let replica = RedisProcess::replica_of(&master);
    on_redis_alone(&env, &master.url())
        .args(two_worker_lease("replicated", &["--count", "10"]))
        .status(exit_code::OK)
        .run();
    let json = on_redis_alone(&env, &master.url())
        .args(["status", "--json"])
        .status(exit_code::OK)
        .run()
        .json();
    assert_eq!(
        json["namespaces"][0]["replicas"],
        serde_json::json!({"required": 1, "in_sync": 1}),
        "{json}"
    );

    drop(replica);
    wait_until(
        Duration::from_secs(30),
        "the master to see its replica go",
        || master.info_field("replication", "connected_slaves") == "0",
    );
    on_redis_alone(&env, &master.url())
        .args(["status", "--check"])
        .status(exit_code::nagios::CRITICAL)
        .stdout("IDGEN CRITICAL")
        .stdout("must reach 1 replica and the master has 0 in sync")
        .run();
    on_redis_alone(&env, &master.url())
        .args(two_worker_lease("replicated", &["--count", "10"]))
        .status(exit_code::UNAVAILABLE)
        .one_line_error("must reach 1 replica, and the master has 0 in sync")
        .run();
}

#[test]
fn segment_ids_on_redis_alone_are_refused_naming_mysql() {
    let env = TestEnv::distributed();
    on_redis_alone(&env, &env.redis_url)
        .args(["next", "--app", "1"])
        .status(exit_code::USAGE)
        .one_line_error("--mysql")
        .run();
}

#[test]
fn the_worker_node_assigner_on_redis_alone_is_refused_naming_mysql() {
    let env = TestEnv::distributed();
    on_redis_alone(&env, &env.redis_url)
        .args(two_worker_lease("nodes", &["--assigner", "worker-node"]))
        .status(exit_code::USAGE)
        .stdout_is("")
        .one_line_error("--mysql")
        .run();
}

#[test]
fn a_replica_runs_no_lease_script() {
    let env = TestEnv::distributed();
    let master = RedisProcess::start(Persistence::None);
    let replica = RedisProcess::replica_of(&master);
    on_redis_alone(&env, &replica.url())
        .args(["inspect-freelist", "--namespace", "any"])
        .status(exit_code::UNAVAILABLE)
        .one_line_error("is not the master")
        .run();
}

/// A GET over HTTP/1.1: the status code and the body.
fn http_get(port: u16, path: &str) -> std::io::Result<(u16, String)> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply)?;
    let status = reply
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = reply
        .split_once("\r\n\r\n")
        .map_or("", |(_, body)| body)
        .to_string();
    Ok((status, body))
}

#[test]
fn serve_on_redis_alone_issues_snowflake_ids_and_refuses_segments_naming_mysql() {
    let env = TestEnv::distributed();
    let port = crate::harness::servers::free_port();
    let mut serve = serve_alone(&env, &env.redis_url, port);
    // Healthy once the new namespace's quarantine is over.
    healthz_becomes(&mut serve, port, 200);
    let (status, id) = http_get(port, "/api/snowflake/get/served").unwrap();
    assert_eq!(status, 200, "{id}");
    let id: u64 = id.trim().parse().unwrap();
    assert!(worker_of(id) < 2);
    let (status, body) = http_get(port, "/api/segment/get/1").unwrap();
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("--mysql"), "{body}");
    stop(serve);
}

/// `serve --namespace served` on Redis alone at `redis`, on `port`.
fn serve_alone(env: &TestEnv, redis: &str, port: u16) -> std::process::Child {
    serve_on(on_redis_alone(env, redis), port)
}

/// `serve --namespace served` as `test` runs idgen, on `port`.
fn serve_on(test: Test<'_>, port: u16) -> std::process::Child {
    let mut serve = test
        .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--namespace", "served", "--ttl", "1s", "--timeout", "1s"])
        .args(["--bits", TWO_WORKERS, "--epoch", TWO_WORKERS_EPOCH])
        .command();
    serve
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    serve.spawn().expect("start idgen serve")
}

/// Waits until `serve` answers `/healthz` with `status`; returns the body.
fn healthz_becomes(serve: &mut std::process::Child, port: u16, status: u16) -> String {
    let mut body = String::new();
    wait_until(
        Duration::from_secs(30),
        &format!("/healthz {status}"),
        || {
            assert!(serve.try_wait().unwrap().is_none(), "idgen serve exited");
            match http_get(port, "/healthz") {
                Ok((answered, text)) if answered == status => {
                    body = text;
                    true
                }
                _ => false,
            }
        },
    );
    body
}

fn stop(mut serve: std::process::Child) {
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(serve.id() as i32, libc::SIGTERM) };
    assert!(serve.wait().unwrap().success());
}

/// `serve` started while its Redis is down (run as `on` runs idgen with
/// that Redis's URL): up and unhealthy, then leasing once Redis is back,
/// with no request for an ID in between.
fn serve_started_while_redis_is_down_leases_once_it_is_back(
    on: impl for<'e> FnOnce(&'e TestEnv, &str) -> Test<'e>,
) {
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::None);
    redis.kill();
    let port = crate::harness::servers::free_port();
    let mut serve = serve_on(on(&env, &redis.url()), port);
    let body = healthz_becomes(&mut serve, port, 503);
    assert!(
        body.contains("namespace served: no provably valid lease"),
        "{body}"
    );
    redis.restart();
    // The lease is taken in the background.
    healthz_becomes(&mut serve, port, 200);
    let (status, id) = http_get(port, "/api/snowflake/get/served").unwrap();
    assert_eq!(status, 200, "{id}");
    stop(serve);
}

#[test]
fn serve_started_while_redis_is_down_leases_once_it_is_back_with_no_request() {
    // Before, serve exited (5) when its first lease could not be had: under
    // a supervisor it restarted until Redis answered, or not at all.
    serve_started_while_redis_is_down_leases_once_it_is_back(|env, redis| {
        on_redis_alone(env, redis)
    });
}

#[test]
fn serve_on_redis_and_mysql_started_while_redis_is_down_leases_once_it_is_back() {
    serve_started_while_redis_is_down_leases_once_it_is_back(|env, redis| {
        Test::within(env).env("IDGEN_REDIS_URL", redis)
    });
}

#[test]
fn serve_whose_lease_redis_lost_leases_again_with_no_request() {
    // Before, a lost lease was replaced only when a request asked for an ID,
    // and a server out of its load balancer (its /healthz failing) gets none.
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::None);
    let port = crate::harness::servers::free_port();
    let mut serve = serve_alone(&env, &redis.url(), port);
    healthz_becomes(&mut serve, port, 200);
    let lost = || {
        let text = http_get(port, "/metrics").unwrap().1;
        crate::harness::served::metric(
            &crate::harness::served::parse_metrics(&text),
            "idgen_serve_leases_lost_total",
            "namespace=\"served\"",
        )
    };
    assert_eq!(lost(), 0.0);
    // Every lease is lost: Redis can no longer prove it kept them.
    redis.restart();
    healthz_becomes(&mut serve, port, 503);
    healthz_becomes(&mut serve, port, 200);
    assert_eq!(lost(), 1.0);
    stop(serve);
}

// ---- Redis as the witness of MySQL's fences ------------------------------------------

/// `lease` with a TTL of `ttl` in a one-worker namespace (`--fix worker=0`),
/// so the next holder gets the worker the last one held.
fn one_worker_lease<'a>(ttl: &'a str, how: &[&'a str]) -> Vec<&'a str> {
    let mut args = two_worker_lease_for("witness", ttl);
    args.extend(["--fix", "worker=0"]);
    args.extend_from_slice(how);
    args
}

#[test]
fn a_mysql_set_back_cannot_start_the_next_holder_below_redis_s_witness() {
    let env = TestEnv::distributed();
    // The first holder's clock runs 3s ahead, so its fences lie well ahead of
    // the next holder's clock.
    let mut first = env.coprocess(
        &one_worker_lease("1s", &["--stdin"]),
        &[("IDGEN_TEST_CLOCK_OFFSET_MS", "3000")],
    );
    first.event("acquired");
    let before = request(&mut first, 1000);
    first.signal(libc::SIGKILL);
    let (status, _, _) = first.wait();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    let witness: i64 = env
        .redis()
        .hget(keys::fences("witness"), 0)
        .expect("Redis witnesses the fence");

    // MySQL goes back to before the lease, as a restored backup would.
    env.sql("DELETE FROM idgen_worker_lease WHERE namespace = 'witness'");
    wait_until(
        Duration::from_secs(10),
        "the killed holder's key to expire",
        || !env.worker_held("witness", 0),
    );
    // A TTL long enough to wait for the witnessed fence rather than refuse it.
    let run = Test::within(&env)
        .args(one_worker_lease("10s", &["--count", "1000"]))
        .status(exit_code::OK)
        .run();
    let acquired = run
        .stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["event"] == "acquired")
        .unwrap_or_else(|| panic!("no acquired event: {run}"));
    assert_eq!(acquired["floor_unix_ms"].as_i64(), Some(witness), "{run}");
    let latest_before = before.iter().map(|&id| time_of(id)).max().unwrap();
    assert!(latest_before <= witness);
    assert!(run.ids().iter().all(|&id| time_of(id) > witness));
    let all: Vec<u64> = before.into_iter().chain(run.ids()).collect();
    assert_unique(&all);
}

#[test]
fn a_mysql_set_back_assigns_no_worker_node_id_twice() {
    let env = TestEnv::distributed();
    let args = crate::lease::uid_generator_lease("2024-01-01", "1");
    let assign = || {
        acquired_worker(
            &Test::within(&env)
                .args(&args)
                .status(exit_code::OK)
                .run()
                .stderr,
        )
    };
    assign();
    let second = assign();
    // MySQL goes back to before the second, as a restored backup would: its
    // counter would hand the same ID out again.
    env.sql(&format!("DELETE FROM WORKER_NODE WHERE ID >= {second}"));
    env.sql(&format!(
        "ALTER TABLE WORKER_NODE AUTO_INCREMENT = {second}"
    ));
    let again = assign();
    assert!(again > second, "{again} <= {second}");
    // Its counter moved past the witness too: the next one needs no repair.
    assert_eq!(assign(), again + 1);
}

/// A worker with no row in MySQL offered to two takers at once (Redis lost
/// the first's offer): the first stops having found no row; the second
/// makes the row and holds the worker; the first's row is then refused as a
/// duplicate, and it reads the second's row as held and gives the worker
/// back. One grant, and the first issues nothing.
#[test]
fn a_worker_s_first_row_made_by_two_takers_grants_it_once() {
    let env = TestEnv::distributed();
    let first = env.coprocess(
        &one_worker_lease("10s", &["--count", "100"]),
        &[(
            "IDGEN_FAILPOINTS",
            "lease.take_worker.before_first_row=stop",
        )],
    );
    crate::harness::wait_until_stopped(first.pid(), "the first taker to find no row");
    let _: () = redis::cmd("FLUSHALL").query(&mut env.redis()).unwrap();
    let mut second = env.coprocess(&one_worker_lease("10s", &["--stdin"]), &[]);
    assert_eq!(second.acquired_worker(), 0);
    let issued = request(&mut second, 100);
    first.signal(libc::SIGCONT);
    let (status, stdout, stderr) = first.wait();
    assert_eq!(
        status.code(),
        Some(i32::from(exit_code::EXHAUSTED)),
        "{stderr:?}"
    );
    assert!(
        stderr
            .iter()
            .any(|l| l.contains("worker IDs of namespace \"witness\" are held")),
        "{stderr:?}"
    );
    assert_eq!(stdout, "");
    assert_eq!(issued.len(), 100);
    assert_unique(&issued);
    // The second's lease stands: its release matches its row.
    let (status, _, stderr) = second.finish();
    assert!(status.success(), "{stderr:?}");
    let rows = env.query("SELECT token FROM idgen_worker_lease WHERE namespace = 'witness'");
    assert_eq!(rows, vec![vec![Some(String::new())]]);
}

#[test]
fn a_lease_table_dropped_behind_idgen_s_back_is_made_again_by_the_next_lease() {
    // A lease finds the lease tables by using them (no look first): a table
    // gone since the namespace was recorded is made again, and the lease
    // taken as on a new database, above Redis's witness of the fence.
    let env = TestEnv::distributed();
    let first = Test::within(&env)
        .args(two_worker_lease("dropped", &["--count", "100"]))
        .status(exit_code::OK)
        .run();
    env.sql("DROP TABLE idgen_worker_lease");
    let second = Test::within(&env)
        .args(two_worker_lease("dropped", &["--count", "100"]))
        .status(exit_code::OK)
        .run();
    let worker = acquired_worker(&second.stderr);
    let rows = env.query(&format!(
        "SELECT token FROM idgen_worker_lease WHERE namespace = 'dropped' AND worker = {worker}"
    ));
    assert_eq!(rows, vec![vec![Some(String::new())]], "released: {second}");
    let all: Vec<u64> = first.ids().into_iter().chain(second.ids()).collect();
    assert_eq!(all.len(), 200);
    assert_unique(&all);
}

#[test]
fn a_renewal_writes_the_witness_again_after_redis_lost_it() {
    let env = TestEnv::distributed();
    let redis = RedisProcess::start(Persistence::None);
    let mut holder = env.coprocess(
        &two_worker_lease("rewitness", &["--stdin"]),
        &[("IDGEN_REDIS_URL", &redis.url())],
    );
    let worker = holder.acquired_worker();
    let ids = request(&mut holder, 1000);
    let _: () = redis::cmd("FLUSHALL").query(&mut redis.conn()).unwrap();
    holder.event("restored");
    let witness: Option<i64> = redis
        .conn()
        .hget(keys::fences("rewitness"), worker)
        .unwrap();
    let latest = ids.iter().map(|&id| time_of(id)).max().unwrap();
    assert!(
        witness.is_some_and(|fence| fence > latest),
        "witness {witness:?}, latest issued {latest}"
    );
    assert!(holder.finish().0.success());
}
