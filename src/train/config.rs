//! The training configuration: plain data read from TOML, overridable from the command line,
//! printed at start and stored in every checkpoint so a resumed run knows what it was.

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The `objective` of a training config. It is named here, with the rest of the config, and
/// implemented in `objective`, which reads the config: the config need not use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ObjectiveKind {
    /// Deep Pink's (p, q, r) triplets from `cerise data triplets`; MLP presets.
    #[default]
    Triplet,
    /// Binary cross-entropy on the game result of positions from `cerise data positions`;
    /// CNN presets.
    Winloss,
    /// ConvChess's from- and to-square cross-entropies on the moves of labelled positions;
    /// policy presets.
    Policy,
    /// The search's score and the game's result on self-play positions (`cerise datagen`);
    /// MLP presets.
    Value,
    /// The value objective plus Deep Pink's triplets from the same self-play positions.
    Mixed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum OptimKind {
    /// SGD with Nesterov momentum, Deep Pink's choice.
    #[default]
    Sgd,
    Adam,
    /// ConvChess's choice (decay 0.999).
    Rmsprop,
}

/// The `lr_schedule` of a training config (its functions are in `schedule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    /// lr0·exp(−t/τ) (τ = 0: constant), Deep Pink's and generations 1–10's.
    #[default]
    Exp,
    /// From lr0 down to `lr_min` along half a cosine, reaching it at the run's last step.
    Cosine,
    /// lr0 multiplied by `step_gamma` every `step_every` steps (Carp's drop at epoch 30).
    Step,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// What the run optimises; it decides the data files and the presets that fit.
    pub objective: ObjectiveKind,
    /// Architecture preset (`crate::net::preset_names`): an MLP (small, mid, deeppink, …)
    /// for the triplet objective, a CNN (mocha, …) for win/loss.
    pub preset: String,
    pub train: PathBuf,
    pub valid: PathBuf,
    /// Sharpness of the f(p) = −f(q) terms; the blog used 10, the original code 1.
    pub kappa: f64,
    pub optimiser: OptimKind,
    pub lr0: f64,
    /// The learning rate's shape over the run (`schedule`): exp, cosine or step.
    pub lr_schedule: LrSchedule,
    /// Exp: decay time in steps, lr = lr0·exp(−t/τ). 0 disables decay.
    pub tau: f64,
    /// Steps of linear warm-up to lr0 before the schedule; 0: none.
    pub warmup_steps: u64,
    /// Cosine: the learning rate of the last step.
    pub lr_min: f64,
    /// Step: steps between two drops.
    pub step_every: u64,
    /// Step: the factor of each drop.
    pub step_gamma: f64,
    pub momentum: f64,
    pub nesterov: bool,
    /// L2 weight decay.
    pub l2: f64,
    /// Triplets per step.
    pub batch: usize,
    /// Total optimiser steps of the run (a resumed run stops at the same total).
    pub steps: u64,
    pub eval_every: u64,
    pub checkpoint_every: u64,
    /// Validation batches (of `batch` triplets) per evaluation; always the same ones.
    pub valid_batches: usize,
    pub seed: u64,
    /// libtorch intra-op threads; 0 leaves libtorch's default.
    pub torch_threads: usize,
    /// Threads that read and encode training batches; 0 chooses: the cores left beside
    /// `torch_threads`, at least 1 and at most 8. The batches are the same whatever the
    /// number; more only keeps a fast device fed.
    pub loader_threads: usize,
    /// auto, cpu or cuda.
    pub device: String,
    pub out_dir: PathBuf,
    /// Stored in the net file: centipawns per unit of f (triplet objective only; a win/loss
    /// net always stores the logistic scale 400 / ln 10 per logit).
    pub cp_per_unit: f32,
    /// Value and mixed objectives: more self-play files to train on, beside `train`.
    pub train_more: Vec<PathBuf>,
    /// Value target: weight of the game's result against the search's score.
    pub lambda: f64,
    /// Value: λ at the last step, reached linearly from `lambda` (a rising result weight, as
    /// akimbo's 0.2 → 0.5); unset keeps `lambda` throughout.
    pub lambda_end: Option<f64>,
    /// Value: centipawns of one logistic unit (K in σ(score/K)).
    pub value_scale: f64,
    /// Mixed: weight of the triplet loss beside the value loss.
    pub triplet_weight: f64,
    /// Self-play: plies at the start of every game left out.
    pub skip_plies: u32,
    /// Self-play: when set, each file's games lose its own random plies (its header's
    /// `random plies`) and this many more, in place of `skip_plies`; 8 keeps files of 8
    /// random plies as `skip_plies = 16` does, and lets a file of 2 keep plies 10 on.
    pub skip_after_random: Option<u32>,
    /// Self-play: plies left out of every game of the named files, in place of the rule
    /// above for them alone (a file of Chess960 starts with 2 random plies can keep its
    /// opening from ply 2 while every older file keeps losing 16). Each key must be one of
    /// `train`, `train_more` or `valid`.
    pub skip_plies_by_file: std::collections::BTreeMap<PathBuf, u32>,
    /// Self-play: how many times an epoch the kept positions of the named training files are
    /// drawn (2.0 twice, 0.5 a fixed half; others once), so that the newest games can count
    /// for more than the oldest without leaving those out. Each key must be `train` or in
    /// `train_more`; a weight is from 0.001 (they are kept in thousandths) to 16.
    pub weight_by_file: std::collections::BTreeMap<PathBuf, f64>,
    /// Self-play: per mille of games held out for validation (the same games of a file in
    /// every run: `valid` usually names the same file as `train`).
    pub valid_permille: u32,
    /// A net file to start from instead of fresh weights (a warm start: a generation's net
    /// begins from the one whose games it learns from). Its shape must be the preset's and
    /// its scale `cp_per_unit`, except that a single-output perspective net may start a
    /// preset of its width with output buckets, and an unmirrored one a king-file mirrored
    /// preset (`train::warm`); `None` starts fresh.
    pub init: Option<PathBuf>,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            objective: ObjectiveKind::Triplet,
            preset: "small".to_string(),
            train: PathBuf::from("/work/data-out/masters.train.trip"),
            valid: PathBuf::from("/work/data-out/masters.valid.trip"),
            kappa: 10.0,
            optimiser: OptimKind::Sgd,
            lr0: 0.03,
            lr_schedule: LrSchedule::Exp,
            tau: 100_000.0,
            warmup_steps: 0,
            lr_min: 0.0,
            step_every: 0,
            step_gamma: 0.1,
            momentum: 0.9,
            nesterov: true,
            l2: 1e-5,
            batch: 2000,
            steps: 10_000,
            eval_every: 100,
            checkpoint_every: 500,
            valid_batches: 10,
            seed: 1,
            torch_threads: 2,
            loader_threads: 0,
            device: "auto".to_string(),
            out_dir: PathBuf::from("runs/small"),
            cp_per_unit: crate::net::file::DEFAULT_CP_PER_UNIT,
            train_more: Vec::new(),
            lambda: 0.5,
            lambda_end: None,
            value_scale: 400.0,
            triplet_weight: 0.1,
            skip_plies: 16,
            skip_after_random: None,
            skip_plies_by_file: std::collections::BTreeMap::new(),
            weight_by_file: std::collections::BTreeMap::new(),
            valid_permille: 50,
            init: None,
        }
    }
}

impl TrainConfig {
    /// The loader's worker count: `loader_threads`, or when 0 the cores `torch_threads`
    /// leaves (1 to 8; a 2-core machine training on 2 torch threads gets 1).
    pub fn loader_threads(&self) -> usize {
        if self.loader_threads > 0 {
            return self.loader_threads;
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        cores.saturating_sub(self.torch_threads).clamp(1, 8)
    }

    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self> {
        let config: TrainConfig = toml::from_str(text)
            .with_context(|| format!("{origin} is not a valid training config"))?;
        config.validate()?;
        Ok(config)
    }

    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read config {}", path.display()))?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    pub fn to_toml(&self) -> Result<String> {
        toml::to_string(self).context("cannot serialise the training config")
    }

    /// Rejects values that would make a run meaningless or crash it later.
    pub fn validate(&self) -> Result<()> {
        let arch = crate::net::ModelArch::preset(&self.preset)?;
        use crate::net::ModelArch;
        use ObjectiveKind as O;
        let (fits, wants) = match self.objective {
            O::Triplet | O::Value | O::Mixed => (
                matches!(arch, ModelArch::Mlp(_)),
                "an MLP preset (small, …)",
            ),
            O::Winloss => (matches!(arch, ModelArch::Cnn(_)), "a CNN preset (mocha, …)"),
            O::Policy => (
                matches!(arch, ModelArch::Policy(_)),
                "a policy preset (convchess, …)",
            ),
        };
        if !fits {
            let right = match arch {
                ModelArch::Mlp(_) => "triplet",
                ModelArch::Cnn(_) => "winloss",
                ModelArch::Policy(_) => "policy",
            };
            bail!(
                "invalid training config: the {:?} objective trains {wants}, and {} is a {}; \
                 set objective = \"{right}\" or another preset",
                self.objective,
                self.preset,
                arch.family_name()
            );
        }
        self.device
            .parse::<crate::net::DeviceChoice>()
            .map_err(anyhow::Error::msg)?;
        let checks: [(bool, &str); 15] = [
            (
                (0.0..=1.0).contains(&self.lambda),
                "lambda must be in [0, 1]",
            ),
            (
                self.value_scale.is_finite() && self.value_scale > 0.0,
                "value_scale must be positive",
            ),
            (
                self.triplet_weight.is_finite()
                    && self.triplet_weight >= 0.0
                    && self.valid_permille < 1000,
                "triplet_weight must be ≥ 0 and valid_permille below 1000",
            ),
            (self.batch > 0, "batch must be at least 1"),
            (self.eval_every > 0, "eval_every must be at least 1"),
            (
                self.checkpoint_every > 0,
                "checkpoint_every must be at least 1",
            ),
            (
                self.lr0.is_finite() && self.lr0 > 0.0,
                "lr0 must be positive",
            ),
            (
                self.tau.is_finite() && self.tau >= 0.0,
                "tau must be ≥ 0 (0 = constant lr)",
            ),
            (
                self.kappa.is_finite() && self.kappa > 0.0,
                "kappa must be positive",
            ),
            (
                (0.0..1.0).contains(&self.momentum),
                "momentum must be in [0, 1)",
            ),
            (
                self.l2.is_finite() && self.l2 >= 0.0 && self.cp_per_unit > 0.0,
                "l2 must be ≥ 0 and cp_per_unit positive",
            ),
            (
                self.lambda_end.is_none_or(|l| (0.0..=1.0).contains(&l)),
                "lambda_end must be in [0, 1]",
            ),
            (
                self.lr_min.is_finite() && self.lr_min >= 0.0 && self.lr_min <= self.lr0,
                "lr_min must be between 0 and lr0",
            ),
            (
                self.lr_schedule != LrSchedule::Step || self.step_every > 0,
                "the step schedule needs step_every of at least 1",
            ),
            (
                self.step_gamma.is_finite() && self.step_gamma > 0.0 && self.step_gamma <= 1.0,
                "step_gamma must be in (0, 1]",
            ),
        ];
        for (ok, msg) in checks {
            if !ok {
                bail!("invalid training config: {msg}");
            }
        }
        let named =
            |p: &PathBuf| *p == self.train || *p == self.valid || self.train_more.contains(p);
        if let Some(stray) = self.skip_plies_by_file.keys().find(|p| !named(p)) {
            bail!(
                "invalid training config: skip_plies_by_file names {}, which is not train, \
                 valid or in train_more; write the path as those keys do",
                stray.display()
            );
        }
        let trained = |p: &PathBuf| *p == self.train || self.train_more.contains(p);
        if let Some(stray) = self.weight_by_file.keys().find(|p| !trained(p)) {
            bail!(
                "invalid training config: weight_by_file names {}, which is not train or in \
                 train_more (validation is never weighted); write the path as those keys do",
                stray.display()
            );
        }
        if let Some((path, w)) = self
            .weight_by_file
            .iter()
            .find(|(_, w)| !(w.is_finite() && **w >= 0.001 && **w <= 16.0))
        {
            bail!(
                "invalid training config: weight_by_file gives {} the weight {w}; a weight is \
                 at least 0.001 (weights are kept in thousandths) and at most 16 (leave a \
                 file out of train_more to drop it)",
                path.display()
            );
        }
        Ok(())
    }

    /// The training file's name without its folder, for descriptions.
    pub fn train_file_name(&self) -> String {
        self.train
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written out and read back, `c` is the same config.
    fn assert_round_trips(c: &TrainConfig) {
        let again = TrainConfig::from_toml_str(&c.to_toml().expect("serialises"), "again")
            .expect("round trip");
        assert_eq!(&again, c);
    }

    #[test]
    fn parses_partial_toml_with_defaults_and_round_trips() {
        let c = TrainConfig::from_toml_str(
            "preset = \"mid\"\nkappa = 1.0\noptimiser = \"adam\"\nsteps = 7\n",
            "test",
        )
        .expect("valid config");
        assert_eq!(c.preset, "mid");
        assert_eq!(c.kappa, 1.0);
        assert_eq!(c.optimiser, OptimKind::Adam);
        assert_eq!(c.steps, 7);
        assert_eq!(c.batch, 2000);
        assert_round_trips(&c);
    }

    #[test]
    fn skip_plies_by_file_round_trips_and_must_name_a_trained_file() {
        let text = "train = \"a.self\"\ntrain_more = [\"b.self\"]\n\
                    [skip_plies_by_file]\n\"b.self\" = 2\n";
        let c = TrainConfig::from_toml_str(text, "t").expect("valid config");
        assert_eq!(c.skip_plies_by_file.get(Path::new("b.self")), Some(&2));
        assert_round_trips(&c);
        let typo = text.replace("\"b.self\" = 2", "\"c.self\" = 2");
        let err = TrainConfig::from_toml_str(&typo, "t").unwrap_err();
        assert!(format!("{err:#}").contains("c.self"), "{err:#}");
    }

    #[test]
    fn weight_by_file_round_trips_and_must_name_a_trained_file_and_a_sane_weight() {
        let text = "train = \"a.self\"\ntrain_more = [\"b.self\"]\nvalid = \"v.self\"\n\
                    [weight_by_file]\n\"b.self\" = 0.5\n\"a.self\" = 2.0\n";
        let c = TrainConfig::from_toml_str(text, "t").expect("valid config");
        assert_eq!(c.weight_by_file.get(Path::new("b.self")), Some(&0.5));
        assert_round_trips(&c);
        for (bad, says) in [
            ("\"v.self\" = 0.5", "v.self"),
            ("\"c.self\" = 0.5", "c.self"),
            ("\"b.self\" = 0.0", "weight 0"),
            ("\"b.self\" = 17.0", "at most 16"),
            ("\"b.self\" = -1.0", "weight -1"),
            ("\"b.self\" = 0.0004", "at least 0.001"),
        ] {
            let err = TrainConfig::from_toml_str(&text.replace("\"b.self\" = 0.5", bad), "t")
                .unwrap_err();
            assert!(format!("{err:#}").contains(says), "{bad}: {err:#}");
        }
    }

    #[test]
    fn rejects_unknown_keys_and_bad_values() {
        let err = TrainConfig::from_toml_str("kapa = 1.0", "t").unwrap_err();
        assert!(format!("{err:#}").contains("kapa"), "{err:#}");
        let err = TrainConfig::from_toml_str("preset = \"huge\"", "t").unwrap_err();
        assert!(format!("{err:#}").contains("huge"), "{err:#}");
        assert!(TrainConfig::from_toml_str("batch = 0", "t").is_err());
        assert!(TrainConfig::from_toml_str("device = \"gpu\"", "t").is_err());
        assert!(TrainConfig::from_toml_str("momentum = 1.0", "t").is_err());
        let err = TrainConfig::from_toml_str("preset = \"mocha\"", "t").unwrap_err();
        assert!(
            format!("{err:#}").contains("objective = \"winloss\""),
            "{err:#}"
        );
        let err = TrainConfig::from_toml_str("objective = \"winloss\"", "t").unwrap_err();
        assert!(format!("{err:#}").contains("CNN preset"), "{err:#}");
        let err = TrainConfig::from_toml_str("preset = \"convchess\"", "t").unwrap_err();
        assert!(
            format!("{err:#}").contains("objective = \"policy\""),
            "{err:#}"
        );
        let cnn = TrainConfig::from_toml_str("objective = \"winloss\"\npreset = \"mocha\"", "t")
            .expect("a cnn preset with the winloss objective");
        assert_eq!(cnn.objective, super::super::ObjectiveKind::Winloss);
    }

    #[test]
    fn every_shipped_config_parses_and_validates() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/configs");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).expect("configs/ exists") {
            let path = entry.expect("readable").path();
            if path.extension().is_some_and(|e| e == "toml") {
                TrainConfig::load(&path).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
                seen += 1;
            }
        }
        assert!(seen >= 8, "only {seen} configs found in {dir}");
    }
}
