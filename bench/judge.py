#!/usr/bin/env python3
"""Judges an engine's own scores in played games against an unlimited Stockfish's.

    python bench/judge.py --pgn bench/results/ladder-X-chess960-sf2000.pgn \
        --pgn bench/results/ladder-X-standard-sf2000.pgn --depth 16 --plies 10-60

For every move the judged engine (`--name`, matched at the start of the White or Black tag)
made between the given plies, its score in the move's PGN comment (`+0.69/12 ...`, its own
point of view) is set beside Stockfish's score of the position after that move, searched
to `--depth` with one thread and turned to the judged engine's point of view. Pawns are
clamped to +-10, mates count as +-10. Chess960 games (the `Variant` tag) are searched as
Chess960.

It answers two questions about a set of games: where the engine's position stood by an
outside measure (Stockfish's mean, by ply band), and how far its own scores were from
that (the mean difference, and the same in expected score on a 400 cp logistic, which
discounts won-anyway gaps). An engine's own score after its chosen move is biased upward
(the search keeps the largest of noisy estimates), so compare sets of games with each
other, not with zero.

The summary goes to stdout, one block per PGN; progress to stderr after every game.
`--out` keeps every position (FEN, both scores) as JSON for a closer look.
Timed only in that Stockfish runs at a fixed depth: run it when nothing else is timed.
"""

import argparse
import json
import re
import shutil
import statistics
import sys

import chess
import chess.engine
import chess.pgn

from ladder import find_stockfish

SCORE = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?|[+-]?M\d+)/\d+")
CLAMP = 10.0
BANDS = ((1, 10), (11, 20), (21, 30), (31, 40), (41, 60), (61, 10_000))


def clamp(pawns):
    return max(-CLAMP, min(CLAMP, pawns))


def comment_score(comment):
    """The engine's own score in pawns from a move comment, or None when it has none."""
    m = SCORE.match(comment)
    if not m:
        return None
    s = m.group(1)
    if "M" in s:
        return -CLAMP if s.startswith("-") else CLAMP
    return clamp(float(s))


def expected(pawns):
    return 1 / (1 + 10 ** (-pawns / 4))


def parse_plies(text):
    try:
        lo, hi = (int(x) for x in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--plies wants LO-HI (for example 10-60), not {text!r}")
    if lo < 1 or hi < lo:
        raise argparse.ArgumentTypeError(f"--plies {text}: want 1 <= LO <= HI")
    return lo, hi


def judge_pgn(path, args, engine):
    rows = []
    games = 0
    with open(path, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games += 1
            white, black = game.headers.get("White", ""), game.headers.get("Black", "")
            if white.startswith(args.name):
                side = chess.WHITE
            elif black.startswith(args.name):
                side = chess.BLACK
            else:
                print(f"{path} game {games}: neither side is {args.name!r}, skipped",
                      file=sys.stderr)
                continue
            board = game.board()
            for ply, node in enumerate(game.mainline(), start=1):
                mover = board.turn
                board.push(node.move)
                if mover != side or not args.plies[0] <= ply <= args.plies[1]:
                    continue
                own = comment_score(node.comment)
                if own is None or board.is_game_over():
                    continue
                info = engine.analyse(board, chess.engine.Limit(depth=args.depth))
                sf = info["score"].pov(side).score(mate_score=100_000) / 100
                rows.append({
                    "game": games, "ply": ply, "result": game.headers.get("Result", "*"),
                    "own": own, "stockfish": clamp(sf), "fen": board.fen(),
                })
            print(f"{path}: game {games}, {len(rows)} positions", file=sys.stderr, flush=True)
    return rows


def summary(path, rows):
    if not rows:
        return f"{path}: no positions with the engine's scores in the ply range"
    mean = statistics.mean
    lines = [
        f"{path}: {len(rows)} positions of {len({r['game'] for r in rows})} games",
        f"  own - stockfish: {mean(r['own'] - r['stockfish'] for r in rows):+.2f} pawns "
        f"(|.| {mean(abs(r['own'] - r['stockfish']) for r in rows):.2f}), expected score "
        f"{mean(expected(r['own']) - expected(r['stockfish']) for r in rows):+.3f}",
    ]
    for lo, hi in BANDS:
        band = [r for r in rows if lo <= r["ply"] <= hi]
        if band:
            lines.append(
                f"  plies {lo}-{hi if hi < 10_000 else 'end'}: n {len(band)}, "
                f"own {mean(r['own'] for r in band):+.2f}, "
                f"stockfish {mean(r['stockfish'] for r in band):+.2f}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pgn", action="append", required=True, help="a PGN of played games; repeatable")
    ap.add_argument("--name", default="Cerise", help="the judged engine's name tag prefix (Cerise)")
    ap.add_argument("--depth", type=int, default=16, help="Stockfish's depth a position (16)")
    ap.add_argument("--plies", type=parse_plies, default=(10, 60), help="LO-HI, the plies judged (10-60)")
    ap.add_argument("--stockfish",
                    help="Stockfish's command (default: stockfish on PATH, or /usr/games/stockfish)")
    ap.add_argument("--hash", type=int, default=64, help="Stockfish's hash in MiB (64)")
    ap.add_argument("--out", help="write every judged position to this JSON file")
    args = ap.parse_args(argv)
    if args.depth < 1:
        ap.error("--depth must be at least 1")
    exe = shutil.which(args.stockfish) if args.stockfish else find_stockfish(None)
    if exe is None:
        ap.error(f"cannot find {args.stockfish!r}; give a command on PATH or a path with --stockfish")
    for path in args.pgn:
        try:
            open(path, encoding="utf-8").close()
        except OSError as e:
            ap.error(f"cannot read {path}: {e.strerror}")
    engine = chess.engine.SimpleEngine.popen_uci(exe)
    try:
        wanted = {"Threads": 1, "Hash": args.hash}
        engine.configure({k: v for k, v in wanted.items() if k in engine.options})
        results = {path: judge_pgn(path, args, engine) for path in args.pgn}
    finally:
        engine.quit()
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(results, f)
    for path, rows in results.items():
        print(summary(path, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
