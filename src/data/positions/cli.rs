//! `cerise data positions`: arguments, output checks, progress on stderr.

use super::super::cli::{open_pgn, progress_bar, PgnInput};
use super::super::date::Cutoff;
use super::super::split::SplitRatios;
use super::ending::Ending;
use super::pipeline::{split_paths, write_positions, PositionConfig, PositionSummary};
use anyhow::{bail, Context, Result};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Progress lines when stderr is not a terminal (a log file) come this often.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// Turn PGN games into positions labelled with the game result and the move played, for
/// win/loss classifiers and move-selection (policy) nets; split train/valid/test by game.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct PositionArgs {
    /// Input games, `.pgn` or `.pgn.bz2`.
    pub input: PathBuf,
    /// Output prefix: writes `<PREFIX>.train.pos`, `<PREFIX>.valid.pos`, `<PREFIX>.test.pos`.
    #[arg(short, long, value_name = "PREFIX")]
    pub out: PathBuf,
    /// Games kept by how they ended: `all` (draws too), `decisive` (1-0, 0-1), or `mate`
    /// (the moves end in checkmate). A game whose result contradicts its final mate is skipped.
    #[arg(long, default_value = "decisive", value_parser = parse_ending)]
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
    #[arg(long, default_value = "90,5,5", value_parser = parse_split)]
    pub split: SplitRatios,
    /// Games dated on or after this (YYYY.MM.DD) form the test file; all other games
    /// (earlier or undated) are split between train and valid in the ratio of their weights.
    #[arg(long, value_name = "YYYY.MM.DD", value_parser = parse_cutoff)]
    pub test_after: Option<Cutoff>,
    /// Replace existing output files.
    #[arg(long)]
    pub force: bool,
    /// No progress display on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

fn parse_ending(text: &str) -> Result<Ending, String> {
    text.parse()
}

fn parse_split(text: &str) -> Result<SplitRatios, String> {
    text.parse()
}

fn parse_cutoff(text: &str) -> Result<Cutoff, String> {
    text.parse()
}

impl PositionArgs {
    pub fn config(&self) -> PositionConfig {
        PositionConfig {
            seed: self.seed,
            skip_plies: self.skip_plies,
            every: self.every,
            ending: self.ending,
            min_elo: self.min_elo,
            split: self.split,
            test_after: self.test_after,
            max_games: self.max_games,
        }
    }
}

/// Runs `cerise data positions`: shows progress on stderr (a bar on a terminal, a line every
/// 10 s otherwise) and returns the summary (the caller prints it).
pub fn run_positions_cli(args: &PositionArgs) -> Result<PositionSummary> {
    let outputs = split_paths(&args.out);
    if !args.force {
        if let Some(existing) = outputs.iter().find(|p| p.exists()) {
            bail!(
                "{} already exists; pass --force to replace it or choose another --out",
                existing.display()
            );
        }
    }
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output directory {}", dir.display()))?;
    }
    let PgnInput {
        reader: input,
        file_size: size,
        consumed,
    } = open_pgn(&args.input)?;
    let bar = progress_bar(size, args.no_progress)?;
    let log_lines = !args.no_progress && !std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut last_line = started;
    let source = args.input.display().to_string();
    let summary = write_positions(input, &source, &args.out, &args.config(), |s| {
        // Formatting every game would cost more than parsing it.
        if s.games_read % 512 != 0 {
            return;
        }
        let elapsed = started.elapsed().as_secs_f64().max(1e-9);
        let message = format!(
            "{} games ({:.0}/s), {} used, {} skipped, {} positions",
            s.games_read,
            s.games_read as f64 / elapsed,
            s.games_used,
            s.games_skipped(),
            s.positions()
        );
        if log_lines && last_line.elapsed() >= LOG_EVERY {
            last_line = Instant::now();
            let pct = 100.0 * consumed.get() as f64 / size.max(1) as f64;
            eprintln!("[positions] {elapsed:.0} s, {pct:.0}% of input: {message}");
        }
        bar.set_position(consumed.get());
        bar.set_message(message);
    });
    bar.finish_and_clear();
    summary
}
