//! Training data: Deep Pink triplets `(p, q, r)` extracted from PGN games, in a versioned
//! binary file format (see [`triplets`]) with a crash-safe writer and a validating reader.
//!
//! `cerise data triplets` is [`run_triplets_cli`]. A trainer needs only [`TripletReader`]
//! and [`Triplet`]. This module depends on `chess` only, never on `search`.
//!
//! Wiring the subcommand (clap derive):
//!
//! ```ignore
//! #[derive(clap::Subcommand)]
//! enum DataCommand { Triplets(cerise::data::TripletArgs) }
//! // ...
//! DataCommand::Triplets(args) => println!("{}", cerise::data::run_triplets_cli(&args)?),
//! ```
//!
//! Measured (release, one core): 327 291 master games (`masters_pgnmentor_players.pgn.bz2`,
//! 43 MiB) → 24.0 M triplets, 4.6 GB, in 25 s (13 k games/s, bz2 decoding included).
//!
//! `cerise data positions` ([`positions`]) writes the other kind of training file: single
//! positions labelled with the game's result (White's view) and the move played, for
//! win/loss classifiers and move-selection nets (`CRSPOS01`, 72-byte records). A trainer
//! needs only [`PositionReader`] and [`LabelledPosition`]. Wiring, as for triplets:
//! `DataCommand::Positions(cerise::data::PositionArgs) => run_positions_cli(&args)?` and
//! `DataCommand::PositionsInfo(cerise::data::PositionsInfoArgs) => run_positions_info(&args)?`.
//!
//! Measured (release, one core, the same 327 291 games): `--ending decisive` keeps 193 033
//! games → 16.6 M positions, 1.2 GB, in 13 s; `--ending mate` keeps the 3 803 games that end
//! in checkmate → 321 k positions (285 k / 18 k / 18 k train/valid/test) in 10 s. Eight
//! decisive games end in a mate by the side the result calls the loser; they are skipped.
//!
//! What reads games (PGN, `label`) comes with the `pgn` feature; the file formats, which
//! self-play writes and the trainer reads, are in every build.

#[cfg(feature = "pgn")]
pub mod cli;
pub mod date;
pub mod filter;
#[cfg(feature = "pgn")]
pub mod games;
#[cfg(feature = "pgn")]
pub mod label;
#[cfg(feature = "pgn")]
pub mod pgn;
pub mod positions;
pub mod records;
pub mod rng;
pub mod selfplay;
pub mod split;
pub mod triplets;

pub use date::{Cutoff, PgnDate};
pub use filter::{GameResult, ResultFilter, SkipReason};
#[cfg(feature = "pgn")]
pub use label::{run_label_cli, LabelArgs, LabelsFile};
#[cfg(feature = "pgn")]
pub use positions::{run_positions_cli, PositionArgs};
pub use positions::{
    run_positions_info, Ending, LabelledPosition, PositionReader, PositionsInfoArgs,
};
pub use split::{Split, SplitRatios};
#[cfg(feature = "pgn")]
pub use triplets::cli::{run_triplets_cli, TripletArgs};
pub use triplets::format::{Triplet, TripletHeader, RECORD_BYTES};
pub use triplets::merge::{run_merge_cli, MergeArgs, MergeSummary};
#[cfg(feature = "pgn")]
pub use triplets::pipeline::{split_paths, write_triplets, TripletConfig, TripletSummary};

/// Reads `.trip` files.
pub type TripletReader = records::RecordReader<TripletHeader>;
/// Writes `.trip` files.
pub type TripletWriter = records::RecordWriter<TripletHeader>;

#[cfg(all(test, feature = "pgn"))]
mod golden;
#[cfg(test)]
pub(crate) mod testing;
