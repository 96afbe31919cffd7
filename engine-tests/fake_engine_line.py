"""A UCI engine for testing bench/match.py's rules of the game: it plays a given line.

Usage: fake_engine_line.py MOVES [SCORE], where MOVES is a comma-separated list of UCI moves
counted from the game's starting position (both sides' moves, "-" for none). Asked for ply k
of the game, it plays the k-th move of the list if the list has one, and otherwise the first
legal move. With SCORE it sends `info depth 1 score cp SCORE` before each bestmove.
"""

import sys

import chess

line = [] if sys.argv[1] == "-" else sys.argv[1].split(",")
score = int(sys.argv[2]) if len(sys.argv) > 2 else None
board = chess.Board()
for text in sys.stdin:
    words = text.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name line\nuciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        if words[1] == "fen":
            board = chess.Board(" ".join(words[2:8]))
            moves = words[9:]
        else:
            board = chess.Board()
            moves = words[3:]
        for m in moves:
            board.push_uci(m)
    elif words[0] == "go":
        ply = len(board.move_stack)
        move = line[ply] if ply < len(line) else next(iter(board.legal_moves)).uci()
        if score is not None:
            print(f"info depth 1 score cp {score}", flush=True)
        print("bestmove " + move, flush=True)
    elif words[0] == "quit":
        break
