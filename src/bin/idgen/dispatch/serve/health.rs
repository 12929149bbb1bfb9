//! `/healthz` and `/metrics`, and the probe behind them: every backend the
//! server takes from (the ledger, each Redis node, the lease store), checked
//! every few seconds, its reasons naming no host. It also keeps the app names fresh.

use super::Server;
use super::api_error;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use idgen::ErrorKind;
use idgen::lease::LeaseStore;
use idgen::store::NodeSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// What `/healthz` reports of the backends.
#[derive(Debug, Default)]
pub(super) struct Health {
    /// What the last probe found unreachable, one reason each.
    probed: Vec<String>,
    /// The outage the last segment request met, until a request succeeds or
    /// a probe finds every server answering.
    request: Option<String>,
}

/// The servers the probe reaches: every one the server takes from.
pub(super) struct Probes {
    /// The segment ledger (MySQL, or the store file); none on Redis alone.
    pub ledger: bool,
    /// The Redis nodes segments are stocked on (none with the embedded store).
    pub nodes: Option<Arc<NodeSet>>,
    /// Where the namespaces' leases live, when any namespace is served.
    pub lease_store: Option<Arc<dyn LeaseStore>>,
}

/// A reason `/healthz` gives, naming no host: anyone may read it.
fn reason(what: &str, e: &idgen::Error) -> String {
    let why = e
        .outage()
        .unwrap_or_else(|| format!("failed ({})", api_error::code_for(e.kind())));
    format!("{what}: {why}")
}

impl Server {
    /// Reaches every backend for `/healthz`, all at once, and refreshes the
    /// app names on the way. Each probe replaces the last one's findings.
    pub(super) async fn probe(&self) {
        let ledger = async {
            if !self.probes.ledger {
                return None;
            }
            let read = self.read_apps().await;
            read.err().map(|e| reason("segment ledger", &e))
        };
        let nodes = async {
            let Some(nodes) = &self.probes.nodes else {
                return Vec::new();
            };
            let names = nodes.names().await;
            let checks = names.iter().map(|name| async move {
                let answer = match nodes.get(name).await {
                    Ok(node) => node.server_version().await.map(drop),
                    Err(e) => Err(e),
                };
                answer
                    .err()
                    .map(|e| reason(&format!("Redis node {name}"), &e))
            });
            futures::future::join_all(checks).await
        };
        let lease_store = async {
            let store = self.probes.lease_store.as_ref()?;
            let answer = store.check_reachable().await;
            answer.err().map(|e| reason("lease store", &e))
        };
        let (ledger, nodes, lease_store) = tokio::join!(ledger, nodes, lease_store);
        let probed: Vec<String> = ledger
            .into_iter()
            .chain(nodes.into_iter().flatten())
            .chain(lease_store)
            .collect();
        let mut health = self.health.lock().expect("not poisoned");
        if probed.is_empty() {
            health.request = None;
        }
        health.probed = probed;
    }

    /// Remembers a request's outage for `/healthz`.
    pub(super) fn note_failure(&self, e: &idgen::Error) {
        if e.kind() == ErrorKind::Unavailable {
            let mut health = self.health.lock().expect("not poisoned");
            health.request = Some(reason("segment backend", e));
            self.outage_noted.store(true, Ordering::Release);
        }
    }

    /// A request was served: the outage it would have met is over. Nearly
    /// every request finds none noted, and skips the lock.
    pub(super) fn note_success(&self) {
        if self.outage_noted.load(Ordering::Acquire) {
            let mut health = self.health.lock().expect("not poisoned");
            health.request = None;
            self.outage_noted.store(false, Ordering::Release);
        }
    }
}

pub(super) async fn healthz(State(server): State<Arc<Server>>) -> Response {
    let mut reasons: Vec<String> = {
        let health = server.health.lock().expect("not poisoned");
        health
            .request
            .iter()
            .chain(&health.probed)
            .cloned()
            .collect()
    };
    for (name, namespace) in &server.namespaces {
        let Some(lease) = namespace.session.status() else {
            reasons.push(format!("namespace {name}: no provably valid lease"));
            continue;
        };
        // On Redis alone, after Redis could not prove its state continuous.
        let now_ms = idgen::clock::process_now_ms();
        if let Some(until) = lease.quarantine_until_ms.filter(|&until| until >= now_ms) {
            reasons.push(format!(
                "namespace {name}: Redis could not prove it kept every lease; issuing resumes after {}",
                idgen::layout::format_timestamp(until)
            ));
        }
    }
    let body = if reasons.is_empty() {
        HealthBody {
            status: "ok",
            code: None,
            reasons,
        }
    } else {
        HealthBody {
            status: "unavailable",
            code: Some(api_error::code_for(ErrorKind::Unavailable)),
            reasons,
        }
    };
    let status = if body.code.is_none() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(body)).into_response()
}

/// The `/healthz` body: `{"status":"ok"}`, or why not, with the error code.
#[derive(serde::Serialize)]
struct HealthBody {
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    reasons: Vec<String>,
}

pub(super) async fn metrics_text(State(server): State<Arc<Server>>) -> Response {
    // A lease can lapse without an event (nothing asked for an ID): read it now.
    for (name, namespace) in &server.namespaces {
        let held = namespace.session.status().is_some();
        server.metrics.lease(name, |g| g.held = held);
    }
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        server.metrics.render(&server.segments),
    )
        .into_response()
}
