"""Self-play through a no-search `PlayMode` (policy, greedy): every answer legal, each one
reported as depth 1 with the node count the mode promises."""

from __future__ import annotations

import chess


def play_without_search(engine, mode: str, plies: int, nodes) -> None:
    """Plays `plies` plies (or to the game's end) against itself; `nodes(board)` is the node
    count the info line must show for that position."""
    board = chess.Board()
    moves = []
    while len(moves) < plies and not board.is_game_over():
        engine.send("position startpos moves " + " ".join(moves) if moves else "position startpos")
        out = engine.go("go wtime 60000 btime 60000", timeout=10)
        move = chess.Move.from_uci(out.bestmove())
        assert move in board.legal_moves, f"{move} is illegal in {board.fen()}\n{engine.dump()}"
        assert any(f"PlayMode {mode}" in l for l in out.infos), engine.dump()
        n = nodes(board)
        assert any(" depth 1 " in l and f" nodes {n} " in l for l in out.infos), engine.dump()
        board.push(move)
        moves.append(move.uci())
