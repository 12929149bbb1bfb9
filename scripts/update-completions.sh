#!/usr/bin/env bash
# Regenerates the committed shell completion scripts in completions/ and the man
# page man/idgen.1 from the CLI.
# Run after adding or changing a subcommand or flag; `cargo test --test main completions`
# fails until the committed files match.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --bin idgen
bin="${CARGO_TARGET_DIR:-target}/debug/idgen"
declare -A files=(
  [bash]=idgen.bash
  [zsh]=_idgen
  [fish]=idgen.fish
  [powershell]=_idgen.ps1
  [elvish]=idgen.elv
)
mkdir -p completions
for shell in "${!files[@]}"; do
  "$bin" completions "$shell" > "completions/${files[$shell]}"
done
echo "updated completions/ (${files[*]})"
mkdir -p man
"$bin" man > man/idgen.1
echo "updated man/idgen.1"
