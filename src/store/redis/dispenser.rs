//! The node as the store traits see it: [`Dispenser`], [`Stock`],
//! [`Restock`] and [`RouteHints`], each a thin layer over the take paths,
//! the batches and the records.

use super::RedisNode;
use super::connection::{Conn, all_masters};
use super::keys::{
    KeyNames, LEDGER_ROLLBACK_KEY, QUEUE_PREFIX, RANGE_PREFIX, ROLLBACK_KEY, ROUTE_PREFIX,
    route_key,
};
use super::reply::{info_field, int_of, parse_slot, text_of, texts_in};
use super::scripts::scripts;
use crate::error::Result;
use crate::shard::DispenserKind;
use crate::store::{
    Dispenser, Eviction, LedgerRollback, LedgerRollbackRecord, LockToken, Locked, Pushed, Restock,
    RollbackRecord, RouteHints, Segment, Settled, ShardMarks, Slot, Stock, StockPush, Taken,
    only_one,
};
use async_trait::async_trait;
use redis::Value;
use std::collections::BTreeMap;
use std::time::Duration;

#[async_trait]
impl Dispenser for RedisNode {
    fn node(&self) -> &str {
        &self.name
    }

    fn describe(&self) -> String {
        format!("redis node {} ({})", self.name, self.url)
    }

    fn hints(&self) -> Option<&dyn RouteHints> {
        Some(self)
    }

    async fn server_version(&self) -> Result<String> {
        let info = match self.conn().await? {
            // The oldest master's, which is what limits the cluster.
            Conn::Cluster(mut cluster) => {
                let answer = self
                    .bounded(
                        cluster
                            .route_command(redis::cmd("INFO").arg("server").clone(), all_masters()),
                    )
                    .await?;
                let mut infos = texts_in(&answer);
                infos.sort_by_key(|info| {
                    info_field(info, "redis_version")
                        .split('.')
                        .map(|part| part.parse::<u32>().unwrap_or(0))
                        .collect::<Vec<_>>()
                });
                infos.into_iter().next().unwrap_or_default()
            }
            mut conn => {
                self.bounded(
                    redis::cmd("INFO")
                        .arg("server")
                        .query_async::<String>(&mut conn),
                )
                .await?
            }
        };
        let version = info_field(&info, "redis_version");
        Ok(if version.is_empty() {
            "unknown".to_string()
        } else {
            version
        })
    }

    async fn eviction(&self) -> Result<Option<Eviction>> {
        let info = redis::cmd("INFO").arg("memory").clone();
        let infos = match self.conn().await? {
            // Any master that evicts is one too many.
            Conn::Cluster(mut cluster) => texts_in(
                &self
                    .bounded(cluster.route_command(info, all_masters()))
                    .await?,
            ),
            mut conn => vec![self.bounded(info.query_async::<String>(&mut conn)).await?],
        };
        Ok(infos.iter().find_map(|info| {
            Eviction::from_info(
                &info_field(info, "maxmemory"),
                &info_field(info, "maxmemory_policy"),
            )
        }))
    }
}

#[async_trait]
impl Stock for RedisNode {
    /// Takes with `guess`, and again with the dispenser the shard records when
    /// that is the other one: a wrong guess costs a round trip, never the
    /// wrong stock.
    async fn take(&self, guess: DispenserKind, slot: Slot, n: u64) -> Result<Taken> {
        if n == 0 {
            return Ok(Taken::default());
        }
        let mut taken = self.take_following(guess, slot, n).await?;
        let short = n - (taken.indexes.len() as u64).min(n);
        if let Some(recorded) = taken.kind.filter(|&k| k != guess && short > 0) {
            let more = self.take_following(recorded, slot, short).await?;
            taken.indexes.extend(more.indexes);
            taken.malformed = taken.malformed.or(more.malformed);
            taken.max_limit_id = more.max_limit_id.or(taken.max_limit_id);
            taken.rollback = taken.rollback.or(more.rollback);
            taken.kind = more.kind;
        }
        Ok(taken)
    }
    async fn stock(&self, kind: DispenserKind, slots: &[Slot]) -> Result<Vec<Option<u64>>> {
        self.stock_each(kind, slots).await?.into_iter().collect()
    }
    async fn stock_each(
        &self,
        kind: DispenserKind,
        slots: &[Slot],
    ) -> Result<Vec<Result<Option<u64>>>> {
        if slots.is_empty() {
            return Ok(Vec::new());
        }
        let link = self.link().await?;
        if self.keys == KeyNames::Cluster {
            // One pipeline per shard (a pipeline stays in one slot), all at once:
            // each asks the master that owns its shard for its run_id.
            let rounds = slots.iter().map(|slot| {
                self.stock_round(link.conn.clone(), kind, std::slice::from_ref(slot), None)
            });
            let stocks = futures::future::try_join_all(rounds).await?;
            return Ok(stocks.into_iter().flatten().collect());
        }
        self.stock_round(link.conn, kind, slots, link.direct_run_id.as_deref())
            .await
    }
    async fn stocked_slots(&self, kind: DispenserKind) -> Result<Vec<Slot>> {
        let prefix = match kind {
            DispenserKind::Queue => QUEUE_PREFIX,
            DispenserKind::Range => RANGE_PREFIX,
        };
        let keys = self.scan(&format!("{prefix}*")).await?;
        let mut slots: Vec<Slot> = keys
            .iter()
            .filter_map(|k| parse_slot(k.strip_prefix(prefix)?))
            .collect();
        slots.sort();
        slots.dedup();
        Ok(slots)
    }
    async fn note_limit(&self, slot: Slot, max_limit_id: u64) -> Result<()> {
        let mut conn = self.conn().await?;
        self.bounded(
            redis::cmd("HSET")
                .arg(self.keys.stamp(slot))
                .arg("limit")
                .arg(max_limit_id)
                .query_async::<()>(&mut conn),
        )
        .await
    }
    async fn last_rollback(&self) -> Result<Option<RollbackRecord>> {
        let record = self.record(ROLLBACK_KEY).await?;
        let Some(serving) = record.0.get("run_id") else {
            return Ok(None);
        };
        Ok(Some(RollbackRecord {
            node: record.node(&self.name),
            first_ms: record.number("first_ms") as i64,
            last_ms: record.number("last_ms") as i64,
            stamped: record.0.get("previous").filter(|p| *p != "-").cloned(),
            serving: serving.clone(),
            shards: record.number("shards"),
            retired: record.number("retired"),
        }))
    }
    async fn marks(&self, slots: &[Slot]) -> Result<Option<Vec<Result<ShardMarks>>>> {
        self.read_marks(slots).await.map(Some)
    }
    async fn note_ledger_rollback(&self, rollbacks: &[LedgerRollback]) -> Result<()> {
        if rollbacks.is_empty() {
            return Ok(());
        }
        let skipped: u64 = rollbacks
            .iter()
            .map(|r| r.witness.saturating_sub(r.ledger_max_id))
            .sum();
        self.invoke::<i64>(
            &scripts().note_ledger_rollback,
            &[LEDGER_ROLLBACK_KEY],
            &[
                crate::clock::process_now_ms().to_string(),
                self.name.clone(),
                rollbacks.len().to_string(),
                skipped.to_string(),
            ],
        )
        .await
        .map(drop)
    }
    async fn last_ledger_rollback(&self) -> Result<Option<LedgerRollbackRecord>> {
        let record = self.record(LEDGER_ROLLBACK_KEY).await?;
        if record.0.is_empty() {
            return Ok(None);
        }
        Ok(Some(LedgerRollbackRecord {
            node: record.node(&self.name),
            first_ms: record.number("first_ms") as i64,
            last_ms: record.number("last_ms") as i64,
            shards: record.number("shards"),
            skipped: record.number("skipped"),
        }))
    }
}

#[async_trait]
impl Restock for RedisNode {
    async fn lock_many(
        &self,
        kind: DispenserKind,
        slots: &[Slot],
        ttl: Duration,
    ) -> Result<Vec<Result<Option<Locked>>>> {
        self.lock_batch(kind, slots, ttl).await
    }
    async fn push_many(
        &self,
        kind: DispenserKind,
        pushes: &[StockPush],
    ) -> Result<Vec<Result<Pushed>>> {
        self.push_batch(kind, pushes).await
    }
    async fn witness(&self, slot: Slot, segment: Segment) -> Result<Option<u64>> {
        let key = self.keys.witness(slot);
        let seen: String = self
            .invoke(
                &scripts().witness,
                &[key.as_str()],
                &[segment.first.to_string(), segment.last.to_string()],
            )
            .await?;
        if let Some(to) = seen.strip_prefix("moved ") {
            return Err(self.shard_moved(slot, to.to_string()));
        }
        Ok(seen.parse().ok())
    }
    async fn settle(
        &self,
        slot: Slot,
        token: &LockToken,
        ledger_max_id: u64,
        max_limit_id: u64,
    ) -> Result<Option<Settled>> {
        self.settle_one(slot, token, ledger_max_id, max_limit_id)
            .await
    }
    async fn unlock(&self, slot: Slot, token: &LockToken) -> Result<bool> {
        only_one(self.unlock_batch(&[(slot, token.clone())]).await?)
    }
    async fn unlock_many(&self, locks: &[(Slot, LockToken)]) -> Result<()> {
        self.unlock_batch(locks).await.map(drop)
    }
    async fn retire(
        &self,
        kind: DispenserKind,
        slot: Slot,
        token: &LockToken,
    ) -> Result<Option<u64>> {
        let dropped: i64 = self
            .invoke(
                &scripts().retire,
                &[&self.keys.lock(slot), &self.keys.stock(kind, slot)],
                &[token.0.clone(), kind.as_str().to_string()],
            )
            .await?;
        Ok(u64::try_from(dropped).ok())
    }
    async fn switch_kind(
        &self,
        kind: DispenserKind,
        slot: Slot,
        token: &LockToken,
    ) -> Result<Option<u64>> {
        let keys = self.keys.shard(slot);
        let answer: Vec<Value> = self
            .invoke(
                &scripts().switch,
                &keys.each_ref().map(String::as_str),
                &[token.0.clone(), kind.as_str().to_string()],
            )
            .await?;
        self.rollback_of(slot, &text_of(answer.get(1)), int_of(answer.get(2)))
            .await;
        Ok(u64::try_from(int_of(answer.first())).ok())
    }
}

#[async_trait]
impl RouteHints for RedisNode {
    async fn seal(&self, slot: Slot, token: &LockToken, to: &str) -> Result<Option<Option<u64>>> {
        let answer: Vec<Value> = self
            .invoke(
                &scripts().seal,
                &[&self.keys.lock(slot), &self.keys.witness(slot)],
                &[token.0.clone(), to.to_string()],
            )
            .await?;
        if int_of(answer.first()) != 1 {
            return Ok(None);
        }
        Ok(Some(text_of(answer.get(1)).parse().ok()))
    }

    async fn admit(&self, slot: Slot, witness: Option<u64>) -> Result<()> {
        self.carry_witness(slot, witness, "lift", None)
            .await
            .map(drop)
    }

    async fn carry(
        &self,
        slot: Slot,
        witness: Option<u64>,
        lift_sealed_for: Option<&str>,
    ) -> Result<Option<String>> {
        self.carry_witness(slot, witness, "keep", lift_sealed_for)
            .await
    }

    async fn set_route_hint(&self, app: u8, node: Option<&str>) -> Result<()> {
        let mut conn = self.conn().await?;
        let key = route_key(app);
        match node {
            Some(node) => {
                self.bounded(
                    redis::cmd("SET")
                        .arg(&key)
                        .arg(node)
                        .query_async::<()>(&mut conn),
                )
                .await
            }
            None => {
                self.bounded(redis::cmd("DEL").arg(&key).query_async::<()>(&mut conn))
                    .await
            }
        }
    }

    async fn route_hints(&self) -> Result<BTreeMap<u8, String>> {
        let mut conn = self.conn().await?;
        let keys = self.scan(&format!("{ROUTE_PREFIX}*")).await?;
        let apps: Vec<u8> = keys
            .iter()
            .filter_map(|k| k.strip_prefix(ROUTE_PREFIX)?.parse().ok())
            .collect();
        if apps.is_empty() {
            return Ok(BTreeMap::new());
        }
        let nodes: Vec<Option<String>> = if let Conn::Cluster(_) = conn {
            // Each app's hint sits in a slot of its own: one GET each, all at once.
            let gets = apps.iter().map(|app| {
                let mut conn = conn.clone();
                async move {
                    self.bounded(
                        redis::cmd("GET")
                            .arg(route_key(*app))
                            .query_async::<Option<String>>(&mut conn),
                    )
                    .await
                }
            });
            futures::future::try_join_all(gets).await?
        } else {
            let mut pipe = redis::pipe();
            for app in &apps {
                pipe.cmd("GET").arg(route_key(*app));
            }
            self.bounded(pipe.query_async(&mut conn)).await?
        };
        Ok(apps
            .into_iter()
            .zip(nodes)
            .filter_map(|(app, node)| Some((app, node?)))
            .collect())
    }
}
