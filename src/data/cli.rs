//! What every command that reads PGN games into split record files shares: its arguments
//! around the kind's own settings ([`PgnArgs`]), opening the input (`.pgn` / `.pgn.bz2`),
//! checking the outputs, progress on stderr. `cerise data triplets` ([`super::triplets`]) and
//! `cerise data positions` ([`super::positions`]) are such commands.

use super::records::progress::{Progress, Unit};
use super::records::{prepare_outputs, split_paths, SplitSummary, SummaryExtra};
use anyhow::{Context, Result};
use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The settings of one kind of PGN command, flattened into its [`PgnArgs`].
pub trait PgnSettings: clap::Args {
    /// The extension of the split files the command writes: `trip`, `pos`.
    const EXT: &'static str;
}

/// The help of `--out`, which names the files of the kind that writes `ext`.
fn out_help(ext: &str) -> String {
    format!(
        "Output prefix: writes `<PREFIX>.train.{ext}`, `<PREFIX>.valid.{ext}`, \
         `<PREFIX>.test.{ext}`"
    )
}

/// The arguments of a command that reads PGN games into split record files: the games, the
/// output prefix, the kind's own settings `S`, and how to run. Written once, so that every
/// such command takes its input and outputs alike.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct PgnArgs<S: PgnSettings> {
    /// Input games, `.pgn` or `.pgn.bz2`.
    pub input: PathBuf,
    #[arg(short, long, value_name = "PREFIX", help = out_help(S::EXT))]
    pub out: PathBuf,
    #[command(flatten)]
    pub settings: S,
    /// Replace existing output files.
    #[arg(long)]
    pub force: bool,
    /// No progress display on stderr
    #[arg(long)]
    pub no_progress: bool,
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

/// The positions of the readable games of the PGN file at `path` (`.pgn` or `.pgn.bz2`), in
/// game order, each game from its start to its last move, until `limit` positions: what
/// `cerise net compare` runs its two backends on.
pub fn game_positions(path: &Path, limit: u64) -> Result<Vec<crate::chess::Position>> {
    let input = open_pgn(path)?;
    let mut positions = Vec::new();
    let source = path.display().to_string();
    super::games::for_each_game(
        input.reader,
        &source,
        super::pgn::GameFilter::default(),
        None,
        |_, outcome| {
            let Ok(game) = outcome else {
                return Ok(std::ops::ControlFlow::Continue(()));
            };
            let mut pos = crate::chess::Position::from_inner(game.start);
            positions.push(pos.clone());
            for m in &game.moves {
                pos = pos.play(m);
                positions.push(pos.clone());
            }
            let full = positions.len() as u64 >= limit;
            Ok(if full {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            })
        },
    )?;
    positions.truncate(limit as usize);
    Ok(positions)
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
/// its outputs without `--force`, makes the output folder, opens the input, shows progress on
/// stderr (`[noun]` lines when stderr is a log) and returns the pipeline's summary (the caller
/// prints it). `pipeline` gets the games, the source name for the headers, and the callback
/// to call after every game.
pub fn run_pgn_command<S: PgnSettings, X: SummaryExtra>(
    args: &PgnArgs<S>,
    pipeline: impl FnOnce(
        Box<dyn Read>,
        &str,
        &mut dyn FnMut(&SplitSummary<X>),
    ) -> Result<SplitSummary<X>>,
) -> Result<SplitSummary<X>> {
    prepare_outputs(&split_paths(&args.out, S::EXT), &args.out, args.force)?;
    let PgnInput {
        reader,
        file_size,
        consumed,
    } = open_pgn(&args.input)?;
    let mut progress = Progress::new(X::NOUN, file_size, Unit::Bytes, args.no_progress)?;
    let source = args.input.display().to_string();
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
