//! Realistic, distinct boards without reading any data: a fixed walk through legal moves.
//! Used to warm up the net evaluator with real batch shapes and as test input.

use super::board::CompactBoard;
use super::position::Position;

/// `n` boards from a deterministic walk: from the start position, play the move at index
/// `(7i + 3) mod #moves`, restarting after 40 reversible plies or when no move is left.
pub fn sample_boards(n: usize) -> Vec<CompactBoard> {
    let mut out = Vec::with_capacity(n);
    walk(n, |_, next| out.push(next.compact()));
    out
}

/// `n` positions of the same walk, each with the boards of all its children, as the
/// search expands a node: the parents are consecutive, each a child of the one before.
pub fn sample_families(n: usize) -> Vec<(CompactBoard, Vec<CompactBoard>)> {
    let mut out = Vec::with_capacity(n);
    walk(n, |pos, _| {
        let kids = pos
            .legal_moves()
            .iter()
            .map(|m| pos.play(m).compact())
            .collect();
        out.push((pos.compact(), kids));
    });
    out
}

/// Takes `n` steps of the walk, calling `step(position, position after the move)`.
fn walk(n: usize, mut step: impl FnMut(&Position, &Position)) {
    let mut pos = Position::startpos();
    let mut i = 0usize;
    while i < n {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.halfmoves() > 40 {
            pos = Position::startpos();
            continue;
        }
        let next = pos.play(&moves[(i * 7 + 3) % moves.len()]);
        step(&pos, &next);
        pos = next;
        i += 1;
    }
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
