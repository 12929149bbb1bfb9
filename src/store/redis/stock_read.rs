//! Reading many shards' stock and marks in one round trip, each shard's
//! replies judged alone: a key of another type under one shard (something
//! other than idgen wrote it) fails that shard, named, and no other.

use super::RedisNode;
use super::connection::Conn;
use super::keys::KeyNames;
use super::reply::{info_field, range_stock, text_of};
use crate::error::{Error, Result};
use crate::shard::DispenserKind;
use crate::store::{ShardMarks, Slot};
use redis::Value;

impl RedisNode {
    /// The stock of `slots` in one round trip. Stock stamped by another server
    /// process counts as missing: the next refill retires it (see
    /// `lua/stock/prelude.lua`). `run_id` is the server's when the connection is
    /// direct; otherwise the server is asked in the same round trip. A server
    /// that is not the master is refused: its counts decide nothing.
    pub(super) async fn stock_round(
        &self,
        mut conn: Conn,
        kind: DispenserKind,
        slots: &[Slot],
        run_id: Option<&str>,
    ) -> Result<Vec<Result<Option<u64>>>> {
        let mut pipe = redis::pipe();
        // Each shard's replies are judged alone: a key of another type fails its shard only.
        pipe.ignore_errors();
        for &slot in slots {
            match kind {
                DispenserKind::Queue => pipe.cmd("LLEN").arg(self.keys.queue(slot)),
                DispenserKind::Range => pipe.cmd("HMGET").arg(self.keys.range(slot)).arg(&[
                    "next",
                    "last",
                    "pending_first",
                    "pending_last",
                ]),
            };
            pipe.cmd("HMGET")
                .arg(self.keys.stamp(slot))
                .arg("run_id")
                .arg("replid");
        }
        pipe.cmd("INFO").arg("replication");
        if run_id.is_none() {
            pipe.cmd("INFO").arg("server");
        }
        let mut answers: Vec<Value> = self.bounded(pipe.query_async(&mut conn)).await?;
        let run_id = match run_id {
            Some(run_id) => run_id.to_string(),
            None => info_field(&text_of(answers.pop().as_ref()), "run_id"),
        };
        let replication = self.reply(answers.pop(), "")?;
        let replication = redis::from_redis_value::<String>(replication).unwrap_or_default();
        self.refuse_unless_master(&replication).await?;
        let replid = info_field(&replication, "master_replid");
        let judged = slots.iter().zip(answers.chunks(2)).map(|(&slot, pair)| {
            let stock_key = self.keys.stock(kind, slot);
            let stock = self.reply(pair.first().cloned(), &stock_key);
            let stamp = self.reply(pair.get(1).cloned(), &self.keys.stamp(slot));
            let (replid, run_id) = (&replid, &run_id);
            async move {
                let judged = stock
                    .and_then(|stock| Ok((stock, stamp?)))
                    .map(|(stock, stamp)| {
                        let stamped = match stamp {
                            Value::Array(fields) => {
                                (text_of(fields.first()), text_of(fields.get(1)))
                            }
                            _ => Default::default(),
                        };
                        let stock = match (kind, stock) {
                            (DispenserKind::Queue, Value::Int(n)) => Some(n.max(0) as u64),
                            (DispenserKind::Range, Value::Array(fields)) => range_stock(&fields),
                            _ => None,
                        };
                        stock.filter(|&n| n == 0 || stamped == (run_id.clone(), replid.clone()))
                    });
                match judged {
                    Err(e) => Err(self.name_wrong_type(&self.keys.shard(slot), e).await),
                    judged => judged,
                }
            }
        });
        Ok(futures::future::join_all(judged).await)
    }

    /// One reply of a pipeline that ignores errors: a server error is this
    /// reply's alone, about `key` when it names a key of another type.
    fn reply(&self, reply: Option<Value>, key: &str) -> Result<Value> {
        match reply {
            Some(Value::ServerError(e)) => Err(self.script_error(&redis::RedisError::from(e), key)),
            Some(value) => Ok(value),
            None => Err(Error::Internal(
                "a Redis pipeline left a command unanswered".into(),
            )),
        }
    }

    /// What the node records beside each shard's stock (see
    /// [`Stock::marks`](crate::store::Stock::marks)), each shard judged alone.
    pub(super) async fn read_marks(&self, slots: &[Slot]) -> Result<Vec<Result<ShardMarks>>> {
        if slots.is_empty() {
            return Ok(Vec::new());
        }
        let conn = self.conn().await?;
        let round = |slots: &[Slot]| {
            let mut pipe = redis::pipe();
            // Each shard's replies are judged alone: a key of another type fails its shard only.
            pipe.ignore_errors();
            for &slot in slots {
                pipe.cmd("HGET").arg(self.keys.witness(slot)).arg("last");
                pipe.cmd("HGET").arg(self.keys.stamp(slot)).arg("limit");
            }
            let mut conn = conn.clone();
            let slots = slots.to_vec();
            async move {
                let answers: Vec<Value> = self.bounded(pipe.query_async(&mut conn)).await?;
                let judged = slots.iter().zip(answers.chunks(2)).map(|(&slot, pair)| {
                    let witness = self.reply(pair.first().cloned(), &self.keys.witness(slot));
                    let limit = self.reply(pair.get(1).cloned(), &self.keys.stamp(slot));
                    async move {
                        match witness.and_then(|w| Ok((w, limit?))) {
                            Ok((witness, limit)) => Ok(ShardMarks {
                                witness: text_of(Some(&witness)).parse().ok(),
                                max_limit_id: text_of(Some(&limit)).parse().ok(),
                            }),
                            Err(e) => Err(self.name_wrong_type(&self.keys.shard(slot), e).await),
                        }
                    }
                });
                Ok::<_, Error>(futures::future::join_all(judged).await)
            }
        };
        if self.keys == KeyNames::Cluster {
            // A pipeline stays in one slot: one per shard, all at once.
            let rounds = slots.iter().map(|slot| round(std::slice::from_ref(slot)));
            let marks = futures::future::try_join_all(rounds).await?;
            return Ok(marks.into_iter().flatten().collect());
        }
        round(slots).await
    }
}
