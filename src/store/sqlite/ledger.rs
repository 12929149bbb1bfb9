//! The embedded store as the [`Ledger`]: `id_alloc` plus idgen's own per-app
//! policy, refill history, route state and sealed apps.
//!
//! The store has one node, [`EMBEDDED_NODE`], so apps never move between nodes
//! here; the way out is sealing an app and recreating it elsewhere
//! (`idgen migrate --from-store`).

use super::witness::{Marks, Witness};
use super::{
    DbError, DbResult, EMBEDDED_NODE, SealedApp, SealedShard, Sealing, SqliteStore, now_ms,
};
use crate::error::{Error, Result};
use crate::shard::{DispenserKind, SHARDS};
use crate::store::sql_rows::{
    APP_EXTRA_SQL, HistoryRow, LockedRow, REFILL_ROWS_SQL, StoredAppExtra, StoredAppShard,
    StoredShard, apply_request, group_apps, join_history, route_from, shard_rows_sql,
};
use crate::store::{
    AppChange, AppRecord, AppSpec, ForeignRow, InitOutcome, InitReport, Ledger, RefillMark, Route,
    SegmentRequest, ShardTake, Slot,
};
use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A validated count as SQLite stores it (AppSpec keeps them within i64).
fn sql_u64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Where a sealed app went and when; `None` while it is served here.
pub(super) fn sealing(conn: &Connection, app: u8) -> DbResult<Option<Sealing>> {
    Ok(conn
        .prepare_cached("SELECT moved_to, sealed_at_ms FROM idgen_sealed WHERE app_id = ?1")?
        .query_row([app], |r| {
            Ok(Sealing {
                destination: r.get(0)?,
                sealed_at_ms: r.get(1)?,
            })
        })
        .optional()?)
}

fn refuse_if_sealed(conn: &Connection, app: u8) -> DbResult<()> {
    match sealing(conn, app)? {
        Some(sealed) => Err(DbError::Idgen(Error::AppMovedOut {
            app,
            to: sealed.destination,
        })),
        None => Ok(()),
    }
}

fn shard_count(conn: &Connection, app: u8) -> DbResult<i64> {
    Ok(conn
        .prepare_cached("SELECT COUNT(*) FROM id_alloc WHERE app_id = ?1")?
        .query_row([app], |r| r.get(0))?)
}

/// Every app (or one) with its shards, in app and shard order.
fn records(conn: &Connection, only: Option<u8>) -> DbResult<Vec<AppRecord>> {
    let mut policies: BTreeMap<u8, (i64, i64, i64)> = BTreeMap::new();
    {
        let mut stmt =
            conn.prepare_cached("SELECT app_id, min_step, max_step, target_secs FROM idgen_app")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
            ))
        })?;
        for row in rows {
            let (app, min, max, target) = row?;
            if let Ok(app) = u8::try_from(app) {
                policies.insert(app, (min, max, target));
            }
        }
    }
    let mut dispensers: BTreeMap<u8, String> = BTreeMap::new();
    {
        let mut stmt = conn.prepare_cached("SELECT app_id, kind FROM idgen_dispenser")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (app, kind) = row?;
            if let Ok(app) = u8::try_from(app) {
                dispensers.insert(app, kind);
            }
        }
    }
    let mut stmt = conn.prepare_cached(
        "SELECT a.app_id, a.app_name, a.description, a.shard_id, a.max_id, a.step, a.max_limit_id, h.loaded
         FROM id_alloc a LEFT JOIN idgen_refill h ON h.app_id = a.app_id AND h.shard_id = a.shard_id
         WHERE (?1 IS NULL OR a.app_id = ?1) AND a.app_id BETWEEN 0 AND 255 AND a.shard_id BETWEEN 0 AND 63
         ORDER BY a.app_id, a.shard_id",
    )?;
    type Row = (i64, String, Option<String>, i64, i64, i64, i64, Option<i64>);
    let rows = stmt.query_map([only], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
            r.get(6)?,
            r.get(7)?,
        ))
    })?;
    let rows = rows
        .map(|row| {
            let (app, name, description, shard, max_id, step, max_limit_id, loaded): Row = row?;
            // The WHERE clause keeps both in range.
            Ok(StoredAppShard {
                app: app as u8,
                name,
                description,
                shard: shard as u8,
                max_id,
                step,
                max_limit_id,
                loaded,
            })
        })
        .collect::<DbResult<Vec<_>>>()?;
    Ok(group_apps(rows, &policies, &dispensers)?)
}

fn init_app(conn: &Connection, spec: &AppSpec) -> DbResult<InitReport> {
    refuse_if_sealed(conn, spec.app)?;
    let mut added = 0u64;
    {
        let mut insert = conn.prepare_cached(
            "INSERT OR IGNORE INTO id_alloc (app_id, app_name, max_id, shard_id, step, description, max_limit_id)
             VALUES (?1, ?2, 0, ?3, ?4, ?5, ?6)",
        )?;
        for shard in 0..SHARDS {
            added += insert.execute(params![
                spec.app,
                spec.name,
                shard,
                sql_u64(spec.step),
                spec.description,
                sql_u64(spec.max_limit_id)
            ])? as u64;
        }
    }
    let existing: Option<String> = conn
        .prepare_cached(
            "SELECT app_name FROM id_alloc WHERE app_id = ?1 AND app_name <> ?2 LIMIT 1",
        )?
        .query_row(params![spec.app, spec.name], |r| r.get(0))
        .optional()?;
    if let Some(existing) = existing {
        return Err(DbError::Idgen(Error::AppNameConflict {
            app: spec.app,
            existing,
            requested: spec.name.clone(),
        }));
    }
    conn.prepare_cached(
        "INSERT OR IGNORE INTO idgen_app (app_id, min_step, max_step, target_secs) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![
        spec.app,
        sql_u64(spec.policy.min_step),
        sql_u64(spec.policy.max_step),
        sql_u64(spec.policy.target.as_secs())
    ])?;
    // An app that already exists keeps its recorded dispenser.
    conn.prepare_cached("INSERT OR IGNORE INTO idgen_dispenser (app_id, kind) VALUES (?1, ?2)")?
        .execute(params![spec.app, spec.dispenser.as_str()])?;
    let app = records(conn, Some(spec.app))?
        .pop()
        .ok_or(Error::UnknownApp { app: spec.app })?;
    crate::failpoint::hit("init_app.before_commit")?;
    let outcome = InitOutcome::of_added(added);
    Ok(InitReport {
        outcome,
        shards_added: added,
        app,
    })
}

/// The requested shards' rows and the app's bounds and route, read under the write lock.
fn locked_rows(
    conn: &Connection,
    request: &SegmentRequest,
) -> DbResult<(Vec<StoredShard>, StoredAppExtra)> {
    let app = request.app;
    refuse_if_sealed(conn, app)?;
    let mut shards: Vec<u8> = request.shards.iter().map(|&(s, _)| s).collect();
    shards.sort_unstable();
    let mut history: Vec<HistoryRow> = Vec::new();
    {
        let mut stmt = conn.prepare_cached(REFILL_ROWS_SQL)?;
        let rows = stmt.query_map([app], |r| {
            Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
        for row in rows {
            let (shard, at, loaded, after) = row?;
            if let Ok(shard) = u8::try_from(shard) {
                history.push((shard, at, loaded, after));
            }
        }
    }
    let mut stmt = conn.prepare_cached(&shard_rows_sql(shards.len(), false))?;
    let params = rusqlite::params_from_iter(
        std::iter::once(i64::from(app)).chain(shards.iter().map(|&s| i64::from(s))),
    );
    let rows = stmt
        .query_map(params, |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
            ))
        })?
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if rows.is_empty() && shard_count(conn, app)? == 0 {
        return Err(DbError::Idgen(Error::UnknownApp { app }));
    }
    // The IN list holds only shards 0..=63.
    let rows: Vec<LockedRow> = rows
        .into_iter()
        .filter_map(|(shard, max_id, step, max_limit_id)| {
            Some((u8::try_from(shard).ok()?, max_id, step, max_limit_id))
        })
        .collect();
    let rows = join_history(rows, history);
    let extra = conn
        .prepare_cached(APP_EXTRA_SQL)?
        .query_row(params![app, app, app], |r| {
            Ok(StoredAppExtra {
                min_step: r.get(0)?,
                max_step: r.get(1)?,
                target_secs: r.get(2)?,
                node: r.get(3)?,
                target_node: r.get(4)?,
                phase: r.get(5)?,
                dispenser: r.get(6)?,
            })
        })?;
    Ok((rows, extra))
}

/// Takes the request's segments inside one immediate transaction, sized by
/// [`apply_request`] from the rows read under the write lock. Any error
/// before the commit rolls every shard back.
fn take_segments(tx: &Connection, request: &SegmentRequest) -> DbResult<Vec<ShardTake>> {
    let (rows, extra) = locked_rows(tx, request)?;
    let (takes, writes) = apply_request(request, rows, &extra, EMBEDDED_NODE)?;
    {
        let mut update = tx.prepare_cached(
            "UPDATE id_alloc SET max_id = ?1, update_time = CURRENT_TIMESTAMP WHERE app_id = ?2 AND shard_id = ?3",
        )?;
        let mut record = tx.prepare_cached(
            "INSERT INTO idgen_refill (app_id, shard_id, loaded_at_ms, loaded, stock_after) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (app_id, shard_id) DO UPDATE SET loaded_at_ms = excluded.loaded_at_ms,
               loaded = excluded.loaded, stock_after = excluded.stock_after",
        )?;
        for write in &writes {
            update.execute(params![write.max_id, request.app, write.shard])?;
            if let Some(mark) = write.mark {
                record.execute(params![
                    request.app,
                    write.shard,
                    mark.loaded_at_ms,
                    sql_u64(mark.loaded),
                    sql_u64(mark.stock_after)
                ])?;
            }
        }
    }
    if !writes.is_empty() {
        crate::failpoint::hit("sqlite.take_segment.before_commit")?;
    }
    Ok(takes)
}

/// Seals `app` for `destination` (see [`SqliteStore::seal_app`]).
pub(super) fn seal(conn: &Connection, app: u8, destination: &str) -> DbResult<SealedApp> {
    let record = records(conn, Some(app))?
        .pop()
        .ok_or(Error::UnknownApp { app })?;
    let (moved_to, sealed_at_ms) = match sealing(conn, app)? {
        Some(sealed) if sealed.destination != destination => {
            // Two deployments continuing from the same max_id would repeat IDs.
            return Err(DbError::Idgen(Error::AppMovedOut {
                app,
                to: sealed.destination,
            }));
        }
        Some(sealed) => (sealed.destination, sealed.sealed_at_ms),
        None => {
            let at = now_ms();
            conn.prepare_cached(
                "INSERT INTO idgen_sealed (app_id, moved_to, sealed_at_ms) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![app, destination, at])?;
            crate::failpoint::hit("sqlite.seal.before_commit")?;
            (destination.to_string(), at)
        }
    };
    Ok(SealedApp {
        spec: AppSpec {
            app,
            step: record.step(),
            max_limit_id: record.max_limit_id(),
            name: record.name.clone(),
            description: record.description.clone(),
            policy: record.policy,
            dispenser: record.dispenser,
        },
        shards: record
            .shards
            .iter()
            .map(|s| SealedShard {
                shard: s.shard,
                max_id: s.max_id,
            })
            .collect(),
        moved_to,
        sealed_at_ms,
    })
}

fn routes(conn: &Connection) -> DbResult<BTreeMap<u8, Route>> {
    let mut stmt =
        conn.prepare_cached("SELECT app_id, node, target_node, phase FROM idgen_route")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, Option<String>>(3)?,
        ))
    })?;
    let mut routes = BTreeMap::new();
    for row in rows {
        let (app, node, target, phase) = row?;
        if let Ok(app) = u8::try_from(app) {
            routes.insert(app, route_from(EMBEDDED_NODE, Some(node), target, phase));
        }
    }
    Ok(routes)
}

#[async_trait]
impl Ledger for SqliteStore {
    fn describe(&self) -> String {
        format!("sqlite {}", self.path().display())
    }

    async fn server_version(&self) -> Result<String> {
        Ok(format!("SQLite {}", rusqlite::version()))
    }

    async fn ensure_schema(&self) -> Result<()> {
        // Opening the file creates or checks the schema.
        self.run(|_| Ok(())).await
    }
}

#[async_trait]
impl crate::store::AppCatalog for SqliteStore {
    async fn init_app(&self, spec: &AppSpec) -> Result<InitReport> {
        let spec = spec.clone();
        self.write(move |tx| init_app(tx, &spec)).await
    }
    async fn app(&self, app: u8) -> Result<Option<AppRecord>> {
        self.read(move |tx| Ok(records(tx, Some(app))?.pop())).await
    }
    async fn apps(&self) -> Result<Vec<AppRecord>> {
        self.read(|tx| records(tx, None)).await
    }
    async fn foreign_rows(&self) -> Result<Vec<ForeignRow>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached(
                "SELECT app_id, shard_id, app_name FROM id_alloc WHERE app_id NOT BETWEEN 0 AND 255 OR shard_id NOT BETWEEN 0 AND 63 ORDER BY app_id, shard_id",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(ForeignRow {
                    app: r.get(0)?,
                    shard: r.get(1)?,
                    name: r.get(2)?,
                })
            })?;
            Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
        })
        .await
    }
    async fn dispenser(&self, app: u8) -> Result<DispenserKind> {
        self.read(move |tx| super::dispenser::recorded_kind(tx, app))
            .await
    }

    async fn update_app(&self, app: u8, change: &AppChange) -> Result<AppRecord> {
        let change = change.clone();
        // BEGIN IMMEDIATE: the write lock every refill takes.
        self.write(move |tx| {
            let record = records(tx, Some(app))?
                .pop()
                .ok_or(DbError::Idgen(Error::UnknownApp { app }))?;
            let spec = change.apply_to(&record).map_err(DbError::Idgen)?;
            tx.prepare_cached(
                "UPDATE id_alloc SET app_name = ?1, step = ?2, max_limit_id = ?3 WHERE app_id = ?4",
            )?
            .execute(params![
                spec.name,
                sql_u64(spec.step),
                sql_u64(spec.max_limit_id),
                app
            ])?;
            tx.prepare_cached(
                "INSERT INTO idgen_app (app_id, min_step, max_step, target_secs) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (app_id) DO UPDATE SET min_step = excluded.min_step, max_step = excluded.max_step",
            )?
            .execute(params![
                app,
                sql_u64(spec.policy.min_step),
                sql_u64(spec.policy.max_step),
                sql_u64(spec.policy.target.as_secs())
            ])?;
            if spec.dispenser != record.dispenser {
                // Takes follow the record from now on; the old stock is
                // retired shard by shard under the refill locks (`segment::switch`).
                tx.prepare_cached(
                    "INSERT INTO idgen_dispenser (app_id, kind) VALUES (?1, ?2)
                     ON CONFLICT (app_id) DO UPDATE SET kind = excluded.kind, update_time = CURRENT_TIMESTAMP",
                )?
                .execute(params![app, spec.dispenser.as_str()])?;
            }
            records(tx, Some(app))?
                .pop()
                .ok_or(DbError::Idgen(Error::UnknownApp { app }))
        })
        .await
    }
}

#[async_trait]
impl crate::store::SegmentSource for SqliteStore {
    async fn take_segments(&self, request: &SegmentRequest) -> Result<Vec<ShardTake>> {
        if request.shards.is_empty() {
            return Ok(Vec::new());
        }
        let mut request = request.clone();
        let db = self.db.clone();
        let app = request.app;
        let take = move |tx: &rusqlite::Transaction<'_>| {
            // A `max_id` below what the witness saw taken went back in time:
            // the take moves past it first (`apply_request`'s floors).
            let witness = db.witness()?;
            for &(shard, _) in &request.shards {
                let taken = witness.marks(Slot { app, shard })?.taken;
                let floor = request.floors.entry(shard).or_default();
                *floor = (*floor).max(taken);
            }
            Ok((take_segments(tx, &request)?, witness))
        };
        // Witnessed, durably, after the commit and before any index is served.
        let witnessed = move |(takes, witness): (Vec<ShardTake>, Arc<Witness>)| {
            let raised: Vec<(Slot, Marks)> = takes
                .iter()
                .filter_map(|(shard, take)| {
                    let last = take.as_ref().ok()?.segment?.last;
                    Some((
                        Slot { app, shard: *shard },
                        Marks {
                            taken: last,
                            served: 0,
                        },
                    ))
                })
                .collect();
            witness.raise(&raised, true)?;
            Ok((takes, witness))
        };
        let (takes, _) = self.write_then(take, witnessed).await?;
        Ok(takes)
    }
    async fn refill_marks(&self) -> Result<Vec<(Slot, RefillMark)>> {
        self.read(|tx| {
            let mut stmt = tx.prepare_cached("SELECT app_id, shard_id, loaded_at_ms, loaded, stock_after FROM idgen_refill WHERE app_id BETWEEN 0 AND 255 AND shard_id BETWEEN 0 AND 63")?;
            let rows = stmt.query_map([], |r| {
                let slot = Slot {
                    app: r.get(0)?,
                    shard: r.get(1)?,
                };
                let mark = RefillMark {
                    loaded_at_ms: r.get(2)?,
                    loaded: r.get::<_, i64>(3)?.max(0) as u64,
                    stock_after: r.get::<_, i64>(4)?.max(0) as u64,
                };
                Ok((slot, mark))
            })?;
            Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
        })
        .await
    }
    async fn routes(&self) -> Result<BTreeMap<u8, Route>> {
        self.read(|tx| routes(tx)).await
    }
}
