//! The native CPU backend: the same `.safetensors` nets as libtorch, run in the calling
//! search thread with incrementally updated first layers (NNUE-style accumulators) and
//! vector loops compiled for the CPU found at load. No batcher thread: every searcher
//! evaluates its own children, so `Threads` scales with cores.

pub mod forward;
pub mod kernels;
pub mod weights;

#[cfg(test)]
mod tests;

use super::{net_breakdown, Backend, EvalError, EvalInfo, Evaluator, SearcherGuard};
use crate::chess::CompactBoard;
use crate::net::{load_bytes, NetError, NetFile};
use forward::{Job, Scratch, Work};
use kernels::Simd;
use std::cell::RefCell;
use std::path::Path;
use weights::NativeNet;

pub struct NativeEvaluator {
    /// Tells this evaluator's per-thread accumulator stack from another's.
    id: u64,
    net: NativeNet,
    simd: Simd,
    info: EvalInfo,
}

thread_local! {
    /// Each search thread's buffers; sized to the net on first use.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
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

    /// On an already validated net, with the best instruction set this CPU has.
    pub fn from_net(net: &NetFile, origin: &str) -> Result<Self, NetError> {
        Self::with_simd(net, origin, Simd::detect())
    }

    /// With a given instruction set; `Avx2` is refused where the CPU lacks it.
    pub fn with_simd(net: &NetFile, origin: &str, simd: Simd) -> Result<Self, NetError> {
        if simd != Simd::Baseline && Simd::detect() != simd {
            return Err(NetError::BadConfig(format!(
                "this CPU cannot run the native backend's {} code",
                simd.name()
            )));
        }
        let stem = Path::new(origin)
            .file_stem()
            .map_or_else(|| origin.to_string(), |s| s.to_string_lossy().into_owned());
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Ok(NativeEvaluator {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            net: NativeNet::from_file(net)?,
            simd,
            info: EvalInfo {
                name: format!("net {stem} ({}, native {})", net.meta.preset, simd.name()),
                device: "cpu".to_string(),
                max_batch: usize::MAX,
                backend: Some(Backend::Native),
            },
        })
    }

    pub fn simd(&self) -> Simd {
        self.simd
    }

    fn run(&self, work: Work, out: &mut Vec<f32>) {
        let job = Job {
            owner: self.id,
            work,
        };
        SCRATCH.with(|scratch| {
            let s = &mut scratch.borrow_mut();
            match self.simd {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `Avx2` is only chosen where `Simd::detect` found AVX2.
                Simd::Avx2 => unsafe { forward::run_avx2(&self.net, job, out, s) },
                _ => forward::run_baseline(&self.net, job, out, s),
            }
        });
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
