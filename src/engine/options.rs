//! The engine's options: their typed values, defaults, ranges, and the validation of a
//! new value. A front end declares them from [`OptionId::kind`] (the UCI layer turns that
//! into `option name ...` lines) and hands values over as text to [`parse_change`].

use super::strength::{ELO_DEFAULT, ELO_MAX, ELO_MIN};
use crate::eval::{Backend, Encoder, EvalSpec, Precision};
use crate::net::device::DeviceChoice;
use std::time::Duration;

pub const HASH_DEFAULT: usize = 64;
pub const HASH_MAX: usize = 65536;
pub const THREADS_MAX: usize = 256;
pub const MOVE_OVERHEAD_DEFAULT: u64 = 30;
pub const MOVE_OVERHEAD_MAX: u64 = 5000;
/// As Stockfish: more root lines than any position has legal moves is never useful.
pub const MULTIPV_MAX: usize = 256;
/// Syzygy tables exist for up to 7 pieces; a limit of 7 probes every table there is.
pub const SYZYGY_PROBE_LIMIT_DEFAULT: usize = 7;
use crate::eval::open::EVAL_EMBEDDED;
pub const MAX_BATCH_DEFAULT: usize = 1024;
/// How UCI GUIs show an empty string option; `Policy` takes it to mean "no policy".
pub const EMPTY: &str = "<empty>";
pub const MAX_BATCH_MAX: usize = crate::eval::MAX_BATCH_LIMIT;

/// Current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mib: usize,
    pub threads: usize,
    pub move_overhead: Duration,
    /// `<embedded>`, `<material>`, `<fake>` or a path to a .safetensors net.
    pub eval_file: EvalSpec,
    pub device: DeviceChoice,
    pub ponder: bool,
    /// Largest forward pass of a net evaluator.
    pub max_batch: usize,
    /// fp16 and bf16 need CUDA.
    pub precision: Precision,
    pub encoder: Encoder,
    /// Which implementation runs a net.
    pub backend: Backend,
    /// A ConvChess policy file (`convchess-policy`), or empty.
    pub policy_file: String,
    pub play_mode: PlayMode,
    /// Root lines searched and reported (`info ... multipv k`); 1 is a normal search.
    pub multipv: usize,
    /// `wdl W D L` on info lines.
    pub show_wdl: bool,
    /// Play at about `elo` (a node budget a move, see [`super::strength`]).
    pub limit_strength: bool,
    pub elo: u32,
    /// Chess960 castling in `position` and in moves sent (king takes rook).
    pub chess960: bool,
    /// Directories of Syzygy tables, `:`-separated; empty for none.
    pub syzygy_path: String,
    /// Search nodes with more pieces than this are not probed.
    pub syzygy_probe_limit: usize,
}

choice_enum! {
    /// How `go` chooses a move.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum PlayMode("play mode") {
        /// Alpha-beta over the evaluator.
        Search = "search",
        /// The policy's composed argmax over legal moves, without search (ConvChess's
        /// player).
        Policy = "policy",
        /// The child the evaluator scores best, without search (the net as a depth-1 player).
        Greedy = "greedy",
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mib: HASH_DEFAULT,
            threads: 1,
            move_overhead: Duration::from_millis(MOVE_OVERHEAD_DEFAULT),
            eval_file: EvalSpec::Embedded,
            device: DeviceChoice::Auto,
            ponder: false,
            max_batch: MAX_BATCH_DEFAULT,
            precision: Precision::Auto,
            encoder: Encoder::Auto,
            backend: Backend::Auto,
            policy_file: String::new(),
            play_mode: PlayMode::Search,
            multipv: 1,
            show_wdl: false,
            limit_strength: false,
            elo: ELO_DEFAULT,
            chess960: false,
            syzygy_path: String::new(),
            syzygy_probe_limit: SYZYGY_PROBE_LIMIT_DEFAULT,
        }
    }
}

impl Options {
    /// Records a validated value; loading what it needs is the engine's business.
    pub fn apply(&mut self, change: OptionChange) {
        match change {
            OptionChange::Hash(mib) => self.hash_mib = mib,
            OptionChange::Threads(n) => self.threads = n,
            OptionChange::MoveOverhead(d) => self.move_overhead = d,
            OptionChange::EvalFile(spec) => self.eval_file = spec,
            OptionChange::Device(device) => self.device = device,
            OptionChange::Ponder(on) => self.ponder = on,
            OptionChange::MaxBatch(n) => self.max_batch = n,
            OptionChange::Precision(precision) => self.precision = precision,
            OptionChange::Encoder(encoder) => self.encoder = encoder,
            OptionChange::Backend(backend) => self.backend = backend,
            OptionChange::Policy(file) => self.policy_file = file,
            OptionChange::PlayMode(mode) => self.play_mode = mode,
            OptionChange::MultiPv(n) => self.multipv = n,
            OptionChange::ShowWdl(on) => self.show_wdl = on,
            OptionChange::LimitStrength(on) => self.limit_strength = on,
            OptionChange::Elo(elo) => self.elo = elo,
            OptionChange::Chess960(on) => self.chess960 = on,
            OptionChange::SyzygyPath(path) => self.syzygy_path = path,
            OptionChange::SyzygyProbeLimit(n) => self.syzygy_probe_limit = n,
            // An action, not a value: the engine clears its tables.
            OptionChange::ClearHash => {}
        }
    }
}

/// A validated new option value, not yet applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionChange {
    Hash(usize),
    Threads(usize),
    MoveOverhead(Duration),
    EvalFile(EvalSpec),
    Device(DeviceChoice),
    Ponder(bool),
    MaxBatch(usize),
    Precision(Precision),
    Encoder(Encoder),
    Backend(Backend),
    /// The path of a policy file; empty for none.
    Policy(String),
    PlayMode(PlayMode),
    MultiPv(usize),
    ShowWdl(bool),
    LimitStrength(bool),
    Elo(u32),
    Chess960(bool),
    /// Directories of tables; empty for none.
    SyzygyPath(String),
    SyzygyProbeLimit(usize),
    /// The `Clear Hash` button was pressed.
    ClearHash,
}

/// The options, in the order a front end lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionId {
    Hash,
    Threads,
    MoveOverhead,
    EvalFile,
    Device,
    Ponder,
    MaxBatch,
    Precision,
    Encoder,
    Backend,
    Policy,
    PlayMode,
    MultiPv,
    ShowWdl,
    LimitStrength,
    Elo,
    Chess960,
    SyzygyPath,
    SyzygyProbeLimit,
    ClearHash,
}

/// The kind of value an option takes, with its default and its range or choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer from `min` to `max`.
    Spin { default: u64, min: u64, max: u64 },
    /// A boolean.
    Check { default: bool },
    /// One of `choices` (compared case-insensitively).
    Combo {
        default: &'static str,
        choices: &'static [&'static str],
    },
    /// Free text.
    Text { default: &'static str },
    /// An action with no value (`type button`).
    Button,
}

impl OptionId {
    pub const ALL: [OptionId; 20] = [
        OptionId::Hash,
        OptionId::Threads,
        OptionId::MoveOverhead,
        OptionId::EvalFile,
        OptionId::Device,
        OptionId::Ponder,
        OptionId::MaxBatch,
        OptionId::Precision,
        OptionId::Encoder,
        OptionId::Backend,
        OptionId::Policy,
        OptionId::PlayMode,
        OptionId::MultiPv,
        OptionId::ShowWdl,
        OptionId::LimitStrength,
        OptionId::Elo,
        OptionId::Chess960,
        OptionId::SyzygyPath,
        OptionId::SyzygyProbeLimit,
        OptionId::ClearHash,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OptionId::Hash => "Hash",
            OptionId::Threads => "Threads",
            OptionId::MoveOverhead => "Move Overhead",
            OptionId::EvalFile => "EvalFile",
            OptionId::Device => "Device",
            OptionId::Ponder => "Ponder",
            OptionId::MaxBatch => "MaxBatch",
            OptionId::Precision => "Precision",
            OptionId::Encoder => "Encoder",
            OptionId::Backend => "Backend",
            OptionId::Policy => "Policy",
            OptionId::PlayMode => "PlayMode",
            OptionId::MultiPv => "MultiPV",
            OptionId::ShowWdl => "UCI_ShowWDL",
            OptionId::LimitStrength => "UCI_LimitStrength",
            OptionId::Elo => "UCI_Elo",
            OptionId::Chess960 => "UCI_Chess960",
            OptionId::SyzygyPath => "SyzygyPath",
            OptionId::SyzygyProbeLimit => "SyzygyProbeLimit",
            OptionId::ClearHash => "Clear Hash",
        }
    }

    /// Defaults agree with [`Options::default`] (a test checks it).
    pub fn kind(self) -> OptionKind {
        match self {
            OptionId::Hash => OptionKind::Spin {
                default: HASH_DEFAULT as u64,
                min: 1,
                max: HASH_MAX as u64,
            },
            OptionId::Threads => OptionKind::Spin {
                default: 1,
                min: 1,
                max: THREADS_MAX as u64,
            },
            OptionId::MoveOverhead => OptionKind::Spin {
                default: MOVE_OVERHEAD_DEFAULT,
                min: 0,
                max: MOVE_OVERHEAD_MAX,
            },
            OptionId::EvalFile => OptionKind::Text {
                default: EVAL_EMBEDDED,
            },
            OptionId::Device => OptionKind::Combo {
                default: DeviceChoice::Auto.name(),
                choices: DeviceChoice::NAMES,
            },
            OptionId::Ponder => OptionKind::Check { default: false },
            OptionId::MaxBatch => OptionKind::Spin {
                default: MAX_BATCH_DEFAULT as u64,
                min: 1,
                max: MAX_BATCH_MAX as u64,
            },
            OptionId::Precision => OptionKind::Combo {
                default: Precision::Auto.name(),
                choices: Precision::NAMES,
            },
            OptionId::Encoder => OptionKind::Combo {
                default: Encoder::Auto.name(),
                choices: Encoder::NAMES,
            },
            OptionId::Backend => OptionKind::Combo {
                default: Backend::Auto.name(),
                choices: Backend::NAMES,
            },
            OptionId::Policy => OptionKind::Text { default: EMPTY },
            OptionId::PlayMode => OptionKind::Combo {
                default: PlayMode::Search.name(),
                choices: PlayMode::NAMES,
            },
            OptionId::MultiPv => OptionKind::Spin {
                default: 1,
                min: 1,
                max: MULTIPV_MAX as u64,
            },
            OptionId::ShowWdl => OptionKind::Check { default: false },
            OptionId::LimitStrength => OptionKind::Check { default: false },
            OptionId::Elo => OptionKind::Spin {
                default: ELO_DEFAULT as u64,
                min: ELO_MIN as u64,
                max: ELO_MAX as u64,
            },
            OptionId::Chess960 => OptionKind::Check { default: false },
            OptionId::SyzygyPath => OptionKind::Text { default: EMPTY },
            OptionId::SyzygyProbeLimit => OptionKind::Spin {
                default: SYZYGY_PROBE_LIMIT_DEFAULT as u64,
                min: 0,
                max: SYZYGY_PROBE_LIMIT_DEFAULT as u64,
            },
            OptionId::ClearHash => OptionKind::Button,
        }
    }

    /// The option called `name`, ignoring case and runs of spaces.
    pub fn find(name: &str) -> Option<OptionId> {
        let key = name.split_whitespace().collect::<Vec<_>>().join(" ");
        OptionId::ALL
            .into_iter()
            .find(|id| id.name().eq_ignore_ascii_case(&key))
    }
}

/// The first `n` characters, for echoing bad input without flooding the reader.
fn excerpt(text: &str, n: usize) -> String {
    text.chars()
        .take(n)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// A spin option's value, checked against its range.
fn spin(id: OptionId, value: &str) -> Result<u64, String> {
    let OptionKind::Spin { min, max, .. } = id.kind() else {
        unreachable!("{} is not a spin option", id.name());
    };
    let value = value.trim();
    match value.parse::<i128>() {
        Ok(v) if v >= min as i128 && v <= max as i128 => Ok(v as u64),
        _ => Err(format!(
            "{} must be an integer from {min} to {max}, got '{}'",
            id.name(),
            excerpt(value, 40)
        )),
    }
}

/// A path option's value: empty for `<empty>` (how GUIs show an empty string option).
fn optional_path(value: &str) -> String {
    let value = value.trim();
    if value == EMPTY {
        String::new()
    } else {
        value.to_string()
    }
}

/// A check option's value: `true` or `false`, in any case.
fn check(id: OptionId, value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(format!(
            "{} must be true or false, got '{}'",
            id.name(),
            excerpt(other, 40)
        )),
    }
}

/// Validates a new value for the option called `name`; names are case-insensitive and runs
/// of spaces inside them are treated as one.
pub fn parse_change(name: &str, value: &str) -> Result<OptionChange, String> {
    let Some(id) = OptionId::find(name) else {
        let names: Vec<&str> = OptionId::ALL.iter().map(|id| id.name()).collect();
        return Err(format!(
            "no such option '{}' (options: {})",
            excerpt(name, 40),
            names.join(", ")
        ));
    };
    match id {
        OptionId::Hash => Ok(OptionChange::Hash(spin(id, value)? as usize)),
        OptionId::Threads => Ok(OptionChange::Threads(spin(id, value)? as usize)),
        OptionId::MoveOverhead => Ok(OptionChange::MoveOverhead(Duration::from_millis(spin(
            id, value,
        )?))),
        OptionId::EvalFile => value.parse::<EvalSpec>().map(OptionChange::EvalFile),
        OptionId::Device => value
            .parse::<DeviceChoice>()
            .map(OptionChange::Device)
            .map_err(|e| format!("Device: {e}")),
        OptionId::Ponder => check(id, value).map(OptionChange::Ponder),
        OptionId::ShowWdl => check(id, value).map(OptionChange::ShowWdl),
        OptionId::LimitStrength => check(id, value).map(OptionChange::LimitStrength),
        OptionId::Elo => Ok(OptionChange::Elo(spin(id, value)? as u32)),
        OptionId::Chess960 => check(id, value).map(OptionChange::Chess960),
        OptionId::SyzygyPath => Ok(OptionChange::SyzygyPath(optional_path(value))),
        OptionId::SyzygyProbeLimit => Ok(OptionChange::SyzygyProbeLimit(spin(id, value)? as usize)),
        OptionId::MaxBatch => Ok(OptionChange::MaxBatch(spin(id, value)? as usize)),
        OptionId::Precision => value
            .parse::<Precision>()
            .map(OptionChange::Precision)
            .map_err(|e| format!("Precision: {e}")),
        OptionId::Encoder => value
            .parse::<Encoder>()
            .map(OptionChange::Encoder)
            .map_err(|e| format!("Encoder: {e}")),
        OptionId::Backend => value
            .parse::<Backend>()
            .map(OptionChange::Backend)
            .map_err(|e| format!("Backend: {e}")),
        OptionId::Policy => Ok(OptionChange::Policy(optional_path(value))),
        OptionId::PlayMode => value
            .parse::<PlayMode>()
            .map(OptionChange::PlayMode)
            .map_err(|e| format!("PlayMode: {e}")),
        OptionId::MultiPv => Ok(OptionChange::MultiPv(spin(id, value)? as usize)),
        // GUIs send a button without a value; one sent with a value still presses it.
        OptionId::ClearHash => Ok(OptionChange::ClearHash),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_case_and_space_insensitive() {
        assert_eq!(parse_change("hash", "32"), Ok(OptionChange::Hash(32)));
        assert_eq!(parse_change("HASH", " 1 "), Ok(OptionChange::Hash(1)));
        assert_eq!(
            parse_change("move  overhead", "0"),
            Ok(OptionChange::MoveOverhead(Duration::ZERO))
        );
        assert_eq!(
            parse_change("Move Overhead", "5000"),
            Ok(OptionChange::MoveOverhead(Duration::from_millis(5000)))
        );
        assert_eq!(
            parse_change("threads", "256"),
            Ok(OptionChange::Threads(256))
        );
        assert_eq!(
            parse_change("device", "CUDA"),
            Ok(OptionChange::Device(DeviceChoice::Cuda))
        );
        assert_eq!(
            parse_change("maxbatch", "256"),
            Ok(OptionChange::MaxBatch(256))
        );
        assert_eq!(
            parse_change("Precision", "BF16"),
            Ok(OptionChange::Precision(Precision::Bf16))
        );
        assert_eq!(
            parse_change("encoder", "sparse"),
            Ok(OptionChange::Encoder(Encoder::Sparse))
        );
        assert_eq!(
            parse_change("backend", "Native"),
            Ok(OptionChange::Backend(Backend::Native))
        );
        assert_eq!(
            parse_change("Ponder", "TRUE"),
            Ok(OptionChange::Ponder(true))
        );
        assert_eq!(
            parse_change("EvalFile", "nets/a b.safetensors"),
            Ok(OptionChange::EvalFile(EvalSpec::File(
                "nets/a b.safetensors".into()
            )))
        );
    }

    #[test]
    fn out_of_range_and_malformed_values_are_rejected() {
        for (name, value) in [
            ("Hash", "0"),
            ("Hash", "65537"),
            ("Hash", "-1"),
            ("Hash", "abc"),
            ("Hash", ""),
            ("Hash", "99999999999999999999999999999999999999999"),
            ("Threads", "0"),
            ("Threads", "257"),
            ("Move Overhead", "5001"),
            ("Device", "tpu"),
            ("Ponder", "yes"),
            ("Ponder", ""),
            ("EvalFile", ""),
            ("MaxBatch", "0"),
            ("MaxBatch", "65537"),
            ("Precision", "fp8"),
            ("Encoder", "csr"),
            ("Backend", "onnx"),
            ("Backend", ""),
            ("Nonsense", "1"),
            ("PlayMode", "alphabeta"),
            ("MultiPV", "0"),
            ("MultiPV", "257"),
            ("UCI_ShowWDL", "1"),
            ("UCI_LimitStrength", "on"),
            ("UCI_Elo", "1349"),
            ("UCI_Elo", "1801"),
            ("UCI_Elo", "1500.5"),
        ] {
            let e = parse_change(name, value);
            assert!(e.is_err(), "{name}={value} gave {e:?}");
        }
        let e = parse_change("Hash", "0").unwrap_err();
        assert!(e.contains("1 to 65536"), "{e}");
        let e = parse_change("Backend", "onnx").unwrap_err();
        assert!(e.starts_with("Backend: ") && e.contains("onnx"), "{e}");
        let e = parse_change("Nonsense", "1").unwrap_err();
        assert!(
            e.contains("Move Overhead")
                && e.ends_with("UCI_Chess960, SyzygyPath, SyzygyProbeLimit, Clear Hash)"),
            "{e}"
        );
    }

    /// Every declared default, applied to the default options, changes nothing; every
    /// combo choice and both ends of every spin range are accepted.
    #[test]
    fn declarations_match_the_defaults_and_the_parser() {
        let defaults = Options::default();
        for id in OptionId::ALL {
            assert_eq!(OptionId::find(&id.name().to_lowercase()), Some(id));
            let (default, accepted) = match id.kind() {
                OptionKind::Spin { default, min, max } => {
                    assert!(min <= default && default <= max, "{id:?}");
                    (default.to_string(), vec![min.to_string(), max.to_string()])
                }
                OptionKind::Check { default } => {
                    (default.to_string(), vec!["true".into(), "false".into()])
                }
                OptionKind::Combo { default, choices } => {
                    assert!(choices.contains(&default), "{id:?}");
                    (
                        default.to_string(),
                        choices.iter().map(|c| c.to_string()).collect(),
                    )
                }
                OptionKind::Text { default } => (default.to_string(), vec![]),
                OptionKind::Button => {
                    assert_eq!(parse_change(id.name(), ""), Ok(OptionChange::ClearHash));
                    continue;
                }
            };
            let mut options = defaults.clone();
            options.apply(parse_change(id.name(), &default).unwrap());
            assert_eq!(options, defaults, "{id:?} declares default '{default}'");
            for value in accepted {
                assert!(parse_change(id.name(), &value).is_ok(), "{id:?} {value}");
            }
        }
        assert_eq!(
            OptionId::MaxBatch.kind(),
            OptionKind::Spin {
                default: 1024,
                min: 1,
                max: 65536
            }
        );
    }
}
