//! A shared, lock-free evaluation cache keyed by Zobrist key, and [`CachedEvaluator`], the
//! wrapper that puts it in front of any evaluator (as lc0's backends compose).

use super::{BatchStats, EvalError, EvalInfo, Evaluator, SearcherGuard};
use crate::chess::{CompactBoard, Position};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Fixed-size, direct-mapped; each slot packs the key's upper 32 bits with the f32 score in
/// one `AtomicU64`, so a torn read cannot pair one position's key with another's score.
///
/// The slot index comes from the key's low bits and the stored tag from its high 32 bits, so
/// two keys only alias if they agree on both. A slot holding 0 is empty; the one entry that
/// packs to 0 (tag 0 with score +0.0) is therefore never found, which costs a re-evaluation,
/// never a wrong score.
pub struct EvalCache {
    slots: Box<[std::sync::atomic::AtomicU64]>,
    hits: std::sync::atomic::AtomicU64,
    probes: std::sync::atomic::AtomicU64,
}

const EMPTY: u64 = 0;

fn tag(key: u64) -> u64 {
    key & 0xFFFF_FFFF_0000_0000
}

impl EvalCache {
    /// `entries` is rounded up to a power of two.
    pub fn new(entries: usize) -> Self {
        let n = entries.max(1).next_power_of_two();
        let slots = (0..n).map(|_| AtomicU64::new(EMPTY)).collect();
        Self {
            slots,
            hits: AtomicU64::new(0),
            probes: AtomicU64::new(0),
        }
    }

    /// Number of slots (a power of two).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    fn slot(&self, key: u64) -> &AtomicU64 {
        // Capacity is a power of two, so masking the low bits is a uniform index.
        &self.slots[(key as usize) & (self.slots.len() - 1)]
    }

    pub fn get(&self, key: u64) -> Option<f32> {
        let found = self.peek(key);
        self.count(u64::from(found.is_some()), 1);
        found
    }

    /// [`EvalCache::get`] without counting the probe: a batch counts its probes once, with
    /// [`EvalCache::count`]. A locked add for every probe would also wait for the loads
    /// before it, so the slots' cache misses (most probes miss the CPU's caches) could not
    /// overlap.
    fn peek(&self, key: u64) -> Option<f32> {
        let packed = self.slot(key).load(Ordering::Relaxed);
        if packed == EMPTY || tag(packed) != tag(key) {
            return None;
        }
        Some(f32::from_bits(packed as u32))
    }

    /// Adds to the (hits, probes) that [`EvalCache::stats`] reports.
    fn count(&self, hits: u64, probes: u64) {
        if hits > 0 {
            self.hits.fetch_add(hits, Ordering::Relaxed);
        }
        self.probes.fetch_add(probes, Ordering::Relaxed);
    }

    /// Asks the CPU to start loading `key`'s slot, so that a batch's probes wait on their
    /// memory at once rather than one after another.
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot: *const AtomicU64 = self.slot(key);
            // SAFETY: a prefetch is only a hint; it reads nothing the program sees, and the
            // address is a live slot's. SSE, which it needs, is part of every x86-64 CPU.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn put(&self, key: u64, score: f32) {
        let packed = tag(key) | u64::from(score.to_bits());
        self.slot(key).store(packed, Ordering::Relaxed);
    }

    pub fn clear(&self) {
        for slot in self.slots.iter() {
            slot.store(EMPTY, Ordering::Relaxed);
        }
        self.hits.store(0, Ordering::Relaxed);
        self.probes.store(0, Ordering::Relaxed);
    }

    /// (hits, probes) since the last `clear`.
    pub fn stats(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.probes.load(Ordering::Relaxed),
        )
    }
}

/// Any evaluator behind an [`EvalCache`]. The search scores children through
/// [`CachedEvaluator::score_children`], which asks the evaluator only for the positions the
/// cache does not know, in one call. Its [`Evaluator`] methods pass through uncached: a
/// bare board carries no Zobrist key to look up.
pub struct CachedEvaluator {
    inner: Arc<dyn Evaluator>,
    cache: EvalCache,
}

/// One search thread's buffers for [`CachedEvaluator`], kept so that their capacity is reused.
#[derive(Default)]
pub struct CacheScratch {
    boards: Vec<CompactBoard>,
    /// The index in `out` and the key of each board in `boards`.
    misses: Vec<(usize, u64)>,
    scores: Vec<f32>,
}

impl CachedEvaluator {
    /// `entries` (8 bytes each) is rounded up to a power of two.
    pub fn new(inner: Arc<dyn Evaluator>, entries: usize) -> Self {
        CachedEvaluator {
            inner,
            cache: EvalCache::new(entries),
        }
    }

    pub fn inner(&self) -> &Arc<dyn Evaluator> {
        &self.inner
    }

    /// Forgets every score, e.g. for a new game, so that a search does not depend on what
    /// ran before it.
    pub fn clear(&self) {
        self.cache.clear();
    }

    /// (hits, probes) since the last [`CachedEvaluator::clear`].
    pub fn stats(&self) -> (u64, u64) {
        self.cache.stats()
    }

    /// Replaces `out` with one score per child of `parent` (each one legal move away from
    /// it), in order: the cache's where it has one, the rest from one
    /// [`Evaluator::evaluate_children`] call, which are then cached.
    pub fn score_children<'p>(
        &self,
        parent: &Position,
        children: impl Iterator<Item = &'p Position> + Clone,
        scratch: &mut CacheScratch,
        out: &mut Vec<f32>,
    ) -> Result<(), EvalError> {
        out.clear();
        scratch.boards.clear();
        scratch.misses.clear();
        for child in children.clone() {
            self.cache.prefetch(child.key());
        }
        for child in children {
            match self.cache.peek(child.key()) {
                Some(score) => out.push(score),
                None => {
                    scratch.misses.push((out.len(), child.key()));
                    scratch.boards.push(child.compact());
                    out.push(0.0);
                }
            }
        }
        let probes = out.len() as u64;
        self.cache
            .count(probes - scratch.misses.len() as u64, probes);
        if scratch.boards.is_empty() {
            return Ok(());
        }
        self.evaluate_misses(parent, scratch)?;
        for (&(i, key), &score) in scratch.misses.iter().zip(&scratch.scores) {
            self.cache.put(key, score);
            out[i] = score;
        }
        Ok(())
    }

    /// As [`CachedEvaluator::score_children`] for the one child `child` (a move or a null
    /// move from `parent`). `ready` is asked before the evaluator is (the search looks at
    /// its clock there, not on a cache hit); `Ok(None)` when it says no.
    pub fn score_child(
        &self,
        parent: &Position,
        child: &Position,
        scratch: &mut CacheScratch,
        ready: impl FnOnce() -> bool,
    ) -> Result<Option<f32>, EvalError> {
        if let Some(score) = self.cache.get(child.key()) {
            return Ok(Some(score));
        }
        if !ready() {
            return Ok(None);
        }
        scratch.boards.clear();
        scratch.boards.push(child.compact());
        self.evaluate_misses(parent, scratch)?;
        let score = scratch.scores[0];
        self.cache.put(child.key(), score);
        Ok(Some(score))
    }

    /// Scores `scratch.boards` into `scratch.scores`, checking the count.
    fn evaluate_misses(
        &self,
        parent: &Position,
        scratch: &mut CacheScratch,
    ) -> Result<(), EvalError> {
        self.inner
            .evaluate_children(&parent.compact(), &scratch.boards, &mut scratch.scores)?;
        if scratch.scores.len() != scratch.boards.len() {
            return Err(EvalError::Inference(format!(
                "the evaluator returned {} scores for {} positions",
                scratch.scores.len(),
                scratch.boards.len()
            )));
        }
        Ok(())
    }
}

impl Evaluator for CachedEvaluator {
    fn evaluate(&self, boards: &[CompactBoard], out: &mut Vec<f32>) -> Result<(), EvalError> {
        self.inner.evaluate(boards, out)
    }

    fn evaluate_children(
        &self,
        parent: &CompactBoard,
        children: &[CompactBoard],
        out: &mut Vec<f32>,
    ) -> Result<(), EvalError> {
        self.inner.evaluate_children(parent, children, out)
    }

    fn info(&self) -> EvalInfo {
        self.inner.info()
    }

    fn is_zero_sum(&self) -> bool {
        self.inner.is_zero_sum()
    }

    fn breakdown(&self, board: &CompactBoard) -> Result<Vec<(String, f32)>, EvalError> {
        self.inner.breakdown(board)
    }

    fn register_searcher(&self) -> SearcherGuard {
        self.inner.register_searcher()
    }

    fn batch_stats(&self) -> Option<BatchStats> {
        self.inner.batch_stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn capacity_rounds_up_to_power_of_two() {
        assert_eq!(EvalCache::new(1000).capacity(), 1024);
        assert_eq!(EvalCache::new(0).capacity(), 1);
        assert_eq!(EvalCache::new(64).capacity(), 64);
    }

    #[test]
    fn miss_then_hit_and_counters() {
        let cache = EvalCache::new(1024);
        let key = 0xDEAD_BEEF_1234_5678;
        assert_eq!(cache.get(key), None);
        cache.put(key, -42.5);
        assert_eq!(cache.get(key), Some(-42.5));
        assert_eq!(cache.stats(), (1, 2));
    }

    #[test]
    fn same_slot_different_tag_is_a_miss_and_overwrite_replaces() {
        let cache = EvalCache::new(16);
        let a = 0x0000_0001_0000_0003;
        let b = 0x0000_0002_0000_0003; // same low bits, so same slot
        cache.put(a, 10.0);
        assert_eq!(cache.get(b), None);
        cache.put(b, 20.0);
        assert_eq!(cache.get(b), Some(20.0));
        assert_eq!(cache.get(a), None, "b's store must evict a");
        cache.put(b, 30.0);
        assert_eq!(cache.get(b), Some(30.0));
    }

    #[test]
    fn clear_empties_slots_and_counters() {
        let cache = EvalCache::new(8);
        cache.put(0xFFFF_0000_0000_0001, 1.0);
        assert!(cache.get(0xFFFF_0000_0000_0001).is_some());
        cache.clear();
        assert_eq!(cache.stats(), (0, 0));
        assert_eq!(cache.get(0xFFFF_0000_0000_0001), None);
    }

    #[test]
    fn special_scores_round_trip() {
        let cache = EvalCache::new(8);
        for (i, s) in [f32::MAX, f32::MIN, -0.0, 1e-30, 12345.678]
            .into_iter()
            .enumerate()
        {
            let key = (0xABCD_u64 << 32) | i as u64;
            cache.put(key, s);
            assert_eq!(cache.get(key).map(f32::to_bits), Some(s.to_bits()));
        }
    }

    #[test]
    fn concurrent_readers_never_see_a_foreign_score() {
        // Every key's score is derived from the key, so any torn pairing would be detected.
        let cache = Arc::new(EvalCache::new(64));
        let score_of = |k: u64| (k >> 32) as u32 as f32;
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let cache = Arc::clone(&cache);
                std::thread::spawn(move || {
                    for i in 0..20_000u64 {
                        let key = ((i * 7 + t) << 32) | (i % 64);
                        cache.put(key, score_of(key));
                        if let Some(s) = cache.get(key ^ (1 << 40)) {
                            assert_eq!(s, score_of(key ^ (1 << 40)));
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("cache thread panicked");
        }
    }

    /// Counts the boards it is asked to score; scores are the fake evaluator's.
    struct Counting(std::sync::atomic::AtomicUsize);

    impl Evaluator for Counting {
        fn evaluate(&self, boards: &[CompactBoard], out: &mut Vec<f32>) -> Result<(), EvalError> {
            self.0.fetch_add(boards.len(), Ordering::Relaxed);
            out.clear();
            out.extend(boards.iter().map(crate::eval::FakeEvaluator::score));
            Ok(())
        }

        fn info(&self) -> EvalInfo {
            EvalInfo {
                name: "counting".into(),
                device: "cpu".into(),
                max_batch: usize::MAX,
                backend: None,
            }
        }
    }

    #[test]
    fn the_wrapper_asks_only_for_what_the_cache_lacks_and_gives_the_same_scores() {
        let counting = Arc::new(Counting(std::sync::atomic::AtomicUsize::new(0)));
        let cached = CachedEvaluator::new(counting.clone(), 1 << 12);
        let parent = Position::startpos();
        let children: Vec<Position> = parent
            .legal_moves()
            .iter()
            .map(|m| parent.play(m))
            .collect();
        let expected: Vec<f32> = children
            .iter()
            .map(|c| crate::eval::FakeEvaluator::score(&c.compact()))
            .collect();
        let (mut scratch, mut out) = (CacheScratch::default(), Vec::new());
        cached
            .score_children(&parent, children[..5].iter(), &mut scratch, &mut out)
            .unwrap();
        assert_eq!(out, expected[..5]);
        assert_eq!(counting.0.load(Ordering::Relaxed), 5);
        cached
            .score_children(&parent, children.iter(), &mut scratch, &mut out)
            .unwrap();
        assert_eq!(out, expected, "hits and misses in the children's order");
        assert_eq!(
            counting.0.load(Ordering::Relaxed),
            20,
            "15 new positions asked for"
        );
        assert_eq!(cached.stats(), (5, 25));
        // One child: a hit needs no readiness; a miss asks first.
        let hit = cached.score_child(&parent, &children[0], &mut scratch, || panic!("asked"));
        assert_eq!(hit.unwrap(), Some(expected[0]));
        let grandchild = children[0].play(&children[0].legal_moves()[0]);
        let refused = cached.score_child(&children[0], &grandchild, &mut scratch, || false);
        assert_eq!(refused.unwrap(), None);
        let scored = cached.score_child(&children[0], &grandchild, &mut scratch, || true);
        assert_eq!(
            scored.unwrap(),
            Some(crate::eval::FakeEvaluator::score(&grandchild.compact()))
        );
        assert_eq!(counting.0.load(Ordering::Relaxed), 21);
        cached.clear();
        assert_eq!(cached.stats(), (0, 0));
        assert_eq!(cached.info().name, "counting");
    }
}
