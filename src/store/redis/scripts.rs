//! The one registry of every Lua script idgen runs on Redis, made once per
//! process: the stock scripts (after the stock prelude), the lease scripts
//! (after the master check), the scripts of leases on Redis alone (after both
//! lease preludes), and the token-checked unlock both rooms share. Each is
//! made through `acl`, so a refused command inside it can be named.
//!
//! The sources live in `lua/`: `stock/`, `lease/`, `lease/alone/` (each with
//! its `prelude.lua`) and `shared/`.

use super::acl;
use redis::Script;
use std::sync::OnceLock;

pub(super) struct Scripts {
    pub(super) take_queue: Script,
    pub(super) take_range: Script,
    pub(super) lock: Script,
    pub(super) push: Script,
    pub(super) retire: Script,
    pub(super) verify: Script,
    pub(super) switch: Script,
    pub(super) settle: Script,
    pub(super) witness: Script,
    pub(super) seal: Script,
    pub(super) admit: Script,
    pub(super) note_rollback: Script,
    pub(super) note_ledger_rollback: Script,
    /// Deletes a lock (a shard's refill lock, a namespace's repair lock) only
    /// while the token holds it.
    pub(super) unlock: Script,
    pub(super) lease_acquire: Script,
    pub(super) lease_renew: Script,
    pub(super) lease_release: Script,
    pub(super) lease_snapshot: Script,
    pub(super) lease_repair: Script,
    pub(super) lease_claim_namespace: Script,
    pub(super) lease_restore: Script,
    pub(super) alone_acquire: Script,
    pub(super) alone_renew: Script,
    pub(super) alone_release: Script,
    pub(super) alone_delete: Script,
}

/// A script made of `prelude` and a body.
fn after(prelude: &str, body: &str) -> String {
    format!("{prelude}\n{body}")
}

/// A stock script: the stock prelude (`stock_of`, `verify`, …), then `body`.
fn stock(body: &str) -> Script {
    acl::script(&after(include_str!("lua/stock/prelude.lua"), body))
}

/// A lease script: the master check every lease script makes, then `body`.
fn lease(body: &str) -> Script {
    acl::script(&lease_source(body))
}

fn lease_source(body: &str) -> String {
    after(include_str!("lua/lease/prelude.lua"), body)
}

/// A script of leases on Redis alone: both lease preludes (the master check,
/// then the continuity check), then `body`.
fn alone(body: &str) -> Script {
    acl::script(&lease_source(&after(
        include_str!("lua/lease/alone/prelude.lua"),
        body,
    )))
}

/// Every script, made on first use.
pub(super) fn scripts() -> &'static Scripts {
    static SCRIPTS: OnceLock<Scripts> = OnceLock::new();
    SCRIPTS.get_or_init(|| Scripts {
        take_queue: stock(include_str!("lua/stock/take_queue.lua")),
        take_range: stock(include_str!("lua/stock/take_range.lua")),
        lock: stock(include_str!("lua/stock/lock.lua")),
        push: stock(include_str!("lua/stock/push.lua")),
        retire: stock(include_str!("lua/stock/retire.lua")),
        verify: stock(include_str!("lua/stock/verify.lua")),
        switch: stock(include_str!("lua/stock/switch.lua")),
        settle: stock(include_str!("lua/stock/settle.lua")),
        witness: acl::script(include_str!("lua/stock/witness.lua")),
        seal: stock(include_str!("lua/stock/seal.lua")),
        admit: acl::script(include_str!("lua/stock/admit.lua")),
        note_rollback: acl::script(include_str!("lua/stock/note_rollback.lua")),
        note_ledger_rollback: acl::script(include_str!("lua/stock/note_ledger_rollback.lua")),
        unlock: acl::script(include_str!("lua/shared/unlock.lua")),
        lease_acquire: lease(include_str!("lua/lease/acquire.lua")),
        lease_renew: lease(include_str!("lua/lease/renew.lua")),
        lease_release: lease(include_str!("lua/lease/release.lua")),
        lease_snapshot: lease(include_str!("lua/lease/snapshot.lua")),
        lease_repair: lease(include_str!("lua/lease/repair.lua")),
        lease_claim_namespace: lease(include_str!("lua/lease/claim_namespace.lua")),
        lease_restore: lease(include_str!("lua/lease/restore.lua")),
        alone_acquire: alone(include_str!("lua/lease/alone/acquire.lua")),
        alone_renew: alone(include_str!("lua/lease/alone/renew.lua")),
        alone_release: alone(include_str!("lua/lease/alone/release.lua")),
        alone_delete: lease(include_str!("lua/lease/alone/delete.lua")),
    })
}
