#!/usr/bin/env python3
"""A match runner for UCI engines, built on python-chess, with pentanomial statistics and SPRT.

    python bench/match.py --engine1 target/release/cerise --opt1 EvalFile=<material> \\
        --engine2 sunfish-uci --games 20 --tc 10+0.1 --openings bench/openings.epd \\
        --out bench/results/material-vs-sunfish.pgn

    # Decide a change: stop as soon as the test accepts H0 (elo <= 0) or H1 (elo >= 5);
    # --games is then only the maximum.
    python bench/match.py --engine1 cerise-new --engine2 cerise-old --tc 10+0.1 \\
        --sprt 0 5 0.05 0.05 --concurrency 2 --out bench/results/new-vs-old.pgn

Games are played in pairs: each opening twice, with colours reversed. A pair scores 0, 0.5, 1,
1.5 or 2 points for engine 1 (LL, LD, DD or WL, WD, WW), and these pentanomial counts give the
Elo error bar and the SPRT, because the two games of a pair share the opening's bias. Openings
come from an EPD file (one position a line), a PGN file (the moves of each game are the
line; --book-plies cuts them short) or a Polyglot .bin book (a random line of --book-plies
weighted book moves per pair, drawn from --seed, so a run can be repeated). Lines are used in
file order and cycle when the match is longer than the file. --variant chess960 plays Chess960
(python-chess sets UCI_Chess960 on both engines and sends castling as king takes rook): from
the positions of --openings read as Chess960 (Shredder-FEN or X-FEN castling), or by default
from one of the 960 starting arrays per pair, drawn from --seed; the PGN says Variant
"Chess960".

A match stopped part-way (Ctrl-C, kill, a lost session) goes on with the same command plus
--resume: the games already in --out are counted, an unfinished pair is cut from it, and play
continues with the next pair and its opening, so the result is the one an uninterrupted match
would have given. --resume also extends a finished match: raise --games.

A game ends as cutechess-cli and fastchess end it: checkmate, stalemate, insufficient material,
a position that has occurred three times, or 100 plies without a capture or pawn move. A draw
that a player could only claim (a move that would make the third occurrence or the hundredth
ply) does not end the game: the engine to move may play something else, and often does. No game
is adjudicated unless asked: --resign, --draw and --max-plies are opt-in, as cutechess-cli's
-resign, -draw and -maxmoves, and the summary names them (adjudication=off when none is set).

The runner keeps the clocks itself (wall time from sending `go` to receiving `bestmove`), so a
slow engine loses on time even if it believes otherwise. Illegal moves, time losses and crashes
lose the game and are counted; a crashed engine is restarted for the next game. With
--concurrency N, N games run at once, each with its own two engine processes; results are
still reported, written to the PGN and counted in the order of the games, not of their
finish, so the counts do not depend on N. In the PGN the opening's moves are commented
{book} and each engine move as cutechess-cli comments it, {+0.35/12 0.412s}: the mover's
score in pawns (+M5 for a mate in 5), the depth, and the seconds it took by the runner's
clock. The report gives each engine's mean seconds a move and mean clock left at the end.

--sprt ELO0 ELO1 ALPHA BETA runs the generalized SPRT of fishtest and fastchess on the
pentanomial counts, after every completed pair: the log-likelihood ratio of the maximum
likelihood pair distributions under H1 (elo = ELO1) and H0 (elo = ELO0). The bounds are in
normalized Elo by default (--sprt-model normalized, as fastchess's default and fishtest), or in
logistic Elo (--sprt-model logistic). The match stops when the LLR reaches
log((1-BETA)/ALPHA) (H1 accepted) or log(BETA/(1-ALPHA)) (H0 accepted); games still running
then are abandoned and not counted.

The last line of output is machine-readable, for instance:

    summary: games=40 W=12 D=20 L=8 score=55.0% elo=+34.9 err=61.2 pentanomial=[1,4,8,5,2]
    llr=0.41 bounds=-2.94,2.94 result=inconclusive illegal=0,0 timeloss=0,1 crash=0,0
    adjudication=off adjudicated=0

(one line; llr, bounds and result only with --sprt; the pentanomial counts are LL, LD, DD+WL,
WD, WW from engine 1's view; illegal, timeloss and crash are engine 1's and engine 2's counts;
err is the 95% margin, from the pentanomial variance, or the per-game one when no pair is
complete; adjudication names the rules in force, adjudicated counts the games they ended). cutechess-cli and fastchess are not used: this runner has to work wherever
python-chess does, in CI included.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import queue
import random
import shlex
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

import chess
import chess.engine
import chess.pgn
import chess.polyglot

# How long past its clock an engine may go unanswered before it is killed: it has lost on
# time already, this only bounds how long the runner waits for a hung process.
HUNG_GRACE_S = 5.0
# With --depth there is no clock; a move that takes this long is taken to be a hang.
FIXED_DEPTH_HANG_S = 300.0
# Plies of a Polyglot book line when --book-plies is not given.
DEFAULT_BOOK_PLIES = 8
# The misbehaviours a game can end with, as counted per engine.
FAULTS = ("illegal", "timeloss", "crash")


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


@dataclass(frozen=True)
class Opening:
    """Where a game starts: a position, and book moves (UCI) played from it."""

    fen: str = chess.STARTING_FEN
    moves: tuple[str, ...] = ()
    # A Chess960 position: castling is king takes rook, and the engines get UCI_Chess960.
    chess960: bool = False

    def board(self) -> chess.Board:
        board = chess.Board(self.fen, chess960=self.chess960)
        for uci in self.moves:
            board.push_uci(uci)
        return board


@dataclass
class GameResult:
    result: str  # "1-0", "0-1", "1/2-1/2", or "*" for a game abandoned by the runner
    termination: str
    game: chess.pgn.Game
    # Per move of each colour: (seconds used, clock left after the move, before the increment).
    clocks: dict[bool, list[tuple[float, float]]] = field(default_factory=lambda: {chess.WHITE: [], chess.BLACK: []})
    # The side that lost by misbehaving, and how (one of FAULTS); None for a game played out.
    fault: tuple[chess.Color, str] | None = None
    # Whether an opt-in adjudication rule (not the rules of chess, not a fault) ended it.
    adjudicated: bool = False


def loss_for(color: chess.Color) -> str:
    return "0-1" if color == chess.WHITE else "1-0"


def game_over(board: chess.Board) -> tuple[str, str] | None:
    """The result and termination of a game the rules have ended, or None while it goes on.

    As cutechess-cli and fastchess: a draw by repetition or by the fifty-move rule is a position
    that has occurred a third time, or a 100th ply without a capture or pawn move, not one that
    the side to move could claim by its next move. python-chess's outcome(claim_draw=True) is
    the latter, and ended games that the engine to move would have played on."""
    # Checkmate first, so that a mate given on the 100th ply is a mate; then stalemate,
    # insufficient material, and the automatic 75-move and fivefold rules (reached only from a
    # FEN that starts past them).
    outcome = board.outcome(claim_draw=False)
    if outcome is not None:
        return outcome.result(), outcome.termination.name.lower()
    if board.is_repetition(3):
        return "1/2-1/2", "threefold_repetition"
    if board.halfmove_clock >= 100:
        return "1/2-1/2", "fifty_moves"
    return None


# An engine's mate score, in centipawns, for adjudication: beyond any resign bound.
MATE_CP = 100_000


@dataclass
class Adjudication:
    """Opt-in rules that end a game before the rules of chess do, as cutechess-cli's.

    resign (COUNT, SCORE): a side whose own score is SCORE centipawns or more below zero on COUNT
    of its moves in a row loses. draw (NUMBER, COUNT, SCORE): after NUMBER full moves, a game in
    which both engines' scores stayed within SCORE of zero for COUNT moves each in a row is
    drawn. max_plies: a game still going after that many engine plies is drawn. A move without a
    score (an engine that sends none) breaks every run."""

    resign: tuple[int, int] | None = None
    draw: tuple[int, int, int] | None = None
    max_plies: int | None = None

    def off(self) -> bool:
        return self.resign is None and self.draw is None and self.max_plies is None

    def describe(self) -> str:
        """The rules in force, as one summary token."""
        if self.off():
            return "off"
        parts = []
        if self.resign is not None:
            parts.append("resign({},{})".format(*self.resign))
        if self.draw is not None:
            parts.append("draw({},{},{})".format(*self.draw))
        if self.max_plies is not None:
            parts.append(f"maxplies({self.max_plies})")
        return "+".join(parts)


class Adjudicator:
    """The adjudication state of one game, fed the score of each engine move from the mover's view."""

    def __init__(self, rules: Adjudication):
        self.rules = rules
        self.resign_run = {chess.WHITE: 0, chess.BLACK: 0}
        self.draw_run = 0

    def after_move(self, board: chess.Board, mover: chess.Color, score: int | None, plies: int) -> tuple[str, str] | None:
        """The adjudicated result and termination after `mover`'s move (already on `board`), if any."""
        rules = self.rules
        if score is None:
            self.resign_run[mover] = 0
            self.draw_run = 0
        else:
            self.resign_run[mover] = self.resign_run[mover] + 1 if rules.resign and score <= -rules.resign[1] else 0
            self.draw_run = self.draw_run + 1 if rules.draw and abs(score) <= rules.draw[2] else 0
        if rules.resign and self.resign_run[mover] >= rules.resign[0]:
            return loss_for(mover), f"adjudicated: {chess.COLOR_NAMES[mover]} resigns (score <= -{rules.resign[1]} cp for {rules.resign[0]} moves)"
        if rules.draw:
            number, count, bound = rules.draw
            # Full moves played, as cutechess counts them: plies of the whole game over two.
            if len(board.move_stack) // 2 >= number and self.draw_run >= 2 * count:
                return "1/2-1/2", f"adjudicated draw (both scores within {bound} cp for {count} moves)"
        if rules.max_plies is not None and plies >= rules.max_plies:
            return "1/2-1/2", f"adjudicated draw after {rules.max_plies} plies (--max-plies)"
        return None


def score_cp(info: dict, mover: chess.Color) -> int | None:
    """The mover's score of its move in centipawns (a mate as +-MATE_CP), or None if it sent none."""
    pov = info.get("score")
    if pov is None:
        return None
    return pov.pov(mover).score(mate_score=MATE_CP)


def play_game(white: Player, black: Player, opening: str | Opening, tc: TimeControl,
              adjudication: Adjudication | None = None, event: str = "Cerise match", round_: str = "1",
              depth: int | None = None, abort: threading.Event | None = None) -> GameResult:
    """Plays one game from `opening` (a FEN or an Opening) to its end by the rules (game_over),
    a fault, or an opt-in `adjudication`. When `abort` is set the game stops before the next
    move with result "*"."""
    adjudication = adjudication or Adjudication()
    adjudicator = Adjudicator(adjudication)
    # Scores are asked of the engines only when a rule reads them.
    # Scores and depths go into the PGN as cutechess writes them ({+0.35/12 0.412s}); the
    # adjudication rules read the scores too.
    info = chess.engine.INFO_BASIC | chess.engine.INFO_SCORE
    adjudicated = False
    if isinstance(opening, str):
        opening = Opening(opening)
    board = opening.board()
    players = {chess.WHITE: white, chess.BLACK: black}
    clock = {chess.WHITE: tc.base, chess.BLACK: tc.base}
    used: dict[bool, list[tuple[float, float]]] = {chess.WHITE: [], chess.BLACK: []}
    comments: list[str] = []  # one per move the engines played, in order
    result, termination, fault = None, "normal", None

    for p in (white, black):
        try:
            p.new_game()
        except Exception as e:  # could not even start: counts as a crash of that engine
            p.stats.crashes += 1
            p.discard()
            side = chess.WHITE if p is white else chess.BLACK
            result, termination, fault = loss_for(side), f"{p.name} failed to start: {e}", (side, "crash")
            break

    plies = 0
    while result is None:
        if abort is not None and abort.is_set():
            result, termination = "*", "abandoned by the runner"
            break
        ended = game_over(board)
        if ended is not None:
            result, termination = ended
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
            played = eng.play(board, limit, game=event + round_, info=info)
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
                fault = (side, "illegal")
            elif kind == "hung":
                p.stats.time_losses += 1
                termination = f"{p.name} hung and was killed after {elapsed:.1f}s"
                fault = (side, "timeloss")
            else:
                p.stats.crashes += 1
                termination = f"{p.name} crashed ({detail})"
                fault = (side, "crash")
            p.discard()  # dead, or its state may no longer match ours
            result = loss_for(side)
            break
        if depth is None and clock[side] < 0:
            p.stats.time_losses += 1
            fault = (side, "timeloss")
            board.push(move)  # the move stands in the PGN, the flag fell while making it
            comments.append(move_comment(played.info, side, elapsed))
            opponent_can_mate = not board.has_insufficient_material(not side)
            result = loss_for(side) if opponent_can_mate else "1/2-1/2"
            termination = f"{p.name} lost on time ({clock[side]:.3f}s)"
            break
        board.push(move)
        comments.append(move_comment(played.info, side, elapsed))
        clock[side] += tc.inc
        plies += 1
        # The rules first: a move that mates or repeats a third time ends the game as such.
        if game_over(board) is None:
            verdict = adjudicator.after_move(board, side, score_cp(played.info, side), plies)
            if verdict is not None:
                (result, termination), adjudicated = verdict, True

    game = chess.pgn.Game.from_board(board)
    game.headers.update({
        "Event": event, "Site": os.uname().nodename, "Date": datetime.date.today().strftime("%Y.%m.%d"),
        "Round": round_, "White": white.name, "Black": black.name, "Result": result,
        # "-" is PGN's word for "no clock", which is what a fixed-depth game has.
        "TimeControl": "-" if depth is not None else tc.pgn(), "Termination": termination,
    })
    mark_book_moves(game, len(opening.moves))
    comment_engine_moves(game, len(opening.moves), comments)
    return GameResult(result, termination, game, used, fault, adjudicated)


def move_comment(info: dict, mover: chess.Color, elapsed: float) -> str:
    """cutechess-cli's comment of an engine's move: the mover's score in pawns (or M and the
    moves to mate), the depth, and the seconds it took, e.g. "+0.35/12 0.412s"; the parts the
    engine did not send are left out."""
    parts = []
    pov = info.get("score")
    if pov is not None:
        s = pov.pov(mover)
        mate = s.mate()
        text = f"{'+' if mate > 0 else '-'}M{abs(mate)}" if mate is not None else f"{s.score() / 100:+.2f}"
        depth = info.get("depth")
        parts.append(text if depth is None else f"{text}/{depth}")
    parts.append(f"{elapsed:.3f}s")
    return " ".join(parts)


def comment_engine_moves(game: chess.pgn.Game, book: int, comments: list[str]) -> None:
    """Puts each engine move's comment (see move_comment) on its move, after the `book` moves."""
    node = game
    for _ in range(book):
        if not node.variations:
            return
        node = node.variations[0]
    for text in comments:
        if not node.variations:
            return
        node = node.variations[0]
        node.comment = text


def mark_book_moves(game: chess.pgn.Game, count: int) -> None:
    """Comments the opening's moves as {book}, as cutechess does, so they are not taken for the engines'."""
    node = game
    for _ in range(count):
        if not node.variations:
            break
        node = node.variations[0]
        node.comment = "book"


# --- Statistics -------------------------------------------------------------------------------


def elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def elo_interval(outcomes: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Elo difference and its 95% margin from (score per game, count) outcomes.

    For games the scores are 1, 0.5, 0; for pairs they are the pair's average per game (0, 0.25,
    ..., 1): a pair is then one sample, and its variance carries the pairing's correlation."""
    n = sum(count for _, count in outcomes)
    if n == 0:
        return 0.0, math.inf
    if n == 1:
        return elo(sum(score * count for score, count in outcomes)), math.inf  # one sample has no spread
    mean = sum(score * count for score, count in outcomes) / n
    var = sum(count * (score - mean) ** 2 for score, count in outcomes) / n
    margin = 1.96 * math.sqrt(var / n)
    lo, hi = elo(mean - margin), elo(mean + margin)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return elo(mean), math.inf  # a clean sweep bounds nothing
    return elo(mean), (hi - lo) / 2


def elo_with_margin(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """Elo difference and its 95% margin, from the per-game (trinomial) score variance."""
    return elo_interval([(1.0, wins), (0.5, draws), (0.0, losses)])


def pentanomial_elo(penta: Sequence[int]) -> tuple[float, float]:
    """Elo difference and its 95% margin from pair counts [LL, LD, DD+WL, WD, WW]."""
    return elo_interval([(i / 4, count) for i, count in enumerate(penta)])


# Pair scores as the average per game, the scale on which fishtest's formulas work.
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
# Normalized Elo per unit of t-value (mean minus 0.5 over the per-game deviation): 800/ln 10.
NELO_PER_T = 800 / math.log(10)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """The LLR at which H0 and H1 are accepted (Wald's bounds)."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt_llr(penta: Sequence[int], elo0: float, elo1: float, model: str = "normalized") -> float:
    """The generalized log-likelihood ratio of H1 (elo = elo1) against H0 (elo = elo0) for pair
    counts [LL, LD, DD+WL, WD, WW], as fishtest's LLRcalc and fastchess compute it: the observed
    pair distribution is compared with the most likely distributions that have elo0 and elo1.
    `model` says which Elo the bounds are in: "logistic" (the expected score is 1/(1+10^(-elo/400)))
    or "normalized" (elo is 800/ln10 times (score - 0.5) / per-game standard deviation)."""
    pairs = sum(penta)
    if pairs == 0:
        return 0.0
    # A count of zero would make a log-likelihood infinite; both tools put 1e-3 in its place.
    counts = [c if c > 0 else 1e-3 for c in penta]
    total = sum(counts)
    observed = [c / total for c in counts]
    if model == "logistic":
        p0, p1 = (_mle_with_mean(observed, logistic_score(e)) for e in (elo0, elo1))
    elif model == "normalized":
        # Per pair the deviation of the average score is the per-game one over sqrt(2).
        p0, p1 = (_mle_with_t_value(observed, 0.5, math.sqrt(2) * e / NELO_PER_T) for e in (elo0, elo1))
    else:
        raise ValueError(f"unknown SPRT model {model!r}")
    return total * sum(q * (math.log(b) - math.log(a)) for q, a, b in zip(observed, p0, p1))


def logistic_score(elo_: float) -> float:
    return 1 / (1 + 10 ** (-elo_ / 400))


def _solve_secular(weights: Sequence[float], values: Sequence[float]) -> float:
    """The x with sum w_i v_i / (1 + x v_i) = 0, where some v_i < 0 < some other v_j.

    The sum falls from +inf to -inf on (-1/max v, -1/min v), so bisection finds the root."""
    lo, hi = -1 / max(values), -1 / min(values)
    while True:
        mid = (lo + hi) / 2
        if not lo < mid < hi:
            return mid
        if sum(w * v / (1 + mid * v) for w, v in zip(weights, values)) > 0:
            lo = mid
        else:
            hi = mid


def _mle_with_mean(observed: Sequence[float], mean: float) -> list[float]:
    """The distribution over PAIR_SCORES with this mean that makes `observed` most likely
    (Van den Bergh, "Comments on normalized Elo", proposition 1.1)."""
    shifted = [a - mean for a in PAIR_SCORES]
    x = _solve_secular(observed, shifted)
    return [q / (1 + x * v) for q, v in zip(observed, shifted)]


def _mle_with_t_value(observed: Sequence[float], ref: float, t: float) -> list[float]:
    """The distribution over PAIR_SCORES with (mean - ref) / deviation = t that makes `observed`
    most likely ("Comments on normalized Elo", section 4.1): a fixed-point iteration from the
    uniform distribution, each step a secular equation."""
    p = [1 / len(PAIR_SCORES)] * len(PAIR_SCORES)
    for _ in range(100):
        mu = sum(q * a for q, a in zip(p, PAIR_SCORES))
        sigma = math.sqrt(sum(q * (a - mu) ** 2 for q, a in zip(p, PAIR_SCORES)))
        phi = [a - ref - t * sigma * (1 + ((a - mu) / sigma) ** 2) / 2 for a in PAIR_SCORES]
        x = _solve_secular(observed, phi)
        new = [q / (1 + x * v) for q, v in zip(observed, phi)]
        converged = max(abs(a - b) for a, b in zip(p, new)) < 1e-12
        p = new
        if converged:
            break
    return p


@dataclass
class Sprt:
    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str = "normalized"

    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    def llr(self, penta: Sequence[int]) -> float:
        return sprt_llr(penta, self.elo0, self.elo1, self.model)

    def decision(self, llr: float) -> str:
        lower, upper = self.bounds()
        return "H1" if llr >= upper else "H0" if llr <= lower else "inconclusive"


@dataclass
class Tally:
    """Engine 1's results, fed game by game in the order of the games, so that games 2k and 2k+1
    (one opening, colours reversed) make pair k."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    penta: list[int] = field(default_factory=lambda: [0] * 5)  # LL, LD, DD+WL, WD, WW
    win_loss_pairs: int = 0  # the WL pairs inside penta[2]
    faults: dict[int, dict[str, int]] = field(default_factory=lambda: {e: dict.fromkeys(FAULTS, 0) for e in (1, 2)})
    adjudicated: int = 0  # games ended by an opt-in adjudication rule
    # How the games ended, by kind: the rules' terminations ("checkmate", "threefold_repetition",
    # ...), "adjudicated", or a fault's kind.
    endings: dict[str, int] = field(default_factory=dict)
    # Clock use of each engine (1, 2) over the clocked games played in this run (not those a
    # resumed PGN holds): seconds thought, moves made, clock left at the game's end.
    thought: dict[int, float] = field(default_factory=lambda: {1: 0.0, 2: 0.0})
    moves: dict[int, int] = field(default_factory=lambda: {1: 0, 2: 0})
    left: dict[int, float] = field(default_factory=lambda: {1: 0.0, 2: 0.0})
    clocked_games: int = 0
    _first_of_pair: float | None = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def add(self, score: float, fault: tuple[int, str] | None = None, ending: str | None = None,
            adjudicated: bool = False) -> bool:
        """Counts a game engine 1 scored `score` in (1, 0.5 or 0), the fault (engine number,
        kind) it ended with, its kind of ending and whether adjudication ended it; says whether
        it completed a pair."""
        self.adjudicated += adjudicated
        if ending is not None:
            self.endings[ending] = self.endings.get(ending, 0) + 1
        if score == 1:
            self.wins += 1
        elif score == 0:
            self.losses += 1
        else:
            self.draws += 1
        if fault is not None:
            self.faults[fault[0]][fault[1]] += 1
        if self._first_of_pair is None:
            self._first_of_pair = score
            return False
        first, self._first_of_pair = self._first_of_pair, None
        self.penta[int(2 * (first + score))] += 1
        self.win_loss_pairs += {first, score} == {0, 1}
        return True

    def add_clocks(self, clocks: dict[bool, list[tuple[float, float]]], engine1_white: bool) -> None:
        """Counts one clocked game's per-move (seconds, clock left) of each colour."""
        self.clocked_games += 1
        for colour, moves in clocks.items():
            number = 1 if colour == engine1_white else 2
            self.thought[number] += sum(seconds for seconds, _ in moves)
            self.moves[number] += len(moves)
            self.left[number] += moves[-1][1] if moves else 0.0

    def clock_report(self, name1: str, name2: str) -> str | None:
        """A line of each engine's mean time a move and mean clock left at the end, or None
        without clocked games. It covers the games this run played: a resumed PGN's move
        comments carry the time of each move but not the clock, so they are not counted."""
        n = self.clocked_games
        if not n:
            return None
        parts = [f"{name} {self.thought[k] / max(self.moves[k], 1):.3f}s a move, {self.left[k] / n:.1f}s left at the end"
                 for k, name in ((1, name1), (2, name2))]
        return f"clock use (means over the {n} games of this run): " + "; ".join(parts)

    def elo(self) -> tuple[float, float, str]:
        """Elo, its 95% margin, and which model gave them: pairs when there are any."""
        if sum(self.penta):
            return (*pentanomial_elo(self.penta), "pentanomial")
        return (*elo_with_margin(self.wins, self.draws, self.losses), "trinomial")


# --- Openings -------------------------------------------------------------------------------


def read_openings(path: Path, chess960: bool = False) -> list[str]:
    """The positions (FENs) of an EPD file, one a line; the fields after the fourth are
    taken as the move counters when they are numbers, and ignored otherwise. With `chess960`
    the castling field may name the rooks' files (Shredder-FEN, "HAha") or use KQkq for the
    outermost rooks (X-FEN)."""
    fens = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(";")[0].split()
        fen = " ".join(fields[:4]) + (" " + " ".join(fields[4:6]) if len(fields) >= 6 and fields[4].isdigit() else " 0 1")
        try:
            chess.Board(fen, chess960=chess960)
        except ValueError as e:
            raise SystemExit(f"{path}:{n}: not a position: {e}") from None
        fens.append(fen)
    if not fens:
        raise SystemExit(f"{path}: no positions")
    return fens


def read_pgn_openings(path: Path, plies: int | None = None, chess960: bool = False) -> list[Opening]:
    """The main line of each game of a PGN file (from its FEN header if it has one), cut to
    `plies` moves when given. A game with a Variant "Chess960" header, or every game with
    `chess960`, is a Chess960 opening: its castles are written king takes rook."""
    openings = []
    with path.open(encoding="utf-8", errors="replace") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            if game.errors:
                raise SystemExit(f"{path}: game {len(openings) + 1}: {game.errors[0]}")
            board = game.board()
            as960 = chess960 or board.chess960
            start, moves = board.fen(), []
            for m in list(game.mainline_moves())[:plies]:
                moves.append(board.uci(m, chess960=as960))
                board.push(m)
            openings.append(Opening(start, tuple(moves), as960))
    if not openings:
        raise SystemExit(f"{path}: no games")
    return openings


def polyglot_line(reader: chess.polyglot.MemoryMappedReader, rng: random.Random, plies: int) -> Opening:
    """A line of up to `plies` book moves from the start, each drawn by the book's weights."""
    board = chess.Board()
    for _ in range(plies):
        try:
            entry = reader.weighted_choice(board, random=rng)
        except IndexError:  # the position is not in the book: the line ends here
            break
        board.push(entry.move)
    return Opening(chess.STARTING_FEN, tuple(m.uci() for m in board.move_stack))


def chess960_start(rng: random.Random) -> Opening:
    """One of the 960 starting arrays, drawn by `rng`, in X-FEN (KQkq for its outer rooks)."""
    return Opening(chess.Board.from_chess960_pos(rng.randrange(960)).fen(), chess960=True)


class OpeningBook:
    """The opening of each pair of games. File openings are taken in order and cycle; a Polyglot
    line, or with `chess960` and no file a Chess960 starting array, is drawn from a generator
    seeded by (seed, pair), so pair k gets the same opening whatever the concurrency, and both
    its games get it."""

    def __init__(self, path: Path | None, plies: int | None = None, seed: int = 1, chess960: bool = False):
        self.path, self.seed = path, seed
        self.fixed: list[Opening] = []
        self.reader: chess.polyglot.MemoryMappedReader | None = None
        self.lock = threading.Lock()  # one reader, used from the game threads
        if path is None:
            if not chess960:
                raise SystemExit("no openings: give --openings, or --variant chess960 for its starting arrays")
            if plies is not None:
                raise SystemExit("--book-plies applies to .pgn and .bin books, not to Chess960 starting arrays")
            return
        suffix = path.suffix.lower()
        if suffix == ".bin" and chess960:
            raise SystemExit(f"{path}: a Polyglot book holds lines from the standard start, not Chess960 "
                             f"positions; with --variant chess960 give an EPD of Chess960 positions, or no "
                             f"--openings for the 960 starting arrays")
        if suffix == ".bin":
            self.reader = chess.polyglot.open_reader(path)
            self.plies = DEFAULT_BOOK_PLIES if plies is None else plies
        elif suffix == ".pgn":
            self.fixed = read_pgn_openings(path, plies, chess960)
            if not chess960 and any(o.chess960 for o in self.fixed):
                raise SystemExit(f"{path}: holds Chess960 games (Variant header); play them with --variant chess960")
        else:
            if plies is not None:
                raise SystemExit("--book-plies applies to .pgn and .bin books, not to EPD positions")
            self.fixed = [Opening(fen, chess960=chess960) for fen in read_openings(path, chess960)]

    def for_pair(self, pair: int) -> Opening:
        if self.path is None:
            return chess960_start(random.Random(f"{self.seed}/{pair}/chess960"))
        if self.reader is None:
            return self.fixed[pair % len(self.fixed)]
        with self.lock:
            return polyglot_line(self.reader, random.Random(f"{self.seed}/{pair}"), self.plies)

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()


# --- Running the match ------------------------------------------------------------------------


def play_in_order(count: int, play: Callable[[int, threading.Event], GameResult],
                  concurrency: int, start: int = 0) -> Iterator[tuple[int, GameResult]]:
    """Plays games start..count-1, `concurrency` at a time, and yields them in index order.

    Closing the generator (or an exception in the caller's loop, Ctrl-C included) sets the abort
    event that the running games check before each move, and cancels the games not started."""
    abort = threading.Event()
    pool = ThreadPoolExecutor(max_workers=concurrency)
    futures = {pool.submit(play, g, abort): g for g in range(start, count)}
    finished: dict[int, GameResult] = {}
    next_game = start
    try:
        for future in as_completed(futures):
            finished[futures[future]] = future.result()
            while next_game in finished:
                yield next_game, finished.pop(next_game)
                next_game += 1
    finally:
        # Cancel first: a game that a worker freed by the abort picked up would start only to stop.
        for future in futures:
            future.cancel()
        abort.set()
        pool.shutdown(wait=True)


class Seats:
    """One pair of engine processes per concurrent game: a game takes a seat and gives it back."""

    def __init__(self, count: int, make: Callable[[], tuple[Player, Player]]):
        self.all = [make() for _ in range(count)]
        self.free: queue.Queue[tuple[Player, Player]] = queue.Queue()
        for seat in self.all:
            self.free.put(seat)

    def quit(self) -> None:
        for p1, p2 in self.all:
            p1.quit()
            p2.quit()


def score_for_engine1(result: str, engine1_white: bool) -> float:
    if result == "1/2-1/2":
        return 0.5
    return 1.0 if (result == "1-0") == engine1_white else 0.0


def ending_of(r: GameResult) -> str:
    """The kind of a game's ending, for the counts in the report."""
    if r.fault is not None:
        return r.fault[1]
    if r.adjudicated:
        return "adjudicated"
    return r.termination if r.termination in ENDINGS else "other"


# The rules' own terminations (game_over's names), in the order the report lists them.
ENDINGS = ("checkmate", "stalemate", "insufficient_material", "threefold_repetition", "fifty_moves",
           "seventyfive_moves", "fivefold_repetition")


def fault_of_termination(termination: str, engine_names: dict[str, int]) -> tuple[int, str] | None:
    """The fault (engine number, kind) that a PGN Termination header written by play_game
    names, or None for a game that ended by the rules or adjudication."""
    for name, number in sorted(engine_names.items(), key=lambda kv: -len(kv[0])):
        rest = termination[len(name) + 1:] if termination.startswith(name + " ") else None
        if rest is None:
            continue
        for prefix, kind in (("played an illegal move", "illegal"), ("hung and was killed", "timeloss"),
                             ("lost on time", "timeloss"), ("crashed", "crash"), ("failed to start", "crash")):
            if rest.startswith(prefix):
                return number, kind
    return None


def resume_games(path: Path, name1: str, name2: str, tally: Tally) -> int:
    """Counts into `tally` the games of a PGN this runner wrote for the same two engines, and
    returns how many there are. A trailing game whose pair is unfinished is cut from the file, so
    that pairs stay whole: the match goes on at the first game of the next pair, which gets
    the opening it would have had without the interruption."""
    games: list[chess.pgn.Game] = []
    ends: list[int] = []  # the file offset after each game
    with path.open(encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games.append(game)
            ends.append(f.tell())
    for i, game in enumerate(games):
        h = game.headers
        white_1st = i % 2 == 0
        expected = (name1, name2) if white_1st else (name2, name1)
        if (h.get("White"), h.get("Black")) != expected or h.get("Round") != str(i + 1):
            raise SystemExit(
                f"{path}: game {i + 1} is round {h.get('Round')!r}, {h.get('White')!r} - {h.get('Black')!r}; "
                f"a resumed match expects round {i + 1}, {expected[0]!r} - {expected[1]!r}. Give the same "
                f"--name1/--name2 as the match that wrote it, or a new --out without --resume.")
        if h.get("Result") not in ("1-0", "0-1", "1/2-1/2"):
            raise SystemExit(f"{path}: game {i + 1} has no result ({h.get('Result')!r}); cut it from the file "
                             f"and resume again")
    keep = len(games) - len(games) % 2
    if keep < len(games):
        with path.open("r+", encoding="utf-8") as f:
            f.truncate(ends[keep - 1] if keep else 0)
    engine_names = {name1: 1, name2: 2}
    for i, game in enumerate(games[:keep]):
        h = game.headers
        termination = h.get("Termination", "")
        fault = fault_of_termination(termination, engine_names)
        ending = fault[1] if fault else termination if termination in ENDINGS else (
            "adjudicated" if termination.startswith("adjudicated") else "other")
        tally.add(score_for_engine1(h["Result"], i % 2 == 0), fault, ending, ending == "adjudicated")
    return keep


def summary_line(tally: Tally, sprt: Sprt | None, llr: float | None,
                 adjudication: Adjudication | None = None) -> str:
    """The machine-readable last line: space-separated key=value fields."""
    n = tally.games
    e, margin, _ = tally.elo()
    fields = [f"games={n}", f"W={tally.wins}", f"D={tally.draws}", f"L={tally.losses}",
              f"score={100 * (tally.wins + tally.draws / 2) / max(n, 1):.1f}%", f"elo={e:+.1f}", f"err={margin:.1f}",
              "pentanomial=[" + ",".join(map(str, tally.penta)) + "]"]
    if sprt is not None:
        lower, upper = sprt.bounds()
        fields += [f"llr={llr:.2f}", f"bounds={lower:.2f},{upper:.2f}", f"result={sprt.decision(llr)}"]
    fields += [f"{kind}={tally.faults[1][kind]},{tally.faults[2][kind]}" for kind in FAULTS]
    fields += [f"adjudication={(adjudication or Adjudication()).describe()}", f"adjudicated={tally.adjudicated}"]
    return "summary: " + " ".join(fields)


def parse_options(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise SystemExit(f"option {pair!r}: expected NAME=VALUE, e.g. EvalFile=<material>")
        out[name] = value
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="The module docstring (bench/match.py) describes the statistics and the "
                                        "summary line.")
    ap.add_argument("--engine1", required=True,
                    help="command line of the first engine (the statistics are from its view)")
    ap.add_argument("--engine2", required=True, help="command line of the second engine")
    ap.add_argument("--name1")
    ap.add_argument("--name2")
    ap.add_argument("--opt1", action="append", default=[], metavar="NAME=VALUE", help="UCI option for engine 1")
    ap.add_argument("--opt2", action="append", default=[], metavar="NAME=VALUE", help="UCI option for engine 2")
    ap.add_argument("--games", type=int,
                    help="number of games, rounded up to even (default 20); with --sprt the most to play "
                         "(default 20000)")
    ap.add_argument("--tc", type=TimeControl.parse, default=TimeControl(10, 0.1), help="SECONDS+INC, default 10+0.1")
    ap.add_argument("--depth", type=int, help="fixed search depth per move instead of a clock (--tc is then ignored)")
    ap.add_argument("--variant", choices=("standard", "chess960"), default="standard",
                    help="chess960: every game is Chess960 (the engines get UCI_Chess960, castling is king "
                         "takes rook); without --openings each pair starts from one of the 960 starting "
                         "arrays, drawn by --seed (default standard)")
    ap.add_argument("--openings", type=Path,
                    help="opening book: .epd (a position a line), .pgn (each game's moves) or .bin (Polyglot); "
                         "default bench/openings.epd, or with --variant chess960 the starting arrays")
    ap.add_argument("--book-plies", type=int, metavar="N",
                    help=f"plies of each book line: a .pgn line is cut to N, a .bin line is N weighted random book "
                         f"moves (default {DEFAULT_BOOK_PLIES})")
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of the Polyglot book's random lines and of the Chess960 starting arrays (default 1)")
    ap.add_argument("--resign", type=int, nargs=2, metavar=("COUNT", "SCORE"),
                    help="opt-in adjudication, as cutechess-cli's -resign: a side whose own score is SCORE "
                         "centipawns or more below zero for COUNT of its moves in a row loses (default off)")
    ap.add_argument("--draw", type=int, nargs=3, metavar=("NUMBER", "COUNT", "SCORE"),
                    help="opt-in adjudication, as cutechess-cli's -draw: after NUMBER full moves, a game whose "
                         "two scores stay within SCORE centipawns of zero for COUNT moves each is drawn "
                         "(default off)")
    ap.add_argument("--max-plies", type=int,
                    help="opt-in adjudication: draw a game still going after this many engine plies (default off: "
                         "the fifty-move rule ends every game)")
    ap.add_argument("--concurrency", type=int, default=1, metavar="N",
                    help="games played at once, each with its own engine processes (default 1)")
    ap.add_argument("--sprt", type=float, nargs=4, metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
                    help="stop when the generalized SPRT (pentanomial, as fishtest and fastchess) accepts "
                         "H0: elo <= ELO0 or H1: elo >= ELO1, e.g. --sprt 0 5 0.05 0.05")
    ap.add_argument("--sprt-model", choices=("normalized", "logistic"), default="normalized",
                    help="the Elo that ELO0 and ELO1 are in (default normalized, as fastchess)")
    ap.add_argument("--out", type=Path, help="PGN file to write (appended game by game)")
    ap.add_argument("--resume", action="store_true",
                    help="go on with the match whose games --out holds (same engines, names, openings and "
                         "settings): its games are counted, and play continues with the next pair; "
                         "--games is then the total")
    args = ap.parse_args(argv)
    if args.openings is None and args.variant == "standard":
        args.openings = Path(__file__).parent / "openings.epd"
    if args.resume and not args.out:
        ap.error("--resume needs --out, the PGN of the match to go on with")
    if args.games is None:
        args.games = 20000 if args.sprt else 20
    if args.games < 1:
        ap.error("--games must be at least 1")
    if args.depth is not None and args.depth < 1:
        ap.error("--depth must be at least 1")
    if args.concurrency < 1:
        ap.error("--concurrency must be at least 1")
    if args.book_plies is not None and args.book_plies < 0:
        ap.error("--book-plies must be at least 0")
    if args.max_plies is not None and args.max_plies < 1:
        ap.error("--max-plies must be at least 1")
    if args.resign and not (args.resign[0] >= 1 and args.resign[1] >= 0):
        ap.error("--resign COUNT SCORE: want COUNT >= 1 and SCORE >= 0, e.g. --resign 3 1000")
    if args.draw and not (args.draw[0] >= 0 and args.draw[1] >= 1 and args.draw[2] >= 0):
        ap.error("--draw NUMBER COUNT SCORE: want NUMBER >= 0, COUNT >= 1 and SCORE >= 0, e.g. --draw 40 8 10")
    args.adjudication = Adjudication(tuple(args.resign) if args.resign else None,
                                     tuple(args.draw) if args.draw else None, args.max_plies)
    if args.sprt:
        elo0, elo1, alpha, beta = args.sprt
        if not (elo0 < elo1 and 0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
            ap.error("--sprt: want ELO0 < ELO1, 0 < ALPHA, BETA < 1 and ALPHA + BETA < 1")
    return args


def stop_on_signals() -> None:
    """A match stopped by Ctrl-C or `kill` (SIGTERM) still reports the games it finished.
    SIGINT is set explicitly because a shell starts background jobs with it ignored."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, interrupt)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    stop_on_signals()
    sprt = Sprt(*args.sprt, model=args.sprt_model) if args.sprt else None
    book = OpeningBook(args.openings, args.book_plies, args.seed, args.variant == "chess960")
    options1, options2 = parse_options(args.opt1), parse_options(args.opt2)
    name1 = args.name1 or Player(args.engine1, {}).name
    name2 = args.name2 or Player(args.engine2, {}).name
    if name1 == name2:
        name1, name2 = name1 + "-1", name2 + "-2"
    seats = Seats(args.concurrency,
                  lambda: (Player(args.engine1, options1, name1), Player(args.engine2, options2, name2)))
    games = args.games + args.games % 2
    tally = Tally()
    start = 0
    if args.resume and args.out.exists():
        start = resume_games(args.out, name1, name2, tally)
        print(f"resuming: {start} games already in {args.out} ({name1}: +{tally.wins} ={tally.draws} "
              f"-{tally.losses})", flush=True)
    elif args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("")

    def play(g: int, abort: threading.Event) -> GameResult:
        p1, p2 = seat = seats.free.get()
        try:
            white, black = (p1, p2) if g % 2 == 0 else (p2, p1)
            return play_game(white, black, book.for_pair(g // 2), args.tc, args.adjudication,
                             event=f"{name1} vs {name2}", round_=str(g + 1), depth=args.depth, abort=abort)
        finally:
            seats.free.put(seat)

    llr = sprt.llr(tally.penta) if sprt and start else 0.0 if sprt else None
    t_start = time.monotonic()
    results = play_in_order(games, play, args.concurrency, start)
    try:
        for g, r in results:
            engine1_white = g % 2 == 0
            white, black = (name1, name2) if engine1_white else (name2, name1)
            fault = None
            if r.fault is not None:
                fault = (1 if (r.fault[0] == chess.WHITE) == engine1_white else 2, r.fault[1])
            pair_done = tally.add(score_for_engine1(r.result, engine1_white), fault, ending_of(r), r.adjudicated)
            if args.depth is None and r.result != "*":
                tally.add_clocks(r.clocks, engine1_white)
            if args.out:
                with args.out.open("a") as f:
                    print(r.game, file=f, end="\n\n")
            line = (f"game {g + 1:>3}/{games}: {white} - {black} {r.result:<7} ({r.termination})"
                    f"  | {name1}: +{tally.wins} ={tally.draws} -{tally.losses}")
            if sprt and pair_done:
                llr = sprt.llr(tally.penta)
                line += f"  llr {llr:.2f}"
            print(line, flush=True)
            if sprt and pair_done and sprt.decision(llr) != "inconclusive":
                break
    except KeyboardInterrupt:
        print("interrupted; summary of the games played so far:")
    finally:
        results.close()  # abandons the games still running
        seats.quit()
        book.close()

    print_report(args, tally, sprt, llr, name1, name2, time.monotonic() - t_start)
    return 0


def print_report(args: argparse.Namespace, tally: Tally, sprt: Sprt | None, llr: float | None,
                 name1: str, name2: str, seconds: float) -> None:
    n = tally.games
    e, margin, model = tally.elo()
    control = f"depth {args.depth}" if args.depth is not None else args.tc.pgn()
    ll, ld, dd_wl, wd, ww = tally.penta
    print(f"\n{name1} vs {name2}, {n} games at {control} in {seconds:.0f}s (concurrency {args.concurrency})")
    print(f"score {name1}: W {tally.wins} / D {tally.draws} / L {tally.losses}  = "
          f"{100 * (tally.wins + tally.draws / 2) / max(n, 1):.1f}%")
    print(f"pairs ({name1}'s view): LL {ll}, LD {ld}, DD {dd_wl - tally.win_loss_pairs} + WL {tally.win_loss_pairs}, "
          f"WD {wd}, WW {ww}")
    print(f"elo difference: {e:+.1f} +/- {margin:.1f} (95%, {model})")
    if sprt is not None:
        lower, upper = sprt.bounds()
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", "inconclusive": "inconclusive"}[sprt.decision(llr)]
        print(f"sprt [{sprt.elo0:g}, {sprt.elo1:g}] {sprt.model} elo, alpha {sprt.alpha:g}, beta {sprt.beta:g}: "
              f"llr {llr:.2f} ({lower:.2f}, {upper:.2f}): {verdict}")
    for number, name in ((1, name1), (2, name2)):
        f = tally.faults[number]
        print(f"{name}: illegal moves {f['illegal']}, time losses {f['timeloss']}, crashes {f['crash']}")
    order = {kind: i for i, kind in enumerate(ENDINGS + ("adjudicated",) + FAULTS)}
    endings = sorted(tally.endings.items(), key=lambda kv: order.get(kv[0], len(order)))
    print("endings: " + (", ".join(f"{kind} {count}" for kind, count in endings) or "none"))
    print(f"adjudication: {args.adjudication.describe()} ({tally.adjudicated} games adjudicated)")
    clocks = tally.clock_report(name1, name2)
    if clocks:
        print(clocks)
    if args.out:
        print(f"games written to {args.out}")
    print(summary_line(tally, sprt, llr, args.adjudication), flush=True)


if __name__ == "__main__":
    sys.exit(main())
