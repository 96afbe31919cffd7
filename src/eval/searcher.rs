//! Searcher registration: a batching evaluator flushes a partial batch once every registered
//! searcher is waiting for a reply, so it needs to know how many searchers are active.

/// Held by a search thread for as long as it may call `evaluate`; dropping it unregisters
/// the thread (and lets a batcher re-check whether everyone left is waiting).
#[must_use = "the searcher is unregistered as soon as the guard is dropped"]
pub struct SearcherGuard {
    on_drop: Option<Box<dyn FnOnce() + Send>>,
}

impl SearcherGuard {
    /// A guard that does nothing: for evaluators that do not batch across threads.
    pub fn none() -> Self {
        SearcherGuard { on_drop: None }
    }

    /// A guard that runs `on_drop` exactly once, when dropped.
    pub fn new(on_drop: impl FnOnce() + Send + 'static) -> Self {
        SearcherGuard {
            on_drop: Some(Box::new(on_drop)),
        }
    }
}

impl Drop for SearcherGuard {
    fn drop(&mut self) {
        if let Some(f) = self.on_drop.take() {
            f();
        }
    }
}

impl std::fmt::Debug for SearcherGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearcherGuard")
            .field("registered", &self.on_drop.is_some())
            .finish()
    }
}

/// Cumulative figures of a batching evaluator, for `bench` (differences of two snapshots
/// give the figures of the work between them).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BatchStats {
    /// Forward passes run (the warm-up not counted).
    pub batches: u64,
    /// Positions evaluated by those passes.
    pub positions: u64,
    /// Time spent encoding, running and reading back forward passes.
    pub busy: std::time::Duration,
}

impl BatchStats {
    pub fn mean_batch(&self) -> f64 {
        if self.batches == 0 {
            0.0
        } else {
            self.positions as f64 / self.batches as f64
        }
    }

    /// `self - earlier`, for the work done between two snapshots.
    pub fn since(&self, earlier: &BatchStats) -> BatchStats {
        BatchStats {
            batches: self.batches.saturating_sub(earlier.batches),
            positions: self.positions.saturating_sub(earlier.positions),
            busy: self.busy.saturating_sub(earlier.busy),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn guard_runs_its_action_once_on_drop() {
        let count = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&count);
        let guard = SearcherGuard::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(count.load(Ordering::SeqCst), 0);
        drop(guard);
        assert_eq!(count.load(Ordering::SeqCst), 1);
        drop(SearcherGuard::none());
    }

    #[test]
    fn stats_difference_and_mean() {
        let a = BatchStats {
            batches: 2,
            positions: 10,
            busy: std::time::Duration::from_millis(5),
        };
        let b = BatchStats {
            batches: 6,
            positions: 90,
            busy: std::time::Duration::from_millis(25),
        };
        let d = b.since(&a);
        assert_eq!((d.batches, d.positions), (4, 80));
        assert_eq!(d.mean_batch(), 20.0);
        assert_eq!(BatchStats::default().mean_batch(), 0.0);
    }
}
