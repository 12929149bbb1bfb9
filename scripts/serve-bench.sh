#!/usr/bin/env bash
# `idgen serve` under load, side by side in one run, as ratios of the server's own
# /healthz (the HTTP floor of this machine):
#
#   scripts/serve-bench.sh              # 10 s per endpoint
#   DURATION=30s scripts/serve-bench.sh
#
# It builds a release binary, starts its own redis-server and mariadbd on free
# loopback ports in a temporary directory (or uses IDGEN_BENCH_REDIS_URL and
# IDGEN_BENCH_MYSQL_URL, as scripts/bench.sh does), one `idgen serve` on the distributed
# backend (range dispenser), and drives each endpoint with wrk (Debian package `wrk`), 64
# connections, 2 threads. `redis-benchmark -c 64 LPOP` on the same Redis is
# the backend's own ceiling. Raw outputs go to target/bench/serve-*.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-10s}"
connections=64

for tool in wrk redis-benchmark redis-server mariadbd; do
  command -v "$tool" >/dev/null || { echo "serve-bench: install $tool (apt-get install wrk redis-server mariadb-server)" >&2; exit 1; }
done
cargo build --release --quiet --bin idgen
. scripts/bench-servers.sh
start_servers

# The range dispenser hands out any batch in one round trip; large steps keep
# MySQL out of the way of list/1000 (a million IDs a second drains small ones).
export IDGEN_DISPENSER=range
"$idgen" init-app --app 1 --name bench --step 200000 --max-step 2000000 >/dev/null
"$idgen" reload-segments --quiet
sport="$(free_port)"
"$idgen" serve --listen "127.0.0.1:$sport" --namespace bench --max-n 1000 \
  2>"$scratch/serve.log" & pids+=($!)
for _ in $(seq 300); do
  curl -sf "http://127.0.0.1:$sport/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -sf "http://127.0.0.1:$sport/healthz" >/dev/null || { cat "$scratch/serve.log" >&2; exit 1; }

# Keep the stock ahead of the load, as cron would.
( while sleep 1; do "$idgen" reload-segments --quiet >/dev/null 2>&1 || true; done ) & pids+=($!)

# load NAME PATH IDS-PER-REQUEST: one wrk run; appends "name rps p99 ids" to the summary.
summary="$scratch/summary"
load() {
  local file="$out/serve-$1.txt"
  wrk -t2 -c"$connections" -d"$duration" --latency "http://127.0.0.1:$sport$2" >"$file"
  local rps p99 errors
  rps="$(awk '/^Requests\/sec:/ {print $2}' "$file")"
  p99="$(awk '$1 == "99%" {print $2}' "$file")"
  errors="$(awk '/Non-2xx or 3xx responses:/ {print $5}' "$file")"
  echo "$1 $rps $p99 $3 ${errors:-0}" >>"$summary"
}

load healthz /healthz 0
load segment-get /api/segment/get/bench 1
load snowflake-get /api/snowflake/get/bench 1
load segment-list-1000 /api/segment/list/bench/1000 1000
redis-benchmark -u "$IDGEN_REDIS_URL" -c "$connections" -n 2000000 -t lpop -q >"$out/serve-redis-lpop.txt" 2>&1
lpop="$(grep -o 'LPOP: [0-9.]*' "$out/serve-redis-lpop.txt" | awk '{print $2}')"

echo "== idgen serve, wrk -t2 -c$connections -d$duration, one run (raw output: $out/serve-*.txt)"
python3 - "$summary" "$lpop" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1])]
lpop = float(sys.argv[2])
floor = float(rows[0][1])
def ms(text):
    for unit, scale in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float(text)
print(f"  {'endpoint':<20} {'requests/s':>12} {'p99 ms':>8} {'IDs/s':>12} {'vs /healthz':>12} {'non-2xx':>8}")
for name, rps, p99, per, errors in rows:
    rps = float(rps)
    ids = rps * int(per)
    print(f"  {name:<20} {rps:>12,.0f} {ms(p99):>8.2f} {ids:>12,.0f} {rps / floor:>11.2f}x {errors:>8}")
print(f"  {'redis LPOP (-c 64)':<20} {lpop:>12,.0f} {'':>8} {'':>12} {lpop / floor:>11.2f}x")
PY
