//! `cerise train-rbf`: fit an RBF net on a labels file and report the study's metrics.

use super::dataset::{load, DataFilter, Scenario};
use super::fit::{fit, input_groups, FitConfig, FitOutcome};
use crate::data::{Split, SplitRatios};
use crate::features;
use anyhow::{bail, Context, Result};
use std::fmt;
use std::path::PathBuf;

/// Fit the RBF evaluator (fuzzy-means centres, least-squares weights) on engine-labelled
/// positions from `cerise data label`.
#[derive(clap::Args, Clone, Debug, PartialEq)]
pub struct RbfArgs {
    /// A labels file written by `cerise data label`.
    #[arg(long)]
    pub labels: PathBuf,
    /// Where the net is written (`.safetensors`).
    #[arg(short, long)]
    pub out: PathBuf,
    /// Inputs: 1 = features + depths 2, 4, 8; 2 = features + depths 2, 4; 3 = features only
    /// (the only one the engine can play with).
    #[arg(long, default_value = "3", value_parser = parse_scenario)]
    pub scenario: Scenario,
    /// Drop labels beyond this many pawns either way (the study's second set: 20); mates are
    /// always dropped. 0 keeps every non-mate label.
    #[arg(long, default_value_t = 20.0)]
    pub max_eval: f32,
    /// Candidate numbers of fuzzy sets per input, tried in turn; the best on validation is
    /// kept.
    #[arg(long, default_value = "3,4,5,6,7,8", value_delimiter = ',')]
    pub sets: Vec<u32>,
    /// Skip a number of sets that needs more centres than this.
    #[arg(long, default_value_t = 3000)]
    pub max_centres: usize,
    /// After the symmetric choice, search a non-symmetric partition for this many passes:
    /// each feature family (and each search input) in turn tries one set more, then one
    /// fewer, keeping a change that lowers the validation MAE. Each step is a full fit, so a
    /// pass over scenario 1's 12 groups costs up to 24 fits. 0 keeps symmetric fuzzy means.
    #[arg(long, default_value_t = 0)]
    pub nonsymmetric_passes: u32,
    /// Train,valid,test percentages of games.
    #[arg(long, default_value = "80,10,10", value_parser = parse_split)]
    pub split: SplitRatios,
    /// Seed of the by-game split.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Replace an existing output file.
    #[arg(long)]
    pub force: bool,
}

pub fn parse_scenario(text: &str) -> Result<Scenario, String> {
    text.parse()
}

pub fn parse_split(text: &str) -> Result<SplitRatios, String> {
    text.parse()
}

/// What `train-rbf` did.
pub struct RbfReport {
    pub args: RbfArgs,
    pub rows: [usize; 3],
    pub mates_dropped: u64,
    pub large_dropped: u64,
    pub features_us: f64,
    pub outcome: FitOutcome,
    pub content_id: String,
    /// The inputs' names, for the non-symmetric partition's groups.
    pub input_names: Vec<String>,
}

impl fmt::Display for RbfReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = &self.outcome;
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
        writeln!(f, "scenario  {}", self.args.scenario.number())?;
        let width = o.trials.iter().map(|t| t.label.len()).max().unwrap_or(0);
        writeln!(
            f,
            "{:<width$}  centres  valid MAE  valid R²  seconds",
            "partition"
        )?;
        for t in &o.trials {
            let mark = if t.improved { "  best so far" } else { "" };
            match (t.centres, t.valid) {
                (Some(c), Some(m)) => writeln!(
                    f,
                    "{:<width$}  {:>7}  {:>9.4}  {:>8.4}  {:>7.1}{mark}",
                    t.label, c, m.mae, m.r2, t.seconds
                )?,
                _ => writeln!(
                    f,
                    "{:<width$}  over {} centres, skipped ({:.1} s)",
                    t.label, self.args.max_centres, t.seconds
                )?,
            }
        }
        writeln!(
            f,
            "kept      {}, {} centres, fitted in {:.1} s ({:.1} s for every partition tried)",
            o.net.sets_label(),
            o.net.centres_count(),
            o.train_seconds,
            o.search_seconds
        )?;
        if o.net.sets.len() > 1 {
            let groups = input_groups(&self.input_names);
            let per_group: Vec<String> = groups
                .iter()
                .map(|(g, members)| format!("{g} {}", o.net.sets[members[0]]))
                .collect();
            writeln!(f, "sets      {}", per_group.join(", "))?;
        }
        for split in Split::ALL {
            writeln!(f, "{:<9} {}", split.name(), o.metrics[split as usize])?;
        }
        writeln!(
            f,
            "speed     {:.1} µs per prediction: {:.1} features + {:.1} net (one core)",
            self.features_us + o.us_per_prediction,
            self.features_us,
            o.us_per_prediction
        )?;
        write!(
            f,
            "net       {} ({})",
            self.args.out.display(),
            self.content_id
        )
    }
}

/// The reports' first line: the split sizes and what the filters left out.
pub fn data_line(
    rows: [usize; 3],
    mates_dropped: u64,
    large_dropped: u64,
    max_eval: f32,
) -> String {
    let filter = if max_eval > 0.0 {
        format!("{large_dropped} beyond {max_eval} pawns")
    } else {
        "no |eval| filter".to_string()
    };
    format!(
        "data      {} train / {} valid / {} test positions ({mates_dropped} mates left out; \
         {filter})",
        rows[0], rows[1], rows[2]
    )
}

/// Runs `cerise train-rbf`; progress goes to stderr, the report is returned.
pub fn run_rbf_cli(args: &RbfArgs) -> Result<RbfReport> {
    if args.out.exists() && !args.force {
        bail!(
            "{} already exists; pass --force to replace it or choose another --out",
            args.out.display()
        );
    }
    let filter = DataFilter {
        max_eval_pawns: (args.max_eval > 0.0).then_some(args.max_eval),
    };
    eprintln!(
        "[train-rbf] reading {} and computing features",
        args.labels.display()
    );
    let data = load(&args.labels, args.scenario, filter, args.split, args.seed)?;
    let rows = data.splits.each_ref().map(|r| r.len());
    let features_us = data.feature_seconds * 1e6 / rows.iter().sum::<usize>() as f64;
    eprintln!(
        "[train-rbf] {} / {} / {} positions, {} inputs",
        rows[0], rows[1], rows[2], data.width
    );
    let config = FitConfig {
        sets: args.sets.clone(),
        max_centres: args.max_centres,
        nonsymmetric_passes: args.nonsymmetric_passes,
    };
    let mut outcome = fit(&data, features::VERSION, &config, |t| {
        match (t.centres, t.valid) {
            (Some(c), Some(m)) => eprintln!(
                "[train-rbf] {}: {c} centres, valid {m} ({:.1} s){}",
                t.label,
                t.seconds,
                if t.improved { ", best so far" } else { "" }
            ),
            _ => eprintln!(
                "[train-rbf] {}: more than {} centres, skipped",
                t.label, args.max_centres
            ),
        }
    })?;
    outcome.net.description = Some(format!(
        "RBF (fuzzy means, {}) on {}, scenario {}, |eval| <= {} pawns",
        outcome.net.sets_label(),
        args.labels.display(),
        args.scenario.number(),
        args.max_eval
    ));
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create directory {}", dir.display()))?;
    }
    let content_id = outcome.net.save(&args.out)?;
    Ok(RbfReport {
        args: args.clone(),
        rows,
        mates_dropped: data.mates_dropped,
        large_dropped: data.large_dropped,
        features_us,
        outcome,
        content_id,
        input_names: data.input_names.clone(),
    })
}
