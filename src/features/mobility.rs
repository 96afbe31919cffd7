//! Mobility: for each knight, bishop, rook and queen, the squares it attacks inside
//! Stockfish's mobility area, summed per piece type; plus how many pieces are nearly
//! immobile.
//!
//! The mobility area leaves out our king and queens, our pawns that are blocked or still
//! on their second or third rank, and squares attacked by enemy pawns (see
//! `context::Side::mobility_area`): squares a piece could use without simply losing
//! itself to a pawn. Sliders see through our own queens (and rooks through rooks), as
//! in Stockfish.

use shakmaty::{Color, Role};

use super::context::Context;

pub(super) const NAMES: &[&str] = &[
    "mobility_knight",
    "mobility_bishop",
    "mobility_rook",
    "mobility_queen",
    "mobility_low_pieces",
];

/// A piece with at most this many squares counts as nearly immobile.
const LOW: usize = 1;

pub(super) fn extract(ctx: &Context, c: Color, out: &mut [f32]) {
    let side = ctx.us(c);
    let mut sums = [0usize; 4];
    let mut low = 0;
    for p in side.pieces() {
        let m = (p.attacks & side.mobility_area).count();
        let k = match p.role {
            Role::Knight => 0,
            Role::Bishop => 1,
            Role::Rook => 2,
            _ => 3,
        };
        sums[k] += m;
        low += usize::from(m <= LOW);
    }
    for k in 0..4 {
        out[k] = sums[k] as f32;
    }
    out[4] = low as f32;
}

#[cfg(test)]
mod tests {
    use crate::features::tests::{values, START};

    #[test]
    fn start_position() {
        let v = values(START, "white_");
        // Knights: a3, c3, f3, h3 (d2 and e2 are pawns on the second rank).
        assert_eq!(v["mobility_knight"], 4.0);
        assert_eq!(v["mobility_bishop"], 0.0);
        // Each rook sees its own knight (own minors stay in the area).
        assert_eq!(v["mobility_rook"], 2.0);
        // The queen sees the c1 bishop; the e1 king is outside the area.
        assert_eq!(v["mobility_queen"], 1.0);
        // Two bishops, two rooks and the queen have at most one square.
        assert_eq!(v["mobility_low_pieces"], 5.0);
    }

    #[test]
    fn pawn_attacks_and_own_pawns_are_excluded() {
        let fen = "4k2q/3p4/8/8/3N4/8/4P3/R3K3 w - - 0 1";
        let w = values(fen, "white_");
        // Nd4: b3 b5 c2 f3 f5; c6 and e6 are attacked by d7, e2 is our second-rank pawn.
        assert_eq!(w["mobility_knight"], 5.0);
        // Ra1: a2..a8 and b1 c1 d1.
        assert_eq!(w["mobility_rook"], 10.0);
        assert_eq!(w["mobility_low_pieces"], 0.0);
        let b = values(fen, "black_");
        // Qh8: g8 f8, h7..h1, g7 f6 e5 d4.
        assert_eq!(b["mobility_queen"], 13.0);
    }
}
