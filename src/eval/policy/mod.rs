//! A ConvChess policy file run on libtorch (CPU): the piece selector's and the six move
//! selectors' log-probabilities for a board, combined per move as the study's player does:
//! log p_piece(from) + log p_move(role)(to).
//!
//! It scores moves, not positions, so it is not an [`super::Evaluator`]; the engine's
//! `PlayMode policy` asks it for the move to play.

use super::EvalError;
use crate::chess::{stm_move_squares, CompactBoard};
use crate::net::{NetFile, NetModule, Planes, Policy, HEADS};
use parking_lot::Mutex;
use shakmaty::Role;
use tch::nn::VarStore;
use tch::{Device, Kind, Tensor};

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

pub struct MovePolicy {
    /// The module and the store that owns its tensors; libtorch modules are not `Sync`.
    inner: Mutex<(VarStore, Box<Policy>)>,
    planes: Planes,
    pub name: String,
}

impl MovePolicy {
    /// Loads a validated `convchess-policy` file onto the CPU.
    pub fn from_net(net: &NetFile, origin: &str) -> Result<Self, String> {
        let crate::net::ModelArch::Policy(arch) = &net.meta.arch else {
            return Err(format!(
                "{origin} is a {} net, not a policy: Policy takes a convchess-policy file (an \
                 evaluator goes in EvalFile)",
                net.meta.arch.family_name()
            ));
        };
        let vs = VarStore::new(Device::Cpu);
        let NetModule::Policy(policy) = NetModule::zeroed(&vs.root(), &net.meta.arch) else {
            unreachable!("a policy arch builds a policy module");
        };
        net.copy_into(&vs)
            .map_err(|e| format!("cannot load Policy '{origin}': {e}"))?;
        Ok(MovePolicy {
            planes: arch.input,
            inner: Mutex::new((vs, policy)),
            name: format!("policy {} ({})", net.content_id, net.meta.preset),
        })
    }

    /// One score per move, higher is better: the study's log p_piece(from) + log p(to).
    /// `white_to_move` is the board's real side to move (the planes of some inputs use it).
    pub fn score_moves(
        &self,
        board: &CompactBoard,
        white_to_move: bool,
        moves: &[PolicyMove],
    ) -> Result<Vec<f32>, EvalError> {
        let mut x = vec![0f32; self.planes.width()];
        self.planes.encode_into(board, white_to_move, &mut x);
        let x = Tensor::from_slice(&x).view([1, self.planes.width() as i64]);
        let guard = self.inner.lock();
        let policy = &guard.1;
        let heads: Vec<Vec<f32>> = tch::no_grad(|| {
            (0..HEADS.len())
                .map(|h| {
                    let logits = policy
                        .f_forward_head(&x, h)
                        .map_err(|e| EvalError::Inference(e.to_string()))?;
                    let logp = logits.log_softmax(-1, Kind::Float).view([-1]);
                    Vec::<f32>::try_from(&logp).map_err(|e| EvalError::Inference(e.to_string()))
                })
                .collect::<Result<_, _>>()
        })?;
        Ok(moves
            .iter()
            .map(|m| heads[0][m.from] + heads[m.role as usize][m.to])
            .collect())
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
