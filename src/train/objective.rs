//! What a training run optimises: Deep Pink's triplet objective for the MLPs, or the game
//! result (win/loss) for the CNNs. The loop in `run` is the same for both; an objective says
//! where its batches come from, what the loss is and what validation reports.

use super::config::TrainConfig;
use super::loader::{spread_sample, Batch, Loader, Order};
use super::loss::{self, LossStats};
use super::model::TrainNet;
use anyhow::Result;
use tch::Tensor;

/// One validation pass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Validation {
    pub loss: f64,
    /// Triplets: f(q) < f(r), the played move preferred. Win/loss: decisive positions whose
    /// winner the net predicts (threshold 0.5).
    pub accuracy: f64,
    /// Triplets: mean |f(p) + f(q)|. Win/loss: 0.
    pub extra: f64,
}

pub trait Objective {
    type Batch: Send + 'static;

    /// A sentence for the log and the net's description.
    fn describe(&self, config: &TrainConfig) -> String;

    /// The fixed validation batches.
    fn valid_batches(&self, config: &TrainConfig) -> Result<Vec<Self::Batch>>;

    /// Training batches from step `start_step` on, and the number of training records.
    fn loader(&self, config: &TrainConfig, start_step: u64) -> Result<(Loader<Self::Batch>, u64)>;

    /// Moves what the config schedules besides the learning rate to step `step`, before
    /// that step's loss (the value objective's λ).
    fn at_step(&mut self, _config: &TrainConfig, _step: u64) {}

    /// The mean loss of a batch, in training mode, with its graph.
    fn loss(&self, net: &TrainNet, batch: &Self::Batch) -> Tensor;

    /// The loss of a batch with its gradients added to the parameters' (the training step;
    /// the caller zeroes them first). An objective may compute them its own way, to the same
    /// values as `loss`'s graph.
    fn loss_and_grads(&self, net: &TrainNet, batch: &Self::Batch) -> Tensor {
        let l = self.loss(net, batch);
        l.backward();
        l
    }

    fn validate(&self, net: &TrainNet, batches: &[Self::Batch]) -> Validation;

    /// Boards through the forward pass for a batch, children included (for the speed
    /// figure).
    fn boards(&self, batch: &Self::Batch) -> u64;

    /// Training positions in a batch: a triplet counts once, though it passes three boards.
    fn positions(&self, batch: &Self::Batch) -> u64 {
        self.boards(batch)
    }
}

/// Deep Pink's objective (see `loss`).
pub struct Triplets {
    pub kappa: f64,
}

/// f(p), f(q), f(r) for a batch.
fn forward(net: &TrainNet, batch: &Batch) -> (Tensor, Tensor, Tensor) {
    let f = net.forward_sparse(&batch.boards);
    let n = batch.n as i64;
    (f.narrow(0, 0, n), f.narrow(0, n, n), f.narrow(0, 2 * n, n))
}

impl Objective for Triplets {
    type Batch = Batch;

    fn describe(&self, config: &TrainConfig) -> String {
        let data = config.train_file_name();
        format!(
            "Deep Pink triplet objective, kappa={}, {:?} {} l2={} batch={}, data {data}",
            config.kappa,
            config.optimiser,
            config.lr_description(),
            config.l2,
            config.batch
        )
    }

    fn valid_batches(&self, config: &TrainConfig) -> Result<Vec<Batch>> {
        Ok(
            spread_sample(&config.valid, config.valid_batches * config.batch)?
                .chunks(config.batch)
                .map(Batch::from_triplets)
                .collect(),
        )
    }

    fn loader(&self, config: &TrainConfig, start_step: u64) -> Result<(Loader<Batch>, u64)> {
        let loader = Loader::spawn(
            &config.train,
            Order::of(config, start_step),
            config.loader_threads(),
        )?;
        let records = loader.records;
        Ok((loader, records))
    }

    fn loss(&self, net: &TrainNet, batch: &Batch) -> Tensor {
        let (fp, fq, fr) = forward(net, batch);
        loss::mean(&fp, &fq, &fr, self.kappa)
    }

    fn validate(&self, net: &TrainNet, batches: &[Batch]) -> Validation {
        let mut stats = LossStats::default();
        tch::no_grad(|| {
            for b in batches {
                let (fp, fq, fr) = forward(net, b);
                stats.add(&fp, &fq, &fr, self.kappa);
            }
        });
        Validation {
            loss: stats.loss(),
            accuracy: stats.accuracy(),
            extra: stats.mean_abs_pq(),
        }
    }

    fn boards(&self, batch: &Batch) -> u64 {
        3 * batch.n as u64
    }

    fn positions(&self, batch: &Batch) -> u64 {
        batch.n as u64
    }
}
