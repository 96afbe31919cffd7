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
//!
//! A perspective net trains on each position's pieces read once and its children as their
//! changes (`super::persp_batch`): on the CPU by the native step ([`Inputs::Native`],
//! `super::native_step`), elsewhere by the perspective step ([`Inputs::Persp`],
//! `super::persp_step`). Other MLPs train on every board whole. Every path trains on the
//! same records, to the same loss (bench/records/training-speed.md).

use super::config::TrainConfig;
use super::loader::{spread_records, Loader, Order, Records};
use super::loss::{self, LossStats};
use super::model::{SparseBoards, TrainNet};
use super::native_step;
use super::objective::{Objective, Validation};
use super::persp_batch::{PerspBoards, PerspBuilder};
use super::persp_step::{self, PerspTensors};
use super::selfplay::{Filter, SelfPlaySet};
use crate::chess::CompactBoard;
use crate::data::rng::{mix64, SplitMix64};
use crate::data::selfplay::{SelfPlayRecord, StoredMove};
use anyhow::Result;
use shakmaty::Position as _;
use std::path::PathBuf;
use tch::{Kind, Tensor};

/// Scores beyond this many centipawns (mates) count as this in the target and the error.
const SCORE_CAP: f32 = 3000.0;

/// The net's inputs of one step.
pub enum Inputs {
    /// p, then q, then r with triplets, every board whole.
    Boards(SparseBoards),
    /// The perspective step's layout (`super::persp_batch`), on the CPU.
    Persp(PerspTensors),
    /// The same layout on the host, for the native step (`super::native_step`).
    Native(PerspBoards),
}

/// How an objective lays out its batches, and so which step trains on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Every board whole, autograd throughout (any net).
    Boards,
    /// A perspective net's layout as tensors, for the perspective step (any device).
    Persp,
    /// A perspective net's layout on the host, for the native step (the CPU).
    Native,
}

/// One step's positions: the net's inputs for p (and q and r with triplets), and the
/// targets.
pub struct ValueBatch {
    pub n: usize,
    pub inputs: Inputs,
    /// The search's score for the side to move, centipawns, capped.
    pub score: Vec<f32>,
    /// The game's result for the side to move: 1, 0.5, 0.
    pub result: Vec<f32>,
    pub triplets: bool,
}

/// Which of `count` other moves a record's triplet takes: the same for a record in every
/// epoch, as a triplet file would hold.
fn other_move(seed: u64, rec: &SelfPlayRecord, count: usize) -> usize {
    let key = mix64(seed ^ u64::from(rec.game)) ^ u64::from(rec.ply);
    SplitMix64::new(key).below(count)
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
            let other = others[other_move(seed, rec, others.len())];
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
        inputs: Inputs::Boards(boards),
        score,
        result,
        triplets,
    }
}

/// [`make_batch`] for the perspective step: the same records kept, the same moves chosen,
/// each position's legal moves generated once. `mirror`: for a king-file mirrored net, whose
/// layout names (block, feature) rows (`net::mirror`).
pub fn make_persp_batch(
    records: &[SelfPlayRecord],
    triplets: bool,
    mirror: bool,
    seed: u64,
) -> ValueBatch {
    let (builder, score, result) = persp_builder(records, triplets, mirror, seed);
    let boards = builder.finish();
    ValueBatch {
        n: boards.n,
        inputs: Inputs::Persp(PerspTensors::new(&boards)),
        score,
        result,
        triplets,
    }
}

/// [`make_persp_batch`] for the native step: the same boards, on the host.
pub fn make_native_batch(
    records: &[SelfPlayRecord],
    triplets: bool,
    mirror: bool,
    seed: u64,
) -> ValueBatch {
    let (builder, score, result) = persp_builder(records, triplets, mirror, seed);
    let boards = builder.finish_host();
    ValueBatch {
        n: boards.n,
        inputs: Inputs::Native(boards),
        score,
        result,
        triplets,
    }
}

/// The boards and targets of [`make_persp_batch`], on the host.
pub fn persp_boards(
    records: &[SelfPlayRecord],
    triplets: bool,
    mirror: bool,
    seed: u64,
) -> (PerspBoards, Vec<f32>, Vec<f32>) {
    let (builder, score, result) = persp_builder(records, triplets, mirror, seed);
    (builder.finish(), score, result)
}

fn persp_builder(
    records: &[SelfPlayRecord],
    triplets: bool,
    mirror: bool,
    seed: u64,
) -> (PerspBuilder, Vec<f32>, Vec<f32>) {
    let mut boards = PerspBuilder::new(records.len(), triplets, mirror);
    let mut score = Vec::with_capacity(records.len());
    let mut result = Vec::with_capacity(records.len());
    for rec in records {
        let Ok(pos) = rec.position() else {
            continue;
        };
        let legal = pos.legal_moves();
        let Some(best) = legal.iter().find(|m| StoredMove::of(m) == rec.best) else {
            continue;
        };
        let p = CompactBoard::from_chess(&pos);
        if triplets {
            // The k-th of the moves other than the best, as `make_batch` picks it.
            let Some(k) = (legal.len() > 1).then(|| other_move(seed, rec, legal.len() - 1)) else {
                continue;
            };
            let Some(other) = legal.iter().filter(|m| *m != best).nth(k) else {
                continue;
            };
            let child = |m: &shakmaty::Move| {
                let mut c = pos.clone();
                c.play_unchecked(*m);
                CompactBoard::from_chess(&c)
            };
            boards.push(&p, Some((&child(best), &child(other))));
        } else {
            boards.push(&p, None);
        }
        score.push(f32::from(rec.score).clamp(-SCORE_CAP, SCORE_CAP));
        result.push(rec.result.score_for(pos.turn()));
    }
    (boards, score, result)
}

/// A batch of `records` in `layout`.
pub fn make_in(
    layout: Layout,
    records: &[SelfPlayRecord],
    triplets: bool,
    mirror: bool,
    seed: u64,
) -> ValueBatch {
    match layout {
        // Whole boards carry no block: the net finds each board's from its kings.
        Layout::Boards => make_batch(records, triplets, seed),
        Layout::Persp => make_persp_batch(records, triplets, mirror, seed),
        Layout::Native => make_native_batch(records, triplets, mirror, seed),
    }
}

/// The native step's threads: libtorch's setting (the config's `torch_threads`).
fn native_threads() -> usize {
    tch::get_num_threads().max(1) as usize
}

/// The value objective, or value plus triplets.
pub struct ValueObjective {
    /// The result weight of the training target at the current step (`at_step` moves it
    /// along the config's schedule).
    pub lambda: f64,
    /// The result weight of validation's target: the config's `lambda` throughout, so that
    /// the validation column compares step with step, and run with run.
    pub valid_lambda: f64,
    pub scale: f64,
    /// 0 for the value objective alone.
    pub triplet_weight: f64,
    pub kappa: f64,
    pub cp_per_unit: f64,
    /// The batches' layout: a perspective net's for the native step on the CPU, for the
    /// perspective step elsewhere.
    pub layout: Layout,
    /// The net is king-file mirrored (`net::mirror`), so a perspective layout names
    /// (block, feature) rows.
    pub mirror: bool,
}

impl ValueObjective {
    pub fn for_config(config: &TrainConfig) -> Self {
        let mixed = config.objective == super::ObjectiveKind::Mixed;
        ValueObjective {
            lambda: config.lambda,
            valid_lambda: config.lambda,
            scale: config.value_scale,
            triplet_weight: if mixed { config.triplet_weight } else { 0.0 },
            kappa: config.kappa,
            cp_per_unit: f64::from(config.cp_per_unit),
            layout: Self::layout_for(config),
            mirror: crate::net::ModelArch::preset(&config.preset)
                .is_ok_and(|a| a.mlp().is_some_and(|m| m.king_mirror)),
        }
    }

    fn layout_for(config: &TrainConfig) -> Layout {
        let persp = crate::net::ModelArch::preset(&config.preset).is_ok_and(|a| {
            a.mlp()
                .is_some_and(|m| m.form == crate::net::Form::Perspective)
        });
        let cpu = config
            .device
            .parse::<crate::net::DeviceChoice>()
            .ok()
            .and_then(|d| d.resolve().ok())
            == Some(tch::Device::Cpu);
        match (persp, cpu) {
            (false, _) => Layout::Boards,
            (true, false) => Layout::Persp,
            (true, true) => Layout::Native,
        }
    }

    /// A batch of `records` in the layout this objective trains on.
    pub fn make(&self, records: &[SelfPlayRecord], seed: u64) -> ValueBatch {
        make_in(self.layout, records, self.triplets(), self.mirror, seed)
    }

    fn triplets(&self) -> bool {
        self.triplet_weight > 0.0
    }

    pub(super) fn filter(config: &TrainConfig) -> Filter {
        Filter {
            skip_plies: config.skip_plies,
            skip_after_random: config.skip_after_random,
            by_file: config.skip_plies_by_file.clone(),
            valid_permille: config.valid_permille,
            weight_permille: config
                .weight_by_file
                .iter()
                .map(|(p, w)| (p.clone(), (w * 1000.0).round() as u32))
                .collect(),
        }
    }

    pub(super) fn train_paths(config: &TrainConfig) -> Vec<PathBuf> {
        std::iter::once(config.train.clone())
            .chain(config.train_more.iter().cloned())
            .collect()
    }

    /// f(p) and, with triplets, f(q) and f(r); on a perspective batch, under autograd all
    /// the way (the step itself runs [`ValueObjective::persp_loss_and_grads`]).
    fn forward(&self, net: &TrainNet, b: &ValueBatch) -> (Tensor, Option<(Tensor, Tensor)>) {
        let f = match &b.inputs {
            Inputs::Boards(boards) => net.forward_sparse(boards),
            Inputs::Persp(t) => {
                let t = t.to_device(net.device());
                let (p, kids) = persp_step::views(net.mlp(), &t);
                persp_step::scores(net.mlp(), &p, kids.as_ref(), &t)
            }
            // Scores only, no graph: validation's use.
            Inputs::Native(boards) => {
                let f = native_step::Weights::of(net.mlp()).forward(boards, native_threads());
                Tensor::from_slice(&f).to_device(net.device())
            }
        };
        self.split(&f, b)
    }

    fn split(&self, f: &Tensor, b: &ValueBatch) -> (Tensor, Option<(Tensor, Tensor)>) {
        let n = b.n as i64;
        let fp = f.narrow(0, 0, n);
        let rest = b
            .triplets
            .then(|| (f.narrow(0, n, n), f.narrow(0, 2 * n, n)));
        (fp, rest)
    }

    /// Per-position squared error of the value, [N], and the predicted centipawns.
    fn value_terms(&self, fp: &Tensor, b: &ValueBatch, lambda: f64) -> (Tensor, Tensor) {
        let device = fp.device();
        let cp = fp * (-self.cp_per_unit);
        let pred = (&cp / self.scale).sigmoid();
        let score = Tensor::from_slice(&b.score).to_device(device);
        let result = Tensor::from_slice(&b.result).to_device(device);
        let target = &result * lambda + (score / self.scale).sigmoid() * (1.0 - lambda);
        ((pred - target).square(), cp)
    }

    /// The mean loss from f(p) (and f(q), f(r)).
    fn loss_of(&self, fp: &Tensor, rest: Option<(Tensor, Tensor)>, b: &ValueBatch) -> Tensor {
        let (sq, _) = self.value_terms(fp, b, self.lambda);
        let value = sq.mean(Kind::Float);
        match rest {
            Some((fq, fr)) => value + loss::mean(fp, &fq, &fr, self.kappa) * self.triplet_weight,
            None => value,
        }
    }

    /// The training step's loss and gradients as [`Objective::loss_and_grads`] computes
    /// them (or, `autograd` on a perspective batch, by autograd from the first layer on),
    /// with the seconds of its forward and its backward half (for `train --speed`).
    pub fn timed_loss_and_grads(
        &self,
        net: &TrainNet,
        b: &ValueBatch,
        autograd: bool,
    ) -> (Tensor, f64, f64) {
        let start = std::time::Instant::now();
        match &b.inputs {
            Inputs::Native(boards) => self.timed_native(net, b, boards),
            Inputs::Persp(t) if !autograd => {
                let t = t.to_device(net.device());
                let fwd = persp_step::forward(net.mlp(), &t);
                let (fp, rest) = self.split(&fwd.f, b);
                let l = self.loss_of(&fp, rest, b);
                let forward = start.elapsed().as_secs_f64();
                persp_step::backward(net.mlp(), &t, &fwd, &l);
                (l, forward, start.elapsed().as_secs_f64() - forward)
            }
            _ => {
                let l = self.loss(net, b);
                let forward = start.elapsed().as_secs_f64();
                l.backward();
                (l, forward, start.elapsed().as_secs_f64() - forward)
            }
        }
    }

    /// The native step: the loss, with every parameter's gradient accumulated. The scores
    /// come from `native_step`, the loss and its gradient for each score from libtorch (the
    /// same code as every other path's), the parameters' gradients from `native_step` again.
    pub fn native_loss_and_grads(
        &self,
        net: &TrainNet,
        b: &ValueBatch,
        boards: &PerspBoards,
    ) -> Tensor {
        self.timed_native(net, b, boards).0
    }

    fn timed_native(
        &self,
        net: &TrainNet,
        b: &ValueBatch,
        boards: &PerspBoards,
    ) -> (Tensor, f64, f64) {
        assert_eq!(
            net.device(),
            tch::Device::Cpu,
            "the native step runs on the CPU"
        );
        let start = std::time::Instant::now();
        let threads = native_threads();
        let weights = native_step::Weights::of(net.mlp());
        let f = Tensor::from_slice(&weights.forward(boards, threads)).set_requires_grad(true);
        let (fp, rest) = self.split(&f, b);
        let l = self.loss_of(&fp, rest, b);
        let forward = start.elapsed().as_secs_f64();
        l.backward();
        let df = f.grad();
        let count = df.numel();
        let mut d = vec![0f32; count];
        df.copy_data(&mut d, count);
        weights.backward(boards, &d, threads).deposit(net.mlp());
        (l, forward, start.elapsed().as_secs_f64() - forward)
    }

    /// The perspective step: the loss, with every parameter's gradient accumulated.
    pub fn persp_loss_and_grads(&self, net: &TrainNet, b: &ValueBatch, t: &PerspTensors) -> Tensor {
        let t = t.to_device(net.device());
        let fwd = persp_step::forward(net.mlp(), &t);
        let (fp, rest) = self.split(&fwd.f, b);
        let l = self.loss_of(&fp, rest, b);
        persp_step::backward(net.mlp(), &t, &fwd, &l);
        l
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
            "value objective on self-play ({} K={} cp){mix}, {:?} {} l2={} batch={}, \
             {}, data {data}",
            config.lambda_description(),
            self.scale,
            config.optimiser,
            config.lr_description(),
            config.l2,
            config.batch,
            skip_description(config)
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
        Ok(records
            .chunks(config.batch)
            .map(|c| self.make(c, config.seed))
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
        let (triplets, seed, layout, mirror) =
            (self.triplets(), config.seed, self.layout, self.mirror);
        let loader = Loader::spawn_with(
            set,
            &config.train,
            Order::of(config, start_step),
            config.loader_threads(),
            move |c: &[SelfPlayRecord]| make_in(layout, c, triplets, mirror, seed),
        )?;
        Ok((loader, records))
    }

    /// The loss; with its graph back to the parameters except on a native batch, whose
    /// scores come from outside libtorch (the step runs `loss_and_grads`).
    fn at_step(&mut self, config: &TrainConfig, step: u64) {
        self.lambda = config.lambda_at(step);
    }

    fn loss(&self, net: &TrainNet, batch: &ValueBatch) -> Tensor {
        let (fp, rest) = self.forward(net, batch);
        self.loss_of(&fp, rest, batch)
    }

    fn loss_and_grads(&self, net: &TrainNet, batch: &ValueBatch) -> Tensor {
        match &batch.inputs {
            Inputs::Persp(t) => self.persp_loss_and_grads(net, batch, t),
            Inputs::Native(boards) => self.native_loss_and_grads(net, batch, boards),
            Inputs::Boards(_) => {
                let l = self.loss(net, batch);
                l.backward();
                l
            }
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
                let (sq, cp) = self.value_terms(&fp, b, self.valid_lambda);
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
        batch.n as u64 * if batch.triplets { 3 } else { 1 }
    }

    fn positions(&self, batch: &ValueBatch) -> u64 {
        batch.n as u64
    }
}

/// The skip rule for the log: the general one, then each file named in
/// `skip_plies_by_file` with its own count, then the weight of each file in `weight_by_file`.
fn skip_description(config: &TrainConfig) -> String {
    let rule = config.skip_after_random.map_or_else(
        || format!("skip_plies={}", config.skip_plies),
        |k| format!("skip_after_random={k}"),
    );
    let skips = config
        .skip_plies_by_file
        .iter()
        .fold(rule, |s, (p, n)| format!("{s} ({}: {n})", p.display()));
    config.weight_by_file.iter().fold(skips, |s, (p, w)| {
        format!("{s}, {} drawn {w}x an epoch", p.display())
    })
}
