//! Turns flags and environment (clap has merged those) into the core's [`Settings`].

use crate::cli::Globals;
use idgen::config::{DEFAULT_NODE, Settings, parse_duration};
use idgen::redact::SecretUrl;
use idgen::segment::DispenserKind;

pub fn resolve(globals: &Globals) -> anyhow::Result<Settings> {
    let mut settings = Settings::default();
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
