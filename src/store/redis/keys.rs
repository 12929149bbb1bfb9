//! How a node names its keys: the Java service's names, idgen's own, and
//! a shard's keys on a cluster.
//!
//! On one server (or a Sentinel master) every key has the Java service's name.
//! In a Redis Cluster a script's keys must share a hash slot, and the Java queue
//! name `id.gen.idList_{app}_{shard}` carries no hash tag: it hashes whole. The
//! queue keeps its Java name there too, and idgen's companion keys of the shard
//! (lock, range, stamp, witness) get a hash tag chosen so that they hash to the queue
//! key's slot: `id.gen.lock_7_5{1432}` sits in the slot of `id.gen.idList_7_5`.

use crate::shard::DispenserKind;
use crate::store::Slot;
use std::sync::OnceLock;

/// Key name prefixes: the Java service's, followed by `{app}_{shard}` (a
/// route: `{app}`). Names and SCAN patterns are both built from these.
pub const QUEUE_PREFIX: &str = "id.gen.idList_";
pub const RANGE_PREFIX: &str = "id.gen.range_";
pub const LOCK_PREFIX: &str = "id.gen.lock_";
pub const ROUTE_PREFIX: &str = "id.gen.route_";
pub const STAMP_PREFIX: &str = "id.gen.stamp_";
pub const WITNESS_PREFIX: &str = "id.gen.witness_";
pub const BUFFER_PREFIX: &str = "id.gen.push_";

pub fn queue_key(slot: Slot) -> String {
    format!("{QUEUE_PREFIX}{}_{}", slot.app, slot.shard)
}

pub fn range_key(slot: Slot) -> String {
    format!("{RANGE_PREFIX}{}_{}", slot.app, slot.shard)
}

pub fn lock_key(slot: Slot) -> String {
    format!("{LOCK_PREFIX}{}_{}", slot.app, slot.shard)
}

pub fn route_key(app: u8) -> String {
    format!("{ROUTE_PREFIX}{app}")
}

/// The server identity (`run_id`) that stocked a shard, and its `max_limit_id`.
pub fn stamp_key(slot: Slot) -> String {
    format!("{STAMP_PREFIX}{}_{}", slot.app, slot.shard)
}

/// The end of the highest segment ever taken from the ledger for a shard: a
/// witness, kept outside the ledger, of what the ledger handed out.
pub fn witness_key(slot: Slot) -> String {
    format!("{WITNESS_PREFIX}{}_{}", slot.app, slot.shard)
}

/// Where a queue push's transaction puts the segment's indexes for its script
/// to move into the queue (`lua/stock/push.lua`); empty between pushes.
pub fn buffer_key(slot: Slot) -> String {
    format!("{BUFFER_PREFIX}{}_{}", slot.app, slot.shard)
}

/// The last time a ledger was found behind a witness on this node, for `status`.
pub const LEDGER_ROLLBACK_KEY: &str = "id.gen.ledger_rollback";

/// The last dataset change the scripts detected on this node, for `status`.
pub const ROLLBACK_KEY: &str = "id.gen.rollback";

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

    pub fn buffer(self, slot: Slot) -> String {
        self.companion(buffer_key(slot), slot)
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
/// text inside the first non-empty `{…}`, or of the whole key. (redis-rs
/// computes the same for routing, but does not hand out the number.)
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
    crc16::State::<crc16::XMODEM>::calculate(hashed) % CLUSTER_SLOTS
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
            let found = &mut tags[usize::from(hash_slot(tag.as_bytes()))];
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
    use super::{CLUSTER_SLOTS, KeyNames, Slot, hash_slot, queue_key, slot_tag};

    #[test]
    fn slots_match_redis() {
        // Values from CLUSTER KEYSLOT.
        assert_eq!(
            crc16::State::<crc16::XMODEM>::calculate(b"123456789"),
            0x31c3
        );
        assert_eq!(hash_slot(b"foo"), 12182);
        assert_eq!(hash_slot(b"{user1000}.following"), hash_slot(b"user1000"));
        assert_eq!(hash_slot(b"foo{}{bar}"), hash_slot(b"foo{}{bar}"));
        assert_ne!(hash_slot(b"foo{}{bar}"), hash_slot(b"bar"));
        assert_eq!(hash_slot(b"foo{{bar}}zap"), hash_slot(b"{bar"));
    }

    /// The same slots redis-rs routes by, for every key idgen writes.
    #[test]
    fn slots_agree_with_redis_rs_routing() {
        use redis::cluster_routing::Slot as RoutedSlot;
        for app in [0u8, 1, 255] {
            for shard in 0..crate::shard::SHARDS {
                for key in KeyNames::Cluster.shard(Slot { app, shard }) {
                    assert_eq!(
                        RoutedSlot::new(hash_slot(key.as_bytes())),
                        Some(RoutedSlot::for_key(&key)),
                        "{key}"
                    );
                }
            }
        }
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
