//! `cerise evalpos`: how well a net predicts the winner of labelled positions (the
//! Mocha.jl study's test accuracy), for a net of any family.
//!
//! A CNN is scored twice when its planes carry colour ([`Planes::Mocha7Abs`]): as trained
//! (true colours, label "White wins") and as the engine runs it (the side to move in White's
//! seat, label "the side to move wins"; see `crate::net::planes`). An MLP's score for the
//! side to move stands in for a logit: only its accuracy means anything, not its loss.
//!
//! Game phase, for the accuracy by phase: the opening is the first 20 plies; after that a
//! position is an endgame when the non-pawn material of both sides together (N = B = 3,
//! R = 5, Q = 9; 62 at the start) is at most 26, and a middlegame otherwise.

use super::winloss::{target, WinLossStats};
use crate::data::positions::{LabelledPosition, PositionReader};
use crate::eval::torch::TrueColourCnn;
use crate::eval::{Backend, Evaluator, NetEvaluator, NetEvaluatorConfig, MAX_BATCH_LIMIT};
use crate::net::{DeviceChoice, Planes};
use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args, Clone, Debug)]
pub struct EvalposArgs {
    /// The net file (.safetensors): for `evalpos` an evaluator of any family, for
    /// `evalpolicy` a convchess-policy file.
    #[arg(long)]
    pub net: PathBuf,
    /// Labelled positions from `cerise data positions` (e.g. `<prefix>.test.pos`).
    #[arg(long)]
    pub positions: PathBuf,
    /// Evaluate at most this many positions, spread evenly over the file.
    #[arg(long)]
    pub max: Option<u64>,
    #[arg(long, default_value_t = 1024)]
    pub batch: usize,
    /// auto, cpu or cuda.
    #[arg(long, default_value = "auto")]
    pub device: DeviceChoice,
    #[arg(long)]
    pub no_progress: bool,
}

#[derive(Clone, Debug)]
pub struct EvalposReport {
    pub net: String,
    pub family: String,
    pub positions: u64,
    /// As trained (a CNN), or the engine's view (an MLP).
    pub trained: WinLossStats,
    /// The engine's view of a colour-aware CNN.
    pub engine: Option<WinLossStats>,
    /// `trained` split by [`Phase`].
    pub phases: [WinLossStats; 3],
    pub seconds: f64,
}

impl std::fmt::Display for EvalposReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let line = |f: &mut std::fmt::Formatter<'_>, what: &str, s: &WinLossStats| {
            writeln!(
                f,
                "{what}: accuracy {:.2}% on {} decisive positions, cross-entropy {:.4}",
                100.0 * s.accuracy(),
                s.decisive,
                s.loss()
            )
        };
        writeln!(
            f,
            "net {} ({}), {} positions",
            self.net, self.family, self.positions
        )?;
        let first = if self.family.starts_with("mlp") {
            "its score's sign (side to move)"
        } else {
            "as trained"
        };
        line(f, first, &self.trained)?;
        if let Some(e) = &self.engine {
            line(f, "as the engine runs it", e)?;
        }
        for (phase, s) in PHASES.iter().zip(&self.phases) {
            line(f, &format!("  {}", phase.name()), s)?;
        }
        write!(
            f,
            "{:.1} s, {:.1} µs a position",
            self.seconds,
            1e6 * self.seconds / self.positions.max(1) as f64
        )
    }
}

/// A position's game phase (see the module note).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Opening,
    Middlegame,
    Endgame,
}

pub const PHASES: [Phase; 3] = [Phase::Opening, Phase::Middlegame, Phase::Endgame];

impl Phase {
    pub fn of(r: &LabelledPosition) -> Phase {
        const VALUES: [u32; 6] = [0, 3, 3, 5, 9, 0];
        let material: u32 = r
            .board
            .0
            .iter()
            .filter(|&&c| c != 0)
            .map(|&c| VALUES[(c as usize - 1) % 6])
            .sum();
        if r.ply < 20 {
            Phase::Opening
        } else if material <= 26 {
            Phase::Endgame
        } else {
            Phase::Middlegame
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Phase::Opening => "opening",
            Phase::Middlegame => "middlegame",
            Phase::Endgame => "endgame",
        }
    }
}

/// Adds each position's logit to the stats of its phase.
fn add_by_phase(
    phases: &mut [WinLossStats; 3],
    records: &[LabelledPosition],
    z: &[f32],
    y: &[f32],
) {
    for ((r, &z), &y) in records.iter().zip(z).zip(y) {
        phases[Phase::of(r) as usize].add(&[z], &[y]);
    }
}

impl EvalposArgs {
    /// Calls `each` on batches of the positions file (at most `--max` positions, spread
    /// evenly over it), with a progress bar unless `--no-progress`; returns how many.
    pub fn for_each_batch(
        &self,
        mut each: impl FnMut(&[LabelledPosition]) -> Result<()>,
    ) -> Result<u64> {
        let reader = PositionReader::open(&self.positions)
            .with_context(|| format!("cannot read positions {}", self.positions.display()))?;
        let total = reader.len();
        let n = self.max.map_or(total, |m| m.min(total));
        let progress = if self.no_progress {
            ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::hidden())
        } else {
            ProgressBar::new(n)
        };
        progress.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} positions, {per_sec}, eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let mut records = Vec::with_capacity(self.batch.max(1));
        let mut i = 0u64;
        while i < n {
            records.clear();
            while records.len() < self.batch.max(1) && i < n {
                records.push(reader.get(i * total / n)?);
                i += 1;
            }
            each(&records)?;
            progress.set_position(i);
        }
        progress.finish_and_clear();
        Ok(n)
    }
}

/// Runs the net through `eval` (all inference does): an MLP, and a CNN as the engine sees
/// it, on the libtorch evaluator, whose score over `cp_per_unit` is the logit for the side
/// to move; a CNN in its true colours on [`TrueColourCnn`].
pub fn run_evalpos_cli(args: &EvalposArgs) -> Result<EvalposReport> {
    let device = args.device.resolve()?;
    let file = crate::net::load(&args.net)?;
    if !file.meta.arch.scores_positions() {
        anyhow::bail!(
            "{} is a {} net: it predicts moves, not winners; evalpos measures mlp and cnn nets",
            args.net.display(),
            file.meta.arch.family_name()
        );
    }
    let arch = file.meta.arch.clone();
    let cp_per_unit = file.meta.cp_per_unit;
    let planes = arch.planes();
    let colour_aware = planes.is_some_and(Planes::labels_white);
    let true_colours = match planes {
        Some(_) => Some(TrueColourCnn::new(&file, device)?),
        None => None,
    };
    let engine_view = if planes.is_none() || colour_aware {
        let config = NetEvaluatorConfig {
            backend: Backend::Torch,
            max_batch: args.batch.clamp(1, MAX_BATCH_LIMIT),
            ..NetEvaluatorConfig::default()
        };
        let origin = args.net.display().to_string();
        Some(NetEvaluator::from_net(file, &origin, args.device, config)?)
    } else {
        None
    };
    let stm_logits = |records: &[LabelledPosition]| -> Result<Vec<f32>> {
        let eval = engine_view
            .as_ref()
            .context("the engine's view of this net was not built (a bug in evalpos)")?;
        let boards: Vec<_> = records.iter().map(|r| r.board).collect();
        let mut scores = Vec::with_capacity(boards.len());
        eval.evaluate(&boards, &mut scores)?;
        Ok(scores.iter().map(|s| s / cp_per_unit).collect())
    };
    let started = Instant::now();
    let (mut trained, mut engine) = (WinLossStats::default(), WinLossStats::default());
    let mut phases = [WinLossStats::default(); 3];
    let n = args.for_each_batch(|records| {
        let stm_targets: Vec<f32> = records
            .iter()
            .map(|r| target(r, Planes::Onehot12))
            .collect();
        match (&true_colours, planes) {
            (Some(cnn), Some(p)) => {
                let targets: Vec<f32> = records.iter().map(|r| target(r, p)).collect();
                let boards: Vec<_> = records.iter().map(|r| r.board).collect();
                let white: Vec<bool> = records.iter().map(|r| r.white_to_move).collect();
                let z = cnn.logits(&boards, &white)?;
                trained.add(&z, &targets);
                add_by_phase(&mut phases, records, &z, &targets);
                if colour_aware {
                    engine.add(&stm_logits(records)?, &stm_targets);
                }
            }
            _ => {
                let z = stm_logits(records)?;
                trained.add(&z, &stm_targets);
                add_by_phase(&mut phases, records, &z, &stm_targets);
            }
        }
        Ok(())
    })?;
    Ok(EvalposReport {
        net: args.net.display().to_string(),
        family: format!("{} {}", arch.family_name(), arch.describe()),
        positions: n,
        trained,
        engine: colour_aware.then_some(engine),
        phases,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    fn at(fen: &str, ply: u16) -> LabelledPosition {
        LabelledPosition {
            board: Position::from_fen(fen).expect("valid fen").compact(),
            white_to_move: true,
            result: 1,
            from: 12,
            to: 28,
            role: shakmaty::Role::Pawn,
            promotion: None,
            ply,
        }
    }

    #[test]
    fn phases_follow_the_ply_and_the_material() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(Phase::of(&at(start, 5)), Phase::Opening);
        assert_eq!(Phase::of(&at(start, 30)), Phase::Middlegame);
        // Queens and a rook pair off: 62 − 18 − 10 = 34 > 26, still a middlegame.
        let fewer = "1nb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/1NB1KBNR w - - 0 1";
        assert_eq!(Phase::of(&at(fewer, 30)), Phase::Middlegame);
        let rooks = "r3k3/pppp4/8/8/8/8/PPPP4/R2BK1N1 w - - 0 1";
        assert_eq!(Phase::of(&at(rooks, 60)), Phase::Endgame);
    }
}
