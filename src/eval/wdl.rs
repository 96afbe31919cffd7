//! Win, draw and loss chances from a search score and the material on the board, for
//! `UCI_ShowWDL`. The model is Stockfish's (since 15.1):
//!
//! ```text
//! P(win)  = σ((v − a(m)) / b(m))
//! P(loss) = σ((−v − a(m)) / b(m))
//! P(draw) = 1 − P(win) − P(loss)
//! ```
//!
//! with `v` the score in pawns for the side to move, `m` the material count (pawn 1, knight
//! and bishop 3, rook 5, queen 9, both sides, clamped to 17–78) over 58, and `a`, `b` cubic
//! polynomials in `m`. `a` is the score at which a win becomes as likely as not; `b` is how
//! fast the chances change around it. Material matters because the same score is a surer
//! win with few pieces left.
//!
//! [`MODEL`] was fitted by `cerise datagen wdl` on the default net's self-play games;
//! bench/records/wdl-model.md records the run and a calibration table on held-out games.
//! Scores of other nets are on a similar but not the same scale.

/// The fitted polynomials' coefficients, lowest power first; `a` and `b` in pawns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    pub a: [f64; 4],
    pub b: [f64; 4],
}

/// Fitted by `cerise datagen wdl` (see the module comment).
pub const MODEL: WdlModel = WdlModel {
    a: [3.1298, -3.2729, -0.3191, 1.2290],
    b: [1.7609, -0.3424, -0.0238, 0.7938],
};

/// Material counts below and above this are treated as these (Stockfish's clamp).
pub const MATERIAL_MIN: u32 = 17;
pub const MATERIAL_MAX: u32 = 78;
/// The start position's count: `m` is the material as a share of it.
pub const MATERIAL_SCALE: f64 = 58.0;

/// Pawn 1, knight and bishop 3, rook 5, queen 9, for both sides.
pub fn material_count(board: &shakmaty::Board) -> u32 {
    use shakmaty::Role;
    [
        (Role::Pawn, 1),
        (Role::Knight, 3),
        (Role::Bishop, 3),
        (Role::Rook, 5),
        (Role::Queen, 9),
    ]
    .into_iter()
    .map(|(role, value)| board.by_role(role).count() as u32 * value)
    .sum()
}

/// `m`: the clamped material count over [`MATERIAL_SCALE`].
pub fn material_share(material: u32) -> f64 {
    f64::from(material.clamp(MATERIAL_MIN, MATERIAL_MAX)) / MATERIAL_SCALE
}

fn poly(c: &[f64; 4], m: f64) -> f64 {
    ((c[3] * m + c[2]) * m + c[1]) * m + c[0]
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl WdlModel {
    /// `a(m)` and `b(m)` in pawns; `b` is kept positive whatever the coefficients.
    pub fn params(&self, m: f64) -> (f64, f64) {
        (poly(&self.a, m), poly(&self.b, m).max(1e-3))
    }

    /// Win, draw, loss probabilities for the side to move, `cp` its score in centipawns.
    pub fn probabilities(&self, cp: f64, material: u32) -> [f64; 3] {
        let (a, b) = self.params(material_share(material));
        let v = cp / 100.0;
        let win = sigmoid((v - a) / b);
        let loss = sigmoid((-v - a) / b);
        // A fit with a(m) < 0 would make win + loss exceed 1 near v = 0; no draw then.
        let draw = (1.0 - win - loss).max(0.0);
        let sum = win + draw + loss;
        [win / sum, draw / sum, loss / sum]
    }

    /// The chances in per mille, as UCI's `wdl W D L`, summing to exactly 1000.
    pub fn per_mille(&self, cp: i32, material: u32) -> [u32; 3] {
        let [w, _, l] = self.probabilities(f64::from(cp), material);
        let win = (w * 1000.0).round() as u32;
        let loss = ((l * 1000.0).round() as u32).min(1000 - win);
        [win, 1000 - win - loss, loss]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_counts_the_start_position_as_78() {
        let start = shakmaty::Board::default();
        assert_eq!(material_count(&start), 78);
        let bare: shakmaty::Board = "4k3/8/8/8/8/8/8/4K3".parse().unwrap();
        assert_eq!(material_count(&bare), 0);
        assert_eq!(material_share(0), 17.0 / 58.0);
    }

    #[test]
    fn chances_sum_to_1000_and_move_the_right_way() {
        for material in [0, 30, 58, 78] {
            let mut previous_win = 0;
            for cp in (-1500..=1500).step_by(50) {
                let [w, d, l] = MODEL.per_mille(cp, material);
                assert_eq!(w + d + l, 1000, "{cp} {material}");
                assert!(w >= previous_win, "win falls at {cp}, material {material}");
                previous_win = w;
                let [w2, _, l2] = MODEL.per_mille(-cp, material);
                assert_eq!((w2, l2), (l, w), "not symmetric at {cp}");
            }
            let [w, d, l] = MODEL.per_mille(0, material);
            assert!(w == l && d > 100, "a level score: {w} {d} {l}");
            assert!(MODEL.per_mille(1500, material)[0] > 900);
        }
    }
}
