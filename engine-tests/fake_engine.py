"""A misbehaving UCI engine for testing bench/match.py: plays the first legal move, except
that its third `go` does what argv[1] says (crash, illegal, hang, or nothing special), or,
with `slow`, every move takes 0.2 s."""

import sys
import time

import chess

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
board = chess.Board()
searches = 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name fake\nuciok", flush=True)
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
        searches += 1
        if searches == 3 and mode == "crash":
            sys.exit(3)
        if searches == 3 and mode == "illegal":
            print("bestmove a1a1", flush=True)
            continue
        if searches == 3 and mode == "hang":
            time.sleep(600)
        if mode == "slow":
            time.sleep(0.2)
        print("bestmove " + next(iter(board.legal_moves)).uci(), flush=True)
    elif words[0] == "quit":
        break
