//! Redis replies as idgen reads them: a shard's stamp hash, queue entries
//! (bad ones among them), a range hash's stock, script answers, `INFO` text
//! (role, master, run_id, replid, version) and a cluster's per-node answers.
//!
//! Input: one reply in the Redis protocol (RESP2 or RESP3), as a server would
//! send it; see fuzz/corpus/redis_reply. It is read by redis-rs, as every
//! reply is, then by each of idgen's readers the way the store reads it.
//!
//! Checks: no panic; every queue entry is either an index within the index
//! field or counted as malformed, and a malformed one is shown on one short
//! line; a slot's shard is one of the 64.

#![no_main]

use idgen::shard::{DispenserKind, MAX_INDEX, SHARDS};
use idgen::store::redis::reply::{
    StampFields, fields, info_field, int_of, master_of, parse_entries, parse_index, parse_slot,
    range_stock, shown, text_of, texts_in,
};
use idgen::store::{Taken, version_at_least};
use libfuzzer_sys::fuzz_target;
use redis::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(reply) = redis::parse_redis_value(data) else {
        return;
    };
    warm_take(&reply);
    script_take(&reply);
    stock_read(&reply);
    info_answers(&reply);
    for text in texts_in(&reply) {
        if let Some(slot) = parse_slot(&text) {
            assert!(slot.shard < SHARDS, "{text:?}");
        }
    }
});

/// The warm take's pipeline: the stamp, the pop, the route hint and `INFO
/// replication` (`take_queue_direct`).
fn warm_take(reply: &Value) {
    let Value::Array(answers) = reply else {
        return;
    };
    let [stamp, popped, hint, replication] = answers.as_slice() else {
        return;
    };
    if let Ok(replication) = redis::from_redis_value_ref::<String>(replication) {
        let _ = info_field(&replication, "role");
        let _ = info_field(&replication, "master_replid");
        let _ = master_of(&replication);
    }
    if let Ok((_, limit, kind, _)) = redis::from_redis_value_ref::<StampFields>(stamp) {
        let _ = limit.and_then(|l| l.parse::<u64>().ok());
        let _ = kind.as_deref().and_then(|k| DispenserKind::parse(k).ok());
    }
    let _ = redis::from_redis_value_ref::<Option<String>>(hint);
    let entries = match popped {
        Value::Array(entries) => entries.clone(),
        Value::Nil => Vec::new(),
        single => vec![single.clone()],
    };
    entries_are_indexes_or_malformed(&entries);
}

/// A take script's answer: the rollback seen, the count retired, the limit,
/// the recorded dispenser, then entries (`take_as`).
fn script_take(reply: &Value) {
    let answer = fields(reply.clone());
    let _ = text_of(answer.get(2)).parse::<u64>();
    let _ = DispenserKind::parse(&text_of(answer.get(3)));
    let _ = text_of(answer.first()).split_once(' ');
    let _ = u64::try_from(int_of(answer.get(1)));
    entries_are_indexes_or_malformed(answer.get(4..).unwrap_or_default());
}

/// Every entry is an index within the index field, or counted as malformed;
/// the first malformed one is shown on one short line.
fn entries_are_indexes_or_malformed(entries: &[Value]) {
    let mut taken = Taken::default();
    parse_entries(&mut taken, "id.gen.idList_1_0", entries);
    let malformed = taken.malformed.as_ref().map_or(0, |m| m.count);
    assert_eq!(taken.indexes.len() as u64 + malformed, entries.len() as u64);
    assert!(taken.indexes.iter().all(|&index| index <= MAX_INDEX));
    if let Some(m) = &taken.malformed {
        assert!(!m.entry.chars().any(char::is_control), "{:?}", m.entry);
        assert!(m.entry.chars().count() <= 40 * 10 + 1, "{:?}", m.entry);
    }
    for entry in entries {
        if let Some(bytes) = idgen::store::redis::reply::bytes_of(entry) {
            index_reads_as_written(bytes);
            let _ = shown(bytes);
        }
    }
}

/// An index is the decimal digits of a number within the index field.
fn index_reads_as_written(bytes: &[u8]) {
    if let Some(index) = parse_index(bytes) {
        let digits = std::str::from_utf8(bytes).expect("an index is ASCII");
        let significant = digits.trim_start_matches('0');
        let significant = if significant.is_empty() {
            "0"
        } else {
            significant
        };
        assert_eq!(index.to_string(), significant);
        assert!(index <= MAX_INDEX);
    }
}

/// The stock read's answers: a queue's length, a range hash's four fields,
/// and the marks (`stock_round`, `read_marks`).
fn stock_read(reply: &Value) {
    if let Value::Array(fields) = reply {
        let _ = range_stock(fields);
    }
    if let Value::Int(n) = reply {
        let _ = (*n).max(0) as u64;
    }
    let _ = text_of(Some(reply)).parse::<u64>();
}

/// `INFO` answers, one per node for a cluster: version, run_id, role, master.
fn info_answers(reply: &Value) {
    for info in texts_in(reply) {
        let version = info_field(&info, "redis_version");
        let _ = version_at_least(&version, (7, 0));
        let _: Vec<u32> = version
            .split('.')
            .map(|part| part.parse::<u32>().unwrap_or(0))
            .collect();
        let _ = info_field(&info, "run_id");
        let _ = info_field(&info, "role");
        if let Some(master) = master_of(&info) {
            assert!(master.contains(':'));
        }
    }
}
