"""A scriptable UCI engine for testing bench/match.py. It plays the first legal move unless
its mode (argv[1]) says otherwise:

  ok                 nothing special
  crash | illegal | hang
                     its third `go` exits, answers `bestmove a1a1`, or never answers
  slow               every move takes 0.2 s
  castle             castles whenever it may (its first legal castle), else as ok
  line MOVES [SCORE] plays a given line: MOVES is a comma-separated list of UCI moves counted
                     from the game's starting position (both sides' moves, "-" for none); asked
                     for ply k it plays the k-th move if the list has one. With SCORE it sends
                     `info depth 1 score cp SCORE` before each bestmove.
  scripted ID        engine ID (1 or 2) of a match whose losses the opening scripts: it answers
                     an illegal move (and so loses) when the fullmove number of the game's
                     starting FEN, minus one, has its bit set in this mask
                       1: engine 1 loses as White   2: engine 1 loses as Black
                       4: engine 2 loses as White   8: engine 2 loses as Black
                     so one EPD line decides both games of a pair, whatever the concurrency.

It offers UCI_Chess960: when set, positions are read and moves written as Chess960 (castling
as king takes rook).
"""

import sys
import time

import chess

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
args = sys.argv[2:]
if mode == "line":
    line = [] if args[0] == "-" else args[0].split(",")
    score = int(args[1]) if len(args) > 1 else None
elif mode == "scripted":
    me = int(args[0])


def answer(board: chess.Board, start: chess.Board, searches: int) -> list[str]:
    """What this engine prints for its `searches`-th `go` in `board`, reached from `start`."""
    first = "bestmove " + board.uci(next(iter(board.legal_moves)))
    if mode == "castle":
        castles = [m for m in board.legal_moves if board.is_castling(m)]
        return ["bestmove " + board.uci(castles[0])] if castles else [first]
    if mode == "line":
        ply = len(board.move_stack)
        info = [] if score is None else [f"info depth 1 score cp {score}"]
        return info + ["bestmove " + line[ply] if ply < len(line) else first]
    if mode == "scripted":
        mask = start.fullmove_number - 1
        bit = 1 << (2 * (me - 1) + (0 if board.turn == chess.WHITE else 1))
        return ["bestmove a1a1" if mask & bit else first]
    if searches == 3 and mode == "crash":
        sys.exit(3)
    if searches == 3 and mode == "illegal":
        return ["bestmove a1a1"]
    if searches == 3 and mode == "hang":
        time.sleep(600)
    if mode == "slow":
        time.sleep(0.2)
    return [first]


board = start = chess.Board()
searches = 0
chess960 = False
for text in sys.stdin:
    words = text.split()
    if not words:
        continue
    if words[0] == "uci":
        print(f"id name {mode if mode in ('line', 'scripted') else 'fake'}\n"
              "option name UCI_Chess960 type check default false\nuciok", flush=True)
    elif words[:3] == ["setoption", "name", "UCI_Chess960"]:
        chess960 = words[-1] == "true"
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        if words[1] == "fen":
            board = chess.Board(" ".join(words[2:8]), chess960=chess960)
            moves = words[9:]
        else:
            board = chess.Board(chess960=chess960)
            moves = words[3:]
        start = board.copy()
        for m in moves:
            board.push_uci(m)
    elif words[0] == "go":
        searches += 1
        print("\n".join(answer(board, start, searches)), flush=True)
    elif words[0] == "quit":
        break
