//! `cerise train --config C --speed N`: where a training step's time goes. It takes the
//! config's first N+1 training batches (the first warms up and is not counted), trains a
//! net from the config's start on them by each path (the plain sparse path, every board
//! whole with autograd throughout, is the trainer before 2026-11-27; a perspective net adds
//! the perspective step's layout with autograd, the step itself, both paths again once
//! freed memory is kept, `super::memory`, and on the CPU the native step,
//! `super::native_step`, which `cerise train` runs there), and times each phase of every step on this
//! thread. Every path sees the same batches and starts from the same weights, so the losses
//! must agree step by step to float rounding; the report says by how much they do.
//!
//! The phases run one after another here; in `cerise train` the loader thread reads and
//! prepares the next batch while the step runs, so there the step's own phases set the pace
//! as long as a core is free for the loader.

use super::config::TrainConfig;
use super::loader::{epoch_permutation, Records};
use super::model::TrainNet;
use super::optim::Optimiser;
use super::selfplay::SelfPlaySet;
use super::value::{Layout, ValueObjective};
use super::ObjectiveKind;
use crate::net::{DeviceChoice, NetMeta};
use anyhow::{ensure, Result};
use std::fmt::Write as _;
use std::time::Instant;

/// Seconds summed over the timed steps.
#[derive(Clone, Copy, Debug, Default)]
struct Phases {
    read: f64,
    prepare: f64,
    forward: f64,
    backward: f64,
    optimiser: f64,
}

impl Phases {
    fn step(&self) -> f64 {
        self.read + self.prepare + self.torch()
    }

    fn torch(&self) -> f64 {
        self.forward + self.backward + self.optimiser
    }
}

/// Runs the measurement and returns its report (a Markdown table and the loss agreement).
pub fn run_speed(config: &TrainConfig, steps: u64, log: &mut dyn FnMut(&str)) -> Result<String> {
    config.validate()?;
    ensure!(
        matches!(
            config.objective,
            ObjectiveKind::Value | ObjectiveKind::Mixed
        ),
        "--speed measures the value and mixed objectives"
    );
    ensure!(steps > 0, "--speed needs at least one step");
    if config.torch_threads > 0 {
        tch::set_num_threads(config.torch_threads as i32);
    }
    let device = config
        .device
        .parse::<DeviceChoice>()
        .map_err(anyhow::Error::msg)?
        .resolve()?;
    let set = SelfPlaySet::open(
        &ValueObjective::train_paths(config),
        &ValueObjective::filter(config),
        false,
        &mut |line| log(line),
    )?;
    let count = set.count();
    let perm = epoch_permutation(count, config.seed, 0);
    let batch = config.batch as u64;
    let records = |step: u64| -> Result<Vec<_>> {
        (step * batch..(step + 1) * batch)
            .map(|pos| set.record(u64::from(perm[(pos % count) as usize])))
            .collect()
    };
    // (name, layout, autograd through the first layer, freed memory kept)
    let mut paths = vec![("plain sparse", Layout::Boards, true, false)];
    if ValueObjective::for_config(config).layout != Layout::Boards {
        paths.extend([
            (
                "perspective layout, autograd backward",
                Layout::Persp,
                true,
                false,
            ),
            ("perspective step", Layout::Persp, false, false),
            (
                "plain sparse, freed memory kept",
                Layout::Boards,
                true,
                true,
            ),
            (
                "perspective step, freed memory kept",
                Layout::Persp,
                false,
                true,
            ),
        ]);
        if device == tch::Device::Cpu {
            paths.push((
                "native step, freed memory kept",
                Layout::Native,
                false,
                true,
            ));
        }
    }
    let mut report = String::new();
    writeln!(
        report,
        "{} on {device:?}, {} torch threads, batch {}, {steps} timed steps after 1 warm-up; \
         ms per step\n",
        config.preset,
        tch::get_num_threads(),
        config.batch
    )?;
    writeln!(
        report,
        "| path | read | prepare | forward | backward | optimiser | step | torch only | \
         positions/s (step) | positions/s (torch only) |\n|---|---|---|---|---|---|---|---|---|---|"
    )?;
    let mut losses: Vec<Vec<f64>> = Vec::new();
    let mut positions = 0u64;
    for (name, layout, autograd, keep) in paths {
        log(&format!("timing: {name}"));
        if keep {
            super::memory::keep_freed_memory();
        }
        let objective = ValueObjective {
            layout,
            ..ValueObjective::for_config(config)
        };
        let net = start_net(config, device, log)?;
        let mut optim = Optimiser::for_config(&net.vs, config);
        let mut t = Phases::default();
        let mut path_losses = Vec::new();
        positions = 0;
        for step in 0..=steps {
            let start = Instant::now();
            let recs = records(step)?;
            let read = start.elapsed().as_secs_f64();
            let b = objective.make(&recs, config.seed);
            let prepare = start.elapsed().as_secs_f64() - read;
            optim.zero_grad();
            let (l, forward, backward) = objective.timed_loss_and_grads(&net, &b, autograd);
            let before = Instant::now();
            optim.step(config.lr_at(step));
            let optimiser = before.elapsed().as_secs_f64();
            path_losses.push(l.double_value(&[]));
            if step > 0 {
                t.read += read;
                t.prepare += prepare;
                t.forward += forward;
                t.backward += backward;
                t.optimiser += optimiser;
                positions += b.n as u64;
            }
        }
        let ms = |s: f64| format!("{:.1}", 1000.0 * s / steps as f64);
        writeln!(
            report,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {:.0} | {:.0} |",
            ms(t.read),
            ms(t.prepare),
            ms(t.forward),
            ms(t.backward),
            ms(t.optimiser),
            ms(t.step()),
            ms(t.torch()),
            positions as f64 / t.step(),
            positions as f64 / t.torch()
        )?;
        losses.push(path_losses);
    }
    writeln!(
        report,
        "\n{positions} positions in the timed steps ({} a step).",
        positions / steps
    )?;
    if let [plain, rest @ ..] = &losses[..] {
        let worst = rest
            .iter()
            .flat_map(|other| plain.iter().zip(other).map(|(a, b)| (a - b).abs()))
            .fold(0.0, f64::max);
        writeln!(
            report,
            "Training losses over the {} steps: first {:.6}, last {:.6} (plain sparse); the \
             largest difference of another path's from these, step by step: {worst:.2e}.",
            plain.len(),
            plain[0],
            plain[plain.len() - 1],
        )?;
    }
    Ok(report)
}

/// The net a run of `config` starts from, as `run` makes it.
fn start_net(
    config: &TrainConfig,
    device: tch::Device,
    log: &mut dyn FnMut(&str),
) -> Result<TrainNet> {
    let mut meta = NetMeta::for_preset(&config.preset)?;
    meta.cp_per_unit = config.cp_per_unit;
    Ok(match &config.init {
        None => TrainNet::fresh(meta, config.seed, device),
        Some(path) => super::warm::warm_start(path, meta, device, log)?,
    })
}
