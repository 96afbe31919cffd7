#!/usr/bin/env python3
"""Writes bench/openings.epd: common, roughly balanced openings after 4-8 plies.

The move lists are written by hand; python-chess plays them out (so every position is
legal) and the EPD records the result. Rerun after editing the list:

    .venv/bin/python bench/make_openings.py
"""

from pathlib import Path

import chess

OPENINGS = {
    "Ruy Lopez": "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6",
    "Ruy Lopez, Berlin": "e4 e5 Nf3 Nc6 Bb5 Nf6 O-O Nxe4",
    "Italian, Giuoco Piano": "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6",
    "Two Knights": "e4 e5 Nf3 Nc6 Bc4 Nf6 d3 Be7",
    "Scotch": "e4 e5 Nf3 Nc6 d4 exd4 Nxd4 Nf6",
    "Four Knights": "e4 e5 Nf3 Nc6 Nc3 Nf6 Bb5 Bb4",
    "Petrov": "e4 e5 Nf3 Nf6 Nxe5 d6 Nf3 Nxe4",
    "Philidor": "e4 e5 Nf3 d6 d4 Nf6 Nc3 Nbd7",
    "Vienna": "e4 e5 Nc3 Nf6 g3 d5 exd5 Nxd5",
    "King's Gambit Declined": "e4 e5 f4 Bc5 Nf3 d6 c3 Nf6",
    "Sicilian Najdorf": "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6",
    "Sicilian Scheveningen": "e4 c5 Nf3 e6 d4 cxd4 Nxd4 Nf6",
    "Sicilian Taimanov": "e4 c5 Nf3 e6 d4 cxd4 Nxd4 Nc6",
    "Sicilian Sveshnikov": "e4 c5 Nf3 Nc6 d4 cxd4 Nxd4 Nf6",
    "Sicilian Alapin": "e4 c5 c3 Nf6 e5 Nd5 d4 cxd4",
    "Sicilian Closed": "e4 c5 Nc3 Nc6 g3 g6 Bg2 Bg7",
    "Sicilian Rossolimo": "e4 c5 Nf3 Nc6 Bb5 g6 O-O Bg7",
    "French Winawer": "e4 e6 d4 d5 Nc3 Bb4 e5 c5",
    "French Tarrasch": "e4 e6 d4 d5 Nd2 Nf6 e5 Nfd7",
    "French Advance": "e4 e6 d4 d5 e5 c5 c3 Nc6",
    "Caro-Kann Classical": "e4 c6 d4 d5 Nc3 dxe4 Nxe4 Bf5",
    "Caro-Kann Advance": "e4 c6 d4 d5 e5 Bf5 Nf3 e6",
    "Pirc": "e4 d6 d4 Nf6 Nc3 g6 Nf3 Bg7",
    "Scandinavian": "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 Nf6",
    "Alekhine": "e4 Nf6 e5 Nd5 d4 d6 Nf3 Bg4",
    "Modern": "e4 g6 d4 Bg7 Nc3 d6 Be3 a6",
    "Queen's Gambit Declined": "d4 d5 c4 e6 Nc3 Nf6 Bg5 Be7",
    "Queen's Gambit Accepted": "d4 d5 c4 dxc4 Nf3 Nf6 e3 e6",
    "Slav": "d4 d5 c4 c6 Nf3 Nf6 Nc3 dxc4",
    "Semi-Slav": "d4 d5 c4 c6 Nf3 Nf6 Nc3 e6",
    "Tarrasch Defence": "d4 d5 c4 e6 Nc3 c5 cxd5 exd5",
    "Nimzo-Indian": "d4 Nf6 c4 e6 Nc3 Bb4 e3 O-O",
    "Queen's Indian": "d4 Nf6 c4 e6 Nf3 b6 g3 Bb7",
    "Bogo-Indian": "d4 Nf6 c4 e6 Nf3 Bb4 Bd2 Qe7",
    "King's Indian": "d4 Nf6 c4 g6 Nc3 Bg7 e4 d6",
    "Grunfeld": "d4 Nf6 c4 g6 Nc3 d5 cxd5 Nxd5",
    "Benoni": "d4 Nf6 c4 c5 d5 e6 Nc3 exd5",
    "Dutch Leningrad": "d4 f5 g3 Nf6 Bg2 g6 Nf3 Bg7",
    "Dutch Stonewall": "d4 e6 c4 f5 g3 Nf6 Bg2 d5",
    "Catalan": "d4 Nf6 c4 e6 g3 d5 Bg2 Be7",
    "London": "d4 d5 Bf4 Nf6 e3 c5 c3 Nc6",
    "Trompowsky": "d4 Nf6 Bg5 e6 e4 h6 Bxf6 Qxf6",
    "Colle": "d4 d5 Nf3 Nf6 e3 e6 Bd3 c5",
    "English Symmetrical": "c4 c5 Nc3 Nc6 g3 g6 Bg2 Bg7",
    "English Four Knights": "c4 e5 Nc3 Nf6 Nf3 Nc6 g3 d5",
    "English vs King's Indian": "c4 Nf6 Nc3 g6 e4 d6 d4 Bg7",
    "Reti": "Nf3 d5 g3 Nf6 Bg2 e6 O-O Be7",
    "King's Indian Attack": "Nf3 d5 g3 c5 Bg2 Nc6 O-O e6",
    "Bird": "f4 d5 Nf3 Nf6 e3 g6 b3 Bg7",
    "Larsen": "b3 e5 Bb2 Nc6 e3 d5 Bb5 Bd6",
    "Ruy Lopez, Exchange": "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6 dxc6",
}


def main() -> None:
    out = Path(__file__).with_name("openings.epd")
    lines = []
    for name, moves in OPENINGS.items():
        board = chess.Board()
        for san in moves.split():
            board.push_san(san)
        assert 4 <= board.ply() <= 8 and board.outcome() is None, name
        lines.append(board.epd(id=name))
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} openings to {out}")


if __name__ == "__main__":
    main()
