//! The Deep Pink trainer (`cerise train`) and the net quality report (`cerise evalnet`).
//!
//! Training uses the engine's own [`crate::net::Mlp`] and writes nets with
//! [`crate::net::file::save`], so every checkpoint is a net the engine loads. The objective
//! and its sign convention are derived in [`loss`]. This module never depends on `search`.

pub mod checkpoint;
pub mod cli;
pub mod config;
pub mod evalnet;
pub mod loader;
pub mod loss;
pub mod metrics;
pub mod model;
pub mod optim;
pub mod plot;
pub mod run;

pub use cli::{run_train_cli, TrainArgs};
pub use config::{OptimKind, TrainConfig};
pub use run::{train, TrainOutcome};

#[cfg(test)]
mod tests;
