#!/usr/bin/env bash
# `reload-segments` at scale, an older idgen and this one side by side in one run:
# 64 apps x 64 shards (4,096 shards, step 1000), timed
#   - from empty (Redis flushed, refill history deleted, so every shard loads
#     1000), with the queue dispenser and with the range dispenser;
#   - the check-only sweep right after (every shard full, nothing to refill).
# Reports the median of REPS runs (default 5) per binary and the ratio new/old.
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
# after the other, alternating per repetition. Raw times: target/bench/reload.json.
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
for app in $(seq 1 64); do "$new" init-app --app "$app" --name "bench$app" --step 1000 >/dev/null; done

python3 - "$old" "$new" "$reps" "$out/reload.json" "${redis_cli[*]}" "${mysql_cli[*]}" <<'EOF'
import json, os, statistics, subprocess, sys, time
old, new, reps, dest, redis_cli, mysql_cli = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
binaries = {"old": old, "new": new}

def empty():
    subprocess.run(f"{redis_cli} FLUSHDB >/dev/null", shell=True, check=True)
    subprocess.run(f"{mysql_cli} -e 'DELETE FROM idgen_refill'", shell=True, check=True)

def timed(binary, dispenser):
    env = dict(os.environ, IDGEN_DISPENSER=dispenser)
    started = time.perf_counter()
    run = subprocess.run([binary, "reload-segments", "--json"], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if run.returncode != 0:
        sys.exit(f"{binary} reload-segments failed ({run.returncode}): {run.stderr}")
    return elapsed, json.loads(run.stdout)

results = {}
for dispenser in ["queue", "range"]:
    for rep in range(reps):
        order = ["old", "new"] if rep % 2 == 0 else ["new", "old"]
        for name in order:
            empty()
            elapsed, report = timed(binaries[name], dispenser)
            if report["shards_refilled"] != 4096:
                sys.exit(f"{name} refilled {report['shards_refilled']} of 4096 shards: {report}")
            results.setdefault((dispenser, "empty", name), []).append(elapsed)
            # Right after: every shard is full, the sweep only checks.
            elapsed, report = timed(binaries[name], dispenser)
            if report["shards_refilled"] != 0:
                sys.exit(f"{name} refilled {report['shards_refilled']} shards on a full sweep")
            results.setdefault((dispenser, "check-only", name), []).append(elapsed)

print(f"reload-segments, 64 apps x 64 shards, step 1000, median of {reps} (seconds):")
rows = []
for dispenser in ["queue", "range"]:
    for what in ["empty", "check-only"]:
        o = statistics.median(results[(dispenser, what, "old")])
        n = statistics.median(results[(dispenser, what, "new")])
        rows.append({"dispenser": dispenser, "from": what, "old_s": o, "new_s": n, "ratio": n / o,
                     "old_runs": results[(dispenser, what, "old")], "new_runs": results[(dispenser, what, "new")]})
        print(f"  {dispenser:<6} {what:<11} old {o:7.3f}  new {n:7.3f}  new/old {n / o:5.2f}x  ({o / n:4.1f}x faster)")
json.dump(rows, open(dest, "w"), indent=1)
EOF
