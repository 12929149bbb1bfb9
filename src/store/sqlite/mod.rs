//! The embedded store: one SQLite file that is the [`Ledger`](super::Ledger),
//! the [`Dispenser`](super::Dispenser) (node `embedded`), the
//! [`LeaseStore`](crate::lease::LeaseStore) and the
//! [`WorkerNodeAssigner`](crate::lease::WorkerNodeAssigner) at once,
//! for deployments with neither Redis nor MySQL. Many idgen processes on one host
//! may share the file.
//!
//! Every operation is one short transaction on one connection. Writers start with
//! `BEGIN IMMEDIATE`, so they take the file's write lock before reading anything
//! they decide on: two processes never act on the same snapshot, and SQLite's
//! busy handler (bounded by the configured timeout) queues them instead of
//! failing a read-to-write upgrade. Before that they take the witness file's
//! lock (`witness.rs`), which orders them even across a restore of the
//! store file, and check that the file at the path is the one they opened. The file is in WAL mode, so readers never
//! wait for writers, and `synchronous = FULL`, so a committed transaction
//! survives a power cut as well as a crash. Most idgen processes live for one
//! command, so exits do not checkpoint the WAL (that would triple the fsyncs
//! of a warm `next`); committed frames in the WAL are as durable as the file,
//! and a process that closes the store with a long WAL empties it.
//!
//! Why a crash at any line cannot cause a repeat:
//! * a transaction is atomic: a process killed inside one leaves no trace of it
//!   (SQLite discards uncommitted WAL frames), and nothing it read was handed out,
//!   because nothing is handed out before the commit returns;
//! * indexes come only from `take_segments`, which advances `id_alloc.max_id` in
//!   the same transaction that reads it, so a range is taken once;
//! * stock holds only ranges already taken; `take` removes what it returns in
//!   the transaction that returns it, so each stocked index leaves once;
//! * `push` and `retire` check the refill lock's token and expiry in their own
//!   transaction, so a refiller that stalled past its lock cannot stock a shard
//!   it no longer owns (its segment becomes a gap);
//! * a crash between `take_segments` and `push` leaves a gap: the ledger has
//!   already moved past the segment;
//! * a sealed app gets no new segment: `take_segments` reads the seal inside its
//!   own write transaction, so once `seal_app` commits, every shard's `max_id`
//!   is final and the destination can start above it;
//! * the store file going back in time (an older copy restored, a new store in
//!   its place) is seen by its witness (`witness.rs`), a file beside it that
//!   records what was handed out, raised after each commit and before anything
//!   leaves the process: stock older than what was served is retired, and the
//!   ledger moves past the highest segment taken;
//! * indexes lent to the reserve (`reserve.rs`) leave the stock in the commit
//!   that lends them, and a take reads the reserve before the stock; a take
//!   from the reserve alone syncs its record, then raises the witness,
//!   before anything leaves the process, so a reserve file gone back is seen
//!   by the witness's served mark;
//! * a worker ID is claimed, and its time fence raised, in one transaction; the
//!   fence reasoning of [`crate::lease`] applies unchanged, with an expired
//!   holder row treated exactly as a missing Redis key;
//! * the fences and the `WORKER_NODE` IDs handed out are witnessed in another
//!   file too (`lease_witness.rs`), so a restored store file still starts a
//!   new holder after the fence an earlier one reached, and never assigns a
//!   `worker-node` ID twice.
//!
//! rusqlite is blocking: every call runs on `spawn_blocking`, never on the async
//! runtime's threads, except on a current-thread runtime when the store was
//! opened [`in_place`](SqliteStore::in_place) (a one-shot command's).

mod dispenser;
mod lease;
mod lease_witness;
mod ledger;
mod reserve;
mod schema;
mod witness;

use crate::error::{Error, Result};
use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use schema::SCHEMA_VERSION;

/// The embedded store's one dispenser node.
pub const EMBEDDED_NODE: &str = "embedded";

/// The SQLite file holding everything when no server is configured.
#[derive(Clone)]
pub struct SqliteStore {
    db: Arc<Db>,
    /// Calls run on the calling thread of a current-thread runtime.
    in_place: bool,
    /// Takes of a few indexes lend more to the reserve, and takes try it
    /// before the store.
    lends: bool,
}

/// The file and its connection, opened on first use.
struct Db {
    path: PathBuf,
    timeout: Duration,
    /// Whether opening may create the file (never for a store that must exist).
    create: bool,
    conn: Mutex<Option<Open>>,
    /// What the store handed out, kept beside it; opened by the first call
    /// that hands something out.
    witness: Mutex<Option<Arc<witness::Witness>>>,
    /// The fences its leases reached and the `WORKER_NODE` IDs it handed out,
    /// kept beside it; opened by the first lease call that changes them.
    lease_witness: Mutex<Option<Arc<lease_witness::LeaseWitness>>>,
    /// Indexes lent out of the stock for the takes after the one that lent
    /// them, kept beside it; opened under the witness's lock by the first
    /// take.
    reserve: Mutex<Option<Arc<reserve::Reserve>>>,
}

pub use super::{SealedApp, SealedShard, Sealing};

/// A failure inside a store call, before it is given the file's name.
pub(crate) enum DbError {
    Sql(rusqlite::Error),
    Idgen(Error),
    /// The file is not a usable idgen store; becomes [`Error::StoreUnusable`].
    Unusable(String),
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError::Sql(e)
    }
}

impl From<Error> for DbError {
    fn from(e: Error) -> Self {
        DbError::Idgen(e)
    }
}

pub(crate) type DbResult<T> = std::result::Result<T, DbError>;

pub(crate) use crate::clock::process_now_ms as now_ms;

/// Milliseconds as SQLite stores them (saturating; a TTL is never near the limit).
pub(crate) fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX).max(1)
}

impl SqliteStore {
    /// Prepares the store at `path`; the file is opened (and created) on first use,
    /// so a command that fails its argument checks never touches it.
    pub fn open(path: &Path, timeout: Duration) -> Self {
        Self::open_with(path, timeout, true)
    }

    /// Prepares the store at `path`, which only [`Self::open`] may create: with
    /// `create` false, the first use of a missing file fails (the command's
    /// argument checks still come first), and the file is opened without
    /// SQLite's create flag, so one deleted meanwhile is not recreated either.
    pub fn open_with(path: &Path, timeout: Duration, create: bool) -> Self {
        SqliteStore {
            db: Arc::new(Db {
                path: path.to_path_buf(),
                timeout,
                create,
                conn: Mutex::new(None),
                witness: Mutex::new(None),
                lease_witness: Mutex::new(None),
                reserve: Mutex::new(None),
            }),
            in_place: false,
            lends: false,
        }
    }

    /// With `yes`, a call made on a current-thread runtime runs right there,
    /// blocking it, rather than on a blocking thread: for a runtime that has
    /// nothing else to do meanwhile (one short command), where the thread's
    /// start and the two hand-offs cost more than the call. A call still waits
    /// at most the store's timeout for another process's write lock.
    pub fn in_place(mut self, yes: bool) -> Self {
        self.in_place = yes;
        self
    }

    /// With `yes`, a take of fewer than 256 indexes also moves up to 256
    /// more out of the stock into the store's reserve, and a take tries the
    /// reserve before opening the store: for one short command (a `next`),
    /// whose next takes are other processes, served from the reserve without
    /// SQLite's cost of opening the file. A process that stays (`serve`, a
    /// service linking the library) keeps its own buffer instead, and takes
    /// from the store; it still takes what a reserve holds first.
    pub fn lending(mut self, yes: bool) -> Self {
        self.lends = yes;
        self
    }

    /// Like [`Self::open`], but for a store that must already exist (the source
    /// of a migration), checked now: a mistyped path is an error, not a new
    /// empty store.
    pub fn open_existing(path: &Path, timeout: Duration) -> Result<Self> {
        let store = Self::open_with(path, timeout, false);
        store.check_exists()?;
        Ok(store)
    }

    /// Fails when the store may not be created and its file is missing.
    pub fn check_exists(&self) -> Result<()> {
        if !self.db.create && is_missing(&self.db.path) {
            return Err(missing(&self.db.path));
        }
        Ok(())
    }

    /// Fails when the file is missing (and may not be created), or cannot be
    /// written: a store file only read would look healthy, and then refuse
    /// every refill.
    pub fn check_writable(&self) -> Result<()> {
        self.check_exists()?;
        let path = &self.db.path;
        let unusable = |detail: String| Error::StoreUnusable {
            path: path.display().to_string(),
            detail,
        };
        let metadata =
            std::fs::metadata(path).map_err(|e| unusable(format!("cannot read it: {e}")))?;
        if metadata.permissions().readonly() {
            return Err(unusable(
                "it is read-only: nothing can be issued; make it writable (chmod u+w)".into(),
            ));
        }
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map(drop)
            .map_err(|e| unusable(format!("cannot open it for writing: {e}")))
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.db.path
    }

    /// Runs `work` on the connection, off the async runtime.
    async fn run<T, F>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> DbResult<T> + Send + 'static,
    {
        crate::activity::did(crate::activity::Work::SqliteTransaction);
        self.on_db(move |db| db.with(work)).await
    }

    /// Runs `call` on the store, off the async runtime.
    async fn on_db<T, C>(&self, call: C) -> Result<T>
    where
        T: Send + 'static,
        C: FnOnce(&Db) -> Result<T> + Send + 'static,
    {
        let db = self.db.clone();
        let current_thread = tokio::runtime::Handle::try_current().is_ok_and(|runtime| {
            runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread
        });
        if self.in_place && current_thread {
            return call(&db);
        }
        tokio::task::spawn_blocking(move || call(&db))
            .await
            .map_err(|e| Error::Internal(format!("SQLite worker thread failed: {e}")))?
    }

    /// Runs `work` inside one `BEGIN IMMEDIATE` transaction; it commits only
    /// when `work` returns `Ok` (and asks to).
    async fn write<T, F>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> DbResult<T> + Send + 'static,
    {
        self.write_then(work, Ok).await
    }

    /// Like [`Self::write`], then `after` on the committed value, on the same
    /// thread, before the caller gets it: for the witness's marks, which must
    /// be raised after a commit (what a rolled-back transaction took was never
    /// handed out) and before anything it took is served.
    async fn write_then<T, F, A>(&self, work: F, after: A) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> DbResult<T> + Send + 'static,
        A: FnOnce(T) -> DbResult<T> + Send + 'static,
    {
        crate::activity::did(crate::activity::Work::SqliteTransaction);
        self.on_db(move |db| {
            db.write_with(move |conn| {
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let value = work(&tx)?;
                tx.commit()?;
                after(value)
            })
        })
        .await
    }

    /// Runs `work` in a read transaction: one consistent snapshot, no write lock.
    async fn read<T, F>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> DbResult<T> + Send + 'static,
    {
        self.run(move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
            let value = work(&tx)?;
            tx.commit()?;
            Ok(value)
        })
        .await
    }

    /// Marks `app` as moved out to `destination` and returns what is needed to
    /// recreate it there. From now on no segment is taken for it here, so every
    /// shard's `max_id` is final; stock already taken may still be served (those
    /// indexes are at or below the final `max_id`, which the destination starts
    /// above). Sealing again returns the same data; sealing for another
    /// destination is refused, since two deployments continuing from the same
    /// `max_id` would repeat each other's IDs.
    pub async fn seal_app(&self, app: u8, destination: &str) -> Result<SealedApp> {
        let destination = destination.to_string();
        let db = self.db.clone();
        self.write(move |tx| {
            let mut sealed = ledger::seal(tx, app, &destination)?;
            // A store that went back in time handed out more than it records:
            // the destination starts above what its witness saw taken too.
            let witness = db.witness()?;
            for shard in &mut sealed.shards {
                let slot = crate::store::Slot {
                    app,
                    shard: shard.shard,
                };
                shard.max_id = shard.max_id.max(witness.marks(slot)?.taken);
            }
            Ok(sealed)
        })
        .await
    }

    /// Deletes the app's stock on every shard, of both dispenser kinds; returns
    /// how many indexes were dropped (a gap, never a repeat).
    pub async fn drop_app_stock(&self, app: u8) -> Result<u64> {
        let db = self.db.clone();
        self.write(move |tx| dispenser::drop_app_stock(tx, &*db.reserve()?, app))
            .await
    }

    /// Where a sealed app went and when, `None` while it is served here.
    pub async fn sealing(&self, app: u8) -> Result<Option<crate::store::Sealing>> {
        self.read(move |tx| ledger::sealing(tx, app)).await
    }
}

/// Nothing at all is at `path` (a path through a regular file is for opening
/// to describe).
fn is_missing(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
}

/// Which file is at `path` (device and inode), `None` when nothing is.
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Which files the store file and its WAL are, `None` for a missing one: a
/// change across opening means opening created one.
#[derive(Debug, PartialEq, Eq)]
struct FileIdentities([Option<(u64, u64)>; 2]);

impl FileIdentities {
    fn of(path: &Path) -> Self {
        FileIdentities([identity(path), identity(&wal_path(path))])
    }
}

/// The open connection, and which file it opened.
struct Open {
    conn: Connection,
    file: Option<(u64, u64)>,
}

/// SQLite's name for the store's write-ahead log.
fn wal_path(path: &Path) -> PathBuf {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    PathBuf::from(wal)
}

/// A store file that should exist and does not.
fn missing(path: &Path) -> Error {
    Error::StoreUnusable {
        path: path.display().to_string(),
        detail: "no store file exists there; `idgen init-app` creates one".into(),
    }
}

impl Db {
    /// Locks the connection, opening it first if needed, and runs `work`.
    fn with<T>(&self, work: impl FnOnce(&mut Connection) -> DbResult<T>) -> Result<T> {
        // A panic elsewhere while holding the lock leaves no half-done state: every
        // change is inside a transaction that was rolled back when it unwound.
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        // An operator who restores a copy replaces the file under a running
        // process (`serve`, a lease holder), whose connection would go on
        // reading and writing the old one, unlinked: its lease renewals would
        // succeed there while the restored file grants its worker to another
        // process, and its takes would not be ordered with theirs by one
        // file's lock. So the connection follows the path: a replaced file is
        // opened again, a removed one fails the call until it is back.
        if let Some(open) = guard.as_ref() {
            match identity(&self.path) {
                now @ Some(_) if now == open.file => {}
                Some(_) => *guard = None,
                None => {
                    *guard = None;
                    return Err(self.error(DbError::Unusable(
                        "it was removed while this process used it; put it back, or restart idgen to create a new one".into(),
                    )));
                }
            }
        }
        if guard.is_none() {
            *guard = Some(self.connect_when_free().map_err(|e| self.error(e))?);
        }
        let Some(open) = guard.as_mut() else {
            return Err(Error::Internal("SQLite connection vanished".into()));
        };
        work(&mut open.conn).map_err(|e| self.error(e))
    }

    /// Runs a write transaction: like [`Self::with`], under the witness
    /// file's lock, held from before the connection is checked against the
    /// file at the path until after `work` has raised the witness's marks.
    /// Writers already queue on the store file's own lock; but when the file
    /// is replaced (a restore), a process that had just checked its file
    /// would write to the old one, unlinked, while others write to the new
    /// one, each reading marks the other has not raised yet. The witness file
    /// is the same for both, so its lock orders them.
    fn write_with<T>(&self, work: impl FnOnce(&mut Connection) -> DbResult<T>) -> Result<T> {
        let witness = self
            .check_openable()
            .and_then(|()| self.witness())
            .map_err(|e| self.error(e))?;
        let deadline = std::time::Instant::now() + self.timeout;
        witness
            .hold(deadline, || self.with(work))
            .map_err(|e| self.error(e))?
    }

    /// Opens the file, retrying while other processes are opening it too.
    ///
    /// On a new file, switching to WAL and creating the schema need locks
    /// that SQLite sometimes refuses at once (SQLITE_BUSY without calling the
    /// busy handler, to avoid a deadlock between first openers). Every step is
    /// idempotent, so starting over is safe, within the usual timeout.
    fn connect_when_free(&self) -> DbResult<Open> {
        let mut again =
            crate::retry::Backoff::store_file_busy(std::time::Instant::now() + self.timeout);
        loop {
            match self.connect() {
                Err(DbError::Sql(e)) if is_busy(&e) => {
                    // A blocking thread: the pause is slept here, not awaited.
                    if !again.pause_blocking() {
                        return Err(DbError::Sql(e));
                    }
                }
                other => return other,
            }
        }
    }

    fn connect(&self) -> DbResult<Open> {
        self.check_openable()?;
        let before = FileIdentities::of(&self.path);
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if self.create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let mut conn = match Connection::open_with_flags(&self.path, flags) {
            Err(_) if !self.create && is_missing(&self.path) => {
                return Err(DbError::Idgen(missing(&self.path)));
            }
            other => other?,
        };
        conn.busy_timeout(self.timeout)?;
        conn.set_prepared_statement_cache_capacity(64);
        // The first statement to read the file: garbage fails here with NotADatabase.
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        // By default the last connection to close copies the WAL into the file,
        // which costs a short-lived process (a warm `next`) three more fsyncs than
        // its one commit. Frames in the WAL are as durable as the file, so exits
        // leave them there, and `Drop` empties the WAL once it has grown.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        // SQLite's planner guesses how selective `column = ?N` is from the bound
        // value, and compiles a statement again when a value becomes 0 or 1 or
        // stops being one: the first take of app 1 (or of shard 0 or 1) was
        // compiled twice in every process. idgen's statements are key lookups
        // with one plan whatever the values, so plans are fixed at compilation.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        schema::ensure(&mut conn)?;
        // Reading the schema opened the WAL: both files exist now.
        let after = FileIdentities::of(&self.path);
        if after != before {
            self.sync_directory()?;
        }
        // Read before opening: a file that replaced it meanwhile is opened again.
        let file = before.0[0].or(after.0[0]);
        Ok(Open { conn, file })
    }

    /// Makes the names of the store file and its WAL durable. SQLite is built
    /// without its own directory syncs (`SQLITE_DISABLE_DIRSYNC`, set in
    /// `.cargo/config.toml`), which cost every process that opens the store an
    /// fsync of the directory on its first commit, although the WAL is kept
    /// between processes. The names only need syncing when a file is new, and
    /// [`Self::connect`] does that itself. It is also what makes a new store
    /// file survive a power cut: SQLite never syncs the directory for the main
    /// file.
    fn sync_directory(&self) -> DbResult<()> {
        let parent = match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        std::fs::File::open(parent)
            .and_then(|dir| dir.sync_all())
            .map_err(|e| {
                DbError::Unusable(format!(
                    "cannot sync its directory {}, so a new file might not survive a power cut: {e}",
                    parent.display()
                ))
            })
    }

    /// The witness of this store, opened on first use; a new witness file's
    /// name is made durable like the store's own.
    fn witness(&self) -> DbResult<Arc<witness::Witness>> {
        self.opened(&self.witness, || {
            witness::Witness::open(&self.path, std::time::Instant::now() + self.timeout)
        })
    }

    /// The reserve of this store, opened on first use: only under the
    /// witness's lock.
    fn reserve(&self) -> DbResult<Arc<reserve::Reserve>> {
        self.opened(&self.reserve, || reserve::Reserve::open(&self.path))
    }

    /// The lease witness of this store, opened on first use; a new file's
    /// name is made durable like the store's own.
    fn lease_witness(&self) -> DbResult<Arc<lease_witness::LeaseWitness>> {
        self.opened(&self.lease_witness, || {
            lease_witness::LeaseWitness::open(&self.path, self.timeout)
        })
    }

    /// The file kept in `slot`, opened by `open` on first use (which says
    /// whether it created it: then its name is synced).
    fn opened<W>(
        &self,
        slot: &Mutex<Option<Arc<W>>>,
        open: impl FnOnce() -> DbResult<(W, bool)>,
    ) -> DbResult<Arc<W>> {
        let mut held = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(file) = held.as_ref() {
            return Ok(file.clone());
        }
        let (file, created) = open()?;
        if created {
            self.sync_directory()?;
        }
        let file = Arc::new(file);
        *held = Some(file.clone());
        Ok(file)
    }

    /// The WAL's size in bytes (0 when missing).
    fn wal_bytes(&self) -> u64 {
        std::fs::metadata(wal_path(&self.path)).map_or(0, |m| m.len())
    }

    /// Refuses a store that may not be created and is missing, and explains a
    /// path SQLite could not open, before anything beside it is touched.
    fn check_openable(&self) -> DbResult<()> {
        if !self.create && is_missing(&self.path) {
            return Err(DbError::Idgen(missing(&self.path)));
        }
        self.check_path()
    }

    /// Explains a path SQLite could only call "unable to open".
    fn check_path(&self) -> DbResult<()> {
        let unusable = DbError::Unusable;
        if self.path.is_dir() {
            return Err(unusable("it is a directory, not a file".into()));
        }
        let parent = match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        match std::fs::metadata(parent) {
            Ok(meta) if meta.is_dir() => Ok(()),
            Ok(_) => Err(unusable(format!("{} is not a directory", parent.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(unusable(format!(
                "directory {} does not exist",
                parent.display()
            ))),
            Err(e) => Err(unusable(format!("cannot reach {}: {e}", parent.display()))),
        }
    }

    /// Gives a failure the file's name and idgen's classification.
    fn error(&self, e: DbError) -> Error {
        let path = self.path.display().to_string();
        let e = match e {
            DbError::Idgen(e) => return e,
            DbError::Unusable(detail) => return Error::StoreUnusable { path, detail },
            DbError::Sql(e) => e,
        };
        let detail = e.to_string();
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Error::Timeout {
                backend: "SQLite",
                url: path,
                after: self.timeout,
            },
            Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => Error::StoreUnusable {
                path,
                detail: format!("{detail} (not an intact idgen store)"),
            },
            Some(
                ErrorCode::CannotOpen
                | ErrorCode::ReadOnly
                | ErrorCode::PermissionDenied
                | ErrorCode::DiskFull
                | ErrorCode::SystemIoFailure
                | ErrorCode::NoLargeFileSupport
                | ErrorCode::FileLockingProtocolFailed,
            ) => Error::StoreUnusable { path, detail },
            Some(_) => Error::Backend {
                backend: "SQLite",
                url: path,
                detail,
            },
            // Values that do not convert: someone wrote to the file by hand.
            None => Error::Corrupt {
                detail: format!("{path}: {detail}"),
            },
        }
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// Past this size the WAL is copied into the file and emptied when a process
/// closes the store. Below it, every process that opens the store reads the
/// whole WAL (nobody else may have it open to share the index with): one read
/// and one checksum per frame, and a warm `next` adds one frame. Only emptying
/// persists across processes (a new opener rebuilds the index and forgets
/// that the frames were copied), so the choice is between reading more frames
/// at every open and emptying more often (two fsyncs and a truncation, then
/// one more fsync for the new WAL's header). At 64 KB, about 15 processes
/// share one emptying and each reads 8 frames on average; at 512 KB, each read
/// about 63. Embedded `next`, 600 runs each taking turns: 2.82 ms where 512 KB
/// took 2.91 ms (median), against `--version`'s 1.89 ms.
const WAL_TRUNCATE_BYTES: u64 = 64 * 1024;

impl Drop for Db {
    fn drop(&mut self) {
        if self.wal_bytes() < WAL_TRUNCATE_BYTES {
            return;
        }
        let open = self.conn.get_mut().unwrap_or_else(|p| p.into_inner());
        let Some(Open { conn, .. }) = open.as_mut() else {
            return;
        };
        // Housekeeping on the way out: if others are busy, a later exit does it.
        let _ = conn.busy_timeout(Duration::from_millis(50));
        let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }
}

#[cfg(test)]
mod tests;
