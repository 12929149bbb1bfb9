//! One exchange with the node: bounded by its timeout, its errors mapped
//! (`errors`); SCAN over every master; a script's invocation.

use super::RedisNode;
use super::connection::Conn;
use crate::error::{Error, Result};
use redis::{Script, Value};
use std::future::Future;
use std::time::Duration;

/// What one call added to a pipeline, so that its answer can be picked out
/// of the pipeline's replies.
#[derive(Clone, Copy)]
pub(super) enum Added {
    /// One command, answered by its reply.
    Command,
    /// `MULTI`, `queued` commands, `EXEC`: answered by the first command
    /// refused while queued (a replica's READONLY: the server then discarded
    /// the whole transaction), else by the first that failed inside `EXEC`'s
    /// reply (what failed first explains what follows), else by the last
    /// command's reply there. Sent again whole after a NOSCRIPT, so it must
    /// start from the state it leaves behind.
    Transaction { queued: usize },
    /// `EVALSHA`, then `WAIT`: answered by the script's reply when it failed
    /// (a NOSCRIPT among them, so the pair is sent again whole), else by
    /// both replies, as a two-element array.
    Acknowledged,
}

impl Added {
    fn replies(self) -> usize {
        match self {
            Added::Command => 1,
            Added::Transaction { queued } => queued + 2,
            Added::Acknowledged => 2,
        }
    }

    /// This call's answer from its own replies, in order.
    fn answer(self, mut replies: Vec<Value>) -> Value {
        if let Added::Acknowledged = self {
            return match replies.first() {
                Some(Value::ServerError(_)) => replies.swap_remove(0),
                _ => Value::Array(replies),
            };
        }
        let last = replies.pop().unwrap_or(Value::Nil);
        if let Added::Command = self {
            return last;
        }
        if let Some(refused) = replies
            .into_iter()
            .find(|reply| matches!(reply, Value::ServerError(_)))
        {
            return refused;
        }
        match last {
            Value::Array(mut inside) => {
                match inside
                    .iter()
                    .position(|reply| matches!(reply, Value::ServerError(_)))
                {
                    Some(failed) => inside.swap_remove(failed),
                    None => inside.pop().unwrap_or(Value::Nil),
                }
            }
            other => other,
        }
    }
}

impl RedisNode {
    /// Runs one Redis exchange with the node's time bound and error mapping.
    pub(super) async fn bounded<T>(
        &self,
        exchange: impl Future<Output = redis::RedisResult<T>>,
    ) -> Result<T> {
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => {
                self.forget_if_broken(&e);
                Err(self.error(&e))
            }
            Err(_) => Err(Error::Timeout {
                backend: "Redis",
                url: self.url.to_string(),
                after: self.timeout,
            }),
        }
    }

    /// Sends `count` commands in one pipeline, `command` adding the `i`th,
    /// and hands back each one's answer in order, a server's error included.
    /// The EVALSHAs of `script` the server answered NOSCRIPT (a new or
    /// restarted server, `SCRIPT FLUSH`) did nothing: the script is loaded
    /// and those alone are sent again, so no other command runs twice.
    /// `command` adds call `i` to the pipeline and says what it added.
    pub(super) async fn pipeline_loading(
        &self,
        conn: &mut Conn,
        script: &Script,
        count: usize,
        command: impl Fn(&mut redis::Pipeline, usize) -> Added,
    ) -> Result<Vec<Value>> {
        let mut answers: Vec<Option<Value>> = vec![None; count];
        let mut pending: Vec<usize> = (0..count).collect();
        for attempt in 0..2 {
            if pending.is_empty() {
                break;
            }
            let mut pipe = redis::pipe();
            pipe.ignore_errors();
            let added: Vec<Added> = pending.iter().map(|&i| command(&mut pipe, i)).collect();
            let values: Vec<Value> = self.bounded(pipe.query_async(conn)).await?;
            let mut values = values.into_iter();
            let mut missing = Vec::new();
            for (&i, &added) in pending.iter().zip(&added) {
                let replies: Vec<Value> = values.by_ref().take(added.replies()).collect();
                match added.answer(replies) {
                    Value::ServerError(e)
                        if attempt == 0 && e.kind() == Some(redis::ServerErrorKind::NoScript) =>
                    {
                        missing.push(i)
                    }
                    value => answers[i] = Some(value),
                }
            }
            if !missing.is_empty() {
                self.bounded(script.load_async(conn)).await?;
            }
            pending = missing;
        }
        answers
            .into_iter()
            .map(|answer| {
                answer.ok_or_else(|| {
                    Error::Internal("a Redis pipeline left a command unanswered".into())
                })
            })
            .collect()
    }

    /// Every key matching `pattern`, by SCAN (never KEYS, which blocks the
    /// server); in a cluster, on every master.
    pub(super) async fn scan(&self, pattern: &str) -> Result<Vec<String>> {
        match self.conn().await? {
            Conn::Cluster(mut cluster) => {
                let masters = self.cluster_masters(&mut cluster).await?;
                let scans = masters.into_iter().map(|master| {
                    self.scan_one(Conn::Cluster(cluster.clone()), pattern, Some(master))
                });
                let found = futures::future::try_join_all(scans).await?;
                let mut found: Vec<String> = found.into_iter().flatten().collect();
                found.sort();
                found.dedup();
                Ok(found)
            }
            conn => self.scan_one(conn, pattern, None).await,
        }
    }

    /// SCAN on one server: the connection's, or the cluster master at `master`.
    pub(super) async fn scan_one(
        &self,
        mut conn: Conn,
        pattern: &str,
        master: Option<(String, u16)>,
    ) -> Result<Vec<String>> {
        let mut cursor: u64 = 0;
        let mut found = Vec::new();
        loop {
            let mut scan = redis::cmd("SCAN");
            scan.arg(cursor)
                .arg("MATCH")
                .arg(pattern)
                .arg("COUNT")
                .arg(1000);
            let (next, keys): (u64, Vec<String>) = match (&mut conn, &master) {
                (Conn::Cluster(cluster), Some((host, port))) => {
                    let at = redis::cluster_routing::RoutingInfo::SingleNode(
                        redis::cluster_routing::SingleNodeRoutingInfo::ByAddress {
                            host: host.clone(),
                            port: *port,
                        },
                    );
                    let answer = self.bounded(cluster.route_command(scan, at)).await?;
                    redis::from_redis_value(answer).map_err(|e| Error::Backend {
                        backend: "Redis",
                        url: self.url.to_string(),
                        detail: format!("unexpected SCAN answer: {e}"),
                    })?
                }
                _ => self.bounded(scan.query_async(&mut conn)).await?,
            };
            found.extend(keys);
            if next == 0 {
                return Ok(found);
            }
            cursor = next;
        }
    }

    pub(super) async fn invoke<T: redis::FromRedisValue>(
        &self,
        script: &Script,
        keys: &[&str],
        args: &[String],
    ) -> Result<T> {
        let mut conn = self.conn().await?;
        self.invoke_on(&mut conn, script, keys, args).await
    }

    /// [`Self::invoke`] on `conn`: a script whose arguments describe the
    /// server at the end of that connection (its `run_id`) must run there,
    /// not on whatever connection the node holds by the time it is sent.
    pub(super) async fn invoke_on<T: redis::FromRedisValue>(
        &self,
        conn: &mut Conn,
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
        self.bounded(invocation.invoke_async(conn)).await
    }
}

impl RedisNode {
    /// Runs `script`, then `WAIT replicas wait` on the same connection, in
    /// one round trip: the script's answer, and how many replicas
    /// acknowledged everything written on that connection so far (`None`
    /// when `replicas` is 0: no `WAIT` is sent). One connection, because
    /// `WAIT` counts the writes of its own client only: on a connection
    /// made anew it would count nothing and answer at once. `wait` is held
    /// within half the node's timeout, so the exchange's bound never cuts
    /// the `WAIT` short. A NOSCRIPT sends the pair again whole
    /// ([`Self::pipeline_loading`]).
    pub(super) async fn invoke_acknowledged(
        &self,
        script: &Script,
        keys: &[&str],
        args: &[String],
        replicas: u64,
        wait: Duration,
    ) -> Result<(Value, Option<u64>)> {
        let wait = wait.min(self.timeout / 2).as_millis().max(1) as u64;
        let mut conn = self.conn().await?;
        let mut answers = self
            .pipeline_loading(&mut conn, script, 1, |pipe, _| {
                pipe.cmd("EVALSHA")
                    .arg(script.get_hash())
                    .arg(keys.len())
                    .arg(keys)
                    .arg(args);
                if replicas == 0 {
                    return Added::Command;
                }
                pipe.cmd("WAIT").arg(replicas).arg(wait);
                Added::Acknowledged
            })
            .await?;
        let answer = answers.pop().unwrap_or(Value::Nil);
        let key = keys.first().copied().unwrap_or_default();
        self.answered([&answer], key).await?;
        if replicas == 0 {
            return Ok((answer, None));
        }
        let Value::Array(pair) = answer else {
            return Err(Error::Internal(format!(
                "unexpected script and WAIT answer {answer:?}"
            )));
        };
        let mut pair = pair.into_iter();
        let answer = pair.next().unwrap_or(Value::Nil);
        match pair.next() {
            Some(Value::Int(n)) => Ok((answer, Some(u64::try_from(n).unwrap_or(0)))),
            other => {
                let other = other.unwrap_or(Value::Nil);
                self.answered([&other], key).await?;
                Err(Error::Internal(format!("unexpected WAIT answer {other:?}")))
            }
        }
    }
}
