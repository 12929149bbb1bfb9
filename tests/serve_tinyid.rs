//! `idgen serve`'s Didi Tinyid endpoints: Tinyid's parameters and answers,
//! byte for byte, so its users can switch by changing the address.

use crate::harness::served::Served;
use crate::harness::{TestEnv, assert_unique, segment_parts};

fn orders(env: &TestEnv) {
    env.ok(&["init-app", "--app", "1", "--name", "orders"]);
}

/// The IDs of a successful `nextId` answer, checked to be Tinyid's shape.
fn next_id_data(body: &str) -> Vec<u64> {
    let inner = body
        .strip_prefix("{\"data\":[")
        .and_then(|rest| rest.strip_suffix("],\"code\":200,\"message\":\"\"}"))
        .unwrap_or_else(|| panic!("not Tinyid's success shape: {body}"));
    inner.split(',').map(|id| id.parse().unwrap()).collect()
}

#[test]
fn next_id_answers_tinyid_s_json_with_the_ids_as_numbers() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &[]);
    let reply = served.get("/tinyid/id/nextId?bizType=orders&batchSize=3");
    assert_eq!(reply.status, 200);
    assert!(
        reply
            .header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    let ids = next_id_data(&reply.body);
    assert_eq!(ids.len(), 3);
    for id in ids {
        assert_eq!(segment_parts(id).2, 1);
    }
}

#[test]
fn next_id_simple_answers_the_ids_joined_by_commas_one_by_default() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &[]);
    let five = served.get("/tinyid/id/nextIdSimple?bizType=1&batchSize=5");
    assert_eq!(
        five.header("content-type"),
        Some("text/plain;charset=UTF-8")
    );
    let mut ids: Vec<u64> = five.body.split(',').map(|id| id.parse().unwrap()).collect();
    assert_eq!(ids.len(), 5);
    let one = served.get("/tinyid/id/nextIdSimple?bizType=orders");
    ids.push(
        one.body
            .parse()
            .unwrap_or_else(|_| panic!("not one ID: {}", one.body)),
    );
    assert_unique(&ids);
}

#[test]
fn a_batch_above_max_n_is_capped_as_tinyid_caps_it() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &["--max-n", "10"]);
    let reply = served.get("/tinyid/id/nextId?bizType=orders&batchSize=50");
    assert_eq!(next_id_data(&reply.body).len(), 10);
}

#[test]
fn a_long_batch_is_streamed_and_whole() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &[]);
    let reply = served.get("/tinyid/id/nextId?bizType=orders&batchSize=3000");
    assert!(reply.complete);
    let ids = next_id_data(&reply.body);
    assert_eq!(ids.len(), 3000);
    assert_unique(&ids);
}

#[test]
fn a_failure_is_tinyid_s_code_6_with_null_data_or_an_empty_simple_body() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start(&env, &[]);
    let json = served.get("/tinyid/id/nextId?bizType=nosuch&batchSize=2");
    assert_eq!(json.status, 200);
    assert!(
        json.body
            .starts_with("{\"data\":null,\"code\":6,\"message\":\"no app is named"),
        "{}",
        json.body
    );
    assert!(json.body.ends_with("\"}"), "{}", json.body);
    let simple = served.get("/tinyid/id/nextIdSimple?bizType=nosuch");
    assert_eq!(simple.status, 200);
    assert!(simple.raw_body.is_empty(), "{}", simple.body);
}

#[test]
fn the_token_is_taken_from_the_query_string_on_tinyid_s_paths_only() {
    let env = TestEnv::embedded();
    orders(&env);
    let served = Served::start_with(&env, &[], &[("IDGEN_SERVE_TOKEN", "s3cret")], Some(200));
    let refused = served.get("/tinyid/id/nextId?bizType=orders&token=wrong");
    assert_eq!(refused.status, 200);
    assert_eq!(
        refused.body,
        "{\"data\":null,\"code\":5,\"message\":\"token is error\"}"
    );
    let simple = served.get("/tinyid/id/nextIdSimple?bizType=orders");
    assert!(simple.raw_body.is_empty(), "{}", simple.body);
    let granted = served.get("/tinyid/id/nextId?bizType=orders&token=s3cret");
    assert_eq!(next_id_data(&granted.body).len(), 1);
    let bearer = served.get_with(
        "/tinyid/id/nextIdSimple?bizType=orders",
        &[("Authorization", "Bearer s3cret")],
    );
    bearer.id();
    // Elsewhere the query string carries no token.
    assert_eq!(
        served.get("/api/segment/get/orders?token=s3cret").status,
        401
    );
}
