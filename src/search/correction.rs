//! Correction history: how far the search's results have stood from the static eval, by
//! pawn structure and by each side's other pieces, added back to the static eval of
//! positions that share them.
//!
//! A net trained for a few epochs misjudges whole families of positions the same way (a
//! pawn structure it undervalues, a piece set it overrates). After each search node whose
//! result bounds its static eval usefully, the error is blended into the entries of the
//! node's pawn key and of both sides' non-pawn keys; later static evals with the same keys
//! are moved by those entries. Pruning decisions that compare the static eval with alpha or
//! beta (reverse futility, null move, stand pat) then err less often in the same direction.
//!
//! One table for all search threads, kept from one `go` to the next of a game and cleared
//! with the transposition table. Entries are relaxed atomics: two threads updating an entry
//! at once lose one update, which costs nothing that matters, and no lock is taken.

use super::params::{CORRECTION_ENTRIES, CORRECTION_MAX, EVAL_LIMIT};
use crate::chess::Position;
use shakmaty::{Bitboard, Color, Position as _};
use std::sync::atomic::{AtomicI32, Ordering};

/// An entry's fixed-point scale: units of 1/`GRAIN` centipawn, so that small weights still
/// move it.
const GRAIN: i32 = 256;
/// Weights of an update are out of this.
const WEIGHT_SCALE: i32 = 256;

/// The keys of a position in the correction tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CorrectionKeys {
    /// 0 for White to move, 1 for Black: the same structure errs differently by side.
    stm: usize,
    pawn: usize,
    /// Non-pawn pieces of White, then of Black.
    non_pawn: [usize; 2],
}

impl CorrectionKeys {
    pub fn of(pos: &Position) -> Self {
        let board = pos.inner().board();
        let side = |c: Color| board.by_color(c);
        let pawns = board.pawns();
        let non_pawn = |c: Color| {
            let own = side(c);
            // One mix per role, chained, so that the same squares held by other roles hash
            // apart.
            [
                board.knights(),
                board.bishops(),
                board.rooks(),
                board.queens(),
                board.kings(),
            ]
            .iter()
            .fold(0x243f_6a88_85a3_08d3, |h, &bb| mix(h ^ bits(bb & own)))
        };
        let pawn = mix(bits(pawns & side(Color::White)) ^ mix(bits(pawns & side(Color::Black))));
        CorrectionKeys {
            stm: usize::from(pos.turn() == Color::Black),
            pawn: index(pawn),
            non_pawn: [index(non_pawn(Color::White)), index(non_pawn(Color::Black))],
        }
    }
}

fn bits(bb: Bitboard) -> u64 {
    u64::from(bb)
}

/// splitmix64's finaliser: every input bit reaches every output bit.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn index(hash: u64) -> usize {
    (hash % CORRECTION_ENTRIES as u64) as usize
}

pub struct CorrectionHistory {
    /// `[stm][pawn key]`.
    pawn: Box<[AtomicI32]>,
    /// `[stm][colour][non-pawn key of that colour]`.
    non_pawn: Box<[AtomicI32]>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        let table = |n: usize| (0..n).map(|_| AtomicI32::new(0)).collect();
        CorrectionHistory {
            pawn: table(2 * CORRECTION_ENTRIES),
            non_pawn: table(4 * CORRECTION_ENTRIES),
        }
    }
}

impl CorrectionHistory {
    fn pawn_entry(&self, k: &CorrectionKeys) -> &AtomicI32 {
        &self.pawn[k.stm * CORRECTION_ENTRIES + k.pawn]
    }

    fn non_pawn_entry(&self, k: &CorrectionKeys, colour: usize) -> &AtomicI32 {
        &self.non_pawn[(k.stm * 2 + colour) * CORRECTION_ENTRIES + k.non_pawn[colour]]
    }

    /// The correction for a position with keys `k`, in centipawns: the mean of the pawn
    /// entry and of the two sides' non-pawn entries (each table learns the whole error, so
    /// their sum would count it twice).
    pub fn correction(&self, k: &CorrectionKeys) -> i32 {
        let get = |e: &AtomicI32| e.load(Ordering::Relaxed);
        let pawn = get(self.pawn_entry(k));
        let non_pawn = get(self.non_pawn_entry(k, 0)) + get(self.non_pawn_entry(k, 1));
        (2 * pawn + non_pawn) / (4 * GRAIN)
    }

    /// `raw` moved by the correction of `pos`, kept within the evaluator's range.
    pub fn corrected(&self, pos: &Position, raw: i32) -> i32 {
        (raw + self.correction(&CorrectionKeys::of(pos))).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// Blends the error `score − raw` (the node's search result against its uncorrected
    /// static eval) into the entries of `pos`, weighted by the node's depth: a deeper search
    /// says more.
    pub fn update(&self, pos: &Position, depth: i32, raw: i32, score: i32) {
        let k = CorrectionKeys::of(pos);
        let target = (score - raw).clamp(-CORRECTION_MAX, CORRECTION_MAX) * GRAIN;
        let weight = (depth + 1).clamp(1, 16);
        let blend = |e: &AtomicI32| {
            let old = e.load(Ordering::Relaxed);
            let new = (old * (WEIGHT_SCALE - weight) + target * weight) / WEIGHT_SCALE;
            e.store(new, Ordering::Relaxed);
        };
        blend(self.pawn_entry(&k));
        blend(self.non_pawn_entry(&k, 0));
        blend(self.non_pawn_entry(&k, 1));
    }

    /// How many entries are not zero.
    #[cfg(test)]
    pub fn learned(&self) -> usize {
        let all = self.pawn.iter().chain(self.non_pawn.iter());
        all.filter(|e| e.load(Ordering::Relaxed) != 0).count()
    }

    /// Forgets everything, as a new game starts.
    pub fn clear(&self) {
        for e in self.pawn.iter().chain(self.non_pawn.iter()) {
            e.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).expect("valid test FEN")
    }

    #[test]
    fn keys_follow_pawns_and_pieces_by_side() {
        let a = CorrectionKeys::of(&pos("4k3/pp6/8/8/8/8/PP2N3/4K3 w - - 0 1"));
        // The knight moves: same pawns, White's pieces differ, Black's do not.
        let b = CorrectionKeys::of(&pos("4k3/pp6/8/8/8/5N2/PP6/4K3 w - - 0 1"));
        assert_eq!(a.pawn, b.pawn);
        assert_ne!(a.non_pawn[0], b.non_pawn[0]);
        assert_eq!(a.non_pawn[1], b.non_pawn[1]);
        // A bishop on the knight's square is another piece set.
        let c = CorrectionKeys::of(&pos("4k3/pp6/8/8/8/8/PP2B3/4K3 w - - 0 1"));
        assert_ne!(a.non_pawn[0], c.non_pawn[0]);
        // A pawn push changes only the pawn key; the other side to move, only `stm`.
        let d = CorrectionKeys::of(&pos("4k3/pp6/8/8/8/P7/1P2N3/4K3 w - - 0 1"));
        assert_ne!(a.pawn, d.pawn);
        assert_eq!(a.non_pawn, d.non_pawn);
        let e = CorrectionKeys::of(&pos("4k3/pp6/8/8/8/8/PP2N3/4K3 b - - 0 1"));
        assert_eq!((a.pawn, a.non_pawn), (e.pawn, e.non_pawn));
        assert_ne!(a.stm, e.stm);
    }

    #[test]
    fn a_repeated_error_moves_the_static_eval_towards_the_search() {
        let table = CorrectionHistory::default();
        let p = pos("4k3/pp6/8/8/8/8/PP2N3/4K3 w - - 0 1");
        assert_eq!(table.corrected(&p, 50), 50);
        // The search keeps finding this structure 60 cp worse than the net says.
        for _ in 0..200 {
            table.update(&p, 10, 50, -10);
        }
        let corrected = table.corrected(&p, 50);
        assert!(
            (-15..=-5).contains(&corrected),
            "corrected {corrected}, raw 50, searches said -10"
        );
        // The same structure with Black to move, and another pawn structure with other
        // pieces, are untouched; with Black's pieces alone in common, a quarter counts.
        assert_eq!(
            table.corrected(&pos("4k3/pp6/8/8/8/8/PP2N3/4K3 b - - 0 1"), 50),
            50
        );
        assert_eq!(
            table.corrected(&pos("3k4/p7/8/8/8/8/P7/4K2R w - - 0 1"), 50),
            50
        );
        let shares_black = table.corrected(&pos("4k3/p7/8/8/8/8/P7/4K2R w - - 0 1"), 50);
        assert!((34..=36).contains(&shares_black), "{shares_black}");
        table.clear();
        assert_eq!(table.corrected(&p, 50), 50);
    }

    #[test]
    fn one_update_moves_little_and_errors_are_capped() {
        let table = CorrectionHistory::default();
        let p = pos("4k3/pp6/8/8/8/8/PP2N3/4K3 w - - 0 1");
        // Depth 0 weighs 1/256: a 100 cp error moves the eval by under a centipawn.
        table.update(&p, 0, 0, 100);
        assert_eq!(table.corrected(&p, 0), 0);
        // A mate-sized error counts as CORRECTION_MAX at most.
        for _ in 0..1000 {
            table.update(&p, 20, 0, 30_000);
        }
        let c = table.corrected(&p, 0);
        assert!(c <= CORRECTION_MAX && c > CORRECTION_MAX / 2, "{c}");
    }
}
