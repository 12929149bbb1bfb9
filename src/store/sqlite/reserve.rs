//! The embedded store's reserve: a few indexes per (app, shard) that a take
//! moved out of the store's stock for the takes after it, kept in a file of
//! fixed records beside the store, so that a whole-process `next` can be
//! served without opening SQLite at all (reading the schema and the WAL costs
//! more than the rest of the process).
//!
//! Why the reserve cannot repeat an index:
//! * what it holds left the store's stock in a committed transaction (the
//!   take that lent it), so the store never hands it out again, and a take
//!   reads a shard's reserve before its stock: the reserve's indexes are the
//!   older ones;
//! * a take from it writes the shard's record and syncs the file before
//!   anything leaves the process: a crash at any line, and a power cut,
//!   leave the record at or past what was handed out (a gap at worst);
//! * then it raises the witness's `served` mark (`witness.rs`), in the other
//!   file: a reserve file restored from an older copy, or created again,
//!   holds a record at or below that mark, and a take throws it away
//!   unserved (a gap, reported as a rollback);
//! * every take from it, every take that lends, and every write to the store
//!   runs under the witness's lock, so no two processes read one record.
//!
//! What it does not change: what a take obeys. The reserve records each
//! shard's `max_limit_id` and dispenser as the store had them, and a
//! fingerprint of the store's files (which files, their sizes and times, the
//! WAL's header) as they were when that was read, once they have not changed
//! for longer than a tick of the clock that stamps them. Any write to the
//! store since (another idgen process, `UPDATE id_alloc SET max_limit_id = …`
//! by hand, a restored copy) changes the fingerprint, and the next take reads
//! the store again before it serves: a limit lowered by SQL holds at once, as
//! before.

use super::witness::{shape_fixed, whole_fixed};
use super::{DbError, DbResult};
use crate::shard::{DispenserKind, SHARDS};
use crate::store::Slot;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The file's first bytes: what it is, and its format's version.
const MAGIC: &[u8; 16] = b"idgen reserve 1\n";
/// Where the fingerprint starts, after the magic.
const FINGERPRINT_AT: u64 = 16;
/// Where the apps that may hold a reserve are marked, one bit per app (so a
/// take reads the records of those apps only, not the whole file).
const APPS_AT: u64 = 112;
/// The header: the magic, the fingerprint, the apps, padded.
const HEADER: u64 = 256;
/// One record: next, last, max_limit_id (8 bytes each, little-endian), the
/// dispenser (1 byte: 0 none, 1 queue, 2 range), padding.
const RECORD: u64 = 32;
/// The header, then a record for every app 0..=255 and shard.
const LENGTH: u64 = HEADER + 256 * SHARDS as u64 * RECORD;

/// How many indexes a take lends to the reserve, beyond what it was asked
/// for, when it was asked for fewer: a `next` process of one ID is served
/// from the reserve 255 times in 256 without SQLite. The reserve is never
/// thrown away in normal work (only when the stock it came from is retired,
/// or the file went back), so its size costs no gaps.
pub(super) const LEND: u64 = 256;

/// One shard's reserve: `next..=last` (empty when `next > last` or no kind).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Lent {
    pub next: u64,
    pub last: u64,
    /// The shard's `max_limit_id` as the store had it (0: no limit).
    pub limit: u64,
    /// The dispenser it was lent from, which the app still uses.
    pub kind: Option<DispenserKind>,
}

impl Lent {
    /// Indexes left.
    pub fn remaining(&self) -> u64 {
        match self.kind {
            Some(_) if self.next <= self.last => self.last - self.next + 1,
            _ => 0,
        }
    }

    /// Hands out up to `n` indexes from the front.
    pub fn hand_out(&mut self, n: u64) -> std::ops::Range<u64> {
        let count = n.min(self.remaining());
        let out = self.next..self.next + count;
        self.next += count;
        if self.remaining() == 0 {
            *self = Lent::default();
        }
        out
    }

    fn encode(&self) -> [u8; RECORD as usize] {
        let mut record = [0u8; RECORD as usize];
        if self.remaining() > 0 {
            record[..8].copy_from_slice(&self.next.to_le_bytes());
            record[8..16].copy_from_slice(&self.last.to_le_bytes());
            record[16..24].copy_from_slice(&self.limit.to_le_bytes());
            record[24] = match self.kind {
                Some(DispenserKind::Queue) => 1,
                Some(DispenserKind::Range) => 2,
                None => 0,
            };
        }
        record
    }

    fn decode(record: &[u8]) -> Lent {
        let number =
            |at: usize| u64::from_le_bytes(record[at..at + 8].try_into().unwrap_or([0; 8]));
        let kind = match record[24] {
            1 => Some(DispenserKind::Queue),
            2 => Some(DispenserKind::Range),
            _ => None,
        };
        let lent = Lent {
            next: number(0),
            last: number(8),
            limit: number(16),
            kind,
        };
        // A record idgen could not have written holds nothing.
        if lent.last > crate::shard::MAX_INDEX || lent.remaining() == 0 {
            return Lent::default();
        }
        lent
    }
}

/// What the store's files looked like: any commit to the store changes it
/// (the WAL grows, or is written again from its start with new salts, and
/// its modification time moves), and so does another file at the path.
///
/// Only the WAL is opened: SQLite's locks are POSIX locks, which a process
/// loses on a file when it closes any descriptor of that file, so the store
/// file (whose shared lock a connection in WAL mode holds) and its `-shm`
/// (the WAL's locks) are only looked at with `stat`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Fingerprint([u64; 12]);

/// How long after a file's last change its fingerprint may be recorded: a
/// file's modification time moves with the kernel's coarse clock (a tick,
/// 1 to 10 ms), so a commit within the same tick as the look could leave
/// a file's time, and a WAL written again from its start its size, as they
/// were. Past this, any later commit gets another time.
const SETTLED_NS: u64 = 25_000_000;

impl Fingerprint {
    /// The store's files now; `None` when they cannot be read (the store
    /// is then read the slow way, which reports why).
    pub fn of(store: &Path) -> Option<Fingerprint> {
        let mut words = [0u64; 12];
        let meta = std::fs::metadata(store).ok()?;
        words[0] = meta.dev();
        words[1] = meta.ino();
        words[2] = meta.size();
        words[3] = meta.mtime() as u64;
        words[4] = meta.mtime_nsec() as u64;
        words[5] = meta.ctime_nsec() as u64;
        match File::open(super::wal_path(store)) {
            Ok(wal) => {
                let meta = wal.metadata().ok()?;
                let mut header = [0u8; 24];
                // A WAL without a whole header holds no frames yet.
                let _ = wal.read_exact_at(&mut header, 0);
                let word =
                    |at: usize| u64::from_be_bytes(header[at..at + 8].try_into().unwrap_or([0; 8]));
                words[6] = meta.ino();
                words[7] = meta.size();
                words[8] = meta.mtime() as u64;
                words[9] = meta.mtime_nsec() as u64;
                // The checkpoint sequence, then the two salts.
                words[10] = word(8);
                words[11] = word(16);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return None,
        }
        Some(Fingerprint(words))
    }

    /// Whether both files last changed long enough ago that any later
    /// change gets another modification time (see [`SETTLED_NS`]).
    pub fn settled(&self) -> bool {
        let Ok(now) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) else {
            return false;
        };
        let now = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX);
        let changed =
            |secs: u64, nanos: u64| secs.saturating_mul(1_000_000_000).saturating_add(nanos);
        let old = |at: u64| at.saturating_add(SETTLED_NS) < now;
        old(changed(self.0[3], self.0[4])) && (self.0[6] == 0 || old(changed(self.0[8], self.0[9])))
    }

    fn encode(&self) -> [u8; 96] {
        let mut bytes = [0u8; 96];
        for (chunk, word) in bytes.chunks_exact_mut(8).zip(self.0) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        bytes
    }
}

/// The open reserve file of one store.
pub(super) struct Reserve {
    file: File,
    path: PathBuf,
}

/// Where the reserve of the store at `store` lives: beside it and its
/// witness, hidden.
pub(super) fn path_for(store: &Path) -> PathBuf {
    super::witness::beside(store, "reserve")
}

impl Reserve {
    /// Opens the reserve of the store at `store`, creating it when missing.
    /// Only under the witness's lock: a file being created is never seen
    /// half written. Returns it and whether this call created it.
    pub fn open(store: &Path) -> DbResult<(Reserve, bool)> {
        let path = path_for(store);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| {
                DbError::Unusable(format!(
                    "cannot open its reserve file {}: {e}; give idgen write access to the store's directory",
                    path.display()
                ))
            })?;
        let created = shape_fixed(
            &file,
            &path,
            "reserve",
            MAGIC,
            LENGTH,
            "move it aside: what it held is lost (a gap), and nothing is handed out twice",
        )?;
        Ok((Reserve { file, path }, created))
    }

    /// Opens the reserve only if a whole one exists, for reading (a count of
    /// stock); `None` otherwise.
    pub fn peek(store: &Path) -> Option<Reserve> {
        let path = path_for(store);
        let file = File::open(&path).ok()?;
        whole_fixed(&file, MAGIC, LENGTH).then_some(Reserve { file, path })
    }

    /// The fingerprint recorded with the records.
    pub fn fingerprint(&self) -> DbResult<Fingerprint> {
        let mut bytes = [0u8; 96];
        self.read_at(&mut bytes, FINGERPRINT_AT)?;
        let mut words = [0u64; 12];
        for (word, chunk) in words.iter_mut().zip(bytes.chunks_exact(8)) {
            *word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        }
        Ok(Fingerprint(words))
    }

    /// Records that the records match the store as `fingerprint` shows it
    /// (`None`: as nothing, so the next take reads the store again).
    pub fn set_fingerprint(&self, fingerprint: Option<Fingerprint>) -> DbResult<()> {
        let bytes = fingerprint.unwrap_or_default().encode();
        self.file
            .write_all_at(&bytes, FINGERPRINT_AT)
            .map_err(|e| self.failed("write", e))
    }

    /// One shard's record.
    pub fn record(&self, slot: Slot) -> DbResult<Lent> {
        let mut record = [0u8; RECORD as usize];
        self.read_at(&mut record, offset(slot))?;
        Ok(Lent::decode(&record))
    }

    /// Every shard holding indexes, with its record.
    pub fn holding(&self) -> DbResult<Vec<(Slot, Lent)>> {
        let mut held = Vec::new();
        let per_app = SHARDS as usize * RECORD as usize;
        let mut records = vec![0u8; per_app];
        for app in self.apps()? {
            self.read_at(&mut records, offset(Slot { app, shard: 0 }))?;
            for (shard, record) in records.chunks_exact(RECORD as usize).enumerate() {
                let lent = Lent::decode(record);
                if lent.remaining() > 0 {
                    let shard = u8::try_from(shard).unwrap_or(u8::MAX);
                    held.push((Slot { app, shard }, lent));
                }
            }
        }
        Ok(held)
    }

    /// Whether any app is marked as maybe holding a reserve.
    pub fn marked(&self) -> DbResult<bool> {
        Ok(!self.apps()?.is_empty())
    }

    /// The apps marked as maybe holding a reserve.
    fn apps(&self) -> DbResult<Vec<u8>> {
        let mut bits = [0u8; 32];
        self.read_at(&mut bits, APPS_AT)?;
        Ok((0..=255u8)
            .filter(|&app| bits[usize::from(app / 8)] & (1 << (app % 8)) != 0)
            .collect())
    }

    /// Marks exactly `apps` as maybe holding a reserve.
    fn mark_apps(&self, apps: impl Iterator<Item = u8>) -> DbResult<()> {
        let mut bits = [0u8; 32];
        for app in apps {
            bits[usize::from(app / 8)] |= 1 << (app % 8);
        }
        self.file
            .write_all_at(&bits, APPS_AT)
            .map_err(|e| self.failed("write", e))
    }

    /// Writes shards' records (not synced: see [`Self::sync`]). An app
    /// given indexes is marked first, so no record holding any is unmarked.
    pub fn write(&self, records: &[(Slot, Lent)]) -> DbResult<()> {
        let mut apps = self.apps()?;
        let before = apps.len();
        apps.extend(
            records
                .iter()
                .filter(|(_, lent)| lent.remaining() > 0)
                .map(|(slot, _)| slot.app),
        );
        apps.sort_unstable();
        apps.dedup();
        if apps.len() != before {
            self.mark_apps(apps.into_iter())?;
        }
        for (slot, lent) in records {
            self.file
                .write_all_at(&lent.encode(), offset(*slot))
                .map_err(|e| self.failed("write", e))?;
        }
        Ok(())
    }

    /// Unmarks the apps that hold nothing any more, after their records
    /// were written.
    pub fn tidy(&self) -> DbResult<()> {
        let held = self.holding()?;
        let mut apps: Vec<u8> = held.iter().map(|(slot, _)| slot.app).collect();
        apps.dedup();
        if apps != self.apps()? {
            self.mark_apps(apps.into_iter())?;
        }
        Ok(())
    }

    /// Makes what was written durable.
    pub fn sync(&self) -> DbResult<()> {
        self.file.sync_data().map_err(|e| self.failed("sync", e))
    }

    fn read_at(&self, buf: &mut [u8], at: u64) -> DbResult<()> {
        self.file
            .read_exact_at(buf, at)
            .map_err(|e| self.failed("read", e))
    }

    fn failed(&self, what: &str, e: std::io::Error) -> DbError {
        DbError::Unusable(format!(
            "cannot {what} its reserve file {}: {e}",
            self.path.display()
        ))
    }
}

/// Where the shard's record starts.
fn offset(slot: Slot) -> u64 {
    HEADER + (u64::from(slot.app) * SHARDS as u64 + u64::from(slot.shard)) * RECORD
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written_and_an_empty_one_as_nothing() {
        let lent = Lent {
            next: 7,
            last: 9,
            limit: 100,
            kind: Some(DispenserKind::Range),
        };
        assert_eq!(Lent::decode(&lent.encode()), lent);
        let used = Lent { next: 10, ..lent };
        assert_eq!(Lent::decode(&used.encode()), Lent::default());
    }

    #[test]
    fn handing_out_stops_at_the_last_index_and_empties_the_record() {
        let mut lent = Lent {
            next: 1,
            last: 3,
            limit: 0,
            kind: Some(DispenserKind::Queue),
        };
        assert_eq!(lent.hand_out(2), 1..3);
        assert_eq!(lent.hand_out(5), 3..4);
        assert_eq!(lent, Lent::default());
        assert_eq!(lent.hand_out(1), 0..0);
    }
}
