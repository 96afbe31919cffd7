//! `cerise train-regress`: the RBF study's comparison models (issue #9), on the same
//! labelled split, scenario and filter as `train-rbf`:
//! - `features-mlp`: an MLP on the RBF net's inputs (the features, plus the scenario's
//!   depths);
//! - `bitmap-mlp`: the study's "bitmap" MLP on the 768 one-hot board as the engine sees it
//!   (plus the scenario's depths);
//! - `net-linear`: a triplet net's f regressed linearly to pawns, which shows how much
//!   evaluation knowledge Deep Pink's objective holds (f alone: the scenario's depths are
//!   not used).
//!
//! Each reports what `train-rbf` reports: MAE and R² per split, training time, size and the
//! time per prediction.

mod mlp;

use super::model::TrainNet;
use super::rbf::cli::{data_line, parse_scenario, parse_split};
use super::rbf::dataset::{load, DataFilter, Scenario};
use super::rbf::fit::{metrics, Metrics};
use super::rbf::rows::{RegressionData, Rows};
use crate::chess::ENCODING_WIDTH;
use crate::data::{Split, SplitRatios};
use crate::features;
use anyhow::{bail, Result};
use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

pub use mlp::{EpochLine, MlpConfig};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RegressModel {
    FeaturesMlp,
    BitmapMlp,
    NetLinear,
}

impl RegressModel {
    pub fn name(self) -> &'static str {
        match self {
            RegressModel::FeaturesMlp => "features-mlp",
            RegressModel::BitmapMlp => "bitmap-mlp",
            RegressModel::NetLinear => "net-linear",
        }
    }
}

/// Train one of the RBF study's comparison models on engine-labelled positions and report
/// its MAE and R² beside `train-rbf`'s.
#[derive(clap::Args, Clone, Debug, PartialEq)]
pub struct RegressArgs {
    /// A labels file written by `cerise data label`.
    #[arg(long)]
    pub labels: PathBuf,
    /// features-mlp, bitmap-mlp or net-linear.
    #[arg(long, value_enum)]
    pub model: RegressModel,
    /// Inputs: 1 = + depths 2, 4, 8; 2 = + depths 2, 4; 3 = none beyond the model's own.
    #[arg(long, default_value = "3", value_parser = parse_scenario)]
    pub scenario: Scenario,
    /// Drop labels beyond this many pawns either way; 0 keeps every non-mate label.
    #[arg(long, default_value_t = 20.0)]
    pub max_eval: f32,
    /// Train,valid,test percentages of games (as `train-rbf`, so the splits are the same).
    #[arg(long, default_value = "80,10,10", value_parser = parse_split)]
    pub split: SplitRatios,
    /// Seed of the by-game split and of the MLP's initial weights and shuffling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Hidden layer widths of an MLP.
    #[arg(long, default_value = "256,64", value_delimiter = ',')]
    pub hidden: Vec<i64>,
    /// Most epochs of an MLP.
    #[arg(long, default_value_t = 60)]
    pub epochs: usize,
    /// Stop an MLP when its validation MAE has not improved for this many epochs.
    #[arg(long, default_value_t = 8)]
    pub patience: usize,
    #[arg(long, default_value_t = 256)]
    pub batch: usize,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 1e-3)]
    pub lr: f64,
    /// The triplet net of `net-linear`.
    #[arg(long, default_value = "nets/cerise-small-as-d95ae74c41f6.safetensors")]
    pub net: PathBuf,
}

/// What `train-regress` did.
pub struct RegressReport {
    pub args: RegressArgs,
    pub rows: [usize; 3],
    pub mates_dropped: u64,
    pub large_dropped: u64,
    /// The model's shape in words, e.g. `209-256-64-1`.
    pub shape: String,
    pub parameters: usize,
    pub epochs: Vec<EpochLine>,
    /// The epoch whose weights were kept (MLPs).
    pub kept_epoch: Option<usize>,
    pub metrics: [Metrics; 3],
    pub train_seconds: f64,
    /// One prediction from a position: its inputs, then the model, microseconds.
    pub input_us: f64,
    pub model_us: f64,
}

impl fmt::Display for RegressReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}",
            data_line(
                self.rows,
                self.mates_dropped,
                self.large_dropped,
                self.args.max_eval
            )
        )?;
        writeln!(
            f,
            "model     {} {} ({} parameters), scenario {}",
            self.args.model.name(),
            self.shape,
            self.parameters,
            self.args.scenario.number()
        )?;
        if !self.epochs.is_empty() {
            writeln!(f, "epoch  train loss  valid MAE  valid R²")?;
            for e in &self.epochs {
                writeln!(
                    f,
                    "{:>5}  {:>10.4}  {:>9.4}  {:>8.4}",
                    e.epoch, e.train_loss, e.valid.mae, e.valid.r2
                )?;
            }
        }
        match self.kept_epoch {
            Some(e) => writeln!(
                f,
                "kept      epoch {e}, trained in {:.1} s",
                self.train_seconds
            )?,
            None => writeln!(f, "fitted in {:.1} s", self.train_seconds)?,
        }
        for split in Split::ALL {
            writeln!(f, "{:<9} {}", split.name(), self.metrics[split as usize])?;
        }
        write!(
            f,
            "speed     {:.1} µs per prediction: {:.1} inputs + {:.1} model (one position at a \
             time, libtorch on the CPU)",
            self.input_us + self.model_us,
            self.input_us,
            self.model_us
        )
    }
}

/// Column `c` of the scenario's depths in a row of `data` (after the features).
fn depth_columns(data: &RegressionData, rows: &Rows) -> Vec<f32> {
    let extra = data.width - features::COUNT;
    let mut out = Vec::with_capacity(rows.len() * extra);
    for x in rows.inputs.chunks_exact(data.width) {
        out.extend_from_slice(&x[features::COUNT..]);
    }
    out
}

/// The 768 one-hot planes of each board, then the scenario's depths.
fn bitmap_inputs(data: &RegressionData, rows: &Rows) -> (Vec<f32>, usize) {
    let extra = data.width - features::COUNT;
    let width = ENCODING_WIDTH + extra;
    let depths = depth_columns(data, rows);
    let mut out = vec![0f32; rows.len() * width];
    for (i, x) in out.chunks_exact_mut(width).enumerate() {
        rows.boards[i].encode_into(&mut x[..ENCODING_WIDTH]);
        x[ENCODING_WIDTH..].copy_from_slice(&depths[i * extra..(i + 1) * extra]);
    }
    (out, width)
}

/// Runs `cerise train-regress`; progress goes to stderr, the report is returned.
pub fn run_regress_cli(args: &RegressArgs) -> Result<RegressReport> {
    run_regress(args, &mut |line| eprintln!("[train-regress] {line}"))
}

pub fn run_regress(args: &RegressArgs, progress: &mut dyn FnMut(&str)) -> Result<RegressReport> {
    // Read the net first: a wrong file should fail before the features are computed.
    let net = match args.model {
        RegressModel::NetLinear => Some(load_triplet_net(&args.net)?),
        _ => None,
    };
    let filter = DataFilter {
        max_eval_pawns: (args.max_eval > 0.0).then_some(args.max_eval),
    };
    progress(&format!(
        "reading {} and computing features",
        args.labels.display()
    ));
    let data = load(&args.labels, args.scenario, filter, args.split, args.seed)?;
    let rows = data.splits.each_ref().map(|r| r.len());
    let features_us = data.feature_seconds * 1e6 / rows.iter().sum::<usize>() as f64;
    progress(&format!(
        "{} / {} / {} positions",
        rows[0], rows[1], rows[2]
    ));
    let mut report = RegressReport {
        args: args.clone(),
        rows,
        mates_dropped: data.mates_dropped,
        large_dropped: data.large_dropped,
        shape: String::new(),
        parameters: 0,
        epochs: Vec::new(),
        kept_epoch: None,
        metrics: [Metrics { mae: 0.0, r2: 0.0 }; 3],
        train_seconds: 0.0,
        input_us: 0.0,
        model_us: 0.0,
    };
    if let Some(net) = net {
        net_linear(&net, &data, &mut report, progress);
        return Ok(report);
    }
    let (inputs, width, input_us) = match args.model {
        RegressModel::FeaturesMlp => {
            let inputs = data.splits.each_ref().map(|r| r.inputs.clone());
            (inputs, data.width, features_us)
        }
        _ => {
            let started = Instant::now();
            let mut width = 0;
            let inputs = data.splits.each_ref().map(|r| {
                let (x, w) = bitmap_inputs(&data, r);
                width = w;
                x
            });
            let us = started.elapsed().as_secs_f64() * 1e6 / rows.iter().sum::<usize>() as f64;
            (inputs, width, us)
        }
    };
    let targets = data.splits.each_ref().map(|r| r.targets.as_slice());
    let config = MlpConfig {
        hidden: args.hidden.clone(),
        epochs: args.epochs,
        patience: args.patience,
        batch: args.batch,
        lr: args.lr,
        seed: args.seed,
    };
    let fitted = mlp::train(&config, width, &inputs, targets, &mut |e| {
        progress(&format!(
            "epoch {}: train loss {:.4}, valid {}",
            e.epoch, e.train_loss, e.valid
        ))
    })?;
    report.shape = fitted.shape;
    report.parameters = fitted.parameters;
    report.epochs = fitted.epochs;
    report.kept_epoch = Some(fitted.kept_epoch);
    report.metrics = fitted.metrics;
    report.train_seconds = fitted.seconds;
    report.input_us = input_us;
    report.model_us = fitted.us_per_prediction;
    Ok(report)
}

fn load_triplet_net(path: &std::path::Path) -> Result<TrainNet> {
    if !path.is_file() {
        bail!(
            "no net at {}; net-linear takes a triplet net (an MLP from `cerise train`), e.g. \
             --net nets/cerise-small-as-d95ae74c41f6.safetensors",
            path.display()
        );
    }
    let file = crate::net::load(path)?;
    if file.meta.arch.mlp().is_none() {
        bail!(
            "{} is a {} net; net-linear regresses a triplet net's f (an MLP from `cerise \
             train`), e.g. --net nets/cerise-small-as-d95ae74c41f6.safetensors",
            path.display(),
            file.meta.arch.family_name()
        );
    }
    TrainNet::from_file(&file, tch::Device::Cpu)
}

/// f for every board, in chunks.
fn scores(net: &TrainNet, boards: &[crate::chess::CompactBoard]) -> Vec<f32> {
    boards.chunks(4096).flat_map(|c| net.score(c)).collect()
}

/// Least-squares `a · f + b` on the training split, then the metrics of every split.
fn net_linear(
    net: &TrainNet,
    data: &RegressionData,
    report: &mut RegressReport,
    progress: &mut dyn FnMut(&str),
) {
    let started = Instant::now();
    let f = data.splits.each_ref().map(|r| scores(net, &r.boards));
    let (a, b) = line_fit(&f[0], &data.splits[0].targets);
    report.train_seconds = started.elapsed().as_secs_f64();
    progress(&format!("pawns = {a:.4} · f + {b:.4}"));
    for ((out, f), rows) in report.metrics.iter_mut().zip(&f).zip(&data.splits) {
        let predictions: Vec<f32> = f.iter().map(|&x| a * x + b).collect();
        *out = metrics(&predictions, &rows.targets);
    }
    report.shape = format!("{} · f + b, f = {}", a, net.meta.preset);
    report.parameters = net.meta.arch.parameter_count() + 2;
    // One board at a time through libtorch (the engine's native backend is far faster, and
    // updates children incrementally; `bench` measures that).
    let boards = &data.splits[2].boards[..data.splits[2].len().min(500)];
    let timed = Instant::now();
    for board in boards {
        std::hint::black_box(net.score(std::slice::from_ref(board)));
    }
    report.model_us = timed.elapsed().as_secs_f64() * 1e6 / boards.len().max(1) as f64;
}

/// The least-squares line through (x, y): slope and intercept; a flat x gives slope 0.
pub fn line_fit(x: &[f32], y: &[f32]) -> (f32, f32) {
    let n = x.len().max(1) as f64;
    let mx = x.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
    let my = y.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (&xi, &yi) in x.iter().zip(y) {
        let dx = f64::from(xi) - mx;
        sxy += dx * (f64::from(yi) - my);
        sxx += dx * dx;
    }
    let a = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (a as f32, (my - a * mx) as f32)
}

#[cfg(test)]
mod tests;
