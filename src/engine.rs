//! Owns position, TT, evaluator and search threads; `go` and `stop` never block.
//!
//! The façade knows nothing of UCI text: it takes parsed commands and returns values or
//! `Err(String)` messages, and search events go out on the channel given to [`Engine::new`].

pub mod options;
pub mod strength;

use crate::chess::perft::perft_lines;
use crate::chess::syzygy::Tablebases;
use crate::chess::{CastlingMode, ChessError, KeyHistory, Position};
use crate::eval::{CachedEvaluator, EvalSpec, Evaluator, MovePolicy, NetEvaluatorConfig};
use crate::search::correction::CorrectionHistory;
use crate::search::history_store::HistoryStore;
use crate::search::TranspositionTable;
use crate::search::{
    self, Limits, RootState, SearchConfig, SearchEvent, SearchHandle, SearchShared, Syzygy,
};
use crossbeam::channel::Sender;
use options::{parse_change, OptionChange, Options, PlayMode};
use std::sync::Arc;

/// Entries of the evaluation cache (8 bytes each).
pub const EVAL_CACHE_ENTRIES: usize = 1 << 20;
/// Deeper perft would hold the command loop for hours.
pub const MAX_PERFT_DEPTH: u32 = 10;

pub struct Engine {
    root: RootState,
    tt: Arc<TranspositionTable>,
    /// The search's static-eval corrections, kept from move to move and cleared with the TT.
    corrections: Arc<CorrectionHistory>,
    /// The search threads' move histories, kept from move to move; cleared with the TT.
    histories: Arc<HistoryStore>,
    /// The evaluator behind the evaluation cache.
    eval: Arc<CachedEvaluator>,
    options: Options,
    search: Option<SearchHandle>,
    events: Sender<SearchEvent>,
    startup_error: Option<String>,
    /// The policy named by the `Policy` option, loaded.
    policy: Option<Arc<MovePolicy>>,
    /// The tablebases named by `SyzygyPath`, loaded.
    tablebases: Option<Arc<Tablebases>>,
    /// The last `position` that was set, read again when `UCI_Chess960` changes.
    spec: Option<PositionSpec>,
    /// Varies the node budget of each move under `UCI_LimitStrength`.
    dice: strength::Dice,
}

/// A position as a front end names it: a FEN (or the start position) and the moves played
/// from it, as UCI move text. Checked for legality only by [`root_from_spec`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionSpec {
    /// `None` for the start position.
    pub fen: Option<String>,
    pub moves: Vec<String>,
}

/// The game so far: the position after `spec`'s moves, and the keys before it, with
/// castling read and written in `mode` (Chess960 under `UCI_Chess960`).
/// Errors (bad FEN, illegal move) name the culprit.
pub fn root_from_spec(spec: &PositionSpec, mode: CastlingMode) -> Result<RootState, ChessError> {
    let mut position = match &spec.fen {
        None => Position::startpos_in(mode),
        Some(fen) => Position::from_fen_in(fen, mode)?,
    };
    let mut history = KeyHistory::new();
    for text in &spec.moves {
        let mv = position.parse_uci_move(text)?;
        history.push(position.key());
        position = position.play(&mv);
    }
    Ok(RootState { position, history })
}

/// The batching settings a net evaluator takes from the options.
fn net_config(options: &Options) -> NetEvaluatorConfig {
    NetEvaluatorConfig {
        max_batch: options.max_batch,
        encoder: options.encoder,
        precision: options.precision,
        backend: options.backend,
        ..NetEvaluatorConfig::default()
    }
}

/// MiB of memory the kernel says is available, if it says.
fn available_mib() -> Option<usize> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

impl Engine {
    /// Blocks while the default TT is allocated and the default (embedded) net loads.
    pub fn new(events: Sender<SearchEvent>) -> Self {
        let mut options = Options::default();
        let (eval, startup_error) =
            match crate::eval::open(&options.eval_file, options.device, net_config(&options)) {
                Ok(eval) => (eval, None),
                // Unreachable for a sound build (a test loads the embedded net), but an
                // engine that answers with material beats one that cannot start at all.
                Err(e) => {
                    options.eval_file = EvalSpec::Material;
                    let eval: Arc<dyn Evaluator> = Arc::new(crate::eval::MaterialEvaluator);
                    (eval, Some(format!("{e}; using material instead")))
                }
            };
        Engine {
            root: RootState {
                position: Position::startpos(),
                history: KeyHistory::new(),
            },
            tt: Arc::new(TranspositionTable::new(options.hash_mib)),
            corrections: Arc::default(),
            histories: Arc::default(),
            eval: Arc::new(CachedEvaluator::new(eval, EVAL_CACHE_ENTRIES)),
            options,
            search: None,
            events,
            startup_error,
            policy: None,
            tablebases: None,
            spec: None,
            dice: strength::Dice::from_clock(),
        }
    }

    /// Why the default evaluator could not be loaded at start, if it could not.
    pub fn startup_error(&self) -> Option<&str> {
        self.startup_error.as_deref()
    }

    /// Non-blocking.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Non-blocking.
    pub fn root(&self) -> &RootState {
        &self.root
    }

    /// Non-blocking.
    pub fn evaluator(&self) -> Arc<dyn Evaluator> {
        self.eval.inner().clone()
    }

    /// Non-blocking: true while a search started by `go` has not finished.
    pub fn is_searching(&self) -> bool {
        self.search.as_ref().is_some_and(|s| !s.is_finished())
    }

    /// Non-blocking: starts a search and returns. A search still running is stopped and
    /// waited for first (UCI forbids a second `go`, but a GUI bug must not hang us).
    /// `searchmoves` are checked against the position; nothing starts on an error.
    pub fn go(&mut self, mut limits: Limits) -> Result<(), String> {
        self.stop_and_wait();
        let mut normalized = Vec::with_capacity(limits.searchmoves.len());
        for text in &limits.searchmoves {
            let mv = self
                .root
                .position
                .parse_uci_move(text)
                .map_err(|e| format!("searchmoves: {e}"))?;
            normalized.push(self.root.position.move_to_uci(&mv));
        }
        limits.searchmoves = normalized;
        if self.options.play_mode == PlayMode::Policy {
            if let Some(policy) = self.policy.clone() {
                self.search = Some(crate::search::policy_play::start(
                    self.root.clone(),
                    limits,
                    policy,
                    self.events.clone(),
                ));
                return Ok(());
            }
            // A GUI waits for a move: search instead, and say why.
            let _ = self.events.send(SearchEvent::Message(
                "error: PlayMode policy needs a policy file (setoption name Policy value \
                 <path of a convchess-policy .safetensors file>); searching instead"
                    .to_string(),
            ));
        }
        if self.options.play_mode == PlayMode::Greedy {
            self.search = Some(crate::search::greedy_play::start(
                self.root.clone(),
                limits,
                self.eval.inner().clone(),
                self.events.clone(),
            ));
            return Ok(());
        }
        if self.options.limit_strength {
            // Under `go infinite` the cap ends the thinking early but the held-back
            // `bestmove` still waits for `stop`, as UCI asks.
            let budget = strength::move_budget(self.options.elo, self.dice.next_unit());
            limits.nodes = Some(limits.nodes.map_or(budget, |n| n.min(budget)));
        }
        let config = self.search_config(self.options.threads);
        let shared = self.shared();
        self.search = Some(search::start(
            self.root.clone(),
            limits,
            config,
            shared,
            self.events.clone(),
        ));
        Ok(())
    }

    /// Non-blocking: asks the running search (if any) to finish; its `bestmove` follows.
    pub fn stop(&self) {
        if let Some(search) = &self.search {
            search.stop();
        }
    }

    /// Non-blocking.
    pub fn ponderhit(&self) {
        if let Some(search) = &self.search {
            search.ponderhit();
        }
    }

    /// Blocks until the running search (if any) has sent its `bestmove` and exited.
    pub fn stop_and_wait(&mut self) {
        if let Some(search) = self.search.take() {
            search.stop();
            search.wait();
        }
    }

    /// Blocks only to stop a running search. On error the previous position is kept.
    pub fn set_position(&mut self, spec: &PositionSpec) -> Result<(), String> {
        self.stop_and_wait();
        self.root = root_from_spec(spec, self.castling_mode()).map_err(|e| e.to_string())?;
        self.spec = Some(spec.clone());
        Ok(())
    }

    /// Blocks to stop a running search and to clear the TT and the evaluation cache.
    pub fn new_game(&mut self) {
        self.stop_and_wait();
        self.clear_learned();
        self.eval.clear();
        self.root = RootState {
            position: Position::startpos_in(self.castling_mode()),
            history: KeyHistory::new(),
        };
        self.spec = None;
    }

    /// Blocks to stop a running search, and while a TT is allocated or a net loads.
    /// `Ok(Some(text))` is news worth telling the GUI; on `Err` the option keeps its value.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<Option<String>, String> {
        let change = parse_change(name, value)?;
        self.stop_and_wait();
        match change {
            OptionChange::Hash(mib) => {
                if mib != self.options.hash_mib {
                    if let Some(avail) = available_mib().filter(|&a| mib > a) {
                        return Err(format!(
                            "Hash {mib} MiB is more than the {avail} MiB of memory available; \
                             choose a smaller Hash"
                        ));
                    }
                    match Arc::get_mut(&mut self.tt) {
                        Some(tt) => tt.resize(mib),
                        // Still shared (never so once the search has stopped): a new
                        // table, the old one freed by its last user.
                        None => self.tt = Arc::new(TranspositionTable::new(mib)),
                    }
                }
                self.options.apply(change);
                Ok(None)
            }
            OptionChange::Chess960(_) => {
                // `<embedded>` plays Chess960 with its own net: the evaluator may change.
                let news = self.change_evaluator_option(change)?;
                // The position keeps its moves but is read again, so castles are written
                // the new way (a GUI may send the option after `position`).
                let start = PositionSpec {
                    fen: None,
                    moves: Vec::new(),
                };
                let spec = self.spec.clone().unwrap_or(start);
                if let Ok(root) = root_from_spec(&spec, self.castling_mode()) {
                    self.root = root;
                }
                Ok(news)
            }
            OptionChange::ClearHash => {
                self.clear_learned();
                self.eval.clear();
                Ok(None)
            }
            OptionChange::Threads(_)
            | OptionChange::MultiPv(_)
            | OptionChange::ShowWdl(_)
            | OptionChange::SyzygyProbeLimit(_)
            | OptionChange::MoveOverhead(_)
            | OptionChange::Ponder(_)
            | OptionChange::PlayMode(_) => {
                self.options.apply(change);
                Ok(None)
            }
            OptionChange::LimitStrength(_) | OptionChange::Elo(_) => {
                self.options.apply(change);
                Ok(self.options.limit_strength.then(|| {
                    format!(
                        "UCI_LimitStrength: UCI_Elo {} plays about {} nodes a move",
                        self.options.elo,
                        strength::nodes_for(self.options.elo)
                    )
                }))
            }
            OptionChange::SyzygyPath(ref path) => {
                self.tablebases = if path.is_empty() {
                    None
                } else {
                    Some(Arc::new(Tablebases::open(path)?))
                };
                let news = self.tablebases.as_ref().map(|tb| {
                    format!(
                        "Syzygy: {} table files, up to {} pieces, from {}",
                        tb.files(),
                        tb.max_pieces(),
                        tb.path
                    )
                });
                self.options.apply(change);
                Ok(news)
            }
            OptionChange::Policy(ref file) => {
                self.policy = if file.is_empty() {
                    None
                } else {
                    Some(Arc::new(crate::eval::open::open_policy(file)?))
                };
                let news = self.policy.as_ref().map(|p| format!("Policy: {}", p.name));
                self.options.apply(change);
                Ok(news)
            }
            OptionChange::Precision(precision) => {
                crate::eval::open::precision_fits(precision, self.options.device)
                    .map_err(|e| format!("{e}; keeping {}", self.options.precision))?;
                self.change_evaluator_option(change)
            }
            OptionChange::EvalFile(_)
            | OptionChange::Device(_)
            | OptionChange::MaxBatch(_)
            | OptionChange::Encoder(_)
            | OptionChange::Backend(_) => self.change_evaluator_option(change),
        }
    }

    /// Applies one change to a copy of the options and reloads the evaluator if needed.
    fn change_evaluator_option(&mut self, change: OptionChange) -> Result<Option<String>, String> {
        let mut options = self.options.clone();
        options.apply(change);
        self.apply_evaluator_options(options)
    }

    /// Reloads the evaluator when a setting it depends on changed (a builtin evaluator
    /// ignores the net settings, so changing them only records the value).
    fn apply_evaluator_options(&mut self, options: Options) -> Result<Option<String>, String> {
        let old = &self.options;
        let is_net = !options.eval_file.is_builtin();
        let reload = options.eval_file.for_variant(options.chess960)
            != old.eval_file.for_variant(old.chess960)
            || options.device != old.device
            || (is_net
                && (options.max_batch != old.max_batch
                    || options.encoder != old.encoder
                    || options.precision != old.precision
                    || options.backend != old.backend));
        if reload {
            self.replace_evaluator(&options)?;
        }
        self.options = options;
        Ok(reload.then(|| self.evaluator_summary()))
    }

    fn replace_evaluator(&mut self, options: &Options) -> Result<(), String> {
        let spec = options.eval_file.for_variant(options.chess960);
        let eval = crate::eval::open(&spec, options.device, net_config(options))
            .map_err(|e| format!("{e}; still using {}", self.eval.info().name))?;
        // A new cache: scores from the previous evaluator must not leak into the new one's
        // searches.
        self.eval = Arc::new(CachedEvaluator::new(eval, EVAL_CACHE_ENTRIES));
        self.clear_learned();
        Ok(())
    }

    /// Forgets what this game's searches learned: the TT, the static-eval corrections and
    /// the move histories (the evaluation cache is the caller's to clear or replace).
    fn clear_learned(&self) {
        self.tt.clear();
        self.corrections.clear();
        self.histories.clear();
    }

    /// Non-blocking. The evaluator in use, as [`crate::eval::EvalInfo::describe`] writes it.
    pub fn evaluator_summary(&self) -> String {
        self.eval.info().describe()
    }

    /// Blocks for one evaluation (safe beside a running search). Lines: the evaluator, the
    /// evaluator's own terms as it reports them, then the score from the side to move and
    /// from White. Terms are not flipped, since some (e.g. a scale factor) are not scores.
    pub fn eval_report(&self) -> Result<Vec<String>, String> {
        let position = &self.root.position;
        let board = position.compact();
        let terms = self.eval.breakdown(&board).map_err(|e| e.to_string())?;
        let mut scores = Vec::with_capacity(1);
        self.eval
            .evaluate(std::slice::from_ref(&board), &mut scores)
            .map_err(|e| e.to_string())?;
        let score = scores
            .first()
            .copied()
            .ok_or("the evaluator returned no score")?;
        let white_to_move = position.turn() == crate::chess::Color::White;
        let white = if white_to_move { score } else { -score };
        let width = terms.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        let mut lines = vec![
            self.evaluator_summary(),
            format!(
                "side to move: {}",
                if white_to_move { "white" } else { "black" }
            ),
            "terms (side to move's view):".to_string(),
        ];
        for (name, value) in terms {
            lines.push(format!("  {name:<width$}  {:>+9.2}", value + 0.0));
        }
        // Adding 0.0 turns -0.0 into 0.0, which would otherwise print as "-0.00".
        lines.push(format!(
            "score: {:+.2} cp (side to move), {:+.2} cp (white)",
            score + 0.0,
            white + 0.0
        ));
        Ok(lines)
    }

    /// Non-blocking. Diagram, FEN and key of the current position.
    pub fn display(&self) -> Vec<String> {
        let position = &self.root.position;
        let diagram = position.diagram();
        let fen = position.fen();
        let key = format!("{:016x}", position.key());
        let mut lines: Vec<String> = diagram.lines().map(str::to_string).collect();
        // The diagram may already carry these; the point is that `d` always shows them.
        if !diagram.contains(&fen) {
            lines.push(format!("Fen: {fen}"));
        }
        if !diagram.contains(&key) {
            lines.push(format!("Key: {key}"));
        }
        lines
    }

    /// Blocks for the whole count: per-move lines `e2e4: 20`, a blank line, then
    /// `Nodes searched: N`.
    pub fn perft(&self, depth: u32) -> Result<Vec<String>, String> {
        if depth > MAX_PERFT_DEPTH {
            return Err(format!(
                "perft depth {depth} is too deep; use at most {MAX_PERFT_DEPTH}"
            ));
        }
        Ok(perft_lines(&self.root.position, depth))
    }

    /// How `position` reads castling: Chess960's way under `UCI_Chess960`.
    fn castling_mode(&self) -> CastlingMode {
        if self.options.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    fn search_config(&self, threads: usize) -> SearchConfig {
        SearchConfig {
            threads,
            move_overhead: self.options.move_overhead,
            multipv: self.options.multipv,
            show_wdl: self.options.show_wdl,
        }
    }

    fn shared(&self) -> SearchShared {
        SearchShared {
            tt: self.tt.clone(),
            corrections: self.corrections.clone(),
            histories: self.histories.clone(),
            eval: self.eval.clone(),
            policy: self.policy.clone(),
            syzygy: self.tablebases.as_ref().map(|tables| Syzygy {
                tables: tables.clone(),
                probe_limit: self.options.syzygy_probe_limit,
            }),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop_and_wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Backend;

    fn spec(fen: Option<&str>, moves: &[&str]) -> PositionSpec {
        PositionSpec {
            fen: fen.map(str::to_string),
            moves: moves.iter().map(|m| m.to_string()).collect(),
        }
    }

    fn engine() -> (Engine, crossbeam::channel::Receiver<SearchEvent>) {
        let (tx, rx) = crossbeam::channel::unbounded();
        (Engine::new(tx), rx)
    }

    #[test]
    fn moves_are_played_and_history_recorded() {
        let root = root_from_spec(
            &spec(None, &["e2e4", "e7e5", "g1f3"]),
            CastlingMode::Standard,
        )
        .unwrap();
        assert_eq!(
            root.position.fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
        );
        assert_eq!(root.history.len(), 3);
    }

    #[test]
    fn fen_position_with_moves() {
        let fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
        let root = root_from_spec(&spec(Some(fen), &["e1g1"]), CastlingMode::Standard).unwrap();
        assert_eq!(root.position.fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    }

    #[test]
    fn bad_fen_or_illegal_move_keeps_the_old_position() {
        let (mut engine, _rx) = engine();
        engine.set_position(&spec(None, &["d2d4"])).unwrap();
        let before = engine.root().position.fen();
        for bad in [
            spec(None, &["e2e4", "e2e4"]),
            spec(None, &["e2e5"]),
            spec(None, &["e2e4", "zzzz", "e7e5"]),
            spec(Some("not a fen"), &[]),
            spec(Some("8/8/8/8/8/8/8/8 w - - 0 1"), &[]),
        ] {
            let err = engine.set_position(&bad);
            assert!(err.is_err(), "{bad:?} was accepted");
            assert_eq!(engine.root().position.fen(), before);
            assert_eq!(engine.root().history.len(), 1);
        }
    }

    #[test]
    fn bad_option_values_keep_old_values() {
        let (mut engine, _rx) = engine();
        engine.set_option("Threads", "4").unwrap();
        assert!(engine.set_option("Threads", "0").is_err());
        assert_eq!(engine.options().threads, 4);
        assert!(engine
            .set_option("EvalFile", "/no/such/net.safetensors")
            .is_err());
        assert_eq!(engine.options().eval_file, EvalSpec::Embedded);
        assert!(engine
            .evaluator()
            .info()
            .name
            .contains(crate::eval::embedded::NAME));
        engine.set_option("evalfile", "<fake>").unwrap();
        assert_eq!(engine.options().eval_file, EvalSpec::Fake);
        assert!(engine.set_option("Hash", "65537").is_err());
        assert_eq!(engine.options().hash_mib, 64);
        engine.set_option("Hash", "2").unwrap();
        assert_eq!(engine.options().hash_mib, 2);
        assert_eq!(engine.tt.len(), TranspositionTable::new(2).len());
    }

    #[test]
    fn chess960_plays_the_embedded_chess960_net_unless_evalfile_names_another() {
        use crate::eval::embedded::{CHESS960_NAME, NAME};
        let (mut engine, _rx) = engine();
        let name = |engine: &Engine| engine.evaluator().info().name.clone();
        assert!(name(&engine).contains(NAME));
        let news = engine.set_option("UCI_Chess960", "true").unwrap();
        assert!(news.is_some_and(|n| n.contains(CHESS960_NAME)));
        assert!(name(&engine).contains(CHESS960_NAME), "{}", name(&engine));
        // The castling mode still follows the option.
        assert_eq!(engine.castling_mode(), CastlingMode::Chess960);
        let news = engine.set_option("UCI_Chess960", "false").unwrap();
        assert!(news.is_some_and(|n| n.contains(NAME)));
        assert!(name(&engine).contains(NAME));
        // A value other than `<embedded>` means itself in both variants: no reload.
        engine.set_option("EvalFile", "<embedded960>").unwrap();
        assert!(name(&engine).contains(CHESS960_NAME));
        assert_eq!(engine.set_option("UCI_Chess960", "true").unwrap(), None);
        engine.set_option("EvalFile", "<material>").unwrap();
        assert_eq!(engine.set_option("UCI_Chess960", "false").unwrap(), None);
        assert_eq!(engine.options().eval_file, EvalSpec::Material);
    }

    #[test]
    #[cfg(feature = "torch")]
    fn net_options_reload_a_net_and_half_precision_needs_cuda() {
        let (mut engine, _rx) = engine();
        engine.set_option("MaxBatch", "128").unwrap();
        assert_eq!(engine.options().max_batch, 128);
        let dir = std::env::temp_dir().join(format!("cerise-engine-net-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("small.safetensors");
        crate::net::init_net("small", 2, &path).unwrap();
        engine.set_option("Device", "cpu").unwrap();
        engine
            .set_option("EvalFile", path.to_str().unwrap())
            .unwrap();
        // On the CPU `auto` is the native backend; MaxBatch, Encoder and Precision are
        // libtorch settings.
        assert_eq!(engine.evaluator().info().backend, Some(Backend::Native));
        let news = engine.set_option("Backend", "torch").unwrap();
        assert!(
            news.as_deref()
                .is_some_and(|n| n.ends_with(", backend torch")),
            "{news:?}"
        );
        assert_eq!(engine.options().backend, Backend::Torch);
        assert_eq!(engine.evaluator().info().max_batch, 128);
        let news = engine.set_option("Encoder", "sparse").unwrap();
        assert!(news.is_some_and(|n| n.contains("sparse encoder")));
        engine.set_option("MaxBatch", "32").unwrap();
        assert_eq!(engine.evaluator().info().max_batch, 32);
        let e = engine.set_option("Backend", "onnx").unwrap_err();
        assert!(e.starts_with("Backend: "), "{e}");
        assert_eq!(engine.options().backend, Backend::Torch);
        assert_eq!(engine.evaluator().info().backend, Some(Backend::Torch));
        let e = engine.set_option("Precision", "fp16").unwrap_err();
        assert!(
            e.contains("needs a CUDA device") && e.contains("keeping auto"),
            "{e}"
        );
        assert_eq!(engine.options().precision, crate::eval::Precision::Auto);
        assert!(engine.evaluator().info().name.contains("fp32"));
    }

    #[test]
    #[cfg(not(feature = "torch"))]
    fn without_libtorch_what_needs_it_is_refused_and_the_native_net_kept() {
        let (mut engine, _rx) = engine();
        assert_eq!(engine.evaluator().info().backend, Some(Backend::Native));
        let mocha = format!(
            "{}/nets/cerise-mocha-1ae52c8f0047.safetensors",
            env!("CARGO_MANIFEST_DIR")
        );
        let policy = format!(
            "{}/nets/cerise-convchess-d5616dd926ad.safetensors",
            env!("CARGO_MANIFEST_DIR")
        );
        for (name, value) in [
            ("Backend", "torch"),
            ("Device", "cuda"),
            ("EvalFile", mocha.as_str()),
            ("Policy", policy.as_str()),
        ] {
            let e = engine.set_option(name, value).unwrap_err();
            assert!(e.contains("this build has no libtorch"), "{name}: {e}");
        }
        assert_eq!(engine.options().backend, Backend::Auto);
        assert_eq!(engine.options().eval_file, EvalSpec::Embedded);
        assert_eq!(engine.evaluator().info().backend, Some(Backend::Native));
        // The libtorch-only settings are kept as values (a GUI's saved settings load).
        engine.set_option("Encoder", "sparse").unwrap();
        engine.set_option("MaxBatch", "64").unwrap();
        assert_eq!(engine.evaluator().info().backend, Some(Backend::Native));
    }

    #[test]
    fn eval_report_shows_both_points_of_view() {
        let (mut engine, _rx) = engine();
        engine.set_option("EvalFile", "<material>").unwrap();
        // Black to move, White a queen up: negative for the side to move.
        let fen = "4k3/8/8/8/8/8/8/3QK3 b - - 0 1";
        engine.set_position(&spec(Some(fen), &[])).unwrap();
        let lines = engine.eval_report().unwrap();
        assert_eq!(lines[1], "side to move: black");
        assert!(lines.iter().any(|l| l.trim_start().starts_with("total")));
        assert_eq!(
            lines.last().unwrap(),
            "score: -900.00 cp (side to move), +900.00 cp (white)"
        );
    }
}
