//! IDs, epochs, timestamps and `FIELD=VALUE` as users write them.

use super::{FieldKind, LayoutError, layout_names};
use std::str::FromStr;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

pub(super) fn parse_digits<T: FromStr>(text: &str) -> Option<T> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

pub(super) fn parse_digits_signed(text: &str) -> Option<i64> {
    match text.strip_prefix('-') {
        Some(rest) => parse_digits::<i64>(rest).map(|v| -v),
        None => parse_digits(text),
    }
}

/// Parses an ID as users write it: an unsigned decimal integer.
pub fn parse_id(text: &str) -> Result<u64, LayoutError> {
    let trimmed = text.trim();
    let digits = trimmed.strip_prefix('+').unwrap_or(trimmed);
    if let Some(rest) = digits.strip_prefix('-')
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(LayoutError::NegativeId {
            text: trimmed.to_string(),
        });
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LayoutError::NotANumber {
            text: text.to_string(),
        });
    }
    digits.parse().map_err(|_| LayoutError::IdTooLarge {
        text: trimmed.to_string(),
    })
}

/// Parses an epoch: Unix milliseconds (`1288834974657`), an RFC 3339 date-time with or
/// without an offset (none means UTC), or a date `YYYY-MM-DD` (UTC midnight).
pub fn parse_epoch(text: &str) -> Result<i64, LayoutError> {
    let trimmed = text.trim();
    let bad = |problem: &str| LayoutError::BadEpoch {
        text: text.to_string(),
        problem: problem.to_string(),
    };
    if let Some(ms) = parse_digits_signed(trimmed) {
        return Ok(ms);
    }
    let candidates = [
        trimmed.to_string(),
        format!("{trimmed}Z"),
        format!("{trimmed}T00:00:00Z"),
    ];
    let parsed = candidates
        .iter()
        .find_map(|candidate| OffsetDateTime::parse(candidate, &Rfc3339).ok())
        .ok_or_else(|| bad("it is neither Unix milliseconds nor an RFC 3339 date-time"))?;
    let nanos = parsed.unix_timestamp_nanos();
    if nanos % 1_000_000 != 0 {
        return Err(bad("it is not a whole millisecond"));
    }
    i64::try_from(nanos / 1_000_000).map_err(|_| bad("it is out of range"))
}

/// Formats Unix milliseconds as RFC 3339 in UTC with milliseconds:
/// `2016-04-30T11:18:25.796Z`. Instants outside years 0..=9999 become `@MSms`.
pub fn format_timestamp(unix_ms: i64) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(unix_ms) * 1_000_000)
        .ok()
        .filter(|at| (0..=9999).contains(&at.year()))
        .and_then(|at| at.format(&format).ok())
        .unwrap_or_else(|| format!("@{unix_ms}ms"))
}

/// Parses `FIELD=VALUE`, the way node fields are fixed on the command line (`datacenter=3`).
pub fn parse_fixed(text: &str) -> Result<(FieldKind, u64), LayoutError> {
    let bad = || LayoutError::BadFixed {
        text: text.to_string(),
    };
    let (name, value) = text.split_once('=').ok_or_else(bad)?;
    let kind = FieldKind::from_name(name).ok_or_else(|| LayoutError::UnknownField {
        name: name.trim().to_string(),
    })?;
    let value = parse_digits(value).ok_or_else(bad)?;
    Ok((kind, value))
}

pub(super) fn field_names() -> String {
    let mut names: Vec<&str> = FieldKind::ALL.iter().map(|kind| kind.name()).collect();
    names.insert(2, "seq");
    names.join(", ")
}

pub(super) fn known_layouts() -> String {
    layout_names().collect::<Vec<_>>().join(", ")
}
