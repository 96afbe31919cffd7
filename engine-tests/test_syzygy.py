"""Syzygy through the real binary: the raw probes agree with python-chess's own Syzygy prober
on the shared 3- and 4-piece tables, and SyzygyPath changes what the engine plays."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.syzygy

from conftest import run_cli
from uci_driver import info_fields

PIECES = [chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN]


def random_positions(n: int, seed: int) -> list[chess.Board]:
    rng = random.Random(seed)
    boards = []
    while len(boards) < n:
        board = chess.Board(None)
        squares = rng.sample(chess.SQUARES, 4)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq in squares[2:2 + rng.randrange(0, 3)]:
            role = rng.choice(PIECES)
            if role == chess.PAWN and chess.square_rank(sq) in (0, 7):
                continue
            board.set_piece_at(sq, chess.Piece(role, rng.random() < 0.5))
        board.turn = rng.random() < 0.5
        if board.is_valid() and not board.is_game_over():
            boards.append(board)
    return boards


def test_probes_agree_with_python_chess(cerise_bin: Path, data_dir: Path, tmp_path: Path):
    tables = data_dir / "syzygy"
    boards = random_positions(3000, seed=30)
    fens = tmp_path / "fens.txt"
    fens.write_text("\n".join(b.fen() for b in boards) + "\n")
    done = run_cli(cerise_bin, "tb-probe", "--path", str(tables), str(fens))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(boards)
    disagree = []
    with chess.syzygy.open_tablebase(str(tables)) as tb:
        for board, line in zip(boards, lines):
            fen, wdl, dtz = [part.strip() for part in line.split(";")]
            assert fen == board.fen()
            want = (tb.probe_wdl(board), tb.probe_dtz(board))
            got = (int(wdl.split()[1]), int(dtz.split()[1]))
            if got != want:
                disagree.append((fen, got, want))
    assert not disagree, f"{len(disagree)} of {len(boards)} differ, e.g. {disagree[:5]}"


def test_syzygy_path_turns_a_draw_into_the_winning_move(engine, data_dir: Path):
    # K+P v K with the pawn's only winning plan known to the tables; every move the engine
    # considers at the root keeps the win, and tbhits is reported.
    fen = "2k5/8/2K5/2P5/8/8/8/8 w - - 0 1"
    engine.send(f"position fen {fen}")
    out = engine.go("go depth 4")
    assert all("tbhits" not in l.text for l in out.lines), "no tables, no tbhits"
    engine.send(f"setoption name SyzygyPath value {data_dir / 'syzygy'}")
    news = [l.text for l in engine.sync()]
    assert any("Syzygy: 70 table files, up to 4 pieces" in t for t in news), news
    engine.send(f"position fen {fen}")
    out = engine.go("go depth 4")
    final = [l.text for l in out.lines if l.text.startswith("info depth")][-1]
    assert int(info_fields(final)["tbhits"]) > 0, final
    board = chess.Board(fen)
    board.push_uci(out.bestmove())
    with chess.syzygy.open_tablebase(str(data_dir / "syzygy")) as tb:
        assert tb.probe_wdl(board) < 0, f"{out.bestmove()} lets the win go"
    # The root keeps only the moves that hold the win fastest: MultiPV shows them all, and
    # every one wins where some legal moves draw.
    engine.send("setoption name MultiPV value 8")
    engine.send(f"position fen {fen}")
    out = engine.go("go depth 4")
    firsts = {info_fields(l.text)["pv"].split()[0] for l in out.lines
              if "multipv" in l.text and " pv " in l.text}
    with chess.syzygy.open_tablebase(str(data_dir / "syzygy")) as tb:
        outcomes = {}
        for move in chess.Board(fen).legal_moves:
            b = chess.Board(fen)
            b.push(move)
            outcomes[move.uci()] = tb.probe_wdl(b)
    assert firsts and all(outcomes[m] < 0 for m in firsts), (firsts, outcomes)
    assert any(v >= 0 for v in outcomes.values()), "the test needs a legal move that does not win"
    engine.send("setoption name MultiPV value 1")
    # A root in the tables reports their result: K+Q v K is won (cp 25000, a sure win in
    # the WDL), K+N v K drawn, whatever the net thinks.
    engine.send("setoption name UCI_ShowWDL value true")
    for fen, score, wdl in (("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", "cp 25000", "1000 0 0"),
                            ("8/8/8/4k3/8/8/8/KQ6 b - - 0 1", "cp -25000", "0 0 1000"),
                            ("8/8/8/4k3/3n4/8/8/K7 w - - 0 1", "cp 0", "0 1000 0")):
        engine.send(f"position fen {fen}")
        out = engine.go("go depth 4")
        final = [l.text for l in out.lines if l.text.startswith("info depth")][-1]
        assert f"score {score} wdl {wdl} " in final, final
    engine.send("setoption name UCI_ShowWDL value false")
    engine.send("setoption name SyzygyPath value /no/such/dir")
    errors = engine.errors(engine.sync())
    assert errors and "not a directory" in errors[0], errors
    engine.send("setoption name SyzygyPath value <empty>")
    engine.send(f"position fen {fen}")
    out = engine.go("go depth 4")
    assert all("tbhits" not in l.text for l in out.lines), engine.dump()
