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

// The libtorch module built from a [`PolicyArch`]; the shape itself needs no libtorch.
#[cfg(feature = "torch")]
mod torch;
#[cfg(feature = "torch")]
pub use torch::Policy;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
