//! A shared, lock-free evaluation cache keyed by Zobrist key.

/// Fixed-size, direct-mapped; each slot packs the key's upper 32 bits with the f32 score in
/// one `AtomicU64`, so a torn read cannot pair one position's key with another's score.
pub struct EvalCache {
    slots: Box<[std::sync::atomic::AtomicU64]>,
    hits: std::sync::atomic::AtomicU64,
    probes: std::sync::atomic::AtomicU64,
}

impl EvalCache {
    /// `entries` is rounded up to a power of two.
    pub fn new(entries: usize) -> Self {
        todo!("{entries}")
    }
    pub fn get(&self, key: u64) -> Option<f32> {
        todo!("{key}")
    }
    pub fn put(&self, key: u64, score: f32) {
        todo!("{key} {score}")
    }
    pub fn clear(&self) {
        todo!()
    }
    /// (hits, probes) since the last `clear`.
    pub fn stats(&self) -> (u64, u64) {
        todo!()
    }
}
