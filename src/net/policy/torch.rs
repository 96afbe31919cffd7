//! The libtorch module of a [`PolicyArch`]: seven nets of the same shape.

use super::{PolicyArch, HEADS};
use tch::{nn, TchError, Tensor};

/// One of the seven nets.
#[derive(Debug)]
struct Head {
    convs: Vec<nn::Conv2D>,
    fc1: nn::Linear,
    fc2: nn::Linear,
}

/// The libtorch module of a [`PolicyArch`]: all seven nets.
#[derive(Debug)]
pub struct Policy {
    pub arch: PolicyArch,
    heads: Vec<Head>,
}

impl Policy {
    /// Fresh weights. The study used small initial weights; libtorch's default
    /// (Kaiming-uniform) initialisation is small for these fan-ins.
    pub fn new(vs: &nn::Path, arch: &PolicyArch) -> Self {
        Self::build(vs, arch, false)
    }

    /// Zero weights to load a file into; draws nothing from the RNG.
    pub fn zeroed(vs: &nn::Path, arch: &PolicyArch) -> Self {
        Self::build(vs, arch, true)
    }

    fn build(vs: &nn::Path, arch: &PolicyArch, zero: bool) -> Self {
        let (conv_config, linear_config) = crate::net::init::layer_configs(zero);
        // "Same" convolutions: a 3×3 kernel keeps the 8×8 map with one square of padding.
        let conv_config = nn::ConvConfig {
            padding: 1,
            ..conv_config
        };
        let heads = HEADS
            .iter()
            .map(|name| {
                let p = vs / *name;
                let convs = (0..arch.convs)
                    .map(|i| {
                        let inputs = if i == 0 {
                            arch.input.channels() as i64
                        } else {
                            arch.filters
                        };
                        nn::conv2d(
                            &p / format!("conv{i}"),
                            inputs,
                            arch.filters,
                            3,
                            conv_config,
                        )
                    })
                    .collect();
                let fc1 = nn::linear(&p / "fc1", arch.filters * 64, arch.hidden, linear_config);
                let fc2 = nn::linear(&p / "fc2", arch.hidden, 64, linear_config);
                Head { convs, fc1, fc2 }
            })
            .collect();
        Policy {
            arch: arch.clone(),
            heads,
        }
    }

    /// `[N, C·64]` planes → `[N, 64]` logits of head `head` (an index into [`HEADS`]).
    pub fn f_forward_head(&self, x: &Tensor, head: usize) -> Result<Tensor, TchError> {
        let h = self
            .heads
            .get(head)
            .ok_or_else(|| TchError::Shape(format!("no policy head {head}")))?;
        let n = x.size()[0];
        let mut y = x.f_view([n, self.arch.input.channels() as i64, 8, 8])?;
        for conv in &h.convs {
            y = y
                .f_conv2d(&conv.ws, conv.bs.as_ref(), [1, 1], [1, 1], [1, 1], 1)?
                .f_relu()?;
        }
        y.f_flatten(1, -1)?
            .f_linear(&h.fc1.ws, h.fc1.bs.as_ref())?
            .f_relu()?
            .f_linear(&h.fc2.ws, h.fc2.bs.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::seed::seeded;
    use tch::{Device, Kind};

    #[test]
    fn each_head_maps_planes_to_64_logits_with_the_file_shapes() {
        let arch = PolicyArch::preset("convchess").expect("preset");
        let vs = nn::VarStore::new(Device::Cpu);
        let (policy, x) = seeded(1, || {
            let p = Policy::new(&vs.root(), &arch);
            (p, Tensor::rand([3, 6 * 64], (Kind::Float, Device::Cpu)))
        });
        for (head, name) in HEADS.iter().enumerate() {
            let y = tch::no_grad(|| policy.f_forward_head(&x, head)).expect("forward");
            assert_eq!(y.size(), vec![3, 64], "{name}");
        }
        assert!(policy.f_forward_head(&x, 7).is_err());
        let vars = vs.variables();
        let shapes = arch.tensor_shapes();
        assert_eq!(vars.len(), shapes.len());
        assert_eq!(shapes.len(), 7 * (2 * 3 + 4));
        for (name, shape) in shapes {
            let want: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            assert_eq!(vars[&name].size(), want, "{name}");
        }
        // The heads are separate nets: different weights give different logits.
        let a = tch::no_grad(|| policy.f_forward_head(&x, 0)).expect("forward");
        let b = tch::no_grad(|| policy.f_forward_head(&x, 1)).expect("forward");
        assert!((a - b).abs().max().double_value(&[]) > 0.0);
    }
}
