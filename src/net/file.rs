//! The net file: safetensors holding a family's tensors as F32 (`l{i}.weight` / `l{i}.bias`
//! for an MLP, `conv1.weight` … for a CNN), plus metadata that says exactly what the weights
//! mean. Loading checks all of it; a net that does not match
//! this engine is refused with a [`NetError`], never replaced by random weights.

use super::{Arch, CnnArch, Form, ModelArch, NetError, PolicyArch};
use safetensors::{Dtype, SafeTensors};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;

#[cfg(feature = "torch")]
mod torch;
#[cfg(feature = "torch")]
pub use torch::{save, to_bytes};

pub const FORMAT_NAME: &str = "cerise-net";
pub const FORMAT_VERSION: u32 = 1;
pub const DEFAULT_CP_PER_UNIT: f32 = 100.0;
/// The scale of a win/loss net: cp = 400·log10(p / (1 − p)) = logit · 400 / ln 10, the Elo
/// formula's reading of a win probability as a score.
pub const LOGISTIC_CP_PER_LOGIT: f32 = 400.0 / std::f32::consts::LN_10;

/// What the weights mean, as stored in the safetensors `__metadata__`.
#[derive(Clone, Debug, PartialEq)]
pub struct NetMeta {
    /// The preset the shape came from, or any label for a custom shape.
    pub preset: String,
    pub arch: ModelArch,
    /// The board encoding the net was trained on; must equal `arch.encoding()` to load.
    pub encoding: String,
    /// Centipawns per unit of raw network output (see the sign convention in `mlp`).
    pub cp_per_unit: f32,
    pub description: Option<String>,
}

impl NetMeta {
    /// Metadata for a fresh net of a preset, on this engine's encoding.
    pub fn for_preset(preset: &str) -> Result<Self, NetError> {
        let arch = ModelArch::preset(preset)?;
        let cp_per_unit = match arch {
            ModelArch::Mlp(_) | ModelArch::Policy(_) => DEFAULT_CP_PER_UNIT,
            ModelArch::Cnn(_) => LOGISTIC_CP_PER_LOGIT,
        };
        Ok(NetMeta {
            preset: preset.to_ascii_lowercase(),
            encoding: arch.encoding().to_string(),
            arch,
            cp_per_unit,
            description: None,
        })
    }

    fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let shape = match &self.arch {
            ModelArch::Mlp(a) => ("widths", a.widths_string()),
            ModelArch::Cnn(c) => ("layers", c.spec()),
            ModelArch::Policy(p) => ("layers", p.spec()),
        };
        let mut pairs = vec![
            ("arch", self.arch.family_name().to_string()),
            ("cp_per_unit", self.cp_per_unit.to_string()),
            ("encoding", self.encoding.clone()),
            ("format", FORMAT_NAME.to_string()),
            ("format_version", FORMAT_VERSION.to_string()),
            ("preset", self.preset.clone()),
            shape,
        ];
        if let Some(d) = &self.description {
            pairs.push(("description", d.clone()));
        }
        pairs.sort();
        pairs
    }
}

/// One parameter tensor in host memory.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorData {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
}

/// A validated net: its metadata and every tensor its architecture needs, in host memory,
/// so it can be moved to the thread that will own the libtorch module.
#[derive(Clone, Debug, PartialEq)]
pub struct NetFile {
    pub meta: NetMeta,
    pub tensors: Vec<(String, TensorData)>,
    /// [`content_id`] of the bytes it was read from or written to.
    pub content_id: String,
}

/// First 12 hex digits of the SHA-256 of a net file, naming its weights.
pub fn content_id(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

impl NetFile {
    /// Serialises to safetensors bytes. The header is canonical (metadata keys and tensor
    /// names sorted), so the same weights and metadata always give the same bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, NetError> {
        let raw: Vec<(String, Vec<usize>, Vec<u8>)> = self
            .tensors
            .iter()
            .map(|(name, t)| {
                let bytes = t.values.iter().flat_map(|v| v.to_le_bytes()).collect();
                (name.clone(), t.shape.clone(), bytes)
            })
            .collect();
        let views = raw
            .iter()
            .map(|(name, shape, bytes)| {
                safetensors::tensor::TensorView::new(Dtype::F32, shape.clone(), bytes)
                    .map(|v| (name.clone(), v))
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| {
                NetError::BadConfig(format!("tensor data does not match its shape: {e}"))
            })?;
        // The crate writes metadata from a randomly-ordered HashMap, which would make files
        // differ run to run; write tensors with it and splice in sorted metadata ourselves.
        let plain = safetensors::serialize(views, None)
            .map_err(|e| NetError::BadConfig(format!("cannot serialise tensors: {e}")))?;
        let bytes = splice_metadata(&plain, &self.meta.to_pairs());
        // Never write a file this engine could not read back.
        SafeTensors::deserialize(&bytes).map_err(|e| NetError::NotSafetensors {
            origin: "the serialised net".to_string(),
            reason: e.to_string(),
        })?;
        Ok(bytes)
    }
}

/// Reads and validates a net file.
pub fn load(path: &Path) -> Result<NetFile, NetError> {
    let bytes = std::fs::read(path).map_err(|source| NetError::Read {
        path: path.display().to_string(),
        source,
    })?;
    load_bytes(&bytes, &path.display().to_string())
}

/// Validates a net held in memory (e.g. embedded with `include_bytes!`); `origin` names it
/// in errors.
pub fn load_bytes(bytes: &[u8], origin: &str) -> Result<NetFile, NetError> {
    let not_st = |reason: String| NetError::NotSafetensors {
        origin: origin.to_string(),
        reason,
    };
    let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| not_st(e.to_string()))?;
    let st = SafeTensors::deserialize(bytes).map_err(|e| not_st(e.to_string()))?;
    let empty = HashMap::new();
    let md = header.metadata().as_ref().unwrap_or(&empty);
    let meta = parse_meta(md, origin)?;
    let widths = meta.arch.describe();

    let expected = meta.arch.tensor_shapes();
    if let Some(extra) = st
        .names()
        .into_iter()
        .find(|n| !expected.iter().any(|(e, _)| e == n))
    {
        return Err(NetError::UnexpectedTensor {
            origin: origin.to_string(),
            name: extra.to_string(),
            widths,
        });
    }
    let mut tensors = Vec::with_capacity(expected.len());
    for (name, shape) in expected {
        let view = st.tensor(&name).map_err(|_| NetError::MissingTensor {
            origin: origin.to_string(),
            name: name.clone(),
            widths: widths.clone(),
        })?;
        if view.dtype() != Dtype::F32 {
            return Err(NetError::WrongDtype {
                origin: origin.to_string(),
                name,
                found: format!("{:?}", view.dtype()),
            });
        }
        if view.shape() != shape.as_slice() {
            return Err(NetError::ShapeMismatch {
                origin: origin.to_string(),
                name,
                expected: shape,
                found: view.shape().to_vec(),
                widths,
            });
        }
        let values: Vec<f32> = view
            .data()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
            return Err(NetError::BadMetadata {
                origin: origin.to_string(),
                key: name,
                value: bad.to_string(),
                reason: "weights must be finite; the net diverged in training or is corrupt"
                    .to_string(),
            });
        }
        tensors.push((name, TensorData { shape, values }));
    }
    Ok(NetFile {
        meta,
        tensors,
        content_id: content_id(bytes),
    })
}

fn parse_meta(md: &HashMap<String, String>, origin: &str) -> Result<NetMeta, NetError> {
    let missing = "(missing)".to_string();
    let get = |key: &str| md.get(key);
    let bad = |key: &str, value: &str, reason: String| NetError::BadMetadata {
        origin: origin.to_string(),
        key: key.to_string(),
        value: value.to_string(),
        reason,
    };
    let format = get("format").unwrap_or(&missing);
    if format != FORMAT_NAME {
        return Err(NetError::WrongFormat {
            origin: origin.to_string(),
            found: format.clone(),
        });
    }
    let version = get("format_version").unwrap_or(&missing);
    if version.trim() != FORMAT_VERSION.to_string() {
        return Err(NetError::UnsupportedVersion {
            origin: origin.to_string(),
            found: version.clone(),
            supported: FORMAT_VERSION,
        });
    }
    let arch_name = get("arch").unwrap_or(&missing);
    let arch = if let Some(form) = Form::from_file_name(arch_name) {
        let widths_text = get("widths").ok_or_else(|| {
            bad(
                "widths",
                "",
                "missing; it lists the layer widths, e.g. 768,256,32,1".to_string(),
            )
        })?;
        let arch = Arch::parse_widths(widths_text, form)
            .map_err(|e| bad("widths", widths_text, e.to_string()))?;
        ModelArch::Mlp(arch)
    } else if arch_name == super::family::CNN_FAMILY {
        let spec = get("layers").ok_or_else(|| {
            bad(
                "layers",
                "",
                "missing; it describes the layers, e.g. in=mocha7 c1=400x4 pool c2=200x2 fc=70"
                    .to_string(),
            )
        })?;
        let arch = CnnArch::parse(spec).map_err(|e| bad("layers", spec, e.to_string()))?;
        ModelArch::Cnn(arch)
    } else if arch_name == super::family::POLICY_FAMILY {
        let spec = get("layers").ok_or_else(|| {
            bad(
                "layers",
                "",
                "missing; it describes the nets, e.g. in=stm6 convs=3 filters=32 fc=128"
                    .to_string(),
            )
        })?;
        let arch = PolicyArch::parse(spec).map_err(|e| bad("layers", spec, e.to_string()))?;
        ModelArch::Policy(arch)
    } else if arch_name == super::family::RBF_FAMILY {
        return Err(NetError::RbfNotTensors {
            origin: origin.to_string(),
            family: arch_name.clone(),
        });
    } else {
        return Err(NetError::UnknownArch {
            origin: origin.to_string(),
            found: arch_name.clone(),
        });
    };
    let encoding = get("encoding").ok_or_else(|| {
        bad(
            "encoding",
            "",
            "missing; it names the board encoding".to_string(),
        )
    })?;
    // A perspective net's encoding says whether it is king-file mirrored (its tensors are
    // the same shapes either way); any other net with that encoding fails the check below.
    let mut arch = arch;
    if let ModelArch::Mlp(a) = &mut arch {
        if encoding == super::mirror::KING_MIRROR_ENCODING && a.form == Form::Perspective {
            a.king_mirror = true;
        }
    }
    if encoding != arch.encoding() {
        return Err(NetError::EncodingMismatch {
            origin: origin.to_string(),
            file: encoding.clone(),
            engine: arch.encoding().to_string(),
        });
    }
    let cp_text = get("cp_per_unit").ok_or_else(|| {
        bad(
            "cp_per_unit",
            "",
            "missing; it scales the output to centipawns".to_string(),
        )
    })?;
    let cp_per_unit = cp_text
        .trim()
        .parse::<f32>()
        .ok()
        .filter(|c| c.is_finite() && *c > 0.0)
        .ok_or_else(|| {
            bad(
                "cp_per_unit",
                cp_text,
                "must be a positive number".to_string(),
            )
        })?;
    let preset = get("preset")
        .ok_or_else(|| bad("preset", "", "missing; it labels the shape".to_string()))?
        .clone();
    Ok(NetMeta {
        preset,
        arch,
        encoding: encoding.clone(),
        cp_per_unit,
        description: get("description").cloned(),
    })
}

/// Inserts `"__metadata__":{…}` as the first entry of a safetensors header written without
/// metadata. Data offsets are relative to the end of the header, so only the length changes.
pub(crate) fn splice_metadata(plain: &[u8], pairs: &[(&str, String)]) -> Vec<u8> {
    let n = u64::from_le_bytes(plain[..8].try_into().unwrap_or([0; 8])) as usize;
    let header = std::str::from_utf8(&plain[8..8 + n])
        .unwrap_or("{}")
        .trim_end();
    let rest = header.strip_prefix('{').unwrap_or("}");
    let entries: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}:{}", json_string(k), json_string(v)))
        .collect();
    let sep = if rest.trim_start().starts_with('}') {
        ""
    } else {
        ","
    };
    let mut new_header = format!("{{\"__metadata__\":{{{}}}{sep}{rest}", entries.join(","));
    while new_header.len() % 8 != 0 {
        new_header.push(' ');
    }
    let mut out = Vec::with_capacity(8 + new_header.len() + plain.len() - 8 - n);
    out.extend((new_header.len() as u64).to_le_bytes());
    out.extend(new_header.as_bytes());
    out.extend(&plain[8 + n..]);
    out
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A net of `preset` with arbitrary weights drawn from `seed`, through the file format
/// and back: for tests of what reads a net, in builds with or without libtorch (whose
/// `init_net` draws real initial weights).
#[cfg(test)]
pub(crate) fn arbitrary(preset: &str, seed: u64) -> NetFile {
    let meta = NetMeta::for_preset(preset).expect("a known preset");
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let tensors = meta
        .arch
        .tensor_shapes()
        .into_iter()
        .map(|(name, shape)| {
            let values = (0..shape.iter().product::<usize>())
                .map(|_| {
                    // xorshift64, scaled to [-0.05, 0.05).
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) / 10.0
                })
                .collect();
            (name, TensorData { shape, values })
        })
        .collect();
    let net = NetFile {
        meta,
        tensors,
        content_id: String::new(),
    };
    load_bytes(&net.to_bytes().expect("serialises"), preset).expect("loads")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::ENCODING_NAME;

    pub(super) fn temp_path(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("cerise-net-tests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir is writable");
        dir.join(name)
    }

    fn small_net(seed: u64) -> NetFile {
        arbitrary("small", seed)
    }

    /// A file with arbitrary metadata pairs and the given tensors, bypassing `to_pairs`.
    pub(super) fn craft(
        pairs: &[(&str, &str)],
        tensors: &[(String, Dtype, Vec<usize>, Vec<u8>)],
    ) -> Vec<u8> {
        let views: Vec<_> = tensors
            .iter()
            .map(|(n, d, s, b)| {
                let view = safetensors::tensor::TensorView::new(*d, s.clone(), b)
                    .expect("consistent test tensor");
                (n.clone(), view)
            })
            .collect();
        let plain = safetensors::serialize(views, None).expect("serialises");
        let owned: Vec<(&str, String)> = pairs.iter().map(|(k, v)| (*k, v.to_string())).collect();
        splice_metadata(&plain, &owned)
    }

    pub(super) fn good_pairs() -> Vec<(&'static str, &'static str)> {
        vec![
            ("format", FORMAT_NAME),
            ("format_version", "1"),
            ("arch", "mlp"),
            ("widths", "768,256,32,1"),
            ("preset", "small"),
            ("encoding", ENCODING_NAME),
            ("cp_per_unit", "100"),
        ]
    }

    pub(super) fn raw_tensors(net: &NetFile) -> Vec<(String, Dtype, Vec<usize>, Vec<u8>)> {
        net.tensors
            .iter()
            .map(|(n, t)| {
                let bytes = t.values.iter().flat_map(|v| v.to_le_bytes()).collect();
                (n.clone(), Dtype::F32, t.shape.clone(), bytes)
            })
            .collect()
    }

    fn with_pair(key: &'static str, value: &'static str) -> Vec<(&'static str, &'static str)> {
        let mut pairs: Vec<_> = good_pairs()
            .into_iter()
            .filter(|(k, _)| *k != key)
            .collect();
        if !value.is_empty() {
            pairs.push((key, value));
        }
        pairs
    }

    #[test]
    fn metadata_round_trips() {
        let net = small_net(1);
        assert_eq!(
            net.meta,
            NetMeta::for_preset("small").expect("preset exists")
        );
        let mut described = net.clone();
        described.meta.description = Some("quote \" backslash \\ newline \n ü".to_string());
        described.meta.cp_per_unit = 123.5;
        let bytes = described.to_bytes().expect("serialises");
        let back = load_bytes(&bytes, "mem").expect("loads");
        assert_eq!(back.meta, described.meta);
        assert_eq!(back.tensors, described.tensors);
        assert_eq!(back.content_id, content_id(&bytes));
    }

    pub(super) fn err_of(bytes: &[u8]) -> NetError {
        load_bytes(bytes, "crafted").expect_err("crafted file must be refused")
    }

    #[test]
    fn missing_file_and_garbage_are_refused() {
        let err = load(&temp_path("does-not-exist.st")).expect_err("missing");
        assert!(matches!(err, NetError::Read { .. }), "{err}");
        assert!(err.to_string().contains("does-not-exist.st"));
        let err = err_of(b"this is not a net at all");
        assert!(matches!(err, NetError::NotSafetensors { .. }), "{err}");
        let err = err_of(&[]);
        assert!(matches!(err, NetError::NotSafetensors { .. }), "{err}");
    }

    #[test]
    fn a_mirrored_net_is_read_back_mirrored_and_the_encoding_fits_no_other_form() {
        let hm = arbitrary("persp-256-hm", 3);
        assert!(hm.meta.arch.mlp().is_some_and(|a| a.king_mirror));
        assert_eq!(hm.meta.encoding, crate::net::KING_MIRROR_ENCODING);
        let plain = arbitrary("persp-256", 3);
        assert!(plain.meta.arch.mlp().is_some_and(|a| !a.king_mirror));
        assert_eq!(plain.meta.encoding, ENCODING_NAME);
        // The same tensors: only the encoding tells the two apart.
        assert_eq!(hm.tensors, plain.tensors);
        let t = raw_tensors(&small_net(2));
        let e = err_of(&craft(
            &with_pair("encoding", crate::net::KING_MIRROR_ENCODING),
            &t,
        ));
        assert!(matches!(e, NetError::EncodingMismatch { .. }), "{e}");
    }

    #[test]
    fn bad_metadata_is_refused_with_the_right_error() {
        let t = raw_tensors(&small_net(2));
        assert!(load_bytes(&craft(&good_pairs(), &t), "ok").is_ok());

        let e = err_of(&craft(&with_pair("format", "gguf"), &t));
        assert!(
            matches!(e, NetError::WrongFormat { ref found, .. } if found == "gguf"),
            "{e}"
        );
        let e = err_of(&craft(&with_pair("format", ""), &t));
        assert!(matches!(e, NetError::WrongFormat { .. }), "{e}");
        let e = err_of(&craft(&with_pair("format_version", "2"), &t));
        assert!(
            matches!(e, NetError::UnsupportedVersion { ref found, .. } if found == "2"),
            "{e}"
        );
        let e = err_of(&craft(&with_pair("arch", "transformer"), &t));
        assert!(matches!(e, NetError::UnknownArch { .. }), "{e}");
        let e = err_of(&craft(&with_pair("encoding", "halfkp"), &t));
        assert!(
            matches!(e, NetError::EncodingMismatch { ref file, .. } if file == "halfkp"),
            "{e}"
        );
        assert!(e.to_string().contains(ENCODING_NAME));
        let e = err_of(&craft(&with_pair("widths", "768,x,1"), &t));
        assert!(
            matches!(e, NetError::BadMetadata { ref key, .. } if key == "widths"),
            "{e}"
        );
        let e = err_of(&craft(&with_pair("cp_per_unit", "-5"), &t));
        assert!(
            matches!(e, NetError::BadMetadata { ref key, .. } if key == "cp_per_unit"),
            "{e}"
        );
        let e = err_of(&craft(&with_pair("preset", ""), &t));
        assert!(
            matches!(e, NetError::BadMetadata { ref key, .. } if key == "preset"),
            "{e}"
        );
    }

    #[test]
    fn bad_tensors_are_refused_with_the_right_error() {
        let t = raw_tensors(&small_net(4));

        let missing: Vec<_> = t.iter().filter(|x| x.0 != "l1.bias").cloned().collect();
        let e = err_of(&craft(&good_pairs(), &missing));
        assert!(
            matches!(e, NetError::MissingTensor { ref name, .. } if name == "l1.bias"),
            "{e}"
        );

        let mut extra = t.clone();
        extra.push(("l3.weight".to_string(), Dtype::F32, vec![1], vec![0; 4]));
        let e = err_of(&craft(&good_pairs(), &extra));
        assert!(
            matches!(e, NetError::UnexpectedTensor { ref name, .. } if name == "l3.weight"),
            "{e}"
        );

        // The weights are for 768-256-32-1; metadata claiming 768-256-16-1 must not load.
        let e = err_of(&craft(&with_pair("widths", "768,256,16,1"), &t));
        assert!(
            matches!(e, NetError::ShapeMismatch { ref name, .. } if name == "l1.weight"),
            "{e}"
        );

        let mut half = t.clone();
        let idx = half.iter().position(|x| x.0 == "l2.bias").expect("present");
        half[idx] = ("l2.bias".to_string(), Dtype::F16, vec![1], vec![0; 2]);
        let e = err_of(&craft(&good_pairs(), &half));
        assert!(
            matches!(e, NetError::WrongDtype { ref name, .. } if name == "l2.bias"),
            "{e}"
        );

        let mut nan = t.clone();
        nan[idx] = (
            "l2.bias".to_string(),
            Dtype::F32,
            vec![1],
            f32::NAN.to_le_bytes().to_vec(),
        );
        let e = err_of(&craft(&good_pairs(), &nan));
        assert!(
            matches!(e, NetError::BadMetadata { ref key, .. } if key == "l2.bias"),
            "{e}"
        );
    }

    #[test]
    fn content_id_is_sha256_prefix() {
        // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223…
        assert_eq!(content_id(b"abc"), "ba7816bf8f01");
    }
}
