//! Lock, push and unlock for many shards, each in one round trip.
//!
//! Every shard keeps its own script call, self-contained (its own keys, its
//! own token, its stamp checked inside the script), so the pipeline is only
//! transport: a cluster connection may split it by slot, and a call that
//! fails fails for its shard alone. A single-shard lock, push or unlock is a
//! batch of one, so there is one path and nothing to drift.

use super::RedisNode;
use super::acl;
use super::connection::{Conn, Link};
use super::dump::{self, Entry};
use super::exchange::Added;
use super::keys::KeyNames;
use super::reply::{fields, int_of, text_of};
use super::scripts::scripts;
use crate::error::Result;
use crate::shard::DispenserKind;
use crate::store::{
    LockToken, Locked, PushOutcome, Pushed, Segment, Settled, ShardMarks, Slot, StockPush, only_one,
};
use redis::{Script, Value};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// One script call: its keys and arguments, and for a queue push the segment
/// whose indexes it stocks.
struct Call {
    keys: Vec<String>,
    args: Vec<String>,
    queued: Option<QueuedSegment>,
}

/// A queue push's segment, the shard's push buffer and the push's token. On
/// one server the call is a transaction: the buffer filled with the token and
/// every index, then the script, which checks the token and moves the buffer
/// into the queue or drops it (a Lua string per index costs more than filling
/// the buffer). The buffer is filled by one `RESTORE` of the whole list (see
/// [`Fill`]), else by one plain `RPUSH`. A cluster client cannot send a
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
        let answers = self.eval_each_unnamed(link, script, calls).await?;
        // A WRONGTYPE names the call's key that holds another type: its shard alone failed.
        let named = calls.iter().zip(answers).map(|(call, answer)| async move {
            match answer {
                Err(e) => Err(self.name_wrong_type(&call.keys, e).await),
                answer => answer,
            }
        });
        Ok(futures::future::join_all(named).await)
    }

    async fn eval_each_unnamed(
        &self,
        link: Link,
        script: &Script,
        calls: &[Call],
    ) -> Result<Vec<Result<Value>>> {
        if self.keys == KeyNames::Cluster {
            // A cluster pipeline stays within one slot: each call goes alone,
            // all at once, to the master that owns its shard.
            let calls = calls.iter().map(|call| async move {
                let keys: Vec<&str> = call.keys.iter().map(String::as_str).collect();
                let mut args = call.args.clone();
                args.extend(
                    call.queued
                        .iter()
                        .flat_map(|queued| queued.segment.indexes())
                        .map(|i| i.to_string()),
                );
                self.invoke::<Value>(script, &keys, &args).await
            });
            return Ok(futures::future::join_all(calls).await);
        }
        let mut conn = link.conn;
        let fill = if link.restore_list && !self.restore_refused.load(Ordering::Relaxed) {
            Fill::Restore
        } else {
            Fill::Push
        };
        let every: Vec<usize> = (0..calls.len()).collect();
        let mut values = self
            .pipeline_calls(&mut conn, script, calls, &every, fill)
            .await?;
        if fill == Fill::Restore {
            // Refused, these pushes stocked nothing (a refusal while queued
            // discards the transaction; a failed RESTORE leaves the script no
            // buffer, and it stocks nothing): they go again by RPUSH.
            let refused: Vec<usize> = (0..calls.len())
                .filter(|&i| calls[i].queued.is_some() && restore_unusable(&values[i]))
                .collect();
            if !refused.is_empty() {
                self.restore_refused.store(true, Ordering::Relaxed);
                let again = self
                    .pipeline_calls(&mut conn, script, calls, &refused, Fill::Push)
                    .await?;
                for (i, value) in refused.into_iter().zip(again) {
                    values[i] = value;
                }
            }
        }
        let mut answers = Vec::with_capacity(calls.len());
        for (call, value) in calls.iter().zip(values) {
            // A script refused a server that is not the master: reconnect next time.
            let key = call.keys.get(1).or(call.keys.first());
            answers.push(
                self.answered([&value], key.map_or("", |k| k))
                    .await
                    .map(|()| value),
            );
        }
        Ok(answers)
    }

    /// Sends `calls[i]` for each `i` of `which` in one pipeline, a queue
    /// push's buffer filled the `fill` way; their answers, in that order.
    async fn pipeline_calls(
        &self,
        conn: &mut Conn,
        script: &Script,
        calls: &[Call],
        which: &[usize],
        fill: Fill,
    ) -> Result<Vec<Value>> {
        self.pipeline_loading(conn, script, which.len(), |pipe, i| {
            let call = &calls[which[i]];
            let Some(queued) = &call.queued else {
                pipe.cmd("EVALSHA")
                    .arg(script.get_hash())
                    .arg(call.keys.len())
                    .arg(&call.keys)
                    .arg(&call.args);
                return Added::Command;
            };
            pipe.cmd("MULTI");
            let queued_commands = match fill {
                Fill::Restore => {
                    let token = Entry::Text(queued.token.as_bytes());
                    let indexes = queued.segment.indexes().map(Entry::Uint);
                    // REPLACE: whatever a push refused on a writable replica left there.
                    pipe.cmd("RESTORE")
                        .arg(&queued.buffer)
                        .arg(0)
                        .arg(dump::list(std::iter::once(token).chain(indexes)))
                        .arg("REPLACE");
                    2
                }
                Fill::Push => {
                    // Whatever a push refused on a writable replica left there.
                    pipe.cmd("DEL").arg(&queued.buffer);
                    let fill = pipe.cmd("RPUSH").arg(&queued.buffer).arg(&queued.token);
                    for index in queued.segment.indexes() {
                        fill.arg(index);
                    }
                    3
                }
            };
            pipe.cmd("EVALSHA")
                .arg(script.get_hash())
                .arg(call.keys.len() + 1)
                .arg(&call.keys)
                .arg(&queued.buffer)
                .arg(&call.args);
            pipe.cmd("EXEC");
            Added::Transaction {
                queued: queued_commands,
            }
        })
        .await
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
        let calls: Vec<Call> = slots
            .iter()
            .zip(&tokens)
            .map(|(&slot, token)| Call {
                keys: self.keys.shard(slot).to_vec(),
                args: vec![
                    token.0.clone(),
                    ttl.clone(),
                    kind.as_str().to_string(),
                    run_id.clone(),
                ],
                queued: None,
            })
            .collect();
        let answers = self.eval_each(link, &scripts().lock, &calls).await?;
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
        let calls: Vec<Call> = pushes
            .iter()
            .map(|p| {
                let args = vec![
                    p.token.0.clone(),
                    p.segment.first.to_string(),
                    p.segment.last.to_string(),
                    kind.as_str().to_string(),
                    p.max_limit_id.to_string(),
                    run_id.clone(),
                    ceiling(p.slot, p.max_limit_id).to_string(),
                    if p.release { "1" } else { "0" }.to_string(),
                ];
                Call {
                    keys: self.keys.shard(p.slot).to_vec(),
                    args,
                    queued: (kind == DispenserKind::Queue).then(|| QueuedSegment {
                        segment: p.segment,
                        buffer: self.keys.buffer(p.slot),
                        token: p.token.0.clone(),
                    }),
                }
            })
            .collect();
        let mut answers = self.eval_each(link, &scripts().push, &calls).await?;
        // The answers were lost and the pushes are sent again, as a cluster
        // client does after a failover: the second answers stand.
        if crate::failpoint::hit_and_armed("dispenser.push_answer_lost")? {
            let (link, _) = self.link_and_run_id().await?;
            answers = self.eval_each(link, &scripts().push, &calls).await?;
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
