//! The native forward pass: accumulators built from scratch or updated from a parent, and
//! the layers above them.
//!
//! ACCUMULATORS. For a board B seen from its side to move, with set features F(B):
//! - `own`  = b₀ + Σ_{f∈F(B)} W₀[f]        the first layer of B itself;
//! - `swp`  = b₀ + Σ_{f∈F(B)} W₀[swap f]   the first layer of B with the other side to move;
//!
//! and, in the antisymmetric form, the scalars Σ psqt[f] and Σ psqt[swap f]; and the number
//! of pieces |F(B)|, which picks a perspective net's output bucket (`net::buckets`). It is
//! the same in both views, so a child's is its parent's + |added| − |removed|.
//!
//! A child C is seen from the opponent of its parent P's side to move. Written in P's view
//! (C′ = C with sides swapped), F(C) = swap F(C′), so
//! - C.own = P.swp + Σ_{g added} W₀[swap g] − Σ_{g removed} W₀[swap g],
//! - C.swp = P.own + Σ_{g added} W₀[g]      − Σ_{g removed} W₀[g],
//!
//! where "added" and "removed" are the features in which C′ differs from P. These are the
//! two perspectives of an NNUE net, and they are why even a plain net keeps both: the
//! child's own view is the parent's other one. The difference is read off the two boards,
//! so every move kind (captures, castling, en passant, promotions) is handled the same way.
//!
//! MIRRORING. In a king-file mirrored net (`net::mirror`) each view reads the columns its
//! board's block names in place of f and swap f; `block` is kept with the accumulators, a
//! child's is its parent's with the views exchanged, and a child whose king crossed the d/e
//! line is refreshed, since one of its views then reads every feature differently.
//!
//! SCORES. f(x) is the raw output for the side that just moved (`net::mlp`'s convention):
//! plain f = mlp(own); antisymmetric f = [mlp(own) + Σpsqt·own] − [mlp(swp) + Σpsqt·swp].
//! The score for the side to move is −f · cp_per_unit.

use super::kernels::{add, dot, relu_into, relu_layer_fixed, relu_layer_pairs, sub};
use super::weights::{Layer, NativeNet};
use crate::chess::CompactBoard;
use crate::net::mirror::swap_block;
use crate::net::{output_bucket, Form};

/// More changed features than this and a child is built from scratch: it is not one move
/// away from the parent (a caller passing unrelated boards), and the update would cost more.
const MAX_DELTA: usize = 8;

/// The accumulators of one board (see the module comment).
#[derive(Clone, Debug, Default)]
pub struct Accumulator {
    pub own: Vec<f32>,
    pub swp: Vec<f32>,
    pub psqt_own: f32,
    pub psqt_swp: f32,
    /// Pieces on the board, kings included: its number of set features.
    pub pieces: usize,
    /// The board's block (`net::mirror`): which views read king-file mirrored; 0 in a
    /// net that does not mirror.
    pub block: usize,
}

impl Accumulator {
    pub fn new(net: &NativeNet) -> Self {
        Accumulator {
            own: vec![0.0; net.hidden],
            swp: vec![0.0; net.hidden],
            psqt_own: 0.0,
            psqt_swp: 0.0,
            pieces: 0,
            block: 0,
        }
    }
}

/// What the accumulator stack and the two entry points need of a net: its accumulators, how
/// to build and update them, and how to score them. The f32 net ([`NativeNet`]) and the
/// int8 one (`quant::QuantNet`) each implement it; the stack is written once.
pub trait Pass {
    type Acc: Clone + std::fmt::Debug + Default;
    fn new_acc(&self) -> Self::Acc;
    /// Widest layer, for the scratch buffers.
    fn widest(&self) -> usize;
    /// Incremental updates in a row before a refresh (see [`MAX_CHAIN`]).
    fn max_chain(&self) -> u32;
    /// Whether a child's `swp` view is needed to score it (not for a plain net).
    fn scores_both_views(&self) -> bool;
    /// Whether a board that differs from its parent by `added` and `removed` must be
    /// refreshed instead of updated: a king crossed the d/e line in a mirrored net.
    fn breaks(&self, added: &[usize], removed: &[usize]) -> bool;
    fn refresh(&self, board: &CompactBoard, acc: &mut Self::Acc);
    fn update(
        &self,
        parent: &Self::Acc,
        added: &[usize],
        removed: &[usize],
        child: &mut Self::Acc,
        both: bool,
    );
    /// The score for the side to move, in centipawns, with the kernels of instruction set
    /// `K` (see [`run`]).
    fn score<const K: u8>(&self, acc: &Self::Acc, bufs: &mut Buffers) -> f32;
}

/// Instruction sets, as the `K` parameter of the compiled copies of the forward pass.
pub const BASELINE: u8 = 0;
pub const AVX2: u8 = 1;
pub const AVX512: u8 = 2;

/// The accumulators of a recent parent, and how many incremental updates they are from a
/// refresh (each f32 update adds a little rounding; [`MAX_CHAIN`] bounds it).
#[derive(Clone, Debug)]
struct Entry<A> {
    board: CompactBoard,
    acc: A,
    chain: u32,
}

/// Incremental updates in a row before a parent is rebuilt from scratch. With it the largest
/// difference from libtorch stayed about 0.001 cp (the bar is 0.05) on the tests' 400-call
/// search-like sequence and on 100k game positions (`cerise net compare`). An ancestor
/// that reached it is skipped, so the parent is refreshed and the stack restarts there.
const MAX_CHAIN: u32 = 32;
/// Deepest ancestor stack; the search path is rarely longer, and a longer one restarts.
const MAX_ANCESTORS: usize = 128;

/// Per-thread buffers, reused call to call, and the accumulator stack: the parents of the
/// last calls along the current search path, deepest last. The search is depth-first, so
/// the next parent is usually a child of one of them (or one of them again), and its
/// accumulators are then an update away instead of a refresh of every piece.
#[derive(Debug, Default)]
pub struct Scratch<A> {
    /// The evaluator whose net the stack holds: one thread may use several nets.
    owner: u64,
    stack: Vec<Entry<A>>,
    depth: usize,
    child: A,
    bufs: Buffers,
    added: Vec<usize>,
    removed: Vec<usize>,
}

impl<A: Clone + std::fmt::Debug + Default> Scratch<A> {
    /// Empties the accumulator stack if it holds `owner`'s net.
    pub fn forget(&mut self, owner: u64) {
        if self.owner == owner {
            self.depth = 0;
        }
    }

    fn fit<N: Pass<Acc = A>>(&mut self, net: &N, owner: u64) {
        if self.owner != owner {
            self.owner = owner;
            self.stack = (0..MAX_ANCESTORS)
                .map(|_| Entry {
                    board: CompactBoard([0; 64]),
                    acc: net.new_acc(),
                    chain: 0,
                })
                .collect();
            self.depth = 0;
            self.child = net.new_acc();
            let widest = net.widest();
            self.bufs = Buffers {
                a: vec![0.0; widest],
                b: vec![0.0; widest],
                odd: vec![0.0; widest],
                act: vec![0; widest.next_multiple_of(64)],
                sums: vec![0; widest.next_multiple_of(64)],
                deq: vec![0.0; widest],
            };
        }
    }

    /// Makes the top of the stack hold `parent`'s accumulators, from an ancestor if one is
    /// close, else by a refresh.
    #[inline(always)]
    /// `seen_from_above` is `swap_view(parent)`, which the caller needs too.
    fn push_parent<N: Pass<Acc = A>>(
        &mut self,
        net: &N,
        parent: &CompactBoard,
        seen_from_above: &CompactBoard,
    ) {
        for k in (0..self.depth).rev() {
            let board = &self.stack[k].board;
            if board == parent {
                self.depth = k + 1;
                return;
            }
            if differing_words(board, seen_from_above) <= 4
                && diff(board, parent, &mut self.added, &mut self.removed)
                && !net.breaks(&self.added, &self.removed)
                && self.stack[k].chain < net.max_chain()
                && k + 1 < MAX_ANCESTORS
            {
                let (below, above) = self.stack.split_at_mut(k + 1);
                let (from, to) = (&below[k], &mut above[0]);
                net.update(&from.acc, &self.added, &self.removed, &mut to.acc, true);
                to.board = *parent;
                to.chain = from.chain + 1;
                self.depth = k + 2;
                return;
            }
        }
        let top = &mut self.stack[0];
        net.refresh(parent, &mut top.acc);
        top.board = *parent;
        top.chain = 0;
        self.depth = 1;
    }
}

/// Layer outputs, and the odd-input sums of [`relu_layer_pairs`]; for the int8 path, the
/// activations and the i32 sums.
#[derive(Debug, Default)]
pub struct Buffers {
    pub a: Vec<f32>,
    pub b: Vec<f32>,
    pub odd: Vec<f32>,
    pub act: Vec<u8>,
    pub sums: Vec<i32>,
    /// The int8 layer's outputs back in f32.
    pub deq: Vec<f32>,
}

/// The board with the other side to move: what a child looks like from its parent's side.
#[inline(always)]
fn swap_view(board: &CompactBoard) -> CompactBoard {
    let mut out = [0u8; 64];
    for (sq, o) in out.iter_mut().enumerate() {
        *o = SWAP_CODE[board.0[sq ^ 56] as usize];
    }
    CompactBoard(out)
}

/// Ranks (8-byte words) in which two boards differ: a cheap filter before [`diff`].
#[inline(always)]
fn differing_words(a: &CompactBoard, b: &CompactBoard) -> u32 {
    let mut n = 0;
    for (x, y) in a.0.chunks_exact(8).zip(b.0.chunks_exact(8)) {
        let x = u64::from_ne_bytes(x.try_into().expect("8 bytes"));
        let y = u64::from_ne_bytes(y.try_into().expect("8 bytes"));
        n += u32::from(x != y);
    }
    n
}

/// The one side-swap of a piece code: ours (1..=6) ↔ theirs (7..=12), empty stays empty.
const SWAP_CODE: [u8; 13] = [0, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6];

/// `acc` = the accumulators of `board`, from scratch. Both views are built even for a plain
/// net, whose own score needs only `own`: its children start from the parent's `swp`.
#[inline(always)]
pub fn refresh(net: &NativeNet, board: &CompactBoard, acc: &mut Accumulator) {
    acc.own.copy_from_slice(&net.first_bias);
    acc.swp.copy_from_slice(&net.first_bias);
    acc.psqt_own = 0.0;
    acc.psqt_swp = 0.0;
    let k = net.maps.block(board);
    let mut pieces = 0;
    for f in board.active_features() {
        let (o, s) = (net.maps.own(k, f), net.maps.other(k, f));
        pieces += 1;
        add(&mut acc.own, net.first_column(o));
        add(&mut acc.swp, net.first_column(s));
        if let Some(psqt) = &net.psqt {
            acc.psqt_own += psqt[o];
            acc.psqt_swp += psqt[s];
        }
    }
    acc.pieces = pieces;
    acc.block = k;
}

/// Features set in `child` (seen from the parent's side, i.e. sides swapped back) and not in
/// `parent` go to `added`; the reverse to `removed`. False if more than [`MAX_DELTA`] changed.
#[inline(always)]
fn diff(
    parent: &CompactBoard,
    child: &CompactBoard,
    added: &mut Vec<usize>,
    removed: &mut Vec<usize>,
) -> bool {
    added.clear();
    removed.clear();
    for sq in 0..64 {
        diff_square(parent, child, sq, added, removed);
    }
    added.len() + removed.len() <= MAX_DELTA
}

/// The features of square `sq` (parent's frame) that `child` adds and removes.
#[inline(always)]
fn diff_square(
    parent: &CompactBoard,
    child: &CompactBoard,
    sq: usize,
    added: &mut Vec<usize>,
    removed: &mut Vec<usize>,
) {
    let was = parent.0[sq];
    let now = SWAP_CODE[child.0[sq ^ 56] as usize];
    if was != now {
        if was != 0 {
            removed.push((was as usize - 1) * 64 + sq);
        }
        if now != 0 {
            added.push((now as usize - 1) * 64 + sq);
        }
    }
}

/// [`diff`] with the parent also given as its child sees it (`seen` = `swap_view(parent)`,
/// computed once per parent): ranks are compared as 8-byte words, and only the ranks
/// that differ (two or three for most moves) are gone through square by square. The
/// features come in [`diff`]'s order, so f32 sums keep their bits.
#[inline(always)]
fn diff_seen(
    parent: &CompactBoard,
    seen: &CompactBoard,
    child: &CompactBoard,
    added: &mut Vec<usize>,
    removed: &mut Vec<usize>,
) -> bool {
    added.clear();
    removed.clear();
    // Parent rank r is the child's rank 7 − r; files run the same way.
    for rank in 0..8 {
        let c = 8 * (7 - rank);
        let x = u64::from_ne_bytes(seen.0[c..c + 8].try_into().expect("8 bytes"));
        let y = u64::from_ne_bytes(child.0[c..c + 8].try_into().expect("8 bytes"));
        if x == y {
            continue;
        }
        for sq in 8 * rank..8 * rank + 8 {
            diff_square(parent, child, sq, added, removed);
        }
    }
    added.len() + removed.len() <= MAX_DELTA
}

/// `child` = the accumulators of a child from its parent's (see the module comment).
/// `both`: update `swp` too. A plain net scores a child from `own` alone, but a parent on
/// the accumulator stack needs `swp` for its own children. The child keeps its parent's
/// block with the views exchanged: a child whose king crossed the d/e line in a mirrored net
/// is refreshed instead ([`Pass::breaks`]). In the parent's frame, the child's own view is
/// the parent's other one, so it reads the parent block's `other` columns, and the reverse.
#[inline(always)]
fn update(
    net: &NativeNet,
    parent: &Accumulator,
    added: &[usize],
    removed: &[usize],
    child: &mut Accumulator,
    both: bool,
) {
    child.own.copy_from_slice(&parent.swp);
    if both {
        child.swp.copy_from_slice(&parent.own);
    }
    child.psqt_own = parent.psqt_swp;
    child.psqt_swp = parent.psqt_own;
    child.pieces = parent.pieces + added.len() - removed.len();
    let k = parent.block;
    child.block = swap_block(k);
    for &g in added {
        let (o, s) = (net.maps.own(k, g), net.maps.other(k, g));
        add(&mut child.own, net.first_column(s));
        if both {
            add(&mut child.swp, net.first_column(o));
        }
        if let Some(psqt) = &net.psqt {
            child.psqt_own += psqt[s];
            child.psqt_swp += psqt[o];
        }
    }
    for &g in removed {
        let (o, s) = (net.maps.own(k, g), net.maps.other(k, g));
        sub(&mut child.own, net.first_column(s));
        if both {
            sub(&mut child.swp, net.first_column(o));
        }
        if let Some(psqt) = &net.psqt {
            child.psqt_own -= psqt[s];
            child.psqt_swp -= psqt[o];
        }
    }
}

/// `out` = the pre-activations of `layer` on `max(input, 0)`; `odd` is scratch.
#[inline(always)]
fn relu_layer<const K: u8>(layer: &Layer, input: &[f32], out: &mut [f32], odd: &mut [f32]) {
    let (cols, bias, n) = (&layer.columns[..], &layer.bias[..], layer.outputs);
    #[cfg(target_arch = "x86_64")]
    if K >= AVX2 && n.is_multiple_of(8) && !layer.skip_zeros {
        // SAFETY: K ≥ AVX2 only inside `run_avx2`/`run_avx512`, whose callers checked the CPU; `Layer`
        // holds `inputs` columns of `outputs` floats, and `out` is `outputs` long.
        unsafe { super::kernels::relu_layer_avx2(input, cols, n, bias, out) };
        return;
    }
    match n {
        8 => relu_layer_fixed::<8>(input, cols, bias, out),
        16 => relu_layer_fixed::<16>(input, cols, bias, out),
        32 => relu_layer_fixed::<32>(input, cols, bias, out),
        64 => relu_layer_fixed::<64>(input, cols, bias, out),
        _ => relu_layer_pairs(input, cols, n, bias, out, odd),
    }
}

/// The layers above the first, on one view's first-layer pre-activations.
#[inline(always)]
fn mlp_above<const K: u8>(
    net: &NativeNet,
    first: &[f32],
    a: &mut [f32],
    b: &mut [f32],
    odd: &mut [f32],
) -> f32 {
    layers_above::<K>(&net.upper, first, a, b, odd)
}

/// `layers` (the last with one output) on pre-activations `first`, each layer's input through
/// a ReLU; the f32 tail of the int8 path too.
#[inline(always)]
pub fn layers_above<const K: u8>(
    layers: &[Layer],
    first: &[f32],
    a: &mut [f32],
    b: &mut [f32],
    odd: &mut [f32],
) -> f32 {
    let Some((last, middle)) = layers.split_last() else {
        return first[0]; // a single linear layer: no ReLU, one output
    };
    let mut input: &[f32] = first;
    let (mut buf, mut spare) = (a, b);
    for layer in middle {
        relu_layer::<K>(layer, input, &mut buf[..layer.outputs], odd);
        std::mem::swap(&mut buf, &mut spare);
        input = &spare[..layer.outputs];
    }
    // The output layer has one output, so its transposed weights are one row: a dot product.
    let width = input.len();
    relu_into(&mut buf[..width], input);
    dot(&buf[..width], &last.columns) + last.bias[0]
}

/// The output of a perspective net for the side to move: w · [screlu(own), screlu(swp)] + c,
/// with w and c the row and bias of the board's output bucket.
#[inline(always)]
fn perspective_head(net: &NativeNet, acc: &Accumulator) -> f32 {
    // One bucket skips the arithmetic: the single-output nets run as before.
    let bucket = match net.buckets {
        1 => 0,
        b => output_bucket(acc.pieces, b),
    };
    let width = 2 * net.hidden;
    let row = &net.head[bucket * width..(bucket + 1) * width];
    let (w_own, w_swp) = row.split_at(net.hidden);
    let half = |h: &[f32], w: &[f32]| -> f32 {
        h.iter()
            .zip(w)
            .map(|(&x, &w)| {
                let c = x.clamp(0.0, 1.0);
                c * c * w
            })
            .sum()
    };
    half(&acc.own, w_own) + half(&acc.swp, w_swp) + net.upper[0].bias[bucket]
}

/// The score for the side to move of the board whose accumulators are `acc`.
#[inline(always)]
fn score<const K: u8>(net: &NativeNet, acc: &Accumulator, s: &mut Buffers) -> f32 {
    let (a, b, odd) = (&mut s.a[..], &mut s.b[..], &mut s.odd[..]);
    let f = match net.form {
        Form::Perspective => -perspective_head(net, acc),
        Form::Plain => mlp_above::<K>(net, &acc.own, a, b, odd),
        Form::Antisym => {
            let own = mlp_above::<K>(net, &acc.own, a, b, odd) + acc.psqt_own;
            let swp = mlp_above::<K>(net, &acc.swp, a, b, odd) + acc.psqt_swp;
            own - swp
        }
    };
    -f * net.cp_per_unit
}

impl Pass for NativeNet {
    type Acc = Accumulator;

    fn new_acc(&self) -> Accumulator {
        Accumulator::new(self)
    }

    fn widest(&self) -> usize {
        self.widest
    }

    fn max_chain(&self) -> u32 {
        MAX_CHAIN
    }

    fn scores_both_views(&self) -> bool {
        self.form != Form::Plain
    }

    #[inline(always)]
    fn breaks(&self, added: &[usize], removed: &[usize]) -> bool {
        self.maps.breaks(added, removed)
    }

    #[inline(always)]
    fn refresh(&self, board: &CompactBoard, acc: &mut Accumulator) {
        refresh(self, board, acc)
    }

    #[inline(always)]
    fn update(
        &self,
        parent: &Accumulator,
        added: &[usize],
        removed: &[usize],
        child: &mut Accumulator,
        both: bool,
    ) {
        update(self, parent, added, removed, child, both)
    }

    #[inline(always)]
    fn score<const K: u8>(&self, acc: &Accumulator, bufs: &mut Buffers) -> f32 {
        score::<K>(self, acc, bufs)
    }
}

/// Scores unrelated boards, each from scratch.
#[inline(always)]
pub fn boards<N: Pass, const K: u8>(
    net: &N,
    boards: &[CompactBoard],
    out: &mut Vec<f32>,
    s: &mut Scratch<N::Acc>,
) {
    out.clear();
    for board in boards {
        net.refresh(board, &mut s.child);
        out.push(net.score::<K>(&s.child, &mut s.bufs));
    }
}

/// Scores the children of `parent`, each updated from the parent's accumulators.
#[inline(always)]
pub fn children<N: Pass, const K: u8>(
    net: &N,
    parent: &CompactBoard,
    children: &[CompactBoard],
    out: &mut Vec<f32>,
    s: &mut Scratch<N::Acc>,
) {
    out.clear();
    let seen_from_child = swap_view(parent);
    s.push_parent(net, parent, &seen_from_child);
    let top = s.depth - 1;
    let both = net.scores_both_views();
    for child in children {
        if diff_seen(
            parent,
            &seen_from_child,
            child,
            &mut s.added,
            &mut s.removed,
        ) && !net.breaks(&s.added, &s.removed)
        {
            net.update(&s.stack[top].acc, &s.added, &s.removed, &mut s.child, both);
        } else {
            net.refresh(child, &mut s.child);
        }
        out.push(net.score::<K>(&s.child, &mut s.bufs));
    }
}

/// What one call computes; the entry points below compile it for each instruction set.
pub struct Job<'a> {
    /// Which evaluator asks (see [`Scratch`]'s `owner`); never 0.
    pub owner: u64,
    pub work: Work<'a>,
}

pub enum Work<'a> {
    Boards(&'a [CompactBoard]),
    Children(&'a CompactBoard, &'a [CompactBoard]),
}

#[inline(always)]
fn run<N: Pass, const K: u8>(net: &N, job: Job, out: &mut Vec<f32>, s: &mut Scratch<N::Acc>) {
    s.fit(net, job.owner);
    match job.work {
        Work::Boards(b) => boards::<N, K>(net, b, out, s),
        Work::Children(p, c) => children::<N, K>(net, p, c, out, s),
    }
}

/// # Safety
/// The CPU must support AVX-512 F, BW and VNNI (`Simd::detect` said `Avx512`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
pub unsafe fn run_avx512<N: Pass>(net: &N, job: Job, out: &mut Vec<f32>, s: &mut Scratch<N::Acc>) {
    run::<N, AVX512>(net, job, out, s)
}

/// # Safety
/// The CPU must support AVX2 (`Simd::detect` said `Avx2` or `Avx512`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub unsafe fn run_avx2<N: Pass>(net: &N, job: Job, out: &mut Vec<f32>, s: &mut Scratch<N::Acc>) {
    run::<N, AVX2>(net, job, out, s)
}

pub fn run_baseline<N: Pass>(net: &N, job: Job, out: &mut Vec<f32>, s: &mut Scratch<N::Acc>) {
    run::<N, BASELINE>(net, job, out, s)
}
