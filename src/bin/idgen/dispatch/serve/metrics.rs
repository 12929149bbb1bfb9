//! Counters for `GET /metrics`, rendered as Prometheus text.
//!
//! Labels only ever carry configured or resolved keys (an app number, a
//! namespace, an error code), never raw request input, so a client cannot grow
//! the series without bound.

use idgen::segment::BufferedAllocator;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
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

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5,
];

#[derive(Default)]
struct Histogram {
    /// Per bucket, not cumulative; the last slot is +Inf.
    counts: [AtomicU64; BUCKETS.len() + 1],
    sum_micros: AtomicU64,
}

impl Histogram {
    fn observe(&self, elapsed: Duration) {
        let secs = elapsed.as_secs_f64();
        let slot = BUCKETS
            .iter()
            .position(|bound| secs <= *bound)
            .unwrap_or(BUCKETS.len());
        self.counts[slot].fetch_add(1, Ordering::Relaxed);
        self.sum_micros
            .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
    }
}

/// What a namespace's lease is doing, for `idgen_serve_lease_held`.
#[derive(Debug, Clone, Default)]
pub struct LeaseGauge {
    pub worker: Option<u64>,
    pub held: bool,
    pub lost: u64,
}

#[derive(Default)]
pub struct Metrics {
    /// (endpoint, key) → requests answered with IDs or a decoded record.
    requests: Mutex<BTreeMap<(&'static str, String), u64>>,
    /// (kind, key) → IDs issued.
    issued: Mutex<BTreeMap<(&'static str, String), u64>>,
    /// Error code → failed requests.
    errors: Mutex<BTreeMap<&'static str, u64>>,
    latency: [Histogram; Endpoint::ALL.len()],
    rollbacks: AtomicU64,
    ledger_rollbacks: AtomicU64,
    leases: Mutex<BTreeMap<String, LeaseGauge>>,
}

fn bump<K: Ord>(map: &Mutex<BTreeMap<K, u64>>, key: K, by: u64) {
    *map.lock().expect("not poisoned").entry(key).or_default() += by;
}

impl Metrics {
    /// A request for `key` that issued `ids` IDs of `kind` (`segment`, `snowflake`).
    pub fn issued(&self, endpoint: Endpoint, kind: &'static str, key: &str, ids: u64) {
        bump(&self.requests, (endpoint.name(), key.to_string()), 1);
        bump(&self.issued, (kind, key.to_string()), ids);
    }

    /// More IDs for a request already counted (a list's later chunks).
    pub fn more_ids(&self, kind: &'static str, key: &str, ids: u64) {
        bump(&self.issued, (kind, key.to_string()), ids);
    }

    pub fn decoded(&self) {
        bump(&self.requests, (Endpoint::Decode.name(), String::new()), 1);
    }

    pub fn error(&self, code: &'static str) {
        bump(&self.errors, code, 1);
    }

    pub fn latency(&self, endpoint: Endpoint, elapsed: Duration) {
        let slot = Endpoint::ALL
            .iter()
            .position(|e| *e == endpoint)
            .expect("every endpoint is listed");
        self.latency[slot].observe(elapsed);
    }

    /// Stale stock retired on a Redis node that went back in time.
    pub fn rollbacks(&self, count: u64) {
        self.rollbacks.fetch_add(count, Ordering::Relaxed);
    }

    /// Shards whose ledger was found behind the witness and moved past it.
    pub fn ledger_rollbacks(&self, count: u64) {
        self.ledger_rollbacks.fetch_add(count, Ordering::Relaxed);
    }

    pub fn lease(&self, namespace: &str, change: impl FnOnce(&mut LeaseGauge)) {
        let mut leases = self.leases.lock().expect("not poisoned");
        change(leases.entry(namespace.to_string()).or_default());
    }

    /// The Prometheus text exposition of every series.
    pub fn render(&self, buffer: &BufferedAllocator) -> String {
        let mut text = String::new();
        text.push_str("# HELP idgen_serve_buffer_depth Segment IDs held in memory, by app and shard (any: requests without a gate pass).\n# TYPE idgen_serve_buffer_depth gauge\n");
        for (key, depth) in buffer.depths() {
            let shard = key.shard.map_or("any".to_string(), |s| s.to_string());
            let _ = writeln!(
                text,
                "idgen_serve_buffer_depth{{app=\"{}\",shard=\"{shard}\"}} {depth}",
                key.app
            );
        }
        let _ = writeln!(
            text,
            "# HELP idgen_serve_buffer_refills_total Background refills of the buffer that landed.\n\
             # TYPE idgen_serve_buffer_refills_total counter\n\
             idgen_serve_buffer_refills_total {}\n\
             # HELP idgen_serve_buffer_refill_failures_total Background refills that failed or landed short.\n\
             # TYPE idgen_serve_buffer_refill_failures_total counter\n\
             idgen_serve_buffer_refill_failures_total {}",
            buffer.refills(),
            buffer.refill_failures()
        );
        text.push_str("# HELP idgen_serve_requests_total Requests answered, by endpoint and key.\n# TYPE idgen_serve_requests_total counter\n");
        for ((endpoint, key), n) in self.requests.lock().expect("not poisoned").iter() {
            let _ = writeln!(
                text,
                "idgen_serve_requests_total{{endpoint=\"{endpoint}\",key=\"{}\"}} {n}",
                label(key)
            );
        }
        text.push_str("# HELP idgen_serve_ids_issued_total IDs issued, by kind and key.\n# TYPE idgen_serve_ids_issued_total counter\n");
        for ((kind, key), n) in self.issued.lock().expect("not poisoned").iter() {
            let _ = writeln!(
                text,
                "idgen_serve_ids_issued_total{{kind=\"{kind}\",key=\"{}\"}} {n}",
                label(key)
            );
        }
        text.push_str("# HELP idgen_serve_errors_total Failed requests, by the CLI's exit-code name.\n# TYPE idgen_serve_errors_total counter\n");
        for (code, n) in self.errors.lock().expect("not poisoned").iter() {
            let _ = writeln!(text, "idgen_serve_errors_total{{code=\"{code}\"}} {n}");
        }
        text.push_str("# HELP idgen_serve_request_duration_seconds Time to answer a request.\n# TYPE idgen_serve_request_duration_seconds histogram\n");
        for (endpoint, histogram) in Endpoint::ALL.iter().zip(&self.latency) {
            let name = endpoint.name();
            let mut cumulative = 0;
            for (bound, count) in BUCKETS.iter().zip(&histogram.counts) {
                cumulative += count.load(Ordering::Relaxed);
                let _ = writeln!(
                    text,
                    "idgen_serve_request_duration_seconds_bucket{{endpoint=\"{name}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            cumulative += histogram.counts[BUCKETS.len()].load(Ordering::Relaxed);
            let sum = histogram.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
            let _ = writeln!(
                text,
                "idgen_serve_request_duration_seconds_bucket{{endpoint=\"{name}\",le=\"+Inf\"}} {cumulative}\n\
                 idgen_serve_request_duration_seconds_sum{{endpoint=\"{name}\"}} {sum}\n\
                 idgen_serve_request_duration_seconds_count{{endpoint=\"{name}\"}} {cumulative}"
            );
        }
        let _ = writeln!(
            text,
            "# HELP idgen_serve_redis_rollbacks_total Shards whose stale stock was retired after a Redis rollback or failover.\n\
             # TYPE idgen_serve_redis_rollbacks_total counter\n\
             idgen_serve_redis_rollbacks_total {}",
            self.rollbacks.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            text,
            "# HELP idgen_serve_ledger_rollbacks_total Shards whose ledger was found behind the witness in Redis (MySQL went back in time) and moved past it.\n\
             # TYPE idgen_serve_ledger_rollbacks_total counter\n\
             idgen_serve_ledger_rollbacks_total {}",
            self.ledger_rollbacks.load(Ordering::Relaxed)
        );
        text.push_str("# HELP idgen_serve_lease_held 1 while the namespace's worker lease is provably valid.\n# TYPE idgen_serve_lease_held gauge\n");
        let leases = self.leases.lock().expect("not poisoned");
        for (namespace, gauge) in leases.iter() {
            let _ = writeln!(
                text,
                "idgen_serve_lease_held{{namespace=\"{}\"}} {}",
                label(namespace),
                u8::from(gauge.held)
            );
        }
        text.push_str("# HELP idgen_serve_lease_worker The worker ID leased in the namespace.\n# TYPE idgen_serve_lease_worker gauge\n");
        for (namespace, gauge) in leases.iter() {
            if let Some(worker) = gauge.worker {
                let _ = writeln!(
                    text,
                    "idgen_serve_lease_worker{{namespace=\"{}\"}} {worker}",
                    label(namespace)
                );
            }
        }
        text.push_str("# HELP idgen_serve_leases_lost_total Leases lost (not renewed in time).\n# TYPE idgen_serve_leases_lost_total counter\n");
        for (namespace, gauge) in leases.iter() {
            let _ = writeln!(
                text,
                "idgen_serve_leases_lost_total{{namespace=\"{}\"}} {}",
                label(namespace),
                gauge.lost
            );
        }
        text
    }
}

/// A label value escaped as the exposition format asks.
fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
