"""Whole games against Sunfish under a real clock, one per evaluator: no illegal move, no
time loss, no crash, and the game ends. Played by bench/match.py, which keeps the clocks."""

from __future__ import annotations

import sys

import chess
import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import match  # noqa: E402

TC = match.TimeControl(3.0, 0.05)
MAX_PLIES = 150


EVALUATORS = ["<material>", "<fake>", "small-net", "shipped-cnn", "tiny-rbf"]
FIXTURES = {"small-net": "small_net", "shipped-cnn": "shipped_cnn", "tiny-rbf": "tiny_rbf"}


@pytest.mark.parametrize("evaluator", EVALUATORS)
def test_game_against_sunfish(cerise_bin, sunfish_cmd, start_engine, request, evaluator):
    fixture = FIXTURES.get(evaluator)
    evalfile = str(request.getfixturevalue(fixture)) if fixture else evaluator
    # python-chess does not surface `info string error`, so check first that the evaluator
    # loads; otherwise the game would quietly be played with the material fallback.
    probe = start_engine()
    probe.handshake()
    probe.send(f"setoption name EvalFile value {evalfile}")
    assert not probe.errors(probe.sync(timeout=30)), f"EvalFile {evaluator} refused\n{probe.dump()}"
    probe.quit()
    cerise = match.Player(str(cerise_bin), {"EvalFile": evalfile}, name="cerise")
    sunfish = match.Player(" ".join(sunfish_cmd), {}, name="sunfish")
    openings = match.read_openings(REPO / "bench" / "openings.epd")
    # Alternate colours between the evaluators so both sides get exercised.
    index = EVALUATORS.index(evaluator)
    white, black = (cerise, sunfish) if index % 2 == 0 else (sunfish, cerise)
    try:
        r = match.play_game(white, black, openings[index * 7], TC, match.Adjudication(max_plies=MAX_PLIES),
                            event=f"engine-tests {evaluator}")
    finally:
        cerise.quit()
        sunfish.quit()

    color = chess.WHITE if white is cerise else chess.BLACK
    moves = r.clocks[color]
    detail = f"{r.result} ({r.termination})\n{r.game}"
    assert cerise.stats.crashes == 0, f"cerise crashed: {detail}"
    assert cerise.stats.illegal == 0, f"cerise played an illegal move: {detail}"
    assert cerise.stats.time_losses == 0, f"cerise lost on time: {detail}"
    assert all(left >= 0 for _, left in moves), f"cerise's clock went below zero: {moves}"
    assert moves, f"cerise never moved: {detail}"
    assert r.result in ("1-0", "0-1", "1/2-1/2")
    worst = max(used for used, _ in moves)
    print(f"{evaluator}: {r.result} ({r.termination}), {len(moves)} moves, longest think {worst:.2f}s, "
          f"clock left {moves[-1][1]:.2f}s")
