//! Creating a fresh, randomly initialised net file.

use super::seed::seeded;
use super::{file, NetError, NetMeta, NetModule};
use std::path::Path;
use tch::nn::VarStore;

/// A net of `preset` with weights drawn under seed 0, held in memory: for timing, where
/// the weights do not change the speed.
pub fn fresh(preset: &str) -> Result<super::NetFile, NetError> {
    let meta = NetMeta::for_preset(preset)?;
    let vs = VarStore::new(tch::Device::Cpu);
    let _net = seeded(0, || NetModule::new(&vs.root(), &meta.arch));
    super::NetFile::from_varstore(meta, &vs)
}

/// Writes a net of `preset` with weights drawn from libtorch's default initialisation under
/// `seed`; the same preset and seed give a byte-identical file (for one libtorch version).
/// Returns the file's content id.
pub fn init_net(preset: &str, seed: u64, out: &Path) -> Result<String, NetError> {
    let meta = NetMeta::for_preset(preset)?;
    let vs = seeded(seed, || {
        let vs = VarStore::new(tch::Device::Cpu);
        NetModule::new(&vs.root(), &meta.arch);
        vs
    });
    file::save(out, &meta, &vs)
}

/// Convolution and linear layer configs: libtorch's defaults for fresh weights, or every
/// weight and bias zero (`zero`) for a module that a file's weights will be copied into, so
/// that building it draws nothing from the global RNG.
pub(crate) fn layer_configs(zero: bool) -> (tch::nn::ConvConfig, tch::nn::LinearConfig) {
    if !zero {
        return (Default::default(), Default::default());
    }
    let zeros = tch::nn::Init::Const(0.0);
    let conv = tch::nn::ConvConfig {
        ws_init: zeros,
        bs_init: zeros,
        ..Default::default()
    };
    let linear = tch::nn::LinearConfig {
        ws_init: zeros,
        bs_init: Some(zeros),
        bias: true,
    };
    (conv, linear)
}
