//! `status --format prometheus`: the report as gauges, one family each, for
//! node_exporter's textfile collector.

use crate::exit::nagios;
use crate::exposition::{encode, gauges, label};
use idgen::status::{AppStatus, NamespaceStatus, Severity, StatusReport, StoreRole};
use prometheus::Registry;

/// A family of gauges: its name, its help and how to read a value from `T`.
type Gauges<T, V> = (&'static str, &'static str, fn(&T) -> V);

pub(super) fn prometheus(report: &StatusReport) -> String {
    let registry = Registry::new();
    let r = &registry;

    gauges(
        r,
        "idgen_status_severity",
        "Worst finding: 0 ok, 1 warning, 2 critical, 3 unknown (the Nagios codes).",
        &[],
    )
    .with_label_values::<&str>(&[])
    .set(f64::from(nagios(report.severity).code));

    let findings = gauges(
        r,
        "idgen_findings",
        "Findings of each severity.",
        &["severity"],
    );
    for severity in [
        Severity::Ok,
        Severity::Unknown,
        Severity::Warning,
        Severity::Critical,
    ] {
        let n = report
            .attention
            .iter()
            .filter(|a| a.severity == severity)
            .count();
        findings
            .with_label_values(&[severity.as_str()])
            .set(n as f64);
    }

    let up = gauges(
        r,
        "idgen_backend_up",
        "1 when the backend answered and can be used, else 0.",
        &["role", "name"],
    );
    for store in &report.stores {
        let role = match store.role {
            StoreRole::Ledger => "ledger",
            StoreRole::Node => "node",
        };
        up.with_label_values(&[role, &label(&store.name)])
            .set(f64::from(u8::from(store.reachable)));
    }

    gauges(
        r,
        "idgen_apps_known",
        "1 when the ledger could be read, so the app metrics are complete.",
        &[],
    )
    .with_label_values::<&str>(&[])
    .set(f64::from(u8::from(report.apps_known)));

    let stock = gauges(
        r,
        "idgen_app_shard_stock",
        "Indexes ready to issue, per app and shard.",
        &["app", "name", "shard"],
    );
    for app in &report.apps {
        let (id, name) = (app.app.to_string(), label(&app.name));
        for shard in &app.stock {
            stock
                .with_label_values(&[&id, &name, &shard.shard.to_string()])
                .set(shard.stock as f64);
        }
    }

    // The per-app families: the app's number and name, and one value.
    let per_app: [Gauges<AppStatus, Option<f64>>; 4] = [
        (
            "idgen_app_min_stock",
            "The smallest stock over an app's shards.",
            |app| app.min_stock.map(|min| min as f64),
        ),
        (
            "idgen_app_stock_runway_seconds",
            "How long an app's stock lasts at the rate observed since its shards' last refills.",
            |app| app.runway_secs.map(|secs| secs as f64),
        ),
        (
            "idgen_app_limit_used_ratio",
            "The largest share of max_limit_id any shard of the app has taken (apps with a limit).",
            |app| app.limit_used_percent.map(|used| used / 100.0),
        ),
        (
            "idgen_app_exhausted_shards",
            "Shards that reached max_limit_id and hold no stock: next refuses there.",
            |app| Some(app.exhausted_shards.len() as f64),
        ),
    ];
    for (name, help, value) in per_app {
        let family = gauges(r, name, help, &["app", "name"]);
        for app in &report.apps {
            if let Some(value) = value(app) {
                family
                    .with_label_values(&[&app.app.to_string(), &label(&app.name)])
                    .set(value);
            }
        }
    }

    // Redis alone: fewer in sync than required, no lease is granted or renewed.
    let per_namespace_replicas: [Gauges<NamespaceStatus, Option<f64>>; 2] = [
        (
            "idgen_namespace_replicas_required",
            "Replicas every grant and renewal must reach, per namespace (Redis alone).",
            |ns| ns.replicas.map(|r| r.required as f64),
        ),
        (
            "idgen_namespace_replicas_in_sync",
            "Replicas in sync with the namespace's master (Redis alone).",
            |ns| ns.replicas.map(|r| r.in_sync as f64),
        ),
    ];
    for (name, help, value) in per_namespace_replicas {
        if report.namespaces.iter().all(|ns| value(ns).is_none()) {
            continue;
        }
        let family = gauges(r, name, help, &["namespace"]);
        for ns in &report.namespaces {
            if let Some(value) = value(ns) {
                family.with_label_values(&[&label(&ns.name)]).set(value);
            }
        }
    }

    let per_namespace: [Gauges<NamespaceStatus, f64>; 3] = [
        (
            "idgen_namespace_workers_held",
            "Worker IDs held, per namespace.",
            |ns| ns.held.len() as f64,
        ),
        (
            "idgen_namespace_workers_free",
            "Worker IDs a new lease can still get, per namespace.",
            |ns| ns.available as f64,
        ),
        (
            "idgen_namespace_workers_capacity",
            "Worker IDs the namespace's layout allows.",
            |ns| ns.capacity as f64,
        ),
    ];
    for (name, help, value) in per_namespace {
        let family = gauges(r, name, help, &["namespace"]);
        for ns in &report.namespaces {
            family.with_label_values(&[&label(&ns.name)]).set(value(ns));
        }
    }

    let seconds_left = gauges(
        r,
        "idgen_layout_seconds_left",
        "Seconds until the layout's time bits run out (0: ran out).",
        &["used_by", "layout"],
    );
    for layout in &report.layouts {
        if let Some(seconds) = layout.seconds_left {
            seconds_left
                .with_label_values(&[&label(&layout.used_by), &label(&layout.layout)])
                .set(seconds as f64);
        }
    }

    // When each node last found its dataset, or the ledger, gone back in time.
    let redis = report.redis_rollbacks.iter().map(|r| (&r.node, r.last_ms));
    let ledger = report.ledger_rollbacks.iter().map(|r| (&r.node, r.last_ms));
    for (name, help, found) in [
        (
            "idgen_redis_last_rollback_timestamp_seconds",
            "When a Redis node was last found to have gone back in time (a restore or failover); its stale stock was retired unserved.",
            redis.collect::<Vec<_>>(),
        ),
        (
            "idgen_ledger_last_rollback_timestamp_seconds",
            "When the ledger was last found behind a node's witness (MySQL went back in time); it was moved past the witness, a gap.",
            ledger.collect(),
        ),
    ] {
        let family = gauges(r, name, help, &["node"]);
        for (node, last_ms) in found {
            family
                .with_label_values(&[&label(node)])
                .set(last_ms as f64 / 1000.0);
        }
    }
    encode(&[&registry])
}
