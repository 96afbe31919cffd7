//! State shared by the threads of one search and by its [`super::SearchHandle`]: stop and
//! ponderhit signals, the published node count and the clock.

use super::time::Clock;
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

pub struct Control {
    /// Set by `stop` (the GUI): the search ends and `BestMove` may be sent.
    stop: AtomicBool,
    /// Set by the main thread when it has finished or aborted, and on evaluator errors, so
    /// that helper threads quit. Unlike `stop`, it does not release a held-back `BestMove`.
    done: AtomicBool,
    ponderhit: AtomicBool,
    finished: AtomicBool,
    /// Sum of the node counts the threads have published so far.
    pub nodes: AtomicU64,
    /// Tablebase probes that found their position (UCI `tbhits`).
    pub tbhits: AtomicU64,
    /// Sum of the threads' published counts of nodes the search entered (see
    /// `ThreadData::entered`).
    pub entered: AtomicU64,
    pub node_limit: Option<u64>,
    pub clock: Clock,
    error: Mutex<Option<String>>,
    signal: Mutex<()>,
    wake: Condvar,
}

impl Control {
    pub fn new(clock: Clock, node_limit: Option<u64>) -> Self {
        Self {
            stop: AtomicBool::new(false),
            done: AtomicBool::new(false),
            ponderhit: AtomicBool::new(false),
            finished: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            tbhits: AtomicU64::new(0),
            entered: AtomicU64::new(0),
            node_limit,
            clock,
            error: Mutex::new(None),
            signal: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        self.notify();
    }

    pub fn ponderhit(&self) {
        self.clock.ponderhit();
        self.ponderhit.store(true, Ordering::Release);
        self.notify();
    }

    fn notify(&self) {
        // Taking the lock orders this notification after a waiter's flag check.
        let _guard = self.signal.lock();
        self.wake.notify_all();
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    pub fn finish_threads(&self) {
        self.done.store(true, Ordering::Release);
    }

    /// True when every thread should unwind now.
    pub fn should_abort(&self) -> bool {
        self.is_stopped() || self.done.load(Ordering::Acquire)
    }

    pub fn set_finished(&self) {
        self.finished.store(true, Ordering::Release);
    }

    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }

    /// Records the first evaluator error and makes every thread quit.
    pub fn fail(&self, message: String) {
        self.error.lock().get_or_insert(message);
        self.finish_threads();
    }

    pub fn take_error(&self) -> Option<String> {
        self.error.lock().take()
    }

    /// Blocks until `stop`, or until `ponderhit` when `release_on_ponderhit`.
    pub fn wait_for_release(&self, release_on_ponderhit: bool) {
        let released = || {
            self.is_stopped() || (release_on_ponderhit && self.ponderhit.load(Ordering::Acquire))
        };
        let mut guard = self.signal.lock();
        while !released() {
            // The timeout is only a safety net; notify wakes us at once.
            self.wake.wait_for(&mut guard, Duration::from_millis(50));
        }
    }
}
