//! IDs, epochs, timestamps and `FIELD=VALUE` as users write them.

use super::{FieldKind, LayoutError, layout_names_and_aliases};
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

/// A text form some layouts give their IDs besides the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextForm {
    /// 13 characters of Crockford base32, as tsid-creator writes TSIDs: `01226N0640J7Q`.
    Tsid,
}

/// Crockford's base32 digits; I, L and O are read as 1, 1 and 0.
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const TSID_CHARS: usize = 13;

fn crockford_value(c: u8) -> Option<u64> {
    match c.to_ascii_uppercase() {
        b'I' | b'L' => Some(1),
        b'O' => Some(0),
        upper => CROCKFORD
            .iter()
            .position(|&digit| digit == upper)
            .map(|v| v as u64),
    }
}

impl TextForm {
    /// The key decoded output shows the text under.
    pub fn name(self) -> &'static str {
        match self {
            TextForm::Tsid => "tsid",
        }
    }

    pub fn format(self, id: u64) -> String {
        match self {
            TextForm::Tsid => (0..TSID_CHARS)
                .rev()
                .map(|i| CROCKFORD[((id >> (5 * i)) & 31) as usize] as char)
                .collect(),
        }
    }

    /// `None` if `text` is not written in this form; an error if it is but the value
    /// does not fit 64 bits.
    fn read(self, text: &str) -> Option<Result<u64, LayoutError>> {
        match self {
            TextForm::Tsid => {
                let bytes = text.as_bytes();
                // All digits is a decimal number, never a TSID.
                if bytes.len() != TSID_CHARS || bytes.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                let mut value: u64 = 0;
                for (i, &c) in bytes.iter().enumerate() {
                    let digit = crockford_value(c)?;
                    // 13 digits carry 65 bits; the first may only use the low 4.
                    if i == 0 && digit > 15 {
                        return Some(Err(LayoutError::IdTooLarge {
                            text: text.to_string(),
                        }));
                    }
                    value = (value << 5) | digit;
                }
                Some(Ok(value))
            }
        }
    }
}

/// How an ID was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdForm {
    Decimal,
    /// `0x` followed by hexadecimal digits.
    Hex,
    /// A layout's text form, such as a TSID string.
    Text(TextForm),
    /// The longest run of digits in a URL or path, such as a Discord message link.
    InUrlOrPath,
}

/// An ID read from text, and how it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadId {
    pub id: u64,
    pub form: IdForm,
}

/// Reads an ID as users write it: decimal, `0x` hexadecimal, `text_form` (TSID strings
/// for layouts that have them), or a URL or path containing one: any text with a `/` is
/// read as its longest run of digits (the last, of equally long ones).
pub fn read_id(text: &str, text_form: Option<TextForm>) -> Result<ReadId, LayoutError> {
    let trimmed = text.trim();
    let unsigned = trimmed.strip_prefix('+').unwrap_or(trimmed);
    if let Some(rest) = unsigned.strip_prefix('-')
        && read_number(rest, text_form).is_some()
    {
        return Err(LayoutError::NegativeId {
            text: trimmed.to_string(),
        });
    }
    if let Some(read) = read_number(unsigned, text_form) {
        return read;
    }
    if trimmed.contains('/')
        && let Some(run) = longest_digit_run(trimmed)
    {
        let id = run.parse().map_err(|_| LayoutError::IdTooLarge {
            text: run.to_string(),
        })?;
        return Ok(ReadId {
            id,
            form: IdForm::InUrlOrPath,
        });
    }
    Err(LayoutError::NotANumber {
        text: text.to_string(),
    })
}

/// `None` if `text` is in none of the number forms.
fn read_number(text: &str, text_form: Option<TextForm>) -> Option<Result<ReadId, LayoutError>> {
    let too_large = || LayoutError::IdTooLarge {
        text: text.to_string(),
    };
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return Some(text.parse().map_err(|_| too_large()).map(|id| ReadId {
            id,
            form: IdForm::Decimal,
        }));
    }
    // A layout's text form before hex: `0X2701640065D` is a TSID string that
    // decode prints, and must read back as that ID (found by fuzzing). Hex
    // of exactly a TSID's length is written with a leading zero (`0x0…`).
    if let Some(form) = text_form
        && let Some(read) = form.read(text)
    {
        return Some(read.map(|id| ReadId {
            id,
            form: IdForm::Text(form),
        }));
    }
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"))
        && !hex.is_empty()
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
    {
        let significant = hex.trim_start_matches('0');
        if significant.len() > 16 {
            return Some(Err(too_large()));
        }
        let id = u64::from_str_radix(
            if significant.is_empty() {
                "0"
            } else {
                significant
            },
            16,
        );
        return Some(id.map_err(|_| too_large()).map(|id| ReadId {
            id,
            form: IdForm::Hex,
        }));
    }
    None
}

fn longest_digit_run(text: &str) -> Option<&str> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty())
        .fold(None, |best: Option<&str>, run| match best {
            Some(best) if best.len() > run.len() => Some(best),
            _ => Some(run),
        })
}

/// Parses an ID in any form [`read_id`] accepts except a layout's text form.
pub fn parse_id(text: &str) -> Result<u64, LayoutError> {
    read_id(text, None).map(|read| read.id)
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

/// Parses `FIELD=VALUE`, the way worker-ID fields are fixed on the command line (`datacenter=3`).
pub fn parse_fixed(text: &str) -> Result<(FieldKind, u64), LayoutError> {
    let bad = || LayoutError::BadFixed {
        text: text.to_string(),
    };
    let (name, value) = text.split_once('=').ok_or_else(bad)?;
    let kind = FieldKind::parse(name)?;
    let value = parse_digits(value).ok_or_else(bad)?;
    Ok((kind, value))
}

pub(super) fn known_layouts() -> String {
    layout_names_and_aliases().collect::<Vec<_>>().join(", ")
}
