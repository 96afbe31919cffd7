//! Piece placement of one side, after Stockfish 10's `pieces()` terms: outposts for
//! knights and bishops, minors shielded by a pawn, pawns on the bishop's colour,
//! bishops on the long diagonal, minors' distance from their king, rooks on open,
//! half-open and seventh-rank files, trapped rooks, rooks facing the enemy king or
//! queen, queens exposed to a discovered or pinning attack, and undeveloped minors.
//!
//! An outpost is a square on relative ranks 4–6 that no enemy pawn can ever attack
//! (none stands in front of it on an adjacent file). A rook is trapped, as in SF, when
//! it has at most three squares of mobility, its file holds an own pawn, and it stands
//! on the same side of its king as the corner (so the king is boxing it in).

use shakmaty::attacks::bishop_attacks;
use shakmaty::{Bitboard, Color, Role, Square};

use super::context::{
    attack_span, pawn_attack_set, push, rel_rank, rel_rank_bb, slider_blockers, Context,
};

pub(super) const NAMES: &[&str] = &[
    "knight_outposts",
    "knight_outposts_supported",
    "bishop_outposts",
    "bishop_outposts_supported",
    "knight_reachable_outposts",
    "minors_behind_pawn",
    "bishop_pawns_same_color",
    "bishops_long_diagonal",
    "minors_king_distance",
    "rooks_open_file",
    "rooks_semi_open_file",
    "rooks_on_seventh",
    "rooks_trapped",
    "rooks_on_enemy_king_file",
    "rooks_on_enemy_queen_file",
    "queens_weak",
    "minors_undeveloped",
];

const CENTER: Bitboard = Bitboard(
    (1 << Square::D4 as u64)
        | (1 << Square::E4 as u64)
        | (1 << Square::D5 as u64)
        | (1 << Square::E5 as u64),
);

/// Home squares of White's minors; flipped for Black.
const MINOR_HOMES: Bitboard = Bitboard(
    (1 << Square::B1 as u64)
        | (1 << Square::C1 as u64)
        | (1 << Square::F1 as u64)
        | (1 << Square::G1 as u64),
);

pub(super) fn extract(ctx: &Context, c: Color, out: &mut [f32]) {
    let board = ctx.board;
    let us = ctx.us(c);
    let ours = board.by_color(c);
    let our_pawns = board.pawns() & ours;
    let their_pawns = board.pawns() & !ours;
    let enemy_span = their_pawns
        .into_iter()
        .fold(Bitboard::EMPTY, |b, p| b | attack_span(!c, p));
    let outposts = (rel_rank_bb(c, 3) | rel_rank_bb(c, 4) | rel_rank_bb(c, 5)) & !enemy_span;
    let pawn_defended = pawn_attack_set(our_pawns, c);
    let knights = ctx.ours(c, Role::Knight);
    let bishops = ctx.ours(c, Role::Bishop);
    let minors = knights | bishops;
    let enemy_king = ctx.them(c).king;
    let enemy_queens = board.queens() & board.by_color(!c);
    let light = Bitboard::LIGHT_SQUARES;

    out.fill(0.0);
    out[0] = (knights & outposts).count() as f32;
    out[1] = (knights & outposts & pawn_defended).count() as f32;
    out[2] = (bishops & outposts).count() as f32;
    out[3] = (bishops & outposts & pawn_defended).count() as f32;
    out[4] = (us.attacks(Role::Knight) & outposts & !ours).count() as f32;
    out[5] = (minors & push(board.pawns(), !c)).count() as f32;
    for b in bishops {
        let colour = if light.contains(b) { light } else { !light };
        out[6] += (our_pawns & colour).count() as f32;
        out[7] += f32::from(u8::from(
            (bishop_attacks(b, board.pawns()) & CENTER).more_than_one(),
        ));
    }
    for m in minors {
        out[8] += m.distance(us.king) as f32;
    }
    for p in us.pieces().iter().filter(|p| p.role == Role::Rook) {
        let file = Bitboard::from_file(p.sq.file());
        let semi_open = !file.intersects(our_pawns);
        if semi_open && !file.intersects(their_pawns) {
            out[9] += 1.0;
        } else if semi_open {
            out[10] += 1.0;
        }
        out[11] += f32::from(u8::from(rel_rank(c, p.sq) == 6));
        let mobility = (p.attacks & us.mobility_area).count();
        let kf = us.king.file() as u32;
        let same_side = (kf < 4) == ((p.sq.file() as u32) < kf);
        out[12] += f32::from(u8::from(!semi_open && mobility <= 3 && same_side));
        out[13] += f32::from(u8::from(file.contains(enemy_king)));
        out[14] += f32::from(u8::from(file.intersects(enemy_queens)));
    }
    let enemy_sliders = board.by_color(!c) & (board.rooks() | board.bishops());
    for q in ctx.ours(c, Role::Queen) {
        let exposed = slider_blockers(board, enemy_sliders, q, board.occupied());
        out[15] += f32::from(u8::from(exposed.any()));
    }
    let homes = if c.is_white() {
        MINOR_HOMES
    } else {
        MINOR_HOMES.flip_vertical()
    };
    out[16] = (minors & homes).count() as f32;
}

#[cfg(test)]
mod tests {
    use crate::features::tests::{values, START};

    #[test]
    fn start_position() {
        let v = values(START, "white_");
        assert_eq!(v["minors_undeveloped"], 4.0);
        // Bc1 (dark): b2 d2 f2 h2; Bf1 (light): a2 c2 e2 g2.
        assert_eq!(v["bishop_pawns_same_color"], 8.0);
        // From e1: b1 3, g1 2, c1 2, f1 1.
        assert_eq!(v["minors_king_distance"], 8.0);
        // Rh1 has one square (g1) and stands between its king and the corner.
        assert_eq!(v["rooks_trapped"], 1.0);
        assert_eq!(v["rooks_open_file"], 0.0);
    }

    #[test]
    fn knight_outpost_and_open_files() {
        let fen = "2r3k1/pp3ppp/8/3N4/8/2P5/PP3PPP/4R1K1 w - - 0 1";
        let w = values(fen, "white_");
        // No black c- or e-pawn can ever attack d5.
        assert_eq!(w["knight_outposts"], 1.0);
        assert_eq!(w["knight_outposts_supported"], 0.0);
        // Only the d-file has outposts; the knight reaches no other d-file square.
        assert_eq!(w["knight_reachable_outposts"], 0.0);
        assert_eq!(w["rooks_open_file"], 1.0);
        assert_eq!(w["rooks_semi_open_file"], 0.0);
        assert_eq!(w["minors_king_distance"], 4.0);
        let b = values(fen, "black_");
        assert_eq!(b["rooks_semi_open_file"], 1.0); // c8 against c3
        assert_eq!(b["rooks_open_file"], 0.0);
    }

    #[test]
    fn seventh_rank_and_trapped_rook() {
        let fen = "rn2k3/1R6/8/8/8/8/PP3PPP/2B1K1NR w K - 0 1";
        let w = values(fen, "white_");
        assert_eq!(w["rooks_on_seventh"], 1.0);
        assert_eq!(w["rooks_trapped"], 1.0); // h1: only g1
        assert_eq!(w["minors_undeveloped"], 2.0);
        assert_eq!(w["bishop_pawns_same_color"], 3.0); // b2 f2 h2
        assert_eq!(w["minors_king_distance"], 4.0);
        let b = values(fen, "black_");
        assert_eq!(b["minors_undeveloped"], 1.0);
        assert_eq!(b["rooks_semi_open_file"], 1.0);
    }

    #[test]
    fn supported_outpost_long_diagonal_and_exposed_queen() {
        let fen = "4k3/4r3/8/3N4/4P3/8/1B2Q3/4K3 w - - 0 1";
        let w = values(fen, "white_");
        assert_eq!(w["knight_outposts"], 1.0);
        assert_eq!(w["knight_outposts_supported"], 1.0); // e4 defends d5
                                                         // b4 b6 f4 f6: ranks 4-6, no black pawns at all.
        assert_eq!(w["knight_reachable_outposts"], 4.0);
        assert_eq!(w["bishops_long_diagonal"], 1.0); // b2 sees d4 and e5
                                                     // Only the e4 pawn stands between the e7 rook and the e2 queen.
        assert_eq!(w["queens_weak"], 1.0);
        assert_eq!(w["minors_king_distance"], 7.0); // d5: 4, b2: 3
        let b = values(fen, "black_");
        assert_eq!(b["rooks_on_enemy_king_file"], 1.0);
        assert_eq!(b["rooks_on_enemy_queen_file"], 1.0);
    }
}
