//! Board planes: the 8×8 image inputs of the convolutional families.
//!
//! Each input is named, and the name is stored as the net file's `encoding`, so a net is
//! never fed planes it was not trained on. Row-major `[channel][rank][file]`, rank 1 first,
//! so plane index `c·64 + sq` with `sq` = a1 = 0 … h8 = 63.
//!
//! The engine only ever holds a [`CompactBoard`], which is seen from the side to move (see
//! `crate::chess::board`): it does not say which colour that is. A trainer knows the colour
//! and writes [`Planes::Mocha7Abs`] exactly as the Mocha.jl study did; the engine writes the
//! same planes with the side to move sat in White's seat, so such a net scores "the side to
//! move wins" exactly when it is colour-symmetric, and nearly so when it learnt chess. The
//! side-to-move planes need no such reading.

use crate::chess::CompactBoard;

/// Which planes a convolutional net reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Planes {
    /// The Mocha.jl study's 7 planes: P, N, B, R, Q, K, each +1 for a white piece and −1 for
    /// a black one, in absolute orientation (White at the bottom), then a plane of +1 when
    /// White is to move and −1 when Black is. The label is "White wins".
    Mocha7Abs,
    /// ConvChess's 6 planes: P … K, +1 for the side to move's pieces and −1 for the
    /// opponent's, the board mirrored when Black is to move. The label is "the side to move
    /// wins".
    Stm6,
    /// The engine's 768 one-hot features as 12 planes (our P … K, their P … K), side to move
    /// at the bottom. The label is "the side to move wins".
    Onehot12,
}

pub const ALL_PLANES: [Planes; 3] = [Planes::Mocha7Abs, Planes::Stm6, Planes::Onehot12];

impl Planes {
    /// The `encoding` metadata of a net reading these planes.
    pub fn encoding_name(self) -> &'static str {
        match self {
            Planes::Mocha7Abs => "mocha7-abs-v1",
            Planes::Stm6 => "stm6-v1",
            Planes::Onehot12 => "onehot12-stm-v1",
        }
    }

    /// The short name used in architecture specs (`in=…`).
    pub fn spec_name(self) -> &'static str {
        match self {
            Planes::Mocha7Abs => "mocha7",
            Planes::Stm6 => "stm6",
            Planes::Onehot12 => "onehot12",
        }
    }

    pub fn from_spec_name(name: &str) -> Option<Self> {
        ALL_PLANES.into_iter().find(|p| p.spec_name() == name)
    }

    pub fn from_encoding_name(name: &str) -> Option<Self> {
        ALL_PLANES.into_iter().find(|p| p.encoding_name() == name)
    }

    pub fn channels(self) -> usize {
        match self {
            Planes::Mocha7Abs => 7,
            Planes::Stm6 => 6,
            Planes::Onehot12 => 12,
        }
    }

    /// Floats per board.
    pub fn width(self) -> usize {
        self.channels() * 64
    }

    /// Whether the training label is White's result (else the side to move's).
    pub fn labels_white(self) -> bool {
        self == Planes::Mocha7Abs
    }

    /// Writes one board's planes into `out` (`self.width()` floats, all overwritten).
    /// `white_to_move` is the colour of the board's side to move; the engine, which does not
    /// know it, passes `true` (see the module note).
    pub fn encode_into(self, board: &CompactBoard, white_to_move: bool, out: &mut [f32]) {
        assert_eq!(out.len(), self.width(), "plane buffer of the wrong size");
        out.fill(0.0);
        for (sq, &code) in board.0.iter().enumerate() {
            if code == 0 {
                continue;
            }
            let ours = code <= 6;
            let role = (code as usize - 1) % 6;
            match self {
                Planes::Mocha7Abs => {
                    // Undo the side-to-move mirror: our pieces are Black's when Black moves.
                    let (abs_sq, white) = if white_to_move {
                        (sq, ours)
                    } else {
                        (sq ^ 56, !ours)
                    };
                    out[role * 64 + abs_sq] = if white { 1.0 } else { -1.0 };
                }
                Planes::Stm6 => out[role * 64 + sq] = if ours { 1.0 } else { -1.0 },
                Planes::Onehot12 => out[(code as usize - 1) * 64 + sq] = 1.0,
            }
        }
        if self == Planes::Mocha7Abs {
            out[6 * 64..].fill(if white_to_move { 1.0 } else { -1.0 });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    fn planes(p: Planes, fen: &str) -> Vec<f32> {
        let pos = Position::from_fen(fen).expect("valid fen");
        let white = fen.split(' ').nth(1) == Some("w");
        let mut out = vec![9.0; p.width()];
        p.encode_into(&pos.compact(), white, &mut out);
        out
    }

    const E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

    #[test]
    fn mocha_planes_are_absolute_with_a_side_to_move_plane() {
        let x = planes(Planes::Mocha7Abs, E4);
        // White pawn on e4 (sq 28), black pawn on e7 (52), white king e1 (4), black queen d8.
        assert_eq!(x[28], 1.0);
        assert_eq!(x[12], 0.0, "e2 is empty after 1.e4");
        assert_eq!(x[52], -1.0);
        assert_eq!(x[5 * 64 + 4], 1.0);
        assert_eq!(x[4 * 64 + 59], -1.0);
        assert!(x[6 * 64..].iter().all(|&v| v == -1.0), "Black to move");
        assert_eq!(x.iter().filter(|&&v| v != 0.0).count(), 32 + 64);
        // The same position with White to move differs only in the last plane.
        let w = planes(Planes::Mocha7Abs, &E4.replace(" b ", " w "));
        assert_eq!(x[..6 * 64], w[..6 * 64]);
        assert!(w[6 * 64..].iter().all(|&v| v == 1.0));
    }

    #[test]
    fn side_to_move_planes_mirror_for_black() {
        let x = planes(Planes::Stm6, E4);
        // Black to move: its e7 pawn is "ours" on the mirrored e2 (12); White's e4 pawn is
        // theirs on e5 (36).
        assert_eq!(x[12], 1.0);
        assert_eq!(x[36], -1.0);
        assert_eq!(x.iter().filter(|&&v| v != 0.0).count(), 32);
        let y = planes(Planes::Onehot12, E4);
        assert_eq!(y[12], 1.0);
        assert_eq!(y[6 * 64 + 36], 1.0);
        assert_eq!(y.iter().filter(|&&v| v == 1.0).count(), 32);
        assert!(y.iter().all(|&v| v == 0.0 || v == 1.0));
    }

    #[test]
    fn names_round_trip() {
        for p in ALL_PLANES {
            assert_eq!(Planes::from_spec_name(p.spec_name()), Some(p));
            assert_eq!(Planes::from_encoding_name(p.encoding_name()), Some(p));
            assert_ne!(p.encoding_name(), crate::chess::ENCODING_NAME);
        }
        assert_eq!(Planes::from_spec_name("rgb"), None);
    }
}
