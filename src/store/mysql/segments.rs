//! The ledger's segment side: taking segments for many shards in one
//! transaction, the refill history, and the durable routes of apps between
//! Redis nodes.

use super::MysqlLedger;
use crate::config::DEFAULT_NODE;
use crate::error::{Error, Result};
use crate::store::sql_rows::{
    APP_EXTRA_SQL, HistoryRow, LockedRow, REFILL_ROWS_SQL, StoredAppExtra, apply_request,
    join_history, route_columns, route_from, shard_rows_sql,
};
use crate::store::{
    Ledger, RefillMark, Route, RouteMoves, SegmentRequest, SegmentSource, ShardTake, Slot,
};
use async_trait::async_trait;
use mysql_async::prelude::Queryable;
use std::collections::BTreeMap;

impl MysqlLedger {
    /// Takes the request's segments in one transaction: locks the rows in
    /// shard order, lets [`apply_request`] size them, then one `UPDATE` and one
    /// `INSERT` for all of them.
    pub(super) async fn take_segments_locked(
        &self,
        request: &SegmentRequest,
    ) -> Result<Vec<ShardTake>> {
        let app = request.app;
        let mut shards: Vec<u8> = request.shards.iter().map(|&(s, _)| s).collect();
        shards.sort_unstable();
        let mut conn = self.conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(Self::tx_opts()))
            .await?;
        let mut params: Vec<mysql_async::Value> = vec![app.into()];
        params.extend(shards.iter().map(|&s| mysql_async::Value::from(s)));
        let rows: Vec<LockedRow> = self
            .bounded(tx.exec(shard_rows_sql(shards.len(), true), params))
            .await?;
        if rows.is_empty() {
            let count: Option<i64> = self
                .bounded(tx.exec_first("SELECT COUNT(*) FROM id_alloc WHERE app_id = ?", (app,)))
                .await?;
            if count.unwrap_or(0) == 0 {
                return Err(Error::UnknownApp { app });
            }
        }
        let history: Vec<HistoryRow> = self.bounded(tx.exec(REFILL_ROWS_SQL, (app,))).await?;
        type Extra = (
            Option<i64>,
            Option<i64>,
            Option<i64>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
        );
        let extra: Option<Extra> = self
            .bounded(tx.exec_first(APP_EXTRA_SQL, (app, app, app)))
            .await?;
        let extra = extra.map_or_else(StoredAppExtra::default, |e| StoredAppExtra {
            min_step: e.0,
            max_step: e.1,
            target_secs: e.2,
            node: e.3,
            target_node: e.4,
            phase: e.5,
            dispenser: e.6,
        });
        let rows = join_history(rows, history);
        let (takes, writes) = apply_request(request, rows, &extra, DEFAULT_NODE)?;
        if writes.is_empty() {
            self.bounded(tx.rollback()).await?;
            return Ok(takes);
        }
        let cases = vec!["WHEN ? THEN ?"; writes.len()].join(" ");
        let marks = vec!["?"; writes.len()].join(", ");
        let mut params: Vec<mysql_async::Value> = Vec::with_capacity(writes.len() * 3 + 1);
        for w in &writes {
            params.extend([w.shard.into(), w.max_id.into()]);
        }
        params.push(app.into());
        params.extend(writes.iter().map(|w| mysql_async::Value::from(w.shard)));
        self.bounded(tx.exec_drop(
            format!(
                "UPDATE id_alloc SET max_id = CASE shard_id {cases} END WHERE app_id = ? AND shard_id IN ({marks})"
            ),
            params,
        ))
        .await?;
        let marked: Vec<_> = writes
            .iter()
            .filter_map(|w| w.mark.map(|m| (w.shard, m)))
            .collect();
        if !marked.is_empty() {
            let values = vec!["(?, ?, ?, ?, ?)"; marked.len()].join(", ");
            let mut params: Vec<mysql_async::Value> = Vec::with_capacity(marked.len() * 5);
            for (shard, mark) in &marked {
                params.extend([
                    app.into(),
                    (*shard).into(),
                    mark.loaded_at_ms.into(),
                    mark.loaded.into(),
                    mark.stock_after.into(),
                ]);
            }
            self.bounded(tx.exec_drop(
                format!(
                    "INSERT INTO idgen_refill (app_id, shard_id, loaded_at_ms, loaded, stock_after) VALUES {values}
                     ON DUPLICATE KEY UPDATE loaded_at_ms = VALUES(loaded_at_ms), loaded = VALUES(loaded), stock_after = VALUES(stock_after)"
                ),
                params,
            ))
            .await?;
        }
        crate::failpoint::hit("mysql.take_segments.before_commit")?;
        self.bounded(tx.commit()).await?;
        Ok(takes)
    }
}

#[async_trait]
impl SegmentSource for MysqlLedger {
    async fn take_segments(&self, request: &SegmentRequest) -> Result<Vec<ShardTake>> {
        if !self.ready().await? {
            return Err(Error::UnknownApp { app: request.app });
        }
        if request.shards.is_empty() {
            return Ok(Vec::new());
        }
        // Concurrent batches lock the same rows, on one server or on several
        // Galera nodes. An aborted attempt committed nothing, so running it
        // again takes the segments it would have taken. Even an attempt that
        // had committed unseen would cost only a gap: the next one locks the
        // rows again and takes above whatever `max_id` they hold, and only
        // the segments of the attempt that returned are ever dispensed.
        self.retrying(|| self.take_segments_locked(request)).await
    }
    async fn refill_marks(&self) -> Result<Vec<(Slot, RefillMark)>> {
        if !self.ready().await? {
            return Ok(Vec::new());
        }
        let rows: Vec<(u8, u8, i64, u64, u64)> = self
            .retrying(|| async move {
                let mut conn = self.conn().await?;
                self.bounded(conn.query("SELECT app_id, shard_id, loaded_at_ms, loaded, stock_after FROM idgen_refill WHERE app_id BETWEEN 0 AND 255 AND shard_id BETWEEN 0 AND 63")).await
            })
            .await?;
        Ok(rows
            .into_iter()
            .map(|(app, shard, loaded_at_ms, loaded, stock_after)| {
                let mark = RefillMark {
                    loaded_at_ms,
                    loaded,
                    stock_after,
                };
                (Slot { app, shard }, mark)
            })
            .collect())
    }
    async fn routes(&self) -> Result<BTreeMap<u8, Route>> {
        if !self.ready().await? {
            return Ok(BTreeMap::new());
        }
        let rows: Vec<(u8, String, Option<String>, Option<String>)> = self
            .retrying(|| async move {
                let mut conn = self.conn().await?;
                self.bounded(conn.query("SELECT app_id, node, target_node, phase FROM idgen_route"))
                    .await
            })
            .await?;
        Ok(rows
            .into_iter()
            .map(|(app, node, target, phase)| {
                (app, route_from(DEFAULT_NODE, Some(node), target, phase))
            })
            .collect())
    }
}

#[async_trait]
impl RouteMoves for MysqlLedger {
    async fn begin_move(&self, app: u8, to: &str) -> Result<Route> {
        self.change_route(app, |route| route.begin(app, to)).await
    }

    async fn switch_route(&self, app: u8, to: &str) -> Result<Route> {
        self.change_route(app, |route| route.switch(app, to)).await
    }

    async fn finish_move(&self, app: u8) -> Result<Route> {
        self.change_route(app, |route| Ok(route.finish())).await
    }
}

impl MysqlLedger {
    /// Changes an app's route in one transaction, under the route row's lock.
    async fn change_route(
        &self,
        app: u8,
        change: impl Fn(&Route) -> Result<Route> + Send + Sync,
    ) -> Result<Route> {
        self.ensure_schema().await?;
        // Each attempt applies `change` to the route it read under the row's
        // lock: run again after an abort (which committed nothing), it moves
        // from the route as it is, as the first would have.
        self.retrying(|| self.change_route_once(app, &change)).await
    }

    async fn change_route_once(
        &self,
        app: u8,
        change: &(dyn Fn(&Route) -> Result<Route> + Send + Sync),
    ) -> Result<Route> {
        let mut conn = self.conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(Self::tx_opts()))
            .await?;
        let exists: Option<i64> = self
            .bounded(tx.exec_first("SELECT COUNT(*) FROM id_alloc WHERE app_id = ?", (app,)))
            .await?;
        if exists.unwrap_or(0) == 0 {
            return Err(Error::UnknownApp { app });
        }
        // Make sure a row exists to lock, so two moves serialise.
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_route (app_id, node) VALUES (?, ?) ON DUPLICATE KEY UPDATE app_id = app_id",
            (app, DEFAULT_NODE),
        ))
        .await?;
        let row: Option<(String, Option<String>, Option<String>)> = self
            .bounded(tx.exec_first(
                "SELECT node, target_node, phase FROM idgen_route WHERE app_id = ? FOR UPDATE",
                (app,),
            ))
            .await?;
        let (node, target, phase) = row.ok_or(Error::UnknownApp { app })?;
        let current = route_from(DEFAULT_NODE, Some(node), target, phase);
        let next = change(&current)?;
        let (target, phase) = route_columns(&next);
        crate::failpoint::hit("route.before_commit")?;
        self.bounded(tx.exec_drop(
            "UPDATE idgen_route SET node = ?, target_node = ?, phase = ? WHERE app_id = ?",
            (&next.node, target, phase, app),
        ))
        .await?;
        self.bounded(tx.commit()).await?;
        Ok(next)
    }
}
