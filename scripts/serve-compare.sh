#!/usr/bin/env bash
# Two or more `idgen` binaries' `serve` warm path side by side, to check that a
# change did not make it slower:
#
#   scripts/serve-compare.sh target/idgen-before target/release/idgen
#   ROUNDS=5 DURATION=10s scripts/serve-compare.sh OLD NEW
#
# Each binary serves the embedded store (SQLite, no server needed) with its
# in-memory buffer on and one snowflake namespace leased; wrk (-t2 -c64)
# drives /healthz, /api/segment/get, /api/snowflake/get and
# /api/segment/list/1/1000 for DURATION each. The binaries take turns, ROUNDS
# times, so a noisy neighbour on a shared machine hits each alike; the median
# requests/s per endpoint and binary is printed, with the server's median CPU
# time per request (user + system, from /proc), which a busy neighbour
# disturbs far less than the rate.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BINARY BINARY..." >&2; exit 2; }
command -v wrk >/dev/null || { echo "serve-compare: install wrk (apt-get install wrk)" >&2; exit 1; }
rounds="${ROUNDS:-3}"
duration="${DURATION:-5s}"
scratch="$(mktemp -d)"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$scratch"' EXIT
# The server's CPU time so far (user + system), in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

for round in $(seq "$rounds"); do
  for binary in "$@"; do
    home="$scratch/home"; rm -rf "$home"; mkdir -p "$home"
    export HOME="$home" IDGEN_STORE="$home/idgen.db"
    "$binary" init-app --app 1 --name bench --step 100000 --max-step 1000000 >/dev/null 2>&1
    port="$(free_port)"
    "$binary" serve --listen "127.0.0.1:$port" --max-n 1000 --buffer 20000 --namespace bench 2>"$scratch/serve.log" &
    pid=$!
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    for path in /healthz /api/segment/get/bench /api/snowflake/get/bench /api/segment/list/1/1000; do
      before="$(cpu_ticks "$pid")"
      report="$(wrk -t2 -c64 -d"$duration" "http://127.0.0.1:$port$path")"
      ticks=$(( $(cpu_ticks "$pid") - before ))
      rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$report")"
      requests="$(awk '/requests in/ {print $1}' <<<"$report")"
      echo "$binary $path $rps $ticks $requests" >>"$scratch/results"
    done
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
  done
done

python3 - "$scratch/results" "$(getconf CLK_TCK)" <<'PY'
import statistics, sys
runs = {}
tick = 1e6 / float(sys.argv[2])
for line in open(sys.argv[1]):
    binary, path, rps, ticks, requests = line.split()
    cpu_us = int(ticks) * tick / max(int(requests), 1)
    runs.setdefault((path, binary), []).append((float(rps), cpu_us))
print(f"{'endpoint':<26} {'binary':<28} {'median req/s':>13} {'CPU us/req':>11}  runs (req/s)")
for (path, binary), values in runs.items():
    shown = " ".join(f"{rps:,.0f}" for rps, _ in values)
    rps = statistics.median(v[0] for v in values)
    cpu = statistics.median(v[1] for v in values)
    print(f"{path:<26} {binary:<28} {rps:>13,.0f} {cpu:>11.1f}  {shown}")
PY
