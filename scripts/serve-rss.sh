#!/usr/bin/env bash
# Memory that clients who never read can make `idgen serve` hold:
#
#   scripts/serve-rss.sh target/release/idgen [CLIENTS] [N]
#
# Serves the embedded store (SQLite, no server needed), reads the process's
# resident memory idle, then opens CLIENTS (200) connections that each ask for
# /api/segment/list/1/N (100000) and never read, waits until the server has
# stopped writing (the IDs issued stop moving), and prints the RSS then and
# its peak (VmHWM), in MiB above idle.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BINARY [CLIENTS] [N]" >&2; exit 2; }
binary="$1" clients="${2:-200}" n="${3:-100000}"
scratch="$(mktemp -d)"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$scratch"' EXIT
export HOME="$scratch" IDGEN_STORE="$scratch/idgen.db"
"$binary" init-app --app 1 --name rss --step 100000 >/dev/null 2>&1
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$binary" serve --listen "127.0.0.1:$port" --max-n "$n" --write-timeout 5m 2>"$scratch/serve.log" &
pid=$!
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
python3 - "$pid" "$port" "$clients" "$n" <<'PY'
import re, socket, sys, time, urllib.request
pid, port, clients, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def rss():
    status = open(f"/proc/{pid}/status").read()
    field = lambda name: int(re.search(name + r":\s+(\d+) kB", status).group(1))
    return field("VmRSS"), field("VmHWM")
def issued():
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
    return sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith("idgen_serve_ids_issued_total"))
urllib.request.urlopen(f"http://127.0.0.1:{port}/api/segment/list/1/{n}").read()
idle, _ = rss()
started = time.time()
held = []
for _ in range(clients):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET /api/segment/list/1/{n} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    held.append(s)
last, still = -1.0, 0
while still < 5 and time.time() - started < 120:
    now = issued()
    still = still + 1 if now == last else 0
    last = now
    time.sleep(0.2)
now, peak = rss()
mib = lambda kib: kib / 1024
print(f"{clients} clients x list/{n}, never reading: RSS idle {mib(idle):.1f} MiB, "
      f"then {mib(now):.1f} MiB (+{mib(now - idle):.1f}), peak {mib(peak):.1f} MiB (+{mib(peak - idle):.1f}); "
      f"{int(last) - n:,} IDs taken for them")
PY
