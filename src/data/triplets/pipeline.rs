//! PGN stream → three split triplet files, with per-reason skip counts.

use super::extract::game_triplets;
use super::format::{TripletHeader, EXT};
use crate::data::filter::SkipReason;
use crate::data::games::for_each_game;
use crate::data::pgn::GameFilter;
use crate::data::records::{self, SplitRun, SplitSummary, SummaryExtra};
use crate::data::rng::SplitMix64;
use crate::data::split::{Split, SplitRatios};
use anyhow::Result;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Default plies skipped at the start of every game. Master games share their first moves
/// with thousands of others; eight plies (four moves each) keeps opening-book positions from
/// dominating the data while the network still sees early middlegames.
pub const DEFAULT_SKIP_PLIES: u32 = 8;

/// How `cerise data triplets` makes its triplets: its own arguments (see [`super::cli`]).
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct TripletConfig {
    /// Seed of the random moves and of the by-game split.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Plies at the start of every game that give no triplets (shared opening moves).
    #[arg(long, default_value_t = DEFAULT_SKIP_PLIES)]
    pub skip_plies: u32,
    /// Only quiet triplets: the side to move is not in check, and the played and random
    /// moves are neither captures nor promotions (what a search's leaves look like).
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub filter: GameFilter,
    /// Train,valid,test percentages of games.
    #[arg(long, default_value = "90,5,5")]
    pub split: SplitRatios,
    /// Stop after reading this many games (kept or skipped), for quick runs.
    #[arg(long)]
    pub max_games: Option<u64>,
}

impl Default for TripletConfig {
    fn default() -> Self {
        TripletConfig {
            seed: 1,
            skip_plies: DEFAULT_SKIP_PLIES,
            quiet: false,
            filter: GameFilter::default(),
            split: SplitRatios::default(),
            max_games: None,
        }
    }
}

/// What a triplet run counts beyond every run's counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TripletCounts {
    /// Positions past the skipped plies passed over because they had one legal move.
    pub forced_positions: u64,
    /// Positions passed over by the quiet filter.
    pub noisy_positions: u64,
}

impl SummaryExtra for TripletCounts {
    const NOUN: &'static str = "triplets";

    fn middle_lines(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "forced positions skipped {:>10}",
            self.forced_positions
        )];
        if self.noisy_positions > 0 {
            lines.push(format!(
                "noisy positions skipped  {:>10}",
                self.noisy_positions
            ));
        }
        lines
    }
}

/// What a run read, skipped and wrote.
pub type TripletSummary = SplitSummary<TripletCounts>;

/// `<prefix>.train.trip`, `<prefix>.valid.trip`, `<prefix>.test.trip`.
pub fn split_paths(prefix: &Path) -> [PathBuf; 3] {
    records::split_paths(prefix, EXT)
}

/// Reads every game of `input` (uncompressed PGN), writes the three split files under
/// `out_prefix` and returns the counts. `source` is recorded in the headers. `on_game` is
/// called after every game with the running summary (for progress display).
pub fn write_triplets<R: Read>(
    input: R,
    source: &str,
    out_prefix: &Path,
    config: &TripletConfig,
    mut on_game: impl FnMut(&TripletSummary),
) -> Result<TripletSummary> {
    let mut run =
        SplitRun::<_, TripletCounts>::create(out_prefix, EXT, |split: Split| TripletHeader {
            skip_plies: config.skip_plies,
            quiet: config.quiet,
            min_elo: config.filter.min_elo.unwrap_or(0),
            results: config.filter.results.0,
            split: Some(split),
            split_weights: config.split.per_mille,
            ..TripletHeader::new(source, config.seed)
        })?;
    for_each_game(
        input,
        source,
        config.filter,
        config.max_games,
        |game_index, outcome| {
            run.summary.games_read += 1;
            match outcome {
                Err(reason) => run.summary.skip(reason),
                Ok(game) => {
                    let split = config.split.assign(config.seed, game_index);
                    let writer = run.writer(split);
                    let mut rng = SplitMix64::for_stream(config.seed, game_index);
                    let counts =
                        game_triplets(&game, config.skip_plies, config.quiet, &mut rng, |t| {
                            writer.write(&t)
                        })?;
                    let summary = &mut run.summary;
                    summary.extra.forced_positions += counts.forced;
                    summary.extra.noisy_positions += counts.noisy;
                    if counts.triplets == 0 {
                        summary.skip(SkipReason::NoEligiblePositions);
                    } else {
                        summary.used(split, counts.triplets);
                    }
                }
            }
            on_game(&run.summary);
            Ok(ControlFlow::Continue(()))
        },
    )?;
    run.finish()
}
