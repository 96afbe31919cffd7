//! `cerise data label`: arguments, position choice with progress, then labelling with
//! progress (a bar on a terminal, a line every 30 s otherwise).

use super::super::cli::{open_pgn, PgnInput};
use super::run::{label_candidates, LabelJob, LabelSummary};
use super::select::{select_positions, SelectConfig};
use super::uci_client::{EngineSpec, SearchLimit};
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const LOG_EVERY: Duration = Duration::from_secs(30);

/// Label middlegame positions of PGN games with a UCI engine's evaluation (for the RBF
/// evaluator and other regression nets). Resumes an interrupted run of the same command.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct LabelArgs {
    /// Input games, `.pgn` or `.pgn.bz2`.
    pub input: PathBuf,
    /// Output labels file (text, one position per line). If it exists, labelling resumes.
    #[arg(short, long)]
    pub out: PathBuf,
    /// The UCI engine that labels.
    #[arg(long, default_value = "stockfish")]
    pub engine: PathBuf,
    /// Search depth of the label.
    #[arg(long, conflicts_with = "nodes")]
    pub depth: Option<u32>,
    /// Search nodes of the label (instead of --depth).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Extra fixed-depth evaluations stored beside the label, comma-separated (the study's
    /// search inputs; `none` for no extra).
    #[arg(long, default_value = "2,4,8", value_parser = parse_depths)]
    pub extra_depths: Depths,
    /// Positions to label.
    #[arg(long, default_value_t = 80_000)]
    pub positions: u64,
    /// Most positions taken from one game.
    #[arg(long, default_value_t = 10)]
    pub per_game: u32,
    /// Take one game in N of the source (seeded), to spread the positions over it.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub game_every: u32,
    /// Opening plies never taken.
    #[arg(long, default_value_t = 20)]
    pub skip_plies: u32,
    /// Keep only games where both players have an Elo tag of at least this (0: no filter).
    #[arg(long, default_value_t = 0)]
    pub min_elo: u32,
    /// Seed of the choice of positions within each game.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Engine processes run at once (one thread each); default: every core.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Engine hash per process, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash: u32,
    /// Longest time one search may take before the engine counts as hung, seconds.
    #[arg(long, default_value_t = 600)]
    pub search_timeout: u64,
    /// No progress display on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

/// A list of depths (`2,4,8`), possibly empty (`none`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Depths(pub Vec<u32>);

fn parse_depths(text: &str) -> Result<Depths, String> {
    if text == "none" || text.is_empty() {
        return Ok(Depths(Vec::new()));
    }
    text.split(',')
        .map(|d| match d.trim().parse::<u32>() {
            Ok(d) if d >= 1 => Ok(d),
            _ => Err(format!("`{d}` is not a depth of 1 or more")),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Depths)
}

impl LabelArgs {
    fn limit(&self) -> Result<SearchLimit> {
        match (self.depth, self.nodes) {
            (Some(0), _) => bail!("--depth must be at least 1"),
            (_, Some(0)) => bail!("--nodes must be at least 1"),
            (Some(d), None) => Ok(SearchLimit::Depth(d)),
            (None, Some(n)) => Ok(SearchLimit::Nodes(n)),
            (None, None) => bail!(
                "give the label's search limit: --depth D (e.g. 12) or --nodes N; it is \
                 recorded in the file"
            ),
            (Some(_), Some(_)) => bail!("give --depth or --nodes, not both"),
        }
    }

    fn select_config(&self) -> SelectConfig {
        SelectConfig {
            positions: self.positions,
            per_game: self.per_game,
            skip_plies: self.skip_plies,
            min_elo: self.min_elo,
            game_every: self.game_every,
            seed: self.seed,
        }
    }
}

/// Runs `cerise data label` and returns the summary (the caller prints it).
pub fn run_label_cli(args: &LabelArgs) -> Result<LabelSummary> {
    let limit = args.limit()?;
    let config = args.select_config();
    let jobs = match args.jobs {
        Some(0) => bail!("--jobs must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let show = !args.no_progress;
    let terminal = std::io::stderr().is_terminal();
    let PgnInput { reader, .. } = open_pgn(&args.input)?;
    let source = args.input.display().to_string();
    if show {
        eprintln!(
            "[label] choosing {} middlegame positions from {source}",
            config.positions
        );
    }
    let selection = select_positions(reader, &source, &config, |_| {})
        .with_context(|| format!("cannot choose positions from {source}"))?;
    if show {
        eprintln!(
            "[label] chose {} positions from {} games ({} games read, {} repeated positions \
             left out)",
            selection.candidates.len(),
            selection.games_used,
            selection.games_read,
            selection.duplicates
        );
    }
    if (selection.candidates.len() as u64) < config.positions && show {
        eprintln!(
            "[label] note: the source has only {} eligible positions",
            selection.candidates.len()
        );
    }
    let job = LabelJob {
        engine: EngineSpec {
            path: args.engine.clone(),
            hash_mb: args.hash,
            search_timeout: Duration::from_secs(args.search_timeout),
        },
        limit,
        extra_depths: args.extra_depths.0.clone(),
        jobs,
        source: args
            .input
            .file_name()
            .map_or(source.clone(), |n| n.to_string_lossy().into_owned()),
        selection: config.describe(),
    };
    let bar = if show && terminal {
        ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} positions, eta {eta} {msg}",
        )
        .context("progress template")?
        .progress_chars("=> "),
    );
    let mut last_line = Instant::now();
    let summary = label_candidates(&selection.candidates, &args.out, &job, |p| {
        bar.set_length(p.pending);
        bar.set_position(p.labelled);
        if p.labelled == 0 && show {
            let already = selection.candidates.len() as u64 - p.pending;
            if already > 0 {
                eprintln!(
                    "[label] resuming: {already} positions already labelled, {} to go",
                    p.pending
                );
            }
        }
        if show && !terminal && (last_line.elapsed() >= LOG_EVERY || p.labelled == p.pending) {
            last_line = Instant::now();
            let rate = p.labelled as f64 / p.elapsed_s.max(1e-9);
            let eta = (p.pending - p.labelled) as f64 / rate.max(1e-9);
            eprintln!(
                "[label] {:.0} s: {}/{} positions ({rate:.2}/s), eta {:.0} min",
                p.elapsed_s,
                p.labelled,
                p.pending,
                eta / 60.0
            );
        }
    });
    bar.finish_and_clear();
    summary
}
