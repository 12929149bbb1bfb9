//! What `reload-segments` reports, and how it is grouped for an operator:
//! one line per app and cause, however many of its 64 shards share it.
//! Kept apart from the run, which only records into it.

use crate::error::Error;
use crate::segment::DispenserKind;
use crate::store::{LedgerRollback, Rollback, Slot};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize)]
pub struct ShardFailure {
    pub app: u8,
    pub shard: u8,
    pub node: String,
    pub error: String,
    /// The error's class, named as its exit code is (`bad-data`).
    pub kind: crate::ErrorKind,
    /// The fix, when there is a clear one.
    pub hint: Option<String>,
}

impl ShardFailure {
    pub(super) fn of(node: &str, slot: Slot, error: &Error) -> Self {
        ShardFailure {
            app: slot.app,
            shard: slot.shard,
            node: node.to_string(),
            error: error.to_string(),
            kind: error.kind(),
            hint: error.hint(),
        }
    }
}

/// Stock on a node that no app routed there owns.
#[derive(Debug, Clone, Serialize)]
pub struct OrphanStock {
    pub node: String,
    pub app: u8,
    pub dispenser: DispenserKind,
    pub shards: Vec<u8>,
    pub reason: String,
    pub pruned_ids: Option<u64>,
}

/// Shards of one app that failed for the same reason, so that output stays one
/// line per app and cause however many shards there are.
#[derive(Debug, Clone, Serialize)]
pub struct FailureGroup {
    pub app: u8,
    pub node: String,
    pub shards: Vec<u8>,
    pub error: String,
    pub kind: crate::ErrorKind,
    pub hint: Option<String>,
}

/// An app whose shards reached `max_limit_id`: reported, not a failure, since
/// every later run would fail the same way until an operator acts.
#[derive(Debug, Clone, Serialize)]
pub struct ExhaustedApp {
    pub app: u8,
    pub shards: Vec<u8>,
    /// A string in JSON: it may exceed 2^53.
    #[serde(serialize_with = "crate::status::u64_as_string")]
    pub max_limit_id: u64,
}

/// The summary of `reload-segments`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReloadReport {
    pub shards_checked: u64,
    pub shards_below_threshold: u64,
    pub shards_refilled: u64,
    pub ids_added: u64,
    pub shards_busy: u64,
    pub segments_dropped: u64,
    pub failures: Vec<ShardFailure>,
    /// `failures` per app, node and cause.
    pub failure_groups: Vec<FailureGroup>,
    pub exhausted: Vec<ExhaustedApp>,
    pub orphans: Vec<OrphanStock>,
    pub warnings: Vec<String>,
    /// Stale stock found and retired on a node that went back in time.
    pub rollbacks: Vec<Rollback>,
    /// Shards whose ledger was found behind a node's witness, and moved past it.
    pub ledger_rollbacks: Vec<LedgerRollback>,
    /// Stopped early by `cancel`: these shards were not refilled.
    pub shards_skipped: u64,
}

/// `3`, or `0-63` or `1,4-6`: shard numbers with runs collapsed, for messages.
pub fn shard_list(shards: &[u8]) -> String {
    let mut runs: Vec<String> = Vec::new();
    let mut start = 0;
    for i in 1..=shards.len() {
        if i == shards.len() || u16::from(shards[i]) != u16::from(shards[i - 1]) + 1 {
            runs.push(match i - start {
                1 => shards[start].to_string(),
                _ => format!("{}-{}", shards[start], shards[i - 1]),
            });
            start = i;
        }
    }
    runs.join(",")
}

impl ReloadReport {
    /// Whether a failure's cause is data idgen did not write under its keys:
    /// that, not the generic partial failure, is what an operator must fix.
    pub fn failed_on_bad_data(&self) -> bool {
        self.failures
            .iter()
            .any(|f| f.kind == crate::ErrorKind::BadData)
    }

    /// Records a shard's error: a move or the limit is reported, not a failure.
    pub(super) fn shard_error(&mut self, node: &str, slot: Slot, error: &Error) {
        match error {
            // A move switched the app's node after this run read the routes:
            // the new node is the mover's (and the next run's) to fill.
            Error::Moved { .. } => {}
            // Sealed here by a move: the node it moved to stocks the shard.
            Error::ShardMoved { .. } => {}
            // Sealed for a move out of the embedded store: nothing to refill, nothing broken.
            Error::AppMovedOut { app, to } => self.warnings.push(format!(
                "app {app} has moved out of this store to {to}; its shards are no longer refilled here"
            )),
            Error::LimitReached {
                app, max_limit_id, ..
            } => match self.exhausted.iter_mut().find(|x| x.app == *app) {
                Some(known) => known.shards.push(slot.shard),
                None => self.exhausted.push(ExhaustedApp {
                    app: *app,
                    shards: vec![slot.shard],
                    max_limit_id: *max_limit_id,
                }),
            },
            e => self.failures.push(ShardFailure::of(node, slot, e)),
        }
    }

    /// Merges warnings that differ only in the shard (`app A shard S: …`) into
    /// one per app, so a whole app near its limit is one line, not 64.
    pub(super) fn group_warnings(&mut self) {
        let mut per_app: BTreeMap<(String, String), Vec<u8>> = BTreeMap::new();
        let mut others = Vec::new();
        for warning in self.warnings.drain(..) {
            let parsed = warning.strip_prefix("app ").and_then(|rest| {
                let (app, rest) = rest.split_once(" shard ")?;
                let (shard, tail) = rest.split_once(' ')?;
                Some((app.to_string(), shard.parse::<u8>().ok()?, tail.to_string()))
            });
            match parsed {
                Some((app, shard, tail)) => per_app.entry((app, tail)).or_default().push(shard),
                None => others.push(warning),
            }
        }
        for ((app, tail), mut shards) in per_app {
            shards.sort_unstable();
            others.push(match shards.as_slice() {
                [shard] => format!("app {app} shard {shard} {tail}"),
                _ => format!("app {app} shards {}: {tail}", shard_list(&shards)),
            });
        }
        others.sort();
        self.warnings = others;
    }

    /// Fills `failure_groups` from `failures`: by app, node and message, in
    /// shard order. Messages that differ only in the shard's key
    /// (`id.gen.idList_1_5`) are one cause: the group names the keys as a
    /// shell brace expansion (`id.gen.idList_1_{0..63}`), which `redis-cli DEL`
    /// in a hint takes as it is.
    pub(super) fn group_failures(&mut self) {
        let mut groups: Vec<FailureGroup> = Vec::new();
        for failure in &self.failures {
            let (app, shard) = (failure.app, failure.shard);
            let error = shard_keys_generic(&failure.error, app, shard);
            let hint = failure
                .hint
                .as_deref()
                .map(|h| shard_keys_generic(h, app, shard));
            match groups.iter_mut().find(|g| {
                g.app == app && g.node == failure.node && g.error == error && g.hint == hint
            }) {
                Some(group) => group.shards.push(shard),
                None => groups.push(FailureGroup {
                    app,
                    node: failure.node.clone(),
                    shards: vec![shard],
                    error,
                    kind: failure.kind,
                    hint,
                }),
            }
        }
        for group in &mut groups {
            group.shards.sort_unstable();
            let shards = match group.shards.as_slice() {
                [one] => one.to_string(),
                many => brace_list(many),
            };
            group.error = group.error.replace(SHARD_PLACEHOLDER, &shards);
            group.hint = group
                .hint
                .take()
                .map(|h| h.replace(SHARD_PLACEHOLDER, &shards));
        }
        self.failure_groups = groups;
    }
}

/// Stands for the shard number in a shard's key while failures are grouped.
const SHARD_PLACEHOLDER: &str = "\u{0}";

/// `text` with every key of shard `app`/`shard` (`…_{app}_{shard}`, the
/// number ending there) naming the shard by [`SHARD_PLACEHOLDER`].
fn shard_keys_generic(text: &str, app: u8, shard: u8) -> String {
    let key = format!("_{app}_{shard}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&key) {
        let after = &rest[at + key.len()..];
        out.push_str(&rest[..at]);
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(&key);
        } else {
            out.push_str(&format!("_{app}_{SHARD_PLACEHOLDER}"));
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Shards as a shell brace expansion: `{0..63}` for a run, else `{1,4,5}`.
fn brace_list(shards: &[u8]) -> String {
    let (first, last) = (shards[0], shards[shards.len() - 1]);
    if usize::from(last - first) + 1 == shards.len() {
        format!("{{{first}..{last}}}")
    } else {
        let each: Vec<String> = shards.iter().map(u8::to_string).collect();
        format!("{{{}}}", each.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shards_keys_are_made_generic_and_named_again_as_a_brace_expansion() {
        let five =
            "key id.gen.idList_1_5 (not id.gen.idList_1_50): redis-cli DEL id.gen.idList_1_5";
        let seven =
            "key id.gen.idList_1_7 (not id.gen.idList_1_50): redis-cli DEL id.gen.idList_1_7";
        let generic = shard_keys_generic(five, 1, 5);
        assert_eq!(generic, shard_keys_generic(seven, 1, 7));
        assert_eq!(
            generic.replace(SHARD_PLACEHOLDER, &brace_list(&[0, 1, 2])),
            "key id.gen.idList_1_{0..2} (not id.gen.idList_1_50): redis-cli DEL id.gen.idList_1_{0..2}"
        );
        assert_eq!(brace_list(&[1, 4, 5]), "{1,4,5}");
    }
}
