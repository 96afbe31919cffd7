//! Static exchange evaluation: the material outcome of the capture sequence on one square,
//! each side recapturing with its least valuable attacker and free to stop.
//!
//! Quiescence drops captures that lose material by SEE. Stand-pat alone does not prune them
//! when the evaluator is not material-driven (an untrained or positional net).

use super::params::{PIECE_VALUES, SEE_NOISY_MARGIN, SEE_QUIET_MARGIN};
use shakmaty::{Bitboard, Board, Move, Role};

fn value(role: Role) -> i32 {
    PIECE_VALUES[role as usize - 1]
}

/// Net material won by `m` for the side making it, assuming best play in the exchange.
/// Castling and drops are exchanges of nothing (0).
pub fn see(board: &Board, m: &Move) -> i32 {
    let (Some(from), to) = (m.from(), m.to()) else {
        return 0;
    };
    if m.is_castle() {
        return 0;
    }
    let Some(mut side) = board.color_at(from) else {
        return 0;
    };
    let mut occupied = board.occupied() ^ Bitboard::from(from);
    if m.is_en_passant() {
        let captured = shakmaty::Square::from_coords(to.file(), from.rank());
        occupied ^= Bitboard::from(captured);
    }
    let mut gain = [0i32; 33];
    gain[0] = m.capture().map_or(0, value);
    let mut on_square = match m.promotion() {
        Some(promoted) => {
            gain[0] += value(promoted) - value(Role::Pawn);
            promoted
        }
        None => m.role(),
    };
    let mut d = 0;
    loop {
        side = side.other();
        // Attackers are recomputed from the shrinking occupancy, so x-rays join in.
        let attackers = board.attacks_to(to, side, occupied) & occupied;
        let Some((sq, role)) = least_valuable(board, attackers) else {
            break;
        };
        d += 1;
        gain[d] = value(on_square) - gain[d - 1];
        if d == gain.len() - 1 || (-gain[d - 1]).max(gain[d]) < 0 {
            break;
        }
        occupied ^= Bitboard::from(sq);
        // A king may only recapture last: taking into a defended square is illegal.
        if role == Role::King
            && !(board.attacks_to(to, side.other(), occupied) & occupied).is_empty()
        {
            d -= 1;
            break;
        }
        on_square = role;
    }
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

/// SEE pruning's test: whether `m` loses more by static exchange than a node of `depth` lets
/// a move lose and still be searched. A deeper node tolerates more, since its search may
/// find what the exchange misses (a pin, a discovered attack); a capture more than a quiet
/// move, since it has already taken something. Promotions are never pruned.
pub fn loses_too_much(board: &Board, m: &Move, depth: i32) -> bool {
    if m.is_promotion() {
        return false;
    }
    let margin = if m.is_capture() {
        SEE_NOISY_MARGIN * depth * depth
    } else {
        SEE_QUIET_MARGIN * depth
    };
    see(board, m) < -margin
}

fn least_valuable(board: &Board, attackers: Bitboard) -> Option<(shakmaty::Square, Role)> {
    Role::ALL.into_iter().find_map(|role| {
        (attackers & board.by_role(role))
            .first()
            .map(|sq| (sq, role))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;
    use shakmaty::Position as _;

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        let m = pos.parse_uci_move(uci).unwrap();
        see(pos.inner().board(), &m)
    }

    #[test]
    fn free_pawn_is_won() {
        assert_eq!(see_of("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5"), 100);
    }

    #[test]
    fn defended_pawn_taken_by_queen_loses_the_queen() {
        assert_eq!(
            see_of("4k3/2p5/3p4/8/8/8/3Q4/4K3 w - - 0 1", "d2d6"),
            100 - 900
        );
    }

    #[test]
    fn equal_trade_is_zero() {
        assert_eq!(see_of("4k3/8/2p5/3n4/8/4N3/8/4K3 w - - 0 1", "e3d5"), 0);
    }

    #[test]
    fn xray_rook_behind_rook_wins_the_exchange_chain() {
        // Doubled white rooks against one defending rook: the back rook joins through x-ray.
        assert_eq!(see_of("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5"), 100);
    }

    #[test]
    fn king_cannot_recapture_into_a_defended_square() {
        // Qxf7 is defended by the king alone: without support the queen is lost; with the
        // c4 bishop also hitting f7 the king may not recapture and the pawn is simply won.
        assert_eq!(
            see_of("4k3/5p2/8/8/8/8/8/4KQ2 w - - 0 1", "f1f7"),
            100 - 900
        );
        assert_eq!(see_of("4k3/5p2/8/8/2B5/8/8/4KQ2 w - - 0 1", "f1f7"), 100);
    }

    #[test]
    fn pruning_margins_grow_with_depth() {
        let loses = |fen: &str, uci: &str, depth| {
            let pos = Position::from_fen(fen).unwrap();
            let m = pos.parse_uci_move(uci).unwrap();
            loses_too_much(pos.inner().board(), &m, depth)
        };
        // A knight moved where a pawn takes it (−320): pruned up to depth 4 (64 × 4 < 320).
        let attacked = "4k3/8/8/8/4p3/8/8/4K1N1 w - - 0 1";
        assert!(loses(attacked, "g1f3", 4));
        assert!(!loses(attacked, "g1f3", 5));
        assert!(!loses(attacked, "g1h3", 1), "h3 is safe");
        // The queen takes a pawn the c7 pawn defends (−800): pruned while 19 × d² < 800.
        let defended = "4k3/2p5/3p4/8/8/8/3Q4/4K3 w - - 0 1";
        assert!(loses(defended, "d2d6", 6));
        assert!(!loses(defended, "d2d6", 7));
        // A free capture, an equal trade and a promotion are never pruned.
        assert!(!loses("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 1));
        assert!(!loses("4k3/8/2p5/3n4/8/4N3/8/4K3 w - - 0 1", "e3d5", 1));
        assert!(!loses("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q", 1));
    }

    #[test]
    fn en_passant_wins_a_pawn() {
        assert_eq!(see_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), 100);
    }
}
