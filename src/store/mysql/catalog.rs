//! The ledger's app catalog: creating, reading and changing apps in
//! `id_alloc` and idgen's own per-app tables.

use super::MysqlLedger;
use crate::error::{Error, Result};
use crate::shard::{DispenserKind, SHARDS};
use crate::store::sql_rows::{StoredAppShard, dispenser_from, group_apps};
use crate::store::{
    AppCatalog, AppChange, AppRecord, AppSpec, ForeignRow, InitOutcome, InitReport, Ledger,
};
use async_trait::async_trait;
use mysql_async::prelude::Queryable;
use std::collections::BTreeMap;

impl MysqlLedger {
    pub(super) async fn records(&self, app: Option<u8>) -> Result<Vec<AppRecord>> {
        let mut conn = self.conn().await?;
        type Row = (u8, String, Option<String>, u8, i64, i64, i64, Option<i64>);
        let sql = "SELECT a.app_id, a.app_name, a.description, a.shard_id, a.max_id, a.step, a.max_limit_id, h.loaded
                   FROM id_alloc a LEFT JOIN idgen_refill h ON h.app_id = a.app_id AND h.shard_id = a.shard_id";
        let rows: Vec<Row> = match app {
            Some(app) => {
                self.bounded(conn.exec(format!("{sql} WHERE a.app_id = ? ORDER BY a.shard_id"), (app,)))
                    .await?
            }
            None => {
                self.bounded(conn.query(format!(
                    "{sql} WHERE a.app_id BETWEEN 0 AND 255 AND a.shard_id BETWEEN 0 AND 63 ORDER BY a.app_id, a.shard_id"
                )))
                    .await?
            }
        };
        let policies: Vec<(u8, i64, i64, i64)> = self
            .bounded(conn.query("SELECT app_id, min_step, max_step, target_secs FROM idgen_app"))
            .await?;
        let policies: BTreeMap<u8, (i64, i64, i64)> = policies
            .into_iter()
            .map(|(app, min, max, target)| (app, (min, max, target)))
            .collect();
        let dispensers: Vec<(u8, String)> = self
            .bounded(
                conn.query(
                    "SELECT app_id, kind FROM idgen_dispenser WHERE app_id BETWEEN 0 AND 255",
                ),
            )
            .await?;
        let dispensers: BTreeMap<u8, String> = dispensers.into_iter().collect();
        let rows = rows.into_iter().map(
            |(app, name, description, shard, max_id, step, max_limit_id, loaded)| StoredAppShard {
                app,
                name,
                description,
                shard,
                max_id,
                step,
                max_limit_id,
                loaded,
            },
        );
        group_apps(rows, &policies, &dispensers)
    }
}

impl MysqlLedger {
    /// One attempt of [`super::AppCatalog::init_app`]'s transaction: how many
    /// shard rows it added.
    async fn init_app_once(&self, spec: &AppSpec) -> Result<u64> {
        let mut conn = self.conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(Self::tx_opts()))
            .await?;
        let mut added = 0u64;
        for shard in 0..SHARDS {
            self.bounded(tx.exec_drop(
                "INSERT INTO id_alloc (app_id, app_name, max_id, shard_id, step, description, max_limit_id)
                 VALUES (?, ?, 0, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE app_id = app_id",
                (
                    spec.app,
                    &spec.name,
                    shard,
                    spec.step,
                    spec.description.as_deref(),
                    spec.max_limit_id,
                ),
            ))
            .await?;
            added += tx.affected_rows();
        }
        let names: Vec<String> = self
            .bounded(tx.exec(
                "SELECT DISTINCT app_name FROM id_alloc WHERE app_id = ?",
                (spec.app,),
            ))
            .await?;
        if let Some(existing) = names.into_iter().find(|n| *n != spec.name) {
            self.bounded(tx.rollback()).await?;
            return Err(Error::AppNameConflict {
                app: spec.app,
                existing,
                requested: spec.name.clone(),
            });
        }
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_app (app_id, min_step, max_step, target_secs) VALUES (?, ?, ?, ?)
             ON DUPLICATE KEY UPDATE app_id = app_id",
            (
                spec.app,
                spec.policy.min_step,
                spec.policy.max_step,
                spec.policy.target.as_secs(),
            ),
        ))
        .await?;
        // An app that already exists keeps its recorded dispenser.
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_dispenser (app_id, kind) VALUES (?, ?) ON DUPLICATE KEY UPDATE app_id = app_id",
            (spec.app, spec.dispenser.as_str()),
        ))
        .await?;
        crate::failpoint::hit("init_app.before_commit")?;
        self.bounded(tx.commit()).await?;
        Ok(added)
    }
}

#[async_trait]
impl AppCatalog for MysqlLedger {
    async fn init_app(&self, spec: &AppSpec) -> Result<InitReport> {
        self.ensure_schema().await?;
        // Every insert leaves an existing row as it is, so an attempt run
        // again after an abort (which committed nothing) does what the first
        // would have; no `max_id` is written but the 0 of a new row.
        let added = self.retrying(|| self.init_app_once(spec)).await?;
        let app = self
            .app(spec.app)
            .await?
            .ok_or(Error::UnknownApp { app: spec.app })?;
        let outcome = InitOutcome::of_added(added);
        Ok(InitReport {
            outcome,
            shards_added: added,
            app,
        })
    }
    async fn app(&self, app: u8) -> Result<Option<AppRecord>> {
        if !self.ready().await? {
            return Ok(None);
        }
        // Reads only, here and below: safe to run again.
        Ok(self.retrying(|| self.records(Some(app))).await?.pop())
    }
    async fn apps(&self) -> Result<Vec<AppRecord>> {
        if !self.ready().await? {
            return Ok(Vec::new());
        }
        self.retrying(|| self.records(None)).await
    }
    async fn foreign_rows(&self) -> Result<Vec<ForeignRow>> {
        if !self.ready().await? {
            return Ok(Vec::new());
        }
        let rows: Vec<(i64, i64, String)> = self
            .retrying(|| async move {
                let mut conn = self.conn().await?;
                self.bounded(conn.query(
                    "SELECT app_id, shard_id, app_name FROM id_alloc WHERE app_id NOT BETWEEN 0 AND 255 OR shard_id NOT BETWEEN 0 AND 63 ORDER BY app_id, shard_id",
                )).await
            })
            .await?;
        Ok(rows
            .into_iter()
            .map(|(app, shard, name)| ForeignRow { app, shard, name })
            .collect())
    }
    async fn dispenser(&self, app: u8) -> Result<DispenserKind> {
        if !self.ready().await? {
            return Ok(DispenserKind::Queue);
        }
        let kind: Option<String> = self
            .retrying(|| async move {
                let mut conn = self.conn().await?;
                self.bounded(
                    conn.exec_first("SELECT kind FROM idgen_dispenser WHERE app_id = ?", (app,)),
                )
                .await
            })
            .await?;
        dispenser_from(kind.as_deref())
    }
    async fn update_app(&self, app: u8, change: &AppChange) -> Result<AppRecord> {
        self.ensure_schema().await?;
        // Each attempt applies the change to the record it read under the
        // rows' locks and writes absolute values: run again after an abort
        // (which committed nothing), it does what the first would have.
        self.retrying(|| self.update_app_once(app, change)).await?;
        self.retrying(|| self.records(Some(app)))
            .await?
            .pop()
            .ok_or(Error::UnknownApp { app })
    }
}

impl MysqlLedger {
    /// One attempt of [`super::AppCatalog::update_app`]'s transaction.
    async fn update_app_once(&self, app: u8, change: &AppChange) -> Result<()> {
        let mut conn = self.conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(mysql_async::TxOpts::default()))
            .await?;
        // The row locks a refill takes: no segment is taken while the change is checked and made.
        let locked: Vec<u8> = self
            .bounded(tx.exec(
                "SELECT shard_id FROM id_alloc WHERE app_id = ? AND shard_id BETWEEN 0 AND 63 FOR UPDATE",
                (app,),
            ))
            .await?;
        if locked.is_empty() {
            return Err(Error::UnknownApp { app });
        }
        let record = self
            .records(Some(app))
            .await?
            .pop()
            .ok_or(Error::UnknownApp { app })?;
        let spec = change.apply_to(&record)?;
        self.bounded(tx.exec_drop(
            "UPDATE id_alloc SET app_name = ?, step = ?, max_limit_id = ? WHERE app_id = ?",
            (&spec.name, spec.step, spec.max_limit_id, app),
        ))
        .await?;
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_app (app_id, min_step, max_step, target_secs) VALUES (?, ?, ?, ?)
             ON DUPLICATE KEY UPDATE min_step = VALUES(min_step), max_step = VALUES(max_step)",
            (
                app,
                spec.policy.min_step,
                spec.policy.max_step,
                spec.policy.target.as_secs(),
            ),
        ))
        .await?;
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_dispenser (app_id, kind) VALUES (?, ?) ON DUPLICATE KEY UPDATE kind = VALUES(kind)",
            (app, spec.dispenser.as_str()),
        ))
        .await?;
        self.bounded(tx.commit()).await?;
        Ok(())
    }
}
