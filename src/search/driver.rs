//! Iterative deepening, Lazy SMP helpers, and everything the main thread reports.

use super::alphabeta::tt_move_for;
use super::aspiration::search_iteration;
use super::control::Control;
use super::multipv::{sort_lines, Line};
use super::params::{HELPER_DEPTH_SPREAD, MAX_DEPTH};
use super::report::{Info, Score, SearchEvent, SearchResult};
use super::root::{root_moves, unscored_root_moves, RootMove, RootResult};
use super::score::{mate_plies, to_report, DRAW, TB_WIN};
use super::thread::ThreadData;
use super::time::{budget, soft_scale, Clock};
use super::{play_first_move, Limits, RootState, SearchConfig, SearchHandle, SearchShared};
use crate::chess::syzygy::TbOutcome;
use crate::chess::{Move, Position};
use crate::eval::Evaluator as _;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// When the final `BestMove` may be sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// As soon as the search ends (`search_blocking`, timed and fixed-depth searches).
    Immediately,
    /// Only after `stop` (`go infinite`).
    OnStop,
    /// After `stop` or `ponderhit` (`go ponder`).
    OnStopOrPonderhit,
}

impl Release {
    pub fn for_limits(limits: &Limits) -> Self {
        if limits.ponder {
            Release::OnStopOrPonderhit
        } else if limits.infinite {
            Release::OnStop
        } else {
            Release::Immediately
        }
    }
}

fn new_control(root: &RootState, limits: &Limits, config: &SearchConfig) -> Control {
    let time = budget(limits, root.position.turn(), config.move_overhead);
    Control::new(Clock::new(time, limits.ponder), limits.nodes)
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
    let control = Arc::new(new_control(&root, &limits, &config));
    let thread_control = Arc::clone(&control);
    let fallback = (root.clone(), events.clone());
    let spawned = std::thread::Builder::new()
        .name("cerise-search".into())
        .spawn(move || {
            let emit = |event| {
                // The receiver is gone only when the engine is shutting down.
                let _ = events.send(event);
            };
            let release = Release::for_limits(&limits);
            run(
                root,
                &limits,
                &config,
                &shared,
                &thread_control,
                release,
                &emit,
            );
            thread_control.set_finished();
        });
    let thread = match spawned {
        Ok(thread) => Some(thread),
        Err(e) => {
            let (root, events) = fallback;
            play_first_move(&root, &events, &format!("the search thread ({e})"));
            control.set_finished();
            None
        }
    };
    SearchHandle { control, thread }
}

/// Runs a search to completion on the calling thread (plus helpers if `config.threads > 1`)
/// and returns its result; used by `bench` and tests. Events are discarded.
pub fn search_blocking(
    root: RootState,
    limits: Limits,
    config: SearchConfig,
    shared: SearchShared,
) -> SearchResult {
    let control = new_control(&root, &limits, &config);
    run(
        root,
        &limits,
        &config,
        &shared,
        &control,
        Release::Immediately,
        &|_| {},
    )
}

/// The result of the deepest usable iteration.
struct Best {
    depth: u32,
    seldepth: u32,
    score: i32,
    pv: Vec<Move>,
}

/// Runs a whole search on the calling thread (plus helpers) and reports through `emit`:
/// an `Info` per iteration, a final `Info`, then exactly one `BestMove`.
pub fn run(
    root: RootState,
    limits: &Limits,
    config: &SearchConfig,
    shared: &SearchShared,
    control: &Control,
    release: Release,
    emit: &dyn Fn(SearchEvent),
) -> SearchResult {
    shared.tt.new_search();
    let pos = root.position;
    // Every `Info` of this search is about the root, so one material count serves them all.
    let material = crate::eval::wdl::material_count(shakmaty::Position::board(pos.inner()));
    // Before any report: a root in the tables has a known result, which the reports show
    // in place of the net's guess (a mate the search found still shows as a mate).
    let (searchmoves, root_outcome) =
        tablebase_root_moves(shared, control, &pos, &limits.searchmoves);
    let annotate = |event: SearchEvent| match event {
        SearchEvent::Info(mut info) => {
            if let (Some(outcome), Score::Cp(_)) = (root_outcome, info.score) {
                info.score = Score::Cp(match outcome {
                    TbOutcome::Win => TB_WIN,
                    TbOutcome::Draw => DRAW,
                    TbOutcome::Loss => -TB_WIN,
                });
            }
            if config.show_wdl {
                info.wdl = Some(match (root_outcome, info.score) {
                    (Some(TbOutcome::Win), Score::Cp(_)) => [1000, 0, 0],
                    (Some(TbOutcome::Draw), Score::Cp(_)) => [0, 1000, 0],
                    (Some(TbOutcome::Loss), Score::Cp(_)) => [0, 0, 1000],
                    _ => wdl_of(info.score, material),
                });
            }
            if shared.syzygy.is_some() {
                info.tbhits = Some(control.tbhits.load(Ordering::Relaxed));
            }
            emit(SearchEvent::Info(info))
        }
        other => emit(other),
    };
    let emit: &dyn Fn(SearchEvent) = &annotate;
    let mut history = root.history;
    history.push(pos.key());

    let in_check = pos.is_check();
    if pos.legal_moves().is_empty() {
        let score = if in_check {
            Score::Mate(0)
        } else {
            Score::Cp(0)
        };
        let report = Report {
            depth: 0,
            seldepth: 0,
            score,
            pv: &[],
            hashfull: 0,
        };
        return finish(control, release, emit, &pos, report, None, false);
    }

    // Registered while this thread may evaluate; dropped before the helpers are joined
    // (a batching evaluator waiting for "every searcher" must not wait for one that is
    // itself waiting for the helpers).
    let main_registration = shared.eval.register_searcher();
    let mut main = ThreadData::new(shared, control, 0, history.clone());
    // The root itself is a node; its children are counted as they are created.
    main.count_nodes(1);
    let mut moves = match root_moves(&mut main, &pos, &searchmoves) {
        Some(moves) => moves,
        None => unscored_root_moves(&pos, &searchmoves),
    };
    let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    let mut best = Best {
        depth: 0,
        seldepth: 0,
        score: moves[0].score,
        pv: vec![moves[0].child.mv],
    };

    // Whether the last `Info` sent already reports the result `finish` would report.
    let mut reported = false;
    std::thread::scope(|scope| {
        // After an evaluator failure at the root there is nothing for helpers to do.
        let helpers = if main.aborted {
            0
        } else {
            config.threads.max(1) - 1
        };
        for id in 1..=helpers {
            let helper_moves = moves.clone();
            let history = history.clone();
            scope.spawn(move || {
                let _registration = shared.eval.register_searcher();
                let mut td = ThreadData::new(shared, control, id, history);
                helper_loop(&mut td, helper_moves, max_depth, id, in_check);
                td.publish();
            });
        }
        if !main.aborted {
            reported = main_loop(
                &mut main,
                &pos,
                &mut moves,
                limits,
                max_depth,
                config.multipv,
                &mut best,
                emit,
            );
        }
        main.publish();
        drop(main_registration);
        control.finish_threads();
    });

    if let Some(error) = control.take_error() {
        emit(SearchEvent::Message(format!(
            "error: the evaluator failed ({error}); the search stopped early"
        )));
    }
    let ponder = best.pv.get(1).copied().or_else(|| {
        let after = pos.play(&best.pv[0]);
        tt_move_for(&main, &after)
    });
    let report = Report {
        depth: best.depth,
        seldepth: best.seldepth,
        score: to_report(best.score),
        pv: &best.pv,
        hashfull: shared.tt.hashfull(),
    };
    finish(control, release, emit, &pos, report, ponder, reported)
}

fn helper_loop(
    td: &mut ThreadData,
    mut moves: Vec<RootMove>,
    max_depth: u32,
    id: usize,
    in_check: bool,
) {
    let offset = (id % HELPER_DEPTH_SPREAD) as u32;
    let mut previous = moves[0].score;
    for depth in 1..=max_depth {
        let depth = (depth + offset).min(max_depth);
        let result = search_iteration(
            td,
            &mut moves,
            depth as i32,
            in_check,
            previous,
            &mut |_, _| {},
        );
        if td.aborted {
            return;
        }
        previous = result.score;
    }
}

/// Iterates until a limit, a proven mate or an abort ends the search. Returns whether the
/// last `Info` it sent reports the search's result: true when it stopped after a whole
/// iteration, false when an abort cut an iteration short (its partial result and the nodes
/// since are still unreported).
#[allow(clippy::too_many_arguments)]
fn main_loop(
    td: &mut ThreadData,
    pos: &Position,
    moves: &mut [RootMove],
    limits: &Limits,
    max_depth: u32,
    multipv: usize,
    best: &mut Best,
    emit: &dyn Fn(SearchEvent),
) -> bool {
    let control = td.control;
    let count = multipv.clamp(1, moves.len());
    // Line k is the best of the root moves not already in lines 0..k (Stockfish's scheme):
    // each iteration searches the moves from k on and puts that best at index k.
    let mut lines: Vec<Line> = moves[..count]
        .iter()
        .map(|m| Line {
            score: m.score,
            pv: vec![m.child.mv],
        })
        .collect();
    // Iterations in a row that ended with the same best move, for time management.
    let mut stable = 0;
    let mut last_best = None;
    let mut mate = ProvenMate::default();
    // A mate ends only the searches whose end the engine chooses (clock, `go infinite`,
    // ponder, a bare `go`): a depth or node limit asks for a tree of that size, which
    // `bench`, datagen and tests reproduce.
    let may_stop_on_mate = limits.depth.is_none() && limits.nodes.is_none();
    for depth in 1..=max_depth {
        td.seldepth = 0;
        for k in 0..count {
            let tag = (count > 1).then_some(k as u32 + 1);
            let mut report_bound = |td: &ThreadData, r: &RootResult| {
                let mut info = bound_info(td, pos, depth, r);
                info.multipv = tag;
                emit(SearchEvent::Info(info));
            };
            let previous = if k == 0 { best.score } else { lines[k].score };
            let result = search_iteration(
                td,
                &mut moves[k..],
                depth as i32,
                pos.is_check(),
                previous,
                &mut report_bound,
            );
            if result.usable() {
                // A partial iteration still searched its best move fully, inside its window.
                if k == 0 {
                    best.score = result.score;
                    best.pv.clone_from(&result.pv);
                }
                lines[k] = Line {
                    score: result.score,
                    pv: result.pv,
                };
            }
            if td.aborted {
                return false;
            }
        }
        if count > 1 {
            sort_lines(&mut moves[..count], &mut lines);
            best.score = lines[0].score;
            best.pv.clone_from(&lines[0].pv);
        }
        best.depth = depth;
        best.seldepth = td.seldepth as u32;
        if count == 1 {
            emit(SearchEvent::Info(info(td, pos, best)));
        } else {
            for (k, line) in lines.iter().enumerate() {
                let ranked = Best {
                    depth,
                    seldepth: best.seldepth,
                    score: line.score,
                    pv: line.pv.clone(),
                };
                let mut info = info(td, pos, &ranked);
                info.multipv = Some(k as u32 + 1);
                emit(SearchEvent::Info(info));
            }
        }

        let mate_limit_met = match (limits.mate, mate_plies(best.score)) {
            (Some(n), Some(plies)) => best.score > 0 && (plies + 1) / 2 <= n as i32,
            _ => false,
        };
        // Past a proven mate the iterations only confirm it, each in a few nodes, up to
        // `MAX_DEPTH`: a GUI would show that depth, and a clock search would end no better.
        let mate_proven = mate.update(best.score, depth) && may_stop_on_mate;
        let timed = control.clock.has_limit() && !control.clock.is_pondering();
        let forced = timed && moves.len() == 1;
        let out_of_nodes = control
            .node_limit
            .is_some_and(|limit| td.total_nodes() >= limit);
        let best_move = best.pv[0];
        stable = if last_best == Some(best_move) {
            stable + 1
        } else {
            0
        };
        last_best = Some(best_move);
        let scale = soft_scale(stable, best_share(moves, &best_move));
        if mate_limit_met
            || mate_proven
            || forced
            || out_of_nodes
            || control.clock.soft_passed_scaled(scale)
        {
            return true;
        }
    }
    true
}

/// Iterations in a row, each at least as deep as the mate is far, that must report the same
/// mate before the search takes it as proven. One is not enough: null-move pruning,
/// reductions and the quiescence cap make a mate score a claim, and the next iteration,
/// pruning less near the root, may refute it or find a shorter one.
const MATE_PROOF_ITERATIONS: u32 = 3;

/// Watches the best score of each iteration for a mate that holds (see
/// [`MATE_PROOF_ITERATIONS`]); a mate for either side counts.
#[derive(Default)]
struct ProvenMate {
    score: i32,
    iterations: u32,
}

impl ProvenMate {
    /// Takes the best score of the iteration of `depth` and says whether its mate is proven.
    fn update(&mut self, score: i32, depth: u32) -> bool {
        let deep_enough = mate_plies(score).is_some_and(|plies| depth as i32 >= plies);
        self.iterations = match (deep_enough, score == self.score) {
            (false, _) => 0,
            (true, true) => self.iterations + 1,
            (true, false) => 1,
        };
        self.score = score;
        self.iterations >= MATE_PROOF_ITERATIONS
    }
}

/// The share of the root's nodes this thread spent on `best`, 0 to 1.
fn best_share(moves: &[RootMove], best: &Move) -> f64 {
    let total: u64 = moves.iter().map(|m| m.nodes).sum();
    let on_best: u64 = moves
        .iter()
        .filter(|m| m.child.mv == *best)
        .map(|m| m.nodes)
        .sum();
    on_best as f64 / total.max(1) as f64
}

/// The root moves to search: `searchmoves` narrowed, when a tablebase covers the root, to
/// the moves that keep its result (and, winning, make the fastest progress), with that
/// result. The user's `searchmoves` win when the two share no move.
fn tablebase_root_moves(
    shared: &SearchShared,
    control: &Control,
    pos: &Position,
    searchmoves: &[String],
) -> (Vec<String>, Option<TbOutcome>) {
    let unchanged = || (searchmoves.to_vec(), None);
    let Some(tb) = &shared.syzygy else {
        return unchanged();
    };
    if !tb.tables.covers(pos, usize::MAX) {
        return unchanged();
    }
    let Some((outcome, keep)) = tb.tables.root_moves(pos) else {
        return unchanged();
    };
    control.tbhits.fetch_add(
        pos.legal_moves().len() as u64,
        std::sync::atomic::Ordering::Relaxed,
    );
    let keep: Vec<String> = keep.iter().map(|m| pos.move_to_uci(m)).collect();
    if searchmoves.is_empty() {
        return (keep, Some(outcome));
    }
    let both: Vec<String> = keep
        .iter()
        .filter(|m| searchmoves.contains(m))
        .cloned()
        .collect();
    if both.is_empty() {
        // The user's moves may not hold the result: say nothing about it.
        unchanged()
    } else {
        (both, Some(outcome))
    }
}

/// The model's chances for a centipawn score; a mate found is certain.
fn wdl_of(score: Score, material: u32) -> [u32; 3] {
    match score {
        Score::Cp(cp) => crate::eval::wdl::MODEL.per_mille(cp, material),
        Score::Mate(moves) if moves > 0 => [1000, 0, 0],
        Score::Mate(_) => [0, 0, 1000],
    }
}

fn pv_to_uci(pos: &Position, pv: &[Move]) -> Vec<String> {
    let mut pos = pos.clone();
    let mut out = Vec::with_capacity(pv.len());
    for m in pv {
        out.push(pos.move_to_uci(m));
        pos = pos.play(m);
    }
    out
}

/// What an `Info` line says besides nodes and time.
struct Report<'a> {
    depth: u32,
    seldepth: u32,
    score: Score,
    pv: &'a [Move],
    hashfull: u32,
}

fn make_info(control: &Control, pos: &Position, report: &Report, nodes: u64) -> Info {
    let time = control.clock.since_go();
    let nps = (nodes as u128 * 1_000_000 / time.as_micros().max(1)) as u64;
    Info {
        depth: report.depth,
        seldepth: report.seldepth,
        multipv: None,
        score: report.score,
        wdl: None,
        bound: None,
        nodes,
        nps,
        hashfull: report.hashfull,
        tbhits: None,
        time,
        pv: pv_to_uci(pos, report.pv),
    }
}

fn info(td: &ThreadData, pos: &Position, best: &Best) -> Info {
    let report = Report {
        depth: best.depth,
        seldepth: best.seldepth,
        score: to_report(best.score),
        pv: &best.pv,
        hashfull: td.shared.tt.hashfull(),
    };
    make_info(td.control, pos, &report, td.total_nodes())
}

/// An `Info` for an iteration that failed outside its aspiration window: the score is only a
/// bound, and the line is the move that failed high (or the old best move, failing low).
fn bound_info(td: &ThreadData, pos: &Position, depth: u32, result: &RootResult) -> Info {
    let report = Report {
        depth,
        seldepth: td.seldepth as u32,
        score: to_report(result.score),
        pv: &result.pv,
        hashfull: td.shared.tt.hashfull(),
    };
    let mut info = make_info(td.control, pos, &report, td.total_nodes());
    info.bound = result.bound;
    info
}

/// Waits for the release condition, then sends the final `Info` and the one `BestMove`.
/// With `reported` the last `Info` sent already says what the final one would (the last
/// iteration's, from a search that ended by itself), and it is not sent twice.
fn finish(
    control: &Control,
    release: Release,
    emit: &dyn Fn(SearchEvent),
    pos: &Position,
    report: Report,
    ponder: Option<Move>,
    reported: bool,
) -> SearchResult {
    match release {
        Release::Immediately => {}
        Release::OnStop => control.wait_for_release(false),
        Release::OnStopOrPonderhit => control.wait_for_release(true),
    }
    let nodes = control.nodes.load(Ordering::Relaxed);
    let entered = control.entered.load(Ordering::Relaxed);
    let info = make_info(control, pos, &report, nodes);
    let best = info.pv.first().cloned();
    let ponder = match (ponder, report.pv.first()) {
        (Some(p), Some(first)) => Some(pos.play(first).move_to_uci(&p)),
        _ => None,
    };
    let (score, depth, time) = (info.score, info.depth, info.time);
    if !reported {
        emit(SearchEvent::Info(info));
    }
    emit(SearchEvent::BestMove {
        best: best.clone(),
        ponder: ponder.clone(),
    });
    SearchResult {
        best,
        ponder,
        score,
        depth,
        nodes,
        entered,
        time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::{mated_in, MATE};

    #[test]
    fn a_mate_is_proven_once_it_holds_at_its_depth() {
        let mut mate = ProvenMate::default();
        let in_two = MATE - 3;
        // Found at depth 2, short of its 3 plies: not yet counted.
        assert!(!mate.update(40, 1));
        assert!(!mate.update(in_two, 2));
        assert!(!mate.update(in_two, 3));
        assert!(!mate.update(in_two, 4));
        assert!(mate.update(in_two, 5));
        // A shorter mate starts over, and so does a mate the next iteration refutes.
        let in_one = MATE - 1;
        assert!(!mate.update(in_one, 6));
        assert!(!mate.update(150, 7));
        assert!(!mate.update(in_one, 8));
        assert!(!mate.update(in_one, 9));
        assert!(mate.update(in_one, 10));
        // Being mated is proven the same way.
        let mut mated = ProvenMate::default();
        let results: Vec<bool> = (2..=5).map(|d| mated.update(mated_in(2), d)).collect();
        assert_eq!(results, [false, false, true, true]);
    }
}
