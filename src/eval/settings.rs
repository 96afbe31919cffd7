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
            precision: Precision::Fp32,
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
    #[default]
    Fp32,
    /// CUDA only.
    Fp16,
    /// CUDA only.
    Bf16,
}

impl FromStr for Precision {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "fp32" => Ok(Precision::Fp32),
            "fp16" => Ok(Precision::Fp16),
            "bf16" => Ok(Precision::Bf16),
            _ => Err(format!(
                "unknown precision '{}'; use fp32, fp16 or bf16",
                text.trim()
            )),
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Precision::Fp32 => "fp32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
        })
    }
}
