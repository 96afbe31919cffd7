//! The libtorch module of a [`CnnArch`]: the layers and forward pass.

use super::{CnnArch, FcAct};
use tch::{nn, TchError, Tensor};

/// The libtorch module of a [`CnnArch`].
#[derive(Debug)]
pub struct Cnn {
    pub arch: CnnArch,
    conv1: nn::Conv2D,
    conv2: nn::Conv2D,
    bn: Option<(nn::BatchNorm, nn::BatchNorm)>,
    fc1: nn::Linear,
    fc2: nn::Linear,
}

impl Cnn {
    /// Fresh weights: libtorch's default initialisation, batch-norm scales at 1.
    pub fn new(vs: &nn::Path, arch: &CnnArch) -> Self {
        Self::build(vs, arch, false)
    }

    /// Every parameter zero (running variances one), for loading weights into: unlike
    /// [`Cnn::new`] it draws nothing from libtorch's global RNG.
    pub fn zeroed(vs: &nn::Path, arch: &CnnArch) -> Self {
        Self::build(vs, arch, true)
    }

    fn build(vs: &nn::Path, arch: &CnnArch, zero: bool) -> Self {
        let (conv_config, linear_config) = crate::net::init::layer_configs(zero);
        let c = arch.input.channels() as i64;
        let conv1 = nn::conv2d(vs / "conv1", c, arch.conv1.0, arch.conv1.1, conv_config);
        let conv2 = nn::conv2d(
            vs / "conv2",
            arch.conv1.0,
            arch.conv2.0,
            arch.conv2.1,
            conv_config,
        );
        let bn = arch.batch_norm.then(|| {
            let config = nn::BatchNormConfig {
                ws_init: nn::Init::Const(if zero { 0.0 } else { 1.0 }),
                ..Default::default()
            };
            (
                nn::batch_norm2d(vs / "bn1", arch.conv1.0, config),
                nn::batch_norm2d(vs / "bn2", arch.conv2.0, config),
            )
        });
        let fc1 = nn::linear(vs / "fc1", arch.flat(), arch.hidden, linear_config);
        let fc2 = nn::linear(vs / "fc2", arch.hidden, 1, linear_config);
        Cnn {
            arch: arch.clone(),
            conv1,
            conv2,
            bn,
            fc1,
            fc2,
        }
    }

    /// `[N, C·64]` (or `[N, C, 8, 8]`) planes → `[N]` logits. `train` switches dropout and
    /// batch statistics on.
    pub fn f_forward_t(&self, x: &Tensor, train: bool) -> Result<Tensor, TchError> {
        let n = x.size()[0];
        let c = self.arch.input.channels() as i64;
        let mut h = x.f_view([n, c, 8, 8])?;
        let conv = |h: &Tensor, conv: &nn::Conv2D| {
            h.f_conv2d(&conv.ws, conv.bs.as_ref(), [1, 1], [0, 0], [1, 1], 1)
        };
        let norm = |h: Tensor, bn: Option<&nn::BatchNorm>| -> Result<Tensor, TchError> {
            let Some(bn) = bn else { return Ok(h) };
            h.f_batch_norm(
                bn.ws.as_ref(),
                bn.bs.as_ref(),
                Some(&bn.running_mean),
                Some(&bn.running_var),
                train,
                0.1,
                1e-5,
                true,
            )
        };
        let relu = |h: Tensor| {
            if self.arch.conv_relu {
                h.f_relu()
            } else {
                Ok(h)
            }
        };
        h = relu(norm(
            conv(&h, &self.conv1)?,
            self.bn.as_ref().map(|b| &b.0),
        )?)?;
        if self.arch.pool {
            h = h.f_max_pool2d([2, 2], [2, 2], [0, 0], [1, 1], true)?;
        }
        h = relu(norm(
            conv(&h, &self.conv2)?,
            self.bn.as_ref().map(|b| &b.1),
        )?)?;
        h = h
            .f_flatten(1, -1)?
            .f_linear(&self.fc1.ws, self.fc1.bs.as_ref())?;
        h = match self.arch.fc_act {
            FcAct::Sigmoid => h.f_sigmoid()?,
            FcAct::Relu => h.f_relu()?,
        };
        if train && self.arch.dropout > 0.0 {
            h = h.f_dropout(self.arch.dropout, true)?;
        }
        h.f_linear(&self.fc2.ws, self.fc2.bs.as_ref())?
            .f_squeeze_dim(-1)
    }

    /// Inference: no dropout, running batch-norm statistics.
    pub fn f_forward(&self, x: &Tensor) -> Result<Tensor, TchError> {
        self.f_forward_t(x, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::cnn::CNN_PRESETS;
    use crate::net::seed::seeded;
    use tch::{Device, Kind};

    #[test]
    fn forward_gives_one_logit_per_board_and_the_file_shapes() {
        for (name, _) in CNN_PRESETS {
            let arch = CnnArch::preset(name).expect("preset");
            let vs = nn::VarStore::new(Device::Cpu);
            let (cnn, x) = seeded(2, || {
                let cnn = Cnn::new(&vs.root(), &arch);
                let w = arch.input.width() as i64;
                (cnn, Tensor::rand([5, w], (Kind::Float, Device::Cpu)))
            });
            let y = tch::no_grad(|| cnn.f_forward(&x)).expect("forward");
            assert_eq!(y.size(), vec![5], "{name}");
            let vars = vs.variables();
            let shapes = arch.tensor_shapes();
            assert_eq!(vars.len(), shapes.len(), "{name}");
            for (tensor, shape) in shapes {
                let want: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
                assert_eq!(vars[&tensor].size(), want, "{name} {tensor}");
            }
            // Inference is deterministic (no dropout); training mode is not, with dropout.
            let again = tch::no_grad(|| cnn.f_forward(&x)).expect("forward");
            assert_eq!((&y - &again).abs().max().double_value(&[]), 0.0);
        }
    }
}
