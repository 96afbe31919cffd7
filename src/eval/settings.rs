//! The settings of a net evaluator, as the engine's options and the command line give them:
//! plain values, the same in every build. Those only libtorch honours (the encoder, the
//! precision, batching) are accepted without it too, so that a GUI's saved settings still
//! load; the opener (`eval::open`) refuses what the build cannot run.

use super::Backend;
use std::str::FromStr;

/// Largest accepted `max_batch`; the staging buffers hold `max_batch` boards.
pub const MAX_BATCH_LIMIT: usize = 1 << 16;

#[derive(Clone, Debug)]
pub struct NetEvaluatorConfig {
    /// Which implementation runs the net; `NetEvaluator` itself is the `Torch` one, and the
    /// opener (`eval::open`) picks by this field.
    pub backend: Backend,
    pub max_batch: usize,
    /// libtorch intra-op threads for the forward passes; 0 chooses per batch with
    /// `eval::threads::auto_torch_threads`.
    pub torch_threads: usize,
    pub encoder: Encoder,
    /// Half precisions need CUDA.
    pub precision: Precision,
}

impl Default for NetEvaluatorConfig {
    fn default() -> Self {
        Self {
            backend: Backend::Auto,
            max_batch: 1024,
            torch_threads: 0,
            encoder: Encoder::Auto,
            precision: Precision::Auto,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoder {
    /// Time both at load, at the real batch shapes, and keep the faster.
    #[default]
    Auto,
    Dense,
    Sparse,
}

impl FromStr for Encoder {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Encoder::Auto),
            "dense" => Ok(Encoder::Dense),
            "sparse" => Ok(Encoder::Sparse),
            _ => Err(format!(
                "unknown encoder '{}'; use auto, dense or sparse",
                text.trim()
            )),
        }
    }
}

impl std::fmt::Display for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Encoder::Auto => "auto",
            Encoder::Dense => "dense",
            Encoder::Sparse => "sparse",
        })
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// Each backend's fastest that holds its error bound: int8 on the native backend (for
    /// the nets it covers, else fp32), fp32 on libtorch.
    #[default]
    Auto,
    Fp32,
    /// CUDA only.
    Fp16,
    /// CUDA only.
    Bf16,
    /// The native backend only: i16 accumulators and an int8 hidden layer.
    Int8,
}

impl Precision {
    /// The half precisions, which need CUDA.
    pub fn is_half(self) -> bool {
        matches!(self, Precision::Fp16 | Precision::Bf16)
    }
}

impl FromStr for Precision {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Precision::Auto),
            "fp32" => Ok(Precision::Fp32),
            "fp16" => Ok(Precision::Fp16),
            "bf16" => Ok(Precision::Bf16),
            "int8" => Ok(Precision::Int8),
            _ => Err(format!(
                "unknown precision '{}'; use auto, fp32, int8 (native), fp16 or bf16 (CUDA)",
                text.trim()
            )),
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Precision::Auto => "auto",
            Precision::Fp32 => "fp32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
            Precision::Int8 => "int8",
        })
    }
}
