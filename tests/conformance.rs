//! The storage traits' contracts, checked at the trait level against every
//! backend: Redis + MySQL and the embedded SQLite store run the same cases,
//! as tikv's `engine_traits_tests` do for its engines.

use crate::harness::{TestEnv, limit_with_last_index};
use idgen::backend::Backend;
use idgen::layout::Layout;
use idgen::lease::{Assigner, LeaseAdmin, LeaseStore, NamespaceSpec, Renewal, WorkerNodeAssigner};
use idgen::segment::DispenserKind::{self, Queue, Range};
use idgen::segment::sizing::{Trigger, Want};
use idgen::store::{
    AppChange, AppPolicy, AppSpec, Dispenser, InitOutcome, Ledger, PushOutcome, Pushed, Route,
    Segment, SegmentRequest, Slot, TakenSegment,
};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

const TTL: Duration = Duration::from_secs(10);
/// A lock or lease that expires at once, by the store's own clock.
const MOMENT: Duration = Duration::from_millis(1);
const SLOT: Slot = Slot { app: 1, shard: 5 };
/// Another shard of the same app.
const BESIDE: Slot = Slot { app: 1, shard: 6 };

fn spec(app: u8, name: &str, step: u64, max_limit_id: u64) -> AppSpec {
    AppSpec::validated(
        app,
        name,
        None,
        step,
        max_limit_id,
        AppPolicy::for_step(step),
    )
    .unwrap()
}

/// A leased namespace of the given bit layout.
fn namespace(name: &str, bits: &str) -> NamespaceSpec {
    let layout = Layout::custom(bits, None, Some(1_577_836_800_000)).unwrap();
    NamespaceSpec::new(name, &layout, Assigner::Lease).unwrap()
}

/// The test environment's stores, opened through the library as a command would.
struct Stores {
    ledger: Arc<dyn Ledger>,
    dispenser: Arc<dyn Dispenser>,
    leases: Arc<dyn LeaseStore>,
    lease_admin: Arc<dyn LeaseAdmin>,
    backend: Backend,
    runtime: tokio::runtime::Runtime,
}

impl Stores {
    fn of(env: &TestEnv) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let backend = env.backend();
        let (dispenser, leases, lease_admin) = runtime.block_on(async {
            let node = backend.nodes.default_node().to_string();
            (
                backend.nodes.get(&node).await.unwrap(),
                backend.lease_store().await.unwrap(),
                backend.lease_admin().await.unwrap(),
            )
        });
        Stores {
            ledger: backend.ledger.clone(),
            dispenser,
            leases,
            lease_admin,
            backend,
            runtime,
        }
    }

    fn block<T>(&self, future: impl std::future::Future<Output = T>) -> T {
        self.runtime.block_on(future)
    }

    fn init_app(&self, app: u8, step: u64, max_limit_id: u64) {
        self.block(
            self.ledger
                .init_app(&spec(app, "conformance", step, max_limit_id)),
        )
        .unwrap();
    }

    /// Takes `wanted` indexes of one shard for the caller.
    fn take(&self, slot: Slot, wanted: u64) -> Option<Segment> {
        self.take_one(slot, None, Want::Direct { wanted })
            .unwrap()
            .segment
    }

    /// One shard's answer to a request for it alone, stocking `node` if given.
    fn take_one(&self, slot: Slot, node: Option<&str>, want: Want) -> idgen::Result<TakenSegment> {
        let request = SegmentRequest {
            app: slot.app,
            node: node.map(str::to_string),
            now_ms: 0,
            shards: vec![(slot.shard, want)],
            floors: Default::default(),
        };
        let mut takes = self.block(self.ledger.take_segments(&request))?;
        assert_eq!(takes.len(), 1);
        takes.pop().unwrap().1
    }

    fn lock(&self, kind: DispenserKind, slot: Slot) -> idgen::store::LockToken {
        self.block(self.dispenser.lock(kind, slot, TTL))
            .unwrap()
            .expect("the lock is free")
            .token
    }

    fn push(
        &self,
        kind: DispenserKind,
        segment: Segment,
        token: &idgen::store::LockToken,
    ) -> PushOutcome {
        self.push_to(kind, SLOT, segment, token).outcome
    }

    fn push_to(
        &self,
        kind: DispenserKind,
        slot: Slot,
        segment: Segment,
        token: &idgen::store::LockToken,
    ) -> Pushed {
        self.block(self.dispenser.push(kind, slot, segment, 0, token))
            .unwrap()
    }

    /// The indexes `n` takes of SLOT's stock, guessing `kind`.
    fn take_stock(&self, kind: DispenserKind, n: u64) -> Vec<u64> {
        self.block(self.dispenser.take(kind, SLOT, n))
            .unwrap()
            .indexes
    }

    /// SLOT's stock of `kind` (`None`: missing).
    fn stock(&self, kind: DispenserKind) -> Option<u64> {
        self.block(self.dispenser.stock(kind, &[SLOT])).unwrap()[0]
    }

    fn serve_by(&self, kind: DispenserKind) {
        let change = AppChange {
            dispenser: Some(kind),
            ..AppChange::default()
        };
        self.block(self.ledger.update_app(SLOT.app, &change))
            .unwrap();
    }
}

// ---- Ledger -----------------------------------------------------------------------

fn concurrent_takes_of_one_shard_never_overlap(env: &TestEnv) {
    let stores = Arc::new(Stores::of(env));
    stores.init_app(1, 100, 0);
    let threads: Vec<_> = (0..6)
        .map(|_| {
            let stores = stores.clone();
            std::thread::spawn(move || {
                (0..15)
                    .map(|_| stores.take(SLOT, 37).expect("a segment"))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut seen = BTreeSet::new();
    for thread in threads {
        for segment in thread.join().unwrap() {
            assert_eq!(segment.count(), 37);
            for index in segment.indexes() {
                assert!(seen.insert(index), "index {index} was taken twice");
            }
        }
    }
    let record = stores.block(stores.ledger.app(1)).unwrap().unwrap();
    assert_eq!(
        record.shards[5].max_id,
        6 * 15 * 37,
        "max_id is the last index taken"
    );
}

fn consecutive_takes_follow_each_other_and_a_take_of_none_takes_nothing(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    assert_eq!(stores.take(SLOT, 10), Some(Segment { first: 1, last: 10 }));
    assert_eq!(stores.take(SLOT, 0), None);
    assert_eq!(
        stores.take(SLOT, 5),
        Some(Segment {
            first: 11,
            last: 15
        })
    );
}

fn a_take_stops_at_max_limit_id(env: &TestEnv) {
    let stores = Stores::of(env);
    // Index 10 of shard 63 is the last one app 1 may issue; shard 5 allows index 10 too.
    let limit = limit_with_last_index(10, 1);
    stores.init_app(1, 100, limit);
    let segment = stores.take(SLOT, 100).expect("up to the limit");
    assert_eq!((segment.first, segment.last), (1, 10));
    let refused = stores.take_one(SLOT, None, Want::Direct { wanted: 1 });
    assert!(
        matches!(refused, Err(idgen::Error::LimitReached { .. })),
        "{refused:?}"
    );
}

fn a_take_for_a_node_the_route_does_not_allow_is_moved_and_takes_nothing(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let refused = stores.take_one(SLOT, Some("elsewhere"), Want::Direct { wanted: 5 });
    match refused {
        Err(idgen::Error::Moved { app: 1, node }) => assert_eq!(node, stores.dispenser.node()),
        other => panic!("{other:?}"),
    }
    assert_eq!(stores.take(SLOT, 1), Some(Segment { first: 1, last: 1 }));
}

fn an_app_never_moved_is_routed_to_the_default_node(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let node = stores.dispenser.node().to_string();
    // Stock above what an empty-stock refill wants: the shard is read, nothing taken.
    let want = Want::Refill {
        trigger: Trigger::Empty,
        stock: 5,
        direct_for: None,
    };
    let taken = stores.take_one(SLOT, Some(&node), want).unwrap();
    assert_eq!(taken.segment, None);
    assert_eq!(
        taken.state.route,
        Route {
            node,
            incoming: None,
            outgoing: None
        }
    );
    assert!(stores.block(stores.ledger.routes()).unwrap().is_empty());
}

fn an_unknown_app_or_a_missing_shard_is_named(env: &TestEnv) {
    let stores = Stores::of(env);
    let unknown = stores.take_one(SLOT, None, Want::Direct { wanted: 1 });
    assert!(
        matches!(unknown, Err(idgen::Error::UnknownApp { app: 1 })),
        "{unknown:?}"
    );
    stores.init_app(1, 100, 0);
    env.sql("DELETE FROM id_alloc WHERE app_id = 1 AND shard_id = 5");
    let missing = stores.take_one(SLOT, None, Want::Direct { wanted: 1 });
    assert!(
        matches!(
            missing,
            Err(idgen::Error::ShardMissing { app: 1, shard: 5 })
        ),
        "{missing:?}"
    );
}

fn init_app_is_all_or_nothing_and_idempotent(env: &TestEnv) {
    let stores = Stores::of(env);
    let orders = spec(1, "orders", 100, 0);
    let first = stores.block(stores.ledger.init_app(&orders)).unwrap();
    assert_eq!(first.outcome, InitOutcome::Created);
    assert_eq!(first.app.shards.len(), 64);
    let again = stores.block(stores.ledger.init_app(&orders)).unwrap();
    assert_eq!(again.outcome, InitOutcome::Unchanged);
    let record = stores.block(stores.ledger.app(1)).unwrap().unwrap();
    assert_eq!(record.shards.len(), 64);
    let conflict = stores.block(stores.ledger.init_app(&spec(1, "users", 100, 0)));
    assert!(
        matches!(conflict, Err(idgen::Error::AppNameConflict { .. })),
        "{conflict:?}"
    );
    assert_eq!(
        stores.block(stores.ledger.app(2)).unwrap().map(|a| a.app),
        None
    );
}

fn the_dispenser_record_defaults_to_queue_and_changes_only_on_request(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    assert_eq!(stores.block(stores.ledger.dispenser(1)).unwrap(), Queue);
    stores.serve_by(Range);
    assert_eq!(stores.block(stores.ledger.dispenser(1)).unwrap(), Range);
    let unrelated = AppChange {
        step: Some(200),
        ..AppChange::default()
    };
    let record = stores
        .block(stores.ledger.update_app(1, &unrelated))
        .unwrap();
    assert_eq!(record.dispenser, Range);
}

// ---- Dispenser --------------------------------------------------------------------

fn a_queue_serves_pushed_segments_in_order_once(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    assert_eq!(
        stores.push(Queue, Segment { first: 1, last: 3 }, &token),
        PushOutcome::Stocked(3)
    );
    assert_eq!(
        stores.push(Queue, Segment { first: 4, last: 5 }, &token),
        PushOutcome::Stocked(5)
    );
    let taken = stores.block(stores.dispenser.take(Queue, SLOT, 4)).unwrap();
    assert_eq!(taken.indexes, [1, 2, 3, 4]);
    assert_eq!(taken.kind, Some(Queue));
    assert_eq!(stores.stock(Queue), Some(1));
    assert_eq!(stores.take_stock(Queue, 4), [5]);
    assert!(stores.take_stock(Queue, 4).is_empty());
}

fn a_used_up_queue_is_missing_under_the_lock(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    stores.push(Queue, Segment { first: 1, last: 2 }, &token);
    assert_eq!(stores.take_stock(Queue, 5), [1, 2]);
    assert!(stores.block(stores.dispenser.unlock(SLOT, &token)).unwrap());
    let locked = stores
        .block(stores.dispenser.lock(Queue, SLOT, TTL))
        .unwrap()
        .expect("the lock is free");
    assert_eq!(locked.stock, None);
}

fn a_range_holds_a_current_and_a_pending_segment(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    stores.serve_by(Range);
    let token = stores.lock(Range, SLOT);
    assert_eq!(
        stores.push(Range, Segment { first: 1, last: 3 }, &token),
        PushOutcome::Stocked(3)
    );
    assert_eq!(
        stores.push(Range, Segment { first: 4, last: 5 }, &token),
        PushOutcome::Stocked(5)
    );
    assert_eq!(
        stores.push(Range, Segment { first: 6, last: 15 }, &token),
        PushOutcome::Full
    );
    // A guess of the other kind still gets the range's indexes.
    let taken = stores.block(stores.dispenser.take(Queue, SLOT, 4)).unwrap();
    assert_eq!(taken.indexes, [1, 2, 3, 4]);
    assert_eq!(taken.kind, Some(Range));
    assert_eq!(stores.stock(Range), Some(1));
}

fn a_take_runs_through_a_ranges_current_segment_into_its_pending_one(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    stores.serve_by(Range);
    let token = stores.lock(Range, SLOT);
    stores.push(Range, Segment { first: 1, last: 3 }, &token);
    assert_eq!(
        stores.push(Range, Segment { first: 4, last: 13 }, &token),
        PushOutcome::Stocked(13)
    );
    let expected: Vec<u64> = (1..=13).collect();
    assert_eq!(stores.take_stock(Range, 100), expected);
    assert_eq!(
        stores.stock(Range),
        Some(0),
        "a used-up range is still present"
    );
}

fn a_push_onto_a_used_up_range_promotes_its_pending_segment(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    stores.serve_by(Range);
    let token = stores.lock(Range, SLOT);
    stores.push(Range, Segment { first: 1, last: 2 }, &token);
    stores.push(Range, Segment { first: 3, last: 4 }, &token);
    assert_eq!(stores.take_stock(Range, 2), [1, 2]);
    assert_eq!(
        stores.push(Range, Segment { first: 5, last: 5 }, &token),
        PushOutcome::Stocked(3)
    );
    assert_eq!(stores.take_stock(Range, 10), [3, 4, 5]);
}

fn a_push_of_the_other_kind_retires_the_stock_the_shard_left(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    stores.push(Queue, Segment { first: 1, last: 10 }, &token);
    stores.serve_by(Range);
    let pushed = stores.push_to(
        Range,
        SLOT,
        Segment {
            first: 11,
            last: 12,
        },
        &token,
    );
    assert_eq!(pushed.outcome, PushOutcome::Stocked(2));
    assert_eq!(pushed.switched, 10);
    assert_eq!(stores.stock(Queue), Some(0));
    assert_eq!(stores.take_stock(Queue, 5), [11, 12]);
}

fn a_lock_is_exclusive_and_a_lost_token_changes_nothing(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    for kind in [Queue, Range] {
        assert!(
            stores
                .block(stores.dispenser.lock(kind, SLOT, TTL))
                .unwrap()
                .is_none(),
            "one lock per shard, whatever the kind"
        );
    }
    assert!(stores.block(stores.dispenser.unlock(SLOT, &token)).unwrap());
    assert!(
        !stores.block(stores.dispenser.unlock(SLOT, &token)).unwrap(),
        "released once"
    );
    assert_eq!(
        stores.push(Queue, Segment { first: 1, last: 5 }, &token),
        PushOutcome::LockLost
    );
    assert_eq!(
        stores
            .block(stores.dispenser.retire(Queue, SLOT, &token))
            .unwrap(),
        None
    );
    assert_eq!(
        stores
            .block(stores.dispenser.switch_kind(Range, SLOT, &token))
            .unwrap(),
        None
    );
    assert_eq!(
        stores
            .block(stores.dispenser.stock(Queue, &[SLOT]))
            .unwrap(),
        [Some(0)]
    );
}

/// Takes SLOT's lock for a moment and waits until the store lets it expire.
fn an_expired_lock(env: &TestEnv, stores: &Stores) -> idgen::store::LockToken {
    let token = stores
        .block(stores.dispenser.lock(Queue, SLOT, MOMENT))
        .unwrap()
        .expect("the lock is free")
        .token;
    crate::harness::wait_until(Duration::from_secs(10), "the lock to expire", || {
        env.held_refill_locks(SLOT.app) == 0
    });
    token
}

fn an_expired_lock_is_taken_over_and_its_old_token_changes_nothing(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let expired = an_expired_lock(env, &stores);
    let taken_over = stores.lock(Queue, SLOT);
    assert_ne!(taken_over, expired);
    assert_eq!(
        stores.push(Queue, Segment { first: 1, last: 5 }, &expired),
        PushOutcome::LockLost
    );
    assert_eq!(
        stores
            .block(stores.dispenser.retire(Queue, SLOT, &expired))
            .unwrap(),
        None
    );
    assert!(
        !stores
            .block(stores.dispenser.unlock(SLOT, &expired))
            .unwrap()
    );
    assert!(
        stores
            .block(stores.dispenser.unlock(SLOT, &taken_over))
            .unwrap()
    );
}

fn an_expired_lock_no_longer_lets_its_holder_push(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let expired = an_expired_lock(env, &stores);
    assert_eq!(
        stores.push(Queue, Segment { first: 1, last: 5 }, &expired),
        PushOutcome::LockLost
    );
    assert_eq!(stores.stock(Queue), Some(0));
}

fn retire_and_switch_drop_stock_under_the_lock(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    stores.push(Queue, Segment { first: 1, last: 7 }, &token);
    stores.push(Queue, Segment { first: 8, last: 10 }, &token);
    assert_eq!(
        stores
            .block(stores.dispenser.retire(Queue, SLOT, &token))
            .unwrap(),
        Some(10)
    );
    assert_eq!(stores.stock(Queue), Some(0));
    let slots = stores.block(stores.dispenser.stocked_slots(Queue)).unwrap();
    assert!(slots.is_empty(), "{slots:?}");
    stores.push(
        Queue,
        Segment {
            first: 30,
            last: 32,
        },
        &token,
    );
    assert_eq!(
        stores
            .block(stores.dispenser.switch_kind(Range, SLOT, &token))
            .unwrap(),
        Some(3),
        "the queue's stock goes with the switch"
    );
    assert_eq!(stores.stock(Queue), Some(0));
    let slots = stores.block(stores.dispenser.stocked_slots(Queue)).unwrap();
    assert!(slots.is_empty(), "{slots:?}");
}

fn stocked_slots_lists_the_shards_stocked_by_each_kind(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    stores.push_to(Queue, SLOT, Segment { first: 1, last: 1 }, &token);
    let beside = stores.lock(Range, BESIDE);
    stores.push_to(Range, BESIDE, Segment { first: 2, last: 2 }, &beside);
    assert_eq!(
        stores.block(stores.dispenser.stocked_slots(Queue)).unwrap(),
        [SLOT]
    );
    assert_eq!(
        stores.block(stores.dispenser.stocked_slots(Range)).unwrap(),
        [BESIDE]
    );
}

// ---- LeaseStore -------------------------------------------------------------------

fn leases_are_exclusive_renewable_and_released(env: &TestEnv) {
    let stores = Stores::of(env);
    let layout = Layout::named("snowflake").unwrap();
    let spec = NamespaceSpec::new("conformance", &layout, Assigner::Lease).unwrap();
    let far = i64::MAX / 4;
    let first = stores
        .block(stores.leases.acquire(&spec, "a", TTL, far))
        .unwrap();
    let second = stores
        .block(stores.leases.acquire(&spec, "b", TTL, far))
        .unwrap();
    assert_ne!(first.worker, second.worker);
    assert_ne!(first.token, second.token);
    let renewed = stores
        .block(
            stores
                .leases
                .renew("conformance", first.worker, &first.token, TTL, far),
        )
        .unwrap();
    assert!(
        matches!(renewed, Renewal::Held | Renewal::Restored),
        "{renewed:?}"
    );
    let stolen = stores
        .block(
            stores
                .leases
                .renew("conformance", first.worker, &second.token, TTL, far),
        )
        .unwrap();
    assert_eq!(
        stolen,
        Renewal::Lost,
        "another holder's token holds nothing"
    );
    assert!(
        stores
            .block(
                stores
                    .leases
                    .release("conformance", first.worker, &first.token, far)
            )
            .unwrap()
    );
    assert!(
        !stores
            .block(
                stores
                    .leases
                    .release("conformance", first.worker, &first.token, far)
            )
            .unwrap()
    );
    let snapshot = stores
        .block(stores.lease_admin.snapshot("conformance"))
        .unwrap();
    assert_eq!(snapshot.held.len(), 1, "{snapshot:?}");
    assert_eq!(snapshot.held[0].worker, second.worker);
}

fn acquire_hands_out_each_worker_once_until_all_are_held(env: &TestEnv) {
    let stores = Stores::of(env);
    let ns = namespace("ns", "time:41,worker:2,seq:20");
    let workers: Vec<u64> = (0..4)
        .map(|i| {
            stores
                .block(stores.leases.acquire(&ns, &format!("h{i}"), TTL, 100))
                .unwrap()
                .worker
        })
        .collect();
    assert_eq!(workers, [0, 1, 2, 3]);
    let late = stores.block(stores.leases.acquire(&ns, "late", TTL, 100));
    assert!(
        matches!(late, Err(idgen::Error::AllWorkersHeld { capacity: 4, .. })),
        "{late:?}"
    );
}

fn an_expired_lease_frees_its_worker_and_its_fence_is_the_next_floor(env: &TestEnv) {
    let stores = Stores::of(env);
    let ns = namespace("ns", "time:41,worker:1,seq:21");
    let first = stores
        .block(stores.leases.acquire(&ns, "a", MOMENT, 500))
        .unwrap();
    stores
        .block(stores.leases.acquire(&ns, "b", TTL, 500))
        .unwrap();
    crate::harness::wait_until(Duration::from_secs(10), "the lease to expire", || {
        let snapshot = stores.block(stores.lease_admin.snapshot("ns")).unwrap();
        snapshot.held.iter().all(|h| h.worker != first.worker)
    });
    // The next holder's clock (its fence is `now + ttl`) is past the first one's
    // fence too: MySQL judges a lease by its fence, Redis and SQLite by its expiry.
    let ttl_ms = TTL.as_millis() as i64;
    let again = stores
        .block(stores.leases.acquire(&ns, "c", TTL, 900 + ttl_ms))
        .unwrap();
    assert_eq!(again.worker, first.worker);
    assert_eq!(again.floor_ms, Some(500));
    let renewed =
        stores.block(
            stores
                .leases
                .renew("ns", first.worker, &first.token, TTL, 1_000 + ttl_ms),
        );
    assert_eq!(renewed.unwrap(), Renewal::Lost, "the old holder lost it");
    assert!(
        !stores
            .block(
                stores
                    .leases
                    .release("ns", first.worker, &first.token, 1_000)
            )
            .unwrap()
    );
}

fn release_fences_the_worker_at_its_last_time_and_frees_it(env: &TestEnv) {
    let stores = Stores::of(env);
    let ns = namespace("ns", "time:41,worker:1,seq:21");
    let grant = stores
        .block(stores.leases.acquire(&ns, "a", TTL, 5_000))
        .unwrap();
    let renewed = stores.block(
        stores
            .leases
            .renew("ns", grant.worker, &grant.token, TTL, 6_000),
    );
    assert_eq!(renewed.unwrap(), Renewal::Held);
    assert!(
        stores
            .block(
                stores
                    .leases
                    .release("ns", grant.worker, &grant.token, 4_200)
            )
            .unwrap()
    );
    let snapshot = stores.block(stores.lease_admin.snapshot("ns")).unwrap();
    assert!(snapshot.held.is_empty(), "{snapshot:?}");
    assert!(snapshot.free.contains(&grant.worker), "{snapshot:?}");
    assert!(
        snapshot.fences.contains(&(grant.worker, 4_200)),
        "{snapshot:?}"
    );
    let problems = idgen::lease::problems(&snapshot);
    assert!(problems.is_empty(), "{problems:?}");
}

fn a_namespace_keeps_the_signature_it_was_first_used_with(env: &TestEnv) {
    let stores = Stores::of(env);
    let first = namespace("ns", "time:41,worker:1,seq:21");
    stores
        .block(stores.leases.acquire(&first, "a", TTL, 0))
        .unwrap();
    let other = namespace("ns", "time:41,worker:2,seq:20");
    let refused = stores.block(stores.leases.acquire(&other, "b", TTL, 0));
    assert!(
        matches!(refused, Err(idgen::Error::NamespaceMismatch { .. })),
        "{refused:?}"
    );
    assert_eq!(
        stores.block(stores.lease_admin.namespaces()).unwrap(),
        ["ns"]
    );
}

fn the_namespace_lock_is_exclusive_until_its_holder_releases_it(env: &TestEnv) {
    let stores = Stores::of(env);
    let lock = || {
        stores
            .block(stores.lease_admin.lock_namespace("ns", TTL))
            .unwrap()
    };
    let token = lock().expect("the lock is free");
    assert!(lock().is_none());
    stores
        .block(stores.lease_admin.unlock_namespace("ns", "not-ours"))
        .unwrap();
    assert!(lock().is_none(), "another token releases nothing");
    stores
        .block(stores.lease_admin.unlock_namespace("ns", &token))
        .unwrap();
    assert!(lock().is_some());
}

// ---- WorkerNodeAssigner -----------------------------------------------------------

fn the_worker_node_assigner_never_reuses_an_id(env: &TestEnv) {
    let stores = Stores::of(env);
    let assigner: Arc<dyn WorkerNodeAssigner> =
        stores.block(stores.backend.worker_nodes()).unwrap();
    let layout = Layout::custom("time:41,worker:2,seq:20", None, Some(0)).unwrap();
    let ns = NamespaceSpec::new("uid", &layout, Assigner::WorkerNode).unwrap();
    let ids: Vec<u64> = (0..3)
        .map(|_| stores.block(assigner.assign(&ns, "host", "1")).unwrap())
        .collect();
    assert_eq!(ids, [1, 2, 3]);
    let exhausted = stores.block(assigner.assign(&ns, "host", "1"));
    assert!(
        matches!(
            exhausted,
            Err(idgen::Error::WorkerIdsExhausted { assigned: 4, .. })
        ),
        "{exhausted:?}"
    );
}

crate::on_both_backends!(
    concurrent_takes_of_one_shard_never_overlap,
    consecutive_takes_follow_each_other_and_a_take_of_none_takes_nothing,
    a_take_stops_at_max_limit_id,
    a_take_for_a_node_the_route_does_not_allow_is_moved_and_takes_nothing,
    an_app_never_moved_is_routed_to_the_default_node,
    an_unknown_app_or_a_missing_shard_is_named,
    init_app_is_all_or_nothing_and_idempotent,
    the_dispenser_record_defaults_to_queue_and_changes_only_on_request,
    a_queue_serves_pushed_segments_in_order_once,
    a_used_up_queue_is_missing_under_the_lock,
    a_range_holds_a_current_and_a_pending_segment,
    a_take_runs_through_a_ranges_current_segment_into_its_pending_one,
    a_push_onto_a_used_up_range_promotes_its_pending_segment,
    a_push_of_the_other_kind_retires_the_stock_the_shard_left,
    a_lock_is_exclusive_and_a_lost_token_changes_nothing,
    an_expired_lock_is_taken_over_and_its_old_token_changes_nothing,
    an_expired_lock_no_longer_lets_its_holder_push,
    retire_and_switch_drop_stock_under_the_lock,
    stocked_slots_lists_the_shards_stocked_by_each_kind,
    leases_are_exclusive_renewable_and_released,
    acquire_hands_out_each_worker_once_until_all_are_held,
    an_expired_lease_frees_its_worker_and_its_fence_is_the_next_floor,
    release_fences_the_worker_at_its_last_time_and_frees_it,
    a_namespace_keeps_the_signature_it_was_first_used_with,
    the_namespace_lock_is_exclusive_until_its_holder_releases_it,
    the_worker_node_assigner_never_reuses_an_id,
    a_ledger_below_its_floor_is_moved_past_it_and_says_so,
);

fn a_ledger_below_its_floor_is_moved_past_it_and_says_so(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 10, 0);
    let request = SegmentRequest {
        app: SLOT.app,
        node: None,
        now_ms: 0,
        shards: vec![
            (SLOT.shard, Want::Direct { wanted: 5 }),
            (BESIDE.shard, Want::Direct { wanted: 5 }),
        ],
        floors: [(SLOT.shard, 40)].into(),
    };
    let takes = stores.block(stores.ledger.take_segments(&request)).unwrap();
    let below = takes[0].1.as_ref().unwrap();
    assert_eq!(below.behind, Some(0));
    assert_eq!(
        below.segment,
        Some(Segment {
            first: 41,
            last: 45
        })
    );
    let beside = takes[1].1.as_ref().unwrap();
    assert_eq!(
        (beside.behind, beside.segment),
        (None, Some(Segment { first: 1, last: 5 }))
    );
    // The move past the floor is durable: the next take follows it.
    assert_eq!(
        stores.take(SLOT, 1),
        Some(Segment {
            first: 46,
            last: 46
        })
    );
}

/// The witness: the end of the highest segment a shard's ledger handed out,
/// kept on its Redis node (the embedded store is its own ledger and keeps none).
fn witness(env: &TestEnv, slot: Slot) -> Option<u64> {
    let key = idgen::store::redis::witness_key(slot);
    redis::cmd("HGET")
        .arg(key)
        .arg("last")
        .query(&mut env.redis())
        .unwrap()
}

#[test]
fn a_redis_push_at_or_below_the_witness_is_refused_and_stocks_nothing() {
    let env = TestEnv::distributed();
    let stores = Stores::of(&env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    stores.push(Queue, Segment { first: 1, last: 3 }, &token);
    assert_eq!(witness(&env, SLOT), Some(3));
    // Another refill whose ledger handed out 2..=5 again (it went back in time).
    let again = stores.push(Queue, Segment { first: 2, last: 5 }, &token);
    assert_eq!(again, PushOutcome::Behind(3));
    assert_eq!(stores.take_stock(Queue, 10), [1, 2, 3]);
    assert_eq!(witness(&env, SLOT), Some(3));
}

#[test]
fn a_redis_push_past_an_unrecorded_segment_retires_the_older_stock() {
    let env = TestEnv::distributed();
    let stores = Stores::of(&env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    stores.push(Queue, Segment { first: 1, last: 3 }, &token);
    // 4..=6 was handed out and never recorded: the stock may be older than the ledger.
    let pushed = stores.push_to(Queue, SLOT, Segment { first: 7, last: 8 }, &token);
    assert_eq!(pushed.outcome, PushOutcome::Stocked(2));
    assert_eq!(pushed.settled.stale, 3);
    assert_eq!(stores.take_stock(Queue, 10), [7, 8]);
    assert_eq!(witness(&env, SLOT), Some(8));
}

#[test]
fn a_redis_direct_take_is_witnessed_and_one_below_the_witness_is_refused() {
    let env = TestEnv::distributed();
    let stores = Stores::of(&env);
    stores.init_app(1, 100, 0);
    let direct = |segment| {
        stores
            .block(stores.dispenser.witness(SLOT, segment))
            .unwrap()
    };
    assert_eq!(direct(Segment { first: 1, last: 5 }), None);
    assert_eq!(witness(&env, SLOT), Some(5));
    assert_eq!(direct(Segment { first: 5, last: 9 }), Some(5));
    assert_eq!(witness(&env, SLOT), Some(5), "a refusal records nothing");
    assert_eq!(direct(Segment { first: 6, last: 9 }), None);
}

#[test]
fn a_redis_push_resent_after_its_stock_was_retired_is_not_stocked_again() {
    let env = TestEnv::distributed();
    let stores = Stores::of(&env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    let segment = Segment { first: 1, last: 3 };
    stores.push(Queue, segment, &token);
    assert_eq!(stores.take_stock(Queue, 1), [1]);
    // The push reached a master whose stock was then retired (a replica
    // promoted with a new replication ID, before the client's resend).
    let stamp = idgen::store::redis::stamp_key(SLOT);
    let _: () = redis::cmd("HSET")
        .arg(stamp)
        .arg("replid")
        .arg("0000")
        .query(&mut env.redis())
        .unwrap();
    let again = stores.push(Queue, segment, &token);
    assert_eq!(again, PushOutcome::Stocked(0));
    assert!(stores.take_stock(Queue, 10).is_empty());
}

#[test]
fn a_redis_settle_retires_stock_above_a_lowered_limit_and_records_it() {
    let env = TestEnv::distributed();
    let stores = Stores::of(&env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    stores.push(Queue, Segment { first: 1, last: 10 }, &token);
    let limit = limit_with_last_index(6, SLOT.app);
    let settled = stores
        .block(stores.dispenser.settle(SLOT, &token, 10, limit))
        .unwrap()
        .expect("the lock is ours");
    assert_eq!((settled.stale, settled.over_limit), (0, 10));
    let taken = stores.block(stores.dispenser.take(Queue, SLOT, 1)).unwrap();
    assert_eq!(taken.max_limit_id, Some(limit));
}

/// Redis only: a cluster client sends a script again when its answer was lost,
/// so a push must be safe to repeat. (The embedded store pushes in a local
/// transaction, which is never sent twice.)
#[test]
fn a_redis_push_sent_again_stocks_its_segment_once() {
    let env = TestEnv::distributed();
    let stores = Stores::of(&env);
    stores.init_app(1, 100, 0);
    for (kind, slot) in [(Queue, SLOT), (Range, Slot { app: 1, shard: 3 })] {
        let token = stores
            .block(stores.dispenser.lock(kind, slot, TTL))
            .unwrap()
            .expect("the lock is free")
            .token;
        let segment = Segment { first: 1, last: 3 };
        let first = stores.push_to(kind, slot, segment, &token).outcome;
        let again = stores.push_to(kind, slot, segment, &token).outcome;
        assert_eq!(
            (first, again),
            (PushOutcome::Stocked(3), PushOutcome::Stocked(3))
        );
        let taken = stores.block(stores.dispenser.take(kind, slot, 10)).unwrap();
        assert_eq!(taken.indexes, [1, 2, 3], "{kind:?}");
    }
}
