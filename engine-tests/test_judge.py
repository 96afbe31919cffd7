"""bench/judge.py, an engine's in-game scores against a reference engine's: the arithmetic
and the points of view, with fake_engine.py standing in for Stockfish (it always reports
+0.50 for the side to move), and its errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "bench" / "judge.py"
FAKE = Path(__file__).with_name("fake_engine.py")

# Cerise is Black here, so its moves are plies 2, 4 and 6; the last has no score comment.
PGN = """\
[Event "t"]
[White "Other"]
[Black "Cerise-1"]
[Result "*"]

1. e4 { +0.10/8 } 1... e5 { +0.40/10 0.1s } 2. Nf3 { +0.20/8 } 2... Nc6 { -0.20/11 0.1s }
3. Bb5 { +0.30/9 } 3... a6 *
"""


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=120)


def fake_reference(tmp_path: Path) -> Path:
    script = tmp_path / "reference.sh"
    script.write_text(f"#!/bin/sh\nexec '{sys.executable}' '{FAKE}' line - 50\n")
    script.chmod(0o755)
    return script


def test_scores_are_compared_from_the_judged_engines_side(tmp_path):
    pgn = tmp_path / "games.pgn"
    pgn.write_text(PGN)
    out_json = tmp_path / "rows.json"
    out = run(["--pgn", str(pgn), "--stockfish", str(fake_reference(tmp_path)),
               "--depth", "1", "--plies", "1-6", "--out", str(out_json)])
    assert out.returncode == 0, out.stderr
    rows = json.loads(out_json.read_text())[str(pgn)]
    # After each of Black's moves White is to move and the reference says +0.50 for White,
    # so -0.50 for Black; ply 6 has no comment and is left out.
    assert [(r["ply"], r["own"], r["stockfish"]) for r in rows] == [(2, 0.4, -0.5), (4, -0.2, -0.5)]
    # Mean own - reference: (0.9 + 0.3) / 2.
    assert "2 positions of 1 games" in out.stdout, out.stdout
    assert "own - stockfish: +0.60 pawns" in out.stdout, out.stdout
    assert "plies 1-10: n 2, own +0.10, stockfish -0.50" in out.stdout, out.stdout
    assert "game 1, 2 positions" in out.stderr


def test_a_missing_reference_or_bad_range_is_named(tmp_path):
    pgn = tmp_path / "games.pgn"
    pgn.write_text(PGN)
    out = run(["--pgn", str(pgn), "--stockfish", str(tmp_path / "no-such-engine")])
    assert out.returncode != 0
    assert "cannot find" in out.stderr and "--stockfish" in out.stderr, out.stderr
    out = run(["--pgn", str(pgn), "--plies", "20-10"])
    assert out.returncode != 0
    assert "want 1 <= LO <= HI" in out.stderr, out.stderr
    out = run(["--pgn", str(tmp_path / "none.pgn"), "--stockfish", str(fake_reference(tmp_path))])
    assert out.returncode != 0
    assert "cannot read" in out.stderr, out.stderr
    assert os.path.exists(pgn)
