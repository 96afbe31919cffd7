//! Labelled positions for win/loss classifiers (issue #7) and move-selection policy nets
//! (issue #8): every position of a game with the game's result and the move played from it,
//! in a versioned binary file (`CRSPOS01`, see [`header`] and [`record`]) with a crash-safe
//! writer and a validating reader. A trainer needs only [`PositionReader`] and
//! [`LabelledPosition`].

pub mod ending;
pub mod header;
pub mod reader;
pub mod record;
pub mod writer;

pub use ending::Ending;
pub use header::PositionHeader;
pub use reader::PositionReader;
pub use record::{LabelledPosition, RECORD_BYTES};
pub use writer::PositionWriter;
