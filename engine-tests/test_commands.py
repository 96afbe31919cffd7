"""Shutdown on EOF, `bench` in both forms, and the `eval` / `d` debugging commands."""

from __future__ import annotations

import re
import subprocess
import time

import chess

from conftest import run_cli
from uci_driver import BENCH_LINE


def wait_exit(eng, seconds: float) -> int:
    try:
        return eng.proc.wait(seconds)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"engine still running {seconds}s after EOF on stdin\n{eng.dump()}") from None


def test_eof_when_idle_exits_zero(start_engine):
    eng = start_engine()
    eng.handshake()
    eng.sync()
    t0 = time.monotonic()
    eng.close_stdin()
    assert wait_exit(eng, 2.0) == 0
    assert time.monotonic() - t0 < 2.0


def test_eof_during_search_exits_zero(start_engine):
    eng = start_engine()
    eng.handshake()
    eng.send("position startpos")
    eng.send("go infinite")
    time.sleep(0.5)
    eng.close_stdin()
    assert wait_exit(eng, 2.0) == 0


def test_eof_without_handshake_exits_zero(start_engine):
    eng = start_engine()
    eng.close_stdin()
    assert wait_exit(eng, 2.0) == 0


def test_quit_during_search_exits_zero(start_engine):
    eng = start_engine()
    eng.handshake()
    eng.send("go infinite")
    time.sleep(0.3)
    eng.send("quit")
    assert wait_exit(eng, 2.0) == 0


def test_uci_bench(engine):
    engine.send("bench 3")
    lines = engine.read_until(lambda t: bool(BENCH_LINE.match(t)), 120, "'N nodes M nps' after bench 3")
    nodes = int(lines[-1].text.split()[0])
    assert nodes > 0, engine.dump()
    header = lines[0].text
    assert header.startswith("info string bench with evaluator net ") and ", backend " in header, engine.dump()
    assert " backend=" in lines[-2].text, engine.dump()
    engine.sync()  # still responsive afterwards


def cli_bench(cerise_bin, *args) -> tuple[int, subprocess.CompletedProcess]:
    """The node count, and the whole run."""
    r = run_cli(cerise_bin, "bench", *args, timeout=300)
    assert r.returncode == 0, f"bench {' '.join(args)} failed ({r.returncode}):\n{r.stderr[-3000:]}"
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    assert BENCH_LINE.match(last), f"last stdout line of bench is {last!r}, want 'N nodes M nps'"
    return int(last.split()[0]), r


def test_cli_bench_is_deterministic(cerise_bin):
    first, r = cli_bench(cerise_bin, "4")
    assert first > 0
    # The header (stderr) and the bench-stats line name the backend running the net.
    assert r.stderr.startswith("bench with evaluator net ") and ", backend " in r.stderr.splitlines()[0], r.stderr
    stats = r.stdout.splitlines()[-2]
    assert " backend=" in stats, r.stdout
    # The share of scored nodes the search entered: some, not all (leaves are scored unentered).
    searched = float(stats.split(" searched=")[1].split()[0])
    assert 0.0 < searched < 1.0, stats
    assert cli_bench(cerise_bin, "4")[0] == first, "bench 4 node count differs between two runs"


def test_cli_bench_with_fake_eval(cerise_bin):
    nodes, r = cli_bench(cerise_bin, "2", "1", "--eval", "fake", "--backend", "torch")
    assert nodes > 0
    assert "backend" not in r.stderr.splitlines()[0] + r.stdout, "a built-in evaluator has no backend"


def test_cli_bench_rejects_an_unknown_backend(cerise_bin):
    r = run_cli(cerise_bin, "bench", "1", "--backend", "onnx")
    assert r.returncode != 0 and "onnx" in r.stderr and "panicked" not in r.stderr, r.stderr


def test_cli_bench_with_missing_net_fails_cleanly(cerise_bin, tmp_path):
    r = run_cli(cerise_bin, "bench", "2", "1", "--eval", str(tmp_path / "nope.safetensors"))
    assert r.returncode != 0
    assert "nope.safetensors" in r.stderr, f"error does not name the file: {r.stderr!r}"
    assert "panicked" not in r.stderr, r.stderr


def test_unknown_subcommand_fails_cleanly(cerise_bin):
    r = run_cli(cerise_bin, "frobnicate")
    assert r.returncode != 0 and "panicked" not in r.stderr, r.stderr


def test_d_shows_the_position(engine):
    engine.send("position startpos moves e2e4 c7c5 g1f3")
    engine.send("d")
    shown = "\n".join(l.text for l in engine.sync())
    board = chess.Board()
    for m in ("e2e4", "c7c5", "g1f3"):
        board.push_uci(m)
    assert board.fen() in shown, f"`d` does not show {board.fen()}\n{engine.dump()}"


SCORE_LINE = re.compile(r"^score: ([+-]\d+\.\d\d) cp \(side to move\), ([+-]\d+\.\d\d) cp \(white\)$")


def eval_scores(engine, fen: str) -> tuple[float, float]:
    """`eval`'s score from the side to move and from White, read from its `score:` line."""
    engine.send(f"position fen {fen}")
    engine.send("eval")
    got = engine.sync()
    assert not engine.errors(got), engine.dump()
    lines = [l.text for l in got]
    assert lines and lines[0].startswith("evaluator net ") and ", backend " in lines[0], engine.dump()
    matches = [m for m in map(SCORE_LINE.match, lines) if m]
    assert len(matches) == 1, f"want one 'score: X cp (side to move), Y cp (white)' line\n{engine.dump()}"
    side, white = float(matches[0][1]), float(matches[0][2])
    black_to_move = fen.split()[1] == "b"
    assert white == (-side if black_to_move else side), matches[0][0]
    return side, white


def test_eval_prints_a_score(engine):
    start, _ = eval_scores(engine, chess.STARTING_FEN)
    assert -150 <= start <= 150, f"start position scored {start} cp\n{engine.dump()}"
    # White a queen up (Black's queen removed), either side to move.
    up, _ = eval_scores(engine, "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert up >= start + 400, f"a queen up scored {up} cp, the start {start} cp\n{engine.dump()}"
    down, white = eval_scores(engine, "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1")
    assert down <= -400 and white >= 400, f"a queen down scored {down} cp\n{engine.dump()}"


def test_net_init_writes_a_loadable_net(engine, small_net):
    engine.send(f"setoption name EvalFile value {small_net}")
    lines = engine.sync(timeout=30)
    assert not engine.errors(lines), engine.dump()
    engine.send("position startpos")
    out = engine.go("go depth 2", timeout=60)
    assert chess.Move.from_uci(out.bestmove()) in chess.Board().legal_moves, engine.dump()


def test_default_evaluator_is_the_embedded_net(start_engine):
    """With no options set the engine uses the trained net compiled into it and says so."""
    eng = start_engine()
    lines = eng.handshake()
    declared = [l.text for l in lines if l.text.startswith("option name EvalFile")]
    assert declared and declared[0].endswith("default <embedded>"), eng.dump()
    named = [l.text for l in lines if l.text.startswith("info string evaluator net cerise-")]
    assert named, f"no 'info string evaluator net cerise-...' after uci\n{eng.dump()}"
    assert not eng.errors(lines), eng.dump()
    # Black to move without a queen: the net must see it is lost, from both points of view.
    eng.send("position fen rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1")
    eng.send("eval")
    shown = [l.text for l in eng.sync() if l.text.startswith("score:")]
    assert shown, eng.dump()
    side, white = (float(part.split()[0]) for part in shown[-1][len("score:"):].split(","))
    assert side < -500 and white > 500, f"queen-down eval {shown[-1]!r}\n{eng.dump()}"
    eng.send("position startpos moves e2e4")
    out = eng.go("go depth 3", timeout=60)
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(out.bestmove()) in board.legal_moves, eng.dump()


def test_output_into_a_closed_pipe_ends_quietly(cerise_bin):
    # `cerise perft 4 | true`: the reader is gone before the first line is written; the
    # engine must stop without a panic message.
    proc = subprocess.Popen([str(cerise_bin), "perft", "4"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    proc.stdout.close()
    rc = proc.wait(timeout=120)
    err = proc.stderr.read().decode()
    assert "panicked" not in err, err
    assert rc == 0, f"exit status {rc}: {err}"
