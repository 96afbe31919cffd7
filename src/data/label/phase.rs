//! Stockfish's game-phase rule, which picks the middlegame positions that the RBF study
//! labelled (Kagkas et al. took middlegame positions "by Stockfish's phase rule").
//!
//! Stockfish 10 (`material.cpp`, `types.h`) computes the phase from the non-pawn material of
//! both sides, counted in midgame piece values and clamped between two limits (the RBF
//! features compute it, `features::phase`; this module only applies it):
//! `phase = (clamp(npm, EndgameLimit, MidgameLimit) − EndgameLimit) · 128 /
//! (MidgameLimit − EndgameLimit)`, so 128 is a full midgame and 0 a pure endgame.
//!
//! Cerise calls a position a middlegame when its phase is above 0 (more non-pawn material than
//! Stockfish's endgame limit, about a rook, a bishop and a knight in all) and it comes after
//! the opening plies the caller skips (the phase alone calls the start position a midgame).

use crate::features::phase;
use shakmaty::Board;

/// Whether the position is a middlegame by the rule in the module documentation, given how
/// many plies of the game came before it and how many opening plies are skipped.
pub fn is_middlegame(board: &Board, ply: u32, skip_plies: u32) -> bool {
    ply >= skip_plies && phase(board) > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::non_pawn_material;
    use shakmaty::fen::Fen;
    use shakmaty::Color;
    use shakmaty::{CastlingMode, Chess, Position};

    fn board(fen: &str) -> Board {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        pos.board().clone()
    }

    fn npm(b: &Board) -> i32 {
        non_pawn_material(b, Color::White) + non_pawn_material(b, Color::Black)
    }

    #[test]
    fn full_material_is_a_full_midgame() {
        let start = Board::default();
        // 2·(2·782 + 2·830 + 2·1289 + 2529) = 16662, above the midgame limit.
        assert_eq!(npm(&start), 16662);
        assert_eq!(phase(&start), 128);
    }

    #[test]
    fn queens_off_is_worked_by_hand() {
        // 16662 − 2·2529 = 11604; (11604 − 3915)·128 / 11343 = 86.77 → 86.
        let b = board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1");
        assert_eq!(npm(&b), 11604);
        assert_eq!(phase(&b), 86);
    }

    #[test]
    fn rook_endings_are_endgames() {
        // One rook each: 2578 < 3915, clamped to the endgame limit.
        let b = board("3rk3/pp3ppp/8/8/8/8/PP3PPP/3RK3 w - - 0 30");
        assert_eq!(phase(&b), 0);
        assert!(!is_middlegame(&b, 60, 20));
        // Rook and bishop each: 2·(1289 + 830) = 4238 → (323·128)/11343 = 3, a middlegame.
        let b = board("3rkb2/pp3ppp/8/8/8/8/PP3PPP/3RKB2 w - - 0 30");
        assert_eq!(phase(&b), 3);
        assert!(is_middlegame(&b, 60, 20));
    }

    #[test]
    fn the_opening_plies_are_not_middlegame() {
        let start = Board::default();
        assert!(!is_middlegame(&start, 0, 20));
        assert!(!is_middlegame(&start, 19, 20));
        assert!(is_middlegame(&start, 20, 20));
    }
}
