//! Resolved settings, and the small value parsers they share.
//!
//! The binary layers flags, environment and the config file ([`file`](mod@file)); the core
//! only ever sees the result, a [`Settings`].

pub mod file;
pub mod paths;

use crate::error::{Error, Result};
use crate::redact::SecretUrl;
use crate::shard::DispenserKind;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// The name of the Redis node that serves every app without a route.
pub const DEFAULT_NODE: &str = "main";

/// Everything a command may need, after precedence has been applied.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Redis nodes by name; [`DEFAULT_NODE`] serves apps that have no route.
    pub redis_nodes: BTreeMap<String, SecretUrl>,
    /// Certificate files for `rediss://` nodes (every node uses the same).
    pub redis_tls: TlsFiles,
    /// The MySQL/MariaDB database holding `id_alloc`.
    pub mysql: Option<SecretUrl>,
    /// Certificate files for a MySQL URL with `require_ssl=true`.
    pub mysql_tls: TlsFiles,
    /// The embedded store's file, when neither server is configured.
    pub store: Option<PathBuf>,
    /// Whether a command that creates the store also creates its directory:
    /// for the default path and a config file's `store` (written down once,
    /// on purpose), not for `--store`/`IDGEN_STORE`, where a missing directory
    /// is more likely a typo than a wish.
    pub create_store_dir: bool,
    /// Whether the embedded store may run its calls on the calling thread
    /// when that thread drives a current-thread runtime, instead of handing
    /// each to a blocking thread (a thread start and two hand-offs: a quarter
    /// of a warm `next`). For a one-shot command, whose runtime has nothing
    /// else to do while a call runs; off by default, so a service sharing a
    /// current-thread runtime keeps it free.
    pub sqlite_in_place: bool,
    /// Bound on connecting to and waiting for a server.
    pub timeout: Duration,
    /// Refill a shard when its stock is at or below `idle * step`.
    pub idle: f64,
    /// The dispenser `init-app` records for a new app, and the one `next`
    /// tries first; each app's recorded dispenser decides what is served.
    pub dispenser: DispenserKind,
    /// Default layout name for `decode` and `lease`.
    pub layout: Option<String>,
    /// Default epoch for that layout.
    pub epoch: Option<String>,
    /// Default lease TTL.
    pub lease_ttl: Duration,
    /// The config file these settings were read from, if any (shown by `status`).
    pub config_file: Option<PathBuf>,
    /// Where each setting not left at its default came from, by its config-file
    /// key (`mysql`, `redis.nodes.main`, `segments.idle`): `--flag`, `IDGEN_VAR`
    /// or `PATH:LINE`; shown by `idgen config`.
    pub sources: BTreeMap<String, String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            redis_nodes: BTreeMap::new(),
            redis_tls: TlsFiles::default(),
            mysql: None,
            mysql_tls: TlsFiles::default(),
            store: None,
            create_store_dir: false,
            sqlite_in_place: false,
            timeout: Duration::from_secs(5),
            idle: 0.2,
            dispenser: DispenserKind::Queue,
            layout: None,
            epoch: None,
            lease_ttl: Duration::from_secs(30),
            config_file: None,
            sources: BTreeMap::new(),
        }
    }
}

impl Settings {
    /// Where the setting `key` (a config-file key: `mysql`, `store`,
    /// `redis.nodes.NAME`) came from, for messages: `--flag`, `IDGEN_VAR`, or
    /// `PATH:LINE key KEY`.
    pub fn origin(&self, key: &str) -> String {
        match self.sources.get(key) {
            Some(source) if self.is_file_source(source) => format!("{source} key {key}"),
            Some(source) => source.clone(),
            None => "the defaults".to_string(),
        }
    }

    fn is_file_source(&self, source: &str) -> bool {
        self.config_file
            .as_ref()
            .is_some_and(|path| source.starts_with(&format!("{}:", path.display())))
    }
}

/// PEM files for a TLS connection to one kind of server. Without `ca` the
/// server is verified against the system's roots; `cert` and `key` together are
/// the client certificate for mutual TLS. The paths are read when a client is
/// built, so a renewed certificate is picked up by the next connection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsFiles {
    pub ca: Option<PathBuf>,
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
}

impl TlsFiles {
    /// Is any file set?
    pub fn is_set(&self) -> bool {
        self.ca.is_some() || self.cert.is_some() || self.key.is_some()
    }
}

/// Names where a bad value came from (`--timeout`, `IDGEN_MYSQL_URL`, a config
/// file's key) in the message about it.
pub fn blame(error: Error, origin: &str) -> Error {
    match error {
        Error::Invalid {
            what,
            problem,
            hint,
        } => Error::Invalid {
            what,
            problem: format!("{problem} (from {origin})"),
            hint,
        },
        other => other,
    }
}

/// Parses `250ms`, `5s`, `2m`, `1h` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration> {
    let bad = || {
        Error::invalid(
            "duration",
            format!("{text:?} is not a duration"),
            "write a number with a unit: 500ms, 5s, 2m or 1h",
        )
    };
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().map_err(|_| bad())?;
    let seconds = match unit.trim() {
        "ms" => value / 1000.0,
        "" | "s" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(bad()),
    };
    if !seconds.is_finite() || !(0.0..=1e9).contains(&seconds) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Checks a timeout, wherever it was given: zero would fail every request.
pub fn check_timeout(timeout: Duration) -> Result<Duration> {
    if timeout.is_zero() {
        return Err(Error::invalid(
            "timeout",
            "a zero timeout fails every request",
            "use a positive duration, e.g. 5s",
        ));
    }
    Ok(timeout)
}

/// Checks an idle ratio: refill when stock ≤ idle × step.
pub fn parse_idle(text: &str) -> Result<f64> {
    let value: f64 = text.trim().parse().map_err(|_| {
        Error::invalid(
            "idle ratio",
            format!("{text:?} is not a number"),
            "use a fraction between 0 and 1, e.g. --idle 0.2",
        )
    })?;
    check_idle(value)
}

/// Checks that an idle ratio lies in `0..=1`.
pub fn check_idle(value: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(Error::invalid(
            "idle ratio",
            format!("{value} is not between 0 and 1"),
            "use a fraction between 0 and 1, e.g. --idle 0.2",
        ))
    }
}

/// Shortest and longest lease TTL: renewal runs every third of it, and a holder
/// that died keeps its worker ID that long.
pub const LEASE_TTL_RANGE: std::ops::RangeInclusive<Duration> =
    Duration::from_millis(300)..=Duration::from_secs(3600);

/// Checks that a lease TTL lies in [`LEASE_TTL_RANGE`].
pub fn check_lease_ttl(ttl: Duration) -> Result<Duration> {
    if LEASE_TTL_RANGE.contains(&ttl) {
        Ok(ttl)
    } else {
        Err(Error::invalid(
            "lease TTL",
            format!(
                "{} is not between 300ms and 1h",
                crate::error::fmt_duration(ttl)
            ),
            "use a TTL between 300ms and 1h, e.g. 30s",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("5s").unwrap(), Duration::from_secs(5));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn idle_must_be_a_fraction() {
        assert_eq!(parse_idle("0.2").unwrap(), 0.2);
        assert!(parse_idle("1.5").is_err());
        assert!(parse_idle("x").is_err());
    }
}
