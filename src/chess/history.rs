//! Zobrist keys of the positions played so far (game plus search path), for repetition draws.

#[derive(Clone, Debug, Default)]
pub struct KeyHistory {
    keys: Vec<u64>,
}

impl KeyHistory {
    pub fn new() -> Self {
        Self::default()
    }
    /// Records the key of a position that has been reached.
    pub fn push(&mut self, key: u64) {
        self.keys.push(key);
    }
    pub fn pop(&mut self) {
        self.keys.pop();
    }
    pub fn len(&self) -> usize {
        self.keys.len()
    }
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
    /// True if `key` (the current position, not yet pushed) occurred before within the last
    /// `halfmoves` plies; only positions with the same side to move are compared.
    pub fn is_repetition(&self, key: u64, halfmoves: u32) -> bool {
        // The last entry is the parent (other side to move), so same-side positions sit at
        // distances 2, 4, ... back from the current one, i.e. at indices len-2, len-4, ...
        let window = (halfmoves as usize).min(self.keys.len());
        self.keys
            .iter()
            .rev()
            .take(window)
            .skip(1)
            .step_by(2)
            .any(|&k| k == key)
    }
}
