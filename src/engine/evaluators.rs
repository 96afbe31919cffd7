//! `EvalFile` values to evaluators: `<embedded>`, `<material>`, `<fake>`, or the path of a net.

use super::options::{EVAL_EMBEDDED, EVAL_FAKE, EVAL_MATERIAL};
use crate::eval::{
    Backend, Evaluator, FakeEvaluator, MaterialEvaluator, NativeEvaluator, NetEvaluator,
    NetEvaluatorConfig, Precision, RbfEvaluator,
};
use crate::net::device::DeviceChoice;
use crate::net::rbf::RbfNet;
use crate::net::{NetError, NetFile};
use std::path::Path;
use std::sync::Arc;

/// Builds the evaluator named by `spec`; a net is loaded (and checked) now, on `device`.
/// Blocks while a net loads.
pub fn load_evaluator(spec: &str, device: DeviceChoice) -> Result<Arc<dyn Evaluator>, String> {
    load_evaluator_with(spec, device, NetEvaluatorConfig::default())
}

/// As [`load_evaluator`], with the batching settings a net evaluator uses.
pub fn load_evaluator_with(
    spec: &str,
    device: DeviceChoice,
    config: NetEvaluatorConfig,
) -> Result<Arc<dyn Evaluator>, String> {
    let spec = spec.trim();
    if spec.eq_ignore_ascii_case(EVAL_MATERIAL) || spec.eq_ignore_ascii_case("material") {
        return Ok(Arc::new(MaterialEvaluator));
    }
    if spec.eq_ignore_ascii_case(EVAL_FAKE) || spec.eq_ignore_ascii_case("fake") {
        return Ok(Arc::new(FakeEvaluator::new()));
    }
    let (net, origin) = if spec.eq_ignore_ascii_case(EVAL_EMBEDDED)
        || spec.eq_ignore_ascii_case("embedded")
    {
        crate::eval::embedded::net().map_err(|e| format!("cannot load the embedded net: {e}"))?
    } else {
        let path = Path::new(spec);
        if !path.is_file() {
            return Err(format!(
                "no net file at '{}'; use {EVAL_EMBEDDED}, {EVAL_MATERIAL}, {EVAL_FAKE} or the \
                 path of a .safetensors net",
                path.display()
            ));
        }
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read EvalFile '{}': {e}", path.display()))?;
        if crate::net::rbf::is_rbf_file(&bytes) {
            let net = RbfNet::from_bytes(&bytes, spec)
                .map_err(|e| format!("cannot load EvalFile '{spec}': {e}"))?;
            let id = crate::net::file::content_id(&bytes);
            return Ok(Arc::new(RbfEvaluator::new(net, spec, &id)?));
        }
        let net = crate::net::load_bytes(&bytes, spec)
            .map_err(|e| format!("cannot load EvalFile '{}': {e}", path.display()))?;
        (net, spec.to_string())
    };
    start_net(net, &origin, device, config)
}

/// Runs a validated net on the backend that `config.backend` means on `device`.
fn start_net(
    net: NetFile,
    origin: &str,
    device: DeviceChoice,
    config: NetEvaluatorConfig,
) -> Result<Arc<dyn Evaluator>, String> {
    let fail = |e: NetError| format!("cannot load EvalFile '{origin}': {e}");
    let mut backend = config.backend.resolve(device)?;
    // Auto means "the fastest that runs this net": the native code runs only the MLPs.
    if config.backend == Backend::Auto && net.meta.arch.mlp().is_none() {
        backend = Backend::Torch;
    }
    match backend {
        Backend::Native if config.precision != Precision::Fp32 => Err(format!(
            "Precision {} needs the torch backend on a CUDA device; the native backend runs \
             fp32",
            config.precision
        )),
        Backend::Native => Ok(Arc::new(
            NativeEvaluator::from_net(&net, origin).map_err(fail)?,
        )),
        _ => Ok(Arc::new(
            NetEvaluator::from_net(net, origin, device, config).map_err(fail)?,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_names_need_no_file_and_score_as_their_evaluators() {
        let boards = crate::chess::sample_boards(40);
        let scores = |spec: &str| {
            let eval = load_evaluator(spec, DeviceChoice::Cpu).unwrap();
            let mut out = Vec::new();
            eval.evaluate(&boards, &mut out).unwrap();
            out
        };
        let material: Vec<f32> = boards
            .iter()
            .map(|b| MaterialEvaluator::score(b) as f32)
            .collect();
        let fake: Vec<f32> = boards.iter().map(FakeEvaluator::score).collect();
        assert_ne!(material, fake, "the two built-ins are told apart");
        for spec in ["<material>", "material", " <MATERIAL> "] {
            assert_eq!(scores(spec), material, "{spec:?}");
        }
        for spec in ["<FAKE>", "fake"] {
            assert_eq!(scores(spec), fake, "{spec:?}");
        }
        // A near miss is a file name, and there is no such file.
        assert!(load_evaluator("<materia>", DeviceChoice::Cpu).is_err());
    }

    #[test]
    fn missing_file_is_a_clear_error() {
        let e = match load_evaluator("/nonexistent/net.safetensors", DeviceChoice::Cpu) {
            Ok(_) => panic!("a missing file loaded"),
            Err(e) => e,
        };
        assert!(
            e.contains("/nonexistent/net.safetensors") && e.contains("no net file"),
            "{e}"
        );
    }

    #[test]
    fn a_cnn_net_runs_on_torch_and_native_says_why_it_cannot() {
        let dir = std::env::temp_dir().join(format!("cerise-evalfile-cnn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mocha.safetensors");
        crate::net::init_net("mocha", 1, &path).unwrap();
        let spec = path.to_str().unwrap();
        let eval = load_evaluator(spec, DeviceChoice::Cpu).expect("auto runs a cnn on torch");
        assert_eq!(eval.info().backend, Some(Backend::Torch));
        let native = NetEvaluatorConfig {
            backend: Backend::Native,
            ..NetEvaluatorConfig::default()
        };
        let e = match load_evaluator_with(spec, DeviceChoice::Cpu, native) {
            Ok(_) => panic!("the native backend ran a cnn"),
            Err(e) => e,
        };
        assert!(e.contains("only mlp") && e.contains("Backend torch"), "{e}");
        let policy = dir.join("convchess.safetensors");
        crate::net::init_net("convchess", 1, &policy).unwrap();
        let e = match load_evaluator(policy.to_str().unwrap(), DeviceChoice::Cpu) {
            Ok(_) => panic!("a policy net became the evaluator"),
            Err(e) => e,
        };
        assert!(e.contains("scores moves, not positions"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fresh_net_loads_and_a_corrupt_one_is_refused() {
        let dir = std::env::temp_dir().join(format!("cerise-evalfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("small.safetensors");
        crate::net::init_net("small", 1, &good).unwrap();
        let eval = load_evaluator(good.to_str().unwrap(), DeviceChoice::Cpu).unwrap();
        assert_eq!(eval.info().device, "cpu");
        let bad = dir.join("bogus.safetensors");
        std::fs::write(&bad, b"\x08\0\0\0\0\0\0\0{}garbage").unwrap();
        let e = match load_evaluator(bad.to_str().unwrap(), DeviceChoice::Cpu) {
            Ok(_) => panic!("a corrupt net loaded"),
            Err(e) => e,
        };
        assert!(e.contains("bogus.safetensors"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
