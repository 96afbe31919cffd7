//! `cerise data positions`: arguments, output checks, progress on stderr.

use super::super::cli::run_pgn_command;
use super::super::date::Cutoff;
use super::super::split::SplitRatios;
use super::ending::Ending;
use super::pipeline::{split_paths, write_positions, PositionConfig, PositionSummary};
use anyhow::Result;
use std::path::PathBuf;

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
    let config = args.config();
    run_pgn_command(
        &args.input,
        &split_paths(&args.out),
        &args.out,
        args.force,
        args.no_progress,
        "positions",
        |input, source, on_game| write_positions(input, source, &args.out, &config, on_game),
    )
}
