//! UCI text at the edge: parse lines into commands, format search events.
//!
//! Threads: `io::spawn_reader` turns stdin into [`command::Command`]s on a channel;
//! `run::UciLoop` selects over those and the search's events and owns stdout.

pub mod command;
pub mod format;
pub mod io;
pub mod options;
pub mod run;

#[cfg(test)]
mod fuzz;

pub use command::{parse_line, Command, ParseError};
pub use run::{run_stdio, run_uci, UciLoop};
