//! `idgen serve` as a test drives it: a server on a free loopback port, and
//! plain HTTP GETs to it.

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
    /// Everything after the status line's headers, byte for byte.
    pub raw_body: Vec<u8>,
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
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no end of headers"))?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status line"))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let raw_body = raw[split + 4..].to_vec();
    Ok(Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&raw_body).into_owned(),
        raw_body,
    })
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
