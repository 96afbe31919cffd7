//! The convolutional win/loss family (issue #7): the Mocha.jl study's net and its variants.
//!
//! conv1 (valid) → [batch norm] → [ReLU] → [2×2 max-pool, stride 2, ceil] → conv2 (valid) →
//! [batch norm] → [ReLU] → fully connected `hidden` with sigmoid or ReLU → [dropout in
//! training] → fully connected 1. The output is a logit: the log-odds that the labelled
//! side wins (White for [`Planes::Mocha7Abs`], else the side to move; see `planes`).
//!
//! The study's net is `in=mocha7 c1=400x4 pool c2=200x2 fc=70 fc_act=sigmoid dropout=0.2`
//! with no activation after the convolutions (Mocha's default neuron is the identity), so its
//! only non-linearities are the pooling and the sigmoid.
//!
//! Tensors: `conv1.weight` [F1, C, k1, k1], `conv1.bias` [F1], `conv2.*`, `fc1.weight`
//! [H, F2·s·s], `fc1.bias`, `fc2.weight` [1, H], `fc2.bias` [1], and with batch norm
//! `bn{1,2}.weight`, `.bias`, `.running_mean`, `.running_var` [F].

use super::{NetError, Planes};

// The libtorch module built from a [`CnnArch`]; the shape itself needs no libtorch.
#[cfg(feature = "torch")]
mod torch;
#[cfg(feature = "torch")]
pub use torch::Cnn;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FcAct {
    Sigmoid,
    Relu,
}

/// The shape and options of a convolutional net, stored as the `layers` metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct CnnArch {
    pub input: Planes,
    /// Filters and square kernel size of the first convolution.
    pub conv1: (i64, i64),
    pub pool: bool,
    pub conv2: (i64, i64),
    pub hidden: i64,
    pub fc_act: FcAct,
    /// ReLU after each convolution (the study had none).
    pub conv_relu: bool,
    pub batch_norm: bool,
    /// Dropout after the hidden layer, in training only.
    pub dropout: f64,
}

/// (name, spec) of the convolutional presets. `mocha` is the study's net exactly; the others
/// are the variants tried to beat it.
pub const CNN_PRESETS: &[(&str, &str)] = &[
    (
        "mocha",
        "in=mocha7 c1=400x4 pool c2=200x2 fc=70 fc_act=sigmoid dropout=0.2",
    ),
    (
        "mocha-relu-bn",
        "in=mocha7 c1=400x4 pool c2=200x2 fc=70 fc_act=relu conv_relu bn dropout=0.2",
    ),
    (
        "mocha-stm",
        "in=onehot12 c1=400x4 pool c2=200x2 fc=70 fc_act=relu conv_relu bn dropout=0.2",
    ),
];

impl CnnArch {
    pub fn preset(name: &str) -> Option<Self> {
        CNN_PRESETS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .and_then(|(_, spec)| Self::parse(spec).ok())
    }

    /// Parses a spec such as the presets' (space-separated `key=value` or flag words).
    pub fn parse(spec: &str) -> Result<Self, NetError> {
        let bad = |reason: String| NetError::BadArch {
            widths: spec.to_string(),
            reason,
        };
        let conv = |v: &str| -> Option<(i64, i64)> {
            let (f, k) = v.split_once('x')?;
            Some((f.parse().ok()?, k.parse().ok()?))
        };
        let mut arch = CnnArch {
            input: Planes::Mocha7Abs,
            conv1: (0, 0),
            pool: false,
            conv2: (0, 0),
            hidden: 0,
            fc_act: FcAct::Sigmoid,
            conv_relu: false,
            batch_norm: false,
            dropout: 0.0,
        };
        let mut seen_input = false;
        for word in spec.split_whitespace() {
            let (key, value) = word.split_once('=').unwrap_or((word, ""));
            let need = |what: &str| bad(format!("{key}={value}: expected {what}"));
            match key {
                "in" => {
                    arch.input = Planes::from_spec_name(value)
                        .ok_or_else(|| need("mocha7, stm6 or onehot12"))?;
                    seen_input = true;
                }
                "c1" => arch.conv1 = conv(value).ok_or_else(|| need("FILTERSxKERNEL"))?,
                "c2" => arch.conv2 = conv(value).ok_or_else(|| need("FILTERSxKERNEL"))?,
                "fc" => arch.hidden = value.parse().map_err(|_| need("a width"))?,
                "fc_act" => {
                    arch.fc_act = match value {
                        "sigmoid" => FcAct::Sigmoid,
                        "relu" => FcAct::Relu,
                        _ => return Err(need("sigmoid or relu")),
                    }
                }
                "dropout" => arch.dropout = value.parse().map_err(|_| need("a fraction"))?,
                "pool" if value.is_empty() => arch.pool = true,
                "conv_relu" if value.is_empty() => arch.conv_relu = true,
                "bn" if value.is_empty() => arch.batch_norm = true,
                _ => return Err(bad(format!("unknown word '{word}'"))),
            }
        }
        if !seen_input {
            return Err(bad("missing in=<planes>".to_string()));
        }
        arch.check().map_err(bad)?;
        Ok(arch)
    }

    /// The canonical spec: [`CnnArch::parse`] of it gives back the same arch.
    pub fn spec(&self) -> String {
        let mut words = vec![
            format!("in={}", self.input.spec_name()),
            format!("c1={}x{}", self.conv1.0, self.conv1.1),
        ];
        if self.pool {
            words.push("pool".to_string());
        }
        words.push(format!("c2={}x{}", self.conv2.0, self.conv2.1));
        words.push(format!("fc={}", self.hidden));
        words.push(
            match self.fc_act {
                FcAct::Sigmoid => "fc_act=sigmoid",
                FcAct::Relu => "fc_act=relu",
            }
            .to_string(),
        );
        if self.conv_relu {
            words.push("conv_relu".to_string());
        }
        if self.batch_norm {
            words.push("bn".to_string());
        }
        if self.dropout > 0.0 {
            words.push(format!("dropout={}", self.dropout));
        }
        words.join(" ")
    }

    /// Side of the square map after conv1 (and the pool), and after conv2.
    pub fn sides(&self) -> (i64, i64) {
        let s1 = 8 - self.conv1.1 + 1;
        let s1 = if self.pool { (s1 - 1) / 2 + 1 } else { s1 };
        (s1, s1 - self.conv2.1 + 1)
    }

    fn check(&self) -> Result<(), String> {
        let (f1, k1) = self.conv1;
        let (f2, k2) = self.conv2;
        if f1 <= 0 || f2 <= 0 || self.hidden <= 0 {
            return Err("filters and the fc width must be positive (c1, c2, fc)".to_string());
        }
        if !(1..=8).contains(&k1) || k2 < 1 {
            return Err("kernels must be at least 1 and conv1's at most 8".to_string());
        }
        if self.pool && k1 > 7 {
            return Err("pooling needs at least a 2×2 map: conv1's kernel at most 7".to_string());
        }
        if self.sides().1 < 1 {
            return Err(format!(
                "conv2's kernel {k2} is larger than the {0}×{0} map it reads",
                self.sides().0
            ));
        }
        if !(0.0..1.0).contains(&self.dropout) {
            return Err("dropout must be in [0, 1)".to_string());
        }
        Ok(())
    }

    /// Inputs of `fc1`.
    pub fn flat(&self) -> i64 {
        let s = self.sides().1;
        self.conv2.0 * s * s
    }

    /// Name and shape of every tensor a file of this arch holds, sorted by name.
    pub fn tensor_shapes(&self) -> Vec<(String, Vec<usize>)> {
        let u = |v: i64| v as usize;
        let c = self.input.channels();
        let (f1, k1) = (u(self.conv1.0), u(self.conv1.1));
        let (f2, k2) = (u(self.conv2.0), u(self.conv2.1));
        let mut out = vec![
            ("conv1.weight".to_string(), vec![f1, c, k1, k1]),
            ("conv1.bias".to_string(), vec![f1]),
            ("conv2.weight".to_string(), vec![f2, f1, k2, k2]),
            ("conv2.bias".to_string(), vec![f2]),
            (
                "fc1.weight".to_string(),
                vec![u(self.hidden), u(self.flat())],
            ),
            ("fc1.bias".to_string(), vec![u(self.hidden)]),
            ("fc2.weight".to_string(), vec![1, u(self.hidden)]),
            ("fc2.bias".to_string(), vec![1]),
        ];
        if self.batch_norm {
            for (bn, f) in [("bn1", f1), ("bn2", f2)] {
                for part in ["weight", "bias", "running_mean", "running_var"] {
                    out.push((format!("{bn}.{part}"), vec![f]));
                }
            }
        }
        out.sort();
        out
    }

    /// Multiply-adds of one forward pass, for logs and the cost estimate.
    pub fn macs(&self) -> i64 {
        let c = self.input.channels() as i64;
        let s1 = 8 - self.conv1.1 + 1;
        let s2 = self.sides().1;
        s1 * s1 * self.conv1.0 * c * self.conv1.1 * self.conv1.1
            + s2 * s2 * self.conv2.0 * self.conv1.0 * self.conv2.1 * self.conv2.1
            + self.flat() * self.hidden
            + self.hidden
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_study_net_has_the_published_shape() {
        let arch = CnnArch::preset("mocha").expect("preset parses");
        assert_eq!(arch.input, Planes::Mocha7Abs);
        // 8×8 → conv 4×4 valid → 5×5 → pool 2×2/2 (ceil) → 3×3 → conv 2×2 → 2×2.
        assert_eq!(arch.sides(), (3, 2));
        assert_eq!(arch.flat(), 800);
        assert!(!arch.conv_relu && !arch.batch_norm);
        assert_eq!(arch.fc_act, FcAct::Sigmoid);
        // About 5 MFLOP a forward (2 per multiply-add), a third of the training step.
        let mflop = 2.0 * arch.macs() as f64 / 1e6;
        assert!((4.5..5.5).contains(&mflop), "{mflop}");
    }

    #[test]
    fn specs_round_trip_and_bad_ones_say_why() {
        for (name, spec) in CNN_PRESETS {
            let arch = CnnArch::parse(spec).expect("preset parses");
            assert_eq!(
                CnnArch::parse(&arch.spec()).ok(),
                Some(arch.clone()),
                "{name}"
            );
            assert_eq!(CnnArch::preset(name), Some(arch));
        }
        let err = |spec: &str| CnnArch::parse(spec).expect_err(spec).to_string();
        assert!(err("in=rgb c1=4x4 c2=4x2 fc=3").contains("in=rgb"));
        assert!(err("c1=4x4 c2=4x2 fc=3").contains("missing in="));
        assert!(err("in=stm6 c1=4x8 c2=4x2 fc=3").contains("larger than"));
        assert!(err("in=stm6 c1=4x4 c2=4x2 fc=3 wings").contains("wings"));
        assert!(err("in=stm6 c1=4 c2=4x2 fc=3").contains("FILTERSxKERNEL"));
    }
}
