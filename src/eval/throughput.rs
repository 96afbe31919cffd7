//! Raw evaluation throughput of a net: the ceiling a search's evals/s is measured against.
//!
//! libtorch: it times the evaluator's own model code (`torch::model::Model::forward`) at a
//! fixed batch, so the figure includes encoding the `CompactBoard`s into the chosen
//! encoder's input, the host-device copies and reading the scores back, and excludes only
//! the channels and the queueing of the batcher.
//!
//! native: one thread, two figures: boards scored from scratch (`batch` at a time), and
//! children scored incrementally from their parent, as the search calls it (every legal
//! child of each position of a fixed walk).

use super::route::Route;
use super::threads::auto_torch_threads;
use super::torch::model::Model;
use super::{Backend, Encoder, Evaluator, NativeEvaluator, Precision};
use crate::chess::{sample_boards, sample_families};
use crate::net::{DeviceChoice, NetError, NetFile};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct ThroughputConfig {
    pub backend: Backend,
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
    pub backend: Backend,
    /// Native only: children scored per second from their parents' accumulators.
    pub incremental_per_s: Option<f64>,
    /// Native only: the instruction set.
    pub simd: Option<&'static str>,
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
        if let (Some(incremental), Some(simd)) = (self.incremental_per_s, self.simd) {
            return format!(
                "throughput positions_per_s={:.0} incremental_per_s={incremental:.0} batch={} \
                 seconds={:.2} backend=native simd={simd} device=cpu threads=1 (from scratch \
                 and incremental from the parent)",
                self.positions_per_second(),
                self.batch,
                self.elapsed.as_secs_f64(),
            );
        }
        format!(
            "throughput positions_per_s={:.0} batch={} forwards={} seconds={:.2} backend=torch \
             encoder={} device={} torch_threads={} (includes encoding from CompactBoard)",
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

/// `cerise net throughput`'s arguments.
#[derive(clap::Args)]
pub struct ThroughputArgs {
    /// A fresh net of this preset (weights do not change the speed).
    #[arg(long, conflicts_with = "net", required_unless_present = "net")]
    pub preset: Option<String>,
    /// A .safetensors net file.
    #[arg(long)]
    pub net: Option<std::path::PathBuf>,
    #[arg(long)]
    pub batch: usize,
    /// auto (native, unless the device is cuda by name: then torch), native or torch.
    #[arg(long, default_value = "auto")]
    pub backend: Backend,
    #[arg(long, default_value = "auto")]
    pub device: DeviceChoice,
    #[arg(long, default_value = "auto")]
    pub precision: Precision,
    #[arg(long, default_value = "auto")]
    pub encoder: Encoder,
    /// libtorch intra-op threads; 0 applies the evaluator's rule.
    #[arg(long, default_value_t = 0)]
    pub torch_threads: usize,
    /// Timed seconds after the warm-up.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
}

/// `cerise net throughput`: the net the arguments name, measured as they say.
pub fn run_cli(args: &ThroughputArgs) -> Result<Throughput, String> {
    let net = match (&args.net, &args.preset) {
        (Some(path), _) => crate::net::load(path).map_err(|e| e.to_string())?,
        (None, Some(preset)) => crate::net::init::fresh(preset).map_err(|e| e.to_string())?,
        (None, None) => return Err("give --preset NAME or --net FILE".to_string()),
    };
    if !(args.seconds > 0.0 && args.seconds <= 3600.0) {
        return Err(format!(
            "--seconds must be in (0, 3600], got {}",
            args.seconds
        ));
    }
    let config = ThroughputConfig {
        backend: args.backend,
        batch: args.batch,
        device: args.device,
        precision: args.precision,
        encoder: args.encoder,
        torch_threads: args.torch_threads,
        duration: Duration::from_secs_f64(args.seconds),
    };
    measure(&net, &config).map_err(|e| e.to_string())
}

/// Forwards of `batch` distinct realistic boards, back to back, for `config.duration`.
pub fn measure(net: &NetFile, config: &ThroughputConfig) -> Result<Throughput, NetError> {
    if config.batch == 0 || config.batch > super::MAX_BATCH_LIMIT {
        return Err(NetError::BadConfig(format!(
            "batch must be between 1 and {}, got {}",
            super::MAX_BATCH_LIMIT,
            config.batch
        )));
    }
    // The backend and precision an evaluator of this net would run in.
    let precision = match super::open::route_of(
        net,
        "the net",
        config.device,
        config.backend,
        config.precision,
    )
    .map_err(NetError::BadConfig)?
    {
        Route::Native(_) => return measure_native(net, config),
        Route::Torch(precision) => precision,
    };
    let device = config.device.resolve()?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut model = Model::build(
        net,
        device,
        config.batch,
        config.encoder,
        precision,
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
        backend: Backend::Torch,
        incremental_per_s: None,
        simd: None,
        batch: config.batch,
        forwards,
        elapsed: started.elapsed(),
        encoder: model.encoder(),
        device: crate::net::device::device_name(device),
        torch_threads: threads,
    })
}

/// The native backend on this thread: half the time from scratch, half incrementally.
fn measure_native(net: &NetFile, config: &ThroughputConfig) -> Result<Throughput, NetError> {
    let native = NativeEvaluator::from_net(net, "throughput")?;
    let boards = sample_boards(config.batch);
    let families = sample_families(200);
    let half = config.duration / 2;
    let mut out = Vec::with_capacity(config.batch.max(64));
    let started = Instant::now();
    let mut forwards = 0u64;
    while forwards == 0 || started.elapsed() < half {
        native
            .evaluate(&boards, &mut out)
            .map_err(|e| NetError::BadConfig(e.to_string()))?;
        forwards += 1;
    }
    let scratch_elapsed = started.elapsed();
    let started = Instant::now();
    let mut children = 0u64;
    while children == 0 || started.elapsed() < half {
        for (parent, kids) in &families {
            native
                .evaluate_children(parent, kids, &mut out)
                .map_err(|e| NetError::BadConfig(e.to_string()))?;
            children += kids.len() as u64;
        }
    }
    let incremental = children as f64 / started.elapsed().as_secs_f64().max(1e-9);
    Ok(Throughput {
        backend: Backend::Native,
        incremental_per_s: Some(incremental),
        simd: Some(native.simd().name()),
        batch: config.batch,
        forwards,
        elapsed: scratch_elapsed,
        encoder: Encoder::Sparse,
        device: "cpu".to_string(),
        torch_threads: 0,
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
        let _net =
            crate::net::seed::seeded(1, || crate::net::NetModule::new(&vs.root(), &meta.arch));
        let net = NetFile::from_varstore(meta, &vs).expect("copies out");
        let config = ThroughputConfig {
            backend: Backend::Torch,
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
        let native = measure(
            &net,
            &ThroughputConfig {
                backend: Backend::Native,
                ..config.clone()
            },
        )
        .expect("measures native");
        assert_eq!(native.backend, Backend::Native);
        assert!(native.incremental_per_s.is_some_and(|r| r > 0.0));
        assert!(
            native.line().contains("backend=native"),
            "{}",
            native.line()
        );
        let bad = ThroughputConfig { batch: 0, ..config };
        assert!(measure(&net, &bad).is_err());
    }
}
