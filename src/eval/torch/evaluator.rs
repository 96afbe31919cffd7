//! The net evaluator that search threads call: it loads the net, starts the batcher thread
//! ([`super::batcher`]) that owns the model, and turns each `evaluate` into a request and a
//! wait for its reply. Registered searchers tell the batcher when a batch is as full as it
//! will get.
//!
//! Dropping the evaluator shuts the batcher down; every request still gets exactly one reply.

use super::batcher::{recv_soon, stopped, Batcher, EvalReply, EvalRequest, Msg, Shared};
use super::model::{EncoderTiming, Model};
use crate::chess::CompactBoard;
use crate::eval::settings::{Encoder, NetEvaluatorConfig, MAX_BATCH_LIMIT};
use crate::eval::{
    net_breakdown, Backend, BatchStats, EvalError, EvalInfo, Evaluator, SearcherGuard,
};
use crate::net::device::device_name;
use crate::net::{load_bytes, DeviceChoice, NetError, NetFile};
use crossbeam::channel::{self, Receiver, Sender};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Forward passes run and positions evaluated since load (the warm-up not counted).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetStats {
    pub batches: u64,
    pub positions: u64,
    pub mean_batch: f64,
}

/// What the evaluator thread settled on at load.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Chosen {
    encoder: Encoder,
    timing: Option<EncoderTiming>,
}

pub struct NetEvaluator {
    tx: Sender<Msg>,
    thread: Option<JoinHandle<()>>,
    shared: Arc<Shared>,
    info: EvalInfo,
    chosen: Chosen,
    cp_per_unit: f32,
    content_id: String,
    zero_sum: bool,
    /// The family's raw-output sign (`ModelArch::raw_sign`), for the `eval` breakdown.
    raw_sign: f32,
}

impl NetEvaluator {
    /// Reads, validates and loads a net file, and starts its evaluator thread. Every load
    /// problem is returned here, before any evaluation.
    pub fn load(
        path: &Path,
        device: DeviceChoice,
        config: NetEvaluatorConfig,
    ) -> Result<Self, NetError> {
        let net = crate::net::load(path)?;
        Self::from_net(net, &path.display().to_string(), device, config)
    }

    /// As [`NetEvaluator::load`] for a net held in memory; `origin` names it (its file stem
    /// appears in [`Evaluator::info`]).
    pub fn from_bytes(
        bytes: &[u8],
        origin: &str,
        device: DeviceChoice,
        config: NetEvaluatorConfig,
    ) -> Result<Self, NetError> {
        Self::from_net(load_bytes(bytes, origin)?, origin, device, config)
    }

    /// Starts the evaluator thread on an already validated net; returns once the model is
    /// built and warmed up (and, for `Encoder::Auto`, the encoder chosen). The precision is
    /// run as given: the opener (`eval::open`) chose it.
    pub fn from_net(
        net: NetFile,
        origin: &str,
        device: DeviceChoice,
        config: NetEvaluatorConfig,
    ) -> Result<Self, NetError> {
        if config.max_batch == 0 || config.max_batch > MAX_BATCH_LIMIT {
            return Err(NetError::BadConfig(format!(
                "max_batch must be between 1 and {MAX_BATCH_LIMIT}, got {}",
                config.max_batch
            )));
        }
        let device = device.resolve()?;
        let stem = Path::new(origin)
            .file_stem()
            .map_or_else(|| origin.to_string(), |s| s.to_string_lossy().into_owned());
        let preset = net.meta.preset.clone();
        let cp_per_unit = net.meta.cp_per_unit;
        let zero_sum = net.meta.arch.is_zero_sum();
        let raw_sign = net.meta.arch.raw_sign();
        let content_id = net.content_id.clone();
        let shared = Arc::new(Shared::default());
        let (tx, rx) = channel::unbounded();
        let (ready_tx, ready_rx) = channel::bounded(1);
        let thread_shared = Arc::clone(&shared);
        let thread_config = config.clone();
        let thread = std::thread::Builder::new()
            .name("cerise-eval".to_string())
            .spawn(move || {
                let config = thread_config;
                match Model::build(
                    &net,
                    device,
                    config.max_batch,
                    config.encoder,
                    config.precision,
                    config.torch_threads,
                ) {
                    Ok(model) => {
                        drop(net);
                        let chosen = Chosen {
                            encoder: model.encoder(),
                            timing: model.timing(),
                        };
                        let _ = ready_tx.send(Ok(chosen));
                        Batcher::new(model, &config, device.is_cuda(), thread_shared).run(&rx);
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                    }
                }
            })
            .map_err(|e| NetError::ThreadFailed(format!("cannot start it: {e}")))?;
        match ready_rx.recv() {
            Ok(Ok(chosen)) => Ok(NetEvaluator {
                tx,
                thread: Some(thread),
                shared,
                info: EvalInfo {
                    name: format!(
                        "net {stem} ({preset}, {} encoder, {})",
                        chosen.encoder,
                        config.precision.torch_name()
                    ),
                    device: device_name(device),
                    max_batch: config.max_batch,
                    backend: Some(Backend::Torch),
                },
                chosen,
                cp_per_unit,
                content_id,
                zero_sum,
                raw_sign,
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let why = match thread.join() {
                    Err(panic) => panic_message(panic.as_ref()),
                    Ok(()) => "it exited without reporting".to_string(),
                };
                Err(NetError::ThreadFailed(why))
            }
        }
    }

    /// Queues boards for evaluation without waiting; the receiver gets exactly one reply
    /// (scores in order, or the error). Lets one caller keep several requests in flight.
    pub fn submit(&self, boards: Vec<CompactBoard>) -> Receiver<EvalReply> {
        let (reply, rx) = channel::bounded(1);
        if let Err(channel::SendError(Msg::Eval(req))) =
            self.tx.send(Msg::Eval(EvalRequest { boards, reply }))
        {
            let _ = req.reply.send(Err(stopped()));
        }
        rx
    }

    pub fn stats(&self) -> NetStats {
        let s = self.batch_figures();
        NetStats {
            batches: s.batches,
            positions: s.positions,
            mean_batch: s.mean_batch(),
        }
    }

    fn batch_figures(&self) -> BatchStats {
        BatchStats {
            batches: self.shared.batches.load(Ordering::Relaxed),
            positions: self.shared.positions.load(Ordering::Relaxed),
            busy: Duration::from_nanos(self.shared.busy_ns.load(Ordering::Relaxed)),
        }
    }

    /// The encoder in use (never `Auto`: that was resolved at load).
    pub fn encoder(&self) -> Encoder {
        self.chosen.encoder
    }

    /// Per-position forward cost of each encoder, when `Auto` measured them at load.
    pub fn encoder_timing(&self) -> Option<EncoderTiming> {
        self.chosen.timing
    }

    /// Registered searchers right now.
    pub fn active_searchers(&self) -> usize {
        self.shared.active.load(Ordering::SeqCst)
    }

    pub fn cp_per_unit(&self) -> f32 {
        self.cp_per_unit
    }

    /// First 12 hex digits of the SHA-256 of the net file.
    pub fn content_id(&self) -> &str {
        &self.content_id
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(&self, boards: &[CompactBoard], out: &mut Vec<f32>) -> Result<(), EvalError> {
        out.clear();
        if boards.is_empty() {
            return Ok(());
        }
        let scores = recv_soon(&self.submit(boards.to_vec()), self.shared.poll_window())
            .map_err(|_| EvalError::Stopped("it exited without answering".to_string()))??;
        out.extend_from_slice(&scores);
        Ok(())
    }

    fn info(&self) -> EvalInfo {
        self.info.clone()
    }

    fn is_zero_sum(&self) -> bool {
        self.zero_sum
    }

    /// The raw network output (for the side that just moved), the scale, and the score.
    fn breakdown(&self, board: &CompactBoard) -> Result<Vec<(String, f32)>, EvalError> {
        net_breakdown(self, board, self.cp_per_unit, self.raw_sign)
    }

    fn register_searcher(&self) -> SearcherGuard {
        self.shared.active.fetch_add(1, Ordering::SeqCst);
        let shared = Arc::clone(&self.shared);
        let tx = self.tx.clone();
        SearcherGuard::new(move || {
            shared.active.fetch_sub(1, Ordering::SeqCst);
            // Fails only after shutdown, when there is nothing left to wake.
            let _ = tx.send(Msg::Wake);
        })
    }

    fn batch_stats(&self) -> Option<BatchStats> {
        Some(self.batch_figures())
    }
}

impl Drop for NetEvaluator {
    fn drop(&mut self) {
        let _ = self.tx.send(Msg::Shutdown);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "it panicked".to_string())
}
