//! One self-play position: the board, the search's score and best move, the ply, and the
//! game's result, in 40 bytes (integers little-endian):
//!
//! | offset | size | field                                                                |
//! |--------|------|----------------------------------------------------------------------|
//! | 0      | 8    | occupancy (u64): bit `sq` set for a piece on `sq` (a1 = 0 … h8 = 63) |
//! | 8      | 16   | the pieces in occupancy order, two a byte (low nibble first): White's |
//! |        |      | pawn … king are 1 … 6, Black's 9 … 14; unused nibbles 0              |
//! | 24     | 2    | `score` (i16): the search's score for the side to move, centipawns;  |
//! |        |      | a mate is ±(32000 − plies to mate), as the search keeps it            |
//! | 26     | 2    | `best` (u16): from (bits 0–5), to (6–11), promotion role (12–14, 0 = |
//! |        |      | none, 2–5 = knight … queen); castling is king to rook square          |
//! | 28     | 2    | `ply` (u16): plies since the game's start position                   |
//! | 30     | 1    | `result` from White's view: 0 = 0-1, 1 = draw, 2 = 1-0               |
//! | 31     | 1    | flags: bit 0 = Black to move; other bits 0                           |
//! | 32     | 1    | castling rooks of White: bit f = a rook on file f of rank 1 may castle |
//! | 33     | 1    | castling rooks of Black, the same on rank 8                          |
//! | 34     | 1    | en passant square + 1 (0 = none)                                     |
//! | 35     | 1    | halfmove clock (capped at 255)                                       |
//! | 36     | 4    | `game` (u32): the game's index in the run (its seed stream)          |
//!
//! The board is stored as it stands (White at the bottom), not from the side to move: a
//! consumer picks its own frame. Castling is stored by rook square, so Chess960 fits.

use crate::data::records::Record;
use anyhow::{bail, ensure, Context, Result};
use shakmaty::{
    Bitboard, Board, ByColor, CastlingMode, Chess, Color, FromSetup, Move, Piece, Position, Rank,
    Role, Setup, Square,
};
use std::num::NonZeroU32;

pub const RECORD_BYTES: usize = 40;
/// Scores at least this far from zero are mates (the search's `MATE` less its deepest ply, 128).
pub const MATE_BOUND: i32 = 32_000 - 128;

/// A game's result, from White's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    BlackWins,
    Draw,
    WhiteWins,
}

impl Outcome {
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u8) -> Option<Outcome> {
        match code {
            0 => Some(Outcome::BlackWins),
            1 => Some(Outcome::Draw),
            2 => Some(Outcome::WhiteWins),
            _ => None,
        }
    }

    /// 1, ½ or 0 for the side `color`.
    pub fn score_for(self, color: Color) -> f32 {
        match (self, color) {
            (Outcome::Draw, _) => 0.5,
            (Outcome::WhiteWins, Color::White) | (Outcome::BlackWins, Color::Black) => 1.0,
            _ => 0.0,
        }
    }

    /// A win for `color`.
    pub fn win_for(color: Color) -> Outcome {
        match color {
            Color::White => Outcome::WhiteWins,
            Color::Black => Outcome::BlackWins,
        }
    }

    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::WhiteWins => "1-0",
        }
    }
}

/// A move as stored: from and to squares (king and rook square for castling) and a
/// promotion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StoredMove {
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Role>,
}

impl StoredMove {
    pub fn of(m: &Move) -> StoredMove {
        match *m {
            Move::Castle { king, rook } => StoredMove {
                from: king,
                to: rook,
                promotion: None,
            },
            _ => StoredMove {
                from: m.from().expect("a board move has a from square"),
                to: m.to(),
                promotion: m.promotion(),
            },
        }
    }

    /// The 16-bit code of the record's `best` field.
    pub fn code(self) -> u16 {
        u16::from(self.from)
            | u16::from(self.to) << 6
            | u16::from(self.promotion.map_or(0, |r| r as u8)) << 12
    }

    /// The move of a 16-bit code; `None` for a promotion code that names no piece.
    pub fn from_code(code: u16) -> Option<StoredMove> {
        let promotion = match code >> 12 {
            0 => None,
            r @ 2..=5 => Some(Role::ALL[usize::from(r) - 1]),
            _ => return None,
        };
        Some(StoredMove {
            from: Square::new(u32::from(code & 63)),
            to: Square::new(u32::from((code >> 6) & 63)),
            promotion,
        })
    }

    /// The legal move of `pos` this is, if any.
    pub fn find(self, pos: &Chess) -> Option<Move> {
        pos.legal_moves()
            .into_iter()
            .find(|m| StoredMove::of(m) == self)
    }
}

/// One position of a self-play game, as the search saw it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SelfPlayRecord {
    pub board: Board,
    pub turn: Color,
    /// Castling rooks, as shakmaty's `Setup::castling_rights`.
    pub castling: Bitboard,
    pub ep_square: Option<Square>,
    pub halfmoves: u8,
    /// The search's score for the side to move (centipawns; mates as the search keeps them).
    pub score: i16,
    pub best: StoredMove,
    pub ply: u16,
    pub result: Outcome,
    pub game: u32,
}

fn piece_code(p: Piece) -> u8 {
    p.role as u8 + if p.color == Color::Black { 8 } else { 0 }
}

fn code_piece(code: u8) -> Option<Piece> {
    let color = if code & 8 == 0 {
        Color::White
    } else {
        Color::Black
    };
    let role = match code & 7 {
        r @ 1..=6 => Role::ALL[usize::from(r) - 1],
        _ => return None,
    };
    Some(Piece { color, role })
}

impl SelfPlayRecord {
    /// The record of `pos`, searched to `score` and `best`, at `ply` of game `game`.
    pub fn new(pos: &Chess, score: i16, best: &Move, ply: u16, result: Outcome, game: u32) -> Self {
        Self::with_stored_move(pos, score, StoredMove::of(best), ply, result, game)
    }

    /// [`SelfPlayRecord::new`] with the best move as stored (not checked against `pos`).
    pub fn with_stored_move(
        pos: &Chess,
        score: i16,
        best: StoredMove,
        ply: u16,
        result: Outcome,
        game: u32,
    ) -> Self {
        SelfPlayRecord {
            board: pos.board().clone(),
            turn: pos.turn(),
            castling: pos.castles().castling_rights(),
            ep_square: pos.legal_ep_square(),
            halfmoves: pos.halfmoves().min(255) as u8,
            score,
            best,
            ply,
            result,
            game,
        }
    }

    /// The position, checked for legality.
    pub fn position(&self) -> Result<Chess> {
        let setup = Setup {
            board: self.board.clone(),
            promoted: Bitboard::EMPTY,
            pockets: None,
            turn: self.turn,
            castling_rights: self.castling,
            ep_square: self.ep_square,
            remaining_checks: None,
            halfmoves: u32::from(self.halfmoves),
            fullmoves: NonZeroU32::new(1 + u32::from(self.ply) / 2).unwrap_or(NonZeroU32::MIN),
        };
        // Standard chess when its rules allow these castling rights; else Chess960, whose
        // rights may name any rook, and also corner rooks beside a king off the e-file (a
        // Chess960 start such as RNBQBKNR: the standard rules refuse it).
        let from = |mode| match Chess::from_setup(setup.clone(), mode) {
            Ok(pos) => Ok(pos),
            // Promotions can give more than the starting material; that is legal here.
            Err(e) => e.ignore_too_much_material().map_err(|e| e.to_string()),
        };
        let pos = if self.castling.without(Bitboard::CORNERS).is_empty() {
            from(CastlingMode::Standard).or_else(|e| {
                if self.castling.is_empty() {
                    Err(e)
                } else {
                    from(CastlingMode::Chess960)
                }
            })
        } else {
            from(CastlingMode::Chess960)
        };
        pos.map_err(|e| {
            anyhow::anyhow!(
                "game {} ply {}: not a legal position: {e}",
                self.game,
                self.ply
            )
        })
    }

    /// The position and its best move, both checked.
    pub fn position_and_move(&self) -> Result<(Chess, Move)> {
        let pos = self.position()?;
        let m = self.best.find(&pos).with_context(|| {
            format!(
                "game {} ply {}: the best move {:?} is not legal in the position",
                self.game, self.ply, self.best
            )
        })?;
        Ok((pos, m))
    }
}

impl Record for SelfPlayRecord {
    const BYTES: usize = RECORD_BYTES;

    fn encode(&self, out: &mut [u8]) {
        out.fill(0);
        let occupied = self.board.occupied();
        out[..8].copy_from_slice(&u64::from(occupied).to_le_bytes());
        for (i, sq) in occupied.into_iter().enumerate() {
            let code = piece_code(self.board.piece_at(sq).expect("occupied"));
            out[8 + i / 2] |= code << (4 * (i % 2));
        }
        out[24..26].copy_from_slice(&self.score.to_le_bytes());
        out[26..28].copy_from_slice(&self.best.code().to_le_bytes());
        out[28..30].copy_from_slice(&self.ply.to_le_bytes());
        out[30] = self.result.code();
        out[31] = u8::from(self.turn == Color::Black);
        for (color, at) in [(Color::White, 32), (Color::Black, 33)] {
            let rank = Bitboard::from_rank(color.fold_wb(Rank::First, Rank::Eighth));
            for sq in self.castling & rank {
                out[at] |= 1 << u8::from(sq.file());
            }
        }
        out[34] = self.ep_square.map_or(0, |sq| u8::from(sq) + 1);
        out[35] = self.halfmoves;
        out[36..40].copy_from_slice(&self.game.to_le_bytes());
    }

    /// Checks the fields only: the position's legality is checked by
    /// [`SelfPlayRecord::position`], which a reader of every record need not pay for.
    fn decode_fields(bytes: &[u8], index: u64) -> Result<Self> {
        let corrupt = "the file is corrupt";
        let occupied = Bitboard(u64::from_le_bytes(bytes[..8].try_into()?));
        let n = occupied.count();
        ensure!(n <= 32, "record {index}: {n} occupied squares; {corrupt}");
        let mut board = Board::empty();
        for (i, sq) in occupied.into_iter().enumerate() {
            let code = (bytes[8 + i / 2] >> (4 * (i % 2))) & 15;
            let piece = code_piece(code)
                .with_context(|| format!("record {index}: piece code {code} on {sq}; {corrupt}"))?;
            board.set_piece_at(sq, piece);
        }
        for i in n..32 {
            let code = (bytes[8 + i / 2] >> (4 * (i % 2))) & 15;
            ensure!(
                code == 0,
                "record {index}: a piece code past the last piece; {corrupt}"
            );
        }
        let kings = ByColor::new_with(|c| (board.kings() & board.by_color(c)).count());
        ensure!(
            kings.white == 1 && kings.black == 1,
            "record {index}: {} white and {} black kings; {corrupt}",
            kings.white,
            kings.black
        );
        let code = u16::from_le_bytes(bytes[26..28].try_into()?);
        let Some(best) = StoredMove::from_code(code) else {
            bail!("record {index}: promotion code {}; {corrupt}", code >> 12);
        };
        let result = Outcome::from_code(bytes[30])
            .with_context(|| format!("record {index}: result code {}; {corrupt}", bytes[30]))?;
        ensure!(
            bytes[31] <= 1,
            "record {index}: flags byte {}; {corrupt}",
            bytes[31]
        );
        let turn = if bytes[31] == 1 {
            Color::Black
        } else {
            Color::White
        };
        ensure!(
            board.color_at(best.from) == Some(turn),
            "record {index}: the best move starts on {} which holds no piece of the side to \
             move; {corrupt}",
            best.from
        );
        let mut castling = Bitboard::EMPTY;
        for (rank, at) in [(Rank::First, 32), (Rank::Eighth, 33)] {
            for file in 0..8u32 {
                if bytes[at] & (1 << file) != 0 {
                    castling.add(Square::from_coords(shakmaty::File::new(file), rank));
                }
            }
        }
        let ep_square = match bytes[34] {
            0 => None,
            sq @ 1..=64 => Some(Square::new(u32::from(sq) - 1)),
            other => bail!("record {index}: en passant code {other}; {corrupt}"),
        };
        Ok(SelfPlayRecord {
            board,
            turn,
            castling,
            ep_square,
            halfmoves: bytes[35],
            score: i16::from_le_bytes(bytes[24..26].try_into()?),
            best,
            ply: u16::from_le_bytes(bytes[28..30].try_into()?),
            result,
            game: u32::from_le_bytes(bytes[36..40].try_into()?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testing::assert_corrupt_bytes_refused;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    fn pos(fen: &str, mode: CastlingMode) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
    }

    fn round_trip(p: &Chess, uci: &str) -> SelfPlayRecord {
        let m = uci.parse::<UciMove>().unwrap().to_move(p).unwrap();
        let r = SelfPlayRecord::new(p, -123, &m, 77, Outcome::BlackWins, 4_000_000_000);
        let mut buf = [0u8; RECORD_BYTES];
        r.encode(&mut buf);
        let back = SelfPlayRecord::decode(&buf, 0).unwrap();
        assert_eq!(back, r);
        let (p2, m2) = back.position_and_move().unwrap();
        assert_eq!(p2.board(), p.board());
        assert_eq!(p2.turn(), p.turn());
        assert_eq!(
            p2.castles().castling_rights(),
            p.castles().castling_rights()
        );
        assert_eq!(p2.legal_ep_square(), p.legal_ep_square());
        assert_eq!(p2.halfmoves(), p.halfmoves());
        assert_eq!(m2, m);
        r
    }

    #[test]
    fn positions_and_moves_round_trip() {
        round_trip(&Chess::default(), "e2e4");
        // Castling rights on both sides, Black to move, an en passant square.
        let r = round_trip(
            &pos(
                "r3k2r/8/8/8/3pP3/8/8/R3K2R b KQkq e3 5 30",
                CastlingMode::Standard,
            ),
            "e8c8",
        );
        assert_eq!(r.turn, Color::Black);
        assert_eq!(r.ep_square, Some(Square::E3));
        assert_eq!(r.best.to, Square::A8, "castling is stored as king to rook");
        round_trip(
            &pos("8/1P6/8/8/8/k7/8/K7 w - - 0 1", CastlingMode::Standard),
            "b7b8n",
        );
        // Chess960: rooks on b and g.
        round_trip(
            &pos(
                "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
                CastlingMode::Chess960,
            ),
            "e1g1",
        );
    }

    #[test]
    fn corrupt_fields_are_refused() {
        let p = Chess::default();
        let m = "g1f3".parse::<UciMove>().unwrap().to_move(&p).unwrap();
        let mut good = [0u8; RECORD_BYTES];
        SelfPlayRecord::new(&p, 10, &m, 0, Outcome::Draw, 1).encode(&mut good);
        assert_corrupt_bytes_refused::<SelfPlayRecord>(
            &good,
            &[
                (8, 0x77, "piece code 7"),
                (30, 3, "result code 3"),
                (31, 2, "flags byte 2"),
                (34, 65, "en passant code 65"),
                (27, 0x70, "promotion code 7"),
            ],
        );
        // The best move from an empty square.
        let mut bad = good;
        bad[26] = 20; // from e3
        let err = SelfPlayRecord::decode(&bad, 0).unwrap_err().to_string();
        assert!(err.contains("holds no piece"), "{err}");
        // A board without a black king (its nibble made a white king).
        let mut bad = good;
        let last = 31;
        bad[8 + last / 2] = (bad[8 + last / 2] & 0x0f) | (6 << 4);
        let err = SelfPlayRecord::decode(&bad, 0).unwrap_err().to_string();
        assert!(err.contains("kings"), "{err}");
    }
}
