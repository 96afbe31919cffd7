//! Regression data in memory: each split's inputs and targets.

use crate::chess::CompactBoard;

/// One split's inputs (row-major) and targets, and the board each row came from (the
/// comparison models that read the board itself need it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rows {
    pub inputs: Vec<f32>,
    pub targets: Vec<f32>,
    pub boards: Vec<CompactBoard>,
}

impl Rows {
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }
}

/// The three splits and what was left out.
#[derive(Clone, Debug, Default)]
pub struct RegressionData {
    /// Inputs per row: the features, then the scenario's depths.
    pub width: usize,
    pub input_names: Vec<String>,
    pub extra_inputs: Vec<String>,
    pub splits: [Rows; 3],
    pub mates_dropped: u64,
    pub large_dropped: u64,
    /// Time spent computing features, for the per-prediction cost.
    pub feature_seconds: f64,
}
