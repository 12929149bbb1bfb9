//! A list in the form `DUMP` writes and `RESTORE` reads, so that a queue's
//! segment reaches Redis as one compact value (a few bytes per index) instead
//! of one `RPUSH` argument per index, which the server parses and copies one
//! by one (about 4x the time for 1,000 indexes).
//!
//! The value is the one `RPUSH` of the same entries makes, byte for byte:
//! RDB type 18 (a quicklist of listpacks, Redis 7.0 and later), each entry
//! encoded as `lpAppend` encodes it (a string that is a canonical 64-bit
//! integer as that integer, else as a string), listpacks of at most
//! 8 KiB (`NODE_BYTES`). The footer names RDB version 10, the oldest that knows
//! type 18, so every later server accepts it, and carries the CRC-64 that
//! `RESTORE` checks. A server built with `sanitize-dump-payload yes` checks
//! every entry too; the test suite runs its servers so.

use crc::{CRC_64_REDIS, Crc, Table};

/// RDB type of a quicklist whose nodes are listpacks (`RDB_TYPE_LIST_QUICKLIST_2`).
const RDB_TYPE_QUICKLIST_2: u8 = 18;
/// The oldest RDB version with [`RDB_TYPE_QUICKLIST_2`] (Redis 7.0).
const RDB_VERSION: u16 = 10;
/// A quicklist node holding a listpack (`QUICKLIST_NODE_CONTAINER_PACKED`).
const CONTAINER_PACKED: u8 = 2;
/// The largest listpack made, header and terminator included: the size
/// Redis's default `list-max-listpack-size -2` keeps a node within.
const NODE_BYTES: usize = 8192;
/// A listpack's header: total bytes, entry count.
const HEADER: usize = 6;
/// A listpack's terminator.
const END: u8 = 0xFF;

/// Redis's CRC-64 (Jones), 16 bytes a step.
const CRC: Crc<u64, Table<16>> = Crc::<u64, Table<16>>::new(&CRC_64_REDIS);

/// One entry of a list, stored as Redis stores what `RPUSH` is given.
#[derive(Clone, Copy, Debug)]
pub enum Entry<'a> {
    /// Bytes: a canonical 64-bit integer among them is stored as that integer.
    Text(&'a [u8]),
    /// An index: an integer, or past `i64::MAX` its decimal text (as Redis
    /// stores the decimal it is given).
    Uint(u64),
}

/// The `RESTORE` payload of the list `entries`, in order.
pub fn list<'a>(entries: impl IntoIterator<Item = Entry<'a>>) -> Vec<u8> {
    let mut nodes: Vec<Vec<u8>> = Vec::new();
    let mut node = ListPack::new();
    for entry in entries {
        // Encoded in place: the entry is moved to a new node only when it
        // does not fit, which is once a node.
        let start = node.bytes.len();
        encode(entry, &mut node.bytes);
        if !node.fits() {
            let mut next = ListPack::new();
            next.bytes.extend_from_slice(&node.bytes[start..]);
            node.bytes.truncate(start);
            nodes.push(std::mem::replace(&mut node, next).finish());
        }
        node.count += 1;
    }
    if node.count > 0 {
        nodes.push(node.finish());
    }
    let size: usize = nodes.iter().map(|n| n.len() + 10).sum();
    let mut payload = Vec::with_capacity(1 + 5 + size + 10);
    payload.push(RDB_TYPE_QUICKLIST_2);
    rdb_length(nodes.len(), &mut payload);
    for node in &nodes {
        rdb_length(usize::from(CONTAINER_PACKED), &mut payload);
        rdb_length(node.len(), &mut payload);
        payload.extend_from_slice(node);
    }
    payload.extend_from_slice(&RDB_VERSION.to_le_bytes());
    let crc = CRC.checksum(&payload);
    payload.extend_from_slice(&crc.to_le_bytes());
    payload
}

/// One listpack under construction: its entries after room for the header.
struct ListPack {
    bytes: Vec<u8>,
    count: usize,
}

impl ListPack {
    fn new() -> Self {
        // Room for the entry that overflows the node, before it moves on.
        let mut bytes = Vec::with_capacity(NODE_BYTES + 32);
        bytes.resize(HEADER, 0);
        ListPack { bytes, count: 0 }
    }

    /// Does the entry just encoded fit, with the terminator? An empty
    /// listpack takes any one entry, however long.
    fn fits(&self) -> bool {
        self.count == 0 || (self.bytes.len() < NODE_BYTES && self.count < 65_535)
    }

    fn finish(mut self) -> Vec<u8> {
        self.bytes.push(END);
        let total = u32::try_from(self.bytes.len()).unwrap_or(u32::MAX);
        self.bytes[..4].copy_from_slice(&total.to_le_bytes());
        let count = u16::try_from(self.count).unwrap_or(u16::MAX);
        self.bytes[4..HEADER].copy_from_slice(&count.to_le_bytes());
        self.bytes
    }
}

/// Appends `entry`'s encoding and its back length, as `lpAppend` writes them.
#[inline]
fn encode(entry: Entry<'_>, out: &mut Vec<u8>) {
    let start = out.len();
    match entry {
        Entry::Uint(v) => match i64::try_from(v) {
            Ok(v) => encode_int(v, out),
            Err(_) => encode_text(itoa::Buffer::new().format(v).as_bytes(), out),
        },
        Entry::Text(text) => match canonical_int(text) {
            Some(v) => encode_int(v, out),
            None => encode_text(text, out),
        },
    }
    back_length(out.len() - start, out);
}

/// The integer `text` spells, when Redis would store it as one: a 64-bit
/// integer written the one way it prints (no sign but a leading '-', no
/// leading zero, no "-0").
fn canonical_int(text: &[u8]) -> Option<i64> {
    let text = std::str::from_utf8(text).ok()?;
    let v: i64 = text.parse().ok()?;
    let mut buffer = itoa::Buffer::new();
    (buffer.format(v) == text).then_some(v)
}

#[inline]
fn encode_int(v: i64, out: &mut Vec<u8>) {
    let bytes = v.to_le_bytes();
    match v {
        0..=127 => out.push(v as u8),
        -4096..=4095 => {
            let v = if v < 0 { v + (1 << 13) } else { v };
            out.extend_from_slice(&[0xC0 | (v >> 8) as u8, v as u8]);
        }
        -32_768..=32_767 => {
            out.push(0xF1);
            out.extend_from_slice(&bytes[..2]);
        }
        -8_388_608..=8_388_607 => {
            out.push(0xF2);
            out.extend_from_slice(&bytes[..3]);
        }
        -2_147_483_648..=2_147_483_647 => {
            out.push(0xF3);
            out.extend_from_slice(&bytes[..4]);
        }
        _ => {
            out.push(0xF4);
            out.extend_from_slice(&bytes);
        }
    }
}

fn encode_text(text: &[u8], out: &mut Vec<u8>) {
    let len = text.len();
    if len < 64 {
        out.push(0x80 | len as u8);
    } else if len < 4096 {
        out.extend_from_slice(&[0xE0 | (len >> 8) as u8, len as u8]);
    } else {
        out.push(0xF0);
        out.extend_from_slice(&(len as u32).to_le_bytes());
    }
    out.extend_from_slice(text);
}

/// An entry's length written to be read backwards, as `lpEncodeBacklen`
/// writes it: seven bits a byte, highest first, every byte after the first
/// flagged 128 (its size steps at Redis's own bounds).
#[inline]
fn back_length(len: usize, out: &mut Vec<u8>) {
    let bytes = match len {
        0..=127 => 1,
        128..=16_382 => 2,
        16_383..=2_097_150 => 3,
        2_097_151..=268_435_454 => 4,
        _ => 5,
    };
    for i in (0..bytes).rev() {
        let group = ((len >> (7 * i)) & 127) as u8;
        out.push(if i == bytes - 1 { group } else { group | 128 });
    }
}

/// A length in the RDB's own encoding (big-endian beyond 14 bits).
fn rdb_length(len: usize, out: &mut Vec<u8>) {
    if len < 1 << 6 {
        out.push(len as u8);
    } else if len < 1 << 14 {
        out.extend_from_slice(&[0x40 | (len >> 8) as u8, len as u8]);
    } else if let Ok(len) = u32::try_from(len) {
        out.push(0x80);
        out.extend_from_slice(&len.to_be_bytes());
    } else {
        out.push(0x81);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
}
