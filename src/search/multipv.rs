//! MultiPV's bookkeeping: the root lines of one iteration, kept best first.
//!
//! Line k is the best of the root moves not already in lines 0..k (Stockfish's scheme):
//! the driver searches the moves from index k on, which puts that best at index k, then
//! sorts the lines once every line of the iteration is done.

use super::root::RootMove;
use crate::chess::Move;

/// One root line: its score and principal variation (the root move first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub score: i32,
    pub pv: Vec<Move>,
}

/// Orders the lines best first, and their root moves with them. Ties keep their order, so a
/// later line never overtakes an equal earlier one and `MultiPV 1` order is undisturbed.
pub fn sort_lines(moves: &mut [RootMove], lines: &mut [Line]) {
    debug_assert_eq!(moves.len(), lines.len());
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by_key(|&i| -lines[i].score);
    let sorted_moves: Vec<RootMove> = order.iter().map(|&i| moves[i].clone()).collect();
    let sorted_lines: Vec<Line> = order.iter().map(|&i| lines[i].clone()).collect();
    moves.clone_from_slice(&sorted_moves);
    lines.clone_from_slice(&sorted_lines);
}

#[cfg(test)]
mod tests;
