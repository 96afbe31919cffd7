//! Network shapes, named so that files, the trainer and the command line agree on them.

use super::buckets;
use super::NetError;
use crate::chess::ENCODING_WIDTH;

/// How the layers make the score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Deep Pink's plain MLP: f(x) = mlp(x).
    Plain,
    /// f(x) = h(x) − h(swap(x)), with h(x) = mlp(x) + psqt·x and swap(x) the same board with
    /// the other side to move. A plain net learns a large side-to-move bias (the trained
    /// small net gave the side to move +114 cp at the start), which in a search whose leaves
    /// alternate sides is noise as big as a pawn; this form is zero-sum by construction. The
    /// linear `psqt` term (a piece-square table) starts at classical piece values so training
    /// begins from a sane material balance; training is free to move every weight.
    Antisym,
    /// The two-perspective net of NNUE engines, (768→N)×2 → 1: one first layer read from the
    /// side to move's view and from the other side's, each squared-clipped-ReLU'd (SCReLU,
    /// clamp(x, 0, 1)²), the side to move's half first, then one output for the side to move:
    /// f(x) = −l1([screlu(l0(x)), screlu(l0(swap x))]). Widths are exactly [768, N, B].
    ///
    /// B ∈ {1, 2, 4, 8} is the number of output buckets (`net::buckets`): l1 has B rows and
    /// a board is scored by the row of its bucket, chosen by the number of pieces on it. These
    /// are NNUE engines' material output buckets: one output layer per stage of the game, so
    /// the last layer can weigh the same features differently in the opening and the
    /// endgame, at no cost in the accumulator. B = 1 is the single-output net.
    Perspective,
}

impl Form {
    /// The `arch` metadata value of net files of this form.
    pub fn file_name(self) -> &'static str {
        match self {
            Form::Plain => "mlp",
            Form::Antisym => "mlp-antisym",
            Form::Perspective => "mlp-perspective",
        }
    }

    pub fn from_file_name(name: &str) -> Option<Self> {
        [Form::Plain, Form::Antisym, Form::Perspective]
            .into_iter()
            .find(|f| f.file_name() == name)
    }
}

/// Layer widths from the input (always [`ENCODING_WIDTH`]) to the output (1, or a
/// perspective net's output buckets), and the form that combines them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arch {
    pub widths: Vec<i64>,
    pub form: Form,
    /// Perspective form only: each view reads its features king-file mirrored
    /// (`net::mirror`); a file says so by its `encoding`, not its `arch`.
    pub king_mirror: bool,
}

/// (name, widths, form) of every preset; `deeppink` is the original Deep Pink shape, and the
/// `-as` presets are the same shapes in the antisymmetric form, the `-ob8` ones the perspective
/// shapes with 8 output buckets. A perspective preset whose name ends in `-hm` is king-file
/// mirrored ([`Arch::king_mirror`], `net::mirror`).
pub const PRESETS: &[(&str, &[i64], Form)] = &[
    ("deeppink", &[768, 2048, 2048, 2048, 1], Form::Plain),
    ("mid", &[768, 512, 512, 1], Form::Plain),
    ("small", &[768, 256, 32, 1], Form::Plain),
    ("deeppink-as", &[768, 2048, 2048, 2048, 1], Form::Antisym),
    ("mid-as", &[768, 512, 512, 1], Form::Antisym),
    ("small-as", &[768, 256, 32, 1], Form::Antisym),
    ("wide-as", &[768, 512, 32, 1], Form::Antisym),
    ("narrow-as", &[768, 128, 32, 1], Form::Antisym),
    ("tiny-as", &[768, 64, 32, 1], Form::Antisym),
    ("persp-128", &[768, 128, 1], Form::Perspective),
    ("persp-256", &[768, 256, 1], Form::Perspective),
    ("persp-512", &[768, 512, 1], Form::Perspective),
    ("persp-128-ob8", &[768, 128, 8], Form::Perspective),
    ("persp-256-ob8", &[768, 256, 8], Form::Perspective),
    ("persp-512-ob8", &[768, 512, 8], Form::Perspective),
    ("persp-256-hm", &[768, 256, 1], Form::Perspective),
    ("persp-512-hm", &[768, 512, 1], Form::Perspective),
    ("persp-256-ob8-hm", &[768, 256, 8], Form::Perspective),
];

/// The suffix of the king-file mirrored presets.
const MIRROR_SUFFIX: &str = "-hm";

impl Arch {
    /// Checks that the widths run from the encoding width to a single output.
    pub fn new(widths: Vec<i64>) -> Result<Self, NetError> {
        Self::with_form(widths, Form::Plain)
    }

    pub fn with_form(widths: Vec<i64>, form: Form) -> Result<Self, NetError> {
        let arch = Arch {
            widths,
            form,
            king_mirror: false,
        };
        let bad = |reason: &str| NetError::BadArch {
            widths: arch.widths_string(),
            reason: reason.to_string(),
        };
        if arch.widths.len() < 2 {
            return Err(bad("need at least an input and an output width"));
        }
        if arch.widths[0] != ENCODING_WIDTH as i64 {
            return Err(bad(&format!("the input width must be {ENCODING_WIDTH}")));
        }
        let out = *arch.widths.last().expect("two widths or more");
        if form == Form::Perspective && !buckets::is_allowed(out) {
            return Err(bad(&format!(
                "the output width of a perspective net is its number of output buckets, {}",
                buckets::allowed_words()
            )));
        }
        if form != Form::Perspective && out != 1 {
            return Err(bad("the output width must be 1"));
        }
        if arch.widths.iter().any(|&w| w <= 0) {
            return Err(bad("every width must be positive"));
        }
        if form == Form::Perspective && arch.widths.len() != 3 {
            return Err(bad(
                "a perspective net has exactly one hidden width: 768,N,B",
            ));
        }
        Ok(arch)
    }

    /// The same shape king-file mirrored (`net::mirror`): a perspective net only.
    pub fn mirrored(self) -> Result<Self, NetError> {
        if self.form != Form::Perspective {
            return Err(NetError::BadArch {
                widths: self.widths_string(),
                reason: "only a perspective net can be king-file mirrored".to_string(),
            });
        }
        Ok(Arch {
            king_mirror: true,
            ..self
        })
    }

    pub fn preset(name: &str) -> Result<Self, NetError> {
        PRESETS
            .iter()
            .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
            .map(|(n, w, form)| Arch {
                widths: w.to_vec(),
                form: *form,
                king_mirror: n.ends_with(MIRROR_SUFFIX),
            })
            .ok_or_else(|| NetError::UnknownPreset {
                name: name.to_string(),
                valid: preset_names().join(", "),
            })
    }

    /// Parses the `widths` metadata form, e.g. "768,256,32,1".
    pub fn parse_widths(text: &str, form: Form) -> Result<Self, NetError> {
        let widths = text
            .split(',')
            .map(|w| w.trim().parse::<i64>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| NetError::BadArch {
                widths: text.to_string(),
                reason: format!("not a comma-separated list of integers ({e})"),
            })?;
        Self::with_form(widths, form)
    }

    /// The `widths` metadata form, e.g. "768,256,32,1".
    pub fn widths_string(&self) -> String {
        let parts: Vec<String> = self.widths.iter().map(i64::to_string).collect();
        parts.join(",")
    }

    /// Output buckets (see [`Form::Perspective`]): the last width of a perspective net, 1
    /// for every other form.
    pub fn output_buckets(&self) -> usize {
        match self.form {
            Form::Perspective => *self.widths.last().expect("validated") as usize,
            Form::Plain | Form::Antisym => 1,
        }
    }

    /// The shape in words: the widths, the output buckets where there are several, and the
    /// king-file mirroring where there is one.
    pub fn describe(&self) -> String {
        let shape = match self.output_buckets() {
            1 => self.widths_string(),
            b => format!("{} (×{b} output buckets)", self.widths_string()),
        };
        if self.king_mirror {
            format!("{shape}, king-file mirrored")
        } else {
            shape
        }
    }

    /// Number of linear layers.
    pub fn layers(&self) -> usize {
        self.widths.len().saturating_sub(1)
    }

    /// Name, shape `[out, in]` or `[out]`, of every parameter tensor, in layer order, then
    /// `psqt.weight` [1, 768] in the antisymmetric form.
    pub fn tensor_shapes(&self) -> Vec<(String, Vec<usize>)> {
        let psqt = (self.form == Form::Antisym)
            .then(|| ("psqt.weight".to_string(), vec![1, ENCODING_WIDTH]));
        self.layer_dims()
            .into_iter()
            .enumerate()
            .flat_map(|(i, (inp, out))| {
                [
                    (format!("l{i}.weight"), vec![out, inp]),
                    (format!("l{i}.bias"), vec![out]),
                ]
            })
            .chain(psqt)
            .collect()
    }

    /// (inputs, outputs) of every linear layer: a perspective net's output layer reads both
    /// halves of the first layer.
    pub fn layer_dims(&self) -> Vec<(usize, usize)> {
        self.widths
            .windows(2)
            .enumerate()
            .map(|(i, w)| {
                let views = if self.form == Form::Perspective && i == 1 {
                    2
                } else {
                    1
                };
                (views * w[0] as usize, w[1] as usize)
            })
            .collect()
    }

    pub fn parameter_count(&self) -> usize {
        self.tensor_shapes()
            .iter()
            .map(|(_, s)| s.iter().product::<usize>())
            .sum()
    }
}

pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(n, _, _)| *n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_architectures() {
        for name in preset_names() {
            let arch = Arch::preset(name).expect("preset exists");
            // A file names the mirroring by its encoding, beside the widths.
            let mirror = |a: Arch| {
                if arch.king_mirror {
                    a.mirrored().ok()
                } else {
                    Some(a)
                }
            };
            assert_eq!(
                Arch::with_form(arch.widths.clone(), arch.form)
                    .ok()
                    .and_then(mirror),
                Some(arch.clone())
            );
            assert_eq!(
                Arch::parse_widths(&arch.widths_string(), arch.form)
                    .ok()
                    .and_then(mirror),
                Some(arch.clone())
            );
        }
        assert_eq!(
            Arch::preset("small").map(|a| a.widths_string()).ok(),
            Some("768,256,32,1".to_string())
        );
        assert_eq!(Arch::preset("DeepPink").map(|a| a.layers()).ok(), Some(4));
    }

    #[test]
    fn unknown_preset_lists_the_valid_ones() {
        let msg = Arch::preset("huge")
            .expect_err("no such preset")
            .to_string();
        assert!(
            msg.contains("huge") && msg.contains("deeppink, mid, small, deeppink-as"),
            "{msg}"
        );
    }

    #[test]
    fn rejects_bad_widths() {
        assert!(Arch::new(vec![768]).is_err());
        assert!(Arch::new(vec![767, 1]).is_err());
        assert!(Arch::new(vec![768, 16, 2]).is_err());
        assert!(Arch::new(vec![768, 0, 1]).is_err());
        assert!(Arch::parse_widths("768,x,1", Form::Plain).is_err());
        assert!(Arch::new(vec![768, 1]).is_ok());
    }

    #[test]
    fn a_perspective_net_takes_1_2_4_or_8_output_buckets_and_other_forms_one() {
        for b in [1, 2, 4, 8] {
            let arch = Arch::with_form(vec![768, 64, b], Form::Perspective).expect("allowed");
            assert_eq!(arch.output_buckets(), b as usize);
        }
        for b in [0, 3, 16] {
            let msg = Arch::with_form(vec![768, 64, b], Form::Perspective)
                .expect_err("not allowed")
                .to_string();
            assert!(msg.contains("output buckets, 1, 2, 4 or 8"), "{msg}");
        }
        assert!(Arch::with_form(vec![768, 64, 8], Form::Antisym).is_err());
        let ob8 = Arch::preset("persp-256-ob8").expect("preset exists");
        assert_eq!(ob8.widths_string(), "768,256,8");
        assert_eq!(ob8.describe(), "768,256,8 (×8 output buckets)");
        assert_eq!(
            Arch::preset("persp-256").expect("preset").describe(),
            "768,256,1"
        );
        let shapes = ob8.tensor_shapes();
        assert_eq!(shapes[2], ("l1.weight".to_string(), vec![8, 512]));
        assert_eq!(shapes[3], ("l1.bias".to_string(), vec![8]));
    }

    #[test]
    fn shapes_and_parameter_count() {
        let arch = Arch::preset("small").expect("preset exists");
        let shapes = arch.tensor_shapes();
        assert_eq!(shapes[0], ("l0.weight".to_string(), vec![256, 768]));
        assert_eq!(shapes[5], ("l2.bias".to_string(), vec![1]));
        assert_eq!(
            arch.parameter_count(),
            768 * 256 + 256 + 256 * 32 + 32 + 32 + 1
        );
        let antisym = Arch::preset("small-as").expect("preset exists");
        assert_eq!(antisym.form, Form::Antisym);
        assert_eq!(
            antisym.tensor_shapes().last(),
            Some(&("psqt.weight".to_string(), vec![1, 768]))
        );
        assert_eq!(antisym.parameter_count(), arch.parameter_count() + 768);
    }

    #[test]
    fn the_hm_presets_are_mirrored_perspective_nets_and_no_other_form_can_be() {
        for name in preset_names() {
            let arch = Arch::preset(name).expect("preset exists");
            assert_eq!(arch.king_mirror, name.ends_with("-hm"), "{name}");
            assert!(
                !arch.king_mirror || arch.form == Form::Perspective,
                "{name}"
            );
        }
        let hm = Arch::preset("persp-256-hm").expect("preset exists");
        assert_eq!(hm.describe(), "768,256,1, king-file mirrored");
        let plain = Arch::preset("persp-256").expect("preset exists");
        assert_eq!(plain.clone().mirrored().ok(), Some(hm.clone()));
        assert_ne!(plain, hm);
        assert_eq!(plain.tensor_shapes(), hm.tensor_shapes());
        let msg = Arch::preset("small-as")
            .expect("preset exists")
            .mirrored()
            .expect_err("not a perspective net")
            .to_string();
        assert!(msg.contains("only a perspective net"), "{msg}");
    }

    #[test]
    fn form_names_round_trip() {
        for form in [Form::Plain, Form::Antisym] {
            assert_eq!(Form::from_file_name(form.file_name()), Some(form));
        }
        assert_eq!(Form::from_file_name("cnn"), None);
    }
}
