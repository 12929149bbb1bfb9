//! Builds the core's [`Settings`]: built-in defaults, then the config file, then
//! environment and flags (clap has merged those two already).

use crate::cli::{Globals, NODES_VARIABLE, node_specs};
use idgen::config::file::{ConfigFile, passwords_in};
use idgen::config::{DEFAULT_NODE, Settings, parse_duration};
use idgen::redact::SecretUrl;
use idgen::segment::DispenserKind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The resolved settings, and the passwords output must never show, which are
/// known even when the file turned out to be bad.
pub struct Loaded {
    pub settings: anyhow::Result<Settings>,
    pub secrets: Vec<String>,
}

/// Where each global option's value came from: `--flag` or `IDGEN_VAR`, by clap id.
#[derive(Debug, Clone, Default)]
pub struct Origins(BTreeMap<String, String>);

impl Origins {
    /// Reads the sources clap recorded, for the global options and those of the
    /// subcommand that runs; `command` is the one that parsed `matches`.
    pub fn from_matches(command: &clap::Command, matches: &clap::ArgMatches) -> Self {
        let mut origins = BTreeMap::new();
        let mut command = command;
        let mut level = Some(matches);
        while let Some(m) = level {
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                let origin = match m
                    .try_contains_id(id)
                    .ok()
                    .filter(|&c| c)
                    .and(m.value_source(id))
                {
                    Some(clap::parser::ValueSource::CommandLine) => {
                        arg.get_long().map(|long| format!("--{long}"))
                    }
                    Some(clap::parser::ValueSource::EnvVariable) => {
                        arg.get_env().map(|env| env.to_string_lossy().into_owned())
                    }
                    _ => None,
                };
                if let Some(origin) = origin {
                    origins.entry(id.to_string()).or_insert(origin);
                }
            }
            level = m.subcommand().and_then(|(name, sub)| {
                command = command.find_subcommand(name)?;
                Some(sub)
            });
        }
        Origins(origins)
    }

    /// Names where a bad value of the option `id` came from, in its message.
    pub fn blame(&self, id: &str, error: idgen::Error) -> idgen::Error {
        match self.0.get(id) {
            Some(origin) => idgen::config::blame(error, origin),
            None => error,
        }
    }

    /// `--flag` or `IDGEN_VAR`, whichever gave the option `id`.
    pub fn of<'a>(&'a self, id: &'a str) -> &'a str {
        self.0.get(id).map_or(id, String::as_str)
    }
}

/// Treats every empty (or blank) `IDGEN_*` variable as unset, as docker and
/// Kubernetes env files produce them. The one place that decides it: the
/// variables are removed before clap or anything else reads the environment.
pub fn forget_empty_environment() {
    let blank: Vec<_> = std::env::vars_os()
        .filter(|(name, value)| {
            name.to_str().is_some_and(|n| n.starts_with("IDGEN_"))
                && value.to_str().is_some_and(|v| v.trim().is_empty())
        })
        .map(|(name, _)| name)
        .collect();
    for name in blank {
        // SAFETY: called first thing in `main`, before any other thread exists.
        unsafe { std::env::remove_var(name) };
    }
}

/// Reads the config file and layers everything.
pub fn load(globals: &Globals, origins: &Origins) -> Loaded {
    let mut secrets = globals.secrets();
    let settings = config_path(globals)
        .map_or(Ok(None), |(path, required)| {
            read_file(&path, required, &mut secrets)
        })
        .and_then(|file| resolve(globals, origins, file.as_ref(), &mut secrets));
    Loaded {
        settings: settings.map_err(anyhow::Error::from),
        secrets,
    }
}

/// The config file to read, and whether it must exist (it was named explicitly).
fn config_path(globals: &Globals) -> Option<(PathBuf, bool)> {
    if let Some(path) = &globals.config {
        return Some((path.clone(), true));
    }
    Some((idgen::config::paths::default_config_file()?, false))
}

fn read_file(
    path: &Path,
    required: bool,
    secrets: &mut Vec<String>,
) -> idgen::Result<Option<ConfigFile>> {
    if let Ok(text) = std::fs::read_to_string(path) {
        secrets.extend(passwords_in(&text));
    }
    ConfigFile::load(path, required)
}

/// Defaults, then the file, then flags and environment.
fn resolve(
    globals: &Globals,
    origins: &Origins,
    file: Option<&ConfigFile>,
    secrets: &mut Vec<String>,
) -> idgen::Result<Settings> {
    let mut settings = Settings::default();
    if let Some(file) = file {
        file.apply_to(&mut settings);
    }
    // Named nodes from flags or IDGEN_REDIS_NODES add to (or replace) the
    // file's; one name given twice there is ambiguous, and refused.
    let mut named = std::collections::BTreeSet::new();
    for raw in &globals.redis_nodes {
        let origin = origins.of("redis_nodes");
        // Each `--redis-node` is one entry, whatever it holds; only the
        // variable lists several (`node_specs`). So a password written raw in
        // a flag, with whitespace and then text shaped like `NAME=URL`, never
        // makes a node named by a piece of it (found by fuzzing).
        let specs = match origin {
            NODES_VARIABLE => node_specs(raw),
            _ => vec![raw.as_str()],
        };
        for (index, spec) in specs.into_iter().enumerate() {
            let (name, url) = parse_node_spec(spec).map_err(|(problem, hint)| {
                idgen::Error::invalid(
                    "Redis node",
                    format!("entry {} of {origin}: {problem}", index + 1),
                    hint,
                )
            })?;
            if !named.insert(name.to_string()) {
                return Err(idgen::Error::invalid(
                    "Redis node",
                    format!("node {name:?} is given twice ({origin})"),
                    "give each node name once",
                ));
            }
            settings
                .redis_nodes
                .insert(name.to_string(), SecretUrl::new(url));
            settings
                .sources
                .insert(format!("redis.nodes.{name}"), origin.to_string());
        }
    }
    if let Some(url) = &globals.redis {
        settings
            .redis_nodes
            .insert(DEFAULT_NODE.to_string(), SecretUrl::new(url.clone()));
        settings.sources.insert(
            format!("redis.nodes.{DEFAULT_NODE}"),
            origins.of("redis").into(),
        );
    }
    if let Some(url) = &globals.mysql {
        settings.mysql = Some(SecretUrl::new(url.clone()));
        settings
            .sources
            .insert("mysql".into(), origins.of("mysql").into());
    }
    for (value, id, target, key) in [
        (
            &globals.redis_ca,
            "redis_ca",
            &mut settings.redis_tls.ca,
            "tls.redis.ca",
        ),
        (
            &globals.redis_cert,
            "redis_cert",
            &mut settings.redis_tls.cert,
            "tls.redis.cert",
        ),
        (
            &globals.redis_key,
            "redis_key",
            &mut settings.redis_tls.key,
            "tls.redis.key",
        ),
        (
            &globals.mysql_ca,
            "mysql_ca",
            &mut settings.mysql_tls.ca,
            "tls.mysql.ca",
        ),
        (
            &globals.mysql_cert,
            "mysql_cert",
            &mut settings.mysql_tls.cert,
            "tls.mysql.cert",
        ),
        (
            &globals.mysql_key,
            "mysql_key",
            &mut settings.mysql_tls.key,
            "tls.mysql.key",
        ),
    ] {
        if let Some(path) = value {
            *target = Some(path.clone());
            settings.sources.insert(key.into(), origins.of(id).into());
        }
    }
    if let Some(path) = &globals.store {
        settings.store = Some(path.clone());
        settings.create_store_dir = false;
        settings
            .sources
            .insert("store".into(), origins.of("store").into());
    }
    if let Some(kind) = &globals.dispenser {
        settings.dispenser =
            DispenserKind::parse(kind).map_err(|e| origins.blame("dispenser", e))?;
        settings
            .sources
            .insert("segments.dispenser".into(), origins.of("dispenser").into());
    }
    if let Some(timeout) = &globals.timeout {
        settings.timeout = parse_duration(timeout)
            .and_then(idgen::config::check_timeout)
            .map_err(|e| origins.blame("timeout", e))?;
        settings
            .sources
            .insert("timeout".into(), origins.of("timeout").into());
    }
    let redis_password = password(
        globals.redis_password_file.as_deref(),
        origins.of("redis_password_file"),
        "IDGEN_REDIS_PASSWORD",
    )?;
    if let Some(password) = redis_password {
        secrets.extend(idgen::redact::secrets_in(&password));
        secrets.push(password.clone());
        for url in settings.redis_nodes.values_mut() {
            if !url.has_password()
                && let Some(with) = url.with_password(&password)
            {
                *url = with;
            }
        }
    }
    let mysql_password = password(
        globals.mysql_password_file.as_deref(),
        origins.of("mysql_password_file"),
        "IDGEN_MYSQL_PASSWORD",
    )?;
    if let (Some(password), Some(url)) = (mysql_password, settings.mysql.as_mut()) {
        secrets.push(password.clone());
        if !url.has_password()
            && let Some(with) = url.with_password(&password)
        {
            *url = with;
        }
    }
    Ok(settings)
}

/// `NAME=URL`, checked; the problem and its fix never echo the entry, which may
/// be a password pasted in the wrong place.
fn parse_node_spec(spec: &str) -> Result<(&str, &str), (String, String)> {
    let example = "write entries as NAME=URL, e.g. hot=redis://10.0.0.7:6379/0; IDGEN_REDIS_NODES separates them with spaces";
    let Some((name, url)) = spec.split_once('=') else {
        return Err(("it is not NAME=URL".into(), example.into()));
    };
    let name = name.trim();
    if !idgen::name::is_well_formed(name) {
        return Err((
            "the part before '=' is not a node name".into(),
            format!("use {} as the name", idgen::name::NAME_RULE),
        ));
    }
    // The list syntax before spaces: `hot=redis://a,cold=redis://b`.
    let legacy = url.split(',').skip(1).any(|rest| {
        rest.split_once('=')
            .is_some_and(|(n, u)| !n.is_empty() && !n.contains('/') && u.contains("://"))
    });
    if legacy {
        return Err((
            "it holds a comma followed by another NAME=URL".into(),
            "separate entries with spaces, not commas: a comma may belong to a password".into(),
        ));
    }
    Ok((name, url.trim()))
}

/// A password kept outside the URL: the file named by `file` (from `origin`), or
/// the variable `var`; not both.
fn password(file: Option<&Path>, origin: &str, var: &'static str) -> idgen::Result<Option<String>> {
    let from_var = std::env::var(var).ok();
    match (file, from_var) {
        (Some(_), Some(_)) => Err(idgen::Error::invalid(
            "password",
            format!("both {origin} and {var} give a password"),
            format!("keep one of them: unset {var} or drop {origin}"),
        )),
        (None, from_var) => Ok(from_var.map(|p| p.trim_end_matches(['\n', '\r']).to_string())),
        (Some(path), None) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                idgen::Error::invalid(
                    "password file",
                    format!("cannot read {} (from {origin}): {e}", path.display()),
                    "name a readable file holding only the password",
                )
            })?;
            let password = text.trim_end_matches(['\n', '\r']);
            if password.is_empty() {
                return Err(idgen::Error::invalid(
                    "password file",
                    format!("{} (from {origin}) is empty", path.display()),
                    "put the password in the file, on its first line",
                ));
            }
            Ok(Some(password.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globals() -> Globals {
        Globals {
            redis: None,
            redis_nodes: Vec::new(),
            redis_password_file: None,
            redis_ca: None,
            redis_cert: None,
            redis_key: None,
            mysql: None,
            mysql_password_file: None,
            mysql_ca: None,
            mysql_cert: None,
            mysql_key: None,
            store: None,
            config: None,
            dispenser: None,
            timeout: None,
            verbose: false,
        }
    }

    fn file() -> ConfigFile {
        ConfigFile::parse(
            Path::new("/etc/idgen/config.toml"),
            "timeout = \"9s\"\n[redis.nodes]\nmain = \"redis://file-main\"\nhot = \"redis://file-hot\"\n[segments]\ndispenser = \"range\"\n",
        )
        .unwrap()
    }

    #[test]
    fn a_node_entry_is_checked_without_echoing_it() {
        assert_eq!(
            parse_node_spec("hot=redis://:a,b@h:6379/0").unwrap(),
            ("hot", "redis://:a,b@h:6379/0")
        );
        for bad in [
            "redis://:s3cret@h",
            "redis://:s3cret@h/0?x=1",
            "hot=redis://a:1,cold=redis://b:2",
        ] {
            let (problem, hint) = parse_node_spec(bad).unwrap_err();
            assert!(!problem.contains("s3cret") && !hint.contains("s3cret"));
            assert!(!problem.contains("redis://"), "{problem}");
        }
    }

    /// Whitespace separates node entries only before another `NAME=URL`: a
    /// password written with a raw space stays in its entry, where redaction
    /// hides it, instead of naming a node (found by fuzzing: `--redis-node
    /// 'e=rediss://u@?password=r\x0bPW9xs='` made a node `PW9xs`).
    #[test]
    fn whitespace_inside_a_password_does_not_start_a_node_entry() {
        assert_eq!(
            node_specs("hot=redis://h:1/0  cold=rediss://:a b@c:2\tx=unix:///s"),
            vec!["hot=redis://h:1/0", "cold=rediss://:a b@c:2", "x=unix:///s"]
        );
        let raw = "e=rediss://lr\x0bs=@?password=r\x0bPW9xs=";
        assert_eq!(node_specs(raw), vec![raw]);
        let mut g = globals();
        g.redis_nodes = vec![raw.to_string()];
        let settings = resolve(&g, &Origins::default(), None, &mut Vec::new()).unwrap();
        assert_eq!(settings.redis_nodes.keys().collect::<Vec<_>>(), ["e"]);
        assert!(!format!("{settings:?}").contains("PW9x"), "{settings:?}");
    }

    /// The node names `resolve` makes of `raw`, given by `origin`.
    fn node_names(raw: &str, origin: &str) -> (Vec<String>, String) {
        let mut g = globals();
        g.redis_nodes = vec![raw.to_string()];
        let origins = Origins([("redis_nodes".to_string(), origin.to_string())].into());
        let settings = resolve(&g, &origins, None, &mut Vec::new()).unwrap();
        let names = settings.redis_nodes.keys().cloned().collect();
        (names, format!("{settings:?}"))
    }

    /// Found by fuzzing (`settings`, 600 s): a raw vertical tab in a flag's
    /// password, then text shaped like another entry, made a node named
    /// `Pw7qZ`, a piece of the password, shown in `config` and every error.
    #[test]
    fn a_redis_node_flag_is_one_entry_whatever_its_password_holds() {
        let raw = "0=redis+unix://@h?pass=\x0bPw7qZ=redis://%00";
        let (names, debug) = node_names(raw, "--redis-node");
        assert_eq!(names, ["0"]);
        assert!(!debug.contains("Pw7qZ"), "{debug}");
    }

    #[test]
    fn the_nodes_variable_lists_entries_separated_by_whitespace() {
        let (names, _) = node_names("hot=redis://h:1/0 cold=redis://h:2/0", NODES_VARIABLE);
        assert_eq!(names, ["cold", "hot"]);
    }

    #[test]
    fn flags_and_environment_override_the_file_which_overrides_defaults() {
        let defaults = resolve(&globals(), &Origins::default(), None, &mut Vec::new()).unwrap();
        assert!(defaults.redis_nodes.is_empty());
        assert_eq!(defaults.dispenser, DispenserKind::Queue);

        let from_file = resolve(
            &globals(),
            &Origins::default(),
            Some(&file()),
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(from_file.redis_nodes["main"].expose(), "redis://file-main");
        assert_eq!(from_file.timeout.as_secs(), 9);
        assert_eq!(from_file.dispenser, DispenserKind::Range);

        let overridden = resolve(
            &Globals {
                redis: Some("redis://flag".into()),
                timeout: Some("1s".into()),
                dispenser: Some("queue".into()),
                ..globals()
            },
            &Origins::default(),
            Some(&file()),
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(overridden.redis_nodes["main"].expose(), "redis://flag");
        // Only `main` is overridden; the file's other nodes stay.
        assert_eq!(overridden.redis_nodes["hot"].expose(), "redis://file-hot");
        assert_eq!(overridden.timeout.as_secs(), 1);
        assert_eq!(overridden.dispenser, DispenserKind::Queue);
    }
}
