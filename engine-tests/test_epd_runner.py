"""bench/epd.py, the EPD suite scorer: counts, STS points and its errors, on the real binary."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "bench" / "epd.py"

# A back-rank mate in one (bm), a position whose only sensible move is the capture of a
# hanging queen, given STS-style points (c8/c9) where a wrong move scores 0.
SUITE = """\
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id "mate.1";
4k3/8/8/3q4/8/8/8/3RK3 w - - bm Rxd5; id "queen.1"; c8 "10 1"; c9 "d1d5 e1e2";
"""


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=120)


def test_counts_solved_positions_and_sts_points(cerise_bin, tmp_path):
    epd = tmp_path / "suite.epd"
    epd.write_text(SUITE)
    out = run(["--engine", str(cerise_bin), "--epd", str(epd), "--movetime", "100"])
    assert out.returncode == 0, out.stderr
    summary = out.stdout.strip().splitlines()[-1]
    assert "positions=2 solved=2 points=10/10" in summary, summary
    assert "[epd] 2/2" in out.stderr


def test_a_bad_line_is_named(cerise_bin, tmp_path):
    epd = tmp_path / "bad.epd"
    epd.write_text(SUITE + "not a position at all\n")
    out = run(["--engine", str(cerise_bin), "--epd", str(epd)])
    assert out.returncode != 0
    assert f"{epd}:3 is not a valid EPD line" in out.stderr, out.stderr
