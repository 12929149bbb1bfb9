//! `idgen serve` as a test drives it: a server on a free loopback port, plain
//! HTTP GETs to it, raw bytes for clients that misbehave, and its metrics read back.

use super::servers::free_port;
use super::{Test, TestEnv, wait_until};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::Duration;

/// A running `idgen serve` on a free loopback port; killed when dropped.
pub struct Served {
    pub child: Child,
    pub port: u16,
}

impl Served {
    /// Starts the server and waits until `/healthz` answers 200.
    pub fn start(env: &TestEnv, args: &[&str]) -> Served {
        Self::start_with(env, args, &[], Some(200))
    }

    /// Starts the server with extra variables; waits until `/healthz` answers
    /// `healthy` (any answer when `None`).
    pub fn start_with(
        env: &TestEnv,
        args: &[&str],
        vars: &[(&str, &str)],
        healthy: Option<u16>,
    ) -> Served {
        let port = free_port();
        let mut cmd = Test::within(env)
            .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .args(args)
            .envs(vars)
            .command();
        cmd.stdout(Stdio::null()).stderr(Stdio::piped());
        let mut served = Served {
            child: cmd.spawn().expect("start idgen serve"),
            port,
        };
        wait_until(
            Duration::from_secs(30),
            "the server to answer /healthz",
            || {
                if let Ok(Some(status)) = served.child.try_wait() {
                    panic!("idgen serve exited early: {status}");
                }
                match try_get(port, "/healthz", &[]) {
                    Ok(reply) => healthy.is_none_or(|want| reply.status == want),
                    Err(_) => false,
                }
            },
        );
        served.port = port;
        served
    }

    pub fn get(&self, path: &str) -> Reply {
        self.get_with(path, &[])
    }

    pub fn request(&self, method: &str, path: &str) -> Reply {
        try_request(self.port, method, path, &[]).expect("an HTTP answer")
    }

    pub fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        try_get(self.port, path, headers).expect("an HTTP answer")
    }

    /// Sends raw bytes on a fresh connection; the answers until it closes.
    pub fn exchange(&self, bytes: &[u8]) -> Vec<Reply> {
        exchange(self.port, bytes)
    }

    /// The Prometheus samples `/metrics` answers.
    pub fn metrics(&self) -> Vec<(String, f64)> {
        parse_metrics(&self.get("/metrics").body)
    }

    /// A raw TCP connection to the server, for clients that misbehave.
    pub fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect to idgen serve");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        stream
    }

    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, signal) }, 0);
    }

    /// SIGTERM, then a clean exit that released its leases; its stderr.
    pub fn stop_releasing(self) -> String {
        self.signal(libc::SIGTERM);
        let (status, stderr) = self.finish();
        assert!(status.success(), "{status}: {stderr}");
        assert!(stderr.contains("released worker"), "{stderr}");
        stderr
    }

    /// Waits for the process to end; its exit status and stderr.
    pub fn finish(mut self) -> (std::process::ExitStatus, String) {
        let status = self.child.wait().expect("wait for idgen serve");
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            pipe.read_to_string(&mut stderr).unwrap();
        }
        (status, stderr)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The body, byte for byte (chunked bodies decoded).
    pub raw_body: Vec<u8>,
    /// Whether the body arrived whole.
    pub complete: bool,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// The `code` of an error answer.
    pub fn code(&self) -> String {
        self.json()["code"].as_str().unwrap_or_default().to_string()
    }

    pub fn id(&self) -> u64 {
        assert_eq!(self.status, 200, "{}", self.body);
        self.body
            .parse()
            .unwrap_or_else(|_| panic!("not an ID: {:?}", self.body))
    }
}

/// A GET over a fresh connection that the server closes after answering.
pub fn try_get(port: u16, path: &str, headers: &[(&str, &str)]) -> std::io::Result<Reply> {
    try_request(port, "GET", path, headers)
}

/// A request with any method over a fresh connection that the server closes
/// after answering.
pub fn try_request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut request =
        format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let mut replies = parse_replies(&raw, method == "HEAD")?;
    if replies.is_empty() {
        return Err(std::io::Error::other("no answer"));
    }
    Ok(replies.remove(0))
}

/// Every answer in what a connection received, in order: bodies framed by
/// Content-Length, chunked (decoded), or running to the end. A body cut short
/// by the server is kept as far as it came, with `complete` false.
pub fn parse_replies(mut raw: &[u8], head_only: bool) -> std::io::Result<Vec<Reply>> {
    let mut replies = Vec::new();
    while !raw.is_empty() {
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or_else(|| std::io::Error::other("no end of headers"))?;
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        raw = &raw[split + 4..];
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| std::io::Error::other("no status line"))?;
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
            .collect();
        let mut reply = Reply {
            status,
            headers,
            body: String::new(),
            raw_body: Vec::new(),
            complete: true,
        };
        let length = reply
            .header("content-length")
            .and_then(|v| v.parse::<usize>().ok());
        let chunked = reply
            .header("transfer-encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
        match (head_only, chunked, length) {
            (true, _, _) => {}
            (false, true, _) => raw = dechunk(raw, &mut reply),
            (false, false, Some(length)) => {
                reply.complete = raw.len() >= length;
                let (body, rest) = raw.split_at(length.min(raw.len()));
                reply.raw_body = body.to_vec();
                raw = rest;
            }
            (false, false, None) => reply.raw_body = std::mem::take(&mut raw).to_vec(),
        }
        reply.body = String::from_utf8_lossy(&reply.raw_body).into_owned();
        replies.push(reply);
    }
    Ok(replies)
}

/// Decodes a chunked body into the reply; what follows it.
fn dechunk<'a>(mut raw: &'a [u8], reply: &mut Reply) -> &'a [u8] {
    loop {
        let Some(line_end) = raw.windows(2).position(|w| w == b"\r\n") else {
            reply.complete = false;
            return &[];
        };
        let size = std::str::from_utf8(&raw[..line_end])
            .ok()
            .and_then(|line| usize::from_str_radix(line.split(';').next()?.trim(), 16).ok());
        let Some(size) = size else {
            reply.complete = false;
            return &[];
        };
        raw = &raw[line_end + 2..];
        if size == 0 {
            // No trailers are sent: the final CRLF.
            return raw.get(2..).unwrap_or_default();
        }
        if raw.len() < size + 2 {
            reply
                .raw_body
                .extend_from_slice(&raw[..size.min(raw.len())]);
            reply.complete = false;
            return &[];
        }
        reply.raw_body.extend_from_slice(&raw[..size]);
        raw = &raw[size + 2..];
    }
}

/// Sends `bytes` as they are on a fresh connection and reads until the server
/// closes it: the answers it sent.
pub fn exchange(port: u16, bytes: &[u8]) -> Vec<Reply> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to idgen serve");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    stream.write_all(bytes).expect("send the request bytes");
    parse_replies(&read_until_closed(&mut stream), false).expect("HTTP answers")
}

/// Every sample line of a Prometheus text answer: (name{labels}, value).
pub fn parse_metrics(text: &str) -> Vec<(String, f64)> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (series, value) = l
                .rsplit_once(' ')
                .unwrap_or_else(|| panic!("bad line {l:?}"));
            let value = match value {
                "+Inf" => f64::INFINITY,
                v => v.parse().unwrap_or_else(|_| panic!("bad value in {l:?}")),
            };
            (series.to_string(), value)
        })
        .collect()
}

/// The value of the series named `name` whose labels include each of
/// `labels` (`a="1",b="2"`, in any order: the exposition sorts them by name).
pub fn metric(samples: &[(String, f64)], name: &str, labels: &str) -> f64 {
    let wanted: Vec<&str> = labels.split(',').filter(|l| !l.is_empty()).collect();
    samples
        .iter()
        .find(|(series, _)| {
            series.split('{').next() == Some(name) && wanted.iter().all(|l| series.contains(l))
        })
        .map(|(_, v)| *v)
        .unwrap_or_else(|| panic!("no {name}{{{labels}}} in {samples:?}"))
}

/// Reads until the server closes the connection; what it sent meanwhile.
/// Panics when it is still open after the socket's read timeout.
pub fn read_until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut received = Vec::new();
    match stream.read_to_end(&mut received) {
        Ok(_) => received,
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => received,
        Err(e) => panic!("the server did not close the connection: {e}"),
    }
}
