"""A UCI engine for testing bench/match.py whose losses are scripted by the opening.

Usage: fake_engine_scripted.py ID, where ID is 1 or 2 (engine 1 or engine 2 of the match).
It plays the first legal move, except that it answers an illegal move (and so loses) when the
game's starting position asks it to: the fullmove number of that FEN, minus one, is a bit mask
  1: engine 1 loses as White   2: engine 1 loses as Black
  4: engine 2 loses as White   8: engine 2 loses as Black.
So one EPD line decides both games of a pair, whatever the runner's concurrency.
"""

import sys

import chess

me = int(sys.argv[1])
board = chess.Board()
mask = 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name scripted\nuciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        if words[1] == "fen":
            board = chess.Board(" ".join(words[2:8]))
            moves = words[9:]
        else:
            board = chess.Board()
            moves = words[3:]
        mask = board.fullmove_number - 1
        for m in moves:
            board.push_uci(m)
    elif words[0] == "go":
        bit = 1 << (2 * (me - 1) + (0 if board.turn == chess.WHITE else 1))
        if mask & bit:
            print("bestmove a1a1", flush=True)
        else:
            print("bestmove " + next(iter(board.legal_moves)).uci(), flush=True)
    elif words[0] == "quit":
        break
