//! Which device inference runs on, chosen by the user as text.

#[cfg(feature = "torch")]
use super::NetError;

choice_enum! {
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
    pub enum DeviceChoice("device") {
        /// CUDA when this build and machine have it, else CPU.
        #[default]
        Auto = "auto",
        Cpu = "cpu",
        Cuda = "cuda",
    }
}

/// Whether libtorch can reach a CUDA device; never in a build without libtorch.
pub fn cuda_available() -> bool {
    #[cfg(feature = "torch")]
    return tch::Cuda::is_available();
    #[cfg(not(feature = "torch"))]
    false
}

impl DeviceChoice {
    /// Whether a net set to this choice runs on CUDA.
    pub fn on_cuda(self) -> bool {
        self != DeviceChoice::Cpu && cuda_available()
    }

    #[cfg(feature = "torch")]
    pub fn resolve(self) -> Result<tch::Device, NetError> {
        match self {
            DeviceChoice::Cpu => Ok(tch::Device::Cpu),
            DeviceChoice::Auto if tch::Cuda::is_available() => Ok(tch::Device::Cuda(0)),
            DeviceChoice::Auto => Ok(tch::Device::Cpu),
            DeviceChoice::Cuda if tch::Cuda::is_available() => Ok(tch::Device::Cuda(0)),
            DeviceChoice::Cuda => Err(NetError::CudaUnavailable),
        }
    }
}

/// "cpu", "cuda:0", … as shown in `EvalInfo::device`.
#[cfg(feature = "torch")]
pub fn device_name(device: tch::Device) -> String {
    match device {
        tch::Device::Cpu => "cpu".to_string(),
        tch::Device::Cuda(i) => format!("cuda:{i}"),
        other => format!("{other:?}").to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_case_insensitively() {
        assert_eq!(
            "AUTO".parse::<DeviceChoice>().ok(),
            Some(DeviceChoice::Auto)
        );
        assert_eq!(
            " cpu ".parse::<DeviceChoice>().ok(),
            Some(DeviceChoice::Cpu)
        );
        assert_eq!(
            "Cuda".parse::<DeviceChoice>().ok(),
            Some(DeviceChoice::Cuda)
        );
        for c in [DeviceChoice::Auto, DeviceChoice::Cpu, DeviceChoice::Cuda] {
            assert_eq!(c.to_string().parse::<DeviceChoice>().ok(), Some(c));
        }
    }

    #[test]
    fn rejects_unknown_with_the_valid_choices() {
        let msg = "gpu"
            .parse::<DeviceChoice>()
            .expect_err("gpu is not a choice");
        assert!(
            msg.contains("gpu") && msg.contains("auto, cpu or cuda"),
            "{msg}"
        );
    }

    #[test]
    #[cfg(feature = "torch")]
    fn resolve_follows_cuda_availability() {
        assert_eq!(DeviceChoice::Cpu.resolve().ok(), Some(tch::Device::Cpu));
        let cuda = tch::Cuda::is_available();
        let auto = DeviceChoice::Auto.resolve().expect("auto always resolves");
        assert_eq!(auto.is_cuda(), cuda);
        match DeviceChoice::Cuda.resolve() {
            Ok(d) => assert!(cuda && d.is_cuda()),
            Err(e) => {
                assert!(!cuda);
                let msg = e.to_string();
                assert!(msg.contains("scripts/libtorch.sh --cuda"), "{msg}");
                assert!(msg.contains("--features cuda"), "{msg}");
            }
        }
    }

    #[test]
    #[cfg(feature = "torch")]
    fn device_names() {
        assert_eq!(device_name(tch::Device::Cpu), "cpu");
        assert_eq!(device_name(tch::Device::Cuda(1)), "cuda:1");
    }
}
