#!/usr/bin/env bash
# Sets Cerise up and runs every check: rustfmt, clippy, the Rust tests, and the black-box
# engine tests in engine-tests/ (pytest driving the release binary, including short games
# against Sunfish).
#
#   scripts/test.sh             all stages; keeps going after a failure, exits 1 if any failed
#   CERISE_FAIL_FAST=1 scripts/test.sh    stop at the first failing stage
#   CERISE_CUDA=1 scripts/test.sh         test the CUDA build (tests still run on the CPU)
#
# Extra arguments go to pytest (e.g. `scripts/test.sh -k perft`).
#
# Rust tests and clippy use the release profile so that they share the libtorch-linked
# dependencies (and torch-sys's C++ shim) that setup has already built. Measured on the
# 2-core machine after a release build: `cargo test --release` 26 s, plain `cargo test`
# 8 min (it compiles every dependency again at the dev profile).
#
# From a fresh clone (libtorch already downloaded) the whole run takes about 12 minutes:
# 4.5 for the release build, then clippy 1, Rust tests 0.5, the build without libtorch
# (make, its clippy and tests; make alone from clean took 1:23 on a busy machine) 3, engine
# tests 2.
set -uo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

venv="$repo/.venv"
py_reqs=(sunfish chess pytest)
failed=()
started=$SECONDS

stage() { echo; echo "=== [test] $1 ==="; }
pass() { echo "--- [test] $1: ok ($(($SECONDS - $2)) s)"; }
fail() {
  echo "--- [test] $1: FAILED ($(($SECONDS - $2)) s)"
  failed+=("$1")
  if [ "${CERISE_FAIL_FAST:-0}" = 1 ]; then finish; fi
}
finish() {
  echo
  if [ ${#failed[@]} -eq 0 ]; then
    echo "[test] every stage ok in $(($SECONDS - started)) s"
    exit 0
  fi
  echo "[test] FAILED stages: ${failed[*]} (total $(($SECONDS - started)) s)"
  exit 1
}
run_stage() {
  local name="$1"
  shift
  stage "$name"
  local t0=$SECONDS
  if "$@"; then pass "$name" "$t0"; else fail "$name" "$t0"; fi
}

venv_ready() {
  [ -x "$venv/bin/python" ] && [ -x "$venv/bin/sunfish-uci" ] &&
    "$venv/bin/python" -c 'import chess, chess.engine, pytest, sunfish' 2>/dev/null
}
make_venv() {
  if venv_ready; then
    echo "reusing $venv"
    return 0
  fi
  command -v python3 >/dev/null || { echo "python3 not found; install Python 3 with venv and pip"; return 1; }
  # A venv copied from elsewhere (or half made) has a broken interpreter link: start over.
  [ -x "$venv/bin/python" ] && "$venv/bin/python" -c '' 2>/dev/null || rm -rf "$venv"
  [ -d "$venv" ] || python3 -m venv "$venv" || { echo "python3 -m venv failed; install python3-venv"; return 1; }
  # sunfish pins the chess version it was written against; let pip resolve the three together.
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${py_reqs[@]}" &&
    venv_ready || { echo "pip could not install ${py_reqs[*]} into $venv (network access to PyPI?)"; return 1; }
}

cargo_flags=(--release)
[ "${CERISE_CUDA:-0}" = 1 ] && cargo_flags+=(--features cuda)

stage setup
t0=$SECONDS
setup_args=()
[ "${CERISE_CUDA:-0}" = 1 ] && setup_args+=(--cuda)
if scripts/setup.sh "${setup_args[@]}" 2>&1; then
  pass setup "$t0"
else
  # Nothing after this can run without a binary.
  fail setup "$t0"
  finish
fi
# Same LIBTORCH as setup used, or cargo would rebuild torch-sys (see scripts/setup.sh).
[ "${CERISE_CUDA:-0}" = 1 ] && export LIBTORCH="$(readlink -f "$repo/.libtorch")"

run_stage venv make_venv
run_stage fmt cargo fmt --all --check
run_stage clippy cargo clippy "${cargo_flags[@]}" --all-targets -- -D warnings
run_stage cargo-test cargo test "${cargo_flags[@]}"

# The engine without libtorch, as `make` (OpenBench) builds it: clippy, its unit tests and
# its bench signature. Everything in target/lite with make's settings, so the three share
# one build of the dependencies (about 3 minutes from clean on two cores, seconds after).
# A subshell, so that make's profile setting does not reach the full build's stages.
lite() (
  local target="$repo/target/lite" sig last
  export CARGO_PROFILE_RELEASE_DEBUG=0
  local flags=(--release --no-default-features --target-dir "$target")
  sig="$(sed -n 's/.*SIGNATURE_NODES: u64 = \([0-9_]*\);.*/\1/p' src/bench.rs | tr -d _)"
  make EXE="$target/cerise-lite" &&
    cargo clippy "${flags[@]}" --all-targets -- -D warnings &&
    cargo test "${flags[@]}" --lib &&
    last="$("$target/cerise-lite" bench 2>/dev/null | tail -n 1)" || return 1
  echo "lite bench: $last"
  [[ -n "$sig" && "$last" == "$sig nodes "* ]] || { echo "want '$sig nodes ...' (src/bench.rs)"; return 1; }
)
run_stage lite lite

if venv_ready; then
  # Make the test binary the one just built, and fail (not skip) if it is missing.
  export CERISE_BIN="$repo/target/release/cerise" CERISE_REQUIRE_BIN=1
  export PATH="$venv/bin:$PATH"
  run_stage engine-tests "$venv/bin/python" -m pytest engine-tests -q -p no:cacheprovider "$@"
else
  stage engine-tests
  fail engine-tests "$SECONDS"
fi

finish
