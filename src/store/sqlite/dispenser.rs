//! The embedded store as a [`Dispenser`], node [`EMBEDDED_NODE`], with the
//! observable behaviour of a Redis node:
//!
//! * queue: a FIFO of pushed segments, kept as runs `first..=last` (one row per
//!   segment, not per index); `take` pops from the front;
//! * range: at most a current segment (`next..=last`) and a pending one; a push
//!   onto a full range is refused ([`PushOutcome::Full`]);
//! * refill locks per (app, shard) with a random token and a wall-clock expiry;
//!   `push` and `retire` check the token in their own transaction.
//!
//! As with Redis, a queue with no runs is "missing" and a range row stays after
//! it is used up (stock 0, present).

use super::reserve::{Fingerprint, LEND, Lent, Reserve};
use super::witness::Marks;
use super::{Db, DbError, DbResult, EMBEDDED_NODE, SqliteStore, ms, now_ms};
use crate::error::Result;
use crate::shard::{DispenserKind, SHARDS};
use crate::store::{
    Dispenser, LockToken, Locked, PushOutcome, Pushed, Rollback, Segment, Slot, StockPush, Taken,
};
use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::time::{Duration, Instant};

/// Indexes as SQLite stores them; the ledger never takes one past `i64::MAX`.
fn sql_index(index: u64) -> DbResult<i64> {
    i64::try_from(index).map_err(|_| {
        DbError::Idgen(crate::Error::Internal(format!(
            "index {index} does not fit the embedded store"
        )))
    })
}

/// Indexes left in a queue: `None` when it has no runs (a missing Redis list).
fn queue_stock(conn: &Connection, slot: Slot) -> DbResult<Option<u64>> {
    let (runs, stock): (i64, Option<i64>) = conn
        .prepare_cached(
            "SELECT COUNT(*), SUM(MAX(last - first + 1, 0)) FROM idgen_queue WHERE app_id = ?1 AND shard_id = ?2",
        )?
        .query_row(params![slot.app, slot.shard], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok((runs > 0).then(|| stock.unwrap_or(0).max(0) as u64))
}

type RangeRow = (i64, i64, Option<i64>, Option<i64>);

fn range_row(conn: &Connection, slot: Slot) -> DbResult<Option<RangeRow>> {
    Ok(conn
        .prepare_cached(
            "SELECT next, last, pending_first, pending_last FROM idgen_range WHERE app_id = ?1 AND shard_id = ?2",
        )?
        .query_row(params![slot.app, slot.shard], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?)
}

fn range_count((next, last, pending_first, pending_last): RangeRow) -> u64 {
    let pending = pending_first.zip(pending_last);
    crate::store::range_count(
        next.into(),
        last.into(),
        pending.map(|(first, last)| (first.into(), last.into())),
    )
}

/// Indexes left in a range: `None` when the shard has no range row.
fn range_stock(conn: &Connection, slot: Slot) -> DbResult<Option<u64>> {
    Ok(range_row(conn, slot)?.map(range_count))
}

/// Like Redis's `stock_of`: `None` for a missing queue or range.
fn stock_of(conn: &Connection, kind: DispenserKind, slot: Slot) -> DbResult<Option<u64>> {
    match kind {
        DispenserKind::Queue => queue_stock(conn, slot),
        DispenserKind::Range => range_stock(conn, slot),
    }
}

/// Does `token` hold the shard's refill lock right now?
fn holds_lock(conn: &Connection, slot: Slot, token: &LockToken) -> DbResult<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT 1 FROM idgen_lock WHERE app_id = ?1 AND shard_id = ?2 AND token = ?3 AND expires_at_ms > ?4",
        )?
        .query_row(params![slot.app, slot.shard, token.0, now_ms()], |_| Ok(()))
        .optional()?
        .is_some())
}

/// What a take goes by, read with every take in one statement (every
/// statement is compiled anew by each process, and an embedded `next` is one
/// process for one take).
struct TakeTerms {
    /// The app's recorded dispenser (no row: the queue).
    kind: DispenserKind,
    /// The shard's `max_limit_id` (0: no limit; `None`: no ledger row), so
    /// that no index past the limit is ever served.
    max_limit_id: Option<u64>,
    /// The shard's `max_id`, for the witness (`None`: no ledger row).
    max_id: Option<u64>,
}

fn take_terms(conn: &Connection, slot: Slot) -> DbResult<TakeTerms> {
    let (kind, limit, max_id): (Option<String>, Option<i64>, Option<i64>) = conn
        .prepare_cached(
            "SELECT (SELECT kind FROM idgen_dispenser WHERE app_id = ?1), a.max_limit_id, a.max_id \
             FROM (SELECT 1) LEFT JOIN id_alloc AS a ON a.app_id = ?1 AND a.shard_id = ?2",
        )?
        .query_row(params![slot.app, slot.shard], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
    Ok(TakeTerms {
        kind: crate::store::sql_rows::dispenser_from(kind.as_deref())?,
        max_limit_id: limit.map(|l| l.max(0) as u64),
        max_id: max_id.map(|m| m.max(0) as u64),
    })
}

/// The store went back in time (see [`super::witness`]): the shard's stock,
/// of both kinds, is retired unserved, with the `popped` indexes this take had
/// already removed; `None` when it held none. The allocator then takes from the
/// ledger, which moves past the witness first.
fn went_back(conn: &Connection, slot: Slot, popped: u64) -> DbResult<Option<Rollback>> {
    let retired = popped
        + delete_stock(conn, DispenserKind::Queue, slot)?
        + delete_stock(conn, DispenserKind::Range, slot)?;
    Ok(retired_unserved(slot, retired))
}

/// The rollback of `retired` indexes of `slot` thrown away unserved.
fn retired_unserved(slot: Slot, retired: u64) -> Option<Rollback> {
    (retired > 0).then(|| Rollback {
        node: EMBEDDED_NODE.to_string(),
        app: slot.app,
        shard: slot.shard,
        stamped: None,
        serving: String::new(),
        retired,
    })
}

/// One take's rollbacks of one shard, added up.
fn add_rollback(taken: &mut Taken, more: Option<Rollback>) {
    taken.rollback = match (taken.rollback.take(), more) {
        (Some(mut a), Some(b)) => {
            a.retired += b.retired;
            Some(a)
        }
        (a, b) => a.or(b),
    };
}

/// Notes a row that holds no index range (written by hand): dropped, a gap.
fn reject(taken: &mut Taken, table: &str, slot: Slot, entry: String) {
    let malformed = taken
        .malformed
        .get_or_insert_with(|| crate::store::Malformed {
            key: format!("{table} app {} shard {}", slot.app, slot.shard),
            entry,
            count: 0,
        });
    malformed.count += 1;
}

/// Pops up to `n` indexes from the front of the queue; with `one_run`, from
/// its first run only (indexes in one piece).
fn take_queue(
    conn: &Connection,
    slot: Slot,
    n: u64,
    one_run: bool,
    taken: &mut Taken,
) -> DbResult<()> {
    let mut want = n;
    // Runs consumed completely (or not indexes at all) go; a partly used one is cut.
    let mut spent_through: Option<i64> = None;
    let mut cut: Option<(i64, i64)> = None;
    {
        let mut stmt = conn.prepare_cached(
            "SELECT seq, first, last FROM idgen_queue WHERE app_id = ?1 AND shard_id = ?2 ORDER BY seq",
        )?;
        let mut rows = stmt.query(params![slot.app, slot.shard])?;
        while want > 0 {
            let Some(row) = rows.next()? else { break };
            let (seq, first, last): (i64, i64, i64) = (row.get(0)?, row.get(1)?, row.get(2)?);
            let valid = u64::try_from(first)
                .ok()
                .zip(u64::try_from(last).ok())
                .filter(|&(f, l)| f <= l && l <= crate::shard::MAX_INDEX);
            let Some((first_u, last_u)) = valid else {
                reject(taken, "idgen_queue", slot, format!("{first}..{last}"));
                spent_through = Some(seq);
                continue;
            };
            let available = last_u - first_u + 1;
            if available <= want {
                taken.indexes.extend(first_u..=last_u);
                want -= available;
                spent_through = Some(seq);
                if one_run {
                    break;
                }
            } else {
                let end = first_u + want - 1;
                taken.indexes.extend(first_u..=end);
                want = 0;
                cut = Some((seq, sql_index(end + 1)?));
            }
        }
    }
    if let Some(seq) = spent_through {
        conn.prepare_cached(
            "DELETE FROM idgen_queue WHERE app_id = ?1 AND shard_id = ?2 AND seq <= ?3",
        )?
        .execute(params![slot.app, slot.shard, seq])?;
    }
    if let Some((seq, first)) = cut {
        conn.prepare_cached(
            "UPDATE idgen_queue SET first = ?4 WHERE app_id = ?1 AND shard_id = ?2 AND seq = ?3",
        )?
        .execute(params![slot.app, slot.shard, seq, first])?;
    }
    Ok(())
}

/// Takes up to `n` indexes from the current segment, promoting the pending
/// one once when the current runs out (Redis's range script, step for step);
/// with `one_run`, from the current segment only (indexes in one piece).
fn take_range(
    conn: &Connection,
    slot: Slot,
    n: u64,
    one_run: bool,
    taken: &mut Taken,
) -> DbResult<()> {
    let Some((next, last, pending_first, pending_last)) = range_row(conn, slot)? else {
        return Ok(());
    };
    let valid = |v: i64| {
        u64::try_from(v)
            .ok()
            .filter(|&i| i <= crate::shard::MAX_INDEX + 1)
    };
    let (Some(mut next), Some(mut last)) = (valid(next), valid(last)) else {
        reject(taken, "idgen_range", slot, format!("{next}..{last}"));
        conn.prepare_cached("DELETE FROM idgen_range WHERE app_id = ?1 AND shard_id = ?2")?
            .execute(params![slot.app, slot.shard])?;
        return Ok(());
    };
    let pending = match (pending_first, pending_last) {
        (Some(f), Some(l)) => match (valid(f), valid(l)) {
            (Some(f), Some(l)) => Some((f, l)),
            _ => {
                reject(taken, "idgen_range", slot, format!("{f}..{l}"));
                None
            }
        },
        _ => None,
    };
    let mut want = n;
    let mut promoted = false;
    while want > 0 {
        if next > last {
            match pending {
                Some((f, l)) if !promoted && !one_run => {
                    (next, last) = (f, l);
                    promoted = true;
                    continue;
                }
                _ => break,
            }
        }
        let count = want.min(last - next + 1);
        taken.indexes.extend(next..next + count);
        next += count;
        want -= count;
    }
    if promoted || (pending.is_none() && pending_first.is_some()) {
        conn.prepare_cached(
            "UPDATE idgen_range SET last = ?3, pending_first = NULL, pending_last = NULL WHERE app_id = ?1 AND shard_id = ?2",
        )?
        .execute(params![slot.app, slot.shard, sql_index(last)?])?;
    }
    // `next` may pass `last` by one: a used-up range, like Redis's.
    conn.prepare_cached("UPDATE idgen_range SET next = ?3 WHERE app_id = ?1 AND shard_id = ?2")?
        .execute(params![slot.app, slot.shard, sql_index(next)?])?;
    Ok(())
}

fn take_from(
    conn: &Connection,
    kind: DispenserKind,
    slot: Slot,
    n: u64,
    one_run: bool,
    taken: &mut Taken,
) -> DbResult<()> {
    match kind {
        DispenserKind::Queue => take_queue(conn, slot, n, one_run, taken),
        DispenserKind::Range => take_range(conn, slot, n, one_run, taken),
    }
}

/// Reads the store again for every shard holding a reserve (its files
/// changed since the reserve last matched them): a shard whose ledger row is
/// gone, or whose app changed dispensers (the stock it came from was
/// retired), loses its reserve; the others take the shard's limit as it is
/// now. Returns the records that changed.
fn recheck_reserve(conn: &Connection, reserve: &Reserve) -> DbResult<Vec<(Slot, Lent)>> {
    let mut changed = Vec::new();
    for (slot, lent) in reserve.holding()? {
        let terms = take_terms(conn, slot)?;
        let now = match terms.max_limit_id {
            Some(limit) if lent.kind == Some(terms.kind) => Lent { limit, ..lent },
            _ => Lent::default(),
        };
        if now != lent {
            changed.push((slot, now));
        }
    }
    Ok(changed)
}

/// Clears `slot`'s reserve if it was lent from `kind`'s stock (which is
/// being retired); returns how many indexes it held.
fn retire_reserve(reserve: &Reserve, kind: DispenserKind, slot: Slot) -> DbResult<u64> {
    let lent = reserve.record(slot)?;
    if lent.kind != Some(kind) || lent.remaining() == 0 {
        return Ok(0);
    }
    reserve.write(&[(slot, Lent::default())])?;
    Ok(lent.remaining())
}

/// Takes `slot`'s refill lock unless someone holds it, reading its stock under it.
fn lock(
    conn: &Connection,
    kind: DispenserKind,
    slot: Slot,
    ttl: Duration,
) -> DbResult<Option<Locked>> {
    let now = now_ms();
    let held = conn
        .prepare_cached(
            "SELECT 1 FROM idgen_lock WHERE app_id = ?1 AND shard_id = ?2 AND expires_at_ms > ?3",
        )?
        .query_row(params![slot.app, slot.shard, now], |_| Ok(()))
        .optional()?
        .is_some();
    if held {
        return Ok(None);
    }
    let token = LockToken(crate::store::fresh_token());
    conn.prepare_cached(
        "INSERT INTO idgen_lock (app_id, shard_id, token, expires_at_ms) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (app_id, shard_id) DO UPDATE SET token = excluded.token, expires_at_ms = excluded.expires_at_ms",
    )?
    .execute(params![slot.app, slot.shard, token.0, now.saturating_add(ms(ttl))])?;
    Ok(Some(Locked {
        token,
        stock: stock_of(conn, kind, slot)?,
        rollback: None,
        // The store is its own ledger: no witness to keep.
        marks: None,
        // One node: no move seals a shard here.
        moved_to: None,
    }))
}

/// Releases `slot`'s lock if `token` still holds it; whether it did.
fn unlock(conn: &Connection, slot: Slot, token: &LockToken) -> DbResult<bool> {
    let expires: Option<i64> = conn
        .prepare_cached(
            "DELETE FROM idgen_lock WHERE app_id = ?1 AND shard_id = ?2 AND token = ?3 RETURNING expires_at_ms",
        )?
        .query_row(params![slot.app, slot.shard, token.0], |r| r.get(0))
        .optional()?;
    // An expired lock was no longer ours, as with a Redis key that timed out.
    Ok(expires.is_some_and(|at| at > now_ms()))
}

/// One push of a batch: the segment stocked while its token holds the lock,
/// the other dispenser's stock retired, and the lock released with it when
/// asked (the store keeps no witness, so no push is refused for one).
fn stock_one(
    conn: &Connection,
    reserve: &Reserve,
    kind: DispenserKind,
    p: &StockPush,
) -> DbResult<Pushed> {
    // The store reads the limit from id_alloc on every take: nothing to record.
    let outcome = push(conn, kind, p.slot, p.segment, &p.token)?;
    let switched = match outcome {
        PushOutcome::Stocked(_) => {
            delete_stock(conn, kind.other(), p.slot)?
                + retire_reserve(reserve, kind.other(), p.slot)?
        }
        _ => 0,
    };
    let unlocked = match outcome {
        PushOutcome::LockLost => true,
        _ if p.release => unlock(conn, p.slot, &p.token)?,
        _ => false,
    };
    Ok(Pushed {
        outcome,
        rollback: None,
        switched,
        settled: Default::default(),
        unlocked,
    })
}

fn push(
    conn: &Connection,
    kind: DispenserKind,
    slot: Slot,
    segment: Segment,
    lock: &LockToken,
) -> DbResult<PushOutcome> {
    if !holds_lock(conn, slot, lock)? {
        return Ok(PushOutcome::LockLost);
    }
    let (first, last) = (sql_index(segment.first)?, sql_index(segment.last)?);
    match kind {
        DispenserKind::Queue => {
            conn.prepare_cached(
                "INSERT INTO idgen_queue (app_id, shard_id, seq, first, last)
                 SELECT ?1, ?2, COALESCE(MAX(seq), 0) + 1, ?3, ?4 FROM idgen_queue WHERE app_id = ?1 AND shard_id = ?2",
            )?
            .execute(params![slot.app, slot.shard, first, last])?;
            Ok(PushOutcome::Stocked(queue_stock(conn, slot)?.unwrap_or(0)))
        }
        DispenserKind::Range => {
            let row = range_row(conn, slot)?;
            let current_empty = row.is_none_or(|(next, last, _, _)| next > last);
            let pending = row.and_then(|(_, _, f, l)| f.zip(l));
            let (sql, args) = match (current_empty, pending) {
                (true, None) => (
                    "INSERT INTO idgen_range (app_id, shard_id, next, last) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (app_id, shard_id) DO UPDATE SET next = excluded.next, last = excluded.last",
                    [first, last],
                ),
                (true, Some((pending_first, pending_last))) => {
                    // The pending segment becomes current; the new one waits.
                    conn.prepare_cached(
                        "UPDATE idgen_range SET next = ?3, last = ?4 WHERE app_id = ?1 AND shard_id = ?2",
                    )?
                    .execute(params![slot.app, slot.shard, pending_first, pending_last])?;
                    (
                        "UPDATE idgen_range SET pending_first = ?3, pending_last = ?4 WHERE app_id = ?1 AND shard_id = ?2",
                        [first, last],
                    )
                }
                (false, None) => (
                    "UPDATE idgen_range SET pending_first = ?3, pending_last = ?4 WHERE app_id = ?1 AND shard_id = ?2",
                    [first, last],
                ),
                (false, Some(_)) => return Ok(PushOutcome::Full),
            };
            conn.prepare_cached(sql)?
                .execute(params![slot.app, slot.shard, args[0], args[1]])?;
            Ok(PushOutcome::Stocked(range_stock(conn, slot)?.unwrap_or(0)))
        }
    }
}

/// Deletes one shard's stock of `kind`; returns how many indexes it held.
fn delete_stock(conn: &Connection, kind: DispenserKind, slot: Slot) -> DbResult<u64> {
    let held = stock_of(conn, kind, slot)?.unwrap_or(0);
    let sql = match kind {
        DispenserKind::Queue => "DELETE FROM idgen_queue WHERE app_id = ?1 AND shard_id = ?2",
        DispenserKind::Range => "DELETE FROM idgen_range WHERE app_id = ?1 AND shard_id = ?2",
    };
    conn.prepare_cached(sql)?
        .execute(params![slot.app, slot.shard])?;
    Ok(held)
}

/// The dispenser recorded for the app (the ledger is in the same file).
pub(super) fn recorded_kind(conn: &Connection, app: u8) -> DbResult<DispenserKind> {
    let kind: Option<String> = conn
        .prepare_cached("SELECT kind FROM idgen_dispenser WHERE app_id = ?1")?
        .query_row([app], |r| r.get(0))
        .optional()?;
    Ok(crate::store::sql_rows::dispenser_from(kind.as_deref())?)
}

/// Deletes every shard's stock of `app`, both kinds.
pub(super) fn drop_app_stock(conn: &Connection, reserve: &Reserve, app: u8) -> DbResult<u64> {
    let mut dropped = 0;
    for shard in 0..SHARDS {
        let slot = Slot { app, shard };
        for kind in [DispenserKind::Queue, DispenserKind::Range] {
            dropped += delete_stock(conn, kind, slot)? + retire_reserve(reserve, kind, slot)?;
        }
    }
    // Rows outside the 64 shards can only come from tampering; they go too.
    conn.prepare_cached("DELETE FROM idgen_queue WHERE app_id = ?1")?
        .execute([app])?;
    conn.prepare_cached("DELETE FROM idgen_range WHERE app_id = ?1")?
        .execute([app])?;
    Ok(dropped)
}

fn stocked_slots(conn: &Connection, kind: DispenserKind) -> DbResult<Vec<Slot>> {
    let sql = match kind {
        DispenserKind::Queue => {
            "SELECT DISTINCT app_id, shard_id FROM idgen_queue ORDER BY app_id, shard_id"
        }
        DispenserKind::Range => {
            "SELECT app_id, shard_id FROM idgen_range ORDER BY app_id, shard_id"
        }
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
    let mut slots = Vec::new();
    for row in rows {
        let (app, shard) = row?;
        if let (Ok(app), Ok(shard)) = (u8::try_from(app), u8::try_from(shard))
            && shard < SHARDS
        {
            slots.push(Slot { app, shard });
        }
    }
    Ok(slots)
}

#[async_trait]
impl Dispenser for SqliteStore {
    fn node(&self) -> &str {
        EMBEDDED_NODE
    }

    fn describe(&self) -> String {
        format!("embedded store {}", self.path().display())
    }

    async fn server_version(&self) -> Result<String> {
        Ok(format!("SQLite {}", rusqlite::version()))
    }
}

#[async_trait]
impl crate::store::Stock for SqliteStore {
    /// Serves the app's recorded dispenser, whatever the caller guessed: the
    /// record is in the same file.
    async fn take(&self, _guess: DispenserKind, slot: Slot, n: u64) -> Result<Taken> {
        if n == 0 {
            return Ok(Taken::default());
        }
        let lends = self.lends;
        if lends && let Some(taken) = self.on_db(move |db| db.take_reserved(slot, n)).await? {
            crate::activity::did(crate::activity::Work::ReserveTake);
            return Ok(taken);
        }
        crate::activity::did(crate::activity::Work::SqliteTransaction);
        self.on_db(move |db| db.take_stock(slot, n, lends)).await
    }
    async fn stock(&self, kind: DispenserKind, slots: &[Slot]) -> Result<Vec<Option<u64>>> {
        if slots.is_empty() {
            return Ok(Vec::new());
        }
        let slots = slots.to_vec();
        let path = self.path().to_path_buf();
        self.read(move |tx| {
            // Read without the witness's lock, beside the snapshot: indexes
            // a take lends meanwhile may be counted in both or in neither.
            // A count for refills and `status`, never a reason to serve.
            let reserve = Reserve::peek(&path);
            slots
                .iter()
                .map(|&slot| {
                    let stock = match kind {
                        // LLEN: a missing list has length 0.
                        DispenserKind::Queue => Some(queue_stock(tx, slot)?.unwrap_or(0)),
                        DispenserKind::Range => range_stock(tx, slot)?,
                    };
                    let lent = match &reserve {
                        Some(reserve) => reserve.record(slot)?,
                        None => Lent::default(),
                    };
                    Ok(match lent.remaining() {
                        0 => stock,
                        _ if lent.kind != Some(kind) => stock,
                        held => Some(stock.unwrap_or(0) + held),
                    })
                })
                .collect()
        })
        .await
    }
    async fn stocked_slots(&self, kind: DispenserKind) -> Result<Vec<Slot>> {
        let path = self.path().to_path_buf();
        self.read(move |tx| {
            let mut slots = stocked_slots(tx, kind)?;
            if let Some(reserve) = Reserve::peek(&path) {
                slots.extend(
                    reserve
                        .holding()?
                        .into_iter()
                        .filter(|(_, lent)| lent.kind == Some(kind))
                        .map(|(slot, _)| slot),
                );
                slots.sort_by_key(|s| (s.app, s.shard));
                slots.dedup();
            }
            Ok(slots)
        })
        .await
    }
}

#[async_trait]
impl crate::store::Restock for SqliteStore {
    async fn lock_many(
        &self,
        kind: DispenserKind,
        slots: &[Slot],
        ttl: Duration,
    ) -> Result<Vec<Result<Option<Locked>>>> {
        // One transaction, one sync of the file, for the whole batch.
        let slots = slots.to_vec();
        self.write(move |tx| {
            slots
                .into_iter()
                .map(|slot| lock(tx, kind, slot, ttl).map(Ok))
                .collect()
        })
        .await
    }
    async fn push_many(
        &self,
        kind: DispenserKind,
        pushes: &[StockPush],
    ) -> Result<Vec<Result<Pushed>>> {
        crate::failpoint::hit("dispenser.before_push")?;
        // One transaction, one sync of the file, for the whole batch.
        let pushes = pushes.to_vec();
        let db = self.db.clone();
        self.write(move |tx| {
            let reserve = db.reserve()?;
            pushes
                .iter()
                .map(|p| stock_one(tx, &reserve, kind, p).map(Ok))
                .collect()
        })
        .await
    }
    async fn unlock(&self, slot: Slot, token: &LockToken) -> Result<bool> {
        let token = token.clone();
        self.write(move |tx| unlock(tx, slot, &token)).await
    }
    async fn unlock_many(&self, locks: &[(Slot, LockToken)]) -> Result<()> {
        // One transaction, one sync of the file, for the whole batch.
        let locks = locks.to_vec();
        self.write(move |tx| {
            for (slot, token) in &locks {
                unlock(tx, *slot, token)?;
            }
            Ok(())
        })
        .await
    }
    async fn retire(
        &self,
        kind: DispenserKind,
        slot: Slot,
        token: &LockToken,
    ) -> Result<Option<u64>> {
        let token = token.clone();
        let db = self.db.clone();
        self.write(move |tx| {
            if !holds_lock(tx, slot, &token)? {
                return Ok(None);
            }
            let reserve = db.reserve()?;
            Ok(Some(
                delete_stock(tx, kind, slot)? + retire_reserve(&reserve, kind, slot)?,
            ))
        })
        .await
    }
    async fn switch_kind(
        &self,
        kind: DispenserKind,
        slot: Slot,
        token: &LockToken,
    ) -> Result<Option<u64>> {
        // Takes read the record in this file: retiring the other stock is all.
        self.retire(kind.other(), slot, token).await
    }
}

/// What a take from the stock changed in the reserve, written after its commit.
struct ReserveUpdate {
    /// Records read again, and the shard's own.
    records: Vec<(Slot, Lent)>,
    /// Whether indexes the caller gets came from the reserve: then the
    /// records are synced before the take returns.
    handed_out: bool,
    /// Whether every record was read again (the apps holding none are then
    /// unmarked).
    rechecked: bool,
}

impl Db {
    /// A take served from the shard's reserve alone, without opening the
    /// store: only when the reserve holds all `n`, its records still match
    /// the store's files, and the witness saw none of it served. `None`:
    /// take from the stock ([`Self::take_stock`]), which also handles every
    /// case this leaves.
    pub(super) fn take_reserved(&self, slot: Slot, n: u64) -> Result<Option<Taken>> {
        let witness = self
            .check_openable()
            .and_then(|()| self.witness())
            .map_err(|e| self.error(e))?;
        let deadline = Instant::now() + self.timeout;
        let take = || -> DbResult<Option<Taken>> {
            let reserve = self.reserve()?;
            let mut lent = reserve.record(slot)?;
            if lent.remaining() < n {
                return Ok(None);
            }
            let recorded = reserve.fingerprint()?;
            if Fingerprint::of(&self.path) != Some(recorded) {
                return Ok(None);
            }
            if lent.next <= witness.marks(slot)?.served {
                return Ok(None);
            }
            let (limit, kind) = (lent.limit, lent.kind);
            let indexes: Vec<u64> = lent.hand_out(n).collect();
            crate::failpoint::hit("sqlite.reserve.before_write")?;
            // Durable before anything leaves: a power cut cannot hand these out again.
            reserve.write(&[(slot, lent)])?;
            reserve.sync()?;
            crate::failpoint::hit("sqlite.reserve.before_raise")?;
            if let Some(&served) = indexes.last() {
                witness.raise(&[(slot, Marks { taken: 0, served })], false)?;
            }
            Ok(Some(Taken {
                indexes,
                max_limit_id: Some(limit),
                kind,
                ..Taken::default()
            }))
        };
        witness
            .hold(deadline, take)
            .and_then(|taken| taken)
            .map_err(|e| self.error(e))
    }

    /// A take in one transaction on the store: the shard's reserve first
    /// (it left the stock before anything the stock holds now), then the
    /// stock; a take of fewer than [`LEND`] indexes lends up to that many
    /// more, from the same run, to the reserve. After the commit, the
    /// reserve's records are written and synced, then the witness raised.
    pub(super) fn take_stock(&self, slot: Slot, n: u64, lends: bool) -> Result<Taken> {
        self.write_with(|conn| {
            let witness = self.witness()?;
            let reserve = self.reserve()?;
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            // A reserve that holds nothing, and will not, has nothing to check.
            let watched = lends || reserve.marked()?;
            // Commits by other connections from here on change this number.
            let version = |conn: &Connection| -> DbResult<Option<i64>> {
                Ok(match watched {
                    true => Some(conn.query_row("PRAGMA data_version", [], |r| r.get(0))?),
                    false => None,
                })
            };
            let began = version(&tx)?;
            // Under the store's write lock: nobody commits while this runs.
            let rechecked = watched && Fingerprint::of(&self.path) != Some(reserve.fingerprint()?);
            let mut update = ReserveUpdate {
                records: if rechecked {
                    recheck_reserve(&tx, &reserve)?
                } else {
                    Vec::new()
                },
                handed_out: false,
                rechecked,
            };
            let lend = if lends { LEND } else { 0 };
            let taken = take_in(
                &tx,
                &reserve,
                &witness.marks(slot)?,
                slot,
                n,
                lend,
                &mut update,
            )?;
            crate::failpoint::hit("sqlite.take.before_commit")?;
            tx.commit()?;
            // The files as this transaction left them, unless another
            // connection committed since it began, or they changed too
            // recently for a later change to show (then the next take reads
            // the store again).
            let fingerprint = watched
                .then(|| Fingerprint::of(&self.path))
                .flatten()
                .filter(Fingerprint::settled);
            let unchanged = version(conn)? == began;
            if !update.records.is_empty() {
                reserve.write(&update.records)?;
                if update.handed_out {
                    reserve.sync()?;
                }
                if update.rechecked {
                    reserve.tidy()?;
                }
            }
            // After the records: a crash in between leaves the old
            // fingerprint, and the next take reads the store again.
            if watched {
                reserve.set_fingerprint(fingerprint.filter(|_| unchanged))?;
            }
            // Witnessed after the commit, before anything taken leaves the process.
            if let Some(&served) = taken.indexes.last() {
                witness.raise(&[(slot, Marks { taken: 0, served })], false)?;
            }
            Ok(taken)
        })
    }
}

/// The body of [`Db::take_stock`], inside its transaction.
fn take_in(
    tx: &Connection,
    reserve: &Reserve,
    marks: &Marks,
    slot: Slot,
    n: u64,
    lend_up_to: u64,
    update: &mut ReserveUpdate,
) -> DbResult<Taken> {
    let terms = take_terms(tx, slot)?;
    let mut taken = Taken {
        max_limit_id: terms.max_limit_id,
        kind: Some(terms.kind),
        ..Taken::default()
    };
    let found = match update.records.iter().find(|(s, _)| *s == slot) {
        Some(&(_, lent)) => lent,
        None => reserve.record(slot)?,
    };
    let mut lent = found;
    if lent.remaining() > 0 {
        if lent.next <= marks.served {
            // The reserve file went back (restored, or made again): what it
            // holds may have been served already.
            add_rollback(&mut taken, retired_unserved(slot, lent.remaining()));
            lent = Lent::default();
        } else {
            taken.indexes.extend(lent.hand_out(n));
            update.handed_out = !taken.indexes.is_empty();
        }
    }
    let want = n - taken.indexes.len() as u64;
    if want > 0 {
        // What the reserve just handed out counts as served.
        let served = marks.served.max(taken.indexes.last().copied().unwrap_or(0));
        if terms.max_id.is_some_and(|max_id| max_id < marks.taken) {
            // The ledger handed out more than it records: its stock may too.
            add_rollback(&mut taken, went_back(tx, slot, 0)?);
        } else {
            let from = taken.indexes.len();
            take_from(tx, terms.kind, slot, want, false, &mut taken)?;
            // Stock only ever rises: one index at or below the highest
            // served means the stock is older than what was served.
            if taken
                .indexes
                .get(from)
                .is_some_and(|&first| first <= served)
            {
                let popped = (taken.indexes.len() - from) as u64;
                taken.indexes.truncate(from);
                add_rollback(&mut taken, went_back(tx, slot, popped)?);
            } else if n < lend_up_to && taken.indexes.len() > from && lent.remaining() == 0 {
                lent = lend(tx, &terms, slot, lend_up_to, &mut taken)?;
                if lent.remaining() > 0 && lent.next <= served {
                    // Stock out of order: as stale as stock that starts there.
                    add_rollback(&mut taken, went_back(tx, slot, lent.remaining())?);
                    lent = Lent::default();
                }
            }
        }
    }
    if lent != found {
        update.records.retain(|(s, _)| *s != slot);
        update.records.push((slot, lent));
    }
    Ok(taken)
}

/// Moves up to `up_to` indexes, from the run the take ended in, out of the
/// stock into a reserve for the shard (empty when the stock ran out, or the
/// shard has no ledger row to take a limit from).
fn lend(
    tx: &Connection,
    terms: &TakeTerms,
    slot: Slot,
    up_to: u64,
    taken: &mut Taken,
) -> DbResult<Lent> {
    let Some(limit) = terms.max_limit_id else {
        return Ok(Lent::default());
    };
    let mut lent = Taken::default();
    take_from(tx, terms.kind, slot, up_to, true, &mut lent)?;
    if let Some(bad) = lent.malformed {
        let into = taken.malformed.get_or_insert(crate::store::Malformed {
            count: 0,
            ..bad.clone()
        });
        into.count += bad.count;
    }
    Ok(match (lent.indexes.first(), lent.indexes.last()) {
        (Some(&next), Some(&last)) => Lent {
            next,
            last,
            limit,
            kind: Some(terms.kind),
        },
        _ => Lent::default(),
    })
}
