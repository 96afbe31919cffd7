"""`PlayMode policy` with a `Policy` file: ConvChess's player, no search (issue #8)."""

from __future__ import annotations

import chess

from no_search_play import play_without_search
from test_bad_input import send_bad


def set_policy(engine, path):
    engine.send(f"setoption name Policy value {path}")
    lines = engine.sync()
    assert not engine.errors(lines), engine.dump()
    assert any("Policy: policy" in l.text for l in lines), engine.dump()
    engine.send("setoption name PlayMode value policy")
    assert not engine.errors(engine.sync()), engine.dump()


def test_the_policy_player_plays_legal_moves_at_once(engine, tiny_policy):
    set_policy(engine, tiny_policy)
    # Forty plies against itself, each answered from the policy alone: one node, depth 1.
    play_without_search(engine, "policy", 40, lambda board: 1)


def test_searchmoves_bound_the_policy(engine, tiny_policy):
    set_policy(engine, tiny_policy)
    engine.send("position startpos")
    out = engine.go("go movetime 100 searchmoves a2a3 h2h3")
    assert out.bestmove() in ("a2a3", "h2h3"), engine.dump()


def test_a_file_that_is_not_a_policy_is_refused(engine, fresh_cnn, tmp_path):
    errors = send_bad(engine, f"setoption name Policy value {fresh_cnn}")
    assert any("not a policy" in e for e in errors), errors
    errors = send_bad(engine, f"setoption name Policy value {tmp_path / 'missing.safetensors'}")
    assert any("no policy file" in e for e in errors), errors


def test_policy_mode_without_a_policy_says_so_and_still_moves(engine):
    engine.send("setoption name PlayMode value policy")
    assert not engine.errors(engine.sync()), engine.dump()
    engine.send("position startpos")
    out = engine.go("go depth 2")
    assert any("needs a policy file" in l for l in out.infos), engine.dump()
    assert chess.Move.from_uci(out.bestmove()) in chess.Board().legal_moves


def test_empty_policy_clears_it(engine, tiny_policy):
    set_policy(engine, tiny_policy)
    engine.send("setoption name Policy value <empty>")
    assert not engine.errors(engine.sync()), engine.dump()
    engine.send("position startpos")
    out = engine.go("go depth 2")
    assert any("needs a policy file" in l for l in out.infos), engine.dump()


def nodes_at_depth(out, depth):
    """The node count of the `info depth N` line that ends the search."""
    lines = [l for l in out.infos if f"info depth {depth} " in l and " nodes " in l]
    assert lines, out.infos
    words = lines[-1].split()
    return int(words[words.index("nodes") + 1])


def test_a_policy_orders_the_search_in_search_mode(engine, tiny_policy):
    fen = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5"
    engine.send("setoption name EvalFile value <material>")
    assert not engine.errors(engine.sync()), engine.dump()

    def search():
        engine.send("ucinewgame")
        engine.send(f"position fen {fen}")
        out = engine.go("go depth 7", timeout=60)
        assert chess.Move.from_uci(out.bestmove()) in chess.Board(fen).legal_moves
        return nodes_at_depth(out, 7)

    plain = search()
    engine.send(f"setoption name Policy value {tiny_policy}")
    assert not engine.errors(engine.sync()), engine.dump()
    ordered = search()
    # PlayMode is still search: the policy only reorders the quiet moves of nodes of depth 5
    # and more, so the same depth is reached with a different tree, and the same again on a
    # second try.
    assert ordered != plain, engine.dump()
    assert search() == ordered, engine.dump()
    engine.send("setoption name Policy value <empty>")
    assert not engine.errors(engine.sync()), engine.dump()
    assert search() == plain, engine.dump()
