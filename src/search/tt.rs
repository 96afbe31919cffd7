//! The shared transposition table: lock-free (XOR-verified entries), sized in MiB.

pub struct TranspositionTable {}

impl TranspositionTable {
    pub fn new(mib: usize) -> Self {
        todo!("{mib}")
    }
    /// Reallocates (and clears); must not be called during a search.
    pub fn resize(&mut self, mib: usize) {
        todo!("{mib}")
    }
    pub fn clear(&self) {
        todo!()
    }
    /// Per mille of sampled entries written in the current search generation.
    pub fn hashfull(&self) -> u32 {
        todo!()
    }
}
