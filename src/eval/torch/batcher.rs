//! The batcher: one thread owns the tch model; search threads send owned requests carrying
//! their own reply channel, and the thread drains them into one no-grad forward pass.
//!
//! libtorch tensors are not `Sync`, so the thread builds and owns the model and its staging
//! buffers (`model`); everything else talks to it through channels. The thread fills
//! each batch from the front of its queue, taking whole requests while they fit and
//! splitting a request across batches when it does not, so every forward is as full as the
//! waiting work allows and no request waits behind a later one.
//!
//! Flush policy: a batch runs when it is full, or when every registered searcher has a
//! request queued (none of them can add more work until answered), or at once when no
//! searcher is registered (the `eval` command, tests). There is no timed wait: a searcher
//! that unregisters wakes the thread, which re-checks the rule, so searchers may come and
//! go (stop, a new `go`) while others wait.
//!
//! Shutdown (on drop): requests the thread has already taken from the channel are still
//! evaluated; anything still in the channel afterwards is answered `EvalError::Stopped`.
//! Either way every request gets exactly one reply.

use super::model::{EncoderTiming, Model};
use crate::chess::CompactBoard;
use crate::eval::settings::{Encoder, NetEvaluatorConfig, MAX_BATCH_LIMIT};
use crate::eval::threads::{auto_torch_threads, available_cores};
use crate::eval::{
    net_breakdown, Backend, BatchStats, EvalError, EvalInfo, Evaluator, SearcherGuard,
};
use crate::net::device::device_name;
use crate::net::{load_bytes, DeviceChoice, NetError, NetFile};
use crossbeam::channel::{self, Receiver, Sender};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub type EvalReply = Result<Vec<f32>, EvalError>;

/// One caller's boards and where to send their scores.
pub struct EvalRequest {
    pub boards: Vec<CompactBoard>,
    pub reply: Sender<EvalReply>,
}

enum Msg {
    Eval(EvalRequest),
    /// A searcher left: re-check the flush rule.
    Wake,
    Shutdown,
}

#[derive(Default)]
struct Shared {
    batches: AtomicU64,
    positions: AtomicU64,
    busy_ns: AtomicU64,
    /// Registered searchers.
    active: AtomicUsize,
}

impl Shared {
    /// How long a waiting thread may poll: only while every searcher and the evaluator
    /// thread can each have a core. Past that a poller would take the core from a thread
    /// with work to do, so it blocks at once.
    fn poll_window(&self) -> Duration {
        let threads = self.active.load(Ordering::Relaxed) + 1;
        if threads <= available_cores() {
            POLL_BEFORE_BLOCKING
        } else {
            Duration::ZERO
        }
    }
}

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

/// How long a searcher or the batcher polls (yielding the core each time) before it
/// blocks. A batch of a dozen positions takes ~60 µs on the CPU, and waking a blocked
/// thread on the other core cost about as much again: one searcher on an idle 2-core
/// machine reached only ~50 % of the raw forward rate. Yielding keeps the poll cheap for
/// anyone else who wants the core.
const POLL_BEFORE_BLOCKING: Duration = Duration::from_micros(200);

/// `rx.recv()`, polling for up to `window` first.
fn recv_soon<T>(rx: &Receiver<T>, window: Duration) -> Result<T, channel::RecvError> {
    let started = Instant::now();
    loop {
        match rx.try_recv() {
            Ok(v) => return Ok(v),
            Err(channel::TryRecvError::Disconnected) => return Err(channel::RecvError),
            Err(channel::TryRecvError::Empty) if started.elapsed() < window => {
                std::thread::yield_now();
            }
            Err(channel::TryRecvError::Empty) => return rx.recv(),
        }
    }
}

fn stopped() -> EvalError {
    EvalError::Stopped("the net evaluator has shut down".to_string())
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "it panicked".to_string())
}

/// A request being worked on: `done` of its boards are scored into `out`.
struct Pending {
    req: EvalRequest,
    done: usize,
    out: Vec<f32>,
}

impl Pending {
    fn remaining(&self) -> usize {
        self.req.boards.len() - self.done
    }
}

struct Batcher {
    model: Model,
    max_batch: usize,
    /// 0: choose per batch (CPU only; CUDA kernels do not use intra-op threads).
    torch_threads: usize,
    shared: Arc<Shared>,
    queue: VecDeque<Pending>,
    batch: Vec<CompactBoard>,
    scores: Vec<f32>,
}

impl Batcher {
    fn new(model: Model, config: &NetEvaluatorConfig, cuda: bool, shared: Arc<Shared>) -> Self {
        Self {
            model,
            max_batch: config.max_batch,
            torch_threads: if cuda { 1 } else { config.torch_threads },
            shared,
            queue: VecDeque::new(),
            batch: Vec::with_capacity(config.max_batch),
            scores: vec![0.0; config.max_batch],
        }
    }

    fn queued(&self) -> usize {
        self.queue.iter().map(Pending::remaining).sum()
    }

    /// The flush rule (see the module documentation). Each queued request is one caller
    /// blocked on its reply, so "every searcher waiting" is `requests >= registered`.
    fn should_flush(&self, queued: usize) -> bool {
        queued >= self.max_batch || self.queue.len() >= self.shared.active.load(Ordering::SeqCst)
    }

    fn run(mut self, rx: &Receiver<Msg>) {
        let mut stopping = false;
        loop {
            if self.queue.is_empty() {
                if stopping {
                    break;
                }
                match recv_soon(rx, self.shared.poll_window()) {
                    Ok(Msg::Eval(req)) => self.accept(req),
                    Ok(Msg::Wake) => continue,
                    Ok(Msg::Shutdown) | Err(_) => break,
                }
            }
            let mut queued = self.queued();
            while !stopping && queued < self.max_batch {
                match rx.try_recv() {
                    Ok(Msg::Eval(req)) => {
                        queued += req.boards.len();
                        self.accept(req);
                    }
                    Ok(Msg::Wake) => {}
                    Ok(Msg::Shutdown) => stopping = true,
                    Err(_) => break,
                }
            }
            if self.queue.is_empty() {
                continue;
            }
            if stopping || self.should_flush(queued) {
                self.run_batch();
                continue;
            }
            // Some registered searcher is still running: it will either queue a request or
            // unregister, and both arrive here as a message.
            match recv_soon(rx, self.shared.poll_window()) {
                Ok(Msg::Eval(req)) => self.accept(req),
                Ok(Msg::Wake) => {}
                Ok(Msg::Shutdown) | Err(_) => stopping = true,
            }
        }
        while let Ok(msg) = rx.try_recv() {
            if let Msg::Eval(req) = msg {
                let _ = req.reply.send(Err(stopped()));
            }
        }
    }

    fn accept(&mut self, req: EvalRequest) {
        if req.boards.is_empty() {
            let _ = req.reply.send(Ok(Vec::new()));
            return;
        }
        let out = Vec::with_capacity(req.boards.len());
        self.queue.push_back(Pending { req, done: 0, out });
    }

    /// Takes boards from the front of the queue, runs one forward, and hands out scores.
    fn run_batch(&mut self) {
        self.batch.clear();
        let mut touched = 0;
        for p in &self.queue {
            let take = p.remaining().min(self.max_batch - self.batch.len());
            self.batch
                .extend_from_slice(&p.req.boards[p.done..p.done + take]);
            touched += 1;
            if self.batch.len() == self.max_batch {
                break;
            }
        }
        let n = self.batch.len();
        let threads = if self.torch_threads > 0 {
            self.torch_threads
        } else {
            let active = self.shared.active.load(Ordering::SeqCst);
            let running = active.saturating_sub(self.queue.len());
            auto_torch_threads(available_cores(), running, n).min(self.model.thread_cap())
        };
        self.model.set_threads(threads);
        let started = Instant::now();
        let result = self.model.forward(&self.batch, &mut self.scores);
        self.shared
            .busy_ns
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        match result {
            Ok(()) => {
                self.shared.batches.fetch_add(1, Ordering::Relaxed);
                self.shared.positions.fetch_add(n as u64, Ordering::Relaxed);
                let mut offset = 0;
                while offset < n {
                    let Some(p) = self.queue.front_mut() else {
                        break;
                    };
                    let take = p.remaining().min(n - offset);
                    p.out.extend_from_slice(&self.scores[offset..offset + take]);
                    p.done += take;
                    offset += take;
                    if p.remaining() == 0 {
                        if let Some(p) = self.queue.pop_front() {
                            let _ = p.req.reply.send(Ok(p.out));
                        }
                    }
                }
            }
            Err(e) => {
                let message = e.to_string();
                for p in self.queue.drain(..touched) {
                    let _ = p.req.reply.send(Err(EvalError::Inference(message.clone())));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::init_net;
    use crate::net::NetModule;
    use std::collections::HashMap;
    use std::path::PathBuf;
    use std::time::Duration;
    use tch::{nn::VarStore, Device, Tensor};

    fn net_path(seed: u64) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cerise-neteval-tests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir is writable");
        let path = dir.join(format!("small-{seed}.safetensors"));
        init_net("small", seed, &path).expect("init works");
        path
    }

    fn evaluator(max_batch: usize) -> NetEvaluator {
        let config = NetEvaluatorConfig {
            max_batch,
            torch_threads: 1,
            ..Default::default()
        };
        NetEvaluator::load(&net_path(11), DeviceChoice::Cpu, config).expect("net loads")
    }

    /// Distinct positions from a deterministic walk through legal moves.
    /// Drops the evaluator on another thread and fails the test if that takes over a minute.
    fn drop_within_a_minute(eval: NetEvaluator) {
        let (done_tx, done_rx) = channel::bounded(1);
        std::thread::spawn(move || {
            drop(eval);
            let _ = done_tx.send(());
        });
        done_rx
            .recv_timeout(Duration::from_secs(60))
            .expect("dropping the evaluator must not hang");
    }

    fn boards(n: usize) -> Vec<CompactBoard> {
        crate::chess::sample_boards(n)
    }

    /// Scores computed without the batcher: encode_into, a fresh model, one forward.
    fn reference(path: &Path, boards: &[CompactBoard]) -> Vec<f32> {
        let net = crate::net::load(path).expect("net loads");
        let vs = VarStore::new(Device::Cpu);
        let arch = &net.meta.arch;
        let module = NetModule::zeroed(&vs.root(), arch);
        net.copy_into(&vs).expect("copies");
        let width = arch.input_width();
        let mut x = vec![0f32; boards.len() * width];
        for (b, row) in boards.iter().zip(x.chunks_mut(width)) {
            arch.encode_engine(b, row);
        }
        let input = Tensor::from_slice(&x).view([boards.len() as i64, width as i64]);
        let raw = tch::no_grad(|| module.f_forward(&input)).expect("forward");
        let mut out = vec![0f32; boards.len()];
        raw.copy_data(&mut out, boards.len());
        let scale = arch.raw_sign() * net.meta.cp_per_unit;
        out.iter().map(|f| f * scale).collect()
    }

    fn assert_close(a: &[f32], b: &[f32]) {
        assert_eq!(a.len(), b.len());
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{i}: {x} vs {y}");
        }
    }

    #[test]
    fn batched_equals_unbatched_and_reference() {
        let eval = evaluator(64);
        let bs = boards(100);
        let mut batched = Vec::new();
        eval.evaluate(&bs, &mut batched).expect("evaluates");
        let mut single = Vec::new();
        let mut one = Vec::new();
        for b in &bs {
            eval.evaluate(std::slice::from_ref(b), &mut one)
                .expect("evaluates");
            single.push(one[0]);
        }
        assert_close(&batched, &single);
        assert_close(&batched, &reference(&net_path(11), &bs));
        let distinct: std::collections::BTreeSet<u32> =
            batched.iter().map(|s| s.to_bits()).collect();
        assert!(
            distinct.len() > 50,
            "a random net should score positions differently"
        );
    }

    #[test]
    fn a_cnn_net_runs_through_the_batcher_like_its_reference() {
        let dir = std::env::temp_dir().join(format!("cerise-cnn-eval-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir is writable");
        for preset in ["mocha", "mocha-stm"] {
            let path = dir.join(format!("{preset}.safetensors"));
            init_net(preset, 4, &path).expect("init works");
            let config = NetEvaluatorConfig {
                max_batch: 16,
                torch_threads: 1,
                ..Default::default()
            };
            let eval = NetEvaluator::load(&path, DeviceChoice::Cpu, config).expect("cnn loads");
            assert_eq!(eval.encoder(), Encoder::Dense, "a CNN reads dense planes");
            assert!(!eval.is_zero_sum());
            let bs = boards(40);
            let mut got = Vec::new();
            eval.evaluate(&bs, &mut got).expect("evaluates");
            assert_close(&got, &reference(&path, &bs));
            let breakdown = eval.breakdown(&bs[3]).expect("breakdown");
            assert!(breakdown[0].0.contains("logit"), "{breakdown:?}");
            // p = σ(logit), and the score is 400·log10(p / (1 − p)) cp.
            let p = breakdown[1].1;
            assert!(breakdown[1].0.contains("win probability") && p > 0.0 && p < 1.0);
            let cp = 400.0 * (p / (1.0 - p)).log10();
            let score = breakdown.last().expect("score").1;
            assert!(
                (cp - score).abs() < 0.05 * (1.0 + score.abs()),
                "{cp} vs {score}"
            );
            let sparse = NetEvaluatorConfig {
                encoder: Encoder::Sparse,
                ..NetEvaluatorConfig::default()
            };
            let err = NetEvaluator::load(&path, DeviceChoice::Cpu, sparse)
                .err()
                .expect("the sparse encoder is refused for a CNN");
            assert!(err.to_string().contains("dense"), "{err}");
        }
    }

    #[test]
    fn oversize_request_is_split() {
        let eval = evaluator(8);
        let bs = boards(50);
        let before = eval.stats();
        let mut out = vec![9.0; 3];
        eval.evaluate(&bs, &mut out).expect("evaluates");
        assert_close(&out, &reference(&net_path(11), &bs));
        let after = eval.stats();
        assert_eq!(after.positions - before.positions, 50);
        assert_eq!(after.batches - before.batches, 7, "ceil(50 / 8) forwards");
        eval.evaluate(&[], &mut out).expect("empty is fine");
        assert!(out.is_empty());
    }

    #[test]
    fn every_request_answered_once_under_contention() {
        let eval = Arc::new(evaluator(32));
        let bs = boards(200);
        let expected: HashMap<CompactBoard, f32> = bs
            .iter()
            .copied()
            .zip(reference(&net_path(11), &bs))
            .collect();
        let expected = Arc::new(expected);
        let bs = Arc::new(bs);
        let threads: Vec<_> = (0..8usize)
            .map(|t| {
                let (eval, bs, expected) =
                    (Arc::clone(&eval), Arc::clone(&bs), Arc::clone(&expected));
                std::thread::spawn(move || {
                    let mut answered = 0;
                    let mut out = Vec::new();
                    for r in 0..60usize {
                        let len = 1 + (t * 13 + r * 7) % 45;
                        let start = (t * 31 + r * 17) % (bs.len() - len);
                        let req = &bs[start..start + len];
                        eval.evaluate(req, &mut out).expect("evaluates");
                        let want: Vec<f32> = req.iter().map(|b| expected[b]).collect();
                        assert_close(&out, &want);
                        answered += 1;
                    }
                    answered
                })
            })
            .collect();
        let answered: usize = threads
            .into_iter()
            .map(|t| t.join().expect("no panic"))
            .sum();
        assert_eq!(answered, 8 * 60);
        let stats = eval.stats();
        assert!(
            stats.mean_batch > 1.0 && stats.mean_batch <= 32.0,
            "{stats:?}"
        );
    }

    #[test]
    fn drop_with_requests_pending_answers_everything() {
        let eval = evaluator(16);
        let bs = boards(64);
        let receivers: Vec<_> = (0..200).map(|_| eval.submit(bs.clone())).collect();
        drop_within_a_minute(eval);
        let (mut ok, mut stopped) = (0, 0);
        for rx in receivers {
            match rx
                .recv_timeout(Duration::from_secs(5))
                .expect("every request is answered")
            {
                Ok(scores) => {
                    assert_eq!(scores.len(), 64);
                    ok += 1;
                }
                Err(EvalError::Stopped(_)) => stopped += 1,
                Err(e) => panic!("unexpected error {e}"),
            }
            assert!(rx.try_recv().is_err(), "exactly one reply per request");
        }
        assert_eq!(ok + stopped, 200);
    }

    #[test]
    fn info_breakdown_and_stats() {
        let eval = evaluator(16);
        let info = eval.info();
        assert!(
            info.name.starts_with("net small-11 (small, ") && info.name.contains("fp32"),
            "{}",
            info.name
        );
        assert_eq!(info.device, "cpu");
        assert_eq!(info.max_batch, 16);
        assert_eq!(eval.content_id().len(), 12);
        let b = boards(1)[0];
        let terms = eval.breakdown(&b).expect("evaluates");
        let mut out = Vec::new();
        eval.evaluate(&[b], &mut out).expect("evaluates");
        assert_eq!(terms[2].1, out[0]);
        assert_eq!(terms[1].1, 100.0);
        assert!((terms[0].1 * -terms[1].1 - out[0]).abs() < 1e-3);
        assert_eq!(eval.stats().batches, 2, "warm-up is not counted");
    }

    #[test]
    fn load_errors_come_back_synchronously() {
        let missing = std::env::temp_dir().join("cerise-no-such-net.safetensors");
        let err = NetEvaluator::load(&missing, DeviceChoice::Cpu, NetEvaluatorConfig::default())
            .err()
            .expect("missing file is refused");
        assert!(matches!(err, NetError::Read { .. }), "{err}");
        let err =
            NetEvaluator::from_bytes(b"junk", "junk.bin", DeviceChoice::Cpu, Default::default())
                .err()
                .expect("junk is refused");
        assert!(matches!(err, NetError::NotSafetensors { .. }), "{err}");
        let config = NetEvaluatorConfig {
            max_batch: 0,
            torch_threads: 1,
            ..Default::default()
        };
        let err = NetEvaluator::load(&net_path(11), DeviceChoice::Cpu, config)
            .err()
            .expect("max_batch 0 is refused");
        assert!(matches!(err, NetError::BadConfig(_)), "{err}");
        if !tch::Cuda::is_available() {
            let err = NetEvaluator::load(&net_path(11), DeviceChoice::Cuda, Default::default())
                .err()
                .expect("no CUDA here");
            assert!(matches!(err, NetError::CudaUnavailable), "{err}");
        }
    }

    fn evaluator_with(max_batch: usize, encoder: Encoder) -> NetEvaluator {
        let config = NetEvaluatorConfig {
            max_batch,
            torch_threads: 1,
            encoder,
            ..Default::default()
        };
        NetEvaluator::load(&net_path(11), DeviceChoice::Cpu, config).expect("net loads")
    }

    #[test]
    fn both_encoders_match_the_reference() {
        let bs = boards(90);
        let want = reference(&net_path(11), &bs);
        for encoder in [Encoder::Dense, Encoder::Sparse, Encoder::Auto] {
            let eval = evaluator_with(32, encoder);
            assert_ne!(eval.encoder(), Encoder::Auto, "auto is resolved at load");
            assert_eq!(eval.encoder_timing().is_some(), encoder == Encoder::Auto);
            assert!(eval
                .info()
                .name
                .contains(&format!("{} encoder", eval.encoder())));
            let mut out = Vec::new();
            eval.evaluate(&bs, &mut out).expect("evaluates");
            assert_close(&out, &want);
        }
    }

    #[test]
    fn partial_batch_waits_for_every_registered_searcher() {
        let eval = evaluator(64);
        let bs = boards(10);
        // No searcher registered: flushed at once.
        let rx = eval.submit(bs[..3].to_vec());
        rx.recv_timeout(Duration::from_secs(10))
            .expect("answered at once")
            .expect("scores");
        let a = eval.register_searcher();
        let b = eval.register_searcher();
        assert_eq!(eval.active_searchers(), 2);
        let before = eval.stats();
        let first = eval.submit(bs[..3].to_vec());
        // One of two searchers is waiting: the batcher must hold the partial batch. (The
        // timeout only bounds the test; the batcher itself never sleeps.)
        assert!(first.recv_timeout(Duration::from_millis(300)).is_err());
        let second = eval.submit(bs[3..7].to_vec());
        first
            .recv_timeout(Duration::from_secs(10))
            .expect("flushed once both wait")
            .expect("scores");
        second
            .recv_timeout(Duration::from_secs(10))
            .expect("same batch")
            .expect("scores");
        let after = eval.stats();
        assert_eq!(after.batches - before.batches, 1, "one merged forward");
        assert_eq!(after.positions - before.positions, 7);
        // A searcher leaving while the other waits triggers the flush.
        let third = eval.submit(bs[..2].to_vec());
        assert!(third.recv_timeout(Duration::from_millis(200)).is_err());
        drop(b);
        third
            .recv_timeout(Duration::from_secs(10))
            .expect("a leaving searcher wakes the batcher")
            .expect("scores");
        drop(a);
        assert_eq!(eval.active_searchers(), 0);
        let batch = eval.batch_stats().expect("a batching evaluator reports");
        assert_eq!(batch.batches, eval.stats().batches);
        assert!(batch.busy > Duration::ZERO);
    }

    #[test]
    fn a_full_batch_runs_without_waiting_for_searchers() {
        let eval = evaluator(8);
        let _a = eval.register_searcher();
        let _b = eval.register_searcher();
        let bs = boards(20);
        let rx = eval.submit(bs[..8].to_vec());
        rx.recv_timeout(Duration::from_secs(10))
            .expect("a full batch is flushed")
            .expect("scores");
        // 20 boards: two full batches go, the 4 left wait for the other searcher.
        let rx = eval.submit(bs.clone());
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
        let done = eval.stats();
        assert_eq!(done.positions, 8 + 16);
    }

    /// 64 searcher threads, each repeatedly registering ("go"), evaluating random requests
    /// and unregistering after a random count ("stop"), some keeping a request in flight.
    #[test]
    fn stress_64_searchers_with_random_stop_and_go() {
        let eval = Arc::new(evaluator(128));
        let bs = Arc::new(boards(300));
        let want: Arc<HashMap<CompactBoard, f32>> = Arc::new(
            bs.iter()
                .copied()
                .zip(reference(&net_path(11), &bs))
                .collect(),
        );
        let (done_tx, done_rx) = channel::unbounded();
        for t in 0..64u64 {
            let (eval, bs, want, done_tx) = (
                Arc::clone(&eval),
                Arc::clone(&bs),
                Arc::clone(&want),
                done_tx.clone(),
            );
            std::thread::spawn(move || {
                // A seeded SplitMix64-style stream, written here so that the test stays in
                // eval's layer (data::rng is above it).
                let mut state = t + 1;
                let mut below = |n: usize| {
                    state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                    let z = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                    ((u128::from(z ^ (z >> 31)) * n as u128) >> 64) as usize
                };
                let mut answered = 0usize;
                let mut out = Vec::new();
                for _session in 0..6 {
                    let _guard = eval.register_searcher();
                    let calls = below(8);
                    for _ in 0..calls {
                        let len = 1 + below(40);
                        let start = below(bs.len() - len);
                        let req = &bs[start..start + len];
                        eval.evaluate(req, &mut out).expect("evaluates");
                        let expected: Vec<f32> = req.iter().map(|b| want[b]).collect();
                        assert_close(&out, &expected);
                        answered += 1;
                    }
                    if below(4) == 0 {
                        // Stop with a request submitted but not waited for.
                        let _ = eval.submit(bs[..3].to_vec());
                    }
                }
                let _ = done_tx.send(answered);
            });
        }
        drop(done_tx);
        let mut finished = 0;
        while finished < 64 {
            done_rx
                .recv_timeout(Duration::from_secs(120))
                .expect("every searcher finishes: no deadlock, no panic");
            finished += 1;
        }
        assert_eq!(eval.active_searchers(), 0);
        let stats = eval.stats();
        assert!(stats.mean_batch > 1.0, "{stats:?}");
    }

    #[test]
    fn drop_with_registered_searchers_and_pending_requests_hangs_nothing() {
        let eval = evaluator(64);
        let guards: Vec<_> = (0..3).map(|_| eval.register_searcher()).collect();
        // Two of three searchers waiting: these cannot be flushed by the policy.
        let pending = [eval.submit(boards(5)), eval.submit(boards(6))];
        drop_within_a_minute(eval);
        for rx in pending {
            let reply = rx
                .recv_timeout(Duration::from_secs(5))
                .expect("answered on shutdown");
            assert!(matches!(reply, Ok(_) | Err(EvalError::Stopped(_))));
        }
        drop(guards);
    }

    #[test]
    fn torch_thread_rule() {
        assert_eq!(auto_torch_threads(2, 0, 8), 1, "small batches get one");
        assert_eq!(auto_torch_threads(2, 0, 512), 2);
        assert_eq!(auto_torch_threads(8, 3, 512), 5);
        assert_eq!(auto_torch_threads(2, 7, 512), 1);
    }
}
