//! `cerise data positions`: a PGN command ([`PgnArgs`]) over [`PositionConfig`].

use super::super::cli::{run_pgn_command, PgnArgs, PgnSettings};
use super::header;
use super::pipeline::{write_positions, PositionConfig, PositionSummary};
use anyhow::Result;

/// Turn PGN games into positions labelled with the game result and the move played, for
/// win/loss classifiers and move-selection (policy) nets; split train/valid/test by game.
pub type PositionArgs = PgnArgs<PositionConfig>;

impl PgnSettings for PositionConfig {
    const EXT: &'static str = header::EXT;
}

/// Runs `cerise data positions`: shows progress on stderr (a bar on a terminal, a line every
/// 10 s otherwise) and returns the summary (the caller prints it).
pub fn run_positions_cli(args: &PositionArgs) -> Result<PositionSummary> {
    run_pgn_command(args, |games, source, on_game| {
        write_positions(games, source, &args.out, &args.settings, on_game)
    })
}
