"""`PlayMode greedy`: the evaluator as a depth-1 player, no search (issue #8's comparison)."""

from __future__ import annotations

import chess


def greedy(engine, evalfile=None):
    if evalfile:
        engine.send(f"setoption name EvalFile value {evalfile}")
        assert not engine.errors(engine.sync()), engine.dump()
    engine.send("setoption name PlayMode value greedy")
    assert not engine.errors(engine.sync()), engine.dump()


def test_the_default_net_plays_legal_moves_from_one_evaluation(engine):
    greedy(engine)
    board = chess.Board()
    moves = []
    while len(moves) < 30 and not board.is_game_over():
        engine.send("position startpos moves " + " ".join(moves) if moves else "position startpos")
        out = engine.go("go wtime 60000 btime 60000", timeout=10)
        move = chess.Move.from_uci(out.bestmove())
        assert move in board.legal_moves, f"{move} is illegal in {board.fen()}\n{engine.dump()}"
        assert any("PlayMode greedy" in l for l in out.infos), engine.dump()
        # No search: depth 1, one node per legal move.
        n = board.legal_moves.count()
        assert any(" depth 1 " in l and f" nodes {n} " in l for l in out.infos), engine.dump()
        board.push(move)
        moves.append(move.uci())


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
