//! A Redis node as a segment [`Dispenser`].
//!
//! Key names are the Java service's, so both can serve the same node:
//! `id.gen.idList_{app}_{shard}` (queue) and `id.gen.lock_{app}_{shard}` (refill
//! lock). idgen adds `id.gen.range_{app}_{shard}` (range dispenser) and
//! `id.gen.route_{app}` (which node serves a moved app).
//!
//! Pushing and retiring are fenced by the lock token inside one script, so a
//! refiller whose lock expired can never stock a shard it no longer owns. These
//! scripts name two keys without a common hash tag (the Java names have none),
//! so segment dispensers need a standalone Redis (replicas and Sentinel are fine).

mod lease;

use super::{Dispenser, LockToken, Locked, PushOutcome, Segment, Slot, Taken};
use crate::error::{Error, Result};
use crate::redact::SecretUrl;
use crate::segment::DispenserKind;
use async_trait::async_trait;
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Script, Value};
use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

pub fn queue_key(slot: Slot) -> String {
    format!("id.gen.idList_{}_{}", slot.app, slot.shard)
}

pub fn range_key(slot: Slot) -> String {
    format!("id.gen.range_{}_{}", slot.app, slot.shard)
}

pub fn lock_key(slot: Slot) -> String {
    format!("id.gen.lock_{}_{}", slot.app, slot.shard)
}

pub fn route_key(app: u8) -> String {
    format!("id.gen.route_{app}")
}

fn stock_key(kind: DispenserKind, slot: Slot) -> String {
    match kind {
        DispenserKind::Queue => queue_key(slot),
        DispenserKind::Range => range_key(slot),
    }
}

/// Lua shared by the scripts: the stock of a queue or range key (-1: missing).
const LUA_STOCK: &str = r#"
local function stock_of(key, kind)
  if kind == 'queue' then
    if redis.call('EXISTS', key) == 0 then return -1 end
    return redis.call('LLEN', key)
  end
  local f = redis.call('HMGET', key, 'next', 'last', 'pending_first', 'pending_last')
  if not f[1] then return -1 end
  local n = tonumber(f[2]) - tonumber(f[1]) + 1
  if n < 0 then n = 0 end
  if f[3] then n = n + tonumber(f[4]) - tonumber(f[3]) + 1 end
  return n
end
"#;

/// KEYS: lock, stock. ARGV: token, ttl ms, kind. Returns {taken, stock}.
const LUA_LOCK: &str = r#"
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, stock_of(KEYS[2], ARGV[3])}
end
return {0, 0}
"#;

/// KEYS: lock, stock. ARGV: token, first, last, kind, then (queue) the index strings.
/// Returns the new stock, -1 if the lock is not ours, -2 if a range is full.
const LUA_PUSH: &str = r#"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if ARGV[4] == 'queue' then
  for i = 5, #ARGV, 1000 do
    redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
  end
  return redis.call('LLEN', KEYS[2])
end
local f = redis.call('HMGET', KEYS[2], 'next', 'last', 'pending_first', 'pending_last')
local current_empty = (not f[1]) or tonumber(f[1]) > tonumber(f[2])
if current_empty and not f[3] then
  redis.call('HSET', KEYS[2], 'next', ARGV[2], 'last', ARGV[3])
elseif current_empty then
  redis.call('HSET', KEYS[2], 'next', f[3], 'last', f[4], 'pending_first', ARGV[2], 'pending_last', ARGV[3])
elseif not f[3] then
  redis.call('HSET', KEYS[2], 'pending_first', ARGV[2], 'pending_last', ARGV[3])
else
  return -2
end
return stock_of(KEYS[2], 'range')
"#;

/// KEYS: range hash. ARGV: n. Returns a flat list of first/last pairs taken.
const LUA_RANGE_TAKE: &str = r#"
local want = tonumber(ARGV[1])
local f = redis.call('HMGET', KEYS[1], 'next', 'last', 'pending_first', 'pending_last')
local out = {}
if not f[1] then return out end
local nxt, last = tonumber(f[1]), tonumber(f[2])
local promoted = false
while want > 0 do
  if nxt > last then
    if f[3] and not promoted then
      nxt, last = tonumber(f[3]), tonumber(f[4])
      promoted = true
    else
      break
    end
  end
  local n = math.min(want, last - nxt + 1)
  out[#out + 1] = string.format('%.0f', nxt)
  out[#out + 1] = string.format('%.0f', nxt + n - 1)
  nxt = nxt + n
  want = want - n
end
if promoted then
  redis.call('HDEL', KEYS[1], 'pending_first', 'pending_last')
  redis.call('HSET', KEYS[1], 'last', string.format('%.0f', last))
end
redis.call('HSET', KEYS[1], 'next', string.format('%.0f', nxt))
return out
"#;

/// KEYS: lock. ARGV: token. Deletes the lock only if it is ours.
const LUA_UNLOCK: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"#;

/// KEYS: lock, stock. ARGV: token, kind. Deletes the stock only under our lock.
const LUA_RETIRE: &str = r#"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local n = stock_of(KEYS[2], ARGV[2])
if n < 0 then n = 0 end
redis.call('DEL', KEYS[2])
return n
"#;

struct Scripts {
    lock: Script,
    push: Script,
    range_take: Script,
    unlock: Script,
    retire: Script,
}

impl Scripts {
    fn new() -> Self {
        let with_stock = |body: &str| Script::new(&format!("{LUA_STOCK}{body}"));
        Scripts {
            lock: with_stock(LUA_LOCK),
            push: with_stock(LUA_PUSH),
            range_take: Script::new(LUA_RANGE_TAKE),
            unlock: Script::new(LUA_UNLOCK),
            retire: with_stock(LUA_RETIRE),
        }
    }
}

/// One connected Redis node.
pub struct RedisNode {
    name: String,
    url: SecretUrl,
    conn: MultiplexedConnection,
    timeout: Duration,
    scripts: Scripts,
}

impl RedisNode {
    /// Connects, failing within `timeout` if the server does not answer.
    pub async fn connect(name: &str, url: &SecretUrl, timeout: Duration) -> Result<Self> {
        let client = redis::Client::open(url.expose()).map_err(|e| {
            Error::invalid(
                "Redis URL",
                format!("{url}: {}", url.scrub(&e.to_string())),
                "write it as redis://[:password@]host[:port][/db]",
            )
        })?;
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout));
        let connecting = client.get_multiplexed_async_connection_with_config(&config);
        let conn = match tokio::time::timeout(timeout, connecting).await {
            Ok(Ok(conn)) => conn,
            Ok(Err(e)) if e.is_timeout() => {
                return Err(Error::Timeout {
                    backend: "Redis",
                    url: url.to_string(),
                    after: timeout,
                });
            }
            Ok(Err(e)) => return Err(connect_error(url, &e)),
            Err(_) => {
                return Err(Error::Timeout {
                    backend: "Redis",
                    url: url.to_string(),
                    after: timeout,
                });
            }
        };
        Ok(RedisNode {
            name: name.to_string(),
            url: url.clone(),
            conn,
            timeout,
            scripts: Scripts::new(),
        })
    }

    /// A clone of the node's connection, for the lease store and tests.
    pub fn connection(&self) -> MultiplexedConnection {
        self.conn.clone()
    }

    /// Runs one Redis exchange with the node's time bound and error mapping.
    async fn run<T>(&self, exchange: impl Future<Output = redis::RedisResult<T>>) -> Result<T> {
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(self.error(&e)),
            Err(_) => Err(Error::Timeout {
                backend: "Redis",
                url: self.url.to_string(),
                after: self.timeout,
            }),
        }
    }

    /// Like [`Self::run`], but hands back Redis's own error for the caller to inspect.
    async fn run_raw<T>(
        &self,
        exchange: impl Future<Output = redis::RedisResult<T>>,
    ) -> Result<redis::RedisResult<T>> {
        tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| Error::Timeout {
                backend: "Redis",
                url: self.url.to_string(),
                after: self.timeout,
            })
    }

    fn error(&self, e: &redis::RedisError) -> Error {
        if e.is_timeout() {
            return Error::Timeout {
                backend: "Redis",
                url: self.url.to_string(),
                after: self.timeout,
            };
        }
        if e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal() {
            return connect_error(&self.url, e);
        }
        if let Some(denied) = access_error(&self.url, e) {
            return denied;
        }
        match server_failure(&self.url, e) {
            // The failing command's key is not known here: name the keys it can be.
            Some((code, message)) if code == "WRONGTYPE" => Error::BadData {
                backend: "Redis",
                key: format!("one of node {:?}'s id.gen.* keys", self.name),
                detail: message,
            },
            Some((_, message)) => Error::Backend {
                backend: "Redis",
                url: self.url.to_string(),
                detail: message,
            },
            None => Error::Backend {
                backend: "Redis",
                url: self.url.to_string(),
                detail: self.url.describe_error(e),
            },
        }
    }

    /// Every key matching `pattern`, by SCAN (never KEYS, which blocks the server).
    async fn scan(&self, pattern: &str) -> Result<Vec<String>> {
        let mut conn = self.conn.clone();
        let mut cursor: u64 = 0;
        let mut found = Vec::new();
        loop {
            let (next, keys): (u64, Vec<String>) = self
                .run(
                    redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg(pattern)
                        .arg("COUNT")
                        .arg(1000)
                        .query_async(&mut conn),
                )
                .await?;
            found.extend(keys);
            if next == 0 {
                return Ok(found);
            }
            cursor = next;
        }
    }

    async fn invoke<T: redis::FromRedisValue>(
        &self,
        script: &Script,
        keys: &[&str],
        args: &[String],
    ) -> Result<T> {
        let mut invocation = script.prepare_invoke();
        for key in keys {
            invocation.key(*key);
        }
        for arg in args {
            invocation.arg(arg.as_str());
        }
        let mut conn = self.conn.clone();
        self.run(invocation.invoke_async(&mut conn)).await
    }
}

fn connect_error(url: &SecretUrl, e: &redis::RedisError) -> Error {
    access_error(url, e).unwrap_or_else(|| Error::Unreachable {
        backend: "Redis",
        url: url.to_string(),
        detail: url.describe_error(e),
    })
}

/// A refused AUTH (at connect: NOAUTH, WRONGPASS) or a command the ACL denies
/// (NOPERM, whose message names the command).
fn access_error(url: &SecretUrl, e: &redis::RedisError) -> Option<Error> {
    let failure = server_failure(url, e);
    let denied = e.kind() == redis::ErrorKind::AuthenticationFailed
        || failure
            .as_ref()
            .is_some_and(|(code, _)| matches!(code.as_str(), "NOAUTH" | "WRONGPASS" | "NOPERM"));
    denied.then(|| Error::AccessDenied {
        backend: "Redis",
        url: url.to_string(),
        detail: failure.map_or_else(|| url.describe_error(e), |(_, message)| message),
    })
}

/// The server's own error code and scrubbed message, also from a pipeline or a
/// script (the first failure, the others counted, not repeated).
fn server_failure(url: &SecretUrl, e: &redis::RedisError) -> Option<(String, String)> {
    let errors = e.clone().into_server_errors()?;
    let (_, first) = errors.first()?;
    let mut message = format!("{} {}", first.code(), first.details().unwrap_or_default());
    if errors.len() > 1 {
        message.push_str(&format!(" (and {} more commands alike)", errors.len() - 1));
    }
    // A script's error carries the code inside its message.
    let code = ["WRONGTYPE", "NOPERM", "NOAUTH", "WRONGPASS"]
        .into_iter()
        .find(|code| message.contains(code))
        .unwrap_or(first.code())
        .to_string();
    Some((code, url.scrub(message.trim())))
}

fn parse_index(entry: &[u8]) -> Option<u64> {
    // Java's NumberUtils.isDigits: ASCII digits only.
    if entry.is_empty() || !entry.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(entry).ok()?.parse().ok()
}

fn bytes_of(value: &Value) -> Option<&[u8]> {
    match value {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
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

    async fn take(&self, kind: DispenserKind, slot: Slot, n: u64) -> Result<Taken> {
        let mut taken = Taken::default();
        if n == 0 {
            return Ok(taken);
        }
        let route = route_key(slot.app);
        let mut conn = self.conn.clone();
        match kind {
            DispenserKind::Queue => {
                // One round trip: the pop and the route hint together.
                let (popped, hint): (Value, Option<String>) = self
                    .run(
                        redis::pipe()
                            .cmd("LPOP")
                            .arg(queue_key(slot))
                            .arg(n)
                            .cmd("GET")
                            .arg(&route)
                            .query_async(&mut conn),
                    )
                    .await?;
                taken.route_hint = hint;
                if let Value::Array(entries) = popped {
                    taken.indexes.reserve(entries.len());
                    for entry in &entries {
                        match bytes_of(entry).and_then(parse_index) {
                            Some(index) => taken.indexes.push(index),
                            None => taken.rejected += 1,
                        }
                    }
                }
            }
            DispenserKind::Range => {
                let key = range_key(slot);
                let count = n.to_string();
                let mut pipe = redis::pipe();
                pipe.cmd("EVALSHA")
                    .arg(self.scripts.range_take.get_hash())
                    .arg(1)
                    .arg(&key)
                    .arg(&count)
                    .cmd("GET")
                    .arg(&route);
                let first: redis::RedisResult<(Vec<String>, Option<String>)> =
                    self.run_raw(pipe.query_async(&mut conn)).await?;
                let (pairs, hint) = match first {
                    Ok(answer) => answer,
                    Err(e)
                        if e.kind()
                            == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript) =>
                    {
                        // A new or restarted server without the script: nothing was taken.
                        let load = self.scripts.range_take.prepare_invoke();
                        self.run(load.load_async(&mut conn)).await?;
                        self.run(pipe.query_async(&mut conn)).await?
                    }
                    Err(e) => return Err(self.error(&e)),
                };
                taken.route_hint = hint;
                for pair in pairs.chunks(2) {
                    let (Some(first), Some(last)) = (
                        pair.first().and_then(|s| s.parse::<u64>().ok()),
                        pair.get(1).and_then(|s| s.parse::<u64>().ok()),
                    ) else {
                        taken.rejected += 1;
                        continue;
                    };
                    taken.indexes.extend(first..=last);
                }
            }
        }
        Ok(taken)
    }

    async fn stock(&self, kind: DispenserKind, slots: &[Slot]) -> Result<Vec<Option<u64>>> {
        if slots.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for &slot in slots {
            match kind {
                DispenserKind::Queue => pipe.cmd("LLEN").arg(queue_key(slot)),
                DispenserKind::Range => pipe.cmd("HMGET").arg(range_key(slot)).arg(&[
                    "next",
                    "last",
                    "pending_first",
                    "pending_last",
                ]),
            };
        }
        let mut conn = self.conn.clone();
        let answers: Vec<Value> = self.run(pipe.query_async(&mut conn)).await?;
        Ok(answers
            .iter()
            .map(|answer| match (kind, answer) {
                (DispenserKind::Queue, Value::Int(n)) => Some((*n).max(0) as u64),
                (DispenserKind::Range, Value::Array(fields)) => range_stock(fields),
                _ => None,
            })
            .collect())
    }

    async fn lock(&self, kind: DispenserKind, slot: Slot, ttl: Duration) -> Result<Option<Locked>> {
        let token = LockToken::random();
        let (taken, stock): (i64, i64) = self
            .invoke(
                &self.scripts.lock,
                &[&lock_key(slot), &stock_key(kind, slot)],
                &[
                    token.0.clone(),
                    ttl.as_millis().max(1).to_string(),
                    kind.as_str().to_string(),
                ],
            )
            .await?;
        Ok((taken == 1).then(|| Locked {
            token,
            stock: u64::try_from(stock).ok(),
        }))
    }

    async fn push(
        &self,
        kind: DispenserKind,
        slot: Slot,
        segment: Segment,
        token: &LockToken,
    ) -> Result<PushOutcome> {
        crate::failpoint::hit("dispenser.before_push")?;
        let mut args = vec![
            token.0.clone(),
            segment.first.to_string(),
            segment.last.to_string(),
            kind.as_str().to_string(),
        ];
        if kind == DispenserKind::Queue {
            // The strings are built here: formatting them in Lua is several times slower.
            args.extend(segment.indexes().map(|i| i.to_string()));
        }
        let answer: i64 = self
            .invoke(
                &self.scripts.push,
                &[&lock_key(slot), &stock_key(kind, slot)],
                &args,
            )
            .await?;
        Ok(match answer {
            -1 => PushOutcome::LockLost,
            -2 => PushOutcome::Full,
            n => PushOutcome::Stocked(n.max(0) as u64),
        })
    }

    async fn unlock(&self, slot: Slot, token: &LockToken) -> Result<bool> {
        let deleted: i64 = self
            .invoke(
                &self.scripts.unlock,
                &[&lock_key(slot)],
                std::slice::from_ref(&token.0),
            )
            .await?;
        Ok(deleted == 1)
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
                &[&lock_key(slot), &stock_key(kind, slot)],
                &[token.0.clone(), kind.as_str().to_string()],
            )
            .await?;
        Ok(u64::try_from(dropped).ok())
    }

    async fn stocked_slots(&self, kind: DispenserKind) -> Result<Vec<Slot>> {
        let prefix = match kind {
            DispenserKind::Queue => "id.gen.idList_",
            DispenserKind::Range => "id.gen.range_",
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

    async fn set_route_hint(&self, app: u8, node: Option<&str>) -> Result<()> {
        let mut conn = self.conn.clone();
        let key = route_key(app);
        match node {
            Some(node) => {
                self.run(
                    redis::cmd("SET")
                        .arg(&key)
                        .arg(node)
                        .query_async::<()>(&mut conn),
                )
                .await
            }
            None => {
                self.run(redis::cmd("DEL").arg(&key).query_async::<()>(&mut conn))
                    .await
            }
        }
    }

    async fn route_hints(&self) -> Result<BTreeMap<u8, String>> {
        let mut conn = self.conn.clone();
        let keys = self.scan("id.gen.route_*").await?;
        let apps: Vec<u8> = keys
            .iter()
            .filter_map(|k| k.strip_prefix("id.gen.route_")?.parse().ok())
            .collect();
        if apps.is_empty() {
            return Ok(BTreeMap::new());
        }
        let mut pipe = redis::pipe();
        for app in &apps {
            pipe.cmd("GET").arg(route_key(*app));
        }
        let nodes: Vec<Option<String>> = self.run(pipe.query_async(&mut conn)).await?;
        Ok(apps
            .into_iter()
            .zip(nodes)
            .filter_map(|(app, node)| Some((app, node?)))
            .collect())
    }

    async fn server_version(&self) -> Result<String> {
        let mut conn = self.conn.clone();
        let info: String = self
            .run(redis::cmd("INFO").arg("server").query_async(&mut conn))
            .await?;
        Ok(info
            .lines()
            .find_map(|l| l.strip_prefix("redis_version:"))
            .unwrap_or("unknown")
            .trim()
            .to_string())
    }
}

/// Parses `{app}_{shard}`; anything else (such as the Java service's bare
/// `id.gen.idList_` lock key) is not a slot.
fn parse_slot(rest: &str) -> Option<Slot> {
    let (app, shard) = rest.split_once('_')?;
    let slot = Slot {
        app: app.parse().ok()?,
        shard: shard.parse().ok()?,
    };
    (slot.shard < crate::segment::SHARDS).then_some(slot)
}

fn range_stock(fields: &[Value]) -> Option<u64> {
    let num = |i: usize| -> Option<i128> {
        let bytes = fields.get(i).and_then(bytes_of)?;
        std::str::from_utf8(bytes).ok()?.parse().ok()
    };
    let (next, last) = (num(0)?, num(1)?);
    let mut stock = (last - next + 1).max(0);
    if let (Some(first), Some(last)) = (num(2), num(3)) {
        stock += (last - first + 1).max(0);
    }
    u64::try_from(stock).ok()
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
    }

    #[test]
    fn only_decimal_digits_are_indexes() {
        assert_eq!(parse_index(b"123"), Some(123));
        assert_eq!(parse_index(b"-1"), None);
        assert_eq!(parse_index(b"1e3"), None);
        assert_eq!(parse_index(b""), None);
    }
}
