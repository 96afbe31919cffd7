"""bench/match.py itself: its bookkeeping of crashes, illegal moves and Elo."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import match  # noqa: E402

FAKE = f"{sys.executable} {Path(__file__).with_name('fake_engine.py')}"


def test_elo_of_even_and_lopsided_scores():
    assert match.elo_with_margin(5, 10, 5)[0] == pytest.approx(0)
    e, margin = match.elo_with_margin(30, 40, 10)  # 62.5%
    assert e == pytest.approx(-400 * math.log10(1 / 0.625 - 1))
    assert 0 < margin < 100
    assert match.elo_with_margin(3, 0, 0) == (math.inf, math.inf)


def test_time_control_parsing():
    tc = match.TimeControl.parse("10+0.1")
    assert (tc.base, tc.inc) == (10, 0.1)
    for bad in ("abc", "0+1", "10+-1"):
        with pytest.raises(Exception):
            match.TimeControl.parse(bad)


@pytest.mark.parametrize("mode,counter", [("crash", "crashes"), ("illegal", "illegal")])
def test_misbehaviour_loses_and_is_counted(mode, counter):
    bad = match.Player(f"{FAKE} {mode}", {}, name="bad")
    good = match.Player(f"{FAKE} ok", {}, name="good")
    try:
        for white, black in ((bad, good), (good, bad)):
            r = match.play_game(white, black, chess.STARTING_FEN, match.TimeControl(5, 0))
            assert r.result == ("0-1" if white is bad else "1-0"), r.termination
    finally:
        bad.quit()
        good.quit()
    assert getattr(bad.stats, counter) == 2  # and the engine was restarted for the second game
    assert good.stats == match.Stats()


def test_runner_writes_pgn_and_summary(tmp_path):
    out = tmp_path / "games.pgn"
    r = subprocess.run(
        [sys.executable, str(REPO / "bench" / "match.py"), "--engine1", f"{FAKE} ok", "--engine2",
         f"{FAKE} ok", "--games", "2", "--tc", "5+0", "--max-plies", "20", "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "W 0 / D 2 / L 0" in r.stdout, r.stdout
    with out.open() as f:
        games = [chess.pgn.read_game(f), chess.pgn.read_game(f)]
    assert all(g is not None and g.headers["Result"] == "1/2-1/2" for g in games)
    # Paired: the same opening with colours swapped.
    assert games[0].headers["FEN"] == games[1].headers["FEN"]
    assert games[0].headers["White"] == games[1].headers["Black"]
