#!/usr/bin/env bash
# Move-generation check at depth 5 over the whole perft suite (about 1.3 billion leaves; a few
# minutes in a release build). Writes the report to bench/results/perft-d5.txt as well.
# Exits non-zero if any count is wrong.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="$repo/target/release/cerise"
suite="$repo/../shared/data/perft/perftsuite.epd"
depth="${1:-5}"
[ -x "$bin" ] || { echo "perft.sh: $bin not found; run scripts/setup.sh first" >&2; exit 1; }
[ -f "$suite" ] || { echo "perft.sh: $suite not found; shared/ must sit beside the repo" >&2; exit 1; }
mkdir -p "$repo/bench/results"
out="$repo/bench/results/perft-d$depth.txt"
{
  echo "# cerise perft-suite --depth $depth, $(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  start=$SECONDS
  status=0
  "$bin" perft-suite --file "$suite" --depth "$depth" 2>&1 || status=$?
  echo "# exit status $status after $((SECONDS - start)) s"
  exit "$status"
} | tee "$out"
