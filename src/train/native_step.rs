//! A perspective net's training step on the CPU, written out in Rust: the first layer and
//! the head of every board, forward and backward, one position (and its two children) at a
//! time, on [`PerspBoards`]. The loss itself stays libtorch's (`super::value`), on the
//! boards' scores as a leaf.
//!
//! WHY. On the CPU, libtorch runs each operation of the step over the whole batch: the
//! views of 49,152 boards ([3n, 2H], about 100 MB at H = 256), then their clamp, square,
//! product and, on the way back, as many tensors again, each written to memory and read
//! back. Memory, not arithmetic, sets that pace on two cores. Here a board's views
//! (2H floats, a few KB) stay in the first-level cache from their first row to their
//! gradient, and nothing of batch size is written but the scores.
//!
//! THE MATHS (the same as `Mlp::f_forward_sparse` on each board whole). With T the table
//! [768, 2H] whose row f is [Wᵀ[f] | Wᵀ[swap f]] and B = [b | b], a board's views are
//! B + Σ T[f] over its features; a child's are its parent's with the halves swapped, plus
//! its changes (`super::persp_batch`). f = −(screlu(views) · out[k] + out_b[k]), k the
//! board's output bucket. Backward, with d = −∂L/∂f: ∂out[k] += d·screlu(views),
//! ∂out_b[k] += d, and the views' gradient g = d·out[k]·2·clamp(views) where
//! 0 ≤ views ≤ 1 (libtorch's clamp passes its bounds), 0 elsewhere. A child's g reaches its
//! parent half-swapped; each feature's row of ∂T gains its board's g (±1 for a change), and
//! ∂W[j, f] = ∂T[f, j] + ∂T[swap f, H + j], ∂b = both halves of Σ g over the positions.
//!
//! The backward pass computes the views again rather than keeping them: two reads of a
//! table that stays in cache cost less than writing and reading 100 MB.
//!
//! A king-file mirrored net (`net::mirror`) has a row of T for each (block, feature), 4 × 768
//! in all, row (k, f) = [Wᵀ[own(k, f)] | Wᵀ[other(k, f)]]; the layout names those rows, and
//! ∂W gathers each row's halves back to the columns they read. Nothing else changes.

use super::persp_batch::PerspBoards;
use crate::chess::ENCODING_WIDTH;
use crate::net::{Mlp, ViewMaps};
use tch::{Kind, Tensor};

/// A tensor's values, as f32 on the host.
fn host(t: &Tensor) -> Vec<f32> {
    let t = t.detach().to_device(tch::Device::Cpu).to_kind(Kind::Float);
    let n = t.numel();
    let mut out = vec![0f32; n];
    t.copy_data(&mut out, n);
    out
}

/// The index range of bag `i` of an `embedding_bag` layout.
fn bag(offsets: &[i64], len: usize, i: usize) -> std::ops::Range<usize> {
    let end = offsets.get(i + 1).map_or(len, |&e| e as usize);
    offsets[i] as usize..end
}

#[inline]
fn add(acc: &mut [f32], row: &[f32]) {
    for (a, &x) in acc.iter_mut().zip(row) {
        *a += x;
    }
}

#[inline]
fn sub(acc: &mut [f32], row: &[f32]) {
    for (a, &x) in acc.iter_mut().zip(row) {
        *a -= x;
    }
}

/// `dst` = `src` with its halves swapped.
#[inline]
fn half_swapped(dst: &mut [f32], src: &[f32]) {
    let h = src.len() / 2;
    dst[..h].copy_from_slice(&src[h..]);
    dst[h..].copy_from_slice(&src[..h]);
}

/// clamp(x, 0, 1), NaN kept (as libtorch's clamp keeps it).
#[inline(always)]
fn clamp01(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// Σ clamp(v)²·w, in eight lanes (so that it vectorises).
#[inline]
fn screlu_dot(v: &[f32], w: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    for (vc, wc) in v.chunks_exact(8).zip(w.chunks_exact(8)) {
        for ((lane, &x), &y) in lanes.iter_mut().zip(vc).zip(wc) {
            let c = clamp01(x);
            *lane += c * c * y;
        }
    }
    let tail: f32 = v
        .chunks_exact(8)
        .remainder()
        .iter()
        .zip(w.chunks_exact(8).remainder())
        .map(|(&x, &y)| clamp01(x) * clamp01(x) * y)
        .sum();
    lanes.iter().sum::<f32>() + tail
}

/// One step's copy of a perspective net's weights, laid out for the step.
pub struct Weights {
    /// Width of one view (H).
    h: usize,
    buckets: usize,
    /// The columns each row's halves read.
    maps: ViewMaps,
    /// [768, 2H]: row f is [Wᵀ[f] | Wᵀ[swap f]] (mirrored: [4 × 768, 2H], see the notes).
    table: Vec<f32>,
    /// [b | b].
    bias: Vec<f32>,
    /// The head, [buckets, 2H], and its bias.
    out_w: Vec<f32>,
    out_b: Vec<f32>,
}

/// The gradients of one step (or of one thread's share of it), in [`Weights`]' layout.
pub struct Grads {
    table: Vec<f32>,
    bias: Vec<f32>,
    out_w: Vec<f32>,
    out_b: Vec<f32>,
}

impl Grads {
    fn zeros(w: &Weights) -> Self {
        Grads {
            table: vec![0.0; w.table.len()],
            bias: vec![0.0; w.bias.len()],
            out_w: vec![0.0; w.out_w.len()],
            out_b: vec![0.0; w.out_b.len()],
        }
    }

    fn add(&mut self, other: &Grads) {
        add(&mut self.table, &other.table);
        add(&mut self.bias, &other.bias);
        add(&mut self.out_w, &other.out_w);
        add(&mut self.out_b, &other.out_b);
    }

    /// Every gradient in one list (for tests).
    #[cfg(test)]
    pub fn flat(&self) -> Vec<f32> {
        [&self.table[..], &self.bias, &self.out_w, &self.out_b].concat()
    }

    /// Adds these gradients to the net's parameters' (through autograd, which owns them).
    pub fn deposit(&self, mlp: &Mlp) {
        let (first, out) = (&mlp.layers[0], &mlp.layers[1]);
        let h = first.ws.size()[0] as usize;
        let maps = ViewMaps::new(mlp.king_mirror());
        // Each row's halves go back to the columns they read: in a plain net, column f
        // gets row f's own half and row swap f's other half.
        let mut dw = vec![0f32; h * ENCODING_WIDTH];
        for (r, row) in self.table.chunks_exact(2 * h).enumerate() {
            let (k, f) = (r / ENCODING_WIDTH, r % ENCODING_WIDTH);
            let (o_col, t_col) = (maps.own(k, f), maps.other(k, f));
            let (own, other) = row.split_at(h);
            for (j, (a, b)) in own.iter().zip(other).enumerate() {
                dw[j * ENCODING_WIDTH + o_col] += a;
                dw[j * ENCODING_WIDTH + t_col] += b;
            }
        }
        let (b_own, b_other) = self.bias.split_at(h);
        let db: Vec<f32> = b_own.iter().zip(b_other).map(|(a, b)| a + b).collect();
        let t = |v: &[f32], like: &Tensor| Tensor::from_slice(v).view(like.size().as_slice());
        let (b, ob) = (
            first.bs.as_ref().expect("the first layer has a bias"),
            out.bs.as_ref().expect("the head has a bias"),
        );
        let deposit = (&first.ws * t(&dw, &first.ws)).sum(Kind::Float)
            + (b * t(&db, b)).sum(Kind::Float)
            + (&out.ws * t(&self.out_w, &out.ws)).sum(Kind::Float)
            + (ob * t(&self.out_b, ob)).sum(Kind::Float);
        deposit.backward();
    }
}

/// A position's boards' views and their gradients, reused from position to position.
struct Scratch {
    p: Vec<f32>,
    q: Vec<f32>,
    r: Vec<f32>,
    gp: Vec<f32>,
    gq: Vec<f32>,
    gr: Vec<f32>,
    swapped: Vec<f32>,
}

impl Scratch {
    fn new(width: usize) -> Self {
        let v = || vec![0f32; width];
        Scratch {
            p: v(),
            q: v(),
            r: v(),
            gp: v(),
            gq: v(),
            gr: v(),
            swapped: v(),
        }
    }
}

impl Weights {
    /// The weights of a perspective net (on any device).
    pub fn of(mlp: &Mlp) -> Self {
        assert!(
            mlp.perspective.is_some() && mlp.layers.len() == 2,
            "the native step runs perspective nets only"
        );
        let maps = ViewMaps::new(mlp.king_mirror());
        let (first, out) = (&mlp.layers[0], &mlp.layers[1]);
        let h = first.ws.size()[0] as usize;
        let w = host(&first.ws);
        let b = host(first.bs.as_ref().expect("the first layer has a bias"));
        let mut table = vec![0f32; maps.rows() * 2 * h];
        for (r, row) in table.chunks_exact_mut(2 * h).enumerate() {
            let (k, f) = (r / ENCODING_WIDTH, r % ENCODING_WIDTH);
            let (o_col, t_col) = (maps.own(k, f), maps.other(k, f));
            let (own, other) = row.split_at_mut(h);
            for (j, (o, t)) in own.iter_mut().zip(other).enumerate() {
                *o = w[j * ENCODING_WIDTH + o_col];
                *t = w[j * ENCODING_WIDTH + t_col];
            }
        }
        let out_w = host(&out.ws);
        let buckets = out_w.len() / (2 * h);
        Weights {
            h,
            buckets,
            maps,
            table,
            bias: [&b[..], &b[..]].concat(),
            out_w,
            out_b: host(out.bs.as_ref().expect("the head has a bias")),
        }
    }

    /// A batch laid out for the other kind of net would read the wrong rows (or past the
    /// table): a bug in the caller.
    fn check_layout(&self, b: &PerspBoards) {
        assert_eq!(
            b.rows(),
            self.maps.rows(),
            "the batch's layout does not fit the net's mirroring"
        );
    }

    fn row(&self, f: i64) -> &[f32] {
        let w = 2 * self.h;
        &self.table[f as usize * w..][..w]
    }

    fn bucket(&self, pieces: i64) -> usize {
        if self.buckets == 1 {
            0
        } else {
            crate::net::output_bucket(pieces.max(0) as usize, self.buckets)
        }
    }

    /// A position's views from its features.
    fn parent(&self, acc: &mut [f32], features: &[i64]) {
        acc.copy_from_slice(&self.bias);
        for &f in features {
            add(acc, self.row(f));
        }
    }

    /// A child's views from its parent's and its changes.
    fn child(&self, acc: &mut [f32], parent: &[f32], indices: &[i64], weights: &[f32]) {
        half_swapped(acc, parent);
        for (&f, &w) in indices.iter().zip(weights) {
            if w > 0.0 {
                add(acc, self.row(f));
            } else {
                sub(acc, self.row(f));
            }
        }
    }

    fn score(&self, views: &[f32], pieces: i64) -> f32 {
        let k = self.bucket(pieces);
        let w = 2 * self.h;
        -(screlu_dot(views, &self.out_w[k * w..][..w]) + self.out_b[k])
    }

    /// The views of position `i` of `b` (and of its children) into `s`.
    fn views(&self, b: &PerspBoards, i: usize, s: &mut Scratch) {
        let run = bag(&b.p_offsets, b.p_indices.len(), i);
        self.parent(&mut s.p, &b.p_indices[run]);
        if b.triplets {
            let len = b.d_indices.len();
            for (acc, k) in [(&mut s.q, i), (&mut s.r, b.n + i)] {
                let run = bag(&b.d_offsets, len, k);
                self.child(acc, &s.p, &b.d_indices[run.clone()], &b.d_weights[run]);
            }
        }
    }

    /// A board's gradient into its views, `g`, from d = ∂L/∂f; adds the head's.
    fn head_backward(&self, views: &[f32], pieces: i64, df: f32, g: &mut [f32], grads: &mut Grads) {
        let k = self.bucket(pieces);
        let w = 2 * self.h;
        let d = -df;
        grads.out_b[k] += d;
        let out_w = &self.out_w[k * w..][..w];
        let dout_w = &mut grads.out_w[k * w..][..w];
        for (((&x, &wj), dwj), gj) in views.iter().zip(out_w).zip(dout_w).zip(g) {
            let c = clamp01(x);
            *dwj += d * (c * c);
            *gj = if (0.0..=1.0).contains(&x) {
                d * wj * (2.0 * c)
            } else {
                0.0
            };
        }
    }

    /// f of every board of `b`: the positions', then (with triplets) every q's and every
    /// r's, on `threads` threads.
    pub fn forward(&self, b: &PerspBoards, threads: usize) -> Vec<f32> {
        self.check_layout(b);
        let n = b.n;
        let parts = split(n, threads, |range| {
            let mut s = Scratch::new(2 * self.h);
            let mut out = [Vec::new(), Vec::new(), Vec::new()];
            for i in range {
                self.views(b, i, &mut s);
                out[0].push(self.score(&s.p, b.pieces[i]));
                if b.triplets {
                    out[1].push(self.score(&s.q, b.pieces[n + i]));
                    out[2].push(self.score(&s.r, b.pieces[2 * n + i]));
                }
            }
            out
        });
        let (mut fp, mut fq, mut fr) = (Vec::with_capacity(3 * n), Vec::new(), Vec::new());
        for [p, q, r] in parts {
            fp.extend(p);
            fq.extend(q);
            fr.extend(r);
        }
        fp.extend(fq);
        fp.extend(fr);
        fp
    }

    /// The gradients of every parameter from `df`, ∂L/∂f of every board in
    /// [`Weights::forward`]'s order, on `threads` threads.
    pub fn backward(&self, b: &PerspBoards, df: &[f32], threads: usize) -> Grads {
        self.check_layout(b);
        let n = b.n;
        assert_eq!(df.len(), if b.triplets { 3 * n } else { n });
        let parts = split(n, threads, |range| {
            let mut s = Scratch::new(2 * self.h);
            let mut grads = Grads::zeros(self);
            let len = b.d_indices.len();
            for i in range {
                self.views(b, i, &mut s);
                self.head_backward(&s.p, b.pieces[i], df[i], &mut s.gp, &mut grads);
                if b.triplets {
                    for (views, g, k) in [(&s.q, &mut s.gq, n + i), (&s.r, &mut s.gr, 2 * n + i)] {
                        self.head_backward(views, b.pieces[k], df[k], g, &mut grads);
                    }
                    // The children's changes, then their views' share of the parent's.
                    for (g, k) in [(&s.gq, i), (&s.gr, n + i)] {
                        for at in bag(&b.d_offsets, len, k) {
                            let f = b.d_indices[at] as usize;
                            let row = &mut grads.table[f * 2 * self.h..][..2 * self.h];
                            if b.d_weights[at] > 0.0 {
                                add(row, g);
                            } else {
                                sub(row, g);
                            }
                        }
                        half_swapped(&mut s.swapped, g);
                        add(&mut s.gp, &s.swapped);
                    }
                }
                for at in bag(&b.p_offsets, b.p_indices.len(), i) {
                    let f = b.p_indices[at] as usize;
                    add(&mut grads.table[f * 2 * self.h..][..2 * self.h], &s.gp);
                }
                add(&mut grads.bias, &s.gp);
            }
            grads
        });
        let mut parts = parts.into_iter();
        let mut total = parts.next().unwrap_or_else(|| Grads::zeros(self));
        for part in parts {
            total.add(&part);
        }
        total
    }
}

/// Runs `work` on `threads` contiguous shares of 0..n (the calling thread takes the first)
/// and returns their results in order.
fn split<T: Send>(
    n: usize,
    threads: usize,
    work: impl Fn(std::ops::Range<usize>) -> T + Sync,
) -> Vec<T> {
    let threads = threads.clamp(1, n.max(1));
    let share = n.div_ceil(threads);
    let ranges: Vec<_> = (0..threads)
        .map(|k| (k * share).min(n)..((k + 1) * share).min(n))
        .collect();
    if threads == 1 {
        return vec![work(0..n)];
    }
    std::thread::scope(|scope| {
        let work = &work;
        let handles: Vec<_> = ranges[1..]
            .iter()
            .map(|r| {
                let r = r.clone();
                scope.spawn(move || work(r))
            })
            .collect();
        let mut out = vec![work(ranges[0].clone())];
        out.extend(
            handles
                .into_iter()
                .map(|h| h.join().expect("a native step thread panicked")),
        );
        out
    })
}
