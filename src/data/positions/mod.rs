//! Labelled positions for win/loss classifiers (issue #7) and move-selection policy nets
//! (issue #8): every position of a game with the game's result and the move played from it,
//! in a versioned binary file (`CRSPOS01`, see [`header`] and [`record`]) with a crash-safe
//! writer and a validating reader.
//!
//! `cerise data positions` is [`run_positions_cli`]; `cerise data positions-info` is
//! [`run_positions_info`]. A trainer needs only [`PositionReader`] and [`LabelledPosition`].

#[cfg(feature = "pgn")]
pub mod cli;
pub mod ending;
#[cfg(feature = "pgn")]
pub mod extract;
pub mod header;
pub mod info;
#[cfg(feature = "pgn")]
pub mod pipeline;
pub mod record;

#[cfg(feature = "pgn")]
pub use cli::{run_positions_cli, PositionArgs};
pub use ending::Ending;
pub use header::PositionHeader;
pub use info::{run_positions_info, PositionsInfo, PositionsInfoArgs};
#[cfg(feature = "pgn")]
pub use pipeline::{split_paths, write_positions, PositionConfig, PositionSummary};
pub use record::{LabelledPosition, RECORD_BYTES};

/// Reads `.pos` files.
pub type PositionReader = super::records::RecordReader<PositionHeader>;
/// Writes `.pos` files.
pub type PositionWriter = super::records::RecordWriter<PositionHeader>;

#[cfg(all(test, feature = "pgn"))]
mod tests;
