"""The OpenBench build: `make EXE=path` builds the engine without libtorch, and its bench
prints the same signature as the full build's."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import REPO, run_cli
from uci_driver import BENCH_LINE, Uci


def _signature() -> str:
    """The count src/bench.rs asserts, so that a search change updates one place."""
    text = (REPO / "src" / "bench.rs").read_text()
    m = re.search(r"SIGNATURE_NODES: u64 = ([0-9_]+);", text)
    assert m, "src/bench.rs no longer defines SIGNATURE_NODES"
    return m.group(1).replace("_", "") + " nodes"


SIGNATURE = _signature()


@pytest.fixture(scope="module")
def lite_bin(tmp_path_factory):
    if shutil.which("make") is None:
        pytest.skip("make not found")
    exe = tmp_path_factory.mktemp("lite") / "cerise-lite"
    # From clean this compiles every dependency (about 2 minutes on 2 busy cores).
    r = subprocess.run(["make", f"EXE={exe}"], cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, f"make failed ({r.returncode}):\n{r.stderr[-3000:]}"
    return exe


def test_make_builds_an_engine_whose_bench_is_the_signature(lite_bin):
    r = run_cli(lite_bin, "bench")
    assert r.returncode == 0, r.stderr[-3000:]
    last = r.stdout.strip().splitlines()[-1]
    assert BENCH_LINE.match(last) and last.startswith(SIGNATURE + " "), last
    assert ", backend native;" in r.stderr.splitlines()[0], r.stderr


def test_the_lite_engine_refuses_what_needs_libtorch_and_keeps_searching(lite_bin, tmp_path):
    eng = Uci([str(lite_bin)], stderr_path=tmp_path / "stderr.txt")
    try:
        eng.handshake()
        eng.send("setoption name Backend value torch")
        lines = eng.sync()
        assert any("this build has no libtorch" in line.text for line in lines), eng.dump()
        eng.send("go depth 3")
        eng.read_until(lambda t: t.startswith("bestmove "), 30, "bestmove after the refusal")
    finally:
        eng.kill()
    r = run_cli(lite_bin, "train", "--help")
    assert r.returncode != 0 and "panicked" not in r.stderr, r.stderr
