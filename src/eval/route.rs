//! The one rule for where and how a net runs: which backend, in which precision, on which
//! device. Only the opener (`eval::open`) consults it; the backends run what it chose and
//! decide nothing, so a setting is refused in one place and with one message.

use super::native::Arithmetic;
use super::{Backend, Precision};
use crate::net::{DeviceChoice, ModelArch};

/// How a net runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The native CPU code in this arithmetic; `None`: int8 where it covers the net, else
    /// the f32 reference.
    Native(Option<Arithmetic>),
    /// libtorch, in fp32 or (on CUDA) a half precision; never `Auto` or `Int8`.
    Torch(Precision),
}

/// The route of a net of `arch` (named `origin` in messages) under the requested backend and
/// precision on `device`. Errors say what to set instead.
pub fn route(
    arch: &ModelArch,
    origin: &str,
    device: DeviceChoice,
    backend: Backend,
    precision: Precision,
) -> Result<Route, String> {
    let mut chosen = backend_on(backend, device)?;
    // Auto means "the fastest that runs this net": the native code runs only the MLPs.
    // Without libtorch that is the only choice, and the refusal should say so.
    let only_native = cfg!(not(feature = "torch"));
    if (backend == Backend::Auto || only_native) && arch.mlp().is_none() {
        chosen = Backend::Torch;
    }
    match (chosen, precision) {
        (Backend::Native, p) if p.is_half() => Err(format!(
            "Precision {p} needs the torch backend on a CUDA device; the native backend runs \
             int8 or fp32"
        )),
        (Backend::Native, Precision::Fp32) => Ok(Route::Native(Some(Arithmetic::F32))),
        (Backend::Native, Precision::Int8) => Ok(Route::Native(Some(Arithmetic::Int8))),
        (Backend::Native, _) => Ok(Route::Native(None)),
        (_, Precision::Int8) => Err(format!(
            "Precision int8 runs on the native backend; the {} net of '{origin}' runs on \
             libtorch: use Precision auto or fp32",
            arch.family_name()
        )),
        // libtorch's fastest that holds its bound is fp32.
        (_, Precision::Auto) => Ok(Route::Torch(Precision::Fp32)),
        (_, p) => {
            // `Device cuda` on a machine without CUDA is refused when the device opens, with
            // the advice that fits.
            half_on(p, device == DeviceChoice::Cuda || device.on_cuda())
                .map_err(|e| format!("{e}; use fp32 on the CPU"))?;
            Ok(Route::Torch(p))
        }
    }
}

/// The backend `backend` means on `device` (never `Auto`): native unless CUDA is asked for
/// by name (see [`Backend::Auto`]). `Native` with an explicit `cuda` device is refused: the
/// native code runs on the CPU only.
pub fn backend_on(backend: Backend, device: DeviceChoice) -> Result<Backend, String> {
    #[cfg(not(feature = "torch"))]
    if backend == Backend::Torch {
        return Err(format!(
            "{}; Backend torch needs it",
            super::backend::NO_LIBTORCH
        ));
    } else if device == DeviceChoice::Cuda {
        return Err(format!(
            "{}; Device cuda needs it",
            super::backend::NO_LIBTORCH
        ));
    }
    match (backend, device) {
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

/// Half precisions run on CUDA only: libtorch's CPU half kernels are slow or missing, and
/// fp32 is exact enough there.
pub fn half_on(precision: Precision, on_cuda: bool) -> Result<(), String> {
    if precision.is_half() && !on_cuda {
        return Err(format!(
            "Precision {precision} needs a CUDA device and the net runs on the CPU"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mlp() -> ModelArch {
        ModelArch::preset("small").expect("a preset")
    }

    #[test]
    #[cfg(feature = "torch")]
    fn auto_is_native_unless_cuda_is_named() {
        for device in [DeviceChoice::Cpu, DeviceChoice::Auto] {
            assert_eq!(backend_on(Backend::Auto, device), Ok(Backend::Native));
        }
        assert_eq!(
            backend_on(Backend::Auto, DeviceChoice::Cuda),
            Ok(Backend::Torch)
        );
        assert_eq!(
            backend_on(Backend::Torch, DeviceChoice::Cpu),
            Ok(Backend::Torch)
        );
        let e = backend_on(Backend::Native, DeviceChoice::Cuda).unwrap_err();
        assert!(e.contains("CPU only"), "{e}");
    }

    #[test]
    #[cfg(not(feature = "torch"))]
    fn without_libtorch_only_the_native_backend_on_the_cpu_resolves() {
        for device in [DeviceChoice::Auto, DeviceChoice::Cpu] {
            assert_eq!(backend_on(Backend::Auto, device), Ok(Backend::Native));
            assert_eq!(backend_on(Backend::Native, device), Ok(Backend::Native));
        }
        for (backend, device) in [
            (Backend::Torch, DeviceChoice::Cpu),
            (Backend::Torch, DeviceChoice::Auto),
            (Backend::Auto, DeviceChoice::Cuda),
            (Backend::Native, DeviceChoice::Cuda),
        ] {
            let e = backend_on(backend, device).unwrap_err();
            assert!(e.starts_with("this build has no libtorch"), "{e}");
        }
    }

    #[test]
    fn each_precision_goes_where_it_runs() {
        let cpu = DeviceChoice::Cpu;
        let native = |p| route(&mlp(), "n", cpu, Backend::Native, p);
        assert_eq!(native(Precision::Auto), Ok(Route::Native(None)));
        assert_eq!(
            native(Precision::Int8),
            Ok(Route::Native(Some(Arithmetic::Int8)))
        );
        assert_eq!(
            native(Precision::Fp32),
            Ok(Route::Native(Some(Arithmetic::F32)))
        );
        let e = native(Precision::Bf16).unwrap_err();
        assert!(
            e.contains("needs the torch backend on a CUDA device"),
            "{e}"
        );
        if cfg!(feature = "torch") {
            let torch = |p| route(&mlp(), "n.safetensors", cpu, Backend::Torch, p);
            assert_eq!(torch(Precision::Auto), Ok(Route::Torch(Precision::Fp32)));
            assert_eq!(torch(Precision::Fp32), Ok(Route::Torch(Precision::Fp32)));
            let e = torch(Precision::Int8).unwrap_err();
            assert!(e.contains("int8 runs on the native backend"), "{e}");
            assert!(e.contains("'n.safetensors'"), "{e}");
            let e = torch(Precision::Fp16).unwrap_err();
            assert!(
                e.contains("needs a CUDA device") && e.contains("use fp32"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_net_the_native_code_cannot_run_goes_to_libtorch_under_auto() {
        let cnn = ModelArch::preset("mocha").expect("a preset");
        // Without libtorch it goes there too, for the opener to refuse saying why.
        let to = route(&cnn, "c", DeviceChoice::Cpu, Backend::Auto, Precision::Auto);
        assert_eq!(to, Ok(Route::Torch(Precision::Fp32)));
        // Named, the native backend keeps it, for the native code to refuse (with libtorch).
        let to = route(
            &cnn,
            "c",
            DeviceChoice::Cpu,
            Backend::Native,
            Precision::Auto,
        );
        let expected = if cfg!(feature = "torch") {
            Route::Native(None)
        } else {
            Route::Torch(Precision::Fp32)
        };
        assert_eq!(to, Ok(expected));
    }

    #[test]
    fn half_precision_needs_cuda() {
        assert!(half_on(Precision::Fp32, false).is_ok());
        assert!(half_on(Precision::Fp16, true).is_ok());
        let e = half_on(Precision::Bf16, false).unwrap_err();
        assert!(e.contains("bf16 needs a CUDA device"), "{e}");
    }
}
