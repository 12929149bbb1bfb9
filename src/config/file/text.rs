//! Reading a config file's text apart from its meaning: which strings in it
//! are secrets (even in a file that does not parse), and where a key or an
//! error sits (file, line, dotted key) for messages.

use super::SCHEMA_HINT;
use crate::error::Error;
use crate::redact::{scrub_all, secrets_in};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

pub fn passwords_in(text: &str) -> Vec<String> {
    let (document, _) = DeTable::parse_recoverable(text);
    let mut strings = Vec::new();
    collect_strings(document.get_ref(), &mut Vec::new(), &mut strings);
    let mut passwords: Vec<String> = strings
        .iter()
        .filter(|(path, s)| {
            // Under [mysql] and [redis], a key that holds a password or a URL
            // (a bare value there may be a password pasted in the wrong
            // place); elsewhere only what looks like a URL. Other values
            // (`dispenser = "queue"`) are ordinary words, never searched for.
            let under_a_server =
                matches!(path.first().map(String::as_str), Some("mysql" | "redis"));
            let secret_key = path.iter().skip(1).any(|key| {
                let key = key.to_ascii_lowercase();
                ["pass", "url", "secret", "token", "node"]
                    .iter()
                    .any(|word| key.contains(word))
            });
            // `mysql = "…"` and `redis = "…"` are the URLs themselves.
            (under_a_server && (path.len() == 1 || secret_key))
                || s.contains("://")
                || s.contains('@')
        })
        .flat_map(|(_, s)| secrets_in(s))
        .collect();
    passwords.sort();
    passwords.dedup();
    passwords
}

/// Every string of a document with the path of keys it sits under.
fn collect_strings(
    table: &DeTable<'_>,
    path: &mut Vec<String>,
    into: &mut Vec<(Vec<String>, String)>,
) {
    for (key, value) in table.iter() {
        // A key is never a URL setting itself, but a URL pasted as a key is caught.
        into.push((Vec::new(), key.get_ref().to_string()));
        path.push(key.get_ref().to_string());
        collect_value_strings(value.get_ref(), path, into);
        path.pop();
    }
}

fn collect_value_strings(
    value: &DeValue<'_>,
    path: &mut Vec<String>,
    into: &mut Vec<(Vec<String>, String)>,
) {
    match value {
        DeValue::String(s) => into.push((path.clone(), s.to_string())),
        DeValue::Array(items) => items
            .iter()
            .for_each(|item| collect_value_strings(item.get_ref(), path, into)),
        DeValue::Table(table) => collect_strings(table, path, into),
        _ => {}
    }
}

/// The file being checked, for turning spans into positions.
pub(super) struct Site<'a> {
    pub(super) path: &'a Path,
    pub(super) text: &'a str,
}

impl Site<'_> {
    pub(super) fn line_of(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    pub(super) fn at<T>(
        &self,
        value: &Spanned<T>,
        key: &str,
        problem: String,
        hint: String,
    ) -> Error {
        Error::ConfigFile {
            path: self.path.display().to_string(),
            line: Some(self.line_of(value.span().start)),
            // A key is text from the file too: a URL pasted as one.
            key: Some(self.scrub(key)),
            problem: self.scrub(&problem),
            // Some hints repeat a key (`idgen app set KEY`).
            hint: self.scrub(&hint),
        }
    }

    /// A syntax error, an unknown key or a value of the wrong type, from the parser.
    pub(super) fn toml_error(&self, error: &toml::de::Error) -> Error {
        let span = error.span();
        let message = error
            .message()
            .trim()
            .replace("unknown field", "unknown key");
        // In broken TOML only the text before the error is read as written:
        // after it, the parser's recovery may take the rest of an unclosed
        // string, a password's end, for a key (found by fuzzing).
        let broken = !(message.starts_with("unknown key") || message.starts_with("invalid type"));
        let key = span
            .as_ref()
            .and_then(|s| key_at(self.text, s, broken))
            .map(|key| self.scrub(&key));
        // Values are checked by `parse`; what the parser reports is a key it does
        // not know, a value of the wrong type, or broken TOML.
        let hint = if message.starts_with("unknown key") {
            format!("check the spelling; {SCHEMA_HINT}")
        } else if message.starts_with("invalid type") {
            format!("give the key a value of the right type; {SCHEMA_HINT}")
        } else {
            "fix the TOML syntax on that line (strings need double quotes; see https://toml.io)"
                .to_string()
        };
        Error::ConfigFile {
            path: self.path.display().to_string(),
            line: span.map(|s| self.line_of(s.start)),
            key,
            problem: self.scrub(&message),
            hint,
        }
    }

    /// Removes the file's own passwords from a message about it, and
    /// escapes its control characters: a key quoted from the file may hold
    /// a newline, and the message must stay one line (found by fuzzing).
    fn scrub(&self, message: &str) -> String {
        crate::redact::one_line(&scrub_all(message, &passwords_in(self.text)))
    }
}

/// The dotted path of the key whose name or value covers `span`, the innermost one;
/// failing that, the last key on the span's line. With `broken`, only a key
/// that starts before the file's first error: what the parser recovered
/// after it may be anything, such as the rest of an unclosed string.
fn key_at(text: &str, span: &Range<usize>, broken: bool) -> Option<String> {
    let (document, errors) = DeTable::parse_recoverable(text);
    let mut entries = Vec::new();
    walk(document.get_ref(), &mut Vec::new(), &mut entries);
    if broken {
        let first = errors
            .iter()
            .filter_map(|e| e.span())
            .map(|s| s.start)
            .fold(span.start, usize::min);
        entries.retain(|(_, key, _)| key.start < first);
    }
    let covering = entries
        .iter()
        .filter(|(_, key, value)| {
            contains(key, span.start) || contains(value, span.start) || key == span
        })
        .min_by_key(|(path, key, value)| {
            let covered = if contains(key, span.start) {
                key
            } else {
                value
            };
            (covered.len(), usize::MAX - path.len())
        });
    if let Some((path, _, _)) = covering {
        return Some(path.clone());
    }
    let line_start = text[..span.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    entries
        .iter()
        .filter(|(_, key, _)| key.start >= line_start && key.start <= span.start)
        .max_by_key(|(_, key, _)| key.start)
        .map(|(path, _, _)| path.clone())
}

fn contains(range: &Range<usize>, offset: usize) -> bool {
    range.start <= offset && offset < range.end
}

type Entry = (String, Range<usize>, Range<usize>);

fn walk(table: &DeTable<'_>, path: &mut Vec<String>, into: &mut Vec<Entry>) {
    for (key, value) in table.iter() {
        path.push(key.get_ref().to_string());
        into.push((path.join("."), key.span(), value.span()));
        walk_value(value.get_ref(), path, into);
        path.pop();
    }
}

fn walk_value(value: &DeValue<'_>, path: &mut Vec<String>, into: &mut Vec<Entry>) {
    match value {
        DeValue::Table(table) => walk(table, path, into),
        DeValue::Array(items) => {
            for item in items.iter() {
                walk_value(item.get_ref(), path, into);
            }
        }
        _ => {}
    }
}
