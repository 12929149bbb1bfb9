//! Reading Redis answers: queue entries as indexes (malformed ones set
//! aside), texts and numbers out of script replies, slots out of key names,
//! and fields of `INFO`.

use crate::store::{Malformed, Slot, Taken};
use redis::Value;

/// An index as the Java service stores it: ASCII digits only (its
/// `NumberUtils.isDigits`), and within the 49-bit index field.
pub fn parse_index(entry: &[u8]) -> Option<u64> {
    if entry.is_empty() || !entry.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(entry)
        .ok()?
        .parse()
        .ok()
        .filter(|&index| index <= crate::shard::MAX_INDEX)
}

pub fn bytes_of(value: &Value) -> Option<&[u8]> {
    match value {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

pub fn text_of(value: Option<&Value>) -> String {
    match value {
        Some(Value::Int(n)) => n.to_string(),
        Some(v) => bytes_of(v)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default(),
        None => String::new(),
    }
}

pub fn int_of(value: Option<&Value>) -> i64 {
    text_of(value).parse().unwrap_or(0)
}

/// A printable form of a stored entry, cut short.
pub fn shown(entry: &[u8]) -> String {
    let text = String::from_utf8_lossy(entry);
    let mut shown: String = text
        .chars()
        .take(40)
        .collect::<String>()
        .escape_debug()
        .to_string();
    if text.chars().count() > 40 {
        shown.push('…');
    }
    shown
}

/// A shard's stamp hash: the stocking server's `run_id`, the `max_limit_id`,
/// the dispenser kind and the stocking server's `master_replid`.
pub type StampFields = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// Adds queue entries to `taken`, setting malformed ones aside.
pub fn parse_entries(taken: &mut Taken, key: &str, entries: &[Value]) {
    taken.indexes.reserve(entries.len());
    for entry in entries {
        let bytes = bytes_of(entry).unwrap_or_default();
        match parse_index(bytes) {
            Some(index) => taken.indexes.push(index),
            None => reject(taken, key, bytes),
        }
    }
}

/// Notes an entry that is not an index: dropped (a gap), reported as bad data.
pub fn reject(taken: &mut Taken, key: &str, entry: &[u8]) {
    let malformed = taken.malformed.get_or_insert_with(|| Malformed {
        key: key.to_string(),
        entry: shown(entry),
        count: 0,
    });
    malformed.count += 1;
}
/// Parses `{app}_{shard}`; anything else (such as the Java service's bare
/// `id.gen.idList_` lock key) is not a slot.
pub fn parse_slot(rest: &str) -> Option<Slot> {
    // A cluster's companion keys end in a hash tag: `7_5{1432}`.
    let rest = rest.split('{').next().unwrap_or(rest);
    let (app, shard) = rest.split_once('_')?;
    let slot = Slot {
        app: app.parse().ok()?,
        shard: shard.parse().ok()?,
    };
    (slot.shard < crate::shard::SHARDS).then_some(slot)
}

pub fn range_stock(fields: &[Value]) -> Option<u64> {
    let num = |i: usize| -> Option<i128> {
        let bytes = fields.get(i).and_then(bytes_of)?;
        std::str::from_utf8(bytes).ok()?.parse().ok()
    };
    let (next, last) = (num(0)?, num(1)?);
    Some(crate::store::range_count(next, last, num(2).zip(num(3))))
}
/// One field of an `INFO` answer (`redis_version`, `run_id`); empty when absent.
pub fn info_field(info: &str, name: &str) -> String {
    redis::InfoDict::new(info)
        .get::<String>(name)
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Every text inside an answer (a cluster's per-node answers come as a map).
pub fn texts_in(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) | Value::Set(items) => items.iter().flat_map(texts_in).collect(),
        Value::Map(pairs) => pairs.iter().flat_map(|(_, v)| texts_in(v)).collect(),
        Value::VerbatimString { text, .. } => vec![text.clone()],
        other => vec![text_of(Some(other))],
    }
}

/// The `host:port` of the master an `INFO replication` answer names (a replica's).
pub fn master_of(replication: &str) -> Option<String> {
    let (host, port) = (
        info_field(replication, "master_host"),
        info_field(replication, "master_port"),
    );
    (!host.is_empty() && !port.is_empty()).then(|| format!("{host}:{port}"))
}

/// The elements of a script's array answer.
pub fn fields(answer: Value) -> Vec<Value> {
    match answer {
        Value::Array(items) => items,
        other => vec![other],
    }
}

#[cfg(test)]
mod tests {
    use super::{Slot, parse_index, parse_slot};

    #[test]
    fn slots_parse_from_key_suffixes() {
        assert_eq!(parse_slot("7_63"), Some(Slot { app: 7, shard: 63 }));
        assert_eq!(parse_slot("7_64"), None);
        assert_eq!(parse_slot(""), None);
        assert_eq!(parse_slot("x_1"), None);
        assert_eq!(parse_slot("7_5{1432}"), Some(Slot { app: 7, shard: 5 }));
    }

    #[test]
    fn an_index_wider_than_49_bits_is_not_an_index() {
        assert_eq!(parse_index(b"562949953421311"), Some((1 << 49) - 1));
        assert_eq!(parse_index(b"562949953421312"), None);
        assert_eq!(parse_index(b"99999999999999999999999"), None);
    }

    #[test]
    fn only_decimal_digits_are_indexes() {
        assert_eq!(parse_index(b"123"), Some(123));
        assert_eq!(parse_index(b"-1"), None);
        assert_eq!(parse_index(b"1e3"), None);
        assert_eq!(parse_index(b""), None);
    }
}
