//! The `cerise` binary: the UCI loop by default, plus bench, perft and net tools. The tools
//! that need libtorch (training, net evaluation, `net`) exist only with the `torch` feature.

use cerise::bench::{self, BenchConfig};
use cerise::chess::perft;
use cerise::chess::Position;
use cerise::engine::perft_lines;
#[cfg(feature = "torch")]
use cerise::eval::throughput::{self, ThroughputConfig};
use cerise::eval::{Backend, Encoder, NetEvaluatorConfig, Precision};
use cerise::net::device::DeviceChoice;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// `println!` for a command's output: when the reader has gone away (`cerise perft 7 | head`)
/// the program ends quietly, as Unix tools do, instead of panicking on the broken pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            eprintln!("error: cannot write the output: {e}");
            std::process::exit(1);
        }
    }};
}

#[derive(Parser)]
#[command(
    name = "cerise",
    version,
    about = "A UCI chess engine with a neural evaluator"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Speak UCI on stdin/stdout (the default).
    Uci,
    /// Search fixed positions; the last line is `N nodes M nps`.
    Bench {
        /// Search depth per position (default 9 for material and fake, 6 for a net).
        depth: Option<u32>,
        /// Search threads.
        threads: Option<usize>,
        /// `<embedded>` (the default net), `material`, `fake`, or a .safetensors path.
        #[arg(long, default_value = "<embedded>")]
        eval: String,
        /// Where a net runs: auto, cpu or cuda.
        #[arg(long, default_value = "auto")]
        device: DeviceChoice,
        /// Largest forward pass of a net evaluator.
        #[arg(long, default_value_t = cerise::engine::options::MAX_BATCH_DEFAULT)]
        max_batch: usize,
        /// Net precision: auto (int8 on the native backend, fp32 on libtorch), fp32, int8
        /// (native), or fp16/bf16 on CUDA.
        #[arg(long, default_value = "auto")]
        precision: Precision,
        /// Net input encoder: auto (timed at load), dense or sparse.
        #[arg(long, default_value = "auto")]
        encoder: Encoder,
        /// What runs a net: native (the default, whose node count is the same on every
        /// machine), torch, or auto (native, unless the device is cuda by name: then torch).
        #[arg(long, default_value = "native")]
        backend: Backend,
        /// A convchess-policy file ordering the quiet moves, as the engine's Policy option
        /// does (the node count then differs from the signature).
        #[arg(long)]
        policy: Option<String>,
    },
    /// Count move-generation leaves, split by root move.
    Perft {
        depth: u32,
        /// Position to count from (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// Read castling rights as Chess960 (X-FEN or Shredder-FEN) and write castles as
        /// king takes rook.
        #[arg(long)]
        chess960: bool,
    },
    /// Check move generation against a perft suite (EPD with `;D1 20 ;D2 400 ...`).
    PerftSuite {
        #[arg(long, default_value = "../shared/data/perft/perftsuite.epd")]
        file: PathBuf,
        /// Deepest depth to check on each line.
        #[arg(long, default_value_t = 5)]
        depth: u32,
        /// A Chess960 suite (e.g. bench/chess960/perft960.epd): castling rights as X-FEN or
        /// Shredder-FEN.
        #[arg(long)]
        chess960: bool,
    },
    /// Probe Syzygy tables for each FEN of a file: prints `FEN ; wdl W ; dtz D` (W as if
    /// after a capture or pawn move, −2..2; D in plies, negative when losing), or the error.
    TbProbe {
        /// Directories of tables, `:`-separated, as `SyzygyPath`.
        #[arg(long)]
        path: String,
        /// One FEN a line.
        fens: PathBuf,
    },
    /// Training data tools.
    Data {
        #[command(subcommand)]
        command: DataCmd,
    },
    #[cfg(feature = "torch")]
    /// Train a net: Deep Pink triplets (MLPs) or game results (CNNs); `--config F.toml`,
    /// flags override.
    Train(cerise::train::TrainArgs),
    #[cfg(feature = "torch")]
    /// Fit the RBF evaluator (fuzzy-means centres, least-squares weights) on positions
    /// labelled by `cerise data label`; reports MAE and R² per split.
    TrainRbf(cerise::train::rbf::RbfArgs),
    #[cfg(feature = "torch")]
    /// Train one of the RBF study's comparison models (an MLP on the features, the bitmap
    /// MLP, or a triplet net regressed linearly) on a labels file and report MAE and R².
    TrainRegress(cerise::train::regress::RegressArgs),
    #[cfg(feature = "torch")]
    /// Net quality report on held-out test games.
    Evalnet(cerise::train::evalnet::EvalnetArgs),
    #[cfg(feature = "torch")]
    /// ConvChess's Tables 1 and 2 (top-1, clipped and unclipped) for a policy file on
    /// labelled positions, and the composed move's accuracy.
    Evalpolicy(cerise::train::evalpolicy::EvalpolicyArgs),
    #[cfg(feature = "torch")]
    /// Win/loss accuracy of a net of any family on labelled positions.
    Evalpos(cerise::train::evalpos::EvalposArgs),
    #[cfg(feature = "torch")]
    /// Network files.
    Net {
        #[command(subcommand)]
        command: NetCmd,
    },
    /// Self-play data: play Cerise against itself at a node budget and record every searched
    /// position (`--out F`; resumes F), or work on such files (`info`, `merge`, `pack`,
    /// `unpack`, `triplets`, `wdl`).
    Datagen(DatagenCli),
}

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct DatagenCli {
    #[command(subcommand)]
    command: Option<DatagenCmd>,
    #[command(flatten)]
    run: Option<cerise::selfplay::DatagenArgs>,
}

#[derive(Subcommand)]
enum DatagenCmd {
    /// A self-play file's settings, games, results and score histogram; checks every record.
    Info(cerise::data::selfplay::info::SelfPlayInfoArgs),
    /// Join self-play files made alike from different seeds into one, renumbering the games.
    Merge(cerise::data::selfplay::merge::SelfPlayMergeArgs),
    /// Store a self-play file game by game, for keeping it (after xz, under a third of the
    /// plain file's xz size).
    Pack(cerise::data::selfplay::pack::PackArgs),
    /// Restore a self-play file from `datagen pack`'s output, byte for byte.
    Unpack(cerise::data::selfplay::pack::PackArgs),
    #[cfg(feature = "pgn")]
    /// Self-play positions to Deep Pink triplets (q after the best move, r after a random
    /// other move), split by game.
    Triplets(cerise::data::selfplay::triplets::SelfPlayTripletArgs),
    #[cfg(feature = "torch")]
    /// Fit the UCI_ShowWDL model (win/draw/loss from score and material) to self-play games,
    /// with a calibration table on held-out games.
    Wdl(cerise::train::wdl::SelfPlayWdlArgs),
}

#[derive(Subcommand)]
enum DataCmd {
    #[cfg(feature = "pgn")]
    /// Turn PGN games into Deep Pink (p, q, r) triplets, split train/valid/test by game.
    Triplets(cerise::data::TripletArgs),
    #[cfg(feature = "pgn")]
    /// Turn PGN games into positions labelled with the result and the move played, split
    /// train/valid/test by game (for win/loss classifiers and move-selection nets).
    Positions(cerise::data::PositionArgs),
    /// Print a positions file's header and counts; validates every record.
    PositionsInfo(cerise::data::PositionsInfoArgs),
    #[cfg(feature = "pgn")]
    /// Label middlegame positions of PGN games with a UCI engine's evaluation (Stockfish);
    /// resumes an interrupted run.
    Label(cerise::data::LabelArgs),
    #[cfg(feature = "torch")]
    /// Rewrite a triplet file with hard negatives: where a net prefers another move to the
    /// one played, `r` becomes that move's child (issue #6, Deep Pink's proposal).
    Harden(cerise::harden::HardenArgs),
    /// Join triplet files of one kind (same encoding, quiet filter and split) into one, e.g.
    /// the master and TCEC games' train files, for a trainer that reads a single file.
    Merge(cerise::data::MergeArgs),
}

#[cfg(feature = "torch")]
#[derive(Subcommand)]
enum NetCmd {
    /// Write a randomly initialised net.
    Init {
        /// Architecture preset name.
        #[arg(long)]
        preset: String,
        /// Output .safetensors path.
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Native against libtorch on the positions of real games: each position from scratch,
    /// and all its children incrementally; prints the largest and the mean differences in
    /// centipawns. `--precision int8` measures the integer path's error (libtorch's fp32
    /// being the reference).
    Compare {
        /// A .safetensors net file (default: the embedded net).
        #[arg(long)]
        net: Option<PathBuf>,
        /// A .pgn or .pgn.bz2 file.
        #[arg(long)]
        games: PathBuf,
        /// Positions to compare.
        #[arg(long, default_value_t = 100_000)]
        positions: u64,
        /// Differences above this many centipawns are counted as failures (exit code 1).
        #[arg(long, default_value_t = 0.05)]
        tolerance: f32,
        /// The native arithmetic to check: fp32 or int8.
        #[arg(long, default_value = "fp32")]
        precision: Precision,
    },
    /// Raw forward throughput (positions/s, encoding from CompactBoard included) of a net
    /// at one batch size: the ceiling `bench` evals/s is compared with.
    Throughput {
        /// A fresh net of this preset (weights do not change the speed).
        #[arg(long, conflicts_with = "net", required_unless_present = "net")]
        preset: Option<String>,
        /// A .safetensors net file.
        #[arg(long)]
        net: Option<PathBuf>,
        #[arg(long)]
        batch: usize,
        /// auto (native, unless the device is cuda by name: then torch), native or torch.
        #[arg(long, default_value = "auto")]
        backend: Backend,
        #[arg(long, default_value = "auto")]
        device: DeviceChoice,
        #[arg(long, default_value = "auto")]
        precision: Precision,
        #[arg(long, default_value = "auto")]
        encoder: Encoder,
        /// libtorch intra-op threads; 0 applies the evaluator's rule.
        #[arg(long, default_value_t = 0)]
        torch_threads: usize,
        /// Timed seconds after the warm-up.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
    },
}

fn main() -> ExitCode {
    // Before libtorch starts its OpenMP pool: spinning workers collapsed throughput when
    // two processes shared two cores. A value the user set is kept.
    if std::env::var_os("OMP_WAIT_POLICY").is_none() {
        std::env::set_var("OMP_WAIT_POLICY", "PASSIVE");
    }
    let cli = Cli::parse();
    match run(cli.command.unwrap_or(Cmd::Uci)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `cerise datagen --out F`: Ctrl-C or SIGTERM stops it after the games in order so far are
/// committed (a harder kill loses nothing either: the same command resumes).
fn datagen(args: &cerise::selfplay::DatagenArgs) -> Result<(), String> {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    if let Err(e) = ctrlc::set_handler(move || {
        eprintln!("[datagen] stopping: committing the games in order so far");
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
    }) {
        eprintln!("[datagen] cannot catch Ctrl-C ({e}); a kill still loses no whole game");
    }
    let summary = cerise::selfplay::run_datagen(args, stop).map_err(|e| format!("{e:#}"))?;
    out!("{summary}");
    Ok(())
}

fn run(command: Cmd) -> Result<(), String> {
    match command {
        Cmd::Uci => {
            cerise::uci::run_stdio();
            Ok(())
        }
        Cmd::Bench {
            depth,
            threads,
            eval,
            device,
            max_batch,
            precision,
            encoder,
            backend,
            policy,
        } => {
            let config = NetEvaluatorConfig {
                max_batch,
                precision,
                encoder,
                backend,
                ..NetEvaluatorConfig::default()
            };
            let eval = cerise::eval::open::open_text(&eval, device, config)?;
            let mut config = BenchConfig::for_evaluator(eval.as_ref(), depth, threads);
            if let Some(path) = policy {
                config.policy = Some(std::sync::Arc::new(cerise::engine::load_policy(&path)?));
            }
            eprintln!("{}", bench::header_line(&config, eval.as_ref()));
            let summary = bench::run(&config, eval, &mut |line| eprintln!("{line}"))?;
            eprintln!(
                "{} positions, depth {}, {:.2} s",
                summary.positions,
                config.depth,
                summary.elapsed.as_secs_f64()
            );
            out!("{}", summary.stats_line());
            out!("{}", summary.final_line());
            Ok(())
        }
        Cmd::Perft {
            depth,
            fen,
            chess960,
        } => {
            let mode = castling_mode(chess960);
            let position = match fen {
                Some(fen) => Position::from_fen_in(&fen, mode).map_err(|e| e.to_string())?,
                None => Position::startpos_in(mode),
            };
            let started = std::time::Instant::now();
            let lines = perft_lines(&position, depth);
            let elapsed = started.elapsed();
            for line in &lines {
                out!("{line}");
            }
            eprintln!("time {} ms", elapsed.as_millis());
            Ok(())
        }
        Cmd::TbProbe { path, fens } => {
            let tables = cerise::chess::syzygy::Tablebases::open(&path)?;
            let text = std::fs::read_to_string(&fens)
                .map_err(|e| format!("cannot read {}: {e}", fens.display()))?;
            for (n, line) in text.lines().enumerate() {
                let fen = line.trim();
                if fen.is_empty() || fen.starts_with('#') {
                    continue;
                }
                let pos = Position::from_fen(fen)
                    .map_err(|e| format!("{}:{}: {e}", fens.display(), n + 1))?;
                match tables.probe_raw(&pos) {
                    Ok((wdl, dtz)) => out!("{fen} ; wdl {wdl} ; dtz {dtz}"),
                    Err(e) => out!("{fen} ; error {e}"),
                }
            }
            Ok(())
        }
        Cmd::PerftSuite {
            file,
            depth,
            chess960,
        } => perft_suite(&file, depth, castling_mode(chess960)),
        #[cfg(feature = "pgn")]
        Cmd::Data {
            command: DataCmd::Triplets(args),
        } => {
            let summary = cerise::data::run_triplets_cli(&args).map_err(|e| format!("{e:#}"))?;
            out!("{summary}");
            Ok(())
        }
        #[cfg(feature = "pgn")]
        Cmd::Data {
            command: DataCmd::Positions(args),
        } => {
            let summary = cerise::data::run_positions_cli(&args).map_err(|e| format!("{e:#}"))?;
            out!("{summary}");
            Ok(())
        }
        Cmd::Data {
            command: DataCmd::PositionsInfo(args),
        } => {
            let info = cerise::data::run_positions_info(&args).map_err(|e| format!("{e:#}"))?;
            out!("{info}");
            Ok(())
        }
        #[cfg(feature = "pgn")]
        Cmd::Data {
            command: DataCmd::Label(args),
        } => {
            let summary = cerise::data::run_label_cli(&args).map_err(|e| format!("{e:#}"))?;
            out!("{summary}");
            Ok(())
        }
        Cmd::Data {
            command: DataCmd::Merge(args),
        } => {
            let summary = cerise::data::run_merge_cli(&args).map_err(|e| format!("{e:#}"))?;
            out!("{summary}");
            Ok(())
        }
        #[cfg(feature = "torch")]
        Cmd::Data {
            command: DataCmd::Harden(args),
        } => {
            let c = cerise::harden::run_harden_cli(&args).map_err(|e| format!("{e:#}"))?;
            out!(
                "{} triplets written to {}: {} hardened, {} kept random where the net agrees \
                 with the move played ({:.1}% of those it judged), {} not offered, {} whose \
                 played move could not be regenerated",
                c.total(),
                args.out.display(),
                c.hardened,
                c.agrees,
                100.0 * c.agreement(),
                c.not_offered,
                c.unmatched
            );
            Ok(())
        }
        Cmd::Datagen(DatagenCli {
            command: Some(DatagenCmd::Info(args)),
            ..
        }) => {
            let info = cerise::data::selfplay::info::run_selfplay_info(&args)
                .map_err(|e| format!("{e:#}"))?;
            out!("{info}");
            Ok(())
        }
        #[cfg(feature = "pgn")]
        Cmd::Datagen(DatagenCli {
            command: Some(DatagenCmd::Triplets(args)),
            ..
        }) => {
            let summary = cerise::data::selfplay::triplets::run_selfplay_triplets(&args)
                .map_err(|e| format!("{e:#}"))?;
            out!("{summary}");
            Ok(())
        }
        #[cfg(feature = "torch")]
        Cmd::Datagen(DatagenCli {
            command: Some(DatagenCmd::Wdl(args)),
            ..
        }) => {
            let fit = cerise::train::wdl::run_selfplay_wdl(&args).map_err(|e| format!("{e:#}"))?;
            out!("{}", fit.to_string().trim_end());
            Ok(())
        }
        Cmd::Datagen(DatagenCli {
            command: Some(DatagenCmd::Merge(args)),
            ..
        }) => {
            let summary = cerise::data::selfplay::merge::run_selfplay_merge(&args)
                .map_err(|e| format!("{e:#}"))?;
            out!("{}", summary.to_string().trim_end());
            Ok(())
        }
        Cmd::Datagen(DatagenCli {
            command: Some(DatagenCmd::Pack(args)),
            ..
        }) => {
            let summary =
                cerise::data::selfplay::pack::run_pack(&args).map_err(|e| format!("{e:#}"))?;
            out!("{}", summary.to_string().trim_end());
            Ok(())
        }
        Cmd::Datagen(DatagenCli {
            command: Some(DatagenCmd::Unpack(args)),
            ..
        }) => {
            let summary =
                cerise::data::selfplay::pack::run_unpack(&args).map_err(|e| format!("{e:#}"))?;
            out!("{}", summary.to_string().trim_end());
            Ok(())
        }
        Cmd::Datagen(DatagenCli {
            command: None,
            run: Some(args),
        }) => datagen(&args),
        Cmd::Datagen(DatagenCli {
            command: None,
            run: None,
        }) => Err(
            "datagen needs --out FILE (or a subcommand); see `cerise datagen --help`".to_string(),
        ),
        #[cfg(feature = "torch")]
        Cmd::Evalpolicy(args) => {
            let report = cerise::train::evalpolicy::run_evalpolicy_cli(&args)
                .map_err(|e| format!("{e:#}"))?;
            out!("{report}");
            Ok(())
        }
        #[cfg(feature = "torch")]
        Cmd::TrainRbf(args) => {
            let report = cerise::train::rbf::run_rbf_cli(&args).map_err(|e| format!("{e:#}"))?;
            out!("{report}");
            Ok(())
        }
        #[cfg(feature = "torch")]
        Cmd::TrainRegress(args) => {
            let report =
                cerise::train::regress::run_regress_cli(&args).map_err(|e| format!("{e:#}"))?;
            out!("{report}");
            Ok(())
        }
        #[cfg(feature = "torch")]
        Cmd::Train(args) if args.plot => {
            let config = args.resolve().map_err(|e| format!("{e:#}"))?;
            let path = cerise::train::redraw_curves(&config).map_err(|e| format!("{e:#}"))?;
            out!("curves {}", path.display());
            Ok(())
        }
        #[cfg(feature = "torch")]
        Cmd::Train(args) if args.speed.is_some() => {
            let config = args.resolve().map_err(|e| format!("{e:#}"))?;
            let steps = args.speed.unwrap_or_default();
            let report = cerise::train::speed::run_speed(&config, steps, &mut |l| eprintln!("{l}"))
                .map_err(|e| format!("{e:#}"))?;
            out!("{report}");
            Ok(())
        }
        #[cfg(feature = "torch")]
        Cmd::Train(args) => {
            let outcome = cerise::train::run_train_cli(&args).map_err(|e| format!("{e:#}"))?;
            out!("{outcome}");
            Ok(())
        }
        #[cfg(feature = "torch")]
        Cmd::Evalnet(args) => {
            let report =
                cerise::train::evalnet::run_evalnet_cli(&args).map_err(|e| format!("{e:#}"))?;
            out!("{report}");
            Ok(())
        }
        #[cfg(feature = "torch")]
        Cmd::Evalpos(args) => {
            let report =
                cerise::train::evalpos::run_evalpos_cli(&args).map_err(|e| format!("{e:#}"))?;
            out!("{report}");
            Ok(())
        }
        #[cfg(feature = "torch")]
        Cmd::Net {
            command: NetCmd::Init { preset, out, seed },
        } => {
            let id = cerise::net::init_net(&preset, seed, &out).map_err(|e| e.to_string())?;
            out!("wrote {} ({id})", out.display());
            Ok(())
        }
        #[cfg(feature = "torch")]
        Cmd::Net {
            command:
                NetCmd::Compare {
                    net,
                    games,
                    positions,
                    tolerance,
                    precision,
                },
        } => compare_backends(net, &games, positions, tolerance, precision),
        #[cfg(feature = "torch")]
        Cmd::Net {
            command:
                NetCmd::Throughput {
                    preset,
                    net,
                    batch,
                    backend,
                    device,
                    precision,
                    encoder,
                    torch_threads,
                    seconds,
                },
        } => {
            let net = match (net, preset) {
                (Some(path), _) => cerise::net::load(&path).map_err(|e| e.to_string())?,
                (None, Some(preset)) => fresh_net(&preset)?,
                (None, None) => return Err("give --preset NAME or --net FILE".to_string()),
            };
            if !(seconds > 0.0 && seconds <= 3600.0) {
                return Err(format!("--seconds must be in (0, 3600], got {seconds}"));
            }
            let config = ThroughputConfig {
                backend,
                batch,
                device,
                precision,
                encoder,
                torch_threads,
                duration: std::time::Duration::from_secs_f64(seconds),
            };
            let result = throughput::measure(&net, &config).map_err(|e| e.to_string())?;
            out!("{}", result.line());
            Ok(())
        }
    }
}

/// `cerise net compare`: game positions, in order, into `eval::agreement`.
#[cfg(feature = "torch")]
fn compare_backends(
    net: Option<PathBuf>,
    games: &std::path::Path,
    positions: u64,
    tolerance: f32,
    precision: Precision,
) -> Result<(), String> {
    use cerise::data::pgn::{GameFilter, GameVisitor};
    use cerise::eval::native::Arithmetic;
    let arithmetic = match precision {
        Precision::Fp32 => Arithmetic::F32,
        Precision::Int8 => Arithmetic::Int8,
        other => return Err(format!("--precision {other}: compare fp32 or int8")),
    };
    let net = match net {
        Some(path) => cerise::net::load(&path).map_err(|e| e.to_string())?,
        None => cerise::eval::embedded::net().map_err(|e| e.to_string())?.0,
    };
    eprintln!(
        "[compare] {} net, {} {}",
        net.meta.preset,
        net.meta.arch.family_name(),
        net.meta.arch.describe()
    );
    let input = cerise::data::cli::open_pgn(games).map_err(|e| format!("{e:#}"))?;
    let mut reader = pgn_reader::Reader::new(input.reader);
    let mut visitor = GameVisitor::new(GameFilter::default());
    let mut read_error = None;
    let boards = std::iter::from_fn(|| loop {
        match reader.read_game(&mut visitor) {
            Ok(None) => return None,
            Ok(Some(Ok(game))) => return Some(game),
            Ok(Some(Err(_skipped))) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => continue,
            Err(e) => {
                read_error = Some(e);
                return None;
            }
        }
    })
    .flat_map(|game| {
        let mut pos = cerise::chess::Position::from_inner(game.start);
        let mut line = vec![pos.clone()];
        for m in &game.moves {
            pos = pos.play(m);
            line.push(pos.clone());
        }
        line
    });
    let started = std::time::Instant::now();
    let report =
        cerise::eval::agreement::compare(&net, boards, positions, tolerance, arithmetic, |n| {
            eprint!(
                "\r[compare] {n}/{positions} positions ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
        })
        .map_err(|e| e.to_string())?;
    eprintln!();
    if let Some(e) = read_error {
        return Err(format!("cannot read {}: {e}", games.display()));
    }
    out!("{}", report.line());
    if report.over_tolerance > 0 {
        return Err(format!(
            "{} scores differ from libtorch by more than {tolerance} cp",
            report.over_tolerance
        ));
    }
    Ok(())
}

/// A seeded random net of `preset`, held in memory.
#[cfg(feature = "torch")]
fn fresh_net(preset: &str) -> Result<cerise::net::NetFile, String> {
    let meta = cerise::net::NetMeta::for_preset(preset).map_err(|e| e.to_string())?;
    let vs = tch::nn::VarStore::new(tch::Device::Cpu);
    let _net = cerise::net::init::seeded(0, || cerise::net::NetModule::new(&vs.root(), &meta.arch));
    cerise::net::NetFile::from_varstore(meta, &vs).map_err(|e| e.to_string())
}

fn castling_mode(chess960: bool) -> cerise::chess::CastlingMode {
    if chess960 {
        cerise::chess::CastlingMode::Chess960
    } else {
        cerise::chess::CastlingMode::Standard
    }
}

fn perft_suite(
    file: &std::path::Path,
    depth: u32,
    mode: cerise::chess::CastlingMode,
) -> Result<(), String> {
    let started = std::time::Instant::now();
    let summary = perft::run_suite(file, depth, mode, |line| {
        let status = if line.ok() { "ok" } else { "MISMATCH" };
        let deepest = line.results.last().map_or(0, |r| r.depth);
        out!(
            "line {:>3}: {status:<8} depth {deepest} {:>12} nodes  {}",
            line.line_no,
            line.nodes,
            line.fen
        );
    })?;
    let secs = started.elapsed().as_secs_f64();
    for (line_no, d, expected, actual) in &summary.mismatches {
        out!("mismatch: line {line_no} depth {d}: expected {expected}, counted {actual}");
    }
    out!(
        "{} positions, {} depths checked, {} mismatches, {} nodes in {secs:.1} s",
        summary.positions,
        summary.depths_checked,
        summary.mismatches.len(),
        summary.nodes
    );
    if summary.passed() {
        Ok(())
    } else {
        Err(format!(
            "{} perft mismatches in {}",
            summary.mismatches.len(),
            file.display()
        ))
    }
}
