//! `idgen serve` on the wire: requests that hyper would refuse with an empty
//! body get JSON errors, while keep-alive and pipelining keep working; list
//! answers are streamed. Raw TCP throughout.

use crate::harness::served::{
    Reply, Served, metric, parse_metrics, parse_replies, read_until_closed,
};
use crate::harness::{TestEnv, assert_unique, parse_ids, wait_until};
use std::io::Write;
use std::time::Duration;

/// The one answer to `bytes`, which must be a JSON error with this status.
fn json_refusal(served: &Served, bytes: &[u8], status: u16) -> serde_json::Value {
    let replies = served.exchange(bytes);
    assert_eq!(replies.len(), 1, "{replies:?}");
    let reply = &replies[0];
    assert_eq!(reply.status, status, "{}", reply.body);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.code(), "usage");
    reply.json()
}

fn message(answer: &serde_json::Value) -> &str {
    answer["message"].as_str().unwrap()
}

#[test]
fn an_over_long_uri_is_414_with_a_json_body_naming_the_limit() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    let request = format!(
        "GET /api/segment/get/{} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(9000)
    );
    let answer = json_refusal(&served, request.as_bytes(), 414);
    assert!(message(&answer).contains("longer than 8 KiB"), "{answer}");
}

#[test]
fn over_large_headers_are_431_with_a_json_body_naming_the_fix() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    let request = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "b".repeat(20_000)
    );
    let answer = json_refusal(&served, request.as_bytes(), 431);
    assert!(
        message(&answer).contains("larger than 16 KiB; send fewer or shorter headers"),
        "{answer}"
    );
}

#[test]
fn more_than_a_hundred_headers_are_431_with_a_json_body() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    let headers: String = (0..101).map(|i| format!("X-H{i}: v\r\n")).collect();
    let request = format!("GET /healthz HTTP/1.1\r\n{headers}\r\n");
    let answer = json_refusal(&served, request.as_bytes(), 431);
    assert!(
        message(&answer).contains("more than 100 headers"),
        "{answer}"
    );
}

#[test]
fn a_malformed_request_head_is_400_with_a_json_body() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    for (request, says) in [
        ("G(T /healthz HTTP/1.1\r\n\r\n", "method"),
        ("GET /healthz HTTP/7.1\r\n\r\n", "HTTP/1.1"),
        ("GET /healthz HTTP/1.1\r\nBad Name: v\r\n\r\n", "header"),
        ("GET /hea\x7flthz HTTP/1.1\r\n\r\n", "target"),
    ] {
        let answer = json_refusal(&served, request.as_bytes(), 400);
        assert!(message(&answer).contains(says), "{request:?}: {answer}");
    }
}

#[test]
fn a_chunked_request_body_is_400_with_a_json_body() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    let request =
        b"GET /healthz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    let answer = json_refusal(&served, request, 400);
    assert!(
        message(&answer).contains("no endpoint takes a body"),
        "{answer}"
    );
}

#[test]
fn the_json_refusal_needs_no_token_and_counts_as_a_usage_error() {
    let env = TestEnv::embedded();
    let served = Served::start_with(&env, &[], &[("IDGEN_SERVE_TOKEN", "s3cret")], Some(200));
    json_refusal(&served, b"GET / HTTP/1.1\r\nBad Name: v\r\n\r\n", 400);
    let samples = served.get_with("/metrics", &[("Authorization", "Bearer s3cret")]);
    let samples = parse_metrics(&samples.body);
    let usage = metric(&samples, "idgen_serve_errors_total", "code=\"usage\"");
    assert_eq!(usage, 1.0);
}

#[test]
fn pipelined_requests_on_one_connection_are_all_answered_in_order() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    let replies = served.exchange(
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n\
          GET /api/nothing HTTP/1.1\r\nHost: x\r\n\r\n\
          GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 404, 200], "{replies:?}");
}

/// `printf 'GET …' | nc host port` shuts its sending side once the request
/// is out. A streamed list must still arrive whole (hyper used to close the
/// connection at that EOF and cut it; found by fuzzing).
#[test]
fn a_client_that_shuts_its_sending_side_after_the_request_gets_a_whole_streamed_list() {
    let env = TestEnv::embedded();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let served = Served::start(&env, &[]);
    let mut stream = served.connect();
    stream
        .write_all(
            b"GET /api/segment/list/1/5000 HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n",
        )
        .unwrap();
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    let replies = parse_replies(&read_until_closed(&mut stream), false).unwrap();
    let [reply] = replies.as_slice() else {
        panic!("one answer: {replies:?}");
    };
    assert!(reply.complete, "the list was cut: {reply:?}");
    let ids: Vec<String> = serde_json::from_str(&reply.body).unwrap();
    let ids: Vec<u64> = ids.iter().map(|id| id.parse().unwrap()).collect();
    assert_eq!(ids.len(), 5000);
    assert_unique(&ids);
}

#[test]
fn a_bad_head_after_a_good_pipelined_request_is_answered_after_it_then_closed() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    let replies = served.exchange(
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n\
          GET /healthz HTTP/1.1\r\nBad Name: v\r\n\r\n\
          GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 400], "{replies:?}");
    assert_eq!(replies[0].json()["status"], "ok");
    assert_eq!(replies[1].code(), "usage");
}

#[test]
fn a_body_sent_with_content_length_is_skipped_and_the_next_request_answered() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    // The body looks like a request line: it must not be read as one.
    let replies = served.exchange(
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\nGET /nothing HTTP/1.\
          GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 200], "{replies:?}");
}

#[test]
fn a_head_sent_a_byte_at_a_time_is_answered() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    let mut stream = served.connect();
    stream.set_nodelay(true).unwrap();
    for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" {
        stream.write_all(&[*byte]).unwrap();
    }
    let received = read_until_closed(&mut stream);
    let replies: Vec<Reply> = parse_replies(&received, false).expect("an HTTP answer");
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0].status, 200, "{}", replies[0].body);
}

// ---- streamed lists -------------------------------------------------------------------

#[test]
fn a_long_list_is_streamed_in_chunks_and_arrives_whole_in_both_forms() {
    let env = TestEnv::embedded();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let served = Served::start(&env, &[]);
    let lines = served.get("/api/segment/list/orders/5000");
    assert_eq!(lines.header("transfer-encoding"), Some("chunked"));
    assert!(lines.complete && lines.body.ends_with('\n'));
    let json = served.get_with(
        "/api/segment/list/orders/5000",
        &[("Accept", "application/json")],
    );
    assert!(json.complete);
    let strings: Vec<String> = serde_json::from_str(&json.body).unwrap();
    let mut ids = parse_ids(&lines.body);
    ids.extend(strings.iter().map(|id| id.parse::<u64>().unwrap()));
    assert_eq!(ids.len(), 10_000);
    assert_unique(&ids);
}

#[test]
fn a_list_that_fails_part_way_ends_cut_and_counts_the_error() {
    let env = TestEnv::embedded();
    // Every shard has room for about 1,220 indexes (IDs up to 20,000,000): a
    // chunk of 1,024 on any fresh shard fits, and the 64 shards together hold
    // about 78,000 IDs, fewer than the list, whichever shards the chunks pick.
    // No buffer, so nothing but the list takes from the shards.
    crate::serve::limited_app(&env, "small", "20000000");
    let served = Served::start(&env, &["--buffer", "0"]);
    let reply = served.get("/api/segment/list/small/100000");
    // The status went out with the first chunk; the failure cuts the body.
    assert_eq!(reply.status, 200);
    assert!(!reply.complete, "the body ended as if whole");
    assert!(parse_ids(&reply.body).len() < 100_000);
    let exhausted = metric(
        &served.metrics(),
        "idgen_serve_errors_total",
        "code=\"exhausted\"",
    );
    assert_eq!(exhausted, 1.0);
}

/// The process's resident memory, and its peak, in KiB.
fn rss_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in /proc/{pid}/status"))
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// `serve`'s resident memory when idle and its peak once 200 clients that
/// never read have each asked for a list of `n` and every answer has stopped
/// moving, in KiB.
fn memory_with_stuck_clients(n: u64) -> (u64, u64) {
    let env = TestEnv::embedded();
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "100000",
    ]);
    let served = Served::start(&env, &["--write-timeout", "5m"]);
    served.get(&format!("/api/segment/list/orders/{n}"));
    let (idle, _) = rss_kib(served.child.id());
    let stuck: Vec<_> = (0..200)
        .map(|_| {
            let mut stream = served.connect();
            write!(
                stream,
                "GET /api/segment/list/orders/{n} HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            .unwrap();
            stream
        })
        .collect();
    let issued = || {
        let samples = served.metrics();
        let requests = metric(
            &samples,
            "idgen_serve_requests_total",
            "endpoint=\"segment_list\"",
        );
        (
            requests,
            metric(&samples, "idgen_serve_ids_issued_total", "kind=\"segment\""),
        )
    };
    // Every client answered, and the chunks written until the sockets' buffers are full.
    let mut last = 0.0;
    wait_until(
        Duration::from_secs(60),
        "the answers to stop moving",
        || {
            let (requests, ids) = issued();
            let settled = requests == 201.0 && ids == last;
            last = ids;
            settled
        },
    );
    let (now, peak) = rss_kib(served.child.id());
    eprintln!(
        "lists of {n}: RSS idle {idle} KiB, with 200 stuck clients {now} KiB, peak {peak} KiB; {last} IDs taken"
    );
    drop(stuck);
    (idle, peak)
}

#[test]
fn two_hundred_clients_that_never_read_a_long_list_hold_little_memory() {
    // Against the same clients asking for one chunk each: what 200 open
    // connections cost (tasks, buffers; more in a debug build than in a
    // release one, which `scripts/bench.sh memory` measures against the
    // goal of 30 MiB) is the same for both. Beyond it, a client of a long
    // list may hold hyper's write buffer (32 KiB) and a chunk or two (1,024
    // IDs, at most 20 KiB each): about 14 MiB for 200, measured 13-17 MiB
    // with the allocator's slack. A list held whole (over 300 MiB of text
    // for 200 clients of 100,000), or hyper's default buffer (400 KiB, 80
    // MiB for 200), would show.
    let (idle, peak) = memory_with_stuck_clients(100_000);
    let (short_idle, short_peak) = memory_with_stuck_clients(1_000);
    let long = peak.saturating_sub(idle);
    let short = short_peak.saturating_sub(short_idle);
    assert!(
        long < short + 24 * 1024,
        "200 stuck clients of lists of 100,000: +{long} KiB; of 1,000: +{short} KiB"
    );
}
