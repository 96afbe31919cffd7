//! Evaluation: the only place inference runs. Search sees only the [`Evaluator`] trait.
//!
//! One folder per backend that runs a net file: `torch/` (libtorch: the reference, the
//! trainer's model code, CUDA), `native/` (incremental CPU code, inline in each search
//! thread) and `rbf/`. Beside them the built-in evaluators (`material`, `fake`), the
//! embedded net, the evaluation cache, the thread policy for libtorch and the throughput
//! tool. Without the `torch` feature there is no `torch/` (nor the tools that compare or
//! time it): the opener refuses what only libtorch runs, saying so.
//!
//! The route of an `EvalFile` value (the UCI option, or `--eval` of bench, datagen and
//! harden) to a running evaluator:
//! 1. [`EvalSpec`] parses the text once: `<embedded>`, `<material>`, `<fake>` or a path.
//! 2. [`open()`] reads a file with [`crate::net::load_any`], which knows every family.
//! 3. [`route`] decides the backend, the precision and what the device allows, in one
//!    rule: `auto` is native on the CPU unless the net is not an MLP, libtorch's `auto` is
//!    fp32, half precisions need CUDA, int8 is native only.
//! 4. That backend's folder builds the evaluator, in what the route chose.
//! 5. The engine (or bench, or datagen) puts it behind [`CachedEvaluator`] for the search.

#[cfg(feature = "torch")]
pub mod agreement;
pub mod backend;
pub mod cache;
pub mod embedded;
pub mod fake;
pub mod material;
pub mod native;
pub mod open;
pub mod policy;
pub mod rbf;
pub mod route;
pub mod searcher;
pub mod settings;
pub mod threads;
#[cfg(feature = "torch")]
pub mod throughput;
#[cfg(feature = "torch")]
pub mod torch;
pub mod wdl;

#[cfg(test)]
mod corrupt_tests;

pub use backend::Backend;
pub use cache::{CacheScratch, CachedEvaluator, EvalCache};
pub use fake::FakeEvaluator;
pub use material::MaterialEvaluator;
pub use native::NativeEvaluator;
pub use open::{open, EvalSpec};
pub use policy::{MovePolicy, PolicyMove};
pub use rbf::RbfEvaluator;
pub use searcher::{BatchStats, SearcherGuard};
pub use settings::{Encoder, NetEvaluatorConfig, Precision, MAX_BATCH_LIMIT};
#[cfg(feature = "torch")]
pub use torch::NetEvaluator;

use crate::chess::CompactBoard;

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("the evaluator thread has stopped: {0}")]
    Stopped(String),
    #[error("inference failed: {0}")]
    Inference(String),
}

/// What search and the UCI layer may know about an evaluator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalInfo {
    /// Human-readable, e.g. "material" or "net cerise-small-0123456789ab (small)".
    pub name: String,
    /// "cpu", "cuda:0", …
    pub device: String,
    /// Largest batch one forward pass takes; larger calls are split by the evaluator.
    pub max_batch: usize,
    /// The backend running a net (`None` for the built-in evaluators).
    pub backend: Option<Backend>,
}

impl EvalInfo {
    /// `evaluator NAME on DEVICE`, then `, backend B` for a net: how the engine and `bench`
    /// name the evaluator in use.
    pub fn describe(&self) -> String {
        match self.backend {
            Some(backend) => format!(
                "evaluator {} on {}, backend {backend}",
                self.name, self.device
            ),
            None => format!("evaluator {} on {}", self.name, self.device),
        }
    }
}

/// Scores many positions in one call.
///
/// Every score is in centipawns from the point of view of the side to move of that board
/// (which, by the `CompactBoard` convention, is always "us").
pub trait Evaluator: Send + Sync {
    /// Replaces the contents of `out` with one score per board, in order.
    fn evaluate(&self, boards: &[CompactBoard], out: &mut Vec<f32>) -> Result<(), EvalError>;

    /// Scores the children of `parent` (each one legal move away from it), like
    /// [`Evaluator::evaluate`] on `children`. The search always knows the parent, and an
    /// incremental evaluator updates the parent's first layer instead of starting over; the
    /// default ignores it.
    fn evaluate_children(
        &self,
        parent: &CompactBoard,
        children: &[CompactBoard],
        out: &mut Vec<f32>,
    ) -> Result<(), EvalError> {
        let _ = parent;
        self.evaluate(children, out)
    }

    fn info(&self) -> EvalInfo;

    /// Whether a board with the other side to move always scores exactly the negative (the
    /// material count, the antisymmetric nets). The search then scores a null move without
    /// asking; a plain net has a side-to-move bias and must be asked.
    fn is_zero_sum(&self) -> bool {
        false
    }

    /// Score and the terms that make it up, for the UCI `eval` command.
    fn breakdown(&self, board: &CompactBoard) -> Result<Vec<(String, f32)>, EvalError> {
        let mut out = Vec::with_capacity(1);
        self.evaluate(std::slice::from_ref(board), &mut out)?;
        Ok(vec![("total".to_string(), out[0])])
    }

    /// Called by each search thread before it starts evaluating; it holds the guard until it
    /// will make no more calls. A batching evaluator uses the count of registered searchers
    /// to flush as soon as all of them are waiting; the default does nothing.
    fn register_searcher(&self) -> SearcherGuard {
        SearcherGuard::none()
    }

    /// Cumulative batching figures, for evaluators that batch; `None` otherwise.
    fn batch_stats(&self) -> Option<BatchStats> {
        None
    }
}

/// The `eval` breakdown of a net evaluator: the raw network output in its family's
/// convention (`raw_sign` −1: an MLP's f, for the side that just moved; +1: a CNN's logit,
/// for the side to move), its scale, and the score.
pub fn net_breakdown(
    eval: &dyn Evaluator,
    board: &CompactBoard,
    cp_per_unit: f32,
    raw_sign: f32,
) -> Result<Vec<(String, f32)>, EvalError> {
    let mut out = Vec::with_capacity(1);
    eval.evaluate(std::slice::from_ref(board), &mut out)?;
    let score = out[0];
    let raw_name = if raw_sign < 0.0 {
        "raw f (side that just moved)"
    } else {
        "raw logit (side to move wins)"
    };
    let raw = raw_sign * score / cp_per_unit;
    let mut terms = vec![(raw_name.to_string(), raw)];
    if raw_sign > 0.0 {
        terms.push((
            "win probability (side to move)".to_string(),
            1.0 / (1.0 + (-raw).exp()),
        ));
    }
    terms.push(("cp_per_unit".to_string(), cp_per_unit));
    terms.push(("score (side to move, cp)".to_string(), score));
    Ok(terms)
}
