#!/usr/bin/env python3
"""A small match runner for UCI engines, built on python-chess.

    python bench/match.py --engine1 target/release/cerise --opt1 EvalFile=<material> \\
        --engine2 sunfish-uci --games 20 --tc 10+0.1 --openings bench/openings.epd \\
        --out bench/results/material-vs-sunfish.pgn

Each opening is played twice, once with each engine as White. The runner keeps the clocks
itself (wall time from sending `go` to receiving `bestmove`), so a slow engine loses on time
even if it believes otherwise. Illegal moves, time losses and crashes lose the game and are
counted; a crashed engine is restarted for the next game. Prints one line per game and a
summary with the Elo difference and its 95% error margin; writes every game to the PGN.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine
import chess.pgn

# How long past its clock an engine may go unanswered before it is killed: it has lost on
# time already, this only bounds how long the runner waits for a hung process.
HUNG_GRACE_S = 5.0
# With --depth there is no clock; a move that takes this long is taken to be a hang.
FIXED_DEPTH_HANG_S = 300.0


@dataclass
class TimeControl:
    base: float
    inc: float

    @classmethod
    def parse(cls, text: str) -> "TimeControl":
        base, _, inc = text.partition("+")
        try:
            tc = cls(float(base), float(inc or 0))
        except ValueError:
            raise argparse.ArgumentTypeError(f"time control {text!r}: expected SECONDS+INC, e.g. 10+0.1") from None
        if tc.base <= 0 or tc.inc < 0:
            raise argparse.ArgumentTypeError(f"time control {text!r}: base must be > 0 and increment >= 0")
        return tc

    def pgn(self) -> str:
        return f"{self.base:g}+{self.inc:g}"


@dataclass
class Stats:
    illegal: int = 0
    time_losses: int = 0
    crashes: int = 0


class Player:
    """One engine, started on demand and restarted after a crash."""

    def __init__(self, command: str, options: dict[str, str], name: str | None = None):
        self.argv = shlex.split(command)
        self.options = options
        self.name = name or Path(self.argv[0]).name
        self.engine: chess.engine.SimpleEngine | None = None
        self.stats = Stats()

    def start(self) -> chess.engine.SimpleEngine:
        if self.engine is None:
            # Generous: a Python engine or a libtorch load can take seconds to say uciok.
            self.engine = chess.engine.SimpleEngine.popen_uci(self.argv, timeout=60, stderr=subprocess.DEVNULL)
            if self.options:
                self.engine.configure(self.options)
        return self.engine

    def new_game(self) -> None:
        # python-chess sends ucinewgame itself when play() gets a new `game` key.
        self.start().ping()

    def discard(self) -> None:
        """Drops a dead or misbehaving engine; the next game starts a fresh one."""
        if self.engine is not None:
            try:
                self.engine.close()
            except Exception:
                pid = self.pid()
                if pid:
                    kill(pid)
            self.engine = None

    def pid(self) -> int | None:
        try:
            return self.engine.transport.get_pid() if self.engine else None
        except Exception:
            return None

    def quit(self) -> None:
        if self.engine is not None:
            try:
                self.engine.quit()
            except Exception:
                self.discard()
            self.engine = None


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@dataclass
class GameResult:
    result: str  # "1-0", "0-1", "1/2-1/2"
    termination: str
    game: chess.pgn.Game
    # Per move of each colour: (seconds used, clock left after the move, before the increment).
    clocks: dict[bool, list[tuple[float, float]]] = field(default_factory=lambda: {chess.WHITE: [], chess.BLACK: []})


def loss_for(color: chess.Color) -> str:
    return "0-1" if color == chess.WHITE else "1-0"


def play_game(white: Player, black: Player, fen: str, tc: TimeControl, max_plies: int = 300,
              event: str = "Cerise match", round_: str = "1", depth: int | None = None) -> GameResult:
    board = chess.Board(fen)
    players = {chess.WHITE: white, chess.BLACK: black}
    clock = {chess.WHITE: tc.base, chess.BLACK: tc.base}
    used: dict[bool, list[tuple[float, float]]] = {chess.WHITE: [], chess.BLACK: []}
    result, termination = None, "normal"

    for p in (white, black):
        try:
            p.new_game()
        except Exception as e:  # could not even start: counts as a crash of that engine
            p.stats.crashes += 1
            p.discard()
            side = chess.WHITE if p is white else chess.BLACK
            result, termination = loss_for(side), f"{p.name} failed to start: {e}"
            break

    plies = 0
    while result is None:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, termination = outcome.result(), outcome.termination.name.lower()
            break
        if plies >= max_plies:
            result, termination = "1/2-1/2", f"adjudicated draw after {max_plies} plies"
            break
        side = board.turn
        p = players[side]
        if depth is not None:
            limit = chess.engine.Limit(depth=depth)
        else:
            limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                       white_inc=tc.inc, black_inc=tc.inc)
        eng = p.engine
        pid = p.pid()
        killed = threading.Event()

        def on_hang(pid=pid, killed=killed):
            killed.set()
            if pid:
                kill(pid)

        budget = FIXED_DEPTH_HANG_S if depth is not None else max(clock[side], 0) + HUNG_GRACE_S
        watchdog = threading.Timer(budget, on_hang)
        watchdog.daemon = True
        t0 = time.monotonic()
        watchdog.start()
        try:
            played = eng.play(board, limit, game=event + round_)
            move = played.move
            error = None
        except chess.engine.EngineTerminatedError as e:
            move, error = None, ("hung" if killed.is_set() else "crash", e)
        except chess.engine.EngineError as e:  # python-chess rejects an illegal bestmove
            move, error = None, ("illegal", e)
        finally:
            watchdog.cancel()
        elapsed = time.monotonic() - t0
        clock[side] -= elapsed
        used[side].append((elapsed, clock[side]))

        if error is None and (move is None or move not in board.legal_moves):
            error = ("illegal", f"bestmove {move} is not legal in {board.fen()}")
        if error is not None:
            kind, detail = error
            if kind == "illegal":
                p.stats.illegal += 1
                termination = f"{p.name} played an illegal move ({detail})"
                p.discard()  # its state may no longer match ours
            elif kind == "hung":
                p.stats.time_losses += 1
                termination = f"{p.name} hung and was killed after {elapsed:.1f}s"
                p.discard()
            else:
                p.stats.crashes += 1
                termination = f"{p.name} crashed ({detail})"
                p.discard()
            result = loss_for(side)
            break
        if depth is None and clock[side] < 0:
            p.stats.time_losses += 1
            board.push(move)  # the move stands in the PGN, the flag fell while making it
            opponent_can_mate = not board.has_insufficient_material(not side)
            result = loss_for(side) if opponent_can_mate else "1/2-1/2"
            termination = f"{p.name} lost on time ({clock[side]:.3f}s)"
            break
        board.push(move)
        clock[side] += tc.inc
        plies += 1

    game = chess.pgn.Game.from_board(board)
    game.headers.update({
        "Event": event, "Site": os.uname().nodename, "Date": datetime.date.today().strftime("%Y.%m.%d"),
        "Round": round_, "White": white.name, "Black": black.name, "Result": result,
        # "-" is PGN's word for "no clock", which is what a fixed-depth game has.
        "TimeControl": "-" if depth is not None else tc.pgn(), "Termination": termination,
    })
    return GameResult(result, termination, game, used)


def elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def elo_with_margin(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """Elo difference and its 95% margin, from the per-game score variance."""
    n = wins + draws + losses
    if n == 0:
        return 0.0, math.inf
    p = (wins + 0.5 * draws) / n
    var = (wins * (1 - p) ** 2 + draws * (0.5 - p) ** 2 + losses * p**2) / n
    margin = 1.96 * math.sqrt(var / n)
    lo, hi = elo(p - margin), elo(p + margin)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return elo(p), math.inf  # a clean sweep bounds nothing
    return elo(p), (hi - lo) / 2


def read_openings(path: Path) -> list[str]:
    fens = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(";")[0].split()
        fen = " ".join(fields[:4]) + (" " + " ".join(fields[4:6]) if len(fields) >= 6 and fields[4].isdigit() else " 0 1")
        try:
            chess.Board(fen)
        except ValueError as e:
            raise SystemExit(f"{path}:{n}: not a position: {e}") from None
        fens.append(fen)
    if not fens:
        raise SystemExit(f"{path}: no positions")
    return fens


def parse_options(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise SystemExit(f"option {pair!r}: expected NAME=VALUE, e.g. EvalFile=<material>")
        out[name] = value
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine1", required=True, help="command line of the first engine")
    ap.add_argument("--engine2", required=True, help="command line of the second engine")
    ap.add_argument("--name1")
    ap.add_argument("--name2")
    ap.add_argument("--opt1", action="append", default=[], metavar="NAME=VALUE", help="UCI option for engine 1")
    ap.add_argument("--opt2", action="append", default=[], metavar="NAME=VALUE", help="UCI option for engine 2")
    ap.add_argument("--games", type=int, default=20, help="number of games (rounded up to even)")
    ap.add_argument("--tc", type=TimeControl.parse, default=TimeControl(10, 0.1), help="SECONDS+INC, default 10+0.1")
    ap.add_argument("--depth", type=int, help="fixed search depth per move instead of a clock (--tc is then ignored)")
    ap.add_argument("--openings", type=Path, default=Path(__file__).parent / "openings.epd")
    ap.add_argument("--max-plies", type=int, default=300, help="adjudicate a draw after this many plies")
    ap.add_argument("--out", type=Path, help="PGN file to write (appended game by game)")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    if args.depth is not None and args.depth < 1:
        ap.error("--depth must be at least 1")

    openings = read_openings(args.openings)
    p1 = Player(args.engine1, parse_options(args.opt1), args.name1)
    p2 = Player(args.engine2, parse_options(args.opt2), args.name2)
    if p1.name == p2.name:
        p1.name, p2.name = p1.name + "-1", p2.name + "-2"
    games = args.games + args.games % 2
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("")

    w = d = l = 0
    t_start = time.monotonic()
    try:
        for g in range(games):
            fen = openings[(g // 2) % len(openings)]
            white, black = (p1, p2) if g % 2 == 0 else (p2, p1)
            r = play_game(white, black, fen, args.tc, args.max_plies,
                          event=f"{p1.name} vs {p2.name}", round_=str(g + 1), depth=args.depth)
            if r.result == "1/2-1/2":
                d += 1
            elif (r.result == "1-0") == (white is p1):
                w += 1
            else:
                l += 1
            if args.out:
                with args.out.open("a") as f:
                    print(r.game, file=f, end="\n\n")
            print(f"game {g + 1:>3}/{games}: {white.name} - {black.name} {r.result:<7} ({r.termination})"
                  f"  | {p1.name}: +{w} ={d} -{l}", flush=True)
    except KeyboardInterrupt:
        print("interrupted; summary of the games played so far:")
    finally:
        p1.quit()
        p2.quit()

    n = w + d + l
    e, margin = elo_with_margin(w, d, l)
    control = f"depth {args.depth}" if args.depth is not None else args.tc.pgn()
    print(f"\n{p1.name} vs {p2.name}, {n} games at {control} in {time.monotonic() - t_start:.0f}s")
    print(f"score {p1.name}: W {w} / D {d} / L {l}  = {100 * (w + d / 2) / max(n, 1):.1f}%")
    print(f"elo difference: {e:+.1f} +/- {margin:.1f} (95%)")
    for p in (p1, p2):
        s = p.stats
        print(f"{p.name}: illegal moves {s.illegal}, time losses {s.time_losses}, crashes {s.crashes}")
    if args.out:
        print(f"games written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
