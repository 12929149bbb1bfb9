#!/usr/bin/env bash
# What one request costs `serve` in instructions, per endpoint, for two or more
# `idgen` binaries: a count a noisy machine does not move, where request rates
# and CPU times move by 10-30% between rounds on a shared 2-core machine.
#
#   scripts/serve-instructions.sh target/idgen-before target/release/idgen
#   ROUNDS=2 DURATION=5s scripts/serve-instructions.sh OLD NEW
#
# Each binary serves the embedded store (no server needed) with its buffer on
# and one snowflake namespace leased, under `valgrind --tool=callgrind`, which
# counts the instructions the server's own threads run (not the kernel's) and
# keeps glibc's allocator, so what malloc does is counted. For /healthz,
# /api/segment/get and /api/snowflake/get in turn: a warm-up with wrk, then
# the count is zeroed, wrk (-t1 -c8) runs for DURATION, and the count is
# dumped and divided by the requests wrk made. The binaries take turns,
# ROUNDS times.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BINARY..." >&2; exit 2; }
for tool in wrk valgrind callgrind_control curl; do
  command -v "$tool" >/dev/null || { echo "serve-instructions: install $tool (apt-get install wrk valgrind curl)" >&2; exit 1; }
done
rounds="${ROUNDS:-1}"
duration="${DURATION:-5s}"
scratch="$(mktemp -d)"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$scratch"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
dumps() { find "$scratch/profiles" -name 'callgrind.*.*' | wc -l; }
command -v bc >/dev/null || { echo "serve-instructions: install bc" >&2; exit 1; }

printf '%-28s %-26s %9s %14s\n' binary endpoint requests instructions/request
for round in $(seq "$rounds"); do
  for binary in "$@"; do
    home="$scratch/home"; rm -rf "$home" "$scratch/profiles"; mkdir -p "$home" "$scratch/profiles"
    export HOME="$home" IDGEN_STORE="$home/idgen.db"
    "$binary" init-app --app 1 --name bench --step 100000 --max-step 1000000 >/dev/null 2>&1
    port="$(free_port)"
    valgrind --tool=callgrind --callgrind-out-file="$scratch/profiles/callgrind.%p" \
      "$binary" serve --listen "127.0.0.1:$port" --max-n 1000 --buffer 20000 --namespace bench \
      2>"$scratch/serve.log" &
    pid=$!
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    for path in /healthz /api/segment/get/bench /api/snowflake/get/bench; do
      wrk -t1 -c8 -d2s "http://127.0.0.1:$port$path" >/dev/null
      callgrind_control -z "$pid" >/dev/null 2>&1
      report="$(wrk -t1 -c8 -d"$duration" "http://127.0.0.1:$port$path")"
      before="$(dumps)"
      callgrind_control -d "$pid" >/dev/null 2>&1
      # The server writes the dump at its next scheduling point; `totals:` is
      # its last line.
      profile=
      for _ in $(seq 300); do
        if [ "$(dumps)" -gt "$before" ]; then
          profile="$(ls -t "$scratch"/profiles/callgrind.*.* | head -1)"
          grep -q '^totals:' "$profile" && break
        fi
        sleep 0.1
      done
      instructions="$(awk '/^summary:/ {print $2; exit}' "$profile")"
      requests="$(awk '/requests in/ {print $1}' <<<"$report")"
      [ -n "$instructions" ] && [ -n "$requests" ] || { echo "serve-instructions: no count for $path" >&2; exit 1; }
      printf '%-28s %-26s %9d %14.0f\n' "$(basename "$binary")" "$path" "$requests" \
        "$(echo "$instructions / $requests" | bc -l)"
    done
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
  done
done
