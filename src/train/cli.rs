//! `cerise train`: the config file, flag overrides, Ctrl-C/SIGTERM handling.

use super::config::{OptimKind, TrainConfig};
use super::run::{train, TrainOutcome};
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Train a net (Deep Pink triplets or game results); Ctrl-C or SIGTERM checkpoints and exits.
#[derive(clap::Args, Clone, Debug)]
pub struct TrainArgs {
    /// TOML config (see configs/*.toml); flags below override its fields.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Continue from the newest checkpoint in out_dir.
    #[arg(long)]
    pub resume: bool,
    /// Only redraw out_dir's curves.png from its metrics.csv, labelled for the config's
    /// objective, and exit (no training).
    #[arg(long, conflicts_with = "resume")]
    pub plot: bool,
    /// Only time N steps of the value or mixed objective on the config's first batches,
    /// phase by phase, by the plain sparse path and (a perspective net) the perspective
    /// step, and print the table (no training run, nothing written).
    #[arg(long, value_name = "N", conflicts_with_all = ["resume", "plot"])]
    pub speed: Option<u64>,
    #[arg(long)]
    pub steps: Option<u64>,
    #[arg(long)]
    pub out_dir: Option<PathBuf>,
    /// triplet (MLP presets), winloss (CNN presets), policy (policy presets), or value or
    /// mixed (MLP presets on `cerise datagen` files).
    #[arg(long, value_parser = parse_objective)]
    pub objective: Option<super::ObjectiveKind>,
    #[arg(long)]
    pub preset: Option<String>,
    #[arg(long)]
    pub kappa: Option<f64>,
    #[arg(long)]
    pub lr0: Option<f64>,
    #[arg(long)]
    pub tau: Option<f64>,
    #[arg(long)]
    pub batch: Option<usize>,
    /// sgd, adam or rmsprop.
    #[arg(long, value_parser = parse_optim)]
    pub optimiser: Option<OptimKind>,
    #[arg(long)]
    pub train: Option<PathBuf>,
    #[arg(long)]
    pub valid: Option<PathBuf>,
    #[arg(long)]
    pub seed: Option<u64>,
    #[arg(long)]
    pub torch_threads: Option<usize>,
    /// Threads reading and encoding batches (0: the cores torch_threads leaves, 1 to 8).
    #[arg(long)]
    pub loader_threads: Option<usize>,
    /// auto, cpu or cuda.
    #[arg(long)]
    pub device: Option<String>,
    #[arg(long)]
    pub eval_every: Option<u64>,
    #[arg(long)]
    pub checkpoint_every: Option<u64>,
    /// Start from this net's weights (same preset and cp_per_unit) instead of fresh ones; a
    /// single-output perspective net also starts its `-ob8` preset (its output row copied
    /// into every bucket), and an unmirrored one its `-hm` preset (king-file mirrored).
    #[arg(long)]
    pub init: Option<PathBuf>,
}

fn parse_optim(text: &str) -> Result<OptimKind, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "sgd" => Ok(OptimKind::Sgd),
        "adam" => Ok(OptimKind::Adam),
        "rmsprop" => Ok(OptimKind::Rmsprop),
        other => Err(format!(
            "unknown optimiser `{other}`; use sgd, adam or rmsprop"
        )),
    }
}

fn parse_objective(text: &str) -> Result<super::ObjectiveKind, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "triplet" => Ok(super::ObjectiveKind::Triplet),
        "winloss" => Ok(super::ObjectiveKind::Winloss),
        "policy" => Ok(super::ObjectiveKind::Policy),
        "value" => Ok(super::ObjectiveKind::Value),
        "mixed" => Ok(super::ObjectiveKind::Mixed),
        other => Err(format!(
            "unknown objective `{other}`; use triplet, winloss, policy, value or mixed"
        )),
    }
}

impl TrainArgs {
    /// The config file (or the defaults) with every given flag applied.
    pub fn resolve(&self) -> Result<TrainConfig> {
        let mut c = match &self.config {
            Some(path) => TrainConfig::load(path)?,
            None => TrainConfig::default(),
        };
        macro_rules! set {
            ($($field:ident),*) => {$(
                if let Some(v) = &self.$field {
                    c.$field = v.clone();
                }
            )*};
        }
        set!(
            steps,
            out_dir,
            objective,
            preset,
            kappa,
            lr0,
            tau,
            batch,
            optimiser,
            train,
            valid,
            seed,
            torch_threads,
            loader_threads,
            device,
            eval_every,
            checkpoint_every
        );
        if let Some(init) = &self.init {
            c.init = Some(init.clone());
        }
        c.validate()?;
        Ok(c)
    }
}

pub fn run_train_cli(args: &TrainArgs) -> Result<TrainOutcome> {
    let config = args.resolve()?;
    eprintln!("# training config\n{}", config.to_toml()?);
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            eprintln!("second interrupt: exiting without a final checkpoint");
            std::process::exit(130);
        }
        eprintln!("interrupt: finishing the step and writing a checkpoint (again to abort)");
    })
    .context("cannot install the Ctrl-C/SIGTERM handler")?;
    train(&config, args.resume, &stop, &mut |line| eprintln!("{line}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: TrainArgs,
    }

    #[test]
    fn flags_override_the_config_file() {
        let dir = std::env::temp_dir().join(format!("cerise-train-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("c.toml");
        std::fs::write(&path, "kappa = 1.0\nsteps = 50\npreset = \"mid\"\n").expect("write");
        let cli = Cli::parse_from([
            "x",
            "--config",
            path.to_str().expect("utf8"),
            "--steps",
            "7",
            "--optimiser",
            "adam",
        ]);
        let c = cli.args.resolve().expect("valid");
        assert_eq!((c.steps, c.kappa, c.preset.as_str()), (7, 1.0, "mid"));
        assert_eq!(c.optimiser, OptimKind::Adam);
        let bad = Cli::parse_from(["x", "--batch", "0"]).args.resolve();
        assert!(bad.is_err());
    }
}
