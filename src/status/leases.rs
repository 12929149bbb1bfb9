//! Worker-ID leases of every namespace, for `idgen status` and `idgen namespace`.

use super::layouts::layout_status;
use super::{
    Attention, AttentionKind, LayoutState, NamespaceStatus, Part, Severity, WORKERS_FREE_WARNING,
};
use crate::ErrorKind;
use crate::backend::Backend;
use crate::lease::durable::{DurableNamespace, DurableRecord, signature_and_capacity};
use crate::lease::{LeaseAdmin, Problem, problems, read_signature};

/// Every worker-ID namespace with its findings, for `idgen namespace`.
pub async fn namespaces(
    backend: &Backend,
    now_ms: i64,
    lease_ttl_ms: i64,
) -> (Vec<NamespaceStatus>, Vec<Attention>) {
    let part = check_leases(backend, now_ms, lease_ttl_ms).await;
    (part.namespaces, part.attention)
}

pub(super) async fn check_leases(backend: &Backend, now_ms: i64, lease_ttl_ms: i64) -> Part {
    let mut part = Part::default();
    let read = async {
        let store = backend.lease_admin().await?;
        let names = store.namespaces().await?;
        Ok::<_, crate::Error>((store, names))
    };
    let (store, mut names): (std::sync::Arc<dyn LeaseAdmin>, Vec<String>) = match read.await {
        Ok(found) => found,
        Err(e) => {
            part.flag(
                AttentionKind::Unreadable,
                Severity::Unknown,
                format!("cannot read worker-ID leases: {e}"),
            );
            return part;
        }
    };
    // What Redis shows still stands when MySQL cannot be read. The ledger's
    // own check reports a MySQL that is down or refuses us.
    let durable = match store.durable(None, now_ms).await {
        Ok(record) => Some(record),
        Err(e) => {
            if !matches!(
                e.kind(),
                ErrorKind::Unavailable | ErrorKind::Access | ErrorKind::Tls
            ) {
                part.flag(
                    AttentionKind::Unreadable,
                    Severity::Unknown,
                    format!("cannot read the durable record of worker-ID leases: {e}"),
                );
            }
            None
        }
    };
    let recorded = durable.as_ref().map_or(&[][..], DurableRecord::namespaces);
    names.extend(recorded.iter().map(|ns| ns.name.clone()));
    names.sort();
    names.dedup();
    let snapshots = futures::future::join_all(names.iter().map(|name| store.snapshot(name))).await;
    for (name, snapshot) in names.into_iter().zip(snapshots) {
        let record = recorded.iter().find(|ns| ns.name == name);
        let mut status = NamespaceStatus {
            name: name.clone(),
            severity: Severity::Ok,
            layout: None,
            epoch_ms: None,
            assigner: None,
            capacity: 0,
            held: Vec::new(),
            free: 0,
            available: 0,
            problems: Vec::new(),
            error: None,
            durable_record: durable.as_ref().map(DurableRecord::source),
            redis: record.and_then(|ns| ns.redis),
            durable: record.map(|ns| ns.workers.clone()),
            replicas: None,
        };
        let mut worst = Severity::Ok;
        let mut fences = Vec::new();
        match snapshot {
            Ok(snapshot) => {
                status.free = snapshot.free.len();
                status.problems = problems(&snapshot);
                // A namespace Redis lost is shown as MySQL records it.
                let (signature, capacity) = signature_and_capacity(&snapshot, record);
                let signature = signature.map(str::to_string);
                status.capacity = capacity;
                status.held = match record {
                    Some(ns) => ns.held_with(&snapshot.held, now_ms),
                    None => snapshot.held,
                };
                status.available = capacity.saturating_sub(status.held.len() as u64);
                fences = snapshot.fences;
                match signature.as_deref().map(read_signature) {
                    Some(Ok((layout, assigner))) => {
                        status.layout = Some(layout.name().to_string());
                        status.epoch_ms = layout.epoch_ms();
                        status.assigner = Some(assigner);
                        let layout = layout_status(&format!("namespace {name}"), &layout, now_ms);
                        if matches!(
                            layout.state,
                            LayoutState::NotStarted
                                | LayoutState::Exhausted
                                | LayoutState::ExpiringSoon
                        ) {
                            worst = Severity::Critical;
                        } else if layout.state == LayoutState::Expiring {
                            worst = Severity::Warning;
                        }
                        part.layouts.push(layout);
                    }
                    Some(Err(e)) => {
                        status.error = Some(format!("its recorded layout is unreadable: {e}"));
                    }
                    None => {}
                }
            }
            Err(e) => status.error = Some(e.to_string()),
        }
        for finding in record.map(DurableNamespace::findings).unwrap_or_default() {
            worst =
                worst.max(part.flag(AttentionKind::LeasesNotInRedis, Severity::Warning, finding));
        }
        if let Some(error) = &status.error {
            worst = worst.max(part.flag(
                AttentionKind::Unreadable,
                Severity::Unknown,
                format!("namespace {name:?}: {error}"),
            ));
        }
        // Read beside the snapshot's findings: a namespace whose master has
        // too few replicas issues nothing once its leases run out.
        status.replicas = store.replicas(&name).await.ok().flatten();
        if let Some(replicas) = status.replicas.filter(|r| r.in_sync < r.required) {
            worst = worst.max(part.flag(
                AttentionKind::ReplicasMissing,
                Severity::Critical,
                replicas_missing_message(&name, replicas),
            ));
        }
        if status.error.is_none() && status.capacity > 0 {
            if status.available == 0 {
                worst = worst.max(part.flag(
                    AttentionKind::WorkersExhausted,
                    Severity::Critical,
                    format!(
                        "namespace {name:?}: all {} worker IDs are held, so a new `lease` fails; stop unused holders or use a layout with more worker bits",
                        status.capacity
                    ),
                ));
            } else if (status.available as f64) < status.capacity as f64 * WORKERS_FREE_WARNING {
                worst = worst.max(part.flag(
                    AttentionKind::WorkersLow,
                    Severity::Warning,
                    format!(
                        "namespace {name:?}: only {} of {} worker IDs are free",
                        status.available, status.capacity
                    ),
                ));
            }
        }
        let (leaked, other): (Vec<&Problem>, Vec<&Problem>) = status
            .problems
            .iter()
            .partition(|p| matches!(p, Problem::Leaked { .. }));
        if !leaked.is_empty() {
            // A killed holder's ID comes back when the free list is next rebuilt;
            // only one stranded for longer than a lease lasts is worth a warning.
            let stale = leaked.iter().filter(|p| {
                let Problem::Leaked { worker } = p else {
                    return false;
                };
                fences
                    .iter()
                    .find(|(w, _)| w == worker)
                    .is_some_and(|(_, fence)| now_ms - fence > lease_ttl_ms)
            });
            let stale = stale.count();
            let severity = if stale > 0 {
                Severity::Warning
            } else {
                Severity::Ok
            };
            worst = worst.max(part.flag(
                AttentionKind::LeakedWorkers,
                severity,
                if stale > 0 {
                    format!(
                        "namespace {name:?}: {stale} worker ID(s) stranded for longer than a lease lasts ({} leaked in all); rebuild the free list with `idgen inspect-freelist --namespace {name} --repair`",
                        leaked.len()
                    )
                } else {
                    format!(
                        "namespace {name:?}: {} worker ID(s) left by holders that stopped; the next rebuild of the free list takes them back",
                        leaked.len()
                    )
                },
            ));
        }
        if !other.is_empty() {
            worst = worst.max(part.flag(
                AttentionKind::LeaseProblem,
                Severity::Warning,
                format!(
                    "namespace {name:?} has {} lease problem(s); see `idgen inspect-freelist --namespace {name}` and repair with --repair",
                    other.len()
                ),
            ));
        }
        status.severity = worst;
        part.namespaces.push(status);
    }
    part
}

/// The finding of a namespace whose master has fewer replicas in sync than
/// its leases must reach.
fn replicas_missing_message(name: &str, replicas: crate::lease::Replicas) -> String {
    let required = replicas.required;
    let noun = if required == 1 { "replica" } else { "replicas" };
    format!(
        "namespace {name:?}: every lease must reach {required} {noun} and the master has {} in sync, so no lease is granted or renewed and holders stop issuing as theirs run out; bring the replicas back (after a failover the old master rejoins as one), or, {}",
        replicas.in_sync,
        crate::lease::replicas_fix(name)
    )
}
