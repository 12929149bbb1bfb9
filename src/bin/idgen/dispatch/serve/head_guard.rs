//! Request heads checked before hyper sees them, so that a malformed request,
//! an over-long URI or over-large headers get the JSON error body every other
//! failure has (hyper answers those itself, with an empty body).
//!
//! [`HeadGuard`] sits on the read side of a connection and parses each request
//! head with `httparse`, with limits below hyper's. A head that passes goes on
//! untouched (bodies are skipped by their Content-Length). A head that fails is
//! replaced by a short request of our own, marked with a per-process secret,
//! and nothing more is read: hyper answers it in order after any pipelined
//! requests before it, through the router, whose [`refusal`] check renders the
//! JSON error and closes the connection.

use super::api_error::ApiError;
use axum::http::{HeaderMap, HeaderName, StatusCode, Uri};
use idgen::ErrorKind;
use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Longest request target accepted (hyper's own limit is 64 KiB).
const MAX_URI: usize = 8 * 1024;
/// Largest request head accepted (hyper's own limit is about 400 KiB).
const MAX_HEAD: usize = 16 * 1024;
/// Most header lines accepted: hyper's own limit, so hyper never meets more.
const MAX_HEADERS: usize = 100;
/// A request line's method, spaces and version, beside its target.
const REQUEST_LINE_SLACK: usize = 32;

/// The header marking a refusal put in place of a bad head.
const REFUSAL_HEADER: &str = "idgen-refused";

/// Why a request head was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    UriTooLong,
    HeadTooLarge,
    TooManyHeaders,
    BadMethod,
    BadTarget,
    BadVersion,
    BadHeader,
    BadLineEnding,
    BodyEncoding,
    BadLength,
}

/// Every refusal: its name in the marker header, its status and its message.
const REFUSALS: [(Refusal, &str, StatusCode, &str); 10] = [
    (
        Refusal::UriTooLong,
        "uri-too-long",
        StatusCode::URI_TOO_LONG,
        "the request's URI is longer than 8 KiB; send a shorter path and query string",
    ),
    (
        Refusal::HeadTooLarge,
        "head-too-large",
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        "the request's headers are larger than 16 KiB; send fewer or shorter headers",
    ),
    (
        Refusal::TooManyHeaders,
        "too-many-headers",
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        "the request has more than 100 headers; send fewer headers",
    ),
    (
        Refusal::BadMethod,
        "bad-method",
        StatusCode::BAD_REQUEST,
        "malformed request line: the method is not a token; send GET PATH HTTP/1.1",
    ),
    (
        Refusal::BadTarget,
        "bad-target",
        StatusCode::BAD_REQUEST,
        "malformed request line: the target is not a valid URI; send a path such as /healthz",
    ),
    (
        Refusal::BadVersion,
        "bad-version",
        StatusCode::BAD_REQUEST,
        "malformed request line: not HTTP/1.0 or HTTP/1.1; send an HTTP/1.1 request",
    ),
    (
        Refusal::BadHeader,
        "bad-header",
        StatusCode::BAD_REQUEST,
        "malformed header: a name or value holds a byte HTTP does not allow; send NAME: VALUE lines",
    ),
    (
        Refusal::BadLineEnding,
        "bad-line-ending",
        StatusCode::BAD_REQUEST,
        "malformed request head: a line does not end in CRLF; end each line with \\r\\n",
    ),
    (
        Refusal::BodyEncoding,
        "body-encoding",
        StatusCode::BAD_REQUEST,
        "a request body with Transfer-Encoding is not accepted: no endpoint takes a body; send the request without one",
    ),
    (
        Refusal::BadLength,
        "bad-length",
        StatusCode::BAD_REQUEST,
        "the request's Content-Length is not one number; send a single valid Content-Length, or none",
    ),
];

impl Refusal {
    fn entry(self) -> &'static (Refusal, &'static str, StatusCode, &'static str) {
        REFUSALS
            .iter()
            .find(|entry| entry.0 == self)
            .expect("every refusal is in the table")
    }

    fn of_parse_error(error: httparse::Error, method_read: bool) -> Refusal {
        match error {
            httparse::Error::Token if method_read => Refusal::BadTarget,
            httparse::Error::Token => Refusal::BadMethod,
            httparse::Error::Version => Refusal::BadVersion,
            httparse::Error::TooManyHeaders => Refusal::TooManyHeaders,
            httparse::Error::NewLine => Refusal::BadLineEnding,
            httparse::Error::HeaderName
            | httparse::Error::HeaderValue
            | httparse::Error::Status => Refusal::BadHeader,
        }
    }

    /// The request hyper is given instead of the refused head.
    fn stand_in(self) -> Vec<u8> {
        format!(
            "GET / HTTP/1.1\r\n{REFUSAL_HEADER}: {} {}\r\nconnection: close\r\n\r\n",
            self.entry().1,
            secret()
        )
        .into_bytes()
    }
}

/// Random per process, so no client can send a refusal's marker itself.
fn secret() -> &'static str {
    static SECRET: OnceLock<String> = OnceLock::new();
    SECRET.get_or_init(|| {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).expect("the system's random source works");
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    })
}

/// The JSON error for a request that stands in for a refused head, if it is one.
pub fn refusal(headers: &HeaderMap) -> Option<ApiError> {
    let value = headers
        .get(HeaderName::from_static(REFUSAL_HEADER))?
        .to_str()
        .ok()?;
    let (name, given) = value.split_once(' ')?;
    if given != secret() {
        return None;
    }
    let (_, _, status, message) = REFUSALS.iter().find(|entry| entry.1 == name)?;
    Some(ApiError::with_status(*status, ErrorKind::Usage, *message))
}

/// What one request head is.
enum Head {
    /// A whole head of `len` bytes, followed by `body` bytes of body.
    Complete {
        len: usize,
        body: u64,
    },
    /// The start of a head within the limits; more must arrive.
    Partial,
    Refused(Refusal),
}

/// Checks the head at the start of `bytes` against our limits and hyper's rules.
fn check_head(bytes: &[u8]) -> Head {
    let mut headers = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut []);
    let len = match request.parse_with_uninit_headers(bytes, &mut headers) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => {
            let line = bytes
                .iter()
                .position(|&b| b == b'\n')
                .unwrap_or(bytes.len());
            return if line > MAX_URI + REQUEST_LINE_SLACK {
                Head::Refused(Refusal::UriTooLong)
            } else if bytes.len() > MAX_HEAD {
                Head::Refused(Refusal::HeadTooLarge)
            } else {
                Head::Partial
            };
        }
        Err(error) => {
            return Head::Refused(Refusal::of_parse_error(error, request.method.is_some()));
        }
    };
    let target = request.path.expect("a complete head has a target");
    if target.len() > MAX_URI {
        return Head::Refused(Refusal::UriTooLong);
    }
    if len > MAX_HEAD {
        return Head::Refused(Refusal::HeadTooLarge);
    }
    if Uri::try_from(target).is_err() {
        return Head::Refused(Refusal::BadTarget);
    }
    match body_length(request.headers) {
        Ok(body) => Head::Complete { len, body },
        Err(refusal) => Head::Refused(refusal),
    }
}

/// The body's length by Content-Length, as hyper reads it: every value (comma
/// separated, over any number of lines) the same number. No endpoint takes a
/// body, so a Transfer-Encoding one is refused rather than decoded here.
fn body_length(headers: &[httparse::Header<'_>]) -> Result<u64, Refusal> {
    let mut length = None;
    for header in headers {
        if header.name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(Refusal::BodyEncoding);
        }
        if !header.name.eq_ignore_ascii_case("content-length") {
            continue;
        }
        for value in header.value.split(|&b| b == b',') {
            let value = value.trim_ascii();
            let parsed = (!value.is_empty() && value.iter().all(u8::is_ascii_digit))
                .then(|| std::str::from_utf8(value).ok()?.parse::<u64>().ok())
                .flatten()
                // hyper's largest body length.
                .filter(|&n| n < u64::MAX - 1)
                .ok_or(Refusal::BadLength)?;
            if length.is_some_and(|seen| seen != parsed) {
                return Err(Refusal::BadLength);
            }
            length = Some(parsed);
        }
    }
    Ok(length.unwrap_or(0))
}

/// Where a scan of the incoming bytes stopped.
enum Stop {
    /// Every byte passed.
    End,
    /// The bytes from the stop on are the start of a head still arriving.
    Partial,
    /// The head from the stop on is refused.
    Refused(Refusal),
}

/// Follows the request stream across reads: heads, then bodies to skip.
#[derive(Default)]
struct Scanner {
    body_left: u64,
}

impl Scanner {
    /// How many of `bytes` pass, and why the scan stopped there.
    fn scan(&mut self, bytes: &[u8]) -> (usize, Stop) {
        let mut at = 0;
        loop {
            let skip = self.body_left.min((bytes.len() - at) as u64);
            at += skip as usize;
            self.body_left -= skip;
            if at == bytes.len() {
                return (at, Stop::End);
            }
            match check_head(&bytes[at..]) {
                Head::Complete { len, body } => {
                    at += len;
                    self.body_left = body;
                }
                Head::Partial => return (at, Stop::Partial),
                Head::Refused(refusal) => return (at, Stop::Refused(refusal)),
            }
        }
    }
}

/// A connection whose request heads are checked before hyper reads them.
pub struct HeadGuard<S> {
    inner: S,
    scanner: Scanner,
    /// Bytes read but not yet handed on: the first `checked` passed the scan;
    /// the rest is the start of a head still arriving (at most [`MAX_HEAD`]).
    held: Vec<u8>,
    checked: usize,
    /// A refusal's stand-in is in `held`; nothing is read after it.
    refused: bool,
}

impl<S> HeadGuard<S> {
    pub fn new(inner: S) -> Self {
        HeadGuard {
            inner,
            scanner: Scanner::default(),
            held: Vec::new(),
            checked: 0,
            refused: false,
        }
    }

    /// Holds back or replaces what follows `passed` bytes of the scanned ones.
    fn stopped(&mut self, stop: Stop, passed: usize, tail: &[u8]) {
        match stop {
            Stop::End => self.checked = self.held.len(),
            Stop::Partial => {
                self.held.extend_from_slice(tail);
                self.checked = passed;
            }
            Stop::Refused(refusal) => {
                self.held.truncate(passed);
                self.held.extend(refusal.stand_in());
                self.checked = self.held.len();
                self.refused = true;
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for HeadGuard<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.checked > 0 {
                let n = this.checked.min(buf.remaining());
                buf.put_slice(&this.held[..n]);
                this.held.drain(..n);
                this.checked -= n;
                return Poll::Ready(Ok(()));
            }
            if this.refused {
                // Not an end of stream: hyper would take that for a client
                // gone and drop the answer. It needs nothing more to read.
                return Poll::Pending;
            }
            if buf.remaining() == 0 {
                return Poll::Ready(Ok(()));
            }
            if this.held.is_empty() {
                // The usual case: whole heads in one read, straight into hyper's buffer.
                let before = buf.filled().len();
                ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
                let read = &buf.filled()[before..];
                if read.is_empty() {
                    return Poll::Ready(Ok(()));
                }
                let (passed, stop) = this.scanner.scan(read);
                if let Stop::End = stop {
                    return Poll::Ready(Ok(()));
                }
                this.stopped(stop, 0, &read[passed..]);
                buf.set_filled(before + passed);
                if passed > 0 {
                    return Poll::Ready(Ok(()));
                }
            } else {
                // A head spread over reads: gathered here until it is whole.
                let mut chunk = [0u8; 4096];
                let mut read = ReadBuf::new(&mut chunk);
                ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
                if read.filled().is_empty() {
                    // Closed mid-head: hyper sees a clean end.
                    this.held.clear();
                    return Poll::Ready(Ok(()));
                }
                this.held.extend_from_slice(read.filled());
                let (passed, stop) = this.scanner.scan(&this.held);
                this.stopped(stop, passed, &[]);
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for HeadGuard<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
