//! The batcher: one thread owns the tch module; search threads send owned requests carrying
//! their own reply channel, and the thread drains them into one no-grad forward pass.
//!
//! libtorch tensors are not `Sync`, so the thread builds and owns the VarStore, the model and
//! a staging input buffer; everything else talks to it through channels. The evaluator
//! thread fills each batch from the front of its queue, taking whole requests while they fit
//! and splitting a request across batches when it does not, so every forward is as full as
//! the waiting work allows and no request waits behind a later one.
//!
//! Shutdown (on drop): requests the thread has already taken from the channel are still
//! evaluated; anything still in the channel afterwards is answered `EvalError::Stopped`.
//! Either way every request gets exactly one reply.

use super::{EvalError, EvalInfo, Evaluator};
use crate::chess::{CompactBoard, ENCODING_WIDTH};
use crate::net::device::device_name;
use crate::net::{load_bytes, DeviceChoice, Mlp, NetError, NetFile};
use crossbeam::channel::{self, Receiver, Sender};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use tch::{nn::VarStore, Device, Kind, Tensor};

/// Largest accepted `max_batch`; the staging buffer is `max_batch × 768` floats.
pub const MAX_BATCH_LIMIT: usize = 1 << 16;

#[derive(Clone, Debug)]
pub struct NetEvaluatorConfig {
    pub max_batch: usize,
    /// libtorch intra-op threads for the evaluator thread; 0 leaves libtorch's default. One
    /// suits small batches on a CPU shared with search threads.
    pub torch_threads: usize,
}

impl Default for NetEvaluatorConfig {
    fn default() -> Self {
        Self {
            max_batch: 1024,
            torch_threads: 1,
        }
    }
}

pub type EvalReply = Result<Vec<f32>, EvalError>;

/// One caller's boards and where to send their scores.
pub struct EvalRequest {
    pub boards: Vec<CompactBoard>,
    pub reply: Sender<EvalReply>,
}

enum Msg {
    Eval(EvalRequest),
    Shutdown,
}

#[derive(Default)]
struct Counters {
    batches: AtomicU64,
    positions: AtomicU64,
}

/// Forward passes run and positions evaluated since load (the warm-up not counted).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetStats {
    pub batches: u64,
    pub positions: u64,
    pub mean_batch: f64,
}

pub struct NetEvaluator {
    tx: Sender<Msg>,
    thread: Option<JoinHandle<()>>,
    counters: Arc<Counters>,
    info: EvalInfo,
    cp_per_unit: f32,
    content_id: String,
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

    /// Starts the evaluator thread on an already validated net.
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
        let info = EvalInfo {
            name: format!("net {stem} ({})", net.meta.preset),
            device: device_name(device),
            max_batch: config.max_batch,
        };
        let cp_per_unit = net.meta.cp_per_unit;
        let content_id = net.content_id.clone();
        let counters = Arc::new(Counters::default());
        let (tx, rx) = channel::unbounded();
        let (ready_tx, ready_rx) = channel::bounded(1);
        let thread_counters = Arc::clone(&counters);
        let thread = std::thread::Builder::new()
            .name("cerise-eval".to_string())
            .spawn(move || match Model::build(&net, device, &config) {
                Ok(model) => {
                    drop(net);
                    let _ = ready_tx.send(Ok(()));
                    Batcher::new(model, config.max_batch, thread_counters).run(&rx);
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                }
            })
            .map_err(|e| NetError::ThreadFailed(format!("cannot start it: {e}")))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(NetEvaluator {
                tx,
                thread: Some(thread),
                counters,
                info,
                cp_per_unit,
                content_id,
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
        let batches = self.counters.batches.load(Ordering::Relaxed);
        let positions = self.counters.positions.load(Ordering::Relaxed);
        NetStats {
            batches,
            positions,
            mean_batch: if batches == 0 {
                0.0
            } else {
                positions as f64 / batches as f64
            },
        }
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
        let scores = self
            .submit(boards.to_vec())
            .recv()
            .map_err(|_| EvalError::Stopped("it exited without answering".to_string()))??;
        out.extend_from_slice(&scores);
        Ok(())
    }

    fn info(&self) -> EvalInfo {
        self.info.clone()
    }

    /// The raw network output (for the side that just moved), the scale, and the score.
    fn breakdown(&self, board: &CompactBoard) -> Result<Vec<(String, f32)>, EvalError> {
        let mut out = Vec::with_capacity(1);
        self.evaluate(std::slice::from_ref(board), &mut out)?;
        let score = out[0];
        Ok(vec![
            (
                "raw f (side that just moved)".to_string(),
                -score / self.cp_per_unit,
            ),
            ("cp_per_unit".to_string(), self.cp_per_unit),
            ("score (side to move, cp)".to_string(), score),
        ])
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

/// Everything libtorch; lives and dies on the evaluator thread.
struct Model {
    _vs: VarStore,
    mlp: Mlp,
    device: Device,
    /// `[max_batch, 768]` f32 on the host, pinned when the model is on CUDA so the copy to
    /// the device can be asynchronous; reused by every batch.
    staging: Tensor,
    /// `-cp_per_unit`: the sign turns "side that just moved" into "side to move".
    scale: f32,
}

impl Model {
    fn build(net: &NetFile, device: Device, config: &NetEvaluatorConfig) -> Result<Self, NetError> {
        if config.torch_threads > 0 {
            tch::set_num_threads(config.torch_threads as i32);
        }
        let vs = VarStore::new(device);
        let mlp = Mlp::zeroed(&vs.root(), &net.meta.arch);
        net.copy_into(&vs)?;
        let rows = config.max_batch as i64;
        let width = ENCODING_WIDTH as i64;
        let mut staging = Tensor::f_zeros([rows, width], (Kind::Float, Device::Cpu))
            .map_err(|e| NetError::torch("allocating the input buffer", e))?;
        if device.is_cuda() {
            staging = staging
                .f_pin_memory(device)
                .map_err(|e| NetError::torch("pinning the input buffer", e))?;
        }
        let mut model = Model {
            _vs: vs,
            mlp,
            device,
            staging,
            scale: -net.meta.cp_per_unit,
        };
        // Warm-up: the first forward allocates and (on CUDA) initialises kernels; pay for it
        // at load, not on the first move.
        let mut scores = vec![0f32; 1];
        model
            .forward(1, &mut scores)
            .map_err(|e| NetError::torch("running the warm-up forward pass", e))?;
        Ok(model)
    }

    /// The staging buffer as a slice.
    fn staging_mut(&mut self) -> &mut [f32] {
        let len = self.staging.numel();
        // SAFETY: `staging` is a contiguous f32 CPU tensor of `len` elements that this
        // struct owns and never shares; the `&mut self` borrow keeps it alive and unaliased
        // for the slice's lifetime. Any asynchronous copy reading it has finished, because
        // `forward` waits for its results before returning.
        unsafe { std::slice::from_raw_parts_mut(self.staging.data_ptr() as *mut f32, len) }
    }

    /// Scores (for the side to move, in centipawns) of the first `n` staged rows.
    fn forward(&mut self, n: usize, scores: &mut [f32]) -> Result<(), tch::TchError> {
        tch::no_grad(|| {
            let mut input = self.staging.f_narrow(0, 0, n as i64)?;
            if self.device.is_cuda() {
                input = input.f_to_device_(self.device, Kind::Float, true, false)?;
            }
            let raw = self.mlp.f_forward(&input)?;
            raw.f_copy_data(&mut scores[..n], n)
        })?;
        for s in &mut scores[..n] {
            *s *= self.scale;
        }
        Ok(())
    }
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
    counters: Arc<Counters>,
    queue: VecDeque<Pending>,
    scores: Vec<f32>,
}

impl Batcher {
    fn new(model: Model, max_batch: usize, counters: Arc<Counters>) -> Self {
        Self {
            model,
            max_batch,
            counters,
            queue: VecDeque::new(),
            scores: vec![0.0; max_batch],
        }
    }

    fn run(mut self, rx: &Receiver<Msg>) {
        let mut stopping = false;
        loop {
            if self.queue.is_empty() {
                if stopping {
                    break;
                }
                match rx.recv() {
                    Ok(Msg::Eval(req)) => self.accept(req),
                    Ok(Msg::Shutdown) | Err(_) => break,
                }
            }
            let mut queued: usize = self.queue.iter().map(Pending::remaining).sum();
            while !stopping && queued < self.max_batch {
                match rx.try_recv() {
                    Ok(Msg::Eval(req)) => {
                        queued += req.boards.len();
                        self.accept(req);
                    }
                    Ok(Msg::Shutdown) => stopping = true,
                    Err(_) => break,
                }
            }
            if !self.queue.is_empty() {
                self.run_batch();
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

    /// Stages boards from the front of the queue, runs one forward, and hands out scores.
    fn run_batch(&mut self) {
        let mut n = 0;
        let mut touched = 0;
        {
            let staging = self.model.staging_mut();
            for p in &self.queue {
                let take = p.remaining().min(self.max_batch - n);
                for board in &p.req.boards[p.done..p.done + take] {
                    let row = &mut staging[n * ENCODING_WIDTH..(n + 1) * ENCODING_WIDTH];
                    row.fill(0.0);
                    for feature in board.active_features() {
                        row[feature] = 1.0;
                    }
                    n += 1;
                }
                touched += 1;
                if n == self.max_batch {
                    break;
                }
            }
        }
        match self.model.forward(n, &mut self.scores) {
            Ok(()) => {
                self.counters.batches.fetch_add(1, Ordering::Relaxed);
                self.counters
                    .positions
                    .fetch_add(n as u64, Ordering::Relaxed);
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
    use crate::chess::Position;
    use crate::net::init_net;
    use std::collections::HashMap;
    use std::path::PathBuf;
    use std::time::Duration;

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
        };
        NetEvaluator::load(&net_path(11), DeviceChoice::Cpu, config).expect("net loads")
    }

    /// Distinct positions from a deterministic walk through legal moves.
    fn boards(n: usize) -> Vec<CompactBoard> {
        let mut out = Vec::with_capacity(n);
        let mut pos = Position::startpos();
        let mut i = 0usize;
        while out.len() < n {
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.halfmoves() > 40 {
                pos = Position::startpos();
                continue;
            }
            pos = pos.play(&moves[(i * 7 + 3) % moves.len()]);
            out.push(pos.compact());
            i += 1;
        }
        out
    }

    /// Scores computed without the batcher: encode_into, a fresh model, one forward.
    fn reference(path: &Path, boards: &[CompactBoard]) -> Vec<f32> {
        let net = crate::net::load(path).expect("net loads");
        let vs = VarStore::new(Device::Cpu);
        let mlp = Mlp::zeroed(&vs.root(), &net.meta.arch);
        net.copy_into(&vs).expect("copies");
        let mut x = vec![0f32; boards.len() * ENCODING_WIDTH];
        for (b, row) in boards.iter().zip(x.chunks_mut(ENCODING_WIDTH)) {
            b.encode_into(row);
        }
        let input = Tensor::from_slice(&x).view([boards.len() as i64, ENCODING_WIDTH as i64]);
        let raw = tch::no_grad(|| mlp.forward(&input));
        let mut out = vec![0f32; boards.len()];
        raw.copy_data(&mut out, boards.len());
        out.iter().map(|f| -f * net.meta.cp_per_unit).collect()
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
        let (done_tx, done_rx) = channel::bounded(1);
        std::thread::spawn(move || {
            drop(eval);
            let _ = done_tx.send(());
        });
        done_rx
            .recv_timeout(Duration::from_secs(60))
            .expect("dropping the evaluator must not hang");
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
        assert_eq!(info.name, "net small-11 (small)");
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
}
