//! Segment IDs: `index << 14 | shard << 8 | app`, with indexes taken from MySQL in
//! ranges and served from a dispenser.

pub use crate::shard::DispenserKind;

pub mod allocator;
pub mod buffer;
pub mod id {
    //! The segment ID layout: see [`crate::shard`], where it is defined.
    pub use crate::shard::*;
}
pub mod migrate;
pub mod reload;
pub mod sizing {
    //! Segment sizing: the pure planner the ledgers call, see [`crate::store::sizing`].
    pub use crate::store::sizing::*;
}
pub mod switch;

pub use allocator::{AllocatorOptions, Issued, ReloadOptions, ReloadReport, SegmentAllocator};
pub use buffer::{BufferKey, BufferOptions, BufferedAllocator};
pub use id::{SHARDS, SegmentId, java_hash_code, max_index_within, shard_for_gate_pass};
pub use switch::DispenserSwitch;
