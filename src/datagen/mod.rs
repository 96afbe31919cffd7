//! `cerise datagen`: Cerise plays itself at a fixed node budget a move, and every searched
//! position is written with the search's score, its best move and the game's result
//! (`crate::data::selfplay`'s file). This is Deep Pink's next step, "harder training
//! examples, ideally fed from mistakes it made": positions from the engine's own games,
//! labelled by its own search.
//!
//! - [`opening`]: each game starts from random legal plies (seeded per game), after a book
//!   line if one is given; starts the search already finds lopsided are skipped.
//! - [`game`]: one game to its end by the rules or by adjudication.
//! - [`run`]: games on every core, written in game order and committed whole, so that a
//!   killed run resumes with the same command, losing and repeating nothing; the file's
//!   bytes depend only on the settings, not on the number of threads.
//!
//! It sits above `search` and `engine` (it plays games); the file format and everything that
//! reads it sit in `data`, which the trainer uses without the search.

pub mod adjudicate;
pub mod game;
pub mod opening;
pub mod run;

pub use game::{play_game, GameConfig, GameEnd, PlayedGame};
pub use run::{run_datagen, run_datagen_cli, DatagenArgs, DatagenSummary};

#[cfg(test)]
pub(crate) mod tests;
