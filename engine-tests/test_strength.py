"""UCI_LimitStrength and UCI_Elo through the real binary, as a GUI's "play a weaker engine" uses them."""

from __future__ import annotations

import re

import chess

from uci_driver import info_fields

# An open middlegame: a full search of it takes far more nodes than any limited budget.
FEN = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2NBPN2/PP3PPP/R1BQK2R w KQ - 0 8"
# A budget is drawn within ×2^±0.5 of the announced one; the search may finish the node
# it is in, so a little over the top is allowed.
SPREAD = 2 ** 0.5
OVERSHOOT = 64


def final_nodes(out) -> int:
    final = [l.text for l in out.lines if l.text.startswith("info depth")][-1]
    return int(info_fields(final)["nodes"])


def announced(engine, elo: int) -> int:
    """Sets UCI_Elo and returns the node budget the engine says it plays at."""
    engine.send(f"setoption name UCI_Elo value {elo}")
    lines = engine.sync()
    news = [l.text for l in lines if "UCI_LimitStrength" in l.text]
    assert news, engine.dump()
    m = re.search(r"UCI_Elo (\d+) plays about (\d+) nodes a move", news[-1])
    assert m and int(m.group(1)) == elo, news
    return int(m.group(2))


def test_limited_strength_searches_the_announced_budget_and_varies(engine):
    engine.send(f"position fen {FEN}")
    full = final_nodes(engine.go("go depth 9"))
    engine.send("setoption name UCI_LimitStrength value true")
    low = announced(engine, 1350)
    high = announced(engine, 1800)
    assert high > 8 * low, (low, high)
    assert full > 2 * SPREAD * low, (full, low)

    engine.send(f"setoption name UCI_Elo value 1350")
    engine.sync()
    seen = []
    for _ in range(12):
        engine.send("ucinewgame")
        engine.send(f"position fen {FEN}")
        out = engine.go("go depth 30")
        assert chess.Move.from_uci(out.bestmove()) in chess.Board(FEN).legal_moves
        seen.append(final_nodes(out))
    assert all(low / SPREAD - 1 <= n <= low * SPREAD + OVERSHOOT for n in seen), (low, seen)
    assert len(set(seen)) > 1, f"every move searched the same {seen[0]} nodes"

    # A `go nodes` below the budget still wins; the clock still applies.
    engine.send(f"position fen {FEN}")
    assert final_nodes(engine.go("go nodes 200")) <= 200 + OVERSHOOT
    out = engine.go("go wtime 60000 btime 60000 winc 0 binc 0")
    assert final_nodes(out) <= low * SPREAD + OVERSHOOT, engine.dump()

    # Off again: full strength.
    engine.send("setoption name UCI_LimitStrength value false")
    assert not [l for l in engine.sync() if "UCI_LimitStrength" in l.text]
    engine.send("ucinewgame")
    engine.send(f"position fen {FEN}")
    assert final_nodes(engine.go("go depth 9")) == full


def test_limited_go_infinite_waits_for_stop(engine):
    engine.send("setoption name UCI_LimitStrength value true")
    engine.send("setoption name UCI_Elo value 1350")
    engine.send(f"position fen {FEN}")
    engine.send("go infinite")
    # The budget is spent at once, yet no bestmove may come before `stop`.
    engine.read_until(lambda t: t.startswith("info depth"), 10, "a search line")
    early = [l.text for l in engine.drain(1.0) if l.text.startswith("bestmove")]
    assert not early, engine.dump()
    engine.send("stop")
    out = engine.read_until(lambda t: t.startswith("bestmove"), 10, "bestmove after stop")
    assert chess.Move.from_uci(out[-1].text.split()[1]) in chess.Board(FEN).legal_moves


def test_elo_out_of_range_is_refused_and_kept(engine):
    engine.send("setoption name UCI_LimitStrength value true")
    before = announced(engine, 1500)
    for bad in ("1349", "1801", "strong"):
        engine.send(f"setoption name UCI_Elo value {bad}")
        errors = engine.errors(engine.sync())
        assert errors and "UCI_Elo" in errors[0] and "1350 to 1800" in errors[0], errors
    engine.send("setoption name UCI_LimitStrength value true")
    news = [l.text for l in engine.sync() if "UCI_LimitStrength" in l.text]
    assert news and f"about {before} nodes" in news[-1], news
