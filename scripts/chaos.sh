#!/usr/bin/env bash
# Redis going back in time, with real faults, at scale: every case of
# tests/rollback.rs (an older RDB snapshot, an AOF that lost its tail, a
# lagging replica promoted, FLUSHALL and restarts under live leases, a backend
# outage under a lease holder), each issuing IDGEN_CHAOS_IDS IDs (1,000,000 by
# default) across concurrent takers, and failing on the first repeated ID.
#
#   scripts/chaos.sh                     # 1,000,000 IDs per case
#   IDGEN_CHAOS_IDS=5000000 scripts/chaos.sh
#
# Needs redis-server and mariadbd, like `cargo test`; it starts its own servers
# on free loopback ports and never touches any other.
set -euo pipefail
cd "$(dirname "$0")/.."
export IDGEN_CHAOS_IDS="${IDGEN_CHAOS_IDS:-1000000}"
echo "chaos: ${IDGEN_CHAOS_IDS} IDs per case"
cargo test --release --test main rollback:: -- --test-threads 2
# Leases on Redis alone (tests/lease_redis.rs): FLUSHALL, a restart without
# persistence, a restart that kept every key and one from an older snapshot,
# each under a live holder while a second holder starts, each issuing at least
# IDGEN_CHAOS_IDS IDs between the two holders.
cargo test --release --test main -- lease_redis::flushall lease_redis::an_empty lease_redis::a_restart --test-threads 2
