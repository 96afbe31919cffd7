//! Internal integer scores, mate encoding and conversion to the reported [`Score`].

use super::params::MAX_PLY;
use super::report::Score;

/// Score of being checkmated at the root; mated at ply `p` scores `-(MATE - p)`.
pub const MATE: i32 = 32_000;
/// Scores beyond this magnitude are mate scores.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Larger than any real score: the initial window.
pub const INFINITY: i32 = MATE + 1;
pub const DRAW: i32 = 0;
/// A tablebase win at the root; `TB_WIN - ply` at a ply, so nearer wins score higher.
/// Above any evaluation (clamped to `EVAL_LIMIT`) at every ply, and below every mate.
pub const TB_WIN: i32 = 25_000;
/// Scores beyond this magnitude are tablebase results or mates: both count plies from the
/// root, so the TT stores them relative to the node.
pub const TB_BOUND: i32 = TB_WIN - MAX_PLY as i32;

pub fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

pub fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// Plies from the root to the mate, if `score` is a mate score.
pub fn mate_plies(score: i32) -> Option<i32> {
    is_mate(score).then(|| MATE - score.abs())
}

/// Reported score: mates in whole moves, negative when the side to move is mated.
pub fn to_report(score: i32) -> Score {
    match mate_plies(score) {
        Some(plies) if score > 0 => Score::Mate((plies + 1) / 2),
        Some(plies) => Score::Mate(-(plies / 2)),
        None => Score::Cp(score),
    }
}

/// The TT stores mate and tablebase scores relative to the node, so they stay right at
/// another ply.
pub fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_BOUND {
        score + ply as i32
    } else if score <= -TB_BOUND {
        score - ply as i32
    } else {
        score
    }
}

pub fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_BOUND {
        score - ply as i32
    } else if score <= -TB_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tablebase_scores_clear_every_eval_and_stay_below_mates() {
        use crate::search::params::EVAL_LIMIT;
        const { assert!(TB_BOUND > EVAL_LIMIT && TB_WIN < MATE_BOUND) };
        // Relative to the node in the TT, as mates are.
        let at_root = TB_WIN - 5;
        assert_eq!(from_tt(to_tt(at_root, 3), 7), TB_WIN - 9);
        assert_eq!(from_tt(to_tt(-at_root, 3), 7), -(TB_WIN - 9));
        assert_eq!(from_tt(to_tt(EVAL_LIMIT, 3), 7), EVAL_LIMIT);
    }

    #[test]
    fn mate_reports_in_moves_with_sign() {
        // We mate with our first move: mated side is at ply 1.
        assert_eq!(to_report(-mated_in(1)), Score::Mate(1));
        assert_eq!(to_report(-mated_in(3)), Score::Mate(2));
        // We are mated after our move and theirs: ply 2.
        assert_eq!(to_report(mated_in(2)), Score::Mate(-1));
        assert_eq!(to_report(mated_in(4)), Score::Mate(-2));
        assert_eq!(to_report(35), Score::Cp(35));
    }

    #[test]
    fn tt_adjustment_round_trips_and_is_node_relative() {
        // Scores in search are root-relative: a mate 5 plies from the root, seen at ply 2.
        let root_relative = -mated_in(5);
        let stored = to_tt(root_relative, 2);
        // Stored relative to the node: 3 plies to go.
        assert_eq!(MATE - stored, 3);
        assert_eq!(from_tt(stored, 2), root_relative);
        // The same position reached at ply 4 mates at ply 7.
        assert_eq!(from_tt(stored, 4), -mated_in(7));
        assert_eq!(from_tt(to_tt(mated_in(6), 3), 1), mated_in(4));
        assert_eq!(from_tt(to_tt(-123, 7), 7), -123);
    }
}
