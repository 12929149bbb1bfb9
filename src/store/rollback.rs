//! What a dispenser or a ledger found when it had gone back in time: the
//! stock retired on a Redis node whose dataset changed, the ledger moved past
//! a node's witness, and their records for `status`. Both mean gaps, never
//! repeats; these types say so to an operator.

use serde::Serialize;
use std::collections::BTreeMap;

/// A dispenser found that a shard's stock was not stocked by the server now
/// serving it (Redis restarted from an older snapshot, lost its AOF tail, or a
/// replica took over), and retired that stock unserved: a gap, never a repeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rollback {
    pub node: String,
    pub app: u8,
    pub shard: u8,
    /// The server identity the stock carried (`None`: no stamp at all, such as
    /// stock the Java service pushed before idgen ever stocked the shard).
    pub stamped: Option<String>,
    /// The identity of the server serving now.
    pub serving: String,
    /// Indexes retired unserved.
    pub retired: u64,
}

impl Rollback {
    /// One line per dataset change, for an operator: the shards of one node
    /// found stale under the same stamps are added up.
    pub fn summarize(rollbacks: &[Rollback]) -> Vec<String> {
        let mut groups: BTreeMap<(&str, Option<&str>, &str), (u64, u64)> = BTreeMap::new();
        for r in rollbacks {
            let group = groups
                .entry((r.node.as_str(), r.stamped.as_deref(), r.serving.as_str()))
                .or_default();
            group.0 += 1;
            group.1 += r.retired;
        }
        groups
            .into_iter()
            .map(|((node, stamped, serving), (shards, retired))| {
                let shards = format!("{shards} shard{}", if shards == 1 { "" } else { "s" });
                if node == crate::store::sqlite::EMBEDDED_NODE {
                    return format!(
                        "the embedded store went back in time (an older copy of its file restored, or the file replaced): its stock held indexes it had handed out before, as its witness file records; retired {retired} indexes from {shards} unserved, a gap and never a repeat"
                    );
                }
                let stamped = stamped.map_or_else(
                    || "carried no stamp (stocked by another tool, or before idgen stamped it)".to_string(),
                    |s| format!("was stocked by server {}", short_id(s)),
                );
                format!(
                    "Redis node {node} is not the dataset idgen stocked: its stock {stamped}, and server {} serves it now (a restart from an older snapshot, a lost AOF tail or a failover); retired {retired} indexes from {shards} unserved, a gap and never a repeat",
                    short_id(serving),
                )
            })
            .collect()
    }
}

/// A ledger found behind the witness of what it had handed out: its `max_id`
/// for a shard was below the end of a segment it handed out before (an async
/// replica promoted after lag, a restored backup, a crash that lost committed
/// transactions). It was moved past the witness before any index was taken,
/// so the indexes in between are a gap, never a repeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LedgerRollback {
    pub app: u8,
    pub shard: u8,
    /// The `max_id` the ledger had (a string in JSON: it may exceed 2^53).
    #[serde(serialize_with = "crate::status::u64_as_string")]
    pub ledger_max_id: u64,
    /// The witness it was moved past.
    #[serde(serialize_with = "crate::status::u64_as_string")]
    pub witness: u64,
}

impl LedgerRollback {
    /// One line per app for an operator: the shards found behind, added up.
    pub fn summarize(ledger: &str, rollbacks: &[LedgerRollback]) -> Vec<String> {
        let mut apps: BTreeMap<u8, (Vec<u8>, u64)> = BTreeMap::new();
        for r in rollbacks {
            let app = apps.entry(r.app).or_default();
            app.0.push(r.shard);
            app.1 += r.witness.saturating_sub(r.ledger_max_id);
        }
        apps.into_iter()
            .map(|(app, (mut shards, skipped))| {
                shards.sort_unstable();
                shards.dedup();
                format!(
                    "the ledger ({ledger}) is behind what it handed out: app {app} shard{} {} had handed out indexes it no longer records, so it went back in time (a promoted replica that lagged, a restored backup, an older copy of its file); moved past the witness kept outside it, skipping {skipped} indexes, a gap and never a repeat",
                    if shards.len() == 1 { "" } else { "s" },
                    crate::segment::reload::shard_list(&shards),
                )
            })
            .collect()
    }
}

/// The last time a node's witness found the ledger behind, as `status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LedgerRollbackRecord {
    pub node: String,
    /// Unix ms of the first and the last detection since the record was made.
    pub first_ms: i64,
    pub last_ms: i64,
    /// Shards found behind, and indexes skipped, added up.
    pub shards: u64,
    pub skipped: u64,
}
/// The first 8 characters of a 40-character server `run_id`.
pub fn short_id(run_id: &str) -> &str {
    run_id.get(..8).unwrap_or(run_id)
}
/// The shards of one dataset change, added up, as `status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RollbackRecord {
    pub node: String,
    /// Unix ms of the first and the last shard found stale.
    pub first_ms: i64,
    pub last_ms: i64,
    /// The stamp found (`None`: none) and the server serving now.
    pub stamped: Option<String>,
    pub serving: String,
    pub shards: u64,
    pub retired: u64,
}
