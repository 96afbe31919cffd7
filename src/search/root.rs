//! The root: its move list (kept across iterations, best first) and one iteration over it.

use super::alphabeta::{frontier_value, search_child, update_pv};
use super::history::piece_to;
use super::report::Bound;
use super::score::INFINITY;
use super::thread::{Child, PlyBuf, ThreadData};
use crate::chess::{Move, MoveList, Position};

#[derive(Clone, Debug)]
pub struct RootMove {
    pub child: Child,
    /// Score from the last iteration that searched it exactly; `-INFINITY` if it failed low.
    pub score: i32,
    /// Nodes this thread spent below this move in the whole search so far: the share of
    /// the best move tells time management how settled the choice is.
    pub nodes: u64,
}

/// Builds and statically scores the root moves (restricted to `searchmoves` when that names
/// any legal move), best static score first, so a search stopped before depth 1 completes
/// still has a sensible move. `None` if the evaluator failed.
pub fn root_moves(
    td: &mut ThreadData,
    pos: &Position,
    searchmoves: &[String],
) -> Option<Vec<RootMove>> {
    let moves = root_move_list(pos, searchmoves);
    let mut buf = PlyBuf::default();
    // Not stopped by a `stop` that came at once: the bestmove must come from scored moves.
    let ok = td.expand_unpolled(pos, &moves, &mut buf);
    let mut list: Vec<RootMove> = buf
        .children
        .into_iter()
        .map(|child| RootMove {
            score: -child.eval,
            child,
            nodes: 0,
        })
        .collect();
    // Stable: ties keep move-generation order, so the order is deterministic.
    list.sort_by_key(|rm| -rm.score);
    ok.then_some(list)
}

/// The legal moves, restricted to `searchmoves` when that names any of them.
fn root_move_list(pos: &Position, searchmoves: &[String]) -> MoveList {
    let mut moves = pos.legal_moves();
    if !searchmoves.is_empty() {
        let mut restricted = moves.clone();
        restricted.retain(|m| searchmoves.contains(&pos.move_to_uci(m)));
        if !restricted.is_empty() {
            moves = restricted;
        }
    }
    moves
}

/// Unevaluated root moves (within `searchmoves`), in generation order, for when the
/// evaluator has failed.
pub fn unscored_root_moves(pos: &Position, searchmoves: &[String]) -> Vec<RootMove> {
    root_move_list(pos, searchmoves)
        .iter()
        .map(|m| RootMove {
            child: Child {
                mv: *m,
                pos: pos.play(m),
                eval: 0,
            },
            score: 0,
            nodes: 0,
        })
        .collect()
}

/// Outcome of one root iteration.
pub struct RootResult {
    pub score: i32,
    /// Index into the root moves of the best move found.
    pub best: usize,
    /// Moves searched completely; an aborted iteration with at least one is still usable,
    /// unless it failed low.
    pub completed: usize,
    pub pv: Vec<Move>,
    /// `None` when `score` is exact; `Lower` when a move reached beta (the iteration stopped
    /// there: that move is at least this good); `Upper` when no move rose above alpha.
    pub bound: Option<Bound>,
}

impl RootResult {
    /// Whether the best move and its line can be played: some move was searched to the end,
    /// and it did not merely fail low.
    pub fn usable(&self) -> bool {
        self.completed > 0 && self.bound != Some(Bound::Upper)
    }
}

/// Searches the root moves to `depth` inside the window (`alpha`, `beta`) and moves the best
/// to the front; stops at the first move that reaches beta.
pub fn search_root(
    td: &mut ThreadData,
    moves: &mut [RootMove],
    depth: i32,
    in_check: bool,
    window: (i32, i32),
) -> RootResult {
    let (mut alpha, beta) = window;
    let mut result = RootResult {
        score: -INFINITY,
        best: 0,
        completed: 0,
        pv: Vec::new(),
        bound: None,
    };
    for (n, root_move) in moves.iter_mut().enumerate() {
        let child = &root_move.child;
        let mv = child.mv;
        td.moved[0] = Some(piece_to(child.pos.turn().other(), &mv));
        let before = td.nodes;
        let score = if depth <= 1 {
            frontier_value(td, child, alpha, beta, 0)
        } else {
            search_child(td, child, depth - 1, alpha, beta, 0, n, in_check)
        };
        root_move.nodes += td.nodes - before;
        if td.aborted {
            break;
        }
        result.completed = n + 1;
        if score > alpha || n == 0 {
            root_move.score = score;
            alpha = alpha.max(score);
            update_pv(td, 0, mv);
            result.score = score;
            result.best = n;
            result.pv.clear();
            result.pv.extend_from_slice(&td.pv[0]);
            if score >= beta {
                result.bound = Some(Bound::Lower);
                break;
            }
        } else {
            root_move.score = -INFINITY;
        }
    }
    if result.completed > 0 && result.score <= window.0 {
        result.bound = Some(Bound::Upper);
    }
    if result.completed > 0 {
        // Best first, then the rest in their previous order.
        moves[..=result.best].rotate_right(1);
        result.best = 0;
    }
    result
}
