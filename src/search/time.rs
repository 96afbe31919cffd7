//! Time management: how long a `go` may think, and a clock that can be restarted by
//! `ponderhit`.

use super::limits::Limits;
use super::params::{TM_NODES_BASE, TM_NODES_SCALE, TM_STABILITY};
use crate::chess::Color;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Moves assumed left in the game when the GUI does not say.
const DEFAULT_MOVES_TO_GO: u32 = 30;

/// `soft`: do not start another iteration after this. `hard`: abort mid-iteration.
/// `None` means no limit of that kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeBudget {
    pub soft: Option<Duration>,
    pub hard: Option<Duration>,
}

/// The budget for the side to move. Neither limit ever exceeds its remaining time minus
/// `overhead`, so a slow GUI link cannot make us lose on time.
pub fn budget(limits: &Limits, turn: Color, overhead: Duration) -> TimeBudget {
    if limits.infinite {
        return TimeBudget::default();
    }
    if let Some(movetime) = limits.movetime {
        let t = movetime.saturating_sub(overhead);
        return TimeBudget {
            soft: Some(t),
            hard: Some(t),
        };
    }
    let (time, inc) = match turn {
        Color::White => (limits.wtime, limits.winc),
        Color::Black => (limits.btime, limits.binc),
    };
    let Some(time) = time else {
        return TimeBudget::default();
    };
    let inc = inc.unwrap_or_default();
    let available = time.saturating_sub(overhead);
    let moves_to_go = limits.movestogo.unwrap_or(DEFAULT_MOVES_TO_GO).max(1);
    let base = time / moves_to_go + inc * 3 / 4;
    // Never plan to spend more than 80% of what is left on one move, even with a big increment.
    let ceiling = available * 4 / 5;
    let soft = base.min(ceiling);
    // The hard limit allows overrunning the plan for a difficult iteration, but not past a
    // quarter of the clock unless the plan itself is larger (e.g. movestogo 1).
    let hard = (base * 3).min((time / 4).max(soft)).min(available);
    TimeBudget {
        soft: Some(soft.min(hard)),
        hard: Some(hard),
    }
}

/// How much of the soft limit to use after an iteration whose best move has been the best
/// for `stable` iterations in a row (0: it just changed) and took `best_share` (0..=1) of
/// the root's nodes.
pub fn soft_scale(stable: usize, best_share: f64) -> f64 {
    let stability = TM_STABILITY[stable.min(TM_STABILITY.len() - 1)];
    let share = best_share.clamp(0.0, 1.0);
    stability * (TM_NODES_BASE - share) * TM_NODES_SCALE
}

/// Elapsed time against a budget. While pondering there is no limit; `ponderhit` restarts
/// the clock so the budget counts from the moment our own clock started running.
pub struct Clock {
    origin: Instant,
    /// Nanoseconds after `origin` at which the budget starts.
    start_nanos: AtomicU64,
    pondering: AtomicBool,
    budget: TimeBudget,
}

impl Clock {
    pub fn new(budget: TimeBudget, pondering: bool) -> Self {
        Self {
            origin: Instant::now(),
            start_nanos: AtomicU64::new(0),
            pondering: AtomicBool::new(pondering),
            budget,
        }
    }

    pub fn ponderhit(&self) {
        let now = self.origin.elapsed().as_nanos() as u64;
        self.start_nanos.store(now, Ordering::Relaxed);
        self.pondering.store(false, Ordering::Release);
    }

    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Acquire)
    }

    /// Since `go`, for `info time` and nps.
    pub fn since_go(&self) -> Duration {
        self.origin.elapsed()
    }

    /// Since the budget started (the `go`, or the `ponderhit`).
    fn used(&self) -> Duration {
        let start = Duration::from_nanos(self.start_nanos.load(Ordering::Relaxed));
        self.origin.elapsed().saturating_sub(start)
    }

    pub fn has_limit(&self) -> bool {
        self.budget.hard.is_some() || self.budget.soft.is_some()
    }

    /// Whether the soft limit, scaled by `scale` ([`soft_scale`]), has passed: no new
    /// iteration then. A soft limit equal to the hard one (`go movetime`) is not scaled: the
    /// user asked for that time. The hard limit still caps the search whatever the scale.
    pub fn soft_passed_scaled(&self, scale: f64) -> bool {
        let Some(soft) = self.budget.soft else {
            return false;
        };
        let target = match self.budget.hard {
            Some(hard) if soft < hard => soft.mul_f64(scale.max(0.0)).min(hard),
            _ => soft,
        };
        !self.is_pondering() && self.used() >= target
    }

    pub fn hard_passed(&self) -> bool {
        !self.is_pondering() && self.budget.hard.is_some_and(|h| self.used() >= h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn clock_limits(wtime: u64, winc: u64, movestogo: Option<u32>) -> Limits {
        Limits {
            wtime: Some(ms(wtime)),
            btime: Some(ms(1)),
            winc: Some(ms(winc)),
            movestogo,
            ..Limits::default()
        }
    }

    #[test]
    fn sudden_death_uses_a_fraction_of_the_clock() {
        let b = budget(&clock_limits(60_000, 0, None), Color::White, ms(50));
        assert_eq!(b.soft, Some(ms(2000)));
        assert_eq!(b.hard, Some(ms(6000)));
    }

    #[test]
    fn side_to_move_clock_is_used() {
        let b = budget(&clock_limits(60_000, 0, None), Color::Black, ms(0));
        assert!(b.hard.expect("hard limit") <= ms(1));
    }

    #[test]
    fn limits_never_exceed_remaining_time_minus_overhead() {
        for (time, inc, mtg) in [
            (100, 0, Some(1)),
            (1000, 5000, None),
            (30, 0, None),
            (10, 10, Some(1)),
            (500_000, 2000, Some(2)),
        ] {
            let b = budget(&clock_limits(time, inc, mtg), Color::White, ms(50));
            let cap = ms(time).saturating_sub(ms(50));
            let (soft, hard) = (b.soft.expect("soft"), b.hard.expect("hard"));
            assert!(hard <= cap, "{time} {inc} {mtg:?}: hard {hard:?} > {cap:?}");
            assert!(soft <= hard, "{time} {inc} {mtg:?}");
        }
    }

    #[test]
    fn movetime_infinite_and_no_clock() {
        let mt = Limits {
            movetime: Some(ms(100)),
            ..Limits::default()
        };
        assert_eq!(budget(&mt, Color::White, ms(10)).hard, Some(ms(90)));
        let inf = Limits {
            infinite: true,
            ..clock_limits(1000, 0, None)
        };
        assert_eq!(budget(&inf, Color::White, ms(10)), TimeBudget::default());
        let depth = Limits {
            depth: Some(5),
            ..Limits::default()
        };
        assert_eq!(budget(&depth, Color::White, ms(10)), TimeBudget::default());
    }

    #[test]
    fn pondering_suspends_limits_until_ponderhit() {
        let clock = Clock::new(
            TimeBudget {
                soft: Some(ms(0)),
                hard: Some(ms(0)),
            },
            true,
        );
        assert!(!clock.hard_passed());
        clock.ponderhit();
        assert!(clock.hard_passed());
        let long = Clock::new(
            TimeBudget {
                soft: None,
                hard: Some(ms(60_000)),
            },
            true,
        );
        std::thread::sleep(ms(20));
        long.ponderhit();
        assert!(long.used() < ms(20));
    }

    #[test]
    fn an_unsettled_best_move_gets_more_time_than_a_settled_one() {
        // A move that just changed, or that took few of the nodes, is still in doubt.
        assert!(soft_scale(0, 0.9) > soft_scale(4, 0.9));
        assert!(soft_scale(2, 0.3) > soft_scale(2, 0.9));
        // Long stability saturates; shares outside 0..=1 are clamped.
        assert_eq!(soft_scale(4, 0.5), soft_scale(40, 0.5));
        assert_eq!(soft_scale(1, 1.7), soft_scale(1, 1.0));
        assert!(soft_scale(4, 1.0) > 0.0);
    }

    #[test]
    fn the_scale_moves_the_soft_limit_but_not_movetime_nor_past_hard() {
        let clock = |soft, hard| {
            Clock::new(
                TimeBudget {
                    soft: Some(ms(soft)),
                    hard: Some(ms(hard)),
                },
                false,
            )
        };
        let timed = clock(40, 60_000);
        std::thread::sleep(ms(50));
        assert!(timed.soft_passed_scaled(1.0));
        assert!(!timed.soft_passed_scaled(100.0), "scaled up to 4 s");
        assert!(clock(60_000, 120_000).soft_passed_scaled(0.0));
        // movetime: soft = hard, scaled or not.
        assert!(!clock(60_000, 60_000).soft_passed_scaled(0.0));
        // A scale past the hard limit stops at the hard limit.
        let capped = clock(10, 40);
        std::thread::sleep(ms(50));
        assert!(capped.soft_passed_scaled(1000.0));
    }
}
