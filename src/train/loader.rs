//! Shuffled training batches from a loader thread behind a bounded channel.
//!
//! The order is a pure function of (seed, position): epoch e visits every record once in
//! the order of a Fisher–Yates permutation seeded by (seed, e), and batch t covers positions
//! t·B … t·B+B−1 of that endless sequence. A checkpoint therefore needs only the step to
//! resume the data stream exactly.

use super::model::SparseBoards;
use crate::data::positions::{LabelledPosition, PositionReader};
use crate::data::rng::{mix64, SplitMix64};
use crate::data::{Triplet, TripletReader};
use anyhow::{ensure, Context, Result};
use crossbeam::channel::{self, Receiver};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
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
pub trait Records: Send + 'static {
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
    config: &super::config::TrainConfig,
    make: impl Fn(&[LabelledPosition]) -> B,
) -> Result<Vec<B>> {
    let reader = open_positions(&config.valid)?;
    let records = spread_records(&reader, &config.valid, config.valid_batches * config.batch)?;
    Ok(records.chunks(config.batch).map(make).collect())
}

/// The training batches of a positions objective from `start_step` on, and the record count.
pub fn position_loader<B: Send + 'static>(
    config: &super::config::TrainConfig,
    start_step: u64,
    make: impl Fn(&[LabelledPosition]) -> B + Send + 'static,
) -> Result<(Loader<B>, u64)> {
    let reader = open_positions(&config.train)?;
    let records = reader.len();
    let loader = Loader::spawn_with(
        reader,
        &config.train,
        config.batch,
        config.seed,
        start_step,
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
    rx: Receiver<Result<B>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    pub records: u64,
}

impl Loader<Batch> {
    /// Starts producing batches of `batch` triplets from step `start_step` on.
    pub fn spawn(path: &Path, batch: usize, seed: u64, start_step: u64) -> Result<Self> {
        let reader = TripletReader::open(path)?;
        ensure!(
            !reader.is_empty(),
            "{} holds no triplets; generate data with `cerise data triplets`",
            path.display()
        );
        Self::spawn_with(reader, path, batch, seed, start_step, Batch::from_triplets)
    }
}

impl<B: Send + 'static> Loader<B> {
    /// Starts producing batches of `batch` records of `reader` (read from `path`), each made
    /// by `make`, from step `start_step` on.
    pub fn spawn_with<R: Records>(
        reader: R,
        path: &Path,
        batch: usize,
        seed: u64,
        start_step: u64,
        make: impl Fn(&[R::Item]) -> B + Send + 'static,
    ) -> Result<Self> {
        let records = reader.count();
        ensure!(records > 0, "{} holds no records", path.display());
        ensure!(
            records <= u64::from(u32::MAX),
            "{} holds {records} records; the loader indexes at most 2^32",
            path.display()
        );
        let (tx, rx) = channel::bounded(QUEUE_DEPTH);
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("cerise-loader".to_string())
            .spawn(move || {
                let mut pos = start_step * batch as u64;
                let mut epoch = u64::MAX;
                let mut perm = Vec::new();
                let mut triplets = Vec::with_capacity(batch);
                while !thread_stop.load(Ordering::Relaxed) {
                    triplets.clear();
                    let mut result = Ok(());
                    for _ in 0..batch {
                        if pos / records != epoch {
                            epoch = pos / records;
                            perm = epoch_permutation(records, seed, epoch);
                        }
                        let index = u64::from(perm[(pos % records) as usize]);
                        pos += 1;
                        match reader.record(index) {
                            Ok(t) => triplets.push(t),
                            Err(e) => {
                                result = Err(e);
                                break;
                            }
                        }
                    }
                    let item = result.map(|()| make(&triplets));
                    let failed = item.is_err();
                    if tx.send(item).is_err() || failed {
                        break;
                    }
                }
            })
            .context("cannot start the loader thread")?;
        Ok(Loader {
            rx,
            stop,
            thread: Some(thread),
            records,
        })
    }

    pub fn next(&self) -> Result<B> {
        self.rx
            .recv()
            .context("the loader thread stopped unexpectedly")?
    }
}

impl<B> Drop for Loader<B> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Unblock a send waiting on a full queue.
        while self.rx.try_recv().is_ok() {}
        if let Some(t) = self.thread.take() {
            while !t.is_finished() {
                while self.rx.try_recv().is_ok() {}
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
}
