//! The Deep Pink multilayer perceptron: 768 one-hot inputs, ReLU hidden layers, one output.
//!
//! SIGN CONVENTION (defined here only): the raw output f(x) scores the position for the side
//! that JUST MOVED, which is what Deep Pink's training objective learns. A `CompactBoard` is
//! seen from the side to move, so the centipawn score for the side to move is
//! `-f(x) * cp_per_unit`, where `cp_per_unit` is stored in the net file (default 100.0).

use super::buckets::MAX_PIECES;
use super::mirror::{flip_file, ViewMaps};
use super::{Arch, Form};
use crate::chess::{swap_sides_feature, ENCODING_WIDTH};
use tch::{nn, Kind, TchError, Tensor};

/// Layer `i` lives at `<path>/l{i}` (tensors `l{i}.weight` [out, in] and `l{i}.bias` [out]);
/// the trainer and the file format rely on these names. The antisymmetric form adds
/// `psqt.weight` [1, 768].
#[derive(Debug)]
pub struct Mlp {
    pub layers: Vec<nn::Linear>,
    pub antisym: Option<Antisym>,
    /// [`Form::Perspective`]: what each view reads.
    pub perspective: Option<PerspViews>,
    /// Output buckets ([`Arch::output_buckets`]): 1 but in a bucketed perspective net.
    pub buckets: i64,
}

/// The feature permutation that swaps sides, as int64 on `device`.
fn swap_tensor(device: tch::Device) -> Tensor {
    let swap: Vec<i64> = (0..ENCODING_WIDTH)
        .map(|f| swap_sides_feature(f) as i64)
        .collect();
    Tensor::from_slice(&swap).to_device(device)
}

/// What the two views of a perspective net read, as int64 tensors on the model's device.
#[derive(Debug)]
pub struct PerspViews {
    /// `swap[k]` is feature k seen with the other side to move: the other view's features.
    pub swap: Tensor,
    /// A king-file mirrored net (`net::mirror`): the columns each view reads by (block,
    /// feature) row, `ViewMaps`' `own` and `other` [4 · 768], and the file flip [768].
    pub mirror: Option<MirrorTensors>,
}

#[derive(Debug)]
pub struct MirrorTensors {
    pub own: Tensor,
    pub other: Tensor,
    pub flip: Tensor,
}

impl PerspViews {
    fn new(king_mirror: bool, device: tch::Device) -> Self {
        let mirror = king_mirror.then(|| {
            let maps = ViewMaps::new(true);
            let t = |v: &[u16]| {
                let v: Vec<i64> = v.iter().map(|&x| i64::from(x)).collect();
                Tensor::from_slice(&v).to_device(device)
            };
            let flip: Vec<i64> = (0..ENCODING_WIDTH).map(|f| flip_file(f) as i64).collect();
            MirrorTensors {
                own: t(&maps.own),
                other: t(&maps.other),
                flip: Tensor::from_slice(&flip).to_device(device),
            }
        });
        PerspViews {
            swap: swap_tensor(device),
            mirror,
        }
    }
}

/// Whether each board's side to move has its king on files e–h, from dense boards [N, 768]
/// (bool [N, 1]): the king plane's columns of files e–h summed.
fn king_right_dense(x: &Tensor) -> Result<Tensor, TchError> {
    x.f_narrow(1, 5 * 64, 64)?
        .f_view([-1, 8, 8])?
        .f_narrow(2, 4, 4)?
        .f_sum_dim_intlist([1i64, 2].as_slice(), false, Kind::Float)?
        .f_gt(0.5)?
        .f_unsqueeze(1)
}

/// `x` [N, 768] with every row whose `flag` is set read king-file flipped.
fn flip_where(x: &Tensor, flag: &Tensor, flip: &Tensor) -> Result<Tensor, TchError> {
    x.f_index_select(1, flip)?.f_where_self(flag, x)
}
/// [`super::output_bucket`] of every board of a batch, from its piece count (int64 [N]):
/// the same integer arithmetic in tensor ops, so that libtorch and the native code pick the
/// same output row. Counts below 2 fall in bucket 0, as `saturating_sub` makes them there.
pub fn bucket_index(pieces: &Tensor, buckets: i64) -> Result<Tensor, TchError> {
    pieces
        .f_sub_scalar(2)?
        .f_div_scalar_mode(MAX_PIECES as i64 / buckets, "floor")?
        .f_clamp(0, buckets - 1)
}

/// SCReLU: clamp(x, 0, 1)², the activation of the perspective form.
fn screlu(x: &Tensor) -> Result<Tensor, TchError> {
    x.f_clamp(0.0, 1.0)?.f_square()
}

/// The extra state of [`Form::Antisym`].
#[derive(Debug)]
pub struct Antisym {
    /// The linear piece-square term, a trainable parameter.
    pub psqt: Tensor,
    /// `swap[k]` is feature k seen with the other side to move (int64, on the model's
    /// device); a constant, not a parameter.
    swap: Tensor,
}

/// Classical piece values in pawns (P, N, B, R, Q, K), the starting `psqt`: f then begins as
/// the material balance of the side that just moved, in units of `cp_per_unit` (100) cp.
const START_PIECE_VALUES: [f32; 6] = [1.0, 3.0, 3.0, 5.0, 9.0, 0.0];

impl Antisym {
    fn new(vs: &nn::Path, init: bool) -> Self {
        let psqt = if init {
            let mut w = vec![0f32; ENCODING_WIDTH];
            for (plane, chunk) in w.chunks_exact_mut(64).enumerate() {
                // Planes 0-5 are the side to move's pieces, 6-11 those of the side that just
                // moved, for whom f scores; h(x) - h(swap x) doubles each half.
                let value = START_PIECE_VALUES[plane % 6] / 2.0;
                chunk.fill(if plane < 6 { -value } else { value });
            }
            let t = Tensor::from_slice(&w).view([1, ENCODING_WIDTH as i64]);
            (vs / "psqt").var_copy("weight", &t)
        } else {
            (vs / "psqt").zeros("weight", &[1, ENCODING_WIDTH as i64])
        };
        let swap = swap_tensor(vs.device());
        Antisym { psqt, swap }
    }
}

impl Mlp {
    pub fn new(vs: &nn::Path, arch: &Arch) -> Self {
        Self::build(vs, arch, Default::default(), true)
    }

    fn build(vs: &nn::Path, arch: &Arch, config: nn::LinearConfig, init: bool) -> Self {
        let layers = arch
            .layer_dims()
            .into_iter()
            .enumerate()
            .map(|(i, (inp, out))| nn::linear(vs / format!("l{i}"), inp as i64, out as i64, config))
            .collect();
        let antisym = (arch.form == Form::Antisym).then(|| Antisym::new(vs, init));
        let perspective = (arch.form == Form::Perspective)
            .then(|| PerspViews::new(arch.king_mirror, vs.device()));
        Mlp {
            layers,
            antisym,
            perspective,
            buckets: arch.output_buckets() as i64,
        }
    }

    /// The same layers with every parameter zero, for loading weights into: unlike
    /// [`Mlp::new`] it draws nothing from libtorch's global RNG.
    pub fn zeroed(vs: &nn::Path, arch: &Arch) -> Self {
        let config = nn::LinearConfig {
            ws_init: nn::Init::Const(0.0),
            bs_init: Some(nn::Init::Const(0.0)),
            bias: true,
        };
        Self::build(vs, arch, config, false)
    }

    /// Whether this is a king-file mirrored perspective net (`net::mirror`).
    pub fn king_mirror(&self) -> bool {
        self.perspective
            .as_ref()
            .is_some_and(|p| p.mirror.is_some())
    }

    /// [N, 768] f32 -> [N] f32 raw scores (see the sign convention above).
    pub fn f_forward(&self, x: &Tensor) -> Result<Tensor, TchError> {
        if let Some(views) = &self.perspective {
            let first = &self.layers[0];
            let mut own_in = x.shallow_clone();
            let mut other_in = x.f_index_select(1, &views.swap)?;
            if let Some(m) = &views.mirror {
                own_in = flip_where(&own_in, &king_right_dense(&own_in)?, &m.flip)?;
                other_in = flip_where(&other_in, &king_right_dense(&other_in)?, &m.flip)?;
            }
            let own = own_in.f_linear(&first.ws, first.bs.as_ref())?;
            let other = other_in.f_linear(&first.ws, first.bs.as_ref())?;
            // A board's pieces are its set inputs (one-hot, so the float sum is exact).
            let pieces = match self.buckets {
                1 => None,
                _ => Some(
                    x.f_sum_dim_intlist(1, false, Kind::Float)?
                        .f_round()?
                        .f_to_kind(Kind::Int64)?,
                ),
            };
            return self.f_perspective_head(&own, &other, pieces.as_ref());
        }
        let Some(a) = &self.antisym else {
            return self.f_forward_layers(x);
        };
        // Both sides' views in one batch: one pass through the layers instead of two.
        let (n, _) = x.size2()?;
        let both = Tensor::f_cat(&[x, &x.f_index_select(1, &a.swap)?], 0)?;
        let linear = both
            .f_matmul(&a.psqt.f_transpose(0, 1)?)?
            .f_squeeze_dim(-1)?;
        let h = self.f_forward_layers(&both)?.f_add(&linear)?;
        h.f_narrow(0, 0, n)?.f_sub(&h.f_narrow(0, n, n)?)
    }

    /// The same for a sparse batch (see [`super::SparseBoards`] for the layout).
    pub(super) fn f_antisym_sparse(
        &self,
        a: &Antisym,
        indices: &Tensor,
        offsets: &Tensor,
    ) -> Result<Tensor, TchError> {
        let n = offsets.size1()?;
        let count = indices.size1()?;
        let both_indices = Tensor::f_cat(&[indices, &a.swap.f_index_select(0, indices)?], 0)?;
        let both_offsets = Tensor::f_cat(&[offsets, &offsets.f_add_scalar(count)?], 0)?;
        let linear =
            bag_sum(&a.psqt.f_transpose(0, 1)?, &both_indices, &both_offsets)?.f_squeeze_dim(-1)?;
        let h = self
            .f_forward_layers_sparse(&both_indices, &both_offsets)?
            .f_add(&linear)?;
        h.f_narrow(0, 0, n)?.f_sub(&h.f_narrow(0, n, n)?)
    }

    /// f of the perspective form from the first layer's two views, [N, H] each, and, with
    /// output buckets, each board's piece count (int64 [N]; `None` for a single output).
    /// Every bucket's output is computed, [N, B], and each board keeps its own bucket's.
    pub(super) fn f_perspective_head(
        &self,
        own: &Tensor,
        other: &Tensor,
        pieces: Option<&Tensor>,
    ) -> Result<Tensor, TchError> {
        self.f_perspective_out(&Tensor::f_cat(&[own, other], 1)?, pieces)
    }

    /// [`Mlp::f_perspective_head`] from both views side by side, [N, 2H] (own, then other):
    /// the trainer's perspective step builds them so.
    pub fn f_perspective_out(
        &self,
        views: &Tensor,
        pieces: Option<&Tensor>,
    ) -> Result<Tensor, TchError> {
        let out = &self.layers[1];
        let outputs = screlu(views)?.f_linear(&out.ws, out.bs.as_ref())?;
        let f = match pieces {
            None => outputs.f_squeeze_dim(-1)?,
            Some(p) => {
                let bucket = bucket_index(p, self.buckets)?.f_unsqueeze(1)?;
                outputs.f_gather(1, &bucket, false)?.f_squeeze_dim(1)?
            }
        };
        f.f_neg()
    }

    /// The layers alone: the whole of f in the plain form, h without `psqt` otherwise.
    fn f_forward_layers(&self, x: &Tensor) -> Result<Tensor, TchError> {
        let mut h = x.shallow_clone();
        let last = self.layers.len().saturating_sub(1);
        for (i, layer) in self.layers.iter().enumerate() {
            h = h.f_linear(&layer.ws, layer.bs.as_ref())?;
            if i < last {
                h = h.f_relu()?;
            }
        }
        h.f_squeeze_dim(-1)
    }

    /// Panicking form for training code, where a shape error is a bug.
    pub fn forward(&self, x: &Tensor) -> Tensor {
        match self.f_forward(x) {
            Ok(t) => t,
            Err(e) => panic!("Mlp::forward failed: {e}"),
        }
    }
}

/// Per bag, the sum of the rows of `table` [768, H] that its indices name: [bags, H] (the
/// sparse first layer, here so that `sparse`, which extends `Mlp`, is the one that uses it).
pub(super) fn bag_sum(
    table: &Tensor,
    indices: &Tensor,
    offsets: &Tensor,
) -> Result<Tensor, TchError> {
    let (sum, _, _, _) = Tensor::f_embedding_bag(
        table,
        indices,
        offsets,
        false,
        0,
        false,
        None::<Tensor>,
        false,
    )?;
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::seed::seeded;
    use tch::{Device, Kind};

    #[test]
    fn names_and_shapes_follow_the_arch() {
        let vs = nn::VarStore::new(Device::Cpu);
        let arch = Arch::preset("small").expect("preset exists");
        let mlp = seeded(1, || Mlp::new(&vs.root(), &arch));
        assert_eq!(mlp.layers.len(), 3);
        let vars = vs.variables();
        for (name, shape) in arch.tensor_shapes() {
            let t = vars.get(&name).unwrap_or_else(|| panic!("{name} missing"));
            let want: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            assert_eq!(t.size(), want, "{name}");
        }
        assert_eq!(vars.len(), arch.tensor_shapes().len());
    }

    fn encode(fens: &[&str]) -> Tensor {
        let mut x = vec![0f32; fens.len() * ENCODING_WIDTH];
        for (fen, row) in fens.iter().zip(x.chunks_exact_mut(ENCODING_WIDTH)) {
            let pos = crate::chess::Position::from_fen(fen).expect("valid fen");
            pos.compact().encode_into(row);
        }
        Tensor::from_slice(&x).view([fens.len() as i64, ENCODING_WIDTH as i64])
    }

    #[test]
    fn antisymmetric_form_is_zero_sum_and_starts_from_material() {
        let vs = nn::VarStore::new(Device::Cpu);
        let arch = Arch::preset("small-as").expect("preset exists");
        let mlp = seeded(3, || Mlp::new(&vs.root(), &arch));
        // Each board, then the same board with the other side to move.
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 4 4",
            "4k3/8/8/8/8/8/8/QQQ1K3 b - - 0 1",
            "4k3/8/8/8/8/8/8/QQQ1K3 w - - 0 1",
        ];
        let f = tch::no_grad(|| mlp.forward(&encode(&fens)));
        let mut got = [0f32; 5];
        f.copy_data(&mut got, 5);
        assert!(got[0].abs() < 1e-5, "the start is symmetric: {}", got[0]);
        assert!((got[1] + got[2]).abs() < 1e-4, "{got:?}");
        assert!((got[3] + got[4]).abs() < 1e-4, "{got:?}");
        // Black to move against three queens: f scores for White, who just moved. The psqt
        // term alone is +27 pawns; the random layers add far less.
        assert!(got[3] > 20.0, "{got:?}");
        let psqt = &mlp.antisym.as_ref().expect("antisym").psqt;
        let linear = tch::no_grad(|| {
            let x = encode(&fens[3..4]);
            let xs = x.index_select(1, &mlp.antisym.as_ref().expect("antisym").swap);
            (x - xs).matmul(&psqt.transpose(0, 1)).double_value(&[0, 0])
        });
        assert!((linear - 27.0).abs() < 1e-4, "{linear}");
    }

    #[test]
    fn forward_maps_batch_to_scalars_and_applies_relu() {
        let vs = nn::VarStore::new(Device::Cpu);
        let arch = Arch::new(vec![768, 2, 1]).expect("valid arch");
        let mlp = seeded(1, || Mlp::new(&vs.root(), &arch));
        // Hidden unit 0 computes +sum(x), unit 1 computes -sum(x); the output adds both.
        let w0 = Tensor::ones([2, 768], (Kind::Float, Device::Cpu));
        let _ = w0.get(1).fill_(-1.0);
        let params = [
            (&mlp.layers[0].ws, w0),
            (
                mlp.layers[0].bs.as_ref().expect("bias"),
                Tensor::zeros([2], (Kind::Float, Device::Cpu)),
            ),
            (
                &mlp.layers[1].ws,
                Tensor::ones([1, 2], (Kind::Float, Device::Cpu)),
            ),
            (
                mlp.layers[1].bs.as_ref().expect("bias"),
                Tensor::from_slice(&[0.5f32]),
            ),
        ];
        tch::no_grad(|| {
            for (var, value) in params {
                var.shallow_clone().copy_(&value);
            }
        });
        let mut x = vec![0f32; 2 * 768];
        x[..3].fill(1.0);
        let input = Tensor::from_slice(&x).view([2, 768]);
        let out = tch::no_grad(|| mlp.forward(&input));
        assert_eq!(out.size(), vec![2]);
        let mut got = [0f32; 2];
        out.copy_data(&mut got, 2);
        // relu(3) + relu(-3) + 0.5 and relu(0) + relu(0) + 0.5
        assert_eq!(got, [3.5, 0.5]);
    }
}
