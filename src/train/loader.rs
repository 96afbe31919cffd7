//! Shuffled training batches from loader threads behind bounded channels.
//!
//! The order is a pure function of (seed, position): epoch e visits every record once in
//! the order of a Fisher–Yates permutation seeded by (seed, e), and batch t covers positions
//! t·B … t·B+B−1 of that endless sequence. A checkpoint therefore needs only the step to
//! resume the data stream exactly.

use super::config::TrainConfig;
use super::model::SparseBoards;
use crate::data::positions::{LabelledPosition, PositionReader};
use crate::data::rng::{mix64, SplitMix64};
use crate::data::{Triplet, TripletReader};
use anyhow::{ensure, Context, Result};
use crossbeam::channel::{self, Receiver};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Batches prepared ahead of the training step.
const QUEUE_DEPTH: usize = 4;

/// One step's triplets as sparse boards: p, then q, then r, `n` of each.
pub struct Batch {
    pub n: usize,
    pub boards: SparseBoards,
}

impl Batch {
    pub fn from_triplets(triplets: &[Triplet]) -> Self {
        let mut boards = SparseBoards::with_capacity(3 * triplets.len());
        for t in triplets {
            boards.push(&t.p);
        }
        for t in triplets {
            boards.push(&t.q);
        }
        for t in triplets {
            boards.push(&t.r);
        }
        Batch {
            n: triplets.len(),
            boards,
        }
    }
}

/// A file of fixed-size records the loader can read by index from its own thread.
pub trait Records: Send + Sync + 'static {
    type Item: Send;
    fn count(&self) -> u64;
    fn record(&self, index: u64) -> Result<Self::Item>;
}

impl Records for TripletReader {
    type Item = Triplet;

    fn count(&self) -> u64 {
        self.len()
    }

    fn record(&self, index: u64) -> Result<Triplet> {
        self.get(index)
    }
}

impl Records for PositionReader {
    type Item = LabelledPosition;

    fn count(&self) -> u64 {
        self.len()
    }

    fn record(&self, index: u64) -> Result<LabelledPosition> {
        self.get(index)
    }
}

/// Opens labelled positions for an objective that reads them, saying how to make them.
pub fn open_positions(path: &Path) -> Result<PositionReader> {
    PositionReader::open(path).with_context(|| {
        format!(
            "this objective reads labelled positions; make them with `cerise data positions \
             <games.pgn> --out <prefix>` and point train/valid at {}",
            path.display()
        )
    })
}

/// The fixed validation batches of a positions objective, each made by `make`.
pub fn position_valid_batches<B>(
    config: &TrainConfig,
    make: impl Fn(&[LabelledPosition]) -> B,
) -> Result<Vec<B>> {
    let reader = open_positions(&config.valid)?;
    let records = spread_records(&reader, &config.valid, config.valid_batches * config.batch)?;
    Ok(records.chunks(config.batch).map(make).collect())
}

/// The training batches of a positions objective from `start_step` on, and the record count.
pub fn position_loader<B: Send + 'static>(
    config: &TrainConfig,
    start_step: u64,
    make: impl Fn(&[LabelledPosition]) -> B + Send + Sync + 'static,
) -> Result<(Loader<B>, u64)> {
    let reader = open_positions(&config.train)?;
    let records = reader.len();
    let loader = Loader::spawn_with(
        reader,
        &config.train,
        Order::of(config, start_step),
        config.loader_threads(),
        make,
    )?;
    Ok((loader, records))
}

/// The record order of one epoch.
pub fn epoch_permutation(len: u64, seed: u64, epoch: u64) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..len as u32).collect();
    let mut rng = SplitMix64::for_stream(mix64(seed ^ 0x7472_6169_6e00), epoch);
    for i in (1..perm.len()).rev() {
        let j = rng.below(i + 1);
        perm.swap(i, j);
    }
    perm
}

pub struct Loader<B = Batch> {
    /// One queue per worker: worker k makes the batches of steps start + k, start + k + W, …
    rxs: Vec<Receiver<Result<B>>>,
    /// Batches handed out so far, which names the worker whose queue holds the next one.
    taken: AtomicU64,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    pub records: u64,
}

impl Loader<Batch> {
    /// Starts producing batches of triplets in `order`, with `threads` workers.
    pub fn spawn(path: &Path, order: Order, threads: usize) -> Result<Self> {
        let reader = TripletReader::open(path)?;
        ensure!(
            !reader.is_empty(),
            "{} holds no triplets; generate data with `cerise data triplets`",
            path.display()
        );
        Self::spawn_with(reader, path, order, threads, Batch::from_triplets)
    }
}

/// Which records each step's batch holds: a pure function of these.
#[derive(Clone, Copy, Debug)]
pub struct Order {
    pub batch: usize,
    pub seed: u64,
    pub start_step: u64,
}

impl Order {
    /// The order of `config`'s training batches from `start_step` on. Built here, not in
    /// `config`, so that the config need not know the loader that uses it.
    pub fn of(config: &TrainConfig, start_step: u64) -> Self {
        Order {
            batch: config.batch,
            seed: config.seed,
            start_step,
        }
    }
}

impl<B: Send + 'static> Loader<B> {
    /// Starts producing batches of `order.batch` records of `reader` (read from `path`), each
    /// made by `make`, from step `order.start_step` on, with `threads` worker threads (at
    /// least one). The batches come out in step order and are the same whatever the number
    /// of workers: several only make them faster, which matters where one thread's reads and
    /// encoding cannot keep a GPU busy.
    pub fn spawn_with<R: Records>(
        reader: R,
        path: &Path,
        order: Order,
        threads: usize,
        make: impl Fn(&[R::Item]) -> B + Send + Sync + 'static,
    ) -> Result<Self> {
        let records = reader.count();
        ensure!(records > 0, "{} holds no records", path.display());
        ensure!(
            records <= u64::from(u32::MAX),
            "{} holds {records} records; the loader indexes at most 2^32",
            path.display()
        );
        let workers = threads.max(1);
        let reader = Arc::new(reader);
        let make = Arc::new(make);
        let stop = Arc::new(AtomicBool::new(false));
        let mut rxs = Vec::with_capacity(workers);
        let mut handles = Vec::with_capacity(workers);
        for k in 0..workers {
            let (tx, rx) = channel::bounded(QUEUE_DEPTH);
            let (reader, make, stop) = (Arc::clone(&reader), Arc::clone(&make), Arc::clone(&stop));
            let handle = std::thread::Builder::new()
                .name(format!("cerise-loader-{k}"))
                .spawn(move || {
                    let mut perm = EpochPerm::new(records, order.seed);
                    let mut items = Vec::with_capacity(order.batch);
                    let mut step = order.start_step + k as u64;
                    while !stop.load(Ordering::Relaxed) {
                        items.clear();
                        let mut result = Ok(());
                        let first = step * order.batch as u64;
                        for pos in first..first + order.batch as u64 {
                            match reader.record(perm.at(pos)) {
                                Ok(t) => items.push(t),
                                Err(e) => {
                                    result = Err(e);
                                    break;
                                }
                            }
                        }
                        let item = result.map(|()| make(&items));
                        let failed = item.is_err();
                        if tx.send(item).is_err() || failed {
                            break;
                        }
                        step += workers as u64;
                    }
                })
                .context("cannot start a loader thread")?;
            rxs.push(rx);
            handles.push(handle);
        }
        Ok(Loader {
            rxs,
            taken: AtomicU64::new(0),
            stop,
            threads: handles,
            records,
        })
    }

    pub fn next(&self) -> Result<B> {
        let n = self.taken.fetch_add(1, Ordering::Relaxed);
        self.rxs[(n % self.rxs.len() as u64) as usize]
            .recv()
            .context("the loader thread stopped unexpectedly")?
    }
}

/// Record numbers of the endless shuffled sequence, one epoch's permutation at a time.
struct EpochPerm {
    records: u64,
    seed: u64,
    epoch: u64,
    perm: Vec<u32>,
}

impl EpochPerm {
    fn new(records: u64, seed: u64) -> Self {
        EpochPerm {
            records,
            seed,
            epoch: u64::MAX,
            perm: Vec::new(),
        }
    }

    /// The record at position `pos` of the sequence.
    fn at(&mut self, pos: u64) -> u64 {
        let epoch = pos / self.records;
        if epoch != self.epoch {
            self.epoch = epoch;
            self.perm = epoch_permutation(self.records, self.seed, epoch);
        }
        u64::from(self.perm[(pos % self.records) as usize])
    }
}

impl<B> Drop for Loader<B> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Unblock sends waiting on full queues until every worker has seen the stop flag.
        for t in self.threads.drain(..) {
            while !t.is_finished() {
                for rx in &self.rxs {
                    while rx.try_recv().is_ok() {}
                }
                std::thread::yield_now();
            }
            let _ = t.join();
        }
    }
}

/// A fixed, evenly spread sample of up to `count` triplets of a file (the validation set).
pub fn spread_sample(path: &Path, count: usize) -> Result<Vec<Triplet>> {
    spread_records(&TripletReader::open(path)?, path, count)
}

/// Up to `count` records spread evenly over a file.
pub fn spread_records<R: Records>(reader: &R, path: &Path, count: usize) -> Result<Vec<R::Item>> {
    let n = reader.count();
    ensure!(n > 0, "{} holds no records", path.display());
    let take = (count as u64).min(n);
    (0..take).map(|i| reader.record(i * n / take)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_is_a_seeded_permutation() {
        let a = epoch_permutation(1000, 1, 0);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<u32>>());
        assert_eq!(a, epoch_permutation(1000, 1, 0));
        assert_ne!(a, epoch_permutation(1000, 1, 1));
        assert_ne!(a, epoch_permutation(1000, 2, 0));
    }

    #[test]
    fn batch_lists_p_then_q_then_r() {
        use crate::chess::CompactBoard;
        let mk = |code: u8| {
            let mut b = [0u8; 64];
            b[0] = code;
            CompactBoard(b)
        };
        let t = |k: u8| Triplet {
            p: mk(k),
            q: mk(k + 4),
            r: mk(k + 8),
            result: 0,
        };
        let b = Batch::from_triplets(&[t(1), t(2)]);
        assert_eq!(b.n, 2);
        // Square 0 of code c is feature (c-1)*64.
        let firsts: Vec<i64> = b
            .boards
            .offsets
            .iter()
            .map(|&o| b.boards.indices[o as usize])
            .collect();
        assert_eq!(firsts, vec![0, 64, 256, 320, 512, 576]);
    }

    /// Records that are their own index, so a batch shows which records it took.
    struct Numbers(u64);

    impl Records for Numbers {
        type Item = u64;
        fn count(&self) -> u64 {
            self.0
        }
        fn record(&self, index: u64) -> Result<u64> {
            ensure!(index != 41, "record 41 is unreadable");
            Ok(index)
        }
    }

    fn batches(records: u64, start_step: u64, threads: usize, n: usize) -> Vec<Vec<u64>> {
        let order = Order {
            batch: 7,
            seed: 3,
            start_step,
        };
        let loader = Loader::spawn_with(
            Numbers(records),
            Path::new("numbers"),
            order,
            threads,
            |r: &[u64]| r.to_vec(),
        )
        .unwrap();
        (0..n).map(|_| loader.next().unwrap()).collect()
    }

    #[test]
    fn several_workers_give_the_same_batches_in_step_order() {
        // 30 records in batches of 7: epochs end inside batches, so each worker must switch
        // permutations mid-batch as the single thread does.
        let one = batches(30, 0, 1, 20);
        assert_eq!(one, batches(30, 0, 3, 20));
        assert_eq!(one, batches(30, 0, 8, 20));
        // Resuming at step 5 continues the same stream, with any worker count.
        assert_eq!(one[5..], batches(30, 5, 4, 15)[..]);
        // Each epoch of the sequence visits every record once.
        let flat: Vec<u64> = one.concat();
        let mut first: Vec<u64> = flat[..30].to_vec();
        first.sort_unstable();
        assert_eq!(first, (0..30).collect::<Vec<u64>>());
        assert_ne!(flat[..30], flat[30..60]);
    }

    #[test]
    fn a_worker_error_reaches_the_caller_and_drop_does_not_hang() {
        // Record 41 of 100 fails: the batch holding it is an error, in its place in the order.
        let order = Order {
            batch: 10,
            seed: 1,
            start_step: 0,
        };
        let loader = Loader::spawn_with(
            Numbers(100),
            Path::new("numbers"),
            order,
            3,
            |r: &[u64]| r.to_vec(),
        )
        .unwrap();
        let perm = epoch_permutation(100, 1, 0);
        let bad = perm.iter().position(|&r| r == 41).unwrap() / 10;
        for step in 0..bad {
            assert!(loader.next().is_ok(), "step {step}");
        }
        let err = loader.next().unwrap_err();
        assert!(format!("{err:#}").contains("record 41"), "{err:#}");
        drop(loader);
    }
}
