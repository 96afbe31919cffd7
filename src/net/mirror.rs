//! King-file mirroring ("horizontal mirroring") of the perspective form's first layer: the one
//! definition that libtorch's model (`mlp`, `sparse`), the native f32 and int8 passes and the
//! trainer's steps all read, and that tests hold each of them to.
//!
//! WHAT. Each view of a board reads the 768 features of that view's side: the side to move's
//! view (`own`) its own frame, the other view (`other`) the board with sides swapped. In a
//! mirrored net a view whose king stands on files e–h reads every feature with its file
//! flipped (a↔h, b↔g, …: feature f becomes f ^ 7), so that the king of each view is always
//! on files a–d. No weight is added: the net learns one king-side, and every position teaches
//! it as if the king stood on the queen's side.
//!
//! WHY. Peers with nets of this size (768→N)×2 mirror first, before king buckets: it halves
//! what the first layer must learn about the king's surroundings, and chess without castling
//! rights (which the encoding leaves out) is symmetric under the flip. Issue #55 item 4.
//!
//! BLOCKS. A board's mirroring is one of four cases, its block k = 2·(own king on e–h) +
//! (other king on e–h). Feature f of a board in block k reads first-layer column
//! `own(k, f)` in the own view and `other(k, f)` in the other view. A plain (unmirrored)
//! perspective net is the case of one block: own(0, f) = f, other(0, f) = swap f. Written
//! this way every backend handles both nets with one table lookup.
//!
//! CHILDREN. A child seen from its parent's side keeps its parent's block with the halves
//! exchanged ([`swap_block`]) unless a king crosses between the d- and e-files
//! ([`crosses`]): then a view changes as a whole, and backends rebuild the child from
//! scratch instead of updating it from the parent.

use crate::chess::{swap_sides_feature, CompactBoard, ENCODING_WIDTH};

/// Stored as a mirrored net's `encoding`: the 768 features of `stm-mirror-768-v1`, each
/// view's read king-file mirrored.
pub const KING_MIRROR_ENCODING: &str = "stm-mirror-768-hm-v1";

/// The feature of the same piece on the same rank, on the other wing (a↔h, b↔g, …).
#[inline(always)]
pub fn flip_file(feature: usize) -> usize {
    feature ^ 7
}

/// Piece codes of the kings on a [`CompactBoard`]: the side to move's, and the other side's.
const OWN_KING: u8 = 6;
const OTHER_KING: u8 = 12;
/// The kings' feature planes (a feature's plane is feature / 64).
const OWN_KING_PLANE: usize = 5;
const OTHER_KING_PLANE: usize = 11;

/// The block of `board` (see the module notes): 2·(own king on files e–h) + (other king on
/// files e–h). A board without a king counts it on the queen's side.
#[inline(always)]
pub fn mirror_block(board: &CompactBoard) -> usize {
    let mut block = 0;
    for (sq, &code) in board.0.iter().enumerate() {
        let right = sq % 8 >= 4;
        if code == OWN_KING && right {
            block |= 2;
        } else if code == OTHER_KING && right {
            block |= 1;
        }
    }
    block
}

/// The block of a board seen with the other side to move: the two views exchange places.
#[inline(always)]
pub fn swap_block(block: usize) -> usize {
    ((block & 1) << 1) | (block >> 1)
}

/// Whether a king crosses between the d- and e-files from a board to one that differs from
/// it by `added` and `removed` features (both in one frame): a king feature added on the
/// other wing from the same king's removed one.
#[inline(always)]
pub fn crosses(added: &[usize], removed: &[usize]) -> bool {
    let is_king = |f: usize| f / 64 == OWN_KING_PLANE || f / 64 == OTHER_KING_PLANE;
    added.iter().filter(|&&a| is_king(a)).any(|&a| {
        removed
            .iter()
            .any(|&r| r / 64 == a / 64 && (r % 8 >= 4) != (a % 8 >= 4))
    })
}

/// The first-layer column each view reads for each (block, feature): see the module notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewMaps {
    /// 4 for a mirrored net, 1 for a plain one.
    pub blocks: usize,
    /// `own[k · 768 + f]`, `other[k · 768 + f]`.
    pub own: Vec<u16>,
    pub other: Vec<u16>,
}

impl ViewMaps {
    pub fn new(king_mirror: bool) -> Self {
        let blocks = if king_mirror { 4 } else { 1 };
        let mut own = Vec::with_capacity(blocks * ENCODING_WIDTH);
        let mut other = Vec::with_capacity(blocks * ENCODING_WIDTH);
        for k in 0..blocks {
            let (own_right, other_right) = (k & 2 != 0, k & 1 != 0);
            for f in 0..ENCODING_WIDTH {
                let s = swap_sides_feature(f);
                own.push((if own_right { flip_file(f) } else { f }) as u16);
                other.push((if other_right { flip_file(s) } else { s }) as u16);
            }
        }
        ViewMaps { blocks, own, other }
    }

    pub fn is_mirrored(&self) -> bool {
        self.blocks > 1
    }

    /// The block of `board`: always 0 in a plain net.
    #[inline(always)]
    pub fn block(&self, board: &CompactBoard) -> usize {
        if self.blocks == 1 {
            0
        } else {
            mirror_block(board)
        }
    }

    /// Rows of the (block, feature) index: `blocks` × 768.
    pub fn rows(&self) -> usize {
        self.blocks * ENCODING_WIDTH
    }

    #[inline(always)]
    pub fn own(&self, block: usize, feature: usize) -> usize {
        self.own[block * ENCODING_WIDTH + feature] as usize
    }

    #[inline(always)]
    pub fn other(&self, block: usize, feature: usize) -> usize {
        self.other[block * ENCODING_WIDTH + feature] as usize
    }

    /// Whether a child that differs from its parent by `added` and `removed` (the parent's
    /// frame) must be rebuilt rather than updated: never in a plain net.
    #[inline(always)]
    pub fn breaks(&self, added: &[usize], removed: &[usize]) -> bool {
        self.blocks > 1 && crosses(added, removed)
    }
}

/// The (block, feature) row that parent row `row` is in its child's frame (the parent seen
/// with the other side to move): the block's halves exchanged, the feature swapped. Both
/// views read the same columns from it as from `row`, each in the other's place.
pub fn half_swapped_row(row: usize) -> usize {
    let (k, f) = (row / ENCODING_WIDTH, row % ENCODING_WIDTH);
    swap_block(k) * ENCODING_WIDTH + swap_sides_feature(f)
}

/// The board mirrored across the d/e line: every piece to the same rank on the other wing.
pub fn flip_board(board: &CompactBoard) -> CompactBoard {
    let mut out = [0u8; 64];
    for (sq, &code) in board.0.iter().enumerate() {
        out[sq ^ 7] = code;
    }
    CompactBoard(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    fn board(fen: &str) -> CompactBoard {
        Position::from_fen(fen).expect("valid fen").compact()
    }

    #[test]
    fn blocks_follow_each_view_s_king() {
        // White to move: the own view is White's. Kings on e1 and e8: both on e–h.
        assert_eq!(mirror_block(&board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")), 3);
        // c1 (own, queen's side) against g8 (other, king's side).
        assert_eq!(mirror_block(&board("6k1/8/8/8/8/8/8/2K5 w - - 0 1")), 1);
        // Black to move: own is Black's king on d8 (a–d), other White's on h1.
        assert_eq!(mirror_block(&board("3k4/8/8/8/8/8/8/7K b - - 0 1")), 1);
        assert_eq!(mirror_block(&board("3k4/8/8/8/8/8/8/3K4 b - - 0 1")), 0);
        assert_eq!(mirror_block(&board("7k/8/8/8/8/8/8/3K4 b - - 0 1")), 2);
        for k in 0..4 {
            assert_eq!(swap_block(swap_block(k)), k);
        }
        assert_eq!([swap_block(1), swap_block(2)], [2, 1]);
    }

    #[test]
    fn a_plain_net_reads_the_features_and_their_swap() {
        let maps = ViewMaps::new(false);
        assert_eq!((maps.blocks, maps.rows()), (1, 768));
        for f in 0..768 {
            assert_eq!(maps.own(0, f), f);
            assert_eq!(maps.other(0, f), swap_sides_feature(f));
            assert_eq!(half_swapped_row(f), swap_sides_feature(f));
        }
        assert!(!maps.breaks(&[5 * 64 + 3], &[5 * 64 + 4]));
    }

    #[test]
    fn a_mirrored_net_flips_the_files_of_a_view_whose_king_is_on_e_to_h() {
        let maps = ViewMaps::new(true);
        let e4_pawn = 28; // plane 0, e4
        let d4_pawn = 27;
        assert_eq!(maps.own(0, e4_pawn), e4_pawn);
        assert_eq!(maps.own(2, e4_pawn), d4_pawn);
        assert_eq!(maps.own(1, e4_pawn), e4_pawn);
        // The other view reads the swapped feature (their pawn on e5), flipped in blocks
        // 1 and 3.
        let swapped = swap_sides_feature(e4_pawn);
        assert_eq!(maps.other(0, e4_pawn), swapped);
        assert_eq!(maps.other(1, e4_pawn), swapped ^ 7);
        assert_eq!(maps.other(2, e4_pawn), swapped);
        assert_eq!(maps.other(3, e4_pawn), swapped ^ 7);
    }

    #[test]
    fn a_row_half_swapped_reads_the_same_columns_with_the_views_exchanged() {
        let maps = ViewMaps::new(true);
        for row in 0..maps.rows() {
            let (k, f) = (row / 768, row % 768);
            let s = half_swapped_row(row);
            let (ks, fs) = (s / 768, s % 768);
            assert_eq!(maps.own(ks, fs), maps.other(k, f), "row {row}");
            assert_eq!(maps.other(ks, fs), maps.own(k, f), "row {row}");
        }
    }

    #[test]
    fn mirrored_views_of_a_board_and_its_flip_are_the_same() {
        let maps = ViewMaps::new(true);
        let views = |b: &CompactBoard| {
            let k = maps.block(b);
            let mut own: Vec<usize> = b.active_features().map(|f| maps.own(k, f)).collect();
            let mut other: Vec<usize> = b.active_features().map(|f| maps.other(k, f)).collect();
            own.sort_unstable();
            other.sort_unstable();
            (own, other)
        };
        for b in crate::chess::sample_boards(200) {
            assert_eq!(views(&b), views(&flip_board(&b)));
        }
    }

    #[test]
    fn only_a_king_move_over_the_d_e_line_crosses() {
        let king = |sq: usize| 5 * 64 + sq;
        let their_king = |sq: usize| 11 * 64 + sq;
        // Kd1-e1 and Ke1-d1 cross; Ke1-f1 and Kd1-c2 do not.
        assert!(crosses(&[king(4)], &[king(3)]));
        assert!(crosses(&[king(3)], &[king(4)]));
        assert!(!crosses(&[king(5)], &[king(4)]));
        assert!(!crosses(&[king(10)], &[king(3)]));
        assert!(crosses(&[their_king(59)], &[their_king(60)]));
        // Castling long: the king e1-c1 crosses; the rook's move does not matter.
        let rook = |sq: usize| 3 * 64 + sq;
        assert!(crosses(&[king(2), rook(3)], &[king(4), rook(0)]));
        assert!(!crosses(&[king(6), rook(5)], &[king(4), rook(7)]));
        // A pawn on the d/e files, or the other king's squares, are not a crossing.
        assert!(!crosses(&[27], &[28]));
        assert!(!crosses(&[king(3)], &[their_king(4)]));
    }
}
