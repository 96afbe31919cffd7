//! The `cerise` binary: the UCI loop by default, plus bench, perft and net tools. The tools
//! that need libtorch (training, net evaluation, `net`) exist only with the `torch` feature.

use cerise::chess::perft;
#[cfg(feature = "torch")]
use cerise::eval::Precision;
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
    Bench(cerise::bench::BenchArgs),
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
    run: Option<cerise::datagen::DatagenArgs>,
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
    Throughput(cerise::eval::throughput::ThroughputArgs),
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

/// A tool's result on stdout, or its error (with its causes) for `main` to report.
fn show<T: std::fmt::Display>(result: anyhow::Result<T>) -> Result<(), String> {
    let shown = result.map_err(|e| format!("{e:#}"))?;
    out!("{shown}");
    Ok(())
}

/// As [`show`], for a report that ends its own last line.
fn show_trimmed<T: std::fmt::Display>(result: anyhow::Result<T>) -> Result<(), String> {
    show(result.map(|shown| shown.to_string().trim_end().to_string()))
}

/// Each command to the function that runs it, next to what it drives.
fn run(command: Cmd) -> Result<(), String> {
    let print = &mut |line: String| out!("{line}");
    match command {
        Cmd::Uci => {
            cerise::uci::run_stdio();
            Ok(())
        }
        Cmd::Bench(args) => {
            let summary = cerise::bench::run_cli(&args)?;
            out!("{}", summary.stats_line());
            out!("{}", summary.final_line());
            Ok(())
        }
        Cmd::Perft {
            depth,
            fen,
            chess960,
        } => {
            let (lines, elapsed) = perft::perft_cli(depth, fen.as_deref(), chess960)?;
            lines.into_iter().for_each(print);
            eprintln!("time {} ms", elapsed.as_millis());
            Ok(())
        }
        Cmd::TbProbe { path, fens } => {
            cerise::chess::syzygy::Tablebases::open(&path)?.probe_file(&fens, print)
        }
        Cmd::PerftSuite {
            file,
            depth,
            chess960,
        } => perft::suite_cli(&file, depth, chess960, print),
        #[cfg(feature = "pgn")]
        Cmd::Data {
            command: DataCmd::Triplets(args),
        } => show(cerise::data::run_triplets_cli(&args)),
        #[cfg(feature = "pgn")]
        Cmd::Data {
            command: DataCmd::Positions(args),
        } => show(cerise::data::run_positions_cli(&args)),
        Cmd::Data {
            command: DataCmd::PositionsInfo(args),
        } => show(cerise::data::run_positions_info(&args)),
        #[cfg(feature = "pgn")]
        Cmd::Data {
            command: DataCmd::Label(args),
        } => show(cerise::data::run_label_cli(&args)),
        Cmd::Data {
            command: DataCmd::Merge(args),
        } => show(cerise::data::run_merge_cli(&args)),
        #[cfg(feature = "torch")]
        Cmd::Data {
            command: DataCmd::Harden(args),
        } => show(cerise::harden::run_harden_cli(&args).map(|c| c.report(&args.out))),
        Cmd::Datagen(DatagenCli { command, run }) => match (command, run) {
            (Some(DatagenCmd::Info(args)), _) => {
                show(cerise::data::selfplay::info::run_selfplay_info(&args))
            }
            #[cfg(feature = "pgn")]
            (Some(DatagenCmd::Triplets(args)), _) => show(
                cerise::data::selfplay::triplets::run_selfplay_triplets(&args),
            ),
            #[cfg(feature = "torch")]
            (Some(DatagenCmd::Wdl(args)), _) => {
                show_trimmed(cerise::train::wdl::run_selfplay_wdl(&args))
            }
            (Some(DatagenCmd::Merge(args)), _) => {
                show_trimmed(cerise::data::selfplay::merge::run_selfplay_merge(&args))
            }
            (Some(DatagenCmd::Pack(args)), _) => {
                show_trimmed(cerise::data::selfplay::pack::run_pack(&args))
            }
            (Some(DatagenCmd::Unpack(args)), _) => {
                show_trimmed(cerise::data::selfplay::pack::run_unpack(&args))
            }
            (None, Some(args)) => show(cerise::datagen::run_datagen_cli(&args)),
            (None, None) => Err(
                "datagen needs --out FILE (or a subcommand); see `cerise datagen --help`"
                    .to_string(),
            ),
        },
        #[cfg(feature = "torch")]
        Cmd::Evalpolicy(args) => show(cerise::train::evalpolicy::run_evalpolicy_cli(&args)),
        #[cfg(feature = "torch")]
        Cmd::TrainRbf(args) => show(cerise::train::rbf::run_rbf_cli(&args)),
        #[cfg(feature = "torch")]
        Cmd::TrainRegress(args) => show(cerise::train::regress::run_regress_cli(&args)),
        #[cfg(feature = "torch")]
        Cmd::Train(args) if args.plot => show(
            args.resolve()
                .and_then(|config| cerise::train::redraw_curves(&config))
                .map(|path| format!("curves {}", path.display())),
        ),
        #[cfg(feature = "torch")]
        Cmd::Train(args) if args.speed.is_some() => show(args.resolve().and_then(|config| {
            let steps = args.speed.unwrap_or_default();
            cerise::train::speed::run_speed(&config, steps, &mut |l| eprintln!("{l}"))
        })),
        #[cfg(feature = "torch")]
        Cmd::Train(args) => show(cerise::train::run_train_cli(&args)),
        #[cfg(feature = "torch")]
        Cmd::Evalnet(args) => show(cerise::train::evalnet::run_evalnet_cli(&args)),
        #[cfg(feature = "torch")]
        Cmd::Evalpos(args) => show(cerise::train::evalpos::run_evalpos_cli(&args)),
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
        } => {
            // The games are read by `data`, the backends compared by `eval`.
            let boards = cerise::data::cli::game_positions(&games, positions)
                .map_err(|e| format!("{e:#}"))?;
            let report =
                cerise::eval::agreement::run_compare(net.as_deref(), boards, tolerance, precision)?;
            out!("{}", report.line());
            report.check()
        }
        #[cfg(feature = "torch")]
        Cmd::Net {
            command: NetCmd::Throughput(args),
        } => {
            let result = cerise::eval::throughput::run_cli(&args)?;
            out!("{}", result.line());
            Ok(())
        }
    }
}
