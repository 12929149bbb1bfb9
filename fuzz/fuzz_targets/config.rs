//! The config file (TOML) and the values it holds: durations, layouts,
//! epochs and units.
//!
//! Input: the text of a config file; see fuzz/corpus/config. Each of its
//! lines is also read as a duration, a time unit, an epoch, a layout name and
//! a layout signature.
//!
//! Checks: no panic; an error is one line that names no password of the
//! file; what a file sets lands in the settings unchanged; a layout's
//! signature, a unit and an epoch print and read back.

#![no_main]

use idgen::config::file::{ConfigFile, passwords_in};
use idgen::config::{Settings, parse_duration};
use idgen::layout::{Layout, TimeUnit, format_timestamp, parse_epoch};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("/etc/idgen/config.toml");
    let secrets = passwords_in(text);
    match ConfigFile::parse(path, text) {
        Ok(file) => lands_in_the_settings(&file),
        Err(e) => {
            let shown = format!("{e} {}", e.hint().unwrap_or_default());
            assert!(
                !shown.contains('\n'),
                "a config file error spans lines: {shown:?}"
            );
            for secret in &secrets {
                // `scrub` hides a secret of any length; a short one is too
                // common a text to tell whether it was the secret shown.
                if secret.len() >= 6 && shown.contains(secret.as_str()) {
                    // Shown only if it comes from the secret: the same file
                    // with another value in its place must not show it too
                    // (`redis = "redis:"` fails as `key redis: …`).
                    assert!(
                        shown_without(text, secret).contains(secret.as_str()),
                        "{secret:?} shown: {shown:?}"
                    );
                }
            }
        }
    }
    for line in text.lines() {
        values_read_back(line);
    }
});

/// The error shown for `text` with every `secret` in it replaced by a text
/// of the same length that holds none of it.
fn shown_without(text: &str, secret: &str) -> String {
    let other: String = secret
        .chars()
        .map(|c| if c == 'q' { 'z' } else { 'q' })
        .collect();
    match ConfigFile::parse(
        Path::new("/etc/idgen/config.toml"),
        &text.replace(secret, &other),
    ) {
        Ok(_) => String::new(),
        Err(e) => format!("{e} {}", e.hint().unwrap_or_default()),
    }
}

/// Every value a file sets is in the settings `apply_to` makes, and each key
/// has the line it was read from.
fn lands_in_the_settings(file: &ConfigFile) {
    let mut settings = Settings::default();
    file.apply_to(&mut settings);
    assert_eq!(settings.redis_nodes.len(), file.redis_nodes.len());
    assert_eq!(settings.mysql, file.mysql);
    if let Some(timeout) = file.timeout {
        assert!(!timeout.is_zero());
        assert_eq!(settings.timeout, timeout);
    }
    if let Some(idle) = file.idle {
        assert!((0.0..=1.0).contains(&idle));
    }
    if let Some(layout) = &file.layout {
        assert!(Layout::named(layout).is_ok(), "{layout:?}");
    }
    if let Some(epoch) = &file.epoch {
        assert!(parse_epoch(epoch).is_ok(), "{epoch:?}");
    }
    for line in file.lines.values() {
        assert!(*line >= 1);
    }
}

/// A line read as each kind of value: no panic, and what reads prints in a
/// form that reads back the same.
fn values_read_back(line: &str) {
    if let Ok(duration) = parse_duration(line) {
        assert!(duration.as_secs() <= 1_000_000_000, "{line:?}");
    }
    if let Ok(unit) = TimeUnit::parse(line) {
        assert_eq!(TimeUnit::parse(&unit.to_string()), Ok(unit), "{line:?}");
    }
    if let Ok(ms) = parse_epoch(line) {
        let shown = format_timestamp(ms);
        if !shown.starts_with('@') {
            assert_eq!(parse_epoch(&shown), Ok(ms), "{line:?} shown as {shown}");
        }
    }
    if let Ok(layout) = Layout::named(line) {
        assert_eq!(Layout::from_signature(&layout.signature()), Ok(layout));
    }
    if let Ok(layout) = Layout::from_signature(line) {
        let signature = layout.signature();
        assert_eq!(
            Layout::from_signature(&signature).as_ref(),
            Ok(&layout),
            "{line:?} read as {signature:?}"
        );
    }
}
