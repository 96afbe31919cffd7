"""MultiPV, UCI_ShowWDL and Clear Hash through the real binary, as an analysis GUI uses them."""

from __future__ import annotations

import chess

from uci_driver import assert_full_info, info_fields

START_FEN = chess.STARTING_FEN


def lines_at(out, depth: int) -> list[dict[str, str]]:
    """The exact (not bound) `multipv` lines of one depth, in the order they came."""
    found = []
    for line in out.lines:
        f = info_fields(line.text)
        if f.get("depth") == str(depth) and "multipv" in f and "bound" not in line.text:
            found.append(f)
    return found


def cp(fields: dict[str, str]) -> int:
    kind, _, value = fields["score"].partition(" ")
    assert kind == "cp", fields
    return int(value)


def test_multipv_reports_k_ranked_lines_and_plays_the_first(engine):
    engine.send("setoption name MultiPV value 3")
    engine.send(f"position fen {START_FEN}")
    out = engine.go("go depth 7")
    for depth in range(1, 8):
        lines = lines_at(out, depth)
        assert [f["multipv"] for f in lines] == ["1", "2", "3"], engine.dump()
        firsts = [f["pv"].split()[0] for f in lines]
        assert len(set(firsts)) == 3, engine.dump()
        scores = [cp(f) for f in lines]
        assert scores == sorted(scores, reverse=True), engine.dump()
        board = chess.Board(START_FEN)
        for f in lines:
            b = board.copy()
            for move in f["pv"].split():  # every line is playable
                assert chess.Move.from_uci(move) in b.legal_moves, engine.dump()
                b.push_uci(move)
    last = [l.text for l in out.lines if info_fields(l.text).get("multipv") == "1"][-1]
    assert_full_info(last)
    assert out.bestmove() == info_fields(last)["pv"].split()[0], engine.dump()


def test_multipv_with_searchmoves_threads_and_few_legal_moves(engine):
    engine.send("setoption name MultiPV value 4")
    engine.send("setoption name Threads value 2")
    engine.send(f"position fen {START_FEN}")
    out = engine.go("go depth 5 searchmoves e2e4 d2d4")
    lines = lines_at(out, 5)
    assert [f["multipv"] for f in lines] == ["1", "2"], engine.dump()
    assert {f["pv"].split()[0] for f in lines} == {"e2e4", "d2d4"}
    assert out.bestmove() in ("e2e4", "d2d4")
    # Two legal moves (Kb1 and h4): two lines, not four.
    fen = "k7/8/8/8/8/7P/2r5/K7 w - - 0 1"
    assert chess.Board(fen).legal_moves.count() == 2
    engine.send(f"position fen {fen}")
    out = engine.go("go depth 4")
    lines = lines_at(out, 4)
    assert [f["multipv"] for f in lines] == ["1", "2"], engine.dump()
    assert {f["pv"].split()[0] for f in lines} == {"a1b1", "h3h4"}


def test_multipv_go_infinite_stops_with_one_bestmove(engine):
    engine.send("setoption name MultiPV value 2")
    engine.send(f"position fen {START_FEN}")
    engine.send("go infinite")
    seen = engine.read_until(lambda t: "multipv 2" in t and " pv " in t, 20, "a second line")
    assert seen
    engine.send("stop")
    out = engine.read_until(lambda t: t.startswith("bestmove"), 10, "bestmove after stop")
    assert chess.Move.from_uci(out[-1].text.split()[1]) in chess.Board().legal_moves
    assert not [l.text for l in engine.sync() if l.text.startswith("bestmove")], engine.dump()


def test_multipv_out_of_range_is_refused_and_kept(engine):
    engine.send("setoption name MultiPV value 2")
    engine.send("setoption name MultiPV value 0")
    errors = engine.errors(engine.sync())
    assert errors and "MultiPV" in errors[0] and "1 to 256" in errors[0], errors
    engine.send(f"position fen {START_FEN}")
    out = engine.go("go depth 3")
    assert [f["multipv"] for f in lines_at(out, 3)] == ["1", "2"], engine.dump()


def nodes_of(out) -> int:
    final = [l.text for l in out.lines if l.text.startswith("info depth")][-1]
    return int(info_fields(final)["nodes"])


def test_clear_hash_makes_the_next_search_start_cold(engine):
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    engine.send(f"position fen {fen}")
    cold = nodes_of(engine.go("go depth 8"))
    warm = nodes_of(engine.go("go depth 8"))
    assert warm < cold, f"the second search should reuse the table: {warm} vs {cold}"
    engine.send("setoption name Clear Hash")
    assert engine.errors(engine.sync()) == []
    again = nodes_of(engine.go("go depth 8"))
    assert again == cold, f"after Clear Hash the search should repeat the cold one: {again} vs {cold}"


def wdl_of(text: str) -> list[int] | None:
    words = text.split()
    if "wdl" not in words:
        return None
    i = words.index("wdl")
    return [int(x) for x in words[i + 1:i + 4]]


def test_show_wdl_adds_chances_that_follow_the_score(engine):
    engine.send(f"position fen {START_FEN}")
    out = engine.go("go depth 4")
    assert all(wdl_of(l.text) is None for l in out.lines if l.text.startswith("info depth")), engine.dump()
    engine.send("setoption name UCI_ShowWDL value true")
    engine.send("setoption name MultiPV value 3")
    # White is a queen up: every line is a likely win, and better lines are likelier.
    engine.send("position fen 4k3/pppp4/8/8/8/8/PPPP4/3QK3 w - - 0 1")
    out = engine.go("go depth 6")
    infos = [l.text for l in out.lines if l.text.startswith("info depth")]
    assert infos and all(wdl_of(t) is not None for t in infos), engine.dump()
    for t in infos:
        w, d, l = wdl_of(t)
        assert w + d + l == 1000 and min(w, d, l) >= 0, t
    raw = [t for t in infos if info_fields(t).get("depth") == "6" and "multipv" in t and "bound" not in t]
    chances = [wdl_of(t)[0] for t in raw]
    assert chances[0] > 800 and chances == sorted(chances, reverse=True), raw
    # A mate found is a certain win.
    engine.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    engine.send("setoption name MultiPV value 1")
    out = engine.go("go depth 3")
    final = [l.text for l in out.lines if l.text.startswith("info depth")][-1]
    assert "score mate 1" in final and wdl_of(final) == [1000, 0, 0], engine.dump()
