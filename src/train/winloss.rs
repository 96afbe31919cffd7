//! The win/loss objective (issue #7): binary cross-entropy between the net's logit and the
//! game's result, over the positions of `cerise data positions`.
//!
//! The label follows the net's planes (`crate::net::planes`): "White wins" for the Mocha.jl
//! study's absolute planes, as the study trained; "the side to move wins" for the
//! side-to-move planes. A drawn game's positions (kept only with `--ending all`) have the
//! target ½. Accuracy counts the decisive positions whose winner the logit's sign names,
//! which is the study's "threshold 0.5".

use super::config::TrainConfig;
use super::loader::{position_loader, position_valid_batches, Loader};
use super::model::{tensor_to_vec, TrainNet};
use super::objective::{Objective, Validation};
use crate::data::positions::LabelledPosition;
use crate::net::{ModelArch, Planes};
use anyhow::{bail, Result};
use tch::{Reduction, Tensor};

/// Planes and targets of a batch of positions, on the host.
pub struct PosBatch {
    pub n: usize,
    pub planes: Vec<f32>,
    /// 1 the labelled side won, 0 it lost, ½ a draw.
    pub targets: Vec<f32>,
}

impl PosBatch {
    pub fn new(records: &[LabelledPosition], planes: Planes) -> Self {
        let width = planes.width();
        let mut x = vec![0f32; records.len() * width];
        let mut targets = Vec::with_capacity(records.len());
        for (r, row) in records.iter().zip(x.chunks_exact_mut(width)) {
            planes.encode_into(&r.board, r.white_to_move, row);
            targets.push(target(r, planes));
        }
        PosBatch {
            n: records.len(),
            planes: x,
            targets,
        }
    }

    fn tensors(&self, planes: Planes, device: tch::Device) -> (Tensor, Tensor) {
        let x = Tensor::from_slice(&self.planes)
            .view([self.n as i64, planes.width() as i64])
            .to_device(device);
        let y = Tensor::from_slice(&self.targets).to_device(device);
        (x, y)
    }
}

/// The training target of a position for a net reading `planes`.
pub fn target(r: &LabelledPosition, planes: Planes) -> f32 {
    let white = f32::from(r.result);
    let result = if planes.labels_white() || r.white_to_move {
        white
    } else {
        -white
    };
    (result + 1.0) / 2.0
}

pub struct WinLoss {
    pub planes: Planes,
}

impl WinLoss {
    pub fn for_preset(preset: &str) -> Result<Self> {
        match ModelArch::preset(preset)? {
            ModelArch::Cnn(c) => Ok(WinLoss { planes: c.input }),
            other => bail!(
                "the winloss objective trains CNN presets, and {preset} is a {}; use a CNN \
                 preset such as mocha",
                other.family_name()
            ),
        }
    }

    fn logits(&self, net: &TrainNet, batch: &PosBatch, train: bool) -> (Tensor, Tensor) {
        let (x, y) = batch.tensors(self.planes, net.device());
        let logits = match &net.module {
            crate::net::NetModule::Cnn(c) => c.f_forward_t(&x, train),
            _ => unreachable!("for_preset admits CNNs only"),
        };
        match logits {
            Ok(l) => (l, y),
            Err(e) => panic!("the CNN forward failed (a shape bug): {e}"),
        }
    }
}

impl Objective for WinLoss {
    type Batch = PosBatch;

    fn describe(&self, config: &TrainConfig) -> String {
        let data = config.train_file_name();
        let label = if self.planes.labels_white() {
            "White wins"
        } else {
            "the side to move wins"
        };
        format!(
            "win/loss objective (cross-entropy on \"{label}\"), {:?} {} l2={} batch={}, \
             data {data}",
            config.optimiser,
            config.lr_description(),
            config.l2,
            config.batch
        )
    }

    fn valid_batches(&self, config: &TrainConfig) -> Result<Vec<PosBatch>> {
        let planes = self.planes;
        position_valid_batches(config, |c| PosBatch::new(c, planes))
    }

    fn loader(&self, config: &TrainConfig, start_step: u64) -> Result<(Loader<PosBatch>, u64)> {
        let planes = self.planes;
        position_loader(config, start_step, move |r| PosBatch::new(r, planes))
    }

    fn loss(&self, net: &TrainNet, batch: &PosBatch) -> Tensor {
        let (logits, y) = self.logits(net, batch, true);
        logits.binary_cross_entropy_with_logits::<Tensor>(&y, None, None, Reduction::Mean)
    }

    fn validate(&self, net: &TrainNet, batches: &[PosBatch]) -> Validation {
        let mut stats = WinLossStats::default();
        tch::no_grad(|| {
            for b in batches {
                let (logits, _) = self.logits(net, b, false);
                stats.add(&tensor_to_vec(&logits), &b.targets);
            }
        });
        Validation {
            loss: stats.loss(),
            accuracy: stats.accuracy(),
            extra: 0.0,
        }
    }

    fn boards(&self, batch: &PosBatch) -> u64 {
        batch.n as u64
    }
}

/// Cross-entropy and accuracy summed over host logits, for validation and `evalnet`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WinLossStats {
    pub loss_sum: f64,
    pub count: u64,
    pub decisive: u64,
    pub correct: u64,
}

impl WinLossStats {
    pub fn add(&mut self, logits: &[f32], targets: &[f32]) {
        for (&z, &y) in logits.iter().zip(targets) {
            let (z, y) = (f64::from(z), f64::from(y));
            // log(1 + e^z) − y·z, stable for large |z|.
            self.loss_sum += z.max(0.0) - z * y + (-z.abs()).exp().ln_1p();
            self.count += 1;
            if y != 0.5 {
                self.decisive += 1;
                if (z > 0.0) == (y > 0.5) {
                    self.correct += 1;
                }
            }
        }
    }

    pub fn loss(&self) -> f64 {
        self.loss_sum / self.count.max(1) as f64
    }

    /// Fraction of decisive positions whose winner is predicted.
    pub fn accuracy(&self) -> f64 {
        self.correct as f64 / self.decisive.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;
    use shakmaty::Role;

    fn record(fen: &str, result: i8) -> LabelledPosition {
        let pos = Position::from_fen(fen).expect("valid fen");
        LabelledPosition {
            board: pos.compact(),
            white_to_move: fen.split(' ').nth(1) == Some("w"),
            result,
            from: 12,
            to: 28,
            role: Role::Pawn,
            promotion: None,
            ply: 0,
        }
    }

    const START_W: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

    #[test]
    fn targets_follow_the_planes_label() {
        let black_to_move_white_won = record(AFTER_E4, 1);
        assert_eq!(target(&black_to_move_white_won, Planes::Mocha7Abs), 1.0);
        assert_eq!(target(&black_to_move_white_won, Planes::Onehot12), 0.0);
        assert_eq!(target(&record(START_W, 1), Planes::Stm6), 1.0);
        assert_eq!(target(&record(START_W, 0), Planes::Mocha7Abs), 0.5);
        assert_eq!(target(&record(START_W, -1), Planes::Mocha7Abs), 0.0);
    }

    #[test]
    fn stats_match_libtorch_and_count_decisive_hits() {
        let logits = [2.0f32, -1.0, 0.5, 3.0];
        let targets = [1.0f32, 1.0, 0.5, 0.0];
        let mut s = WinLossStats::default();
        s.add(&logits, &targets);
        let torch = Tensor::from_slice(&logits)
            .binary_cross_entropy_with_logits::<Tensor>(
                &Tensor::from_slice(&targets),
                None,
                None,
                Reduction::Mean,
            )
            .double_value(&[]);
        assert!((s.loss() - torch).abs() < 1e-6, "{} vs {torch}", s.loss());
        // Decisive: +2 → win (right), −1 → loss (wrong), +3 → win for a loss (wrong).
        assert_eq!((s.decisive, s.correct), (3, 1));
        assert!((s.accuracy() - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn a_batch_holds_each_records_planes() {
        let records = [record(START_W, 1), record(AFTER_E4, -1)];
        let b = PosBatch::new(&records, Planes::Mocha7Abs);
        assert_eq!(b.n, 2);
        assert_eq!(b.planes.len(), 2 * 7 * 64);
        // Second board: White's e4 pawn at absolute e4, Black to move in the last plane.
        assert_eq!(b.planes[7 * 64 + 28], 1.0);
        assert_eq!(b.planes[7 * 64 + 6 * 64], -1.0);
        assert_eq!(b.targets, vec![1.0, 0.0]);
    }
}
