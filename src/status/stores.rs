//! Reachability of the ledger and of every node.

use super::{AttentionKind, LedgerView, Part, Severity, StoreRole, StoreState, StoreStatus};
use crate::Error;
use crate::backend::Backend;
use crate::store::Eviction;
use std::collections::BTreeSet;

/// Reads the ledger: its version, apps, routes and rows idgen cannot serve.
pub(super) async fn check_ledger(backend: &Backend) -> (Part, Option<LedgerView>) {
    let mut part = Part::default();
    let read = async {
        backend.check_store_file()?;
        let version = backend.ledger.server_version().await?;
        // Reading the apps opens the file and checks its schema: a corrupt store fails here.
        let view = LedgerView {
            apps: backend.ledger.apps().await?,
            marks: backend.ledger.refill_marks().await?.into_iter().collect(),
            routes: backend.ledger.routes().await?,
            foreign: backend.ledger.foreign_rows().await?,
        };
        Ok::<_, Error>((version, view))
    };
    let (state, version, error, view) = match read.await {
        Ok((version, view)) => (StoreState::Ok, Some(version), None, Some(view)),
        Err(e) => {
            let state = StoreState::of(&e);
            part.flag(
                state.attention(),
                Severity::Critical,
                format!("ledger: {e}"),
            );
            (state, None, Some(e.to_string()), None)
        }
    };
    part.stores.push(StoreStatus {
        role: StoreRole::Ledger,
        name: "ledger".into(),
        location: backend.ledger.describe(),
        state,
        reachable: state == StoreState::Ok,
        version,
        error,
    });
    (part, view)
}

/// Checks every node concurrently (on Redis alone, the server of the
/// leases); returns the names of those that did not answer.
pub(super) async fn check_nodes(backend: &Backend) -> (Part, BTreeSet<String>) {
    let servers = backend.servers();
    let names = servers.names().await;
    let checks = names.into_iter().map(|name| async move {
        let node = servers.get(&name).await;
        let location = servers.describe(&name).unwrap_or_else(|| match &node {
            Ok(node) => node.describe(),
            Err(_) => name.clone(),
        });
        let (mut rollback, mut ledger_rollback, mut eviction) = (None, None, None);
        let version = match node {
            Ok(node) => {
                let version = node.server_version().await;
                if version.is_ok() {
                    rollback = node.last_rollback().await.ok().flatten();
                    ledger_rollback = node.last_ledger_rollback().await.ok().flatten();
                    eviction = node.eviction().await.ok().flatten();
                }
                version
            }
            Err(e) => Err(e),
        };
        (
            name,
            location,
            version,
            (rollback, ledger_rollback, eviction),
        )
    });
    let mut part = Part::default();
    let mut unreachable = BTreeSet::new();
    for (name, location, version, (rollback, ledger_rollback, eviction)) in
        futures::future::join_all(checks).await
    {
        part.redis_rollbacks.extend(rollback);
        part.ledger_rollbacks.extend(ledger_rollback);
        if let Some(eviction) = eviction {
            part.flag(
                AttentionKind::Evicting,
                Severity::Warning,
                evicting_message(&name, &eviction, backend.has_ledger()),
            );
        }
        let state = match &version {
            Ok(_) => StoreState::Ok,
            Err(e) => {
                unreachable.insert(name.clone());
                let state = StoreState::of(e);
                part.flag(
                    state.attention(),
                    Severity::Critical,
                    format!("Redis node {name:?}: {e}"),
                );
                state
            }
        };
        part.stores.push(StoreStatus {
            role: StoreRole::Node,
            name,
            location,
            state,
            reachable: state == StoreState::Ok,
            version: version.as_ref().ok().cloned(),
            error: version.err().map(|e| e.to_string()),
        });
    }
    (part, unreachable)
}

/// What a node that evicts any key when full costs, and the fix. `segments`:
/// it stocks segments beside MySQL; on Redis alone it keeps the leases.
fn evicting_message(name: &str, eviction: &Eviction, segments: bool) -> String {
    let cost = if segments {
        "evicted stock is a gap, and evicted witnesses no longer catch MySQL going back in time"
    } else {
        "an evicted lease key or fence makes every holder of a namespace lose its lease and every new lease wait its longest TTL"
    };
    format!(
        "Redis node {name:?} evicts any key when full (maxmemory {} bytes, maxmemory-policy {}): \
         {cost}; set maxmemory-policy noeviction (or maxmemory 0)",
        eviction.maxmemory, eviction.policy
    )
}
