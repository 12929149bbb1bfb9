//! Turns flags and environment (clap has merged those) into the core's [`Settings`].

use crate::cli::Globals;
use idgen::config::{DEFAULT_NODE, Settings, parse_duration};
use idgen::redact::SecretUrl;
use idgen::segment::DispenserKind;

pub fn resolve(globals: &Globals) -> anyhow::Result<Settings> {
    let mut settings = Settings::default();
    for spec in &globals.redis_nodes {
        let Some((name, url)) = spec.split_once('=') else {
            return Err(idgen::Error::invalid(
                "--redis-node",
                format!("{:?} is not NAME=URL", idgen::redact::redact_url(spec)),
                "write it as hot=redis://host:6379",
            )
            .into());
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
            )
            .into());
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
