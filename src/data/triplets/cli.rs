//! `cerise data triplets`: the PGN command ([`crate::data::cli`]) with the triplet
//! pipeline's settings.

use super::format;
use super::pipeline::{write_triplets, TripletConfig, TripletSummary};
use crate::data::cli::{run_pgn_command, PgnArgs, PgnSettings};
use anyhow::Result;

/// Extract Deep Pink training triplets (p, played child q, random other child r) from PGN.
pub type TripletArgs = PgnArgs<TripletConfig>;

impl PgnSettings for TripletConfig {
    const EXT: &'static str = format::EXT;
}

/// Runs `cerise data triplets`: prints progress on stderr and returns the summary (the caller
/// prints it).
pub fn run_triplets_cli(args: &TripletArgs) -> Result<TripletSummary> {
    run_pgn_command(args, |games, source, on_game| {
        write_triplets(games, source, &args.out, &args.settings, on_game)
    })
}
