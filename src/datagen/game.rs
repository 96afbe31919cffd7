//! One self-play game: from its seeded start to its end by the rules or by adjudication,
//! every position searched at the node budget and recorded.

use super::adjudicate::{Adjudicator, Bounds, Verdict};
use super::opening::{start_position, Book, Variants};
use crate::chess::{KeyHistory, Position};
use crate::data::rng::SplitMix64;
use crate::data::selfplay::{Outcome, SelfPlayRecord};
use crate::eval::{CachedEvaluator, Evaluator};
use crate::search::{
    self, Limits, RootState, Score, SearchConfig, SearchShared, TranspositionTable,
};
use anyhow::{bail, Context, Result};
use std::sync::Arc;
use std::time::Duration;

/// How every game of a run is played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameConfig {
    pub seed: u64,
    /// Nodes of every search.
    pub nodes: u64,
    /// A depth limit of every search beside the nodes.
    pub depth: Option<u32>,
    pub random_plies: u32,
    /// Shares of the games from Chess960 and double Chess960 starts.
    pub variants: Variants,
    /// Starts whose search score is beyond this (centipawns) are skipped.
    pub opening_bound: u32,
    pub bounds: Bounds,
    /// A game still going at this ply (from its start position) is drawn.
    pub max_plies: u32,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameEnd {
    Checkmate,
    Stalemate,
    Repetition,
    FiftyMoves,
    InsufficientMaterial,
    AdjudicatedWin,
    AdjudicatedDraw,
    MaxPlies,
    /// Not played: the random plies ended the game, or the start was lopsided.
    SkippedStart,
}

impl GameEnd {
    pub fn name(self) -> &'static str {
        match self {
            GameEnd::Checkmate => "checkmate",
            GameEnd::Stalemate => "stalemate",
            GameEnd::Repetition => "threefold repetition",
            GameEnd::FiftyMoves => "fifty moves",
            GameEnd::InsufficientMaterial => "insufficient material",
            GameEnd::AdjudicatedWin => "adjudicated win",
            GameEnd::AdjudicatedDraw => "adjudicated draw",
            GameEnd::MaxPlies => "ply limit",
            GameEnd::SkippedStart => "skipped start",
        }
    }
}

/// A finished game: its records (empty for a skipped start) and how it ended.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    pub index: u32,
    pub records: Vec<SelfPlayRecord>,
    pub end: GameEnd,
    pub result: Outcome,
    /// Nodes searched, for the speed figures.
    pub nodes: u64,
}

/// What one worker thread plays with: the evaluator, and its own hash table and evaluation
/// cache, cleared before every game so that a game depends on nothing but its seed.
pub struct Player {
    shared: SearchShared,
}

impl Player {
    pub fn new(eval: Arc<dyn Evaluator>, hash_mib: usize) -> Self {
        Player {
            shared: SearchShared {
                tt: Arc::new(TranspositionTable::new(hash_mib)),
                eval: Arc::new(CachedEvaluator::new(eval, 1 << 16)),
                policy: None,
                syzygy: None,
                corrections: Default::default(),
                histories: Default::default(),
            },
        }
    }

    fn clear(&self) {
        self.shared.clear_game();
    }

    /// The search's best move of `pos` and its score for the side to move, in the search's
    /// internal units (a mate as ±(32000 − plies)).
    fn search(
        &self,
        pos: &Position,
        history: &KeyHistory,
        nodes: u64,
        depth: Option<u32>,
    ) -> Result<(shakmaty::Move, i32, u64)> {
        let root = RootState {
            position: pos.clone(),
            history: history.clone(),
        };
        let limits = Limits {
            nodes: Some(nodes),
            depth,
            ..Limits::default()
        };
        let config = SearchConfig {
            threads: 1,
            move_overhead: Duration::ZERO,
            ..SearchConfig::default()
        };
        let result = search::search_blocking(root, limits, config, self.shared.clone());
        let best = result
            .best
            .with_context(|| format!("the search found no move in {}", pos.fen()))?;
        let m = pos
            .parse_uci_move(&best)
            .with_context(|| format!("the search's move {best} in {}", pos.fen()))?;
        let score = match result.score {
            Score::Cp(cp) => cp,
            Score::Mate(moves) if moves > 0 => 32_000 - (2 * moves - 1),
            Score::Mate(moves) => -(32_000 - 2 * moves.abs()),
        };
        Ok((m, score, result.nodes))
    }
}

/// Why the rules end the game at `pos`, whose earlier positions' keys are `keys`.
fn rules_end(pos: &Position, keys: &[u64]) -> Option<(GameEnd, Outcome)> {
    if !pos.has_legal_move() {
        return Some(if pos.is_check() {
            let loser = pos.turn();
            (GameEnd::Checkmate, Outcome::win_for(!loser))
        } else {
            (GameEnd::Stalemate, Outcome::Draw)
        });
    }
    if pos.halfmoves() >= 100 {
        return Some((GameEnd::FiftyMoves, Outcome::Draw));
    }
    if pos.is_insufficient_material() {
        return Some((GameEnd::InsufficientMaterial, Outcome::Draw));
    }
    // The third occurrence: the same key twice before, with the same side to move.
    let window = (pos.halfmoves() as usize).min(keys.len());
    let earlier = keys
        .iter()
        .rev()
        .take(window)
        .skip(1)
        .step_by(2)
        .filter(|&&k| k == pos.key())
        .count();
    if earlier >= 2 {
        return Some((GameEnd::Repetition, Outcome::Draw));
    }
    None
}

/// Plays game `index` of a run: the same index and settings give the same game, move for
/// move, on any machine and in any thread.
pub fn play_game(
    index: u32,
    config: &GameConfig,
    book: Option<&Book>,
    player: &Player,
) -> Result<PlayedGame> {
    let mut rng = SplitMix64::for_stream(config.seed, u64::from(index));
    let skipped = |nodes| PlayedGame {
        index,
        records: Vec::new(),
        end: GameEnd::SkippedStart,
        result: Outcome::Draw,
        nodes,
    };
    let variant = config.variants.draw(config.seed, u64::from(index));
    let Some((mut pos, mut keys)) = start_position(book, variant, config.random_plies, &mut rng)
    else {
        return Ok(skipped(0));
    };
    player.clear();
    let mut history = KeyHistory::new();
    for &k in &keys {
        history.push(k);
    }
    let mut adjudicator = Adjudicator::new(config.bounds);
    let mut records = Vec::new();
    let mut nodes = 0;
    let mut ply = keys.len() as u32;
    let (end, result) = loop {
        if let Some(end) = rules_end(&pos, &keys) {
            break end;
        }
        if ply >= config.max_plies {
            break (GameEnd::MaxPlies, Outcome::Draw);
        }
        let (best, score, searched) = player.search(&pos, &history, config.nodes, config.depth)?;
        nodes += searched;
        if records.is_empty() && score.unsigned_abs() > config.opening_bound {
            return Ok(skipped(nodes));
        }
        let stored = score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        let Ok(record_ply) = u16::try_from(ply) else {
            bail!("game {index} reached ply {ply}; use a --max-plies below 65536");
        };
        records.push(SelfPlayRecord::new(
            pos.inner(),
            stored,
            &best,
            record_ply,
            Outcome::Draw,
            index,
        ));
        let white_score = if pos.turn() == shakmaty::Color::White {
            score
        } else {
            -score
        };
        let verdict = adjudicator.observe(ply, white_score);
        keys.push(pos.key());
        history.push(pos.key());
        pos = pos.play(&best);
        ply += 1;
        match verdict {
            Verdict::Continue => {}
            Verdict::Win { white } => {
                let winner = if white {
                    Outcome::WhiteWins
                } else {
                    Outcome::BlackWins
                };
                break (GameEnd::AdjudicatedWin, winner);
            }
            Verdict::Draw => break (GameEnd::AdjudicatedDraw, Outcome::Draw),
        }
    };
    for r in &mut records {
        r.result = result;
    }
    Ok(PlayedGame {
        index,
        records,
        end,
        result,
        nodes,
    })
}
