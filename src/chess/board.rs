//! The 64-byte compact board and its 768-wide one-hot encoding.
//!
//! CONVENTION (the one place it is defined): a `CompactBoard` is always seen from the side to
//! move. If Black is to move, ranks are mirrored (square `s` becomes `s ^ 56`) and colours are
//! swapped, so "us" is always the side to move and always plays "up" the board, as in Deep Pink.
//! Castling rights and en passant are not encoded (Deep Pink did not encode them either).
//!
//! Byte `sq` (a1 = 0 … h8 = 63, after mirroring) holds 0 for empty, 1..=6 for our
//! pawn, knight, bishop, rook, queen, king, and 7..=12 for theirs in the same order.
//! One-hot index = (code − 1) · 64 + sq, giving 12 planes × 64 squares = 768.

/// Width of the network input.
pub const ENCODING_WIDTH: usize = 768;
/// Stored in every net file; a net trained on another encoding is refused at load.
pub const ENCODING_NAME: &str = "stm-mirror-768-v1";

/// The feature that `feature` becomes when the same board is seen with the other side to
/// move: our pieces become theirs (planes swap halves) and the ranks flip.
pub fn swap_sides_feature(feature: usize) -> usize {
    let (plane, sq) = (feature / 64, feature % 64);
    ((plane + 6) % 12) * 64 + (sq ^ 56)
}

/// The from- and to-squares of `m`, played by `turn`, in the side-to-move frame of the module
/// convention (ranks mirrored when Black moves). A castle's `to()` is its rook, so the king's
/// target is given instead. Standard chess moves always have an origin (0 otherwise).
pub fn stm_move_squares(m: &shakmaty::Move, turn: shakmaty::Color) -> (u8, u8) {
    let flip = if turn == shakmaty::Color::White {
        0
    } else {
        56
    };
    let from = m.from().map_or(0, u8::from);
    let to = match m.castling_side() {
        Some(side) => u8::from(side.king_to(turn)),
        None => u8::from(m.to()),
    };
    (from ^ flip, to ^ flip)
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(transparent)]
pub struct CompactBoard(pub [u8; 64]);

impl CompactBoard {
    /// The board of `pos` seen from its side to move (see the module convention).
    pub fn from_chess(pos: &shakmaty::Chess) -> Self {
        use shakmaty::{Position as _, Role};
        let board = pos.board();
        let us = pos.turn();
        // XOR with 56 flips the rank and keeps the file: the Black-to-move mirror.
        let flip = if us == shakmaty::Color::White { 0 } else { 56 };
        let ours = board.by_color(us).0;
        let theirs = board.by_color(!us).0;
        let mut out = [0u8; 64];
        for role in Role::ALL {
            let pieces = board.by_role(role).0;
            let code = role as u8;
            for (mut bits, offset) in [(pieces & ours, 0u8), (pieces & theirs, 6u8)] {
                while bits != 0 {
                    let sq = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    out[sq ^ flip] = code + offset;
                }
            }
        }
        CompactBoard(out)
    }

    /// Writes the 768-wide one-hot encoding into `out` (every element is overwritten).
    /// Panics if `out.len() != ENCODING_WIDTH`.
    pub fn encode_into(&self, out: &mut [f32]) {
        assert_eq!(
            out.len(),
            ENCODING_WIDTH,
            "encoding buffer must hold exactly ENCODING_WIDTH floats"
        );
        out.fill(0.0);
        for feature in self.active_features() {
            out[feature] = 1.0;
        }
    }

    /// Indices of the set features, at most 32 (one per piece); faster than `encode_into`.
    pub fn active_features(&self) -> impl Iterator<Item = usize> + '_ {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != 0)
            .map(|(sq, &c)| (c as usize - 1) * 64 + sq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position as _;

    /// A position from a FEN, read by shakmaty: the encoding sits below `chess::Position`.
    fn chess(fen: &str) -> shakmaty::Chess {
        fen.parse::<shakmaty::fen::Fen>()
            .expect("test FEN valid")
            .into_position(shakmaty::CastlingMode::Standard)
            .expect("legal test position")
    }

    /// The colour-flipped mirror of a FEN: ranks reversed, case swapped, side to move,
    /// castling and the en passant rank flipped.
    fn mirror_fen(fen: &str) -> String {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let swap_case = |s: &str| -> String {
            s.chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect()
        };
        let board: Vec<String> = fields[0].split('/').rev().map(swap_case).collect();
        let turn = if fields[1] == "w" { "b" } else { "w" };
        let castling = if fields[2] == "-" {
            "-".to_string()
        } else {
            let mut c: Vec<char> = swap_case(fields[2]).chars().collect();
            c.sort_by_key(|ch| (ch.is_ascii_lowercase(), *ch == 'q' || *ch == 'Q'));
            c.into_iter().collect()
        };
        let ep = match fields[3] {
            "-" => "-".to_string(),
            sq => {
                let b = sq.as_bytes();
                format!("{}{}", b[0] as char, (b'9' - (b[1] - b'0')) as char)
            }
        };
        format!(
            "{} {turn} {castling} {ep} {} {}",
            board.join("/"),
            fields[4],
            fields[5]
        )
    }

    fn slow_compact(pos: &shakmaty::Chess) -> CompactBoard {
        let mut out = [0u8; 64];
        for (sq, piece) in pos.board().iter() {
            let mut idx = sq as usize;
            if pos.turn() == shakmaty::Color::Black {
                idx ^= 56;
            }
            let offset = if piece.color == pos.turn() { 0 } else { 6 };
            out[idx] = piece.role as u8 + offset;
        }
        CompactBoard(out)
    }

    const FENS: [&str; 5] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];

    #[test]
    fn mirrored_positions_encode_identically() {
        for fen in FENS {
            let pos = chess(fen);
            let mirrored = chess(&mirror_fen(fen));
            assert_ne!(pos.turn(), mirrored.turn());
            let (board, mirrored) = (
                CompactBoard::from_chess(&pos),
                CompactBoard::from_chess(&mirrored),
            );
            assert_eq!(board, mirrored, "{fen}");
            let mut a = vec![0.0f32; ENCODING_WIDTH];
            let mut b = vec![1.0f32; ENCODING_WIDTH];
            board.encode_into(&mut a);
            mirrored.encode_into(&mut b);
            assert_eq!(a, b, "{fen}");
        }
    }

    #[test]
    fn swapping_sides_maps_features_to_the_other_side_to_move() {
        for fen in [FENS[0], FENS[1], FENS[4]] {
            let other = if fen.contains(" w ") {
                fen.replace(" w ", " b ")
            } else {
                fen.replace(" b ", " w ")
            };
            let a = CompactBoard::from_chess(&chess(fen));
            let b = CompactBoard::from_chess(&chess(&other));
            let mut swapped: Vec<usize> = a.active_features().map(swap_sides_feature).collect();
            swapped.sort_unstable();
            let mut want: Vec<usize> = b.active_features().collect();
            want.sort_unstable();
            assert_eq!(swapped, want, "{fen}");
        }
        for f in 0..ENCODING_WIDTH {
            assert_eq!(swap_sides_feature(swap_sides_feature(f)), f);
        }
    }

    #[test]
    fn fast_board_matches_square_by_square() {
        for fen in FENS {
            for f in [fen.to_string(), mirror_fen(fen)] {
                let pos = chess(&f);
                assert_eq!(CompactBoard::from_chess(&pos), slow_compact(&pos), "{f}");
            }
        }
    }

    #[test]
    fn one_hot_has_one_feature_per_piece() {
        for fen in FENS {
            let pos = chess(fen);
            let board = CompactBoard::from_chess(&pos);
            let mut enc = vec![0.5f32; ENCODING_WIDTH];
            board.encode_into(&mut enc);
            let pieces = pos.board().occupied().count();
            assert!(enc.iter().all(|&x| x == 0.0 || x == 1.0));
            assert_eq!(enc.iter().filter(|&&x| x == 1.0).count(), pieces);
            let active: Vec<usize> = board.active_features().collect();
            assert_eq!(active.len(), pieces);
            assert!(active.iter().all(|&i| enc[i] == 1.0));
            // Each occupied square lights exactly one of the 12 planes.
            for sq in 0..64 {
                let lit = (0..12).filter(|p| enc[p * 64 + sq] == 1.0).count();
                assert_eq!(lit, usize::from(board.0[sq] != 0));
            }
        }
    }

    #[test]
    fn side_to_move_pawns_are_on_rank_two() {
        for turn in ["w", "b"] {
            let fen = format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR {turn} KQkq - 0 1");
            let board = CompactBoard::from_chess(&chess(&fen));
            assert!(board.0[8..16].iter().all(|&c| c == 1), "{turn}: our pawns");
            assert!(
                board.0[48..56].iter().all(|&c| c == 7),
                "{turn}: their pawns"
            );
            assert_eq!(board.0[4], 6, "{turn}: our king on e1");
            assert_eq!(board.0[60], 12, "{turn}: their king on e8");
            assert_eq!(board.0[3], 5, "{turn}: our queen on d1");
        }
    }
}
