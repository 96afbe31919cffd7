//! A deterministic evaluator for search tests: each board hashes to a fixed score, with an
//! optional delay per call that imitates GPU latency.

use super::{EvalError, EvalInfo, Evaluator};
use crate::chess::CompactBoard;

pub struct FakeEvaluator {
    pub delay: std::time::Duration,
}
