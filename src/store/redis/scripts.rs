//! The one registry of every Lua script idgen runs on Redis: the stock
//! scripts (after the stock prelude), the lease scripts (after the lease
//! prelude), the scripts of leases on Redis alone (after both lease
//! preludes), and the token-checked unlock both rooms share. Each but one
//! (a status record) starts with the master check (`shared/master.lua`),
//! and each is made through `acl`, so a refused command inside it can be
//! named.
//!
//! The sources live in `lua/`: `stock/`, `lease/`, `lease/alone/` (each with
//! its `prelude.lua`) and `shared/`.

use super::acl;
use redis::Script;
use std::sync::LazyLock;

/// Each script is made (and its SHA1 computed) only when first run: making all
/// of them cost a short-lived process, such as a warm `next` that runs one
/// script, about 3 million instructions of hashing.
pub(super) struct Scripts {
    pub(super) take_queue: LazyLock<Script>,
    pub(super) take_range: LazyLock<Script>,
    pub(super) lock: LazyLock<Script>,
    pub(super) push: LazyLock<Script>,
    pub(super) retire: LazyLock<Script>,
    pub(super) verify: LazyLock<Script>,
    pub(super) switch: LazyLock<Script>,
    pub(super) settle: LazyLock<Script>,
    pub(super) witness: LazyLock<Script>,
    pub(super) seal: LazyLock<Script>,
    pub(super) admit: LazyLock<Script>,
    pub(super) note_rollback: LazyLock<Script>,
    pub(super) note_ledger_rollback: LazyLock<Script>,
    /// Deletes a lock (a shard's refill lock, a namespace's repair lock) only
    /// while the token holds it.
    pub(super) unlock: LazyLock<Script>,
    pub(super) lease_acquire: LazyLock<Script>,
    pub(super) lease_renew: LazyLock<Script>,
    pub(super) lease_release: LazyLock<Script>,
    pub(super) lease_snapshot: LazyLock<Script>,
    pub(super) lease_repair: LazyLock<Script>,
    pub(super) lease_claim_namespace: LazyLock<Script>,
    pub(super) lease_restore: LazyLock<Script>,
    pub(super) lease_worker_node: LazyLock<Script>,
    pub(super) alone_acquire: LazyLock<Script>,
    pub(super) alone_renew: LazyLock<Script>,
    pub(super) alone_release: LazyLock<Script>,
    pub(super) alone_delete: LazyLock<Script>,
    pub(super) alone_replicas: LazyLock<Script>,
}

/// A script made of `prelude` and a body.
fn after(prelude: &str, body: &str) -> String {
    format!("{prelude}\n{body}")
}

/// A script that refuses on any server but the master: the master check
/// (and `info_field`, which reads INFO's text), then `body`.
fn on_master(body: &str) -> Script {
    acl::script(&after(include_str!("lua/shared/master.lua"), body))
}

/// A stock script: the stock prelude (`stock_of`, `verify`, …), then `body`.
fn stock(body: &str) -> Script {
    on_master(&after(include_str!("lua/stock/prelude.lua"), body))
}

/// A lease script: the lease prelude (`claim`, `take_free`, …), then `body`.
fn lease(body: &str) -> Script {
    on_master(&lease_source(body))
}

fn lease_source(body: &str) -> String {
    after(include_str!("lua/lease/prelude.lua"), body)
}

/// A script of leases on Redis alone: both lease preludes (the lease
/// prelude, then the continuity check), then `body`.
fn alone(body: &str) -> Script {
    on_master(&lease_source(&after(
        include_str!("lua/lease/alone/prelude.lua"),
        body,
    )))
}

/// Every script.
pub(super) fn scripts() -> &'static Scripts {
    static SCRIPTS: Scripts = Scripts {
        take_queue: LazyLock::new(|| stock(include_str!("lua/stock/take_queue.lua"))),
        take_range: LazyLock::new(|| stock(include_str!("lua/stock/take_range.lua"))),
        lock: LazyLock::new(|| stock(include_str!("lua/stock/lock.lua"))),
        push: LazyLock::new(|| stock(include_str!("lua/stock/push.lua"))),
        retire: LazyLock::new(|| stock(include_str!("lua/stock/retire.lua"))),
        verify: LazyLock::new(|| stock(include_str!("lua/stock/verify.lua"))),
        switch: LazyLock::new(|| stock(include_str!("lua/stock/switch.lua"))),
        settle: LazyLock::new(|| stock(include_str!("lua/stock/settle.lua"))),
        witness: LazyLock::new(|| on_master(include_str!("lua/stock/witness.lua"))),
        seal: LazyLock::new(|| stock(include_str!("lua/stock/seal.lua"))),
        admit: LazyLock::new(|| on_master(include_str!("lua/stock/admit.lua"))),
        note_rollback: LazyLock::new(|| on_master(include_str!("lua/stock/note_rollback.lua"))),
        note_ledger_rollback: LazyLock::new(|| {
            acl::script(include_str!("lua/stock/note_ledger_rollback.lua"))
        }),
        unlock: LazyLock::new(|| on_master(include_str!("lua/shared/unlock.lua"))),
        lease_acquire: LazyLock::new(|| lease(include_str!("lua/lease/acquire.lua"))),
        lease_renew: LazyLock::new(|| lease(include_str!("lua/lease/renew.lua"))),
        lease_release: LazyLock::new(|| lease(include_str!("lua/lease/release.lua"))),
        lease_snapshot: LazyLock::new(|| lease(include_str!("lua/lease/snapshot.lua"))),
        lease_repair: LazyLock::new(|| lease(include_str!("lua/lease/repair.lua"))),
        lease_claim_namespace: LazyLock::new(|| {
            lease(include_str!("lua/lease/claim_namespace.lua"))
        }),
        lease_restore: LazyLock::new(|| lease(include_str!("lua/lease/restore.lua"))),
        lease_worker_node: LazyLock::new(|| lease(include_str!("lua/lease/worker_node.lua"))),
        alone_acquire: LazyLock::new(|| alone(include_str!("lua/lease/alone/acquire.lua"))),
        alone_renew: LazyLock::new(|| alone(include_str!("lua/lease/alone/renew.lua"))),
        alone_release: LazyLock::new(|| alone(include_str!("lua/lease/alone/release.lua"))),
        alone_delete: LazyLock::new(|| lease(include_str!("lua/lease/alone/delete.lua"))),
        alone_replicas: LazyLock::new(|| alone(include_str!("lua/lease/alone/replicas.lua"))),
    };
    &SCRIPTS
}
