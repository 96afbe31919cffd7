//! Network shapes, named so that files, the trainer and the command line agree on them.

use super::NetError;
use crate::chess::ENCODING_WIDTH;

/// Layer widths from the input (always [`ENCODING_WIDTH`]) to the output (always 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arch {
    pub widths: Vec<i64>,
}

/// (name, widths) of every preset; `deeppink` is the original Deep Pink shape.
pub const PRESETS: &[(&str, &[i64])] = &[
    ("deeppink", &[768, 2048, 2048, 2048, 1]),
    ("mid", &[768, 512, 512, 1]),
    ("small", &[768, 256, 32, 1]),
];

impl Arch {
    /// Checks that the widths run from the encoding width to a single output.
    pub fn new(widths: Vec<i64>) -> Result<Self, NetError> {
        let arch = Arch { widths };
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
        if arch.widths.last() != Some(&1) {
            return Err(bad("the output width must be 1"));
        }
        if arch.widths.iter().any(|&w| w <= 0) {
            return Err(bad("every width must be positive"));
        }
        Ok(arch)
    }

    pub fn preset(name: &str) -> Result<Self, NetError> {
        PRESETS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, w)| Arch { widths: w.to_vec() })
            .ok_or_else(|| NetError::UnknownPreset {
                name: name.to_string(),
                valid: preset_names().join(", "),
            })
    }

    /// Parses the `widths` metadata form, e.g. "768,256,32,1".
    pub fn parse_widths(text: &str) -> Result<Self, NetError> {
        let widths = text
            .split(',')
            .map(|w| w.trim().parse::<i64>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| NetError::BadArch {
                widths: text.to_string(),
                reason: format!("not a comma-separated list of integers ({e})"),
            })?;
        Self::new(widths)
    }

    /// The `widths` metadata form, e.g. "768,256,32,1".
    pub fn widths_string(&self) -> String {
        let parts: Vec<String> = self.widths.iter().map(i64::to_string).collect();
        parts.join(",")
    }

    /// Number of linear layers.
    pub fn layers(&self) -> usize {
        self.widths.len().saturating_sub(1)
    }

    /// Name, shape `[out, in]` or `[out]`, of every parameter tensor, in layer order.
    pub fn tensor_shapes(&self) -> Vec<(String, Vec<usize>)> {
        self.widths
            .windows(2)
            .enumerate()
            .flat_map(|(i, w)| {
                let (inp, out) = (w[0] as usize, w[1] as usize);
                [
                    (format!("l{i}.weight"), vec![out, inp]),
                    (format!("l{i}.bias"), vec![out]),
                ]
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
    PRESETS.iter().map(|(n, _)| *n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_architectures() {
        for name in preset_names() {
            let arch = Arch::preset(name).expect("preset exists");
            assert_eq!(Arch::new(arch.widths.clone()).ok(), Some(arch.clone()));
            assert_eq!(Arch::parse_widths(&arch.widths_string()).ok(), Some(arch));
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
            msg.contains("huge") && msg.contains("deeppink, mid, small"),
            "{msg}"
        );
    }

    #[test]
    fn rejects_bad_widths() {
        assert!(Arch::new(vec![768]).is_err());
        assert!(Arch::new(vec![767, 1]).is_err());
        assert!(Arch::new(vec![768, 16, 2]).is_err());
        assert!(Arch::new(vec![768, 0, 1]).is_err());
        assert!(Arch::parse_widths("768,x,1").is_err());
        assert!(Arch::new(vec![768, 1]).is_ok());
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
    }
}
