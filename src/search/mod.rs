//! Iterative-deepening PVS with Deep Pink-style sibling batching. Depends only on `chess`
//! and the `eval::Evaluator` trait; never prints: it reports typed [`SearchEvent`]s.

pub mod limits;
pub mod report;
pub mod tt;

pub use limits::Limits;
pub use report::{Bound, Info, Score, SearchEvent, SearchResult};
pub use tt::TranspositionTable;

use crate::chess::{KeyHistory, Position};
use crate::eval::{EvalCache, Evaluator};
use std::sync::Arc;
use std::time::Duration;

/// Everything a search shares across threads and across `go` commands.
#[derive(Clone)]
pub struct SearchShared {
    pub tt: Arc<TranspositionTable>,
    pub eval: Arc<dyn Evaluator>,
    pub cache: Arc<EvalCache>,
}

#[derive(Clone, Debug)]
pub struct SearchConfig {
    /// Lazy SMP helper count + 1; all threads feed the one evaluator.
    pub threads: usize,
    /// Subtracted from every time budget for GUI and transport latency.
    pub move_overhead: Duration,
}

/// The root: the position to search and the keys of every position played before it
/// (not including the root itself), for repetition draws.
#[derive(Clone, Debug)]
pub struct RootState {
    pub position: Position,
    pub history: KeyHistory,
}

/// Control over a running search. Dropping it stops the search and waits for it.
pub struct SearchHandle {}

impl SearchHandle {
    /// Asks the search to finish now; it still sends its final `Info` and one `BestMove`.
    pub fn stop(&self) {
        todo!()
    }
    /// The opponent played the pondered move: switch from pondering to the normal time limits,
    /// counted from now.
    pub fn ponderhit(&self) {
        todo!()
    }
    pub fn is_finished(&self) -> bool {
        todo!()
    }
    /// Blocks until every search thread has exited (after its `BestMove` was sent).
    pub fn wait(self) {
        todo!()
    }
}

/// Starts a search on new threads and returns at once. Events go to `events`; exactly one
/// `SearchEvent::BestMove` is sent per call, preceded by a final `SearchEvent::Info`.
/// With `limits.infinite` or `limits.ponder` the `BestMove` is held back until `stop` (or
/// `ponderhit` followed by the end of the search), as UCI requires.
pub fn start(
    root: RootState,
    limits: Limits,
    config: SearchConfig,
    shared: SearchShared,
    events: crossbeam::channel::Sender<SearchEvent>,
) -> SearchHandle {
    todo!("{root:?} {limits:?} {config:?} {} {events:?}", shared.eval.info().name)
}

/// Runs a search to completion on the calling thread (plus helpers if `config.threads > 1`)
/// and returns its result; used by `bench` and tests. Events are discarded.
pub fn search_blocking(
    root: RootState,
    limits: Limits,
    config: SearchConfig,
    shared: SearchShared,
) -> SearchResult {
    todo!("{root:?} {limits:?} {config:?} {}", shared.eval.info().name)
}
