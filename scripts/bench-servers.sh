# Sourced by the benchmark scripts from the repository root, after their release
# build: `idgen` (the release binary), `out` (target/bench), a temporary
# `scratch` directory removed on exit with every process in `pids`, and
# `start_servers`: a redis-server and a mariadbd of their own on free loopback
# ports in $scratch, or the servers IDGEN_BENCH_REDIS_URL and
# IDGEN_BENCH_MYSQL_URL name. It exports IDGEN_REDIS_URL and IDGEN_MYSQL_URL and
# sets redis_cli and mysql_cli to reach them. `ratio FILE` prints a hyperfine
# export as each command's mean relative to the first.

target="${CARGO_TARGET_DIR:-$PWD/target}"
idgen="$target/release/idgen"
out="$target/bench"
mkdir -p "$out"
scratch="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_servers() {
  [ -n "${IDGEN_REDIS_URL:-}" ] && [ -n "${redis_cli:-}" ] && return
  if [ -n "${IDGEN_BENCH_REDIS_URL:-}" ] && [ -n "${IDGEN_BENCH_MYSQL_URL:-}" ]; then
    export IDGEN_REDIS_URL="$IDGEN_BENCH_REDIS_URL" IDGEN_MYSQL_URL="$IDGEN_BENCH_MYSQL_URL"
    redis_cli=(redis-cli -u "$IDGEN_REDIS_URL")
    mysql_cli=(true)  # history is kept on a server the bench did not start
    return
  fi
  local rport mport
  rport="$(free_port)"
  redis-server --port "$rport" --bind 127.0.0.1 --save "" --appendonly no --dir "$scratch" \
    --logfile "$scratch/redis.log" & pids+=($!)
  mariadb-install-db --no-defaults --datadir="$scratch/db" --auth-root-authentication-method=normal \
    --skip-test-db --user=root >"$scratch/install.log" 2>&1
  mport="$(free_port)"
  mariadbd --no-defaults --datadir="$scratch/db" --socket="$scratch/db.sock" --port="$mport" \
    --bind-address=127.0.0.1 --user=root --skip-grant-tables --skip-name-resolve --skip-log-bin \
    --innodb-buffer-pool-size=256M >"$scratch/mariadbd.log" 2>&1 & pids+=($!)
  for _ in $(seq 200); do
    redis-cli -p "$rport" ping >/dev/null 2>&1 && mariadb -h127.0.0.1 -P"$mport" -uroot -e 'select 1' >/dev/null 2>&1 && break
    sleep 0.1
  done
  mariadb -h127.0.0.1 -P"$mport" -uroot -e 'create database idgen'
  export IDGEN_REDIS_URL="redis://127.0.0.1:$rport/0" IDGEN_MYSQL_URL="mysql://root@127.0.0.1:$mport/idgen"
  redis_cli=(redis-cli -p "$rport" -n 0)
  mysql_cli=(mariadb -h127.0.0.1 -P"$mport" -uroot idgen)
}

ratio() { # ratio FILE: mean of each command relative to the first
  python3 - "$1" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
base = results[0]["mean"]
for r in results:
    print(f"  {r['command'][:70]:<70} mean {r['mean']*1e3:9.3f} ms  ±{r['stddev']*1e3:7.3f}  ratio {r['mean']/base:5.2f}x")
PY
}
