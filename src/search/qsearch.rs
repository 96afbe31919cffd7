//! Quiescence search: stand pat on the static eval the parent already computed, then try the
//! noisy moves, their children evaluated in one batch. In check there is no stand pat: every
//! evasion is searched, so mates at the horizon are seen.
//!
//! Both are bounded by `QS_MAX_PLIES`: an evaluator that does not value material (an untrained
//! net) never makes stand-pat cut, and the capture/check tree then grows exponentially.

use super::ordering::{is_noisy, material_gain, order_children, OrderHints};
use super::params::{DELTA_MARGIN, MAX_PLY, QS_MAX_PLIES};
use super::score::{mated_in, DRAW, INFINITY};
use super::see::see;
use super::thread::ThreadData;
use crate::chess::{MoveList, Position};
use shakmaty::Position as _;

pub fn qsearch(
    td: &mut ThreadData,
    pos: &Position,
    mut alpha: i32,
    beta: i32,
    ply: usize,
    qply: usize,
    static_eval: i32,
) -> i32 {
    // qply 0 is `search` handing over the node it entered; later plies are children.
    if qply > 0 {
        td.entered += 1;
    }
    if td.aborted {
        return 0;
    }
    td.seldepth = td.seldepth.max(ply);
    if pos.is_insufficient_material() {
        return DRAW;
    }
    if ply >= MAX_PLY - 1 {
        return static_eval;
    }
    let in_check = pos.is_check();
    // Stand pat and delta pruning use the corrected eval, as the main search's pruning does.
    let static_eval = if in_check {
        static_eval
    } else {
        td.shared.corrections.corrected(pos, static_eval)
    };
    if qply >= QS_MAX_PLIES {
        // Still report mate at the cut-off; anything else is scored by the evaluator alone.
        if in_check && pos.legal_moves().is_empty() {
            return mated_in(ply);
        }
        return static_eval;
    }
    let mut best;
    let mut moves: MoveList;
    if in_check {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return mated_in(ply);
        }
        if pos.halfmoves() >= 100 || td.history.is_repetition(pos.key(), pos.halfmoves()) {
            return DRAW;
        }
        best = -INFINITY;
        moves = legal;
    } else {
        best = static_eval;
        if best >= beta {
            return best;
        }
        alpha = alpha.max(best);
        // Delta pruning: skip captures that cannot reach alpha even winning the piece for free.
        moves = pos.noisy_moves();
        let board = pos.inner().board();
        moves.retain(|m| {
            static_eval + material_gain(m) + DELTA_MARGIN > alpha
                && (m.is_promotion() || see(board, m) >= 0)
        });
        if moves.is_empty() {
            return best;
        }
    }
    let mut buf = std::mem::take(&mut td.stack[ply]);
    if !td.expand(pos, &moves, &mut buf) {
        td.stack[ply] = buf;
        return 0;
    }
    order_children(&mut buf, &OrderHints::NONE);
    td.history.push(pos.key());
    for &(_, i) in &buf.order {
        let child = &buf.children[i as usize];
        debug_assert!(in_check || is_noisy(&child.mv));
        let score = -qsearch(td, &child.pos, -beta, -alpha, ply + 1, qply + 1, child.eval);
        if td.aborted {
            break;
        }
        if score > best {
            best = score;
            if score > alpha {
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
    }
    td.history.pop();
    td.stack[ply] = buf;
    if td.aborted {
        0
    } else {
        best
    }
}
