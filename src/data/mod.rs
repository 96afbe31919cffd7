//! Training data: Deep Pink triplets `(p, q, r)` extracted from PGN games, in a versioned
//! binary file format (see [`format`]) with a crash-safe writer and a validating reader.
//!
//! `cerise data triplets` is [`run_triplets_cli`]. A trainer needs only [`TripletReader`]
//! and [`Triplet`]. This module depends on `chess` only, never on `search`.

pub mod cli;
pub mod filter;
pub mod format;
pub mod pgn;
pub mod pipeline;
pub mod reader;
pub mod rng;
pub mod split;
pub mod triplets;
pub mod writer;

pub use cli::{run_triplets_cli, TripletArgs};
pub use filter::{GameResult, ResultFilter, SkipReason};
pub use format::{Split, Triplet, TripletHeader, RECORD_BYTES};
pub use pipeline::{split_paths, write_triplets, TripletConfig, TripletSummary};
pub use reader::TripletReader;
pub use split::SplitRatios;
pub use writer::TripletWriter;

#[cfg(test)]
mod tests;
