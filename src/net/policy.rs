//! ConvChess's policy nets (issue #8): a piece selector and six move selectors, each
//! 8×8 planes → softmax over 64 squares.
//!
//! Each of the seven nets is `convs` × [conv `filters` 3×3 "same", ReLU] → affine `hidden`,
//! ReLU → affine 64. The piece selector's 64 logits score the square a piece moves FROM;
//! move selector r's score the square a piece of role r moves TO. The input is the side to
//! move's view ([`Planes::Stm6`] as in the study, or [`Planes::Onehot12`]), so squares are
//! in the mover's frame: the board is mirrored when Black is to move, exactly as in the
//! labelled positions of `cerise data positions`.
//!
//! Tensors: `<head>.conv{i}.weight` [F, C_in, 3, 3], `<head>.conv{i}.bias` [F],
//! `<head>.fc1.weight` [H, F·64], `<head>.fc1.bias` [H], `<head>.fc2.weight` [64, H],
//! `<head>.fc2.bias` [64], for each head of [`HEADS`].

use super::{NetError, Planes};
use tch::{nn, TchError, Tensor};

/// The seven nets, in order: the piece selector, then the move selectors by role.
pub const HEADS: [&str; 7] = ["piece", "pawn", "knight", "bishop", "rook", "queen", "king"];

/// The shape of the seven nets (all seven share it), stored as the `layers` metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyArch {
    pub input: Planes,
    pub convs: i64,
    pub filters: i64,
    pub hidden: i64,
}

/// (name, spec) of the policy presets; `convchess` is the study's nets exactly, and
/// `convchess-768` changes only its input, to the 12 one-hot planes of the side to move.
pub const POLICY_PRESETS: &[(&str, &str)] = &[
    ("convchess", "in=stm6 convs=3 filters=32 fc=128"),
    ("convchess-768", "in=onehot12 convs=3 filters=32 fc=128"),
    ("convchess-wide", "in=onehot12 convs=3 filters=64 fc=256"),
];

impl PolicyArch {
    pub fn preset(name: &str) -> Option<Self> {
        POLICY_PRESETS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .and_then(|(_, spec)| Self::parse(spec).ok())
    }

    pub fn parse(spec: &str) -> Result<Self, NetError> {
        let bad = |reason: String| NetError::BadArch {
            widths: spec.to_string(),
            reason,
        };
        let (mut input, mut convs, mut filters, mut hidden) = (None, 0, 0, 0);
        for word in spec.split_whitespace() {
            let Some((key, value)) = word.split_once('=') else {
                return Err(bad(format!("'{word}' is not key=value")));
            };
            let number = || {
                value
                    .parse::<i64>()
                    .ok()
                    .filter(|&v| v > 0)
                    .ok_or_else(|| bad(format!("{word}: expected a positive integer")))
            };
            match key {
                "in" => {
                    input = match Planes::from_spec_name(value) {
                        Some(p @ (Planes::Stm6 | Planes::Onehot12)) => Some(p),
                        _ => return Err(bad(format!("{word}: expected stm6 or onehot12"))),
                    }
                }
                "convs" => convs = number()?,
                "filters" => filters = number()?,
                "fc" => hidden = number()?,
                _ => return Err(bad(format!("unknown key '{key}'"))),
            }
        }
        let input = input.ok_or_else(|| bad("missing in=<planes>".to_string()))?;
        if convs == 0 || filters == 0 || hidden == 0 {
            return Err(bad("convs, filters and fc are all required".to_string()));
        }
        Ok(PolicyArch {
            input,
            convs,
            filters,
            hidden,
        })
    }

    pub fn spec(&self) -> String {
        format!(
            "in={} convs={} filters={} fc={}",
            self.input.spec_name(),
            self.convs,
            self.filters,
            self.hidden
        )
    }

    /// Name and shape of every tensor, sorted by name.
    pub fn tensor_shapes(&self) -> Vec<(String, Vec<usize>)> {
        let (f, h) = (self.filters as usize, self.hidden as usize);
        let mut out = Vec::new();
        for head in HEADS {
            for i in 0..self.convs as usize {
                let inputs = if i == 0 { self.input.channels() } else { f };
                out.push((format!("{head}.conv{i}.weight"), vec![f, inputs, 3, 3]));
                out.push((format!("{head}.conv{i}.bias"), vec![f]));
            }
            out.push((format!("{head}.fc1.weight"), vec![h, f * 64]));
            out.push((format!("{head}.fc1.bias"), vec![h]));
            out.push((format!("{head}.fc2.weight"), vec![64, h]));
            out.push((format!("{head}.fc2.bias"), vec![64]));
        }
        out.sort();
        out
    }
}

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
        let (conv_config, linear_config) = super::init::layer_configs(zero);
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
    use crate::net::init::seeded;
    use tch::{Device, Kind};

    #[test]
    fn the_study_nets_have_the_published_shape() {
        let arch = PolicyArch::preset("convchess").expect("preset");
        assert_eq!(arch.input, Planes::Stm6);
        assert_eq!((arch.convs, arch.filters, arch.hidden), (3, 32, 128));
        for (name, spec) in POLICY_PRESETS {
            let a = PolicyArch::parse(spec).expect("preset parses");
            assert_eq!(PolicyArch::parse(&a.spec()).ok(), Some(a), "{name}");
        }
        let err = |spec: &str| PolicyArch::parse(spec).expect_err(spec).to_string();
        assert!(err("in=mocha7 convs=3 filters=32 fc=128").contains("stm6 or onehot12"));
        assert!(err("in=stm6 convs=0 filters=32 fc=128").contains("positive"));
        assert!(err("in=stm6 filters=32 fc=128").contains("required"));
    }

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
