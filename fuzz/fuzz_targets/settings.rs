//! Server settings through parsing and redaction: Redis, Sentinel, Cluster
//! and MySQL URLs given as flags (`--redis`, `--redis-node NAME=URL`,
//! `--mysql`), in a config file, or with the password in
//! `IDGEN_REDIS_PASSWORD` / `IDGEN_MYSQL_PASSWORD`; resolved by the binary's
//! own `settings::load`, then opened as idgen opens them (nothing connects).
//!
//! Input: structured (see `Input`): URLs built of fuzzed pieces, with a
//! password (see `idgen_fuzz::secret`) placed in the userinfo, in a `pass` /
//! `password` parameter, as the whole value, or in a password variable;
//! percent-encoded or as written.
//!
//! Checks: no panic, and the password never shows: not in any `Display` or
//! `Debug` of a URL or the settings, not in any error or hint, not in what
//! `SecretUrl::scrub` and the binary's `Output` leave of a driver message
//! that quotes the password as the driver reads it.

#![no_main]

use arbitrary::Arbitrary;
use clap::FromArgMatches;
use idgen::backend::Backend;
use idgen::config::TlsFiles;
use idgen::redact::{SecretUrl, redact_url};
use idgen::store::mysql::MysqlLedger;
use idgen::store::redis::connect;
use idgen::store::redis::topology::Topology;
use idgen_fuzz::cli::Cli;
use idgen_fuzz::output::Output;
use idgen_fuzz::secret::{self, assert_hidden};
use idgen_fuzz::settings::{Origins, load};
use libfuzzer_sys::fuzz_target;
use percent_encoding::{NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

#[derive(Arbitrary, Debug)]
struct Input {
    /// The password is `prefix` + the core + `suffix`.
    prefix: String,
    suffix: String,
    redis: Option<Url>,
    nodes: Vec<(String, Url)>,
    mysql: Option<Url>,
    /// A config file, passed with --config.
    file: Option<File>,
    /// The password in IDGEN_REDIS_PASSWORD / IDGEN_MYSQL_PASSWORD.
    redis_password: bool,
    mysql_password: bool,
}

#[derive(Arbitrary, Debug)]
struct Url {
    scheme: Scheme,
    user: String,
    place: Place,
    /// Percent-encode the password where it is placed.
    encode: bool,
    hosts: String,
    path: String,
    query: String,
    fragment: String,
}

#[derive(Arbitrary, Debug)]
enum Scheme {
    Redis,
    Rediss,
    RedisUnix,
    Unix,
    Valkeys,
    RedisSentinel,
    RedissSentinel,
    RedisCluster,
    RedissCluster,
    Mysql,
    /// No `scheme://` at all: `root:PW@host/db`.
    Missing,
    Other(String),
}

#[derive(Arbitrary, Debug)]
enum Place {
    Nowhere,
    Userinfo,
    /// `?NAME=PASSWORD` after the fuzzed query.
    Query(Param),
    /// The whole value is the password (pasted into the wrong variable).
    Whole,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Param {
    Pass,
    Password,
    Upper,
    /// `pass%77ord`: a name percent-encoded reads as `password`.
    Encoded,
}

#[derive(Arbitrary, Debug)]
struct File {
    entries: Vec<(FileKey, Url, Quoting)>,
    /// Any text after the entries.
    tail: String,
}

#[derive(Arbitrary, Debug)]
enum FileKey {
    Mysql,
    Node(String),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Quoting {
    Basic,
    Literal,
    Multiline,
    Unterminated,
}

impl Url {
    /// The URL with `password` placed; `None` for a password-free template
    /// (to check that no other part holds the core).
    fn render(&self, password: Option<&str>) -> String {
        let password = password.unwrap_or("");
        if let Place::Whole = self.place {
            return if self.encode {
                utf8_percent_encode(password, NON_ALPHANUMERIC).to_string()
            } else {
                password.to_string()
            };
        }
        let mut text = match &self.scheme {
            Scheme::Missing => String::new(),
            scheme => format!("{}://", scheme.name()),
        };
        match self.place {
            Place::Userinfo => {
                let password = match self.encode {
                    true => utf8_percent_encode(password, NON_ALPHANUMERIC).to_string(),
                    false => password.to_string(),
                };
                text.push_str(&format!("{}:{password}@", self.user));
            }
            _ if !self.user.is_empty() => text.push_str(&format!("{}@", self.user)),
            _ => {}
        }
        text.push_str(&self.hosts);
        text.push_str(&self.path);
        let mut query = self.query.clone();
        if let Place::Query(param) = self.place {
            let password = match self.encode {
                true => url::form_urlencoded::byte_serialize(password.as_bytes()).collect(),
                false => password.to_string(),
            };
            if !query.is_empty() {
                query.push('&');
            }
            query.push_str(&format!("{}={password}", param.name()));
        }
        if !query.is_empty() {
            text.push('?');
            text.push_str(&query);
        }
        if !self.fragment.is_empty() {
            text.push('#');
            text.push_str(&self.fragment);
        }
        text
    }
}

impl Scheme {
    fn name(&self) -> &str {
        match self {
            Scheme::Redis => "redis",
            Scheme::Rediss => "rediss",
            Scheme::RedisUnix => "redis+unix",
            Scheme::Unix => "unix",
            Scheme::Valkeys => "valkeys",
            Scheme::RedisSentinel => "redis-sentinel",
            Scheme::RedissSentinel => "rediss-sentinel",
            Scheme::RedisCluster => "redis-cluster",
            Scheme::RedissCluster => "rediss-cluster",
            Scheme::Mysql => "mysql",
            Scheme::Missing => "",
            Scheme::Other(name) => name,
        }
    }
}

impl Param {
    fn name(self) -> &'static str {
        match self {
            Param::Pass => "pass",
            Param::Password => "password",
            Param::Upper => "PASSWORD",
            Param::Encoded => "pass%77ord",
        }
    }
}

impl File {
    fn render(&self, password: Option<&str>) -> String {
        let mut text = String::new();
        let mut nodes = String::new();
        for (key, url, quoting) in &self.entries {
            let value = quoting.quote(&url.render(password));
            match key {
                FileKey::Mysql => text.push_str(&format!("mysql = {value}\n")),
                FileKey::Node(name) => nodes.push_str(&format!("{name} = {value}\n")),
            }
        }
        if !nodes.is_empty() {
            text.push_str("[redis.nodes]\n");
            text.push_str(&nodes);
        }
        text.push_str(&self.tail);
        text
    }
}

impl Quoting {
    fn quote(self, value: &str) -> String {
        match self {
            Quoting::Basic => toml_basic(value),
            Quoting::Literal => format!("'{value}'"),
            Quoting::Multiline => format!("\"\"\"\n{value}\"\"\""),
            Quoting::Unterminated => format!("\"{value}"),
        }
    }
}

/// A TOML basic string holding exactly `value`.
fn toml_basic(value: &str) -> String {
    let mut quoted = String::from("\"");
    for c in value.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            c if c.is_control() => quoted.push_str(&format!("\\u{:04X}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// A directory for the config files, and the runtime a MySQL pool is made in.
struct Fixture {
    dir: tempfile::TempDir,
    runtime: tokio::runtime::Runtime,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        // No config file but the input's, and no IDGEN_* setting but its own.
        for (name, _) in std::env::vars() {
            if name.starts_with("IDGEN_") {
                // SAFETY: the fuzz target runs on one thread; nothing else reads the environment.
                unsafe { std::env::remove_var(name) };
            }
        }
        // SAFETY: as above. (XDG_DATA_HOME: the embedded store's default place.)
        unsafe {
            std::env::set_var("XDG_CONFIG_HOME", dir.path());
            std::env::set_var("XDG_DATA_HOME", dir.path());
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        Fixture { dir, runtime }
    })
}

fuzz_target!(|input: Input| {
    let fixture = fixture();
    let _entered = fixture.runtime.enter();
    let password = secret::password(&input.prefix, &input.suffix);
    if template_holds_the_core(&input) || the_password_is_a_url(&input, &password) {
        return;
    }
    let urls: Vec<String> = input
        .urls()
        .map(|url| url.render(Some(&password)))
        .collect();
    for url in &urls {
        one_url_hides_it(url);
    }
    resolved_settings_hide_it(&input, &password, fixture.dir.path().join("config.toml"));
});

impl Input {
    /// Every URL of the input: flags, node entries and the config file's.
    fn urls(&self) -> impl Iterator<Item = &Url> {
        [&self.redis, &self.mysql]
            .into_iter()
            .flatten()
            .chain(self.nodes.iter().map(|(_, url)| url))
            .chain(
                self.file
                    .iter()
                    .flat_map(|f| f.entries.iter().map(|(_, url, _)| url)),
            )
    }
}

/// Whether any part of the input but the password holds the core: then a
/// core shown may not be the password.
fn template_holds_the_core(input: &Input) -> bool {
    // The file's URLs too, as its reader unescapes them: a template's `\r`
    // is an escape in the rendered file, a carriage return in the URL.
    let urls = input.urls().map(|url| url.render(None));
    let names = input.nodes.iter().map(|(name, _)| name.clone());
    let file = input.file.iter().map(|f| f.render(None));
    // As a URL parser reads the text too: it drops tabs and newlines
    // anywhere, so `Pw\r7qZ` in a template is the core to a driver.
    urls.chain(names)
        .chain(file)
        .any(|text| secret::shows(&text) || secret::shows(&text.replace(['\t', '\n', '\r'], "")))
}

/// Whether a password pasted whole reads as a URL of a scheme idgen reads,
/// which no reader can tell from one: it starts with such a scheme, or a
/// node's name holds a `scheme://` before it (`NAME=scheme://PASSWORD`: a
/// URL whose host is the password; one with a character no host has is
/// hidden, see `redact::redact_url`).
fn the_password_is_a_url(input: &Input, password: &str) -> bool {
    let whole = |url: &Url| matches!(url.place, Place::Whole);
    let pasted = input.urls().any(|url| whole(url) && !url.encode);
    (pasted && idgen::redact::reads_scheme(password.trim()))
        || input
            .nodes
            .iter()
            .any(|(name, url)| name.contains("://") && whole(url))
}

/// One URL as every part of idgen that reads one shows it.
fn one_url_hides_it(raw: &str) {
    let url = SecretUrl::new(raw);
    assert_hidden("redact_url", &redact_url(raw));
    assert_hidden("SecretUrl's Display", &url.to_string());
    assert_hidden("SecretUrl's Debug", &format!("{url:?}"));
    if let Some(with) = url.with_password("other") {
        assert_hidden("with_password", &with.to_string());
    }
    driver_messages_are_scrubbed(&url, raw);
    match Topology::parse(&url) {
        Err(e) => assert_hidden("Topology::parse's error", &shown(&e)),
        Ok(Topology::Standalone) => {}
        Ok(Topology::Sentinel(spec)) => {
            assert_hidden("a sentinel spec", &format!("{spec:?}"));
            for sentinel in &spec.sentinels {
                assert_hidden("a sentinel's URL", &spec.sentinel_url(sentinel));
            }
            let master = spec.master_url("10.0.0.1", 6379);
            assert_hidden("the master's URL", &master.to_string());
            driver_messages_are_scrubbed(&url, master.expose());
        }
        Ok(Topology::Cluster(spec)) => {
            assert_hidden("a cluster spec", &format!("{spec:?}"));
            for seed in spec.seed_urls() {
                assert_hidden("a seed's URL", &seed.to_string());
                driver_messages_are_scrubbed(&url, seed.expose());
            }
        }
    }
    if let Err(e) = connect::client(&url, &TlsFiles::default()) {
        assert_hidden("the Redis client's error", &shown(&e));
    }
    if let Err(e) = MysqlLedger::open(&url, &TlsFiles::default(), Duration::from_secs(1)) {
        assert_hidden("the MySQL ledger's error", &shown(&e));
    }
}

/// A driver's message may quote the password as the driver read it from
/// `as_sent` (the URL it was given): `SecretUrl::scrub` removes it.
fn driver_messages_are_scrubbed(url: &SecretUrl, as_sent: &str) {
    for read in driver_passwords(as_sent) {
        let message = format!("WRONGPASS invalid password {read:?} ({read})");
        if secret::shows(&message) {
            assert_hidden("a scrubbed driver message", &url.scrub(&message));
        }
    }
}

/// The password a driver reads from a URL: its userinfo's, percent-decoded,
/// and the value of a `pass` / `password` parameter.
fn driver_passwords(raw: &str) -> Vec<String> {
    let Ok(parsed) = url::Url::parse(raw.trim()) else {
        return Vec::new();
    };
    let mut found: Vec<String> = parsed
        .password()
        .map(|p| percent_decode_str(p).decode_utf8_lossy().into_owned())
        .into_iter()
        .collect();
    for (key, value) in parsed.query_pairs() {
        if key.eq_ignore_ascii_case("pass") || key.eq_ignore_ascii_case("password") {
            found.push(value.into_owned());
        }
    }
    found
}

/// The settings as the binary resolves them from flags, variables and a
/// config file, and the stores opened from them.
fn resolved_settings_hide_it(input: &Input, password: &str, config: PathBuf) {
    let mut args = vec!["idgen".to_string()];
    if let Some(url) = &input.redis {
        args.push(format!("--redis={}", url.render(Some(password))));
    }
    for (name, url) in &input.nodes {
        args.push(format!(
            "--redis-node={name}={}",
            url.render(Some(password))
        ));
    }
    if let Some(url) = &input.mysql {
        args.push(format!("--mysql={}", url.render(Some(password))));
    }
    if let Some(file) = &input.file {
        std::fs::write(&config, file.render(Some(password))).expect("the config file is written");
        args.push(format!("--config={}", config.display()));
    }
    args.push("config".to_string());
    for (set, name) in [
        (input.redis_password, "IDGEN_REDIS_PASSWORD"),
        (input.mysql_password, "IDGEN_MYSQL_PASSWORD"),
    ] {
        // A variable cannot hold a NUL byte: such a password is not set.
        let set = set && !password.contains('\0');
        // SAFETY: the fuzz target runs on one thread; nothing else reads the environment.
        unsafe {
            match set {
                true => std::env::set_var(name, password),
                false => std::env::remove_var(name),
            }
        }
    }
    let mut command = idgen_fuzz::cli::command();
    let Ok(matches) = command.try_get_matches_from_mut(&args) else {
        return;
    };
    let Ok(cli) = Cli::from_arg_matches(&matches) else {
        return;
    };
    let origins = Origins::from_matches(&command, &matches);
    let loaded = load(&cli.globals, &origins);
    let out = Output::detect(false, loaded.secrets);
    let settings = match loaded.settings {
        Ok(settings) => settings,
        Err(e) => {
            let hint = e
                .chain()
                .find_map(|e| e.downcast_ref::<idgen::Error>())
                .and_then(idgen::Error::hint)
                .unwrap_or_default();
            assert_hidden("the settings' error", &format!("{e:#} {hint}"));
            return;
        }
    };
    assert_hidden("the settings' Debug", &format!("{settings:?}"));
    for url in settings.redis_nodes.values().chain(&settings.mysql) {
        assert_hidden("a resolved URL", &url.to_string());
        driver_messages_are_scrubbed(url, url.expose());
        for read in driver_passwords(url.expose()) {
            if secret::shows(&read) {
                assert_hidden("the binary's scrubbed driver message", &out.scrub(&read));
            }
        }
    }
    for key in settings.sources.keys() {
        assert_hidden("a setting's origin", &settings.origin(key));
    }
    if settings.redis_nodes.is_empty() && settings.mysql.is_none() {
        // The embedded store: no URL, no password.
        return;
    }
    for opened in [
        Backend::open(&settings),
        Backend::open_for_leases(&settings),
    ] {
        match opened {
            Ok(backend) => assert_hidden("the backend's description", &backend.describe()),
            Err(e) => assert_hidden("the backend's error", &shown(&e)),
        }
    }
}

/// An error as the binary prints it: the message and the hint.
fn shown(e: &idgen::Error) -> String {
    format!("{e}; hint: {}", e.hint().unwrap_or_default())
}
