//! Move-generation counts, checked against the perft suite.

use super::position::Position;

/// Leaf count at `depth` (bulk-counted at depth 1).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    todo!("{pos:?} {depth}")
}

/// Per-root-move counts, in move order, as `(uci, count)`.
pub fn divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    todo!("{pos:?} {depth}")
}
