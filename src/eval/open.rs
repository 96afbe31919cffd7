//! From an `EvalFile` value to a running evaluator, in one place: the built-in names, the
//! file's family, the backend and the loading (the route is in the `eval` module's note).
//! A `Policy` file opens here too.

use super::native::{kernels::Simd, Arithmetic};
use super::route::{half_on, route, Route};
use super::{
    Backend, Evaluator, FakeEvaluator, MaterialEvaluator, MovePolicy, NativeEvaluator,
    NetEvaluatorConfig, Precision, RbfEvaluator,
};
use crate::net::{AnyNet, DeviceChoice, NetError, NetFile};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The material count's name.
pub const EVAL_MATERIAL: &str = "<material>";
/// The deterministic test evaluator's name.
pub const EVAL_FAKE: &str = "<fake>";
/// The net compiled into the binary (`crate::eval::embedded`), the default.
pub const EVAL_EMBEDDED: &str = "<embedded>";
/// The Chess960 net compiled into the binary, which `<embedded>` plays under `UCI_Chess960`.
pub const EVAL_EMBEDDED_CHESS960: &str = "<embedded960>";

/// What an `EvalFile` value names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum EvalSpec {
    /// The net compiled into the binary: the Chess960 one where the caller plays Chess960
    /// (see [`EvalSpec::for_variant`]).
    #[default]
    Embedded,
    /// The Chess960 net compiled into the binary, whatever the variant.
    EmbeddedChess960,
    /// The material count (no net).
    Material,
    /// The deterministic evaluator for tests (no net).
    Fake,
    /// A net file: any family the engine plays with (MLP, CNN, RBF).
    File(PathBuf),
}

impl EvalSpec {
    /// The built-ins take no net settings (device, batch, backend).
    pub fn is_builtin(&self) -> bool {
        matches!(self, EvalSpec::Material | EvalSpec::Fake)
    }

    /// What to open for a game of the given kind: `<embedded>` means the Chess960 net in
    /// Chess960 and the default net otherwise; every other value means itself.
    pub fn for_variant(&self, chess960: bool) -> EvalSpec {
        let two_nets = super::embedded::CHESS960_NAME != super::embedded::NAME;
        self.for_variant_of(chess960, two_nets)
    }

    /// [`EvalSpec::for_variant`] for a build that embeds `two_nets` (a Chess960 net other
    /// than the default) or one net in both slots (a build with `CERISE_EVALFILE`), where
    /// `<embedded>` stays itself so that turning `UCI_Chess960` on or off reloads nothing
    /// and keeps the tables.
    fn for_variant_of(&self, chess960: bool, two_nets: bool) -> EvalSpec {
        match self {
            EvalSpec::Embedded if chess960 && two_nets => EvalSpec::EmbeddedChess960,
            other => other.clone(),
        }
    }
}

impl std::str::FromStr for EvalSpec {
    type Err = String;

    /// The names with or without their brackets, in any case; anything else is a path
    /// (checked when it is opened, so that a GUI may name a file it writes later).
    fn from_str(text: &str) -> Result<EvalSpec, String> {
        let text = text.trim();
        let named = |name: &str| {
            text.eq_ignore_ascii_case(name)
                || text.eq_ignore_ascii_case(name.trim_matches(['<', '>']))
        };
        if text.is_empty() {
            Err(format!("EvalFile needs a value: {}", choices()))
        } else if named(EVAL_EMBEDDED) {
            Ok(EvalSpec::Embedded)
        } else if named(EVAL_EMBEDDED_CHESS960) {
            Ok(EvalSpec::EmbeddedChess960)
        } else if named(EVAL_MATERIAL) {
            Ok(EvalSpec::Material)
        } else if named(EVAL_FAKE) {
            Ok(EvalSpec::Fake)
        } else {
            Ok(EvalSpec::File(PathBuf::from(text)))
        }
    }
}

/// What an `EvalFile` value may be, for the messages that refuse one.
fn choices() -> String {
    format!(
        "{EVAL_EMBEDDED}, {EVAL_EMBEDDED_CHESS960}, {EVAL_MATERIAL}, {EVAL_FAKE} or the path \
         of a .safetensors net"
    )
}

impl std::fmt::Display for EvalSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalSpec::Embedded => f.write_str(EVAL_EMBEDDED),
            EvalSpec::EmbeddedChess960 => f.write_str(EVAL_EMBEDDED_CHESS960),
            EvalSpec::Material => f.write_str(EVAL_MATERIAL),
            EvalSpec::Fake => f.write_str(EVAL_FAKE),
            EvalSpec::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// Builds the evaluator `spec` names; a net is loaded (and checked) now, on `device`, with
/// the batching settings of `config`. Blocks while a net loads. Errors say what to do.
pub fn open(
    spec: &EvalSpec,
    device: DeviceChoice,
    config: NetEvaluatorConfig,
) -> Result<Arc<dyn Evaluator>, String> {
    match spec {
        EvalSpec::Material => Ok(Arc::new(MaterialEvaluator)),
        EvalSpec::Fake => Ok(Arc::new(FakeEvaluator::new())),
        EvalSpec::Embedded => {
            let (net, origin) =
                super::embedded::net().map_err(|e| format!("cannot load the embedded net: {e}"))?;
            start_net(net, &origin, device, config)
        }
        EvalSpec::EmbeddedChess960 => {
            let (net, origin) = super::embedded::chess960_net()
                .map_err(|e| format!("cannot load the embedded Chess960 net: {e}"))?;
            start_net(net, &origin, device, config)
        }
        EvalSpec::File(path) => open_file(path, device, config),
    }
}

/// [`open`] on the text of an `EvalFile` value.
pub fn open_text(
    text: &str,
    device: DeviceChoice,
    config: NetEvaluatorConfig,
) -> Result<Arc<dyn Evaluator>, String> {
    open(&text.parse()?, device, config)
}

fn open_file(
    path: &Path,
    device: DeviceChoice,
    config: NetEvaluatorConfig,
) -> Result<Arc<dyn Evaluator>, String> {
    if !path.is_file() {
        return Err(format!(
            "no net file at '{}'; use {}",
            path.display(),
            choices()
        ));
    }
    let origin = path.display().to_string();
    let net =
        crate::net::load_any(path).map_err(|e| format!("cannot load EvalFile '{origin}': {e}"))?;
    match net {
        AnyNet::Rbf { net, content_id } => {
            Ok(Arc::new(RbfEvaluator::new(net, &origin, &content_id)?))
        }
        AnyNet::Tensors(net) => start_net(net, &origin, device, config),
    }
}

/// Loads a `convchess-policy` file for the `Policy` option (and `bench --policy`).
pub fn open_policy(path: &str) -> Result<MovePolicy, String> {
    if !Path::new(path).is_file() {
        return Err(format!(
            "no policy file at '{path}'; Policy takes the path of a convchess-policy \
             .safetensors file, or <empty> for none"
        ));
    }
    let net = crate::net::load(Path::new(path))
        .map_err(|e| format!("cannot load Policy '{path}': {e}"))?;
    MovePolicy::from_net(&net, path)
}

/// Whether `precision` can run on `device` at all, as the engine asks before it reloads a
/// net (and even when its evaluator is a built-in, which would not reload).
pub fn precision_fits(precision: Precision, device: DeviceChoice) -> Result<(), String> {
    half_on(precision, device.on_cuda())
}

/// The route of `net` (named `origin` in messages): for the tools that time or compare a
/// backend without building an evaluator.
pub fn route_of(
    net: &NetFile,
    origin: &str,
    device: DeviceChoice,
    backend: Backend,
    precision: Precision,
) -> Result<Route, String> {
    route(&net.meta.arch, origin, device, backend, precision)
}

/// Runs a validated tensor net on the backend [`route`] chooses for it on `device`.
pub fn start_net(
    net: NetFile,
    origin: &str,
    device: DeviceChoice,
    config: NetEvaluatorConfig,
) -> Result<Arc<dyn Evaluator>, String> {
    let fail = |e: NetError| format!("cannot load EvalFile '{origin}': {e}");
    match route_of(&net, origin, device, config.backend, config.precision)? {
        Route::Native(arithmetic) => {
            let simd = Simd::chosen()?;
            let native = match arithmetic {
                Some(arithmetic) => NativeEvaluator::with(&net, origin, simd, arithmetic),
                // The fastest that covers the net: int8, else the f32 reference.
                None => NativeEvaluator::with(&net, origin, simd, Arithmetic::Int8)
                    .or_else(|_| NativeEvaluator::with(&net, origin, simd, Arithmetic::F32)),
            };
            Ok(Arc::new(native.map_err(fail)?))
        }
        Route::Torch(precision) => start_torch(
            net,
            origin,
            device,
            NetEvaluatorConfig {
                precision,
                ..config
            },
        ),
    }
}

#[cfg(feature = "torch")]
fn start_torch(
    net: NetFile,
    origin: &str,
    device: DeviceChoice,
    config: NetEvaluatorConfig,
) -> Result<Arc<dyn Evaluator>, String> {
    let net = super::NetEvaluator::from_net(net, origin, device, config)
        .map_err(|e| format!("cannot load EvalFile '{origin}': {e}"))?;
    Ok(Arc::new(net))
}

/// Only an MLP runs natively: a CNN or policy net needs libtorch.
#[cfg(not(feature = "torch"))]
fn start_torch(
    net: NetFile,
    origin: &str,
    _device: DeviceChoice,
    _config: NetEvaluatorConfig,
) -> Result<Arc<dyn Evaluator>, String> {
    Err(format!(
        "cannot load EvalFile '{origin}': {}; the native backend runs only MLP nets, and this \
         is a {} net",
        super::backend::NO_LIBTORCH,
        net.meta.arch.family_name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(spec: &str, boards: &[crate::chess::CompactBoard]) -> Vec<f32> {
        let eval = open_text(spec, DeviceChoice::Cpu, NetEvaluatorConfig::default()).unwrap();
        let mut out = Vec::new();
        eval.evaluate(boards, &mut out).unwrap();
        out
    }

    #[test]
    fn names_parse_in_any_case_with_or_without_brackets_and_print_back() {
        for (text, spec) in [
            ("<embedded>", EvalSpec::Embedded),
            (" EMBEDDED ", EvalSpec::Embedded),
            ("<embedded960>", EvalSpec::EmbeddedChess960),
            ("Embedded960", EvalSpec::EmbeddedChess960),
            ("<Material>", EvalSpec::Material),
            ("material", EvalSpec::Material),
            ("<FAKE>", EvalSpec::Fake),
            (
                "nets/a b.safetensors",
                EvalSpec::File("nets/a b.safetensors".into()),
            ),
            // A near miss is a file name.
            ("<materia>", EvalSpec::File("<materia>".into())),
        ] {
            assert_eq!(text.parse::<EvalSpec>(), Ok(spec.clone()), "{text:?}");
            assert_eq!(spec.to_string().parse::<EvalSpec>(), Ok(spec), "{text:?}");
        }
        let e = "  ".parse::<EvalSpec>().unwrap_err();
        assert!(
            e.contains("needs a value") && e.contains(EVAL_EMBEDDED),
            "{e}"
        );
        assert!(EvalSpec::Material.is_builtin() && !EvalSpec::Embedded.is_builtin());
    }

    #[test]
    fn builtin_names_need_no_file_and_score_as_their_evaluators() {
        let boards = crate::chess::sample_boards(40);
        let material: Vec<f32> = boards
            .iter()
            .map(|b| MaterialEvaluator::score(b) as f32)
            .collect();
        let fake: Vec<f32> = boards.iter().map(FakeEvaluator::score).collect();
        assert_ne!(material, fake, "the two built-ins are told apart");
        for spec in ["<material>", "material", " <MATERIAL> "] {
            assert_eq!(scores(spec, &boards), material, "{spec:?}");
        }
        for spec in ["<FAKE>", "fake"] {
            assert_eq!(scores(spec, &boards), fake, "{spec:?}");
        }
        let e = open_text(
            "<materia>",
            DeviceChoice::Cpu,
            NetEvaluatorConfig::default(),
        );
        assert!(e.is_err(), "no such file");
    }

    #[test]
    fn missing_file_is_a_clear_error() {
        let e = open_text(
            "/nonexistent/net.safetensors",
            DeviceChoice::Cpu,
            NetEvaluatorConfig::default(),
        )
        .err()
        .expect("a missing file does not load");
        assert!(
            e.contains("/nonexistent/net.safetensors") && e.contains("no net file"),
            "{e}"
        );
    }

    #[test]
    fn the_embedded_net_loads_names_itself_and_values_a_queen() {
        let config = NetEvaluatorConfig::default();
        let eval = open(&EvalSpec::Embedded, DeviceChoice::Cpu, config).expect("loads");
        let name = super::super::embedded::NAME;
        assert!(eval.info().name.contains(name), "{}", eval.info().name);
        let boards = [
            crate::chess::Position::startpos().compact(),
            // White to move, Black has no queen.
            crate::chess::Position::from_fen(
                "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            )
            .expect("valid fen")
            .compact(),
        ];
        let mut scores = Vec::new();
        eval.evaluate(&boards, &mut scores).expect("evaluates");
        // The antisymmetric nets give a mirrored-symmetric start exactly 0; the perspective
        // form has no such constraint and gives the side to move a tempo's worth (generation
        // 20: +54 cp at the start).
        assert!(
            scores[0].abs() < 100.0,
            "the start is about level: {}",
            scores[0]
        );
        assert!(scores[1] > 500.0, "a queen up: {}", scores[1]);
    }

    #[test]
    fn the_embedded_net_is_the_file_in_nets() {
        let boards = crate::chess::sample_boards(20);
        let file = format!(
            "{}/nets/{}.safetensors",
            env!("CARGO_MANIFEST_DIR"),
            super::super::embedded::NAME
        );
        assert_eq!(scores("<embedded>", &boards), scores(&file, &boards));
    }

    #[test]
    fn the_embedded_chess960_net_is_its_file_in_nets_and_embedded_means_it_in_chess960() {
        let boards = crate::chess::sample_boards(20);
        let name = super::super::embedded::CHESS960_NAME;
        let file = format!("{}/nets/{name}.safetensors", env!("CARGO_MANIFEST_DIR"));
        assert_eq!(scores("<embedded960>", &boards), scores(&file, &boards));
        let config = NetEvaluatorConfig::default();
        let eval = open(
            &EvalSpec::Embedded.for_variant(true),
            DeviceChoice::Cpu,
            config,
        )
        .expect("loads");
        assert!(eval.info().name.contains(name), "{}", eval.info().name);
        // Standard play, and every named value, are what they say in either variant.
        assert_eq!(EvalSpec::Embedded.for_variant(false), EvalSpec::Embedded);
        for spec in [
            EvalSpec::EmbeddedChess960,
            EvalSpec::Material,
            EvalSpec::File("a.safetensors".into()),
        ] {
            assert_eq!(spec.for_variant(true), spec);
            assert_eq!(spec.for_variant(false), spec);
        }
    }

    #[test]
    fn a_build_with_one_net_in_both_slots_keeps_embedded_in_chess960() {
        // `CERISE_EVALFILE` puts its net in both slots: switching between them would reload
        // the same net and clear the tables for nothing.
        assert_eq!(
            EvalSpec::Embedded.for_variant_of(true, false),
            EvalSpec::Embedded
        );
        assert_eq!(
            EvalSpec::Embedded.for_variant_of(true, true),
            EvalSpec::EmbeddedChess960
        );
        assert_eq!(
            EvalSpec::EmbeddedChess960.for_variant_of(false, false),
            EvalSpec::EmbeddedChess960
        );
    }

    #[test]
    #[cfg(feature = "torch")]
    fn a_cnn_net_runs_on_torch_and_native_says_why_it_cannot() {
        let dir = std::env::temp_dir().join(format!("cerise-evalfile-cnn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mocha.safetensors");
        crate::net::init_net("mocha", 1, &path).unwrap();
        let spec = EvalSpec::File(path.clone());
        let eval = open(&spec, DeviceChoice::Cpu, NetEvaluatorConfig::default())
            .expect("auto runs a cnn on torch");
        assert_eq!(eval.info().backend, Some(Backend::Torch));
        let native = NetEvaluatorConfig {
            backend: Backend::Native,
            ..NetEvaluatorConfig::default()
        };
        let e = open(&spec, DeviceChoice::Cpu, native)
            .err()
            .expect("the native backend does not run a cnn");
        assert!(e.contains("only mlp") && e.contains("Backend torch"), "{e}");
        let policy = dir.join("convchess.safetensors");
        crate::net::init_net("convchess", 1, &policy).unwrap();
        let e = open(
            &EvalSpec::File(policy),
            DeviceChoice::Cpu,
            NetEvaluatorConfig::default(),
        )
        .err()
        .expect("a policy net is not an evaluator");
        assert!(e.contains("scores moves, not positions"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    #[cfg(feature = "torch")]
    fn a_precision_the_backend_cannot_run_is_refused_with_advice() {
        let torch = |precision| NetEvaluatorConfig {
            backend: Backend::Torch,
            precision,
            ..NetEvaluatorConfig::default()
        };
        let e = open(
            &EvalSpec::Embedded,
            DeviceChoice::Cpu,
            torch(Precision::Bf16),
        )
        .err()
        .expect("bf16 needs CUDA");
        assert!(
            e.contains("needs a CUDA device") && e.contains("use fp32"),
            "{e}"
        );
        let e = open(
            &EvalSpec::Embedded,
            DeviceChoice::Cpu,
            torch(Precision::Int8),
        )
        .err()
        .expect("int8 is native only");
        assert!(e.contains("int8 runs on the native backend"), "{e}");
        let eval = open(
            &EvalSpec::Embedded,
            DeviceChoice::Cpu,
            torch(Precision::Auto),
        )
        .expect("libtorch's auto is fp32");
        assert!(eval.info().name.contains("fp32"), "{}", eval.info().name);
    }

    #[test]
    fn an_rbf_file_opens_as_the_rbf_evaluator() {
        let path = format!(
            "{}/nets/cerise-rbf-s3-95c71a4fb284.safetensors",
            env!("CARGO_MANIFEST_DIR")
        );
        let eval = open_text(&path, DeviceChoice::Cpu, NetEvaluatorConfig::default())
            .expect("the shipped RBF net opens");
        assert!(
            eval.info().name.starts_with("rbf 95c71a4fb284"),
            "{}",
            eval.info().name
        );
    }

    #[test]
    #[cfg(feature = "torch")]
    fn a_fresh_net_loads_and_a_corrupt_one_is_refused() {
        let dir = std::env::temp_dir().join(format!("cerise-evalfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("small.safetensors");
        crate::net::init_net("small", 1, &good).unwrap();
        let eval = open(
            &EvalSpec::File(good),
            DeviceChoice::Cpu,
            NetEvaluatorConfig::default(),
        )
        .unwrap();
        assert_eq!(eval.info().device, "cpu");
        let bad = dir.join("bogus.safetensors");
        std::fs::write(&bad, b"\x08\0\0\0\0\0\0\0{}garbage").unwrap();
        let e = open(
            &EvalSpec::File(bad),
            DeviceChoice::Cpu,
            NetEvaluatorConfig::default(),
        )
        .err()
        .expect("a corrupt net does not load");
        assert!(e.contains("bogus.safetensors"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    #[cfg(not(feature = "torch"))]
    fn without_libtorch_a_cnn_net_and_the_torch_backend_are_refused_saying_why() {
        let mocha = format!(
            "{}/nets/cerise-mocha-1ae52c8f0047.safetensors",
            env!("CARGO_MANIFEST_DIR")
        );
        let native = NetEvaluatorConfig {
            backend: Backend::Native,
            ..NetEvaluatorConfig::default()
        };
        for config in [NetEvaluatorConfig::default(), native] {
            let e = open_text(&mocha, DeviceChoice::Auto, config)
                .err()
                .expect("a cnn needs libtorch");
            assert!(
                e.contains("no libtorch") && e.contains("a cnn net") && e.contains(&mocha),
                "{e}"
            );
        }
        let torch = NetEvaluatorConfig {
            backend: Backend::Torch,
            ..NetEvaluatorConfig::default()
        };
        for (config, device) in [
            (torch, DeviceChoice::Cpu),
            (NetEvaluatorConfig::default(), DeviceChoice::Cuda),
        ] {
            let e = open_text("<embedded>", device, config)
                .err()
                .expect("refused");
            assert!(e.starts_with("this build has no libtorch"), "{e}");
        }
        // The built-ins need no net and take no device.
        assert!(open_text(
            "<material>",
            DeviceChoice::Cuda,
            NetEvaluatorConfig::default()
        )
        .is_ok());
    }
}
