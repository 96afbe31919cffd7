//! The libtorch module of a net of any family, built from its [`ModelArch`].

use super::{Cnn, Mlp, ModelArch, Policy};
use tch::{nn, TchError, Tensor};

#[derive(Debug)]
pub enum NetModule {
    Mlp(Mlp),
    /// Boxed: its layers are many handles, and an MLP should not carry that size.
    Cnn(Box<Cnn>),
    Policy(Box<Policy>),
}

impl NetModule {
    /// Fresh weights, drawn from libtorch's global RNG (wrap in `seed::seeded`).
    pub fn new(vs: &nn::Path, arch: &ModelArch) -> Self {
        match arch {
            ModelArch::Mlp(a) => NetModule::Mlp(Mlp::new(vs, a)),
            ModelArch::Cnn(c) => NetModule::Cnn(Box::new(Cnn::new(vs, c))),
            ModelArch::Policy(p) => NetModule::Policy(Box::new(Policy::new(vs, p))),
        }
    }

    /// Zero weights to load a file into; draws nothing from the RNG.
    pub fn zeroed(vs: &nn::Path, arch: &ModelArch) -> Self {
        match arch {
            ModelArch::Mlp(a) => NetModule::Mlp(Mlp::zeroed(vs, a)),
            ModelArch::Cnn(c) => NetModule::Cnn(Box::new(Cnn::zeroed(vs, c))),
            ModelArch::Policy(p) => NetModule::Policy(Box::new(Policy::zeroed(vs, p))),
        }
    }

    /// Raw outputs `[N]` of a dense input `[N, arch.input_width()]`, in inference mode; the
    /// sign convention is the family's (`ModelArch::raw_sign`). A policy scores moves, not
    /// positions, and answers with an error.
    pub fn f_forward(&self, x: &Tensor) -> Result<Tensor, TchError> {
        match self {
            NetModule::Mlp(m) => m.f_forward(x),
            NetModule::Cnn(c) => c.f_forward(x),
            NetModule::Policy(_) => Err(TchError::Shape(
                "a policy net scores moves, not positions".to_string(),
            )),
        }
    }

    pub fn mlp(&self) -> Option<&Mlp> {
        match self {
            NetModule::Mlp(m) => Some(m),
            NetModule::Cnn(_) | NetModule::Policy(_) => None,
        }
    }
}
