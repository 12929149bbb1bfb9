//! Segment IDs: `index << 14 | shard << 8 | app`, with indexes taken from MySQL in
//! ranges and served from a dispenser.

use serde::Serialize;

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
    pub fn parse(text: &str) -> crate::Result<Self> {
        match text.trim() {
            "queue" => Ok(DispenserKind::Queue),
            "range" => Ok(DispenserKind::Range),
            other => Err(crate::Error::invalid(
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

pub mod allocator;
pub mod buffer;
pub mod id;
pub mod migrate;
pub mod reload;
pub mod sizing;
pub mod switch;

pub use allocator::{AllocatorOptions, Issued, ReloadOptions, ReloadReport, SegmentAllocator};
pub use buffer::{BufferKey, BufferOptions, BufferedAllocator};
pub use id::{SHARDS, SegmentId, java_hash_code, max_index_within, shard_for_gate_pass};
pub use switch::DispenserSwitch;
