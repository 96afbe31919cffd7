//! Negamax principal-variation search over sibling-batched children.
//!
//! Every node builds all of its children and scores them with one evaluator call before
//! searching any of them (Deep Pink), except the moves it stages: the TT move, and at nodes
//! of depth 2 or more on an evaluator that scores one child as cheaply as a batch's share,
//! the captures that do not lose material and the killers, each scored alone. A cutoff among
//! them spares the batch, and where the node's own eval is already futile the batch holds
//! only the captures and checks. At depth 1 a quiet child's batch score is the leaf value
//! when it already fails low; every other child goes to quiescence.

use super::history::{gravity, history_bonus, piece_to, push_killer, side, update_history};
use super::ordering::{is_noisy, order_children, stage_good_noisy_and_killers, OrderHints};
use super::params::{
    FUTILITY_MARGIN, IIR_MIN_DEPTH, LATE_PRUNE_MAX_DEPTH, LMP_BASE, LMR_CUT_NODE, LMR_FULL_MOVES,
    LMR_HISTORY_DIVISOR, LMR_MIN_DEPTH, MAX_PLY, NMP_BASE_REDUCTION, NMP_DEPTH_DIVISOR,
    NMP_EVAL_DIVISOR, NMP_EVAL_MAX, NMP_MIN_DEPTH, POLICY_MIN_DEPTH, RFP_MARGIN, RFP_MAX_DEPTH,
    SEE_PRUNE_MAX_DEPTH, STAGE_MIN_DEPTH,
};
use super::qsearch::qsearch;
use super::reductions::late_move_reduction;
use super::score::{mated_in, DRAW, INFINITY, MATE_BOUND, TB_BOUND, TB_WIN};
use super::see::loses_too_much;
use super::singular::{singular_beta, singular_depth, verdict, Verdict};
use super::thread::{Child, ThreadData};
use super::tt::{find_move, pack_move, TtBound};
use crate::chess::syzygy::TbOutcome;
use crate::chess::{Color, Move, Position};
use crate::eval::Evaluator as _;
use shakmaty::Position as _;

/// Draws visible without generating moves: repetition and insufficient material.
pub fn is_quick_draw(td: &ThreadData, pos: &Position) -> bool {
    pos.is_insufficient_material() || td.history.is_repetition(pos.key(), pos.halfmoves())
}

/// The value of a child of a depth-1 node, from the parent's point of view.
pub fn frontier_value(
    td: &mut ThreadData,
    child: &Child,
    alpha: i32,
    beta: i32,
    ply: usize,
) -> i32 {
    td.pv[ply + 1].clear();
    let in_check = child.pos.is_check();
    // A child without a legal move is stalemate (or mate, which quiescence sees): its static
    // eval, or a stand pat after a capture, would score a draw as a win.
    if !in_check && !child.pos.has_legal_move() {
        td.seldepth = td.seldepth.max(ply + 1);
        return DRAW;
    }
    if is_noisy(&child.mv) || in_check {
        return -qsearch(td, &child.pos, -beta, -alpha, ply + 1, 1, child.eval);
    }
    td.seldepth = td.seldepth.max(ply + 1);
    // Not in check, so a 50-move position cannot be mate: it is a draw.
    if child.pos.halfmoves() >= 100 || is_quick_draw(td, &child.pos) {
        return DRAW;
    }
    // The child's static eval is only an upper bound on the quiet move's value: the opponent
    // may capture something it left hanging. A bound at or below alpha already fails low (the
    // common case, free); otherwise quiescence looks at those captures.
    let bound = -td.shared.corrections.corrected(&child.pos, child.eval);
    if bound <= alpha {
        return bound;
    }
    -qsearch(td, &child.pos, -beta, -alpha, ply + 1, 1, child.eval)
}

/// The tablebase's verdict on a node right after a capture or pawn move (where WDL is exact),
/// if the node has few enough pieces and a table covers it.
fn probe_tablebase(td: &ThreadData, pos: &Position, ply: usize) -> Option<i32> {
    let tb = td.shared.syzygy.as_ref()?;
    // A null move also sets the clock to 0, but "passing wins" is no result: zugzwang is
    // common in these endings. And a mate is the search's to score as a mate.
    if pos.halfmoves() != 0
        || td.null_moved[ply]
        || !tb.tables.covers(pos, tb.probe_limit)
        || (pos.is_check() && !pos.has_legal_move())
    {
        return None;
    }
    let outcome = tb.tables.probe_wdl_after_zeroing(pos)?;
    td.control
        .tbhits
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Some(match outcome {
        TbOutcome::Win => TB_WIN - ply as i32,
        TbOutcome::Draw => DRAW,
        TbOutcome::Loss => ply as i32 - TB_WIN,
    })
}

/// Makes `pv[ply]` = `m` followed by `pv[ply + 1]`.
pub fn update_pv(td: &mut ThreadData, ply: usize, m: Move) {
    let (head, tail) = td.pv.split_at_mut(ply + 1);
    let line = &mut head[ply];
    line.clear();
    line.push(m);
    line.extend_from_slice(&tail[0]);
}

/// Searches a non-root node. `static_eval` is the node's own eval, computed by its parent's
/// batch. Returns a root-relative score (mates count plies from the root); 0 after an abort.
pub fn search(
    td: &mut ThreadData,
    pos: &Position,
    mut depth: i32,
    mut alpha: i32,
    mut beta: i32,
    ply: usize,
    static_eval: i32,
) -> i32 {
    td.entered += 1;
    td.pv[ply].clear();
    if td.aborted {
        return 0;
    }
    if is_quick_draw(td, pos) {
        return DRAW;
    }
    // Mate distance pruning: no line from here can be mated sooner than now or mate sooner
    // than next ply, so a window outside those bounds is already decided.
    alpha = alpha.max(mated_in(ply));
    beta = beta.min(-mated_in(ply + 1));
    if alpha >= beta {
        return alpha;
    }
    let in_check = pos.is_check();
    // A singular test searches its node again without the TT move: no TT, tablebase or
    // early pruning there, and nothing stored, since its result is not the node's.
    let excluded = td.excluded[ply];
    // Check extension, bounded so that perpetual checks cannot run off the ply stack (a
    // singular test's node has it already).
    if in_check && ply < MAX_PLY / 2 && excluded.is_none() {
        depth += 1;
    }
    if depth <= 0 {
        return qsearch(td, pos, alpha, beta, ply, 0, static_eval);
    }
    if ply >= MAX_PLY - 1 {
        return static_eval;
    }
    // The parent's batch scored this node; pruning compares the corrected eval with the
    // window, and the correction tables learn from the error of the uncorrected one.
    let raw_eval = static_eval;
    let static_eval = if in_check {
        raw_eval
    } else {
        td.shared.corrections.corrected(pos, raw_eval)
    };
    td.seldepth = td.seldepth.max(ply);
    td.static_evals[ply] = (!in_check).then_some(static_eval);
    let pv_node = beta - alpha > 1;
    // Before the TT: its key has no halfmove clock, so an entry stored for the same board
    // earlier in the game would hide the draw.
    if pos.halfmoves() >= 100 {
        return if in_check && !pos.has_legal_move() {
            mated_in(ply)
        } else {
            DRAW
        };
    }

    // What reverse futility and null-move pruning compare with beta: the static eval, or
    // the TT's score where its bound says the static eval is wrong in that direction. Only
    // an entry at most one ply shallower: a node cut by that pruning stores nothing, so a
    // stale shallow bound would otherwise cut it again at every later iteration (a bound of
    // depth 1 hid Morphy's mate in two until depth 10).
    let mut prune_eval = static_eval;
    let tt_entry = if excluded.is_none() {
        td.shared.tt.probe(pos.key(), ply)
    } else {
        None
    };
    if let Some(entry) = tt_entry {
        if entry.depth >= depth - 1 {
            prune_eval = refined_eval(static_eval, entry.score, entry.bound);
        }
        if !pv_node && entry.settles(alpha, beta) && entry.depth >= depth {
            return entry.score;
        }
    }
    let tt_move = tt_entry.map_or(0, |e| e.mv);

    if excluded.is_none() {
        if let Some(score) = probe_tablebase(td, pos, ply) {
            return score;
        }
        // Internal iterative reduction: a node the TT knows no move for is searched one ply
        // shallower; if it matters, the next iteration finds it again with a move to try
        // first.
        if tt_move == 0 && depth >= IIR_MIN_DEPTH {
            depth -= 1;
        }
    }

    if !pv_node && !in_check && beta.abs() < MATE_BOUND && excluded.is_none() {
        if let Some(score) = prune_early(td, pos, depth, beta, ply, prune_eval, raw_eval) {
            return score;
        }
        if td.aborted {
            return 0;
        }
    }

    let mut moves = pos.legal_moves();
    if moves.is_empty() {
        return if in_check { mated_in(ply) } else { DRAW };
    }
    if let Some(m) = excluded {
        moves.retain(|x| *x != m);
        // The TT move was the only move: nothing else comes close.
        if moves.is_empty() {
            return alpha;
        }
    }
    // The TT move is searched before the other children are built: when it cuts off (the
    // common case at a node the TT knows), the batch of every other child is never paid for.
    // Deeper, the captures that keep their material and the killers follow it the same way.
    let staged_tt = find_move(tt_move, &moves);

    // The singular test: how far the TT move, searched first, goes deeper (or shallower).
    let mut extension = 0;
    if let (Some(m), Some(entry)) = (staged_tt, tt_entry) {
        if let Some(s_beta) = singular_beta(&entry, depth, ply) {
            td.excluded[ply] = Some(m);
            let s_depth = singular_depth(depth);
            let score = search(td, pos, s_depth, s_beta - 1, s_beta, ply, raw_eval);
            td.excluded[ply] = None;
            if td.aborted {
                return 0;
            }
            let double = td.double_extended[ply];
            let v = verdict(score, s_beta, beta, entry.score, pv_node, double);
            td.singular.count(v);
            match v {
                Verdict::Extend(plies) => extension = plies,
                Verdict::MultiCut(score) => return score,
            }
        }
    }

    let mut buf = std::mem::take(&mut td.stack[ply]);
    buf.staged.clear();
    buf.staged.extend(staged_tt);
    td.history.push(pos.key());
    let us = side(pos.turn());
    let earlier = [td.moved_before(ply, 1), td.moved_before(ply, 2)];
    let original_alpha = alpha;
    let mut best = Best {
        score: -INFINITY,
        mv: None,
        alpha,
    };
    // Quiet moves late in the order, or whose own static eval is far below alpha, are not
    // searched at shallow non-PV nodes: once a move has been searched, and unless we are
    // being mated, they are very unlikely to raise alpha.
    let may_prune = !pv_node && !in_check && (2..=LATE_PRUNE_MAX_DEPTH).contains(&depth);
    // A node whose eval is not improving on two plies ago expects less from its late quiets.
    let improving = may_prune && td.improving(ply, static_eval);
    // Moves that lose material by static exchange, by more than the depth allows, are
    // not searched either (at PV nodes too), once a move has been.
    let see_prune = !in_check && depth <= SEE_PRUNE_MAX_DEPTH;
    // Move numbers count the staged moves first, in the order they were staged, so pruning
    // and reductions see the same order as when every child was built at once:
    // `buf.order[k]` is move `k + buf.staged.len()`.
    // The move number of the move that failed high.
    let mut cutoff_at = None;
    'moves: {
        let mut staged_all = !(td.stage_moves && depth >= STAGE_MIN_DEPTH);
        let mut n = 0;
        loop {
            if n == buf.staged.len() {
                if staged_all {
                    break;
                }
                staged_all = true;
                stage_good_noisy_and_killers(
                    pos.inner().board(),
                    &moves,
                    td.killers[ply],
                    &mut buf.staged,
                );
                continue;
            }
            let m = buf.staged[n];
            if see_prune && best.may_skip(n) && loses_too_much(pos.inner().board(), &m, depth) {
                n += 1;
                continue;
            }
            let child_pos = pos.play(&m);
            td.count_nodes(1);
            let Some(eval) = td.eval_one(pos, &child_pos) else {
                break 'moves;
            };
            let child = Child {
                mv: m,
                pos: child_pos,
                eval,
            };
            if may_prune
                && best.may_skip(n)
                && skips_quiet_child(&child, n, depth, best.alpha, improving)
            {
                n += 1;
                continue;
            }
            let at = ChildAt {
                depth,
                // Only the TT move, staged first, is extended (a node without one has no
                // singular test, and `extension` stays 0).
                extension: if n == 0 { extension } else { 0 },
                n,
                in_check,
            };
            let score = child_value(td, pos, &child, at, best.alpha, beta, ply);
            if td.aborted {
                break 'moves;
            }
            if best.raise(td, ply, m, score, beta) {
                cutoff_at = Some(n);
                break 'moves;
            }
            n += 1;
        }
        let first = buf.staged.len();
        if first > 0 {
            moves.retain(|x| !buf.staged.contains(x));
            if moves.is_empty() {
                break 'moves;
            }
        }
        // Between a whole batch and none: where the node's own eval is already futile, its
        // quiet moves that give no check are pruned on that eval, and the batch scores only
        // the captures and checks that remain.
        if td.stage_moves
            && may_prune
            && best.may_skip(first)
            && futile(static_eval, depth, best.alpha)
        {
            moves.retain(|m| is_noisy(m) || pos.play(m).is_check());
            if moves.is_empty() {
                break 'moves;
            }
        }
        if !td.expand(pos, &moves, &mut buf) {
            break 'moves;
        }
        if depth >= POLICY_MIN_DEPTH && !td.score_policy(pos, &mut buf) {
            break 'moves;
        }
        order_children(
            &mut buf,
            &OrderHints {
                tt_move: 0,
                killers: td.killers[ply],
                history: Some(&td.quiet_history[us]),
                cont: earlier.map(|e| e.map(|i| &td.cont_history[i])),
                mover: pos.turn(),
                board: Some(pos.inner().board()),
            },
        );
        for (k, &(_, i)) in buf.order.iter().enumerate() {
            let n = k + first;
            let child = &buf.children[i as usize];
            if may_prune
                && best.may_skip(n)
                && skips_quiet_child(child, n, depth, best.alpha, improving)
            {
                continue;
            }
            if see_prune
                && best.may_skip(n)
                && loses_too_much(pos.inner().board(), &child.mv, depth)
            {
                continue;
            }
            let at = ChildAt {
                depth,
                extension: 0,
                n,
                in_check,
            };
            let score = child_value(td, pos, child, at, best.alpha, beta, ply);
            if td.aborted {
                break;
            }
            if best.raise(td, ply, child.mv, score, beta) {
                cutoff_at = Some(n);
                break;
            }
        }
    }
    td.history.pop();

    if !td.aborted {
        if let (Some(n), Some(m)) = (cutoff_at, best.mv) {
            if !is_noisy(&m) {
                // The moves searched before the cutoff move, the staged ones first (`buf.order`
                // is stale when the cutoff came among them, and then left out).
                let first = buf.staged.len();
                let before = buf.staged[..n.min(first)].iter().copied().chain(
                    buf.order[..n.saturating_sub(first)]
                        .iter()
                        .map(|&(_, i)| buf.children[i as usize].mv),
                );
                reward_quiet(td, before, m, depth, ply, pos.turn(), earlier);
            }
        }
        let bound = TtBound::of(best.score, original_alpha, beta);
        // A singular test has only bounded the other moves: the node keeps the entry and the
        // corrections of its real search. (Its histories count, as any search's.)
        if excluded.is_none() {
            if !in_check && !best.mv.is_some_and(|m| is_noisy(&m)) {
                learn_correction(td, pos, depth, bound, best.score, static_eval, raw_eval);
            }
            let packed = best
                .mv
                .filter(|_| bound != TtBound::Upper)
                .map_or(0, |m| pack_move(&m));
            td.shared
                .tt
                .store(pos.key(), packed, best.score, depth, bound, ply);
        }
    }
    td.stack[ply] = buf;
    if td.aborted {
        0
    } else {
        best.score
    }
}

/// The best a node has found so far, and its alpha.
struct Best {
    score: i32,
    mv: Option<Move>,
    alpha: i32,
}

impl Best {
    /// Whether move `n` (0-based, in search order) may be pruned at all: once a move has
    /// been searched, and unless every line so far is being mated.
    fn may_skip(&self, n: usize) -> bool {
        n > 0 && self.score > -MATE_BOUND
    }

    /// Takes in move `m`'s `score`: a better score becomes the best, and one above alpha
    /// raises it and makes `m` head the PV. True when it reaches `beta` (a cutoff).
    fn raise(&mut self, td: &mut ThreadData, ply: usize, m: Move, score: i32, beta: i32) -> bool {
        if score <= self.score {
            return false;
        }
        self.score = score;
        self.mv = Some(m);
        if score <= self.alpha {
            return false;
        }
        self.alpha = score;
        update_pv(td, ply, m);
        score >= beta
    }
}

/// Where a child stands in its node: the node's depth, the child's extension (plies more,
/// or fewer), its move number `n` (0-based, in search order), and whether the node is in
/// check.
#[derive(Clone, Copy)]
struct ChildAt {
    depth: i32,
    extension: i32,
    n: usize,
    in_check: bool,
}

/// The value of `child` of the node `pos`, from the node's point of view.
fn child_value(
    td: &mut ThreadData,
    pos: &Position,
    child: &Child,
    at: ChildAt,
    alpha: i32,
    beta: i32,
    ply: usize,
) -> i32 {
    td.moved[ply] = Some(piece_to(pos.turn(), &child.mv));
    td.double_extended[ply + 1] = td.double_extended[ply] + u8::from(at.extension >= 2);
    if at.depth == 1 {
        frontier_value(td, child, alpha, beta, ply)
    } else {
        let new_depth = at.depth - 1 + at.extension;
        search_child(td, child, new_depth, alpha, beta, ply, at.n, at.in_check)
    }
}

/// Reverse futility and null-move pruning at a non-PV node out of check: the node's score
/// if it can be cut off without expanding its children. `static_eval` is corrected,
/// `raw_eval` the evaluator's.
fn prune_early(
    td: &mut ThreadData,
    pos: &Position,
    depth: i32,
    beta: i32,
    ply: usize,
    static_eval: i32,
    raw_eval: i32,
) -> Option<i32> {
    // A node that stands better than two plies ago is more likely to hold its margin: its
    // margin is one ply's smaller.
    let improving = td.improving(ply, static_eval);
    if depth <= RFP_MAX_DEPTH && static_eval - RFP_MARGIN * (depth - i32::from(improving)) >= beta {
        return Some(static_eval);
    }
    if depth < NMP_MIN_DEPTH
        || static_eval < beta
        || td.null_moved[ply]
        || !pos.has_null_move_material()
        || ply + 1 >= MAX_PLY
    {
        return None;
    }
    let null = pos.null_move()?;
    // The same board with the other side to move: a zero-sum evaluator (material, the
    // antisymmetric nets) scores it exactly -static_eval, which saves an evaluator call; a
    // plain net has a side-to-move bias, and only asking it gives the child's own eval.
    // (Uncorrected: the child corrects its own.)
    let null_eval = if td.shared.eval.is_zero_sum() {
        -raw_eval
    } else {
        td.eval_one(pos, &null)?
    };
    // The further the eval stands above beta, the less a shallower look can miss.
    let reduction = NMP_BASE_REDUCTION
        + depth / NMP_DEPTH_DIVISOR
        + ((static_eval - beta) / NMP_EVAL_DIVISOR).min(NMP_EVAL_MAX);
    td.history.push(pos.key());
    td.null_moved[ply + 1] = true;
    // The null move's reply is expected to fail low when this node is expected to fail high.
    td.cut_node[ply + 1] = !td.cut_node[ply];
    td.moved[ply] = None;
    td.double_extended[ply + 1] = td.double_extended[ply];
    let score = -search(
        td,
        &null,
        depth - 1 - reduction,
        -beta,
        -beta + 1,
        ply + 1,
        null_eval,
    );
    td.null_moved[ply + 1] = false;
    td.history.pop();
    // A mate found after passing is not a mate the opponent can force.
    // Not a proven result: a mate or tablebase score after passing is capped below them.
    (!td.aborted && score >= beta).then(|| score.min(TB_BOUND - 1).max(beta))
}

/// Teaches the correction tables the error of a node's static eval, when its result bounds
/// that error: an exact score, a fail high above the (corrected) eval or a fail low below
/// it. A mate or tablebase score says nothing about the structure.
#[allow(clippy::too_many_arguments)]
fn learn_correction(
    td: &ThreadData,
    pos: &Position,
    depth: i32,
    bound: TtBound,
    score: i32,
    static_eval: i32,
    raw_eval: i32,
) {
    let informative = match bound {
        TtBound::Exact => true,
        TtBound::Lower => score > static_eval,
        TtBound::Upper => score < static_eval,
    };
    if informative && score.abs() < TB_BOUND {
        td.shared.corrections.update(pos, depth, raw_eval, score);
    }
}

/// The static eval refined by a TT entry of the same position: an exact score replaces it,
/// a lower bound above it or an upper bound below it moves it to the bound, since the search
/// behind the entry saw more than the evaluator. Mate and tablebase scores are left out:
/// they are not evals. (Used only for pruning decisions, not for `improving` two plies on or
/// for the correction history.)
pub fn refined_eval(static_eval: i32, tt_score: i32, bound: TtBound) -> i32 {
    if tt_score.abs() >= TB_BOUND {
        return static_eval;
    }
    let better = match bound {
        TtBound::Exact => true,
        TtBound::Lower => tt_score > static_eval,
        TtBound::Upper => tt_score < static_eval,
    };
    if better {
        tt_score
    } else {
        static_eval
    }
}

/// Late-move and futility pruning of the `n`-th quiet move (0-based, in search order) at a
/// node of `depth`, whose static value after the move (from the node's side) is `value`.
/// Unlike the usual futility test on the parent's eval plus a guess of the move's gain, the
/// child's own eval is known here: the node's batch has scored every child. A node that is
/// not `improving` searches half as many quiets before the late ones are skipped (Ethereal's
/// shape), since its late quiets are less likely still to raise alpha.
pub fn skip_quiet(n: usize, depth: i32, value: i32, alpha: i32, improving: bool) -> bool {
    let count = LMP_BASE + (depth * depth) as usize;
    let late = n >= if improving { count } else { count / 2 };
    late || futile(value, depth, alpha)
}

/// Whether a static `value` (from the node's side) plus `FUTILITY_MARGIN` a ply of `depth`
/// still cannot reach `alpha`: the futility test, on a child's eval or the node's own.
fn futile(value: i32, depth: i32, alpha: i32) -> bool {
    value + FUTILITY_MARGIN * depth <= alpha
}

/// [`skip_quiet`] for a built child, move `n` of its node: only a quiet move that gives
/// no check is pruned.
fn skips_quiet_child(child: &Child, n: usize, depth: i32, alpha: i32, improving: bool) -> bool {
    !is_noisy(&child.mv)
        && skip_quiet(n, depth, -child.eval, alpha, improving)
        && !child.pos.is_check()
}

/// PVS with late move reductions for one child of an interior node (depth ≥ 2).
#[allow(clippy::too_many_arguments)]
pub fn search_child(
    td: &mut ThreadData,
    child: &Child,
    new_depth: i32,
    alpha: i32,
    beta: i32,
    ply: usize,
    move_number: usize,
    in_check: bool,
) -> i32 {
    let next = ply + 1;
    let pv_node = beta - alpha > 1;
    let cut_node = td.cut_node[ply];
    if move_number == 0 {
        // The first move of a PV node is searched as a PV node; of a non-PV node, as the
        // opposite kind (the reply to an expected fail high is an expected fail low).
        td.cut_node[next] = !pv_node && !cut_node;
        return -search(td, &child.pos, new_depth, -beta, -alpha, next, child.eval);
    }
    let reducible = new_depth + 1 >= LMR_MIN_DEPTH
        && move_number >= LMR_FULL_MOVES
        && !in_check
        && !is_noisy(&child.mv)
        && !child.pos.is_check();
    let reduction = if reducible {
        let mover = child.pos.turn().other();
        let stat = td.quiet_stat(ply, mover, &child.mv) / LMR_HISTORY_DIVISOR;
        let base = late_move_reduction(new_depth + 1, move_number, pv_node).max(1);
        reduction_of(base, stat, cut_node, new_depth)
    } else {
        0
    };
    // A zero-window search of a later move is expected to fail low, so its child to fail
    // high: a cut node. The same child searched again at full depth is the kind its node
    // expects.
    td.cut_node[next] = true;
    let mut score = -search(
        td,
        &child.pos,
        new_depth - reduction,
        -alpha - 1,
        -alpha,
        next,
        child.eval,
    );
    if score > alpha && reduction > 0 {
        td.cut_node[next] = !cut_node;
        score = -search(
            td,
            &child.pos,
            new_depth,
            -alpha - 1,
            -alpha,
            next,
            child.eval,
        );
    }
    if score > alpha && score < beta {
        td.cut_node[next] = false;
        score = -search(td, &child.pos, new_depth, -beta, -alpha, next, child.eval);
    }
    score
}

/// The late-move reduction of a reducible quiet: at least one ply by the table (`base`, what
/// made the move reducible), one more at a cut node, then moved by the move's history
/// (`stat` plies): a move whose history is good enough is not reduced at all. Never into
/// quiescence (at most `new_depth − 1`).
fn reduction_of(base: i32, stat: i32, cut_node: bool, new_depth: i32) -> i32 {
    (base + LMR_CUT_NODE * i32::from(cut_node) - stat).clamp(0, new_depth - 1)
}

/// Killer, history and continuation-history update after a quiet beta cutoff; quiets tried
/// before it are penalised. `earlier` are the (piece, destination) indices of the moves one
/// and two plies above.
#[allow(clippy::too_many_arguments)]
fn reward_quiet(
    td: &mut ThreadData,
    tried_before: impl Iterator<Item = Move>,
    m: Move,
    depth: i32,
    ply: usize,
    mover: Color,
    earlier: [Option<usize>; 2],
) {
    let bonus = history_bonus(depth);
    let us = side(mover);
    push_killer(&mut td.killers[ply], m);
    let reward = |td: &mut ThreadData, m: &Move, bonus: i32| {
        update_history(&mut td.quiet_history[us], m, bonus);
        let reply = piece_to(mover, m);
        for e in earlier.iter().flatten() {
            gravity(&mut td.cont_history[*e][reply], bonus);
        }
    };
    reward(td, &m, bonus);
    for tried in tried_before {
        if !is_noisy(&tried) {
            reward(td, &tried, -bonus);
        }
    }
}

/// The TT's best move for `pos`, if it is legal there.
pub fn tt_move_for(td: &ThreadData, pos: &Position) -> Option<Move> {
    let entry = td.shared.tt.probe(pos.key(), 0)?;
    find_move(entry.mv, &pos.legal_moves())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::KeyHistory;
    use crate::search::control::Control;
    use crate::search::score::MATE;
    use crate::search::tests::material;
    use crate::search::time::{Clock, TimeBudget};
    use crate::search::tt::TtBound;

    #[test]
    fn a_window_beyond_the_nearest_mate_returns_without_a_node() {
        let shared = material();
        let control = Control::new(Clock::new(TimeBudget::default(), false), None);
        let mut td = ThreadData::new(&shared, &control, 0, KeyHistory::new());
        let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
        let pos = Position::from_fen(fen).expect("valid test FEN");
        // At ply 3 the best possible is mating at ply 4: a window above that is decided.
        let alpha = MATE - 4;
        assert_eq!(search(&mut td, &pos, 5, alpha, alpha + 10, 3, 0), alpha);
        assert_eq!(td.nodes, 0);
        // Likewise being mated at ply 3 is the worst: a window below it fails high at once.
        let beta = -MATE + 3;
        assert_eq!(search(&mut td, &pos, 5, beta - 10, beta, 3, 0), beta);
        assert_eq!(td.nodes, 0);
    }

    /// Searches `fen` at depth 1, ply 1, in the null window (beta − 1, beta) on fresh tables,
    /// the TT holding `tt` (uci) as the node's move if given; the score and nodes built.
    fn depth_one(fen: &str, beta: i32, tt: Option<&str>) -> (i32, u64) {
        let shared = material();
        let control = Control::new(Clock::new(TimeBudget::default(), false), None);
        let pos = Position::from_fen(fen).expect("valid test FEN");
        if let Some(uci) = tt {
            let m = pos.parse_uci_move(uci).expect("a legal TT move");
            // Too shallow to cut off by itself, and its bound no better than the static eval
            // below (so reverse futility is not refined into a cutoff): only its move is used.
            shared
                .tt
                .store(pos.key(), pack_move(&m), -1000, 0, TtBound::Lower, 1);
        }
        let mut td = ThreadData::new(&shared, &control, 0, KeyHistory::new());
        let static_eval = -1000;
        let score = search(&mut td, &pos, 1, beta - 1, beta, 1, static_eval);
        (score, td.nodes)
    }

    #[test]
    fn a_tt_move_that_cuts_off_spares_building_its_siblings() {
        // White, a queen down, takes it back with exd5: the TT move, and a cutoff.
        let fen = "4k3/pp6/8/3q4/4P3/8/8/4K3 w - - 0 1";
        let (without, all_built) = depth_one(fen, -500, None);
        let (with, staged) = depth_one(fen, -500, Some("e4d5"));
        assert!(without >= -500 && with >= -500, "{without} {with}");
        assert!(
            staged < all_built,
            "the staged TT move built {staged} nodes, all children {all_built}"
        );
        // Every child is built without it (Ke2, Kf1, Kf2, e5, exd5; the queen holds the
        // d-file); with it only exd5, after which Black has no capture to try in quiescence.
        assert_eq!((staged, all_built), (1, 5));
    }

    /// Searches `fen` at depth 2, ply 1, in the null window (beta − 1, beta) on fresh tables,
    /// with or without staging; the score and the nodes built.
    fn depth_two(fen: &str, beta: i32, stage: bool) -> (i32, u64) {
        let shared = material();
        let control = Control::new(Clock::new(TimeBudget::default(), false), None);
        let pos = Position::from_fen(fen).expect("valid test FEN");
        let mut td = ThreadData::new(&shared, &control, 0, KeyHistory::new());
        assert!(
            td.stage_moves,
            "material scores one child as cheaply as a batch"
        );
        td.stage_moves = stage;
        let score = search(&mut td, &pos, 2, beta - 1, beta, 1, -1000);
        (score, td.nodes)
    }

    /// Depth 2 at beta -500, batched and then staged: the score (the same both ways), how
    /// many fewer children staging built, and the number of legal moves.
    fn staging_spares(fen: &str) -> (i32, u64, u64) {
        let (batched, all_built) = depth_two(fen, -500, false);
        let (staged, built) = depth_two(fen, -500, true);
        assert_eq!(
            batched, staged,
            "the same moves searched, in the same order"
        );
        let legal = Position::from_fen(fen).unwrap().legal_moves().len() as u64;
        (staged, all_built - built, legal)
    }

    #[test]
    fn a_capture_that_cuts_off_spares_building_its_siblings() {
        // White, a queen down, takes it back with exd5 (no TT move): a cutoff at depth 2.
        // Without staging, every one of White's moves is built before exd5 is searched;
        // with it, exd5 alone, and its subtree is the same.
        let (score, spared, legal) = staging_spares("4k3/pp6/8/3q4/4P3/8/1P6/4K3 w - - 0 1");
        assert!(score >= -500, "{score}");
        assert!(legal > 5, "{legal}");
        assert_eq!(spared, legal - 1);
    }

    #[test]
    fn a_futile_node_batches_no_quiet_move() {
        // White, a queen down, takes a free pawn (fxe3, staged and searched first) and still
        // fails low at depth 2: its own eval is futile, so none of its quiet moves (none
        // gives check) is built for the batch, where without staging all of them are.
        let (score, spared, legal) = staging_spares("4k3/pp6/8/3q4/8/4p3/1P3P2/4K3 w - - 0 1");
        assert!(score < -500, "{score}");
        assert!(legal > 4, "{legal}");
        assert_eq!(spared, legal - 1);
    }

    #[test]
    fn the_first_move_and_a_node_being_mated_prune_nothing() {
        let best = |score| Best {
            score,
            mv: None,
            alpha: 0,
        };
        assert!(!best(0).may_skip(0), "move 0 is always searched");
        assert!(best(0).may_skip(1));
        assert!(!best(-MATE + 5).may_skip(1), "every line so far is mated");
    }

    #[test]
    fn a_tt_bound_refines_the_static_eval_only_in_its_direction() {
        use crate::search::score::TB_WIN;
        assert_eq!(refined_eval(50, 120, TtBound::Exact), 120);
        assert_eq!(refined_eval(50, -30, TtBound::Exact), -30);
        // A lower bound above the eval lifts it; one below says nothing new.
        assert_eq!(refined_eval(50, 120, TtBound::Lower), 120);
        assert_eq!(refined_eval(50, 10, TtBound::Lower), 50);
        // An upper bound below the eval lowers it; one above says nothing new.
        assert_eq!(refined_eval(50, 10, TtBound::Upper), 10);
        assert_eq!(refined_eval(50, 120, TtBound::Upper), 50);
        // Tablebase and mate scores are not evals.
        assert_eq!(refined_eval(50, TB_WIN - 3, TtBound::Exact), 50);
        assert_eq!(refined_eval(50, -(TB_WIN - 3), TtBound::Upper), 50);
    }

    #[test]
    fn improving_compares_with_the_same_side_two_plies_up() {
        let shared = material();
        let control = Control::new(Clock::new(TimeBudget::default(), false), None);
        let mut td = ThreadData::new(&shared, &control, 0, KeyHistory::new());
        assert!(!td.improving(1, 500), "no node two plies up");
        assert!(!td.improving(3, 500), "no eval recorded there");
        td.static_evals[1] = Some(10);
        assert!(td.improving(3, 11));
        assert!(!td.improving(3, 10));
        td.static_evals[1] = None; // in check there
        assert!(!td.improving(3, 500));
    }

    #[test]
    fn quiet_stat_sums_butterfly_and_both_continuations() {
        let shared = material();
        let control = Control::new(Clock::new(TimeBudget::default(), false), None);
        let mut td = ThreadData::new(&shared, &control, 0, KeyHistory::new());
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").expect("valid test FEN");
        let m = pos.parse_uci_move("a1a7").expect("legal");
        let reply = piece_to(Color::White, &m);
        update_history(&mut td.quiet_history[side(Color::White)], &m, 1000);
        td.moved[3] = Some(5);
        td.moved[2] = Some(9);
        td.cont_history[5][reply] = 200;
        td.cont_history[9][reply] = 30;
        // At ply 4 the moves one and two plies up are those at plies 3 and 2.
        assert_eq!(td.quiet_stat(4, Color::White, &m), 1230);
        // A null move two plies up has no continuation; the same squares moved by Black are
        // another key in every table.
        td.moved[2] = None;
        assert_eq!(td.quiet_stat(4, Color::White, &m), 1200);
        assert_eq!(td.quiet_stat(4, Color::Black, &m), 0);
    }

    #[test]
    fn pruning_reads_the_corrected_static_eval() {
        // Material scores this 0; at depth 1, improving, reverse futility cuts when the
        // static eval reaches beta (30) without building a child.
        let fen = "4k3/pp6/8/8/8/8/PP2N3/4K3 w - - 0 1";
        let pos = Position::from_fen(fen).expect("valid test FEN");
        let run = |learned: bool| {
            let shared = material();
            if learned {
                // Searches of this structure kept finding it 64 cp better than its eval.
                for _ in 0..300 {
                    shared.corrections.update(&pos, 20, 0, 64);
                }
            }
            let control = Control::new(Clock::new(TimeBudget::default(), false), None);
            let mut td = ThreadData::new(&shared, &control, 0, KeyHistory::new());
            td.static_evals[1] = Some(-500);
            let score = search(&mut td, &pos, 1, 29, 30, 3, 0);
            (score, td.nodes)
        };
        let (score, nodes) = run(true);
        assert_eq!(nodes, 0, "cut off before its children were built");
        assert!((60..=64).contains(&score), "the corrected eval {score}");
        let (_, nodes) = run(false);
        assert!(nodes > 0, "uncorrected, the node is searched");
    }

    #[test]
    fn late_or_hopeless_quiets_are_skipped() {
        // Late, improving: from move 3 + d² on, whatever its value.
        assert!(!skip_quiet(6, 2, 500, 0, true));
        assert!(skip_quiet(7, 2, 500, 0, true));
        assert!(!skip_quiet(11, 3, 500, 0, true));
        assert!(skip_quiet(12, 3, 500, 0, true));
        assert!(!skip_quiet(66, 8, 500, 0, true));
        assert!(skip_quiet(67, 8, 500, 0, true));
        // Not improving: from half as many.
        assert!(!skip_quiet(2, 2, 500, 0, false));
        assert!(skip_quiet(3, 2, 500, 0, false));
        assert!(!skip_quiet(32, 8, 500, 0, false));
        assert!(skip_quiet(33, 8, 500, 0, false));
        // Futile: its own value plus 100 cp a ply of depth does not reach alpha.
        assert!(skip_quiet(1, 2, -250, 0, true));
        assert!(skip_quiet(1, 2, -200, 0, true));
        assert!(!skip_quiet(1, 2, -199, 0, true));
        assert!(!skip_quiet(1, 3, -250, 0, true));
        assert!(skip_quiet(1, 8, -800, 0, true));
        assert!(!skip_quiet(1, 8, -799, 0, true));
    }

    /// Searches `fen` at `depth` (ply 2, window `window`) with the TT holding `tt` (uci) as
    /// a lower bound of `score` from `tt_depth`; the thread's singular tally, and the
    /// length of the principal variation it found.
    fn singular_run(
        fen: &str,
        tt: &str,
        score: i32,
        tt_depth: i32,
        depth: i32,
        window: (i32, i32),
    ) -> (crate::search::singular::Tally, usize) {
        let shared = material();
        let control = Control::new(Clock::new(TimeBudget::default(), false), None);
        let pos = Position::from_fen(fen).expect("valid test FEN");
        let m = pos.parse_uci_move(tt).expect("a legal TT move");
        shared
            .tt
            .store(pos.key(), pack_move(&m), score, tt_depth, TtBound::Lower, 2);
        let mut td = ThreadData::new(&shared, &control, 0, KeyHistory::new());
        search(&mut td, &pos, depth, window.0, window.1, 2, 0);
        (td.singular, td.pv[2].len())
    }

    #[test]
    fn a_forced_recapture_is_singular_and_extended() {
        // In check from an undefended queen: Kxd2 keeps a rook up, Kf1 (the only other move)
        // leaves a queen for a rook.
        let fen = "4k3/8/8/8/8/8/3q4/4K2R w - - 0 1";
        // At a PV node: one ply more.
        let (pv, pv_reach) = singular_run(fen, "e1d2", 500, 6, 8, (0, 1000));
        assert_eq!((pv.extended, pv.doubled), (1, 0), "{pv:?}");
        // At a non-PV node it falls far short: two plies more.
        let (non_pv, _) = singular_run(fen, "e1d2", 500, 6, 8, (600, 601));
        assert_eq!((non_pv.extended, non_pv.doubled), (0, 1), "{non_pv:?}");
        // A TT entry from too shallow a search is no candidate.
        let (shallow, reach) = singular_run(fen, "e1d2", 500, 4, 8, (0, 1000));
        assert_eq!(shallow.tests, 0, "{shallow:?}");
        // And the extension is searched: the TT move's line goes a ply deeper than without
        // it (a null window's search fails low here and leaves no line to measure).
        assert_eq!(pv_reach, reach + 1, "{pv_reach} against {reach}");
    }

    #[test]
    fn two_moves_above_beta_cut_the_node() {
        // Black's hanging rook on a8 and queen on h8 can both be taken: with a TT entry for
        // Rxa8 above beta, the test finds Qxh8 (or Rxa8) too, and the node is cut.
        let fen = "r3k2q/8/8/8/8/8/8/R3K2Q w - - 0 1";
        let (t, _) = singular_run(fen, "h1h8", 900, 6, 8, (99, 100));
        assert_eq!(t.cut, 1, "{t:?}");
    }

    #[test]
    fn a_cut_node_reduces_one_ply_more_never_into_quiescence() {
        assert_eq!(reduction_of(2, 0, false, 10), 2);
        assert_eq!(reduction_of(2, 0, true, 10), 2 + LMR_CUT_NODE);
        // History still moves it, down to no reduction.
        assert_eq!(reduction_of(2, 1, true, 10), 1 + LMR_CUT_NODE);
        assert_eq!(reduction_of(1, 5, true, 10), 0);
        // At most new_depth − 1: the reduced child keeps a ply of its own.
        assert_eq!(reduction_of(3, 0, true, 3), 2);
    }

    /// Nodes entered by a null-window search of `fen` at depth 6, ply 1, on fresh tables,
    /// the node marked a cut node or not. The window lies 3 pawns above the material
    /// balance, so every move is searched and fails low.
    fn entered_as(fen: &str, cut_node: bool) -> u64 {
        let shared = material();
        let control = Control::new(Clock::new(TimeBudget::default(), false), None);
        let pos = Position::from_fen(fen).expect("valid test FEN");
        let mut td = ThreadData::new(&shared, &control, 0, KeyHistory::new());
        td.cut_node[1] = cut_node;
        search(&mut td, &pos, 6, 299, 300, 1, 0);
        td.entered
    }

    #[test]
    fn a_cut_node_searches_fewer_nodes_than_an_all_node() {
        // A quiet middlegame with many late quiet moves to reduce.
        let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2NBPN2/PP3PPP/R1BQ1RK1 w - - 2 9";
        let (all, cut) = (entered_as(fen, false), entered_as(fen, true));
        assert!(cut < all, "cut node entered {cut}, all node {all}");
    }
}
