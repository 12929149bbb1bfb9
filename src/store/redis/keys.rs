//! How a node names a shard's keys.
//!
//! On one server (or a Sentinel master) every key has the Java service's name.
//! In a Redis Cluster a script's keys must share a hash slot, and the Java queue
//! name `id.gen.idList_{app}_{shard}` carries no hash tag: it hashes whole. The
//! queue keeps its Java name there too, and idgen's companion keys of the shard
//! (lock, range, stamp, witness) get a hash tag chosen so that they hash to the queue
//! key's slot: `id.gen.lock_7_5{1432}` sits in the slot of `id.gen.idList_7_5`.

use super::{lock_key, queue_key, range_key, stamp_key, witness_key};
use crate::shard::DispenserKind;
use crate::store::Slot;
use std::sync::OnceLock;

/// The number of hash slots of a Redis Cluster.
pub const CLUSTER_SLOTS: u16 = 16384;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyNames {
    /// The Java service's names (a standalone server or a Sentinel master).
    Java,
    /// Java queue names; companions tagged into the queue key's slot.
    Cluster,
}

impl KeyNames {
    pub fn queue(self, slot: Slot) -> String {
        queue_key(slot)
    }

    pub fn range(self, slot: Slot) -> String {
        self.companion(range_key(slot), slot)
    }

    pub fn lock(self, slot: Slot) -> String {
        self.companion(lock_key(slot), slot)
    }

    pub fn stamp(self, slot: Slot) -> String {
        self.companion(stamp_key(slot), slot)
    }

    pub fn witness(self, slot: Slot) -> String {
        self.companion(witness_key(slot), slot)
    }

    pub fn stock(self, kind: DispenserKind, slot: Slot) -> String {
        match kind {
            DispenserKind::Queue => self.queue(slot),
            DispenserKind::Range => self.range(slot),
        }
    }

    /// The keys every stock script takes: lock, queue, range, stamp, witness.
    pub fn shard(self, slot: Slot) -> [String; 5] {
        [
            self.lock(slot),
            self.queue(slot),
            self.range(slot),
            self.stamp(slot),
            self.witness(slot),
        ]
    }

    fn companion(self, java: String, slot: Slot) -> String {
        match self {
            KeyNames::Java => java,
            KeyNames::Cluster => {
                let tag = slot_tag(hash_slot(queue_key(slot).as_bytes()));
                format!("{java}{{{tag}}}")
            }
        }
    }
}

/// The hash slot of a key, as Redis Cluster computes it: CRC16 (XMODEM) of the
/// text inside the first non-empty `{…}`, or of the whole key.
pub fn hash_slot(key: &[u8]) -> u16 {
    let hashed = key
        .iter()
        .position(|&b| b == b'{')
        .and_then(|open| {
            let rest = &key[open + 1..];
            let close = rest.iter().position(|&b| b == b'}')?;
            (close > 0).then(|| &rest[..close])
        })
        .unwrap_or(key);
    crc16(hashed) % CLUSTER_SLOTS
}

fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in bytes {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// The hash tag that puts a key into `slot`: the smallest decimal number whose
/// CRC16 lands there. Found once for all slots, in order, so it never changes.
pub fn slot_tag(slot: u16) -> &'static str {
    static TAGS: OnceLock<Vec<String>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| {
        let mut tags = vec![String::new(); usize::from(CLUSTER_SLOTS)];
        let mut missing = tags.len();
        let mut n: u32 = 0;
        while missing > 0 {
            let tag = n.to_string();
            let found = &mut tags[usize::from(crc16(tag.as_bytes()) % CLUSTER_SLOTS)];
            if found.is_empty() {
                *found = tag;
                missing -= 1;
            }
            n += 1;
        }
        tags
    });
    &tags[usize::from(slot % CLUSTER_SLOTS)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_match_redis() {
        // Values from CLUSTER KEYSLOT.
        assert_eq!(crc16(b"123456789"), 0x31c3);
        assert_eq!(hash_slot(b"foo"), 12182);
        assert_eq!(hash_slot(b"{user1000}.following"), hash_slot(b"user1000"));
        assert_eq!(hash_slot(b"foo{}{bar}"), hash_slot(b"foo{}{bar}"));
        assert_ne!(hash_slot(b"foo{}{bar}"), hash_slot(b"bar"));
        assert_eq!(hash_slot(b"foo{{bar}}zap"), hash_slot(b"{bar"));
    }

    #[test]
    fn every_slot_has_a_short_tag() {
        for slot in 0..CLUSTER_SLOTS {
            let tag = slot_tag(slot);
            assert_eq!(hash_slot(tag.as_bytes()), slot, "{tag}");
            assert!(tag.len() <= 6, "{tag}");
        }
    }

    /// Every shard of every app: the script keys share the queue key's slot.
    #[test]
    fn a_shards_keys_share_one_slot_in_a_cluster() {
        for app in 0..=255u8 {
            for shard in 0..crate::shard::SHARDS {
                let slot = Slot { app, shard };
                let keys = KeyNames::Cluster.shard(slot);
                let queue = hash_slot(keys[1].as_bytes());
                assert_eq!(keys[1], queue_key(slot), "the queue keeps its Java name");
                for key in &keys {
                    assert_eq!(hash_slot(key.as_bytes()), queue, "{key}");
                }
            }
        }
        assert_eq!(
            KeyNames::Java.shard(Slot { app: 7, shard: 5 }),
            [
                "id.gen.lock_7_5",
                "id.gen.idList_7_5",
                "id.gen.range_7_5",
                "id.gen.stamp_7_5",
                "id.gen.witness_7_5"
            ]
        );
    }
}
