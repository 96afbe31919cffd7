//! The frame for players that choose a move without searching (the ConvChess policy player,
//! the evaluator's greedy depth-1 player): a thread that asks the chooser once, reports like
//! a search (a `Message` saying what chose the move, one `Info` of depth 1), and holds the
//! `bestmove` for `stop` or `ponderhit` where a search would.

use super::control::Control;
use super::driver::Release;
use super::report::{Info, Score, SearchEvent};
use super::{Limits, RootState, SearchHandle};
use shakmaty::Move;
use std::sync::Arc;
use std::time::Instant;

/// What a chooser decided.
pub struct Choice {
    pub mv: Move,
    /// The score the `Info` line reports (the chooser's own, or 0 where it has none).
    pub score: Score,
    /// Positions the chooser evaluated, reported as nodes.
    pub nodes: u64,
    /// The `info string` that says how the move was chosen.
    pub message: String,
}

/// A chooser: the move for the root, `None` without a legal move, or an error (the first
/// legal move is then played, and the error said).
pub type Chooser = Box<dyn FnOnce(&RootState, &Limits) -> Result<Option<Choice>, String> + Send>;

/// Runs `choose` on a thread called `name`; events as [`super::start`] sends them.
pub fn start(
    root: RootState,
    limits: Limits,
    name: &str,
    choose: Chooser,
    events: crossbeam::channel::Sender<SearchEvent>,
) -> SearchHandle {
    let control = Arc::new(Control::new(
        super::time::Clock::new(super::time::TimeBudget::default(), limits.ponder),
        None,
    ));
    let fallback = (root.clone(), events.clone());
    let thread_control = Arc::clone(&control);
    let thread = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            let started = Instant::now();
            let send = |event| {
                let _ = events.send(event);
            };
            let (best, info) = match choose(&root, &limits) {
                Ok(Some(choice)) => {
                    let uci = root.position.move_to_uci(&choice.mv);
                    send(SearchEvent::Message(choice.message));
                    let time = started.elapsed();
                    let info = Info {
                        depth: 1,
                        seldepth: 1,
                        multipv: None,
                        score: choice.score,
                        wdl: None,
                        bound: None,
                        nodes: choice.nodes,
                        nps: (choice.nodes as f64 / time.as_secs_f64().max(1e-6)) as u64,
                        hashfull: 0,
                        tbhits: None,
                        time,
                        pv: vec![uci.clone()],
                    };
                    (Some(uci), Some(info))
                }
                Ok(None) => (None, None),
                Err(e) => {
                    send(SearchEvent::Message(format!(
                        "error: {e}; playing the first legal move"
                    )));
                    let first = root.position.legal_moves().first().copied();
                    (first.map(|m| root.position.move_to_uci(&m)), None)
                }
            };
            if let Some(info) = info {
                send(SearchEvent::Info(info));
            }
            match Release::for_limits(&limits) {
                Release::Immediately => {}
                Release::OnStop => thread_control.wait_for_release(false),
                Release::OnStopOrPonderhit => thread_control.wait_for_release(true),
            }
            send(SearchEvent::BestMove { best, ponder: None });
            thread_control.set_finished();
        })
        .ok();
    if thread.is_none() {
        let (root, events) = fallback;
        super::play_first_move(&root, &events, name);
        control.set_finished();
    }
    SearchHandle { control, thread }
}

/// The legal moves of the root that `searchmoves` allows (all of them when it is empty).
pub fn allowed_moves(root: &RootState, limits: &Limits) -> Vec<Move> {
    let position = &root.position;
    position
        .legal_moves()
        .into_iter()
        .filter(|m| {
            limits.searchmoves.is_empty() || limits.searchmoves.contains(&position.move_to_uci(m))
        })
        .collect()
}
