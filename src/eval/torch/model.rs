//! The libtorch side of the net evaluator: the model, its staging buffers, the two input
//! encoders and the precision it runs in. Lives and dies on one thread (tensors are not
//! `Sync`); the batcher in `batcher` and the throughput tool drive it.
//!
//! Encoders: `dense` writes 768 one-hot floats per board and runs a dense first layer;
//! `sparse` writes the (at most 64) set feature indices and sums `l0.weight` columns with
//! `embedding_bag`. Which is faster depends on the net, the device and the batch, so `auto`
//! times both at load and keeps the faster. A convolutional net reads dense planes only.

use crate::chess::{sample_boards, CompactBoard};
use crate::eval::settings::{Encoder, Precision};
use crate::net::{ModelArch, NetError, NetFile, NetModule};
use std::time::{Duration, Instant};
use tch::{nn::VarStore, Device, Kind, Tensor};

/// A board has at most one piece per square, so at most 64 set features.
const MAX_FEATURES: usize = 64;

impl Precision {
    /// The tensor kind a net runs in. Which precision may run where is the opener's rule
    /// (`eval::route`), which gives libtorch fp32 or a half precision on CUDA; the others
    /// (`auto`, left by a caller that builds a model itself, and `int8`, refused first) run
    /// in fp32, the reference.
    pub fn kind(self) -> Kind {
        match self {
            Precision::Auto | Precision::Fp32 | Precision::Int8 => Kind::Float,
            Precision::Fp16 => Kind::Half,
            Precision::Bf16 => Kind::BFloat16,
        }
    }

    /// The name of [`Precision::kind`], for the evaluator's name.
    pub fn torch_name(self) -> &'static str {
        match self.kind() {
            Kind::Half => "fp16",
            Kind::BFloat16 => "bf16",
            _ => "fp32",
        }
    }
}

/// Seconds per forward of each encoder, as measured at load (for logs and `bench`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EncoderTiming {
    pub dense_s: f64,
    pub sparse_s: f64,
}

pub struct Model {
    _vs: VarStore,
    module: NetModule,
    arch: ModelArch,
    device: Device,
    kind: Kind,
    encoder: Encoder,
    max_batch: usize,
    /// `[max_batch, input width]` f32 on the host (768 one-hot features or a CNN's planes),
    /// pinned on CUDA so the copy can be asynchronous.
    dense: Tensor,
    /// `[max_batch × 64 + max_batch]` i64: indices then (at `max_batch × 64`) offsets.
    sparse: Tensor,
    /// `raw_sign · cp_per_unit`: turns the family's raw output into centipawns for the side
    /// to move.
    scale: f32,
    threads: usize,
    thread_cap: usize,
    timing: Option<EncoderTiming>,
}

fn pinned(t: Tensor, device: Device, what: &str) -> Result<Tensor, NetError> {
    if device.is_cuda() {
        t.f_pin_memory(device)
            .map_err(|e| NetError::torch(&format!("pinning the {what} buffer"), e))
    } else {
        Ok(t)
    }
}

impl Model {
    /// Loads the weights, allocates the staging buffers, warms up at the real batch shapes
    /// and (for [`Encoder::Auto`]) picks the faster encoder.
    pub fn build(
        net: &NetFile,
        device: Device,
        max_batch: usize,
        encoder: Encoder,
        precision: Precision,
        torch_threads: usize,
    ) -> Result<Self, NetError> {
        let arch = net.meta.arch.clone();
        if !arch.scores_positions() {
            return Err(NetError::BadConfig(format!(
                "this net is a {} ({}): it scores moves, not positions, so it cannot be the \
                 evaluator; choose an mlp or cnn net",
                arch.family_name(),
                arch.describe()
            )));
        }
        let encoder = match (&arch, encoder) {
            (ModelArch::Mlp(_), e) => e,
            (_, Encoder::Sparse) => {
                return Err(NetError::BadConfig(format!(
                    "the sparse encoder runs only mlp nets, and this net is a {}; use the dense \
                     or auto encoder",
                    arch.family_name()
                )))
            }
            (_, _) => Encoder::Dense,
        };
        let mut vs = VarStore::new(device);
        let module = NetModule::zeroed(&vs.root(), &arch);
        net.copy_into(&vs)?;
        if precision.is_half() {
            vs.set_kind(precision.kind());
        }
        let rows = max_batch as i64;
        let width = arch.input_width() as i64;
        let dense = Tensor::f_zeros([rows, width], (Kind::Float, Device::Cpu))
            .map_err(|e| NetError::torch("allocating the dense input buffer", e))?;
        let sparse = Tensor::f_zeros(
            [rows * (MAX_FEATURES as i64 + 1)],
            (Kind::Int64, Device::Cpu),
        )
        .map_err(|e| NetError::torch("allocating the sparse input buffer", e))?;
        let mut model = Model {
            _vs: vs,
            module,
            scale: arch.raw_sign() * net.meta.cp_per_unit,
            arch,
            device,
            kind: precision.kind(),
            encoder,
            max_batch,
            dense: pinned(dense, device, "dense input")?,
            sparse: pinned(sparse, device, "sparse input")?,
            threads: 0,
            thread_cap: torch_threads.max(1),
            timing: None,
        };
        // Timings below run on one thread, so a busy machine cannot skew the encoder choice
        // through a slow multi-threaded pass.
        model.set_threads(torch_threads.max(1));
        model
            .warm_up()
            .map_err(|e| NetError::torch("running the warm-up forward passes", e))?;
        if torch_threads == 0 && !device.is_cuda() {
            model.thread_cap = model
                .measure_thread_cap()
                .map_err(|e| NetError::torch("timing intra-op threads", e))?;
        }
        Ok(model)
    }

    /// Most intra-op threads worth using: every core if a full batch runs clearly faster on
    /// them than on one, else one. Measured because on a loaded machine extra OpenMP
    /// threads can make forwards many times slower instead of faster.
    fn measure_thread_cap(&mut self) -> Result<usize, tch::TchError> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // On two cores a second OpenMP thread always shares a core with a searcher or
        // another process, and a forward then waits for its slowest thread: measured 5-30x
        // slower, and a short timing at load can still get lucky, so do not try.
        if cores <= 2 || self.max_batch < crate::eval::threads::SMALL_BATCH {
            return Ok(1);
        }
        let boards = sample_boards(self.max_batch);
        let mut scores = vec![0f32; self.max_batch];
        self.set_threads(cores);
        self.forward(&boards, &mut scores)?;
        // Interleaved, so a burst of load from other processes hits both counts alike.
        let (mut one, mut all) = (Vec::new(), Vec::new());
        let started = Instant::now();
        while one.len() < 5 && (one.len() < 2 || started.elapsed() < Duration::from_secs(1)) {
            for (threads, times) in [(1, &mut one), (cores, &mut all)] {
                self.set_threads(threads);
                let t = Instant::now();
                self.forward(&boards, &mut scores)?;
                times.push(t.elapsed().as_secs_f64());
            }
        }
        self.set_threads(1);
        one.sort_by(f64::total_cmp);
        all.sort_by(f64::total_cmp);
        let (one, all) = (one[one.len() / 2], all[all.len() / 2]);
        // A wrong "all cores" costs far more than a wrong "one", so demand a clear win.
        Ok(if all < 0.6 * one { cores } else { 1 })
    }

    /// The thread cap measured at load (or the fixed count configured).
    pub fn thread_cap(&self) -> usize {
        self.thread_cap
    }

    /// The encoder in use: never `Auto` after `build`.
    pub fn encoder(&self) -> Encoder {
        self.encoder
    }

    pub fn timing(&self) -> Option<EncoderTiming> {
        self.timing
    }

    /// Sets libtorch's intra-op threads for this thread, if it changed.
    pub fn set_threads(&mut self, threads: usize) {
        let threads = threads.max(1);
        if threads != self.threads {
            tch::set_num_threads(threads as i32);
            self.threads = threads;
        }
    }

    /// The first forward allocates and (on CUDA) initialises kernels for each shape: pay for
    /// that at load. Then, for `Auto`, time both encoders per position at the largest batch
    /// and at a sibling-sized one (a single searcher's batches), summing the two so neither
    /// regime is ignored.
    fn warm_up(&mut self) -> Result<(), tch::TchError> {
        let boards = sample_boards(self.max_batch);
        let large = self.max_batch;
        let small = large.min(32);
        let mut scores = vec![0f32; large];
        let wanted = self.encoder;
        let mut cost = |model: &mut Model, enc: Encoder| -> Result<f64, tch::TchError> {
            model.encoder = enc;
            let mut total = 0.0;
            for n in [large, small] {
                model.forward(&boards[..n], &mut scores)?;
                total += median_seconds(|| model.forward(&boards[..n], &mut scores))? / n as f64;
            }
            Ok(total)
        };
        match wanted {
            Encoder::Auto if self.arch.mlp().is_some() => {
                let dense_s = cost(self, Encoder::Dense)?;
                let sparse_s = cost(self, Encoder::Sparse)?;
                self.timing = Some(EncoderTiming { dense_s, sparse_s });
                self.encoder = if sparse_s < dense_s {
                    Encoder::Sparse
                } else {
                    Encoder::Dense
                };
            }
            fixed => {
                // Auto reaches here only for a CNN, which has one encoder.
                self.encoder = if fixed == Encoder::Auto {
                    Encoder::Dense
                } else {
                    fixed
                };
                self.forward(&boards[..small], &mut scores)?;
                self.forward(&boards, &mut scores)?;
            }
        }
        Ok(())
    }

    /// Writes the scores (side to move, centipawns) of `boards` into `scores[..n]`.
    /// `boards.len()` must be at most `max_batch`.
    pub fn forward(
        &mut self,
        boards: &[CompactBoard],
        scores: &mut [f32],
    ) -> Result<(), tch::TchError> {
        let n = boards.len();
        if n > self.max_batch || scores.len() < n {
            return Err(tch::TchError::Shape(format!(
                "a batch of {n} does not fit max_batch {} / {} score slots",
                self.max_batch,
                scores.len()
            )));
        }
        if n == 0 {
            return Ok(());
        }
        tch::no_grad(|| {
            let raw = match self.encoder {
                Encoder::Sparse => self.forward_sparse(boards)?,
                Encoder::Dense | Encoder::Auto => self.forward_dense(boards)?,
            };
            raw.f_to_kind(Kind::Float)?.f_copy_data(&mut scores[..n], n)
        })?;
        for s in &mut scores[..n] {
            *s *= self.scale;
        }
        Ok(())
    }

    fn to_device(&self, t: Tensor) -> Result<Tensor, tch::TchError> {
        if self.device.is_cuda() {
            // The source is pinned, so this copy is asynchronous; the forward that reads it
            // is queued behind it on the same stream, and the result copy back waits.
            t.f_to_device_(self.device, t.kind(), true, false)
        } else {
            Ok(t)
        }
    }

    fn forward_dense(&mut self, boards: &[CompactBoard]) -> Result<Tensor, tch::TchError> {
        let n = boards.len();
        let width = self.arch.input_width();
        {
            let buf = host_slice::<f32>(&mut self.dense);
            let rows = &mut buf[..n * width];
            if let ModelArch::Mlp(_) = self.arch {
                rows.fill(0.0);
                for (board, row) in boards.iter().zip(rows.chunks_exact_mut(width)) {
                    for feature in board.active_features() {
                        row[feature] = 1.0;
                    }
                }
            } else {
                for (board, row) in boards.iter().zip(rows.chunks_exact_mut(width)) {
                    self.arch.encode_engine(board, row);
                }
            }
        }
        let mut input = self.to_device(self.dense.f_narrow(0, 0, n as i64)?)?;
        if self.kind != Kind::Float {
            input = input.f_to_kind(self.kind)?;
        }
        self.module.f_forward(&input)
    }

    fn forward_sparse(&mut self, boards: &[CompactBoard]) -> Result<Tensor, tch::TchError> {
        let Some(mlp) = self.module.mlp() else {
            return Err(tch::TchError::Shape(
                "the sparse encoder runs only mlp nets".to_string(),
            ));
        };
        let n = boards.len();
        let offsets_at = self.max_batch * MAX_FEATURES;
        let mut count = 0usize;
        {
            let buf = host_slice::<i64>(&mut self.sparse);
            for (i, board) in boards.iter().enumerate() {
                buf[offsets_at + i] = count as i64;
                for feature in board.active_features() {
                    buf[count] = feature as i64;
                    count += 1;
                }
            }
        }
        // Both views are staged in one buffer so CUDA needs a single pinned allocation.
        let indices = self.to_device(self.sparse.f_narrow(0, 0, count as i64)?)?;
        let offsets = self.to_device(self.sparse.f_narrow(0, offsets_at as i64, n as i64)?)?;
        mlp.f_forward_sparse(&indices, &offsets)
    }
}

/// A host staging tensor as a mutable slice.
fn host_slice<T>(t: &mut Tensor) -> &mut [T] {
    let len = t.numel();
    // SAFETY: the staging tensors are contiguous CPU tensors of `len` elements of `T` (f32
    // for `dense`, i64 for `sparse`) owned by `Model` and never shared; the `&mut` borrow
    // keeps them alive and unaliased for the slice's lifetime. Any asynchronous copy that
    // read them has finished, because `forward` waits for its results before returning.
    unsafe { std::slice::from_raw_parts_mut(t.data_ptr() as *mut T, len) }
}

/// Median wall time of a few calls, stopping early on slow nets so loading stays quick.
fn median_seconds(mut f: impl FnMut() -> Result<(), tch::TchError>) -> Result<f64, tch::TchError> {
    let budget = Duration::from_millis(300);
    let started = Instant::now();
    let mut times = Vec::with_capacity(7);
    while times.len() < 7 && (times.len() < 3 || started.elapsed() < budget) {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed().as_secs_f64());
        if started.elapsed() > budget * 4 {
            break;
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::init_net;

    fn net() -> NetFile {
        let dir = std::env::temp_dir().join(format!("cerise-netmodel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir is writable");
        let path = dir.join("small.safetensors");
        init_net("small", 5, &path).expect("init works");
        crate::net::load(&path).expect("loads")
    }

    #[test]
    fn encoders_agree_and_auto_picks_one_by_timing() {
        let net = net();
        let boards = sample_boards(100);
        let mut dense = Model::build(&net, Device::Cpu, 64, Encoder::Dense, Precision::Fp32, 1)
            .expect("builds");
        let mut sparse = Model::build(&net, Device::Cpu, 64, Encoder::Sparse, Precision::Fp32, 1)
            .expect("builds");
        assert_eq!(dense.encoder(), Encoder::Dense);
        assert!(dense.timing().is_none());
        let (mut a, mut b) = (vec![0f32; 64], vec![0f32; 64]);
        // Two batches of different sizes, so stale staging rows would show up.
        for chunk in [&boards[..64], &boards[64..]] {
            dense.forward(chunk, &mut a).expect("forward");
            sparse.forward(chunk, &mut b).expect("forward");
            for (x, y) in a[..chunk.len()].iter().zip(&b[..chunk.len()]) {
                assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{x} vs {y}");
            }
        }
        let auto =
            Model::build(&net, Device::Cpu, 64, Encoder::Auto, Precision::Fp32, 1).expect("builds");
        let timing = auto.timing().expect("auto measures");
        assert!(timing.dense_s > 0.0 && timing.sparse_s > 0.0);
        let faster = if timing.sparse_s < timing.dense_s {
            Encoder::Sparse
        } else {
            Encoder::Dense
        };
        assert_eq!(auto.encoder(), faster);
        let err = dense
            .forward(&sample_boards(65), &mut vec![0f32; 65])
            .expect_err("oversize batch is refused");
        assert!(err.to_string().contains("max_batch"), "{err}");
    }

    #[test]
    fn settings_parse_by_name() {
        // Half precision on the CPU is refused before a model is built (`eval::route`).
        assert_eq!("BF16".parse::<Precision>(), Ok(Precision::Bf16));
        assert!("fp8".parse::<Precision>().is_err());
        assert_eq!(" Sparse".parse::<Encoder>(), Ok(Encoder::Sparse));
        assert!("csr".parse::<Encoder>().is_err());
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn cuda_path_runs_where_cuda_exists() {
        assert!(tch::Cuda::is_available(), "this test needs a CUDA device");
        let net = net();
        let boards = sample_boards(50);
        let mut cpu = Model::build(&net, Device::Cpu, 64, Encoder::Dense, Precision::Fp32, 1)
            .expect("builds");
        let mut want = vec![0f32; 64];
        cpu.forward(&boards, &mut want).expect("forward");
        for precision in [Precision::Fp32, Precision::Fp16, Precision::Bf16] {
            for encoder in [Encoder::Dense, Encoder::Sparse] {
                let mut gpu = Model::build(&net, Device::Cuda(0), 64, encoder, precision, 1)
                    .expect("builds on cuda");
                let mut got = vec![0f32; 64];
                gpu.forward(&boards, &mut got).expect("forward");
                let tol = if precision == Precision::Fp32 {
                    1e-3
                } else {
                    0.05
                };
                for (x, y) in got[..50].iter().zip(&want[..50]) {
                    assert!(
                        (x - y).abs() <= tol * (10.0 + y.abs()),
                        "{precision}: {x} vs {y}"
                    );
                }
            }
        }
    }
}
