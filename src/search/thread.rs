//! Per-thread search state: node counting, limit checks, reusable per-ply buffers and the
//! sibling-batched child evaluation that every interior node starts with.

use super::control::Control;
use super::history::{quiet_score, side};
use super::history_store::{Butterfly, Continuation, HistoryTables};
use super::params::{CHECK_INTERVAL, EVAL_LIMIT, MAX_PLY};
use super::SearchShared;
use crate::chess::{KeyHistory, Move, Position};
use crate::eval::{Backend, CacheScratch, Evaluator as _, PolicyMove};
use shakmaty::Color;

/// A child position with its static eval from the child's side to move.
#[derive(Clone, Debug)]
pub struct Child {
    pub mv: Move,
    pub pos: Position,
    pub eval: i32,
}

/// Buffers owned by one ply; taken out of [`ThreadData`] while the node runs so the recursion
/// can borrow the thread data mutably, then put back, so their capacity is reused.
#[derive(Default)]
pub struct PlyBuf {
    pub children: Vec<Child>,
    /// (ordering key, index into `children`), best first after ordering.
    pub order: Vec<(i32, u32)>,
    /// The policy's log-probability of each child's move, or empty where no policy ran.
    pub policy: Vec<f32>,
    /// The moves the node searched (or pruned) one by one before building the others, in
    /// that order: the TT move, then good captures and killers.
    pub staged: Vec<Move>,
}

pub struct ThreadData<'a> {
    pub shared: &'a SearchShared,
    pub control: &'a Control,
    /// 0 for the main thread, then each helper's number: whose history tables to keep.
    id: usize,
    pub nodes: u64,
    published: u64,
    /// Nodes the search entered (a `search` call, or a `qsearch` call for a child), beyond
    /// the root. `nodes` counts every child scored, since each node scores all its children
    /// in one batch; `nodes − entered` are the scored children never searched, the price of
    /// scoring in batches (reported by `bench`).
    pub entered: u64,
    published_entered: u64,
    next_check: u64,
    pub seldepth: usize,
    /// Root history plus the current search path, for repetition draws.
    pub history: KeyHistory,
    pub stack: Vec<PlyBuf>,
    /// Triangular principal-variation table: `pv[ply]` is the line from that ply.
    pub pv: Vec<Vec<Move>>,
    pub killers: Vec<[Option<Move>; 2]>,
    /// `null_moved[ply]`: the node at `ply` was reached by a null move (no second in a row).
    pub null_moved: Vec<bool>,
    /// Butterfly history indexed by [side to move][from][to]; kept between searches.
    pub quiet_history: Butterfly,
    /// Continuation history: `cont_history[earlier][reply]`, both (piece, destination)
    /// indices ([`super::history::piece_to`]); kept between searches.
    pub cont_history: Continuation,
    /// `static_evals[ply]`: the static eval of the `search` node at `ply`, `None` in check
    /// (or where no `search` node has been): two plies apart, they say whether the side to
    /// move is improving.
    pub static_evals: Vec<Option<i32>>,
    /// `moved[ply]`: the (piece, destination) of the move being searched at `ply`; `None`
    /// while a null move is.
    pub moved: Vec<Option<usize>>,
    /// `excluded[ply]`: the TT move a singular test at `ply` searches the node without.
    pub excluded: Vec<Option<Move>>,
    /// `double_extended[ply]`: double singular extensions on the path to `ply`.
    pub double_extended: Vec<u8>,
    /// `cut_node[ply]`: the node at `ply` is expected to fail high (a zero-window child of
    /// a reduced or later move, or the first child of an expected fail-low node): set by
    /// its parent before the search. PV nodes and the root are never cut nodes.
    pub cut_node: Vec<bool>,
    /// The singular tests' verdicts so far.
    pub singular: super::singular::Tally,
    eval_scratch: CacheScratch,
    scores: Vec<f32>,
    /// Whether nodes stage their good captures and killers (scored one at a time) before the
    /// batch of the rest: where one child costs what its share of a batch does (the native
    /// backend and the built-in evaluators), not where a call has a fixed cost (libtorch).
    pub stage_moves: bool,
    /// Set once the search must unwind; every node then returns at once.
    pub aborted: bool,
}

impl ThreadData<'_> {
    /// The (piece, destination) of the move `back` plies above the node at `ply`, if that
    /// was a real move.
    pub fn moved_before(&self, ply: usize, back: usize) -> Option<usize> {
        ply.checked_sub(back).and_then(|p| self.moved[p])
    }

    /// The history score ([`quiet_score`]) of quiet move `m` by `mover` at the node at `ply`,
    /// the same sum ordering ranks the quiets by.
    pub fn quiet_stat(&self, ply: usize, mover: Color, m: &Move) -> i32 {
        let cont = [1, 2].map(|back| {
            self.moved_before(ply, back)
                .map(|earlier| &self.cont_history[earlier])
        });
        quiet_score(&self.quiet_history[side(mover)], cont, mover, m)
    }

    /// Whether the node at `ply`, out of check with `static_eval`, stands better than the
    /// same side did two plies up; false when either was in check or there was no such node.
    pub fn improving(&self, ply: usize, static_eval: i32) -> bool {
        ply.checked_sub(2)
            .and_then(|p| self.static_evals[p])
            .is_some_and(|before| static_eval > before)
    }
}

/// Nodes until the next check, `total` nodes into the search: the interval, or fewer on the
/// main thread when a node limit is nearer, so that a small limit (`go nodes`,
/// `UCI_LimitStrength`) stops close to its count rather than at the next multiple of the
/// interval.
fn check_step(control: &Control, is_main: bool, total: u64) -> u64 {
    match control.node_limit {
        Some(limit) if is_main => CHECK_INTERVAL.min(limit.saturating_sub(total)).max(1),
        _ => CHECK_INTERVAL,
    }
}

/// Hands the history tables back for this thread's next search (an aborted search's too:
/// what it learned before the stop is as good as any).
impl Drop for ThreadData<'_> {
    fn drop(&mut self) {
        let empty = HistoryTables::empty();
        let tables = HistoryTables {
            quiet: std::mem::replace(&mut self.quiet_history, empty.quiet),
            cont: std::mem::replace(&mut self.cont_history, empty.cont),
        };
        self.shared.histories.put(self.id, tables);
    }
}

impl<'a> ThreadData<'a> {
    /// Only the main thread (id 0) enforces time and node limits.
    pub fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Thread `id`'s data (0 is the main thread), with its history tables from its last
    /// search of this game.
    pub fn new(
        shared: &'a SearchShared,
        control: &'a Control,
        id: usize,
        history: KeyHistory,
    ) -> Self {
        let next_check = check_step(control, id == 0, 0);
        let tables = shared.histories.take(id);
        Self {
            shared,
            control,
            id,
            nodes: 0,
            published: 0,
            entered: 0,
            published_entered: 0,
            next_check,
            seldepth: 0,
            history,
            stack: (0..MAX_PLY + 1).map(|_| PlyBuf::default()).collect(),
            pv: (0..MAX_PLY + 1)
                .map(|_| Vec::with_capacity(MAX_PLY))
                .collect(),
            killers: vec![[None; 2]; MAX_PLY + 1],
            null_moved: vec![false; MAX_PLY + 1],
            quiet_history: tables.quiet,
            cont_history: tables.cont,
            moved: vec![None; MAX_PLY + 1],
            excluded: vec![None; MAX_PLY + 1],
            double_extended: vec![0; MAX_PLY + 1],
            cut_node: vec![false; MAX_PLY + 1],
            singular: Default::default(),
            static_evals: vec![None; MAX_PLY + 1],
            eval_scratch: CacheScratch::default(),
            scores: Vec::with_capacity(256),
            stage_moves: shared.eval.info().backend != Some(Backend::Torch),
            aborted: false,
        }
    }

    /// Counts freshly created positions and, every `CHECK_INTERVAL` nodes, publishes the
    /// count and checks whether to stop.
    pub fn count_nodes(&mut self, n: u64) {
        self.nodes += n;
        if self.nodes >= self.next_check {
            self.publish();
            self.check_limits();
            self.next_check =
                self.nodes + check_step(self.control, self.is_main(), self.total_nodes());
        }
    }

    /// Adds this thread's unpublished nodes to the shared counter.
    pub fn publish(&mut self) {
        let delta = self.nodes - self.published;
        self.published = self.nodes;
        self.control
            .nodes
            .fetch_add(delta, std::sync::atomic::Ordering::Relaxed);
        let entered = self.entered - self.published_entered;
        self.published_entered = self.entered;
        self.control
            .entered
            .fetch_add(entered, std::sync::atomic::Ordering::Relaxed);
    }

    /// Nodes of all threads so far: the published total plus this thread's unpublished ones.
    pub fn total_nodes(&self) -> u64 {
        let published = self
            .control
            .nodes
            .load(std::sync::atomic::Ordering::Relaxed);
        published + (self.nodes - self.published)
    }

    /// Stops the search if it was told to or, on the main thread, if the hard time limit has
    /// passed.
    fn poll_limits(&mut self) {
        if self.control.should_abort() {
            self.aborted = true;
        } else if self.is_main() && self.control.clock.hard_passed() {
            self.aborted = true;
            self.control.finish_threads();
        }
    }

    fn check_limits(&mut self) {
        if self.control.should_abort() {
            self.aborted = true;
            return;
        }
        if !self.is_main() {
            return;
        }
        let out_of_nodes = self
            .control
            .node_limit
            .is_some_and(|limit| self.total_nodes() >= limit);
        if out_of_nodes || self.control.clock.hard_passed() {
            self.aborted = true;
            self.control.finish_threads();
        }
    }

    /// Plays every move into `buf.children` and fills in their static evals with a single
    /// evaluator call for the positions the eval cache does not know. Returns false if the
    /// search must stop: its limits were reached, or the evaluator failed (which aborts it).
    pub fn expand(&mut self, pos: &Position, moves: &[Move], buf: &mut PlyBuf) -> bool {
        // The clock is read before every evaluator call, not every so many nodes: a slow
        // net (or a GPU's latency) makes a node count a poor measure of time, and one call
        // is then the most a search can overrun its time by. An Instant read costs ~25 ns.
        self.poll_limits();
        if self.aborted {
            return false;
        }
        self.expand_unpolled(pos, moves, buf)
    }

    /// [`ThreadData::expand`] without the look at the limits first.
    pub fn expand_unpolled(&mut self, pos: &Position, moves: &[Move], buf: &mut PlyBuf) -> bool {
        buf.children.clear();
        buf.children.extend(moves.iter().map(|m| Child {
            mv: *m,
            pos: pos.play(m),
            eval: 0,
        }));
        self.count_nodes(moves.len() as u64);
        let result = self.shared.eval.score_children(
            pos,
            buf.children.iter().map(|c| &c.pos),
            &mut self.eval_scratch,
            &mut self.scores,
        );
        if let Err(e) = result {
            self.control.fail(e.to_string());
            self.aborted = true;
            return false;
        }
        for (child, &score) in buf.children.iter_mut().zip(&self.scores) {
            child.eval = to_centipawns(score);
        }
        true
    }
}

impl ThreadData<'_> {
    /// Fills `buf.policy` for the children of `pos` when the search has a policy; false if
    /// the search must stop (the policy failed, which ends the search with its error).
    pub fn score_policy(&mut self, pos: &Position, buf: &mut PlyBuf) -> bool {
        buf.policy.clear();
        let Some(policy) = &self.shared.policy else {
            return true;
        };
        let turn = pos.turn();
        let moves: Vec<PolicyMove> = buf
            .children
            .iter()
            .map(|c| PolicyMove::new(&c.mv, turn))
            .collect();
        match policy.score_moves(&pos.compact(), turn == Color::White, &moves) {
            Ok(scores) => {
                buf.policy = scores;
                true
            }
            Err(e) => {
                self.control.fail(format!("the policy failed: {e}"));
                self.aborted = true;
                false
            }
        }
    }

    /// The static eval of `child` (one move, or a null move, from `parent`), through the
    /// cache; `None` if the search must stop.
    pub fn eval_one(&mut self, parent: &Position, child: &Position) -> Option<i32> {
        let shared = self.shared;
        // Taken out so that the readiness check may borrow the thread data.
        let mut scratch = std::mem::take(&mut self.eval_scratch);
        let result = shared.eval.score_child(parent, child, &mut scratch, || {
            self.poll_limits();
            !self.aborted
        });
        self.eval_scratch = scratch;
        match result {
            Ok(score) => score.map(to_centipawns),
            Err(e) => {
                self.control.fail(e.to_string());
                self.aborted = true;
                None
            }
        }
    }
}

/// Evaluator output to search units; NaN reads as 0 so a broken net cannot poison the tree.
pub fn to_centipawns(score: f32) -> i32 {
    if score.is_nan() {
        return 0;
    }
    (score.round() as i32).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}
