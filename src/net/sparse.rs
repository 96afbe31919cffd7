//! The sparse form of the net's input: a board sets at most 32 of its 768 one-hot features,
//! so the first layer is a sum of `l0.weight` columns. [`Mlp::f_forward_sparse`] computes it
//! with `embedding_bag` over the Mlp's own parameters, so dense and sparse forwards share one
//! set of weights (and one file format) and agree to floating-point rounding.

use super::mlp::bag_sum;
use super::Mlp;
use crate::chess::{CompactBoard, ENCODING_WIDTH};
use tch::{Device, Kind, TchError, Tensor};

/// Boards as feature indices: `indices` lists every board's set features back to back and
/// `offsets[i]` is where board `i`'s start (the `embedding_bag` layout).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SparseBoards {
    pub indices: Vec<i64>,
    pub offsets: Vec<i64>,
}

impl SparseBoards {
    pub fn with_capacity(boards: usize) -> Self {
        SparseBoards {
            indices: Vec::with_capacity(boards * 32),
            offsets: Vec::with_capacity(boards),
        }
    }

    pub fn push(&mut self, board: &CompactBoard) {
        self.offsets.push(self.indices.len() as i64);
        self.indices
            .extend(board.active_features().map(|f| f as i64));
    }

    pub fn from_boards<'a>(boards: impl IntoIterator<Item = &'a CompactBoard>) -> Self {
        let mut out = SparseBoards::default();
        for b in boards {
            out.push(b);
        }
        out
    }

    /// Empties both lists, keeping their capacity for the next batch.
    pub fn clear(&mut self) {
        self.indices.clear();
        self.offsets.clear();
    }

    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// (indices, offsets) as int64 tensors on `device`.
    pub fn to_tensors(&self, device: Device) -> Result<(Tensor, Tensor), TchError> {
        let indices = Tensor::f_from_slice(&self.indices)?.f_to_device(device)?;
        let offsets = Tensor::f_from_slice(&self.offsets)?.f_to_device(device)?;
        Ok((indices, offsets))
    }
}

/// Pieces on each board of a sparse batch (int64 [N]): the length of its run of indices,
/// the next board's offset (or the end) minus its own.
fn pieces(indices: &Tensor, offsets: &Tensor) -> Result<Tensor, TchError> {
    let end = Tensor::f_from_slice(&[indices.size1()?])?.f_to_device(offsets.device())?;
    let ends = Tensor::f_cat(&[offsets.f_slice(0, 1, None::<i64>, 1)?, end], 0)?;
    ends.f_sub(offsets)
}

/// The (block, feature) row of every index of a sparse batch (`net::mirror`): each index
/// plus 768 × its board's block, the block read off the board's two king features.
fn mirror_rows(indices: &Tensor, offsets: &Tensor) -> Result<Tensor, TchError> {
    let device = indices.device();
    let counts = pieces(indices, offsets)?;
    let n = offsets.size1()?;
    let board = Tensor::f_arange(n, (Kind::Int64, device))?.f_repeat_interleave_self_tensor(
        &counts,
        0,
        indices.size1()?,
    )?;
    let right = indices.f_remainder(8)?.f_ge(4)?;
    let own_king = indices
        .f_ge(5 * 64)?
        .f_logical_and(&indices.f_lt(6 * 64)?)?
        .f_logical_and(&right)?;
    let other_king = indices.f_ge(11 * 64)?.f_logical_and(&right)?;
    let code = own_king
        .f_to_kind(Kind::Int64)?
        .f_mul_scalar(2)?
        .f_add(&other_king.f_to_kind(Kind::Int64)?)?;
    let block = Tensor::f_zeros([n], (Kind::Int64, device))?.f_index_add(0, &board, &code)?;
    indices.f_add(
        &block
            .f_index_select(0, &board)?
            .f_mul_scalar(ENCODING_WIDTH as i64)?,
    )
}

impl Mlp {
    /// Raw scores [N] (same sign convention as [`Mlp::f_forward`]) from `indices`/`offsets`
    /// int64 tensors on the model's device, laid out as in [`SparseBoards`].
    pub fn f_forward_sparse(&self, indices: &Tensor, offsets: &Tensor) -> Result<Tensor, TchError> {
        if let Some(views) = &self.perspective {
            let first = &self.layers[0];
            let table = first.ws.f_transpose(0, 1)?;
            let view = |idx: &Tensor| -> Result<Tensor, TchError> {
                let sum = bag_sum(&table, idx, offsets)?;
                match &first.bs {
                    Some(b) => sum.f_add(b),
                    None => Ok(sum),
                }
            };
            let (own, other) = match &views.mirror {
                None => (
                    view(indices)?,
                    view(&views.swap.f_index_select(0, indices)?)?,
                ),
                Some(m) => {
                    let rows = mirror_rows(indices, offsets)?;
                    (
                        view(&m.own.f_index_select(0, &rows)?)?,
                        view(&m.other.f_index_select(0, &rows)?)?,
                    )
                }
            };
            let pieces = match self.buckets {
                1 => None,
                _ => Some(pieces(indices, offsets)?),
            };
            return self.f_perspective_head(&own, &other, pieces.as_ref());
        }
        match &self.antisym {
            Some(a) => self.f_antisym_sparse(a, indices, offsets),
            None => self.f_forward_layers_sparse(indices, offsets),
        }
    }

    /// The layers alone on a sparse batch (see `Mlp::f_forward_layers`).
    pub(super) fn f_forward_layers_sparse(
        &self,
        indices: &Tensor,
        offsets: &Tensor,
    ) -> Result<Tensor, TchError> {
        let Some(first) = self.layers.first() else {
            return Err(TchError::Shape("the net has no layers".to_string()));
        };
        // embedding_bag wants the table as [768, H]: row k is input feature k's column.
        let sum = bag_sum(&first.ws.f_transpose(0, 1)?, indices, offsets)?;
        let mut h = match &first.bs {
            Some(b) => sum.f_add(b)?,
            None => sum,
        };
        // Every layer after the first is preceded by the ReLU of the one before it.
        for layer in &self.layers[1..] {
            h = h.f_relu()?.f_linear(&layer.ws, layer.bs.as_ref())?;
        }
        h.f_squeeze_dim(-1)
    }

    /// [`Mlp::f_forward_sparse`] on host boards; panics on a libtorch error, as
    /// [`Mlp::forward`] does (for training code, where that is a bug).
    pub fn forward_sparse(&self, boards: &SparseBoards) -> Tensor {
        let device = self.layers.first().map_or(Device::Cpu, |l| l.ws.device());
        let result = boards
            .to_tensors(device)
            .and_then(|(i, o)| self.f_forward_sparse(&i, &o));
        match result {
            Ok(t) => t,
            Err(e) => panic!("Mlp::forward_sparse failed: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{Position, ENCODING_WIDTH};
    use crate::net::seed::seeded;
    use crate::net::Arch;
    use tch::{nn, Kind};

    /// K vs K (two features) first, then the shared walk.
    fn boards(n: usize) -> Vec<CompactBoard> {
        let mut out = vec![Position::from_fen("8/8/4k3/8/2K5/8/8/8 b - - 0 1")
            .expect("valid fen")
            .compact()];
        out.extend(crate::chess::sample_boards(n.saturating_sub(1)));
        out
    }

    fn dense(boards: &[CompactBoard]) -> Tensor {
        let mut x = vec![0f32; boards.len() * ENCODING_WIDTH];
        for (b, row) in boards.iter().zip(x.chunks_exact_mut(ENCODING_WIDTH)) {
            b.encode_into(row);
        }
        Tensor::from_slice(&x).view([boards.len() as i64, ENCODING_WIDTH as i64])
    }

    #[test]
    fn sparse_equals_dense_for_every_preset_shape() {
        for preset in ["small", "mid", "small-as", "mid-as"] {
            let vs = nn::VarStore::new(Device::Cpu);
            let arch = Arch::preset(preset).expect("preset exists");
            let mlp = seeded(7, || Mlp::new(&vs.root(), &arch));
            let b = boards(300);
            let (sparse, dense) = tch::no_grad(|| {
                (
                    mlp.forward_sparse(&SparseBoards::from_boards(&b)),
                    mlp.forward(&dense(&b)),
                )
            });
            assert_eq!(sparse.size(), vec![300]);
            let diff = (&sparse - &dense).abs().max().double_value(&[]);
            assert!(diff < 1e-5, "{preset}: max |sparse - dense| = {diff}");
            let spread = dense.std(false).double_value(&[]);
            assert!(
                spread > 1e-3,
                "{preset}: scores should differ, std {spread}"
            );
        }
    }

    #[test]
    fn perspective_sparse_equals_dense_and_a_hand_computation() {
        let vs = nn::VarStore::new(Device::Cpu);
        let arch = Arch::preset("persp-128").expect("preset exists");
        let mlp = seeded(7, || Mlp::new(&vs.root(), &arch));
        let b = boards(50);
        let (sparse, full) = tch::no_grad(|| {
            (
                mlp.forward_sparse(&SparseBoards::from_boards(&b)),
                mlp.forward(&dense(&b)),
            )
        });
        let diff = (&sparse - &full).abs().max().double_value(&[]);
        assert!(diff < 1e-6, "max |sparse - dense| = {diff}");
        // f = -(w · [screlu(own), screlu(other)] + c), by hand for the first board.
        let x = dense(&b[..1]);
        let swap = &mlp.perspective.as_ref().expect("perspective").swap;
        let (l0, l1) = (&mlp.layers[0], &mlp.layers[1]);
        let own = x.linear(&l0.ws, l0.bs.as_ref());
        let other = x.index_select(1, swap).linear(&l0.ws, l0.bs.as_ref());
        let act = |t: Tensor| t.clamp(0.0, 1.0).square();
        let by_hand = tch::no_grad(|| {
            let w = l1.ws.view([-1]);
            let h = 128;
            let a = (act(own).view([-1]) * w.narrow(0, 0, h)).sum(Kind::Float);
            let c = (act(other).view([-1]) * w.narrow(0, h, h)).sum(Kind::Float);
            -(a + c + l1.bs.as_ref().expect("bias").view([-1]))
        });
        let got = full.double_value(&[0]);
        assert!((got - by_hand.double_value(&[0])).abs() < 1e-6);
    }

    /// Boards of 2 to 32 pieces: every bucket of an 8-bucket net, more than once.
    fn boards_of_every_stage() -> Vec<CompactBoard> {
        let fens = [
            "8/8/4k3/8/2K5/8/8/8 b - - 0 1",
            "8/8/4k3/8/2K5/8/3PP3/8 w - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ];
        let mut out: Vec<CompactBoard> = fens
            .iter()
            .map(|f| Position::from_fen(f).expect("valid fen").compact())
            .collect();
        // A game that captures whenever it can, one piece fewer at a time.
        let start = Position::from_fen(fens[5]).expect("valid fen");
        out.extend(
            crate::net::buckets::capture_walk(start, 200 - out.len() + 1)
                .into_iter()
                .skip(1),
        );
        out
    }

    #[test]
    fn bucket_index_is_output_bucket_for_every_count() {
        for &b in crate::net::buckets::OUTPUT_BUCKETS {
            let counts: Vec<i64> = (0..=32).collect();
            let got = super::super::mlp::bucket_index(&Tensor::from_slice(&counts), b as i64)
                .expect("bucket index");
            let want: Vec<i64> = (0..=32)
                .map(|p| crate::net::output_bucket(p, b) as i64)
                .collect();
            assert_eq!(Vec::<i64>::try_from(&got).expect("int64"), want, "B = {b}");
        }
    }

    #[test]
    fn bucketed_sparse_equals_dense_and_each_board_reads_its_bucket() {
        let vs = nn::VarStore::new(Device::Cpu);
        let arch = Arch::preset("persp-128-ob8").expect("preset exists");
        let mlp = seeded(7, || Mlp::new(&vs.root(), &arch));
        let b = boards_of_every_stage();
        let (sparse, full) = tch::no_grad(|| {
            (
                mlp.forward_sparse(&SparseBoards::from_boards(&b)),
                mlp.forward(&dense(&b)),
            )
        });
        assert_eq!(sparse.size(), vec![b.len() as i64]);
        let diff = (&sparse - &full).abs().max().double_value(&[]);
        assert!(diff < 1e-6, "max |sparse - dense| = {diff}");
        // By hand: all eight outputs, then the row of the board's piece count.
        let swap = &mlp.perspective.as_ref().expect("perspective").swap;
        let (l0, l1) = (&mlp.layers[0], &mlp.layers[1]);
        let act = |t: Tensor| t.clamp(0.0, 1.0).square();
        let (mut used, mut distinct) = (std::collections::BTreeSet::new(), 0);
        for (i, board) in b.iter().enumerate() {
            let x = dense(std::slice::from_ref(board));
            let all = tch::no_grad(|| {
                let own = act(x.linear(&l0.ws, l0.bs.as_ref()));
                let other = act(x.index_select(1, swap).linear(&l0.ws, l0.bs.as_ref()));
                Tensor::cat(&[own, other], 1).linear(&l1.ws, l1.bs.as_ref())
            });
            let bucket = crate::net::output_bucket(board.active_features().count(), 8);
            used.insert(bucket);
            let want = -all.double_value(&[0, bucket as i64]);
            let got = full.double_value(&[i as i64]);
            assert!((got - want).abs() < 1e-5, "board {i}: {got} vs {want}");
            // The check means something only where the rows give different scores.
            let next = -all.double_value(&[0, (bucket as i64 + 1) % 8]);
            distinct += usize::from((want - next).abs() > 1e-3);
        }
        assert_eq!(used.len(), 8, "every bucket is read: {used:?}");
        assert!(distinct * 10 > b.len() * 9, "{distinct} of {}", b.len());
    }

    #[test]
    fn a_mirrored_net_scores_a_board_and_its_flip_alike_sparse_or_dense() {
        use crate::net::mirror::{flip_board, ViewMaps};
        for preset in ["persp-256-hm", "persp-256-ob8-hm"] {
            let vs = nn::VarStore::new(Device::Cpu);
            let arch = Arch::preset(preset).expect("preset exists");
            let mlp = seeded(9, || Mlp::new(&vs.root(), &arch));
            assert!(mlp.king_mirror());
            let b = boards_of_every_stage();
            let flipped: Vec<CompactBoard> = b.iter().map(flip_board).collect();
            let (sparse, full, sparse_flip, full_flip) = tch::no_grad(|| {
                (
                    mlp.forward_sparse(&SparseBoards::from_boards(&b)),
                    mlp.forward(&dense(&b)),
                    mlp.forward_sparse(&SparseBoards::from_boards(&flipped)),
                    mlp.forward(&dense(&flipped)),
                )
            });
            let max = |a: &Tensor, b: &Tensor| (a - b).abs().max().double_value(&[]);
            assert!(max(&sparse, &full) < 1e-5, "{preset}: sparse vs dense");
            assert!(max(&sparse, &sparse_flip) < 1e-5, "{preset}: flip, sparse");
            assert!(max(&full, &full_flip) < 1e-5, "{preset}: flip, dense");
            // By hand for each board: the columns `ViewMaps` names, summed.
            let maps = ViewMaps::new(true);
            let (l0, l1) = (&mlp.layers[0], &mlp.layers[1]);
            let wt = l0.ws.transpose(0, 1);
            let act = |t: Tensor| t.clamp(0.0, 1.0).square();
            let mut unflipped = 0;
            for (i, board) in b.iter().enumerate().take(40) {
                let k = maps.block(board);
                let sum = |cols: Vec<i64>| {
                    wt.index_select(0, &Tensor::from_slice(&cols))
                        .sum_dim_intlist([0i64].as_slice(), false, Kind::Float)
                        + l0.bs.as_ref().expect("bias")
                };
                let own: Vec<i64> = board
                    .active_features()
                    .map(|f| maps.own(k, f) as i64)
                    .collect();
                let other: Vec<i64> = board
                    .active_features()
                    .map(|f| maps.other(k, f) as i64)
                    .collect();
                let all = tch::no_grad(|| {
                    Tensor::cat(&[act(sum(own)), act(sum(other))], 0)
                        .unsqueeze(0)
                        .linear(&l1.ws, l1.bs.as_ref())
                });
                let bucket = crate::net::output_bucket(
                    board.active_features().count(),
                    mlp.buckets as usize,
                );
                let want = -all.double_value(&[0, bucket as i64]);
                let got = full.double_value(&[i as i64]);
                assert!(
                    (got - want).abs() < 1e-5,
                    "{preset} board {i}: {got} vs {want}"
                );
                unflipped += usize::from(k != 3);
            }
            assert!(unflipped > 0, "the boards reach a block other than 3");
        }
    }

    #[test]
    fn a_mirrored_net_differs_from_the_plain_net_of_its_weights() {
        let plain_vs = nn::VarStore::new(Device::Cpu);
        let plain = seeded(9, || {
            Mlp::new(
                &plain_vs.root(),
                &Arch::preset("persp-256").expect("preset"),
            )
        });
        let hm_vs = nn::VarStore::new(Device::Cpu);
        let hm = seeded(9, || {
            Mlp::new(
                &hm_vs.root(),
                &Arch::preset("persp-256-hm").expect("preset"),
            )
        });
        let b = boards_of_every_stage();
        let (p, h) = tch::no_grad(|| (plain.forward(&dense(&b)), hm.forward(&dense(&b))));
        // The same weights (the same seed): only the mirroring tells them apart.
        assert!((&p - &h).abs().max().double_value(&[]) > 1e-3);
    }

    #[test]
    fn layout_lists_features_per_board_and_clear_keeps_nothing() {
        let b = boards(3);
        let mut s = SparseBoards::from_boards(&b);
        assert_eq!(s.len(), 3);
        assert_eq!(s.offsets[0], 0);
        assert_eq!(s.offsets[1], 2, "K vs K has two features");
        assert!(s.indices.iter().all(|&i| (0..768).contains(&i)));
        let (i, o) = s.to_tensors(Device::Cpu).expect("tensors");
        assert_eq!(i.kind(), Kind::Int64);
        assert_eq!(o.size(), vec![3]);
        s.clear();
        assert!(s.is_empty() && s.indices.is_empty());
    }

    /// The trainer runs this path with gradients: they must equal the dense path's.
    #[test]
    fn sparse_gradients_equal_dense_gradients() {
        for preset in ["small", "small-as", "persp-128", "persp-128-ob8"] {
            sparse_gradients_equal_dense_gradients_for(preset);
        }
    }

    fn sparse_gradients_equal_dense_gradients_for(preset: &str) {
        let vs = nn::VarStore::new(Device::Cpu);
        let arch = Arch::preset(preset).expect("preset exists");
        let mlp = seeded(9, || Mlp::new(&vs.root(), &arch));
        let b = boards(20);
        let grads = |loss: Tensor| {
            for l in &mlp.layers {
                let _ = l.ws.grad().f_zero_();
                if let Some(bias) = &l.bs {
                    let _ = bias.grad().f_zero_();
                }
            }
            loss.backward();
            let first = &mlp.layers[0];
            let bias = first.bs.as_ref().expect("bias");
            (first.ws.grad().copy(), bias.grad().copy())
        };
        let (w_sparse, b_sparse) = grads(
            mlp.forward_sparse(&SparseBoards::from_boards(&b))
                .sum(Kind::Float),
        );
        let (w_dense, b_dense) = grads(mlp.forward(&dense(&b)).sum(Kind::Float));
        let dw = (&w_sparse - &w_dense).abs().max().double_value(&[]);
        let db = (&b_sparse - &b_dense).abs().max().double_value(&[]);
        assert!(
            dw < 1e-5 && db < 1e-5,
            "{preset}: grad differences {dw} {db}"
        );
        assert!(w_dense.abs().sum(Kind::Float).double_value(&[]) > 0.0);
    }
}
