//! Self-play data: the positions of Cerise's games against itself, each with the search's
//! score and best move and the game's result (`CRSSELF1`, 40-byte records; see [`record`] and
//! [`header`]). `cerise datagen` writes them (the games are played above the search layer, in
//! `crate::datagen`); this module only reads, describes, merges, packs and converts them, so the
//! trainer can use them without the search.

pub mod header;
pub mod info;
pub mod merge;
pub mod pack;
pub mod record;
// Self-play to triplets shares the PGN pipeline's triplet code.
#[cfg(feature = "pgn")]
pub mod triplets;

#[cfg(test)]
mod corrupt_tests;

pub use header::SelfPlayHeader;
pub use record::{Outcome, SelfPlayRecord, StoredMove, RECORD_BYTES};

/// Reads self-play files (the committed records of one still being written, too).
pub type SelfPlayReader = super::records::RecordReader<SelfPlayHeader>;
/// Appends to self-play files in commits of whole games.
pub type SelfPlayAppender = super::records::RecordAppender<SelfPlayHeader>;
