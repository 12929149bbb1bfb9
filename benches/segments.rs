//! Segment IDs, in process, against real servers the bench starts itself
//! (or `IDGEN_TEST_REDIS_URL` / `IDGEN_TEST_MYSQL_URL`).
//!
//! * `warm_next`: `SegmentAllocator::next(app, 1)` from stock, side by side with a
//!   bare `LPOP` on the same server and the same kind of connection, and with
//!   the script that checks the stamp per take (what a connection through a
//!   proxy gets). Stocking happens outside the timed loop, so no side ever
//!   refills while timed.
//! * `batch`: `next` of 100 000 IDs (stock, then one direct segment from MySQL).
//!
//! Run: `cargo bench --bench segments`. Whole-process figures: `scripts/bench.sh`.

#[path = "../tests/harness/servers.rs"]
#[allow(dead_code)]
mod servers;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use idgen::backend::Backend;
use idgen::config::{DEFAULT_NODE, Settings};
use idgen::redact::SecretUrl;
use idgen::segment::{DispenserKind, SegmentAllocator};
use idgen::store::{AppPolicy, AppSpec, Dispenser, Segment, Slot};
use std::sync::Arc;
use std::time::{Duration, Instant};

const APP: u8 = 1;
const GATE_PASS: &str = "alice@example.com"; // shard 61
const SHARD: u8 = 61;

struct Bench {
    runtime: tokio::runtime::Runtime,
    allocator: SegmentAllocator,
    node: Arc<dyn Dispenser>,
    redis: redis::aio::MultiplexedConnection,
    backend: Backend,
}

fn setup(kind: DispenserKind) -> Bench {
    let servers = servers::servers();
    servers.wipe(0);
    let mut settings = Settings::default();
    settings.redis_nodes.insert(
        DEFAULT_NODE.to_string(),
        SecretUrl::new(servers.redis_db_url(0)),
    );
    settings.mysql = Some(SecretUrl::new(servers.mysql_db_url(0)));
    settings.dispenser = kind;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let backend = Backend::open(&settings).unwrap();
    let allocator = backend.allocator(&settings);
    let (node, redis) = runtime.block_on(async {
        let policy = AppPolicy::for_step(1000);
        let spec = AppSpec::validated(APP, "bench", None, 1000, 0, policy).unwrap();
        backend.ledger.init_app(&spec).await.unwrap();
        let node = backend.nodes.get(DEFAULT_NODE).await.unwrap();
        let client = redis::Client::open(servers.redis_db_url(0).as_str()).unwrap();
        let redis = client.get_multiplexed_async_connection().await.unwrap();
        (node, redis)
    });
    Bench {
        runtime,
        allocator,
        node,
        redis,
        backend,
    }
}

impl Bench {
    /// Puts `n` fresh indexes from the ledger into the shard's stock (untimed).
    fn stock(&self, kind: DispenserKind, n: u64) {
        self.runtime.block_on(async {
            let slot = Slot {
                app: APP,
                shard: SHARD,
            };
            let request = idgen::store::SegmentRequest {
                app: APP,
                node: None,
                now_ms: 0,
                shards: vec![(SHARD, idgen::segment::sizing::Want::Direct { wanted: n })],
                floors: Default::default(),
            };
            let takes = self.backend.ledger.take_segments(&request).await.unwrap();
            let segment: Segment = takes[0].1.as_ref().unwrap().segment.unwrap();
            let locked = self
                .node
                .lock(kind, slot, Duration::from_secs(60))
                .await
                .unwrap()
                .expect("bench lock");
            self.node
                .push(kind, slot, segment, 0, &locked.token)
                .await
                .unwrap();
            self.node.unlock(slot, &locked.token).await.unwrap();
        });
    }

    /// Fills a plain list for the bare-LPOP side (untimed).
    fn fill_plain_list(&self, n: u64) {
        let mut conn = self.redis.clone();
        self.runtime.block_on(async {
            let values: Vec<u64> = (1..=n.min(100_000)).collect();
            let mut left = n;
            while left > 0 {
                let chunk = left.min(values.len() as u64) as usize;
                let _: () = redis::cmd("RPUSH")
                    .arg("bench.bare")
                    .arg(&values[..chunk])
                    .query_async(&mut conn)
                    .await
                    .unwrap();
                left -= chunk as u64;
            }
        });
    }
}

fn warm_next(c: &mut Criterion) {
    let bench = setup(DispenserKind::Queue);
    let mut group = c.benchmark_group("warm_next");
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("bare_lpop", |b| {
        b.iter_custom(|iters| {
            bench.fill_plain_list(iters);
            let mut conn = bench.redis.clone();
            bench.runtime.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    let popped: Option<Vec<String>> = redis::cmd("LPOP")
                        .arg("bench.bare")
                        .arg(1)
                        .query_async(&mut conn)
                        .await
                        .unwrap();
                    assert!(popped.is_some());
                }
                started.elapsed()
            })
        })
    });
    // The per-take check idgen uses on a connection it cannot show is direct
    // (a proxy, NAT): the same stock script, asking the server's INFO.
    let script = redis::Script::new(&format!(
        "{}\n{}",
        include_str!("../src/store/redis/lua/stock/prelude.lua"),
        include_str!("../src/store/redis/lua/stock/take_queue.lua")
    ));
    group.bench_function("per_take_check_script", |b| {
        b.iter_custom(|iters| {
            bench.stock(DispenserKind::Queue, iters);
            let mut conn = bench.redis.clone();
            let slot = Slot {
                app: APP,
                shard: SHARD,
            };
            let keys = [
                idgen::store::redis::queue_key(slot),
                idgen::store::redis::range_key(slot),
                idgen::store::redis::stamp_key(slot),
            ];
            bench.runtime.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    let answer: Vec<redis::Value> = script
                        .key(&keys[0])
                        .key(&keys[1])
                        .key(&keys[2])
                        .arg(1)
                        .arg("")
                        .invoke_async(&mut conn)
                        .await
                        .unwrap();
                    // Rollback, retired, the stamp's two fields, and the index taken.
                    assert_eq!(answer.len(), 5);
                }
                started.elapsed()
            })
        })
    });
    group.bench_function("idgen_next_queue", |b| {
        b.iter_custom(|iters| {
            bench.stock(DispenserKind::Queue, iters);
            bench.runtime.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    let issued = bench.allocator.next(APP, Some(GATE_PASS), 1).await.unwrap();
                    assert_eq!(issued.ids.len(), 1);
                }
                started.elapsed()
            })
        })
    });
    drop(group);

    let range = setup(DispenserKind::Range);
    let mut group = c.benchmark_group("warm_next");
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("idgen_next_range", |b| {
        b.iter_custom(|iters| {
            range.stock(DispenserKind::Range, iters);
            range.runtime.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    let issued = range.allocator.next(APP, Some(GATE_PASS), 1).await.unwrap();
                    assert_eq!(issued.ids.len(), 1);
                }
                started.elapsed()
            })
        })
    });
    group.finish();
}

fn batch(c: &mut Criterion) {
    let bench = setup(DispenserKind::Queue);
    let mut group = c.benchmark_group("batch");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(10));
    let count = 100_000u64;
    group.throughput(Throughput::Elements(count));
    group.bench_with_input(
        BenchmarkId::new("next_count", count),
        &count,
        |b, &count| {
            b.iter(|| {
                bench.runtime.block_on(async {
                    let issued = bench.allocator.next(APP, None, count).await.unwrap();
                    assert_eq!(issued.ids.len() as u64, count);
                })
            })
        },
    );
    group.finish();
}

criterion_group!(benches, warm_next, batch);
criterion_main!(benches);
