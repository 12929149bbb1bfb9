//! Errors as HTTP answers: one table from error kind to status, and a short JSON
//! body whose `code` is the CLI's exit-code name for the same failure.

use crate::exit;
use crate::output::Output;
use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use idgen::ErrorKind;

/// The HTTP status for each kind of failure.
pub fn status_for(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::Usage => StatusCode::BAD_REQUEST,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Exhausted => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorKind::Conflict => StatusCode::CONFLICT,
        // Retrying may help: the backend, the clock or a restart.
        ErrorKind::Unavailable | ErrorKind::Clock | ErrorKind::Interrupted => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        // The backend refused idgen or holds foreign data: not the client's fault.
        ErrorKind::Access | ErrorKind::Tls | ErrorKind::BadData => StatusCode::BAD_GATEWAY,
        ErrorKind::Store | ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The exit-code name (`not-found`, `unavailable`, …) of a kind.
pub fn code_for(kind: ErrorKind) -> &'static str {
    let code = exit::for_kind(kind);
    exit::EXIT_CODES
        .iter()
        .find(|doc| doc.code == code)
        .map_or("internal", |doc| doc.name)
}

/// The `code` of an error answer, kept on the response for the error metrics.
#[derive(Debug, Clone, Copy)]
pub struct ErrorCode(pub &'static str);

/// A failed request: what went wrong, already scrubbed of secrets.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ApiError {
            status: status_for(kind),
            code: code_for(kind),
            message: message.into(),
        }
    }

    /// An error as anyone may read it: an outage names no address (no host,
    /// port or URL), and secrets are scrubbed from the rest.
    pub fn public(e: &idgen::Error, out: &Output) -> Self {
        let message = e.outage().unwrap_or_else(|| out.scrub(&e.to_string()));
        ApiError::new(e.kind(), message)
    }

    /// A failure whose status is already decided (axum's 405 and the like).
    pub fn with_status(status: StatusCode, kind: ErrorKind, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code: code_for(kind),
            message: message.into(),
        }
    }

    /// A missing or wrong bearer token; not a backend's refusal, so 401.
    pub fn unauthorized() -> Self {
        ApiError {
            status: StatusCode::UNAUTHORIZED,
            code: code_for(ErrorKind::Access),
            message: "a valid bearer token is required".into(),
        }
    }

    /// Too many requests in flight: shed load rather than queue without bound.
    pub fn busy(limit: usize) -> Self {
        ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            code: code_for(ErrorKind::Unavailable),
            message: format!("more than {limit} requests in flight; retry shortly"),
        }
    }
}

/// The body of every error answer.
#[derive(serde::Serialize)]
struct ErrorBody {
    code: &'static str,
    message: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            code: self.code,
            message: self.message,
        };
        let mut response = (self.status, Json(body)).into_response();
        response.extensions_mut().insert(ErrorCode(self.code));
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}
