#!/usr/bin/env bash
# Sets Cerise up if needed, then runs it: with no arguments it speaks UCI on stdin/stdout,
# so a GUI can use this script as the engine command. Arguments go to the binary
# (`scripts/engine.sh bench`, `scripts/engine.sh perft 5`, ...).
#
# Setup is quiet and writes only to stderr, keeping stdout clean for UCI. Set CERISE_CUDA=1
# to keep (or make) the CUDA build.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
"$repo/scripts/setup.sh" --quiet
exec "$repo/target/release/cerise" "$@"
