//! A plain regression MLP on dense inputs, trained with Adam on the Huber loss, inputs
//! standardised on the training split, the epoch with the best validation MAE kept (early
//! stopping after `patience` epochs without a better one).

use crate::data::rng::SplitMix64;
use crate::train::loader::epoch_permutation;
use crate::train::rbf::fit::{metrics, Metrics};
use anyhow::{ensure, Result};
use std::time::Instant;
use tch::nn::{self, Module, OptimizerConfig};
use tch::{Device, Tensor};

#[derive(Clone, Debug, PartialEq)]
pub struct MlpConfig {
    pub hidden: Vec<i64>,
    pub epochs: usize,
    pub patience: usize,
    pub batch: usize,
    pub lr: f64,
    pub seed: u64,
}

/// One epoch's progress.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochLine {
    pub epoch: usize,
    pub train_loss: f64,
    pub valid: Metrics,
}

pub struct Fitted {
    pub shape: String,
    pub parameters: usize,
    pub epochs: Vec<EpochLine>,
    pub kept_epoch: usize,
    /// Train, valid, test, with the kept weights.
    pub metrics: [Metrics; 3],
    pub seconds: f64,
    pub us_per_prediction: f64,
}

/// Per-column mean and 1 / standard deviation over `x` (1 for a constant column).
fn standardisation(x: &[f32], width: usize) -> (Vec<f32>, Vec<f32>) {
    let n = (x.len() / width).max(1) as f64;
    let mut mean = vec![0f64; width];
    let mut sq = vec![0f64; width];
    for row in x.chunks_exact(width) {
        for (i, &v) in row.iter().enumerate() {
            mean[i] += f64::from(v);
            sq[i] += f64::from(v) * f64::from(v);
        }
    }
    let mut inv = vec![1f32; width];
    for i in 0..width {
        mean[i] /= n;
        let var = sq[i] / n - mean[i] * mean[i];
        if var > 1e-12 {
            inv[i] = (1.0 / var.sqrt()) as f32;
        }
    }
    (mean.iter().map(|&m| m as f32).collect(), inv)
}

fn tensor(x: &[f32], width: usize, mean: &[f32], inv: &[f32]) -> Tensor {
    let mut z = x.to_vec();
    for row in z.chunks_exact_mut(width) {
        for i in 0..width {
            row[i] = (row[i] - mean[i]) * inv[i];
        }
    }
    Tensor::from_slice(&z).view([-1, width as i64])
}

/// The layers with zero weights: [`initialise`] draws them, so that building draws nothing
/// from libtorch's global generator, which other threads' seeded initialisations use.
fn build(vs: &nn::Path, width: i64, hidden: &[i64]) -> nn::Sequential {
    let zeros = nn::LinearConfig {
        ws_init: nn::Init::Const(0.0),
        bs_init: Some(nn::Init::Const(0.0)),
        bias: true,
    };
    let mut seq = nn::seq();
    let mut last = width;
    for (i, &h) in hidden.iter().enumerate() {
        seq = seq
            .add(nn::linear(vs / format!("l{i}"), last, h, zeros))
            .add_fn(|x| x.relu());
        last = h;
    }
    seq.add(nn::linear(vs / "out", last, 1, zeros))
}

/// libtorch's default for a linear layer, drawn from `seed`: weights uniform in
/// ±√(6 / fan-in) (Kaiming for ReLU), biases in ±1/√fan-in.
fn initialise(vs: &nn::VarStore, seed: u64) {
    let vars = vs.variables();
    let mut names: Vec<&String> = vars.keys().collect();
    names.sort();
    let mut rng = SplitMix64::new(seed);
    for name in names {
        let var = &vars[name];
        let layer = name.rsplit_once('.').map_or("", |(l, _)| l);
        let fan_in = vars[&format!("{layer}.weight")].size()[1] as f64;
        let bound = if name.ends_with(".weight") {
            (6.0 / fan_in).sqrt()
        } else {
            1.0 / fan_in.sqrt()
        };
        let values: Vec<f32> = (0..var.numel())
            .map(|_| (rng.next_unit() * 2.0 - 1.0) * bound)
            .map(|v| v as f32)
            .collect();
        tch::no_grad(|| {
            let mut var = var.shallow_clone();
            var.copy_(&Tensor::from_slice(&values).view(var.size().as_slice()));
        });
    }
}

fn predict(model: &nn::Sequential, x: &Tensor) -> Vec<f32> {
    let n = x.size()[0];
    let mut out = Vec::with_capacity(n as usize);
    tch::no_grad(|| {
        let mut start = 0;
        while start < n {
            let len = (n - start).min(4096);
            let y = model.forward(&x.narrow(0, start, len)).view([-1]);
            out.extend(Vec::<f32>::try_from(&y).unwrap_or_default());
            start += len;
        }
    });
    out
}

/// Trains on `inputs[0]` (row-major, `width` per row) against `targets[0]`; `inputs[1]`
/// decides the kept epoch; reports every split with the kept weights.
pub fn train(
    config: &MlpConfig,
    width: usize,
    inputs: &[Vec<f32>; 3],
    targets: [&[f32]; 3],
    each_epoch: &mut dyn FnMut(&EpochLine),
) -> Result<Fitted> {
    ensure!(
        config.batch > 0 && config.epochs > 0,
        "--batch and --epochs must be at least 1"
    );
    ensure!(
        config.hidden.iter().all(|&h| h > 0),
        "--hidden widths must be positive, got {:?}",
        config.hidden
    );
    let (mean, inv) = standardisation(&inputs[0], width);
    let x = inputs
        .each_ref()
        .map(|rows| tensor(rows, width, &mean, &inv));
    let y = targets.map(Tensor::from_slice);
    let vs = nn::VarStore::new(Device::Cpu);
    let model = build(&vs.root(), width as i64, &config.hidden);
    // Weights and the epochs' order come from our own seeded generator, not libtorch's one
    // global RNG: tests train in parallel, and draws they interleaved changed this fit.
    initialise(&vs, config.seed);
    let mut opt = nn::Adam::default().build(&vs, config.lr)?;
    let parameters: usize = vs.trainable_variables().iter().map(|t| t.numel()).sum();
    let n = targets[0].len() as i64;
    let started = Instant::now();
    let mut best: Option<(f64, usize, Vec<Tensor>)> = None;
    let mut epochs = Vec::new();
    for epoch in 1..=config.epochs {
        let order: Vec<i64> = epoch_permutation(n as u64, config.seed, epoch as u64)
            .into_iter()
            .map(i64::from)
            .collect();
        let order = Tensor::from_slice(&order);
        let mut total = 0.0;
        let mut start = 0;
        while start < n {
            let len = (n - start).min(config.batch as i64);
            let idx = order.narrow(0, start, len);
            let prediction = model.forward(&x[0].index_select(0, &idx)).view([-1]);
            let loss =
                prediction.huber_loss(&y[0].index_select(0, &idx), tch::Reduction::Mean, 1.0);
            opt.backward_step(&loss);
            total += loss.double_value(&[]) * len as f64;
            start += len;
        }
        let valid = metrics(&predict(&model, &x[1]), targets[1]);
        let line = EpochLine {
            epoch,
            train_loss: total / n.max(1) as f64,
            valid,
        };
        each_epoch(&line);
        epochs.push(line);
        if best.as_ref().is_none_or(|(mae, _, _)| valid.mae < *mae) {
            let weights = vs.trainable_variables().iter().map(|t| t.copy()).collect();
            best = Some((valid.mae, epoch, weights));
        } else if best
            .as_ref()
            .is_some_and(|(_, e, _)| epoch - e >= config.patience)
        {
            break;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let (_, kept_epoch, weights) = best.expect("at least one epoch ran");
    tch::no_grad(|| {
        for (var, saved) in vs.trainable_variables().iter_mut().zip(&weights) {
            var.copy_(saved);
        }
    });
    let metrics = [0, 1, 2].map(|s| metrics(&predict(&model, &x[s]), targets[s]));
    // One position at a time, as a search would ask.
    let rows = targets[2].len().min(500);
    let timed = Instant::now();
    for r in 0..rows as i64 {
        std::hint::black_box(predict(&model, &x[2].narrow(0, r, 1)));
    }
    let us_per_prediction = timed.elapsed().as_secs_f64() * 1e6 / rows.max(1) as f64;
    let mut shape = width.to_string();
    for h in &config.hidden {
        shape.push_str(&format!("-{h}"));
    }
    shape.push_str("-1");
    Ok(Fitted {
        shape,
        parameters,
        epochs,
        kept_epoch,
        metrics,
        seconds,
        us_per_prediction,
    })
}
