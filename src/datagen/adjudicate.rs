//! When a self-play game may stop before the rules end it: a decided game (the score stays
//! beyond a bound for the same side), or a dead draw (a long run of scores near zero).

/// The adjudication bounds; a count of 0 plies turns a rule off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// |score| at or beyond this (centipawns) counts toward a win for the side it favours.
    pub win_bound: u32,
    /// Consecutive plies of such scores, favouring the same side, that end the game.
    pub win_plies: u32,
    /// |score| at or below this counts toward a draw.
    pub draw_bound: u32,
    /// Consecutive plies of such scores that end the game as a draw...
    pub draw_plies: u32,
    /// ...once this ply has been reached.
    pub draw_after: u32,
}

/// What adjudication decided after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Continue,
    /// White (`true`) or Black won.
    Win {
        white: bool,
    },
    Draw,
}

/// The running counts of one game.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    bounds: Bounds,
    /// Plies in a row with a winning score for White (> 0) or for Black (< 0).
    win_run: i64,
    draw_run: u32,
}

impl Adjudicator {
    pub fn new(bounds: Bounds) -> Self {
        Adjudicator {
            bounds,
            win_run: 0,
            draw_run: 0,
        }
    }

    /// Feeds the search's score of the position at `ply`, from White's view.
    pub fn observe(&mut self, ply: u32, white_score: i32) -> Verdict {
        let b = self.bounds;
        let magnitude = white_score.unsigned_abs();
        if magnitude >= b.win_bound {
            let side = white_score.signum() as i64;
            self.win_run = if self.win_run.signum() == side {
                self.win_run + side
            } else {
                side
            };
        } else {
            self.win_run = 0;
        }
        self.draw_run = if magnitude <= b.draw_bound {
            self.draw_run + 1
        } else {
            0
        };
        if b.win_plies > 0 && self.win_run.unsigned_abs() >= u64::from(b.win_plies) {
            return Verdict::Win {
                white: self.win_run > 0,
            };
        }
        if b.draw_plies > 0 && ply >= b.draw_after && self.draw_run >= b.draw_plies {
            return Verdict::Draw;
        }
        Verdict::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Bounds = Bounds {
        win_bound: 1000,
        win_plies: 4,
        draw_bound: 10,
        draw_plies: 6,
        draw_after: 20,
    };

    #[test]
    fn a_win_needs_the_same_side_for_the_whole_run() {
        let mut a = Adjudicator::new(BOUNDS);
        let scores = [1200, 1500, -1100, 1000, 1000, 2000];
        let verdicts: Vec<_> = scores
            .iter()
            .enumerate()
            .map(|(ply, &s)| a.observe(ply as u32, s))
            .collect();
        assert_eq!(verdicts[..5], [Verdict::Continue; 5]);
        assert_eq!(
            verdicts[5],
            Verdict::Continue,
            "only three in a row for White"
        );
        assert_eq!(a.observe(6, 999_999), Verdict::Win { white: true });
        let mut b = Adjudicator::new(BOUNDS);
        for ply in 0..3 {
            assert_eq!(b.observe(ply, -1000), Verdict::Continue);
        }
        assert_eq!(b.observe(3, -32000), Verdict::Win { white: false });
    }

    #[test]
    fn a_draw_needs_the_run_and_the_ply() {
        let mut a = Adjudicator::new(BOUNDS);
        for ply in 0..20 {
            assert_eq!(a.observe(ply, 5), Verdict::Continue, "before ply 20");
        }
        assert_eq!(a.observe(20, -3), Verdict::Draw);
        let mut b = Adjudicator::new(BOUNDS);
        for ply in 30..35 {
            b.observe(ply, 0);
        }
        assert_eq!(b.observe(35, 11), Verdict::Continue, "11 cp breaks the run");
        let off = Bounds {
            win_plies: 0,
            draw_plies: 0,
            ..BOUNDS
        };
        let mut c = Adjudicator::new(off);
        for ply in 0..100 {
            assert_eq!(
                c.observe(ply, if ply % 2 == 0 { 0 } else { 5000 }),
                Verdict::Continue
            );
        }
    }
}
