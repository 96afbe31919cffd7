//! The policy's libtorch module, shared by the search threads behind a lock.

use super::PolicyMove;
use crate::chess::CompactBoard;
use crate::eval::EvalError;
use crate::net::{NetFile, NetModule, Planes, Policy, HEADS};
use parking_lot::Mutex;
use tch::nn::VarStore;
use tch::{Device, Kind, Tensor};

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
