//! Raw forward throughput of a net at a fixed batch: the ceiling the batched search is
//! measured against. It times the evaluator's own model code (`net_model::Model::forward`),
//! so the figure includes encoding the `CompactBoard`s into the chosen encoder's input,
//! the host-device copies and reading the scores back, and excludes only the channels and
//! the queueing of the batcher.

use super::net_eval::auto_torch_threads;
use super::net_model::Model;
use super::{Encoder, Precision};
use crate::chess::sample_boards;
use crate::net::{DeviceChoice, NetError, NetFile};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct ThroughputConfig {
    pub batch: usize,
    pub device: DeviceChoice,
    pub precision: Precision,
    pub encoder: Encoder,
    /// 0: the evaluator's rule for a batch with no searcher running.
    pub torch_threads: usize,
    /// Timed duration, after the warm-up.
    pub duration: Duration,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Throughput {
    pub batch: usize,
    pub forwards: u64,
    pub elapsed: Duration,
    pub encoder: Encoder,
    pub device: String,
    pub torch_threads: usize,
}

impl Throughput {
    pub fn positions_per_second(&self) -> f64 {
        (self.forwards * self.batch as u64) as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// One line for people and scripts: `key=value` pairs, positions/s first.
    pub fn line(&self) -> String {
        format!(
            "throughput positions_per_s={:.0} batch={} forwards={} seconds={:.2} encoder={} \
             device={} torch_threads={} (includes encoding from CompactBoard)",
            self.positions_per_second(),
            self.batch,
            self.forwards,
            self.elapsed.as_secs_f64(),
            self.encoder,
            self.device,
            self.torch_threads
        )
    }
}

/// Forwards of `batch` distinct realistic boards, back to back, for `config.duration`.
pub fn measure(net: &NetFile, config: &ThroughputConfig) -> Result<Throughput, NetError> {
    if config.batch == 0 || config.batch > super::net_eval::MAX_BATCH_LIMIT {
        return Err(NetError::BadConfig(format!(
            "batch must be between 1 and {}, got {}",
            super::net_eval::MAX_BATCH_LIMIT,
            config.batch
        )));
    }
    let device = config.device.resolve()?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut model = Model::build(
        net,
        device,
        config.batch,
        config.encoder,
        config.precision,
        config.torch_threads,
    )?;
    let threads = if config.torch_threads > 0 {
        config.torch_threads
    } else {
        auto_torch_threads(cores, 0, config.batch).min(model.thread_cap())
    };
    model.set_threads(threads);
    let boards = sample_boards(config.batch);
    let mut scores = vec![0f32; config.batch];
    let started = Instant::now();
    let mut forwards = 0u64;
    while forwards == 0 || started.elapsed() < config.duration {
        model
            .forward(&boards, &mut scores)
            .map_err(|e| NetError::torch("running a timed forward pass", e))?;
        forwards += 1;
    }
    Ok(Throughput {
        batch: config.batch,
        forwards,
        elapsed: started.elapsed(),
        encoder: model.encoder(),
        device: crate::net::device::device_name(device),
        torch_threads: threads,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::NetMeta;

    #[test]
    fn measures_a_small_net_briefly() {
        let meta = NetMeta::for_preset("small").expect("preset");
        let vs = tch::nn::VarStore::new(tch::Device::Cpu);
        let _mlp = crate::net::init::seeded(1, || crate::net::Mlp::new(&vs.root(), &meta.arch));
        let net = NetFile::from_varstore(meta, &vs).expect("copies out");
        let config = ThroughputConfig {
            batch: 16,
            device: DeviceChoice::Cpu,
            precision: Precision::Fp32,
            encoder: Encoder::Sparse,
            torch_threads: 1,
            duration: Duration::from_millis(50),
        };
        let t = measure(&net, &config).expect("measures");
        assert!(t.forwards >= 1);
        assert!(t.positions_per_second() > 0.0);
        assert_eq!(t.encoder, Encoder::Sparse);
        assert!(
            t.line().starts_with("throughput positions_per_s="),
            "{}",
            t.line()
        );
        let bad = ThroughputConfig { batch: 0, ..config };
        assert!(measure(&net, &bad).is_err());
    }
}
