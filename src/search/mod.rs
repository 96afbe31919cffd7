//! Iterative-deepening PVS with Deep Pink-style sibling batching. Depends only on `chess`
//! and the `eval::Evaluator` trait; never prints: it reports typed [`SearchEvent`]s.

pub mod alphabeta;
pub mod aspiration;
pub mod control;
pub mod correction;
pub mod driver;
pub mod greedy_play;
pub mod history;
pub mod history_store;
pub mod limits;
pub mod multipv;
pub mod no_search;
pub mod ordering;
pub mod params;
pub mod policy_play;
pub mod qsearch;
pub mod reductions;
pub mod report;
pub mod root;
pub mod score;
pub mod see;
pub mod singular;
pub mod thread;
pub mod time;
pub mod tt;

#[cfg(test)]
mod tests;

pub use limits::Limits;
pub use report::{Bound, Info, Score, SearchEvent, SearchResult};
pub use tt::TranspositionTable;

pub use driver::{search_blocking, start};

use crate::chess::syzygy::Tablebases;
use crate::chess::{KeyHistory, Position};
use crate::eval::{CachedEvaluator, MovePolicy};
use control::Control;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Everything a search shares across threads and across `go` commands.
#[derive(Clone)]
pub struct SearchShared {
    pub tt: Arc<TranspositionTable>,
    /// The evaluator behind its cache: the search asks only for positions the cache lacks.
    pub eval: Arc<CachedEvaluator>,
    /// A move policy (the `Policy` option) that orders the quiet moves of nodes at least
    /// [`params::POLICY_MIN_DEPTH`] deep; `None` leaves ordering to history and the net.
    pub policy: Option<Arc<MovePolicy>>,
    /// Syzygy tablebases (`SyzygyPath`), probed at the root and after zeroing moves.
    pub syzygy: Option<Syzygy>,
    /// Static-eval corrections learned from the searches of this game; cleared with the TT.
    pub corrections: Arc<correction::CorrectionHistory>,
    /// Each thread's move-history tables, kept from one search to the next of a game.
    pub histories: Arc<history_store::HistoryStore>,
}

impl SearchShared {
    /// Forgets everything this game's searches learned (the TT, the static-eval corrections,
    /// the move histories) and the evaluation cache: the next search starts as a new game's.
    pub fn clear_game(&self) {
        self.tt.clear();
        self.corrections.clear();
        self.histories.clear();
        self.eval.clear();
    }
}

/// Tablebases and how far into the search they are probed.
#[derive(Clone)]
pub struct Syzygy {
    pub tables: Arc<Tablebases>,
    /// Nodes with more pieces than this are not probed (`SyzygyProbeLimit`); the root is
    /// probed whenever a table covers it.
    pub probe_limit: usize,
}

#[derive(Clone, Debug)]
pub struct SearchConfig {
    /// Lazy SMP helper count + 1; all threads feed the one evaluator.
    pub threads: usize,
    /// Subtracted from every time budget for GUI and transport latency.
    pub move_overhead: Duration,
    /// Root lines searched and reported each iteration (UCI `MultiPV`); 1 is a normal
    /// search, and the node count of one line is the same as before MultiPV existed.
    pub multipv: usize,
    /// Add win/draw/loss chances to every `Info` (UCI `UCI_ShowWDL`).
    pub show_wdl: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            threads: 1,
            move_overhead: Duration::ZERO,
            multipv: 1,
            show_wdl: false,
        }
    }
}

/// The root: the position to search and the keys of every position played before it
/// (not including the root itself), for repetition draws.
#[derive(Clone, Debug)]
pub struct RootState {
    pub position: Position,
    pub history: KeyHistory,
}

impl RootState {
    /// A root with no game before it, for tests.
    #[cfg(test)]
    pub fn from_test_fen(fen: &str) -> RootState {
        RootState {
            position: Position::from_fen(fen).expect("valid test FEN"),
            history: KeyHistory::new(),
        }
    }
}

/// Control over a running search. Dropping it stops the search and waits for it.
pub struct SearchHandle {
    control: Arc<Control>,
    thread: Option<JoinHandle<()>>,
}

impl SearchHandle {
    /// Asks the search to finish now; it still sends its final `Info` and one `BestMove`.
    pub fn stop(&self) {
        self.control.stop();
    }
    /// The opponent played the pondered move: switch from pondering to the normal time limits,
    /// counted from now.
    pub fn ponderhit(&self) {
        self.control.ponderhit();
    }
    pub fn is_finished(&self) -> bool {
        self.control.is_finished()
    }
    /// Blocks until every search thread has exited (after its `BestMove` was sent).
    pub fn wait(mut self) {
        self.join();
    }

    fn join(&mut self) {
        if let Some(thread) = self.thread.take() {
            // A panic in search has already been printed by the panic hook; nothing to add.
            let _ = thread.join();
        }
    }
}

impl Drop for SearchHandle {
    fn drop(&mut self) {
        self.control.stop();
        self.join();
    }
}

/// When no thread could be started: says so and answers with the first legal move, since
/// the GUI waits for a `bestmove`.
pub(crate) fn play_first_move(
    root: &RootState,
    events: &crossbeam::channel::Sender<SearchEvent>,
    what: &str,
) {
    let best = root
        .position
        .legal_moves()
        .first()
        .map(|m| root.position.move_to_uci(m));
    let _ = events.send(SearchEvent::Message(format!(
        "error: could not start {what}; playing the first legal move"
    )));
    let _ = events.send(SearchEvent::BestMove { best, ponder: None });
}
