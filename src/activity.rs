//! What this process did with its backends, counted for `--verbose`:
//! connections opened, round trips, ledger segments taken, retries.
//!
//! An operator asking "why was that slow?" or "did `next` touch MySQL?" wants
//! the work itself, not one line saying which backend was used. The counters
//! are process-wide relaxed atomics, bumped where the work happens (the one
//! Redis connection type every command goes through, the MySQL and SQLite
//! helpers every query goes through, the allocator's two ledger takes, the
//! retry policy): a few nanoseconds each, and nothing is printed here.

use serde::Serialize;
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// One kind of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// A connection to a Redis server (or a cluster) was opened.
    RedisConnection,
    /// One request sent to Redis and its answer read: a command, a script
    /// call or a whole pipeline.
    RedisRoundTrip,
    /// One request to MySQL (a query, a statement, BEGIN or COMMIT).
    MysqlQuery,
    /// One transaction on the embedded store's file.
    SqliteTransaction,
    /// One take served from the embedded store's reserve file, without a
    /// transaction.
    ReserveTake,
    /// One attempt run again after a failure the caller judged safe to retry.
    /// A poll of something another process holds (a refill lock) is no retry:
    /// nothing failed, and its round trips are counted as such.
    Retry,
}

struct Counters {
    redis_connections: AtomicU64,
    redis_round_trips: AtomicU64,
    mysql_queries: AtomicU64,
    sqlite_transactions: AtomicU64,
    reserve_takes: AtomicU64,
    retries: AtomicU64,
    segments: AtomicU64,
    indexes: AtomicU64,
}

static COUNTERS: Counters = Counters {
    redis_connections: AtomicU64::new(0),
    redis_round_trips: AtomicU64::new(0),
    mysql_queries: AtomicU64::new(0),
    sqlite_transactions: AtomicU64::new(0),
    reserve_takes: AtomicU64::new(0),
    retries: AtomicU64::new(0),
    segments: AtomicU64::new(0),
    indexes: AtomicU64::new(0),
};

/// MySQL connection IDs seen: the pool hands one connection out many times.
static MYSQL_CONNECTIONS: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

/// Counts one piece of work.
pub fn did(work: Work) {
    let counter = match work {
        Work::RedisConnection => &COUNTERS.redis_connections,
        Work::RedisRoundTrip => &COUNTERS.redis_round_trips,
        Work::MysqlQuery => &COUNTERS.mysql_queries,
        Work::SqliteTransaction => &COUNTERS.sqlite_transactions,
        Work::ReserveTake => &COUNTERS.reserve_takes,
        Work::Retry => &COUNTERS.retries,
    };
    counter.fetch_add(1, Ordering::Relaxed);
}

/// Counts a MySQL connection by its server-side ID (once per connection).
pub fn used_mysql_connection(id: u32) {
    MYSQL_CONNECTIONS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .insert(id);
}

/// Counts segments taken from the ledger and the indexes they hold.
pub fn took_segments(segments: u64, indexes: u64) {
    COUNTERS.segments.fetch_add(segments, Ordering::Relaxed);
    COUNTERS.indexes.fetch_add(indexes, Ordering::Relaxed);
}

/// The work done so far by this process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Activity {
    pub redis_connections: u64,
    pub redis_round_trips: u64,
    pub mysql_connections: u64,
    pub mysql_queries: u64,
    pub sqlite_transactions: u64,
    /// Takes served from the embedded store's reserve file.
    pub reserve_takes: u64,
    /// Segments taken from the ledger (MySQL or the embedded store).
    pub segments_taken: u64,
    /// Indexes in those segments.
    pub indexes_taken: u64,
    pub retries: u64,
}

/// Reads the counters.
pub fn so_far() -> Activity {
    let read = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
    Activity {
        redis_connections: read(&COUNTERS.redis_connections),
        redis_round_trips: read(&COUNTERS.redis_round_trips),
        mysql_connections: MYSQL_CONNECTIONS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .len() as u64,
        mysql_queries: read(&COUNTERS.mysql_queries),
        sqlite_transactions: read(&COUNTERS.sqlite_transactions),
        reserve_takes: read(&COUNTERS.reserve_takes),
        segments_taken: read(&COUNTERS.segments),
        indexes_taken: read(&COUNTERS.indexes),
        retries: read(&COUNTERS.retries),
    }
}
