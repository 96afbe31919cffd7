//! Piece values only: the baseline evaluator.

use super::{EvalError, EvalInfo, Evaluator};
use crate::chess::CompactBoard;

pub struct MaterialEvaluator;
