#!/usr/bin/env bash
# Whole-process figures of this checkout against an earlier revision, side by
# side in one hyperfine run each, as ratios: a regression check for changes that
# must not change speed (a refactor).
#
#   scripts/bench-against.sh 2b929c4
#
# It builds REV's release binary in a temporary worktree (under
# target/against, kept between runs), this checkout's release binary, starts
# its own redis-server and mariadbd (scripts/bench-servers.sh), and times:
#   - a warm `next --app 1` (spawn, connect, one take), and `redis-cli LPOP`;
#   - `next --app 1 --count 100000`;
#   - `lease --count 1000000`;
#   - `decode --guess` and `decode --layout` of 100,000 IDs.
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:?usage: scripts/bench-against.sh REV}"

command -v hyperfine >/dev/null || { echo "bench: install hyperfine (apt-get install hyperfine)" >&2; exit 1; }
cargo build --release --quiet --bin idgen
. scripts/bench-servers.sh

against="$target/against"
worktree="$scratch/against"
git worktree add --quiet --detach "$worktree" "$rev"
trap 'git worktree remove --force "$worktree"; cleanup' EXIT
(cd "$worktree" && CARGO_TARGET_DIR="$against" cargo build --release --quiet --bin idgen)
old="$against/release/idgen"
new="$idgen"
echo "== $rev ($old) against this checkout ($new); ratio: mean relative to the first command"

start_servers
"$new" init-app --app 1 --name bench >/dev/null
"$new" reload-segments --quiet
seq 1 200000 | sed 's/^/RPUSH bench.bare /' | "${redis_cli[@]}" >/dev/null

echo "== warm next, whole process"
hyperfine -N --warmup 20 --runs 300 --export-json "$out/against-warm-next.json" \
  "$old next --app 1" "$new next --app 1" "${redis_cli[*]} LPOP bench.bare" >/dev/null
ratio "$out/against-warm-next.json"

echo "== next --app 1 --count 100000"
hyperfine -N --warmup 2 --runs 15 --export-json "$out/against-next-count.json" \
  "$old next --app 1 --count 100000" "$new next --app 1 --count 100000" >/dev/null
ratio "$out/against-next-count.json"

echo "== lease --count 1000000 (embedded store)"
export IDGEN_STORE="$scratch/lease.db"
hyperfine -N --warmup 2 --runs 15 --export-json "$out/against-lease.json" \
  "env -u IDGEN_REDIS_URL -u IDGEN_MYSQL_URL $old lease --count 1000000" \
  "env -u IDGEN_REDIS_URL -u IDGEN_MYSQL_URL $new lease --count 1000000" >/dev/null
ratio "$out/against-lease.json"
unset IDGEN_STORE

echo "== decode of 100,000 snowflake IDs: --layout, then --guess (old, new)"
python3 -c '
import random
random.seed(7)
epoch = 1288834974657
for i in range(100000):
    ms = 1700000000000 + i * 37 - epoch
    print((ms << 22) | (random.randrange(1024) << 12) | random.randrange(4096))
' >"$scratch/ids.txt"
hyperfine --warmup 1 --runs 10 --export-json "$out/against-decode.json" \
  "$new decode --layout snowflake < $scratch/ids.txt" \
  "$old decode --guess < $scratch/ids.txt" \
  "$new decode --guess < $scratch/ids.txt" >/dev/null
ratio "$out/against-decode.json"
for bin in "$old" "$new"; do
  /usr/bin/time -f "  peak RSS of $bin decode --guess: %M KiB" "$bin" decode --guess <"$scratch/ids.txt" >/dev/null
done
