//! `cerise datagen triplets`: self-play positions to Deep Pink triplets. `p` is the position,
//! `q` follows the search's best move (the move the engine played), `r` a uniformly random
//! other legal move; the game's result is the label. The trainer's triplet objective then
//! learns from Cerise's own games as it learns from masters' (`cerise data triplets`), and
//! the triplet and value objectives can be compared on the same positions.

use super::super::records::progress::{Progress, Unit};
use super::super::records::{prepare_outputs, SplitRun};
use super::super::rng::SplitMix64;
use super::super::split::SplitRatios;
use super::super::triplets::extract::{triplet_of, Skip};
use super::super::triplets::format::EXT;
use super::super::triplets::pipeline::{TripletCounts, TripletSummary};
use super::super::{Split, TripletHeader};
use super::SelfPlayReader;
use anyhow::{bail, Context, Result};
use shakmaty::Position as _;
use std::path::PathBuf;

/// Turn self-play files into triplet files (`<PREFIX>.{train,valid,test}.trip`), split by game.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayTripletArgs {
    /// Self-play files written by `cerise datagen`.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output prefix: writes `<PREFIX>.train.trip`, `<PREFIX>.valid.trip`, `<PREFIX>.test.trip`.
    #[arg(short, long, value_name = "PREFIX")]
    pub out: PathBuf,
    /// Only quiet triplets: not in check, and neither the best move nor the random one a
    /// capture or promotion (as `cerise data triplets --quiet`).
    #[arg(long)]
    pub quiet: bool,
    /// Plies at the start of every game that give no triplets.
    #[arg(long, default_value_t = 0)]
    pub skip_plies: u32,
    /// Seed of the random moves and of the by-game split.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Train,valid,test percentages of games.
    #[arg(long, default_value = "90,5,5", value_parser = parse_split)]
    pub split: SplitRatios,
    /// Replace existing output files.
    #[arg(long)]
    pub force: bool,
    /// No progress display on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

fn parse_split(text: &str) -> Result<SplitRatios, String> {
    text.parse()
}

/// A game's stream number, unique across the inputs: its file, then its index in the file.
fn game_stream(file: usize, game: u32) -> u64 {
    (file as u64) << 32 | u64::from(game)
}

/// Runs `cerise datagen triplets`; returns the summary (the caller prints it).
pub fn run_selfplay_triplets(args: &SelfPlayTripletArgs) -> Result<TripletSummary> {
    prepare_outputs(
        &super::super::triplets::pipeline::split_paths(&args.out),
        &args.out,
        args.force,
    )?;
    let mut readers = Vec::with_capacity(args.inputs.len());
    for path in &args.inputs {
        readers.push(SelfPlayReader::open(path)?);
    }
    let total: u64 = readers.iter().map(|r| r.len()).sum();
    let source = readers
        .iter()
        .map(|r| {
            let h = r.header();
            format!(
                "self-play {} ({} positions, net {}, {} nodes)",
                r.path().display(),
                h.count,
                h.net,
                h.nodes
            )
        })
        .collect::<Vec<_>>()
        .join(" + ");
    let mut run = SplitRun::<_, TripletCounts>::create(&args.out, EXT, |split| TripletHeader {
        skip_plies: args.skip_plies,
        quiet: args.quiet,
        split: Some(split),
        split_weights: args.split.per_mille,
        ..TripletHeader::new(&source, args.seed)
    })?;
    let mut progress = Progress::new("triplets", total, Unit::Items, args.no_progress)?;
    let mut done = 0u64;
    let mut batch = Vec::new();
    for (file, reader) in readers.iter_mut().enumerate() {
        // The game being read, its split and the triplets it gave so far.
        let mut current: Option<(u32, Split, u64)> = None;
        let finish_game = |run: &mut SplitRun<TripletHeader, TripletCounts>,
                           game: Option<(u32, Split, u64)>| {
            if let Some((_, split, made)) = game {
                if made > 0 {
                    run.summary.used(split, made);
                } else {
                    run.summary
                        .skip(super::super::SkipReason::NoEligiblePositions);
                }
            }
        };
        while reader.read_batch(1 << 14, &mut batch)? > 0 {
            for record in &batch {
                if current.is_none_or(|(game, _, _)| game != record.game) {
                    finish_game(&mut run, current.take());
                    run.summary.games_read += 1;
                    let split = args.split.assign(args.seed, game_stream(file, record.game));
                    current = Some((record.game, split, 0));
                }
                let (_, split, made) = current.as_mut().expect("a game is open");
                done += 1;
                if u32::from(record.ply) < args.skip_plies {
                    continue;
                }
                let (pos, best) = record
                    .position_and_move()
                    .with_context(|| format!("{} is damaged", reader.path().display()))?;
                let result = (2.0 * record.result.score_for(pos.turn()) - 1.0) as i8;
                // One stream per position: the triplets do not depend on batch sizes.
                let mut rng = SplitMix64::for_stream(
                    args.seed,
                    game_stream(file, record.game) << 16 | u64::from(record.ply),
                );
                match triplet_of(&pos, best, args.quiet, &mut rng, result) {
                    Ok(t) => {
                        run.writer(*split).write(&t)?;
                        *made += 1;
                    }
                    Err(Skip::Forced) => run.summary.extra.forced_positions += 1,
                    Err(Skip::Noisy) => run.summary.extra.noisy_positions += 1,
                    Err(Skip::Illegal) => bail!(
                        "{}: game {} ply {}: the best move is not legal",
                        reader.path().display(),
                        record.game,
                        record.ply
                    ),
                }
            }
            progress.update(
                done,
                format!(
                    "{done}/{total} positions, {} triplets",
                    run.summary.records()
                ),
            );
        }
        finish_game(&mut run, current.take());
    }
    progress.finish();
    run.finish()
}
