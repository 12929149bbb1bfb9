//! The embedded store's own semantics, on a real file: what only a SQLite file
//! has (its schema version, a foreign database, the busy timeout, the WAL, rows
//! written by hand) and what only the embedded store does (seal an app that
//! moves out, drop an app's stock, keep no route hints). The storage traits'
//! contracts are checked on every backend by `tests/conformance.rs`.

use super::*;
use crate::shard::DispenserKind::{Queue, Range};
use crate::store::sizing::Want;
use crate::store::{
    AppCatalog, AppPolicy, AppSpec, Dispenser, Ledger, LockToken, PushOutcome, Restock, Segment,
    SegmentRequest, SegmentSource, Slot, Stock,
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
        // Lending, as `next` opens it: every behaviour below holds with a reserve.
        let store =
            SqliteStore::open(&dir.path().join("idgen.db"), Duration::from_secs(5)).lending(true);
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
        let request = SegmentRequest {
            app: slot.app,
            node: None,
            now_ms: 0,
            shards: vec![(slot.shard, Want::Direct { wanted: count })],
            floors: Default::default(),
        };
        let mut takes = self.block(self.store.take_segments(&request))?;
        assert_eq!(takes.len(), 1);
        Ok(takes.remove(0).1?.segment)
    }

    fn lock(&self, slot: Slot) -> LockToken {
        self.block(self.store.lock(Queue, slot, TTL))
            .unwrap()
            .expect("lock is free")
            .token
    }

    fn push(&self, kind: DispenserKind, slot: Slot, first: u64, last: u64) -> PushOutcome {
        let token = self.lock(slot);
        self.block(
            self.store
                .push(kind, slot, Segment { first, last }, 0, &token),
        )
        .unwrap()
        .outcome
    }

    fn stock(&self, kind: DispenserKind, slot: Slot) -> Option<u64> {
        self.block(self.store.stock(kind, &[slot])).unwrap()[0]
    }

    fn sql(&self, statements: &str) {
        let conn = Connection::open(self.store.path()).unwrap();
        conn.execute_batch(statements).unwrap();
    }
}

use crate::shard::DispenserKind;

// ---- what only the embedded store does ----------------------------------------------

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
    assert_eq!(sealed.spec.step, 100);
    assert_eq!(sealed.spec.name, "test");
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
    let beside = Slot { app: 1, shard: 3 };
    let other = Slot { app: 2, shard: 0 };
    assert_eq!(f.push(Queue, SLOT, 1, 10), PushOutcome::Stocked(10));
    assert_eq!(f.push(Range, beside, 11, 15), PushOutcome::Stocked(5));
    assert_eq!(f.push(Queue, other, 1, 3), PushOutcome::Stocked(3));
    assert_eq!(f.block(f.store.drop_app_stock(1)).unwrap(), 15);
    assert_eq!(f.stock(Queue, SLOT), Some(0));
    assert_eq!(f.stock(Range, beside), None);
    assert_eq!(f.stock(Queue, other), Some(3));
}

#[test]
fn the_embedded_store_has_one_node_so_no_route_hints_and_no_moves() {
    // One node: no app is ever elsewhere (a Redis node keeps hints for moved apps).
    let f = Fixture::new();
    assert!(f.store.hints().is_none());
    assert!(f.store.moves().is_none());
}

// ---- the file ------------------------------------------------------------------

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
    assert_eq!(f.stock(Queue, SLOT), Some(0));
}

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

// ---- the reserve ----------------------------------------------------------------------

#[test]
fn takes_of_one_from_many_threads_and_two_handles_never_repeat() {
    let f = Fixture::new();
    f.init_app(1, 1_000_000);
    assert_eq!(
        f.push(Queue, SLOT, 1, 200_000),
        PushOutcome::Stocked(200_000)
    );
    // A second handle opens the files again, as another process does: its
    // lock on the witness excludes the first handle's, not its own threads.
    let other = SqliteStore::open(f.store.path(), Duration::from_secs(5)).lending(true);
    let takers: Vec<_> = (0..8)
        .map(|i| {
            let store = if i % 2 == 0 {
                f.store.clone()
            } else {
                other.clone()
            };
            f.runtime.spawn(async move {
                let mut taken = Vec::new();
                for round in 0..150 {
                    // Now and then past the reserve: a take in a transaction,
                    // which holds the shard's record while SQLite commits.
                    let n = if round % 4 == i % 4 { 300 } else { 1 };
                    taken.extend(store.take(Queue, SLOT, n).await.unwrap().indexes);
                }
                taken
            })
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    let mut count = 0;
    for taker in takers {
        for index in f.block(taker).unwrap() {
            assert!(seen.insert(index), "index {index} taken twice");
            count += 1;
        }
    }
    assert!(count >= 8 * 150, "{count}");
    // Whatever was not handed out is still stock, in the table or the reserve.
    assert_eq!(f.stock(Queue, SLOT), Some(200_000 - count));
}
