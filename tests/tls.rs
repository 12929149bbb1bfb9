//! TLS to Redis and MySQL on real servers that accept nothing else: success,
//! a certificate that cannot be verified, a missing client certificate,
//! plain text against a TLS port and the reverse, JDBC-style parameters.

use crate::harness::servers::servers;
use crate::harness::tls::{TlsEnv, certs};
use std::time::{Duration, Instant};

/// The exit code of a TLS failure (README "Exit codes").
const TLS: i32 = 15;

#[test]
fn segments_leases_and_status_work_over_tls_to_both_servers() {
    let tls = TlsEnv::new();
    let run = tls.run(
        &["init-app", "--app", "1", "--name", "one", "--step", "50"],
        &[],
    );
    assert!(run.success(), "{run}");
    let run = tls.run(&["next", "--app", "1", "--count", "120"], &[]);
    assert!(run.success(), "{run}");
    crate::harness::assert_unique(&run.ids());
    assert_eq!(run.ids().len(), 120);
    let run = tls.run(&["reload-segments"], &[]);
    assert!(run.success(), "{run}");
    let run = tls.run(&["lease", "--count", "3"], &[]);
    assert!(run.success(), "{run}");
    assert_eq!(run.ids().len(), 3, "{run}");
    let run = tls.run(&["status", "--json"], &[]);
    assert!(run.success(), "{run}");
    let report: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {run}"));
    for store in report["stores"].as_array().unwrap() {
        assert_eq!(store["state"], "ok", "{run}");
    }
}
