//! Material imbalance: the six terms of Stockfish 10's second-degree polynomial
//! (Tord Romstad's), one per piece kind of ours, in SF's internal units (SF divides the
//! White-minus-Black sum by 16).
//!
//! Term `k` is `count_ours[k] * Σ_{j ≤ k} (OURS[k][j] * count_ours[j] +
//! THEIRS[k][j] * count_theirs[j])`, over kinds bishop pair (0/1), pawn, knight,
//! bishop, rook, queen. Kept apart rather than summed so that the evaluator can weigh
//! them itself.

use shakmaty::{Color, Role};

use super::context::Context;

pub(super) const NAMES: &[&str] = &[
    "imbalance_bishop_pair",
    "imbalance_pawns",
    "imbalance_knights",
    "imbalance_bishops",
    "imbalance_rooks",
    "imbalance_queens",
];

/// Stockfish 10 `QuadraticOurs`.
const OURS: [[i32; 6]; 6] = [
    [1438, 0, 0, 0, 0, 0],
    [40, 38, 0, 0, 0, 0],
    [32, 255, -62, 0, 0, 0],
    [0, 104, 4, 0, 0, 0],
    [-26, -2, 47, 105, -208, 0],
    [-189, 24, 117, 133, -134, -6],
];

/// Stockfish 10 `QuadraticTheirs`.
const THEIRS: [[i32; 6]; 6] = [
    [0, 0, 0, 0, 0, 0],
    [36, 0, 0, 0, 0, 0],
    [9, 63, 0, 0, 0, 0],
    [59, 65, 42, 0, 0, 0],
    [46, 39, 24, -24, 0, 0],
    [97, 100, -42, 137, 268, 0],
];

fn piece_counts(ctx: &Context, c: Color) -> [i32; 6] {
    let n = |r| ctx.ours(c, r).count() as i32;
    let bishops = n(Role::Bishop);
    [
        i32::from(bishops >= 2),
        n(Role::Pawn),
        n(Role::Knight),
        bishops,
        n(Role::Rook),
        n(Role::Queen),
    ]
}

pub(super) fn extract(ctx: &Context, c: Color, out: &mut [f32]) {
    let us = piece_counts(ctx, c);
    let them = piece_counts(ctx, !c);
    for k in 0..6 {
        let v: i32 = (0..=k)
            .map(|j| OURS[k][j] * us[j] + THEIRS[k][j] * them[j])
            .sum();
        out[k] = (us[k] * v) as f32;
    }
}

#[cfg(test)]
mod tests {
    use crate::features::tests::{values, START};

    #[test]
    fn start_position_terms() {
        let v = values(START, "black_");
        assert_eq!(v["imbalance_bishop_pair"], 1438.0);
        // 8 * (40 + 38*8 + 36)
        assert_eq!(v["imbalance_pawns"], 3040.0);
        // 2 * (32 + 255*8 - 62*2 + 9 + 63*8)
        assert_eq!(v["imbalance_knights"], 4922.0);
        // 2 * (104*8 + 4*2 + 59 + 65*8 + 42*2)
        assert_eq!(v["imbalance_bishops"], 3006.0);
        assert_eq!(v["imbalance_rooks"], 408.0);
        assert_eq!(v["imbalance_queens"], 1852.0);
    }

    #[test]
    fn knight_against_pawns() {
        // White: king and knight; Black: king and two pawns.
        let fen = "8/5pp1/6k1/8/8/8/3N4/4K3 w - - 0 1";
        let w = values(fen, "white_");
        // 1 * (255*0 - 62*1 + 63*2)
        assert_eq!(w["imbalance_knights"], 64.0);
        assert_eq!(w["imbalance_pawns"], 0.0);
        let b = values(fen, "black_");
        // 2 * (38*2)
        assert_eq!(b["imbalance_pawns"], 152.0);
        assert_eq!(b["imbalance_knights"], 0.0);
    }
}
