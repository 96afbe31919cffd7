//! Material: piece counts, the bishop pair, and Stockfish 10's material sums (midgame
//! non-pawn material, endgame material) plus its game phase.
//!
//! Counts are raw so that the evaluator can learn its own piece values; the SF10 sums
//! give it the scale Stockfish uses, and `phase` the midgame/endgame blend.

use shakmaty::{Board, Color, Role};

use super::context::Context;

pub(super) const NAMES: &[&str] = &[
    "pawns",
    "knights",
    "bishops",
    "rooks",
    "queens",
    "bishop_pair",
    "non_pawn_material",
    "material_eg",
];

/// Stockfish 10 midgame values of N, B, R, Q.
const MG: [i32; 4] = [782, 830, 1289, 2529];
/// Stockfish 10 endgame values of P, N, B, R, Q.
const EG: [i32; 5] = [213, 865, 918, 1378, 2687];
const ENDGAME_LIMIT: i32 = 3915;
const MIDGAME_LIMIT: i32 = 15258;

fn counts(board: &Board, c: Color) -> [i32; 5] {
    let ours = board.by_color(c);
    [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ]
    .map(|r| (board.by_role(r) & ours).count() as i32)
}

/// Stockfish 10's midgame non-pawn material of `c`.
pub fn non_pawn_material(board: &Board, c: Color) -> i32 {
    let n = counts(board, c);
    (0..4).map(|i| n[i + 1] * MG[i]).sum()
}

/// Stockfish 10's phase: total non-pawn material clamped to the endgame and midgame
/// limits, scaled to 0 (endgame) ..= 128 (midgame).
pub fn phase(board: &Board) -> i32 {
    let npm = non_pawn_material(board, Color::White) + non_pawn_material(board, Color::Black);
    let npm = npm.clamp(ENDGAME_LIMIT, MIDGAME_LIMIT);
    (npm - ENDGAME_LIMIT) * 128 / (MIDGAME_LIMIT - ENDGAME_LIMIT)
}

pub(super) fn extract(ctx: &Context, c: Color, out: &mut [f32]) {
    let n = counts(ctx.board, c);
    for i in 0..5 {
        out[i] = n[i] as f32;
    }
    out[5] = if n[2] >= 2 { 1.0 } else { 0.0 };
    out[6] = non_pawn_material(ctx.board, c) as f32;
    out[7] = (0..5).map(|i| n[i] * EG[i]).sum::<i32>() as f32;
}

#[cfg(test)]
mod tests {
    use crate::features::tests::{value, values};

    #[test]
    fn start_position_counts_and_sums() {
        let v = values(crate::features::tests::START, "white_");
        assert_eq!(v["pawns"], 8.0);
        assert_eq!(v["knights"], 2.0);
        assert_eq!(v["bishops"], 2.0);
        assert_eq!(v["rooks"], 2.0);
        assert_eq!(v["queens"], 1.0);
        assert_eq!(v["bishop_pair"], 1.0);
        // 2*782 + 2*830 + 2*1289 + 2529
        assert_eq!(v["non_pawn_material"], 8331.0);
        // 8*213 + 2*865 + 2*918 + 2*1378 + 2687
        assert_eq!(v["material_eg"], 10713.0);
        assert_eq!(value(crate::features::tests::START, "phase"), 128.0);
    }

    #[test]
    fn endgame_phase_and_lone_bishop() {
        // White: K, R, B, 3 pawns; Black: K, 2 pawns.
        let fen = "6k1/5pp1/8/8/8/5B2/5PPP/3R2K1 w - - 0 1";
        assert_eq!(value(fen, "white_bishop_pair"), 0.0);
        assert_eq!(value(fen, "white_non_pawn_material"), 2119.0);
        assert_eq!(value(fen, "black_non_pawn_material"), 0.0);
        // 2119 is below the endgame limit 3915.
        assert_eq!(value(fen, "phase"), 0.0);
        // Q+R vs R+N: npm 3818 + 2071 = 5889 → (5889-3915)*128/11343 = 22.
        let mid = "r5k1/5ppp/8/4n3/8/8/5PPP/1R3QK1 w - - 0 1";
        assert_eq!(value(mid, "phase"), 22.0);
    }
}
