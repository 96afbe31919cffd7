//! Realistic, distinct boards without reading any data: a fixed walk through legal moves.
//! Used to warm up the net evaluator with real batch shapes and as test input.

use super::board::CompactBoard;
use super::position::Position;

/// `n` boards from a deterministic walk: from the start position, play the move at index
/// `(7i + 3) mod #moves`, restarting after 40 reversible plies or when no move is left.
pub fn sample_boards(n: usize) -> Vec<CompactBoard> {
    let mut out = Vec::with_capacity(n);
    let mut pos = Position::startpos();
    let mut i = 0usize;
    while out.len() < n {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.halfmoves() > 40 {
            pos = Position::startpos();
            continue;
        }
        pos = pos.play(&moves[(i * 7 + 3) % moves.len()]);
        out.push(pos.compact());
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_exactly_n_boards_and_is_deterministic() {
        assert_eq!(sample_boards(0).len(), 0);
        let a = sample_boards(500);
        assert_eq!(a.len(), 500);
        assert_eq!(a, sample_boards(500));
        let distinct: std::collections::HashSet<_> = a.iter().collect();
        assert!(
            distinct.len() > 250,
            "only {} distinct boards",
            distinct.len()
        );
    }
}
