//! The value objective on self-play positions, and its mix with Deep Pink's triplet objective.
//!
//! VALUE (as bullet and nnue-pytorch train): the net's score for the side to move, in
//! centipawns, s = −f(p)·cp_per_unit (`crate::net::mlp`'s sign convention), is squashed to a
//! win probability σ(s/K) and regressed on the target λ·result + (1−λ)·σ(score/K), where
//! `result` is the game's result for the side to move (1, ½, 0) and `score` the search's.
//! K (`value_scale`) is the centipawns of one logistic unit, so the output stays in
//! centipawns, which the search's margins assume.
//!
//! MIXED: the same batch also gives Deep Pink's triplets from Cerise's own games: q after the
//! search's best move (the move played), r after a random other legal move; the loss is
//! value + `triplet_weight` × triplet loss (`super::loss`). One forward pass serves both.

use super::config::TrainConfig;
use super::loader::{spread_records, Loader, Order, Records};
use super::loss::{self, LossStats};
use super::model::{SparseBoards, TrainNet};
use super::objective::{Objective, Validation};
use super::selfplay::{Filter, SelfPlaySet};
use crate::chess::CompactBoard;
use crate::data::rng::{mix64, SplitMix64};
use crate::data::selfplay::SelfPlayRecord;
use anyhow::Result;
use shakmaty::Position as _;
use std::path::PathBuf;
use tch::{Kind, Tensor};

/// Scores beyond this many centipawns (mates) count as this in the target and the error.
const SCORE_CAP: f32 = 3000.0;

/// One step's positions: p (then q, then r with triplets) as sparse boards, and the targets.
pub struct ValueBatch {
    pub n: usize,
    pub boards: SparseBoards,
    /// The search's score for the side to move, centipawns, capped.
    pub score: Vec<f32>,
    /// The game's result for the side to move: 1, 0.5, 0.
    pub result: Vec<f32>,
    pub triplets: bool,
}

/// Builds a batch; a record whose position or move does not replay is left out (the set's
/// scan has already read every record, so this only guards against a file changed since).
pub fn make_batch(records: &[SelfPlayRecord], triplets: bool, seed: u64) -> ValueBatch {
    let mut p = Vec::with_capacity(records.len());
    let mut q = Vec::new();
    let mut r = Vec::new();
    let mut score = Vec::with_capacity(records.len());
    let mut result = Vec::with_capacity(records.len());
    for rec in records {
        let Ok((pos, best)) = rec.position_and_move() else {
            continue;
        };
        if triplets {
            let legal = pos.legal_moves();
            let others: Vec<_> = legal.iter().filter(|m| **m != best).collect();
            if others.is_empty() {
                continue;
            }
            // The same random move for a record in every epoch, as a triplet file would hold.
            let key = mix64(seed ^ u64::from(rec.game)) ^ u64::from(rec.ply);
            let other = others[SplitMix64::new(key).below(others.len())];
            let child = |m: &shakmaty::Move| {
                let mut c = pos.clone();
                c.play_unchecked(*m);
                CompactBoard::from_chess(&c)
            };
            q.push(child(&best));
            r.push(child(other));
        }
        p.push(CompactBoard::from_chess(&pos));
        score.push(f32::from(rec.score).clamp(-SCORE_CAP, SCORE_CAP));
        result.push(rec.result.score_for(pos.turn()));
    }
    let boards = SparseBoards::from_boards(p.iter().chain(&q).chain(&r));
    ValueBatch {
        n: p.len(),
        boards,
        score,
        result,
        triplets,
    }
}

/// The value objective, or value plus triplets.
pub struct ValueObjective {
    pub lambda: f64,
    pub scale: f64,
    /// 0 for the value objective alone.
    pub triplet_weight: f64,
    pub kappa: f64,
    pub cp_per_unit: f64,
}

impl ValueObjective {
    pub fn for_config(config: &TrainConfig) -> Self {
        let mixed = config.objective == super::ObjectiveKind::Mixed;
        ValueObjective {
            lambda: config.lambda,
            scale: config.value_scale,
            triplet_weight: if mixed { config.triplet_weight } else { 0.0 },
            kappa: config.kappa,
            cp_per_unit: f64::from(config.cp_per_unit),
        }
    }

    fn triplets(&self) -> bool {
        self.triplet_weight > 0.0
    }

    fn filter(config: &TrainConfig) -> Filter {
        Filter {
            skip_plies: config.skip_plies,
            valid_permille: config.valid_permille,
        }
    }

    fn train_paths(config: &TrainConfig) -> Vec<PathBuf> {
        std::iter::once(config.train.clone())
            .chain(config.train_more.iter().cloned())
            .collect()
    }

    /// f(p) and, with triplets, f(q) and f(r).
    fn forward(&self, net: &TrainNet, b: &ValueBatch) -> (Tensor, Option<(Tensor, Tensor)>) {
        let f = net.forward_sparse(&b.boards);
        let n = b.n as i64;
        let fp = f.narrow(0, 0, n);
        let rest = b
            .triplets
            .then(|| (f.narrow(0, n, n), f.narrow(0, 2 * n, n)));
        (fp, rest)
    }

    /// Per-position squared error of the value, [N], and the predicted centipawns.
    fn value_terms(&self, fp: &Tensor, b: &ValueBatch) -> (Tensor, Tensor) {
        let device = fp.device();
        let cp = fp * (-self.cp_per_unit);
        let pred = (&cp / self.scale).sigmoid();
        let score = Tensor::from_slice(&b.score).to_device(device);
        let result = Tensor::from_slice(&b.result).to_device(device);
        let target = &result * self.lambda + (score / self.scale).sigmoid() * (1.0 - self.lambda);
        ((pred - target).square(), cp)
    }
}

impl Objective for ValueObjective {
    type Batch = ValueBatch;

    fn describe(&self, config: &TrainConfig) -> String {
        let data = config.train_file_name();
        let mix = if self.triplets() {
            format!(
                " + {} x Deep Pink triplets (kappa={})",
                self.triplet_weight, self.kappa
            )
        } else {
            String::new()
        };
        format!(
            "value objective on self-play (lambda={} K={} cp){mix}, {:?} lr0={} tau={} l2={} \
             batch={}, skip_plies={}, data {data}",
            self.lambda,
            self.scale,
            config.optimiser,
            config.lr0,
            config.tau,
            config.l2,
            config.batch,
            config.skip_plies
        )
    }

    fn valid_batches(&self, config: &TrainConfig) -> Result<Vec<ValueBatch>> {
        let set = SelfPlaySet::open(
            std::slice::from_ref(&config.valid),
            &Self::filter(config),
            true,
            &mut |_| {},
        )?;
        let records = spread_records(&set, &config.valid, config.valid_batches * config.batch)?;
        let triplets = self.triplets();
        Ok(records
            .chunks(config.batch)
            .map(|c| make_batch(c, triplets, config.seed))
            .collect())
    }

    fn loader(&self, config: &TrainConfig, start_step: u64) -> Result<(Loader<ValueBatch>, u64)> {
        let set = SelfPlaySet::open(
            &Self::train_paths(config),
            &Self::filter(config),
            false,
            &mut |line| eprintln!("[train] {line}"),
        )?;
        let d = set.dropped;
        eprintln!(
            "[train] self-play positions left out: {} early, {} in check, {} with a capture or \
             promotion as best move, {} of validation games",
            d.early, d.in_check, d.noisy, d.other_split
        );
        let records = set.count();
        let (triplets, seed) = (self.triplets(), config.seed);
        let loader = Loader::spawn_with(
            set,
            &config.train,
            Order::of(config, start_step),
            config.loader_threads(),
            move |c: &[SelfPlayRecord]| make_batch(c, triplets, seed),
        )?;
        Ok((loader, records))
    }

    fn loss(&self, net: &TrainNet, batch: &ValueBatch) -> Tensor {
        let (fp, rest) = self.forward(net, batch);
        let (sq, _) = self.value_terms(&fp, batch);
        let value = sq.mean(Kind::Float);
        match rest {
            Some((fq, fr)) => value + loss::mean(&fp, &fq, &fr, self.kappa) * self.triplet_weight,
            None => value,
        }
    }

    /// loss: the value MSE (plus the weighted triplet loss when mixed); accuracy: the
    /// positions of decisive games whose winner the net favours (with triplets: the played
    /// move preferred to the random one); extra: the mean |score − search score| in cp.
    fn validate(&self, net: &TrainNet, batches: &[ValueBatch]) -> Validation {
        let (mut sq_sum, mut n, mut err_sum) = (0.0, 0u64, 0.0);
        let (mut right, mut decisive) = (0u64, 0u64);
        let mut trip = LossStats::default();
        tch::no_grad(|| {
            for b in batches {
                let (fp, rest) = self.forward(net, b);
                let (sq, cp) = self.value_terms(&fp, b);
                sq_sum += sq.sum(Kind::Double).double_value(&[]);
                n += b.n as u64;
                let score = Tensor::from_slice(&b.score).to_device(cp.device());
                err_sum += (&cp - &score).abs().sum(Kind::Double).double_value(&[]);
                let cp = super::model::tensor_to_vec(&cp);
                for (c, r) in cp.iter().zip(&b.result) {
                    if *r != 0.5 {
                        decisive += 1;
                        right += u64::from((*c > 0.0) == (*r == 1.0));
                    }
                }
                if let Some((fq, fr)) = rest {
                    trip.add(&fp, &fq, &fr, self.kappa);
                }
            }
        });
        let value = sq_sum / n.max(1) as f64;
        let (loss, accuracy) = if self.triplets() {
            (value + self.triplet_weight * trip.loss(), trip.accuracy())
        } else {
            (value, right as f64 / decisive.max(1) as f64)
        };
        Validation {
            loss,
            accuracy,
            extra: err_sum / n.max(1) as f64,
        }
    }

    fn boards(&self, batch: &ValueBatch) -> u64 {
        batch.boards.len() as u64
    }
}
