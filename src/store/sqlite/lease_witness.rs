//! The embedded store's witness of its leases: every worker's time fence and
//! the highest `WORKER_NODE` ID handed out, kept in another file beside the
//! store, so that the store file going back in time cannot start a holder of
//! a worker below a fence an earlier holder issued up to, nor hand a
//! `worker-node` ID out twice.
//!
//! The segment witness (`witness.rs`) has one fixed record per shard; fences
//! are keyed by namespace and worker, and a release lowers a worker's fence
//! to the last time unit its holder used, so this one is a small SQLite
//! database, `.NAME.witness-leases` (hidden like the other, WAL mode,
//! `synchronous = FULL`). It is written inside the store's own write
//! transaction, before the store commits: every lease change is made under the
//! store's write lock, so the witness sees them in the store's order, and a
//! process killed between the two leaves the witness ahead of the store, which
//! only raises a later holder's floor (a wait, never a repeat). A holder issues
//! nothing under a fence before the call that wrote it returns.
//!
//! A holder that lived through a restore is covered too: its fence is here, so
//! a new holder of its worker starts after it, and its own renewals fail
//! against the restored rows (their token is not its), so it stops at that
//! fence. Both files going back together is not seen (see the README).

use super::{DbError, DbResult};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// `PRAGMA application_id` of a lease witness ("idgL"): a SQLite file that
/// lacks it is not one, and is refused rather than written.
const APPLICATION_ID: i32 = 0x6964_674c;

/// The open lease witness of one store.
pub(super) struct LeaseWitness {
    conn: Mutex<Connection>,
    path: PathBuf,
}

/// Where the lease witness of the store at `store` lives: beside the segment
/// witness (`.NAME.witness`), so one name pattern covers both.
pub(super) fn path_for(store: &Path) -> PathBuf {
    let mut name = super::witness::path_for(store).into_os_string();
    name.push("-leases");
    PathBuf::from(name)
}

impl LeaseWitness {
    /// Opens the lease witness of the store at `store`, creating it when
    /// missing (a store new to this version starts with nothing witnessed).
    /// Returns it and whether this call created it, so the caller can make
    /// its name durable.
    pub(super) fn open(store: &Path, timeout: Duration) -> DbResult<(LeaseWitness, bool)> {
        let path = path_for(store);
        let existed = path.exists();
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let failed = |e: rusqlite::Error| unusable(&path, "open", &e);
        let conn = Connection::open_with_flags(&path, flags).map_err(failed)?;
        conn.busy_timeout(timeout).map_err(failed)?;
        let witness = LeaseWitness {
            conn: Mutex::new(conn),
            path,
        };
        witness.prepare()?;
        Ok((witness, !existed))
    }

    /// Gives a new file its schema; refuses a file that is not a lease witness.
    fn prepare(&self) -> DbResult<()> {
        self.with("open", |conn| {
            let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
            conn.pragma_update(None, "synchronous", "FULL")?;
            let id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
            if id == APPLICATION_ID {
                return Ok(Ok(()));
            }
            let tables: i64 =
                conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
            if id != 0 || tables != 0 {
                return Ok(Err(()));
            }
            conn.execute_batch(&format!(
                "BEGIN IMMEDIATE;
                 CREATE TABLE IF NOT EXISTS fence (
                   namespace TEXT NOT NULL, worker INTEGER NOT NULL, last_ms INTEGER NOT NULL,
                   PRIMARY KEY (namespace, worker)) STRICT, WITHOUT ROWID;
                 CREATE TABLE IF NOT EXISTS worker_node (
                   one INTEGER PRIMARY KEY CHECK (one = 1), highest INTEGER NOT NULL) STRICT;
                 PRAGMA application_id = {APPLICATION_ID};
                 COMMIT;"
            ))?;
            Ok(Ok(()))
        })?
        .map_err(|()| {
            DbError::Unusable(format!(
                "its lease witness {} is not one idgen wrote; it records the fences the store's leases reached, so restore it from where it came, or, only if this store file was never restored or copied, move it aside",
                self.path.display()
            ))
        })
    }

    /// The fence the witness holds for the worker, if any.
    pub(super) fn fence(&self, namespace: &str, worker: i64) -> DbResult<Option<i64>> {
        self.with("read", |conn| {
            conn.prepare_cached("SELECT last_ms FROM fence WHERE namespace = ?1 AND worker = ?2")?
                .query_row(params![namespace, worker], |r| r.get(0))
                .optional()
        })
    }

    /// Raises the worker's fence to `fence_ms` (never lowers it), durably.
    pub(super) fn raise(&self, namespace: &str, worker: i64, fence_ms: i64) -> DbResult<()> {
        self.with("write", |conn| {
            conn.prepare_cached(
                "INSERT INTO fence (namespace, worker, last_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT (namespace, worker) DO UPDATE SET last_ms = max(last_ms, excluded.last_ms)",
            )?
            .execute(params![namespace, worker, fence_ms])
            .map(drop)
        })
    }

    /// Sets the worker's fence to `last_ms`, durably: a release, whose holder
    /// issued nothing after `last_ms`, made under the store's write lock.
    pub(super) fn set(&self, namespace: &str, worker: i64, last_ms: i64) -> DbResult<()> {
        self.with("write", |conn| {
            conn.prepare_cached(
                "INSERT INTO fence (namespace, worker, last_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT (namespace, worker) DO UPDATE SET last_ms = excluded.last_ms",
            )?
            .execute(params![namespace, worker, last_ms])
            .map(drop)
        })
    }

    /// The highest `WORKER_NODE` ID handed out (0: none).
    pub(super) fn highest_worker_node(&self) -> DbResult<i64> {
        self.with("read", |conn| {
            Ok(conn
                .prepare_cached("SELECT highest FROM worker_node WHERE one = 1")?
                .query_row([], |r| r.get(0))
                .optional()?
                .unwrap_or(0))
        })
    }

    /// Records `worker` as handed out (never lowers the mark), durably.
    pub(super) fn raise_worker_node(&self, worker: i64) -> DbResult<()> {
        self.with("write", |conn| {
            conn.prepare_cached(
                "INSERT INTO worker_node (one, highest) VALUES (1, ?1)
                 ON CONFLICT (one) DO UPDATE SET highest = max(highest, excluded.highest)",
            )?
            .execute([worker])
            .map(drop)
        })
    }

    /// Runs `work` on the connection; a failure names the file. A busy file
    /// stays a busy error, which the store reports as its timeout.
    fn with<T>(
        &self,
        what: &str,
        work: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> DbResult<T> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        work(&conn).map_err(|e| {
            if super::is_busy(&e) {
                DbError::Sql(e)
            } else {
                unusable(&self.path, what, &e)
            }
        })
    }
}

fn unusable(path: &Path, what: &str, e: &rusqlite::Error) -> DbError {
    DbError::Unusable(format!(
        "cannot {what} its lease witness {}: {e}",
        path.display()
    ))
}
