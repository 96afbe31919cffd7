//! The training loop: batches from the loader, the objective's loss, an optimiser step with
//! the scheduled learning rate, validation rows, checkpoints, and a clean exit on a stop flag.

use super::checkpoint::{self, CheckpointState};
use super::config::{ObjectiveKind, TrainConfig};
use super::metrics::{self, Row};
use super::model::TrainNet;
use super::objective::{Objective, Triplets};
use super::optim::Optimiser;
use super::plot;
use crate::net::{DeviceChoice, NetMeta};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

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
    pub objective: ObjectiveKind,
    pub elapsed_s: f64,
}

pub fn metrics_path(out_dir: &Path) -> PathBuf {
    out_dir.join("metrics.csv")
}

pub fn plot_path(out_dir: &Path) -> PathBuf {
    out_dir.join("curves.png")
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
    super::memory::keep_freed_memory();
    let out = &config.out_dir;
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create out_dir {}", out.display()))?;

    match config.objective {
        ObjectiveKind::Triplet => {
            let mut objective = Triplets {
                kappa: config.kappa,
            };
            run(&mut objective, config, resume, stop, log)
        }
        ObjectiveKind::Winloss => {
            let mut objective = super::winloss::WinLoss::for_preset(&config.preset)?;
            run(&mut objective, config, resume, stop, log)
        }
        ObjectiveKind::Policy => {
            let mut objective = super::policy::PolicyObjective::for_preset(&config.preset)?;
            run(&mut objective, config, resume, stop, log)
        }
        ObjectiveKind::Value | ObjectiveKind::Mixed => {
            let mut objective = super::value::ValueObjective::for_config(config);
            run(&mut objective, config, resume, stop, log)
        }
    }
}

fn run<O: Objective>(
    objective: &mut O,
    config: &TrainConfig,
    resume: bool,
    stop: &AtomicBool,
    log: &mut dyn FnMut(&str),
) -> Result<TrainOutcome> {
    let device = config
        .device
        .parse::<DeviceChoice>()
        .map_err(anyhow::Error::msg)?
        .resolve()?;
    let out = &config.out_dir;
    let mut meta = NetMeta::for_preset(&config.preset)?;
    // A win/loss net's scale is the logistic one its preset sets (net::file); the
    // triplet and value objectives fix no scale, so the config chooses it.
    if matches!(
        config.objective,
        ObjectiveKind::Triplet | ObjectiveKind::Value | ObjectiveKind::Mixed
    ) {
        meta.cp_per_unit = config.cp_per_unit;
    }
    meta.description = Some(objective.describe(config));
    let net = match &config.init {
        None => TrainNet::fresh(meta, config.seed, device),
        Some(path) => super::warm::warm_start(path, meta, device, log)?,
    };
    let mut optim = Optimiser::for_config(&net.vs, config);
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

    let valid = objective.valid_batches(config)?;
    let (loader, records) = objective.loader(config, start_step)?;
    log(&format!(
        "{} net ({} parameters) on {device:?}; {records} training records, {} validation \
         boards; {}",
        config.preset,
        net.arch().parameter_count(),
        valid.iter().map(|b| objective.boards(b)).sum::<u64>(),
        objective.describe(config)
    ));

    let started = Instant::now();
    let elapsed = || elapsed_before + started.elapsed().as_secs_f64();
    let mut step = start_step;
    let mut last_ckpt = (start_step, checkpoint::newest(out)?);
    let (mut loss_sum, mut loss_n) = (0.0, 0u64);
    let (mut positions_since, mut boards_since) = (0u64, 0u64);
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
        objective.at_step(config, step);
        // Dropout draws from libtorch's global RNG: seeding it from the step makes a resumed
        // run draw what an uninterrupted one would, and `seeded` keeps another thread of the
        // process (a second run, a test) from drawing in between.
        let step_seed = crate::data::rng::mix64(config.seed ^ step.rotate_left(32));
        optim.zero_grad();
        let l = crate::net::seed::seeded(step_seed, || objective.loss_and_grads(&net, &batch));
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
        positions_since += objective.positions(&batch);
        boards_since += objective.boards(&batch);
        step += 1;

        if step % config.eval_every == 0 || step == config.steps {
            let v = objective.validate(&net, &valid);
            let seconds = since.elapsed().as_secs_f64().max(1e-9);
            let row = Row {
                step,
                lr,
                train_loss: loss_sum / loss_n.max(1) as f64,
                valid_loss: v.loss,
                valid_accuracy: v.accuracy,
                valid_mean_abs_pq: v.extra,
                elapsed_s: elapsed(),
                boards_per_s: boards_since as f64 / seconds,
            };
            metrics::append(&metrics_path(out), &row)?;
            let extra = match config.objective {
                ObjectiveKind::Triplet => format!(" |f(p)+f(q)| {:.4}", row.valid_mean_abs_pq),
                ObjectiveKind::Winloss => String::new(),
                ObjectiveKind::Policy => format!(" moves {:.4}", row.valid_mean_abs_pq),
                ObjectiveKind::Value | ObjectiveKind::Mixed => {
                    format!(" |score-search| {:.1} cp", row.valid_mean_abs_pq)
                }
            };
            // A triplet's three boards are one training position; both counts are shown
            // when they differ.
            let positions_per_s = positions_since as f64 / seconds;
            let speed = if positions_since == boards_since {
                format!("{positions_per_s:.0} positions/s")
            } else {
                format!(
                    "{positions_per_s:.0} positions/s ({:.0} boards/s)",
                    row.boards_per_s
                )
            };
            log(&format!(
                "step {step}/{} lr {lr:.4} train {:.4} valid {:.4} acc {:.4}{extra} {speed} \
                 {:.0}s",
                config.steps, row.train_loss, row.valid_loss, row.valid_accuracy, row.elapsed_s
            ));
            last_row = Some(row);
            (loss_sum, loss_n) = (0.0, 0);
            (positions_since, boards_since) = (0, 0);
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
        objective: config.objective,
        elapsed_s: elapsed(),
    })
}

/// Draws `out_dir`'s curves (`curves.png`) from its metrics, titled and labelled for the
/// config's objective; `cerise train --plot` calls it alone.
pub fn redraw_curves(config: &TrainConfig) -> Result<PathBuf> {
    draw_curves(config, &metrics::read(&metrics_path(&config.out_dir))?)
}

fn draw_curves(config: &TrainConfig, rows: &[Row]) -> Result<PathBuf> {
    let title = match config.objective {
        ObjectiveKind::Value => format!(
            "{} value lambda={} K={}",
            config.preset, config.lambda, config.value_scale
        ),
        ObjectiveKind::Mixed => format!(
            "{} value lambda={} K={} + {} x triplets kappa={}",
            config.preset, config.lambda, config.value_scale, config.triplet_weight, config.kappa
        ),
        _ => format!("{} kappa={}", config.preset, config.kappa),
    };
    let path = plot_path(&config.out_dir);
    plot::plot(rows, &path, &title, plot::Measures::of(config.objective))
        .with_context(|| format!("metrics of {}", config.out_dir.display()))?;
    Ok(path)
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
        if let Err(e) = draw_curves(config, &rows) {
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
            match self.objective {
                ObjectiveKind::Triplet => writeln!(
                    f,
                    "last valid loss {:.4}, ordering accuracy {:.4}, mean |f(p)+f(q)| {:.4}",
                    r.valid_loss, r.valid_accuracy, r.valid_mean_abs_pq
                )?,
                ObjectiveKind::Winloss => writeln!(
                    f,
                    "last valid cross-entropy {:.4}, winner predicted for {:.2}% of decisive \
                     positions",
                    r.valid_loss,
                    100.0 * r.valid_accuracy
                )?,
                ObjectiveKind::Value | ObjectiveKind::Mixed => writeln!(
                    f,
                    "last valid loss {:.4}, {} {:.4}, mean |score - search score| {:.1} cp",
                    r.valid_loss,
                    if self.objective == ObjectiveKind::Mixed {
                        "ordering accuracy"
                    } else {
                        "winner favoured"
                    },
                    r.valid_accuracy,
                    r.valid_mean_abs_pq
                )?,
                ObjectiveKind::Policy => writeln!(
                    f,
                    "last valid loss {:.4} (sum of the seven nets), piece selector top-1 \
                     {:.2}%, move selectors top-1 {:.2}% (unclipped)",
                    r.valid_loss,
                    100.0 * r.valid_accuracy,
                    100.0 * r.valid_mean_abs_pq
                )?,
            }
        }
        writeln!(f, "checkpoint {}", self.checkpoint.display())?;
        write!(f, "net {} ({})", self.net.display(), self.net_id)
    }
}
