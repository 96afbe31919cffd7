//! `cerise evalnet`: how good a net is on held-out games, in the terms of the papers it is
//! compared with (ordering accuracy, move matching, ConvChess's piece and move selectors,
//! win prediction).
//!
//! The games are selected by rereading the PGN and asking the data module's own
//! [`SplitRatios::assign`] which split each game index belongs to, counting every game read
//! exactly as `crate::data::write_triplets` does, so with the same seed and ratios these are
//! the games whose triplets went to the test file.

pub mod report;

pub use report::{EvalnetReport, Rate};

use super::loss::LossStats;
use super::model::TrainNet;
use crate::chess::CompactBoard;
use crate::data::cli::open_pgn;
use crate::data::pgn::{GameFilter, GameVisitor, ParsedGame};
use crate::data::triplets::pipeline::DEFAULT_SKIP_PLIES;
use crate::data::{GameResult, Split, SplitRatios, TripletReader};
use crate::net::DeviceChoice;
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pgn_reader::Reader;
use shakmaty::{Chess, Color, Position as _};
use std::io;
use std::path::{Path, PathBuf};

/// Net quality report on the held-out games of a by-game split.
#[derive(clap::Args, Clone, Debug)]
pub struct EvalnetArgs {
    /// The net (.safetensors).
    #[arg(long)]
    pub net: PathBuf,
    /// The PGN the triplets were made from (`.pgn` or `.pgn.bz2`).
    #[arg(long)]
    pub games: PathBuf,
    /// The seed given to `cerise data triplets`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Which split's games to evaluate: train, valid or test.
    #[arg(long, default_value = "test", value_parser = parse_split_name)]
    pub split: Split,
    /// Train,valid,test percentages given to `cerise data triplets`.
    #[arg(long, default_value = "90,5,5")]
    pub split_ratios: SplitRatios,
    /// Opening plies not evaluated (as in `cerise data triplets`).
    #[arg(long, default_value_t = DEFAULT_SKIP_PLIES)]
    pub skip_plies: u32,
    /// The split's triplet file, for the ordering accuracy.
    #[arg(long)]
    pub triplets: Option<PathBuf>,
    /// Stop after this many games of the split.
    #[arg(long)]
    pub max_games: Option<u64>,
    /// Print only the Markdown table (for a net card).
    #[arg(long)]
    pub markdown: bool,
    /// auto, cpu or cuda.
    #[arg(long, default_value = "auto")]
    pub device: DeviceChoice,
    #[arg(long)]
    pub no_progress: bool,
}

fn parse_split_name(text: &str) -> Result<Split, String> {
    Split::ALL
        .into_iter()
        .find(|s| s.name().eq_ignore_ascii_case(text.trim()))
        .ok_or_else(|| format!("unknown split `{text}`; use train, valid or test"))
}

fn winner(result: GameResult) -> Option<Color> {
    match result {
        GameResult::WhiteWins => Some(Color::White),
        GameResult::BlackWins => Some(Color::Black),
        GameResult::Draw => None,
    }
}

fn child(pos: &Chess, m: shakmaty::Move) -> Chess {
    let mut c = pos.clone();
    c.play_unchecked(m);
    c
}

/// Adds one game's move-matching and win-prediction results to `report`.
pub fn evaluate_game(
    net: &TrainNet,
    game: &ParsedGame,
    skip_plies: u32,
    report: &mut EvalnetReport,
) {
    let mut final_pos = game.start.clone();
    for &m in &game.moves {
        final_pos.play_unchecked(m);
    }
    let mate = final_pos.is_checkmate();
    let win = winner(game.result);
    report.mate_games += u64::from(mate && win.is_some());

    // Every board of the game in one forward pass: the positions, then all their children.
    let mut positions = Vec::new();
    let mut boards = Vec::new();
    let mut pos = game.start.clone();
    for (ply, &played) in game.moves.iter().enumerate() {
        if ply as u64 >= u64::from(skip_plies) {
            let legal = pos.legal_moves();
            let first_child = boards.len();
            boards.extend(
                legal
                    .iter()
                    .map(|&m| CompactBoard::from_chess(&child(&pos, m))),
            );
            positions.push((pos.clone(), legal, played, first_child));
        }
        pos.play_unchecked(played);
    }
    let p_at = boards.len();
    boards.extend(positions.iter().map(|(p, ..)| CompactBoard::from_chess(p)));
    let f = net.score(&boards);

    for (k, (pos, legal, played, first)) in positions.iter().enumerate() {
        if let Some(w) = win {
            // f(p) scores p for the player who just moved, the opponent of p's mover.
            let predicted = if f[p_at + k] > 0.0 {
                !pos.turn()
            } else {
                pos.turn()
            };
            report.win_all.add(predicted == w);
            if mate {
                report.win_mate.add(predicted == w);
            }
        }
        if legal.len() < 2 {
            continue;
        }
        // f(child) scores the child for p's mover: higher is better for the side choosing.
        let scores = &f[*first..*first + legal.len()];
        let played_i = legal.iter().position(|m| m == played).unwrap_or(0);
        let argmax = |idx: &mut dyn Iterator<Item = usize>| {
            idx.max_by(|&a, &b| scores[a].total_cmp(&scores[b]))
                .unwrap_or(played_i)
        };
        let best = argmax(&mut (0..legal.len()));
        let better = scores.iter().filter(|&&s| s > scores[played_i]).count();
        report.top1.add(best == played_i);
        report.top3.add(better < 3);
        report
            .piece_selector
            .add(legal[best].from() == played.from());
        let from = played.from();
        // A piece with a single legal move is "chosen right" by any net; counting it would
        // inflate the comparison with ConvChess's move selectors.
        if legal.iter().filter(|m| m.from() == from).count() > 1 {
            let best_of_piece = argmax(&mut (0..legal.len()).filter(|&i| legal[i].from() == from));
            let role = played.role() as usize - 1;
            report.move_selector[role].add(best_of_piece == played_i);
        }
    }
    report.games += 1;
}

/// Ordering accuracy of the net on (up to `max`) triplets of a file.
pub fn ordering_accuracy(net: &TrainNet, path: &Path, max: Option<u64>) -> Result<Rate> {
    let mut reader = TripletReader::open(path)?;
    let mut stats = LossStats::default();
    let mut batch = Vec::new();
    let limit = max.unwrap_or(u64::MAX);
    while stats.n < limit && reader.read_batch(4096, &mut batch)? > 0 {
        let all: Vec<CompactBoard> = batch.iter().flat_map(|t| [t.p, t.q, t.r]).collect();
        let f = net.score(&all);
        let pick = |o: usize| -> tch::Tensor {
            let v: Vec<f32> = f.iter().skip(o).step_by(3).copied().collect();
            tch::Tensor::from_slice(&v)
        };
        stats.add(&pick(0), &pick(1), &pick(2), 1.0);
    }
    Ok(Rate {
        hits: stats.ordered,
        n: stats.n,
    })
}

/// Evaluates the games of `args.split`, reporting progress on `bar`.
pub fn evalnet(args: &EvalnetArgs, bar: &ProgressBar) -> Result<EvalnetReport> {
    let file = crate::net::load(&args.net)?;
    if file.meta.arch.mlp().is_none() {
        bail!(
            "{} is a {} net; evalnet measures the triplet MLPs, and `cerise evalpos --net {} \
             --positions <file.pos>` measures any net's win/loss accuracy",
            args.net.display(),
            file.meta.arch.family_name(),
            args.net.display()
        );
    }
    let net = TrainNet::from_file(&file, args.device.resolve()?)?;
    let mut report = EvalnetReport {
        net: args.net.display().to_string(),
        net_id: file.content_id.clone(),
        games_file: args.games.display().to_string(),
        split: args.split.name().to_string(),
        seed: args.seed,
        skip_plies: args.skip_plies,
        ..EvalnetReport::default()
    };
    if let Some(path) = &args.triplets {
        let reader = TripletReader::open(path)?;
        let h = reader.header();
        if h.split != Some(args.split)
            || h.seed != args.seed
            || h.split_weights != args.split_ratios.per_mille
        {
            bail!(
                "{} is split {:?} with seed {} and weights {:?}, but evalnet was asked for split \
                 {} with seed {} and weights {:?}; pass the matching --split, --seed and \
                 --split-ratios",
                path.display(),
                h.split.map(Split::name),
                h.seed,
                h.split_weights,
                args.split.name(),
                args.seed,
                args.split_ratios.per_mille
            );
        }
        bar.set_message("ordering accuracy on the triplets");
        report.ordering = Some(ordering_accuracy(&net, path, None)?);
    }
    let input = open_pgn(&args.games)?;
    let mut reader = Reader::new(input.reader);
    let mut visitor = GameVisitor::new(GameFilter::default());
    let mut index = 0u64;
    let max = args.max_games.unwrap_or(u64::MAX);
    while report.games < max {
        // Count every game read, unreadable ones included, as the data pipeline does.
        let outcome = match reader.read_game(&mut visitor) {
            Ok(None) => break,
            Ok(Some(outcome)) => outcome,
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                Err(crate::data::SkipReason::PgnSyntax)
            }
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read {}", args.games.display()))
            }
        };
        let game_index = index;
        index += 1;
        if args.split_ratios.assign(args.seed, game_index) != args.split {
            continue;
        }
        if let Ok(game) = outcome {
            evaluate_game(&net, &game, args.skip_plies, &mut report);
            if args.max_games.is_some() {
                bar.set_position(report.games);
            } else {
                bar.set_position(input.consumed.get());
            }
            if report.games.is_multiple_of(16) {
                bar.set_message(format!(
                    "{} games, top-1 {:.1}%",
                    report.games,
                    100.0 * report.top1.value().unwrap_or(0.0)
                ));
            }
        }
    }
    if report.games == 0 {
        bail!(
            "no {} games found in {}; check --games, --seed and --split-ratios",
            args.split.name(),
            args.games.display()
        );
    }
    Ok(report)
}

/// Runs `cerise evalnet` with a progress bar on stderr; returns the text to print.
pub fn run_evalnet_cli(args: &EvalnetArgs) -> Result<String> {
    let bar = if args.no_progress {
        ProgressBar::hidden()
    } else {
        let len = match args.max_games {
            Some(n) => n,
            None => std::fs::metadata(&args.games).map(|m| m.len()).unwrap_or(0),
        };
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} eta {eta} {msg}")
            .context("progress template")?
            .progress_chars("=> "),
    );
    let report = evalnet(args, &bar);
    bar.finish_and_clear();
    let report = report?;
    Ok(if args.markdown {
        report.to_markdown()
    } else {
        report.to_string()
    })
}
