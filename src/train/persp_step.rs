//! A perspective net's training step on [`PerspBoards`]: the first layer of every board
//! from its position's pieces read once, and that layer's gradient written by hand.
//!
//! FORWARD. Both views of a board side by side, [own | other], are one `embedding_bag` of
//! the table T = [Wᵀ | Wᵀ·swap] ([768, 2H]: row f holds feature f's column and its swapped
//! feature's) plus [b | b]. A child's views are its parent's half-swapped ([other | own])
//! plus the bag of its changes (`super::persp_batch`). From the views on, the net's own head
//! ([`Mlp::f_perspective_out`]) and the objective's loss run under autograd, from the views
//! as a leaf.
//!
//! BACKWARD. libtorch's `embedding_bag` backward sorts every index of the batch and then
//! gathers gradient rows by index; here the batch arrives already grouped by feature
//! (`tp_*`, `tk_*`), so the gradient of T is two more `embedding_bag`s (of the positions'
//! and the children's view gradients, by feature), and each child's gradient reaches its
//! parent by the same half-swap as the forward. The result is the gradient autograd would
//! give, summed in another order (a test holds it to the plain sparse path's): dW = dT's own
//! half plus its other half read through swap, db = both halves of the parents' summed
//! gradient.
//!
//! The positions' views and the children's are separate tensors, each through the head on
//! its own, so that no step copies them into one.
//!
//! A king-file mirrored net (`net::mirror`) reads a table of 4 × 768 (block, feature) rows,
//! [Wᵀ[own] | Wᵀ[other]], and dW adds each row's halves back into the columns they read.

use super::persp_batch::PerspBoards;
use crate::net::mlp::PerspViews;
use crate::net::Mlp;
use tch::{Device, Kind, Tensor};

/// A [`PerspBoards`] as tensors (made on the loader thread, on the CPU).
pub struct PerspTensors {
    pub n: i64,
    pub triplets: bool,
    p_indices: Tensor,
    p_offsets: Tensor,
    d_indices: Tensor,
    d_offsets: Tensor,
    d_weights: Tensor,
    pieces: Tensor,
    tp_rows: Tensor,
    tp_offsets: Tensor,
    tk_rows: Tensor,
    tk_offsets: Tensor,
    tk_weights: Tensor,
}

impl PerspTensors {
    pub fn new(b: &PerspBoards) -> Self {
        PerspTensors {
            n: b.n as i64,
            triplets: b.triplets,
            p_indices: Tensor::from_slice(&b.p_indices),
            p_offsets: Tensor::from_slice(&b.p_offsets),
            d_indices: Tensor::from_slice(&b.d_indices),
            d_offsets: Tensor::from_slice(&b.d_offsets),
            d_weights: Tensor::from_slice(&b.d_weights),
            pieces: Tensor::from_slice(&b.pieces),
            tp_rows: Tensor::from_slice(&b.tp_rows),
            tp_offsets: Tensor::from_slice(&b.tp_offsets),
            tk_rows: Tensor::from_slice(&b.tk_rows),
            tk_offsets: Tensor::from_slice(&b.tk_offsets),
            tk_weights: Tensor::from_slice(&b.tk_weights),
        }
    }

    /// The same tensors on `device` (themselves on the CPU).
    pub fn to_device(&self, device: Device) -> Self {
        let d = |t: &Tensor| t.to_device(device);
        PerspTensors {
            n: self.n,
            triplets: self.triplets,
            p_indices: d(&self.p_indices),
            p_offsets: d(&self.p_offsets),
            d_indices: d(&self.d_indices),
            d_offsets: d(&self.d_offsets),
            d_weights: d(&self.d_weights),
            pieces: d(&self.pieces),
            tp_rows: d(&self.tp_rows),
            tp_offsets: d(&self.tp_offsets),
            tk_rows: d(&self.tk_rows),
            tk_offsets: d(&self.tk_offsets),
            tk_weights: d(&self.tk_weights),
        }
    }
}

/// Per bag, the weighted sum of `table`'s rows its indices name (mode sum).
fn bag(table: &Tensor, indices: &Tensor, offsets: &Tensor, weights: Option<&Tensor>) -> Tensor {
    let (sum, _, _, _) =
        Tensor::embedding_bag(table, indices, offsets, false, 0, false, weights, false);
    sum
}

/// [a | b] → [b | a] along dimension 1, halves of width `h`.
fn half_swap(x: &Tensor, h: i64) -> Tensor {
    Tensor::cat(&[x.narrow(1, h, h), x.narrow(1, 0, h)], 1)
}

fn perspective_parts(mlp: &Mlp) -> (&PerspViews, &Tensor, &Tensor, i64) {
    let views = mlp
        .perspective
        .as_ref()
        .expect("the perspective step runs perspective nets only");
    let first = &mlp.layers[0];
    let bias = first.bs.as_ref().expect("the first layer has a bias");
    (views, &first.ws, bias, first.ws.size()[0])
}

/// The first layer's table [768, 2H] (mirrored: [4 × 768, 2H]) and bias [2H] of both views
/// side by side.
fn table(mlp: &Mlp) -> (Tensor, Tensor) {
    let (views, w, b, _) = perspective_parts(mlp);
    let wt = w.transpose(0, 1);
    let table = match &views.mirror {
        None => Tensor::cat(&[&wt, &wt.index_select(0, &views.swap)], 1),
        Some(m) => Tensor::cat(
            &[wt.index_select(0, &m.own), wt.index_select(0, &m.other)],
            1,
        ),
    };
    (table, Tensor::cat(&[b, b], 0))
}

/// The views of the positions, [n, 2H], and with triplets of their children, [2n, 2H]
/// (every q, then every r). Under autograd when the caller records gradients (validation
/// and the reference for the hand-written backward); the step runs [`views_in_place`].
pub fn views(mlp: &Mlp, t: &PerspTensors) -> (Tensor, Option<Tensor>) {
    let (table, bias) = table(mlp);
    let p = bag(&table, &t.p_indices, &t.p_offsets, None) + bias;
    let kids = t.triplets.then(|| {
        let (n, h) = (t.n, p.size()[1] / 2);
        let changes = bag(&table, &t.d_indices, &t.d_offsets, Some(&t.d_weights));
        (changes.view([2, n, 2 * h]) + half_swap(&p, h).unsqueeze(0)).view([2 * n, 2 * h])
    });
    (p, kids)
}

/// [`views`] without recording gradients, with the bias and the parents added in place
/// rather than into new tensors.
fn views_in_place(mlp: &Mlp, t: &PerspTensors) -> (Tensor, Option<Tensor>) {
    let (table, bias) = table(mlp);
    let mut p = bag(&table, &t.p_indices, &t.p_offsets, None);
    let _ = p.g_add_(&bias);
    let kids = t.triplets.then(|| {
        let (n, h) = (t.n, p.size()[1] / 2);
        let kids = bag(&table, &t.d_indices, &t.d_offsets, Some(&t.d_weights));
        let both = kids.view([2, n, 2 * h]);
        let _ = both.narrow(2, 0, h).g_add_(&p.narrow(1, h, h));
        let _ = both.narrow(2, h, h).g_add_(&p.narrow(1, 0, h));
        kids
    });
    (p, kids)
}

/// f of the positions and, with triplets, of their children, from their views (the net's
/// own head), [n] or [3n] (p's, q's, r's).
pub fn scores(mlp: &Mlp, p: &Tensor, kids: Option<&Tensor>, t: &PerspTensors) -> Tensor {
    let head = |views: &Tensor, start: i64, len: i64| {
        let pieces = (mlp.buckets > 1).then(|| t.pieces.narrow(0, start, len));
        match mlp.f_perspective_out(views, pieces.as_ref()) {
            Ok(f) => f,
            Err(e) => panic!("the perspective head failed: {e}"),
        }
    };
    let fp = head(p, 0, t.n);
    match kids {
        Some(k) => Tensor::cat(&[fp, head(k, t.n, 2 * t.n)], 0),
        None => fp,
    }
}

/// The forward half of a step: the views as leaves that record their gradients, and f.
pub struct Forward {
    pub p: Tensor,
    pub kids: Option<Tensor>,
    pub f: Tensor,
}

pub fn forward(mlp: &Mlp, t: &PerspTensors) -> Forward {
    let (p, kids) = tch::no_grad(|| views_in_place(mlp, t));
    let p = p.set_requires_grad(true);
    let kids = kids.map(|k| k.set_requires_grad(true));
    let f = scores(mlp, &p, kids.as_ref(), t);
    Forward { p, kids, f }
}

/// Accumulates the gradients of `loss` (computed from `fwd.f`) into every parameter.
pub fn backward(mlp: &Mlp, t: &PerspTensors, fwd: &Forward, loss: &Tensor) {
    loss.backward();
    let (views, w, b, h) = perspective_parts(mlp);
    let (dw, db) = tch::no_grad(|| {
        let gp = fwd.p.grad();
        let kids = fwd.kids.as_ref().map(|kids| {
            let gk = kids.grad();
            let both =
                gk.view([2, t.n, 2 * h])
                    .sum_dim_intlist([0i64].as_slice(), false, Kind::Float);
            // Each child's own view came from its parent's other view and the reverse.
            let _ = gp.narrow(1, 0, h).g_add_(&both.narrow(1, h, h));
            let _ = gp.narrow(1, h, h).g_add_(&both.narrow(1, 0, h));
            bag(&gk, &t.tk_rows, &t.tk_offsets, Some(&t.tk_weights))
        });
        // p's rows now hold all that flows into p's views.
        let mut dt = bag(&gp, &t.tp_rows, &t.tp_offsets, None);
        if let Some(k) = kids {
            dt += k;
        }
        let dwt = match &views.mirror {
            None => dt.narrow(1, 0, h) + dt.narrow(1, h, h).index_select(0, &views.swap),
            Some(m) => dt
                .narrow(1, 0, h)
                .new_zeros([w.size()[1], h], (Kind::Float, dt.device()))
                .index_add(0, &m.own, &dt.narrow(1, 0, h))
                .index_add(0, &m.other, &dt.narrow(1, h, h)),
        };
        let db2 = gp.sum_dim_intlist([0i64].as_slice(), false, Kind::Float);
        (
            dwt.transpose(0, 1),
            db2.narrow(0, 0, h) + db2.narrow(0, h, h),
        )
    });
    // Adds dw and db to the parameters' gradients through autograd, which owns them.
    let deposit = (w * &dw).sum(Kind::Float) + (b * &db).sum(Kind::Float);
    deposit.backward();
}
