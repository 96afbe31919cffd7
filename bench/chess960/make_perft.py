#!/usr/bin/env python3
"""Writes bench/chess960/perft960.epd: Chess960 positions with perft counts from python-chess,
an implementation independent of Cerise's (shakmaty) move generator.

Positions: 16 Chess960 starts chosen by a fixed seed, and 16 positions reached from random
starts by random legal moves that still hold castling rights with king or rook off their
standard squares (where Chess960 castling rules differ most). Counts to depth 4 (5 for the
starts is too slow in Python). Same format as ../shared/data/perft/perftsuite.epd:
`FEN ;D1 n ;D2 n ...`, castling written as Shredder-FEN file letters.

    .venv/bin/python bench/chess960/make_perft.py   # about two minutes
"""

from __future__ import annotations

import random
from pathlib import Path

import chess

DEPTH = 4
rng = random.Random(960)


def perft(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def line(board: chess.Board) -> str:
    counts = " ".join(f";D{d} {perft(board, d)}" for d in range(1, DEPTH + 1))
    return f"{board.shredder_fen()} {counts}"


def main() -> None:
    lines = []
    starts = rng.sample(range(960), 16)
    for n in starts:
        lines.append(line(chess.Board.from_chess960_pos(n)))
    found = 0
    while found < 16:
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        for _ in range(rng.randrange(6, 30)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.is_game_over() or not board.castling_rights:
            continue
        if not any(m for m in board.legal_moves if board.is_castling(m)) and found < 8:
            continue  # the first half must have a castle among its moves
        lines.append(line(chess.Board(board.fen(), chess960=True)))
        found += 1
    out = Path(__file__).with_name("perft960.epd")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} positions to {out}")


if __name__ == "__main__":
    main()
