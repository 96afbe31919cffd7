//! `cerise evalpolicy`: ConvChess's Tables 1 and 2 for a policy file, on labelled positions.
//!
//! - Table 1: the piece selector's top-1 from-square, unclipped (argmax over the 64 squares)
//!   and clipped (argmax over the squares of pieces that have a legal move).
//! - Table 2: each move selector's top-1 to-square on the moves of its own piece, unclipped
//!   and clipped (argmax over the legal targets of the piece that moved).
//! - The composed move, the study's player: argmax over legal moves of
//!   p_piece(from) · p_move(to), against the move played.
//!
//! Legal moves come from the position rebuilt from the stored board (`chess::compact`:
//! castling rights guessed, no en passant). A played move that the rebuilt position does
//! not allow (a castle whose rights were lost and regained, an en passant capture) leaves
//! that position out of the clipped figures only; the report counts them.

use super::model::{tensor_to_vec, TrainNet};
use super::policy::PolicyBatch;
use crate::chess::compact::position_of;
use crate::chess::stm_move_squares;
use crate::data::positions::LabelledPosition;
use crate::net::{NetModule, HEADS};
use anyhow::{bail, Context, Result};
use shakmaty::{Color, Position as _};
use std::fmt;
use std::time::Instant;
use tch::{Kind, Tensor};

/// ConvChess's published top-1 validation accuracies (unclipped), per head in [`HEADS`]
/// order: Table 1, then Table 2 (P, N, B, R, Q, K).
pub const PUBLISHED: [f64; 7] = [38.30, 52.20, 56.15, 40.54, 29.25, 26.53, 47.29];

/// The same arguments as `evalpos`: a net file (here a `convchess-policy` one), labelled
/// positions, `--max`, `--batch`, `--device`, `--no-progress`.
pub type EvalpolicyArgs = super::evalpos::EvalposArgs;

/// Hits out of a count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub hits: u64,
    pub count: u64,
}

impl Tally {
    fn add(&mut self, hit: bool) {
        self.hits += u64::from(hit);
        self.count += 1;
    }

    pub fn percent(self) -> f64 {
        100.0 * self.hits as f64 / self.count.max(1) as f64
    }
}

#[derive(Clone, Debug, Default)]
pub struct PolicyReport {
    pub net: String,
    pub positions: u64,
    /// Per head in [`HEADS`] order.
    pub unclipped: [Tally; 7],
    pub clipped: [Tally; 7],
    /// The composed argmax over legal moves equals the move played (from and to squares).
    pub composed: Tally,
    /// Positions whose played move the rebuilt position does not allow.
    pub unreconstructed: u64,
    pub seconds: f64,
}

impl fmt::Display for PolicyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "net {}, {} positions", self.net, self.positions)?;
        writeln!(
            f,
            "{:<8} {:>8}  {:>10}  {:>8}  {:>10}",
            "net", "moves", "unclipped", "clipped", "ConvChess"
        )?;
        for (i, name) in HEADS.iter().enumerate() {
            writeln!(
                f,
                "{:<8} {:>8}  {:>9.2}%  {:>7.2}%  {:>9.2}%",
                name,
                self.unclipped[i].count,
                self.unclipped[i].percent(),
                self.clipped[i].percent(),
                PUBLISHED[i]
            )?;
        }
        writeln!(
            f,
            "composed move (the policy player's choice among legal moves): {:.2}% of {}",
            self.composed.percent(),
            self.composed.count
        )?;
        writeln!(
            f,
            "{} positions left out of the clipped figures (castling or en passant the \
             rebuilt position does not allow)",
            self.unreconstructed
        )?;
        write!(
            f,
            "{:.1} s, {:.1} µs a position (seven nets)",
            self.seconds,
            1e6 * self.seconds / self.positions.max(1) as f64
        )
    }
}

/// The index of the largest of `values` at `candidates` (the first on ties).
fn argmax_over(values: &[f32], candidates: impl Iterator<Item = usize>) -> Option<usize> {
    candidates.fold(None, |best: Option<usize>, i| match best {
        Some(b) if values[b] >= values[i] => Some(b),
        _ => Some(i),
    })
}

fn argmax(values: &[f32]) -> usize {
    argmax_over(values, 0..values.len()).unwrap_or(0)
}

/// A legal move in the board's frame: from, to (the king's target for a castle), role.
fn legal_moves(r: &LabelledPosition) -> Option<Vec<(usize, usize, usize)>> {
    let pos = position_of(&r.board)?;
    Some(
        pos.legal_moves()
            .iter()
            .map(|m| {
                let (from, to) = stm_move_squares(m, Color::White);
                (usize::from(from), usize::from(to), m.role() as usize)
            })
            .collect(),
    )
}

/// Adds one position to the report, given its seven heads' log-probabilities.
fn score(report: &mut PolicyReport, r: &LabelledPosition, logp: &[&[f32]; 7]) {
    let from = usize::from(r.from);
    let to = usize::from(r.to);
    let role = r.role as usize;
    report.unclipped[0].add(argmax(logp[0]) == from);
    report.unclipped[role].add(argmax(logp[role]) == to);
    let moves = legal_moves(r).unwrap_or_default();
    if !moves.iter().any(|&(f, t, _)| f == from && t == to) {
        report.unreconstructed += 1;
        return;
    }
    let piece = argmax_over(logp[0], moves.iter().map(|m| m.0));
    report.clipped[0].add(piece == Some(from));
    let target = argmax_over(
        logp[role],
        moves.iter().filter(|m| m.0 == from).map(|m| m.1),
    );
    report.clipped[role].add(target == Some(to));
    let best = moves
        .iter()
        .map(|&(f, t, ro)| (logp[0][f] + logp[ro][t], f, t))
        .fold(None, |best: Option<(f32, usize, usize)>, m| match best {
            Some(b) if b.0 >= m.0 => Some(b),
            _ => Some(m),
        });
    report
        .composed
        .add(best.is_some_and(|(_, f, t)| f == from && t == to));
}

pub fn run_evalpolicy_cli(args: &EvalpolicyArgs) -> Result<PolicyReport> {
    let device = args.device.resolve()?;
    let file = crate::net::load(&args.net)?;
    let net = TrainNet::from_file(&file, device)?;
    let NetModule::Policy(policy) = &net.module else {
        bail!(
            "{} is a {} net; evalpolicy measures convchess-policy files (use evalpos for \
             evaluators)",
            args.net.display(),
            file.meta.arch.family_name()
        );
    };
    let planes = policy.arch.input;
    let started = Instant::now();
    let mut report = PolicyReport {
        net: format!("{} ({})", args.net.display(), file.content_id),
        ..PolicyReport::default()
    };
    args.for_each_batch(|records| {
        let batch = PolicyBatch::new(records, planes);
        let x = Tensor::from_slice(&batch.planes)
            .view([batch.n as i64, planes.width() as i64])
            .to_device(device);
        let heads: Vec<Vec<f32>> = tch::no_grad(|| {
            (0..HEADS.len())
                .map(|h| {
                    let logits = policy
                        .f_forward_head(&x, h)
                        .context("the policy forward failed")?;
                    Ok(tensor_to_vec(&logits.log_softmax(-1, Kind::Float)))
                })
                .collect::<Result<_>>()
        })?;
        for (row, r) in records.iter().enumerate() {
            let slice = |h: usize| &heads[h][row * 64..(row + 1) * 64];
            let logp = [
                slice(0),
                slice(1),
                slice(2),
                slice(3),
                slice(4),
                slice(5),
                slice(6),
            ];
            score(&mut report, r, &logp);
        }
        report.positions += records.len() as u64;
        Ok(())
    })?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;
    use shakmaty::Role;

    fn record(fen: &str, from: u8, to: u8, role: Role) -> LabelledPosition {
        let pos = Position::from_fen(fen).expect("valid fen");
        LabelledPosition {
            board: pos.compact(),
            white_to_move: fen.contains(" w "),
            result: 0,
            from,
            to,
            role,
            promotion: None,
            ply: 30,
        }
    }

    /// Log-probabilities that put `best` first, `second` next, all else far below.
    fn head(best: usize, second: usize) -> Vec<f32> {
        let mut v = vec![-20.0; 64];
        v[second] = -2.0;
        v[best] = -0.5;
        v
    }

    /// The report for one position, given the piece selector's head and the head of the
    /// moving piece's selector; the other selectors are flat.
    fn score_one(
        r: &LabelledPosition,
        piece: Vec<f32>,
        role: Role,
        mover: Vec<f32>,
    ) -> PolicyReport {
        let other = vec![-5.0; 64];
        let mut heads: Vec<&[f32]> = vec![&other[..]; 7];
        heads[0] = &piece;
        heads[role as usize] = &mover;
        let logp: [&[f32]; 7] = heads.try_into().expect("seven heads");
        let mut report = PolicyReport::default();
        score(&mut report, r, &logp);
        report
    }

    #[test]
    fn clipping_only_counts_legal_choices() {
        // Start position, 1. Nf3 (g1 = 6 → f3 = 21). The piece selector likes e4 (28),
        // where White has no piece, then g1; the knight selector likes f6 (45), then f3.
        let r = record(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            6,
            21,
            Role::Knight,
        );
        let report = score_one(&r, head(28, 6), Role::Knight, head(45, 21));
        assert_eq!(report.unclipped[0], Tally { hits: 0, count: 1 });
        assert_eq!(report.clipped[0], Tally { hits: 1, count: 1 });
        assert_eq!(report.unclipped[2], Tally { hits: 0, count: 1 });
        assert_eq!(report.clipped[2], Tally { hits: 1, count: 1 });
        assert_eq!(report.composed, Tally { hits: 1, count: 1 });
        assert_eq!(report.unreconstructed, 0);
    }

    #[test]
    fn black_moves_are_scored_in_the_mirrored_frame() {
        // After 1. e4, Black plays ...e5: e7 → e5 is, mirrored, e2 (12) → e4 (28).
        let r = record(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            12,
            28,
            Role::Pawn,
        );
        let report = score_one(&r, head(12, 11), Role::Pawn, head(28, 20));
        assert_eq!(report.unclipped[1], Tally { hits: 1, count: 1 });
        assert_eq!(report.composed, Tally { hits: 1, count: 1 });
    }

    #[test]
    fn a_castle_counts_with_the_kings_target() {
        // White castles short: e1 (4) → g1 (6).
        let r = record(
            "r3k2r/pppq1ppp/2npbn2/4p3/4P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 10",
            4,
            6,
            Role::King,
        );
        let moves = legal_moves(&r).unwrap();
        assert!(moves.contains(&(4, 6, Role::King as usize)), "{moves:?}");
        assert!(moves.contains(&(4, 2, Role::King as usize)), "{moves:?}");
    }
}
