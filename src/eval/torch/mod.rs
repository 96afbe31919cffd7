//! The libtorch backend: the reference implementation, the trainer's own model code, and
//! the GPU path. One thread owns the model (`model`, run by `batcher`); searchers call the
//! evaluator (`evaluator`), which reaches it through the batcher's channels.

pub mod batcher;
pub mod colours;
pub mod evaluator;
pub mod model;
#[cfg(test)]
mod tests;

pub use colours::TrueColourCnn;
pub use evaluator::NetEvaluator;
