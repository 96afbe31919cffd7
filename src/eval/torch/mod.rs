//! The libtorch backend: the reference implementation, the trainer's own model code, and
//! the GPU path. One thread owns the model (`model`); searchers reach it through the
//! batcher's channels (`batcher`).

pub mod batcher;
pub mod colours;
pub mod model;

pub use batcher::NetEvaluator;
pub use colours::TrueColourCnn;
