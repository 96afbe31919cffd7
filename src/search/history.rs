//! The search's move-history tables and their updates: the butterfly history (by side,
//! from, to), the continuation history (by (piece, destination) pairs) and the killers.
//! [`super::thread`] owns the tables, [`super::alphabeta`] updates them and
//! [`super::ordering`] reads them.

use super::params::{HISTORY_BONUS_MAX, HISTORY_BONUS_OFFSET, HISTORY_BONUS_SLOPE, HISTORY_MAX};
use crate::chess::{Color, Move, Role};

/// The index of a role in per-role tables: pawn 0 … king 5.
pub fn role_index(role: Role) -> usize {
    role as usize - 1
}

/// Number of (moving piece, destination) pairs: 2 colours × 6 roles × 64 squares.
pub const PIECE_TO: usize = 768;

/// One continuation-history row: a quiet reply's score by its (piece, destination), after a
/// given earlier move.
pub type ContRow = [i32; PIECE_TO];

/// The (piece, destination) index of `m` played by `mover`, the key of continuation history.
pub fn piece_to(mover: Color, m: &Move) -> usize {
    (side(mover) * 6 + role_index(m.role())) * 64 + m.to() as usize
}

/// The index of a colour in the per-side tables: the butterfly history and [`piece_to`].
pub fn side(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn squares(m: &Move) -> (usize, usize) {
    (m.from().map_or(0, |s| s as usize), m.to() as usize)
}

pub fn history_of(table: &[[i32; 64]; 64], m: &Move) -> i32 {
    let (from, to) = squares(m);
    table[from][to]
}

/// A quiet move's history score: its butterfly entry plus its entries in the continuation
/// rows of the moves one and two plies up, where there were such moves. Ordering ranks the
/// quiets by it and late-move reductions lean on it.
pub fn quiet_score(
    butterfly: &[[i32; 64]; 64],
    cont: [Option<&ContRow>; 2],
    mover: Color,
    m: &Move,
) -> i32 {
    let reply = piece_to(mover, m);
    history_of(butterfly, m) + cont.iter().flatten().map(|row| row[reply]).sum::<i32>()
}

/// Rewards (or, with a negative bonus, penalises) `m`'s butterfly entry by [`gravity`].
pub fn update_history(table: &mut [[i32; 64]; 64], m: &Move, bonus: i32) {
    let (from, to) = squares(m);
    gravity(&mut table[from][to], bonus);
}

/// Gravity update, shared by the butterfly and continuation histories: the entry moves
/// towards ±HISTORY_MAX and never passes it.
pub fn gravity(entry: &mut i32, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
}

/// The history bonus of a quiet cutoff at `depth` (and the malus of the quiets tried before
/// it): linear in depth, capped, and positive from depth 1.
pub fn history_bonus(depth: i32) -> i32 {
    (HISTORY_BONUS_SLOPE * depth - HISTORY_BONUS_OFFSET).clamp(1, HISTORY_BONUS_MAX)
}

pub fn push_killer(killers: &mut [Option<Move>; 2], m: Move) {
    if killers[0] != Some(m) {
        killers[1] = killers[0];
        killers[0] = Some(m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Square;

    #[test]
    fn history_stays_bounded() {
        let mut table = [[0; 64]; 64];
        let m = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        };
        for _ in 0..1000 {
            update_history(&mut table, &m, 400);
        }
        assert!(history_of(&table, &m) <= HISTORY_MAX);
        assert!(history_of(&table, &m) > HISTORY_MAX / 2);
    }

    #[test]
    fn the_bonus_grows_with_depth_up_to_its_cap() {
        assert!(history_bonus(0) >= 1);
        for d in 1..40 {
            assert!(history_bonus(d) <= history_bonus(d + 1));
            assert!(history_bonus(d) <= HISTORY_BONUS_MAX);
        }
        assert_eq!(history_bonus(1), 50);
        assert_eq!(history_bonus(3), 650);
        assert_eq!(history_bonus(20), HISTORY_BONUS_MAX);
    }

    #[test]
    fn killers_shift_and_do_not_repeat() {
        let m = |to| Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to,
            promotion: None,
        };
        let mut killers = [None; 2];
        push_killer(&mut killers, m(Square::F3));
        push_killer(&mut killers, m(Square::H3));
        assert_eq!(killers, [Some(m(Square::H3)), Some(m(Square::F3))]);
        // The first killer again changes nothing.
        push_killer(&mut killers, m(Square::H3));
        assert_eq!(killers, [Some(m(Square::H3)), Some(m(Square::F3))]);
    }

    #[test]
    fn piece_to_keeps_colours_and_roles_apart() {
        let knight = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        };
        let white = piece_to(Color::White, &knight);
        let black = piece_to(Color::Black, &knight);
        assert_ne!(white, black);
        assert!(white < PIECE_TO && black < PIECE_TO);
        // (colour × 6 + role) × 64 + destination, the knight being role 1.
        assert_eq!(white, 64 + Square::F3 as usize);
        assert_eq!(black, (6 + 1) * 64 + Square::F3 as usize);
    }
}
