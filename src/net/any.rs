//! A net file of any family, told apart by its `arch` metadata: the tensor nets (MLP, CNN,
//! policy; [`NetFile`]) and the RBF net ([`RbfNet`]), whose parts are not a module's
//! tensors and which therefore has its own reader.

use super::file::{content_id, load_bytes, NetFile};
use super::rbf::{is_rbf_file, RbfNet};
use super::NetError;
use std::path::Path;

/// A validated net of any family.
#[derive(Debug)]
pub enum AnyNet {
    Tensors(NetFile),
    Rbf {
        net: RbfNet,
        /// [`content_id`] of the file's bytes, which names an RBF net.
        content_id: String,
    },
}

/// Reads and validates the net file at `path`, whatever its family.
pub fn load_any(path: &Path) -> Result<AnyNet, NetError> {
    let bytes = std::fs::read(path).map_err(|source| NetError::Read {
        path: path.display().to_string(),
        source,
    })?;
    load_any_bytes(&bytes, &path.display().to_string())
}

/// As [`load_any`] for a net held in memory; `origin` names it in errors.
pub fn load_any_bytes(bytes: &[u8], origin: &str) -> Result<AnyNet, NetError> {
    if is_rbf_file(bytes) {
        Ok(AnyNet::Rbf {
            net: RbfNet::from_bytes(bytes, origin)?,
            content_id: content_id(bytes),
        })
    } else {
        Ok(AnyNet::Tensors(load_bytes(bytes, origin)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("nets")
            .join(name)
    }

    #[test]
    fn every_family_is_recognised_and_load_names_the_rbf_one() {
        let rbf = shipped("cerise-rbf-s3-95c71a4fb284.safetensors");
        match load_any(&rbf).expect("the shipped RBF net loads") {
            AnyNet::Rbf { content_id, net } => {
                assert_eq!(content_id, "95c71a4fb284");
                assert!(net.centres_count() > 0);
            }
            AnyNet::Tensors(_) => panic!("an RBF file read as a tensor net"),
        }
        // The tensor-net reader says what the file is instead of "unknown arch".
        let e = crate::net::load(&rbf).unwrap_err();
        assert!(matches!(e, NetError::RbfNotTensors { .. }), "{e}");
        assert!(e.to_string().contains("EvalFile"), "{e}");
        for name in [
            "cerise-narrow-as-4d5eebc5ebf8.safetensors",
            "cerise-mocha-1ae52c8f0047.safetensors",
            "cerise-convchess-d5616dd926ad.safetensors",
        ] {
            match load_any(&shipped(name)).expect("a shipped net loads") {
                AnyNet::Tensors(net) => {
                    assert_eq!(
                        net.meta.arch,
                        crate::net::load(&shipped(name)).unwrap().meta.arch
                    )
                }
                AnyNet::Rbf { .. } => panic!("{name} read as an RBF net"),
            }
        }
        let e = load_any_bytes(b"junk", "junk.safetensors").unwrap_err();
        assert!(e.to_string().contains("junk.safetensors"), "{e}");
    }
}
