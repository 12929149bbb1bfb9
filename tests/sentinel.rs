//! A Sentinel deployment, failed over under load: concurrent `idgen next`
//! takers and a `lease` holder on a `redis-sentinel://` URL while the sentinels
//! promote the replica, asked to (`SENTINEL FAILOVER`) or because the master
//! was killed. idgen follows the new master without anyone touching its
//! settings, and no ID repeats.

use crate::harness::sentinel::SentinelGroup;
use crate::harness::takers::take_during;
use crate::harness::{
    Coprocess, Test, TestEnv, assert_unique, four_worker_lease, keys, parse_ids,
    status_of_hot_node, wait_until, worker_of_four_worker_id,
};
use idgen::exit_code;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

const APP: &str = "21";
const TAKERS: usize = 3;
const BATCH: &str = "300";

fn lease_holder(env: &TestEnv, url: &str) -> (Coprocess, u64) {
    let mut holder = env.coprocess(
        &four_worker_lease("sentinel", &["--stdin", "--ttl", "15s"]),
        &[("IDGEN_REDIS_URL", url)],
    );
    let worker = holder.acquired_worker();
    (holder, worker)
}

/// Runs takers and a lease holder on the group's URL, applies `fault` to the
/// master, and checks that idgen carried on at the new master with no repeat.
fn through_a_failover(fault: impl FnOnce(&mut SentinelGroup, u16)) {
    let env = TestEnv::distributed();
    let mut group = SentinelGroup::start();
    let url = group.url();
    let on_sentinel = || Test::within(&env).env("IDGEN_REDIS_URL", &url);
    on_sentinel()
        .args([
            "init-app", "--app", APP, "--name", "sentinel", "--step", "3000",
        ])
        .status(exit_code::OK)
        .run();
    on_sentinel()
        .args(["reload-segments", "--app", APP, "--quiet"])
        .status(exit_code::OK)
        .run();

    let (mut holder, worker) = lease_holder(&env, &url);
    let mut lease_ids = holder.request(1000);

    let (stop, switched) = (AtomicBool::new(false), AtomicBool::new(false));
    let old = group.master_port().expect("the sentinels name a master");
    // A long-lived client as well: its connection outlives the master's role.
    let mut settings = env.settings();
    settings.redis_nodes.insert(
        idgen::config::DEFAULT_NODE.into(),
        idgen::redact::SecretUrl::new(url.clone()),
    );
    let allocator = idgen::backend::Backend::open(&settings)
        .unwrap()
        .allocator(&settings);
    let long_ids = Mutex::new(Vec::new());
    let (long_taken_after, long_errors) = (AtomicU64::new(0), Mutex::new(Vec::new()));
    let taken = std::thread::scope(|scope| {
        scope.spawn(|| {
            let runtime = tokio::runtime::Runtime::new().unwrap();
            while !stop.load(Ordering::SeqCst) {
                let after = switched.load(Ordering::SeqCst);
                match runtime.block_on(allocator.next(APP.parse().unwrap(), None, 300)) {
                    Ok(issued) => {
                        long_ids.lock().unwrap().extend(issued.ids);
                        if after {
                            long_taken_after.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    Err(e) => long_errors.lock().unwrap().push(e.to_string()),
                }
            }
        });
        let _stop = crate::harness::StopOnDrop(&stop);
        let next = || {
            on_sentinel()
                .args(["next", "--app", APP, "--count", BATCH])
                .run()
        };
        take_during(TAKERS, next, |takers| {
            wait_until(Duration::from_secs(60), "takes before the fault", || {
                takers.taken() >= 10
            });
            fault(&mut group, old);
            let new = group.wait_for_new_master(old);
            switched.store(true, Ordering::SeqCst);
            takers.mark_after();
            wait_until(
                Duration::from_secs(60),
                "takes at the new master with the same URL",
                || takers.taken_after() >= 10 && long_taken_after.load(Ordering::SeqCst) >= 10,
            );
            new
        })
    });
    let new = taken.outcome;

    // The holder rides through and still holds its worker; a second holder
    // started meanwhile gets another one.
    lease_ids.extend(holder.request(1000));
    let second = on_sentinel()
        .args(four_worker_lease("sentinel", &["--count", "1000"]))
        .status(exit_code::OK)
        .run()
        .ids();
    assert!(
        second
            .iter()
            .all(|&id| worker_of_four_worker_id(id) != worker),
        "a second holder got worker {worker}, held all along by the first"
    );
    lease_ids.extend(holder.request(1000));
    let (status, rest, stderr) = holder.finish();
    assert!(status.success(), "{stderr:?}");
    assert!(!stderr.iter().any(|l| l.contains("\"lost\"")), "{stderr:?}");
    lease_ids.extend(parse_ids(&rest));
    lease_ids.extend(second);
    assert_unique(&lease_ids);

    // Takers and the long-lived client alike.
    let mut ids = long_ids.into_inner().unwrap();
    ids.extend(taken.ids);
    assert_unique(&ids);
    // idgen stocks the new master under its own run_id: it followed it.
    let master = group.server(new);
    let run_id = master.run_id();
    let mut conn = master.conn();
    let stamped = (0..64).any(|shard| {
        let stamp: Option<String> = redis::cmd("HGET")
            .arg(keys::stamp(APP.parse().unwrap(), shard))
            .arg("run_id")
            .query(&mut conn)
            .unwrap();
        stamp.as_deref() == Some(run_id.as_str())
    });
    assert!(
        stamped,
        "no shard of app {APP} is stocked by the new master"
    );
    // Failures may only be the failover's moments, never a wrong answer.
    demoted_master_serves_nothing(&mut group, old);
    let long_errors = long_errors.into_inner().unwrap();
    assert!(
        long_errors.len() < 5,
        "the long-lived client failed: {long_errors:?}"
    );
    for failure in taken.failures {
        assert!(
            !failure.contains("panicked") && !failure.contains("issued twice"),
            "{failure}"
        );
    }
}

/// A master the failover demoted (alive, now a replica) refuses a take even on
/// a connection that still reaches it directly: it is not the master.
fn demoted_master_serves_nothing(group: &mut SentinelGroup, old: u16) {
    let server = group.server(old);
    let alive = redis::cmd("PING")
        .query::<String>(&mut match redis::Client::open(server.url().as_str())
            .and_then(|c| c.get_connection())
        {
            Ok(conn) => conn,
            Err(_) => return,
        })
        .is_ok();
    if !alive {
        return;
    }
    wait_until(
        Duration::from_secs(30),
        "the old master to sync as a replica",
        || {
            // Sentinel ends the normal clients of the master it demotes
            // (CLIENT KILL TYPE normal, with the SLAVEOF): a poll whose
            // connection it ends, even while it is made, has only asked too
            // early.
            server
                .connect()
                .and_then(|mut conn| {
                    redis::cmd("INFO")
                        .arg("replication")
                        .query::<String>(&mut conn)
                })
                .is_ok_and(|info| {
                    info.contains("role:slave") && info.contains("master_link_status:up")
                })
        },
    );
    let url = idgen::redact::SecretUrl::new(server.url());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        use idgen::store::Stock;
        let node = idgen::store::redis::RedisNode::connect(
            "old",
            &url,
            &Default::default(),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
        for shard in 0..64 {
            let slot = idgen::store::Slot {
                app: APP.parse().unwrap(),
                shard,
            };
            match node
                .take(idgen::segment::DispenserKind::Queue, slot, 10)
                .await
            {
                Ok(taken) => assert!(taken.indexes.is_empty(), "a replica served {taken:?}"),
                Err(e) => assert!(e.to_string().contains("is not the master"), "{e}"),
            }
        }
    });
}

#[test]
fn takers_and_a_lease_follow_a_sentinel_failover() {
    through_a_failover(|group, _| group.failover());
}

#[test]
fn takers_and_a_lease_follow_a_sentinel_failover_after_the_master_is_killed() {
    through_a_failover(|group, old| group.server(old).kill());
}

/// The node list (`IDGEN_REDIS_NODES`) separates entries with spaces, so a
/// sentinel URL's commas stay inside its entry; a `--redis-node` flag is one
/// entry.
#[test]
fn a_sentinel_url_in_the_node_list_keeps_its_commas() {
    let env = TestEnv::distributed();
    let sentinel = "redis-sentinel://127.0.0.1:1,127.0.0.1:2/0#main";
    for (run, hot) in status_of_hot_node(&env, sentinel, &[("IDGEN_TIMEOUT", "2s")]) {
        assert_eq!(hot["location"], sentinel, "{run}");
        assert_eq!(hot["reachable"], false, "{run}");
        assert!(
            hot.to_string().contains("no sentinel named a master"),
            "{run}"
        );
    }
}
