//! Which implementation runs a net: libtorch (the reference, the trainer's, the GPU path) or
//! the native CPU code in `eval::native`. Both read the same `.safetensors` file.

use crate::net::DeviceChoice;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Native on the CPU, libtorch on CUDA.
    #[default]
    Auto,
    Native,
    Torch,
}

impl Backend {
    /// The backend `self` means on `device` (never `Auto`). `Native` with an explicit
    /// `cuda` device is refused: the native code runs on the CPU only.
    pub fn resolve(self, device: DeviceChoice) -> Result<Backend, String> {
        match (self, device) {
            (Backend::Native, DeviceChoice::Cuda) => Err(
                "Backend native runs on the CPU only; set Device to cpu (or auto), or Backend \
                 to torch for CUDA"
                    .to_string(),
            ),
            (Backend::Native, _) => Ok(Backend::Native),
            (Backend::Torch, _) => Ok(Backend::Torch),
            (Backend::Auto, DeviceChoice::Cpu) => Ok(Backend::Native),
            (Backend::Auto, DeviceChoice::Cuda) => Ok(Backend::Torch),
            (Backend::Auto, DeviceChoice::Auto) => Ok(if tch::Cuda::is_available() {
                Backend::Torch
            } else {
                Backend::Native
            }),
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
    fn auto_is_native_on_the_cpu_and_torch_on_cuda() {
        assert_eq!(
            Backend::Auto.resolve(DeviceChoice::Cpu),
            Ok(Backend::Native)
        );
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
}
