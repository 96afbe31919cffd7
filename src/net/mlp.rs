//! The Deep Pink multilayer perceptron: 768 one-hot inputs, ReLU hidden layers, one output.
//!
//! SIGN CONVENTION (defined here only): the raw output f(x) scores the position for the side
//! that JUST MOVED, which is what Deep Pink's training objective learns. A `CompactBoard` is
//! seen from the side to move, so the centipawn score for the side to move is
//! `-f(x) * cp_per_unit`, where `cp_per_unit` is stored in the net file (default 100.0).

use super::Arch;
use tch::{nn, TchError, Tensor};

/// Layer `i` lives at `<path>/l{i}` (tensors `l{i}.weight` [out, in] and `l{i}.bias` [out]);
/// the trainer and the file format rely on these names.
#[derive(Debug)]
pub struct Mlp {
    pub layers: Vec<nn::Linear>,
}

impl Mlp {
    pub fn new(vs: &nn::Path, arch: &Arch) -> Self {
        let layers = arch
            .widths
            .windows(2)
            .enumerate()
            .map(|(i, w)| nn::linear(vs / format!("l{i}"), w[0], w[1], Default::default()))
            .collect();
        Mlp { layers }
    }

    /// The same layers with every parameter zero, for loading weights into: unlike
    /// [`Mlp::new`] it draws nothing from libtorch's global RNG.
    pub fn zeroed(vs: &nn::Path, arch: &Arch) -> Self {
        let config = nn::LinearConfig {
            ws_init: nn::Init::Const(0.0),
            bs_init: Some(nn::Init::Const(0.0)),
            bias: true,
        };
        let layers = arch
            .widths
            .windows(2)
            .enumerate()
            .map(|(i, w)| nn::linear(vs / format!("l{i}"), w[0], w[1], config))
            .collect();
        Mlp { layers }
    }

    /// [N, 768] f32 -> [N] f32 raw scores (see the sign convention above).
    pub fn f_forward(&self, x: &Tensor) -> Result<Tensor, TchError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::init::seeded;
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
