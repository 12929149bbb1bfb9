//! Didi Tinyid's HTTP API, so its users can switch by changing the address:
//! `/tinyid/id/nextId` and `/tinyid/id/nextIdSimple` with Tinyid's query
//! parameters (`bizType`, `batchSize`, `token`) and its answers byte for byte:
//! always HTTP 200, `{"data":[…],"code":200,"message":""}` with the IDs as
//! JSON numbers (Tinyid's own shape: idgen's formats write 64-bit IDs as
//! strings), or the IDs joined by commas; a failure is Tinyid's code 5 (token)
//! or 6 (anything else) with `data` null, or an empty body.

use super::api_error::ErrorCode;
use super::lists::{self, ListForm};
use super::metrics::Endpoint;
use super::{Server, bearer_matches, token_matches};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use futures::future::Either;
use idgen::ErrorKind;
use std::collections::HashMap;
use std::sync::Arc;

pub(super) const NEXT_ID: &str = "/tinyid/id/nextId";
pub(super) const NEXT_ID_SIMPLE: &str = "/tinyid/id/nextIdSimple";

/// Tinyid's `ErrorCode.TOKEN_ERR`.
const TOKEN_ERR: (u32, &str) = (5, "token is error");
/// Tinyid's `ErrorCode.SYS_ERR`, with the failure's own message.
const SYS_ERR: u32 = 6;

/// Whether the path is one of Tinyid's, which take their token from the
/// query string (or a bearer header) and refuse in Tinyid's shape.
pub(super) fn checks_its_token(path: &str) -> bool {
    path == NEXT_ID || path == NEXT_ID_SIMPLE
}

pub(super) fn next_id(
    State(server): State<Arc<Server>>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> impl Future<Output = Response> + Send {
    next(
        server,
        &query,
        &headers,
        Endpoint::TinyidNextId,
        ListForm::TinyidJson,
    )
}

pub(super) fn next_id_simple(
    State(server): State<Arc<Server>>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> impl Future<Output = Response> + Send {
    next(
        server,
        &query,
        &headers,
        Endpoint::TinyidNextIdSimple,
        ListForm::TinyidText,
    )
}

/// `HEAD` on `nextId`: its headers without taking an ID.
pub(super) async fn head_next_id() -> Response {
    let json = ListForm::TinyidJson.content_type();
    ([(header::CONTENT_TYPE, json)], "").into_response()
}

/// Checks the request before the future is made, which then holds the key
/// and the count, not the query and the headers: axum boxes a handler's
/// future per request, and at a kilobyte or more glibc consolidates its free
/// lists at every such allocation.
fn next(
    server: Arc<Server>,
    query: &HashMap<String, String>,
    headers: &HeaderMap,
    endpoint: Endpoint,
    form: ListForm,
) -> impl Future<Output = Response> + Send + use<> {
    let answered = |answer| Either::Left(std::future::ready(answer));
    if let Some(token) = &server.token {
        let given = query.get("token").map(String::as_bytes);
        if !(bearer_matches(headers, token) || given.is_some_and(|t| token_matches(t, token))) {
            return answered(failure(form, TOKEN_ERR.0, TOKEN_ERR.1, ErrorKind::Access));
        }
    }
    let n = match batch_size(query.get("batchSize").map(String::as_str), server.max_n) {
        Ok(n) => n,
        Err(message) => return answered(failure(form, SYS_ERR, &message, ErrorKind::Usage)),
    };
    let Some(key) = query.get("bizType").cloned() else {
        let message = "bizType is required: the app's name or number";
        return answered(failure(form, SYS_ERR, message, ErrorKind::Usage));
    };
    // Tinyid answers no IDs for a batch below one.
    if n == 0 {
        return answered(form.answer(&[]));
    }
    Either::Right(async move {
        match lists::answer(&server, endpoint, &key, None, n, form).await {
            Ok(answer) => answer,
            Err(e) => failure_counted(form, SYS_ERR, &e.message, e.code),
        }
    })
}

/// Tinyid's `batchSize`: 1 when absent, at most `--max-n` (Tinyid's
/// `batchSizeMax` caps it the same way), none below 1.
fn batch_size(text: Option<&str>, max_n: u64) -> Result<u64, String> {
    let Some(text) = text else {
        return Ok(1);
    };
    match text.trim().parse::<i32>() {
        Ok(n) => Ok(u64::try_from(n).unwrap_or(0).min(max_n)),
        Err(_) => Err(format!(
            "batchSize {text:?} is not a whole number; send 1 to {max_n}"
        )),
    }
}

fn failure(form: ListForm, code: u32, message: &str, kind: ErrorKind) -> Response {
    failure_counted(form, code, message, super::api_error::code_for(kind))
}

/// Tinyid's failure answer, HTTP 200 as Tinyid sends it; counted under
/// idgen's error code in the metrics.
fn failure_counted(form: ListForm, code: u32, message: &str, counted: &'static str) -> Response {
    let body = match form {
        // Written out by hand: Tinyid's field order, which a JSON map would sort.
        ListForm::TinyidJson => format!(
            "{{\"data\":null,\"code\":{code},\"message\":{}}}",
            serde_json::Value::from(message)
        ),
        _ => String::new(),
    };
    let mut answer = ([(header::CONTENT_TYPE, form.content_type())], body).into_response();
    answer.extensions_mut().insert(ErrorCode(counted));
    answer
}
