//! `idgen serve`'s requests: paths, queries, headers, `n`, app keys,
//! namespaces and tokens, as raw bytes on a connection.
//!
//! The server is the binary's own (`dispatch::run` of `idgen serve`, head
//! guard, router and handlers), in this process, over the embedded store in a
//! temporary directory, with a bearer token, an app (1, `orders`) and two
//! snowflake namespaces (`orders`, `audit=sonyflake`). Each input is written
//! to a fresh loopback connection as it is, then the write side is closed and
//! the answer read to its end.
//!
//! Input: the bytes of one or more HTTP/1.1 requests; see fuzz/corpus/serve
//! and fuzz/serve.dict (the token is `fuzz-token-7Hq2`).
//!
//! Checks: no panic in any task (libFuzzer aborts on a panic in any thread);
//! an answer within 10 s; every answer is HTTP/1.1, and never a 500; the
//! token shows in no answer to a request that did not hold it; and, for a
//! single GET, every ID issued is new (never issued before in this run) and a
//! list holds as many IDs as asked for.

#![no_main]

use clap::FromArgMatches;
use idgen_fuzz::cli::Cli;
use idgen_fuzz::output::Output;
use idgen_fuzz::settings::{Origins, load};
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The bearer token the server asks for.
const TOKEN: &str = "fuzz-token-7Hq2";

/// Most list IDs one request may ask for (`--max-n`): lists long enough to
/// stream in chunks, short enough to keep runs fast.
const MAX_N: u64 = 3000;

/// Remember at most this many issued IDs (about 100 MB), then stop checking.
const MAX_REMEMBERED: usize = 4_000_000;

/// How long an answer may take before it counts as a hang.
const PATIENCE: Duration = Duration::from_secs(10);

struct Server {
    addr: SocketAddr,
    /// Every ID issued so far, to check none is issued twice.
    issued: Mutex<HashSet<u64>>,
    _dir: tempfile::TempDir,
}

/// Runs `idgen ARGS` as the binary would, on `runtime`.
fn run_idgen(runtime: &tokio::runtime::Runtime, args: &[String]) -> anyhow::Result<()> {
    let mut command = idgen_fuzz::cli::command();
    let matches = command.try_get_matches_from_mut(args)?;
    let cli = Cli::from_arg_matches(&matches)?;
    let origins = Origins::from_matches(&command, &matches);
    let loaded = load(&cli.globals, &origins);
    let out = Output::detect(false, loaded.secrets);
    let settings = loaded.settings?;
    runtime.block_on(idgen_fuzz::dispatch::run(
        cli.command,
        settings,
        origins,
        &out,
    ))?;
    Ok(())
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        // SAFETY: no other thread runs yet.
        unsafe {
            for (name, _) in std::env::vars() {
                if name.starts_with("IDGEN_") {
                    std::env::remove_var(name);
                }
            }
            std::env::set_var("XDG_CONFIG_HOME", dir.path());
            std::env::set_var("XDG_DATA_HOME", dir.path());
        }
        let store = format!("--store={}", dir.path().join("idgen.db").display());
        let token_file = dir.path().join("token");
        std::fs::write(&token_file, format!("{TOKEN}\n")).expect("the token file");
        let setup = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let init = [
            "idgen", &store, "init-app", "--app", "1", "--name", "orders", "--step", "500",
        ];
        run_idgen(&setup, &init.map(String::from)).expect("init-app");
        drop(setup);

        // A free port: taken and let go (nothing else here binds ports).
        let addr = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port");
        let serve: Vec<String> = [
            "idgen",
            &store,
            "serve",
            &format!("--listen={addr}"),
            &format!("--token-file={}", token_file.display()),
            "--namespace=orders",
            "--namespace=audit=sonyflake",
            &format!("--max-n={MAX_N}"),
            "--buffer=200",
            "--drain-timeout=1s",
        ]
        .map(String::from)
        .to_vec();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("a runtime");
            let ended = run_idgen(&runtime, &serve);
            panic!("idgen serve ended: {ended:?}");
        });
        let started = Instant::now();
        while TcpStream::connect(addr).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "serve never listened"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Server {
            addr,
            issued: Mutex::new(HashSet::new()),
            _dir: dir,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let server = server();
    let answer = exchange(server.addr, data);
    if !answer.is_empty() {
        assert!(
            answer.starts_with(b"HTTP/1."),
            "not an HTTP answer: {:?}",
            shown(&answer)
        );
    }
    if !contains(data, TOKEN.as_bytes()) {
        assert!(
            !contains(&answer, TOKEN.as_bytes()),
            "the token shows: {:?}",
            shown(&answer)
        );
    }
    let responses = responses(&answer, &heads(data));
    for response in &responses {
        assert_ne!(
            response.status,
            500,
            "an internal error: {:?}",
            shown(&answer)
        );
    }
    if let (Some(request), [response]) = (single_get(data), responses.as_slice()) {
        ids_are_new(server, &request, response);
    }
});

/// Writes `data` on a fresh connection, closes the write side, and reads the
/// answer to its end.
fn exchange(addr: SocketAddr, data: &[u8]) -> Vec<u8> {
    let mut stream = loop {
        match TcpStream::connect(addr) {
            Ok(stream) => break stream,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => panic!("serve does not accept: {e}"),
        }
    };
    stream
        .set_read_timeout(Some(PATIENCE))
        .expect("a read timeout");
    // The server may answer and close before it has read everything.
    let _ = stream.write_all(data);
    let _ = stream.shutdown(Shutdown::Write);
    let started = Instant::now();
    let mut answer = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            // libFuzzer's timer signal (-timeout) interrupts the read.
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => panic!(
                "no answer within {PATIENCE:?} ({e}); got {:?}",
                shown(&answer)
            ),
        }
        assert!(
            started.elapsed() < PATIENCE,
            "the answer took over {PATIENCE:?}"
        );
    }
    answer
}

struct Response {
    status: u16,
    content_type: String,
    body: Vec<u8>,
}

/// For each request head in `data` that parses, whether it is a HEAD (its
/// answer has no body), skipping bodies by their Content-Length.
fn heads(mut data: &[u8]) -> Vec<bool> {
    let mut found = Vec::new();
    while !data.is_empty() {
        let mut headers = [httparse::EMPTY_HEADER; 100];
        let mut request = httparse::Request::new(&mut headers);
        let Ok(httparse::Status::Complete(len)) = request.parse(data) else {
            break;
        };
        found.push(request.method == Some("HEAD"));
        let body: usize = request
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case("content-length"))
            .and_then(|h| std::str::from_utf8(h.value).ok()?.trim().parse().ok())
            .unwrap_or(0);
        data = &data[len.saturating_add(body).min(data.len())..];
    }
    found
}

/// The answers in `bytes`, in order, `heads` saying which answer a HEAD; the
/// last one may be cut short. The first must parse; after it, a request the
/// guess in `heads` got wrong may leave the rest out.
fn responses(mut bytes: &[u8], heads: &[bool]) -> Vec<Response> {
    let mut found: Vec<Response> = Vec::new();
    while !bytes.is_empty() {
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut response = httparse::Response::new(&mut headers);
        let Ok(httparse::Status::Complete(len)) = response.parse(bytes) else {
            assert!(
                !found.is_empty(),
                "an answer that does not parse: {:?}",
                shown(bytes)
            );
            break;
        };
        let to_head = heads.get(found.len()).copied().unwrap_or(false);
        let header = |name: &str| {
            response
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case(name))
                .map(|h| String::from_utf8_lossy(h.value).into_owned())
        };
        let content_type = header("content-type").unwrap_or_default();
        let rest = &bytes[len..];
        if response.code.is_some_and(|code| code < 200) {
            // An interim answer (100 Continue): the final one follows.
            bytes = rest;
            continue;
        }
        let (body, used) = if to_head {
            (Vec::new(), 0)
        } else if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            dechunk(rest)
        } else if let Some(length) = header("content-length").and_then(|v| v.parse().ok()) {
            let length: usize = length;
            let length = length.min(rest.len());
            (rest[..length].to_vec(), length)
        } else if response.code.is_some_and(|code| code == 204 || code == 304) {
            (Vec::new(), 0)
        } else {
            // Neither a length nor chunks: the body runs until the server
            // closes (an HTTP/1.0 answer to a streamed list).
            (rest.to_vec(), rest.len())
        };
        found.push(Response {
            status: response.code.unwrap_or(0),
            content_type,
            body,
        });
        bytes = &rest[used..];
    }
    found
}

/// A chunked body and the bytes it took.
fn dechunk(bytes: &[u8]) -> (Vec<u8>, usize) {
    let mut body = Vec::new();
    let mut at = 0;
    while let Some(line_end) = find(&bytes[at..], b"\r\n") {
        let size_text = String::from_utf8_lossy(&bytes[at..at + line_end]).into_owned();
        let Ok(size) = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
        else {
            // Not a chunk: `heads` guessed a request wrong.
            return (body, bytes.len());
        };
        at += line_end + 2;
        if size == 0 {
            // The last chunk, then the (empty) trailer.
            return (body, (at + 2).min(bytes.len()));
        }
        let end = (at + size).min(bytes.len());
        body.extend_from_slice(&bytes[at..end]);
        at = (end + 2).min(bytes.len());
    }
    (body, bytes.len())
}

/// A request that is one GET and nothing else: its target.
fn single_get(data: &[u8]) -> Option<String> {
    let mut headers = [httparse::EMPTY_HEADER; 100];
    let mut request = httparse::Request::new(&mut headers);
    let Ok(httparse::Status::Complete(len)) = request.parse(data) else {
        return None;
    };
    (len == data.len() && request.method == Some("GET")).then(|| request.path.unwrap().to_string())
}

/// The IDs of an answer that issues them: Leaf's lines and Tinyid's text, a
/// JSON array of strings, Tinyid's JSON.
fn issued_ids(response: &Response) -> Option<Vec<u64>> {
    if response.status != 200 {
        return None;
    }
    let number = |text: &str| {
        text.parse::<u64>()
            .unwrap_or_else(|_| panic!("not an ID: {text:?}"))
    };
    match response.content_type.as_str() {
        "text/plain;charset=UTF-8" => {
            let text = String::from_utf8(response.body.clone()).expect("IDs are text");
            Some(
                text.split(['\n', ','])
                    .filter(|t| !t.is_empty())
                    .map(number)
                    .collect(),
            )
        }
        "application/json" => {
            let json: serde_json::Value =
                serde_json::from_slice(&response.body).expect("a JSON answer parses");
            let items = match &json {
                serde_json::Value::Array(items) => items,
                serde_json::Value::Object(map) => map.get("data")?.as_array()?,
                _ => return None,
            };
            let text = |item: &serde_json::Value| match item {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some(items.iter().map(|item| number(&text(item))).collect())
        }
        _ => None,
    }
}

/// Every ID an answer issues is new, and a list holds as many as asked for.
fn ids_are_new(server: &Server, target: &str, response: &Response) {
    let Some(ids) = issued_ids(response) else {
        return;
    };
    let path = target.split('?').next().unwrap_or_default();
    if let ["", "api", "segment", "list", _, n] = path.split('/').collect::<Vec<_>>()[..]
        && let Ok(n) = n.parse::<u64>()
    {
        assert_eq!(ids.len() as u64, n, "{target}: asked for {n}");
    }
    let mut issued = server.issued.lock().expect("not poisoned");
    if issued.len() > MAX_REMEMBERED {
        return;
    }
    for id in ids {
        assert!(issued.insert(id), "{target}: ID {id} was issued before");
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle).is_some()
}

/// An answer for a message, cut short.
fn shown(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(2000)]).into_owned()
}
