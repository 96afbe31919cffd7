//! Checkpoints: `<out_dir>/checkpoints/step-<N>/` holding the net (the engine's file format),
//! the optimiser state and `state.toml` (step, timing, the config). Each is written into a
//! temporary directory and renamed into place, so a checkpoint directory that exists is
//! complete; a run killed mid-write leaves only a `.tmp-*` directory, ignored and removed.

use super::config::TrainConfig;
use super::model::TrainNet;
use super::optim::Optimiser;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Older checkpoints beyond this many are deleted.
const KEEP: usize = 2;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointState {
    /// Optimiser steps completed.
    pub step: u64,
    /// Training seconds before this checkpoint, summed over resumed runs.
    pub elapsed_s: f64,
    /// Content id of `net.safetensors`.
    pub net_id: String,
    pub config: TrainConfig,
}

pub fn checkpoints_dir(out_dir: &Path) -> PathBuf {
    out_dir.join("checkpoints")
}

fn step_dir(out_dir: &Path, step: u64) -> PathBuf {
    checkpoints_dir(out_dir).join(format!("step-{step:09}"))
}

pub fn net_path(checkpoint: &Path) -> PathBuf {
    checkpoint.join("net.safetensors")
}

/// Writes a checkpoint atomically and prunes old ones; returns its directory.
pub fn save(
    out_dir: &Path,
    net: &TrainNet,
    optim: &Optimiser,
    state: &CheckpointState,
) -> Result<PathBuf> {
    let root = checkpoints_dir(out_dir);
    std::fs::create_dir_all(&root)
        .with_context(|| format!("cannot create checkpoint directory {}", root.display()))?;
    let tmp = root.join(format!(
        ".tmp-step-{:09}-{}",
        state.step,
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let net_id = net.save(&net_path(&tmp))?;
    let optim_path = tmp.join("optim.safetensors");
    tch::Tensor::write_safetensors(&optim.state_tensors(), &optim_path)
        .with_context(|| format!("cannot write {}", optim_path.display()))?;
    let state = CheckpointState {
        net_id,
        ..state.clone()
    };
    let text = toml::to_string(&state).context("cannot serialise the checkpoint state")?;
    std::fs::write(tmp.join("state.toml"), text)
        .with_context(|| format!("cannot write state into {}", tmp.display()))?;
    let dest = step_dir(out_dir, state.step);
    if dest.exists() {
        std::fs::remove_dir_all(&dest)
            .with_context(|| format!("cannot replace {}", dest.display()))?;
    }
    std::fs::rename(&tmp, &dest)
        .with_context(|| format!("cannot move checkpoint into {}", dest.display()))?;
    prune(out_dir)?;
    Ok(dest)
}

/// Complete checkpoints, oldest first.
pub fn list(out_dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let root = checkpoints_dir(out_dir);
    if !root.exists() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    for entry in
        std::fs::read_dir(&root).with_context(|| format!("cannot list {}", root.display()))?
    {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(step) = name
            .strip_prefix("step-")
            .and_then(|s| s.parse::<u64>().ok())
        {
            found.push((step, entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

pub fn newest(out_dir: &Path) -> Result<Option<PathBuf>> {
    Ok(list(out_dir)?.pop().map(|(_, p)| p))
}

fn prune(out_dir: &Path) -> Result<()> {
    let all = list(out_dir)?;
    for (_, path) in all.iter().take(all.len().saturating_sub(KEEP)) {
        std::fs::remove_dir_all(path)
            .with_context(|| format!("cannot remove old checkpoint {}", path.display()))?;
    }
    for entry in std::fs::read_dir(checkpoints_dir(out_dir))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = format!("-{}", std::process::id());
        if name.starts_with(".tmp-step-") && !name.ends_with(&ours) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    Ok(())
}

pub fn read_state(checkpoint: &Path) -> Result<CheckpointState> {
    let path = checkpoint.join("state.toml");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("{} is not a checkpoint state", path.display()))
}

/// Loads the weights and optimiser state of `checkpoint` into `net` and `optim`.
pub fn restore(checkpoint: &Path, net: &TrainNet, optim: &mut Optimiser) -> Result<()> {
    let file = crate::net::load(&net_path(checkpoint))?;
    if file.meta.arch != *net.arch() {
        bail!(
            "checkpoint {} holds a {} net, the config asks for {}; use another out_dir or the \
             checkpoint's preset",
            checkpoint.display(),
            file.meta.arch.describe(),
            net.arch().describe()
        );
    }
    file.copy_into(&net.vs)?;
    let optim_path = checkpoint.join("optim.safetensors");
    let state = tch::Tensor::read_safetensors(&optim_path)
        .with_context(|| format!("cannot read {}", optim_path.display()))?;
    optim
        .load_state(&state)
        .with_context(|| format!("in {}", optim_path.display()))
}
