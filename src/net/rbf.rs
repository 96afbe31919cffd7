//! The RBF evaluator's model (Kagkas et al.): inputs scaled to [0, 1] by the training set's
//! minimum and range, one hidden layer of thin-plate-spline units φ(r) = r² ln r around
//! fixed centres, and a linear output. Centres come from the fuzzy means algorithm and the
//! output weights from least squares (both in `train::rbf`); this file holds only the model,
//! shared by the trainer and the evaluator, and its file.
//!
//! The file is a cerise net file (safetensors, `format` = `cerise-net`) with `arch` = `rbf-fm`
//! and tensors `input.min` [N], `input.scale` [N], `centres` [K, N], `weights` [K] and
//! `bias` [1]. Metadata `features` names the feature set, `inputs` lists the inputs after the
//! features (`d2,d4,d8` for the study's scenario 1; empty for scenario 3), and `target` says
//! what the output is: pawns for the side to move. Inputs are computed on the board as the
//! engine sees it (side to move as White, no castling or en passant; `chess::board`), so
//! the trainer and the evaluator feed the net the same thing.

use super::error::RbfError;
use super::family::RBF_FAMILY;
use super::file::{content_id, splice_metadata, FORMAT_NAME, FORMAT_VERSION};
use safetensors::{Dtype, SafeTensors};
use std::collections::HashMap;
use std::path::Path;

pub const RBF_TARGET: &str = "pawns-stm";

/// φ(r) = r² ln r, written in r² so no square root is taken: r² ln r = ½ r² ln r².
pub fn thin_plate(r2: f64) -> f64 {
    if r2 <= 0.0 {
        0.0
    } else {
        0.5 * r2 * r2.ln()
    }
}

/// ‖a − b‖², in eight independent lanes: a single running sum would make the compiler keep
/// the additions in order, and eight let it use one vector register (measured: 132.8 →
/// 38.0 µs per prediction for 796 centres of 212 inputs).
pub fn distance2(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let mut ca = a.chunks_exact(8);
    let mut cb = b.chunks_exact(8);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for i in 0..8 {
            let d = x[i] - y[i];
            lanes[i] += d * d;
        }
    }
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| (x - y) * (x - y))
        .sum();
    lanes.iter().sum::<f32>() + tail
}

#[derive(Clone, Debug, PartialEq)]
pub struct RbfNet {
    /// The feature set the inputs start with (`features::VERSION`).
    pub features: String,
    /// Inputs after the features, e.g. `["d2", "d4", "d8"]`: low-depth engine evaluations.
    pub extra_inputs: Vec<String>,
    /// The fuzzy partition, recorded for the card: one number of sets for every input
    /// (symmetric fuzzy means), or one per input (the non-symmetric variant).
    pub sets: Vec<u32>,
    pub input_min: Vec<f32>,
    /// 1 / range per input (0 for an input constant on the training set).
    pub input_scale: Vec<f32>,
    /// K × N, row-major, in the scaled space.
    pub centres: Vec<f32>,
    pub weights: Vec<f32>,
    pub bias: f32,
    pub description: Option<String>,
}

/// Whether `bytes` are a net file of the RBF family (by its `arch` metadata), so that a
/// loader can pick the RBF reader before the tensor-net one.
pub fn is_rbf_file(bytes: &[u8]) -> bool {
    SafeTensors::read_metadata(bytes).is_ok_and(|(_, header)| {
        header
            .metadata()
            .as_ref()
            .and_then(|md| md.get("arch"))
            .is_some_and(|a| a == RBF_FAMILY)
    })
}

impl RbfNet {
    pub fn inputs(&self) -> usize {
        self.input_min.len()
    }

    pub fn centres_count(&self) -> usize {
        self.weights.len()
    }

    /// Checks that the parts fit together.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.inputs();
        let k = self.centres_count();
        if n == 0 {
            return Err("no inputs".into());
        }
        if !(self.sets.len() == 1 || self.sets.len() == n) || self.sets.iter().any(|&s| s < 2) {
            return Err(format!(
                "`sets` holds {} values; it needs one or one per input ({n}), each at least 2",
                self.sets.len()
            ));
        }
        if self.input_scale.len() != n {
            return Err(format!(
                "input.scale has {} values, input.min {n}",
                self.input_scale.len()
            ));
        }
        if self.centres.len() != k * n {
            return Err(format!(
                "centres hold {} values, {k} weights × {n} inputs need {}",
                self.centres.len(),
                k * n
            ));
        }
        let finite = |v: &[f32]| v.iter().all(|x| x.is_finite());
        if !(finite(&self.input_min)
            && finite(&self.input_scale)
            && finite(&self.centres)
            && finite(&self.weights)
            && self.bias.is_finite())
        {
            return Err("a parameter is not finite".into());
        }
        Ok(())
    }

    /// The partition in words: `s = 6`, or the range and mean of a non-symmetric one.
    pub fn sets_label(&self) -> String {
        match self.sets.as_slice() {
            [s] => format!("s = {s}"),
            sets => {
                let lo = sets.iter().min().copied().unwrap_or(0);
                let hi = sets.iter().max().copied().unwrap_or(0);
                let mean = sets.iter().map(|&s| f64::from(s)).sum::<f64>() / sets.len() as f64;
                format!("non-symmetric, s = {lo}..{hi}, mean {mean:.2}")
            }
        }
    }

    /// Scales raw inputs into `out` (same length).
    pub fn scale_into(&self, raw: &[f32], out: &mut [f32]) {
        for (i, (o, &x)) in out.iter_mut().zip(raw).enumerate() {
            *o = (x - self.input_min[i]) * self.input_scale[i];
        }
    }

    /// The prediction, in pawns for the side to move, for raw (unscaled) inputs.
    pub fn predict(&self, raw: &[f32], scratch: &mut Vec<f32>) -> f32 {
        let n = self.inputs();
        assert_eq!(raw.len(), n, "an RBF net of {n} inputs");
        scratch.resize(n, 0.0);
        self.scale_into(raw, scratch);
        let mut sum = f64::from(self.bias);
        for (k, &w) in self.weights.iter().enumerate() {
            let c = &self.centres[k * n..(k + 1) * n];
            let r2 = distance2(c, scratch);
            sum += f64::from(w) * thin_plate(f64::from(r2));
        }
        sum as f32
    }

    fn metadata(&self) -> HashMap<String, String> {
        let mut md = HashMap::new();
        md.insert("format".into(), FORMAT_NAME.into());
        md.insert("format_version".into(), FORMAT_VERSION.to_string());
        md.insert("arch".into(), RBF_FAMILY.into());
        md.insert("features".into(), self.features.clone());
        md.insert("inputs".into(), self.extra_inputs.join(","));
        md.insert(
            "sets".into(),
            self.sets
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(","),
        );
        md.insert("basis".into(), "thin-plate-spline".into());
        md.insert("target".into(), RBF_TARGET.into());
        if let Some(d) = &self.description {
            md.insert("description".into(), d.clone());
        }
        md
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        self.serialize(self.metadata())
    }

    fn serialize(&self, metadata: HashMap<String, String>) -> Result<Vec<u8>, String> {
        self.validate()?;
        let n = self.inputs();
        let k = self.centres_count();
        let bias = [self.bias];
        let parts: [(&str, Vec<usize>, &[f32]); 5] = [
            ("input.min", vec![n], &self.input_min),
            ("input.scale", vec![n], &self.input_scale),
            ("centres", vec![k, n], &self.centres),
            ("weights", vec![k], &self.weights),
            ("bias", vec![1], &bias),
        ];
        let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = parts
            .iter()
            .map(|(name, shape, values)| {
                let b = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                (name.to_string(), shape.clone(), b)
            })
            .collect();
        let views = bytes
            .iter()
            .map(|(name, shape, b)| {
                safetensors::tensor::TensorView::new(Dtype::F32, shape.clone(), b)
                    .map(|v| (name.clone(), v))
                    .map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        // Metadata spliced in sorted, as for every net file: the crate's own writer orders it
        // at random, which would give one net several content ids.
        let plain = safetensors::serialize(views, None).map_err(|e| e.to_string())?;
        let mut pairs: Vec<(&str, String)> = metadata
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        pairs.sort();
        Ok(splice_metadata(&plain, &pairs))
    }

    /// Writes the file and returns its content id.
    pub fn save(&self, path: &Path) -> Result<String, RbfError> {
        let bytes = self.to_bytes().map_err(|reason| RbfError::Invalid {
            origin: path.display().to_string(),
            reason,
        })?;
        // Written beside and renamed, so a kill never leaves half a file under the name.
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, &bytes)
            .and_then(|_| std::fs::rename(&tmp, path))
            .map_err(|source| RbfError::Write {
                path: path.display().to_string(),
                source,
            })?;
        Ok(content_id(&bytes))
    }

    pub fn load(path: &Path) -> Result<RbfNet, RbfError> {
        let bytes = std::fs::read(path).map_err(|source| RbfError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_bytes(&bytes, &path.display().to_string())
    }

    pub fn from_bytes(bytes: &[u8], origin: &str) -> Result<RbfNet, RbfError> {
        let invalid = |reason: String| RbfError::Invalid {
            origin: origin.to_string(),
            reason,
        };
        let (_, header) = SafeTensors::read_metadata(bytes)
            .map_err(|e| invalid(format!("not safetensors: {e}")))?;
        let st = SafeTensors::deserialize(bytes).map_err(|e| invalid(e.to_string()))?;
        let empty = HashMap::new();
        let md = header.metadata().as_ref().unwrap_or(&empty);
        let get = |key: &str| md.get(key).cloned().unwrap_or_default();
        if get("format") != FORMAT_NAME {
            return Err(invalid(format!("metadata `format` is `{}`", get("format"))));
        }
        if get("arch") != RBF_FAMILY {
            return Err(invalid(format!(
                "metadata `arch` is `{}`, not `{RBF_FAMILY}`",
                get("arch")
            )));
        }
        if get("target") != RBF_TARGET {
            return Err(invalid(format!("metadata `target` is `{}`", get("target"))));
        }
        let tensor = |name: &str| -> Result<Vec<f32>, RbfError> {
            let view = st
                .tensor(name)
                .map_err(|_| invalid(format!("tensor `{name}` is missing")))?;
            if view.dtype() != Dtype::F32 {
                return Err(invalid(format!(
                    "tensor `{name}` is {:?}, not F32",
                    view.dtype()
                )));
            }
            let values = view
                .data()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            Ok(values)
        };
        let input_min = tensor("input.min")?;
        let input_scale = tensor("input.scale")?;
        let centres = tensor("centres")?;
        let weights = tensor("weights")?;
        let bias = tensor("bias")?;
        let sets = get("sets")
            .split(',')
            .map(str::parse)
            .collect::<Result<Vec<u32>, _>>()
            .map_err(|_| invalid(format!("metadata `sets` is `{}`", get("sets"))))?;
        let inputs = get("inputs");
        let net = RbfNet {
            features: get("features"),
            extra_inputs: if inputs.is_empty() {
                Vec::new()
            } else {
                inputs.split(',').map(str::to_string).collect()
            },
            sets,
            input_min,
            input_scale,
            centres,
            weights,
            bias: bias.first().copied().unwrap_or(f32::NAN),
            description: md.get("description").cloned(),
        };
        net.validate().map_err(invalid)?;
        Ok(net)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> RbfNet {
        RbfNet {
            features: "test-v1".into(),
            extra_inputs: vec!["d2".into()],
            sets: vec![3],
            input_min: vec![0.0, -1.0],
            input_scale: vec![0.5, 0.25],
            centres: vec![0.0, 0.0, 1.0, 0.5],
            weights: vec![2.0, -1.0],
            bias: 0.5,
            description: Some("tiny".into()),
        }
    }

    #[test]
    fn thin_plate_is_r_squared_log_r() {
        assert_eq!(thin_plate(0.0), 0.0);
        assert_eq!(thin_plate(1.0), 0.0);
        // r = 2: 4 ln 2.
        assert!((thin_plate(4.0) - 4.0 * 2f64.ln()).abs() < 1e-12);
        // r = 0.5: 0.25 ln 0.5 < 0.
        assert!((thin_plate(0.25) - 0.25 * 0.5f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn lane_distances_equal_the_plain_sum() {
        for n in [1, 7, 8, 9, 16, 209, 212] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let plain: f32 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
            assert!(
                (distance2(&a, &b) - plain).abs() < 1e-4 * plain.max(1.0),
                "n = {n}"
            );
        }
    }

    #[test]
    fn prediction_is_worked_by_hand() {
        let net = tiny();
        // Raw (2, 3) scales to (1, 1). Distances²: to (0,0) 2, to (1,0.5) 0.25.
        let expected = 0.5 + 2.0 * thin_plate(2.0) - thin_plate(0.25);
        let got = net.predict(&[2.0, 3.0], &mut Vec::new());
        assert!(
            (f64::from(got) - expected).abs() < 1e-5,
            "{got} vs {expected}"
        );
    }

    #[test]
    fn files_round_trip_and_bad_ones_are_refused() {
        let net = tiny();
        let bytes = net.to_bytes().unwrap();
        assert_eq!(RbfNet::from_bytes(&bytes, "t").unwrap(), net);
        // The same net is always the same bytes (one content id).
        for _ in 0..4 {
            assert_eq!(net.to_bytes().unwrap(), bytes);
        }
        let mut broken = net.clone();
        broken.centres.pop();
        assert!(broken.to_bytes().unwrap_err().contains("centres"));
        let err = RbfNet::from_bytes(b"not a file", "x.safetensors").unwrap_err();
        assert!(err.to_string().contains("x.safetensors"), "{err}");
        // A file of another family is not an RBF net.
        let mut md = net.metadata();
        md.insert("arch".into(), "mlp".into());
        let other = net.serialize(md).unwrap();
        let err = RbfNet::from_bytes(&other, "mlp.safetensors").unwrap_err();
        assert!(err.to_string().contains("rbf-fm"), "{err}");
        assert!(is_rbf_file(&bytes) && !is_rbf_file(&other) && !is_rbf_file(b"junk"));
    }

    #[test]
    fn a_non_symmetric_partition_round_trips_and_a_wrong_one_is_refused() {
        let mut net = tiny();
        net.sets = vec![4, 7];
        assert_eq!(net.sets_label(), "non-symmetric, s = 4..7, mean 5.50");
        assert_eq!(tiny().sets_label(), "s = 3");
        let bytes = net.to_bytes().unwrap();
        assert_eq!(RbfNet::from_bytes(&bytes, "t").unwrap().sets, vec![4, 7]);
        for bad in [vec![3, 3, 3], vec![1], vec![]] {
            net.sets = bad.clone();
            let err = net.to_bytes().unwrap_err();
            assert!(err.contains("`sets`"), "{bad:?}: {err}");
        }
        let mut md = tiny().metadata();
        md.insert("sets".into(), "6,x".into());
        let err = RbfNet::from_bytes(&tiny().serialize(md).unwrap(), "s.safetensors").unwrap_err();
        assert!(
            err.to_string().contains("metadata `sets` is `6,x`"),
            "{err}"
        );
    }
}
