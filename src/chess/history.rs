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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    #[test]
    fn knight_shuffle_repeats_start() {
        let mut pos = Position::startpos();
        let mut history = KeyHistory::new();
        for (i, uci) in ["g1f3", "g8f6", "f3g1", "f6g8"].iter().enumerate() {
            history.push(pos.key());
            let m = pos.parse_uci_move(uci).expect("legal shuffle move");
            pos = pos.play(&m);
            let repeated = history.is_repetition(pos.key(), pos.halfmoves());
            assert_eq!(repeated, i == 3, "after {uci}");
        }
        assert_eq!(pos.key(), Position::startpos().key());
        // The start position is 4 plies back: a window of 3 must not see it.
        assert!(!history.is_repetition(pos.key(), 3));
        assert!(history.is_repetition(pos.key(), 4));
    }

    #[test]
    fn only_same_side_to_move_is_compared() {
        let mut history = KeyHistory::new();
        history.push(7);
        // Distance 1 is the parent, with the other side to move.
        assert!(!history.is_repetition(7, 100));
        history.push(8);
        assert!(history.is_repetition(7, 100));
        assert!(!history.is_repetition(8, 100));
        assert!(!history.is_repetition(7, 1));
        assert!(!KeyHistory::new().is_repetition(7, 100));
        history.pop();
        assert_eq!(history.len(), 1);
    }
}
