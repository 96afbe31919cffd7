"""UCI_Chess960 through the real binary: Shredder-FEN and X-FEN castling fields, castling
sent and received as king takes rook, and every move legal by python-chess's Chess960 rules."""

from __future__ import annotations

from pathlib import Path

import chess

from uci_driver import info_fields

from conftest import REPO, run_cli

# King on f1 with rooks on a1 and h1 (castling rights HAha): O-O is f1h1.
SHREDDER = "rbb1nk1r/Qppp1q1p/2n3p1/5p2/4pP2/P1PB4/1P1PP1PP/R1BNNK1R w HAha - 2 8"
XFEN = "rbb1nk1r/Qppp1q1p/2n3p1/5p2/4pP2/P1PB4/1P1PP1PP/R1BNNK1R w KQkq - 2 8"
# King f1, rook g1: O-O is f1g1, a king-takes-rook castle that looks like a king step.
ADJACENT = "bnrbnkrq/pppppppp/8/8/8/8/PPPPPPPP/BNRBNKRQ w GCgc - 0 1"


def board_after(fen: str, moves: list[str]) -> chess.Board:
    board = chess.Board(fen, chess960=True)
    for move in moves:
        m = chess.Move.from_uci(move)
        assert m in board.legal_moves, f"{move} is illegal in {board.fen()}"
        board.push(m)
    return board


def shown_fen(lines) -> str:
    return next(l.text for l in lines if l.text.startswith("Fen: "))[len("Fen: "):]


def test_castling_rights_in_both_notations_and_king_takes_rook(engine):
    engine.send("setoption name UCI_Chess960 value true")
    for fen in (SHREDDER, XFEN):
        engine.send(f"position fen {fen} moves f1h1")
        engine.send("d")
        lines = engine.sync()
        assert engine.errors(lines) == [], engine.dump()
        want = board_after(SHREDDER, ["f1h1"])
        assert shown_fen(lines).split()[0] == want.board_fen() == "rbb1nk1r/Qppp1q1p/2n3p1/5p2/4pP2/P1PB4/1P1PP1PP/R1BNNRK1", engine.dump()
    engine.send(f"position fen {ADJACENT} moves f1g1")
    engine.send("d")
    lines = engine.sync()
    assert shown_fen(lines).split()[0] == board_after(ADJACENT, ["f1g1"]).board_fen(), engine.dump()
    # The search plays and shows moves in Chess960 notation, every one legal.
    engine.send(f"position fen {SHREDDER}")
    out = engine.go("go depth 7")
    for line in out.lines:
        f = info_fields(line.text)
        if "pv" in f:
            board_after(SHREDDER, f["pv"].split())
    board_after(SHREDDER, [out.bestmove()])


def test_the_engine_castles_king_takes_rook_when_it_must(engine):
    # White to move, king e1, rooks a1/h1; only castling (or king moves) keeps the game:
    # searchmoves leaves just the castle, which must come back as e1h1, not e1g1.
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    engine.send("setoption name UCI_Chess960 value true")
    engine.send(f"position fen {fen}")
    out = engine.go("go depth 3 searchmoves e1h1")
    assert out.bestmove() == "e1h1", engine.dump()
    engine.send("setoption name UCI_Chess960 value false")
    engine.send(f"position fen {fen}")
    out = engine.go("go depth 3 searchmoves e1g1")
    assert out.bestmove() == "e1g1", engine.dump()


def test_chess960_perft_suite_matches_python_chess(cerise_bin: Path):
    suite = REPO / "bench" / "chess960" / "perft960.epd"
    done = run_cli(cerise_bin, "perft-suite", "--file", str(suite), "--depth", "3", "--chess960")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "32 positions, 96 depths checked, 0 mismatches" in done.stdout, done.stdout
    wrong = run_cli(cerise_bin, "perft-suite", "--file", str(suite), "--depth", "3")
    assert wrong.returncode != 0, "read as standard chess the suite must not pass"


def test_the_option_sent_after_position_still_changes_the_notation(engine):
    # Some GUIs send UCI_Chess960 after the position: the castle must then go out as e1h1.
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    engine.send(f"position fen {fen} moves a2a3 a7a6")
    engine.send("setoption name UCI_Chess960 value true")
    out = engine.go("go depth 3 searchmoves e1g1")
    assert out.bestmove() == "e1h1", engine.dump()
    engine.send("setoption name UCI_Chess960 value false")
    out = engine.go("go depth 3 searchmoves e1h1")
    assert out.bestmove() == "e1g1", engine.dump()


def shipped_net(constant: str) -> str:
    """The file stem build.rs names as `constant` (DEFAULT or DEFAULT_CHESS960)."""
    for line in (REPO / "build.rs").read_text().splitlines():
        if line.startswith(f"const {constant}: &str = "):
            return line.split('"')[1]
    raise AssertionError(f"build.rs names no {constant}")


def test_chess960_plays_its_own_net_and_standard_the_default(engine):
    default, chess960 = shipped_net("DEFAULT"), shipped_net("DEFAULT_CHESS960")
    assert default != chess960
    evaluator = lambda lines: [l.text for l in lines if l.text.startswith("info string evaluator")]
    engine.send("setoption name UCI_Chess960 value true")
    lines = engine.sync()
    assert engine.errors(lines) == [], engine.dump()
    told = evaluator(lines)
    assert len(told) == 1 and chess960 in told[0], engine.dump()
    engine.send(f"position fen {SHREDDER}")
    board_after(SHREDDER, [engine.go("go depth 5").bestmove()])
    engine.send("setoption name UCI_Chess960 value false")
    told = evaluator(engine.sync())
    assert len(told) == 1 and default in told[0], engine.dump()
    # A named evaluator is used in both kinds of game: the option then reloads nothing.
    engine.send("setoption name EvalFile value <material>")
    engine.sync()
    engine.send("setoption name UCI_Chess960 value true")
    assert evaluator(engine.sync()) == [], engine.dump()
