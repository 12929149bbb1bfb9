//! Lists of IDs as answers: the forms they are written in (Leaf's lines, a
//! JSON array of strings, Tinyid's JSON and comma-separated text), and long
//! lists streamed chunk by chunk.

use super::Server;
use super::api_error::ApiError;
use super::metrics::Endpoint;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// IDs taken and written per chunk of a list answer. Each chunk is taken when
/// hyper asks for it, that is once the client has read what came before: a
/// client that stops reading holds a chunk or two in memory, not its whole list.
const LIST_CHUNK: u64 = 1024;

/// How a list answer is written.
#[derive(Debug, Clone, Copy)]
pub(super) enum ListForm {
    /// Leaf's: one decimal per line.
    Lines,
    /// A JSON array of strings (64-bit IDs stay exact in every JSON reader).
    JsonStrings,
    /// Tinyid's `nextId`: `{"data":[numbers],"code":200,"message":""}`.
    TinyidJson,
    /// Tinyid's `nextIdSimple`: decimals joined by commas.
    TinyidText,
}

/// How one form writes a list: what opens it, what goes around and between
/// the IDs, and what closes it.
struct Parts {
    open: &'static str,
    before: &'static str,
    after: &'static str,
    between: &'static str,
    close: &'static str,
    content_type: &'static str,
}

impl ListForm {
    /// A JSON array of strings when the client accepts JSON, else Leaf's lines.
    pub(super) fn of_accept(headers: &HeaderMap) -> ListForm {
        let json = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|accept| accept.contains("application/json"));
        if json {
            ListForm::JsonStrings
        } else {
            ListForm::Lines
        }
    }

    fn parts(self) -> Parts {
        let text = "text/plain;charset=UTF-8";
        match self {
            ListForm::Lines => Parts {
                open: "",
                before: "",
                after: "\n",
                between: "",
                close: "",
                content_type: text,
            },
            ListForm::JsonStrings => Parts {
                open: "[",
                before: "\"",
                after: "\"",
                between: ",",
                close: "]",
                content_type: "application/json",
            },
            ListForm::TinyidJson => Parts {
                open: "{\"data\":[",
                before: "",
                after: "",
                between: ",",
                close: "],\"code\":200,\"message\":\"\"}",
                content_type: "application/json;charset=UTF-8",
            },
            ListForm::TinyidText => Parts {
                open: "",
                before: "",
                after: "",
                between: ",",
                close: "",
                content_type: text,
            },
        }
    }

    pub(super) fn content_type(self) -> HeaderValue {
        HeaderValue::from_static(self.parts().content_type)
    }

    /// One chunk of the body; `opens` for the first chunk, `closes` for the last.
    pub(super) fn chunk(self, ids: &[u64], opens: bool, closes: bool) -> Bytes {
        let parts = self.parts();
        let mut text = itoa::Buffer::new();
        let mut body = Vec::with_capacity(ids.len() * 23 + parts.open.len() + parts.close.len());
        if opens {
            body.extend_from_slice(parts.open.as_bytes());
        }
        for (i, id) in ids.iter().enumerate() {
            if i > 0 || !opens {
                body.extend_from_slice(parts.between.as_bytes());
            }
            body.extend_from_slice(parts.before.as_bytes());
            body.extend_from_slice(text.format(*id).as_bytes());
            body.extend_from_slice(parts.after.as_bytes());
        }
        if closes {
            body.extend_from_slice(parts.close.as_bytes());
        }
        Bytes::from(body)
    }

    /// A whole answer of these IDs.
    pub(super) fn answer(self, ids: &[u64]) -> Response {
        let body = Body::from(self.chunk(ids, true, true));
        ([(header::CONTENT_TYPE, self.content_type())], body).into_response()
    }
}

/// Issues `n` IDs of the key as an answer in `form`. The first chunk is
/// taken now and decides the status (its failure is the error returned);
/// the rest are taken as the body is polled.
pub(super) async fn answer(
    server: &Arc<Server>,
    endpoint: Endpoint,
    key: &str,
    gate_pass: Option<String>,
    n: u64,
    form: ListForm,
) -> Result<Response, ApiError> {
    let (app, first) = server
        .segment_ids(endpoint, key, gate_pass.as_deref(), n.min(LIST_CHUNK))
        .await?;
    let left = n - first.len() as u64;
    if left == 0 {
        return Ok(form.answer(&first));
    }
    let first = form.chunk(&first, true, false);
    let rest = Rest {
        server: server.clone(),
        endpoint,
        app,
        gate_pass,
        form,
        n,
        left,
    };
    let rest = futures::stream::unfold(Some(rest), |rest| async move { rest?.next().await });
    let body = Body::from_stream(futures::StreamExt::chain(
        futures::stream::once(async { Ok(first) }),
        rest,
    ));
    Ok(([(header::CONTENT_TYPE, form.content_type())], body).into_response())
}

/// The chunks of a list answer after the first, taken as the body is polled.
struct Rest {
    server: Arc<Server>,
    endpoint: Endpoint,
    app: u8,
    gate_pass: Option<String>,
    form: ListForm,
    n: u64,
    left: u64,
}

impl Rest {
    /// The next chunk, and what is left after it. A failure ends the body
    /// short (the client sees a cut answer), logged and counted; the IDs
    /// already taken for it are a gap.
    async fn next(mut self) -> Option<(std::io::Result<Bytes>, Option<Rest>)> {
        if self.left == 0 {
            return None;
        }
        let count = self.left.min(LIST_CHUNK);
        match self
            .server
            .take(self.app, self.gate_pass.as_deref(), count)
            .await
        {
            Ok(ids) => {
                self.left -= ids.len() as u64;
                self.server
                    .metrics
                    .app(self.endpoint, self.app)
                    .more_ids(ids.len() as u64);
                let chunk = self.form.chunk(&ids, false, self.left == 0);
                Some((Ok(chunk), Some(self)))
            }
            Err(e) => {
                self.server.metrics.error(e.code);
                let message = format!(
                    "a list of {} IDs of app {} was cut after {}: {}",
                    self.n,
                    self.app,
                    self.n - self.left,
                    e.message
                );
                self.server.out.warn(&message);
                Some((Err(std::io::Error::other(message)), None))
            }
        }
    }
}
