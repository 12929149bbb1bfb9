//! The TOML configuration file.
//!
//! Found at `--config PATH` / `IDGEN_CONFIG`, else `$XDG_CONFIG_HOME/idgen/config.toml`
//! (`~/.config/idgen/config.toml` without XDG). Every key is optional; flags and
//! environment variables override the file, and the file overrides built-in defaults.
//!
//! ```toml
//! timeout = "5s"                     # connecting to and waiting for a server
//! mysql = "mysql://idgen:PASSWORD@db:3306/idgen"
//! store = "/var/lib/idgen/idgen.db"  # embedded store; relative paths start at this file
//!
//! [redis.nodes]                      # Redis nodes by name; "main" serves unrouted apps
//! main = "redis://:PASSWORD@redis-1:6379/0"
//! hot = "redis://redis-2:6379/0"
//!
//! [tls.redis]                       # PEM files for rediss:// nodes (relative: to this file)
//! ca = "/etc/idgen/redis-ca.pem"     # verify servers by this CA, not the system's roots
//! cert = "/etc/idgen/client.pem"     # mutual TLS: client certificate and its key
//! key = "/etc/idgen/client.key"
//!
//! [tls.mysql]                        # the same for a MySQL URL with require_ssl=true
//! ca = "/etc/idgen/mysql-ca.pem"
//!
//! [segments]
//! idle = 0.2                         # refill a shard at or below idle x its step
//! dispenser = "queue"                # new apps' dispenser, and next's first guess
//!
//! [snowflake]
//! layout = "snowflake"               # default for decode and lease
//! epoch = "2010-11-04T01:42:54.657Z" # Unix ms, RFC 3339 or YYYY-MM-DD
//! lease_ttl = "30s"
//! ```
//!
//! Why the checks happen here rather than when a command runs: a mistake in a file
//! that cron reads every two minutes should be reported once, precisely (file, line,
//! key), before anything connects.

mod text;
mod values;

pub use text::passwords_in;

use super::{Settings, TlsFiles, check_lease_ttl};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::redact::SecretUrl;
use crate::shard::DispenserKind;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use text::Site;
use toml::Spanned;
use values::{check_node_name, check_url, dispenser, duration, epoch, idle};

/// The keys a config file may contain, for the help text and for hints.
pub const KEYS: &[(&str, &str)] = &[
    ("timeout", "wait for a server, e.g. \"5s\""),
    ("mysql", "MySQL/MariaDB URL holding id_alloc"),
    ("store", "embedded store file (relative to the config file)"),
    (
        "[redis.nodes] NAME",
        "Redis URL of each node; \"main\" serves unrouted apps",
    ),
    (
        "[tls.redis] ca, cert, key",
        "PEM files for rediss:// nodes: CA, client certificate and key",
    ),
    (
        "[tls.mysql] ca, cert, key",
        "PEM files for MySQL with require_ssl=true",
    ),
    ("[segments] idle", "refill threshold, from 0 to 1"),
    (
        "[segments] dispenser",
        "queue or range: new apps' dispenser, and next's first guess",
    ),
    ("[snowflake] layout", "default layout for decode and lease"),
    (
        "[snowflake] epoch",
        "default epoch: Unix ms, RFC 3339 or YYYY-MM-DD",
    ),
    ("[snowflake] lease_ttl", "lease expiry, e.g. \"30s\""),
];

/// Where to look for the keys, in hints.
const SCHEMA_HINT: &str =
    "the keys idgen reads are listed in `idgen --help` and config.example.toml";

/// A config file's contents, checked. `None` means the key is absent.
#[derive(Debug, Clone, Default)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub redis_nodes: BTreeMap<String, SecretUrl>,
    pub mysql: Option<SecretUrl>,
    pub redis_tls: TlsFiles,
    pub mysql_tls: TlsFiles,
    pub store: Option<PathBuf>,
    pub timeout: Option<Duration>,
    pub idle: Option<f64>,
    pub dispenser: Option<DispenserKind>,
    pub layout: Option<String>,
    pub epoch: Option<String>,
    pub lease_ttl: Option<Duration>,
    /// The line each key was set on, by its dotted name (`segments.idle`).
    pub lines: BTreeMap<String, usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a TOML document")]
struct RawFile {
    redis: Option<RawRedis>,
    mysql: Option<Spanned<String>>,
    store: Option<Spanned<String>>,
    timeout: Option<Spanned<toml::Value>>,
    tls: Option<RawTls>,
    segments: Option<RawSegments>,
    snowflake: Option<RawSnowflake>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a [redis] table holding [redis.nodes]"
)]
struct RawRedis {
    nodes: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a [tls] table holding [tls.redis] and [tls.mysql]"
)]
struct RawTls {
    redis: Option<RawTlsFiles>,
    mysql: Option<RawTlsFiles>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table of PEM file paths: ca, cert, key"
)]
struct RawTlsFiles {
    ca: Option<Spanned<String>>,
    cert: Option<Spanned<String>>,
    key: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [segments] table")]
struct RawSegments {
    idle: Option<Spanned<toml::Value>>,
    dispenser: Option<Spanned<String>>,
    app_dispensers: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [snowflake] table")]
struct RawSnowflake {
    layout: Option<Spanned<String>>,
    epoch: Option<Spanned<toml::Value>>,
    lease_ttl: Option<Spanned<toml::Value>>,
}

impl ConfigFile {
    /// Reads and checks the file at `path`. A missing file is `Ok(None)` unless
    /// `required` (it was named explicitly).
    pub fn load(path: &Path, required: bool) -> Result<Option<ConfigFile>> {
        match std::fs::read_to_string(path) {
            Ok(text) => ConfigFile::parse(path, &text).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => Ok(None),
            Err(e) => Err(Error::ConfigFile {
                path: path.display().to_string(),
                line: None,
                key: None,
                problem: format!("cannot read it: {e}"),
                hint: if e.kind() == std::io::ErrorKind::NotFound {
                    "check the path given by --config or IDGEN_CONFIG".into()
                } else {
                    "check that it is a readable file".into()
                },
            }),
        }
    }

    /// Checks the text of a config file read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<ConfigFile> {
        let site = Site { path, text };
        let raw: RawFile = toml::from_str(text).map_err(|e| site.toml_error(&e))?;
        let mut file = ConfigFile {
            path: path.to_path_buf(),
            ..ConfigFile::default()
        };
        if let Some(nodes) = raw.redis.and_then(|r| r.nodes) {
            for (name, url) in nodes {
                let key = format!("redis.nodes.{}", name.get_ref());
                check_node_name(name.get_ref()).map_err(|(p, h)| site.at(&name, &key, p, h))?;
                let url = check_url(&url, crate::redact::NODE_SCHEMES)
                    .map_err(|(p, h)| site.at(&url, &key, p, h))?;
                file.lines.insert(key, site.line_of(name.span().start));
                file.redis_nodes.insert(name.into_inner(), url);
            }
        }
        if let Some(url) = raw.mysql {
            file.lines
                .insert("mysql".into(), site.line_of(url.span().start));
            file.mysql =
                Some(check_url(&url, &["mysql"]).map_err(|(p, h)| site.at(&url, "mysql", p, h))?);
        }
        let base = path.parent().unwrap_or(Path::new(""));
        for (server, files, into) in [
            (
                "redis",
                raw.tls.as_ref().and_then(|t| t.redis.as_ref()),
                &mut file.redis_tls,
            ),
            (
                "mysql",
                raw.tls.as_ref().and_then(|t| t.mysql.as_ref()),
                &mut file.mysql_tls,
            ),
        ] {
            let Some(files) = files else { continue };
            for (role, value, slot) in [
                ("ca", &files.ca, &mut into.ca),
                ("cert", &files.cert, &mut into.cert),
                ("key", &files.key, &mut into.key),
            ] {
                let Some(value) = value else { continue };
                let key = format!("tls.{server}.{role}");
                if value.get_ref().trim().is_empty() {
                    return Err(site.at(
                        value,
                        &key,
                        "the path is empty".into(),
                        "name a PEM file, or remove the key".into(),
                    ));
                }
                *slot = Some(base.join(value.get_ref().trim()));
                file.lines.insert(key, site.line_of(value.span().start));
            }
        }
        if let Some(store) = raw.store {
            if store.get_ref().trim().is_empty() {
                return Err(site.at(
                    &store,
                    "store",
                    "the path is empty".into(),
                    "name the embedded store's file, or remove the key".into(),
                ));
            }
            file.lines
                .insert("store".into(), site.line_of(store.span().start));
            file.store = Some(base.join(store.get_ref()));
        }
        if let Some(value) = raw.timeout {
            let timeout = duration(&value).map_err(|(p, h)| site.at(&value, "timeout", p, h))?;
            if let Err(Error::Invalid { problem, hint, .. }) = super::check_timeout(timeout) {
                return Err(site.at(&value, "timeout", problem, hint));
            }
            file.timeout = Some(timeout);
            file.lines
                .insert("timeout".into(), site.line_of(value.span().start));
        }
        if let Some(segments) = raw.segments {
            if let Some(value) = segments.idle {
                file.idle =
                    Some(idle(&value).map_err(|(p, h)| site.at(&value, "segments.idle", p, h))?);
                file.lines
                    .insert("segments.idle".into(), site.line_of(value.span().start));
            }
            if let Some(kind) = segments.dispenser {
                file.dispenser = Some(
                    dispenser(&kind)
                        .map_err(|(p, h)| site.at(&kind, "segments.dispenser", p, h))?,
                );
                file.lines
                    .insert("segments.dispenser".into(), site.line_of(kind.span().start));
            }
            if let Some((app, _)) = segments.app_dispensers.unwrap_or_default().pop_first() {
                let key = format!("segments.app_dispensers.{}", app.get_ref());
                return Err(site.at(
                    &app,
                    &key,
                    "is no longer read: each app's dispenser is recorded in the ledger, so every host serves the same stock".into(),
                    format!(
                        "run `idgen app set {} --dispenser KIND` once, then delete [segments.app_dispensers]",
                        app.get_ref()
                    ),
                ));
            }
        }
        if let Some(snowflake) = raw.snowflake {
            if let Some(name) = snowflake.layout {
                Layout::named(name.get_ref())
                    .map_err(|e| site.at(&name, "snowflake.layout", e.to_string(), e.hint()))?;
                file.layout = Some(name.get_ref().trim().to_string());
                file.lines
                    .insert("snowflake.layout".into(), site.line_of(name.span().start));
            }
            if let Some(value) = snowflake.epoch {
                file.epoch =
                    Some(epoch(&value).map_err(|(p, h)| site.at(&value, "snowflake.epoch", p, h))?);
                file.lines
                    .insert("snowflake.epoch".into(), site.line_of(value.span().start));
            }
            if let Some(value) = snowflake.lease_ttl {
                let ttl = duration(&value)
                    .and_then(|d| check_lease_ttl(d).map_err(|e| split(&e)))
                    .map_err(|(p, h)| site.at(&value, "snowflake.lease_ttl", p, h))?;
                file.lease_ttl = Some(ttl);
                file.lines.insert(
                    "snowflake.lease_ttl".into(),
                    site.line_of(value.span().start),
                );
            }
        }
        Ok(file)
    }

    /// Puts the file's values into `settings`, over whatever is there.
    pub fn apply_to(&self, settings: &mut Settings) {
        settings.config_file = Some(self.path.clone());
        for (key, line) in &self.lines {
            settings
                .sources
                .insert(key.clone(), format!("{}:{line}", self.path.display()));
        }
        for (name, url) in &self.redis_nodes {
            settings.redis_nodes.insert(name.clone(), url.clone());
        }
        if let Some(url) = &self.mysql {
            settings.mysql = Some(url.clone());
        }
        for (from, into) in [
            (&self.redis_tls, &mut settings.redis_tls),
            (&self.mysql_tls, &mut settings.mysql_tls),
        ] {
            for (value, slot) in [
                (&from.ca, &mut into.ca),
                (&from.cert, &mut into.cert),
                (&from.key, &mut into.key),
            ] {
                if value.is_some() {
                    slot.clone_from(value);
                }
            }
        }
        if let Some(path) = &self.store {
            settings.store = Some(path.clone());
            settings.create_store_dir = true;
        }
        if let Some(timeout) = self.timeout {
            settings.timeout = timeout;
        }
        if let Some(idle) = self.idle {
            settings.idle = idle;
        }
        if let Some(kind) = self.dispenser {
            settings.dispenser = kind;
        }
        if let Some(layout) = &self.layout {
            settings.layout = Some(layout.clone());
        }
        if let Some(epoch) = &self.epoch {
            settings.epoch = Some(epoch.clone());
        }
        if let Some(ttl) = self.lease_ttl {
            settings.lease_ttl = ttl;
        }
    }
}

/// Secrets of every URL written anywhere in a config file, even one that does not
/// parse or check, so that no message about the file can show them. Every string
/// under `mysql` or `[redis]` counts as a URL setting (a bare password pasted
/// there is a secret too); elsewhere only strings that look like URLs do.
/// A problem with a value and its fix, before the file position is known.
type ProblemAndFix = (String, String);

fn split(error: &Error) -> ProblemAndFix {
    let problem = match error {
        Error::Invalid { problem, .. } => problem.clone(),
        other => other.to_string(),
    };
    (problem, error.hint().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::parse_epoch;

    fn parse(text: &str) -> Result<ConfigFile> {
        ConfigFile::parse(Path::new("/etc/idgen.toml"), text)
    }

    fn position(text: &str) -> (Option<usize>, Option<String>, String) {
        match parse(text) {
            Err(Error::ConfigFile {
                line, key, problem, ..
            }) => (line, key, problem),
            other => panic!("expected a config file error, got {other:?}"),
        }
    }

    /// Found by fuzzing (`settings`, 1,200 s): after an unclosed string, the
    /// parser's recovery took the rest of the line, a password's end, for a
    /// key, and the syntax error quoted it as one. Only keys before the first
    /// error are named in broken TOML.
    #[test]
    fn a_syntax_error_names_no_key_from_after_the_file_breaks() {
        let text = "mysql = \"redis+unix://0Pwl\n:Pw7qZr\x0bs=-@=\"\n";
        let (line, key, problem) = position(text);
        assert_eq!((line, key), (Some(2), None), "{problem}");
        assert!(!problem.contains("Pw7qZ"), "{problem}");
        let (line, key, _) = position("timeout = \"5s\"\n\nmysql = \"mysql://db\nPw7qZ = 1\n");
        assert_eq!((line, key.as_deref()), (Some(3), Some("mysql")));
    }

    #[test]
    fn every_key_lands_in_the_settings() {
        let file = parse(
            r#"
timeout = "2s"
mysql = "mysql://u:p@db/idgen"
store = "idgen.db"

[redis.nodes]
main = "redis://r1:6379/0"
hot = "redis://r2:6379/1"

[segments]
idle = 0.5
dispenser = "range"

[snowflake]
layout = "discord"
epoch = 2020-01-01T00:00:00Z
lease_ttl = 10

[tls.redis]
ca = "certs/ca.pem"
cert = "/pki/client.pem"
key = "/pki/client.key"

[tls.mysql]
ca = "/pki/mysql-ca.pem"
"#,
        )
        .unwrap();
        let mut settings = Settings::default();
        file.apply_to(&mut settings);
        assert_eq!(settings.timeout, Duration::from_secs(2));
        assert_eq!(settings.redis_nodes.len(), 2);
        assert_eq!(settings.redis_nodes["hot"].expose(), "redis://r2:6379/1");
        assert_eq!(settings.store, Some(PathBuf::from("/etc/idgen.db")));
        assert_eq!(settings.idle, 0.5);
        assert_eq!(settings.dispenser, DispenserKind::Range);
        assert_eq!(settings.layout.as_deref(), Some("discord"));
        assert_eq!(
            parse_epoch(settings.epoch.as_deref().unwrap()).unwrap(),
            1_577_836_800_000
        );
        assert_eq!(settings.lease_ttl, Duration::from_secs(10));
        assert_eq!(settings.config_file, Some(PathBuf::from("/etc/idgen.toml")));
        assert_eq!(
            settings.redis_tls.ca,
            Some(PathBuf::from("/etc/certs/ca.pem"))
        );
        assert_eq!(
            settings.redis_tls.key,
            Some(PathBuf::from("/pki/client.key"))
        );
        assert_eq!(
            settings.mysql_tls.ca,
            Some(PathBuf::from("/pki/mysql-ca.pem"))
        );
        assert_eq!(settings.mysql_tls.cert, None);
        assert_eq!(settings.sources["tls.redis.cert"], "/etc/idgen.toml:21");
    }

    #[test]
    fn the_example_file_is_valid() {
        let file = parse(include_str!("../../../config.example.toml")).unwrap();
        assert_eq!(file.redis_nodes.keys().collect::<Vec<_>>(), ["hot", "main"]);
        assert_eq!(file.dispenser, Some(DispenserKind::Queue));
    }

    #[test]
    fn an_empty_file_changes_nothing() {
        let mut settings = Settings::default();
        parse("# nothing yet\n").unwrap().apply_to(&mut settings);
        assert!(settings.redis_nodes.is_empty());
        assert_eq!(settings.idle, 0.2);
    }

    #[test]
    fn errors_name_the_line_and_the_key() {
        let cases = [
            ("timeout = \"5s\"\nmysql = \"mysql://db\n", 2, "mysql"),
            ("\n[segments]\nidel = 0.3\n", 3, "segments.idel"),
            ("[segments]\nidle = 1.5\n", 2, "segments.idle"),
            ("[segments]\nidle = \"x\"\n", 2, "segments.idle"),
            (
                "[segments]\ndispenser = \"stack\"\n",
                2,
                "segments.dispenser",
            ),
            (
                "[segments.app_dispensers]\n300 = \"range\"\n",
                2,
                "segments.app_dispensers.300",
            ),
            (
                "[redis.nodes]\nmain = \"http://r1\"\n",
                2,
                "redis.nodes.main",
            ),
            ("timeout = \"soon\"\n", 1, "timeout"),
            (
                "[snowflake]\n\nlayout = \"flickr\"\n",
                3,
                "snowflake.layout",
            ),
            (
                "[snowflake]\nlease_ttl = \"2h\"\n",
                2,
                "snowflake.lease_ttl",
            ),
            ("mysql = 5\n", 1, "mysql"),
            ("[redis]\nnodes = { main = 1 }\n", 2, "redis.nodes.main"),
            ("[tls.redis]\nca = \" \"\n", 2, "tls.redis.ca"),
            ("\n[tls.mysql]\nkey = \"\"\n", 3, "tls.mysql.key"),
            ("[tls.redis]\ncafile = \"x\"\n", 2, "tls.redis.cafile"),
        ];
        for (text, line, key) in cases {
            let (got_line, got_key, problem) = position(text);
            assert_eq!(got_line, Some(line), "{text:?}: {problem}");
            assert_eq!(got_key.as_deref(), Some(key), "{text:?}: {problem}");
        }
    }

    #[test]
    fn passwords_never_reach_a_message() {
        for text in [
            "redis = \"redis://:s3cret@r1\"\n",
            "[redis.nodes]\nmain = \"http://u:s3cret@r1\"\n",
            "[segments]\nidle = \"mysql://u:s3cret@db\"\n",
            // Found by fuzzing: a URL pasted as a key was named as the key.
            "mysql://u:s3cret@db = \"\"\"\n",
            "[redis.nodes]\n\"redis://:s3cret@h\" = \"redis://h\"\n",
            "[segments.app_dispensers]\n\"mysql://u:s3cret@db\" = \"range\"\n",
        ] {
            let err = parse(text).unwrap_err();
            let shown = format!("{err} {}", err.hint().unwrap_or_default());
            assert!(!shown.contains("s3cret"), "{shown}");
        }
        let found = passwords_in("a = \"redis://:pw1@h\"\nb = [\"mysql://u:p w2@h/d\"]\n");
        assert!(found.contains(&"pw1".to_string()), "{found:?}");
        assert!(found.contains(&"p w2".to_string()), "{found:?}");
        let found = passwords_in("mysql = \"mysql://u:p%2fw%3A@h/d\"\n");
        assert!(found.contains(&"p%2fw%3A".to_string()), "{found:?}");
        assert!(found.contains(&"p/w:".to_string()), "{found:?}");
        // A bare password under a URL key is a secret; a path elsewhere is not.
        let found = passwords_in("mysql = \"hunter2\"\nstore = \"/var/idgen.db\"\n");
        assert_eq!(found, ["hunter2"]);
        // Ordinary values under a server's table are no secrets.
        let found = passwords_in("[redis]\ndispenser = \"queue\"\nuser = \"default\"\n");
        assert!(found.is_empty(), "{found:?}");
    }
}

#[cfg(test)]
mod one_line {
    /// A key the parser quotes may span lines: the error stays one line
    /// (found by fuzzing).
    #[test]
    fn a_broken_key_spanning_lines_is_named_on_one_line() {
        let text = "mysqd\0\0\0\0\0no`es = {'''\0\0\0d\u{f}\0\0\0\0\0\0\0...\"\nstore  = {'''\0\0\0\0-dcdb\n";
        let error = super::ConfigFile::parse(std::path::Path::new("/etc/idgen/config.toml"), text)
            .unwrap_err();
        let shown = format!("{error} {}", error.hint().unwrap_or_default());
        assert!(!shown.contains(char::is_control), "{shown:?}");
    }
}
