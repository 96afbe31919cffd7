"""Hostile input through the real binary: tens of thousands of seeded, mutated command lines,
after which the engine still answers `isready` and plays a legal move. (A million lines go
through the parser alone in src/uci/fuzz.rs.)"""

from __future__ import annotations

import random

import chess

CORPUS = [
    "uci", "isready", "ucinewgame", "debug on", "position startpos",
    "position startpos moves e2e4 e7e5 g1f3 b8c6",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4",
    "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "go wtime 3000 btime 3000 winc 20 binc 20 movestogo 40", "go depth 3 searchmoves e2e4 d2d4",
    "go nodes 1000", "go movetime 5", "go infinite", "go ponder wtime 100 btime 100", "go mate 2",
    "stop", "ponderhit", "setoption name Hash value 16", "setoption name Move Overhead value 100",
    "setoption name MultiPV value 3", "setoption name UCI_ShowWDL value true",
    "setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 1600",
    "setoption name UCI_Chess960 value true", "setoption name Clear Hash",
    "setoption name EvalFile value <material>", "setoption name EvalFile value <embedded>",
    "setoption name SyzygyPath value /tmp/no-tables", "eval", "d", "register later",
]
ODD = ["go", "position", "fen", "moves", "startpos", "setoption", "name", "value", "depth", "wtime",
       "searchmoves", "-1", "0", "18446744073709551616", "99999999999999999999", "e1g1", "e7e8q",
       "a1a1", "zz", "", "\t", "é", "🙂", "8/8/8/8/8/8/8/8", "w", "-", "KQkq", "infinite"]
# Lines that end the engine or are meant to hold the command loop (perft, bench) are left out.
SKIP = {"quit", "perft", "bench"}
LINES = 20_000


def mutated(rng: random.Random) -> str:
    tokens = rng.choice(CORPUS).split(" ")
    for _ in range(rng.randrange(4)):
        at = rng.randrange(len(tokens) + 1)
        op = rng.randrange(4)
        if op == 0 or not tokens:
            tokens.insert(at, rng.choice(ODD))
        elif op == 1 and at < len(tokens):
            del tokens[at]
        elif op == 2 and at < len(tokens):
            tokens[at] = rng.choice(ODD)
        else:
            i, j = rng.randrange(len(tokens)), rng.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
    line = " ".join(tokens)
    if rng.randrange(3) == 0:
        chars = list(line)
        for _ in range(1 + rng.randrange(3)):
            c = chr(rng.randrange(1, 0x3000))
            at = rng.randrange(len(chars) + 1)
            if at < len(chars) and rng.randrange(2) == 0:
                chars[at] = c
            else:
                chars.insert(at, c)
        line = "".join(chars)
    return line.replace("\n", " ").replace("\r", " ")


def test_the_engine_survives_mutated_commands(start_engine):
    rng = random.Random(30)
    eng = start_engine()
    eng.handshake()
    sent = 0
    while sent < LINES:
        line = mutated(rng)
        words = line.split()
        if words and words[0].lower() in SKIP:
            continue
        eng.send(line)
        sent += 1
        if sent % 2000 == 0:
            eng.send("stop")
            eng.sync(timeout=60)  # keeps the pipe drained and proves the loop is alive
    eng.send("stop")
    eng.send("setoption name UCI_Chess960 value false")
    eng.send("setoption name EvalFile value <embedded>")
    eng.sync(timeout=60)
    eng.drain(1.0)  # bestmoves of searches the stream started and stopped
    eng.send("position startpos moves e2e4")
    out = eng.go("go depth 3", timeout=60)
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(out.bestmove()) in board.legal_moves, eng.dump()
    assert eng.quit() == 0
