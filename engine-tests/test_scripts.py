"""The README's user-facing command: scripts/engine.sh must keep stdout pure UCI."""

from __future__ import annotations

import os
import subprocess

from conftest import REPO, binary_path


def test_engine_sh_answers_uci_with_clean_stdout(cerise_bin):
    if binary_path() != REPO / "target" / "release" / "cerise":
        import pytest

        pytest.skip("CERISE_BIN points elsewhere; engine.sh always runs target/release/cerise")
    r = subprocess.run(
        [str(REPO / "scripts" / "engine.sh")],
        input="uci\nisready\nquit\n",
        capture_output=True,
        text=True,
        timeout=900,  # a stale build is rebuilt first
        env={**os.environ, "CERISE_CUDA": os.environ.get("CERISE_CUDA", "0")},
    )
    assert r.returncode == 0, f"engine.sh exited {r.returncode}\n{r.stderr[-3000:]}"
    lines = r.stdout.splitlines()
    assert lines and lines[0].startswith("id name "), f"stdout does not start with UCI: {lines[:5]}"
    assert "uciok" in lines and lines[-1] == "readyok", lines
