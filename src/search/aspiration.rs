//! Aspiration windows: an iteration first searches a narrow window around the previous
//! iteration's score, and widens it on the side that failed until the score lands inside.

use super::params::{ASPIRATION_DELTA, ASPIRATION_FULL_AFTER, ASPIRATION_MIN_DEPTH};
use super::report::Bound;
use super::root::{search_root, RootMove, RootResult};
use super::score::{is_mate, INFINITY};
use super::thread::ThreadData;

/// One iteration of iterative deepening at `depth`. `previous` is the last iteration's score
/// (ignored below `ASPIRATION_MIN_DEPTH`). `on_bound` hears every result that failed outside
/// its window before the window is widened (the main thread reports it as a bound).
pub fn search_iteration(
    td: &mut ThreadData,
    moves: &mut [RootMove],
    depth: i32,
    in_check: bool,
    previous: i32,
    on_bound: &mut dyn FnMut(&ThreadData, &RootResult),
) -> RootResult {
    let mut delta = ASPIRATION_DELTA;
    let mut window = if depth >= ASPIRATION_MIN_DEPTH && !is_mate(previous) {
        (
            (previous - delta).max(-INFINITY),
            (previous + delta).min(INFINITY),
        )
    } else {
        (-INFINITY, INFINITY)
    };
    // A move that failed high is better than the last iteration's best: if time runs out
    // during the re-search, it is still the one to play.
    let mut failed_high: Option<RootResult> = None;
    loop {
        let result = search_root(td, moves, depth, in_check, window);
        if td.aborted {
            return match failed_high {
                Some(high) if !result.usable() => high,
                _ => result,
            };
        }
        if result.bound.is_none() {
            return result;
        }
        on_bound(td, &result);
        let (alpha, beta) = window;
        delta += delta / 2;
        window = match result.bound {
            // Fail low: the score is at most this; look below it, and pull beta in too, as
            // Stockfish does, since the old best move is in doubt.
            Some(Bound::Upper) => ((result.score - delta).max(-INFINITY), (alpha + beta) / 2),
            _ => (alpha, (result.score + delta).min(INFINITY)),
        };
        if delta > ASPIRATION_FULL_AFTER || is_mate(result.score) {
            window = (-INFINITY, INFINITY);
        }
        if result.bound == Some(Bound::Lower) {
            failed_high = Some(result);
        }
    }
}

#[cfg(test)]
mod tests;
