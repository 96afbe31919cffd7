"""Bad input: each case must give `info string error: ...` where it is an error, never crash
the engine, and never change the position it had before."""

from __future__ import annotations

import re
import time

import chess
import pytest

from uci_driver import is_bestmove

# The position set before every bad command: Black to move, so a reset to the start position
# (White to move) or a half-applied move list would give a bestmove of the wrong colour.
BEFORE_MOVES = ["e2e4"]
BEFORE = chess.Board()
for _m in BEFORE_MOVES:
    BEFORE.push_uci(_m)
FEN_IN_TEXT = re.compile(r"([pnbrqkPNBRQK1-8]+(?:/[pnbrqkPNBRQK1-8]+){7} [wb] [KQkq-]+ (?:[a-h][36]|-))")


def set_before(engine):
    engine.send("position startpos moves " + " ".join(BEFORE_MOVES))
    engine.sync()


def assert_still_sound(engine):
    """The engine answers isready, still has the old position, and plays a legal move in it."""
    engine.sync()
    engine.send("d")
    shown = " ".join(l.text for l in engine.sync())
    fens = FEN_IN_TEXT.findall(shown)
    if fens:  # `d` output is free-form; when it shows a FEN, that FEN must be the old position
        assert fens[-1] == " ".join(BEFORE.fen().split()[:4]), f"position changed\n{engine.dump()}"
    out = engine.go("go depth 2", timeout=30)
    move = chess.Move.from_uci(out.bestmove())
    assert move in BEFORE.legal_moves, f"bestmove {move} is not legal in {BEFORE.fen()}\n{engine.dump()}"


def send_bad(engine, command, expect_error=True):
    set_before(engine)
    engine.send(command)
    lines = engine.sync()
    errors = engine.errors(lines)
    if expect_error:
        assert errors, f"no 'info string error' for {command!r:.80}\n{engine.dump()}"
        assert all(len(e) < 1000 for e in errors), "error line echoes the whole input"
    assert not any(is_bestmove(l.text) for l in lines), engine.dump()
    assert_still_sound(engine)
    return errors


@pytest.mark.parametrize(
    "fen",
    [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",  # seven ranks
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",  # unknown piece
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",  # rank of nine squares
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",  # side to move
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1",  # en passant square
        "8/8/8/8/8/8/8/8 w - - 0 1",  # no kings
        "",
    ],
)
def test_malformed_fen(engine, fen):
    send_bad(engine, f"position fen {fen}".rstrip())


def test_fen_with_side_not_to_move_in_check(engine):
    # Black to move while White's king stands in check: no legal game reaches it.
    send_bad(engine, "position fen 4k3/4r3/8/8/8/8/8/4K3 b - - 0 1")


def test_illegal_move_in_list_leaves_old_position(engine):
    send_bad(engine, "position startpos moves e2e4 e7e5 e1e3")


@pytest.mark.parametrize("moves", ["e2e4 zz", "e2e4 e7e5 e9e1", "e2e4 e7", "e2e4 \u00e9\u00e9\u00e9\u00e9", "e2e4 e7e8q"])
def test_garbage_move_tokens(engine, moves):
    send_bad(engine, f"position startpos moves {moves}")


def test_go_depth_300_is_clamped_and_stoppable(engine):
    set_before(engine)
    engine.send("go depth 300")
    time.sleep(0.5)
    engine.send("stop")
    lines = engine.read_until(is_bestmove, 3.0, "bestmove after stop of go depth 300")
    lines += engine.sync()
    best = [l.text for l in lines if is_bestmove(l.text)]
    assert len(best) == 1, engine.dump()
    assert chess.Move.from_uci(best[0].split()[1]) in BEFORE.legal_moves
    assert_still_sound(engine)


@pytest.mark.parametrize("go", ["go movestogo 300", "go wtime -5", "go wtime -5 btime -5",
                                "go depth -1", "go nodes abc", "go movetime", "go wtime 1000 frobnicate 3"])
def test_odd_go_commands(engine, go):
    """Either rejected with an error (and no search) or played with exactly one legal move."""
    set_before(engine)
    engine.send(go)
    lines = engine.drain(quiet=1.0)
    engine.send("stop")
    if any(l.text.startswith("info depth") for l in lines) and not any(is_bestmove(l.text) for l in lines):
        # A search is running (searching without a clock is fair): stop must end it.
        lines += engine.read_until(is_bestmove, 2.0, f"bestmove after stop of {go!r}")
    lines += engine.sync()
    best = [l.text for l in lines if is_bestmove(l.text)]
    errors = engine.errors(lines)
    assert len(best) <= 1, engine.dump()
    assert best or errors, f"{go!r}: neither a bestmove nor an error\n{engine.dump()}"
    if best:
        assert chess.Move.from_uci(best[0].split()[1]) in BEFORE.legal_moves, engine.dump()
    assert_still_sound(engine)


@pytest.mark.parametrize("command", ["foobar", "go2", "position", "position middlegame", "setoption",
                                     "setoption value 3", "register later please"])
def test_unknown_or_incomplete_commands(engine, command):
    send_bad(engine, command, expect_error=command != "register later please")


def test_empty_and_blank_lines(engine):
    set_before(engine)
    for line in ["", "   ", "\t", "\r"]:
        engine.send(line)
    assert_still_sound(engine)


@pytest.mark.parametrize(
    "raw",
    [b"\x00\x01\x02", b"\xff\xfe\xfd invalid utf-8 \xc3\x28", b"position startpos moves e2e4 e7\x00e5",
     b"go \x80\x81", b"\x1b[2J\x07"],
)
def test_binary_garbage(engine, raw):
    set_before(engine)
    engine.send(raw)
    assert_still_sound(engine)


def test_two_megabyte_line(engine):
    set_before(engine)
    engine.send("x" * (2 << 20))
    engine.sync(timeout=20)
    engine.send("position startpos moves " + "e2e4 e7e5 " * 100_000)  # 1 MB of repeated, illegal moves
    engine.sync(timeout=20)
    assert_still_sound(engine)


@pytest.mark.parametrize(
    "command",
    [
        "setoption name Hash value abc",
        "setoption name Hash value -1",
        "setoption name Threads value 0",
        "setoption name Nonexistent value 1",
        "setoption name Move Overhead",
        "setoption name Device value tpu",
        "setoption name Ponder value maybe",
        "setoption name Backend value onnx",
    ],
)
def test_bad_setoption(engine, command):
    send_bad(engine, command)


def test_missing_evalfile_is_an_error_and_engine_keeps_working(engine):
    send_bad(engine, "setoption name EvalFile value /nonexistent.safetensors")


def test_corrupt_evalfile_is_an_error(engine, tmp_path):
    bogus = tmp_path / "bogus.safetensors"
    bogus.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}garbage")
    send_bad(engine, f"setoption name EvalFile value {bogus}")


def test_cnn_on_the_native_backend_is_an_error(engine, fresh_cnn):
    engine.send("setoption name Backend value native")
    engine.sync()
    errors = send_bad(engine, f"setoption name EvalFile value {fresh_cnn}")
    assert any("only mlp" in e and "Backend torch" in e for e in errors), errors


def test_cnn_whose_layers_do_not_match_its_weights_is_refused(engine, fresh_cnn, tmp_path):
    data = fresh_cnn.read_bytes()
    # Same length, so the header stays valid: the metadata now claims 71 hidden units.
    assert data.count(b"fc=70") == 1
    bad = tmp_path / "bad-cnn.safetensors"
    bad.write_bytes(data.replace(b"fc=70", b"fc=71"))
    errors = send_bad(engine, f"setoption name EvalFile value {bad}")
    assert any("fc1" in e for e in errors), errors


def test_rbf_that_needs_search_inputs_is_refused(engine, tiny_rbf_with_search_inputs):
    errors = send_bad(engine, f"setoption name EvalFile value {tiny_rbf_with_search_inputs}")
    assert any("scenario 3" in e and "d2, d4, d8" in e for e in errors), errors


def test_good_setoptions_are_silent(engine):
    set_before(engine)
    for cmd in ["setoption name Hash value 32", "setoption name Threads value 2",
                "setoption name Move Overhead value 50", "setoption name EvalFile value <fake>",
                "setoption name EvalFile value <material>", "setoption name Device value cpu",
                "setoption name Ponder value true", "setoption name Backend value torch"]:
        engine.send(cmd)
        lines = engine.sync()
        assert not engine.errors(lines), f"{cmd!r} was reported as an error\n{engine.dump()}"
    assert_still_sound(engine)
