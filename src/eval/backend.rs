//! Which implementation runs a net: libtorch (the reference, the trainer's, the GPU path) or
//! the native CPU code in `eval::native`. Both read the same `.safetensors` file.

use crate::net::DeviceChoice;
use std::str::FromStr;

/// How a build without the `torch` feature starts refusing what needs libtorch.
pub const NO_LIBTORCH: &str = "this build has no libtorch (it was built without the `torch` \
     feature, e.g. by `make`); build with default features (`cargo build --release`, or \
     scripts/setup.sh) for the torch backend, CUDA, and CNN and policy nets";

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Native unless CUDA is asked for by name (`Device cuda`): on one H200 the native code
    /// on that machine's CPUs searched 11× the nodes a second of libtorch on the GPU fed by 16
    /// threads (bench/records/gpu.md), so a GPU found by `Device auto` is left to
    /// the nets the native code does not run.
    #[default]
    Auto,
    Native,
    Torch,
}

impl Backend {
    /// The backend `self` means on `device` (never `Auto`). `Native` with an explicit
    /// `cuda` device is refused: the native code runs on the CPU only.
    pub fn resolve(self, device: DeviceChoice) -> Result<Backend, String> {
        #[cfg(not(feature = "torch"))]
        if self == Backend::Torch {
            return Err(format!("{NO_LIBTORCH}; Backend torch needs it"));
        } else if device == DeviceChoice::Cuda {
            return Err(format!("{NO_LIBTORCH}; Device cuda needs it"));
        }
        match (self, device) {
            (Backend::Native, DeviceChoice::Cuda) => Err(
                "Backend native runs on the CPU only; set Device to cpu (or auto), or Backend \
                 to torch for CUDA"
                    .to_string(),
            ),
            (Backend::Native, _) => Ok(Backend::Native),
            (Backend::Torch, _) => Ok(Backend::Torch),
            (Backend::Auto, DeviceChoice::Cpu | DeviceChoice::Auto) => Ok(Backend::Native),
            (Backend::Auto, DeviceChoice::Cuda) => Ok(Backend::Torch),
        }
    }
}

impl FromStr for Backend {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Backend::Auto),
            "native" => Ok(Backend::Native),
            "torch" => Ok(Backend::Torch),
            _ => Err(format!(
                "unknown backend '{}'; use auto, native or torch",
                text.trim()
            )),
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Auto => "auto",
            Backend::Native => "native",
            Backend::Torch => "torch",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_every_name() {
        for b in [Backend::Auto, Backend::Native, Backend::Torch] {
            assert_eq!(b.to_string().parse::<Backend>(), Ok(b));
        }
        assert_eq!(" NATIVE ".parse::<Backend>(), Ok(Backend::Native));
        let e = "onnx".parse::<Backend>().unwrap_err();
        assert!(e.contains("onnx") && e.contains("native"), "{e}");
    }

    #[test]
    #[cfg(feature = "torch")]
    fn auto_is_native_unless_cuda_is_named() {
        for device in [DeviceChoice::Cpu, DeviceChoice::Auto] {
            assert_eq!(Backend::Auto.resolve(device), Ok(Backend::Native));
        }
        assert_eq!(
            Backend::Auto.resolve(DeviceChoice::Cuda),
            Ok(Backend::Torch)
        );
        assert_eq!(
            Backend::Torch.resolve(DeviceChoice::Cpu),
            Ok(Backend::Torch)
        );
        let e = Backend::Native.resolve(DeviceChoice::Cuda).unwrap_err();
        assert!(e.contains("CPU only"), "{e}");
    }

    #[test]
    #[cfg(not(feature = "torch"))]
    fn without_libtorch_only_the_native_backend_on_the_cpu_resolves() {
        for device in [DeviceChoice::Auto, DeviceChoice::Cpu] {
            assert_eq!(Backend::Auto.resolve(device), Ok(Backend::Native));
            assert_eq!(Backend::Native.resolve(device), Ok(Backend::Native));
        }
        for (backend, device) in [
            (Backend::Torch, DeviceChoice::Cpu),
            (Backend::Torch, DeviceChoice::Auto),
            (Backend::Auto, DeviceChoice::Cuda),
            (Backend::Native, DeviceChoice::Cuda),
        ] {
            let e = backend.resolve(device).unwrap_err();
            assert!(e.starts_with("this build has no libtorch"), "{e}");
        }
    }
}
