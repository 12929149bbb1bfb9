#!/usr/bin/env bash
# Runs the fuzz targets (fuzz/fuzz_targets) one after another, SECONDS each,
# and fails on the first input that crashes, hangs or runs out of memory.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     (default: 300 s, every target)
#   scripts/fuzz.sh 0 [TARGET...]             (replay the corpus once, no search)
#
# Needs the nightly toolchain and cargo-fuzz; installs neither (it says how).
# Each target starts from its committed seeds (fuzz/corpus/TARGET) and from
# what earlier runs here found (fuzz/target/corpus/TARGET, not committed);
# fuzz/TARGET.dict, if there is one, is its dictionary.
#
# FUZZ_SANITIZER: address (default) or none. ASan finds nothing in safe Rust
# that a panic would not; `none` builds several times faster (CI uses it).
# FUZZ_RSS_MB: the memory limit (default 2048).
# FUZZ_SEED: libFuzzer's random seed (default: a new one each run). CI fixes
# it, so that a run from the committed corpus explores the same inputs first
# on every machine; a long run leaves it unset to explore new ones.
#
# A crash leaves its input in fuzz/artifacts/TARGET/; the script prints the
# path and the commands that reproduce and minimize it. Whatever a run
# finds becomes a regression test (a test in tests/ or a unit test), not
# only a corpus file; see README "Fuzzing".
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-300}
shift || true
sanitizer=${FUZZ_SANITIZER:-address}
rss_mb=${FUZZ_RSS_MB:-2048}

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz: the nightly toolchain is missing; install it with: rustup toolchain install nightly" >&2
  exit 2
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz: cargo-fuzz is missing; install it with: cargo install cargo-fuzz" >&2
  exit 2
fi
case "$seconds" in
  '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;;
esac

cd fuzz
mapfile -t known < <(cargo +nightly fuzz list)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${known[@]}")
for target in "${targets[@]}"; do
  if ! printf '%s\n' "${known[@]}" | grep -qx -- "$target"; then
    echo "fuzz: no target '$target'; the targets are: ${known[*]}" >&2
    exit 2
  fi
done

# One build of every target: they share the crate, and `run` then finds its
# target built with the same flags.
started=$(date +%s)
cargo +nightly fuzz build -s "$sanitizer"
echo "fuzz: built in $(($(date +%s) - started)) s (sanitizer: $sanitizer)"

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failed=()
summary=()
for target in "${targets[@]}"; do
  work=target/corpus/$target
  mkdir -p "$work" "corpus/$target"
  if [ "$seconds" = 0 ]; then
    options=(-runs=0 -timeout=10 -rss_limit_mb="$rss_mb" -print_final_stats=1)
  else
    options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb="$rss_mb" -print_final_stats=1)
  fi
  [ -f "$target.dict" ] && options+=(-dict="$target.dict")
  [ -n "${FUZZ_SEED:-}" ] && options+=(-seed="$FUZZ_SEED")
  echo "== fuzz $target for $seconds s"
  log=$logs/$target.log
  # libFuzzer stops itself at -max_total_time; the outer limit is for a
  # fuzzer that cannot (a deadlock that blocks its own timer).
  if timeout -k 10 $((seconds + 600)) cargo +nightly fuzz run -s "$sanitizer" "$target" \
    "$work" "corpus/$target" -- "${options[@]}" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed+=("$target")
  fi
  # libFuzzer's last status line: #RUNS DONE cov: N ft: N corp: N/SIZE ...
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -n 1)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -nE 's/.* corp: ([0-9]+)\/.*/\1/p' <<<"$last")
  summary+=("$(printf '%-12s %-7s %6ss %12s %7s %7s %7s' "$target" "$status" "$seconds" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}")")
  if [ "$status" = FAILED ]; then
    grep -E "panicked at|^==[0-9]+== ERROR|ERROR: libFuzzer|SUMMARY" -A2 "$log" | head -n 20 >&2 || true
    artifact=$(sed -nE 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -n 1)
    if [ -n "$artifact" ]; then
      echo "fuzz: $target failed on $artifact" >&2
      echo "  reproduce: (cd fuzz && cargo +nightly fuzz run -s $sanitizer $target $artifact)" >&2
      echo "  minimize:  (cd fuzz && cargo +nightly fuzz tmin -s $sanitizer $target $artifact)" >&2
      echo "  show it:   (cd fuzz && cargo +nightly fuzz fmt -s $sanitizer $target $artifact)" >&2
    else
      tail -n 30 "$log" >&2
    fi
  fi
done

echo
printf '%-12s %-7s %7s %12s %7s %7s %7s\n' target result time execs cov ft corpus
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
