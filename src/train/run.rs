//! The training loop: batches from the loader, Deep Pink's loss, an optimiser step with the
//! scheduled learning rate, validation rows, checkpoints, and a clean exit on a stop flag.

use super::checkpoint::{self, CheckpointState};
use super::config::TrainConfig;
use super::loader::{spread_sample, Batch, Loader};
use super::loss::{self, LossStats};
use super::metrics::{self, Row};
use super::model::TrainNet;
use super::optim::Optimiser;
use super::plot;
use crate::net::{DeviceChoice, NetMeta};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tch::Tensor;

/// What a run ended with.
#[derive(Clone, Debug)]
pub struct TrainOutcome {
    /// Steps completed (over all resumed runs).
    pub step: u64,
    /// True when the stop flag ended the run before `config.steps`.
    pub stopped: bool,
    /// The last checkpoint written.
    pub checkpoint: PathBuf,
    /// `<out_dir>/cerise-<preset>-<id>.safetensors`, the final weights named by content.
    pub net: PathBuf,
    pub net_id: String,
    pub last_row: Option<Row>,
    pub elapsed_s: f64,
}

pub fn metrics_path(out_dir: &Path) -> PathBuf {
    out_dir.join("metrics.csv")
}

pub fn plot_path(out_dir: &Path) -> PathBuf {
    out_dir.join("curves.png")
}

/// f(p), f(q), f(r) for a batch.
fn forward(net: &TrainNet, batch: &Batch) -> (Tensor, Tensor, Tensor) {
    let f = net.forward_sparse(&batch.boards);
    let n = batch.n as i64;
    (f.narrow(0, 0, n), f.narrow(0, n, n), f.narrow(0, 2 * n, n))
}

fn validate(net: &TrainNet, batches: &[Batch], kappa: f64) -> LossStats {
    let mut stats = LossStats::default();
    tch::no_grad(|| {
        for b in batches {
            let (fp, fq, fr) = forward(net, b);
            stats.add(&fp, &fq, &fr, kappa);
        }
    });
    stats
}

fn describe(config: &TrainConfig) -> String {
    let data = config
        .train
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    format!(
        "Deep Pink triplet objective, kappa={}, {:?} lr0={} tau={} l2={} batch={}, data {data}",
        config.kappa, config.optimiser, config.lr0, config.tau, config.l2, config.batch
    )
}

/// Runs (or, with `resume`, continues) training until `config.steps` or until `stop` is set.
/// `log` receives the progress lines.
pub fn train(
    config: &TrainConfig,
    resume: bool,
    stop: &AtomicBool,
    log: &mut dyn FnMut(&str),
) -> Result<TrainOutcome> {
    config.validate()?;
    if config.torch_threads > 0 {
        tch::set_num_threads(config.torch_threads as i32);
    }
    let device = config.device.parse::<DeviceChoice>()?.resolve()?;
    let out = &config.out_dir;
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create out_dir {}", out.display()))?;

    let mut meta = NetMeta::for_preset(&config.preset)?;
    meta.cp_per_unit = config.cp_per_unit;
    meta.description = Some(describe(config));
    let net = TrainNet::fresh(meta, config.seed, device);
    let mut optim = Optimiser::new(
        &net.vs,
        config.optimiser,
        config.momentum,
        config.nesterov,
        config.l2,
    );
    let mut start_step = 0;
    let mut elapsed_before = 0.0;
    match (checkpoint::newest(out)?, resume) {
        (Some(ckpt), true) => {
            let state = checkpoint::read_state(&ckpt)?;
            checkpoint::restore(&ckpt, &net, &mut optim)?;
            start_step = state.step;
            elapsed_before = state.elapsed_s;
            metrics::truncate_after(&metrics_path(out), start_step)?;
            log(&format!(
                "resuming from {} (step {start_step})",
                ckpt.display()
            ));
        }
        (Some(ckpt), false) => bail!(
            "{} already holds checkpoint {}; pass --resume to continue it or choose another \
             out_dir",
            out.display(),
            ckpt.display()
        ),
        (None, resume) => {
            if resume {
                log("no checkpoint to resume from; starting fresh");
            }
            let _ = std::fs::remove_file(metrics_path(out));
        }
    }
    std::fs::write(out.join("config.toml"), config.to_toml()?)
        .with_context(|| format!("cannot write the config into {}", out.display()))?;

    let valid: Vec<Batch> = spread_sample(&config.valid, config.valid_batches * config.batch)?
        .chunks(config.batch)
        .map(Batch::from_triplets)
        .collect();
    let loader = Loader::spawn(&config.train, config.batch, config.seed, start_step)?;
    log(&format!(
        "{} net ({} parameters) on {device:?}; {} training triplets, {} validation",
        config.preset,
        net.arch().parameter_count(),
        loader.records,
        valid.iter().map(|b| b.n).sum::<usize>()
    ));

    let started = Instant::now();
    let elapsed = || elapsed_before + started.elapsed().as_secs_f64();
    let mut step = start_step;
    let mut last_ckpt = (start_step, checkpoint::newest(out)?);
    let (mut loss_sum, mut loss_n, mut boards_since) = (0.0, 0u64, 0u64);
    let mut since = Instant::now();
    let mut last_row = None;
    let mut stopped = false;
    while step < config.steps {
        if stop.load(Ordering::Relaxed) {
            stopped = true;
            break;
        }
        let batch = loader.next()?;
        let lr = config.lr_at(step);
        let (fp, fq, fr) = forward(&net, &batch);
        let l = loss::mean(&fp, &fq, &fr, config.kappa);
        optim.zero_grad();
        l.backward();
        optim.step(lr);
        let lv = l.double_value(&[]);
        if !lv.is_finite() {
            bail!(
                "the training loss became {lv} at step {step}; lower lr0 (now {}) or kappa",
                config.lr0
            );
        }
        loss_sum += lv;
        loss_n += 1;
        boards_since += 3 * batch.n as u64;
        step += 1;

        if step % config.eval_every == 0 || step == config.steps {
            let v = validate(&net, &valid, config.kappa);
            let row = Row {
                step,
                lr,
                train_loss: loss_sum / loss_n.max(1) as f64,
                valid_loss: v.loss(),
                valid_accuracy: v.accuracy(),
                valid_mean_abs_pq: v.mean_abs_pq(),
                elapsed_s: elapsed(),
                positions_per_s: boards_since as f64 / since.elapsed().as_secs_f64().max(1e-9),
            };
            metrics::append(&metrics_path(out), &row)?;
            log(&format!(
                "step {step}/{} lr {lr:.4} train {:.4} valid {:.4} acc {:.4} |f(p)+f(q)| {:.4} \
                 {:.0} pos/s {:.0}s",
                config.steps,
                row.train_loss,
                row.valid_loss,
                row.valid_accuracy,
                row.valid_mean_abs_pq,
                row.positions_per_s,
                row.elapsed_s
            ));
            last_row = Some(row);
            (loss_sum, loss_n, boards_since) = (0.0, 0, 0);
            since = Instant::now();
        }
        if step % config.checkpoint_every == 0 {
            let path = write_checkpoint(config, &net, &optim, step, elapsed(), log)?;
            last_ckpt = (step, Some(path));
        }
    }
    let checkpoint = match last_ckpt {
        (s, Some(path)) if s == step => path,
        _ => write_checkpoint(config, &net, &optim, step, elapsed(), log)?,
    };
    if stopped {
        log(&format!("stopped at step {step}; resume with --resume"));
    }
    let named = |id: &str| out.join(format!("cerise-{}-{id}.safetensors", config.preset));
    let tmp = out.join("final.safetensors");
    let net_id = net.save(&tmp)?;
    let net_path = named(&net_id);
    std::fs::rename(&tmp, &net_path)
        .with_context(|| format!("cannot name the final net {}", net_path.display()))?;
    Ok(TrainOutcome {
        step,
        stopped,
        checkpoint,
        net: net_path,
        net_id,
        last_row,
        elapsed_s: elapsed(),
    })
}

fn write_checkpoint(
    config: &TrainConfig,
    net: &TrainNet,
    optim: &Optimiser,
    step: u64,
    elapsed_s: f64,
    log: &mut dyn FnMut(&str),
) -> Result<PathBuf> {
    let state = CheckpointState {
        step,
        elapsed_s,
        net_id: String::new(),
        config: config.clone(),
    };
    let path = checkpoint::save(&config.out_dir, net, optim, &state)?;
    let rows = metrics::read(&metrics_path(&config.out_dir))?;
    if !rows.is_empty() {
        let title = format!("{} kappa={}", config.preset, config.kappa);
        if let Err(e) = plot::plot(&rows, &plot_path(&config.out_dir), &title) {
            log(&format!("warning: could not plot the curves: {e:#}"));
        }
    }
    Ok(path)
}

impl std::fmt::Display for TrainOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = if self.stopped { "stopped" } else { "finished" };
        writeln!(
            f,
            "{state} at step {} after {:.0} s",
            self.step, self.elapsed_s
        )?;
        if let Some(r) = &self.last_row {
            writeln!(
                f,
                "last valid loss {:.4}, ordering accuracy {:.4}, mean |f(p)+f(q)| {:.4}",
                r.valid_loss, r.valid_accuracy, r.valid_mean_abs_pq
            )?;
        }
        writeln!(f, "checkpoint {}", self.checkpoint.display())?;
        write!(f, "net {} ({})", self.net.display(), self.net_id)
    }
}
