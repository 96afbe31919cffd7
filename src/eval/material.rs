//! Piece values only: the baseline evaluator.

use super::{EvalError, EvalInfo, Evaluator};
use crate::chess::CompactBoard;

pub struct MaterialEvaluator;

/// Centipawn values of pawn, knight, bishop, rook, queen, king (kings are never traded, so
/// they count for nothing).
pub const PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 900, 0];

const PIECE_NAMES: [&str; 6] = ["pawns", "knights", "bishops", "rooks", "queens", "kings"];

/// Signed value per `CompactBoard` byte code: 0 empty, 1..=6 ours, 7..=12 theirs. Codes above
/// 12 never occur in a valid board; the table is 256 wide so any byte indexes it safely.
const CODE_VALUES: [i32; 256] = {
    let mut table = [0i32; 256];
    let mut i = 0;
    while i < 6 {
        table[1 + i] = PIECE_VALUES[i];
        table[7 + i] = -PIECE_VALUES[i];
        i += 1;
    }
    table
};

impl MaterialEvaluator {
    /// Material balance for the side to move, in centipawns.
    #[inline]
    pub fn score(board: &CompactBoard) -> i32 {
        board.0.iter().map(|&c| CODE_VALUES[c as usize]).sum()
    }
}

impl Evaluator for MaterialEvaluator {
    fn is_zero_sum(&self) -> bool {
        true
    }

    fn evaluate(&self, boards: &[CompactBoard], out: &mut Vec<f32>) -> Result<(), EvalError> {
        out.clear();
        out.extend(boards.iter().map(|b| Self::score(b) as f32));
        Ok(())
    }

    fn info(&self) -> EvalInfo {
        EvalInfo {
            name: "material".to_string(),
            device: "cpu".to_string(),
            max_batch: 4096,
            backend: None,
        }
    }

    /// One term per piece type (our count minus theirs, times the value), then the total.
    fn breakdown(&self, board: &CompactBoard) -> Result<Vec<(String, f32)>, EvalError> {
        let mut counts = [0i32; 6];
        for &code in &board.0 {
            match code {
                1..=6 => counts[code as usize - 1] += 1,
                7..=12 => counts[code as usize - 7] -= 1,
                _ => {}
            }
        }
        let mut terms: Vec<(String, f32)> = PIECE_NAMES
            .iter()
            .zip(counts.iter().zip(PIECE_VALUES))
            .map(|(name, (&n, value))| (name.to_string(), (n * value) as f32))
            .collect();
        terms.push(("total".to_string(), Self::score(board) as f32));
        Ok(terms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    fn board(fen: &str) -> CompactBoard {
        Position::from_fen(fen)
            .expect("test FEN is valid")
            .compact()
    }

    fn eval(fens: &[&str]) -> Vec<f32> {
        let boards: Vec<_> = fens.iter().map(|f| board(f)).collect();
        let mut out = vec![123.0; 7];
        MaterialEvaluator
            .evaluate(&boards, &mut out)
            .expect("material never fails");
        out
    }

    #[test]
    fn known_positions() {
        let scores = eval(&[
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // White is a queen up; white to move, then black to move.
            "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
            // White: R + 2P; black: N + B.
            "4k3/8/2nb4/8/8/8/PP6/R3K3 w - - 0 1",
        ]);
        assert_eq!(scores, vec![0.0, 900.0, -900.0, 700.0 - 650.0]);
    }

    #[test]
    fn empty_batch_clears_out() {
        let mut out = vec![1.0, 2.0];
        MaterialEvaluator
            .evaluate(&[], &mut out)
            .expect("material never fails");
        assert!(out.is_empty());
    }

    #[test]
    fn colour_flip_keeps_the_score_for_the_side_to_move() {
        // The same material situation seen by the other colour, mirrored, scores the same.
        let pairs = [
            (
                "4k3/8/2nb4/8/8/8/PP6/R3K3 w - - 0 1",
                "r3k3/pp6/8/8/8/2NB4/8/4K3 b - - 0 1",
            ),
            (
                "3qk3/8/8/8/8/8/8/4K2R b - - 0 1",
                "4k2r/8/8/8/8/8/8/3QK3 w - - 0 1",
            ),
        ];
        for (a, b) in pairs {
            assert_eq!(board(a), board(b), "mirrored positions give the same board");
            let s = eval(&[a, b]);
            assert_eq!(s[0], s[1]);
            assert_ne!(s[0], 0.0);
        }
    }

    #[test]
    fn breakdown_terms_sum_to_total() {
        let b = board("4k3/8/2nb4/8/8/8/PP6/R3K3 b - - 0 1");
        let terms = MaterialEvaluator
            .breakdown(&b)
            .expect("material never fails");
        let get = |name: &str| {
            terms
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| *v)
                .expect("term present")
        };
        assert_eq!(get("pawns"), -200.0);
        assert_eq!(get("knights"), 320.0);
        assert_eq!(get("bishops"), 330.0);
        assert_eq!(get("rooks"), -500.0);
        assert_eq!(get("total"), 650.0 - 700.0);
        let sum: f32 = terms
            .iter()
            .filter(|(n, _)| n != "total")
            .map(|t| t.1)
            .sum();
        assert_eq!(sum, get("total"));
    }
}
