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

use super::witness::{Marks, Witness};
use super::{DbError, DbResult, EMBEDDED_NODE, SqliteStore, ms, now_ms};
use crate::error::Result;
use crate::shard::{DispenserKind, SHARDS};
use crate::store::{
    Dispenser, LockToken, Locked, PushOutcome, Pushed, Rollback, Segment, Slot, StockPush, Taken,
};
use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};
use std::sync::Arc;
use std::time::Duration;

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
    Ok((retired > 0).then(|| Rollback {
        node: EMBEDDED_NODE.to_string(),
        app: slot.app,
        shard: slot.shard,
        stamped: None,
        serving: String::new(),
        retired,
    }))
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

/// Pops up to `n` indexes from the front of the queue.
fn take_queue(conn: &Connection, slot: Slot, n: u64, taken: &mut Taken) -> DbResult<()> {
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
/// one once when the current runs out (Redis's range script, step for step).
fn take_range(conn: &Connection, slot: Slot, n: u64, taken: &mut Taken) -> DbResult<()> {
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
                Some((f, l)) if !promoted => {
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
fn stock_one(conn: &Connection, kind: DispenserKind, p: &StockPush) -> DbResult<Pushed> {
    // The store reads the limit from id_alloc on every take: nothing to record.
    let outcome = push(conn, kind, p.slot, p.segment, &p.token)?;
    let switched = match outcome {
        PushOutcome::Stocked(_) => delete_stock(conn, kind.other(), p.slot)?,
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
pub(super) fn drop_app_stock(conn: &Connection, app: u8) -> DbResult<u64> {
    let mut dropped = 0;
    for shard in 0..SHARDS {
        let slot = Slot { app, shard };
        for kind in [DispenserKind::Queue, DispenserKind::Range] {
            dropped += delete_stock(conn, kind, slot)?;
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
        let db = self.db.clone();
        let take = move |tx: &rusqlite::Transaction<'_>| {
            let witness = db.witness()?;
            let marks = witness.marks(slot)?;
            let terms = take_terms(tx, slot)?;
            let mut taken = Taken {
                max_limit_id: terms.max_limit_id,
                kind: Some(terms.kind),
                ..Taken::default()
            };
            if terms.max_id.is_some_and(|max_id| max_id < marks.taken) {
                // The ledger handed out more than it records: its stock may too.
                taken.rollback = went_back(tx, slot, 0)?;
            } else {
                match terms.kind {
                    DispenserKind::Queue => take_queue(tx, slot, n, &mut taken)?,
                    DispenserKind::Range => take_range(tx, slot, n, &mut taken)?,
                }
                // Stock only ever rises: one index at or below the highest
                // served means the stock is older than what was served.
                if taken
                    .indexes
                    .first()
                    .is_some_and(|&first| first <= marks.served)
                {
                    let popped = taken.indexes.len() as u64;
                    taken.indexes.clear();
                    taken.rollback = went_back(tx, slot, popped)?;
                }
            }
            crate::failpoint::hit("sqlite.take.before_commit")?;
            Ok((taken, witness))
        };
        // Witnessed after the commit, before anything taken leaves the process.
        let witnessed = move |(taken, witness): (Taken, Arc<Witness>)| {
            if let Some(&served) = taken.indexes.last() {
                witness.raise(&[(slot, Marks { taken: 0, served })], false)?;
            }
            Ok((taken, witness))
        };
        let (taken, _) = self.write_then(take, witnessed).await?;
        Ok(taken)
    }
    async fn stock(&self, kind: DispenserKind, slots: &[Slot]) -> Result<Vec<Option<u64>>> {
        if slots.is_empty() {
            return Ok(Vec::new());
        }
        let slots = slots.to_vec();
        self.read(move |tx| {
            slots
                .iter()
                .map(|&slot| match kind {
                    // LLEN: a missing list has length 0.
                    DispenserKind::Queue => Ok(Some(queue_stock(tx, slot)?.unwrap_or(0))),
                    DispenserKind::Range => range_stock(tx, slot),
                })
                .collect()
        })
        .await
    }
    async fn stocked_slots(&self, kind: DispenserKind) -> Result<Vec<Slot>> {
        self.read(move |tx| stocked_slots(tx, kind)).await
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
        self.write(move |tx| {
            pushes
                .iter()
                .map(|p| stock_one(tx, kind, p).map(Ok))
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
        self.write(move |tx| {
            if !holds_lock(tx, slot, &token)? {
                return Ok(None);
            }
            Ok(Some(delete_stock(tx, kind, slot)?))
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
