//! Counters for `GET /metrics`, in the Prometheus text exposition format
//! (`crate::exposition`).
//!
//! Labels only ever carry configured or resolved keys (an app number, a
//! namespace, an error code), never raw request input, so a client cannot grow
//! the series without bound.

use crate::exposition::{encode, gauges, registered};
use idgen::segment::BufferedAllocator;
use prometheus::{
    Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGaugeVec, Opts, Registry,
};
use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// The endpoints timed by the latency histogram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    SegmentGet,
    SegmentList,
    SnowflakeGet,
    Decode,
    TinyidNextId,
    TinyidNextIdSimple,
}

impl Endpoint {
    const ALL: [Endpoint; 6] = [
        Endpoint::SegmentGet,
        Endpoint::SegmentList,
        Endpoint::SnowflakeGet,
        Endpoint::Decode,
        Endpoint::TinyidNextId,
        Endpoint::TinyidNextIdSimple,
    ];

    /// Its place in [`Self::ALL`].
    fn index(self) -> usize {
        self as usize
    }

    fn name(self) -> &'static str {
        match self {
            Endpoint::SegmentGet => "segment_get",
            Endpoint::SegmentList => "segment_list",
            Endpoint::SnowflakeGet => "snowflake_get",
            Endpoint::Decode => "decode",
            Endpoint::TinyidNextId => "tinyid_next_id",
            Endpoint::TinyidNextIdSimple => "tinyid_next_id_simple",
        }
    }
}

/// What a namespace's lease is doing, for `idgen_serve_lease_held`.
#[derive(Debug, Clone, Default)]
pub struct LeaseGauge {
    pub worker: Option<u64>,
    pub held: bool,
    pub lost: u64,
}

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5,
];

/// One key's counters at one endpoint, looked up once: a request then bumps
/// two atomics, where finding them by their labels hashes the labels and
/// takes the family's lock, shared by every request on every core.
#[derive(Clone)]
pub struct Series {
    requests: IntCounter,
    issued: IntCounter,
}

impl Series {
    /// A request that issued `ids` IDs.
    pub fn issued(&self, ids: u64) {
        self.requests.inc();
        self.issued.inc_by(ids);
    }

    /// More IDs for a request already counted (a list's later chunks).
    pub fn more_ids(&self, ids: u64) {
        self.issued.inc_by(ids);
    }
}

/// Segment endpoints are keyed by app number: each endpoint's series of each
/// app, made at the app's first request.
type AppSeries = Box<[OnceLock<Series>]>;

pub struct Metrics {
    /// The series kept for the life of the server; `render` adds the ones
    /// read from the buffer and the leases at the time of the scrape.
    registry: Registry,
    /// Requests answered with IDs or a decoded record, by endpoint and key.
    requests: IntCounterVec,
    /// IDs issued, by kind and key.
    issued: IntCounterVec,
    /// Failed requests, by error code.
    errors: IntCounterVec,
    /// The latency histogram of each endpoint, in [`Endpoint::ALL`]'s order.
    latency: Vec<Histogram>,
    /// By [`Endpoint::index`], then app.
    apps: Vec<AppSeries>,
    rollbacks: IntCounter,
    ledger_rollbacks: IntCounter,
    leases: Mutex<BTreeMap<String, LeaseGauge>>,
}

fn counters(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    let family = IntCounterVec::new(Opts::new(name, help), labels).expect("a valid metric name");
    registered(registry, family)
}

fn counter(registry: &Registry, name: &str, help: &str) -> IntCounter {
    registered(
        registry,
        IntCounter::new(name, help).expect("a valid metric name"),
    )
}

impl Default for Metrics {
    fn default() -> Self {
        let registry = Registry::new();
        let r = &registry;
        let latency = registered(
            r,
            HistogramVec::new(
                HistogramOpts::new(
                    "idgen_serve_request_duration_seconds",
                    "Time to answer a request.",
                )
                .buckets(BUCKETS.to_vec()),
                &["endpoint"],
            )
            .expect("valid buckets"),
        );
        // Every endpoint's histogram is shown from the start, at zero.
        let latency = Endpoint::ALL
            .iter()
            .map(|endpoint| latency.with_label_values(&[endpoint.name()]))
            .collect();
        let apps = Endpoint::ALL
            .iter()
            .map(|_| (0..=u8::MAX).map(|_| OnceLock::new()).collect())
            .collect();
        Metrics {
            requests: counters(
                r,
                "idgen_serve_requests_total",
                "Requests answered, by endpoint and key.",
                &["endpoint", "key"],
            ),
            issued: counters(
                r,
                "idgen_serve_ids_issued_total",
                "IDs issued, by kind and key.",
                &["kind", "key"],
            ),
            errors: counters(
                r,
                "idgen_serve_errors_total",
                "Failed requests, by the CLI's exit-code name.",
                &["code"],
            ),
            latency,
            apps,
            rollbacks: counter(
                r,
                "idgen_serve_redis_rollbacks_total",
                "Shards whose stale stock was retired after a Redis rollback or failover.",
            ),
            ledger_rollbacks: counter(
                r,
                "idgen_serve_ledger_rollbacks_total",
                "Shards whose ledger was found behind its witness (the ledger went back in time) and moved past it.",
            ),
            leases: Mutex::default(),
            registry,
        }
    }
}

impl Metrics {
    /// The counters of requests to `endpoint` for `key`, which issue IDs of
    /// `kind` (`segment`, `snowflake`). Keep them: finding them is the slow part.
    pub fn series(&self, endpoint: Endpoint, kind: &'static str, key: &str) -> Series {
        Series {
            requests: self.requests.with_label_values(&[endpoint.name(), key]),
            issued: self.issued.with_label_values(&[kind, key]),
        }
    }

    /// The counters of a segment endpoint's requests for `app`.
    pub fn app(&self, endpoint: Endpoint, app: u8) -> &Series {
        self.apps[endpoint.index()][usize::from(app)]
            .get_or_init(|| self.series(endpoint, "segment", &app.to_string()))
    }

    pub fn decoded(&self) {
        self.requests
            .with_label_values(&[Endpoint::Decode.name(), ""])
            .inc();
    }

    pub fn error(&self, code: &'static str) {
        self.errors.with_label_values(&[code]).inc();
    }

    pub fn latency(&self, endpoint: Endpoint, elapsed: Duration) {
        self.latency[endpoint.index()].observe(elapsed.as_secs_f64());
    }

    /// Stale stock retired on a Redis node that went back in time.
    pub fn rollbacks(&self, count: u64) {
        self.rollbacks.inc_by(count);
    }

    /// Shards whose ledger was found behind the witness and moved past it.
    pub fn ledger_rollbacks(&self, count: u64) {
        self.ledger_rollbacks.inc_by(count);
    }

    pub fn lease(&self, namespace: &str, change: impl FnOnce(&mut LeaseGauge)) {
        let mut leases = self.leases.lock().expect("not poisoned");
        change(leases.entry(namespace.to_string()).or_default());
    }

    /// The Prometheus text exposition of every series.
    pub fn render(&self, buffer: &BufferedAllocator) -> String {
        let now = Registry::new();
        let r = &now;
        let depth = gauges(
            r,
            "idgen_serve_buffer_depth",
            "Segment IDs held in memory, by app and shard (any: requests without a gate pass).",
            &["app", "shard"],
        );
        for (key, held) in buffer.depths() {
            let shard = key.shard.map_or("any".to_string(), |s| s.to_string());
            depth
                .with_label_values(&[&key.app.to_string(), &shard])
                .set(held as f64);
        }
        counter(
            r,
            "idgen_serve_buffer_refills_total",
            "Background refills of the buffer that landed.",
        )
        .inc_by(buffer.refills());
        counter(
            r,
            "idgen_serve_buffer_refill_failures_total",
            "Background refills that failed or landed short.",
        )
        .inc_by(buffer.refill_failures());

        let int_gauges = |name: &str, help: &str| {
            registered(
                r,
                IntGaugeVec::new(Opts::new(name, help), &["namespace"])
                    .expect("a valid metric name"),
            )
        };
        let held = int_gauges(
            "idgen_serve_lease_held",
            "1 while the namespace's worker lease is provably valid.",
        );
        let worker = int_gauges(
            "idgen_serve_lease_worker",
            "The worker ID leased in the namespace.",
        );
        let lost = counters(
            r,
            "idgen_serve_leases_lost_total",
            "Leases lost (not renewed in time).",
            &["namespace"],
        );
        for (namespace, gauge) in self.leases.lock().expect("not poisoned").iter() {
            let labels = [namespace.as_str()];
            held.with_label_values(&labels).set(i64::from(gauge.held));
            if let Some(id) = gauge.worker {
                worker
                    .with_label_values(&labels)
                    .set(i64::try_from(id).unwrap_or(i64::MAX));
            }
            lost.with_label_values(&labels).inc_by(gauge.lost);
        }
        encode(&[&self.registry, &now])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The histograms and the per-app counters are found by an endpoint's
    /// discriminant, made in `Endpoint::ALL`'s order: the two must agree.
    #[test]
    fn every_endpoint_sits_at_its_own_place_in_all() {
        for (place, endpoint) in Endpoint::ALL.iter().enumerate() {
            assert_eq!(endpoint.index(), place, "{endpoint:?}");
        }
    }

    /// An app's counters, found once, are the ones `/metrics` shows.
    #[test]
    fn an_apps_series_counts_into_the_labelled_families() {
        let metrics = Metrics::default();
        metrics.app(Endpoint::SegmentGet, 7).issued(1);
        metrics.app(Endpoint::SegmentGet, 7).issued(1);
        metrics.app(Endpoint::SegmentList, 7).issued(1000);
        metrics.app(Endpoint::SegmentList, 7).more_ids(500);
        let requests = |endpoint: Endpoint| {
            metrics
                .requests
                .with_label_values(&[endpoint.name(), "7"])
                .get()
        };
        assert_eq!(requests(Endpoint::SegmentGet), 2);
        assert_eq!(requests(Endpoint::SegmentList), 1);
        assert_eq!(
            metrics.issued.with_label_values(&["segment", "7"]).get(),
            1502
        );
    }
}
