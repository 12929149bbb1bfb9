//! What a driver answer means: a broken link (dropped, to be made again), a
//! server that is not the master, a refused ACL or AUTH, a key of the wrong
//! type, and every other server failure, each as an [`Error`] naming the node.

use super::RedisNode;
use super::acl;
use super::connect;
use super::connection::Conn;
use super::reply::{info_field, master_of};
use crate::error::{Error, Result};
use crate::redact::SecretUrl;
use redis::Value;

impl RedisNode {
    /// Drops the connection when it broke, or when its server turned replica
    /// (a failover demoted it): the next request connects afresh.
    pub(super) fn forget_if_broken(&self, e: &redis::RedisError) {
        if e.is_io_error()
            || e.is_connection_dropped()
            || e.is_connection_refusal()
            || is_readonly(e)
        {
            self.forget_link();
        }
    }

    /// The error of a server that is not the master, naming this node.
    pub(super) fn not_master(&self, role: &str, master: Option<String>) -> Error {
        Error::NotMaster {
            backend: "Redis",
            node: self.name.clone(),
            url: self.url.to_string(),
            role: role.to_string(),
            master,
        }
    }

    /// Refuses a server whose `INFO replication` answer says it is not the
    /// master, and drops the connection to it: the next request connects
    /// afresh (and, through Sentinel, finds the new master).
    pub(super) async fn refuse_unless_master(&self, replication: &str) -> Result<()> {
        let role = info_field(replication, "role");
        if role == "master" {
            return Ok(());
        }
        self.forget_link();
        Err(self.not_master(&role, master_of(replication)))
    }

    /// A script's refusal of a server that is not the master does not say
    /// which master that is: asked once more on the same connection, only
    /// then, so that the error names it.
    pub(super) async fn naming_master<T>(&self, conn: &Conn, result: Result<T>) -> Result<T> {
        let Err(Error::NotMaster {
            role, master: None, ..
        }) = &result
        else {
            return result;
        };
        let mut conn = conn.clone();
        let mut ask = redis::cmd("INFO");
        ask.arg("replication");
        match tokio::time::timeout(self.timeout, ask.query_async::<String>(&mut conn)).await {
            Ok(Ok(info)) if master_of(&info).is_some() => {
                Err(self.not_master(role, master_of(&info)))
            }
            _ => result,
        }
    }

    pub(super) fn error(&self, e: &redis::RedisError) -> Error {
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
        if is_readonly(e) {
            // A read-only replica's own answer, or a script's refusal on any
            // replica (`lua/shared/master.lua`): `... (role:slave)`.
            let message = e.to_string();
            let role = message
                .split("(role:")
                .nth(1)
                .and_then(|rest| rest.split(')').next())
                .unwrap_or("slave");
            return self.not_master(role, None);
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

    /// Fails with the first server error among a pipeline's `answers`, as
    /// an error about `key` (the link dropped if the error says it broke).
    pub(super) async fn answered<'a>(
        &self,
        answers: impl IntoIterator<Item = &'a Value>,
        key: &str,
    ) -> Result<()> {
        let failed = answers.into_iter().find_map(|answer| match answer {
            Value::ServerError(e) => Some(redis::RedisError::from(e.clone())),
            _ => None,
        });
        match failed {
            Some(e) => {
                self.forget_if_broken(&e);
                Err(self.script_error(&e, key))
            }
            None => Ok(()),
        }
    }

    /// A script error about a key of the wrong type names the key.
    pub(super) fn script_error(&self, e: &redis::RedisError, key: &str) -> Error {
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

/// A write refused because the server is a replica (a master was demoted, or
/// a replica is reached directly), or any of idgen's scripts refusing a server
/// that is not the master: their errors share the READONLY code.
pub(super) fn is_readonly(e: &redis::RedisError) -> bool {
    e.code() == Some("READONLY") || e.to_string().contains("READONLY")
}

pub(super) fn connect_error(url: &SecretUrl, e: &redis::RedisError) -> Error {
    if let Some(tls) = connect::tls_failure(url, e) {
        return tls;
    }
    access_error(url, e).unwrap_or_else(|| Error::Unreachable {
        backend: "Redis",
        url: url.to_string(),
        detail: url.describe_error(e),
    })
}

/// A refused AUTH (at connect: NOAUTH, WRONGPASS) or a command the ACL denies
/// (NOPERM, or a script's refused command), naming the command.
pub(super) fn access_error(url: &SecretUrl, e: &redis::RedisError) -> Option<Error> {
    let failure = server_failure(url, e);
    let refused = failure
        .as_ref()
        .filter(|(code, message)| code == "NOPERM" || acl::is_refusal(message));
    if let Some((_, message)) = refused {
        let what = match acl::refused_command(message) {
            Some(command) => format!("run the command {command}"),
            None if message.contains("key") => "use one of idgen's keys".to_string(),
            None => "run a command idgen needs".to_string(),
        };
        return Some(Error::AccessDenied {
            backend: "Redis",
            url: url.to_string(),
            detail: format!("the ACL user may not {what} ({message})"),
        });
    }
    let denied = e.kind() == redis::ErrorKind::AuthenticationFailed
        || failure
            .as_ref()
            .is_some_and(|(code, _)| matches!(code.as_str(), "NOAUTH" | "WRONGPASS"));
    denied.then(|| Error::AccessDenied {
        backend: "Redis",
        url: url.to_string(),
        detail: failure.map_or_else(|| url.describe_error(e), |(_, message)| message),
    })
}

/// The server's own error code and scrubbed message, also from a pipeline or a
/// script (the first failure, the others counted, not repeated).
pub(super) fn server_failure(url: &SecretUrl, e: &redis::RedisError) -> Option<(String, String)> {
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
