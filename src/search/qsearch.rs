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
use super::tt::{pack_move, TtBound};
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
    // Before the TT, whose key has no halfmove clock (as in the main search). Out of check
    // a 50-move position is a draw; in check it is one unless it is mate.
    if pos.halfmoves() >= 100 && (!in_check || pos.has_legal_move()) {
        return DRAW;
    }
    let pv_node = beta - alpha > 1;
    let original_alpha = alpha;
    let mut tt_move = 0;
    if let Some(entry) = td.shared.tt.probe(pos.key(), ply) {
        tt_move = entry.mv;
        // Any entry is at least as deep as quiescence (depth 0).
        if !pv_node && entry.settles(alpha, beta) {
            return entry.score;
        }
    }
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
        if td.history.is_repetition(pos.key(), pos.halfmoves()) {
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
    order_children(
        &mut buf,
        &OrderHints {
            tt_move,
            ..OrderHints::NONE
        },
    );
    td.history.push(pos.key());
    let mut best_move = 0;
    for &(_, i) in &buf.order {
        let child = &buf.children[i as usize];
        debug_assert!(in_check || is_noisy(&child.mv));
        let score = -qsearch(td, &child.pos, -beta, -alpha, ply + 1, qply + 1, child.eval);
        if td.aborted {
            break;
        }
        if score > best {
            best = score;
            best_move = pack_move(&child.mv);
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
        return 0;
    }
    let bound = TtBound::of(best, original_alpha, beta);
    let mv = if bound == TtBound::Upper {
        0
    } else {
        best_move
    };
    td.shared.tt.store(pos.key(), mv, best, 0, bound, ply);
    best
}

#[cfg(test)]
mod tests {
    use super::super::tests::material;
    use super::*;
    use crate::chess::KeyHistory;
    use crate::search::control::Control;
    use crate::search::time::{Clock, TimeBudget};

    fn control() -> Control {
        Control::new(Clock::new(TimeBudget::default(), false), None)
    }

    /// White to move can take a hanging queen.
    const HANGING: &str = "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1";

    #[test]
    fn quiescence_stores_its_result_and_best_capture() {
        let (shared, control) = (material(), control());
        let mut td = ThreadData::new(&shared, &control, 0, KeyHistory::new());
        let pos = Position::from_fen(HANGING).expect("valid test FEN");
        let score = qsearch(&mut td, &pos, -INFINITY, INFINITY, 0, 0, -800);
        assert!(score > 0, "taking the queen wins: {score}");
        let entry = shared.tt.probe(pos.key(), 0).expect("a stored entry");
        assert_eq!(entry.depth, 0);
        assert_eq!(entry.bound, TtBound::Exact);
        assert_eq!(entry.score, score);
        let exd5 = pos.parse_uci_move("e4d5").expect("legal");
        assert_eq!(entry.mv, pack_move(&exd5));
    }

    #[test]
    fn a_non_pv_node_takes_a_usable_entry_and_a_pv_node_does_not() {
        let (shared, control) = (material(), control());
        let mut td = ThreadData::new(&shared, &control, 0, KeyHistory::new());
        let pos = Position::from_fen(HANGING).expect("valid test FEN");
        // A (false) lower bound of 5000 cp: a null window below it must cut at once.
        shared.tt.store(pos.key(), 0, 5000, 3, TtBound::Lower, 0);
        assert_eq!(qsearch(&mut td, &pos, 99, 100, 0, 0, -800), 5000);
        // A PV node searches instead, and finds the real value of the capture.
        let pv = qsearch(&mut td, &pos, -INFINITY, INFINITY, 0, 0, -800);
        assert!(pv < 5000 && pv > 0, "{pv}");
    }

    #[test]
    fn a_fifty_move_position_is_a_draw_in_quiescence() {
        let (shared, control) = (material(), control());
        let mut td = ThreadData::new(&shared, &control, 0, KeyHistory::new());
        let pos = Position::from_fen("4k3/8/8/3q4/4P3/8/8/4K3 w - - 100 80").expect("valid");
        shared.tt.store(pos.key(), 0, 700, 5, TtBound::Exact, 0);
        assert_eq!(
            qsearch(&mut td, &pos, -INFINITY, INFINITY, 0, 0, -800),
            DRAW
        );
    }
}
