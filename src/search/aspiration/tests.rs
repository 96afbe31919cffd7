use super::*;
use crate::chess::{KeyHistory, Position};
use crate::search::control::Control;
use crate::search::root::root_moves;
use crate::search::tests::material;
use crate::search::time::{Clock, TimeBudget};
use crate::search::{start, Limits, RootState, SearchConfig, SearchEvent};
use crossbeam::channel::unbounded;
use std::time::Duration;

/// WAC.001: Qg6 mates, so the score jumps from a material edge to a mate between iterations.
const WAC1: &str = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1";
const MIDGAME: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";

/// One root search of `fen` at `depth` inside `window`, on fresh tables.
fn root_search(fen: &str, depth: i32, window: (i32, i32)) -> RootResult {
    let pos = Position::from_fen(fen).expect("valid test FEN");
    let shared = material();
    let control = Control::new(Clock::new(TimeBudget::default(), false), None);
    let mut history = KeyHistory::new();
    history.push(pos.key());
    let mut td = ThreadData::new(&shared, &control, 0, history);
    let mut moves = root_moves(&mut td, &pos, &[]).expect("material never fails");
    search_root(&mut td, &mut moves, depth, pos.is_check(), window)
}

#[test]
fn a_window_above_the_score_fails_low_and_one_below_fails_high() {
    let exact = root_search(MIDGAME, 4, (-INFINITY, INFINITY));
    assert_eq!(exact.bound, None);
    let s = exact.score;

    let low = root_search(MIDGAME, 4, (s + 50, s + 100));
    assert_eq!(low.bound, Some(Bound::Upper));
    assert!(low.score <= s + 50, "{} > {}", low.score, s + 50);
    assert!(!low.usable());

    let high = root_search(MIDGAME, 4, (s - 100, s - 50));
    assert_eq!(high.bound, Some(Bound::Lower));
    assert!(high.score >= s - 50, "{} < {}", high.score, s - 50);
    assert!(high.usable());

    let inside = root_search(MIDGAME, 4, (s - 10, s + 10));
    assert_eq!(inside.bound, None);
    assert_eq!(inside.score, s);
    assert_eq!(inside.pv, exact.pv);
}

#[test]
fn a_jump_in_score_is_reported_as_a_bound_then_resolved() {
    let (tx, rx) = unbounded();
    let root = RootState {
        position: Position::from_fen(WAC1).expect("valid test FEN"),
        history: KeyHistory::new(),
    };
    // With material only, the pruning hides Qg6 until depth 13 (depth 9 before reverse
    // futility pruning reached depth 7).
    let limits = Limits {
        depth: Some(13),
        ..Limits::default()
    };
    let config = SearchConfig {
        threads: 1,
        move_overhead: Duration::ZERO,
        ..SearchConfig::default()
    };
    start(root, limits, config, material(), tx).wait();
    let infos: Vec<_> = rx
        .try_iter()
        .filter_map(|e| match e {
            SearchEvent::Info(info) => Some(info),
            _ => None,
        })
        .collect();
    let bounded: Vec<_> = infos.iter().filter(|i| i.bound.is_some()).collect();
    assert!(
        !bounded.is_empty(),
        "no lowerbound/upperbound info: {infos:?}"
    );
    for b in bounded {
        assert!(
            infos
                .iter()
                .any(|i| i.depth == b.depth && i.bound.is_none()),
            "depth {} ended on a bound: {infos:?}",
            b.depth
        );
    }
    let last = infos.last().expect("a final info");
    assert_eq!(last.bound, None);
    assert_eq!(last.pv.first().map(String::as_str), Some("g3g6"));
}
