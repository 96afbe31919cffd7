//! The native forward pass: accumulators built from scratch or updated from a parent, and
//! the layers above them.
//!
//! ACCUMULATORS. For a board B seen from its side to move, with set features F(B):
//! - `own`  = b₀ + Σ_{f∈F(B)} W₀[f]        the first layer of B itself;
//! - `swp`  = b₀ + Σ_{f∈F(B)} W₀[swap f]   the first layer of B with the other side to move;
//!
//! and, in the antisymmetric form, the scalars Σ psqt[f] and Σ psqt[swap f].
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
//! SCORES. f(x) is the raw output for the side that just moved (`net::mlp`'s convention):
//! plain f = mlp(own); antisymmetric f = [mlp(own) + Σpsqt·own] − [mlp(swp) + Σpsqt·swp].
//! The score for the side to move is −f · cp_per_unit.

use super::kernels::{add, dot, relu_into, relu_layer_fixed, relu_layer_pairs, sub};
use super::weights::{Layer, NativeNet};
use crate::chess::CompactBoard;
use crate::net::Form;

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
}

impl Accumulator {
    pub fn new(net: &NativeNet) -> Self {
        Accumulator {
            own: vec![0.0; net.hidden],
            swp: vec![0.0; net.hidden],
            psqt_own: 0.0,
            psqt_swp: 0.0,
        }
    }
}

/// The accumulators of a recent parent, and how many incremental updates they are from a
/// refresh (each update adds a little float rounding; [`MAX_CHAIN`] bounds it).
#[derive(Clone, Debug)]
struct Entry {
    board: CompactBoard,
    acc: Accumulator,
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
pub struct Scratch {
    /// The evaluator whose net the stack holds: one thread may use several nets.
    owner: u64,
    stack: Vec<Entry>,
    depth: usize,
    child: Accumulator,
    bufs: Buffers,
    added: Vec<usize>,
    removed: Vec<usize>,
}

impl Scratch {
    /// Empties the accumulator stack if it holds `owner`'s net.
    pub fn forget(&mut self, owner: u64) {
        if self.owner == owner {
            self.depth = 0;
        }
    }

    fn fit(&mut self, net: &NativeNet, owner: u64) {
        if self.owner != owner {
            self.owner = owner;
            self.stack = (0..MAX_ANCESTORS)
                .map(|_| Entry {
                    board: CompactBoard([0; 64]),
                    acc: Accumulator::new(net),
                    chain: 0,
                })
                .collect();
            self.depth = 0;
            self.child = Accumulator::new(net);
            self.bufs = Buffers {
                a: vec![0.0; net.widest],
                b: vec![0.0; net.widest],
                odd: vec![0.0; net.widest],
            };
        }
    }

    /// Makes the top of the stack hold `parent`'s accumulators, from an ancestor if one is
    /// close, else by a refresh.
    #[inline(always)]
    fn push_parent(&mut self, net: &NativeNet, parent: &CompactBoard) {
        let seen_from_above = swap_view(parent);
        for k in (0..self.depth).rev() {
            let board = &self.stack[k].board;
            if board == parent {
                self.depth = k + 1;
                return;
            }
            if differing_words(board, &seen_from_above) <= 4
                && diff(board, parent, &mut self.added, &mut self.removed)
                && self.stack[k].chain < MAX_CHAIN
                && k + 1 < MAX_ANCESTORS
            {
                let (below, above) = self.stack.split_at_mut(k + 1);
                let (from, to) = (&below[k], &mut above[0]);
                update(
                    net,
                    &from.acc,
                    &self.added,
                    &self.removed,
                    &mut to.acc,
                    true,
                );
                to.board = *parent;
                to.chain = from.chain + 1;
                self.depth = k + 2;
                return;
            }
        }
        let top = &mut self.stack[0];
        refresh(net, parent, &mut top.acc);
        top.board = *parent;
        top.chain = 0;
        self.depth = 1;
    }
}

/// Layer outputs, and the odd-input sums of [`relu_layer_pairs`].
#[derive(Debug, Default)]
struct Buffers {
    a: Vec<f32>,
    b: Vec<f32>,
    odd: Vec<f32>,
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
    for f in board.active_features() {
        let s = net.swap[f] as usize;
        add(&mut acc.own, net.first_column(f));
        add(&mut acc.swp, net.first_column(s));
        if let Some(psqt) = &net.psqt {
            acc.psqt_own += psqt[f];
            acc.psqt_swp += psqt[s];
        }
    }
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
    added.len() + removed.len() <= MAX_DELTA
}

/// `child` = the accumulators of a child from its parent's (see the module comment).
/// `both`: update `swp` too. A plain net scores a child from `own` alone, but a parent on
/// the accumulator stack needs `swp` for its own children.
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
    for &g in added {
        let s = net.swap[g] as usize;
        add(&mut child.own, net.first_column(s));
        if both {
            add(&mut child.swp, net.first_column(g));
        }
        if let Some(psqt) = &net.psqt {
            child.psqt_own += psqt[s];
            child.psqt_swp += psqt[g];
        }
    }
    for &g in removed {
        let s = net.swap[g] as usize;
        sub(&mut child.own, net.first_column(s));
        if both {
            sub(&mut child.swp, net.first_column(g));
        }
        if let Some(psqt) = &net.psqt {
            child.psqt_own -= psqt[s];
            child.psqt_swp -= psqt[g];
        }
    }
}

/// `out` = the pre-activations of `layer` on `max(input, 0)`; `odd` is scratch.
#[inline(always)]
fn relu_layer<const AVX2: bool>(layer: &Layer, input: &[f32], out: &mut [f32], odd: &mut [f32]) {
    let (cols, bias, n) = (&layer.columns[..], &layer.bias[..], layer.outputs);
    #[cfg(target_arch = "x86_64")]
    if AVX2 && n.is_multiple_of(8) && !layer.skip_zeros {
        // SAFETY: AVX2 is true only inside `run_avx2`, whose caller checked the CPU; `Layer`
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
fn mlp_above<const AVX2: bool>(
    net: &NativeNet,
    first: &[f32],
    a: &mut [f32],
    b: &mut [f32],
    odd: &mut [f32],
) -> f32 {
    let Some((last, middle)) = net.upper.split_last() else {
        return first[0]; // a single linear layer: no ReLU, one output
    };
    let mut input: &[f32] = first;
    let (mut buf, mut spare) = (a, b);
    for layer in middle {
        relu_layer::<AVX2>(layer, input, &mut buf[..layer.outputs], odd);
        std::mem::swap(&mut buf, &mut spare);
        input = &spare[..layer.outputs];
    }
    // The output layer has one output, so its transposed weights are one row: a dot product.
    let width = input.len();
    relu_into(&mut buf[..width], input);
    dot(&buf[..width], &last.columns) + last.bias[0]
}

/// The output of a perspective net for the side to move: w · [screlu(own), screlu(swp)] + c.
#[inline(always)]
fn perspective_head(net: &NativeNet, acc: &Accumulator) -> f32 {
    let out = &net.upper[0];
    let (w_own, w_swp) = out.columns.split_at(net.hidden);
    let half = |h: &[f32], w: &[f32]| -> f32 {
        h.iter()
            .zip(w)
            .map(|(&x, &w)| {
                let c = x.clamp(0.0, 1.0);
                c * c * w
            })
            .sum()
    };
    half(&acc.own, w_own) + half(&acc.swp, w_swp) + out.bias[0]
}

/// The score for the side to move of the board whose accumulators are `acc`.
#[inline(always)]
fn score<const AVX2: bool>(net: &NativeNet, acc: &Accumulator, s: &mut Buffers) -> f32 {
    let (a, b, odd) = (&mut s.a[..], &mut s.b[..], &mut s.odd[..]);
    let f = match net.form {
        Form::Perspective => -perspective_head(net, acc),
        Form::Plain => mlp_above::<AVX2>(net, &acc.own, a, b, odd),
        Form::Antisym => {
            let own = mlp_above::<AVX2>(net, &acc.own, a, b, odd) + acc.psqt_own;
            let swp = mlp_above::<AVX2>(net, &acc.swp, a, b, odd) + acc.psqt_swp;
            own - swp
        }
    };
    -f * net.cp_per_unit
}

/// Scores unrelated boards, each from scratch.
#[inline(always)]
pub fn boards<const AVX2: bool>(
    net: &NativeNet,
    boards: &[CompactBoard],
    out: &mut Vec<f32>,
    s: &mut Scratch,
) {
    out.clear();
    for board in boards {
        refresh(net, board, &mut s.child);
        out.push(score::<AVX2>(net, &s.child, &mut s.bufs));
    }
}

/// Scores the children of `parent`, each updated from the parent's accumulators.
#[inline(always)]
pub fn children<const AVX2: bool>(
    net: &NativeNet,
    parent: &CompactBoard,
    children: &[CompactBoard],
    out: &mut Vec<f32>,
    s: &mut Scratch,
) {
    out.clear();
    s.push_parent(net, parent);
    let top = s.depth - 1;
    let both = net.form != Form::Plain;
    for child in children {
        if diff(parent, child, &mut s.added, &mut s.removed) {
            update(
                net,
                &s.stack[top].acc,
                &s.added,
                &s.removed,
                &mut s.child,
                both,
            );
        } else {
            refresh(net, child, &mut s.child);
        }
        out.push(score::<AVX2>(net, &s.child, &mut s.bufs));
    }
}

/// What one call computes; the two entry points below compile it for two instruction sets.
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
fn run<const AVX2: bool>(net: &NativeNet, job: Job, out: &mut Vec<f32>, s: &mut Scratch) {
    s.fit(net, job.owner);
    match job.work {
        Work::Boards(b) => boards::<AVX2>(net, b, out, s),
        Work::Children(p, c) => children::<AVX2>(net, p, c, out, s),
    }
}

/// # Safety
/// The CPU must support AVX2 (`Simd::detect` said `Avx2`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub unsafe fn run_avx2(net: &NativeNet, job: Job, out: &mut Vec<f32>, s: &mut Scratch) {
    run::<true>(net, job, out, s)
}

pub fn run_baseline(net: &NativeNet, job: Job, out: &mut Vec<f32>, s: &mut Scratch) {
    run::<false>(net, job, out, s)
}
