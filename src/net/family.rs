//! Model families: what a net file's `arch` metadata names, and the one place that maps a
//! family to its shapes, its input and the sign of its output.
//!
//! | `arch`        | family                         | shape metadata | input (`encoding`)     |
//! |---------------|--------------------------------|----------------|------------------------|
//! | `mlp`         | Deep Pink's MLP ([`Mlp`])      | `widths`       | `stm-mirror-768-v1`    |
//! | `mlp-perspective` | the two-perspective net    | `widths`       | `stm-mirror-768-v1`, or `stm-mirror-768-hm-v1` king-file mirrored |
//! | `mlp-antisym` | the zero-sum MLP               | `widths`       | `stm-mirror-768-v1`    |
//! | `cnn`         | the win/loss CNN ([`Cnn`])     | `layers`       | its planes ([`Planes`])|
//! | `convchess-policy` | ConvChess's seven policy nets ([`Policy`]) | `layers` | its planes |
//! | `rbf-fm`      | the RBF model ([`rbf`](super::rbf)) | its tensors | `features`, `inputs` |
//!
//! A policy file scores moves, not positions: it is never an evaluator. An RBF file is read
//! by `rbf` alone: it holds no board encoding.
//!
//! [`Mlp`]: super::Mlp
//! [`Cnn`]: super::Cnn
//! [`Policy`]: super::Policy

use super::presets::{preset_names as mlp_preset_names, Arch, Form};
use super::{CnnArch, NetError, Planes, PolicyArch, CNN_PRESETS, POLICY_PRESETS};
use crate::chess::{CompactBoard, ENCODING_NAME, ENCODING_WIDTH};

/// The architecture of a net of any family.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelArch {
    Mlp(Arch),
    Cnn(CnnArch),
    Policy(PolicyArch),
}

/// The `arch` value of convolutional nets.
pub const CNN_FAMILY: &str = "cnn";
/// The `arch` value of policy files.
pub const POLICY_FAMILY: &str = "convchess-policy";
/// The `arch` value of RBF nets, which `rbf` reads and writes; named here with the others so
/// that `file` can refuse them without using `rbf`, which uses `file`.
pub const RBF_FAMILY: &str = "rbf-fm";

impl ModelArch {
    /// A preset of any family, by name (case-insensitive).
    pub fn preset(name: &str) -> Result<Self, NetError> {
        if let Some(cnn) = CnnArch::preset(name) {
            return Ok(ModelArch::Cnn(cnn));
        }
        if let Some(policy) = PolicyArch::preset(name) {
            return Ok(ModelArch::Policy(policy));
        }
        Arch::preset(name)
            .map(ModelArch::Mlp)
            .map_err(|_| NetError::UnknownPreset {
                name: name.to_string(),
                valid: preset_names().join(", "),
            })
    }

    /// The `arch` metadata value.
    pub fn family_name(&self) -> &'static str {
        match self {
            ModelArch::Mlp(a) => a.form.file_name(),
            ModelArch::Cnn(_) => CNN_FAMILY,
            ModelArch::Policy(_) => POLICY_FAMILY,
        }
    }

    /// The `encoding` metadata value: the input the net reads.
    pub fn encoding(&self) -> &'static str {
        match self {
            ModelArch::Mlp(a) if a.king_mirror => super::mirror::KING_MIRROR_ENCODING,
            ModelArch::Mlp(_) => ENCODING_NAME,
            ModelArch::Cnn(c) => c.input.encoding_name(),
            ModelArch::Policy(p) => p.input.encoding_name(),
        }
    }

    /// The shape in words: the MLP's widths (and output buckets) or the CNN's spec.
    pub fn describe(&self) -> String {
        match self {
            ModelArch::Mlp(a) => a.describe(),
            ModelArch::Cnn(c) => c.spec(),
            ModelArch::Policy(p) => p.spec(),
        }
    }

    pub fn mlp(&self) -> Option<&Arch> {
        match self {
            ModelArch::Mlp(a) => Some(a),
            ModelArch::Cnn(_) | ModelArch::Policy(_) => None,
        }
    }

    /// The MLP arch, or an error naming `what` needs one (e.g. the native backend).
    pub fn require_mlp(&self, what: &str) -> Result<&Arch, NetError> {
        self.mlp().ok_or_else(|| {
            NetError::BadConfig(format!(
                "{what} runs only mlp nets, and this net is a {} ({}); use Backend torch \
                 (`--backend torch` on the command line)",
                self.family_name(),
                self.describe()
            ))
        })
    }

    pub fn tensor_shapes(&self) -> Vec<(String, Vec<usize>)> {
        match self {
            ModelArch::Mlp(a) => a.tensor_shapes(),
            ModelArch::Cnn(c) => c.tensor_shapes(),
            ModelArch::Policy(p) => p.tensor_shapes(),
        }
    }

    /// Trainable parameters (batch-norm running statistics are state, not parameters).
    pub fn parameter_count(&self) -> usize {
        self.tensor_shapes()
            .iter()
            .filter(|(n, _)| !n.ends_with("running_mean") && !n.ends_with("running_var"))
            .map(|(_, s)| s.iter().product::<usize>())
            .sum()
    }

    /// Floats of one board's dense input.
    pub fn input_width(&self) -> usize {
        match self {
            ModelArch::Mlp(_) => ENCODING_WIDTH,
            ModelArch::Cnn(c) => c.input.width(),
            ModelArch::Policy(p) => p.input.width(),
        }
    }

    /// The planes of a convolutional net, `None` for an MLP.
    pub fn planes(&self) -> Option<Planes> {
        match self {
            ModelArch::Mlp(_) => None,
            ModelArch::Cnn(c) => Some(c.input),
            ModelArch::Policy(p) => Some(p.input),
        }
    }

    /// Whether the net scores positions (an evaluator), as opposed to moves (a policy).
    pub fn scores_positions(&self) -> bool {
        !matches!(self, ModelArch::Policy(_))
    }

    /// Writes the dense input of a board as the engine sees it (side to move, colour
    /// unknown; see `planes`) into `out` (`input_width()` floats).
    pub fn encode_engine(&self, board: &CompactBoard, out: &mut [f32]) {
        match self {
            ModelArch::Mlp(_) => board.encode_into(out),
            ModelArch::Cnn(c) => c.input.encode_into(board, true, out),
            ModelArch::Policy(p) => p.input.encode_into(board, true, out),
        }
    }

    /// The sign that turns a raw output into a score for the side to move: an MLP's f
    /// scores the side that just moved (`mlp`), a CNN's logit the side to move. (A policy's
    /// logits are for the side to move's moves.)
    pub fn raw_sign(&self) -> f32 {
        match self {
            ModelArch::Mlp(_) => -1.0,
            ModelArch::Cnn(_) | ModelArch::Policy(_) => 1.0,
        }
    }

    /// Whether the score of a board with the other side to move is exactly the negative.
    pub fn is_zero_sum(&self) -> bool {
        matches!(self, ModelArch::Mlp(a) if a.form == Form::Antisym)
    }
}

/// Every preset name, MLP presets first.
pub fn preset_names() -> Vec<&'static str> {
    let mut names = mlp_preset_names();
    names.extend(CNN_PRESETS.iter().map(|(n, _)| *n));
    names.extend(POLICY_PRESETS.iter().map(|(n, _)| *n));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_of_both_families_resolve() {
        for name in preset_names() {
            let arch = ModelArch::preset(name).expect("preset exists");
            assert!(arch.parameter_count() > 0, "{name}");
            assert_eq!(arch.mlp().is_some(), arch.planes().is_none(), "{name}");
            assert_eq!(
                arch.scores_positions(),
                arch.family_name() != POLICY_FAMILY,
                "{name}"
            );
        }
        let cnn = ModelArch::preset("MOCHA").expect("case-insensitive");
        assert_eq!(cnn.family_name(), "cnn");
        assert_eq!(cnn.encoding(), "mocha7-abs-v1");
        assert_eq!(cnn.input_width(), 7 * 64);
        assert_eq!(cnn.raw_sign(), 1.0);
        let err = cnn
            .require_mlp("the native backend")
            .expect_err("cnn is not mlp");
        assert!(err.to_string().contains("Backend torch"), "{err}");
        let small = ModelArch::preset("small-as").expect("preset");
        assert!(small.is_zero_sum() && !cnn.is_zero_sum());
        assert_eq!(small.raw_sign(), -1.0);
        let err = ModelArch::preset("huge").expect_err("unknown");
        assert!(err.to_string().contains("mocha"), "{err}");
    }

    #[test]
    fn batch_norm_statistics_are_not_parameters() {
        let plain = ModelArch::preset("mocha").expect("preset");
        let bn = ModelArch::preset("mocha-relu-bn").expect("preset");
        // Batch norm adds a scale and a shift per filter: 2 × (400 + 200).
        assert_eq!(bn.parameter_count(), plain.parameter_count() + 1200);
        assert_eq!(bn.tensor_shapes().len(), plain.tensor_shapes().len() + 8);
    }
}
