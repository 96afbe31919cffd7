//! Fitting the RBF net: inputs scaled to [0, 1] on the training split, then for every
//! candidate number of fuzzy sets `s`, centres by fuzzy means and output weights by least
//! squares; the `s` with the lowest validation MAE is kept, as in the study.

use super::fuzzy_means::select_centres_nonsymmetric;
use super::lstsq::{design_block, fit_output};
use super::rows::{RegressionData, Rows};
use crate::data::Split;
use crate::features;
use crate::net::rbf::RbfNet;
use anyhow::{bail, Result};
use std::fmt;
use std::time::Instant;

/// Mean absolute error and coefficient of determination.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metrics {
    pub mae: f64,
    pub r2: f64,
}

impl fmt::Display for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MAE {:.4}  R² {:.4}", self.mae, self.r2)
    }
}

pub fn metrics(predictions: &[f32], targets: &[f32]) -> Metrics {
    let n = targets.len().max(1) as f64;
    let mean = targets.iter().map(|&t| f64::from(t)).sum::<f64>() / n;
    let mut abs = 0.0;
    let mut res = 0.0;
    let mut tot = 0.0;
    for (&p, &t) in predictions.iter().zip(targets) {
        let (p, t) = (f64::from(p), f64::from(t));
        abs += (p - t).abs();
        res += (p - t) * (p - t);
        tot += (t - mean) * (t - mean);
    }
    Metrics {
        mae: abs / n,
        r2: if tot > 0.0 { 1.0 - res / tot } else { 0.0 },
    }
}

#[derive(Clone, Debug)]
pub struct FitConfig {
    /// Candidate numbers of fuzzy sets per input.
    pub sets: Vec<u32>,
    /// A partition needing more centres than this is skipped.
    pub max_centres: usize,
    /// Passes of the non-symmetric search after the symmetric choice (see [`fit`]); 0 keeps
    /// the symmetric partition.
    pub nonsymmetric_passes: u32,
}

/// One partition tried.
#[derive(Clone, Debug)]
pub struct Trial {
    /// What was tried: `s = 6`, or a non-symmetric step such as `pass 1: mobility s = 7`.
    pub label: String,
    /// `None` when the partition needed more than `max_centres`.
    pub centres: Option<usize>,
    pub valid: Option<Metrics>,
    pub seconds: f64,
    /// Whether it beat every partition before it on validation MAE.
    pub improved: bool,
}

#[derive(Clone, Debug)]
pub struct FitOutcome {
    pub net: RbfNet,
    pub trials: Vec<Trial>,
    /// Train, valid, test.
    pub metrics: [Metrics; 3],
    /// Fuzzy means and least squares of the kept partition, seconds.
    pub train_seconds: f64,
    /// Every trial together: the cost of choosing the partition, seconds.
    pub search_seconds: f64,
    /// One prediction from raw inputs (scaling and the hidden layer), microseconds.
    pub us_per_prediction: f64,
}

/// The partition with the lowest validation MAE so far, and its fit.
struct Best {
    valid_mae: f64,
    /// One number of sets per input.
    sets: Vec<u32>,
    centres: Vec<f32>,
    weights: Vec<f32>,
    bias: f32,
    seconds: f64,
}

/// The groups of inputs whose numbers of sets the non-symmetric search moves together:
/// each feature family (both colours), and each other input on its own. In order of first
/// appearance, with the inputs' indices.
pub fn input_groups(input_names: &[String]) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    let feature_names = features::names();
    for (i, name) in input_names.iter().enumerate() {
        let group = match feature_names.get(i) {
            Some(f) if f == name => features::family_of(i).unwrap_or(name).to_string(),
            _ => name.clone(),
        };
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, members)) => members.push(i),
            None => groups.push((group, vec![i])),
        }
    }
    groups
}

/// Per-input minimum and 1 / range over `rows` (0 for a constant input).
fn input_scaling(rows: &Rows, width: usize) -> (Vec<f32>, Vec<f32>) {
    let mut lo = vec![f32::INFINITY; width];
    let mut hi = vec![f32::NEG_INFINITY; width];
    for x in rows.inputs.chunks_exact(width) {
        for i in 0..width {
            lo[i] = lo[i].min(x[i]);
            hi[i] = hi[i].max(x[i]);
        }
    }
    let scale = lo
        .iter()
        .zip(&hi)
        .map(|(l, h)| if h > l { 1.0 / (h - l) } else { 0.0 })
        .collect();
    (lo, scale)
}

fn scaled(rows: &Rows, width: usize, min: &[f32], scale: &[f32]) -> Vec<f32> {
    let mut out = rows.inputs.clone();
    for x in out.chunks_exact_mut(width) {
        for i in 0..width {
            x[i] = (x[i] - min[i]) * scale[i];
        }
    }
    out
}

/// Predictions for scaled inputs, block by block.
pub fn predict_scaled(
    x: &[f32],
    centres: &[f32],
    weights: &[f32],
    bias: f32,
    n: usize,
) -> Vec<f32> {
    let mut out = Vec::with_capacity(x.len() / n);
    let k = weights.len();
    for block in x.chunks(2048 * n) {
        let phi = design_block(block, centres, n);
        for i in 0..phi.nrows() {
            let mut sum = f64::from(bias);
            for j in 0..k {
                sum += f64::from(weights[j]) * phi[(i, j)];
            }
            out.push(sum as f32);
        }
    }
    out
}

/// Fits on `data`; `on_trial` sees each partition as it finishes.
///
/// First symmetric fuzzy means for every `config.sets`, as in the study, keeping the `s`
/// with the lowest validation MAE. Then, for `config.nonsymmetric_passes` passes, the
/// non-symmetric variant: for each group of [`input_groups`] in turn, one more set and then
/// one fewer is tried for all its inputs, and the first change that lowers the validation
/// MAE is kept. A pass that changes nothing ends the search. (Alexandridis et al. choose the
/// per-input sets by particle swarm optimisation; this coordinate descent over families is
/// the cheaper choice for ~200 inputs, each trial being a full fit.)
pub fn fit(
    data: &RegressionData,
    feature_set: &str,
    config: &FitConfig,
    mut on_trial: impl FnMut(&Trial),
) -> Result<FitOutcome> {
    let n = data.width;
    let train = &data.splits[Split::Train as usize];
    let valid = &data.splits[Split::Valid as usize];
    let test = &data.splits[Split::Test as usize];
    let (min, scale) = input_scaling(train, n);
    let xs = [
        scaled(train, n, &min, &scale),
        scaled(valid, n, &min, &scale),
        scaled(test, n, &min, &scale),
    ];
    let mut trials = Vec::new();
    let mut best: Option<Best> = None;
    let mut try_partition = |sets: Vec<u32>, label: String, best: &mut Option<Best>| {
        let started = Instant::now();
        let trial = match select_centres_nonsymmetric(&xs[0], &sets, config.max_centres) {
            Err(_) => Trial {
                label,
                centres: None,
                valid: None,
                seconds: started.elapsed().as_secs_f64(),
                improved: false,
            },
            Ok(centres) => {
                let out = fit_output(&xs[0], &train.targets, &centres.values, n);
                let seconds = started.elapsed().as_secs_f64();
                let pred = predict_scaled(&xs[1], &centres.values, &out.weights, out.bias, n);
                let m = metrics(&pred, &valid.targets);
                let count = centres.count();
                let improved = best.as_ref().is_none_or(|b| m.mae < b.valid_mae);
                if improved {
                    *best = Some(Best {
                        valid_mae: m.mae,
                        sets,
                        centres: centres.values,
                        weights: out.weights,
                        bias: out.bias,
                        seconds,
                    });
                }
                Trial {
                    label,
                    centres: Some(count),
                    valid: Some(m),
                    seconds,
                    improved,
                }
            }
        };
        on_trial(&trial);
        let improved = trial.improved;
        trials.push(trial);
        improved
    };
    for &s in &config.sets {
        if s < 2 {
            bail!("--sets: {s} is too few; fuzzy means needs at least 2 sets per input");
        }
        try_partition(vec![s; n], format!("s = {s}"), &mut best);
    }
    let none_fit = || {
        anyhow::anyhow!(
            "every --sets value needed more than --max-centres {} centres; try fewer sets \
             or raise --max-centres",
            config.max_centres
        )
    };
    if best.is_none() {
        return Err(none_fit());
    }
    let groups = input_groups(&data.input_names);
    for pass in 1..=config.nonsymmetric_passes {
        let mut changed = false;
        for (group, members) in &groups {
            let Some(current) = best.as_ref().map(|b| b.sets.clone()) else {
                break;
            };
            let now = current[members[0]];
            for candidate in [now + 1, now - 1] {
                if candidate < 2 {
                    continue;
                }
                let mut sets = current.clone();
                for &i in members {
                    sets[i] = candidate;
                }
                let label = format!("pass {pass}: {group} s = {candidate}");
                if try_partition(sets, label, &mut best) {
                    changed = true;
                    break;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let search_seconds = trials.iter().map(|t| t.seconds).sum();
    let Some(Best {
        sets,
        centres,
        weights,
        bias,
        seconds: train_seconds,
        ..
    }) = best
    else {
        return Err(none_fit());
    };
    let splits = [train, valid, test];
    let metrics_of = |i: usize| {
        let pred = predict_scaled(&xs[i], &centres, &weights, bias, n);
        metrics(&pred, &splits[i].targets)
    };
    let all = [metrics_of(0), metrics_of(1), metrics_of(2)];
    // A partition equal in every input is recorded as the one number of symmetric FM.
    let sets = if sets.iter().all(|&s| s == sets[0]) {
        vec![sets[0]]
    } else {
        sets
    };
    let net = RbfNet {
        features: feature_set.to_string(),
        extra_inputs: data.extra_inputs.clone(),
        sets,
        input_min: min,
        input_scale: scale,
        centres,
        weights,
        bias,
        description: None,
    };
    // One prediction at a time, as the engine makes them.
    let rows = valid.len().min(2000);
    let mut scratch = Vec::new();
    let started = Instant::now();
    let mut sink = 0.0f32;
    for x in valid.inputs.chunks_exact(n).take(rows) {
        sink += net.predict(x, &mut scratch);
    }
    let us = started.elapsed().as_secs_f64() * 1e6 / rows.max(1) as f64;
    std::hint::black_box(sink);
    Ok(FitOutcome {
        net,
        trials,
        metrics: all,
        train_seconds,
        search_seconds,
        us_per_prediction: us,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_are_worked_by_hand() {
        // Targets 1, 2, 3 (mean 2, SS_tot 2); predictions 1, 2, 4: MAE 1/3, SS_res 1.
        let m = metrics(&[1.0, 2.0, 4.0], &[1.0, 2.0, 3.0]);
        assert!((m.mae - 1.0 / 3.0).abs() < 1e-9);
        assert!((m.r2 - 0.5).abs() < 1e-9);
    }

    #[test]
    fn a_smooth_function_is_learned_and_s_is_chosen_on_validation() {
        // y = sin(3a) + b² on [0, 1]², a fixed pseudo-random sample.
        let mut next = super::super::uniform_stream(99u64);
        let mut split = || {
            let mut rows = Rows::default();
            for _ in 0..600 {
                let (a, b) = (next(), next());
                rows.inputs.extend_from_slice(&[a, b]);
                rows.targets.push((3.0 * a).sin() + b * b);
            }
            rows
        };
        let data = RegressionData {
            width: 2,
            input_names: vec!["a".into(), "b".into()],
            extra_inputs: vec![],
            splits: [split(), split(), split()],
            mates_dropped: 0,
            large_dropped: 0,
            feature_seconds: 0.0,
        };
        let config = FitConfig {
            sets: vec![2, 4, 8],
            max_centres: 500,
            nonsymmetric_passes: 0,
        };
        let out = fit(&data, "test-v1", &config, |_| {}).unwrap();
        assert_eq!(out.trials.len(), 3);
        let best = out
            .trials
            .iter()
            .filter_map(|t| t.valid.map(|m| (m.mae, t.label.clone())))
            .fold((f64::INFINITY, String::new()), |a, b| {
                if b.0 < a.0 {
                    b
                } else {
                    a
                }
            });
        assert_eq!(out.net.sets.len(), 1);
        assert_eq!(
            format!("s = {}", out.net.sets[0]),
            best.1,
            "the kept s has the lowest validation MAE"
        );
        let [_, _, test] = out.metrics;
        assert!(test.r2 > 0.99 && test.mae < 0.02, "{test}");
        // The saved net predicts what the fit measured.
        let x = &data.splits[2].inputs[..2];
        let direct = out.net.predict(x, &mut Vec::new());
        let truth = data.splits[2].targets[0];
        assert!((direct - truth).abs() < 0.1, "{direct} vs {truth}");
    }

    /// `rows` points of y = sin(8a) (b is noise the target ignores), inputs named a and b.
    fn wiggle_in_a(seed: u64, rows: usize) -> RegressionData {
        let mut next = super::super::uniform_stream(seed);
        let mut split = || {
            let mut r = Rows::default();
            for _ in 0..rows {
                let (a, b) = (next(), next());
                r.inputs.extend_from_slice(&[a, b]);
                r.targets.push((8.0 * a).sin());
            }
            r
        };
        RegressionData {
            width: 2,
            input_names: vec!["a".into(), "b".into()],
            splits: [split(), split(), split()],
            ..RegressionData::default()
        }
    }

    #[test]
    fn the_non_symmetric_search_keeps_only_what_validation_rewards() {
        let data = wiggle_in_a(5, 500);
        let symmetric = FitConfig {
            sets: vec![3],
            max_centres: 500,
            nonsymmetric_passes: 0,
        };
        let base = fit(&data, "test-v1", &symmetric, |_| {}).unwrap();
        let mut seen = Vec::new();
        let config = FitConfig {
            nonsymmetric_passes: 3,
            ..symmetric
        };
        let out = fit(&data, "test-v1", &config, |t| seen.push(t.label.clone())).unwrap();
        // The symmetric trial comes first, then group steps named by pass, group and s.
        assert_eq!(seen[0], "s = 3");
        assert_eq!(seen[1], "pass 1: a s = 4", "{seen:?}");
        assert!(
            seen.iter().any(|l| l.starts_with("pass 1: b s = ")),
            "{seen:?}"
        );
        // A wiggle along a alone is worth more sets in a than in b.
        assert_eq!(out.net.sets.len(), 2, "{:?}", out.net.sets);
        assert!(out.net.sets[0] > out.net.sets[1], "{:?}", out.net.sets);
        // The kept partition is the validation-best trial, and beats the symmetric start.
        let valid = out.metrics[Split::Valid as usize].mae;
        let best_trial = out
            .trials
            .iter()
            .filter_map(|t| t.valid.map(|m| m.mae))
            .fold(f64::INFINITY, f64::min);
        assert!((valid - best_trial).abs() < 1e-6, "{valid} vs {best_trial}");
        assert!(valid < base.metrics[Split::Valid as usize].mae);
        assert!(out.search_seconds >= out.train_seconds);
    }

    #[test]
    fn inputs_are_grouped_by_feature_family() {
        let mut names: Vec<String> = features::names().iter().map(|s| s.to_string()).collect();
        names.extend(["d2".to_string(), "d4".to_string()]);
        let groups = input_groups(&names);
        let labels: Vec<&str> = groups.iter().map(|(g, _)| g.as_str()).collect();
        assert_eq!(labels[0], "global");
        assert_eq!(labels[1], "material");
        assert_eq!(&labels[labels.len() - 2..], ["d2", "d4"]);
        assert_eq!(groups.len(), 12, "{labels:?}");
        let covered: usize = groups.iter().map(|(_, m)| m.len()).sum();
        assert_eq!(covered, names.len());
        // Both colours' mobility features share one group.
        let (_, mobility) = groups.iter().find(|(g, _)| g == "mobility").unwrap();
        assert!(mobility.iter().any(|&i| names[i].starts_with("white_")));
        assert!(mobility.iter().any(|&i| names[i].starts_with("black_")));
        // Inputs that are not the feature set's own are their own groups.
        let other = input_groups(&["x".to_string(), "y".to_string()]);
        assert_eq!(
            other,
            vec![("x".to_string(), vec![0]), ("y".to_string(), vec![1])]
        );
    }
}
