//! The UCI options: their declarations and the validation of `setoption` values.

use crate::eval::{Encoder, Precision};
use crate::net::device::DeviceChoice;
use std::time::Duration;

pub const HASH_DEFAULT: usize = 64;
pub const HASH_MAX: usize = 65536;
pub const THREADS_MAX: usize = 256;
pub const MOVE_OVERHEAD_DEFAULT: u64 = 30;
pub const MOVE_OVERHEAD_MAX: u64 = 5000;
pub const EVAL_MATERIAL: &str = "<material>";
pub const EVAL_FAKE: &str = "<fake>";
/// The net compiled into the binary (`crate::eval::embedded`), the default.
pub const EVAL_EMBEDDED: &str = "<embedded>";
pub const MAX_BATCH_DEFAULT: usize = 1024;
pub const MAX_BATCH_MAX: usize = crate::eval::MAX_BATCH_LIMIT;

/// Current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mib: usize,
    pub threads: usize,
    pub move_overhead: Duration,
    /// `<embedded>`, `<material>`, `<fake>` or a path to a .safetensors net.
    pub eval_file: String,
    pub device: DeviceChoice,
    pub ponder: bool,
    /// Largest forward pass of a net evaluator.
    pub max_batch: usize,
    /// fp16 and bf16 need CUDA.
    pub precision: Precision,
    pub encoder: Encoder,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mib: HASH_DEFAULT,
            threads: 1,
            move_overhead: Duration::from_millis(MOVE_OVERHEAD_DEFAULT),
            eval_file: EVAL_EMBEDDED.to_string(),
            device: DeviceChoice::Auto,
            ponder: false,
            max_batch: MAX_BATCH_DEFAULT,
            precision: Precision::Fp32,
            encoder: Encoder::Auto,
        }
    }
}

/// A validated `setoption`, not yet applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionChange {
    Hash(usize),
    Threads(usize),
    MoveOverhead(Duration),
    EvalFile(String),
    Device(DeviceChoice),
    Ponder(bool),
    MaxBatch(usize),
    Precision(Precision),
    Encoder(Encoder),
}

/// The `option ...` lines sent after `uci`.
pub fn declarations() -> Vec<String> {
    vec![
        format!("option name Hash type spin default {HASH_DEFAULT} min 1 max {HASH_MAX}"),
        format!("option name Threads type spin default 1 min 1 max {THREADS_MAX}"),
        format!(
            "option name Move Overhead type spin default {MOVE_OVERHEAD_DEFAULT} min 0 max \
             {MOVE_OVERHEAD_MAX}"
        ),
        format!("option name EvalFile type string default {EVAL_EMBEDDED}"),
        "option name Device type combo default auto var auto var cpu var cuda".to_string(),
        "option name Ponder type check default false".to_string(),
        format!(
            "option name MaxBatch type spin default {MAX_BATCH_DEFAULT} min 1 max {MAX_BATCH_MAX}"
        ),
        "option name Precision type combo default fp32 var fp32 var fp16 var bf16".to_string(),
        "option name Encoder type combo default auto var auto var dense var sparse".to_string(),
    ]
}

fn spin(name: &str, value: &str, min: u64, max: u64) -> Result<u64, String> {
    let value = value.trim();
    match value.parse::<i128>() {
        Ok(v) if v >= min as i128 && v <= max as i128 => Ok(v as u64),
        _ => Err(format!(
            "{name} must be an integer from {min} to {max}, got '{}'",
            super::command::excerpt(value, 40)
        )),
    }
}

/// Validates `setoption name <name> value <value>`; names are case-insensitive and runs of
/// spaces inside them are treated as one.
pub fn parse_change(name: &str, value: &str) -> Result<OptionChange, String> {
    let key = name
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase();
    match key.as_str() {
        "hash" => Ok(OptionChange::Hash(
            spin("Hash", value, 1, HASH_MAX as u64)? as usize
        )),
        "threads" => Ok(OptionChange::Threads(
            spin("Threads", value, 1, THREADS_MAX as u64)? as usize,
        )),
        "move overhead" => Ok(OptionChange::MoveOverhead(Duration::from_millis(spin(
            "Move Overhead",
            value,
            0,
            MOVE_OVERHEAD_MAX,
        )?))),
        "evalfile" => {
            let value = value.trim();
            if value.is_empty() {
                Err(format!(
                    "EvalFile needs a value: {EVAL_EMBEDDED}, {EVAL_MATERIAL}, {EVAL_FAKE} or \
                     the path of a .safetensors net"
                ))
            } else {
                Ok(OptionChange::EvalFile(value.to_string()))
            }
        }
        "device" => value
            .parse::<DeviceChoice>()
            .map(OptionChange::Device)
            .map_err(|e| format!("Device: {e}")),
        "ponder" => match value.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(OptionChange::Ponder(true)),
            "false" => Ok(OptionChange::Ponder(false)),
            other => Err(format!(
                "Ponder must be true or false, got '{}'",
                super::command::excerpt(other, 40)
            )),
        },
        "maxbatch" => Ok(OptionChange::MaxBatch(
            spin("MaxBatch", value, 1, MAX_BATCH_MAX as u64)? as usize,
        )),
        "precision" => value
            .parse::<Precision>()
            .map(OptionChange::Precision)
            .map_err(|e| format!("Precision: {e}")),
        "encoder" => value
            .parse::<Encoder>()
            .map(OptionChange::Encoder)
            .map_err(|e| format!("Encoder: {e}")),
        _ => Err(format!(
            "no such option '{}' (options: Hash, Threads, Move Overhead, EvalFile, Device, \
             Ponder, MaxBatch, Precision, Encoder)",
            super::command::excerpt(name, 40)
        )),
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
            parse_change("Ponder", "TRUE"),
            Ok(OptionChange::Ponder(true))
        );
        assert_eq!(
            parse_change("EvalFile", "nets/a b.safetensors"),
            Ok(OptionChange::EvalFile("nets/a b.safetensors".into()))
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
            ("Nonsense", "1"),
        ] {
            let e = parse_change(name, value);
            assert!(e.is_err(), "{name}={value} gave {e:?}");
        }
        let e = parse_change("Hash", "0").unwrap_err();
        assert!(e.contains("1 to 65536"), "{e}");
    }

    #[test]
    fn declarations_match_the_defaults() {
        let lines = declarations();
        assert_eq!(lines.len(), 9);
        assert!(lines[6].contains("MaxBatch type spin default 1024 min 1 max 65536"));
        assert!(lines[7].contains("default fp32"));
        assert!(lines.iter().all(|l| l.starts_with("option name ")));
        assert!(lines[0].contains("default 64 min 1 max 65536"));
        assert!(lines[3].contains("default <embedded>"));
    }
}
