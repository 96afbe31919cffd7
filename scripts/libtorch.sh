#!/usr/bin/env bash
# Puts libtorch 2.11.0 (what tch 0.24.0 binds) on this machine and prints its directory.
#
#   scripts/libtorch.sh          CPU-only, ~0.5 GB, cut from the PyPI torch wheel
#   scripts/libtorch.sh --cuda   the full CUDA-enabled torch (~2.7 GB) in a private venv
#
# The repo's `.libtorch` link is pointed at the result; `.cargo/config.toml` hands that to
# torch-sys as LIBTORCH, so plain `cargo build` works afterwards.
#
# Idempotent: a finished install is marked with a stamp file and reused in milliseconds.
# Progress goes to stderr; stdout is only the directory, so callers can capture it.
set -euo pipefail

TORCH_VERSION=2.11.0
CUDART_VERSION=13.0.96
CUPTI_VERSION=13.0.85
CACHE="${CERISE_CACHE:-$HOME/.cache/cerise}"
PY="${PYTHON:-python3}"

repo="$(cd "$(dirname "$0")/.." && pwd)"
link() { ln -sfn "$1" "$repo/.libtorch"; echo "$1"; }

log() { echo "[libtorch] $*" >&2; }
die() { echo "[libtorch] error: $*" >&2; exit 1; }

variant=cpu
case "${1:-}" in
  "") ;;
  --cuda) variant=cuda ;;
  *) die "unknown option '$1' (use --cuda for the CUDA build, or nothing for CPU-only)" ;;
esac

command -v "$PY" >/dev/null || die "python3 not found; install Python 3 with pip (it is only used to fetch the torch wheel)"

if [ "$variant" = cuda ]; then
  venv="$CACHE/torch-$TORCH_VERSION-cuda-venv"
  stamp="$venv/.cerise-ok"
  if [ ! -f "$stamp" ]; then
    log "installing torch==$TORCH_VERSION with CUDA into $venv (about 2.7 GB, one time)"
    "$PY" -m venv "$venv"
    "$venv/bin/pip" install --progress-bar on "torch==$TORCH_VERSION" >&2
    touch "$stamp"
  fi
  link "$("$venv/bin/python" -c 'import torch, os; print(os.path.dirname(torch.__file__))')"
  exit 0
fi

dir="$CACHE/libtorch-$TORCH_VERSION-cpu"
stamp="$dir/.cerise-ok"
if [ -f "$stamp" ]; then
  link "$dir"
  exit 0
fi

wheels="$CACHE/wheels"
mkdir -p "$wheels"
log "downloading torch==$TORCH_VERSION wheel (~530 MB) and two CUDA runtime stubs into $wheels"
"$PY" -m pip download --no-deps --progress-bar on -d "$wheels" \
  "torch==$TORCH_VERSION" "nvidia-cuda-runtime==$CUDART_VERSION" "nvidia-cuda-cupti==$CUPTI_VERSION" >&2 \
  || die "pip could not download the torch wheel; check network access to PyPI and retry"

pick() { ls "$wheels"/$1 2>/dev/null | head -n1; }
torch_whl=$(pick "torch-$TORCH_VERSION-*.whl")
rt_whl=$(pick "nvidia_cuda_runtime-$CUDART_VERSION-*.whl")
cupti_whl=$(pick "nvidia_cuda_cupti-$CUPTI_VERSION-*.whl")
[ -n "$torch_whl" ] && [ -n "$rt_whl" ] && [ -n "$cupti_whl" ] || die "downloaded wheels not found in $wheels"

tmp="$dir.partial"
rm -rf "$tmp"
mkdir -p "$tmp/lib"
log "extracting headers and CPU libraries"
"$PY" - "$torch_whl" "$rt_whl" "$cupti_whl" "$tmp" <<'PYEOF'
import sys, zipfile, os, shutil
torch_whl, rt_whl, cupti_whl, out = sys.argv[1:]
libs = {"torch/lib/libtorch_cpu.so", "torch/lib/libc10.so", "torch/lib/libgomp.so.1"}
with zipfile.ZipFile(torch_whl) as z:
    for name in z.namelist():
        if name.startswith("torch/include/") and not name.endswith("/"):
            dest = os.path.join(out, "include", name[len("torch/include/"):])
        elif name in libs:
            dest = os.path.join(out, "lib", os.path.basename(name))
        else:
            continue
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with z.open(name) as src, open(dest, "wb") as dst:
            shutil.copyfileobj(src, dst)
for whl, lib in ((rt_whl, "libcudart.so.13"), (cupti_whl, "libcupti.so.13")):
    with zipfile.ZipFile(whl) as z:
        name = next(n for n in z.namelist() if n.endswith("/" + lib))
        with z.open(name) as src, open(os.path.join(out, "lib", lib), "wb") as dst:
            shutil.copyfileobj(src, dst)
PYEOF
ln -sf libtorch_cpu.so "$tmp/lib/libtorch.so"
echo "$TORCH_VERSION" > "$tmp/build-version"
rm -rf "$dir"
mv "$tmp" "$dir"
touch "$stamp"
log "libtorch $TORCH_VERSION (CPU) ready in $dir ($(du -sh "$dir" | cut -f1))"
link "$dir"
