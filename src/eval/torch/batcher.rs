//! The batcher: one thread owns the tch model; search threads send owned requests carrying
//! their own reply channel, and the thread drains them into one no-grad forward pass. The
//! evaluator that search threads call ([`super::evaluator`]) starts this thread and talks to
//! it only through the messages defined here.
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
//! Shutdown: requests the thread has already taken from the channel are still evaluated;
//! anything still in the channel afterwards is answered `EvalError::Stopped`. Either way
//! every request gets exactly one reply.

use super::model::Model;
use crate::chess::CompactBoard;
use crate::eval::settings::NetEvaluatorConfig;
use crate::eval::threads::{auto_torch_threads, available_cores};
use crate::eval::EvalError;
use crossbeam::channel::{self, Receiver, Sender};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub type EvalReply = Result<Vec<f32>, EvalError>;

/// One caller's boards and where to send their scores.
pub struct EvalRequest {
    pub boards: Vec<CompactBoard>,
    pub reply: Sender<EvalReply>,
}

pub(super) enum Msg {
    Eval(EvalRequest),
    /// A searcher left: re-check the flush rule.
    Wake,
    Shutdown,
}

#[derive(Default)]
pub(super) struct Shared {
    pub(super) batches: AtomicU64,
    pub(super) positions: AtomicU64,
    pub(super) busy_ns: AtomicU64,
    /// Registered searchers.
    pub(super) active: AtomicUsize,
}

impl Shared {
    /// How long a waiting thread may poll: only while every searcher and the evaluator
    /// thread can each have a core. Past that a poller would take the core from a thread
    /// with work to do, so it blocks at once.
    pub(super) fn poll_window(&self) -> Duration {
        let threads = self.active.load(Ordering::Relaxed) + 1;
        if threads <= available_cores() {
            POLL_BEFORE_BLOCKING
        } else {
            Duration::ZERO
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
pub(super) fn recv_soon<T>(rx: &Receiver<T>, window: Duration) -> Result<T, channel::RecvError> {
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

pub(super) fn stopped() -> EvalError {
    EvalError::Stopped("the net evaluator has shut down".to_string())
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

pub(super) struct Batcher {
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
    pub(super) fn new(
        model: Model,
        config: &NetEvaluatorConfig,
        cuda: bool,
        shared: Arc<Shared>,
    ) -> Self {
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

    pub(super) fn run(mut self, rx: &Receiver<Msg>) {
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
