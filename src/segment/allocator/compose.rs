//! Turning taken indexes into IDs. Every index served goes through here, so
//! this is the one place that refuses an index past the shard's
//! `max_limit_id`, whoever stocked it.

use crate::error::{Error, Result};
use crate::segment::id::SegmentId;
use crate::store::Slot;

/// Composes taken indexes, refusing every one past the shard's `max_limit_id`:
/// stock can outlive a lowered limit, or come from a tool that never checks it.
pub(super) fn compose_within(
    ids: &mut Vec<u64>,
    slot: Slot,
    max_limit_id: u64,
    indexes: Vec<u64>,
) -> Result<()> {
    let ceiling =
        crate::segment::id::max_index_within(max_limit_id, slot.app, slot.shard).unwrap_or(0);
    let within = indexes
        .iter()
        .take_while(|&&index| index <= ceiling)
        .count();
    compose_into(ids, slot, indexes[..within].iter().copied())?;
    if within < indexes.len() {
        return Err(Error::LimitReached {
            app: slot.app,
            shard: slot.shard,
            max_limit_id,
        });
    }
    Ok(())
}

/// Appends the IDs of `indexes` of `slot` to `ids`.
pub(super) fn compose_into(
    ids: &mut Vec<u64>,
    slot: Slot,
    indexes: impl Iterator<Item = u64>,
) -> Result<()> {
    for index in indexes {
        ids.push(
            SegmentId {
                index,
                shard: slot.shard,
                app: slot.app,
            }
            .compose()?,
        );
    }
    Ok(())
}
