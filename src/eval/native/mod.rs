//! The native CPU backend: the same `.safetensors` nets as libtorch, run in the calling
//! search thread with incrementally updated first layers (NNUE-style accumulators) and
//! vector loops compiled for the CPU found at load. No batcher thread: every searcher
//! evaluates its own children, so `Threads` scales with cores.

pub mod forward;
pub mod int_forward;
pub mod int_kernels;
pub mod kernels;
pub mod quant;
pub mod weights;

#[cfg(test)]
mod tests;
#[cfg(all(test, feature = "torch"))]
mod tests_buckets;
#[cfg(all(test, feature = "torch"))]
mod tests_mirror;

use super::{net_breakdown, Backend, EvalError, EvalInfo, Evaluator, SearcherGuard};
use crate::chess::CompactBoard;
use crate::net::{load_bytes, NetError, NetFile};
use forward::{Job, Pass, Scratch, Work};
use int_forward::IntAccumulator;
use kernels::Simd;
use quant::QuantNet;
use std::cell::RefCell;
use std::path::Path;
use weights::NativeNet;

/// The arithmetic the native backend runs a net in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arithmetic {
    /// The f32 reference.
    F32,
    /// i16 accumulators and an int8 hidden layer (see `quant`).
    Int8,
}

pub struct NativeEvaluator {
    /// Tells this evaluator's per-thread accumulator stack from another's.
    id: u64,
    net: NativeNet,
    /// The integer form, when it runs.
    quant: Option<QuantNet>,
    simd: Simd,
    info: EvalInfo,
}

thread_local! {
    /// Each search thread's buffers; sized to the net on first use.
    static SCRATCH: RefCell<Scratch<forward::Accumulator>> = RefCell::new(Scratch::default());
    static INT_SCRATCH: RefCell<Scratch<IntAccumulator>> = RefCell::new(Scratch::default());
}

/// Runs one job on `net` with the kernels of `simd`.
fn dispatch<N: Pass>(net: &N, simd: Simd, job: Job, out: &mut Vec<f32>, s: &mut Scratch<N::Acc>) {
    match simd {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Avx512` is only chosen where `Simd::detect` found AVX-512 F, BW and VNNI.
        Simd::Avx512 => unsafe { forward::run_avx512(net, job, out, s) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Avx2` is only chosen where `Simd::detect` found AVX2.
        Simd::Avx2 => unsafe { forward::run_avx2(net, job, out, s) },
        _ => forward::run_baseline(net, job, out, s),
    }
}

impl NativeEvaluator {
    /// Reads and validates a net file.
    pub fn load(path: &Path) -> Result<Self, NetError> {
        let net = crate::net::load(path)?;
        Self::from_net(&net, &path.display().to_string())
    }

    /// As [`NativeEvaluator::load`] for a net held in memory; `origin` names it.
    pub fn from_bytes(bytes: &[u8], origin: &str) -> Result<Self, NetError> {
        Self::from_net(&load_bytes(bytes, origin)?, origin)
    }

    /// On an already validated net, in f32, with the instruction set [`Simd::chosen`] gives
    /// (the best this CPU has unless `CERISE_SIMD` names another).
    pub fn from_net(net: &NetFile, origin: &str) -> Result<Self, NetError> {
        Self::with_simd(net, origin, Simd::chosen().map_err(NetError::BadConfig)?)
    }

    /// In f32 with a given instruction set.
    pub fn with_simd(net: &NetFile, origin: &str, simd: Simd) -> Result<Self, NetError> {
        Self::with(net, origin, simd, Arithmetic::F32)
    }

    /// With a given instruction set and arithmetic; a set the CPU lacks is refused, and so
    /// is int8 for a net it does not cover (see `quant`).
    pub fn with(
        net: &NetFile,
        origin: &str,
        simd: Simd,
        arithmetic: Arithmetic,
    ) -> Result<Self, NetError> {
        if !Simd::detect().runs(simd) {
            return Err(NetError::BadConfig(format!(
                "this CPU cannot run the native backend's {} code",
                simd.name()
            )));
        }
        let stem = Path::new(origin)
            .file_stem()
            .map_or_else(|| origin.to_string(), |s| s.to_string_lossy().into_owned());
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let native = NativeNet::from_file(net)?;
        let quant = match arithmetic {
            Arithmetic::F32 => None,
            Arithmetic::Int8 => Some(QuantNet::from_native(&native)?),
        };
        // The f32 code has no AVX-512 version: its bits are those of the AVX2 code.
        let kernels = match (&quant, simd) {
            (None, Simd::Avx512) => Simd::Avx2,
            _ => simd,
        };
        let arith = if quant.is_some() { "int8" } else { "f32" };
        Ok(NativeEvaluator {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            net: native,
            quant,
            simd: kernels,
            info: EvalInfo {
                name: format!(
                    "net {stem} ({}, native {arith} {})",
                    net.meta.preset,
                    kernels.name()
                ),
                device: "cpu".to_string(),
                max_batch: usize::MAX,
                backend: Some(Backend::Native),
            },
        })
    }

    /// The instruction set the kernels run with.
    pub fn simd(&self) -> Simd {
        self.simd
    }

    pub fn arithmetic(&self) -> Arithmetic {
        if self.quant.is_some() {
            Arithmetic::Int8
        } else {
            Arithmetic::F32
        }
    }

    /// The integer form's scales, when it runs.
    pub fn quantisation(&self) -> Option<String> {
        self.quant.as_ref().map(QuantNet::describe)
    }

    fn run(&self, work: Work, out: &mut Vec<f32>) {
        let job = Job {
            owner: self.id,
            work,
        };
        match &self.quant {
            Some(q) => INT_SCRATCH
                .with(|scratch| dispatch(q, self.simd, job, out, &mut scratch.borrow_mut())),
            None => SCRATCH.with(|scratch| {
                dispatch(&self.net, self.simd, job, out, &mut scratch.borrow_mut())
            }),
        }
    }
}

impl Evaluator for NativeEvaluator {
    fn evaluate(&self, boards: &[CompactBoard], out: &mut Vec<f32>) -> Result<(), EvalError> {
        self.run(Work::Boards(boards), out);
        Ok(())
    }

    fn evaluate_children(
        &self,
        parent: &CompactBoard,
        children: &[CompactBoard],
        out: &mut Vec<f32>,
    ) -> Result<(), EvalError> {
        self.run(Work::Children(parent, children), out);
        Ok(())
    }

    fn info(&self) -> EvalInfo {
        self.info.clone()
    }

    /// A new search starts with an empty accumulator stack on this thread: an update chain
    /// and a refresh can round differently in the last bit, so a stack left by an earlier
    /// search would make this one's scores (and `bench`'s node count) depend on history.
    fn register_searcher(&self) -> SearcherGuard {
        SCRATCH.with(|scratch| scratch.borrow_mut().forget(self.id));
        INT_SCRATCH.with(|scratch| scratch.borrow_mut().forget(self.id));
        SearcherGuard::none()
    }

    fn is_zero_sum(&self) -> bool {
        self.net.form == crate::net::Form::Antisym
    }

    /// The raw network output (for the side that just moved), the scale, and the score.
    fn breakdown(&self, board: &CompactBoard) -> Result<Vec<(String, f32)>, EvalError> {
        net_breakdown(self, board, self.net.cp_per_unit, -1.0)
    }
}
