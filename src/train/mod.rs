//! The Deep Pink trainer (`cerise train`) and the net quality report (`cerise evalnet`).
//!
//! Training uses the engine's own [`crate::net::Mlp`] and writes nets with
//! [`crate::net::file::save`], so every checkpoint is a net the engine loads. The objective
//! and its sign convention are derived in [`loss`]. This module never depends on `search`.

pub mod checkpoint;
pub mod cli;
pub mod config;
pub mod evalnet;
pub mod evalpolicy;
pub mod evalpos;
pub mod loader;
pub mod loss;
pub mod memory;
pub mod metrics;
pub mod model;
pub mod native_step;
pub mod objective;
pub mod optim;
pub mod persp_batch;
pub mod persp_step;
pub mod plot;
pub mod policy;
pub mod rbf;
pub mod regress;
pub mod run;
pub mod schedule;
pub mod selfplay;
pub mod speed;
pub mod value;
pub mod warm;
pub mod wdl;
pub mod winloss;

pub use cli::{run_train_cli, TrainArgs};
pub use config::{ObjectiveKind, OptimKind, TrainConfig};
pub use run::{redraw_curves, train, TrainOutcome};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_persp;
#[cfg(test)]
mod tests_winloss;
