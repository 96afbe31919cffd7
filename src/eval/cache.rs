//! A shared, lock-free evaluation cache keyed by Zobrist key.

use std::sync::atomic::{AtomicU64, Ordering};

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
        self.probes.fetch_add(1, Ordering::Relaxed);
        let packed = self.slot(key).load(Ordering::Relaxed);
        if packed == EMPTY || tag(packed) != tag(key) {
            return None;
        }
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(f32::from_bits(packed as u32))
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
}
