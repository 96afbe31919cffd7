//! Threats one side makes, after Stockfish 10's `threats()`: enemy pieces attacked by
//! our pawns (all, and by pawns that are themselves safe), by minors, rooks, queens and
//! the king; hanging and weak enemy pieces; pawn pushes that would attack a piece;
//! squares from which a knight or slider could attack the enemy queen; and how much of
//! the board we attack (once, and twice).
//!
//! As in SF, an enemy piece is strongly protected when an enemy pawn defends it or the
//! enemy attacks its square twice and we do not; weak enemy pieces (pawns included) are
//! those we attack that are not strongly protected. Kings are never counted as targets.

use shakmaty::attacks::{bishop_attacks, knight_attacks, rook_attacks};
use shakmaty::{Color, Role};

use super::context::{pawn_attack_set, push, rel_rank_bb, Context};

pub(super) const NAMES: &[&str] = &[
    "threat_by_pawn",
    "threat_by_safe_pawn",
    "threat_by_minor",
    "threat_by_rook",
    "threat_by_queen",
    "threat_by_king",
    "threat_hanging",
    "threat_weak_pieces",
    "threat_pawn_push",
    "threat_knight_on_queen",
    "threat_slider_on_queen",
    "threat_attacked_pieces",
    "squares_attacked",
    "squares_attacked_twice",
];

pub(super) fn extract(ctx: &Context, c: Color, out: &mut [f32]) {
    let board = ctx.board;
    let us = ctx.us(c);
    let them = ctx.them(c);
    let occ = board.occupied();
    let targets = board.by_color(!c) & !board.kings();
    let non_pawn = targets & !board.pawns();
    let strongly_protected = them.attacks(Role::Pawn) | (them.twice & !us.twice);
    let defended = non_pawn & strongly_protected;
    let weak = targets & !strongly_protected & us.all;
    let minors = us.attacks(Role::Knight) | us.attacks(Role::Bishop);
    let hanging = weak & (!them.all | (non_pawn & us.twice));

    let safe = !them.all | us.all;
    let our_pawns = board.pawns() & board.by_color(c);
    let safe_pawn_threats = pawn_attack_set(our_pawns & safe, c) & non_pawn;
    let mut pushes = push(our_pawns, c) & !occ;
    pushes |= push(pushes & rel_rank_bb(c, 2), c) & !occ;
    pushes &= !them.attacks(Role::Pawn) & safe;
    let push_threats = pawn_attack_set(pushes, c) & non_pawn;

    let (mut knight_on_queen, mut slider_on_queen) = (0, 0);
    let queen_safe = us.mobility_area & !strongly_protected;
    for q in board.queens() & board.by_color(!c) {
        knight_on_queen += (us.attacks(Role::Knight) & knight_attacks(q) & queen_safe).count();
        let sliders = (us.attacks(Role::Bishop) & bishop_attacks(q, occ))
            | (us.attacks(Role::Rook) & rook_attacks(q, occ));
        slider_on_queen += (sliders & queen_safe & us.twice).count();
    }

    let values = [
        (us.attacks(Role::Pawn) & non_pawn).count(),
        safe_pawn_threats.count(),
        ((defended | weak) & minors).count(),
        (weak & us.attacks(Role::Rook)).count(),
        (weak & us.attacks(Role::Queen)).count(),
        (weak & us.attacks(Role::King)).count(),
        hanging.count(),
        weak.count(),
        push_threats.count(),
        knight_on_queen,
        slider_on_queen,
        (non_pawn & us.all).count(),
        us.all.count(),
        us.twice.count(),
    ];
    for (o, v) in out.iter_mut().zip(values) {
        *o = v as f32;
    }
}

#[cfg(test)]
mod tests {
    use crate::features::tests::values;

    #[test]
    fn loose_bishop_attacked_three_times() {
        // Black's d5 bishop is attacked by e4, Nc3 and Rd1 and defended by nothing.
        let fen = "6k1/8/8/3b4/4P3/2N5/8/3R2K1 b - - 0 1";
        let w = values(fen, "white_");
        assert_eq!(w["threat_by_pawn"], 1.0);
        // e4 is attacked by the bishop but defended by the knight, so it is safe.
        assert_eq!(w["threat_by_safe_pawn"], 1.0);
        assert_eq!(w["threat_by_minor"], 1.0);
        assert_eq!(w["threat_by_rook"], 1.0);
        assert_eq!(w["threat_by_queen"], 0.0);
        assert_eq!(w["threat_by_king"], 0.0);
        assert_eq!(w["threat_hanging"], 1.0);
        assert_eq!(w["threat_weak_pieces"], 1.0);
        assert_eq!(w["threat_pawn_push"], 0.0);
        assert_eq!(w["threat_attacked_pieces"], 1.0);
        // Pawn d5 f5; knight e4 e2 d5 b5 a4 a2 b1 d1; rook d2-d5 c1 b1 a1 e1 f1 g1;
        // king f1 h1 f2 g2 h2: 21 squares, of which d5 b1 f1 twice.
        assert_eq!(w["squares_attacked"], 21.0);
        assert_eq!(w["squares_attacked_twice"], 3.0);
        let b = values(fen, "black_");
        // The bishop hits the e4 pawn: weak (no pawn defends it), not hanging (Nc3).
        assert_eq!(b["threat_weak_pieces"], 1.0);
        assert_eq!(b["threat_by_minor"], 1.0);
        assert_eq!(b["threat_hanging"], 0.0);
        assert_eq!(b["threat_attacked_pieces"], 0.0);
    }

    #[test]
    fn pawn_push_threat() {
        // d2-d3 would attack the e4 knight from a square Black does not attack.
        let fen = "4k3/8/8/8/4n3/8/3P4/4K3 w - - 0 1";
        assert_eq!(values(fen, "white_")["threat_pawn_push"], 1.0);
        assert_eq!(values(fen, "white_")["threat_by_pawn"], 0.0);
    }

    #[test]
    fn knight_on_queen() {
        // From c3 (not a3 or d2) the b1 knight would attack the d5 queen, and Black does
        // not protect c3.
        let fen = "4k3/8/8/3q4/8/8/8/1N2K3 w - - 0 1";
        assert_eq!(values(fen, "white_")["threat_knight_on_queen"], 1.0);
    }
}
