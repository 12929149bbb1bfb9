//! Snowflake IDs under a namespace's lease, and the decode endpoints (ours and
//! Leaf's `decodeSnowflakeId`).

use super::api_error::ApiError;
use super::metrics::Endpoint;
use super::{MIN_LEASE_WAIT, Namespace, Server, leaf_text};
use crate::layout_args::LayoutArgs;
use axum::Json;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use idgen::ErrorKind;
use idgen::layout::{DecodedJson, Layout, read_id};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

pub(super) async fn snowflake_get(
    State(server): State<Arc<Server>>,
    Path(key): Path<String>,
) -> Result<Response, ApiError> {
    let started = Instant::now();
    let Some(namespace) = server.namespaces.get(&key) else {
        return Err(ApiError::new(
            ErrorKind::NotFound,
            format!("namespace {key:?} is not served; start the server with --namespace {key}"),
        ));
    };
    let mut ids = Vec::with_capacity(1);
    // Nearly always the lease is proven and the unit not full: answered
    // without a future of the generator's (renewals, acquisitions, timers).
    // That future is about a kilobyte, and axum boxes the handler's future
    // per request: an allocation that size makes glibc consolidate its
    // free lists every time. The wait lives in its own box, made only when taken.
    let ready = match namespace.generator.try_lock() {
        Ok(mut generator) => generator.issue_ready(1, &mut ids),
        Err(_) => None,
    };
    let patience = server.settings.timeout.max(MIN_LEASE_WAIT);
    let issued = match ready {
        Some(issued) => Ok(issued),
        None => Box::pin(issue_waiting(namespace, patience, &mut ids)).await,
    };
    match issued {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(ApiError::public(&e, &server.out)),
        Err(_) => {
            return Err(ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "no lease in namespace {key} could be proven within {}",
                    idgen::error::fmt_duration(patience)
                ),
            ));
        }
    }
    namespace
        .series
        .get_or_init(|| {
            server
                .metrics
                .series(Endpoint::SnowflakeGet, "snowflake", &key)
        })
        .issued(1);
    server
        .metrics
        .latency(Endpoint::SnowflakeGet, started.elapsed());
    Ok(leaf_text(ids[0].to_string()))
}

/// Issues one ID, waiting for the generator, for a lease to be proven (the
/// generator waits out a backend outage) or for the fence to move, at most
/// `patience` (the IDs of an abandoned step are a gap).
async fn issue_waiting(
    namespace: &Namespace,
    patience: std::time::Duration,
    ids: &mut Vec<u64>,
) -> Result<idgen::Result<()>, tokio::time::error::Elapsed> {
    let issue = async { namespace.generator.lock().await.issue(1, ids).await };
    tokio::time::timeout(patience, issue).await
}

pub(super) async fn decode(
    State(server): State<Arc<Server>>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let started = Instant::now();
    let args = LayoutArgs {
        layout: query.get("layout").cloned(),
        epoch: query.get("epoch").cloned(),
        bits: query.get("bits").cloned(),
        unit: query.get("unit").cloned(),
        fix: Vec::new(),
    };
    let usage = |e: idgen::Error| ApiError::new(e.kind(), e.to_string());
    let layout = args.resolve(&server.settings).map_err(usage)?;
    let read = read_id(&id, layout.text_form()).map_err(|e| usage(e.into()))?;
    let decoded = layout.decompose(read.id).map_err(|e| usage(e.into()))?;
    let body = Json(DecodedJson {
        layout: &layout,
        layout_key: true,
        decoded: &decoded,
    })
    .into_response();
    server.metrics.decoded();
    server.metrics.latency(Endpoint::Decode, started.elapsed());
    Ok(body)
}

/// Leaf's `decodeSnowflakeId`: its keys in the order its `HashMap` writes
/// them, every value a string, the time in UTC; a bad ID is Leaf's 200 with `errorMsg`.
pub(super) async fn leaf_decode(Query(query): Query<HashMap<String, String>>) -> Response {
    let layout = Layout::named("leaf").expect("leaf is a named layout");
    let parts = query
        .get("snowflakeId")
        .and_then(|text| text.parse::<i64>().ok())
        .and_then(|id| layout.decompose(id as u64).ok());
    match parts {
        Some(decoded) => {
            let value = |kind| decoded.get(kind).unwrap_or(0).to_string();
            let ms = decoded.unix_ms.unwrap_or(0);
            let shown = idgen::layout::format_timestamp(ms);
            // Leaf writes `yyyy-MM-dd HH:mm:ss.SSS`.
            let when = shown.trim_end_matches('Z').replacen('T', " ", 1);
            Json(LeafDecoded {
                worker_id: value(idgen::layout::FieldKind::Worker),
                sequence_id: value(idgen::layout::FieldKind::Sequence),
                timestamp: format!("{ms}({when})"),
            })
            .into_response()
        }
        None => Json(LeafDecodeError {
            error_msg: "snowflake Id反解析发生异常!",
        })
        .into_response(),
    }
}

/// Leaf's decode answer, its keys in the order its `HashMap` writes them.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct LeafDecoded {
    worker_id: String,
    sequence_id: String,
    timestamp: String,
}

/// Leaf's answer to an ID it cannot decode (with status 200, as Leaf does).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct LeafDecodeError {
    error_msg: &'static str,
}
