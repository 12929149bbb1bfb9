//! Builds the core's [`Settings`]: built-in defaults, then the config file, then
//! environment and flags (clap has merged those two already).

use crate::cli::Globals;
use idgen::config::file::{ConfigFile, passwords_in};
use idgen::config::{DEFAULT_NODE, Settings, parse_duration};
use idgen::redact::SecretUrl;
use idgen::segment::DispenserKind;
use std::path::{Path, PathBuf};

/// The resolved settings, and the passwords output must never show, which are
/// known even when the file turned out to be bad.
pub struct Loaded {
    pub settings: anyhow::Result<Settings>,
    pub secrets: Vec<String>,
}

/// Reads the config file and layers everything.
pub fn load(globals: &Globals) -> Loaded {
    let mut secrets = globals.secrets();
    let settings = config_path(globals)
        .map_or(Ok(None), |(path, required)| {
            read_file(&path, required, &mut secrets)
        })
        .and_then(|file| resolve(globals, file.as_ref()));
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
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    // XDG says to ignore a relative XDG_CONFIG_HOME.
    let base = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|home| Path::new(&home).join(".config")))?;
    Some((base.join("idgen").join("config.toml"), false))
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
fn resolve(globals: &Globals, file: Option<&ConfigFile>) -> idgen::Result<Settings> {
    let mut settings = Settings::default();
    if let Some(file) = file {
        file.apply_to(&mut settings);
    }
    // Named nodes from flags or IDGEN_REDIS_NODES add to (or replace) the file's.
    for spec in &globals.redis_nodes {
        let Some((name, url)) = spec.split_once('=') else {
            return Err(idgen::Error::invalid(
                "--redis-node",
                format!("{:?} is not NAME=URL", idgen::redact::redact_url(spec)),
                "write it as hot=redis://host:6379",
            ));
        };
        let name = name.trim();
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(idgen::Error::invalid(
                "--redis-node",
                format!("{name:?} is not a node name"),
                "use letters, digits, '-' and '_'",
            ));
        }
        settings
            .redis_nodes
            .insert(name.to_string(), SecretUrl::new(url.trim().to_string()));
    }
    if let Some(url) = &globals.redis {
        settings
            .redis_nodes
            .insert(DEFAULT_NODE.to_string(), SecretUrl::new(url.clone()));
    }
    if let Some(url) = &globals.mysql {
        settings.mysql = Some(SecretUrl::new(url.clone()));
    }
    if let Some(path) = &globals.store {
        settings.store = Some(path.clone());
    }
    if let Some(kind) = &globals.dispenser {
        settings.dispenser = DispenserKind::parse(kind)?;
    }
    if let Some(timeout) = &globals.timeout {
        settings.timeout = parse_duration(timeout)?;
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globals() -> Globals {
        Globals {
            redis: None,
            redis_nodes: Vec::new(),
            mysql: None,
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
    fn flags_and_environment_override_the_file_which_overrides_defaults() {
        let defaults = resolve(&globals(), None).unwrap();
        assert!(defaults.redis_nodes.is_empty());
        assert_eq!(defaults.dispenser, DispenserKind::Queue);

        let from_file = resolve(&globals(), Some(&file())).unwrap();
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
            Some(&file()),
        )
        .unwrap();
        assert_eq!(overridden.redis_nodes["main"].expose(), "redis://flag");
        // Only `main` is overridden; the file's other nodes stay.
        assert_eq!(overridden.redis_nodes["hot"].expose(), "redis://file-hot");
        assert_eq!(overridden.timeout.as_secs(), 1);
        assert_eq!(overridden.dispenser, DispenserKind::Queue);
    }
}
