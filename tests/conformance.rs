//! The storage traits' contracts, checked at the trait level against every
//! backend: Redis + MySQL and the embedded SQLite store run the same cases,
//! as tikv's `engine_traits_tests` do for its engines.

use crate::harness::{StoreKind, TestEnv};
use idgen::backend::Backend;
use idgen::config::{DEFAULT_NODE, Settings};
use idgen::layout::Layout;
use idgen::lease::{Assigner, LeaseStore, NamespaceSpec, Renewal};
use idgen::redact::SecretUrl;
use idgen::segment::DispenserKind::{self, Queue, Range};
use idgen::segment::sizing::Want;
use idgen::store::{
    AppChange, AppPolicy, AppSpec, Dispenser, Ledger, PushOutcome, Segment, SegmentRequest, Slot,
};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

const TTL: Duration = Duration::from_secs(10);
const SLOT: Slot = Slot { app: 1, shard: 5 };

/// The test environment's stores, opened through the library as a command would.
struct Stores {
    ledger: Arc<dyn Ledger>,
    dispenser: Arc<dyn Dispenser>,
    leases: Arc<dyn LeaseStore>,
    runtime: tokio::runtime::Runtime,
}

impl Stores {
    fn of(env: &TestEnv) -> Self {
        let mut settings = Settings::default();
        match env.backend {
            StoreKind::Distributed => {
                settings
                    .redis_nodes
                    .insert(DEFAULT_NODE.into(), SecretUrl::new(env.redis_url.clone()));
                settings.mysql = Some(SecretUrl::new(env.mysql_url.clone()));
            }
            StoreKind::Embedded => settings.store = Some(env.store_path()),
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let backend = Backend::open(&settings).unwrap();
        let (dispenser, leases) = runtime.block_on(async {
            let node = backend.nodes.default_node().to_string();
            (
                backend.nodes.get(&node).await.unwrap(),
                backend.lease_store().await.unwrap(),
            )
        });
        Stores {
            ledger: backend.ledger.clone(),
            dispenser,
            leases,
            runtime,
        }
    }

    fn block<T>(&self, future: impl std::future::Future<Output = T>) -> T {
        self.runtime.block_on(future)
    }

    fn init_app(&self, app: u8, step: u64, max_limit_id: u64) {
        let spec = AppSpec::validated(
            app,
            "conformance",
            None,
            step,
            max_limit_id,
            AppPolicy::for_step(step),
        )
        .unwrap();
        self.block(self.ledger.init_app(&spec)).unwrap();
    }

    /// Takes `wanted` indexes of one shard for the caller.
    fn take(&self, slot: Slot, wanted: u64) -> Option<Segment> {
        let request = SegmentRequest {
            app: slot.app,
            node: None,
            now_ms: 0,
            shards: vec![(slot.shard, Want::Direct { wanted })],
        };
        let mut takes = self.block(self.ledger.take_segments(&request)).unwrap();
        assert_eq!(takes.len(), 1);
        takes.pop().unwrap().1.unwrap().segment
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
        self.block(self.dispenser.push(kind, SLOT, segment, 0, token))
            .unwrap()
            .outcome
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

fn a_take_stops_at_max_limit_id(env: &TestEnv) {
    let stores = Stores::of(env);
    // Index 10 of shard 63 is the last one app 1 may issue; shard 5 allows index 10 too.
    let limit = (10u64 << 14) | (63 << 8) | 1;
    stores.init_app(1, 100, limit);
    let segment = stores.take(SLOT, 100).expect("up to the limit");
    assert_eq!((segment.first, segment.last), (1, 10));
    let refused = stores.block(stores.ledger.take_segments(&SegmentRequest {
        app: 1,
        node: None,
        now_ms: 0,
        shards: vec![(SLOT.shard, Want::Direct { wanted: 1 })],
    }));
    let refused = refused.and_then(|mut t| t.pop().unwrap().1);
    assert!(
        matches!(refused, Err(idgen::Error::LimitReached { .. })),
        "{refused:?}"
    );
}

fn init_app_is_all_or_nothing_and_idempotent(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    stores.init_app(1, 100, 0);
    let record = stores.block(stores.ledger.app(1)).unwrap().unwrap();
    assert_eq!(record.shards.len(), 64);
    let other =
        AppSpec::validated(1, "another-name", None, 100, 0, AppPolicy::for_step(100)).unwrap();
    let conflict = stores.block(stores.ledger.init_app(&other));
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
        stores.push(Queue, Segment { first: 7, last: 8 }, &token),
        PushOutcome::Stocked(5)
    );
    let taken = stores.block(stores.dispenser.take(Queue, SLOT, 4)).unwrap();
    assert_eq!(taken.indexes, [1, 2, 3, 7]);
    assert_eq!(taken.kind, Some(Queue));
    let rest = stores.block(stores.dispenser.take(Queue, SLOT, 4)).unwrap();
    assert_eq!(rest.indexes, [8]);
    assert!(
        stores
            .block(stores.dispenser.take(Queue, SLOT, 4))
            .unwrap()
            .indexes
            .is_empty()
    );
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
        stores.push(
            Range,
            Segment {
                first: 10,
                last: 11
            },
            &token
        ),
        PushOutcome::Stocked(5)
    );
    assert_eq!(
        stores.push(
            Range,
            Segment {
                first: 20,
                last: 29
            },
            &token
        ),
        PushOutcome::Full
    );
    // A guess of the other kind still gets the range's indexes.
    let taken = stores.block(stores.dispenser.take(Queue, SLOT, 4)).unwrap();
    assert_eq!(taken.indexes, [1, 2, 3, 10]);
    assert_eq!(taken.kind, Some(Range));
}

fn a_lock_is_exclusive_and_a_lost_token_changes_nothing(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    assert!(
        stores
            .block(stores.dispenser.lock(Queue, SLOT, TTL))
            .unwrap()
            .is_none()
    );
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

fn retire_and_switch_drop_stock_under_the_lock(env: &TestEnv) {
    let stores = Stores::of(env);
    stores.init_app(1, 100, 0);
    let token = stores.lock(Queue, SLOT);
    stores.push(Queue, Segment { first: 1, last: 4 }, &token);
    assert_eq!(
        stores
            .block(stores.dispenser.retire(Queue, SLOT, &token))
            .unwrap(),
        Some(4)
    );
    stores.push(Queue, Segment { first: 5, last: 7 }, &token);
    assert_eq!(
        stores
            .block(stores.dispenser.switch_kind(Range, SLOT, &token))
            .unwrap(),
        Some(3),
        "the queue's stock goes with the switch"
    );
    let slots = stores.block(stores.dispenser.stocked_slots(Queue)).unwrap();
    assert!(!slots.contains(&SLOT), "{slots:?}");
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
    let snapshot = stores.block(stores.leases.snapshot("conformance")).unwrap();
    assert_eq!(snapshot.held.len(), 1, "{snapshot:?}");
    assert_eq!(snapshot.held[0].worker, second.worker);
}

crate::on_both_backends!(
    concurrent_takes_of_one_shard_never_overlap,
    a_take_stops_at_max_limit_id,
    init_app_is_all_or_nothing_and_idempotent,
    the_dispenser_record_defaults_to_queue_and_changes_only_on_request,
    a_queue_serves_pushed_segments_in_order_once,
    a_range_holds_a_current_and_a_pending_segment,
    a_lock_is_exclusive_and_a_lost_token_changes_nothing,
    retire_and_switch_drop_stock_under_the_lock,
    leases_are_exclusive_renewable_and_released,
);
