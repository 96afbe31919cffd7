//! A ConvChess policy file run on libtorch (CPU): the piece selector's and the six move
//! selectors' log-probabilities for a board, combined per move as the study's player does:
//! log p_piece(from) + log p_move(role)(to).
//!
//! It scores moves, not positions, so it is not an [`super::Evaluator`]; the engine's
//! `PlayMode policy` asks it for the move to play.

use crate::chess::stm_move_squares;
use shakmaty::Role;

/// A move as the policy sees it: squares in the board's side-to-move frame (the king's
/// target for a castle) and the piece that moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyMove {
    pub from: usize,
    pub to: usize,
    pub role: Role,
}

impl PolicyMove {
    /// `m`, played by `turn`, in the side-to-move frame the policy reads.
    pub fn new(m: &shakmaty::Move, turn: shakmaty::Color) -> PolicyMove {
        let (from, to) = stm_move_squares(m, turn);
        PolicyMove {
            from: usize::from(from),
            to: usize::from(to),
            role: m.role(),
        }
    }
}

#[cfg(feature = "torch")]
mod torch;
#[cfg(feature = "torch")]
pub use torch::MovePolicy;

/// Without libtorch no policy loads: [`MovePolicy::from_net`] says why, and the type has
/// no value, so nothing that holds one can be reached.
#[cfg(not(feature = "torch"))]
pub struct MovePolicy {
    never: std::convert::Infallible,
    pub name: String,
}

#[cfg(not(feature = "torch"))]
impl MovePolicy {
    pub fn from_net(net: &crate::net::NetFile, origin: &str) -> Result<Self, String> {
        Err(format!(
            "cannot load Policy '{origin}' (a {} net): {}",
            net.meta.arch.family_name(),
            super::backend::NO_LIBTORCH
        ))
    }

    pub fn score_moves(
        &self,
        _board: &crate::chess::CompactBoard,
        _white_to_move: bool,
        _moves: &[PolicyMove],
    ) -> Result<Vec<f32>, super::EvalError> {
        match self.never {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;
    use shakmaty::Color;

    #[test]
    fn moves_are_put_in_the_side_to_move_frame() {
        let fen = |turn| format!("r3k2r/8/8/8/8/8/8/R3K2R {turn} KQkq - 0 1");
        let white = Position::from_fen(&fen("w")).unwrap();
        let castle = white.parse_uci_move("e1g1").expect("short castle");
        let p = PolicyMove::new(&castle, Color::White);
        assert_eq!((p.from, p.to, p.role), (4, 6, Role::King));
        let black = Position::from_fen(&fen("b")).unwrap();
        // Black's long castle e8 → c8 is, mirrored, e1 → c1.
        let castle = black.parse_uci_move("e8c8").unwrap();
        let p = PolicyMove::new(&castle, Color::Black);
        assert_eq!((p.from, p.to), (4, 2));
        // a8a7 → a1a2 mirrored.
        let push = black.parse_uci_move("a8a7").unwrap();
        let p = PolicyMove::new(&push, Color::Black);
        assert_eq!((p.from, p.to, p.role), (0, 8, Role::Rook));
    }
}
