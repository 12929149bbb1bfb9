//! The embedded store's semantics, call by call, on a real file.

use super::*;
use crate::layout::Layout;
use crate::lease::{Assigner, LeaseStore, NamespaceSpec, Renewal, WorkerNodeAssigner};
use crate::shard::DispenserKind::{Queue, Range};
use crate::store::sizing::{Trigger, Want};
use crate::store::{
    AppCatalog, AppPolicy, AppSpec, Dispenser, InitOutcome, Ledger, LockToken, PushOutcome,
    Restock, Segment, SegmentRequest, SegmentSource, Slot, Stock, TakenSegment,
};

const SLOT: Slot = Slot { app: 1, shard: 2 };
const TTL: Duration = Duration::from_secs(10);

struct Fixture {
    _dir: tempfile::TempDir,
    store: SqliteStore,
    runtime: tokio::runtime::Runtime,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("idgen.db"), Duration::from_secs(5));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        Fixture {
            _dir: dir,
            store,
            runtime,
        }
    }

    fn block<T>(&self, future: impl std::future::Future<Output = T>) -> T {
        self.runtime.block_on(future)
    }

    fn init_app(&self, app: u8, step: u64) {
        let spec =
            AppSpec::validated(app, "test", None, step, 0, AppPolicy::for_step(step)).unwrap();
        self.block(self.store.init_app(&spec)).unwrap();
    }

    /// Takes exactly `count` indexes from the ledger.
    fn take_segment(&self, slot: Slot, count: u64) -> Result<Option<Segment>> {
        let want = Want::Direct { wanted: count };
        Ok(self.take_one(slot, None, want)?.segment)
    }

    /// One shard's answer to a request for it alone, stocking `node` if given.
    fn take_one(&self, slot: Slot, node: Option<&str>, want: Want) -> Result<TakenSegment> {
        let request = SegmentRequest {
            app: slot.app,
            node: node.map(str::to_string),
            now_ms: 0,
            shards: vec![(slot.shard, want)],
        };
        let mut takes = self.block(self.store.take_segments(&request))?;
        assert_eq!(takes.len(), 1);
        takes.remove(0).1
    }

    fn lock(&self, slot: Slot) -> LockToken {
        self.block(self.store.lock(Queue, slot, TTL))
            .unwrap()
            .expect("lock is free")
            .token
    }

    fn push(&self, kind: DispenserKind, first: u64, last: u64, token: &LockToken) -> PushOutcome {
        self.block(
            self.store
                .push(kind, SLOT, Segment { first, last }, 0, token),
        )
        .unwrap()
        .outcome
    }

    fn take(&self, kind: DispenserKind, n: u64) -> Vec<u64> {
        self.block(self.store.take(kind, SLOT, n)).unwrap().indexes
    }

    fn stock(&self, kind: DispenserKind) -> Option<u64> {
        self.block(self.store.stock(kind, &[SLOT])).unwrap()[0]
    }

    /// Records the dispenser that serves app 1, as `init-app` or `app set` would.
    fn serve_by(&self, kind: DispenserKind) {
        self.block(self.store.ensure_schema()).unwrap();
        self.sql(&format!(
            "INSERT OR REPLACE INTO idgen_dispenser (app_id, kind) VALUES (1, '{}')",
            kind.as_str()
        ));
    }

    fn sql(&self, statements: &str) {
        let conn = Connection::open(self.store.path()).unwrap();
        conn.execute_batch(statements).unwrap();
    }
}

use crate::shard::DispenserKind;

// ---- ledger ----------------------------------------------------------------

#[test]
fn init_app_seeds_64_shards_once() {
    let f = Fixture::new();
    let spec = AppSpec::validated(1, "orders", None, 100, 0, AppPolicy::for_step(100)).unwrap();
    let first = f.block(f.store.init_app(&spec)).unwrap();
    assert_eq!(first.outcome, InitOutcome::Created);
    assert_eq!(first.app.shards.len(), 64);
    let again = f.block(f.store.init_app(&spec)).unwrap();
    assert_eq!(again.outcome, InitOutcome::Unchanged);
    let other = AppSpec::validated(1, "users", None, 100, 0, AppPolicy::for_step(100)).unwrap();
    assert!(matches!(
        f.block(f.store.init_app(&other)),
        Err(Error::AppNameConflict { .. })
    ));
}

#[test]
fn segments_follow_each_other_and_a_plan_of_zero_takes_nothing() {
    let f = Fixture::new();
    f.init_app(1, 100);
    assert_eq!(
        f.take_segment(SLOT, 10).unwrap(),
        Some(Segment { first: 1, last: 10 })
    );
    assert_eq!(f.take_segment(SLOT, 0).unwrap(), None);
    assert_eq!(
        f.take_segment(SLOT, 5).unwrap(),
        Some(Segment {
            first: 11,
            last: 15
        })
    );
}

#[test]
fn a_refused_shard_takes_nothing() {
    let f = Fixture::new();
    f.init_app(1, 100);
    // The route allows no node but the embedded one.
    let refused = f.take_one(SLOT, Some("elsewhere"), Want::Direct { wanted: 5 });
    assert!(matches!(refused, Err(Error::Moved { .. })), "{refused:?}");
    assert_eq!(
        f.take_segment(SLOT, 1).unwrap(),
        Some(Segment { first: 1, last: 1 })
    );
}

#[test]
fn the_planner_sees_the_embedded_node_as_the_route() {
    let f = Fixture::new();
    f.init_app(1, 100);
    // Stock above the threshold: the shard is read, and nothing taken.
    let want = Want::Refill {
        trigger: Trigger::Empty,
        stock: 5,
        direct_for: None,
    };
    let taken = f.take_one(SLOT, Some(EMBEDDED_NODE), want).unwrap();
    assert_eq!(taken.segment, None);
    let route = taken.state.route;
    assert_eq!(route.node, EMBEDDED_NODE);
    assert!(!route.moving());
    assert!(f.block(f.store.routes()).unwrap().is_empty());
}

#[test]
fn an_unknown_app_or_shard_is_named() {
    let f = Fixture::new();
    assert!(matches!(
        f.take_segment(SLOT, 1),
        Err(Error::UnknownApp { app: 1 })
    ));
    f.init_app(1, 100);
    f.sql("DELETE FROM id_alloc WHERE shard_id = 2");
    assert!(matches!(
        f.take_segment(SLOT, 1),
        Err(Error::ShardMissing { app: 1, shard: 2 })
    ));
}

// ---- sealing ---------------------------------------------------------------

#[test]
fn a_sealed_app_takes_no_segment_and_its_max_ids_are_final() {
    let f = Fixture::new();
    f.init_app(1, 100);
    f.take_segment(SLOT, 40).unwrap();
    let sealed = f.block(f.store.seal_app(1, "mysql://db/idgen")).unwrap();
    assert_eq!(sealed.shards.len(), 64);
    assert_eq!(
        sealed.shards[2],
        SealedShard {
            shard: 2,
            max_id: 40
        }
    );
    assert_eq!(sealed.step, 100);
    assert_eq!(sealed.name, "test");
    match f.take_segment(SLOT, 1) {
        Err(Error::AppMovedOut { app: 1, to }) => assert_eq!(to, "mysql://db/idgen"),
        other => panic!("{other:?}"),
    }
    let again = f.block(f.store.seal_app(1, "mysql://db/idgen")).unwrap();
    assert_eq!(again, sealed, "sealing twice returns the same data");
    assert!(matches!(
        f.block(f.store.seal_app(1, "mysql://elsewhere/idgen")),
        Err(Error::AppMovedOut { .. })
    ));
    assert_eq!(
        f.block(f.store.app(1)).unwrap().unwrap().shards[2].max_id,
        40
    );
}

#[test]
fn dropping_an_apps_stock_counts_both_dispensers() {
    let f = Fixture::new();
    f.init_app(1, 100);
    let token = f.lock(SLOT);
    f.push(Queue, 1, 10, &token);
    let beside = Slot { app: 1, shard: 3 };
    let beside_token = f.lock(beside);
    f.block(f.store.push(
        Range,
        beside,
        Segment {
            first: 11,
            last: 15,
        },
        0,
        &beside_token,
    ))
    .unwrap();
    let other = Slot { app: 2, shard: 0 };
    let other_token = f.lock(other);
    f.block(
        f.store
            .push(Queue, other, Segment { first: 1, last: 3 }, 0, &other_token),
    )
    .unwrap();
    assert_eq!(f.block(f.store.drop_app_stock(1)).unwrap(), 15);
    assert_eq!(f.stock(Queue), Some(0));
    assert_eq!(f.block(f.store.stock(Range, &[beside])).unwrap(), [None]);
    assert_eq!(f.block(f.store.stock(Queue, &[other])).unwrap(), [Some(3)]);
}

// ---- dispenser ---------------------------------------------------------------

#[test]
fn the_queue_is_fifo_over_pushed_segments() {
    let f = Fixture::new();
    let token = f.lock(SLOT);
    assert_eq!(f.push(Queue, 1, 3, &token), PushOutcome::Stocked(3));
    assert_eq!(f.push(Queue, 10, 12, &token), PushOutcome::Stocked(6));
    assert_eq!(f.take(Queue, 2), [1, 2]);
    assert_eq!(f.take(Queue, 3), [3, 10, 11]);
    assert_eq!(f.stock(Queue), Some(1));
    assert_eq!(f.take(Queue, 5), [12]);
    assert_eq!(f.take(Queue, 5), Vec::<u64>::new());
    // An empty queue is "missing" under the lock, as a Redis list would be.
    f.block(f.store.unlock(SLOT, &token)).unwrap();
    let locked = f.block(f.store.lock(Queue, SLOT, TTL)).unwrap().unwrap();
    assert_eq!(locked.stock, None);
}

#[test]
fn a_range_holds_a_current_and_a_pending_segment_and_then_is_full() {
    let f = Fixture::new();
    f.serve_by(Range);
    let token = f.lock(SLOT);
    assert_eq!(f.push(Range, 1, 3, &token), PushOutcome::Stocked(3));
    assert_eq!(f.push(Range, 10, 11, &token), PushOutcome::Stocked(5));
    assert_eq!(f.push(Range, 20, 29, &token), PushOutcome::Full);
    assert_eq!(f.take(Range, 4), [1, 2, 3, 10]);
    assert_eq!(f.stock(Range), Some(1));
    assert_eq!(f.push(Range, 20, 29, &token), PushOutcome::Stocked(11));
    // One take runs through the current segment into the pending one.
    let expected: Vec<u64> = std::iter::once(11).chain(20..=29).collect();
    assert_eq!(f.take(Range, 100), expected);
    assert_eq!(f.stock(Range), Some(0), "a used-up range is still present");
}

#[test]
fn a_push_onto_an_empty_range_with_a_pending_segment_promotes_it() {
    let f = Fixture::new();
    f.serve_by(Range);
    let token = f.lock(SLOT);
    f.push(Range, 1, 2, &token);
    f.push(Range, 5, 6, &token);
    assert_eq!(f.take(Range, 2), [1, 2]);
    assert_eq!(f.push(Range, 9, 9, &token), PushOutcome::Stocked(3));
    assert_eq!(f.take(Range, 10), [5, 6, 9]);
}

#[test]
fn a_take_serves_the_recorded_dispenser_whatever_the_guess() {
    let f = Fixture::new();
    f.serve_by(Range);
    let token = f.lock(SLOT);
    f.push(Range, 1, 3, &token);
    let taken = f.block(f.store.take(Queue, SLOT, 2)).unwrap();
    assert_eq!(taken.indexes, [1, 2]);
    assert_eq!(taken.kind, Some(Range));
}

#[test]
fn a_push_retires_the_stock_of_the_dispenser_the_shard_left() {
    let f = Fixture::new();
    let token = f.lock(SLOT);
    f.push(Queue, 1, 10, &token);
    f.serve_by(Range);
    let pushed = f
        .block(f.store.push(
            Range,
            SLOT,
            Segment {
                first: 11,
                last: 12,
            },
            0,
            &token,
        ))
        .unwrap();
    assert_eq!(pushed.outcome, PushOutcome::Stocked(2));
    assert_eq!(pushed.switched, 10);
    assert_eq!(f.stock(Queue), Some(0));
    assert_eq!(f.take(Queue, 5), [11, 12]);
}

#[test]
fn a_switch_under_the_lock_retires_the_other_dispensers_stock() {
    let f = Fixture::new();
    let token = f.lock(SLOT);
    f.push(Queue, 1, 4, &token);
    assert_eq!(
        f.block(f.store.switch_kind(Range, SLOT, &token)).unwrap(),
        Some(4)
    );
    assert_eq!(f.stock(Queue), Some(0));
    f.block(f.store.unlock(SLOT, &token)).unwrap();
    assert_eq!(
        f.block(f.store.switch_kind(Range, SLOT, &token)).unwrap(),
        None,
        "a switch needs the lock"
    );
}

#[test]
fn a_lock_is_exclusive_until_it_expires() {
    let f = Fixture::new();
    let token = f.lock(SLOT);
    assert!(f.block(f.store.lock(Range, SLOT, TTL)).unwrap().is_none());
    f.sql("UPDATE idgen_lock SET expires_at_ms = 0");
    let taken_over = f.block(f.store.lock(Queue, SLOT, TTL)).unwrap().unwrap();
    assert_ne!(taken_over.token, token);
    // The old holder can neither push, retire nor unlock any more.
    assert_eq!(f.push(Queue, 1, 5, &token), PushOutcome::LockLost);
    assert_eq!(f.block(f.store.retire(Queue, SLOT, &token)).unwrap(), None);
    assert!(!f.block(f.store.unlock(SLOT, &token)).unwrap());
    assert!(f.block(f.store.unlock(SLOT, &taken_over.token)).unwrap());
}

#[test]
fn an_expired_lock_no_longer_lets_its_holder_push() {
    let f = Fixture::new();
    let token = f.lock(SLOT);
    f.sql("UPDATE idgen_lock SET expires_at_ms = 0");
    assert_eq!(f.push(Queue, 1, 5, &token), PushOutcome::LockLost);
    assert_eq!(f.stock(Queue), Some(0));
}

#[test]
fn retire_deletes_the_stock_under_the_lock() {
    let f = Fixture::new();
    let token = f.lock(SLOT);
    f.push(Queue, 1, 7, &token);
    f.push(Queue, 20, 22, &token);
    assert_eq!(
        f.block(f.store.retire(Queue, SLOT, &token)).unwrap(),
        Some(10)
    );
    assert_eq!(f.stock(Queue), Some(0));
    assert!(f.block(f.store.stocked_slots(Queue)).unwrap().is_empty());
}

#[test]
fn stocked_slots_lists_shards_with_stock() {
    let f = Fixture::new();
    let token = f.lock(SLOT);
    f.push(Queue, 1, 1, &token);
    let beside = Slot { app: 1, shard: 3 };
    let beside_token = f.lock(beside);
    f.block(f.store.push(
        Range,
        beside,
        Segment { first: 2, last: 2 },
        0,
        &beside_token,
    ))
    .unwrap();
    assert_eq!(f.block(f.store.stocked_slots(Queue)).unwrap(), [SLOT]);
    assert_eq!(f.block(f.store.stocked_slots(Range)).unwrap(), [beside]);
    assert!(f.store.hints().is_none(), "one node: no route hints");
}

#[test]
fn hand_written_queue_rows_that_are_not_indexes_are_dropped_not_served() {
    let f = Fixture::new();
    f.block(Ledger::ensure_schema(&f.store)).unwrap();
    f.sql(
        "INSERT INTO idgen_queue VALUES (1, 2, 1, 5, 3);
         INSERT INTO idgen_queue VALUES (1, 2, 2, -4, 2);
         INSERT INTO idgen_queue VALUES (1, 2, 3, 7, 8);",
    );
    let taken = f.block(f.store.take(Queue, SLOT, 10)).unwrap();
    assert_eq!(taken.indexes, [7, 8]);
    let malformed = taken.malformed.expect("the bad rows are reported");
    assert_eq!(malformed.count, 2);
    assert_eq!(malformed.entry, "5..3");
    assert_eq!(f.stock(Queue), Some(0));
}

// ---- leases ------------------------------------------------------------------

fn namespace(name: &str, bits: &str) -> NamespaceSpec {
    let layout = Layout::custom(bits, None, Some(1_577_836_800_000)).unwrap();
    NamespaceSpec::new(name, &layout, Assigner::Lease).unwrap()
}

#[test]
fn acquire_hands_out_distinct_workers_until_all_are_held() {
    let f = Fixture::new();
    let ns = namespace("ns", "time:41,worker:2,seq:20");
    let workers: Vec<u64> = (0..4)
        .map(|i| {
            f.block(f.store.acquire(&ns, &format!("h{i}"), TTL, 100))
                .unwrap()
                .worker
        })
        .collect();
    assert_eq!(workers, [0, 1, 2, 3]);
    assert!(matches!(
        f.block(f.store.acquire(&ns, "late", TTL, 100)),
        Err(Error::AllWorkersHeld { capacity: 4, .. })
    ));
}

#[test]
fn an_expired_holder_row_counts_as_free_and_its_fence_is_the_floor() {
    let f = Fixture::new();
    let ns = namespace("ns", "time:41,worker:1,seq:21");
    let first = f.block(f.store.acquire(&ns, "a", TTL, 500)).unwrap();
    f.block(f.store.acquire(&ns, "b", TTL, 500)).unwrap();
    f.sql(&format!(
        "UPDATE idgen_lease_held SET expires_at_ms = 1 WHERE worker = {}",
        first.worker
    ));
    let again = f.block(f.store.acquire(&ns, "c", TTL, 900)).unwrap();
    assert_eq!(again.worker, first.worker);
    assert_eq!(again.floor_ms, Some(500));
    // The old holder lost it: it can neither renew nor release.
    assert_eq!(
        f.block(f.store.renew("ns", first.worker, &first.token, TTL, 1000))
            .unwrap(),
        Renewal::Lost
    );
    assert!(
        !f.block(f.store.release("ns", first.worker, &first.token, 1000))
            .unwrap()
    );
}

#[test]
fn release_sets_the_fence_and_returns_the_worker_to_the_free_list() {
    let f = Fixture::new();
    let ns = namespace("ns", "time:41,worker:1,seq:21");
    let grant = f.block(f.store.acquire(&ns, "a", TTL, 5_000)).unwrap();
    assert_eq!(
        f.block(f.store.renew("ns", grant.worker, &grant.token, TTL, 6_000))
            .unwrap(),
        Renewal::Held
    );
    assert!(
        f.block(f.store.release("ns", grant.worker, &grant.token, 4_200))
            .unwrap()
    );
    let snapshot = f.block(f.store.snapshot("ns")).unwrap();
    assert!(snapshot.held.is_empty());
    assert!(snapshot.free.contains(&grant.worker));
    assert!(snapshot.fences.contains(&(grant.worker, 4_200)));
    assert!(crate::lease::problems(&snapshot).is_empty());
}

#[test]
fn a_namespace_keeps_its_first_signature() {
    let f = Fixture::new();
    f.block(
        f.store
            .acquire(&namespace("ns", "time:41,worker:1,seq:21"), "a", TTL, 0),
    )
    .unwrap();
    assert!(matches!(
        f.block(
            f.store
                .acquire(&namespace("ns", "time:41,worker:2,seq:20"), "b", TTL, 0)
        ),
        Err(Error::NamespaceMismatch { .. })
    ));
    assert_eq!(f.block(f.store.namespaces()).unwrap(), ["ns"]);
}

#[test]
fn the_worker_node_table_never_reuses_an_id() {
    let f = Fixture::new();
    let layout = Layout::custom("time:41,worker:2,seq:20", None, Some(0)).unwrap();
    let ns = NamespaceSpec::new("uid", &layout, Assigner::WorkerNode).unwrap();
    let ids: Vec<u64> = (0..3)
        .map(|_| f.block(f.store.assign(&ns, "host", "1")).unwrap())
        .collect();
    assert_eq!(ids, [1, 2, 3]);
    assert!(matches!(
        f.block(f.store.assign(&ns, "host", "1")),
        Err(Error::WorkerIdsExhausted { assigned: 4, .. })
    ));
}

#[test]
fn the_namespace_lock_is_exclusive_until_released() {
    let f = Fixture::new();
    let token = f.block(f.store.lock_namespace("ns", TTL)).unwrap().unwrap();
    assert!(
        f.block(f.store.lock_namespace("ns", TTL))
            .unwrap()
            .is_none()
    );
    f.block(f.store.unlock_namespace("ns", "not-ours")).unwrap();
    assert!(
        f.block(f.store.lock_namespace("ns", TTL))
            .unwrap()
            .is_none()
    );
    f.block(f.store.unlock_namespace("ns", &token)).unwrap();
    assert!(
        f.block(f.store.lock_namespace("ns", TTL))
            .unwrap()
            .is_some()
    );
}

// ---- the file ------------------------------------------------------------------

#[test]
fn a_store_from_a_newer_idgen_is_refused() {
    let f = Fixture::new();
    f.block(Ledger::ensure_schema(&f.store)).unwrap();
    f.sql("UPDATE idgen_schema SET version = 99");
    let reopened = SqliteStore::open(f.store.path(), Duration::from_secs(1));
    let refused = f.block(reopened.apps()).unwrap_err();
    assert_eq!(refused.kind(), crate::ErrorKind::Store);
    assert!(refused.to_string().contains("version 99"), "{refused}");
}

#[test]
fn another_applications_database_is_left_alone() {
    let f = Fixture::new();
    f.sql("CREATE TABLE customers (id INTEGER PRIMARY KEY)");
    let refused = f.block(f.store.apps()).unwrap_err();
    assert!(
        matches!(&refused, Error::StoreUnusable { detail, .. } if detail.contains("something else")),
        "{refused}"
    );
    let conn = Connection::open(f.store.path()).unwrap();
    let tables: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 1);
}

#[test]
fn a_busy_store_times_out_within_the_bound() {
    let f = Fixture::new();
    f.init_app(1, 100);
    let holder = Connection::open(f.store.path()).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let impatient = SqliteStore::open(f.store.path(), Duration::from_millis(200));
    let started = std::time::Instant::now();
    let refused = f.block(impatient.take(Queue, SLOT, 1)).unwrap_err();
    assert!(matches!(refused, Error::Timeout { .. }), "{refused}");
    assert!(started.elapsed() < Duration::from_secs(3));
    holder.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn closing_the_store_empties_a_long_wal_and_keeps_every_commit() {
    let f = Fixture::new();
    f.init_app(1, 100);
    let mut wal = f.store.path().as_os_str().to_owned();
    wal.push("-wal");
    let mut taken = 0;
    while std::fs::metadata(&wal).map_or(0, |m| m.len()) < WAL_TRUNCATE_BYTES {
        f.take_segment(SLOT, 1).unwrap();
        taken += 1;
    }
    let path = f.store.path().to_path_buf();
    drop(f.store);
    assert_eq!(std::fs::metadata(&wal).unwrap().len(), 0);
    let reopened = SqliteStore::open(&path, Duration::from_secs(5));
    let app = f.runtime.block_on(reopened.app(1)).unwrap().unwrap();
    assert_eq!(app.shards[usize::from(SLOT.shard)].max_id, taken);
}

#[test]
fn open_existing_refuses_a_path_with_no_store() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("typo.db");
    let refused = SqliteStore::open_existing(&missing, Duration::from_secs(1))
        .err()
        .unwrap();
    assert!(matches!(refused, Error::StoreUnusable { .. }), "{refused}");
    assert!(!missing.exists());
}
