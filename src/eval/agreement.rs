//! Do the native and libtorch backends give the same answers? For each position: its own
//! score from scratch, and the scores of all its children computed incrementally from it,
//! each against libtorch. Positions are taken in game order, so the native accumulator
//! stack chains updates as it does in a search.

use super::native::{kernels::Simd, Arithmetic};
use super::{Evaluator, NativeEvaluator, NetEvaluator, NetEvaluatorConfig};
use crate::chess::{CompactBoard, Position};
use crate::net::{DeviceChoice, NetError, NetFile};

/// The largest native−libtorch difference seen, and where.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Worst {
    pub diff_cp: f32,
    pub fen: String,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agreement {
    pub positions: u64,
    pub children: u64,
    pub scratch: Worst,
    pub incremental: Worst,
    /// Scores (either path) further than the tolerance from libtorch.
    pub over_tolerance: u64,
    pub tolerance_cp: f32,
    /// Σ |native − libtorch| over every score compared, and how many there were.
    pub sum_diff_cp: f64,
    pub scores: u64,
    pub arithmetic: Option<Arithmetic>,
}

/// `cerise net compare`: the net at `net` (default: the embedded one) compared on
/// `positions`, in game order, in the native `precision` (fp32 or int8), with progress on
/// stderr.
pub fn run_compare(
    net: Option<&std::path::Path>,
    positions: Vec<Position>,
    tolerance_cp: f32,
    precision: super::Precision,
) -> Result<Agreement, String> {
    let arithmetic = match precision {
        super::Precision::Fp32 => Arithmetic::F32,
        super::Precision::Int8 => Arithmetic::Int8,
        other => return Err(format!("--precision {other}: compare fp32 or int8")),
    };
    let net = match net {
        Some(path) => crate::net::load(path).map_err(|e| e.to_string())?,
        None => super::embedded::net().map_err(|e| e.to_string())?.0,
    };
    eprintln!(
        "[compare] {} net, {} {}",
        net.meta.preset,
        net.meta.arch.family_name(),
        net.meta.arch.describe()
    );
    let total = positions.len();
    let started = std::time::Instant::now();
    let report = compare(
        &net,
        positions.into_iter(),
        total as u64,
        tolerance_cp,
        arithmetic,
        |n| {
            eprint!(
                "\r[compare] {n}/{total} positions ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
        },
    )
    .map_err(|e| e.to_string())?;
    eprintln!();
    Ok(report)
}

impl Agreement {
    /// An error when some score was further from libtorch than the tolerance.
    pub fn check(&self) -> Result<(), String> {
        if self.over_tolerance > 0 {
            return Err(format!(
                "{} scores differ from libtorch by more than {} cp",
                self.over_tolerance, self.tolerance_cp
            ));
        }
        Ok(())
    }

    /// The mean |native − libtorch|.
    pub fn mean_diff_cp(&self) -> f64 {
        self.sum_diff_cp / self.scores.max(1) as f64
    }

    pub fn line(&self) -> String {
        let arithmetic = match self.arithmetic {
            Some(Arithmetic::Int8) => "int8",
            _ => "fp32",
        };
        format!(
            "agreement native={arithmetic} positions={} children={} max_diff_scratch_cp={:.5} \
             max_diff_incremental_cp={:.5} mean_diff_cp={:.5} over_{}cp={} (worst incremental: \
             {})",
            self.positions,
            self.children,
            self.scratch.diff_cp,
            self.incremental.diff_cp,
            self.mean_diff_cp(),
            self.tolerance_cp,
            self.over_tolerance,
            self.incremental.fen
        )
    }
}

/// Compares the two backends on `positions` (at most `limit` of them); `progress` is called
/// with the count done every 1000 positions.
pub fn compare(
    net: &NetFile,
    positions: impl Iterator<Item = Position>,
    limit: u64,
    tolerance_cp: f32,
    arithmetic: Arithmetic,
    mut progress: impl FnMut(u64),
) -> Result<Agreement, NetError> {
    let simd = Simd::chosen().map_err(NetError::BadConfig)?;
    let native = NativeEvaluator::with(net, "native", simd, arithmetic)?;
    let torch = NetEvaluator::from_net(
        net.clone(),
        "torch",
        DeviceChoice::Cpu,
        NetEvaluatorConfig::default(),
    )?;
    let fail = |e: super::EvalError| NetError::BadConfig(e.to_string());
    let mut report = Agreement {
        tolerance_cp,
        arithmetic: Some(arithmetic),
        ..Agreement::default()
    };
    let (mut want, mut got) = (Vec::new(), Vec::new());
    let mut kids: Vec<CompactBoard> = Vec::new();
    for pos in positions.take(limit as usize) {
        let board = pos.compact();
        torch.evaluate(&[board], &mut want).map_err(fail)?;
        native.evaluate(&[board], &mut got).map_err(fail)?;
        note(&mut report, Path::Scratch, &got, &want, &pos);
        kids.clear();
        kids.extend(pos.legal_moves().iter().map(|m| pos.play(m).compact()));
        torch.evaluate(&kids, &mut want).map_err(fail)?;
        native
            .evaluate_children(&board, &kids, &mut got)
            .map_err(fail)?;
        note(&mut report, Path::Incremental, &got, &want, &pos);
        report.positions += 1;
        report.children += kids.len() as u64;
        if report.positions.is_multiple_of(1000) {
            progress(report.positions);
        }
    }
    Ok(report)
}

enum Path {
    Scratch,
    Incremental,
}

fn note(report: &mut Agreement, path: Path, got: &[f32], want: &[f32], pos: &Position) {
    let tolerance = report.tolerance_cp;
    let worst = match path {
        Path::Scratch => &mut report.scratch,
        Path::Incremental => &mut report.incremental,
    };
    let (mut sum, mut over) = (0f64, 0u64);
    for (g, w) in got.iter().zip(want) {
        let d = (g - w).abs();
        sum += f64::from(d);
        if d > tolerance || d.is_nan() {
            over += 1;
        }
        if d > worst.diff_cp || d.is_nan() {
            worst.diff_cp = d;
            worst.fen = pos.fen();
        }
    }
    report.sum_diff_cp += sum;
    report.scores += got.len() as u64;
    report.over_tolerance += over;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_default_agrees_on_a_walk() {
        let (net, _) = crate::eval::embedded::net().unwrap();
        let mut pos = Position::startpos();
        let mut walk = Vec::new();
        for i in 0..60usize {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            walk.push(pos.clone());
            pos = pos.play(&moves[(i * 5 + 2) % moves.len()]);
        }
        let mut calls = 0;
        let report = compare(
            &net,
            walk.clone().into_iter(),
            50,
            0.05,
            Arithmetic::F32,
            |_| calls += 1,
        )
        .unwrap();
        assert_eq!(report.positions, 50);
        assert!(report.children > 50 * 10);
        assert_eq!(report.over_tolerance, 0, "{}", report.line());
        assert!(report.incremental.diff_cp <= 0.05 && report.scratch.diff_cp <= 0.05);
        assert!(report
            .line()
            .starts_with("agreement native=fp32 positions=50 "));
        assert!(report.mean_diff_cp() < 0.01);
        // The int8 path, against the bound bench/records/integer-inference.md records for game positions.
        let report = compare(&net, walk.into_iter(), 50, 50.0, Arithmetic::Int8, |_| {}).unwrap();
        assert_eq!(report.over_tolerance, 0, "{}", report.line());
        assert!(report.mean_diff_cp() < 8.0, "{}", report.line());
        assert!(report
            .line()
            .starts_with("agreement native=int8 positions=50 "));
    }
}
