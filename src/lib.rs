//! Cerise: a UCI chess engine whose evaluation is a Deep Pink-style network run on libtorch.
//!
//! Layers, each depending only on those before it:
//!
//! `chess` ← `net` ← `eval` ← `search` ← `engine` ← {`uci`, `bench`}
//!
//! - `chess`: positions, moves, perft.
//! - `net`: the single model definition, shared by the evaluators and the trainer.
//! - `eval`: the batch-first [`eval::Evaluator`] trait and its implementations; the only
//!   place inference runs.
//! - `search`: alpha-beta over an evaluator; it reports in typed events, never in text.
//! - `engine`: the façade that owns the position, the tables, the evaluator and the
//!   options (their types, defaults, ranges and validation); it knows no UCI text.
//! - `uci` parses text into commands and formats the engine's reports; `bench` runs the
//!   fixed search signature (the UCI `bench` command calls it, so `uci` may use `bench`).
//!
//! - `choice` (below every layer): the macro that makes a choice enum (`Backend`,
//!   `Precision`, …) from one table of names; it names no other module.
//! - `features` (after `chess`): about 200 named, hand-made static features of a position
//!   (Stockfish 10-style evaluation terms per side) for an RBF evaluator; it depends on
//!   `chess` and shakmaty only, and any later layer may use it.
//!
//! Beside them, `data` (PGN to training triplets) depends on `chess` and `net` only, and
//! `train` on those, `data` and `eval` (a trained net is run as the engine runs it): neither
//! ever depends on search. The binary (`main.rs`) may use everything, and so may the tests
//! of pipelines that cross layers (`end_to_end`). A test (`layers`) scans the sources, test
//! code included, and fails on an upward import or an import loop between the files of any
//! module.
//! `harden` (hard training examples chosen by a net) sits above `eval` and `data` for the
//! same reason: it runs a net on training data, so `data` itself never does. `datagen`
//! (`cerise datagen`) plays games with the search and writes them with `data`'s self-play
//! file: it sits above `engine` and `bench` (whose search signature its files record), while
//! the file format and the trainer that reads it stay below the search.
//!
//! The `torch` feature (on by default) brings libtorch: the torch backend, the CNN and policy
//! modules, `train` and `harden`. Without it the crate is the engine on the native backend;
//! each model's layout (`net`'s architectures and file format) is the same in both builds.

// First, so that every module below may expand its macro.
#[macro_use]
mod choice;

pub mod bench;
pub mod chess;
pub mod data;
pub mod datagen;
#[cfg(test)]
mod doc_links;
#[cfg(all(test, feature = "torch"))]
mod end_to_end;
pub mod engine;
pub mod eval;
pub mod features;
#[cfg(feature = "torch")]
pub mod harden;
#[cfg(test)]
mod layers;
pub mod net;
pub mod search;
#[cfg(feature = "torch")]
pub mod train;
pub mod uci;
