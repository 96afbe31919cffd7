//! Pawn structure of one side, after Stockfish 10's `pawns.cpp`: weaknesses (isolated,
//! doubled, backward, weak unopposed), strengths (supported, phalanx), blocked and
//! opposed pawns, islands, where the pawns stand (queen side, centre, king side), the
//! squares they attack and the files they leave half-open.
//!
//! Definitions follow SF10: a pawn is isolated with no own pawn on an adjacent file;
//! doubled when an own pawn stands behind it on its file (so a file of n pawns counts
//! n-1); backward when it has own pawns on adjacent files but none level with or behind
//! it, and its push square holds or is attacked by an enemy pawn.

use shakmaty::{Bitboard, Color, File};

use super::context::{adjacent_files, forward_file, forward_ranks, pawn_attack_set, push, Context};

pub(super) const NAMES: &[&str] = &[
    "pawns_isolated",
    "pawns_doubled",
    "pawns_backward",
    "pawns_supported",
    "pawns_phalanx",
    "pawns_opposed",
    "pawns_weak_unopposed",
    "pawns_blocked",
    "pawn_islands",
    "pawns_files_abc",
    "pawns_files_de",
    "pawns_files_fgh",
    "pawn_attacked_squares",
    "semi_open_files",
];

fn files(from: u32, to: u32) -> Bitboard {
    (from..=to).fold(Bitboard::EMPTY, |b, f| {
        b | Bitboard::from_file(File::new(f))
    })
}

pub(super) fn extract(ctx: &Context, c: Color, out: &mut [f32]) {
    let board = ctx.board;
    let ours = board.pawns() & board.by_color(c);
    let theirs = board.pawns() & board.by_color(!c);
    let their_attacks = pawn_attack_set(theirs, !c);
    let supported = ours & pawn_attack_set(ours, c);
    let side_by_side = (ours.shift(1) & !files(0, 0)) | (ours.shift(-1) & !files(7, 7));
    let phalanx = ours & side_by_side;
    let blocked = ours & push(board.occupied(), !c);

    let (mut isolated, mut doubled, mut backward, mut opposed, mut weak) = (0, 0, 0, 0, 0);
    for p in ours {
        let neighbours = ours & adjacent_files(p);
        let is_opposed = (theirs & forward_file(c, p)).any();
        let is_isolated = neighbours.is_empty();
        let stop = push(Bitboard::from_square(p), c);
        // No own pawn on an adjacent file level with or behind this one.
        let behind_or_level = !forward_ranks(c, p);
        let is_backward = !is_isolated
            && (neighbours & behind_or_level).is_empty()
            && (stop & (theirs | their_attacks)).any();
        isolated += usize::from(is_isolated);
        doubled += usize::from((ours & forward_file(!c, p)).any());
        backward += usize::from(is_backward);
        opposed += usize::from(is_opposed);
        weak += usize::from((is_isolated || is_backward) && !is_opposed);
    }

    let mut islands = 0;
    let mut in_island = false;
    for f in 0..8 {
        let has = ours.intersects(Bitboard::from_file(File::new(f)));
        islands += usize::from(has && !in_island);
        in_island = has;
    }
    let semi_open = (0..8)
        .filter(|&f| !ours.intersects(Bitboard::from_file(File::new(f))))
        .count();

    let values = [
        isolated as f32,
        doubled as f32,
        backward as f32,
        supported.count() as f32,
        phalanx.count() as f32,
        opposed as f32,
        weak as f32,
        blocked.count() as f32,
        islands as f32,
        (ours & files(0, 2)).count() as f32,
        (ours & files(3, 4)).count() as f32,
        (ours & files(5, 7)).count() as f32,
        pawn_attack_set(ours, c).count() as f32,
        semi_open as f32,
    ];
    out.copy_from_slice(&values);
}

#[cfg(test)]
mod tests {
    use crate::features::tests::values;

    #[test]
    fn hand_counted_structure() {
        // White a2 a3 c4 d4 e3 g2; Black d5 h5.
        let fen = "4k3/8/8/3p3p/2PP4/P3P3/P5P1/4K3 w - - 0 1";
        let w = values(fen, "white_");
        assert_eq!(w["pawns_isolated"], 3.0); // a2 a3 g2
        assert_eq!(w["pawns_doubled"], 1.0); // a3
        assert_eq!(w["pawns_backward"], 1.0); // e3: e4 is attacked by d5
        assert_eq!(w["pawns_supported"], 1.0); // d4 by e3
        assert_eq!(w["pawns_phalanx"], 2.0); // c4 d4
        assert_eq!(w["pawns_opposed"], 1.0); // d4
        assert_eq!(w["pawns_weak_unopposed"], 4.0); // a2 a3 g2 e3
        assert_eq!(w["pawns_blocked"], 2.0); // a2 by a3, d4 by d5
        assert_eq!(w["pawn_islands"], 3.0); // a, c-e, g
        assert_eq!(w["pawns_files_abc"], 3.0);
        assert_eq!(w["pawns_files_de"], 2.0);
        assert_eq!(w["pawns_files_fgh"], 1.0);
        // b3 b4 b5 c5 d5 e5 d4 f4 f3 h3
        assert_eq!(w["pawn_attacked_squares"], 10.0);
        assert_eq!(w["semi_open_files"], 3.0); // b f h
        let b = values(fen, "black_");
        assert_eq!(b["pawns_isolated"], 2.0);
        assert_eq!(b["pawns_opposed"], 1.0);
        assert_eq!(b["pawns_blocked"], 1.0);
        assert_eq!(b["pawns_weak_unopposed"], 1.0); // h5
        assert_eq!(b["pawns_backward"], 0.0);
        assert_eq!(b["pawn_islands"], 2.0);
        assert_eq!(b["semi_open_files"], 6.0);
    }
}
