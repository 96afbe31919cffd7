//! A copy-make position over shakmaty with an incrementally updated Zobrist key.

use super::board::CompactBoard;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Color, EnPassantMode, Move, MoveList, Position as _, Role, Square};

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

/// Longest text echoed back in an error, so a hostile 10 kB "move" does not flood the log.
const ECHO_LIMIT: usize = 32;

fn full_key(pos: &shakmaty::Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

fn echo(text: &str) -> String {
    if text.len() <= ECHO_LIMIT {
        return text.to_string();
    }
    let mut end = ECHO_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// Strict syntax of a UCI move: from-square, to-square, optional promotion piece.
fn parse_uci_syntax(text: &str) -> Option<(Square, Square, Option<Role>)> {
    let b = text.as_bytes();
    if !(4..=5).contains(&b.len()) {
        return None;
    }
    let square = |f: u8, r: u8| -> Option<Square> {
        if !(b'a'..=b'h').contains(&f) || !(b'1'..=b'8').contains(&r) {
            return None;
        }
        Some(Square::from_coords(
            shakmaty::File::new(u32::from(f - b'a')),
            shakmaty::Rank::new(u32::from(r - b'1')),
        ))
    };
    let from = square(b[0], b[1])?;
    let to = square(b[2], b[3])?;
    let promotion = match b.get(4) {
        None => None,
        Some(b'q') => Some(Role::Queen),
        Some(b'r') => Some(Role::Rook),
        Some(b'b') => Some(Role::Bishop),
        Some(b'n') => Some(Role::Knight),
        Some(_) => return None,
    };
    Some((from, to, promotion))
}

impl Position {
    pub fn startpos() -> Self {
        let inner = shakmaty::Chess::default();
        let key = full_key(&inner);
        Position { inner, key }
    }

    pub fn from_fen(fen: &str) -> Result<Self, ChessError> {
        let bad = |reason: String| ChessError::BadFen {
            fen: echo(fen.trim()),
            reason,
        };
        let parsed: Fen = fen.trim().parse().map_err(|e| bad(format!("{e}")))?;
        let inner: shakmaty::Chess = parsed
            .into_position(CastlingMode::Standard)
            .map_err(|e| bad(format!("{e}")))?;
        let key = full_key(&inner);
        Ok(Position { inner, key })
    }

    pub fn fen(&self) -> String {
        Fen::from_position(&self.inner, EnPassantMode::Legal).to_string()
    }
    /// Zobrist key (shakmaty's Zobrist64, en passant counted only when legal).
    pub fn key(&self) -> u64 {
        self.key
    }
    pub fn inner(&self) -> &shakmaty::Chess {
        &self.inner
    }
    pub fn turn(&self) -> Color {
        self.inner.turn()
    }
    pub fn legal_moves(&self) -> MoveList {
        self.inner.legal_moves()
    }
    /// Captures (en passant included) and promotions: the quiescence move set.
    pub fn noisy_moves(&self) -> MoveList {
        let mut moves = self.inner.legal_moves();
        moves.retain(|m| m.is_capture() || m.is_promotion());
        moves
    }
    pub fn is_check(&self) -> bool {
        self.inner.is_check()
    }
    pub fn halfmoves(&self) -> u32 {
        self.inner.halfmoves()
    }
    pub fn fullmoves(&self) -> u32 {
        self.inner.fullmoves().get()
    }
    pub fn is_insufficient_material(&self) -> bool {
        self.inner.is_insufficient_material()
    }
    /// The position after the legal move `m`, with its key updated incrementally.
    pub fn play(&self, m: &Move) -> Position {
        let incremental =
            self.inner
                .update_zobrist_hash(Zobrist64(self.key), *m, EnPassantMode::Legal);
        let mut inner = self.inner.clone();
        inner.play_unchecked(*m);
        // shakmaty declines king moves, castling-right changes and double pushes (where the
        // legal-ep term may change); those are rare enough to recompute in full.
        let key = match incremental {
            Some(z) => z.0,
            None => full_key(&inner),
        };
        Position { inner, key }
    }
    /// Parses and validates a UCI move (e2e4, e7e8q; castling as king-two-squares e1g1,
    /// and king-takes-rook e1h1 is accepted too).
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, ChessError> {
        let (from, to, promotion) =
            parse_uci_syntax(text).ok_or_else(|| ChessError::BadMoveSyntax(echo(text)))?;
        let illegal = || ChessError::IllegalMove {
            mv: text.to_string(),
            fen: self.fen(),
        };
        let m = UciMove::Normal {
            from,
            to,
            promotion,
        }
        .to_move(&self.inner)
        .map_err(|_| illegal())?;
        // `to_move` already checks legality, but only membership in the generated list is
        // beyond doubt; the extra check costs nothing next to a search.
        if self.inner.is_legal(m) {
            Ok(m)
        } else {
            Err(illegal())
        }
    }
    /// Standard UCI notation (castling as e1g1).
    pub fn move_to_uci(&self, m: &Move) -> String {
        m.to_uci(CastlingMode::Standard).to_string()
    }
    pub fn compact(&self) -> CompactBoard {
        CompactBoard::from_chess(&self.inner)
    }
    /// An ASCII diagram, White at the bottom, for the `d` command.
    pub fn diagram(&self) -> String {
        let board = self.inner.board();
        let mut out = String::with_capacity(400);
        out.push_str("   +-----------------+\n");
        for rank in (0..8u32).rev() {
            out.push_str(&format!(" {} |", rank + 1));
            for file in 0..8u32 {
                let sq = Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
                out.push(' ');
                out.push(board.piece_at(sq).map_or('.', |p| p.char()));
            }
            out.push_str(" |\n");
        }
        out.push_str("   +-----------------+\n");
        out.push_str("     a b c d e f g h\n");
        out.push_str(&format!(
            "\nFen: {}\nKey: {:016x}\nSide to move: {}\n",
            self.fen(),
            self.key,
            if self.turn() == Color::White {
                "white"
            } else {
                "black"
            }
        ));
        out
    }
}
