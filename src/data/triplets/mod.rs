//! Deep Pink triplets `(p, q, r)`: a position, the child after the move played and the child
//! after a random other move, in their own record file (`CRSTRIP1`, `.trip`; see [`format`]).
//!
//! - [`extract`]: the triplets of one game.
//! - [`pipeline`]: a PGN stream into three split files; [`cli`] is `cerise data triplets`.
//! - [`merge`]: `cerise data merge`, triplet files of one kind joined into one.
//!
//! The other record files made from games sit beside this folder: labelled positions in
//! `positions/`, the engine's own games in `selfplay/`.

#[cfg(feature = "pgn")]
pub mod cli;
#[cfg(feature = "pgn")]
pub mod extract;
pub mod format;
pub mod merge;
#[cfg(feature = "pgn")]
pub mod pipeline;
#[cfg(all(test, feature = "pgn"))]
mod tests;
