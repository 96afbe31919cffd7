//! PGN stream → three split positions files, with per-reason skip counts.
//!
//! Games are split by their index in the input (every game read counts, kept or not), with
//! the same hash as `cerise data triplets`: with the same seed and weights, a game lands in
//! the same split in both kinds of file. With a `--test-after` date, games dated on or after
//! it go to test and all others to train or valid (see `SplitRatios::assign_train_valid`).

use super::super::date::Cutoff;
use super::super::filter::{GameResult, SkipReason};
use super::super::games::for_each_game;
use super::super::pgn::{GameFilter, ParsedGame};
use super::super::records::{self, SplitRun, SplitSummary, SummaryExtra};
use super::super::rng::SplitMix64;
use super::super::split::Split;
use super::super::split::SplitRatios;
use super::ending::Ending;
use super::extract::{game_positions, PlySelection};
use super::header::{PositionHeader, EXT};
use super::record::LabelledPosition;
use anyhow::{ensure, Result};
use shakmaty::{Chess, Color, Position as _};
use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// How `cerise data positions` picks its positions: its own arguments (see [`super::cli`]),
/// in the order its help lists them.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct PositionConfig {
    /// Games kept by how they ended: `all` (draws too), `decisive` (1-0, 0-1), or `mate`
    /// (the moves end in checkmate). A game whose result contradicts its final mate is skipped.
    #[arg(long, default_value = "decisive")]
    pub ending: Ending,
    /// Keep only games where both players have an Elo tag of at least this (0: no filter).
    #[arg(long, default_value_t = 0)]
    pub min_elo: u32,
    /// Plies at the start of every game that give no positions.
    #[arg(long, default_value_t = 0)]
    pub skip_plies: u32,
    /// Keep one position in N of every game (at a seeded offset per game).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub every: u32,
    /// Stop after reading this many games (kept or skipped), for quick runs.
    #[arg(long)]
    pub max_games: Option<u64>,
    /// Seed of the by-game split and of the `--every` offsets.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Train,valid,test percentages of games.
    #[arg(long, default_value = "90,5,5")]
    pub split: SplitRatios,
    /// Games dated on or after this (YYYY.MM.DD) form the test file; all other games
    /// (earlier or undated) are split between train and valid in the ratio of their weights.
    #[arg(long, value_name = "YYYY.MM.DD")]
    pub test_after: Option<Cutoff>,
}

impl Default for PositionConfig {
    fn default() -> Self {
        PositionConfig {
            seed: 1,
            skip_plies: 0,
            every: 1,
            ending: Ending::default(),
            min_elo: 0,
            split: SplitRatios::default(),
            test_after: None,
            max_games: None,
        }
    }
}

impl PositionConfig {
    fn filter(&self) -> GameFilter {
        GameFilter {
            min_elo: (self.min_elo > 0).then_some(self.min_elo),
            results: self.ending.results(),
        }
    }

    /// The split of game number `game_index` (in file order), dated `date`.
    pub fn assign(&self, game_index: u64, game: &ParsedGame) -> Split {
        match self.test_after {
            None => self.split.assign(self.seed, game_index),
            Some(cutoff) if game.date.is_some_and(|d| d.is_on_or_after(cutoff)) => Split::Test,
            Some(_) => self.split.assign_train_valid(self.seed, game_index),
        }
    }

    fn header(&self, source: &str, split: Split) -> PositionHeader {
        PositionHeader {
            skip_plies: self.skip_plies,
            every: self.every,
            min_elo: self.min_elo,
            test_after: self.test_after,
            results: self.ending.results().0,
            ending: self.ending,
            split: Some(split),
            split_weights: self.split.per_mille,
            ..PositionHeader::new(source, self.seed)
        }
    }
}

/// What a positions run counts beyond every run's counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PositionRunCounts {
    /// Used games by result: 1-0, 0-1, 1/2-1/2.
    pub results: [u64; 3],
    /// Used games whose moves end in checkmate.
    pub mates: u64,
    /// Used games sent to test by their date (`--test-after`).
    pub dated_test_games: u64,
    pub test_after: Option<Cutoff>,
}

impl SummaryExtra for PositionRunCounts {
    const NOUN: &'static str = "positions";

    fn used_note(&self) -> String {
        let [white, black, draws] = self.results;
        format!(
            "  ({white} 1-0, {black} 0-1, {draws} draws; {} end in mate)",
            self.mates
        )
    }

    fn middle_lines(&self) -> Vec<String> {
        self.test_after
            .map(|cutoff| {
                format!(
                    "dated on or after {cutoff} (test) {:>8} games",
                    self.dated_test_games
                )
            })
            .into_iter()
            .collect()
    }
}

/// What a run read, skipped and wrote.
pub type PositionSummary = SplitSummary<PositionRunCounts>;

/// `<prefix>.train.pos`, `<prefix>.valid.pos`, `<prefix>.test.pos`.
pub fn split_paths(prefix: &Path) -> [PathBuf; 3] {
    records::split_paths(prefix, EXT)
}

/// Why a parsed game gives no records, judged on its final position: a mate the result
/// contradicts, or no mate when `--ending mate` asks for one.
fn ending_check(game: &ParsedGame, end: &Chess, ending: Ending) -> Result<bool, SkipReason> {
    if end.is_checkmate() {
        // The side to move is mated.
        let winner = if end.turn() == Color::White {
            GameResult::BlackWins
        } else {
            GameResult::WhiteWins
        };
        if game.result != winner {
            return Err(SkipReason::ResultContradictsMate);
        }
        Ok(true)
    } else if ending == Ending::Mate {
        Err(SkipReason::NotCheckmate)
    } else {
        Ok(false)
    }
}

/// Reads every game of `input` (uncompressed PGN), writes the three split files under
/// `out_prefix` and returns the counts. `source` is recorded in the headers. `on_game` is
/// called after every game with the running summary (for progress display).
pub fn write_positions<R: Read>(
    input: R,
    source: &str,
    out_prefix: &Path,
    config: &PositionConfig,
    mut on_game: impl FnMut(&PositionSummary),
) -> Result<PositionSummary> {
    ensure!(config.every >= 1, "--every must be at least 1");
    if config.test_after.is_some() {
        let [train, valid, _] = config.split.per_mille;
        ensure!(
            train + valid > 0,
            "--test-after needs a nonzero train or valid weight in --split"
        );
    }
    let mut run = SplitRun::<_, PositionRunCounts>::create(out_prefix, EXT, |split| {
        config.header(source, split)
    })?;
    run.summary.extra.test_after = config.test_after;
    let mut records: Vec<LabelledPosition> = Vec::with_capacity(256);
    for_each_game(
        input,
        source,
        config.filter(),
        config.max_games,
        |game_index, outcome| {
            run.summary.games_read += 1;
            let game = match outcome {
                Err(reason) => {
                    run.summary.skip(reason);
                    on_game(&run.summary);
                    return Ok(ControlFlow::Continue(()));
                }
                Ok(game) => game,
            };
            let offset = if config.every > 1 {
                SplitMix64::for_stream(config.seed, game_index).below(config.every as usize) as u32
            } else {
                0
            };
            let select = PlySelection {
                skip: config.skip_plies,
                every: config.every,
                offset,
            };
            records.clear();
            let end = game_positions(&game, select, &mut records);
            match ending_check(&game, &end, config.ending) {
                Err(reason) => run.summary.skip(reason),
                Ok(_) if records.is_empty() => run.summary.skip(SkipReason::NoEligiblePositions),
                Ok(mate) => {
                    let split = config.assign(game_index, &game);
                    let writer = run.writer(split);
                    for r in &records {
                        writer.write(r)?;
                    }
                    let summary = &mut run.summary;
                    summary.used(split, records.len() as u64);
                    let counts = &mut summary.extra;
                    counts.mates += u64::from(mate);
                    counts.results[match game.result {
                        GameResult::WhiteWins => 0,
                        GameResult::BlackWins => 1,
                        GameResult::Draw => 2,
                    }] += 1;
                    if config.test_after.is_some() && split == Split::Test {
                        counts.dated_test_games += 1;
                    }
                }
            }
            on_game(&run.summary);
            Ok(ControlFlow::Continue(()))
        },
    )?;
    run.finish()
}
