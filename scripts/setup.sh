#!/usr/bin/env bash
# Makes target/release/cerise on this machine: installs libtorch (scripts/libtorch.sh), then
# `cargo build --release`.
#
#   scripts/setup.sh            CPU-only libtorch, default features
#   scripts/setup.sh --cuda     CUDA-enabled libtorch, built with `--features cuda`
#   scripts/setup.sh --quiet    only errors (what scripts/engine.sh uses)
#
# CERISE_CUDA=1 in the environment means the same as --cuda, so that scripts/engine.sh and
# scripts/test.sh (whose arguments belong to others) keep a CUDA build instead of rebuilding
# for CPU.
#
# Everything this script prints goes to stderr: scripts/engine.sh runs it right before the
# engine, whose stdout must carry nothing but UCI.
#
# Idempotent: a second run finds libtorch installed and cargo up to date, and takes a second.
set -euo pipefail
exec 1>&2

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

log() { [ "$quiet" = 1 ] || echo "[setup] $*"; }
die() { echo "[setup] error: $*"; exit 1; }

cuda="${CERISE_CUDA:-0}"
quiet=0
for arg in "$@"; do
  case "$arg" in
    --cuda) cuda=1 ;;
    --quiet) quiet=1 ;;
    -h | --help)
      sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) die "unknown option '$arg' (use --cuda for the CUDA build, --quiet for errors only)" ;;
  esac
done

command -v cargo >/dev/null ||
  die "cargo not found; install the Rust toolchain (https://rustup.rs) and make sure ~/.cargo/bin is on PATH"
command -v "${PYTHON:-python3}" >/dev/null ||
  die "python3 not found; install Python 3 with pip (scripts/libtorch.sh uses it to fetch the torch wheel)"

torch_args=()
cargo_args=(build --release)
if [ "$cuda" = 1 ]; then
  torch_args=(--cuda)
  cargo_args+=(--features cuda)
fi
[ "$quiet" = 1 ] && cargo_args+=(--quiet)

log "libtorch (${torch_args[*]:-cpu})"
# libtorch.sh reports progress only when it has work to do, so even --quiet shows a first
# install's multi-minute download instead of what would look like a hang.
dir="$(scripts/libtorch.sh "${torch_args[@]}")" || die "scripts/libtorch.sh failed (see above)"
if [ "$cuda" = 1 ]; then
  # The real directory, not the .libtorch link: torch-sys reruns its build script only when
  # the LIBTORCH string changes, and a link retargeted from CPU to CUDA would not change it.
  export LIBTORCH="$dir"
fi
# For CPU, LIBTORCH stays unset (or the caller's own), so .cargo/config.toml supplies
# .libtorch exactly as it does for a plain `cargo build`: the same string in both keeps cargo
# from rebuilding torch-sys each time the two alternate.
log "libtorch: $dir"

log "cargo ${cargo_args[*]}"
cargo "${cargo_args[@]}" || die "cargo build failed (see the compiler errors above)"
[ -x target/release/cerise ] || die "cargo finished but target/release/cerise is missing"
log "ready: $repo/target/release/cerise"
