#!/usr/bin/env python3
"""Scores a UCI engine on an EPD test suite: the best move found at a fixed time a position.

    python bench/epd.py --engine target/release/cerise \
        --epd ../shared/data/epd/sts1-15_v4_sf15.epd --movetime 200

Every position is searched once, from a fresh `ucinewgame`, for `--movetime` milliseconds.
A position counts as solved when the engine's move is one of its `bm` moves (or none of its
`am` moves). Suites that give points per move (STS: `c8` points, `c9` UCI moves) are also
scored in points, 10 at most a position, as the STS authors score them.

The last line is the summary:
    epd=FILE engine=NAME movetime=MS positions=N solved=S points=P/MAX
Progress goes to stderr every 100 positions. Timed: run it on an idle machine.
"""

import argparse
import concurrent.futures
import sys
import threading
import time

import chess
import chess.engine


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--engine", required=True, help="the engine's command line")
    p.add_argument("--epd", required=True, help="the EPD suite")
    p.add_argument("--movetime", type=int, default=200, help="milliseconds a position")
    p.add_argument("--opt", action="append", default=[], metavar="NAME=VALUE",
                   help="UCI option, repeatable")
    p.add_argument("--concurrency", type=int, default=1,
                   help="engines searching at once, one position each (default 1)")
    p.add_argument("--limit", type=int, default=0, help="only the first N positions")
    return p.parse_args()


def load_suite(path, limit):
    """(board, ops) for each EPD line; a line python-chess cannot read stops the run."""
    suite = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                board, ops = chess.Board.from_epd(line)
            except ValueError as e:
                sys.exit(f"error: {path}:{number} is not a valid EPD line ({e}); fix or remove it")
            suite.append((board, ops, number))
            if limit and len(suite) >= limit:
                break
    if not suite:
        sys.exit(f"error: {path} holds no EPD positions")
    return suite


def points_table(board, ops):
    """STS's points per move from `c8` (points) and `c9` (UCI moves), or None."""
    points, moves = ops.get("c8"), ops.get("c9")
    if not isinstance(points, str) or not isinstance(moves, str):
        return None
    table = {}
    for uci, value in zip(moves.split(), points.split()):
        try:
            table[chess.Move.from_uci(uci)] = int(value)
        except ValueError:
            return None
    return table


def solved(move, ops):
    if "bm" in ops:
        return move in ops["bm"]
    if "am" in ops:
        return move not in ops["am"]
    return False


def parse_options(pairs):
    options = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            sys.exit(f"error: --opt {pair!r} is not NAME=VALUE")
        options[name] = value
    return options


def main():
    args = parse_args()
    suite = load_suite(args.epd, args.limit)
    options = parse_options(args.opt)
    local = threading.local()
    engines = []
    lock = threading.Lock()

    def engine():
        if not hasattr(local, "engine"):
            e = chess.engine.SimpleEngine.popen_uci(args.engine.split())
            if options:
                e.configure(options)
            local.engine = e
            with lock:
                engines.append(e)
        return local.engine

    def search(item):
        board, ops, number = item
        e = engine()
        result = e.play(board, chess.engine.Limit(time=args.movetime / 1000), game=object())
        if result.move is None or not board.is_legal(result.move):
            sys.exit(f"error: the engine answered {result.move} on line {number}, not a legal move")
        table = points_table(board, ops)
        return solved(result.move, ops), table, (table or {}).get(result.move, 0)

    started = time.time()
    solved_count = points = max_points = done = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
            for ok, table, got in pool.map(search, suite):
                done += 1
                solved_count += ok
                if table is not None:
                    points += got
                    max_points += max(table.values(), default=0)
                if done % 100 == 0 or done == len(suite):
                    print(f"[epd] {done}/{len(suite)}: solved {solved_count}, points "
                          f"{points}/{max_points}, {time.time() - started:.0f} s",
                          file=sys.stderr, flush=True)
    finally:
        name = engines[0].id.get("name", "?") if engines else "?"
        for e in engines:
            e.quit()
    print(f"epd={args.epd} engine={name!r} movetime={args.movetime} positions={len(suite)} "
          f"solved={solved_count} points={points}/{max_points}")


if __name__ == "__main__":
    main()
