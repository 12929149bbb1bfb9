#!/usr/bin/env bash
# `reload-segments` at scale, an older idgen and this one side by side in one run:
# 64 apps x 64 shards (4,096 shards, step 1000), timed
#   - from empty (Redis flushed, refill history deleted, so every shard loads
#     1000), with the queue dispenser and with the range dispenser;
#   - the check-only sweep right after (every shard full, nothing to refill).
# Reports the median of REPS runs (default 5) per binary and the ratio new/old.
# With CLUSTER=1 it also starts a Redis Cluster of 3 masters and times this
# idgen on it (an idgen before cluster support cannot run there), beside its
# standalone numbers.
#
#   scripts/reload-bench.sh                 # the old binary is built from `main`
#   OLD_REV=v0.9.0 scripts/reload-bench.sh  # ...or from another revision
#   IDGEN_OLD_BINARY=/path/to/idgen REPS=9 scripts/reload-bench.sh
#   IDGEN_OLD_BINARY=... IDGEN_NEW_BINARY=... scripts/reload-bench.sh   # no builds
#
# It builds both release binaries (the old one from `git archive $OLD_REV`,
# into the same target directory, copied aside to target/bench/idgen-old), starts
# its own redis-server and mariadbd on free loopback ports in a temporary
# directory (scripts/bench-servers.sh; or uses IDGEN_BENCH_REDIS_URL and
# IDGEN_BENCH_MYSQL_URL), and runs every binary against the same servers, one
# after the other, alternating per repetition; each binary has its own MySQL
# database and Redis database (an older idgen refuses a newer schema). The
# dispenser is set per app the way each binary knows: `IDGEN_DISPENSER` for one
# before durable dispensers, `idgen app set APP --dispenser` for this one.
# Raw times: target/bench/reload.json.
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${REPS:-5}"
for tool in redis-server redis-cli mariadbd mariadb python3; do
  command -v "$tool" >/dev/null || { echo "reload-bench: install $tool (apt-get install redis-server mariadb-server python3)" >&2; exit 1; }
done
. scripts/bench-servers.sh

old="${IDGEN_OLD_BINARY:-}"
if [ -z "$old" ]; then
  rev="${OLD_REV:-main}"
  git archive "$rev" | tar -x -C "$scratch" --one-top-level=old-src
  (cd "$scratch/old-src" && CARGO_TARGET_DIR="$target" cargo build --release --quiet --bin idgen)
  old="$out/idgen-old"
  cp "$target/release/idgen" "$old"
fi
new="${IDGEN_NEW_BINARY:-}"
if [ -z "$new" ]; then
  cargo build --release --quiet --bin idgen
  new="$out/idgen-new"
  cp "$idgen" "$new"
fi

start_servers
new_redis="$IDGEN_REDIS_URL" new_mysql="$IDGEN_MYSQL_URL"
old_redis="${IDGEN_REDIS_URL%/*}/1" old_mysql="${IDGEN_MYSQL_URL%/*}/idgen_old"
"${mysql_cli[@]}" -e 'CREATE DATABASE IF NOT EXISTS idgen_old'
cluster_url=""
if [ "${CLUSTER:-0}" = 1 ]; then
  seeds=()
  for i in 1 2 3; do
    port="$(free_port)"
    mkdir -p "$scratch/cluster-$i"
    redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes --save "" --appendonly no \
      --dir "$scratch/cluster-$i" --logfile "$scratch/cluster-$i/redis.log" & pids+=($!)
    seeds+=("127.0.0.1:$port")
  done
  for seed in "${seeds[@]}"; do
    for _ in $(seq 100); do redis-cli -p "${seed#*:}" ping >/dev/null 2>&1 && break; sleep 0.1; done
  done
  redis-cli --cluster create "${seeds[@]}" --cluster-yes >/dev/null
  for _ in $(seq 200); do
    redis-cli -p "${seeds[0]#*:}" cluster info | grep -q 'cluster_state:ok' && break; sleep 0.1
  done
  cluster_url="redis-cluster://$(IFS=,; echo "${seeds[*]}")"
  "${mysql_cli[@]}" -e 'CREATE DATABASE IF NOT EXISTS idgen_cluster'
fi
for app in $(seq 1 64); do
  IDGEN_REDIS_URL="$old_redis" IDGEN_MYSQL_URL="$old_mysql" "$old" init-app --app "$app" --name "bench$app" --step 1000 >/dev/null
  IDGEN_REDIS_URL="$new_redis" IDGEN_MYSQL_URL="$new_mysql" "$new" init-app --app "$app" --name "bench$app" --step 1000 >/dev/null
  if [ -n "$cluster_url" ]; then
    IDGEN_REDIS_URL="$cluster_url" IDGEN_MYSQL_URL="${IDGEN_MYSQL_URL%/*}/idgen_cluster" "$new" init-app --app "$app" --name "bench$app" --step 1000 >/dev/null
  fi
done

python3 - "$old" "$new" "$reps" "$out/reload.json" "$old_redis" "$old_mysql" "$new_redis" "$new_mysql" "$cluster_url" <<'PY'
import json, os, statistics, subprocess, sys, time
old, new, reps, dest = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
old_redis, old_mysql, new_redis, new_mysql, cluster_url = sys.argv[5:10]
# name -> (binary, Redis URL, MySQL URL, whether it records the dispenser per app)
runs = {"old": (old, old_redis, old_mysql, False), "new": (new, new_redis, new_mysql, True)}
if cluster_url:
    runs["cluster"] = (new, cluster_url, new_mysql.rsplit("/", 1)[0] + "/idgen_cluster", True)

def mysql(url, sql):
    rest = url.split("://", 1)[1]
    host_port, db = rest.split("@", 1)[1].split("/", 1)
    host, port = host_port.split(":")
    subprocess.run(["mariadb", "-h", host, "-P", port, "-uroot", db, "-e", sql], check=True)

def redis_flush(url):
    if url.startswith("redis-cluster://"):
        for seed in url.split("://", 1)[1].split(","):
            host, port = seed.split(":")
            subprocess.run(["redis-cli", "-h", host, "-p", port, "FLUSHALL"], check=True, capture_output=True)
    else:
        subprocess.run(["redis-cli", "-u", url, "FLUSHDB"], check=True, capture_output=True)

def env_of(name, dispenser):
    _, redis, db, _ = runs[name]
    return dict(os.environ, IDGEN_DISPENSER=dispenser, IDGEN_REDIS_URL=redis, IDGEN_MYSQL_URL=db)

def record(name, dispenser):
    binary, _, _, durable = runs[name]
    if durable:
        for app in range(1, 65):
            subprocess.run([binary, "app", "set", str(app), "--dispenser", dispenser],
                           env=env_of(name, dispenser), check=True, capture_output=True)

def timed(name, dispenser):
    binary = runs[name][0]
    started = time.perf_counter()
    run = subprocess.run([binary, "reload-segments", "--json"], env=env_of(name, dispenser),
                         capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if run.returncode != 0:
        sys.exit(f"{name} reload-segments failed ({run.returncode}): {run.stderr}")
    return elapsed, json.loads(run.stdout)

results = {}
for dispenser in ["queue", "range"]:
    for name in runs:
        record(name, dispenser)
    for rep in range(reps):
        order = list(runs) if rep % 2 == 0 else list(reversed(runs))
        for name in order:
            redis_flush(runs[name][1])
            mysql(runs[name][2], "DELETE FROM idgen_refill")
            elapsed, report = timed(name, dispenser)
            if report["shards_refilled"] != 4096:
                sys.exit(f"{name} refilled {report['shards_refilled']} of 4096 shards: {report}")
            results.setdefault((dispenser, "empty", name), []).append(elapsed)
            # Right after: every shard is full, the sweep only checks.
            elapsed, report = timed(name, dispenser)
            if report["shards_refilled"] != 0:
                sys.exit(f"{name} refilled {report['shards_refilled']} shards on a full sweep")
            results.setdefault((dispenser, "check-only", name), []).append(elapsed)

print(f"reload-segments, 64 apps x 64 shards, step 1000, median of {reps} (seconds):")
rows = []
for dispenser in ["queue", "range"]:
    for what in ["empty", "check-only"]:
        o = statistics.median(results[(dispenser, what, "old")])
        n = statistics.median(results[(dispenser, what, "new")])
        row = {"dispenser": dispenser, "from": what, "old_s": o, "new_s": n, "ratio": n / o,
               "old_runs": results[(dispenser, what, "old")], "new_runs": results[(dispenser, what, "new")]}
        line = f"  {dispenser:<6} {what:<11} old {o:7.3f}  new {n:7.3f}  new/old {n / o:5.2f}x  ({o / n:4.1f}x faster)"
        if "cluster" in runs:
            c = statistics.median(results[(dispenser, what, "cluster")])
            row.update(cluster_s=c, cluster_runs=results[(dispenser, what, "cluster")])
            line += f"  cluster {c:7.3f} ({c / n:4.2f}x standalone)"
        rows.append(row)
        print(line)
json.dump(rows, open(dest, "w"), indent=1)
PY
