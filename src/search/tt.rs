//! The shared transposition table: lock-free (XOR-verified entries), sized in MiB.
//!
//! Each entry is two `AtomicU64`s: `key ^ data` and `data`. A reader accepts an entry only if
//! the two words XOR back to its key, so an entry torn by a concurrent writer reads as a miss
//! rather than as another position's data. No lock is ever taken.

use crate::chess::{Move, MoveList, Role};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// What kind of score an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TtBound {
    /// The true score is at most the stored one (fail low).
    Upper = 1,
    /// The true score is at least the stored one (fail high).
    Lower = 2,
    Exact = 3,
}

impl TtBound {
    /// What a search of the window (`alpha`, `beta`) that returned `score` proved of it.
    pub fn of(score: i32, alpha: i32, beta: i32) -> TtBound {
        if score >= beta {
            TtBound::Lower
        } else if score > alpha {
            TtBound::Exact
        } else {
            TtBound::Upper
        }
    }
}

/// A decoded entry; `score` is already converted back to root-relative at the probing ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// From/to/promotion of the best move, 0 for none; see [`pack_move`].
    pub mv: u16,
    pub score: i32,
    pub depth: i32,
    pub bound: TtBound,
}

impl TtEntry {
    /// Whether the stored score settles the window (`alpha`, `beta`) without a search: an
    /// exact score, a lower bound at or above beta, an upper bound at or below alpha.
    pub fn settles(&self, alpha: i32, beta: i32) -> bool {
        match self.bound {
            TtBound::Exact => true,
            TtBound::Lower => self.score >= beta,
            TtBound::Upper => self.score <= alpha,
        }
    }
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

pub struct TranspositionTable {
    slots: Box<[Slot]>,
    generation: AtomicU8,
}

const SLOT_BYTES: usize = std::mem::size_of::<Slot>();
const GENERATION_MASK: u8 = 0x3f;

/// 6 bits from, 6 bits to, 3 bits promotion. A real move never packs to 0 (from != to).
pub fn pack_move(m: &Move) -> u16 {
    let from = m.from().map_or(0, |s| s as u16);
    let to = m.to() as u16;
    let promo = match m.promotion() {
        None => 0,
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(_) => 4,
    };
    from | to << 6 | promo << 12
}

/// The legal move that packs to `packed`; stale or colliding entries simply find nothing.
pub fn find_move(packed: u16, moves: &MoveList) -> Option<Move> {
    if packed == 0 {
        return None;
    }
    moves.iter().find(|m| pack_move(m) == packed).copied()
}

fn encode(mv: u16, score: i32, depth: i32, bound: TtBound, generation: u8) -> u64 {
    let score = score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
    let depth = depth.clamp(0, 255) as u64;
    mv as u64 | score << 16 | depth << 32 | (bound as u64) << 40 | (generation as u64) << 42
}

fn bound_of(data: u64) -> Option<TtBound> {
    match (data >> 40) & 3 {
        1 => Some(TtBound::Upper),
        2 => Some(TtBound::Lower),
        3 => Some(TtBound::Exact),
        _ => None,
    }
}

fn generation_of(data: u64) -> u8 {
    ((data >> 42) as u8) & GENERATION_MASK
}

fn depth_of(data: u64) -> i32 {
    ((data >> 32) & 0xff) as i32
}

impl TranspositionTable {
    pub fn new(mib: usize) -> Self {
        Self {
            slots: Self::allocate(mib),
            generation: AtomicU8::new(1),
        }
    }

    fn allocate(mib: usize) -> Box<[Slot]> {
        let count = (mib.saturating_mul(1 << 20) / SLOT_BYTES).max(1);
        std::iter::repeat_with(Slot::default).take(count).collect()
    }

    /// Reallocates (and clears): the `Hash` option. The old slots are freed first, so that
    /// the old and new tables never take memory at once.
    pub fn resize(&mut self, mib: usize) {
        self.slots = Box::default();
        self.slots = Self::allocate(mib);
    }

    pub fn clear(&self) {
        for slot in self.slots.iter() {
            slot.check.store(0, Ordering::Relaxed);
            slot.data.store(0, Ordering::Relaxed);
        }
    }

    /// Per mille of sampled entries written in the current search generation.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation();
        let sample = &self.slots[..self.slots.len().min(1000)];
        let used = sample
            .iter()
            .map(|s| s.data.load(Ordering::Relaxed))
            .filter(|&d| bound_of(d).is_some() && generation_of(d) == generation)
            .count();
        (used * 1000 / sample.len()) as u32
    }

    /// Number of entries; a power of two is not required.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Called once per `go`: entries from older searches become preferred victims.
    pub fn new_search(&self) {
        let next = (self.generation() + 1) & GENERATION_MASK;
        self.generation.store(next.max(1), Ordering::Relaxed);
    }

    fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed)
    }

    fn slot(&self, key: u64) -> &Slot {
        // Multiply-shift maps the key onto any table length without a modulo.
        let index = ((key as u128 * self.slots.len() as u128) >> 64) as usize;
        &self.slots[index]
    }

    /// The entry for `key`, with mate scores made root-relative for a node at `ply`.
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtEntry> {
        let slot = self.slot(key);
        let data = slot.data.load(Ordering::Relaxed);
        let check = slot.check.load(Ordering::Relaxed);
        if check ^ data != key {
            return None;
        }
        let bound = bound_of(data)?;
        Some(TtEntry {
            mv: data as u16,
            score: super::score::from_tt((data >> 16) as u16 as i16 as i32, ply),
            depth: depth_of(data),
            bound,
        })
    }

    /// Stores a result; `score` is root-relative and is made node-relative using `ply`.
    pub fn store(&self, key: u64, mv: u16, score: i32, depth: i32, bound: TtBound, ply: usize) {
        let slot = self.slot(key);
        let old = slot.data.load(Ordering::Relaxed);
        let old_check = slot.check.load(Ordering::Relaxed);
        let generation = self.generation();
        let same_key = old_check ^ old == key;
        let replace = same_key
            || bound_of(old).is_none()
            || generation_of(old) != generation
            // An exact quiescence result (depth 0) does not evict a searched entry.
            || (bound == TtBound::Exact && depth > 0)
            || depth + 2 >= depth_of(old);
        if !replace {
            return;
        }
        // Keep the old best move when this result has none (e.g. a fail low).
        let mv = if mv == 0 && same_key { old as u16 } else { mv };
        let data = encode(
            mv,
            super::score::to_tt(score, ply),
            depth,
            bound,
            generation,
        );
        slot.check.store(key ^ data, Ordering::Relaxed);
        slot.data.store(data, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::{mated_in, MATE};
    use std::sync::Arc;

    #[test]
    fn a_bound_is_what_the_window_proves_and_settles_only_its_side() {
        assert_eq!(TtBound::of(100, 0, 100), TtBound::Lower);
        assert_eq!(TtBound::of(50, 0, 100), TtBound::Exact);
        assert_eq!(TtBound::of(0, 0, 100), TtBound::Upper);
        let entry = |score, bound| TtEntry {
            mv: 0,
            score,
            depth: 1,
            bound,
        };
        assert!(entry(50, TtBound::Exact).settles(0, 100));
        assert!(entry(100, TtBound::Lower).settles(0, 100));
        assert!(!entry(99, TtBound::Lower).settles(0, 100));
        assert!(entry(0, TtBound::Upper).settles(0, 100));
        assert!(!entry(1, TtBound::Upper).settles(0, 100));
    }

    #[test]
    fn store_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        let key = 0x1234_5678_9abc_def0;
        tt.store(key, 0x0abc, -345, 7, TtBound::Lower, 3);
        let e = tt.probe(key, 3).expect("stored entry");
        assert_eq!(
            e,
            TtEntry {
                mv: 0x0abc,
                score: -345,
                depth: 7,
                bound: TtBound::Lower
            }
        );
        assert_eq!(tt.probe(key ^ 1, 3), None);
    }

    #[test]
    fn resize_reallocates_and_clears() {
        let mut tt = TranspositionTable::new(1);
        tt.store(7, 1, 10, 3, TtBound::Exact, 0);
        let one = tt.len();
        tt.resize(2);
        assert_eq!(tt.len(), 2 * one);
        assert_eq!(tt.probe(7, 0), None);
    }

    #[test]
    fn mate_scores_are_adjusted_by_ply() {
        let tt = TranspositionTable::new(1);
        // Found at ply 4: we mate at ply 9, five plies below this node.
        tt.store(42, 0, -mated_in(9), 5, TtBound::Exact, 4);
        let e = tt.probe(42, 4).expect("stored entry");
        assert_eq!(e.score, -mated_in(9));
        // Reached again at ply 2: still five plies away, so mate at ply 7.
        assert_eq!(tt.probe(42, 2).expect("stored entry").score, MATE - 7);
        tt.store(43, 0, mated_in(6), 5, TtBound::Upper, 1);
        assert_eq!(tt.probe(43, 3).expect("stored entry").score, mated_in(8));
    }

    #[test]
    fn hashfull_counts_current_generation_and_clear_empties() {
        let tt = TranspositionTable::new(1);
        assert_eq!(tt.hashfull(), 0);
        for k in 0..200_000u64 {
            tt.store(
                k.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                1,
                0,
                1,
                TtBound::Exact,
                0,
            );
        }
        assert!(tt.hashfull() > 900, "hashfull {}", tt.hashfull());
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
        tt.clear();
        assert_eq!(tt.probe(0x9e37_79b9_7f4a_7c15, 0), None);
    }

    #[test]
    fn concurrent_writers_never_produce_a_mismatched_entry() {
        // Tiny table so that every thread hammers the same few slots.
        let mut tt = TranspositionTable::new(0);
        tt.resize(0);
        assert_eq!(tt.len(), 1);
        let tt = Arc::new(tt);
        let writers: Vec<_> = (0..4u64)
            .map(|t| {
                let tt = Arc::clone(&tt);
                std::thread::spawn(move || {
                    for i in 0..200_000u64 {
                        let key = (t << 32) | (i % 7);
                        // The score encodes the key, so a torn read would show a mismatch.
                        let score = (key % 1000) as i32 + t as i32 * 1000;
                        tt.store(key, (key % 4000) as u16 + 1, score, 3, TtBound::Exact, 0);
                    }
                })
            })
            .collect();
        let mut hits = 0;
        for _ in 0..200_000 {
            for t in 0..4u64 {
                for i in 0..7u64 {
                    let key = (t << 32) | i;
                    if let Some(e) = tt.probe(key, 0) {
                        hits += 1;
                        assert_eq!(e.score, (key % 1000) as i32 + t as i32 * 1000);
                        assert_eq!(e.mv, (key % 4000) as u16 + 1);
                    }
                }
            }
            if writers.iter().all(|w| w.is_finished()) {
                break;
            }
        }
        for w in writers {
            w.join().expect("writer thread");
        }
        // A single slot holds exactly the last write, and it must verify.
        let survivors = (0..4u64)
            .flat_map(|t| (0..7u64).map(move |i| (t << 32) | i))
            .filter(|&k| tt.probe(k, 0).is_some())
            .count();
        assert_eq!(survivors, 1, "reader saw {hits} verified entries");
    }

    #[test]
    fn packed_moves_are_distinct_and_nonzero() {
        use crate::chess::Square;
        let a = Move::Normal {
            role: Role::Pawn,
            from: Square::E7,
            capture: None,
            to: Square::E8,
            promotion: Some(Role::Queen),
        };
        let b = Move::Normal {
            role: Role::Pawn,
            from: Square::E7,
            capture: None,
            to: Square::E8,
            promotion: Some(Role::Knight),
        };
        assert_ne!(pack_move(&a), pack_move(&b));
        assert_ne!(pack_move(&a), 0);
        let mut list = MoveList::new();
        list.push(a);
        list.push(b);
        assert_eq!(find_move(pack_move(&b), &list), Some(b));
        assert_eq!(find_move(0, &list), None);
    }
}
