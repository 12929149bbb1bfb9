#!/usr/bin/env bash
# Every performance figure of idgen in one table of ratios (scripts/bench.py says how
# each row is measured):
#
#   scripts/bench.sh            # every row, about 8 minutes on 2 cores
#   scripts/bench.sh ROW...     # embedded-next serve-embedded serve-distributed
#                               # warm-next lease decode reload memory
#   scripts/bench.sh smoke      # every row once, tiny sizes: the script runs (CI)
#
# It builds the release binary first; IDGEN_BENCH_BINARY=PATH uses that binary
# and builds nothing. In-process figures: cargo bench.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${IDGEN_BENCH_BINARY:-}" ]; then
  cargo build --release --quiet --bin idgen
fi
exec python3 scripts/bench.py "$@"
