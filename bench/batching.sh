#!/usr/bin/env bash
# Batched evaluation against the raw forward ceiling (issue #4).
#
# For each preset x threads x max batch: `cerise bench` at a fixed low depth (nodes, nps,
# NN evals/s, mean batch, cache hit rate, evaluator busy fraction), then
# `cerise net throughput` of the same net, on the same device, with the same encoder, at
# the MEAN batch size that bench actually used. Prints a Markdown table; the last column
# (bench evals/s / raw forward positions/s) is the figure issue #4 sets targets for.
#
# Usage: bench/batching.sh            (release binary at target/release/cerise)
# Env:   CERISE=path  PRESETS="small mid deeppink"  THREADS="1 2 4 8"
#        BATCHES="64 256 1024"  DEVICE=cpu  RAW_SECONDS=2  PRECISION=fp32
# The nets are fresh seeded ones: weights do not change speed, only the tree searched.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${CERISE:-target/release/cerise}
presets=${PRESETS:-"small mid deeppink"}
threads_list=${THREADS:-"1 2 4 8"}
batches=${BATCHES:-"64 256 1024"}
device=${DEVICE:-cpu}
raw_seconds=${RAW_SECONDS:-2}
precision=${PRECISION:-fp32}
[ -x "$bin" ] || { echo "no binary at $bin; run: cargo build --release" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Depth per preset keeps each bench run under ~20 s on the 2-core dev machine.
depth_for() {
    case $1 in
        small) echo 4 ;;
        mid) echo 3 ;;
        *) echo 1 ;;
    esac
}

# The value of key=value in a line.
field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p" | head -n 1; }

echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  device: $device  precision: $precision  OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE (cerise default)}"
echo
echo "| preset | threads | max batch | depth | nodes | nps | evals/s | mean batch | cache hit | busy | encoder | raw fwd/s @ mean batch | evals/s ÷ raw |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"
for preset in $presets; do
    net="$tmp/$preset.safetensors"
    "$bin" net init --preset "$preset" --out "$net" --seed 1 >/dev/null
    depth=$(depth_for "$preset")
    for threads in $threads_list; do
        for max_batch in $batches; do
            "$bin" bench "$depth" "$threads" --eval "$net" --device "$device" \
                --max-batch "$max_batch" --precision "$precision" \
                >"$tmp/out" 2>"$tmp/err"
            stats=$(grep '^bench-stats ' "$tmp/out")
            encoder=$(sed -n 's/.*, \([a-z]*\) encoder, .*/\1/p' "$tmp/err" | head -n 1)
            mean=$(field mean_batch "$stats")
            evals=$(field evals_per_s "$stats")
            batch=$(awk -v m="$mean" 'BEGIN { b = int(m + 0.5); print (b < 1 ? 1 : b) }')
            raw_line=$("$bin" net throughput --net "$net" --batch "$batch" --device "$device" \
                --precision "$precision" --encoder "$encoder" --seconds "$raw_seconds")
            raw=$(field positions_per_s "$raw_line")
            ratio=$(awk -v e="$evals" -v r="$raw" 'BEGIN { printf "%.2f", (r > 0 ? e / r : 0) }')
            echo "| $preset | $threads | $max_batch | $depth | $(field nodes "$stats") | $(field nps "$stats") | $evals | $mean | $(field cache_hit_rate "$stats") | $(field eval_busy "$stats") | $encoder | $raw | $ratio |"
        done
    done
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
