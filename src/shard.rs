//! A shard of an app, the vocabulary every module shares and none depends
//! on: the segment ID layout and the shard choice, as in the Java service,
//! and how a shard's ready indexes are held.
//!
//! `id = index << 14 | shard << 8 | app`: app 8 bits, shard 6 bits, index 49
//! bits, sign bit 0.

use crate::error::{Error, Result};
use serde::Serialize;

pub const APP_BITS: u32 = 8;
pub const SHARD_BITS: u32 = 6;
pub const INDEX_BITS: u32 = 49;
/// Shards per app: `shard_id` 0..=63.
pub const SHARDS: u8 = 1 << SHARD_BITS;
/// The largest index that fits the layout.
pub const MAX_INDEX: u64 = (1 << INDEX_BITS) - 1;

const LOW_BITS: u32 = APP_BITS + SHARD_BITS;

/// The parts of a segment ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentId {
    pub index: u64,
    pub shard: u8,
    pub app: u8,
}

impl SegmentId {
    /// Packs the parts; fails if the index or shard does not fit.
    pub fn compose(self) -> Result<u64> {
        if self.index > MAX_INDEX {
            return Err(Error::Internal(format!(
                "index {} of app {} shard {} exceeds 49 bits",
                self.index, self.app, self.shard
            )));
        }
        if self.shard >= SHARDS {
            return Err(Error::Internal(format!(
                "shard {} is not between 0 and 63",
                self.shard
            )));
        }
        Ok(self.index << LOW_BITS | u64::from(self.shard) << APP_BITS | u64::from(self.app))
    }

    /// Unpacks an ID; any value with the sign bit clear decodes.
    pub fn decompose(id: u64) -> Self {
        SegmentId {
            index: (id >> LOW_BITS) & MAX_INDEX,
            shard: ((id >> APP_BITS) & u64::from(SHARDS - 1)) as u8,
            app: (id & 0xff) as u8,
        }
    }
}

/// The largest index whose ID stays at or below `max_limit_id` for this app and
/// shard (`None` when no index does). Without a limit (0) it is [`MAX_INDEX`].
pub fn max_index_within(max_limit_id: u64, app: u8, shard: u8) -> Option<u64> {
    if max_limit_id == 0 {
        return Some(MAX_INDEX);
    }
    let low = u64::from(shard) << APP_BITS | u64::from(app);
    let highest = max_limit_id.checked_sub(low)? >> LOW_BITS;
    (highest >= 1).then_some(highest.min(MAX_INDEX))
}

/// Java's `String.hashCode()`: `31 * h + c` over UTF-16 code units, wrapping `i32`.
pub fn java_hash_code(text: &str) -> i32 {
    text.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// The shard a gate pass lands on: `Math.abs(hashCode) % 64`, as the Java service
/// computes it. `Math.abs(i32::MIN)` stays negative in Java, and `i32::MIN % 64`
/// is 0 there as here.
pub fn shard_for_gate_pass(gate_pass: &str) -> u8 {
    let h = java_hash_code(gate_pass).wrapping_abs();
    (h % i32::from(SHARDS)).unsigned_abs() as u8
}

/// How a Redis node (or the embedded store) holds a shard's ready indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DispenserKind {
    /// A list of decimal index strings, `id.gen.idList_{app}_{shard}`: the Java service's format.
    Queue,
    /// Two numbers per segment in a hash; any batch in one round trip.
    Range,
}

impl DispenserKind {
    pub fn parse(text: &str) -> Result<Self> {
        match text.trim() {
            "queue" => Ok(DispenserKind::Queue),
            "range" => Ok(DispenserKind::Range),
            other => Err(Error::invalid(
                "dispenser",
                format!("{other:?} is not a dispenser"),
                "use queue (Java-compatible lists) or range",
            )),
        }
    }

    /// The kind a shard is not served by when it is served by this one.
    pub fn other(self) -> Self {
        match self {
            DispenserKind::Queue => DispenserKind::Range,
            DispenserKind::Range => DispenserKind::Queue,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DispenserKind::Queue => "queue",
            DispenserKind::Range => "range",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_places_index_shard_and_app() {
        let id = SegmentId {
            index: 5,
            shard: 3,
            app: 1,
        };
        assert_eq!(id.compose().unwrap(), 5 << 14 | 3 << 8 | 1);
        assert_eq!(SegmentId::decompose(id.compose().unwrap()), id);
    }

    #[test]
    fn max_index_respects_the_limit() {
        // ID of index i, shard 63, app 255 is i<<14 | 0x3fff.
        let limit = (10 << 14) | 0x3fff;
        assert_eq!(max_index_within(limit, 255, 63), Some(10));
        assert_eq!(max_index_within(limit - 1, 255, 63), Some(9));
        assert_eq!(max_index_within(0x3fff, 255, 63), None);
        assert_eq!(max_index_within(0, 1, 1), Some(MAX_INDEX));
    }
}
