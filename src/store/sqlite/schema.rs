//! The embedded store's tables, created on first use and checked on every open.
//!
//! `id_alloc` has the Java segment service's columns and meaning; the rest
//! are idgen's own. Tables are STRICT, so a value of the wrong type written by
//! hand is refused by SQLite instead of surfacing later as a misread.

use super::{DbError, DbResult};
use crate::error::Error;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior};
use std::collections::BTreeSet;

/// The version of the embedded store's schema: 2 added each app's recorded
/// dispenser (`idgen_dispenser`).
pub const SCHEMA_VERSION: u32 = 2;

/// Every table of the current version, in creation order.
const TABLES: &[(&str, &str)] = &[
    (
        "idgen_schema",
        "CREATE TABLE IF NOT EXISTS idgen_schema (
  id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
  version INTEGER NOT NULL
) STRICT",
    ),
    (
        "id_alloc",
        "CREATE TABLE IF NOT EXISTS id_alloc (
  app_id INTEGER NOT NULL,
  app_name TEXT NOT NULL,
  max_id INTEGER NOT NULL DEFAULT 1,
  shard_id INTEGER NOT NULL,
  step INTEGER NOT NULL DEFAULT 1000,
  description TEXT DEFAULT NULL,
  create_time TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
  update_time TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
  max_limit_id INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (app_id, shard_id)
) STRICT",
    ),
    (
        "idgen_app",
        "CREATE TABLE IF NOT EXISTS idgen_app (
  app_id INTEGER NOT NULL PRIMARY KEY,
  min_step INTEGER NOT NULL,
  max_step INTEGER NOT NULL,
  target_secs INTEGER NOT NULL,
  create_time TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
) STRICT",
    ),
    (
        "idgen_dispenser",
        "CREATE TABLE IF NOT EXISTS idgen_dispenser (
  app_id INTEGER NOT NULL PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('queue', 'range')),
  update_time TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
) STRICT",
    ),
    (
        "idgen_refill",
        "CREATE TABLE IF NOT EXISTS idgen_refill (
  app_id INTEGER NOT NULL,
  shard_id INTEGER NOT NULL,
  loaded_at_ms INTEGER NOT NULL,
  loaded INTEGER NOT NULL,
  stock_after INTEGER NOT NULL,
  PRIMARY KEY (app_id, shard_id)
) STRICT",
    ),
    (
        "idgen_route",
        "CREATE TABLE IF NOT EXISTS idgen_route (
  app_id INTEGER NOT NULL PRIMARY KEY,
  node TEXT NOT NULL,
  target_node TEXT DEFAULT NULL,
  phase TEXT DEFAULT NULL,
  update_time TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
) STRICT",
    ),
    // Apps moved out of this store: no segment is taken for them any more.
    (
        "idgen_sealed",
        "CREATE TABLE IF NOT EXISTS idgen_sealed (
  app_id INTEGER NOT NULL PRIMARY KEY,
  moved_to TEXT NOT NULL,
  sealed_at_ms INTEGER NOT NULL
) STRICT",
    ),
    // Queue stock: runs first..=last, served in seq order (FIFO).
    (
        "idgen_queue",
        "CREATE TABLE IF NOT EXISTS idgen_queue (
  app_id INTEGER NOT NULL,
  shard_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  first INTEGER NOT NULL,
  last INTEGER NOT NULL,
  PRIMARY KEY (app_id, shard_id, seq)
) STRICT",
    ),
    // Range stock: the current segment (next..=last) and at most one pending.
    (
        "idgen_range",
        "CREATE TABLE IF NOT EXISTS idgen_range (
  app_id INTEGER NOT NULL,
  shard_id INTEGER NOT NULL,
  next INTEGER NOT NULL,
  last INTEGER NOT NULL,
  pending_first INTEGER DEFAULT NULL,
  pending_last INTEGER DEFAULT NULL,
  PRIMARY KEY (app_id, shard_id)
) STRICT",
    ),
    // Refill locks; a row past expires_at_ms is no lock.
    (
        "idgen_lock",
        "CREATE TABLE IF NOT EXISTS idgen_lock (
  app_id INTEGER NOT NULL,
  shard_id INTEGER NOT NULL,
  token TEXT NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  PRIMARY KEY (app_id, shard_id)
) STRICT",
    ),
    (
        "idgen_lease_namespace",
        "CREATE TABLE IF NOT EXISTS idgen_lease_namespace (
  namespace TEXT NOT NULL PRIMARY KEY,
  signature TEXT NOT NULL,
  capacity INTEGER NOT NULL,
  created_ms INTEGER NOT NULL
) STRICT",
    ),
    // The free list: served in pos order; duplicates only by outside tampering.
    (
        "idgen_lease_free",
        "CREATE TABLE IF NOT EXISTS idgen_lease_free (
  namespace TEXT NOT NULL,
  pos INTEGER NOT NULL,
  worker INTEGER NOT NULL,
  PRIMARY KEY (namespace, pos)
) STRICT",
    ),
    // Held workers; a row past expires_at_ms is not held (NULL: no expiry).
    (
        "idgen_lease_held",
        "CREATE TABLE IF NOT EXISTS idgen_lease_held (
  namespace TEXT NOT NULL,
  worker INTEGER NOT NULL,
  holder TEXT NOT NULL,
  token TEXT NOT NULL,
  since_ms INTEGER NOT NULL,
  expires_at_ms INTEGER,
  PRIMARY KEY (namespace, worker)
) STRICT",
    ),
    // The time fence per worker: no holder issues a time unit past it.
    (
        "idgen_lease_fence",
        "CREATE TABLE IF NOT EXISTS idgen_lease_fence (
  namespace TEXT NOT NULL,
  worker INTEGER NOT NULL,
  last_ms INTEGER NOT NULL,
  PRIMARY KEY (namespace, worker)
) STRICT",
    ),
    (
        "idgen_lease_lock",
        "CREATE TABLE IF NOT EXISTS idgen_lease_lock (
  namespace TEXT NOT NULL PRIMARY KEY,
  token TEXT NOT NULL,
  expires_at_ms INTEGER NOT NULL
) STRICT",
    ),
    // uid-generator's table; AUTOINCREMENT never hands out an ID twice.
    (
        "WORKER_NODE",
        "CREATE TABLE IF NOT EXISTS WORKER_NODE (
  ID INTEGER PRIMARY KEY AUTOINCREMENT,
  HOST_NAME TEXT NOT NULL,
  PORT TEXT NOT NULL,
  TYPE INTEGER NOT NULL,
  LAUNCH_DATE TEXT NOT NULL,
  MODIFIED TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CREATED TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
) STRICT",
    ),
];

fn tables(conn: &Connection) -> DbResult<BTreeSet<String>> {
    let mut stmt = conn.prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    )?;
    let names = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<BTreeSet<String>>>()?;
    Ok(names)
}

/// Brings an older idgen store to [`SCHEMA_VERSION`]: every change so far only
/// adds tables. An app without an `idgen_dispenser` row is served by the queue.
fn upgrade(conn: &mut Connection) -> DbResult<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for (_, ddl) in TABLES {
        tx.execute_batch(ddl)?;
    }
    tx.execute(
        "UPDATE idgen_schema SET version = ?1 WHERE id = 1 AND version < ?1",
        [SCHEMA_VERSION],
    )?;
    tx.commit()?;
    Ok(())
}

fn version(conn: &Connection) -> DbResult<Option<i64>> {
    Ok(conn
        .query_row("SELECT version FROM idgen_schema WHERE id = 1", [], |r| {
            r.get(0)
        })
        .optional()?)
}

/// Creates the schema in an empty file, or checks that the file holds one this
/// idgen understands. Refuses other SQLite databases rather than adding tables
/// to them.
pub fn ensure(conn: &mut Connection) -> DbResult<()> {
    let mut present = tables(conn)?;
    if present.is_empty() {
        // Several processes may start on a new file at once: the write lock
        // serialises them, and IF NOT EXISTS makes the later ones no-ops.
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if tables(&tx)?.is_empty() {
            for (_, ddl) in TABLES {
                tx.execute_batch(ddl)?;
            }
            tx.execute(
                "INSERT OR IGNORE INTO idgen_schema (id, version) VALUES (1, ?1)",
                [SCHEMA_VERSION],
            )?;
            crate::failpoint::hit("sqlite.schema.before_commit")?;
        }
        tx.commit()?;
        present = tables(conn)?;
    }
    if !present.contains("idgen_schema") {
        return Err(DbError::Unusable(
            "it is a SQLite database of something else (no idgen_schema table); idgen leaves it alone"
                .into(),
        ));
    }
    match version(conn)? {
        None => {
            return Err(DbError::Unusable(
                "idgen_schema holds no version: the file is damaged".into(),
            ));
        }
        Some(v) if v > i64::from(SCHEMA_VERSION) => {
            return Err(DbError::Idgen(Error::Corrupt {
                detail: format!(
                    "the embedded store is at schema version {v}, newer than this idgen understands ({SCHEMA_VERSION}); upgrade idgen"
                ),
            }));
        }
        Some(v) if v < i64::from(SCHEMA_VERSION) => upgrade(conn)?,
        Some(_) => {}
    }
    // The tables read first are usually all there. Read again before calling
    // one missing: an upgrade (here, or by another process between the two
    // reads above) adds tables and its version in one transaction.
    if TABLES.iter().any(|(name, _)| !present.contains(*name)) {
        present = tables(conn)?;
    }
    if let Some((missing, _)) = TABLES.iter().find(|(name, _)| !present.contains(*name)) {
        return Err(DbError::Unusable(format!(
            "table {missing} is missing: the file is damaged or not an idgen store"
        )));
    }
    Ok(())
}
