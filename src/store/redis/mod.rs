//! A Redis node as a segment [`Dispenser`](crate::store::Dispenser).
//!
//! Key names are the Java service's, so both can serve the same node:
//! `id.gen.idList_{app}_{shard}` (queue) and `id.gen.lock_{app}_{shard}` (refill
//! lock). idgen adds `id.gen.range_{app}_{shard}` (range dispenser) and
//! `id.gen.route_{app}` (which node serves a moved app).
//!
//! Pushing and retiring are fenced by the lock token inside one script, so a
//! refiller whose lock expired can never stock a shard it no longer owns.
//!
//! A Redis dataset can go back in time (an older RDB or AOF, a restored backup,
//! a lagging replica promoted), and then indexes already popped are back in the
//! lists. So a shard's stock is served only by the server process that
//! stocked it: `id.gen.stamp_{app}_{shard}` holds that process's `run_id`. On a
//! connection that provably ends at the server (see `Link`) the `run_id` is
//! known and a warm take compares the stamp in the same pipeline as the pop;
//! otherwise every take's script asks `INFO server`. A mismatch retires the
//! shard's stock before anything is served (see `lua/stock/prelude.lua`). On a
//! cluster, the shard's companion keys carry a hash tag into the queue key's
//! slot (`keys`), so each script runs on the master that owns the shard.

mod acl;
mod batch;
pub mod connect;
mod connection;
mod dispenser;
// Public for the payload's test only (tests/restore.rs).
#[doc(hidden)]
pub mod dump;
mod errors;
mod exchange;
pub mod keys;
pub mod lease;
mod records;
// Public for the fuzz targets only (fuzz/fuzz_targets/redis_reply.rs).
#[doc(hidden)]
pub mod reply;
mod scripts;
mod stock_read;
mod take;
pub mod topology;
mod wrong_type;

pub use keys::{
    BUFFER_PREFIX, LEDGER_ROLLBACK_KEY, LOCK_PREFIX, QUEUE_PREFIX, RANGE_PREFIX, ROLLBACK_KEY,
    ROUTE_PREFIX, STAMP_PREFIX, WITNESS_PREFIX, lock_key, queue_key, range_key, route_key,
    stamp_key, witness_key,
};

use crate::config::TlsFiles;
use crate::redact::SecretUrl;
use connection::LinkState;
use keys::KeyNames;
use std::time::Duration;
use topology::Topology;

/// The oldest Redis the scripts run on: a script that reads `INFO` and then
/// writes needs effects replication, the default since 5.0.
pub const MIN_REDIS_VERSION: (u32, u32) = (5, 0);

/// One connected Redis node. A connection that breaks (the server restarted
/// or failed over) is dropped and made again on the next request, so a
/// long-lived client rides through; what the new connection reaches is
/// learned afresh.
pub struct RedisNode {
    name: String,
    url: SecretUrl,
    topology: Topology,
    /// The client of a standalone node; a Sentinel node makes one for each master it finds.
    client: Option<redis::Client>,
    keys: KeyNames,
    /// The CA and client certificate every client of this node uses with TLS.
    tls: TlsFiles,
    /// How far the connection is made. Locked only for a moment, never
    /// across an await: a failed exchange forgets a broken link from
    /// wherever it runs, the making of a link included (see `bounded`).
    link: std::sync::Mutex<LinkState>,
    /// Held while a link is made (dialled and probed, or found through
    /// Sentinel or the cluster's map), so that the requests that need one
    /// meanwhile wait for it rather than each making their own.
    linking: tokio::sync::Mutex<()>,
    timeout: Duration,
    /// The server refused a queue push's `RESTORE` (an ACL without it, the
    /// command renamed away, a payload it cannot read): this process pushes
    /// by `RPUSH` from then on.
    restore_refused: std::sync::atomic::AtomicBool,
    /// The most replicas the Sentinels named for the master, each time a
    /// link was made through them: Sentinels forget no replica (until
    /// `SENTINEL RESET`), and nothing in the master's data (FLUSHALL, an
    /// older snapshot) lowers it. 0 off Sentinel.
    sentinel_replicas: std::sync::atomic::AtomicU64,
}

#[cfg(test)]
mod tests {
    use super::MIN_REDIS_VERSION;
    use crate::store::version_at_least;

    /// Every file of the room says what it takes from its neighbours.
    #[test]
    fn no_file_of_the_room_imports_by_glob() {
        fn check(dir: &std::path::Path) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    check(&path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    // Spelled in two parts, so that this file does not match itself.
                    let glob = ["::", "*;"].concat();
                    assert!(!text.contains(&glob), "{} imports by glob", path.display());
                }
            }
        }
        check(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/redis"));
    }

    #[test]
    fn server_versions_compare_by_major_and_minor() {
        assert!(version_at_least("7.0.15", (5, 0)));
        assert!(version_at_least("5.0.0", (5, 0)));
        assert!(version_at_least("6", (5, 0)));
        assert!(!version_at_least("4.0.14", (5, 0)));
        assert!(!version_at_least("", (5, 0)));
        assert!(!version_at_least("unknown", (5, 0)));
        assert!(version_at_least("10.11.6-MariaDB-0+deb12u1", (10, 3)));
        assert!(!version_at_least("10.2.44-MariaDB", (10, 3)));
        assert!(version_at_least("8.0.35", (5, 7)));
        // Valkey 7.2 and 8.x report a Redis-compatible redis_version (7.2.4).
        assert!(version_at_least("7.2.4", MIN_REDIS_VERSION));
    }
}
