//! `idgen serve` against real servers stopped under it: `/healthz` probes
//! every backend the server takes from and names no host; app names survive
//! a MySQL outage, and unknown ones do not reach MySQL on every request;
//! metrics carry series only for what exists.

use crate::harness::faults::{Persistence, RedisProcess, TcpProxy};
use crate::harness::served::{Served, metric};
use crate::harness::servers::free_port;
use crate::harness::{TestEnv, wait_until};
use std::time::Duration;

/// The reasons of a 503 `/healthz`, once it says 503.
fn unhealthy_reasons(served: &Served) -> (String, Vec<String>) {
    wait_until(Duration::from_secs(30), "/healthz to say 503", || {
        served.get("/healthz").status == 503
    });
    let health = served.get("/healthz");
    let reasons = health.json()["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    (health.body, reasons)
}

/// A server on the harness's MySQL and a Redis of the test's own.
fn on_own_redis(env: &TestEnv, redis: &RedisProcess, args: &[&str]) -> Served {
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let vars = [
        ("IDGEN_REDIS_URL", redis.url()),
        ("IDGEN_TIMEOUT", "1s".to_string()),
    ];
    let borrowed: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Served::start_with(env, args, &borrowed, Some(200))
}

#[test]
fn a_stopped_redis_makes_healthz_503_while_mysql_still_answers() {
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::None);
    let served = on_own_redis(&env, &redis, &[]);
    served.get("/api/segment/get/orders").id();
    redis.kill();
    let (body, reasons) = unhealthy_reasons(&served);
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("Redis node main: Redis unreachable")),
        "{body}"
    );
    assert!(!reasons.iter().any(|r| r.contains("ledger")), "{body}");
}

#[test]
fn healthz_names_no_host_or_port_of_a_stopped_redis() {
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::None);
    let served = on_own_redis(&env, &redis, &[]);
    redis.kill();
    // A request meets the outage too: its reason is shown as well.
    assert_eq!(served.get("/api/segment/get/orders").status, 503);
    wait_until(Duration::from_secs(30), "the probe's reason too", || {
        unhealthy_reasons(&served).1.len() >= 2
    });
    let (body, _) = unhealthy_reasons(&served);
    for hidden in [
        "127.0.0.1",
        "localhost",
        "redis://",
        &redis.port().to_string(),
    ] {
        assert!(!body.contains(hidden), "{hidden} in {body}");
    }
}

#[test]
fn healthz_is_200_again_once_the_stopped_redis_is_back() {
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::None);
    let served = on_own_redis(&env, &redis, &[]);
    redis.kill();
    unhealthy_reasons(&served);
    redis.restart();
    wait_until(Duration::from_secs(30), "/healthz to say 200", || {
        served.get("/healthz").status == 200
    });
}

#[test]
fn a_stopped_redis_under_a_served_namespace_names_the_lease_store() {
    let env = TestEnv::distributed();
    let mut redis = RedisProcess::start(Persistence::None);
    let served = on_own_redis(&env, &redis, &["--namespace", "orders"]);
    redis.kill();
    let (body, reasons) = unhealthy_reasons(&served);
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("lease store: Redis unreachable")),
        "{body}"
    );
}

#[test]
fn an_unreachable_mysql_is_named_in_healthz_without_its_address() {
    let env = TestEnv::distributed();
    let port = free_port();
    let dead = format!("mysql://root@127.0.0.1:{port}/idgen");
    let served = Served::start_with(&env, &[], &[("IDGEN_MYSQL_URL", &dead)], Some(503));
    let (body, reasons) = unhealthy_reasons(&served);
    assert!(
        reasons.contains(&"segment ledger: MySQL unreachable: connection refused".to_string()),
        "{body}"
    );
    assert!(!body.contains(&port.to_string()), "{body}");
}

// ---- app names and MySQL ------------------------------------------------------------

/// A server whose MySQL is reached through a proxy the test can cut, with
/// app `orders` created and stocked.
fn through_mysql_proxy(env: &TestEnv) -> (Served, TcpProxy) {
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    env.ok(&["reload-segments", "--app", "1", "--quiet"]);
    let (mysql, mysql_url) = TcpProxy::for_url(&env.mysql_url);
    let vars = [
        ("IDGEN_MYSQL_URL", mysql_url.as_str()),
        ("IDGEN_TIMEOUT", "1s"),
    ];
    (Served::start_with(env, &[], &vars, Some(200)), mysql)
}

#[test]
fn a_known_app_name_is_served_while_mysql_is_down() {
    let env = TestEnv::distributed();
    let (served, mysql) = through_mysql_proxy(&env);
    mysql.cut();
    unhealthy_reasons(&served);
    served.get("/api/segment/get/orders").id();
}

#[test]
fn an_unknown_app_name_while_mysql_is_down_is_503_not_404() {
    let env = TestEnv::distributed();
    let (served, mysql) = through_mysql_proxy(&env);
    mysql.cut();
    let reply = served.get("/api/segment/get/coupons");
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(reply.code(), "unavailable");
}

#[test]
fn unknown_app_keys_are_remembered_so_a_404_loop_barely_reaches_mysql() {
    let env = TestEnv::distributed();
    let (served, mysql) = through_mysql_proxy(&env);
    let before = mysql.sends();
    for round in 0..200 {
        let key = if round % 2 == 0 { "nosuch" } else { "9" };
        let reply = served.get(&format!("/api/segment/get/{key}"));
        assert_eq!(reply.status, 404, "{key}: {}", reply.body);
    }
    // Without the memory each request read the ledger at least once (200+);
    // with it, the first of each key and the probes every 2 s do.
    let sent = mysql.sends() - before;
    assert!(sent < 60, "{sent} commands reached MySQL for 200 requests");
}

// ---- metrics ----------------------------------------------------------------------------

#[test]
fn buffer_depth_has_series_only_for_apps_that_exist() {
    let env = TestEnv::embedded();
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
    let served = Served::start(&env, &["--buffer", "100"]);
    for path in [
        "/api/segment/get/9",
        "/api/segment/get/10?gate_pass=alice",
        "/api/segment/list/11/5",
        "/api/segment/get/nosuch",
    ] {
        assert_eq!(served.get(path).status, 404, "{path}");
    }
    served.get("/api/segment/get/orders").id();
    wait_until(Duration::from_secs(30), "the first refill", || {
        metric(&served.metrics(), "idgen_serve_buffer_refills_total", "") >= 1.0
    });
    let depths: Vec<String> = served
        .metrics()
        .into_iter()
        .map(|(series, _)| series)
        .filter(|series| series.starts_with("idgen_serve_buffer_depth"))
        .collect();
    assert_eq!(
        depths,
        ["idgen_serve_buffer_depth{app=\"1\",shard=\"any\"}"],
        "{depths:?}"
    );
}
