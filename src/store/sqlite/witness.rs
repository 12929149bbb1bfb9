//! The embedded store's witness: what the store handed out, kept in another
//! file beside it, so that the store file going back in time cannot hand out
//! again what it handed out before.
//!
//! The store file is the ledger and the stock at once: restored from an
//! older copy (a backup, a file-system or VM snapshot of that file alone, a
//! copy from another host), or deleted and created again, both go back
//! together, and nothing inside the file can tell. So for every (app, shard)
//! the witness file `.NAME.witness` in the store's directory keeps two marks,
//! each only ever raised:
//!
//! * `taken`: the end of the highest segment taken from the ledger (`max_id`),
//!   written and synced after the ledger's commit and before any index of
//!   the segment is served. A store whose `max_id` is below it went back:
//!   its stock is retired unserved, and the ledger is moved past the mark
//!   before it hands out anything (a gap, reported).
//! * `served`: the highest index handed out from stock, written after the
//!   take's commit and before the indexes leave the process (not synced: it
//!   survives any process crash, not a power cut). Stock that would hand out
//!   an index at or below it is older than what was served: it is retired
//!   unserved.
//!
//! A crash between a commit and the mark costs nothing: what that commit took
//! was never handed out, so serving it again after a restore repeats nothing.
//! Marks are read and raised under the file's own lock, which every write to
//! the store holds (from the check that the store file is still the one at
//! its path until after the marks are raised), so two processes never lower
//! each other's, and a process still writing to a replaced file is ordered
//! with those writing to the new one. The file and the store going back together (a
//! directory or whole-disk restore) is not seen: see the README's "Why IDs
//! never repeat".

use super::DbResult;
use crate::shard::SHARDS;
use crate::store::Slot;
use std::fs::{File, OpenOptions, TryLockError};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// The file's first bytes: what it is, and its format's version.
const MAGIC: &[u8; 16] = b"idgen witness 1\n";
/// Two marks of 8 bytes (little-endian) per (app, shard).
const RECORD: u64 = 16;
/// The header, then a record for every app 0..=255 and shard.
const LENGTH: u64 = MAGIC.len() as u64 + 256 * SHARDS as u64 * RECORD;

/// What the store handed out of one shard, as the witness saw it (0: nothing).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Marks {
    /// The end of the highest segment taken from the ledger.
    pub taken: u64,
    /// The highest index handed out from stock.
    pub served: u64,
}

/// The open witness file of one store.
pub(super) struct Witness {
    file: File,
    path: PathBuf,
    /// Orders this process's threads: the file's lock is held by the open
    /// file, which they share, so for them it excludes nothing, and the
    /// first to leave would release it under the others.
    threads: Mutex<()>,
}

/// The store's file `.NAME.{kind}` beside it: hidden, so a copy of the store
/// file (or of `NAME*`) restored over it leaves it alone.
pub(super) fn beside(store: &Path, kind: &str) -> PathBuf {
    let name = store
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "idgen.db".into());
    store.with_file_name(format!(".{name}.{kind}"))
}

/// Where the witness of the store at `store` lives.
pub(super) fn path_for(store: &Path) -> PathBuf {
    beside(store, "witness")
}

impl Witness {
    /// Opens the witness of the store at `store`, creating it when missing
    /// (a store new to this version starts with nothing witnessed). Returns
    /// it and whether this call created it, so the caller can make its name
    /// durable.
    pub(super) fn open(store: &Path, deadline: Instant) -> DbResult<(Witness, bool)> {
        let path = path_for(store);
        let unusable = |what: String| super::DbError::Unusable(what);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| {
                unusable(format!(
                    "cannot open its witness file {}: {e}; give idgen write access to the store's directory",
                    path.display()
                ))
            })?;
        let witness = Witness {
            file,
            path,
            threads: Mutex::new(()),
        };
        // A file that looks whole is used as it is; anything else is looked
        // at again under the lock, which waits out a first user still writing
        // a new one, and only a new (empty) file is written.
        let created = if witness.whole() {
            false
        } else {
            witness.hold(deadline, || witness.shape())??
        };
        Ok((witness, created))
    }

    /// The file's length and header are idgen's.
    fn whole(&self) -> bool {
        whole_fixed(&self.file, MAGIC, LENGTH)
    }

    /// Gives a new (empty) file its header and length; checks an existing one.
    /// Returns whether the file was new.
    fn shape(&self) -> DbResult<bool> {
        shape_fixed(
            &self.file,
            &self.path,
            "witness",
            MAGIC,
            LENGTH,
            "it records what the store handed out, so restore it from where it came, or, only if this store file was never restored or copied, move it aside",
        )
    }

    /// The shard's marks.
    pub(super) fn marks(&self, slot: Slot) -> DbResult<Marks> {
        let mut record = [0u8; RECORD as usize];
        self.file
            .read_exact_at(&mut record, offset(slot))
            .map_err(|e| self.failed("read", e))?;
        let (taken, served) = record.split_at(8);
        let number = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
        Ok(Marks {
            taken: number(taken),
            served: number(served),
        })
    }

    /// Raises the shards' marks to at least `raised` (never lowers one); `sync`
    /// makes them durable before returning. Only under [`Self::hold`] (every
    /// store write runs there), so two processes never lower each other's.
    pub(super) fn raise(&self, raised: &[(Slot, Marks)], sync: bool) -> DbResult<()> {
        if raised.is_empty() {
            return Ok(());
        }
        for &(slot, marks) in raised {
            let held = self.marks(slot)?;
            let high = Marks {
                taken: held.taken.max(marks.taken),
                served: held.served.max(marks.served),
            };
            if high == held {
                continue;
            }
            let mut record = [0u8; RECORD as usize];
            record[..8].copy_from_slice(&high.taken.to_le_bytes());
            record[8..].copy_from_slice(&high.served.to_le_bytes());
            self.file
                .write_all_at(&record, offset(slot))
                .map_err(|e| self.failed("write", e))?;
        }
        if sync {
            self.file.sync_data().map_err(|e| self.failed("sync", e))?;
        }
        Ok(())
    }

    /// Runs `work` holding the file's exclusive lock, which every idgen
    /// process takes for each write to the store: other processes wait, at
    /// most until `deadline` (then a busy error, the store's timeout), and
    /// the lock goes with a process that dies or panics. Other threads of
    /// this process wait for the one holding it.
    pub(super) fn hold<T>(&self, deadline: Instant, work: impl FnOnce() -> T) -> DbResult<T> {
        // A thread that panicked while holding it left nothing half done
        // here: the marks are raised record by record.
        let _threads = self.threads.lock().unwrap_or_else(|p| p.into_inner());
        let mut again = crate::retry::Backoff::store_write_lock(deadline);
        loop {
            match self.file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    if !again.pause_blocking() {
                        return Err(super::DbError::Sql(rusqlite::Error::SqliteFailure(
                            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                            Some(format!("{} stayed locked", self.path.display())),
                        )));
                    }
                }
                Err(TryLockError::Error(e)) => return Err(self.failed("lock", e)),
            }
        }
        let held = Held(self);
        let value = work();
        drop(held);
        Ok(value)
    }

    fn failed(&self, what: &str, e: std::io::Error) -> super::DbError {
        super::DbError::Unusable(format!(
            "cannot {what} its witness file {}: {e}",
            self.path.display()
        ))
    }
}

/// The lock [`Witness::hold`] took, given back when dropped, also when its
/// work panics (a process that lives on must not keep every other waiting).
struct Held<'a>(&'a Witness);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        // Unlocking an open file we locked cannot fail in a way we could
        // mend; closing the file (the process ending) unlocks it in any case.
        let _ = self.0.file.unlock();
    }
}

/// A file of fixed length that starts with `magic` is idgen's.
pub(super) fn whole_fixed(file: &File, magic: &[u8], length: u64) -> bool {
    let mut read = vec![0u8; magic.len()];
    file.metadata().is_ok_and(|m| m.len() == length)
        && file.read_exact_at(&mut read, 0).is_ok()
        && read == magic
}

/// Gives a new (empty) file of idgen's, the store's `what` file, its header
/// and length, durably; checks an existing one. Returns whether it was new.
/// Only under the witness's lock: a file half written is never seen.
pub(super) fn shape_fixed(
    file: &File,
    path: &Path,
    what: &str,
    magic: &[u8],
    length: u64,
    fix: &str,
) -> DbResult<bool> {
    let failed = |verb: &str, e: std::io::Error| {
        super::DbError::Unusable(format!(
            "cannot {verb} its {what} file {}: {e}",
            path.display()
        ))
    };
    let found = file.metadata().map_err(|e| failed("read", e))?.len();
    if found == 0 {
        file.set_len(length)
            .and_then(|()| file.write_all_at(magic, 0))
            .and_then(|()| file.sync_all())
            .map_err(|e| failed("write", e))?;
        return Ok(true);
    }
    if !whole_fixed(file, magic, length) {
        return Err(super::DbError::Unusable(format!(
            "its {what} file {} is not one idgen wrote ({found} bytes); {fix}",
            path.display()
        )));
    }
    Ok(false)
}

/// Where the shard's record starts.
fn offset(slot: Slot) -> u64 {
    MAGIC.len() as u64 + (u64::from(slot.app) * SHARDS as u64 + u64::from(slot.shard)) * RECORD
}
