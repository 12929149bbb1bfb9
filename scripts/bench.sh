#!/usr/bin/env bash
# Whole-process benchmarks of the idgen binary, side by side, reported as ratios.
#
#   scripts/bench.sh            # everything
#   scripts/bench.sh segments   # segment IDs on Redis + MySQL
#   scripts/bench.sh lease      # snowflake IDs under a leased worker ID
#   scripts/bench.sh embedded   # the SQLite store only
#
# It builds a release binary, starts its own redis-server and mariadbd on free
# loopback ports in a temporary directory (or uses IDGEN_BENCH_REDIS_URL and
# IDGEN_BENCH_MYSQL_URL), and times commands with hyperfine. Results go to
# target/bench/*.json (under $CARGO_TARGET_DIR when set) and a summary to stdout. In-process figures: cargo bench.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"

command -v hyperfine >/dev/null || { echo "bench: install hyperfine (apt-get install hyperfine)" >&2; exit 1; }
cargo build --release --quiet
. scripts/bench-servers.sh


bench_segments() {
  start_servers
  "$idgen" init-app --app 1 --name bench >/dev/null
  "$idgen" reload-segments --quiet
  seq 1 200000 | sed 's/^/RPUSH bench.bare /' | "${redis_cli[@]}" >/dev/null

  echo "== warm next, whole process: idgen next vs redis-cli LPOP (both spawn, connect, one round trip)"
  hyperfine -N --warmup 20 --runs 300 --export-json "$out/warm-next-process.json" \
    "${redis_cli[*]} LPOP bench.bare" "$idgen next --app 1" >/dev/null
  ratio "$out/warm-next-process.json"

  echo "== next --count 100000 (stdout discarded)"
  hyperfine -N --warmup 2 --runs 20 --export-json "$out/next-count.json" \
    "$idgen next --app 1 --count 100000" >/dev/null
  python3 - "$out/next-count.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"  mean {r['mean']*1e3:.1f} ms ±{r['stddev']*1e3:.1f} -> {100000/r['mean']/1e6:.2f} M IDs/s per process")
EOF

  echo "== reload-segments over 64 apps x 64 shards (step 1000: 4,096,000 indexes), from empty Redis"
  for app in $(seq 2 64); do "$idgen" init-app --app "$app" --name "bench$app" >/dev/null; done
  # Each run starts from empty Redis and no refill history, so every run loads 1000 per shard.
  hyperfine --runs 5 --prepare "${redis_cli[*]} FLUSHDB; ${mysql_cli[*]} -e 'DELETE FROM idgen_refill'" \
    --export-json "$out/reload.json" \
    "$idgen reload-segments --quiet" >/dev/null
  python3 - "$out/reload.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"  mean {r['mean']:.2f} s ±{r['stddev']:.2f} -> {4096/r['mean']:.0f} shards/s, {4096000/r['mean']/1e6:.2f} M indexes/s")
EOF
}

bench_lease() {
  start_servers
  echo "== lease --count 1000000, whole process (acquire, generate, print, release)"
  echo "   the snowflake ceiling is 4096 IDs/ms per worker: 1,000,000 IDs need at least 244.1 ms"
  hyperfine -N --warmup 2 --runs 10 --export-json "$out/lease.json" \
    "$idgen lease --namespace bench --count 1000000" >/dev/null
  python3 - "$out/lease.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"  mean {r['mean']*1e3:.1f} ms ±{r['stddev']*1e3:.1f} -> {1e6/r['mean']/1e6:.2f} M IDs/s, {0.2441/r['mean']*100:.0f}% of the ceiling")
EOF
}

bench_embedded() {
  local store="$scratch/embedded.db"
  (
    unset IDGEN_REDIS_URL IDGEN_MYSQL_URL
    export IDGEN_STORE="$store"
    "$idgen" init-app --app 1 --name bench >/dev/null
    "$idgen" reload-segments --quiet
    echo "== embedded store: whole-process next vs a process that only starts (idgen --version)"
    hyperfine -N --warmup 20 --runs 300 --export-json "$out/embedded-next.json" \
      "$idgen --version" "$idgen next --app 1" >/dev/null
    ratio "$out/embedded-next.json"
    echo "== embedded store: next --count 100000"
    hyperfine -N --warmup 2 --runs 20 --export-json "$out/embedded-count.json" \
      "$idgen next --app 1 --count 100000" >/dev/null
    python3 - "$out/embedded-count.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"  mean {r['mean']*1e3:.1f} ms ±{r['stddev']*1e3:.1f} -> {100000/r['mean']/1e6:.2f} M IDs/s per process")
EOF
  )
}

case "$what" in
  segments) bench_segments ;;
  lease) bench_lease ;;
  embedded) bench_embedded ;;
  all) bench_segments; bench_lease; bench_embedded ;;
  *) echo "usage: scripts/bench.sh [all|segments|lease|embedded]" >&2; exit 2 ;;
esac
