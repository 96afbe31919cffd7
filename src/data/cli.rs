//! `cerise data triplets`: arguments, input opening (`.pgn` / `.pgn.bz2`), progress on stderr.

use super::filter::ResultFilter;
use super::pgn::GameFilter;
use super::pipeline::{
    split_paths, write_triplets, TripletConfig, TripletSummary, DEFAULT_SKIP_PLIES,
};
use super::split::SplitRatios;
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

/// Extract Deep Pink training triplets (p, played child q, random other child r) from PGN.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct TripletArgs {
    /// Input games, `.pgn` or `.pgn.bz2`.
    pub input: PathBuf,
    /// Output prefix: writes `<PREFIX>.train.trip`, `<PREFIX>.valid.trip`, `<PREFIX>.test.trip`.
    #[arg(short, long, value_name = "PREFIX")]
    pub out: PathBuf,
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
    /// Keep only games where both players have an Elo tag of at least this.
    #[arg(long)]
    pub min_elo: Option<u32>,
    /// Results to keep: `all`, `decisive`, or a list like `1-0,0-1` (`*` games are skipped).
    #[arg(long, default_value = "all", value_parser = parse_results)]
    pub results: ResultFilter,
    /// Train,valid,test percentages of games.
    #[arg(long, default_value = "90,5,5", value_parser = parse_split)]
    pub split: SplitRatios,
    /// Stop after reading this many games (kept or skipped), for quick runs.
    #[arg(long)]
    pub max_games: Option<u64>,
    /// Replace existing output files.
    #[arg(long)]
    pub force: bool,
    /// No progress bar (it is also hidden when stderr is not a terminal).
    #[arg(long)]
    pub no_progress: bool,
}

fn parse_results(text: &str) -> Result<ResultFilter, String> {
    text.parse()
}

fn parse_split(text: &str) -> Result<SplitRatios, String> {
    text.parse()
}

impl TripletArgs {
    pub fn config(&self) -> TripletConfig {
        TripletConfig {
            seed: self.seed,
            skip_plies: self.skip_plies,
            quiet: self.quiet,
            filter: GameFilter {
                min_elo: self.min_elo,
                results: self.results,
            },
            split: self.split,
            max_games: self.max_games,
        }
    }
}

/// Counts bytes pulled from the file, so progress can be shown against the (compressed) size.
struct CountingReader<R> {
    inner: R,
    read: Rc<Cell<u64>>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

/// An opened PGN stream and what progress display needs to know about it.
pub struct PgnInput {
    /// Uncompressed PGN text.
    pub reader: Box<dyn Read>,
    /// Size of the file on disk (compressed size for `.bz2`).
    pub file_size: u64,
    /// File bytes consumed so far.
    pub consumed: Rc<Cell<u64>>,
}

/// Opens `path` for streaming, decompressing `.bz2` (multi-stream, as pbzip2 writes).
pub fn open_pgn(path: &Path) -> Result<PgnInput> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let read = Rc::new(Cell::new(0));
    let counted = CountingReader {
        inner: BufReader::with_capacity(1 << 16, file),
        read: Rc::clone(&read),
    };
    let is_bz2 = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("bz2"));
    let reader: Box<dyn Read> = if is_bz2 {
        Box::new(bzip2::read::MultiBzDecoder::new(counted))
    } else {
        Box::new(counted)
    };
    Ok(PgnInput {
        reader,
        file_size: size,
        consumed: read,
    })
}

/// A progress bar on stderr over `size` input bytes (hidden with `hidden`, or when stderr is
/// not a terminal).
pub fn progress_bar(size: u64, hidden: bool) -> Result<ProgressBar> {
    let bar = if hidden {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(size), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {binary_bytes}/{binary_total_bytes} eta {eta} {msg}",
        )
        .context("progress template")?
        .progress_chars("=> "),
    );
    Ok(bar)
}

/// Runs `cerise data triplets`: prints progress on stderr and returns the summary (the caller
/// prints it).
pub fn run_triplets_cli(args: &TripletArgs) -> Result<TripletSummary> {
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
    let started = Instant::now();
    let source = args.input.display().to_string();
    let summary = write_triplets(input, &source, &args.out, &args.config(), |s| {
        // Formatting every game would cost more than parsing it.
        if s.games_read % 512 == 0 {
            let rate = s.games_read as f64 / started.elapsed().as_secs_f64().max(1e-9);
            bar.set_position(consumed.get());
            bar.set_message(format!(
                "{} games ({rate:.0}/s), {} skipped, {} triplets",
                s.games_read,
                s.games_skipped(),
                s.triplets()
            ));
        }
    });
    bar.finish_and_clear();
    summary
}
