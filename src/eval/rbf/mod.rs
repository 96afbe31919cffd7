//! The RBF backend: the hand-made features of each board (`features`), then the RBF net's
//! thin-plate-spline layer, on the calling search thread. No batching is needed: one
//! position costs microseconds and nothing is shared but the read-only net.

use super::{EvalError, EvalInfo, Evaluator};
use crate::chess::CompactBoard;
use crate::features;
use crate::net::rbf::RbfNet;

/// Centipawns per pawn of the net's output.
const CP_PER_PAWN: f32 = 100.0;

pub struct RbfEvaluator {
    net: RbfNet,
    name: String,
}

impl RbfEvaluator {
    /// Checks that the engine can feed the net: its feature set, and no search inputs.
    pub fn new(net: RbfNet, origin: &str, content_id: &str) -> Result<Self, String> {
        if net.features != features::VERSION {
            return Err(format!(
                "{origin} was trained on features `{}`, this engine computes `{}`; retrain it \
                 with `cerise train-rbf`",
                net.features,
                features::VERSION
            ));
        }
        if !net.extra_inputs.is_empty() {
            return Err(format!(
                "{origin} needs the search inputs {} (the study's scenario 1 or 2), which a \
                 search cannot give at every node; train a scenario 3 net (`cerise train-rbf \
                 --scenario 3`) to play with",
                net.extra_inputs.join(", ")
            ));
        }
        if net.inputs() != features::COUNT {
            return Err(format!(
                "{origin} has {} inputs, the feature set `{}` has {}; the file is damaged",
                net.inputs(),
                features::VERSION,
                features::COUNT
            ));
        }
        let name = format!(
            "rbf {content_id} ({} centres, {})",
            net.centres_count(),
            net.sets_label()
        );
        Ok(RbfEvaluator { net, name })
    }

    fn score(&self, board: &CompactBoard, x: &mut [f32], scratch: &mut Vec<f32>) -> f32 {
        features::extract_stm(board, x);
        self.net.predict(x, scratch) * CP_PER_PAWN
    }
}

impl Evaluator for RbfEvaluator {
    fn evaluate(&self, boards: &[CompactBoard], out: &mut Vec<f32>) -> Result<(), EvalError> {
        out.clear();
        let mut x = vec![0.0; features::COUNT];
        let mut scratch = Vec::with_capacity(features::COUNT);
        out.extend(boards.iter().map(|b| self.score(b, &mut x, &mut scratch)));
        Ok(())
    }

    fn info(&self) -> EvalInfo {
        EvalInfo {
            name: self.name.clone(),
            device: "cpu".to_string(),
            max_batch: 4096,
            backend: None,
        }
    }

    /// The net's output in pawns, its size, and the score.
    fn breakdown(&self, board: &CompactBoard) -> Result<Vec<(String, f32)>, EvalError> {
        let mut x = vec![0.0; features::COUNT];
        let score = self.score(board, &mut x, &mut Vec::new());
        Ok(vec![
            ("rbf pawns (side to move)".to_string(), score / CP_PER_PAWN),
            ("centres".to_string(), self.net.centres_count() as f32),
            ("score (side to move, cp)".to_string(), score),
        ])
    }
}
