//! Cerise: a UCI chess engine whose evaluation is a Deep Pink-style network run on libtorch.
//!
//! Layers, each depending only on those before it:
//! `chess` (positions, moves) ← `eval` (the batch-first [`eval::Evaluator`] trait and its
//! implementations; the only place inference runs) ← `search` ← `engine` / `uci`.
//! `net` holds the single model definition shared by the engine and the trainer.

pub mod bench;
pub mod chess;
pub mod data;
pub mod engine;
pub mod eval;
pub mod net;
pub mod search;
pub mod train;
pub mod uci;
