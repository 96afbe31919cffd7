//! Do the native and libtorch backends give the same answers? For each position: its own
//! score from scratch, and the scores of all its children computed incrementally from it,
//! each against libtorch. Positions are taken in game order, so the native accumulator
//! stack chains updates as it does in a search.

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
}

impl Agreement {
    pub fn line(&self) -> String {
        format!(
            "agreement positions={} children={} max_diff_scratch_cp={:.5} \
             max_diff_incremental_cp={:.5} over_{}cp={} (worst incremental: {})",
            self.positions,
            self.children,
            self.scratch.diff_cp,
            self.incremental.diff_cp,
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
    mut progress: impl FnMut(u64),
) -> Result<Agreement, NetError> {
    let native = NativeEvaluator::from_net(net, "native")?;
    let torch = NetEvaluator::from_net(
        net.clone(),
        "torch",
        DeviceChoice::Cpu,
        NetEvaluatorConfig::default(),
    )?;
    let fail = |e: super::EvalError| NetError::BadConfig(e.to_string());
    let mut report = Agreement {
        tolerance_cp,
        ..Agreement::default()
    };
    let (mut want, mut got) = (Vec::new(), Vec::new());
    let mut kids: Vec<CompactBoard> = Vec::new();
    for pos in positions.take(limit as usize) {
        let board = pos.compact();
        torch.evaluate(&[board], &mut want).map_err(fail)?;
        native.evaluate(&[board], &mut got).map_err(fail)?;
        note(
            &mut report.scratch,
            &mut report.over_tolerance,
            &got,
            &want,
            &pos,
            tolerance_cp,
        );
        kids.clear();
        kids.extend(pos.legal_moves().iter().map(|m| pos.play(m).compact()));
        torch.evaluate(&kids, &mut want).map_err(fail)?;
        native
            .evaluate_children(&board, &kids, &mut got)
            .map_err(fail)?;
        note(
            &mut report.incremental,
            &mut report.over_tolerance,
            &got,
            &want,
            &pos,
            tolerance_cp,
        );
        report.positions += 1;
        report.children += kids.len() as u64;
        if report.positions.is_multiple_of(1000) {
            progress(report.positions);
        }
    }
    Ok(report)
}

fn note(worst: &mut Worst, over: &mut u64, got: &[f32], want: &[f32], pos: &Position, tol: f32) {
    for (g, w) in got.iter().zip(want) {
        let d = (g - w).abs();
        if d > tol || d.is_nan() {
            *over += 1;
        }
        if d > worst.diff_cp || d.is_nan() {
            worst.diff_cp = d;
            worst.fen = pos.fen();
        }
    }
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
        let report = compare(&net, walk.into_iter(), 50, 0.05, |_| calls += 1).unwrap();
        assert_eq!(report.positions, 50);
        assert!(report.children > 50 * 10);
        assert_eq!(report.over_tolerance, 0, "{}", report.line());
        assert!(report.incremental.diff_cp <= 0.05 && report.scratch.diff_cp <= 0.05);
        assert!(report.line().starts_with("agreement positions=50 "));
    }
}
