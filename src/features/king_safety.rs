//! King safety of one side's king, after Stockfish 10's `king()` terms, as danger
//! counts (larger is worse for that side) plus the shelter that protects it.
//!
//! - Attackers: enemy knights, bishops, rooks and queens whose attacks reach the king
//!   ring (the king's square and neighbours, one rank deeper when the king is on its back
//!   rank), their count, their SF weights (N 77, B 55, R 44, Q 10), and their attacks on
//!   the squares next to the king.
//! - Weak ring squares: attacked by the enemy, defended at most once and only by our
//!   king or queen, if at all.
//! - Checks: squares from which an enemy piece could check; safe when not defended by
//!   us (or weak and attacked twice by the enemy), per checking piece type; unsafe ones
//!   counted together.
//! - Flank attacks: enemy attacks on the king's flank in our half (plus those attacked
//!   twice), Stockfish's `kingFlankAttacks`.
//! - Shelter: our pawns one or two ranks in front of the king on its file and the two
//!   beside it; storm: enemy pawns up to four ranks in front on those files.
//! - The king's file open or semi-open (no pawn, or only enemy pawns), distance to the
//!   nearest own pawn, our pieces pinned to the king, castling rights.

use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks, rook_attacks};
use shakmaty::{Bitboard, CastlingSide, Color, File, Position, Role, Square};

use super::context::{forward_ranks, rel_rank, rel_rank_bb, slider_blockers, Context};

pub(super) const NAMES: &[&str] = &[
    "king_attackers",
    "king_attackers_weight",
    "king_zone_attacks",
    "king_ring_weak_squares",
    "king_safe_checks_knight",
    "king_safe_checks_bishop",
    "king_safe_checks_rook",
    "king_safe_checks_queen",
    "king_unsafe_checks",
    "king_flank_attacks",
    "king_shelter_pawns",
    "king_storm_pawns",
    "king_open_file",
    "king_semi_open_file",
    "king_pawn_distance",
    "king_pinned_pieces",
    "can_castle_kingside",
    "can_castle_queenside",
];

/// Stockfish 10 `KingAttackWeights` for N, B, R, Q.
fn weight(role: Role) -> i32 {
    match role {
        Role::Knight => 77,
        Role::Bishop => 55,
        Role::Rook => 44,
        _ => 10,
    }
}

fn files(from: u32, to: u32) -> Bitboard {
    (from..=to).fold(Bitboard::EMPTY, |b, f| {
        b | Bitboard::from_file(File::new(f))
    })
}

/// Stockfish's `KingFlank`: the king's wing (three or four files).
fn flank(f: File) -> Bitboard {
    match f as u32 {
        0 => files(0, 2),
        1 | 2 => files(0, 3),
        3 | 4 => files(2, 5),
        5 | 6 => files(4, 7),
        _ => files(5, 7),
    }
}

/// The king's file and the files next to it.
fn king_files(k: Square) -> Bitboard {
    let f = k.file() as u32;
    files(f.saturating_sub(1), (f + 1).min(7))
}

/// Relative ranks `from..=to` of `c`.
fn rel_ranks(c: Color, from: u32, to: u32) -> Bitboard {
    (from..=to.min(7)).fold(Bitboard::EMPTY, |b, r| b | rel_rank_bb(c, r))
}

pub(super) fn extract(ctx: &Context, c: Color, out: &mut [f32]) {
    let board = ctx.board;
    let us = ctx.us(c);
    let them = ctx.them(c);
    let k = us.king;
    let occ = board.occupied();
    let ours = board.by_color(c);
    let theirs = board.by_color(!c);
    let neighbours = king_attacks(k);

    let (mut attackers, mut weights, mut zone) = (0, 0, 0);
    for p in them.pieces() {
        if p.attacks.intersects(us.king_ring) {
            attackers += 1;
            weights += weight(p.role);
            zone += (p.attacks & neighbours).count();
        }
    }
    let weak = them.all & !us.twice & (!us.all | us.attacks(Role::King) | us.attacks(Role::Queen));

    // Checks: squares the enemy can reach that see our king.
    let safe = !theirs & (!us.all | (weak & them.twice));
    let on_rook_lines = rook_attacks(k, occ);
    let on_bishop_lines = bishop_attacks(k, occ);
    let knight = knight_attacks(k) & them.attacks(Role::Knight) & !theirs;
    let rook = on_rook_lines & them.attacks(Role::Rook) & !theirs;
    let bishop = on_bishop_lines & them.attacks(Role::Bishop) & !theirs;
    let queen = (on_rook_lines | on_bishop_lines) & them.attacks(Role::Queen) & !theirs;
    let safe_rook = rook & safe;
    let safe_queen = queen & safe & !us.attacks(Role::Queen) & !safe_rook;
    let safe_bishop = bishop & safe & !safe_queen;
    let safe_knight = knight & safe;
    let unsafe_checks = (knight | rook | bishop | queen) & !safe;

    let camp = rel_ranks(c, 0, 4);
    let flank_attacks = them.all & flank(k.file()) & camp;

    let kr = rel_rank(c, k);
    let near = king_files(k);
    let our_pawns = board.pawns() & ours;
    let their_pawns = board.pawns() & theirs;
    let shelter = our_pawns & near & rel_ranks(c, kr + 1, kr + 2);
    let storm = their_pawns & near & forward_ranks(c, k) & rel_ranks(c, kr + 1, kr + 4);
    let file = Bitboard::from_file(k.file());

    let pawn_distance = our_pawns
        .into_iter()
        .map(|p| p.distance(k))
        .min()
        .unwrap_or(0);
    let snipers = theirs & (board.rooks_and_queens() | board.bishops_and_queens());
    let pinned = slider_blockers(board, snipers, k, ours);
    let castles = ctx.pos.castles();

    let values = [
        attackers as f32,
        weights as f32,
        zone as f32,
        (us.king_ring & weak).count() as f32,
        safe_knight.count() as f32,
        safe_bishop.count() as f32,
        safe_rook.count() as f32,
        safe_queen.count() as f32,
        unsafe_checks.count() as f32,
        (flank_attacks.count() + (flank_attacks & them.twice).count()) as f32,
        shelter.count() as f32,
        storm.count() as f32,
        f32::from(u8::from(!(file.intersects(board.pawns())))),
        f32::from(u8::from(
            !file.intersects(our_pawns) && file.intersects(their_pawns),
        )),
        pawn_distance as f32,
        pinned.count() as f32,
        f32::from(u8::from(castles.has(c, CastlingSide::KingSide))),
        f32::from(u8::from(castles.has(c, CastlingSide::QueenSide))),
    ];
    out.copy_from_slice(&values);
}

#[cfg(test)]
mod tests {
    use crate::features::tests::{values, START};

    #[test]
    fn start_position_is_quiet_and_sheltered() {
        let v = values(START, "white_");
        for n in [
            "king_attackers",
            "king_zone_attacks",
            "king_ring_weak_squares",
        ] {
            assert_eq!(v[n], 0.0, "{n}");
        }
        assert_eq!(v["king_unsafe_checks"], 0.0);
        assert_eq!(v["king_flank_attacks"], 0.0);
        assert_eq!(v["king_shelter_pawns"], 3.0);
        assert_eq!(v["king_storm_pawns"], 0.0);
        assert_eq!(v["king_open_file"], 0.0);
        assert_eq!(v["king_pawn_distance"], 1.0);
        assert_eq!(v["can_castle_kingside"], 1.0);
        assert_eq!(v["can_castle_queenside"], 1.0);
    }

    #[test]
    fn knight_and_queen_on_the_castled_king() {
        let fen = "r5k1/5ppp/8/5N1Q/8/8/5PPP/6K1 b - - 0 1";
        let b = values(fen, "black_");
        // Nf5 reaches g7 and h6, Qh5 reaches h6, h7, g6 and f7 of the ring.
        assert_eq!(b["king_attackers"], 2.0);
        assert_eq!(b["king_attackers_weight"], 87.0);
        // Next to the king: g7 (knight), f7 and h7 (queen).
        assert_eq!(b["king_zone_attacks"], 3.0);
        // f7, g7, h7: attacked, defended only by the king; h6 and g6 have pawn cover.
        assert_eq!(b["king_ring_weak_squares"], 3.0);
        // Ne7+ is safe; Nh6+ (g7 pawn), Qxf7+ and Qxh7+ (king) are not.
        assert_eq!(b["king_safe_checks_knight"], 1.0);
        assert_eq!(b["king_safe_checks_queen"], 0.0);
        assert_eq!(b["king_unsafe_checks"], 3.0);
        // Files e-h, ranks 8-4: queen h6 h7 g6 f7 g5 f5 h4 g4, knight e7 g7 (h6 h4
        // again); h6 and h4 attacked twice.
        assert_eq!(b["king_flank_attacks"], 12.0);
        assert_eq!(b["king_shelter_pawns"], 3.0);
        assert_eq!(b["king_storm_pawns"], 0.0);
        assert_eq!(b["can_castle_kingside"], 0.0);
        let w = values(fen, "white_");
        assert_eq!(w["king_attackers"], 0.0);
        // Ra1+ on the open back rank, a1 undefended.
        assert_eq!(w["king_safe_checks_rook"], 1.0);
    }

    #[test]
    fn open_file_pin_and_storm() {
        let pin = "4r1k1/8/8/8/8/8/4B3/4K3 w - - 0 1";
        let w = values(pin, "white_");
        assert_eq!(w["king_open_file"], 1.0);
        assert_eq!(w["king_semi_open_file"], 0.0);
        assert_eq!(w["king_pinned_pieces"], 1.0);
        // The e8 rook reaches e3 and e2 of the ring (its attacks stop at the bishop).
        assert_eq!(w["king_attackers"], 1.0);
        assert_eq!(w["king_zone_attacks"], 1.0);
        let storm = "6k1/8/8/8/6p1/7p/8/6K1 w - - 0 1";
        let w = values(storm, "white_");
        assert_eq!(w["king_storm_pawns"], 2.0);
        assert_eq!(w["king_semi_open_file"], 1.0);
        assert_eq!(w["king_open_file"], 0.0);
        assert_eq!(w["king_pawn_distance"], 0.0);
        // Ring squares attacked by the pawns: g2 (defended only by the king), f3 and h3
        // (undefended).
        assert_eq!(w["king_ring_weak_squares"], 3.0);
        let b = values(storm, "black_");
        assert_eq!(b["king_pawn_distance"], 4.0);
    }

    #[test]
    fn safe_rook_check_and_unsafe_bishop_check() {
        let fen = "6k1/5ppp/8/8/8/1B6/5PPP/3R2K1 w - - 0 1";
        let b = values(fen, "black_");
        // Rd8+ lands on a square Black does not defend.
        assert_eq!(b["king_safe_checks_rook"], 1.0);
        // Bxf7+ lands on a square the king defends and only the bishop attacks.
        assert_eq!(b["king_safe_checks_bishop"], 0.0);
        assert_eq!(b["king_unsafe_checks"], 1.0);
    }
}
