//! Taking indexes from a shard's stock: the warm pop on a direct
//! connection, the scripted take (queue or range) otherwise, and following a
//! failover once. Stock another server process stocked is never served.

use super::RedisNode;
use super::connection::{Conn, LinkState, probe_commands};
use super::exchange::Added;
use super::keys::{KeyNames, route_key};
use super::reply::{
    StampFields, bytes_of, info_field, int_of, parse_entries, parse_index, reject, shown, text_of,
};
use super::scripts::scripts;
use super::topology::Topology;
use crate::error::{Error, Result};
use crate::shard::DispenserKind;
use crate::store::{Slot, Taken};
use redis::{Script, Value};

impl RedisNode {
    /// The warm path on a direct connection: the stamp, the pop, the route
    /// hint and the server's replication state in one round trip, no script.
    /// The connection ends at the server process whose `run_id` is `run_id`;
    /// its role and `master_replid`, which a demotion (and a promotion)
    /// change under a live connection, are read with the pop. On a server
    /// that is not the master nothing popped is served (a gap, on a server
    /// that is not the authority anyway): the link is dropped and the take
    /// fails, or follows the master (see [`Self::take_following`]). On the
    /// master, stock stamped with both is that process's own, in this
    /// replication history; anything else is retired before it is served.
    async fn take_queue_direct(
        &self,
        mut conn: Conn,
        slot: Slot,
        n: u64,
        run_id: &str,
    ) -> Result<Taken> {
        let key = self.keys.queue(slot);
        let mut pipe = redis::pipe();
        // Each answer apart: a read-only replica refuses the pop, and its role
        // is still read to name its master.
        pipe.ignore_errors();
        pipe.cmd("HMGET")
            .arg(self.keys.stamp(slot))
            .arg("run_id")
            .arg("limit")
            .arg("kind")
            .arg("replid")
            .cmd("LPOP")
            .arg(&key);
        if n > 1 {
            pipe.arg(n);
        }
        pipe.cmd("GET").arg(route_key(slot.app));
        pipe.cmd("INFO").arg("replication");
        let answers: Vec<Value> = self.bounded(pipe.query_async(&mut conn)).await?;
        let [stamp, popped, hint, replication]: [Value; 4] =
            answers.try_into().map_err(|answers: Vec<Value>| {
                Error::Internal(format!(
                    "the warm take got {} answers to 4 commands",
                    answers.len()
                ))
            })?;
        if let Ok(replication) = redis::from_redis_value_ref::<String>(&replication) {
            self.refuse_unless_master(&replication).await?;
        }
        self.answered([&stamp, &popped, &hint, &replication], &key)
            .await?;
        let replication: String = redis::from_redis_value(replication)
            .map_err(|e| Error::Internal(format!("INFO replication answered {e}")))?;
        let (stamped, limit, recorded, stamped_replid): StampFields =
            redis::from_redis_value(stamp).map_err(|e| Error::BadData {
                backend: "Redis",
                key: self.keys.stamp(slot),
                detail: format!("it is not the hash idgen stamps ({e})"),
            })?;
        let hint: Option<String> = redis::from_redis_value(hint).map_err(|e| Error::BadData {
            backend: "Redis",
            key: route_key(slot.app),
            detail: format!("it is not a node name ({e})"),
        })?;
        let entries = match popped {
            Value::Array(entries) => entries,
            Value::Nil => Vec::new(),
            single => vec![single],
        };
        let mut taken = Taken {
            route_hint: hint,
            max_limit_id: limit.and_then(|l| l.parse().ok()),
            kind: recorded
                .as_deref()
                .and_then(|k| DispenserKind::parse(k).ok()),
            ..Taken::default()
        };
        let replid = info_field(&replication, "master_replid");
        if stamped.as_deref() == Some(run_id) && stamped_replid.as_deref() == Some(&replid) {
            parse_entries(&mut taken, &key, &entries);
            return Ok(taken);
        }
        if stamped.is_none() && entries.is_empty() {
            // A shard never stocked here: nothing to serve, nothing stale.
            return Ok(taken);
        }
        crate::failpoint::pause("take.before_retire").await?;
        // Popped from stock this server process never stocked: not served.
        // The stock is retired and the shard stamped on this same connection:
        // `run_id` names the server at its end, and the node's current link
        // may reach another server by now (a concurrent request dropped this
        // one and followed a failover), which this stamp would misname.
        let keys = [
            self.keys.queue(slot),
            self.keys.range(slot),
            self.keys.stamp(slot),
        ];
        let answer: Vec<Value> = self
            .invoke_on(
                &mut conn,
                &scripts().verify,
                &keys.each_ref().map(String::as_str),
                &[run_id.to_string()],
            )
            .await?;
        let retired = entries.len() as i64 + int_of(answer.get(1));
        let seen = format!("{} {run_id}", stamped.as_deref().unwrap_or("-"));
        taken.rollback = self.rollback_of(slot, &seen, retired).await;
        Ok(taken)
    }

    /// One take from `kind`'s stock, following a failover once: a failover
    /// demoted or took down the master mid-take, or the link reached a server
    /// that is no longer the master, so the link is gone; the master the
    /// sentinels name (or the cluster's map, made afresh) now serves the take.
    /// Nothing popped on the old link is served, so this can only leave a
    /// gap. A standalone node has nowhere else to go: its error stands.
    pub(super) async fn take_following(
        &self,
        kind: DispenserKind,
        slot: Slot,
        n: u64,
    ) -> Result<Taken> {
        let mut taken = self.take_as(kind, slot, n).await;
        if taken.is_err()
            && matches!(self.topology, Topology::Sentinel(_) | Topology::Cluster(_))
            && self.has_no_link()
        {
            taken = self.take_as(kind, slot, n).await;
        }
        match taken {
            Err(e) => Err(self.name_wrong_type(&self.keys.shard(slot), e).await),
            taken => taken,
        }
    }

    /// One take from `kind`'s stock (see [`Stock::take`](crate::store::Stock::take)).
    async fn take_as(&self, kind: DispenserKind, slot: Slot, n: u64) -> Result<Taken> {
        if let Some(first) = self.probe_and_take(kind, slot, n).await {
            let (answer, hint) = first?;
            return self
                .taken_of(kind, slot, answer, hint, &self.keys.stock(kind, slot))
                .await;
        }
        let link = self.link().await?;
        let (answer, hint, stock) = match (kind, &link.direct_run_id) {
            (DispenserKind::Queue, Some(run_id)) if n == 1 || link.lpop_count => {
                return self.take_queue_direct(link.conn, slot, n, run_id).await;
            }
            (kind, run_id) => {
                let key = self.keys.stock(kind, slot);
                let script = match kind {
                    DispenserKind::Queue => &scripts().take_queue,
                    DispenserKind::Range => &scripts().take_range,
                };
                let run_id = run_id.as_deref().unwrap_or_default();
                let taken = self
                    .take_scripted(link.conn.clone(), (script, key.as_str()), slot, n, run_id)
                    .await;
                let (answer, hint) = self.naming_master(&link.conn, taken).await?;
                (answer, hint, key)
            }
        };
        self.taken_of(kind, slot, answer, hint, &stock).await
    }

    /// The first take on a connection not yet probed, with the probe in the
    /// same round trip: a short-lived process (`idgen next`) makes one
    /// round trip in all. The take is the script, which compares the shard's
    /// stamp with the server's own `run_id` whatever the connection passes
    /// through; the probe's answers are read first, and a server the probe
    /// refuses (too old) fails the take, its answer unserved: a gap at most.
    /// `None` when the connection is already probed (or there is none).
    async fn probe_and_take(
        &self,
        kind: DispenserKind,
        slot: Slot,
        n: u64,
    ) -> Option<Result<(Vec<Value>, Option<String>)>> {
        let client = self.client.as_ref()?;
        // Every take asks: a probed link answers without waiting.
        if !matches!(*self.state(), LinkState::Unprobed(_)) {
            return None;
        }
        // Requests that need the link meanwhile wait for this probe.
        let making = self.linking.lock().await;
        // Taken out while it is probed: if the exchange breaks, nothing is
        // left to use, and the next request connects afresh. A link another
        // request probed meanwhile is put back.
        let raw = {
            let mut state = self.state();
            match std::mem::replace(&mut *state, LinkState::None) {
                LinkState::Unprobed(raw) => raw,
                other => {
                    *state = other;
                    return None;
                }
            }
        };
        if let Err(e) = crate::failpoint::hit("redis.first_take") {
            return Some(Err(e));
        }
        let script = match kind {
            DispenserKind::Queue => &scripts().take_queue,
            DispenserKind::Range => &scripts().take_range,
        };
        let mut conn = Conn::Server(raw);
        let probe = probe_commands(false);
        let asked = probe.len();
        let answers = self
            .pipeline_loading(&mut conn, script, asked + 2, |pipe, i| {
                if let Some(command) = probe.get(i) {
                    pipe.add_command(command.clone());
                } else if i == asked {
                    self.take_command(pipe, script, slot, n, "");
                } else {
                    pipe.cmd("GET").arg(route_key(slot.app));
                }
                Added::Command
            })
            .await;
        Some(
            async {
                let mut answers = answers?.into_iter();
                let probe: Vec<Value> = answers.by_ref().take(asked).collect();
                let Conn::Server(raw) = conn.clone() else {
                    return Err(Error::Internal(
                        "a standalone node holds a cluster link".into(),
                    ));
                };
                let link = self.link_of(client, raw, &probe, false).await?;
                *self.state() = LinkState::Ready(link);
                drop(making);
                let (take, hint) = (answers.next(), answers.next());
                let taken = match (take, hint) {
                    (Some(take), Some(hint)) => self
                        .answered([&take, &hint], &self.keys.stock(kind, slot))
                        .await
                        .map(|()| (take, hint)),
                    _ => Err(Error::Internal(
                        "a Redis pipeline left a command unanswered".into(),
                    )),
                };
                let (take, hint) = self.naming_master(&conn, taken).await?;
                let answer = match take {
                    Value::Array(answer) => answer,
                    _ => Vec::new(),
                };
                let hint = match hint {
                    Value::Nil => None,
                    hint => Some(text_of(Some(&hint))),
                };
                Ok((answer, hint))
            }
            .await,
        )
    }

    /// A take's answer to the script (`rollback stamp`, retired, limit, kind,
    /// then the entries) as what was taken from `stock`.
    async fn taken_of(
        &self,
        kind: DispenserKind,
        slot: Slot,
        answer: Vec<Value>,
        hint: Option<String>,
        stock: &str,
    ) -> Result<Taken> {
        let mut taken = Taken {
            route_hint: hint,
            max_limit_id: text_of(answer.get(2)).parse().ok(),
            kind: DispenserKind::parse(&text_of(answer.get(3))).ok(),
            ..Taken::default()
        };
        taken.rollback = self
            .rollback_of(slot, &text_of(answer.first()), int_of(answer.get(1)))
            .await;
        let entries = answer.get(4..).unwrap_or_default();
        match kind {
            DispenserKind::Queue => parse_entries(&mut taken, stock, entries),
            DispenserKind::Range => {
                for pair in entries.chunks(2) {
                    let first = pair.first().and_then(bytes_of).unwrap_or_default();
                    let last = pair.get(1).and_then(bytes_of).unwrap_or_default();
                    match (parse_index(first), parse_index(last)) {
                        (Some(first), Some(last)) if first <= last => {
                            taken.indexes.extend(first..=last)
                        }
                        _ => reject(
                            &mut taken,
                            stock,
                            format!("{}..{}", shown(first), shown(last)).as_bytes(),
                        ),
                    }
                }
            }
        }
        Ok(taken)
    }

    /// The scripted take of `n` from the shard, as one pipelined command;
    /// `run_id` as [`Self::take_scripted`] takes it.
    fn take_command(
        &self,
        pipe: &mut redis::Pipeline,
        script: &Script,
        slot: Slot,
        n: u64,
        run_id: &str,
    ) {
        pipe.cmd("EVALSHA")
            .arg(script.get_hash())
            .arg(3)
            .arg(self.keys.queue(slot))
            .arg(self.keys.range(slot))
            .arg(self.keys.stamp(slot))
            .arg(n)
            .arg(run_id);
    }

    /// A take by script, with the route hint in the same round trip. `run_id`
    /// is this server's when the connection is direct, else '' (the script asks).
    async fn take_scripted(
        &self,
        mut conn: Conn,
        (script, stock): (&Script, &str),
        slot: Slot,
        n: u64,
        run_id: &str,
    ) -> Result<(Vec<Value>, Option<String>)> {
        // In a cluster the app's route hint lives in another slot (maybe on
        // another master): it is read beside the take, at the same time.
        let hint_apart = self.keys == KeyNames::Cluster;
        let mut hint_conn = conn.clone();
        let hint = async {
            if !hint_apart {
                return Ok(None);
            }
            self.bounded(
                redis::cmd("GET")
                    .arg(route_key(slot.app))
                    .query_async::<Option<String>>(&mut hint_conn),
            )
            .await
        };
        let take = async {
            let commands = if hint_apart { 1 } else { 2 };
            let answers = self
                .pipeline_loading(&mut conn, script, commands, |pipe, i| {
                    if i == 0 {
                        self.take_command(pipe, script, slot, n, run_id);
                    } else {
                        pipe.cmd("GET").arg(route_key(slot.app));
                    }
                    Added::Command
                })
                .await?;
            self.answered(&answers, stock).await?;
            Ok::<_, Error>(answers)
        };
        let (answers, hint) = tokio::join!(take, hint);
        let mut answers = answers?.into_iter();
        let answer = match answers.next() {
            Some(Value::Array(answer)) => answer,
            _ => Vec::new(),
        };
        let hint = match answers.next() {
            Some(Value::Nil) | None => hint?,
            piped => Some(text_of(piped.as_ref())),
        };
        Ok((answer, hint))
    }
}
