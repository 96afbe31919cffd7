//! `PlayMode policy`: the move the ConvChess study's player makes, with no search. Among the
//! legal moves (honouring `searchmoves`), the one with the highest
//! log p_piece(from) + log p_move(to). Reported like a search: a `Message` with the move's
//! policy probability, one `Info` of depth 1 with score 0 (the policy evaluates nothing),
//! then `BestMove`.

use super::no_search::{self, allowed_moves, Choice, Chooser};
use super::report::{Score, SearchEvent};
use super::{Limits, RootState, SearchHandle};
use crate::eval::{MovePolicy, PolicyMove};
use shakmaty::{Color, Move};
use std::sync::Arc;

/// The policy's choice and its probability, or `None` without a legal move.
pub fn choose(
    root: &RootState,
    limits: &Limits,
    policy: &MovePolicy,
) -> Result<Option<(Move, f32)>, String> {
    let position = &root.position;
    let turn = position.turn();
    let moves = allowed_moves(root, limits);
    if moves.is_empty() {
        return Ok(None);
    }
    let inputs: Vec<PolicyMove> = moves.iter().map(|m| PolicyMove::new(m, turn)).collect();
    let scores = policy
        .score_moves(&position.compact(), turn == Color::White, &inputs)
        .map_err(|e| format!("the policy failed: {e}"))?;
    // Promotions share their squares: the first (a queen, in shakmaty's order) wins ties.
    let best = scores
        .iter()
        .enumerate()
        .fold(0, |b, (i, s)| if *s > scores[b] { i } else { b });
    Ok(Some((moves[best], scores[best].exp())))
}

/// Starts the policy player on a thread; events as [`super::start`] sends them.
pub fn start(
    root: RootState,
    limits: Limits,
    policy: Arc<MovePolicy>,
    events: crossbeam::channel::Sender<SearchEvent>,
) -> SearchHandle {
    let chooser: Chooser = Box::new(move |root, limits| {
        let Some((mv, p)) = choose(root, limits, &policy)? else {
            return Ok(None);
        };
        let uci = root.position.move_to_uci(&mv);
        Ok(Some(Choice {
            mv,
            // The policy evaluates no position: it has no score to give.
            score: Score::Cp(0),
            nodes: 1,
            message: format!(
                "PlayMode policy: {uci} has policy probability {p:.3} (no search, no evaluation)"
            ),
        }))
    });
    no_search::start(root, limits, "cerise-policy", chooser, events)
}

// Every test here needs a policy net, which only libtorch runs.
#[cfg(all(test, feature = "torch"))]
mod tests {
    use super::*;

    fn root(fen: &str) -> RootState {
        RootState::from_test_fen(fen)
    }

    #[test]
    fn the_choice_is_the_best_legal_move_within_searchmoves() {
        let dir = std::env::temp_dir().join(format!("cerise-policy-play-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("convchess.safetensors");
        crate::net::init_net("convchess", 3, &path).unwrap();
        let net = crate::net::load(&path).unwrap();
        let policy = MovePolicy::from_net(&net, "test").unwrap();
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
        ] {
            let r = root(fen);
            let (best, p) = choose(&r, &Limits::default(), &policy).unwrap().unwrap();
            let legal = r.position.legal_moves();
            assert!(legal.contains(&best));
            // The choice has the highest score of all legal moves.
            let turn = r.position.turn();
            let keyed: Vec<PolicyMove> = legal.iter().map(|m| PolicyMove::new(m, turn)).collect();
            let scores = policy
                .score_moves(&r.position.compact(), turn == Color::White, &keyed)
                .unwrap();
            let top = scores.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            assert!((p.ln() - top).abs() < 1e-4, "{p} vs e^{top}");
            let only = Limits {
                searchmoves: vec![r.position.move_to_uci(&legal[legal.len() - 1])],
                ..Limits::default()
            };
            let (forced, _) = choose(&r, &only, &policy).unwrap().unwrap();
            assert_eq!(forced, legal[legal.len() - 1]);
        }
        // No legal move: no choice.
        let mated = root("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
        assert!(choose(&mated, &Limits::default(), &policy)
            .unwrap()
            .is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
