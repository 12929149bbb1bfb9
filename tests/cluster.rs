//! Redis Cluster: three masters with a replica each on loopback. Concurrent
//! takers and reloaders, a resharding and a failover under takers, a move from
//! a standalone node and between two clusters, leases and status. No ID repeats.
//!
//! The calm tests share one cluster (each its own app or namespace); the ones
//! that reshard or fail over start their own.

use crate::harness::cluster::{Cluster, ClusterNode};
use crate::harness::coprocess::Coprocess;
use crate::harness::faults::PacketDrop;
use crate::harness::takers::take_during;
use crate::harness::{
    Test, TestEnv, assert_unique, four_worker_lease, gate_pass_for, keys, wait_until,
    worker_of_four_worker_id,
};
use idgen::exit_code;
use std::time::Duration;

/// `next --app APP --count 300` in `takers` threads: 5 takes before `during`
/// runs, then until 10 more have begun after it; every ID taken.
fn take_while(
    env: &TestEnv,
    url: &str,
    app: &str,
    takers: usize,
    during: impl FnOnce(),
) -> Vec<u64> {
    let next = || {
        Test::within(env)
            .args(["next", "--app", app, "--count", "300"])
            .env("IDGEN_REDIS_URL", url)
            .run()
    };
    let taken = take_during(takers, next, |takers| {
        wait_until(Duration::from_secs(60), "takes before", || {
            takers.taken() >= 5
        });
        during();
        takers.mark_after();
        takers.wait_after(Duration::from_secs(60), 10);
    });
    for failure in taken.failures {
        assert!(!failure.contains("panicked"), "{failure}");
    }
    taken.ids
}

fn init_app(env: &TestEnv, url: &str, app: &str) {
    Test::within(env)
        .args([
            "init-app", "--app", app, "--name", "cluster", "--step", "2000",
        ])
        .env("IDGEN_REDIS_URL", url)
        .status(exit_code::OK)
        .run();
}

fn reload(env: &TestEnv, url: &str, app: &str) {
    Test::within(env)
        .args(["reload-segments", "--app", app, "--quiet"])
        .env("IDGEN_REDIS_URL", url)
        .status(exit_code::OK)
        .run();
}

/// The masters that hold a queue of `app`.
fn masters_stocked(cluster: &Cluster, app: u8) -> std::collections::BTreeSet<u16> {
    (0..64)
        .map(|shard| keys::queue(app, shard))
        .map(|key| cluster.master_of(&key))
        .filter(|node| {
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg(keys::queues_of(app))
                .query(&mut node.conn())
                .unwrap();
            !keys.is_empty()
        })
        .map(|node| node.port)
        .collect()
}

#[test]
fn takers_and_reloaders_on_a_cluster_repeat_nothing() {
    let env = TestEnv::distributed();
    let cluster = Cluster::shared();
    let url = cluster.url();
    init_app(&env, &url, "31");
    reload(&env, &url, "31");
    // Reloaders run beside the takers, as cron would.
    let ids = take_while(&env, &url, "31", 3, || {
        for _ in 0..3 {
            reload(&env, &url, "31");
        }
    });
    assert_unique(&ids);
    assert!(ids.len() > 10 * 300, "{} IDs", ids.len());
    // The app's 64 shards spread over the three masters.
    assert_eq!(masters_stocked(cluster, 31).len(), 3);
}

#[test]
fn leases_status_and_inspect_work_on_a_cluster() {
    let env = TestEnv::distributed();
    let cluster = Cluster::shared();
    let url = cluster.url();
    let on_cluster = [("IDGEN_REDIS_URL", url.as_str())];
    let lease = |how: &[&'static str]| four_worker_lease("cluster", how);
    let mut holder = env.coprocess(&lease(&["--stdin"]), &on_cluster);
    let worker = holder.acquired_worker();
    let mut ids = holder.request(1000);
    let second = Test::within(&env)
        .args(lease(&["--count", "1000"]))
        .env("IDGEN_REDIS_URL", &url)
        .status(exit_code::OK)
        .run();
    assert!(
        second
            .ids()
            .iter()
            .all(|&id| worker_of_four_worker_id(id) != worker)
    );
    ids.extend(second.ids());
    ids.extend(holder.request(1000));
    let (status, _, stderr) = holder.finish();
    assert!(status.success(), "{stderr:?}");
    assert_unique(&ids);

    Test::within(&env)
        .args(["inspect-freelist", "--namespace", "cluster", "--json"])
        .env("IDGEN_REDIS_URL", &url)
        .status(exit_code::OK)
        .run();
    let status = Test::within(&env)
        .args(["status", "--json"])
        .env("IDGEN_REDIS_URL", &url)
        .stdout("cluster")
        .run();
    let report = status.json();
    let main = &report["stores"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "main")
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(main["reachable"], true, "{report}");
}

#[test]
fn an_app_moves_from_a_standalone_node_to_a_cluster_without_repeats() {
    let env = TestEnv::distributed();
    let cluster = Cluster::shared();
    let nodes = format!("cl={}", cluster.url());
    let with_cluster = || Test::within(&env).env("IDGEN_REDIS_NODES", &nodes);
    with_cluster()
        .args([
            "init-app", "--app", "33", "--name", "moving", "--step", "2000",
        ])
        .status(exit_code::OK)
        .run();
    let take = || {
        with_cluster()
            .args(["next", "--app", "33", "--count", "500"])
            .status(exit_code::OK)
            .run()
            .ids()
    };
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.extend(take());
    }
    with_cluster()
        .args(["migrate", "--app", "33", "--to", "cl", "--yes"])
        .status(exit_code::OK)
        .run();
    for _ in 0..3 {
        ids.extend(take());
    }
    assert_unique(&ids);
    assert!(!masters_stocked(cluster, 33).is_empty());
}

#[test]
fn a_resharding_and_a_failover_under_takers_repeat_nothing() {
    let env = TestEnv::distributed();
    let mut cluster = Cluster::start();
    let url = cluster.url();
    init_app(&env, &url, "34");
    reload(&env, &url, "34");
    let mut ids = Vec::new();

    // Move slots (a third of one master's: every master keeps some, so that a
    // majority of them can still vote a killed one out) with their keys.
    let keys: Vec<String> = (0..64).map(|shard| keys::queue(34, shard)).collect();
    let from = cluster.master_of(&keys[0]).port;
    let before: Vec<u16> = keys.iter().map(|k| cluster.master_of(k).port).collect();
    let to = cluster
        .nodes
        .iter()
        .find(|n| n.port != from && n.is_master())
        .unwrap()
        .port;
    ids.extend(take_while(&env, &url, "34", 3, || {
        let node = |port| cluster.nodes.iter().find(|n| n.port == port).unwrap();
        cluster.reshard(node(from), node(to), 2000);
    }));
    let moved = keys
        .iter()
        .zip(&before)
        .find(|(k, was)| **was == from && cluster.master_of(k).port == to)
        .map(|(k, _)| k.clone())
        .expect("the resharding moved a shard of the app");
    let key = moved.as_str();
    // The moved shard's stock came with a stamp of the old master: the first
    // take on the new one retired it and stamped it anew.
    let shard: u8 = key.rsplit('_').next().unwrap().parse().unwrap();
    // Takers pick shards at random: take from this one for certain.
    let pass = gate_pass_for(shard);
    let run = Test::within(&env)
        .args(["next", "--app", "34", "--gate-pass", &pass])
        .env("IDGEN_REDIS_URL", &url)
        .status(exit_code::OK)
        .run();
    ids.extend(run.ids());
    let stamp =
        idgen::store::redis::keys::KeyNames::Cluster.stamp(idgen::store::Slot { app: 34, shard });
    let new_master = cluster.master_of(key);
    let run_id: String = redis::cmd("INFO")
        .arg("server")
        .query::<String>(&mut new_master.conn())
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("run_id:"))
        .unwrap()
        .trim()
        .to_string();
    let stamped: Option<String> = redis::cmd("HGET")
        .arg(&stamp)
        .arg("run_id")
        .query(&mut new_master.conn())
        .unwrap();
    assert_eq!(stamped.as_deref(), Some(run_id.as_str()), "{stamp}");

    // A replica takes over its master (CLUSTER FAILOVER), takers running.
    let master = cluster.master_of(key).port;
    let replica = {
        let master = cluster.nodes.iter().find(|n| n.port == master).unwrap();
        cluster.replica_of(master).port
    };
    ids.extend(take_while(&env, &url, "34", 3, || {
        let node = cluster.nodes.iter().find(|n| n.port == replica).unwrap();
        cluster.fail_over_to(node, None, key);
    }));

    // A master killed: its replica is promoted once the others notice.
    let victim = cluster.master_of(key).port;
    ids.extend(take_while(&env, &url, "34", 3, || {
        cluster
            .nodes
            .iter_mut()
            .find(|n| n.port == victim)
            .unwrap()
            .kill();
        wait_until(
            Duration::from_secs(60),
            "a replica to replace the killed master",
            || {
                cluster.nodes.iter().any(|n| {
                    n.port != victim && n.is_master() && cluster.master_of(key).port == n.port
                })
            },
        );
        cluster.wait_ok();
    }));
    assert_ne!(cluster.master_of(key).port, victim);
    assert_unique(&ids);
}

#[test]
fn an_app_moves_between_two_clusters_under_takers_without_repeats() {
    let env = TestEnv::distributed();
    // A: the shared cluster (app 35 is this test's alone); B: a cluster of its own.
    let a = Cluster::shared();
    let b = Cluster::start();
    let nodes = format!("a={} b={}", a.url(), b.url());
    let with_nodes = || Test::within(&env).env("IDGEN_REDIS_NODES", &nodes);
    with_nodes()
        .args([
            "init-app", "--app", "35", "--name", "moving", "--step", "2000",
        ])
        .status(exit_code::OK)
        .run();
    // New apps are served by `main`: route this one to A before it has stock.
    with_nodes()
        .args(["migrate", "--app", "35", "--to", "a", "--yes"])
        .status(exit_code::OK)
        .run();
    with_nodes()
        .args(["reload-segments", "--app", "35", "--quiet"])
        .status(exit_code::OK)
        .run();
    assert!(!masters_stocked(a, 35).is_empty());
    assert!(masters_stocked(&b, 35).is_empty());
    let take = || {
        with_nodes()
            .args(["next", "--app", "35", "--count", "300"])
            .run()
    };
    let take_ok = || {
        with_nodes()
            .args(["next", "--app", "35", "--count", "300"])
            .status(exit_code::OK)
            .run()
            .ids()
    };
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.extend(take_ok());
    }

    let taken = take_during(3, take, |takers| {
        wait_until(Duration::from_secs(60), "takes before", || {
            takers.taken() >= 5
        });
        let report = with_nodes()
            .args(["migrate", "--app", "35", "--to", "b", "--yes", "--json"])
            .status(exit_code::OK)
            .run()
            .json();
        takers.mark_after();
        takers.wait_after(Duration::from_secs(60), 10);
        report
    });
    assert!(taken.failures.is_empty(), "{:?}", taken.failures);
    ids.extend(taken.ids);
    let report = taken.outcome;
    assert_eq!(report["plan"]["from"], "a", "{report}");
    assert_eq!(report["result"]["shards_retired"], 64, "{report}");
    // A's stock was dropped, not copied: a gap.
    assert!(
        report["result"]["ids_retired"].as_u64().unwrap() > 0,
        "{report}"
    );
    assert!(masters_stocked(a, 35).is_empty(), "stock left on A");
    assert!(!masters_stocked(&b, 35).is_empty(), "B has no stock");
    // Clients that look on the default node or still read A are sent to B.
    let route = keys::route(35);
    let hint_on_main: Option<String> = redis::cmd("GET")
        .arg(&route)
        .query(&mut env.redis())
        .unwrap();
    let hint_on_a: Option<String> = redis::cmd("GET")
        .arg(&route)
        .query(&mut a.master_of(&route).conn())
        .unwrap();
    assert_eq!(hint_on_main.as_deref(), Some("b"));
    assert_eq!(hint_on_a.as_deref(), Some("b"));

    for _ in 0..3 {
        ids.extend(take_ok());
    }
    with_nodes()
        .args(["reload-segments", "--quiet"])
        .status(exit_code::OK)
        .run();
    assert!(masters_stocked(a, 35).is_empty(), "something refilled A");
    assert_unique(&ids);
    assert!(ids.len() >= (3 + 10 + 3) * 300, "{} IDs", ids.len());

    let status = with_nodes().args(["status", "--json"]).run().json();
    let app = status["apps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|app| app["app"] == 35)
        .unwrap_or_else(|| panic!("{status}"));
    assert_eq!(app["node"], "b", "{status}");
    assert_eq!(app["route"]["node"], "b", "{status}");
    assert_eq!(app["moving"], false, "{status}");
    assert!(app["min_stock"].as_u64().unwrap() > 0, "{status}");
}

/// A cluster of a test's own with one app, and the shard a gate pass picks
/// (empty: the first `next` refills it inline).
struct OneShard {
    env: TestEnv,
    cluster: Cluster,
    url: String,
    app: &'static str,
    pass: &'static str,
    key: String,
}

impl OneShard {
    fn start(app: &'static str, pass: &'static str) -> Self {
        let env = TestEnv::distributed();
        let cluster = Cluster::start();
        let url = cluster.url();
        init_app(&env, &url, app);
        let shard = idgen::segment::shard_for_gate_pass(pass);
        let key = keys::queue(app.parse().unwrap(), shard);
        OneShard {
            env,
            cluster,
            url,
            app,
            pass,
            key,
        }
    }

    fn next(&self, count: &str) -> Test<'_> {
        let args = ["next", "--app", self.app, "--gate-pass", self.pass];
        Test::within(&self.env)
            .args(args)
            .args(["--count", count])
            .env("IDGEN_REDIS_URL", &self.url)
    }

    /// `next --count 10` with `failpoints` armed.
    fn resender(&self, failpoints: &str) -> Coprocess {
        let args = ["next", "--app", self.app, "--gate-pass", self.pass];
        self.env.coprocess(
            &[&args[..], &["--count", "10"]].concat(),
            &[
                ("IDGEN_REDIS_URL", self.url.as_str()),
                ("IDGEN_FAILPOINTS", failpoints),
            ],
        )
    }

    /// Promotes `replica` with `CLUSTER FAILOVER [how]`.
    fn fail_over_to(&self, replica: &ClusterNode, how: Option<&str>) {
        self.cluster.fail_over_to(replica, how, &self.key);
    }

    /// Resumes the resender stopped after its push, whose answer was lost:
    /// the push is sent again. Then 100 more; with `served`, 160 IDs, unique.
    fn resend_and_take(&self, resender: Coprocess, mut served: Vec<u64>) {
        resender.signal(libc::SIGCONT);
        let (status, stdout, stderr) = resender.wait();
        assert!(status.success(), "{stderr:?}");
        served.extend(stdout.lines().map(|l| l.parse::<u64>().unwrap()));
        served.extend(self.next("100").status(exit_code::OK).run().ids());
        assert_eq!(served.len(), 160);
        assert_unique(&served);
    }
}

/// A cluster client sends a script again when its answer was lost, and after
/// a failover the resend reaches the promoted replica, which retires the
/// shard's stock (a new replication ID) before the push runs: the witness,
/// which survives retirement, must answer it without stocking the segment a
/// second time, or the indexes already served from the old master come back.
#[test]
fn a_push_resent_to_a_promoted_replica_after_its_answer_was_lost_is_stocked_once() {
    let one = OneShard::start("35", "resend");
    // `next` refills the empty shard inline and stops right after its push.
    let resender = one.resender("dispenser.push_answer_lost=stop");
    crate::harness::wait_until_stopped(resender.pid(), "the push to run");
    // Its segment is served meanwhile from the old master.
    let served = one.next("50").status(exit_code::OK).run().ids();

    // The shard's replica takes over, with every write the master had.
    let master = one.cluster.master_of(&one.key);
    one.fail_over_to(one.cluster.replica_of(master), None);
    one.resend_and_take(resender, served);
}

/// As above, but the replica never got the push, only the lock: the network
/// lost the master's replication stream between the two, and the replica
/// was made master without it (`CLUSTER FAILOVER TAKEOVER`, as when the
/// master cannot be reached). Its witness is behind, so only the lock can
/// tell the resend from a new push: the lock was granted by the old master,
/// and the new one refuses it (a gap). Stocked again there, the segment
/// would serve the old master's IDs a second time.
#[test]
fn a_push_resent_to_a_replica_promoted_without_it_is_refused() {
    let one = OneShard::start("36", "resend-lagging");
    let master = one.cluster.master_of(&one.key);
    let replica = one.cluster.replica_of(master);
    let read = |node: &ClusterNode, cmd: &mut redis::Cmd| -> redis::Value {
        let mut conn = node.conn();
        let _: () = redis::cmd("READONLY").query(&mut conn).unwrap();
        cmd.query(&mut conn).unwrap()
    };
    let stock = |node: &ClusterNode| match read(node, redis::cmd("LLEN").arg(&one.key)) {
        redis::Value::Int(n) => n,
        other => panic!("LLEN {}: {other:?}", one.key),
    };
    // The shard's lock as the replica holds it, and the ms it has left.
    let replica_lock_ttl = || {
        let shard = idgen::segment::shard_for_gate_pass(one.pass);
        let pattern = format!("{}{{*", keys::lock(36, shard));
        let found = read(replica, redis::cmd("KEYS").arg(&pattern));
        let redis::Value::Array(found) = found else {
            panic!("KEYS {pattern}: {found:?}")
        };
        let Some(redis::Value::BulkString(lock)) = found.first() else {
            return None;
        };
        match read(replica, redis::cmd("PTTL").arg(lock.as_slice())) {
            redis::Value::Int(ms) if ms > 0 => Some(ms),
            _ => None,
        }
    };

    // `next` refills the empty shard inline and stops before its push, and
    // again right after it.
    let resender = one.resender("dispenser.before_push=stop,dispenser.push_answer_lost=stop");
    crate::harness::wait_until_stopped(resender.pid(), "the lock to be taken");
    wait_until(
        Duration::from_secs(30),
        "the replica to get the lock",
        || replica_lock_ttl().is_some(),
    );
    // From here on the replica receives nothing from its master.
    let links = master.replica_link_ports();
    assert_eq!(links.len(), 1, "{links:?}");
    let _partition = PacketDrop::from_port_to_port(master.port, links[0]);
    resender.signal(libc::SIGCONT);
    wait_until(Duration::from_secs(30), "the push to run", || {
        stock(master) > 0
    });
    crate::harness::wait_until_stopped(resender.pid(), "the push's answer to be lost");
    // Its segment is served meanwhile from the old master.
    let served = one.next("50").status(exit_code::OK).run().ids();
    assert_eq!(stock(replica), 0, "the partition let the push through");

    one.fail_over_to(replica, Some("TAKEOVER"));
    // The token alone would still let the push in.
    assert!(
        replica_lock_ttl().is_some(),
        "the lock expired before the resend"
    );
    one.resend_and_take(resender, served);
}
