//! Checks of single values, each returning the problem and its fix; the
//! caller adds where in the file the value sits.

use super::{ProblemAndFix, split};
use crate::config::{DEFAULT_NODE, check_idle, parse_duration};
use crate::layout::parse_epoch;
use crate::redact::{SecretUrl, redact_url};
use crate::shard::DispenserKind;
use std::time::Duration;
use toml::Spanned;

pub(super) fn check_node_name(name: &str) -> std::result::Result<(), ProblemAndFix> {
    if crate::name::is_well_formed(name) {
        Ok(())
    } else {
        Err((
            format!("{name:?} is not a node name"),
            format!(
                "use {}; {DEFAULT_NODE:?} serves apps without a route",
                crate::name::NAME_RULE
            ),
        ))
    }
}

pub(super) fn check_url(
    url: &Spanned<String>,
    schemes: &[&str],
) -> std::result::Result<SecretUrl, ProblemAndFix> {
    let text = url.get_ref().trim();
    let wanted = schemes
        .iter()
        .map(|s| format!("{s}://"))
        .collect::<Vec<_>>()
        .join(", ");
    let example = match schemes[0] {
        "mysql" => "mysql://USER:PASSWORD@HOST:3306/DATABASE",
        _ => "redis://[:PASSWORD@]HOST[:PORT][/DB]",
    };
    let parsed = url::Url::parse(text).map_err(|e| {
        (
            format!("{} is not a URL: {e}", redact_url(text)),
            format!("write it as {example}"),
        )
    })?;
    if !schemes.contains(&parsed.scheme()) {
        // The scheme is not named: text of no scheme idgen reads may be a
        // password (see `redact_url`).
        return Err((
            format!("{} starts with none of {wanted}", redact_url(text)),
            format!("write it as {example}"),
        ));
    }
    Ok(SecretUrl::new(text))
}

pub(super) fn duration(
    value: &Spanned<toml::Value>,
) -> std::result::Result<Duration, ProblemAndFix> {
    let bad = || {
        (
            format!("{} is not a duration", shown(value.get_ref())),
            "write a number with a unit in quotes: \"500ms\", \"5s\", \"2m\" or \"1h\"".to_string(),
        )
    };
    match value.get_ref() {
        toml::Value::String(text) => parse_duration(text).map_err(|_| bad()),
        toml::Value::Integer(secs) if *secs >= 0 => Ok(Duration::from_secs(*secs as u64)),
        _ => Err(bad()),
    }
}

pub(super) fn idle(value: &Spanned<toml::Value>) -> std::result::Result<f64, ProblemAndFix> {
    let number = match value.get_ref() {
        toml::Value::Float(f) => *f,
        toml::Value::Integer(i) => *i as f64,
        other => {
            return Err((
                format!("{} is not a number", shown(other)),
                "use a fraction between 0 and 1, e.g. idle = 0.2".into(),
            ));
        }
    };
    check_idle(number).map_err(|_| {
        (
            format!("{number} is not between 0 and 1"),
            "use a fraction between 0 and 1, e.g. idle = 0.2".into(),
        )
    })
}

pub(super) fn dispenser(
    kind: &Spanned<String>,
) -> std::result::Result<DispenserKind, ProblemAndFix> {
    DispenserKind::parse(kind.get_ref()).map_err(|e| split(&e))
}

pub(super) fn epoch(value: &Spanned<toml::Value>) -> std::result::Result<String, ProblemAndFix> {
    let text = match value.get_ref() {
        toml::Value::String(text) => text.clone(),
        toml::Value::Integer(ms) => ms.to_string(),
        toml::Value::Datetime(at) => at.to_string(),
        other => {
            return Err((
                format!("{} is not an epoch", shown(other)),
                "use Unix milliseconds, an RFC 3339 date-time or YYYY-MM-DD".into(),
            ));
        }
    };
    parse_epoch(&text).map_err(|e| (e.to_string(), e.hint()))?;
    Ok(text)
}

/// A value as the file spells it, for messages.
pub(super) fn shown(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Table(_) => "a table".into(),
        toml::Value::Array(_) => "an array".into(),
        other => other.to_string(),
    }
}
