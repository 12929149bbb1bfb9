//! Lock, push and unlock for many shards, each in one round trip.
//!
//! A lock or push of many shards is one script call (`lua/stock/lock.lua`,
//! `lua/stock/push.lua`), a [`Batch`]: a script's fixed cost (the master
//! check and the prelude, about 20 µs of the server's one thread) was most
//! of a refill's time on Redis when each shard had a call of its own. Inside
//! the script each shard is still served on its own (its own keys, its own
//! token, its stamp checked), and answered on its own: a shard that fails
//! fails alone. A cluster keeps one call per shard, as each shard's keys sit
//! in a slot of their own. Settle and unlock run one call per shard, in one
//! pipeline. A single-shard lock, push or unlock is a batch of one, so there
//! is one path and nothing to drift.

use super::RedisNode;
use super::acl;
use super::connection::{Conn, Link};
use super::dump::{self, Entry};
use super::exchange::Added;
use super::keys::KeyNames;
use super::reply::{fields, int_of, text_of};
use super::scripts::scripts;
use crate::error::{Error, Result};
use crate::shard::DispenserKind;
use crate::store::{
    LockToken, Locked, PushOutcome, Pushed, Segment, Settled, ShardMarks, Slot, StockPush, only_one,
};
use redis::{Script, Value};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// One shard's part of a script call: its keys and arguments, and for a
/// queue push the segment whose indexes it stocks.
struct Call {
    keys: Vec<String>,
    args: Vec<String>,
    queued: Option<QueuedSegment>,
}

/// One script call for many shards: the arguments they share, then each
/// shard's keys and arguments (see the scripts' headers for the order).
struct Batch<'a> {
    script: &'a Script,
    shared: Vec<String>,
    /// The script takes, after the shared arguments, the number of keys each
    /// shard has: 5, or 6 when a queue push's buffer follows (`push.lua`).
    tells_keys_per_shard: bool,
    shards: Vec<Call>,
}

/// A queue push's segment, the shard's push buffer and the push's token. On
/// one server the batch is a transaction: each buffer filled with its token
/// and every index, then the script, which checks each token and moves each
/// buffer into its queue or drops it (a Lua string per index costs more than
/// filling the buffer). A buffer is filled by one `RESTORE` of the whole list
/// (see [`Fill`]), else by one plain `RPUSH`. A cluster client cannot send a
/// transaction, so there every index goes to the script as a decimal argument
/// instead; either way each is formatted straight into the request.
struct QueuedSegment {
    segment: Segment,
    buffer: String,
    token: String,
}

/// How a queue push fills its buffer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// One `RESTORE` of the list in `DUMP`'s form (Redis 7.0 and later): a
    /// few bytes an index, which the server copies whole instead of parsing
    /// and storing each index as `RPUSH` does (about 4x the time).
    Restore,
    /// `DEL`, then one `RPUSH` of every index: any server, any ACL that
    /// grants idgen's documented rule without `+restore`.
    Push,
}

/// Did the server refuse a push's `RESTORE` itself: an ACL without it, a
/// command renamed away, a payload it cannot read (a server that reports
/// 7.0 or later and is not)? Anything else (a replica's READONLY, a full
/// memory) is the push's own answer.
fn restore_unusable(answer: &Value) -> bool {
    let Value::ServerError(e) = answer else {
        return false;
    };
    let text = format!("{} {}", e.code(), e.details().unwrap_or_default());
    if acl::is_refusal(&text) {
        return acl::refused_command(&text).as_deref() == Some("RESTORE");
    }
    let text = text.to_ascii_lowercase();
    text.contains("unknown command 'restore'")
        || text.contains("dump payload version or checksum are wrong")
        || text.contains("bad data format")
}

impl RedisNode {
    /// Runs `script` once per call in one pipeline; one answer per call, in
    /// order (see [`Self::pipeline_loading`] for a server without the script).
    async fn eval_each(
        &self,
        link: Link,
        script: &Script,
        calls: &[Call],
    ) -> Result<Vec<Result<Value>>> {
        let answers = if self.keys == KeyNames::Cluster {
            // A cluster pipeline stays within one slot: each call goes alone,
            // all at once, to the master that owns its shard.
            let calls = calls.iter().map(|call| async move {
                let keys: Vec<&str> = call.keys.iter().map(String::as_str).collect();
                self.invoke::<Value>(script, &keys, &call.args).await
            });
            futures::future::join_all(calls).await
        } else {
            let mut conn = link.conn;
            let values = self
                .pipeline_loading(&mut conn, script, calls.len(), |pipe, i| {
                    let call = &calls[i];
                    pipe.cmd("EVALSHA")
                        .arg(script.get_hash())
                        .arg(call.keys.len())
                        .arg(&call.keys)
                        .arg(&call.args);
                    Added::Command
                })
                .await?;
            let mut answers = Vec::with_capacity(calls.len());
            for (call, value) in calls.iter().zip(values) {
                answers.push(self.shard_answer(call, value).await);
            }
            answers
        };
        Ok(self.name_wrong_types(calls, answers).await)
    }

    /// A WRONGTYPE names the call's key that holds another type: its shard alone failed.
    async fn name_wrong_types(
        &self,
        calls: &[Call],
        answers: Vec<Result<Value>>,
    ) -> Vec<Result<Value>> {
        let named = calls.iter().zip(answers).map(|(call, answer)| async move {
            match answer {
                Err(e) => Err(self.name_wrong_type(&call.keys, e).await),
                answer => answer,
            }
        });
        futures::future::join_all(named).await
    }

    /// Runs a batch; one answer per shard, in order.
    async fn eval_batch(&self, link: Link, batch: &Batch<'_>) -> Result<Vec<Result<Value>>> {
        if batch.shards.is_empty() {
            return Ok(Vec::new());
        }
        let answers = if self.keys == KeyNames::Cluster {
            // Each shard's keys sit in a slot of their own: a batch of one per
            // shard, all at once, each to the master that owns its shard.
            let calls = batch.shards.iter().map(|call| async move {
                let keys: Vec<&str> = call.keys.iter().map(String::as_str).collect();
                let mut args = batch.shared.clone();
                if batch.tells_keys_per_shard {
                    // No buffer: a cluster client cannot send a transaction.
                    args.push(call.keys.len().to_string());
                }
                args.extend(call.args.iter().cloned());
                args.extend(
                    call.queued
                        .iter()
                        .flat_map(|queued| queued.segment.indexes())
                        .map(|i| i.to_string()),
                );
                match self.invoke::<Value>(batch.script, &keys, &args).await {
                    Ok(value) => {
                        only_one(self.shard_answers(value, std::slice::from_ref(call)).await)
                            .and_then(|answer| answer)
                    }
                    Err(e) => Err(e),
                }
            });
            futures::future::join_all(calls).await
        } else {
            let mut conn = link.conn;
            let queued = batch.shards.iter().any(|call| call.queued.is_some());
            let fill = if link.restore_list && !self.restore_refused.load(Ordering::Relaxed) {
                Fill::Restore
            } else {
                Fill::Push
            };
            let mut value = self.pipeline_batch(&mut conn, batch, fill).await?;
            if queued && fill == Fill::Restore && restore_unusable(&value) {
                // Refused, the batch stocked nothing (a refusal while queued
                // discards the transaction; a failed RESTORE leaves the script
                // no buffer, and it stocks nothing): it goes again by RPUSH.
                self.restore_refused.store(true, Ordering::Relaxed);
                value = self.pipeline_batch(&mut conn, batch, Fill::Push).await?;
            }
            self.shard_answers(value, &batch.shards).await
        };
        Ok(self.name_wrong_types(&batch.shards, answers).await)
    }

    /// Each shard's answer out of a batch's: its own, an error for it alone,
    /// or the whole script's error (a server that is not the master) for every shard.
    async fn shard_answers(&self, value: Value, calls: &[Call]) -> Vec<Result<Value>> {
        let items = match value {
            Value::Array(items) if items.len() == calls.len() => items,
            Value::ServerError(_) => vec![value; calls.len()],
            other => {
                return calls
                    .iter()
                    .map(|_| {
                        Err(Error::Internal(format!(
                            "a stock script answered {other:?} for {} shards",
                            calls.len()
                        )))
                    })
                    .collect();
            }
        };
        let mut answers = Vec::with_capacity(calls.len());
        for (call, item) in calls.iter().zip(items) {
            answers.push(self.shard_answer(call, item).await);
        }
        answers
    }

    /// One shard's answer: its value, or the error the server answered for
    /// it, named by the shard's stock key (a script refused a server that is
    /// not the master: reconnect next time).
    async fn shard_answer(&self, call: &Call, value: Value) -> Result<Value> {
        let key = call.keys.get(1).or(call.keys.first()).map_or("", |k| k);
        self.answered([&value], key).await.map(|()| value)
    }

    /// Sends a batch in one pipeline, its queue pushes' buffers filled the
    /// `fill` way: one script call, in a transaction with the fills.
    async fn pipeline_batch(
        &self,
        conn: &mut Conn,
        batch: &Batch<'_>,
        fill: Fill,
    ) -> Result<Value> {
        // The script finds each shard's keys by one count: every shard of a
        // batch must have as many (a queue push's buffer, or none).
        let keys_per_shard = |call: &Call| call.keys.len() + usize::from(call.queued.is_some());
        let per_shard = batch.shards.first().map_or(0, keys_per_shard);
        if batch
            .shards
            .iter()
            .any(|call| keys_per_shard(call) != per_shard)
        {
            return Err(Error::Internal(
                "a batch of shards with different keys per shard".into(),
            ));
        }
        let mut answers = self
            .pipeline_loading(conn, batch.script, 1, |pipe, _| {
                let queued: Vec<&QueuedSegment> = batch
                    .shards
                    .iter()
                    .filter_map(|call| call.queued.as_ref())
                    .collect();
                if !queued.is_empty() {
                    pipe.cmd("MULTI");
                }
                let mut queued_commands = 0;
                for queued in &queued {
                    match fill {
                        Fill::Restore => {
                            let token = Entry::Text(queued.token.as_bytes());
                            let indexes = queued.segment.indexes().map(Entry::Uint);
                            // REPLACE: whatever a push refused on a writable replica left there.
                            pipe.cmd("RESTORE")
                                .arg(&queued.buffer)
                                .arg(0)
                                .arg(dump::list(std::iter::once(token).chain(indexes)))
                                .arg("REPLACE");
                            queued_commands += 1;
                        }
                        Fill::Push => {
                            // Whatever a push refused on a writable replica left there.
                            pipe.cmd("DEL").arg(&queued.buffer);
                            let fill = pipe.cmd("RPUSH").arg(&queued.buffer).arg(&queued.token);
                            for index in queued.segment.indexes() {
                                fill.arg(index);
                            }
                            queued_commands += 2;
                        }
                    }
                }
                let eval = pipe
                    .cmd("EVALSHA")
                    .arg(batch.script.get_hash())
                    .arg(per_shard * batch.shards.len());
                for call in &batch.shards {
                    eval.arg(&call.keys);
                    if let Some(queued) = &call.queued {
                        eval.arg(&queued.buffer);
                    }
                }
                eval.arg(&batch.shared);
                if batch.tells_keys_per_shard {
                    eval.arg(per_shard);
                }
                for call in &batch.shards {
                    eval.arg(&call.args);
                }
                if queued.is_empty() {
                    return Added::Command;
                }
                pipe.cmd("EXEC");
                Added::Transaction {
                    queued: queued_commands + 1,
                }
            })
            .await?;
        Ok(answers.pop().unwrap_or(Value::Nil))
    }

    /// The connection, and the `run_id` the scripts compare stamps with:
    /// known on a direct connection (which cannot outlive its server
    /// process), else '' and each script asks the server.
    async fn link_and_run_id(&self) -> Result<(Link, String)> {
        let link = self.link().await?;
        let run_id = link
            .direct_run_id
            .as_deref()
            .unwrap_or_default()
            .to_string();
        Ok((link, run_id))
    }

    /// Takes the refill locks of `slots`, reading each stock under its lock.
    pub(super) async fn lock_batch(
        &self,
        kind: DispenserKind,
        slots: &[Slot],
        ttl: Duration,
    ) -> Result<Vec<Result<Option<Locked>>>> {
        let (link, run_id) = self.link_and_run_id().await?;
        let ttl = ttl.as_millis().max(1).to_string();
        let tokens: Vec<LockToken> = slots.iter().map(|_| LockToken::random()).collect();
        let batch = Batch {
            script: &scripts().lock,
            shared: vec![ttl, kind.as_str().to_string(), run_id],
            tells_keys_per_shard: false,
            shards: slots
                .iter()
                .zip(&tokens)
                .map(|(&slot, token)| Call {
                    keys: self.keys.shard(slot).to_vec(),
                    args: vec![token.0.clone()],
                    queued: None,
                })
                .collect(),
        };
        let answers = self.eval_batch(link, &batch).await?;
        let mut locked = Vec::with_capacity(slots.len());
        for ((&slot, token), answer) in slots.iter().zip(tokens).zip(answers) {
            locked.push(match answer {
                Ok(answer) => {
                    let answer = fields(answer);
                    if int_of(answer.first()) != 1 {
                        Ok(None)
                    } else {
                        let rollback = self
                            .rollback_of(slot, &text_of(answer.get(2)), int_of(answer.get(3)))
                            .await;
                        Ok(Some(Locked {
                            token,
                            stock: u64::try_from(int_of(answer.get(1))).ok(),
                            rollback,
                            marks: Some(ShardMarks {
                                witness: text_of(answer.get(4)).parse().ok(),
                                max_limit_id: text_of(answer.get(5)).parse().ok(),
                            }),
                            moved_to: Some(text_of(answer.get(6))).filter(|to| !to.is_empty()),
                        }))
                    }
                }
                Err(e) => Err(e),
            });
        }
        Ok(locked)
    }

    /// Appends each segment to its shard's stock while its token holds the lock.
    pub(super) async fn push_batch(
        &self,
        kind: DispenserKind,
        pushes: &[StockPush],
    ) -> Result<Vec<Result<Pushed>>> {
        crate::failpoint::hit("dispenser.before_push")?;
        let (link, run_id) = self.link_and_run_id().await?;
        let batch = Batch {
            script: &scripts().push,
            shared: vec![kind.as_str().to_string(), run_id],
            tells_keys_per_shard: true,
            shards: pushes
                .iter()
                .map(|p| Call {
                    keys: self.keys.shard(p.slot).to_vec(),
                    args: vec![
                        p.token.0.clone(),
                        p.segment.first.to_string(),
                        p.segment.last.to_string(),
                        p.max_limit_id.to_string(),
                        ceiling(p.slot, p.max_limit_id).to_string(),
                        if p.release { "1" } else { "0" }.to_string(),
                    ],
                    queued: (kind == DispenserKind::Queue).then(|| QueuedSegment {
                        segment: p.segment,
                        buffer: self.keys.buffer(p.slot),
                        token: p.token.0.clone(),
                    }),
                })
                .collect(),
        };
        let mut answers = self.eval_batch(link, &batch).await?;
        // The answers were lost and the pushes are sent again, as a cluster
        // client does after a failover: the second answers stand.
        if crate::failpoint::hit_and_armed("dispenser.push_answer_lost")? {
            let (link, _) = self.link_and_run_id().await?;
            answers = self.eval_batch(link, &batch).await?;
        }
        let mut pushed = Vec::with_capacity(pushes.len());
        for (push, answer) in pushes.iter().zip(answers) {
            pushed.push(match answer {
                Ok(answer) => {
                    let answer = fields(answer);
                    if int_of(answer.first()) == -4 {
                        pushed.push(Err(self.shard_moved(push.slot, text_of(answer.get(6)))));
                        continue;
                    }
                    let rollback = self
                        .rollback_of(push.slot, &text_of(answer.get(1)), int_of(answer.get(2)))
                        .await;
                    let outcome = match int_of(answer.first()) {
                        -1 => PushOutcome::LockLost,
                        -2 => PushOutcome::Full,
                        -3 => PushOutcome::Behind(
                            text_of(answer.get(6)).parse().unwrap_or(push.segment.last),
                        ),
                        n => PushOutcome::Stocked(n.max(0) as u64),
                    };
                    Ok(Pushed {
                        outcome,
                        rollback,
                        switched: u64::try_from(int_of(answer.get(3))).unwrap_or(0),
                        settled: Settled {
                            stale: u64::try_from(int_of(answer.get(4))).unwrap_or(0),
                            over_limit: u64::try_from(int_of(answer.get(5))).unwrap_or(0),
                        },
                        unlocked: int_of(answer.get(7)) == 1,
                    })
                }
                Err(e) => Err(e),
            });
        }
        Ok(pushed)
    }

    /// Raises a shard's witness to another node's, lifting the seal here
    /// (`mode` "lift") or keeping it ("keep"): see `lua/stock/admit.lua`.
    /// Returns the node the shard stays sealed for here, if any.
    pub(super) async fn carry_witness(
        &self,
        slot: Slot,
        witness: Option<u64>,
        mode: &str,
        lift_sealed_for: Option<&str>,
    ) -> Result<Option<String>> {
        let witness = witness.map(|w| w.to_string()).unwrap_or_default();
        let sealed_for: String = self
            .invoke(
                &scripts().admit,
                &[&self.keys.witness(slot)],
                &[
                    witness,
                    mode.to_string(),
                    lift_sealed_for.unwrap_or_default().to_string(),
                ],
            )
            .await?;
        Ok(Some(sealed_for).filter(|to| !to.is_empty()))
    }

    /// The refusal of a node that a move sealed a shard on (see `lua/stock/seal.lua`).
    pub(super) fn shard_moved(&self, slot: Slot, to: String) -> crate::Error {
        crate::Error::ShardMoved {
            app: slot.app,
            shard: slot.shard,
            node: self.name.clone(),
            to,
        }
    }

    /// Brings one locked shard in line with the ledger (see `settle` in
    /// `lua/stock/prelude.lua`); `None` when the lock is no longer ours.
    pub(super) async fn settle_one(
        &self,
        slot: Slot,
        token: &LockToken,
        ledger_max_id: u64,
        max_limit_id: u64,
    ) -> Result<Option<Settled>> {
        let (link, run_id) = self.link_and_run_id().await?;
        let call = Call {
            keys: self.keys.shard(slot).to_vec(),
            args: vec![
                token.0.clone(),
                ledger_max_id.to_string(),
                max_limit_id.to_string(),
                ceiling(slot, max_limit_id).to_string(),
                run_id,
            ],
            queued: None,
        };
        let answer = only_one(self.eval_each(link, &scripts().settle, &[call]).await?)??;
        let answer = fields(answer);
        if int_of(answer.first()) < 0 {
            return Ok(None);
        }
        self.rollback_of(slot, &text_of(answer.get(3)), int_of(answer.get(4)))
            .await;
        let witnessed = int_of(answer.get(2)) == 1;
        Ok(Some(Settled {
            stale: if witnessed {
                u64::try_from(int_of(answer.first())).unwrap_or(0)
            } else {
                0
            },
            over_limit: u64::try_from(int_of(answer.get(1))).unwrap_or(0),
        }))
    }

    /// Releases each lock that its token still holds; whether it did, per lock.
    pub(super) async fn unlock_batch(&self, locks: &[(Slot, LockToken)]) -> Result<Vec<bool>> {
        let calls: Vec<Call> = locks
            .iter()
            .map(|(slot, token)| Call {
                keys: vec![self.keys.lock(*slot)],
                args: vec![token.0.clone()],
                queued: None,
            })
            .collect();
        let link = self.link().await?;
        let answers = self.eval_each(link, &scripts().unlock, &calls).await?;
        answers
            .into_iter()
            .map(|answer| answer.map(|deleted| int_of(Some(&deleted)) == 1))
            .collect()
    }
}

/// The highest index within `max_limit_id` for the shard (0 when none is).
fn ceiling(slot: Slot, max_limit_id: u64) -> u64 {
    crate::shard::max_index_within(max_limit_id, slot.app, slot.shard).unwrap_or(0)
}
