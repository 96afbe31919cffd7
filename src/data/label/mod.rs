//! `cerise data label`: middlegame positions of master games labelled with a UCI engine's
//! evaluation (Stockfish for the real set), for the RBF evaluator and the regression nets it
//! is compared with (issue #9).
//!
//! [`select`] chooses the positions (the phase rule is in [`phase`]), [`uci_client`] drives one
//! engine process, [`run`] labels with several of them and appends to the text file of
//! [`file`], which a killed run resumes without relabelling anything.

pub mod cli;
pub mod file;
pub mod phase;
pub mod run;
pub mod select;
pub mod uci_client;

pub use cli::{run_label_cli, LabelArgs};
pub use file::{Label, LabelRow, LabelsFile, LabelsHeader};

#[cfg(test)]
mod tests;
