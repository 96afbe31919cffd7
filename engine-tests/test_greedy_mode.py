"""`PlayMode greedy`: the evaluator as a depth-1 player, no search (issue #8's comparison)."""

from __future__ import annotations

from no_search_play import play_without_search


def greedy(engine, evalfile=None):
    if evalfile:
        engine.send(f"setoption name EvalFile value {evalfile}")
        assert not engine.errors(engine.sync()), engine.dump()
    engine.send("setoption name PlayMode value greedy")
    assert not engine.errors(engine.sync()), engine.dump()


def test_the_default_net_plays_legal_moves_from_one_evaluation(engine):
    greedy(engine)
    # No search: depth 1, one node per legal move.
    play_without_search(engine, "greedy", 30, lambda board: board.legal_moves.count())


def test_greedy_material_takes_a_defended_rook_and_honours_searchmoves(engine):
    greedy(engine, "<material>")
    fen = "4k3/8/4p3/3r4/8/8/3Q4/4K3 w - - 0 1"
    engine.send(f"position fen {fen}")
    # A search sees exd5; the greedy player does not look at replies.
    assert engine.go("go depth 1").bestmove() == "d2d5", engine.dump()
    engine.send(f"position fen {fen}")
    assert engine.go("go depth 1 searchmoves e1f1 e1f2").bestmove() in ("e1f1", "e1f2")


def test_a_bad_play_mode_names_the_choices(engine):
    engine.send("setoption name PlayMode value sideways")
    errors = engine.errors(engine.sync())
    assert any("search, policy or greedy" in e for e in errors), engine.dump()
