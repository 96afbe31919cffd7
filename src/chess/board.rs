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
