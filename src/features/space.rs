//! Space and the centre: Stockfish 10's space term and its parts, plus control and
//! occupation of the four centre squares.
//!
//! SF counts safe squares in our half of the centre files (files c–f, relative ranks
//! 2–4) that hold no own pawn and are not attacked by enemy pawns, counts again those
//! up to three squares behind an own pawn, and weighs the sum by
//! `(own pieces - 2 * open files)²/16`. SF only applies it in the opening and middlegame;
//! here it is reported always (the `phase` feature carries that).

use shakmaty::{Bitboard, Color, File, Role, Square};

use super::context::{push, rel_rank_bb, Context};

pub(super) const NAMES: &[&str] = &[
    "space_safe_squares",
    "space_behind_pawns",
    "space_weight",
    "space_score",
    "center_control",
    "center_pawns",
];

const CENTER: Bitboard = Bitboard(
    (1 << Square::D4 as u64)
        | (1 << Square::E4 as u64)
        | (1 << Square::D5 as u64)
        | (1 << Square::E5 as u64),
);

pub(super) fn extract(ctx: &Context, c: Color, out: &mut [f32]) {
    let board = ctx.board;
    let our_pawns = board.pawns() & board.by_color(c);
    let files = Bitboard::from_file(File::C)
        | Bitboard::from_file(File::D)
        | Bitboard::from_file(File::E)
        | Bitboard::from_file(File::F);
    let mask = files & (rel_rank_bb(c, 1) | rel_rank_bb(c, 2) | rel_rank_bb(c, 3));
    let safe = mask & !our_pawns & !ctx.them(c).attacks(Role::Pawn);
    let mut behind = our_pawns;
    behind |= push(behind, !c);
    behind |= push(push(behind, !c), !c);
    let bonus = (safe.count() + (behind & safe).count()) as i32;
    let open_files = (0..8)
        .filter(|&f| !board.pawns().intersects(Bitboard::from_file(File::new(f))))
        .count() as i32;
    let weight = (board.by_color(c).count() as i32 - 2 * open_files).max(0);

    out[0] = safe.count() as f32;
    out[1] = (behind & safe).count() as f32;
    out[2] = weight as f32;
    out[3] = (bonus * weight * weight / 16) as f32;
    out[4] = (ctx.us(c).all & CENTER).count() as f32;
    out[5] = (our_pawns & CENTER).count() as f32;
}

#[cfg(test)]
mod tests {
    use crate::features::tests::{values, START};

    #[test]
    fn start_position() {
        let v = values(START, "white_");
        // c3-f3, c4-f4; the second-rank squares hold our pawns.
        assert_eq!(v["space_safe_squares"], 8.0);
        assert_eq!(v["space_behind_pawns"], 0.0);
        assert_eq!(v["space_weight"], 16.0);
        assert_eq!(v["space_score"], 128.0); // 8 * 16 * 16 / 16
        assert_eq!(v["center_control"], 0.0);
        assert_eq!(v["center_pawns"], 0.0);
    }

    #[test]
    fn open_game() {
        // 1.e4 e5 2.Nf3
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";
        let w = values(fen, "white_");
        // e2 c3 d3 e3 f3 c4 (d4 and f4 are attacked by e5).
        assert_eq!(w["space_safe_squares"], 6.0);
        assert_eq!(w["space_behind_pawns"], 2.0); // e3 e2 behind e4
        assert_eq!(w["space_score"], 128.0); // (6 + 2) * 16 * 16 / 16
        assert_eq!(w["center_control"], 3.0); // Nf3: d4 e5; e4: d5
        assert_eq!(w["center_pawns"], 1.0);
        let b = values(fen, "black_");
        assert_eq!(b["space_safe_squares"], 6.0);
        assert_eq!(b["space_behind_pawns"], 2.0);
        assert_eq!(b["center_control"], 1.0); // e5: d4
    }
}
