//! A Redis node as a segment [`Dispenser`].
//!
//! Key names are the Java service's, so both can serve the same node:
//! `id.gen.idList_{app}_{shard}` (queue) and `id.gen.lock_{app}_{shard}` (refill
//! lock). idgen adds `id.gen.range_{app}_{shard}` (range dispenser) and
//! `id.gen.route_{app}` (which node serves a moved app).
//!
//! Pushing and retiring are fenced by the lock token inside one script, so a
//! refiller whose lock expired can never stock a shard it no longer owns.
//!
//! A Redis dataset can go back in time (an older RDB or AOF, a restored backup,
//! a lagging replica promoted), and then indexes already popped are back in the
//! lists. So a shard's stock is served only by the server process that
//! stocked it: `id.gen.stamp_{app}_{shard}` holds that process's `run_id`. On a
//! connection that provably ends at the server (see `Link`) the `run_id` is
//! known and a warm take compares the stamp in the same pipeline as the pop;
//! otherwise every take's script asks `INFO server`. A mismatch retires the
//! shard's stock before anything is served (see `lua/stock.lua`). On a
//! cluster, the shard's companion keys carry a hash tag into the queue key's
//! slot (`keys`), so each script runs on the master that owns the shard.

mod acl;
mod batch;
pub mod connect;
mod connection;
pub mod keys;
pub mod lease;
pub mod topology;
pub mod worker_nodes;

use super::{
    Dispenser, LedgerRollback, LedgerRollbackRecord, LockToken, Locked, Malformed, Pushed,
    Rollback, RollbackRecord, RouteHints, Segment, Settled, ShardMarks, Slot, StockPush, Taken,
    version_at_least,
};
use crate::config::TlsFiles;
use crate::error::{Error, Result};
use crate::redact::SecretUrl;
use crate::shard::DispenserKind;
use async_trait::async_trait;
use connection::*;
use keys::KeyNames;
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Script, Value};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use topology::Topology;

/// Key name prefixes: the Java service's, followed by `{app}_{shard}` (a
/// route: `{app}`). Names and SCAN patterns are both built from these.
pub const QUEUE_PREFIX: &str = "id.gen.idList_";
pub const RANGE_PREFIX: &str = "id.gen.range_";
pub const LOCK_PREFIX: &str = "id.gen.lock_";
pub const ROUTE_PREFIX: &str = "id.gen.route_";
pub const STAMP_PREFIX: &str = "id.gen.stamp_";
pub const WITNESS_PREFIX: &str = "id.gen.witness_";

pub fn queue_key(slot: Slot) -> String {
    format!("{QUEUE_PREFIX}{}_{}", slot.app, slot.shard)
}

pub fn range_key(slot: Slot) -> String {
    format!("{RANGE_PREFIX}{}_{}", slot.app, slot.shard)
}

pub fn lock_key(slot: Slot) -> String {
    format!("{LOCK_PREFIX}{}_{}", slot.app, slot.shard)
}

pub fn route_key(app: u8) -> String {
    format!("{ROUTE_PREFIX}{app}")
}

/// The server identity (`run_id`) that stocked a shard, and its `max_limit_id`.
pub fn stamp_key(slot: Slot) -> String {
    format!("{STAMP_PREFIX}{}_{}", slot.app, slot.shard)
}

/// The end of the highest segment ever taken from the ledger for a shard: a
/// witness, kept outside the ledger, of what the ledger handed out.
pub fn witness_key(slot: Slot) -> String {
    format!("{WITNESS_PREFIX}{}_{}", slot.app, slot.shard)
}

/// The last time a ledger was found behind a witness on this node, for `status`.
pub const LEDGER_ROLLBACK_KEY: &str = "id.gen.ledger_rollback";

/// The last dataset change the scripts detected on this node, for `status`.
pub const ROLLBACK_KEY: &str = "id.gen.rollback";

/// A script made of the shared prelude (`stock_of`, `verify`) and a body.
fn with_prelude(body: &str) -> Script {
    acl::script(&format!("{}\n{body}", include_str!("lua/stock.lua")))
}

struct Scripts {
    take_queue: Script,
    take_range: Script,
    lock: Script,
    push: Script,
    retire: Script,
    verify: Script,
    switch: Script,
    settle: Script,
    witness: Script,
    unlock: Script,
    note_rollback: Script,
    note_ledger_rollback: Script,
}

impl Scripts {
    fn new() -> Self {
        Scripts {
            take_queue: with_prelude(include_str!("lua/take_queue.lua")),
            take_range: with_prelude(include_str!("lua/take_range.lua")),
            lock: with_prelude(include_str!("lua/lock.lua")),
            push: with_prelude(include_str!("lua/push.lua")),
            retire: with_prelude(include_str!("lua/retire.lua")),
            verify: with_prelude(include_str!("lua/verify.lua")),
            switch: with_prelude(include_str!("lua/switch.lua")),
            settle: with_prelude(include_str!("lua/settle.lua")),
            witness: acl::script(include_str!("lua/witness.lua")),
            unlock: acl::script(include_str!("lua/unlock.lua")),
            note_rollback: acl::script(include_str!("lua/note_rollback.lua")),
            note_ledger_rollback: acl::script(include_str!("lua/note_ledger_rollback.lua")),
        }
    }
}

/// The oldest Redis the scripts run on: a script that reads `INFO` and then
/// writes needs effects replication, the default since 5.0.
pub const MIN_REDIS_VERSION: (u32, u32) = (5, 0);

/// One connected Redis node. A connection that breaks (the server restarted
/// or failed over) is dropped and made again on the next request, so a
/// long-lived client rides through; what the new connection reaches is
/// learned afresh.
pub struct RedisNode {
    name: String,
    url: SecretUrl,
    topology: Topology,
    /// The client of a standalone node; a Sentinel node makes one for each master it finds.
    client: Option<redis::Client>,
    keys: KeyNames,
    /// The CA and client certificate every client of this node uses with TLS.
    tls: TlsFiles,
    link: tokio::sync::Mutex<Option<Link>>,
    timeout: Duration,
    scripts: Scripts,
}

/// An index as the Java service stores it: ASCII digits only (its
/// `NumberUtils.isDigits`), and within the 49-bit index field.
fn parse_index(entry: &[u8]) -> Option<u64> {
    if entry.is_empty() || !entry.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(entry)
        .ok()?
        .parse()
        .ok()
        .filter(|&index| index <= crate::shard::MAX_INDEX)
}

fn bytes_of(value: &Value) -> Option<&[u8]> {
    match value {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

fn text_of(value: Option<&Value>) -> String {
    match value {
        Some(Value::Int(n)) => n.to_string(),
        Some(v) => bytes_of(v)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default(),
        None => String::new(),
    }
}

fn int_of(value: Option<&Value>) -> i64 {
    text_of(value).parse().unwrap_or(0)
}

/// One of the records a node keeps for `status` (a hash of text fields).
struct Record(BTreeMap<String, String>);

impl Record {
    /// A field as a number; 0 when missing or not one.
    fn number(&self, name: &str) -> u64 {
        self.0.get(name).and_then(|v| v.parse().ok()).unwrap_or(0)
    }

    /// The node that wrote the record, else `default`.
    fn node(&self, default: &str) -> String {
        self.0
            .get("node")
            .cloned()
            .unwrap_or_else(|| default.to_string())
    }
}

/// A printable form of a stored entry, cut short.
fn shown(entry: &[u8]) -> String {
    let text = String::from_utf8_lossy(entry);
    let mut shown: String = text
        .chars()
        .take(40)
        .collect::<String>()
        .escape_debug()
        .to_string();
    if text.chars().count() > 40 {
        shown.push('…');
    }
    shown
}

/// A shard's stamp hash: the stocking server's `run_id`, the `max_limit_id`,
/// the dispenser kind and the stocking server's `master_replid`.
type StampFields = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// Adds queue entries to `taken`, setting malformed ones aside.
fn parse_entries(taken: &mut Taken, key: &str, entries: &[Value]) {
    taken.indexes.reserve(entries.len());
    for entry in entries {
        let bytes = bytes_of(entry).unwrap_or_default();
        match parse_index(bytes) {
            Some(index) => taken.indexes.push(index),
            None => reject(taken, key, bytes),
        }
    }
}

/// Notes an entry that is not an index: dropped (a gap), reported as bad data.
fn reject(taken: &mut Taken, key: &str, entry: &[u8]) {
    let malformed = taken.malformed.get_or_insert_with(|| Malformed {
        key: key.to_string(),
        entry: shown(entry),
        count: 0,
    });
    malformed.count += 1;
}

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
        let failed = [&stamp, &popped, &hint, &replication]
            .into_iter()
            .find_map(|answer| match answer {
                Value::ServerError(e) => Some(redis::RedisError::from(e.clone())),
                _ => None,
            });
        if let Some(e) = failed {
            self.forget_if_broken(&e).await;
            return Err(self.script_error(&e, &key));
        }
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
        // Popped from stock this server process never stocked: not served.
        let keys = [
            self.keys.queue(slot),
            self.keys.range(slot),
            self.keys.stamp(slot),
        ];
        let answer: Vec<Value> = self
            .invoke(
                &self.scripts.verify,
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
    async fn take_following(&self, kind: DispenserKind, slot: Slot, n: u64) -> Result<Taken> {
        let taken = self.take_as(kind, slot, n).await;
        if taken.is_err()
            && matches!(self.topology, Topology::Sentinel(_) | Topology::Cluster(_))
            && self.link.lock().await.is_none()
        {
            return self.take_as(kind, slot, n).await;
        }
        taken
    }

    /// One take from `kind`'s stock (see [`Stock::take`](crate::store::Stock::take)).
    async fn take_as(&self, kind: DispenserKind, slot: Slot, n: u64) -> Result<Taken> {
        let link = self.link().await?;
        let (answer, hint, stock) = match (kind, &link.direct_run_id) {
            (DispenserKind::Queue, Some(run_id)) if n == 1 || link.lpop_count => {
                return self.take_queue_direct(link.conn, slot, n, run_id).await;
            }
            (DispenserKind::Queue, run_id) => {
                let (key, run_id) = (self.keys.queue(slot), run_id.as_deref().unwrap_or_default());
                let script = (&self.scripts.take_queue, key.as_str());
                let taken = self
                    .take_scripted(link.conn.clone(), script, slot, n, run_id)
                    .await;
                let (answer, hint) = self.naming_master(&link.conn, taken).await?;
                (answer, hint, key)
            }
            (DispenserKind::Range, run_id) => {
                let (key, run_id) = (self.keys.range(slot), run_id.as_deref().unwrap_or_default());
                let script = (&self.scripts.take_range, key.as_str());
                let taken = self
                    .take_scripted(link.conn.clone(), script, slot, n, run_id)
                    .await;
                let (answer, hint) = self.naming_master(&link.conn, taken).await?;
                (answer, hint, key)
            }
        };
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
            DispenserKind::Queue => parse_entries(&mut taken, &stock, entries),
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
                            &stock,
                            format!("{}..{}", shown(first), shown(last)).as_bytes(),
                        ),
                    }
                }
            }
        }
        Ok(taken)
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
        let mut pipe = redis::pipe();
        pipe.cmd("EVALSHA")
            .arg(script.get_hash())
            .arg(3)
            .arg(self.keys.queue(slot))
            .arg(self.keys.range(slot))
            .arg(self.keys.stamp(slot))
            .arg(n)
            .arg(run_id);
        // In a cluster the app's route hint lives in another slot (maybe on
        // another master): it is read beside the take, at the same time.
        let hint_apart = self.keys == KeyNames::Cluster;
        if !hint_apart {
            pipe.cmd("GET").arg(route_key(slot.app));
        }
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
            match self
                .bounded_raw(pipe.query_async::<Vec<Value>>(&mut conn))
                .await?
            {
                Ok(answers) => Ok(answers),
                Err(e)
                    if e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript) =>
                {
                    // A new or restarted server without the script: nothing was taken.
                    let load = script.prepare_invoke();
                    self.bounded(load.load_async(&mut conn)).await?;
                    self.bounded_raw(pipe.query_async(&mut conn))
                        .await?
                        .map_err(|e| self.script_error(&e, stock))
                }
                Err(e) => Err(self.script_error(&e, stock)),
            }
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

    /// The stock of `slots` in one round trip. Stock stamped by another server
    /// process counts as missing: the next refill retires it (see
    /// `lua/stock.lua`). `run_id` is the server's when the connection is
    /// direct; otherwise the server is asked in the same round trip. A server
    /// that is not the master is refused: its counts decide nothing.
    async fn stock_round(
        &self,
        mut conn: Conn,
        kind: DispenserKind,
        slots: &[Slot],
        run_id: Option<&str>,
    ) -> Result<Vec<Option<u64>>> {
        let mut pipe = redis::pipe();
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
        let replication = answers
            .pop()
            .and_then(|info| redis::from_redis_value::<String>(info).ok())
            .unwrap_or_default();
        self.refuse_unless_master(&replication).await?;
        let replid = info_field(&replication, "master_replid");
        Ok(answers
            .chunks(2)
            .map(|pair| {
                let stamped = match pair.get(1) {
                    Some(Value::Array(fields)) => (text_of(fields.first()), text_of(fields.get(1))),
                    _ => Default::default(),
                };
                let stock = match (kind, pair.first()) {
                    (DispenserKind::Queue, Some(Value::Int(n))) => Some((*n).max(0) as u64),
                    (DispenserKind::Range, Some(Value::Array(fields))) => range_stock(fields),
                    _ => None,
                };
                stock.filter(|&n| n == 0 || stamped == (run_id.clone(), replid.clone()))
            })
            .collect())
    }

    /// Reads a script's rollback answer (`''` or `'stamped serving'`) and
    /// records it for `status`.
    async fn rollback_of(&self, slot: Slot, answer: &str, retired: i64) -> Option<Rollback> {
        let (stamped, serving) = answer.split_once(' ')?;
        let rollback = Rollback {
            node: self.name.clone(),
            app: slot.app,
            shard: slot.shard,
            stamped: (stamped != "-").then(|| stamped.to_string()),
            serving: serving.to_string(),
            retired: u64::try_from(retired).unwrap_or(0),
        };
        // The record only informs `status`: losing it must not fail a take.
        let _: Result<i64> = self
            .invoke(
                &self.scripts.note_rollback,
                &[ROLLBACK_KEY],
                &[
                    crate::clock::process_now_ms().to_string(),
                    self.name.clone(),
                    stamped.to_string(),
                    serving.to_string(),
                    rollback.retired.to_string(),
                ],
            )
            .await;
        Some(rollback)
    }

    /// A record hash for `status` (empty when missing).
    async fn record(&self, key: &str) -> Result<Record> {
        let mut conn = self.conn().await?;
        self.bounded(redis::cmd("HGETALL").arg(key).query_async(&mut conn))
            .await
            .map(Record)
    }

    /// A script error about a key of the wrong type names the key.
    fn script_error(&self, e: &redis::RedisError, key: &str) -> Error {
        // Inside a pipeline the code is only in the message.
        if e.code() == Some("WRONGTYPE") || e.to_string().contains("WRONGTYPE") {
            return Error::BadData {
                backend: "Redis",
                key: key.to_string(),
                detail: format!(
                    "it is not the type idgen stores there ({})",
                    self.url.scrub(&e.to_string())
                ),
            };
        }
        self.error(e)
    }
}

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
}

#[async_trait]
impl super::Stock for RedisNode {
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
    async fn marks(&self, slots: &[Slot]) -> Result<Option<Vec<ShardMarks>>> {
        if slots.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let conn = self.conn().await?;
        let round = |slots: &[Slot]| {
            let mut pipe = redis::pipe();
            for &slot in slots {
                pipe.cmd("HGET").arg(self.keys.witness(slot)).arg("last");
                pipe.cmd("HGET").arg(self.keys.stamp(slot)).arg("limit");
            }
            let mut conn = conn.clone();
            async move {
                let answers: Vec<Option<String>> =
                    self.bounded(pipe.query_async(&mut conn)).await?;
                Ok::<_, Error>(
                    answers
                        .chunks(2)
                        .map(|pair| ShardMarks {
                            witness: pair[0].as_deref().and_then(|w| w.parse().ok()),
                            max_limit_id: pair
                                .get(1)
                                .and_then(|l| l.as_deref())
                                .and_then(|l| l.parse().ok()),
                        })
                        .collect::<Vec<_>>(),
                )
            }
        };
        if self.keys == KeyNames::Cluster {
            // A pipeline stays in one slot: one per shard, all at once.
            let rounds = slots.iter().map(|slot| round(std::slice::from_ref(slot)));
            let marks = futures::future::try_join_all(rounds).await?;
            return Ok(Some(marks.into_iter().flatten().collect()));
        }
        round(slots).await.map(Some)
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
            &self.scripts.note_ledger_rollback,
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
impl super::Restock for RedisNode {
    async fn lock(&self, kind: DispenserKind, slot: Slot, ttl: Duration) -> Result<Option<Locked>> {
        one(self.lock_batch(kind, &[slot], ttl).await?)?
    }
    async fn lock_many(
        &self,
        kind: DispenserKind,
        slots: &[Slot],
        ttl: Duration,
    ) -> Result<Vec<Result<Option<Locked>>>> {
        self.lock_batch(kind, slots, ttl).await
    }
    async fn push(
        &self,
        kind: DispenserKind,
        slot: Slot,
        segment: Segment,
        max_limit_id: u64,
        token: &LockToken,
    ) -> Result<Pushed> {
        let push = StockPush {
            slot,
            segment,
            max_limit_id,
            token: token.clone(),
        };
        one(self.push_batch(kind, &[push]).await?)?
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
                &self.scripts.witness,
                &[key.as_str()],
                &[segment.first.to_string(), segment.last.to_string()],
            )
            .await?;
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
        one(self.unlock_batch(&[(slot, token.clone())]).await?)
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
                &self.scripts.retire,
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
                &self.scripts.switch,
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

/// Parses `{app}_{shard}`; anything else (such as the Java service's bare
/// `id.gen.idList_` lock key) is not a slot.
/// The answer of a batch of one.
fn one<T>(answers: Vec<T>) -> Result<T> {
    answers
        .into_iter()
        .next()
        .ok_or_else(|| Error::Internal("a batch of one gave no answer".into()))
}

fn parse_slot(rest: &str) -> Option<Slot> {
    // A cluster's companion keys end in a hash tag: `7_5{1432}`.
    let rest = rest.split('{').next().unwrap_or(rest);
    let (app, shard) = rest.split_once('_')?;
    let slot = Slot {
        app: app.parse().ok()?,
        shard: shard.parse().ok()?,
    };
    (slot.shard < crate::shard::SHARDS).then_some(slot)
}

fn range_stock(fields: &[Value]) -> Option<u64> {
    let num = |i: usize| -> Option<i128> {
        let bytes = fields.get(i).and_then(bytes_of)?;
        std::str::from_utf8(bytes).ok()?.parse().ok()
    };
    let (next, last) = (num(0)?, num(1)?);
    Some(super::range_count(next, last, num(2).zip(num(3))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_parse_from_key_suffixes() {
        assert_eq!(parse_slot("7_63"), Some(Slot { app: 7, shard: 63 }));
        assert_eq!(parse_slot("7_64"), None);
        assert_eq!(parse_slot(""), None);
        assert_eq!(parse_slot("x_1"), None);
        assert_eq!(parse_slot("7_5{1432}"), Some(Slot { app: 7, shard: 5 }));
    }

    #[test]
    fn server_versions_compare_by_major_and_minor() {
        assert!(version_at_least("7.0.15", (5, 0)));
        assert!(version_at_least("5.0.0", (5, 0)));
        assert!(version_at_least("6", (5, 0)));
        assert!(!version_at_least("4.0.14", (5, 0)));
        assert!(!version_at_least("", (5, 0)));
        assert!(!version_at_least("unknown", (5, 0)));
        assert!(version_at_least("10.11.6-MariaDB-0+deb12u1", (10, 3)));
        assert!(!version_at_least("10.2.44-MariaDB", (10, 3)));
        assert!(version_at_least("8.0.35", (5, 7)));
        // Valkey 7.2 and 8.x report a Redis-compatible redis_version (7.2.4).
        assert!(version_at_least("7.2.4", MIN_REDIS_VERSION));
    }

    #[test]
    fn an_index_wider_than_49_bits_is_not_an_index() {
        assert_eq!(parse_index(b"562949953421311"), Some((1 << 49) - 1));
        assert_eq!(parse_index(b"562949953421312"), None);
        assert_eq!(parse_index(b"99999999999999999999999"), None);
    }

    #[test]
    fn only_decimal_digits_are_indexes() {
        assert_eq!(parse_index(b"123"), Some(123));
        assert_eq!(parse_index(b"-1"), None);
        assert_eq!(parse_index(b"1e3"), None);
        assert_eq!(parse_index(b""), None);
    }
}
