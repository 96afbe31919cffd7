//! One labelled position: a board, the game's result and the move played from it.
//!
//! Record (72 bytes, integers little-endian):
//!
//! | offset | size | field                                                                 |
//! |--------|------|-----------------------------------------------------------------------|
//! | 0      | 64   | `board`: [`CompactBoard`], seen from the side to move (codes 0..=12)  |
//! | 64     | 1    | `white_to_move`: 1 if White is to move, 0 if Black                    |
//! | 65     | 1    | `result` (i8) from WHITE's point of view: +1 1-0, 0 draw, −1 0-1      |
//! | 66     | 1    | `from`: the move's origin square 0..=63 in the board's frame          |
//! | 67     | 1    | `to`: the move's target square 0..=63 in the board's frame            |
//! | 68     | 1    | `role` of the moving piece: 1..=6 = pawn, knight, bishop, rook, queen, king |
//! | 69     | 1    | `promotion`: 0 none, else 2..=5 = knight, bishop, rook, queen          |
//! | 70     | 2    | `ply` (u16): the move's index in the game's movetext, 0 = first move   |
//!
//! FRAME: `board`, `from` and `to` use the `crate::chess::board` convention: with Black to move
//! every square `s` becomes `s ^ 56` (ranks mirrored) and colours are swapped, so the mover is
//! always "us" (codes 1..=6) and always plays up the board; 1.e4 and 1...e5 both read
//! `from` 12 (e2), `to` 28 (e4). [`LabelledPosition::absolute_board`] and
//! [`LabelledPosition::absolute_move`] undo the mirror.
//!
//! CASTLING is stored as the king's own move, `from` e1 (4) and `to` g1 (6) or c1 (2), never
//! as "king takes rook". En passant stores the capturing pawn's target square.

use crate::chess::CompactBoard;
use crate::data::records::Record;
use anyhow::{bail, ensure, Result};
use shakmaty::Role;

pub const RECORD_BYTES: usize = 72;

/// A position from a game, labelled with the game's result and the move played in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LabelledPosition {
    /// The board seen from the side to move (see the module's FRAME).
    pub board: CompactBoard,
    /// Recovers the absolute orientation: `false` means `board` is mirrored.
    pub white_to_move: bool,
    /// The game's result from White's point of view: +1, 0 or −1.
    pub result: i8,
    /// Origin square 0..=63 in `board`'s frame.
    pub from: u8,
    /// Target square 0..=63 in `board`'s frame (the king's target when castling).
    pub to: u8,
    /// The moving piece.
    pub role: Role,
    /// The piece a pawn promotes to.
    pub promotion: Option<Role>,
    /// The move's index in the game (0 = the first move after the start position).
    pub ply: u16,
}

impl Record for LabelledPosition {
    const BYTES: usize = RECORD_BYTES;

    fn encode(&self, out: &mut [u8]) {
        out[..64].copy_from_slice(&self.board.0);
        out[64] = u8::from(self.white_to_move);
        out[65] = self.result as u8;
        out[66] = self.from;
        out[67] = self.to;
        out[68] = self.role as u8;
        out[69] = self.promotion.map_or(0, |r| r as u8);
        out[70..72].copy_from_slice(&self.ply.to_le_bytes());
    }

    fn decode_fields(bytes: &[u8], index: u64) -> Result<Self> {
        let corrupt = "the file is corrupt";
        let mut board = [0u8; 64];
        board.copy_from_slice(&bytes[..64]);
        if let Some(sq) = board.iter().position(|&c| c > 12) {
            bail!(
                "record {index}: board square {sq} holds {}, not a piece code 0..=12; {corrupt}",
                board[sq]
            );
        }
        let white_to_move = match bytes[64] {
            0 => false,
            1 => true,
            other => bail!("record {index}: white_to_move byte {other} is not 0 or 1; {corrupt}"),
        };
        let result = bytes[65] as i8;
        ensure!(
            (-1..=1).contains(&result),
            "record {index}: result byte {result} is not -1, 0 or 1; {corrupt}"
        );
        let (from, to) = (bytes[66], bytes[67]);
        ensure!(
            from < 64 && to < 64 && from != to,
            "record {index}: move squares {from} -> {to} are not two squares 0..=63; {corrupt}"
        );
        let role = match bytes[68] {
            code @ 1..=6 => Role::ALL[usize::from(code) - 1],
            other => bail!("record {index}: moving role {other} is not 1..=6; {corrupt}"),
        };
        let promotion = match bytes[69] {
            0 => None,
            code @ 2..=5 => Some(Role::ALL[usize::from(code) - 1]),
            other => bail!("record {index}: promotion {other} is not 0 or 2..=5; {corrupt}"),
        };
        ensure!(
            board[usize::from(from)] == role as u8,
            "record {index}: the mover's {role:?} is not on its from square {from} (which \
             holds code {}); {corrupt}",
            board[usize::from(from)]
        );
        ensure!(
            !(1..=6).contains(&board[usize::from(to)]),
            "record {index}: the target square {to} holds the mover's own piece; {corrupt}"
        );
        ensure!(
            promotion.is_some() == (role == Role::Pawn && to >= 56),
            "record {index}: promotion {promotion:?} does not fit a {role:?} moving to square \
             {to}; {corrupt}"
        );
        Ok(LabelledPosition {
            board: CompactBoard(board),
            white_to_move,
            result,
            from,
            to,
            role,
            promotion,
            ply: u16::from_le_bytes([bytes[70], bytes[71]]),
        })
    }
}

impl LabelledPosition {
    /// The result from the side to move's point of view: +1 it won, 0 draw, −1 it lost.
    pub fn stm_result(&self) -> i8 {
        if self.white_to_move {
            self.result
        } else {
            -self.result
        }
    }

    /// `XOR` mask that maps a square between the board's frame and the absolute one.
    fn flip(&self) -> u8 {
        if self.white_to_move {
            0
        } else {
            56
        }
    }

    /// The board in ABSOLUTE orientation, for inputs that keep colours apart: byte `sq`
    /// (a1 = 0 … h8 = 63, White at the bottom) holds 0 for empty, 1..=6 for WHITE's pawn,
    /// knight, bishop, rook, queen, king and 7..=12 for Black's. Note that this is not the
    /// side-to-move convention of [`CompactBoard`], so it is returned as a plain array.
    pub fn absolute_board(&self) -> [u8; 64] {
        if self.white_to_move {
            return self.board.0;
        }
        let mut out = [0u8; 64];
        for (sq, &code) in self.board.0.iter().enumerate() {
            out[sq ^ 56] = match code {
                0 => 0,
                1..=6 => code + 6,
                _ => code - 6,
            };
        }
        out
    }

    /// `from` and `to` as absolute squares (a1 = 0 … h8 = 63).
    pub fn absolute_move(&self) -> (u8, u8) {
        (self.from ^ self.flip(), self.to ^ self.flip())
    }

    /// The move in UCI notation on the real board, castling as the king's move (`e1g1`).
    pub fn uci(&self) -> String {
        let (from, to) = self.absolute_move();
        let name = |sq: u8| {
            let file = char::from(b'a' + sq % 8);
            let rank = char::from(b'1' + sq / 8);
            format!("{file}{rank}")
        };
        let promo = self
            .promotion
            .map_or(String::new(), |r| r.char().to_string());
        format!("{}{}{promo}", name(from), name(to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testing::assert_corrupt_bytes_refused;

    /// Black to move after 1.e4: the board mirrored, and Black answers 1...e5.
    fn sample() -> LabelledPosition {
        let pos: shakmaty::Chess = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .expect("valid FEN")
            .into_position(shakmaty::CastlingMode::Standard)
            .expect("legal");
        LabelledPosition {
            board: CompactBoard::from_chess(&pos),
            white_to_move: false,
            result: -1,
            from: 12,
            to: 28,
            role: Role::Pawn,
            promotion: None,
            ply: 1,
        }
    }

    #[test]
    fn round_trips_and_orients() {
        let r = sample();
        let mut buf = [0u8; RECORD_BYTES];
        r.encode(&mut buf);
        assert_eq!(LabelledPosition::decode(&buf, 0).expect("valid"), r);
        assert_eq!(buf[65] as i8, -1, "White's view is stored");
        assert_eq!(r.stm_result(), 1, "Black, to move, won");
        assert_eq!(r.uci(), "e7e5");
        assert_eq!(r.absolute_move(), (52, 36));
        let abs = r.absolute_board();
        assert_eq!(abs[28], 1, "White's pawn on e4");
        assert_eq!(abs[12], 0, "e2 empty");
        assert_eq!((abs[4], abs[60]), (6, 12), "white king e1, black king e8");
        assert!(abs[48..56].iter().all(|&c| c == 7), "black pawns on rank 7");
        // The mover's own pieces sit low in the stored frame.
        assert_eq!(r.board.0[12], 1, "Black's e7 pawn appears on e2");
        let white = LabelledPosition {
            white_to_move: true,
            ..r
        };
        assert_eq!(white.absolute_board(), white.board.0);
        assert_eq!(white.stm_result(), -1);
        assert_eq!(white.uci(), "e2e4");
    }

    #[test]
    fn rejects_every_corrupt_field() {
        let mut good = [0u8; RECORD_BYTES];
        sample().encode(&mut good);
        assert_corrupt_bytes_refused::<LabelledPosition>(
            &good,
            &[
                (20, 13, "board square 20 holds 13"),
                (64, 2, "white_to_move byte 2"),
                (65, 2, "result byte 2"),
                (65, 0xFE, "result byte -2"),
                (66, 64, "move squares 64 -> 28"),
                (67, 12, "move squares 12 -> 12"),
                (68, 0, "moving role 0"),
                (68, 7, "moving role 7"),
                (69, 6, "promotion 6"),
                (68, 2, "not on its from square 12"),
                (69, 5, "does not fit a Pawn moving to square 28"),
            ],
        );
        // Moving onto one's own piece (d2 holds our pawn).
        let mut bad = good;
        bad[67] = 11;
        let err = LabelledPosition::decode(&bad, 0).unwrap_err().to_string();
        assert!(err.contains("own piece"), "{err}");
        // A pawn reaching the last rank without promoting.
        let mut bad = good;
        bad[12] = 0;
        bad[52] = 1;
        bad[60] = 0;
        bad[66] = 52;
        bad[67] = 60;
        let err = LabelledPosition::decode(&bad, 0).unwrap_err().to_string();
        assert!(err.contains("promotion None"), "{err}");
        bad[69] = 5;
        let promoted = LabelledPosition::decode(&bad, 0).expect("e7-e8=Q is valid");
        assert_eq!(promoted.promotion, Some(Role::Queen));
        assert_eq!(promoted.uci(), "e2e1q", "Black promotes on the first rank");
        assert!(LabelledPosition::decode(&good[..71], 0).is_err());
    }
}
