//! `PlayMode greedy`: the evaluator as a depth-1 player, with no search. Every legal move
//! (honouring `searchmoves`) is played, the children are scored in one evaluator call, and
//! the move whose child is worst for the opponent is played: Deep Pink's f used alone, the
//! triplet net's answer to the ConvChess policy player. Nothing else is looked at, not even
//! a mate in one: the point is to measure f, not the rules.

use super::no_search::{self, allowed_moves, Choice, Chooser};
use super::report::{Score, SearchEvent};
use super::thread::to_centipawns;
use super::{Limits, RootState, SearchHandle};
use crate::eval::Evaluator;
use shakmaty::Move;
use std::sync::Arc;

/// The greedy choice and its score for the side to move (centipawns), or `None` without a
/// legal move. Ties go to the first move in generation order.
pub fn choose(
    root: &RootState,
    limits: &Limits,
    eval: &dyn Evaluator,
) -> Result<Option<(Move, i32, usize)>, String> {
    let moves = allowed_moves(root, limits);
    if moves.is_empty() {
        return Ok(None);
    }
    let position = &root.position;
    let boards: Vec<_> = moves.iter().map(|m| position.play(m).compact()).collect();
    let mut scores = Vec::with_capacity(boards.len());
    eval.evaluate_children(&position.compact(), &boards, &mut scores)
        .map_err(|e| format!("the evaluator failed: {e}"))?;
    if scores.len() != boards.len() {
        return Err(format!(
            "the evaluator returned {} scores for {} positions",
            scores.len(),
            boards.len()
        ));
    }
    // Each score is the child's, from the opponent's side: ours is its negation.
    let values: Vec<i32> = scores.iter().map(|&s| -to_centipawns(s)).collect();
    let best = values
        .iter()
        .enumerate()
        .fold(0, |b, (i, v)| if *v > values[b] { i } else { b });
    Ok(Some((moves[best], values[best], moves.len())))
}

/// Starts the greedy player on a thread; events as [`super::start`] sends them.
pub fn start(
    root: RootState,
    limits: Limits,
    eval: Arc<dyn Evaluator>,
    events: crossbeam::channel::Sender<SearchEvent>,
) -> SearchHandle {
    let chooser: Chooser = Box::new(move |root, limits| {
        let _registration = eval.register_searcher();
        let Some((mv, value, children)) = choose(root, limits, eval.as_ref())? else {
            return Ok(None);
        };
        let uci = root.position.move_to_uci(&mv);
        Ok(Some(Choice {
            mv,
            score: Score::Cp(value),
            nodes: children as u64,
            message: format!(
                "PlayMode greedy: {uci} scores {value} cp by the evaluator over {children} \
                 children (no search)"
            ),
        }))
    });
    no_search::start(root, limits, "cerise-greedy", chooser, events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::MaterialEvaluator;

    fn root(fen: &str) -> RootState {
        RootState::from_test_fen(fen)
    }

    #[test]
    fn takes_the_child_the_evaluator_likes_best_and_nothing_deeper() {
        // White takes the undefended queen; material sees nothing else.
        let r = root("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1");
        let (mv, value, n) = choose(&r, &Limits::default(), &MaterialEvaluator)
            .unwrap()
            .unwrap();
        assert_eq!(r.position.move_to_uci(&mv), "d2d5");
        assert_eq!(value, 500, "a rook against nothing");
        assert_eq!(n, r.position.legal_moves().len());
        // It never plays outside searchmoves.
        let only = Limits {
            searchmoves: vec!["e1f1".to_string()],
            ..Limits::default()
        };
        let (forced, _, n) = choose(&r, &only, &MaterialEvaluator).unwrap().unwrap();
        assert_eq!(
            (r.position.move_to_uci(&forced), n),
            ("e1f1".to_string(), 1)
        );
        // Black to move: values are from Black's side.
        let b = root("4k3/8/8/3r4/8/8/3Q4/4K3 b - - 0 1");
        let (mv, value, _) = choose(&b, &Limits::default(), &MaterialEvaluator)
            .unwrap()
            .unwrap();
        assert_eq!(b.position.move_to_uci(&mv), "d5d2");
        assert!(value > 0);
    }

    #[test]
    fn a_defended_piece_is_taken_all_the_same() {
        // The rook on d5 is defended by the pawn on e6: greedy does not look at the reply.
        let r = root("4k3/8/4p3/3r4/8/8/3Q4/4K3 w - - 0 1");
        let (mv, _, _) = choose(&r, &Limits::default(), &MaterialEvaluator)
            .unwrap()
            .unwrap();
        assert_eq!(r.position.move_to_uci(&mv), "d2d5");
    }

    #[test]
    fn no_legal_move_is_no_choice() {
        let mated = root("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
        assert!(choose(&mated, &Limits::default(), &MaterialEvaluator)
            .unwrap()
            .is_none());
    }
}
