//! `cerise datagen wdl`: fits the win/draw/loss model of `eval::wdl` to self-play games,
//! and checks it on games held out of the fit.
//!
//! Every position's score (side to move, mates left out) and material count is paired with
//! its game's result from the same side. The counts are gathered into cells of 10 cp by
//! material count, and the model's eight coefficients are fitted to them by maximum
//! likelihood (Adam on the mean negative log-likelihood), as Stockfish's WDL_model fits its
//! own. Games whose number is a multiple of `--holdout-every` are kept out of the fit; the
//! calibration table compares the model's chances with their results.

use crate::data::records::progress::{Progress, Unit};
use crate::data::selfplay::record::Outcome;
use crate::data::selfplay::SelfPlayReader;
use crate::eval::wdl::{material_count, material_share, WdlModel, MATERIAL_MAX, MODEL};
use anyhow::{bail, Result};
use std::fmt;
use std::path::PathBuf;

/// Fit the WDL model to self-play files and print its coefficients and a calibration table.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayWdlArgs {
    /// Files written by `cerise datagen` (with the net whose scores the model is for).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Keep games whose number is a multiple of this out of the fit, to check it on.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..))]
    pub holdout_every: u32,
    /// Leave out the first plies of each game (its random opening moves).
    #[arg(long, default_value_t = 8)]
    pub skip_plies: u16,
    /// Adam steps of the fit.
    #[arg(long, default_value_t = 3000)]
    pub steps: u32,
    /// No progress display on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

/// Scores are gathered in cells this wide (centipawns), from −`SCORE_LIMIT` to `SCORE_LIMIT`
/// (mates and larger scores are left out).
const CELL_CP: i32 = 10;
/// Beyond this the result is all but certain and the cell says nothing about the curve.
const SCORE_LIMIT: i32 = 2000;
const CELLS: usize = (2 * SCORE_LIMIT / CELL_CP) as usize + 1;

/// Win, draw and loss counts (side to move) per material count and score cell.
#[derive(Clone, Debug)]
pub struct WdlTable {
    counts: Vec<[u64; 3]>,
}

impl Default for WdlTable {
    fn default() -> Self {
        WdlTable {
            counts: vec![[0; 3]; (MATERIAL_MAX as usize + 1) * CELLS],
        }
    }
}

impl WdlTable {
    fn index(material: u32, cp: i32) -> usize {
        let cell = (cp.clamp(-SCORE_LIMIT, SCORE_LIMIT) + SCORE_LIMIT + CELL_CP / 2) / CELL_CP;
        material.min(MATERIAL_MAX) as usize * CELLS + cell as usize
    }

    /// `result` is 0 for a win of the side to move, 1 a draw, 2 a loss.
    pub fn add(&mut self, material: u32, cp: i32, result: usize) {
        self.counts[Self::index(material, cp)][result] += 1;
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().flatten().sum()
    }

    /// Every non-empty cell: material count, score in pawns, counts.
    fn cells(&self) -> impl Iterator<Item = (u32, f64, [u64; 3])> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, c)| c.iter().sum::<u64>() > 0)
            .map(|(i, c)| {
                let material = (i / CELLS) as u32;
                let cp = (i % CELLS) as i32 * CELL_CP - SCORE_LIMIT;
                (material, f64::from(cp) / 100.0, *c)
            })
    }

    /// Mean negative log-likelihood of the results under `model`.
    pub fn nll(&self, model: &WdlModel) -> f64 {
        let (mut sum, mut n) = (0.0, 0u64);
        for (material, v, c) in self.cells() {
            let p = model.probabilities(v * 100.0, material);
            for k in 0..3 {
                sum -= c[k] as f64 * p[k].max(1e-12).ln();
            }
            n += c.iter().sum::<u64>();
        }
        sum / n.max(1) as f64
    }

    /// The mean negative log-likelihood of always predicting the table's own result mix.
    pub fn mix_nll(&self) -> f64 {
        let mut totals = [0u64; 3];
        for c in &self.counts {
            for k in 0..3 {
                totals[k] += c[k];
            }
        }
        let n = totals.iter().sum::<u64>().max(1) as f64;
        -totals
            .iter()
            .filter(|&&t| t > 0)
            .map(|&t| t as f64 / n * (t as f64 / n).ln())
            .sum::<f64>()
    }

    /// The coefficients that maximise the likelihood, from Stockfish-like starting values.
    pub fn fit(&self, steps: u32) -> WdlModel {
        let mut theta = [2.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        let (mut m1, mut m2) = ([0.0f64; 8], [0.0f64; 8]);
        let (lr, beta1, beta2) = (0.02, 0.9, 0.999);
        let cells: Vec<_> = self.cells().collect();
        let total = self.total().max(1) as f64;
        for step in 1..=steps {
            let grad = gradient(&cells, &theta, total);
            for i in 0..8 {
                m1[i] = beta1 * m1[i] + (1.0 - beta1) * grad[i];
                m2[i] = beta2 * m2[i] + (1.0 - beta2) * grad[i] * grad[i];
                let hat1 = m1[i] / (1.0 - beta1.powi(step as i32));
                let hat2 = m2[i] / (1.0 - beta2.powi(step as i32));
                theta[i] -= lr * hat1 / (hat2.sqrt() + 1e-12);
            }
        }
        model_of(&theta)
    }
}

fn model_of(theta: &[f64; 8]) -> WdlModel {
    WdlModel {
        a: [theta[0], theta[1], theta[2], theta[3]],
        b: [theta[4], theta[5], theta[6], theta[7]],
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The gradient of the mean negative log-likelihood with respect to the coefficients.
fn gradient(cells: &[(u32, f64, [u64; 3])], theta: &[f64; 8], total: f64) -> [f64; 8] {
    let model = model_of(theta);
    let mut grad = [0.0; 8];
    for &(material, v, c) in cells {
        let m = material_share(material);
        let (a, b) = model.params(m);
        let (zw, zl) = ((v - a) / b, (-v - a) / b);
        let (pw, pl) = (sigmoid(zw), sigmoid(zl));
        let pd = (1.0 - pw - pl).max(1e-12);
        // d(pw)/da, d(pw)/db and the same for pl; pd moves against both.
        let (dw_da, dw_db) = (-pw * (1.0 - pw) / b, -pw * (1.0 - pw) * zw / b);
        let (dl_da, dl_db) = (-pl * (1.0 - pl) / b, -pl * (1.0 - pl) * zl / b);
        let (nw, nd, nl) = (c[0] as f64, c[1] as f64, c[2] as f64);
        let d_a =
            -(nw / pw.max(1e-12) * dw_da + nl / pl.max(1e-12) * dl_da - nd / pd * (dw_da + dl_da));
        let d_b =
            -(nw / pw.max(1e-12) * dw_db + nl / pl.max(1e-12) * dl_db - nd / pd * (dw_db + dl_db));
        let mut power = 1.0;
        for i in 0..4 {
            grad[i] += d_a * power / total;
            grad[4 + i] += d_b * power / total;
            power *= m;
        }
    }
    grad
}

/// One row of the calibration table: held-out positions with scores in `[low, high)`.
#[derive(Clone, Debug, Default)]
pub struct CalibrationRow {
    pub low: i32,
    pub high: i32,
    pub positions: u64,
    /// Mean predicted chances, then the observed shares: win, draw, loss.
    pub predicted: [f64; 3],
    pub observed: [f64; 3],
}

/// Calibration by score band over every material count.
pub fn calibration(table: &WdlTable, model: &WdlModel, edges: &[i32]) -> Vec<CalibrationRow> {
    let mut rows: Vec<CalibrationRow> = edges
        .windows(2)
        .map(|w| CalibrationRow {
            low: w[0],
            high: w[1],
            ..CalibrationRow::default()
        })
        .collect();
    for (material, v, c) in table.cells() {
        let cp = (v * 100.0).round() as i32;
        let Some(row) = rows.iter_mut().find(|r| r.low <= cp && cp < r.high) else {
            continue;
        };
        let n: u64 = c.iter().sum();
        let p = model.probabilities(v * 100.0, material);
        row.positions += n;
        for k in 0..3 {
            row.predicted[k] += p[k] * n as f64;
            row.observed[k] += c[k] as f64;
        }
    }
    for row in &mut rows {
        let n = row.positions.max(1) as f64;
        for k in 0..3 {
            row.predicted[k] /= n;
            row.observed[k] /= n;
        }
    }
    rows
}

pub struct WdlFit {
    pub fit_positions: u64,
    pub held_out_positions: u64,
    pub model: WdlModel,
    /// Held-out mean negative log-likelihood: the fit, the model compiled in now, and a
    /// guess of the held-out result mix alone whatever the score (what the score adds).
    pub held_out_nll: f64,
    pub current_nll: f64,
    pub mix_nll: f64,
    pub rows: Vec<CalibrationRow>,
}

/// Reads the files, fits on most games and checks on the rest.
pub fn run_selfplay_wdl(args: &SelfPlayWdlArgs) -> Result<WdlFit> {
    let (mut fit_table, mut held_out) = (WdlTable::default(), WdlTable::default());
    for path in &args.files {
        let mut reader = SelfPlayReader::open(path)?;
        let mut progress = Progress::new("wdl", reader.len(), Unit::Items, args.no_progress)?;
        let (mut batch, mut done) = (Vec::new(), 0u64);
        while reader.read_batch(1 << 16, &mut batch)? > 0 {
            for r in &batch {
                let score = i32::from(r.score);
                // Beyond SCORE_LIMIT the result is all but certain: such positions would pile
                // into the edge cells at the wrong score and pull the curve.
                if r.ply < args.skip_plies || score.abs() > SCORE_LIMIT {
                    continue;
                }
                let result = match (r.result, r.turn) {
                    (Outcome::Draw, _) => 1,
                    (Outcome::WhiteWins, shakmaty::Color::White)
                    | (Outcome::BlackWins, shakmaty::Color::Black) => 0,
                    _ => 2,
                };
                let table = if r.game % args.holdout_every == 0 {
                    &mut held_out
                } else {
                    &mut fit_table
                };
                table.add(material_count(&r.board), score, result);
            }
            done += batch.len() as u64;
            progress.update(done, path.display().to_string());
        }
        progress.finish();
    }
    if fit_table.total() == 0 || held_out.total() == 0 {
        bail!(
            "too few positions to fit and check the model ({} to fit, {} held out); \
             give more self-play games, or a smaller --holdout-every",
            fit_table.total(),
            held_out.total()
        );
    }
    let model = fit_table.fit(args.steps);
    let edges: Vec<i32> = (-8..=8).map(|k| k * 100).collect();
    let mut edges = edges;
    edges.insert(0, -SCORE_LIMIT);
    edges.push(SCORE_LIMIT + 1);
    Ok(WdlFit {
        fit_positions: fit_table.total(),
        held_out_positions: held_out.total(),
        held_out_nll: held_out.nll(&model),
        current_nll: held_out.nll(&MODEL),
        mix_nll: held_out.mix_nll(),
        rows: calibration(&held_out, &model, &edges),
        model,
    })
}

impl fmt::Display for WdlFit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let coefficients = |c: &[f64; 4]| {
            c.iter()
                .map(|x| format!("{x:.4}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(
            f,
            "fitted on {} positions; checked on {} held-out positions",
            self.fit_positions, self.held_out_positions
        )?;
        writeln!(f, "pub const MODEL: WdlModel = WdlModel {{")?;
        writeln!(f, "    a: [{}],", coefficients(&self.model.a))?;
        writeln!(f, "    b: [{}],", coefficients(&self.model.b))?;
        writeln!(f, "}};")?;
        writeln!(
            f,
            "held-out mean log-loss: {:.4} (the model compiled in now: {:.4}; the result mix \
             alone, whatever the score: {:.4})",
            self.held_out_nll, self.current_nll, self.mix_nll
        )?;
        writeln!(
            f,
            "calibration on held-out games (per cent: predicted / observed)"
        )?;
        writeln!(
            f,
            "{:>13} {:>9}  {:>11}  {:>11}  {:>11}",
            "score (cp)", "positions", "win", "draw", "loss"
        )?;
        for r in &self.rows {
            let band = format!("{}..{}", r.low, r.high);
            write!(f, "{band:>13} {:>9}", r.positions)?;
            for k in 0..3 {
                write!(
                    f,
                    "  {:>5.1}/{:>5.1}",
                    100.0 * r.predicted[k],
                    100.0 * r.observed[k]
                )?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results drawn from a known model are fitted back to it.
    #[test]
    fn the_fit_recovers_the_model_that_made_the_results() {
        let truth = WdlModel {
            a: [1.2, 0.8, 0.0, 0.0],
            b: [0.9, 0.3, 0.0, 0.0],
        };
        let mut table = WdlTable::default();
        for material in [17u32, 30, 45, 60, 78] {
            for cp in (-600..=600).step_by(10) {
                let p = truth.probabilities(f64::from(cp), material);
                for (k, share) in p.iter().enumerate() {
                    for _ in 0..(share * 1000.0).round() as usize {
                        table.add(material, cp, k);
                    }
                }
            }
        }
        let fitted = table.fit(4000);
        let base = table.nll(&truth);
        assert!(table.nll(&fitted) < base + 1e-3, "{fitted:?}");
        for material in [17u32, 40, 78] {
            for cp in [-300, 0, 150, 400] {
                let (want, got) = (
                    truth.probabilities(f64::from(cp), material),
                    fitted.probabilities(f64::from(cp), material),
                );
                for k in 0..3 {
                    assert!(
                        (want[k] - got[k]).abs() < 0.02,
                        "{cp} {material}: {want:?} {got:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn calibration_rows_average_what_falls_in_them() {
        let mut table = WdlTable::default();
        table.add(40, 120, 0);
        table.add(40, 150, 1);
        table.add(40, -50, 2);
        let rows = calibration(&table, &MODEL, &[-100, 0, 100, 200]);
        assert_eq!(
            rows.iter().map(|r| r.positions).collect::<Vec<_>>(),
            [1, 0, 2]
        );
        assert_eq!(rows[2].observed, [0.5, 0.5, 0.0]);
        assert_eq!(rows[0].observed, [0.0, 0.0, 1.0]);
    }
}
