//! The net file and libtorch: a `VarStore`'s parameters to a [`NetFile`] and back, and
//! saving a module.

use super::{content_id, NetError, NetFile, NetMeta, TensorData};
use std::path::Path;
use tch::nn::VarStore;
use tch::Tensor;

impl NetFile {
    /// Copies the parameters out of a VarStore built by [`super::NetModule::new`].
    pub fn from_varstore(meta: NetMeta, vs: &VarStore) -> Result<Self, NetError> {
        let vars = vs.variables();
        let widths = meta.arch.describe();
        let expected = meta.arch.tensor_shapes();
        if let Some(extra) = vars.keys().find(|k| !expected.iter().any(|(n, _)| n == *k)) {
            return Err(NetError::UnexpectedTensor {
                origin: "the VarStore".to_string(),
                name: extra.clone(),
                widths,
            });
        }
        let mut tensors = Vec::with_capacity(expected.len());
        for (name, shape) in expected {
            let var = vars.get(&name).ok_or_else(|| NetError::MissingTensor {
                origin: "the VarStore".to_string(),
                name: name.clone(),
                widths: widths.clone(),
            })?;
            let found: Vec<usize> = var.size().iter().map(|&d| d as usize).collect();
            if found != shape {
                return Err(NetError::ShapeMismatch {
                    origin: "the VarStore".to_string(),
                    name,
                    expected: shape,
                    found,
                    widths,
                });
            }
            let n = shape.iter().product();
            let mut values = vec![0f32; n];
            var.f_to_kind(tch::Kind::Float)
                .and_then(|t| t.f_copy_data(&mut values, n))
                .map_err(|e| NetError::torch(&format!("reading tensor {name}"), e))?;
            tensors.push((name, TensorData { shape, values }));
        }
        Ok(NetFile {
            meta,
            tensors,
            content_id: String::new(),
        })
    }

    /// Overwrites every parameter of a VarStore built by [`super::NetModule::new`] with this net's
    /// weights; the VarStore must have exactly this net's tensors.
    pub fn copy_into(&self, vs: &VarStore) -> Result<(), NetError> {
        let vars = vs.variables();
        let widths = self.meta.arch.describe();
        if vars.len() != self.tensors.len() {
            return Err(NetError::BadConfig(format!(
                "the VarStore has {} tensors, the net {} (widths {widths})",
                vars.len(),
                self.tensors.len()
            )));
        }
        tch::no_grad(|| {
            for (name, data) in &self.tensors {
                let mut var = vars
                    .get(name)
                    .ok_or_else(|| NetError::MissingTensor {
                        origin: "the VarStore".to_string(),
                        name: name.clone(),
                        widths: widths.clone(),
                    })?
                    .shallow_clone();
                let shape: Vec<i64> = data.shape.iter().map(|&d| d as i64).collect();
                Tensor::f_from_slice(&data.values)
                    .and_then(|t| t.f_view(shape.as_slice()))
                    .and_then(|t| var.f_copy_(&t))
                    .map_err(|e| NetError::torch(&format!("copying tensor {name}"), e))?;
            }
            Ok(())
        })
    }
}

/// Serialises a VarStore built by [`super::NetModule::new`] with its metadata.
pub fn to_bytes(meta: &NetMeta, vs: &VarStore) -> Result<Vec<u8>, NetError> {
    NetFile::from_varstore(meta.clone(), vs)?.to_bytes()
}

/// Writes a net file; returns its [`content_id`].
pub fn save(path: &Path, meta: &NetMeta, vs: &VarStore) -> Result<String, NetError> {
    let bytes = to_bytes(meta, vs)?;
    write_atomically(path, &bytes)?;
    Ok(content_id(&bytes))
}

/// Writes beside `path` and renames, so a reader never sees a half-written net.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), NetError> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".tmp-{}-{n}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    result.map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        NetError::Write {
            path: path.display().to_string(),
            source,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{craft, err_of, good_pairs, raw_tensors, temp_path};
    use super::*;
    use crate::chess::ENCODING_NAME;
    use crate::net::file::{load, load_bytes, FORMAT_NAME};
    use crate::net::seed::seeded;
    use crate::net::{init_net, Mlp};
    use tch::{Device, Kind};

    #[test]
    fn init_is_deterministic_and_seed_sensitive() {
        let (a, b, c) = (temp_path("a.st"), temp_path("b.st"), temp_path("c.st"));
        let ida = init_net("small", 7, &a).expect("init works");
        let idb = init_net("small", 7, &b).expect("init works");
        init_net("small", 8, &c).expect("init works");
        let (ba, bb, bc) = (
            std::fs::read(&a).expect("written"),
            std::fs::read(&b).expect("written"),
            std::fs::read(&c).expect("written"),
        );
        assert_eq!(ba, bb);
        assert_ne!(ba, bc);
        assert_eq!(ida, idb);
        assert_eq!(ida, content_id(&ba));
        assert_eq!(ida.len(), 12);
        assert!(init_net("nope", 1, &a).is_err());
    }

    #[test]
    fn save_load_gives_identical_outputs() {
        let meta = NetMeta::for_preset("small").expect("preset exists");
        let vs = VarStore::new(Device::Cpu);
        let arch = meta.arch.mlp().expect("an mlp preset");
        let (mlp, x) = seeded(3, || {
            let mlp = Mlp::new(&vs.root(), arch);
            (mlp, Tensor::rand([16, 768], (Kind::Float, Device::Cpu)))
        });
        let path = temp_path("roundtrip.st");
        save(&path, &meta, &vs).expect("saves");

        let net = load(&path).expect("loads");
        let vs2 = VarStore::new(Device::Cpu);
        let mlp2 = Mlp::new(&vs2.root(), net.meta.arch.mlp().expect("an mlp"));
        net.copy_into(&vs2).expect("copies");

        let (y1, y2) = tch::no_grad(|| (mlp.forward(&x), mlp2.forward(&x)));
        let (mut a, mut b) = ([0f32; 16], [0f32; 16]);
        y1.copy_data(&mut a, 16);
        y2.copy_data(&mut b, 16);
        assert_eq!(a, b);
    }

    #[test]
    fn a_cnn_net_round_trips_and_its_metadata_is_checked() {
        for (preset, family) in [
            ("mocha", "cnn"),
            ("mocha-relu-bn", "cnn"),
            ("convchess", "convchess-policy"),
        ] {
            let path = temp_path(&format!("{preset}.st"));
            init_net(preset, 3, &path).expect("init works");
            let net = load(&path).expect("a fresh net loads");
            assert_eq!(net.meta, NetMeta::for_preset(preset).expect("preset"));
            assert_eq!(net.meta.arch.family_name(), family);
            let vs = VarStore::new(Device::Cpu);
            crate::net::NetModule::zeroed(&vs.root(), &net.meta.arch);
            net.copy_into(&vs).expect("copies into a zeroed module");
            let back = NetFile::from_varstore(net.meta.clone(), &vs).expect("copies out");
            assert_eq!(back.tensors, net.tensors, "{preset}");
        }
        let path = temp_path("mocha.st");
        let t = raw_tensors(&load(&path).expect("loads"));
        let spec = "in=mocha7 c1=400x4 pool c2=200x2 fc=70 fc_act=sigmoid dropout=0.2";
        let pairs = |layers: &'static str, encoding: &'static str| {
            let mut p = vec![
                ("format", FORMAT_NAME),
                ("format_version", "1"),
                ("arch", "cnn"),
                ("preset", "mocha"),
                ("cp_per_unit", "100"),
                ("encoding", encoding),
            ];
            if !layers.is_empty() {
                p.push(("layers", layers));
            }
            p
        };
        assert!(load_bytes(&craft(&pairs(spec, "mocha7-abs-v1"), &t), "ok").is_ok());
        let e = err_of(&craft(&pairs(spec, ENCODING_NAME), &t));
        assert!(
            matches!(e, NetError::EncodingMismatch { ref engine, .. } if engine == "mocha7-abs-v1"),
            "{e}"
        );
        let e = err_of(&craft(&pairs("", "mocha7-abs-v1"), &t));
        assert!(
            matches!(e, NetError::BadMetadata { ref key, .. } if key == "layers"),
            "{e}"
        );
        let e = err_of(&craft(
            &pairs("in=mocha7 c1=400x4 c2=9x99", "mocha7-abs-v1"),
            &t,
        ));
        assert!(
            matches!(e, NetError::BadMetadata { ref key, .. } if key == "layers"),
            "{e}"
        );
        let wider = "in=mocha7 c1=400x4 pool c2=200x2 fc=71 fc_act=sigmoid dropout=0.2";
        let e = err_of(&craft(&pairs(wider, "mocha7-abs-v1"), &t));
        assert!(
            matches!(e, NetError::ShapeMismatch { ref name, .. } if name.starts_with("fc")),
            "{e}"
        );
        // CNN weights under MLP metadata are refused, not half-loaded.
        let e = err_of(&craft(&good_pairs(), &t));
        assert!(matches!(e, NetError::UnexpectedTensor { .. }), "{e}");
    }
}
