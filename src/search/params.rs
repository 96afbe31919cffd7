//! Every search tunable in one place, so tuning never means hunting through the search code.

/// Deepest ply the search ever reaches; per-ply buffers are sized by it.
pub const MAX_PLY: usize = 128;
/// Iterative deepening never goes past this, whatever `go depth` asked for, so that extensions
/// still have room below `MAX_PLY`.
pub const MAX_DEPTH: u32 = 100;

/// Nodes between two looks at the clock, the node limit and the stop flag; also the batch in
/// which a thread publishes its node count to the shared counter.
pub const CHECK_INTERVAL: u64 = 1024;

/// Static evals are clamped to this so that no evaluator output can look like a mate score.
pub const EVAL_LIMIT: i32 = 20_000;

// Move ordering keys. Bands are far apart so that a band is never overtaken by the next one.
/// The transposition-table move is always searched first.
pub const ORDER_TT: i32 = i32::MAX;
/// Captures and promotions: MVV-LVA decides, the net's child score breaks ties.
pub const ORDER_NOISY: i32 = 2_000_000;
/// Weight of one MVV-LVA step; larger than the clamped child score so MVV-LVA dominates.
pub const ORDER_MVV_LVA_STEP: i32 = 2_000;
/// The child score used inside a band is clamped to ± this.
pub const ORDER_CHILD_CLAMP: i32 = 999;
/// Captures that lose material by static exchange (promotions excepted), after every quiet
/// move: MVV-LVA and the child score order them among themselves, as in the noisy band.
pub const ORDER_BAD_NOISY: i32 = -1_000_000;
/// Killer quiets, after every noisy move that does not lose material.
pub const ORDER_KILLER: i32 = 1_000_000;
/// The band the policy's quiets sit above: every quiet ranked by child score and history
/// stays below `ORDER_HISTORY + HISTORY_MAX`.
pub const ORDER_HISTORY: i32 = 100_000;
/// A quiet move's key is the net's score of its child (centipawns) plus its history score
/// (butterfly and both continuations, each within ±`HISTORY_MAX`) over this divisor, so
/// that history moves a quiet among the others instead of lifting it above every quiet the
/// net prefers: one deep cutoff (bonus 1500 in each table) is worth about 140 cp, a move that
/// keeps cutting everywhere a few hundred.
pub const ORDER_HISTORY_MIX_DIVISOR: i32 = 32;
/// History scores are kept within ± this (gravity update), so they stay inside their band.
pub const HISTORY_MAX: i32 = 16_384;
/// The history tables kept from one search to the next of a game are divided by this as the
/// next search takes them, so that the last move's lessons count for less than this one's.
pub const HISTORY_AGE_DIVISOR: i32 = 2;
/// With a policy, every quiet that is not a killer is ranked by its log-probability, above
/// the history band: `ORDER_POLICY + clamp(1000 · log p, -ORDER_POLICY_SPAN, 0)`.
pub const ORDER_POLICY: i32 = ORDER_HISTORY + HISTORY_MAX + 1 + ORDER_POLICY_SPAN;
pub const ORDER_POLICY_SPAN: i32 = 100_000;
/// The policy runs only at nodes this deep: one call (seven small CNNs on libtorch) costs
/// as much as thousands of incremental value evaluations, and ordering matters most where
/// the subtrees are large. From depth 3 the default net's bench ran 4.4× slower.
pub const POLICY_MIN_DEPTH: i32 = 5;

/// Nodes this deep search their good captures and killers, each scored alone, before they
/// build and score the rest in one batch. Shallower, at depth 1, the batch is the leaf
/// evaluation (Deep Pink's shape) and stays whole.
pub const STAGE_MIN_DEPTH: i32 = 2;

/// Late move reductions: only from this depth on …
pub const LMR_MIN_DEPTH: i32 = 3;
/// … and only after this many moves have been searched at full depth.
pub const LMR_FULL_MOVES: usize = 3;
/// The reduction of the n-th move at depth d is `LMR_BASE + ln d · ln n / LMR_DIVISOR` plies
/// (the logarithmic table of Stockfish and most engines since), one less at a PV node.
pub const LMR_BASE: f64 = 0.75;
pub const LMR_DIVISOR: f64 = 2.25;
/// A quiet move's history score (butterfly plus both continuations, each within
/// ±`HISTORY_MAX`) moves its reduction by one ply per this much: a move that has often cut
/// off elsewhere is reduced less, one that has often failed is reduced more.
pub const LMR_HISTORY_DIVISOR: i32 = 8192;
/// Plies more of late-move reduction at a cut node (one expected to fail high, where a
/// late move is unlikely to be the one that matters): Stockfish reduces by about two more
/// there; one is the cautious start.
pub const LMR_CUT_NODE: i32 = 1;

/// The history bonus of a quiet cutoff at depth d (and the malus of each quiet tried before
/// it): `min(HISTORY_BONUS_SLOPE · d − HISTORY_BONUS_OFFSET, HISTORY_BONUS_MAX)`, the
/// linear, capped form of Stockfish and most engines since; d² grew too slowly against
/// `HISTORY_MAX` for the scores to say much within one search.
pub const HISTORY_BONUS_SLOPE: i32 = 300;
pub const HISTORY_BONUS_OFFSET: i32 = 250;
pub const HISTORY_BONUS_MAX: i32 = 1500;

/// Aspiration windows: from this iteration depth on, the root searches previous score ±
/// `ASPIRATION_DELTA` first; each failure widens the window by half again, and past
/// `ASPIRATION_FULL_AFTER` the window is the full one.
pub const ASPIRATION_MIN_DEPTH: i32 = 4;
pub const ASPIRATION_DELTA: i32 = 30;
pub const ASPIRATION_FULL_AFTER: i32 = 1000;

/// Reverse futility pruning: at a non-PV node of depth ≤ this, out of check, whose static
/// eval beats beta by the margin per ply of depth (one ply fewer when improving), the node
/// returns its static eval without expanding (a node costs a batch of every child's
/// evaluation, so this saves most).
pub const RFP_MAX_DEPTH: i32 = 7;
pub const RFP_MARGIN: i32 = 90;

/// Null-move pruning: from this depth, at a non-PV node out of check whose static eval is at
/// least beta, the side to move passes; if a search reduced by `NMP_BASE_REDUCTION + depth /
/// NMP_DEPTH_DIVISOR + min((eval − beta) / NMP_EVAL_DIVISOR, NMP_EVAL_MAX)` (plus the ply
/// passed) still fails high, the node does.
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE_REDUCTION: i32 = 3;
pub const NMP_DEPTH_DIVISOR: i32 = 3;
pub const NMP_EVAL_DIVISOR: i32 = 200;
pub const NMP_EVAL_MAX: i32 = 3;

/// Internal iterative reduction: from this depth, a node without a TT move loses a ply.
pub const IIR_MIN_DEPTH: i32 = 4;

/// Late-move and futility pruning, at non-PV nodes of depth 2 to `LATE_PRUNE_MAX_DEPTH`
/// out of check (at depth 1 a quiet child costs nothing more than its batch eval): a quiet
/// move that gives no check is skipped from the `LMP_BASE + depth²`-th move on (half that
/// at a node that is not improving), or when its child's static value plus
/// `FUTILITY_MARGIN` per ply of depth is still at most alpha. Depth 8, as Ethereal: to
/// depth 3 only, the deeper nodes searched every late quiet (patch 0020 tried this shape on
/// an older search).
pub const LATE_PRUNE_MAX_DEPTH: i32 = 8;
pub const LMP_BASE: usize = 3;
pub const FUTILITY_MARGIN: i32 = 100;

/// Correction history ([`super::correction`]): entries per table (pawn structure, and each
/// side's non-pawn pieces, by side to move), and the largest error in centipawns one update
/// may teach, so that a mate or tablebase score found below a node does not swamp its
/// structure's entry.
pub const CORRECTION_ENTRIES: usize = 16_384;
pub const CORRECTION_MAX: i32 = 64;

/// SEE pruning: at nodes of depth ≤ `SEE_PRUNE_MAX_DEPTH` out of check, after the first
/// move, a quiet move whose destination loses more than `SEE_QUIET_MARGIN` × depth by
/// static exchange, or a capture that loses more than `SEE_NOISY_MARGIN` × depth², is not
/// searched (promotions never are pruned). Ethereal's values.
pub const SEE_PRUNE_MAX_DEPTH: i32 = 8;
pub const SEE_QUIET_MARGIN: i32 = 64;
pub const SEE_NOISY_MARGIN: i32 = 19;

/// Singular extensions ([`super::singular`]): at a node of depth ≥ `SE_MIN_DEPTH` whose TT
/// entry is a lower or exact bound from at least `depth − SE_TT_DEPTH_SLACK`, the other
/// moves are searched to `(depth − 1) / 2` against `tt score − SE_MARGIN × depth`. The TT
/// move is extended by two plies instead of one at a non-PV node where they stay more than
/// `SE_DOUBLE_MARGIN` below, at most `SE_DOUBLE_LIMIT` times on one path. Patch 0016 played
/// depth 6 and 2 cp a ply, which grew the depth-12 bench from 8.1 M nodes to 22.6 M and lost
/// (−6.4 ± 26.5); this is its retune: from depth 8, as Ethereal, at 4 cp a ply.
pub const SE_MIN_DEPTH: i32 = 8;
pub const SE_TT_DEPTH_SLACK: i32 = 3;
pub const SE_MARGIN: i32 = 4;
pub const SE_DOUBLE_MARGIN: i32 = 20;
pub const SE_DOUBLE_LIMIT: u8 = 6;

/// Quiescence delta pruning: a capture that cannot lift stand-pat + victim + margin to alpha is
/// skipped before its child is even built.
pub const DELTA_MARGIN: i32 = 200;

/// Quiescence plies below the horizon before the static eval is taken as final, even in check.
pub const QS_MAX_PLIES: usize = 8;

/// Piece values used by MVV-LVA and delta pruning (pawn, knight, bishop, rook, queen, king).
pub const PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 900, 0];

/// Time management, after each iteration: the soft limit is scaled by
/// `TM_STABILITY[n]` where the best move has stayed the same for n iterations (the last
/// entry for more), and by `TM_NODES_BASE − (share of the root's nodes spent on the best
/// move)` times `TM_NODES_SCALE`: a move that keeps changing, or that the search is still
/// weighing against others, gets more time; a settled one less. The values are those
/// common to engines with this scheme (Stormphrax, Alexandria), not tuned for Cerise.
pub const TM_STABILITY: [f64; 5] = [2.4, 1.3, 1.07, 0.91, 0.71];
pub const TM_NODES_BASE: f64 = 1.5;
pub const TM_NODES_SCALE: f64 = 1.35;
/// Lazy SMP: helper thread `i` searches iteration depths shifted by `i % HELPER_DEPTH_SPREAD`.
pub const HELPER_DEPTH_SPREAD: usize = 2;
