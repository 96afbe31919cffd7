//! `cerise data triplets`: arguments; and what every PGN-reading command shares: opening the
//! input (`.pgn` / `.pgn.bz2`), checking the outputs, progress on stderr.

use super::filter::ResultFilter;
use super::pgn::GameFilter;
use super::pipeline::{
    split_paths, write_triplets, TripletConfig, TripletSummary, DEFAULT_SKIP_PLIES,
};
use super::records::progress::{Progress, Unit};
use super::records::{prepare_outputs, SplitSummary, SummaryExtra};
use super::split::SplitRatios;
use anyhow::{Context, Result};
use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

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

/// Runs a command that reads PGN games into split record files: refuses to replace any of
/// `outputs` without `force`, makes the output folder, opens `input`, shows progress on
/// stderr (`[tag]` lines when stderr is a log) and returns the pipeline's summary (the caller
/// prints it). `pipeline` gets the games, the source name for the headers, and the callback
/// to call after every game.
pub fn run_pgn_command<X: SummaryExtra>(
    input: &Path,
    outputs: &[PathBuf],
    out_prefix: &Path,
    force: bool,
    no_progress: bool,
    tag: &'static str,
    pipeline: impl FnOnce(
        Box<dyn Read>,
        &str,
        &mut dyn FnMut(&SplitSummary<X>),
    ) -> Result<SplitSummary<X>>,
) -> Result<SplitSummary<X>> {
    prepare_outputs(outputs, out_prefix, force)?;
    let PgnInput {
        reader,
        file_size,
        consumed,
    } = open_pgn(input)?;
    let mut progress = Progress::new(tag, file_size, Unit::Bytes, no_progress)?;
    let source = input.display().to_string();
    let summary = pipeline(reader, &source, &mut |s| {
        // Formatting every game would cost more than parsing it.
        if s.games_read % 512 != 0 {
            return;
        }
        let message = format!(
            "{} games ({:.0}/s), {} used, {} skipped, {} {}",
            s.games_read,
            s.games_read as f64 / progress.elapsed_s(),
            s.games_used,
            s.games_skipped(),
            s.records(),
            X::NOUN
        );
        progress.update(consumed.get(), message);
    });
    progress.finish();
    summary
}

/// Runs `cerise data triplets`: prints progress on stderr and returns the summary (the caller
/// prints it).
pub fn run_triplets_cli(args: &TripletArgs) -> Result<TripletSummary> {
    let config = args.config();
    run_pgn_command(
        &args.input,
        &split_paths(&args.out),
        &args.out,
        args.force,
        args.no_progress,
        "triplets",
        |input, source, on_game| write_triplets(input, source, &args.out, &config, on_game),
    )
}
