//! MultiPV through whole searches (material evaluator), and the sort on its own.

use super::*;
use crate::search::root::unscored_root_moves;
use crate::search::tests::material;
use crate::search::{start, Info, Limits, RootState, Score, SearchConfig, SearchEvent};

const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The `Info`s and the best move of a material-only search with `multipv` lines.
fn collect_infos(fen: &str, limits: Limits, multipv: usize) -> (Vec<Info>, Option<String>) {
    let (tx, rx) = crossbeam::channel::unbounded();
    let config = SearchConfig {
        multipv,
        ..SearchConfig::default()
    };
    start(
        RootState::from_test_fen(fen),
        limits,
        config,
        material(),
        tx,
    )
    .wait();
    let mut infos = Vec::new();
    let mut best = None;
    for event in rx.try_iter() {
        match event {
            SearchEvent::Info(info) => infos.push(info),
            SearchEvent::BestMove { best: b, .. } => best = b,
            SearchEvent::Message(_) => {}
        }
    }
    (infos, best)
}

#[test]
fn sorting_moves_each_root_move_with_its_line_and_keeps_ties_in_order() {
    let root = RootState::from_test_fen(STARTPOS);
    let mut moves = unscored_root_moves(&root.position, &[]);
    moves.truncate(4);
    let scores = [10, 30, 10, 20];
    let mut lines: Vec<Line> = moves
        .iter()
        .zip(scores)
        .map(|(m, score)| Line {
            score,
            pv: vec![m.child.mv],
        })
        .collect();
    let before: Vec<Move> = moves.iter().map(|m| m.child.mv).collect();
    sort_lines(&mut moves, &mut lines);
    let after: Vec<Move> = moves.iter().map(|m| m.child.mv).collect();
    assert_eq!(after, [before[1], before[3], before[0], before[2]]);
    assert_eq!(
        lines.iter().map(|l| l.score).collect::<Vec<_>>(),
        [30, 20, 10, 10]
    );
    for (m, l) in moves.iter().zip(&lines) {
        assert_eq!(l.pv[0], m.child.mv);
    }
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

/// Every iteration reports lines 1..=k with different first moves, best first, and
/// the best move is line 1's.
#[test]
fn each_iteration_reports_k_distinct_lines_best_first() {
    const MIDGAME: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let (infos, best) = collect_infos(MIDGAME, depth(5), 3);
    for d in 1..=5 {
        let lines: Vec<_> = infos
            .iter()
            .filter(|i| i.depth == d && i.bound.is_none() && i.multipv.is_some())
            .collect();
        assert_eq!(
            lines.iter().map(|i| i.multipv.unwrap()).collect::<Vec<_>>(),
            [1, 2, 3],
            "depth {d}: {infos:?}"
        );
        let firsts: std::collections::HashSet<_> = lines.iter().map(|i| &i.pv[0]).collect();
        assert_eq!(firsts.len(), 3, "depth {d}: {lines:?}");
        let cps: Vec<i32> = lines
            .iter()
            .map(|i| match i.score {
                Score::Cp(cp) => cp,
                Score::Mate(m) => panic!("no mate here: {m}"),
            })
            .collect();
        assert!(cps.windows(2).all(|w| w[0] >= w[1]), "depth {d}: {cps:?}");
    }
    let last_first = infos
        .iter()
        .rev()
        .find(|i| i.multipv == Some(1) && i.bound.is_none())
        .unwrap();
    assert_eq!(Some(&last_first.pv[0]), best.as_ref());
}

/// More lines than moves: one line per legal move (searchmoves counts as the root).
#[test]
fn lines_are_capped_by_the_root_moves() {
    let limits = Limits {
        searchmoves: vec!["e2e4".into(), "d2d4".into()],
        ..depth(4)
    };
    let (infos, best) = collect_infos(STARTPOS, limits, 5);
    let last: Vec<_> = infos
        .iter()
        .filter(|i| i.depth == 4 && i.multipv.is_some() && i.bound.is_none())
        .collect();
    assert_eq!(last.len(), 2, "{infos:?}");
    let mut firsts: Vec<&str> = last.iter().map(|i| i.pv[0].as_str()).collect();
    firsts.sort();
    assert_eq!(firsts, ["d2d4", "e2e4"]);
    assert!(matches!(best.as_deref(), Some("e2e4" | "d2d4")));
}

/// `MultiPV 1` reports no `multipv` field (GUIs and tests read lines as before).
#[test]
fn one_line_reports_no_multipv_field() {
    let (infos, best) = collect_infos(STARTPOS, depth(4), 1);
    assert!(!infos.is_empty() && best.is_some());
    assert!(infos.iter().all(|i| i.multipv.is_none()), "{infos:?}");
}
