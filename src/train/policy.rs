//! The policy objective (issue #8): ConvChess's seven nets trained on the moves of labelled
//! positions. The piece selector learns the from-square of every move; move selector r the
//! to-square of the moves of role r only. The loss is the sum of the seven mean
//! cross-entropies: the nets share no parameter, so each learns as if trained alone.

use super::config::TrainConfig;
use super::loader::{position_loader, position_valid_batches, Loader};
use super::model::{tensor_to_vec, TrainNet};
use super::objective::{Objective, Validation};
use crate::data::positions::LabelledPosition;
use crate::net::{ModelArch, NetModule, Planes, Policy};
use anyhow::{bail, Result};
use tch::{Kind, Reduction, Tensor};

/// Planes and move labels of a batch, on the host.
pub struct PolicyBatch {
    pub n: usize,
    pub planes: Vec<f32>,
    pub from: Vec<i64>,
    pub to: Vec<i64>,
    /// 1..=6: pawn … king, the move selector that learns this move's to-square.
    pub role: Vec<i64>,
}

impl PolicyBatch {
    pub fn new(records: &[LabelledPosition], planes: Planes) -> Self {
        let width = planes.width();
        let mut x = vec![0f32; records.len() * width];
        for (r, row) in records.iter().zip(x.chunks_exact_mut(width)) {
            planes.encode_into(&r.board, r.white_to_move, row);
        }
        PolicyBatch {
            n: records.len(),
            planes: x,
            from: records.iter().map(|r| i64::from(r.from)).collect(),
            to: records.iter().map(|r| i64::from(r.to)).collect(),
            role: records.iter().map(|r| r.role as i64).collect(),
        }
    }

    /// Rows of each move selector, by role index 1..=6 (index 0 unused).
    fn rows_by_role(&self) -> [Vec<i64>; 7] {
        let mut rows: [Vec<i64>; 7] = Default::default();
        for (i, &r) in self.role.iter().enumerate() {
            rows[r as usize].push(i as i64);
        }
        rows
    }
}

pub struct PolicyObjective {
    pub planes: Planes,
}

/// Per-head counts of top-1 hits (unclipped), for validation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HeadStats {
    pub loss_sum: f64,
    pub count: u64,
    pub correct: u64,
}

impl PolicyObjective {
    pub fn for_preset(preset: &str) -> Result<Self> {
        match ModelArch::preset(preset)? {
            ModelArch::Policy(p) => Ok(PolicyObjective { planes: p.input }),
            other => bail!(
                "the policy objective trains policy presets, and {preset} is a {}; use a \
                 policy preset such as convchess",
                other.family_name()
            ),
        }
    }

    fn policy(net: &TrainNet) -> &Policy {
        match &net.module {
            NetModule::Policy(p) => p,
            _ => unreachable!("for_preset admits policy presets only"),
        }
    }

    /// Sum of the heads' mean cross-entropies (with its graph), and each head's figures.
    fn losses(&self, net: &TrainNet, b: &PolicyBatch) -> (Tensor, [HeadStats; 7]) {
        let device = net.device();
        let x = Tensor::from_slice(&b.planes)
            .view([b.n as i64, self.planes.width() as i64])
            .to_device(device);
        let policy = Self::policy(net);
        let mut stats = [HeadStats::default(); 7];
        let mut total = Tensor::zeros([], (Kind::Float, device));
        let rows = b.rows_by_role();
        for head in 0..7 {
            let (input, target) = if head == 0 {
                (
                    x.shallow_clone(),
                    Tensor::from_slice(&b.from).to_device(device),
                )
            } else {
                if rows[head].is_empty() {
                    continue;
                }
                let idx = Tensor::from_slice(&rows[head]).to_device(device);
                let to: Vec<i64> = rows[head].iter().map(|&i| b.to[i as usize]).collect();
                (
                    x.index_select(0, &idx),
                    Tensor::from_slice(&to).to_device(device),
                )
            };
            let logits = match policy.f_forward_head(&input, head) {
                Ok(l) => l,
                Err(e) => panic!("the policy forward failed (a shape bug): {e}"),
            };
            let loss =
                logits.cross_entropy_loss::<Tensor>(&target, None, Reduction::Mean, -100, 0.0);
            let n = target.size()[0] as u64;
            let hits = tensor_to_vec(
                &logits
                    .argmax(-1, false)
                    .eq_tensor(&target)
                    .to_kind(Kind::Float),
            );
            stats[head] = HeadStats {
                loss_sum: loss.double_value(&[]) * n as f64,
                count: n,
                correct: hits.iter().filter(|&&h| h > 0.5).count() as u64,
            };
            total += loss;
        }
        (total, stats)
    }
}

impl Objective for PolicyObjective {
    type Batch = PolicyBatch;

    fn describe(&self, config: &TrainConfig) -> String {
        let data = config.train_file_name();
        format!(
            "ConvChess policy objective (piece selector on from-squares, six move selectors \
             on to-squares), {:?} {} l2={} batch={}, data {data}",
            config.optimiser,
            config.lr_description(),
            config.l2,
            config.batch
        )
    }

    fn valid_batches(&self, config: &TrainConfig) -> Result<Vec<PolicyBatch>> {
        let planes = self.planes;
        position_valid_batches(config, |c| PolicyBatch::new(c, planes))
    }

    fn loader(&self, config: &TrainConfig, start_step: u64) -> Result<(Loader<PolicyBatch>, u64)> {
        let planes = self.planes;
        position_loader(config, start_step, move |r| PolicyBatch::new(r, planes))
    }

    fn loss(&self, net: &TrainNet, batch: &PolicyBatch) -> Tensor {
        self.losses(net, batch).0
    }

    /// Accuracy: the piece selector's top-1 (ConvChess's Table 1, unclipped). Extra: the
    /// move selectors' top-1 over all their moves (Table 2 pooled, unclipped).
    fn validate(&self, net: &TrainNet, batches: &[PolicyBatch]) -> Validation {
        let mut heads = [HeadStats::default(); 7];
        tch::no_grad(|| {
            for b in batches {
                let (_, s) = self.losses(net, b);
                for (total, one) in heads.iter_mut().zip(s) {
                    total.loss_sum += one.loss_sum;
                    total.count += one.count;
                    total.correct += one.correct;
                }
            }
        });
        let rate = |c: u64, n: u64| c as f64 / n.max(1) as f64;
        let movers = heads[1..]
            .iter()
            .fold((0, 0), |(c, n), h| (c + h.correct, n + h.count));
        Validation {
            loss: heads
                .iter()
                .map(|h| h.loss_sum / h.count.max(1) as f64)
                .sum(),
            accuracy: rate(heads[0].correct, heads[0].count),
            extra: rate(movers.0, movers.1),
        }
    }

    fn boards(&self, batch: &PolicyBatch) -> u64 {
        batch.n as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;
    use shakmaty::Role;

    fn record(fen: &str, from: u8, to: u8, role: Role) -> LabelledPosition {
        LabelledPosition {
            board: Position::from_fen(fen).expect("valid fen").compact(),
            white_to_move: fen.split(' ').nth(1) == Some("w"),
            result: 0,
            from,
            to,
            role,
            promotion: None,
            ply: 0,
        }
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn a_batch_routes_each_move_to_its_selector() {
        let records = [
            record(START, 12, 28, Role::Pawn),
            record(START, 6, 21, Role::Knight),
            record(START, 11, 27, Role::Pawn),
        ];
        let b = PolicyBatch::new(&records, Planes::Stm6);
        assert_eq!(
            (b.from.clone(), b.to.clone()),
            (vec![12, 6, 11], vec![28, 21, 27])
        );
        let rows = b.rows_by_role();
        assert_eq!(rows[1], vec![0, 2]);
        assert_eq!(rows[2], vec![1]);
        assert!(rows[3].is_empty() && rows[0].is_empty());
    }

    #[test]
    fn the_loss_trains_only_the_heads_with_moves() {
        let meta = crate::net::NetMeta::for_preset("convchess").expect("preset");
        let net = TrainNet::fresh(meta, 1, tch::Device::Cpu);
        let obj = PolicyObjective::for_preset("convchess").expect("policy preset");
        let b = PolicyBatch::new(&[record(START, 12, 28, Role::Pawn)], Planes::Stm6);
        let (loss, stats) = obj.losses(&net, &b);
        // Fresh nets give near-uniform logits: about ln 64 for each of the two heads.
        let l = loss.double_value(&[]);
        assert!((l - 2.0 * 64f64.ln()).abs() < 0.5, "{l}");
        assert_eq!(stats[0].count, 1);
        assert_eq!(stats[1].count, 1);
        assert_eq!(stats[2..].iter().map(|s| s.count).sum::<u64>(), 0);
        loss.backward();
        let vars = net.vs.variables();
        assert!(
            vars["pawn.fc2.weight"]
                .grad()
                .abs()
                .sum(Kind::Float)
                .double_value(&[])
                > 0.0
        );
        let knight = vars["knight.fc2.weight"].grad();
        assert!(!knight.defined() || knight.abs().sum(Kind::Float).double_value(&[]) == 0.0);
        let err = PolicyObjective::for_preset("mocha")
            .err()
            .expect("a cnn is refused");
        assert!(err.to_string().contains("policy preset"), "{err}");
    }
}
