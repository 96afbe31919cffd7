//! The settings of a net evaluator, as the engine's options and the command line give them:
//! plain values, the same in every build. Those only libtorch honours (the encoder, the
//! precision, batching) are accepted without it too, so that a GUI's saved settings still
//! load; the opener (`eval::open`) refuses what the build cannot run.

use super::Backend;

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

choice_enum! {
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum Encoder("encoder") {
        /// Time both at load, at the real batch shapes, and keep the faster.
        #[default]
        Auto = "auto",
        Dense = "dense",
        Sparse = "sparse",
    }
}

choice_enum! {
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum Precision("precision") {
        /// Each backend's fastest that holds its error bound: int8 on the native backend
        /// (for the nets it covers, else fp32), fp32 on libtorch.
        #[default]
        Auto = "auto",
        Fp32 = "fp32",
        /// The native backend only: i16 accumulators and an int8 hidden layer.
        Int8 = "int8",
        /// CUDA only.
        Fp16 = "fp16",
        /// CUDA only.
        Bf16 = "bf16",
    }
}

impl Precision {
    /// The half precisions, which need CUDA.
    pub fn is_half(self) -> bool {
        matches!(self, Precision::Fp16 | Precision::Bf16)
    }
}
