//! `idgen serve`: every endpoint through real HTTP, against the harness's servers
//! and the embedded store.

use crate::harness::served::{Served, metric, parse_metrics, read_until_closed, try_get};
use crate::harness::servers::free_port;
use crate::harness::{
    Test, TestEnv, assert_unique, parse_ids, segment_parts, wait_until, wait_until_stopped,
};
use idgen::exit_code;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;
use std::time::Instant;

fn orders(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
}

// ---- segments ------------------------------------------------------------------------

#[test]
fn segment_get_answers_one_id_of_the_app_named_or_numbered() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &[]);
    let by_name = served.get("/api/segment/get/orders").id();
    let by_number = served.get("/api/segment/get/1").id();
    assert_eq!(segment_parts(by_name).2, 1);
    assert_eq!(segment_parts(by_number).2, 1);
    assert_ne!(by_name, by_number);
}

/// The shards of `next --gate-pass alice@example.com` and of a `get` of `path`.
fn shards_of_alice_and_get(path: &str) -> (u8, u8) {
    let env = TestEnv::embedded();
    orders(&env);
    let from_next = Test::within(&env)
        .args(["next", "--app", "1", "--gate-pass", "alice@example.com"])
        .status(exit_code::OK)
        .run();
    let served = Served::start(&env, &[]);
    let id = served.get(path).id();
    (segment_parts(from_next.ids()[0]).1, segment_parts(id).1)
}

#[test]
fn segment_get_with_a_gate_pass_takes_the_shard_next_takes() {
    let (next, get) =
        shards_of_alice_and_get("/api/segment/get/orders?gate_pass=alice@example.com");
    assert_eq!(get, next);
}

#[test]
fn segment_get_reads_the_last_gate_pass_of_its_query_percent_decoded() {
    let (next, get) = shards_of_alice_and_get(
        "/api/segment/get/orders?gate_pass=bob&gate_pass=alice%40example.com",
    );
    assert_eq!(get, next);
}

#[test]
fn segment_list_answers_n_ids_one_per_line() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &[]);
    let reply = served.get("/api/segment/list/orders/500");
    assert_eq!(reply.status, 200);
    assert!(reply.body.ends_with('\n'));
    let ids = parse_ids(&reply.body);
    assert_eq!(ids.len(), 500);
    assert_unique(&ids);
}

#[test]
fn segment_list_answers_a_json_array_of_strings_when_asked() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &[]);
    let reply = served.get_with("/api/segment/list/1/3", &[("Accept", "application/json")]);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let ids: Vec<String> = serde_json::from_str(&reply.body).unwrap();
    assert_eq!(ids.len(), 3);
    for id in ids {
        assert_eq!(segment_parts(id.parse().unwrap()).2, 1);
    }
}

#[test]
fn a_list_past_the_maximum_n_is_refused_as_usage() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &["--max-n", "100"]);
    let reply = served.get("/api/segment/list/orders/101");
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(reply.code(), "usage");
    assert!(
        reply.json()["message"]
            .as_str()
            .unwrap()
            .contains("from 1 to 100")
    );
}

#[test]
fn an_unknown_app_is_404_not_found() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &[]);
    for path in ["/api/segment/get/nosuch", "/api/segment/get/9"] {
        let reply = served.get(path);
        assert_eq!(reply.status, 404, "{path}: {}", reply.body);
        assert_eq!(reply.code(), "not-found", "{path}");
    }
}

#[test]
fn an_app_created_while_serving_is_found_by_name() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &[]);
    env.ok(&["init-app", "--app", "2", "--name", "coupons"]);
    assert_eq!(
        segment_parts(served.get("/api/segment/get/coupons").id()).2,
        2
    );
}

/// App 1, named `name`, that may issue no ID above `max_limit_id`.
pub fn limited_app(env: &TestEnv, name: &str, max_limit_id: &str) {
    let args = ["init-app", "--app", "1", "--name", name];
    env.ok(&[&args[..], &["--max-limit-id", max_limit_id]].concat());
}

#[test]
fn an_exhausted_app_is_422_exhausted() {
    let env = TestEnv::embedded();
    limited_app(&env, "tiny", "100000");
    let served = Served::start(&env, &[]);
    let reply = served.get("/api/segment/list/tiny/100000");
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert_eq!(reply.code(), "exhausted");
}

#[test]
fn an_unreachable_redis_is_503_unavailable_and_unhealthy() {
    let env = TestEnv::distributed();
    orders(&env);
    let dead = format!("redis://127.0.0.1:{}", free_port());
    let served = Served::start_with(&env, &[], &[("IDGEN_REDIS_URL", &dead)], None);
    let reply = served.get("/api/segment/get/1");
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(reply.code(), "unavailable");
    let health = served.get("/healthz");
    assert_eq!(health.status, 503);
    let reasons = health.json()["reasons"].as_array().unwrap().clone();
    assert!(
        reasons
            .iter()
            .any(|r| r.as_str().unwrap().starts_with("segment backend: Redis")),
        "{}",
        health.body
    );
}

#[test]
fn an_unreachable_mysql_makes_healthz_503_with_a_reason() {
    let env = TestEnv::distributed();
    let dead = format!("mysql://root@127.0.0.1:{}/idgen", free_port());
    let served = Served::start_with(&env, &[], &[("IDGEN_MYSQL_URL", &dead)], Some(503));
    let health = served.get("/healthz");
    assert_eq!(health.json()["code"], "unavailable");
    assert!(!health.json()["reasons"].as_array().unwrap().is_empty());
}

#[test]
fn the_distributed_backend_serves_segment_ids() {
    let env = TestEnv::distributed();
    orders(&env);
    let served = Served::start(&env, &[]);
    let mut ids: Vec<u64> = (0..20)
        .map(|_| served.get("/api/segment/get/orders").id())
        .collect();
    ids.extend(parse_ids(&served.get("/api/segment/list/orders/2000").body));
    assert_eq!(ids.len(), 2020);
    assert_unique(&ids);
}

// ---- snowflake and decode -------------------------------------------------------------

#[test]
fn snowflake_get_issues_under_the_namespace_lease() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &["--namespace", "orders"]);
    let ids: Vec<u64> = (0..50)
        .map(|_| served.get("/api/snowflake/get/orders").id())
        .collect();
    assert_unique(&ids);
    let worker = served.get("/metrics").body;
    let worker: u64 = metric(
        &parse_metrics(&worker),
        "idgen_serve_lease_worker",
        "namespace=\"orders\"",
    ) as u64;
    let snowflake = idgen::layout::Layout::named("snowflake").unwrap();
    for id in ids {
        assert_eq!(snowflake.parts(id).unwrap().worker, worker, "ID {id}");
    }
}

#[test]
fn each_namespace_has_its_own_layout() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &["--namespace", "a", "--namespace", "b=sonyflake"]);
    let id = served.get("/api/snowflake/get/b").id();
    let decoded = served
        .get(&format!("/api/decode/{id}?layout=sonyflake"))
        .json();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let at = decoded["unix_ms"].as_i64().unwrap();
    assert!((now - at).abs() < 60_000, "{decoded}");
}

#[test]
fn an_unserved_namespace_is_404_not_found() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &["--namespace", "orders"]);
    let reply = served.get("/api/snowflake/get/other");
    assert_eq!(reply.status, 404);
    assert_eq!(reply.code(), "not-found");
}

#[test]
fn the_distributed_backend_serves_snowflake_ids_and_releases_the_lease_on_sigterm() {
    let env = TestEnv::distributed();
    let served = Served::start(&env, &["--namespace", "orders"]);
    let ids: Vec<u64> = (0..20)
        .map(|_| served.get("/api/snowflake/get/orders").id())
        .collect();
    assert_unique(&ids);
    served.stop_releasing();
}

#[test]
fn decode_answers_the_decode_json_object_with_the_id_as_a_string() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    let reply = served.get("/api/decode/175928847299117063?layout=discord");
    assert_eq!(reply.status, 200);
    let mut cli = Test::within(&env)
        .args([
            "decode",
            "--json",
            "--layout",
            "discord",
            "175928847299117063",
        ])
        .status(exit_code::OK)
        .run()
        .json();
    cli["id"] = serde_json::Value::String("175928847299117063".into());
    assert_eq!(reply.json(), cli);
}

#[test]
fn a_bad_id_or_layout_is_400_usage() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    for path in ["/api/decode/banana", "/api/decode/1?layout=nosuch"] {
        let reply = served.get(path);
        assert_eq!(reply.status, 400, "{path}: {}", reply.body);
        assert_eq!(reply.code(), "usage", "{path}");
    }
}

#[test]
fn an_unknown_path_is_404_not_found() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    let reply = served.get("/api/nothing");
    assert_eq!(reply.status, 404);
    assert_eq!(reply.code(), "not-found");
}

// ---- Leaf compatibility ---------------------------------------------------------------

#[test]
fn leaf_segment_and_snowflake_answers_are_bare_decimals_as_leaf_sends_them() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &["--namespace", "leaf"]);
    for path in ["/api/segment/get/orders", "/api/snowflake/get/leaf"] {
        let reply = served.get(path);
        assert_eq!(
            reply.header("content-type"),
            Some("text/plain;charset=UTF-8")
        );
        let id = reply.id();
        assert_eq!(reply.raw_body, id.to_string().into_bytes(), "{path}");
    }
}

#[test]
fn leaf_decode_snowflake_id_matches_leaf_byte_for_byte() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &[]);
    let reply = served.get("/decodeSnowflakeId?snowflakeId=1541815603606036480");
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.raw_body,
        br#"{"workerId":"378","sequenceId":"0","timestamp":"1656432460105(2022-06-28 16:07:40.105)"}"#
    );
    let bad = served.get("/decodeSnowflakeId?snowflakeId=x");
    assert_eq!(bad.status, 200);
    assert_eq!(
        bad.raw_body,
        "{\"errorMsg\":\"snowflake Id反解析发生异常!\"}".as_bytes()
    );
}

// ---- metrics --------------------------------------------------------------------------

#[test]
fn metrics_count_requests_ids_errors_latency_and_leases() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &["--namespace", "orders"]);
    served.get("/api/segment/get/orders").id();
    served.get("/api/segment/get/1").id();
    assert_eq!(served.get("/api/segment/list/orders/10").status, 200);
    served.get("/api/snowflake/get/orders").id();
    assert_eq!(served.get("/api/segment/get/nosuch").status, 404);
    let reply = served.get("/metrics");
    assert!(
        reply
            .header("content-type")
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let samples = parse_metrics(&reply.body);
    let m = |name, labels| metric(&samples, name, labels);
    assert_eq!(
        m(
            "idgen_serve_requests_total",
            "endpoint=\"segment_get\",key=\"1\""
        ),
        2.0
    );
    assert_eq!(
        m("idgen_serve_ids_issued_total", "kind=\"segment\",key=\"1\""),
        12.0
    );
    assert_eq!(
        m(
            "idgen_serve_ids_issued_total",
            "kind=\"snowflake\",key=\"orders\""
        ),
        1.0
    );
    assert_eq!(m("idgen_serve_errors_total", "code=\"not-found\""), 1.0);
    assert_eq!(
        m(
            "idgen_serve_request_duration_seconds_count",
            "endpoint=\"segment_get\""
        ),
        2.0
    );
    assert_eq!(
        m(
            "idgen_serve_request_duration_seconds_bucket",
            "endpoint=\"segment_list\",le=\"+Inf\""
        ),
        1.0
    );
    assert_eq!(m("idgen_serve_lease_held", "namespace=\"orders\""), 1.0);
    assert_eq!(m("idgen_serve_redis_rollbacks_total", ""), 0.0);
}

// ---- access and limits ----------------------------------------------------------------

#[test]
fn with_a_token_every_endpoint_but_healthz_needs_it() {
    let env = TestEnv::embedded();
    orders(&env);
    let token_file = env.home.path().join("token");
    std::fs::write(&token_file, "s3cret-t0ken\n").unwrap();
    let served = Served::start(&env, &["--token-file", token_file.to_str().unwrap()]);
    let refused = served.get("/api/segment/get/orders");
    assert_eq!(refused.status, 401);
    assert_eq!(refused.code(), "access");
    let wrong = served.get_with("/metrics", &[("Authorization", "Bearer s3cret-t0kem")]);
    assert_eq!(wrong.status, 401);
    served
        .get_with(
            "/api/segment/get/orders",
            &[("Authorization", "Bearer s3cret-t0ken")],
        )
        .id();
    assert_eq!(served.get("/healthz").status, 200);
}

#[test]
fn the_bearer_scheme_is_case_insensitive() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start_with(&env, &[], &[("IDGEN_SERVE_TOKEN", "s3cret")], Some(200));
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let auth = format!("{scheme} s3cret");
        let reply = served.get_with("/api/segment/get/orders", &[("Authorization", &auth)]);
        assert_eq!(reply.status, 200, "{scheme}: {}", reply.body);
    }
}

#[test]
fn a_token_file_is_read_by_its_first_line() {
    let env = TestEnv::embedded();
    orders(&env);
    let token_file = env.home.path().join("token");
    std::fs::write(&token_file, "s3cret\nrotated on 2024-01-01 by ops\n").unwrap();
    let served = Served::start(&env, &["--token-file", token_file.to_str().unwrap()]);
    let reply = served.get_with(
        "/api/segment/get/orders",
        &[("Authorization", "Bearer s3cret")],
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
}

#[test]
fn a_token_shorter_or_longer_than_the_real_one_is_401() {
    let env = TestEnv::embedded();
    let served = Served::start_with(&env, &[], &[("IDGEN_SERVE_TOKEN", "s3cret")], Some(200));
    for given in ["s3cre", "s3cret0", ""] {
        let auth = format!("Bearer {given}");
        let reply = served.get_with("/metrics", &[("Authorization", &auth)]);
        assert_eq!(reply.status, 401, "{given:?}");
    }
}

#[test]
fn the_token_from_the_environment_is_never_printed() {
    let env = TestEnv::embedded();
    orders(&env);
    let vars = [("IDGEN_SERVE_TOKEN", "env-t0ken-value")];
    let served = Served::start_with(&env, &["--verbose"], &vars, Some(200));
    let ok = served.get_with("/metrics", &[("Authorization", "Bearer env-t0ken-value")]);
    assert_eq!(ok.status, 200);
    assert!(!ok.body.contains("env-t0ken-value"));
    let refused = served.get("/api/segment/get/orders");
    assert!(!refused.body.contains("env-t0ken-value"));
    served.signal(libc::SIGTERM);
    let (_, stderr) = served.finish();
    assert!(!stderr.contains("env-t0ken-value"), "{stderr}");
    Test::within(&env)
        .args(["serve", "--help"])
        .env("IDGEN_SERVE_TOKEN", "env-t0ken-value")
        .stdout_lacks("env-t0ken-value")
        .stderr_lacks("env-t0ken-value")
        .run();
}

#[test]
fn a_non_loopback_address_needs_allow_remote() {
    let env = TestEnv::embedded();
    Test::within(&env)
        .args(["serve", "--listen", "0.0.0.0:0"])
        .status(exit_code::USAGE)
        .one_line_error("--allow-remote")
        .run();
}

// ---- shutdown and crashes -------------------------------------------------------------

#[test]
fn sigterm_finishes_the_requests_in_flight_then_stops_and_releases_leases() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start_with(
        &env,
        &["--namespace", "orders"],
        &[("IDGEN_FAILPOINTS", "serve.before_answer=stop")],
        Some(200),
    );
    let port = served.port;
    let in_flight = std::thread::spawn(move || try_get(port, "/api/segment/list/orders/100", &[]));
    wait_until_stopped(
        served.child.id() as i32,
        "the request to reach the failpoint",
    );
    served.signal(libc::SIGTERM);
    served.signal(libc::SIGCONT);
    let reply = in_flight
        .join()
        .unwrap()
        .expect("the request in flight is answered");
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(parse_ids(&reply.body).len(), 100);
    let (status, stderr) = served.finish();
    assert!(status.success(), "{status}: {stderr}");
    assert!(stderr.contains("released worker"), "{stderr}");
    assert!(
        try_get(port, "/healthz", &[]).is_err(),
        "still accepting after SIGTERM"
    );
}

#[test]
fn a_server_killed_with_sigkill_repeats_no_id_after_a_restart() {
    let env = TestEnv::embedded();
    orders(&env);
    let mut ids = Vec::new();
    let first = Served::start(&env, &["--namespace", "orders"]);
    ids.extend(parse_ids(&first.get("/api/segment/list/orders/3000").body));
    ids.extend((0..200).map(|_| first.get("/api/snowflake/get/orders").id()));
    first.signal(libc::SIGKILL);
    let (status, _) = first.finish();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    let second = Served::start(&env, &["--namespace", "orders"]);
    ids.extend(parse_ids(&second.get("/api/segment/list/orders/3000").body));
    ids.extend((0..200).map(|_| second.get("/api/snowflake/get/orders").id()));
    assert_eq!(ids.len(), 6400);
    assert_unique(&ids);
}

// ---- many clients, two servers, one backend -------------------------------------------

/// IDs the concurrency test takes in all; `IDGEN_SERVE_TEST_IDS` scales it.
fn concurrent_target() -> usize {
    std::env::var("IDGEN_SERVE_TEST_IDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000)
}

#[test]
fn eight_clients_on_two_servers_during_reload_and_migrate_get_no_duplicate() {
    let env = TestEnv::distributed_with_nodes();
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "1000",
    ]);
    env.ok(&["reload-segments", "--app", "1", "--quiet"]);
    let servers = [Served::start(&env, &[]), Served::start(&env, &[])];
    let ports: Vec<u16> = servers.iter().map(|s| s.port).collect();
    let target = concurrent_target();
    let per_client = target.div_ceil(8);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let clients: Vec<_> = (0..8)
        .map(|client| {
            let port = ports[client % 2];
            std::thread::spawn(move || {
                let mut ids = Vec::with_capacity(per_client);
                let mut round = 0u32;
                while ids.len() < per_client {
                    round += 1;
                    if round.is_multiple_of(10) {
                        let reply = try_get(port, "/api/segment/get/orders", &[]).unwrap();
                        ids.push(reply.id());
                    } else {
                        let n = (per_client - ids.len()).min(997);
                        let reply =
                            try_get(port, &format!("/api/segment/list/1/{n}"), &[]).unwrap();
                        assert_eq!(reply.status, 200, "{}", reply.body);
                        ids.extend(parse_ids(&reply.body));
                    }
                }
                ids
            })
        })
        .collect();
    let operator = {
        let done = done.clone();
        let command = |args: &[&str]| Test::within(&env).args(args.iter().copied()).command();
        let reload_args = ["reload-segments", "--app", "1", "--quiet"];
        let mut steps = [
            command(&reload_args),
            command(&["migrate", "--app", "1", "--to", "hot", "--yes"]),
            command(&reload_args),
            command(&["migrate", "--app", "1", "--to", "main", "--yes"]),
        ];
        let mut reload = command(&reload_args);
        std::thread::spawn(move || {
            let mut runs = Vec::new();
            for cmd in &mut steps {
                runs.push(cmd.output().unwrap());
            }
            while !done.load(std::sync::atomic::Ordering::Acquire) {
                runs.push(reload.output().unwrap());
            }
            runs
        })
    };
    let mut ids = Vec::with_capacity(target + 8);
    for client in clients {
        ids.extend(client.join().unwrap());
    }
    done.store(true, std::sync::atomic::Ordering::Release);
    for run in operator.join().unwrap() {
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    assert!(ids.len() >= target);
    assert_unique(&ids);
}

// ---- the buffer ------------------------------------------------------------------------

#[test]
fn the_buffer_answers_from_memory_and_reports_its_depth_and_refills() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &["--buffer", "200"]);
    served.get("/api/segment/get/orders").id();
    let samples = || parse_metrics(&served.get("/metrics").body);
    wait_until(
        Duration::from_secs(30),
        "the first background refill",
        || metric(&samples(), "idgen_serve_buffer_refills_total", "") >= 1.0,
    );
    assert_eq!(
        metric(
            &samples(),
            "idgen_serve_buffer_depth",
            "app=\"1\",shard=\"any\""
        ),
        200.0
    );
    served.get("/api/segment/get/orders").id();
    assert_eq!(
        metric(
            &samples(),
            "idgen_serve_buffer_depth",
            "app=\"1\",shard=\"any\""
        ),
        199.0
    );
}

#[test]
fn a_buffered_server_repeats_nothing_across_a_redis_restart_from_an_older_snapshot() {
    use crate::harness::faults::{Persistence, RedisProcess};
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::Snapshot);
    let url = redis.url();
    let vars = [("IDGEN_REDIS_URL", url.as_str())];
    env.ok(&[
        "init-app", "--app", "1", "--name", "orders", "--step", "1000",
    ]);
    Test::within(&env)
        .args(["reload-segments", "--app", "1", "--quiet"])
        .env("IDGEN_REDIS_URL", &url)
        .status(exit_code::OK)
        .run();
    let snapshot = redis.snapshot("stocked");
    let served = Served::start_with(&env, &["--buffer", "500"], &vars, Some(200));
    let mut ids = Vec::new();
    let take = |ids: &mut Vec<u64>, want: usize| {
        let mut errors = 0;
        while ids.len() < want {
            let reply = if ids.len().is_multiple_of(3) {
                served.get("/api/segment/list/orders/400")
            } else {
                served.get("/api/segment/get/orders")
            };
            if reply.status == 200 {
                ids.extend(parse_ids(&reply.body));
            } else {
                // Reconnecting to the restarted Redis.
                assert_eq!(reply.code(), "unavailable", "{}", reply.body);
                errors += 1;
                assert!(errors < 20, "no recovery: {}", reply.body);
            }
        }
    };
    take(&mut ids, 20_000);
    redis.restart_from_snapshot(&snapshot);
    take(&mut ids, 40_000);
    assert_unique(&ids);
    let samples = parse_metrics(&served.get("/metrics").body);
    assert!(metric(&samples, "idgen_serve_redis_rollbacks_total", "") > 0.0);
}

#[test]
fn a_namespace_whose_lease_cannot_be_proven_is_503_and_unhealthy() {
    use crate::harness::faults::TcpProxy;
    let env = TestEnv::distributed();
    let (redis, redis_url) = TcpProxy::for_url(&env.redis_url);
    let (mysql, mysql_url) = TcpProxy::for_url(&env.mysql_url);
    let vars = [
        ("IDGEN_REDIS_URL", redis_url.as_str()),
        ("IDGEN_MYSQL_URL", mysql_url.as_str()),
        ("IDGEN_TIMEOUT", "500ms"),
    ];
    let served = Served::start_with(
        &env,
        &["--namespace", "orders", "--ttl", "900ms"],
        &vars,
        Some(200),
    );
    served.get("/api/snowflake/get/orders").id();
    redis.cut();
    mysql.cut();
    wait_until(Duration::from_secs(30), "the lease to lapse", || {
        served.get("/healthz").status == 503
    });
    let health = served.get("/healthz").json();
    assert!(
        health["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r.as_str().unwrap().contains("namespace orders")),
        "{health}"
    );
    let samples = parse_metrics(&served.get("/metrics").body);
    assert_eq!(
        metric(&samples, "idgen_serve_lease_held", "namespace=\"orders\""),
        0.0
    );
    let reply = served.get("/api/snowflake/get/orders");
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(reply.code(), "unavailable");
}

// ---- slow and idle clients ------------------------------------------------------------

#[test]
fn idle_connections_are_closed_after_the_header_timeout_so_new_clients_get_in() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &["--max-connections", "4", "--header-timeout", "1s"]);
    let mut idle: Vec<_> = (0..4).map(|_| served.connect()).collect();
    let started = Instant::now();
    let reply = served.get("/api/segment/get/orders");
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(started.elapsed() < Duration::from_secs(20));
    for stream in &mut idle {
        assert!(read_until_closed(stream).is_empty());
    }
}

#[test]
fn a_half_sent_request_is_closed_after_the_header_timeout() {
    let env = TestEnv::embedded();
    let served = Served::start(&env, &["--header-timeout", "1s"]);
    let mut stream = served.connect();
    let started = Instant::now();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .unwrap();
    read_until_closed(&mut stream);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(900), "{waited:?}");
    assert!(waited < Duration::from_secs(20), "{waited:?}");
}

#[test]
fn sigterm_closes_a_half_sent_request_at_once_and_releases_leases() {
    let env = TestEnv::embedded();
    let served = Served::start(
        &env,
        &[
            "--namespace",
            "orders",
            "--header-timeout",
            "5m",
            "--drain-timeout",
            "5m",
        ],
    );
    let mut stream = served.connect();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .unwrap();
    // A full answer on another connection: the half-sent one has been accepted.
    assert_eq!(served.get("/healthz").status, 200);
    let stderr = served.stop_releasing();
    // Nothing of it was being handled: no drain was waited for it.
    assert!(!stderr.contains("--drain-timeout"), "{stderr}");
    assert!(read_until_closed(&mut stream).is_empty());
}

#[test]
fn sigterm_with_an_unread_answer_stops_within_the_drain_timeout_and_releases_leases() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(
        &env,
        &[
            "--namespace",
            "orders",
            "--write-timeout",
            "5m",
            "--drain-timeout",
            "1s",
            "--max-n",
            "1000000",
        ],
    );
    let mut stuck = served.connect();
    stuck
        .write_all(b"GET /api/segment/list/orders/1000000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    wait_until(Duration::from_secs(30), "the list to be answered", || {
        served
            .metrics()
            .iter()
            .any(|(name, n)| name.starts_with("idgen_serve_ids_issued_total") && *n > 0.0)
    });
    let started = Instant::now();
    let stderr = served.stop_releasing();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(stderr.contains("--drain-timeout"), "{stderr}");
}

#[test]
fn a_client_that_never_reads_frees_its_connection_after_the_write_timeout() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(
        &env,
        &[
            "--max-connections",
            "1",
            "--write-timeout",
            "1s",
            "--max-n",
            "1000000",
        ],
    );
    // About 16 MB of answer: more than the kernel's socket buffers hold.
    let mut stuck = served.connect();
    stuck
        .write_all(b"GET /api/segment/list/orders/1000000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    // Served only once the stuck client's connection gives its slot back.
    let reply = served.get("/api/segment/get/orders");
    assert_eq!(reply.status, 200, "{}", reply.body);
    let received = read_until_closed(&mut stuck);
    let body_lines = received.iter().filter(|&&b| b == b'\n').count();
    assert!(body_lines < 1_000_000, "the whole answer arrived");
}

#[test]
fn a_zero_timeout_is_refused_as_usage() {
    let env = TestEnv::embedded();
    Test::within(&env)
        .args(["serve", "--drain-timeout", "0s"])
        .status(exit_code::USAGE)
        .stderr("--drain-timeout 0")
        .run();
}

// ---- methods and error bodies ---------------------------------------------------------

#[test]
fn head_on_an_issuing_endpoint_answers_without_taking_an_id() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &["--namespace", "orders"]);
    for path in [
        "/api/segment/get/orders",
        "/api/segment/list/orders/10",
        "/api/snowflake/get/orders",
        "/tinyid/id/nextId?bizType=orders",
        "/tinyid/id/nextIdSimple?bizType=orders&batchSize=3",
    ] {
        let reply = served.request("HEAD", path);
        assert_eq!(reply.status, 200, "{path}");
        assert!(reply.raw_body.is_empty(), "{path}");
    }
    // The one ID taken is this GET's.
    served.get("/api/segment/get/orders").id();
    let samples = parse_metrics(&served.get("/metrics").body);
    let issued: f64 = samples
        .iter()
        .filter(|(name, _)| name.starts_with("idgen_serve_ids_issued_total"))
        .map(|(_, value)| value)
        .sum();
    assert_eq!(issued, 1.0);
}

#[test]
fn a_method_other_than_get_is_405_with_a_json_body() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &[]);
    let reply = served.request("POST", "/api/segment/get/orders");
    assert_eq!(reply.status, 405, "{}", reply.body);
    assert_eq!(reply.code(), "usage");
    assert!(
        reply
            .header("allow")
            .is_some_and(|allow| allow.contains("GET"))
    );
}

#[test]
fn a_path_that_is_not_utf8_is_400_with_a_json_body() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &[]);
    let reply = served.get("/api/segment/get/%FF%FE");
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(reply.code(), "usage");
}

/// `serve --namespace` starts holding by the rule `lease` does: a layout that
/// cannot issue yet is refused before the namespace is recorded or a worker
/// ID taken, and a bad `--ttl` is named.
#[test]
fn serve_refuses_a_namespace_lease_would_refuse_before_recording_it() {
    let env = TestEnv::embedded();
    for command in ["serve", "lease"] {
        let mut args = vec![command, "--namespace", "fut", "--epoch", "2030-01-01"];
        if command == "serve" {
            args.extend(["--listen", "127.0.0.1:0"]);
        }
        Test::within(&env)
            .args(args)
            .status(exit_code::USAGE)
            .stderr("2030")
            .run();
    }
    Test::within(&env)
        .args(["namespace", "list"])
        .stdout_lacks("fut")
        .run();
    Test::within(&env)
        .args([
            "serve",
            "--namespace",
            "ok",
            "--ttl",
            "0s",
            "--listen",
            "127.0.0.1:0",
        ])
        .status(exit_code::USAGE)
        .stderr("--ttl")
        .run();
}
