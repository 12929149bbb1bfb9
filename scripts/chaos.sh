#!/usr/bin/env bash
# Redis going back in time, with real faults, at scale: every case of
# tests/rollback.rs (an older RDB snapshot, an AOF that lost its tail, a
# lagging replica promoted, FLUSHALL and restarts under live leases, a backend
# outage under a lease holder), each issuing IDGEN_CHAOS_IDS IDs (1,000,000 by
# default) across concurrent takers, and failing on the first repeated ID.
# Then every case of tests/ledger_rollback.rs (issue 19: the ledger going back
# in time through a lagging MariaDB replica promoted or a dump restored,
# max_limit_id lowered by SQL and by `app set`, SWAPDB to an older copy), on
# their own mariadbd and redis-server, the same way, and a Cluster push resent
# to a promoted replica after its answer was lost.
# And every case of tests/demotion.rs (a writable replica beside its master,
# a master demoted by REPLICAOF or by FAILOVER under `idgen serve` and under
# the library).
#
#   scripts/chaos.sh                     # 1,000,000 IDs per case
#   IDGEN_CHAOS_IDS=5000000 scripts/chaos.sh
#
# Needs redis-server and mariadbd, like `cargo test` (and the mariadb-client
# tools mariadb-dump and mariadb for the restored dump); it starts its own servers
# on free loopback ports and never touches any other.
#
# Then the Galera case of tests/galera.rs: takers and reload-segments through
# every node of a 3-node MariaDB Galera cluster, one node killed and rejoined,
# issuing IDGEN_CHAOS_IDS IDs in all (needs galera-4 and rsync too).
set -euo pipefail
cd "$(dirname "$0")/.."
export IDGEN_CHAOS_IDS="${IDGEN_CHAOS_IDS:-1000000}"
echo "chaos: ${IDGEN_CHAOS_IDS} IDs per case"
# The filter is a substring: `rollback::` alone would run the ledger cases too.
cargo test --release --test main rollback:: -- --test-threads 2 --skip ledger_rollback::
cargo test --release --test main ledger_rollback:: -- --test-threads 2
cargo test --release --test main cluster::a_push_resent -- --test-threads 2
echo "chaos: the Galera case, ${IDGEN_CHAOS_IDS} IDs across a 3-node cluster with a node killed and rejoined"
cargo test --release --test main galera::takers_on_every_node -- --test-threads 1 --nocapture
# Each demotion case says how many IDs it issued and how many repeat.
cargo test --release --test main demotion:: -- --test-threads 2 --nocapture
# Leases on Redis alone (tests/lease_redis.rs): FLUSHALL, a restart without
# persistence, a restart that kept every key and one from an older snapshot,
# each under a live holder while a second holder starts, each issuing at least
# IDGEN_CHAOS_IDS IDs between the two holders.
cargo test --release --test main -- lease_redis::flushall lease_redis::an_empty lease_redis::a_restart --test-threads 2
