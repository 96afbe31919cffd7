//! `cerise datagen`: games on every core, appended to one self-play file in game order.
//!
//! Workers take game indices from a shared counter and play them; the writer (the calling
//! thread) holds games that finish early until every game before them is written, then
//! commits each whole game. A kill at any moment leaves only whole games in the file, and
//! the next run with the same command resumes after the last one: nothing lost, nothing
//! played twice, and the bytes the same as one run that was never stopped.

use super::adjudicate::Bounds;
use super::game::{play_game, GameConfig, GameEnd, PlayedGame, Player};
use super::opening::Book;
use crate::data::selfplay::{Outcome, SelfPlayAppender, SelfPlayHeader};
use crate::eval::{Backend, EvalSpec, NetEvaluatorConfig};
use crate::net::device::DeviceChoice;
use anyhow::{Context, Result};
use crossbeam::channel;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Status lines come this often.
const REPORT_EVERY: Duration = Duration::from_secs(10);

/// Play Cerise against itself and record every searched position (resumes after a kill).
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct DatagenArgs {
    /// The self-play file; an existing one is resumed (with the same settings) and added to.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Nodes searched for every move (every child the search scores counts).
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u32).range(1..))]
    pub nodes: u32,
    /// Also stop every search at this depth (0: none); the search ends at whichever of the
    /// two budgets comes first, so give a large --nodes (say 10000000) to let depth decide.
    #[arg(long, default_value_t = 0)]
    pub depth: u32,
    /// Games played at once, one a thread (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Stop when games 0..N of the file are done (0: play until stopped).
    #[arg(long, default_value_t = 0)]
    pub games: u32,
    /// Seed of every game's start; game g plays from the stream (seed, g).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random legal plies that start every game.
    #[arg(long, default_value_t = 8)]
    pub random_plies: u32,
    /// Start each game from a position of this EPD/FEN file (chosen by the game's seed),
    /// then the random plies.
    #[arg(long)]
    pub book: Option<PathBuf>,
    /// Percent of the games that start from a Chess960 position (one of the 960, the same
    /// for both sides), before the random plies; the book is not used for them.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub chess960: u32,
    /// Percent of the games that start from a double Chess960 position (each side its own
    /// back rank); with --chess960 at most 100 in all.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub double_chess960: u32,
    /// Skip a start whose search score is beyond this many centipawns.
    #[arg(long, default_value_t = 300)]
    pub opening_bound: u32,
    /// Adjudicate a win when the score stays at or beyond this (centipawns)...
    #[arg(long, default_value_t = 1000)]
    pub win_bound: u32,
    /// ...for the same side for this many plies (0: never adjudicate a win).
    #[arg(long, default_value_t = 8)]
    pub win_plies: u32,
    /// Adjudicate a draw when the score stays within this (centipawns)...
    #[arg(long, default_value_t = 10)]
    pub draw_bound: u32,
    /// ...for this many plies (0: never adjudicate a draw)...
    #[arg(long, default_value_t = 16)]
    pub draw_plies: u32,
    /// ...once the game has reached this ply.
    #[arg(long, default_value_t = 80)]
    pub draw_after: u32,
    /// A game still going at this ply is drawn.
    #[arg(long, default_value_t = 600)]
    pub max_plies: u32,
    /// Hash table of each game, in MiB.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub hash: u32,
    /// The evaluator: `<embedded>` (the default net), `<material>`, or a .safetensors MLP
    /// (run by the native backend).
    #[arg(long, default_value = "<embedded>")]
    pub eval: String,
    /// No status lines on stderr.
    #[arg(long)]
    pub quiet: bool,
}

impl DatagenArgs {
    fn game_config(&self) -> GameConfig {
        GameConfig {
            seed: self.seed,
            nodes: u64::from(self.nodes),
            depth: (self.depth > 0).then_some(self.depth),
            random_plies: self.random_plies,
            variants: super::opening::Variants {
                chess960: self.chess960,
                double: self.double_chess960,
            },
            opening_bound: self.opening_bound,
            bounds: Bounds {
                win_bound: self.win_bound,
                win_plies: self.win_plies,
                draw_bound: self.draw_bound,
                draw_plies: self.draw_plies,
                draw_after: self.draw_after,
            },
            max_plies: self.max_plies,
        }
    }

    fn header(&self, net: &str) -> SelfPlayHeader {
        SelfPlayHeader {
            version: crate::data::records::formats::SELFPLAY.version,
            count: 0,
            seed: self.seed,
            nodes: self.nodes,
            random_plies: self.random_plies,
            opening_bound: self.opening_bound,
            win_bound: self.win_bound,
            win_plies: self.win_plies,
            draw_bound: self.draw_bound,
            draw_plies: self.draw_plies,
            draw_after: self.draw_after,
            hash_mib: self.hash,
            max_plies: self.max_plies,
            net: net.to_string(),
            search: crate::bench::SIGNATURE_NODES.to_string(),
            book: self
                .book
                .as_ref()
                .map_or(String::new(), |b| b.display().to_string()),
            engine: format!("cerise {}", env!("CARGO_PKG_VERSION")),
            chess960_percent: self.chess960,
            double_chess960_percent: self.double_chess960,
            depth: self.depth,
        }
    }
}

/// What a run did, and what the file holds now.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DatagenSummary {
    pub out: PathBuf,
    /// Games finished by this run (skipped starts included).
    pub games: u64,
    pub skipped: u64,
    pub positions: u64,
    pub nodes: u64,
    pub elapsed_s: f64,
    pub threads: usize,
    /// How this run's games ended.
    pub ends: BTreeMap<GameEnd, u64>,
    /// This run's played games by result: 1-0, draw, 0-1.
    pub results: [u64; 3],
    /// Positions in the file, and the next game to play.
    pub file_positions: u64,
    pub next_game: u32,
    /// Whether the file was resumed, and how many bytes of an unfinished commit were cut.
    pub resumed_from: Option<(u64, u64)>,
}

impl DatagenSummary {
    fn add(&mut self, game: &PlayedGame) {
        self.games += 1;
        self.positions += game.records.len() as u64;
        self.nodes += game.nodes;
        *self.ends.entry(game.end).or_default() += 1;
        if game.end == GameEnd::SkippedStart {
            self.skipped += 1;
        } else {
            self.results[match game.result {
                Outcome::WhiteWins => 0,
                Outcome::Draw => 1,
                Outcome::BlackWins => 2,
            }] += 1;
        }
    }

    fn status(&self) -> String {
        let played = self.games - self.skipped;
        let pct = |n: u64| 100.0 * n as f64 / played.max(1) as f64;
        format!(
            "{:.0} s: {} games ({} skipped starts), {} positions, {:.0} positions/s, {:.0} \
             nodes/s; 1-0 {:.0}%, draw {:.0}%, 0-1 {:.0}%; file {} positions",
            self.elapsed_s,
            self.games,
            self.skipped,
            self.positions,
            self.positions as f64 / self.elapsed_s.max(1e-9),
            self.nodes as f64 / self.elapsed_s.max(1e-9),
            pct(self.results[0]),
            pct(self.results[1]),
            pct(self.results[2]),
            self.file_positions
        )
    }
}

impl fmt::Display for DatagenSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((positions, dropped)) = self.resumed_from {
            writeln!(
                f,
                "resumed        {} with {positions} positions{}",
                self.out.display(),
                if dropped > 0 {
                    format!(" ({dropped} bytes of an unfinished commit cut off)")
                } else {
                    String::new()
                }
            )?;
        }
        let played = self.games - self.skipped;
        writeln!(
            f,
            "games          {played} played, {} starts skipped, with {} thread{} in {:.1} s",
            self.skipped,
            self.threads,
            if self.threads == 1 { "" } else { "s" },
            self.elapsed_s
        )?;
        writeln!(
            f,
            "positions      {} ({:.0}/s), {} nodes ({:.0}/s)",
            self.positions,
            self.positions as f64 / self.elapsed_s.max(1e-9),
            self.nodes,
            self.nodes as f64 / self.elapsed_s.max(1e-9)
        )?;
        let [w, d, b] = self.results;
        writeln!(f, "results        1-0 {w}, draw {d}, 0-1 {b}")?;
        let ends: Vec<String> = self
            .ends
            .iter()
            .map(|(end, n)| format!("{} {n}", end.name()))
            .collect();
        writeln!(f, "endings        {}", ends.join(", "))?;
        write!(
            f,
            "file           {}: {} positions; the next game is {}",
            self.out.display(),
            self.file_positions,
            self.next_game
        )
    }
}

/// The evaluator's name as the file header records it: without the backend's details
/// (`(narrow-as, native avx2)`), since a file resumes on a machine with other instructions
/// and every kernel scores alike; and for a net file whose name does not end in its content
/// id, with the id added, so that the header names the weights, whatever the file is called.
pub fn header_net_name(spec: &EvalSpec, name: &str) -> Result<String> {
    let name = name.split(" (").next().unwrap_or(name);
    let EvalSpec::File(path) = spec else {
        return Ok(name.to_string());
    };
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let id = crate::net::content_id(&bytes);
    Ok(if name.ends_with(&format!("-{id}")) {
        name.to_string()
    } else {
        format!("{name} [content {id}]")
    })
}

/// `cerise datagen --out F`: Ctrl-C or SIGTERM stops it after the games in order so far are
/// committed (a harder kill loses nothing either: the same command resumes).
pub fn run_datagen_cli(args: &DatagenArgs) -> Result<DatagenSummary> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    if let Err(e) = ctrlc::set_handler(move || {
        eprintln!("[datagen] stopping: committing the games in order so far");
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
    }) {
        eprintln!("[datagen] cannot catch Ctrl-C ({e}); a kill still loses no whole game");
    }
    run_datagen(args, stop)
}

/// Runs `cerise datagen`. `stop` ends it early (as a signal would), after the games in
/// order so far are committed.
pub fn run_datagen(args: &DatagenArgs, stop: Arc<AtomicBool>) -> Result<DatagenSummary> {
    anyhow::ensure!(
        args.chess960 + args.double_chess960 <= 100,
        "--chess960 {} and --double-chess960 {} ask for {}% of the games; together they can be \
         at most 100",
        args.chess960,
        args.double_chess960,
        args.chess960 + args.double_chess960
    );
    let config = NetEvaluatorConfig {
        backend: Backend::Native,
        ..NetEvaluatorConfig::default()
    };
    let spec: EvalSpec = args
        .eval
        .parse()
        .map_err(|e: String| anyhow::anyhow!("--eval: {e}"))?;
    let eval = crate::eval::open(&spec, DeviceChoice::Cpu, config)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("datagen plays with the native backend (or a built-in evaluator)")?;
    let book = match &args.book {
        Some(path) => Some(Arc::new(Book::load(path)?)),
        None => None,
    };
    let header = args.header(&header_net_name(&spec, &eval.info().name)?);
    let (mut file, resumed) = SelfPlayAppender::open(&args.out, header)?;
    let mut next_game = match file.last()? {
        Some(last) => last.game + 1,
        None => 0,
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let mut summary = DatagenSummary {
        out: args.out.clone(),
        threads,
        file_positions: file.count(),
        next_game,
        resumed_from: resumed.map(|r| (r.committed, r.dropped_bytes)),
        ..DatagenSummary::default()
    };
    let limit = if args.games == 0 {
        u32::MAX
    } else {
        args.games
    };
    if next_game >= limit {
        return Ok(summary);
    }
    let config = Arc::new(args.game_config());
    let counter = Arc::new(AtomicU64::new(u64::from(next_game)));
    let (tx, rx) = channel::unbounded::<Result<PlayedGame>>();
    let mut workers = Vec::with_capacity(threads);
    for t in 0..threads {
        let (eval, config, counter, stop, tx, book) = (
            eval.clone(),
            config.clone(),
            counter.clone(),
            stop.clone(),
            tx.clone(),
            book.clone(),
        );
        let hash = args.hash as usize;
        let spawned = std::thread::Builder::new()
            .name(format!("cerise-datagen-{t}"))
            .spawn(move || {
                let player = Player::new(eval, hash);
                while !stop.load(Ordering::Relaxed) {
                    let index = counter.fetch_add(1, Ordering::Relaxed);
                    if index >= u64::from(limit) {
                        break;
                    }
                    let game = play_game(index as u32, &config, book.as_deref(), &player);
                    if tx.send(game).is_err() {
                        break;
                    }
                }
            });
        workers.push(spawned.context("cannot start a datagen thread")?);
    }
    drop(tx);
    let started = Instant::now();
    let mut last_report = Instant::now();
    let mut waiting: BTreeMap<u32, PlayedGame> = BTreeMap::new();
    let mut failure = None;
    for received in rx.iter() {
        let game = match received {
            Ok(game) => game,
            Err(e) => {
                failure = Some(e);
                stop.store(true, Ordering::Relaxed);
                break;
            }
        };
        waiting.insert(game.index, game);
        while let Some(game) = waiting.remove(&next_game) {
            for record in &game.records {
                file.push(record);
            }
            summary.file_positions = file.commit()?;
            summary.add(&game);
            next_game += 1;
            summary.next_game = next_game;
        }
        summary.elapsed_s = started.elapsed().as_secs_f64();
        if !args.quiet && last_report.elapsed() >= REPORT_EVERY {
            last_report = Instant::now();
            eprintln!("[datagen] {}", summary.status());
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    drop(rx);
    for worker in workers {
        let _ = worker.join();
    }
    summary.elapsed_s = started.elapsed().as_secs_f64();
    if let Some(e) = failure {
        return Err(e.context(format!(
            "a game failed; {} holds every game before game {next_game}, and the same command \
             resumes it",
            args.out.display()
        )));
    }
    Ok(summary)
}
