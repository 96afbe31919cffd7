//! PGN stream → three split triplet files, with per-reason skip counts.

use super::filter::SkipReason;
use super::format::{Split, TripletHeader};
use super::games::for_each_game;
use super::pgn::GameFilter;
use super::rng::SplitMix64;
use super::split::SplitRatios;
use super::triplets::game_triplets;
use super::writer::TripletWriter;
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Default plies skipped at the start of every game. Master games share their first moves
/// with thousands of others; eight plies (four moves each) keeps opening-book positions from
/// dominating the data while the network still sees early middlegames.
pub const DEFAULT_SKIP_PLIES: u32 = 8;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TripletConfig {
    pub seed: u64,
    pub skip_plies: u32,
    /// Only quiet triplets (see `super::triplets`).
    pub quiet: bool,
    pub filter: GameFilter,
    pub split: SplitRatios,
    /// Stop after reading this many games (kept or skipped).
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

/// What a run read, skipped and wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TripletSummary {
    pub games_read: u64,
    /// Games that produced at least one triplet.
    pub games_used: u64,
    pub skipped: BTreeMap<SkipReason, u64>,
    /// Positions past the skipped plies passed over because they had one legal move.
    pub forced_positions: u64,
    /// Positions passed over by the quiet filter.
    pub noisy_positions: u64,
    /// Indexed by `Split as usize`: train, valid, test.
    pub games_per_split: [u64; 3],
    pub triplets_per_split: [u64; 3],
    pub outputs: Vec<PathBuf>,
    pub elapsed_s: f64,
}

impl TripletSummary {
    pub fn triplets(&self) -> u64 {
        self.triplets_per_split.iter().sum()
    }

    pub fn games_skipped(&self) -> u64 {
        self.skipped.values().sum()
    }

    fn skip(&mut self, reason: SkipReason) {
        *self.skipped.entry(reason).or_default() += 1;
    }
}

impl fmt::Display for TripletSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rate = self.games_read as f64 / self.elapsed_s.max(1e-9);
        writeln!(
            f,
            "games read     {:>10}  ({:.1} s, {:.0} games/s)",
            self.games_read, self.elapsed_s, rate
        )?;
        writeln!(f, "games used     {:>10}", self.games_used)?;
        writeln!(f, "games skipped  {:>10}", self.games_skipped())?;
        for (reason, n) in &self.skipped {
            writeln!(f, "  {:<28}{:>10}", reason.describe(), n)?;
        }
        writeln!(f, "forced positions skipped {:>10}", self.forced_positions)?;
        if self.noisy_positions > 0 {
            writeln!(f, "noisy positions skipped  {:>10}", self.noisy_positions)?;
        }
        for split in Split::ALL {
            let i = split as usize;
            writeln!(
                f,
                "{:<6} {:>10} triplets from {:>8} games -> {}",
                split.name(),
                self.triplets_per_split[i],
                self.games_per_split[i],
                self.outputs
                    .get(i)
                    .map_or(String::new(), |p| p.display().to_string())
            )?;
        }
        write!(f, "triplets total {:>10}", self.triplets())
    }
}

/// `<prefix>.train.trip`, `<prefix>.valid.trip`, `<prefix>.test.trip`.
pub fn split_paths(prefix: &Path) -> [PathBuf; 3] {
    Split::ALL.map(|s| {
        let mut name = prefix.as_os_str().to_os_string();
        name.push(format!(".{}.trip", s.name()));
        PathBuf::from(name)
    })
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
    let started = Instant::now();
    let paths = split_paths(out_prefix);
    let mut writers = Vec::with_capacity(3);
    for (split, path) in Split::ALL.iter().zip(&paths) {
        let header = TripletHeader {
            skip_plies: config.skip_plies,
            quiet: config.quiet,
            min_elo: config.filter.min_elo.unwrap_or(0),
            results: config.filter.results.0,
            split: Some(*split),
            split_weights: config.split.per_mille,
            ..TripletHeader::new(source, config.seed)
        };
        writers.push(TripletWriter::create(path, header)?);
    }
    let mut summary = TripletSummary {
        outputs: paths.to_vec(),
        ..TripletSummary::default()
    };
    for_each_game(
        input,
        source,
        config.filter,
        config.max_games,
        |game_index, outcome| {
            summary.games_read += 1;
            match outcome {
                Err(reason) => summary.skip(reason),
                Ok(game) => {
                    let split = config.split.assign(config.seed, game_index);
                    let writer = &mut writers[split as usize];
                    let mut rng = SplitMix64::for_stream(config.seed, game_index);
                    let counts =
                        game_triplets(&game, config.skip_plies, config.quiet, &mut rng, |t| {
                            writer.write(&t)
                        })?;
                    summary.forced_positions += counts.forced;
                    summary.noisy_positions += counts.noisy;
                    if counts.triplets == 0 {
                        summary.skip(SkipReason::NoEligiblePositions);
                    } else {
                        summary.games_used += 1;
                        summary.games_per_split[split as usize] += 1;
                        summary.triplets_per_split[split as usize] += counts.triplets;
                    }
                }
            }
            on_game(&summary);
            Ok(ControlFlow::Continue(()))
        },
    )?;
    for writer in writers {
        writer.finish()?;
    }
    summary.elapsed_s = started.elapsed().as_secs_f64();
    Ok(summary)
}
