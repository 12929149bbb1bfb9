//! A queue push fills its buffer with one `RESTORE` of the whole list
//! (`store::redis::dump`): what a real server makes of the payload is the
//! list `RPUSH` of the same entries makes. The harness's servers run with
//! `sanitize-dump-payload yes`, so each payload is also checked entry by
//! entry by Redis itself.

use crate::harness::TestEnv;
use idgen::store::redis::dump::{self, Entry};
use proptest::prelude::*;

/// The bytes `DUMP` writes for `key`, without the footer (RDB version and
/// CRC), which names the server's own version.
fn dumped(conn: &mut redis::Connection, key: &str) -> Vec<u8> {
    let bytes: Vec<u8> = redis::cmd("DUMP").arg(key).query(conn).expect("DUMP");
    bytes[..bytes.len() - 10].to_vec()
}

/// RESTOREs `entries` into one key and RPUSHes them into another; returns
/// both lists as the server reads them back.
fn restored_and_pushed(
    conn: &mut redis::Connection,
    entries: &[Entry<'_>],
) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let texts: Vec<Vec<u8>> = entries
        .iter()
        .map(|entry| match entry {
            Entry::Text(text) => text.to_vec(),
            Entry::Uint(v) => v.to_string().into_bytes(),
        })
        .collect();
    redis::cmd("RESTORE")
        .arg("restored")
        .arg(0)
        .arg(dump::list(entries.iter().copied()))
        .arg("REPLACE")
        .exec(conn)
        .expect("RESTORE accepts the payload");
    redis::cmd("DEL").arg("pushed").exec(conn).expect("DEL");
    redis::cmd("RPUSH")
        .arg("pushed")
        .arg(&texts)
        .exec(conn)
        .expect("RPUSH");
    let read = |conn: &mut redis::Connection, key: &str| -> Vec<Vec<u8>> {
        redis::cmd("LRANGE")
            .arg(key)
            .arg(0)
            .arg(-1)
            .query(conn)
            .expect("LRANGE")
    };
    (read(conn, "restored"), read(conn, "pushed"))
}

/// Integers at and beside every bound of the listpack's encodings.
fn any_int() -> impl Strategy<Value = i64> {
    let bounds: Vec<i64> = [0i64, 127, 4095, 32_767, 8_388_607, 2_147_483_647, i64::MAX]
        .iter()
        .flat_map(|&b| [b, b.saturating_add(1), -b, -b - 1])
        .collect();
    prop_oneof![
        proptest::sample::select(bounds),
        any::<i64>(),
        0i64..1 << 50
    ]
}

/// Indexes, and numbers past `i64::MAX` that Redis keeps as text.
fn any_uint() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..1 << 50,
        (i64::MAX as u64)..=(i64::MAX as u64) + 2,
        any::<u64>(),
    ]
}

/// Texts the way a token or a stray entry may look: some spell integers
/// (canonical or not), some take the longer length forms. Short enough that
/// with the integers the list stays one node, laid out by both alike.
fn any_text() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        "[0-9a-f]{32}".prop_map(String::into_bytes),
        "-?[0-9]{1,21}".prop_map(String::into_bytes),
        "\\+?0[0-9]{0,3}".prop_map(String::into_bytes),
        proptest::collection::vec(any::<u8>(), 0..300),
        proptest::collection::vec(any::<u8>(), 4090..5000),
    ]
}

#[test]
fn a_restored_list_is_byte_for_byte_the_list_rpush_makes() {
    let env = TestEnv::distributed();
    // The runner takes a `Fn`: the one connection is borrowed per case.
    let conn = std::cell::RefCell::new(env.redis());
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(200));
    let lists = (
        any_text(),
        proptest::collection::vec(any_int(), 0..300),
        proptest::collection::vec(any_uint(), 0..4),
    );
    runner
        .run(&lists, |(text, ints, uints)| {
            // Negative integers reach the integer forms as text, as Redis reads them.
            let ints: Vec<String> = ints.iter().map(i64::to_string).collect();
            let entries: Vec<Entry<'_>> = std::iter::once(Entry::Text(&text))
                .chain(ints.iter().map(|v| Entry::Text(v.as_bytes())))
                .chain(uints.iter().map(|&v| Entry::Uint(v)))
                .collect();
            let conn = &mut *conn.borrow_mut();
            let (restored, pushed) = restored_and_pushed(conn, &entries);
            prop_assert_eq!(restored, pushed);
            prop_assert_eq!(dumped(conn, "restored"), dumped(conn, "pushed"));
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_restored_list_longer_than_one_node_reads_back_in_order() {
    let env = TestEnv::distributed();
    let mut conn = env.redis();
    let token = b"0123456789abcdef0123456789abcdef";
    let entries: Vec<Entry<'_>> = std::iter::once(Entry::Text(token))
        .chain((1u64 << 40..(1u64 << 40) + 50_000).map(Entry::Uint))
        .collect();
    let (restored, pushed) = restored_and_pushed(&mut conn, &entries);
    assert_eq!(restored.len(), 50_001);
    assert_eq!(restored, pushed);
    let nodes = dump::list(entries.iter().copied())[1];
    assert!(nodes > 1, "50,000 indexes fill more than one listpack");
}
