//! The records a node keeps for `status`: the last dataset rollback its
//! scripts detected, and the last ledger found behind a witness.

use super::RedisNode;
use super::keys::ROLLBACK_KEY;
use super::scripts::scripts;
use crate::error::Result;
use crate::store::{Rollback, Slot};
use std::collections::BTreeMap;

/// One of the records a node keeps for `status` (a hash of text fields).
pub(super) struct Record(pub(super) BTreeMap<String, String>);

impl Record {
    /// A field as a number; 0 when missing or not one.
    pub(super) fn number(&self, name: &str) -> u64 {
        self.0.get(name).and_then(|v| v.parse().ok()).unwrap_or(0)
    }

    /// The node that wrote the record, else `default`.
    pub(super) fn node(&self, default: &str) -> String {
        self.0
            .get("node")
            .cloned()
            .unwrap_or_else(|| default.to_string())
    }
}

impl RedisNode {
    /// Reads a script's rollback answer (`''` or `'stamped serving'`) and
    /// records it for `status`.
    pub(super) async fn rollback_of(
        &self,
        slot: Slot,
        answer: &str,
        retired: i64,
    ) -> Option<Rollback> {
        let (stamped, serving) = answer.split_once(' ')?;
        let rollback = Rollback {
            node: self.name.clone(),
            app: slot.app,
            shard: slot.shard,
            stamped: (stamped != "-").then(|| stamped.to_string()),
            serving: serving.to_string(),
            retired: u64::try_from(retired).unwrap_or(0),
        };
        // The record only informs `status`: losing it must not fail a take.
        let _: Result<i64> = self
            .invoke(
                &scripts().note_rollback,
                &[ROLLBACK_KEY],
                &[
                    crate::clock::process_now_ms().to_string(),
                    self.name.clone(),
                    stamped.to_string(),
                    serving.to_string(),
                    rollback.retired.to_string(),
                ],
            )
            .await;
        Some(rollback)
    }

    /// A record hash for `status` (empty when missing).
    pub(super) async fn record(&self, key: &str) -> Result<Record> {
        let mut conn = self.conn().await?;
        self.bounded(redis::cmd("HGETALL").arg(key).query_async(&mut conn))
            .await
            .map(Record)
    }
}
