//! A copy-make position over shakmaty with an incrementally updated Zobrist key.

use super::board::CompactBoard;
use shakmaty::{Color, Move, MoveList};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ChessError {
    #[error("invalid FEN '{fen}': {reason}")]
    BadFen { fen: String, reason: String },
    #[error("'{mv}' is not a legal move in {fen}")]
    IllegalMove { mv: String, fen: String },
    #[error("'{0}' is not a move in UCI notation (expected e.g. e2e4 or e7e8q)")]
    BadMoveSyntax(String),
}

#[derive(Clone, Debug)]
pub struct Position {
    inner: shakmaty::Chess,
    key: u64,
}

impl Position {
    pub fn startpos() -> Self {
        todo!()
    }
    pub fn from_fen(fen: &str) -> Result<Self, ChessError> {
        todo!("{fen}")
    }
    pub fn fen(&self) -> String {
        todo!()
    }
    /// Zobrist key (shakmaty's Zobrist64, en passant counted only when legal).
    pub fn key(&self) -> u64 {
        self.key
    }
    pub fn inner(&self) -> &shakmaty::Chess {
        &self.inner
    }
    pub fn turn(&self) -> Color {
        todo!()
    }
    pub fn legal_moves(&self) -> MoveList {
        todo!()
    }
    /// Captures (en passant included) and promotions: the quiescence move set.
    pub fn noisy_moves(&self) -> MoveList {
        todo!()
    }
    pub fn is_check(&self) -> bool {
        todo!()
    }
    pub fn halfmoves(&self) -> u32 {
        todo!()
    }
    pub fn fullmoves(&self) -> u32 {
        todo!()
    }
    pub fn is_insufficient_material(&self) -> bool {
        todo!()
    }
    /// The position after the legal move `m`, with its key updated incrementally.
    pub fn play(&self, m: &Move) -> Position {
        todo!("{m:?}")
    }
    /// Parses and validates a UCI move (e2e4, e7e8q; castling as king-two-squares e1g1,
    /// and king-takes-rook e1h1 is accepted too).
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, ChessError> {
        todo!("{text}")
    }
    /// Standard UCI notation (castling as e1g1).
    pub fn move_to_uci(&self, m: &Move) -> String {
        todo!("{m:?}")
    }
    pub fn compact(&self) -> CompactBoard {
        CompactBoard::from_chess(&self.inner)
    }
    /// An ASCII diagram, White at the bottom, for the `d` command.
    pub fn diagram(&self) -> String {
        todo!()
    }
}
