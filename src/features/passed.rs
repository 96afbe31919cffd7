//! Passed pawns of one side: how many, on which relative rank, whether their way is
//! free, whether a pawn defends them, and how near each king is (Stockfish 10's
//! `passed()` terms, unweighted).
//!
//! A pawn is passed when no enemy pawn stands in front of it on its file or an adjacent
//! file, and no own pawn stands in front of it on its file (the front pawn of a doubled
//! pair is the passer). King distances are Chebyshev distances to the square in front
//! of the passer, capped at 5 as in SF, summed over passers.

use shakmaty::{Bitboard, Color};

use super::context::{forward_file, passed_span, pawn_attack_set, push, rel_rank, Context};

pub(super) const NAMES: &[&str] = &[
    "passed_pawns",
    "passed_pawns_rank2",
    "passed_pawns_rank3",
    "passed_pawns_rank4",
    "passed_pawns_rank5",
    "passed_pawns_rank6",
    "passed_pawns_rank7",
    "passed_most_advanced_rank",
    "passed_free",
    "passed_safe_path",
    "passed_supported",
    "passed_blocked",
    "passed_own_king_distance",
    "passed_enemy_king_distance",
];

pub(super) fn extract(ctx: &Context, c: Color, out: &mut [f32]) {
    let board = ctx.board;
    let ours = board.pawns() & board.by_color(c);
    let theirs = board.pawns() & board.by_color(!c);
    let defended = pawn_attack_set(ours, c);
    let enemy = board.by_color(!c);
    out.fill(0.0);
    let mut most = 0;
    for p in ours {
        if (theirs & passed_span(c, p)).any() || (ours & forward_file(c, p)).any() {
            continue;
        }
        let r = rel_rank(c, p) as usize; // 1..=6 for ranks 2..=7
        out[0] += 1.0;
        out[r] += 1.0;
        most = most.max(r + 1);
        let stop = push(Bitboard::from_square(p), c);
        let path = forward_file(c, p);
        out[8] += f32::from(u8::from(!stop.intersects(board.occupied())));
        let path_safe = !path.intersects(board.occupied()) && !path.intersects(ctx.them(c).all);
        out[9] += f32::from(u8::from(path_safe));
        out[10] += f32::from(u8::from(defended.contains(p)));
        out[11] += f32::from(u8::from(stop.intersects(enemy)));
        if let Some(s) = stop.first() {
            out[12] += ctx.us(c).king.distance(s).min(5) as f32;
            out[13] += ctx.them(c).king.distance(s).min(5) as f32;
        }
    }
    out[7] = most as f32;
}

#[cfg(test)]
mod tests {
    use crate::features::tests::values;

    #[test]
    fn two_runners_on_the_seventh() {
        let fen = "8/2P5/8/1k6/8/4K3/6p1/8 w - - 0 1";
        for side in ["white_", "black_"] {
            let v = values(fen, side);
            assert_eq!(v["passed_pawns"], 1.0, "{side}");
            assert_eq!(v["passed_pawns_rank7"], 1.0, "{side}");
            assert_eq!(v["passed_most_advanced_rank"], 7.0, "{side}");
            assert_eq!(v["passed_free"], 1.0, "{side}");
            assert_eq!(v["passed_safe_path"], 1.0, "{side}");
        }
        let w = values(fen, "white_");
        assert_eq!(w["passed_own_king_distance"], 5.0); // e3-c8
        assert_eq!(w["passed_enemy_king_distance"], 3.0); // b5-c8
        let b = values(fen, "black_");
        assert_eq!(b["passed_own_king_distance"], 5.0); // b5-g1
        assert_eq!(b["passed_enemy_king_distance"], 2.0); // e3-g1
    }

    #[test]
    fn supported_and_blocked_passers() {
        // White b5 c4 f6 against a king on f7.
        let fen = "8/5k2/5P2/1P6/2P5/8/8/6K1 w - - 0 1";
        let w = values(fen, "white_");
        assert_eq!(w["passed_pawns"], 3.0);
        assert_eq!(w["passed_pawns_rank4"], 1.0);
        assert_eq!(w["passed_pawns_rank5"], 1.0);
        assert_eq!(w["passed_pawns_rank6"], 1.0);
        assert_eq!(w["passed_pawns_rank2"], 0.0);
        assert_eq!(w["passed_most_advanced_rank"], 6.0);
        assert_eq!(w["passed_free"], 2.0);
        assert_eq!(w["passed_safe_path"], 2.0);
        assert_eq!(w["passed_supported"], 1.0); // b5 by c4
        assert_eq!(w["passed_blocked"], 1.0); // f6 by the king
                                              // g1 to b6, c5, f7: 5 + 4 + min(6, 5)
        assert_eq!(w["passed_own_king_distance"], 14.0);
        // f7 to b6, c5, f7: 4 + 3 + 0
        assert_eq!(w["passed_enemy_king_distance"], 7.0);
        assert_eq!(values(fen, "black_")["passed_pawns"], 0.0);
    }

    #[test]
    fn stoppers_on_adjacent_files() {
        // a4 and b5 stop each other (each stands in front of the other on an adjacent
        // file, from its owner's side); h2 is passed.
        let fen = "4k3/8/8/1p6/P7/8/7P/4K3 w - - 0 1";
        let w = values(fen, "white_");
        assert_eq!(w["passed_pawns"], 1.0);
        assert_eq!(w["passed_pawns_rank2"], 1.0);
        assert_eq!(values(fen, "black_")["passed_pawns"], 0.0);
    }
}
