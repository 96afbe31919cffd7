//! Singular extensions and multi-cut: what a node does with its TT move once a search of
//! every other move, to about half the depth and against a bound a little below the TT
//! score, has told whether another move comes close.
//!
//! - None does: the TT move is *singular*, the one move that holds the node, and is searched
//!   a ply deeper (two at a non-PV node when the others fall far short).
//! - One does, and that bound is already at least beta: two moves beat beta, so the node is
//!   cut at once (multi-cut).
//! - One does, and the TT score itself beats beta: the TT move is not special, and is
//!   searched a ply shallower (a negative extension).
//!
//! The test itself is a search of the same node with the TT move excluded
//! ([`super::alphabeta::search`] with `ThreadData::excluded` set). This file holds only the
//! decisions, so that they can be tested without a search.

use super::params::{
    MAX_PLY, SE_DOUBLE_LIMIT, SE_DOUBLE_MARGIN, SE_MARGIN, SE_MIN_DEPTH, SE_TT_DEPTH_SLACK,
};
use super::score::TB_BOUND;
use super::tt::{TtBound, TtEntry};

/// The bound the singular test searches the other moves against, when the node's TT entry
/// makes its move a candidate: the node deep enough, the entry a lower or exact bound from
/// nearly as deep, and its score no mate or tablebase result (whose margin would mean
/// nothing). The ply bound keeps extensions, like the check extension, off the end of the
/// ply stack.
pub fn singular_beta(entry: &TtEntry, depth: i32, ply: usize) -> Option<i32> {
    let candidate = depth >= SE_MIN_DEPTH
        && ply < MAX_PLY / 2
        && entry.bound != TtBound::Upper
        && entry.depth >= depth - SE_TT_DEPTH_SLACK
        && entry.score.abs() < TB_BOUND;
    candidate.then(|| entry.score - SE_MARGIN * depth)
}

/// The depth of the singular test at a node of `depth`.
pub fn singular_depth(depth: i32) -> i32 {
    (depth - 1) / 2
}

/// How often each verdict came, per search thread: for tests, and to see how often the
/// tests pay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub tests: u64,
    pub extended: u64,
    pub doubled: u64,
    pub shortened: u64,
    pub cut: u64,
}

impl Tally {
    pub fn count(&mut self, v: Verdict) {
        self.tests += 1;
        match v {
            Verdict::Extend(1) => self.extended += 1,
            Verdict::Extend(2) => self.doubled += 1,
            Verdict::Extend(p) if p < 0 => self.shortened += 1,
            Verdict::Extend(_) => {}
            Verdict::MultiCut(_) => self.cut += 1,
        }
    }
}

/// What the singular test's result means for the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Search the TT move this many plies deeper (negative: shallower).
    Extend(i32),
    /// Return this score at once: another move beats beta too.
    MultiCut(i32),
}

/// Where the test scored `score` against `singular_beta`, at a node with window top `beta`
/// whose TT score is `tt_score`; `double_extended` is how many double extensions the path
/// from the root has taken, which bounds them (each one grows the tree by a ply).
pub fn verdict(
    score: i32,
    singular_beta: i32,
    beta: i32,
    tt_score: i32,
    pv_node: bool,
    double_extended: u8,
) -> Verdict {
    if score < singular_beta {
        let far_below = score < singular_beta - SE_DOUBLE_MARGIN;
        if !pv_node && far_below && double_extended < SE_DOUBLE_LIMIT {
            Verdict::Extend(2)
        } else {
            Verdict::Extend(1)
        }
    } else if !pv_node && singular_beta >= beta {
        Verdict::MultiCut(singular_beta)
    } else if tt_score >= beta {
        Verdict::Extend(-1)
    } else {
        Verdict::Extend(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::MATE;

    fn entry(bound: TtBound, depth: i32, score: i32) -> TtEntry {
        TtEntry {
            mv: 1,
            score,
            depth,
            bound,
        }
    }

    #[test]
    fn only_a_deep_enough_lower_or_exact_bound_is_a_candidate() {
        let margin = SE_MARGIN * 8;
        let deep = SE_TT_DEPTH_SLACK;
        assert_eq!(
            singular_beta(&entry(TtBound::Lower, 8 - deep, 500), 8, 3),
            Some(500 - margin)
        );
        assert_eq!(
            singular_beta(&entry(TtBound::Exact, 9, -40), 8, 3),
            Some(-40 - margin)
        );
        assert_eq!(singular_beta(&entry(TtBound::Upper, 9, 500), 8, 3), None);
        assert_eq!(
            singular_beta(&entry(TtBound::Lower, 7 - deep, 500), 8, 3),
            None
        );
        assert_eq!(
            singular_beta(&entry(TtBound::Lower, 9, MATE - 9), 8, 3),
            None
        );
        let shallow = SE_MIN_DEPTH - 1;
        assert_eq!(
            singular_beta(&entry(TtBound::Lower, 9, 500), shallow, 3),
            None
        );
        assert_eq!(
            singular_beta(&entry(TtBound::Lower, 9, 500), 8, MAX_PLY / 2),
            None
        );
    }

    #[test]
    fn the_verdict_extends_cuts_or_shortens() {
        // (score, singular beta, beta, tt score, pv, double extensions so far)
        let far = SE_DOUBLE_MARGIN + 1;
        assert_eq!(verdict(99, 100, 50, 110, true, 0), Verdict::Extend(1));
        assert_eq!(
            verdict(100 - far, 100, 50, 110, true, 0),
            Verdict::Extend(1)
        );
        assert_eq!(
            verdict(100 - far, 100, 50, 110, false, 0),
            Verdict::Extend(2)
        );
        let limit = SE_DOUBLE_LIMIT;
        assert_eq!(
            verdict(100 - far, 100, 50, 110, false, limit),
            Verdict::Extend(1)
        );
        // Another move reaches the bound, itself above beta: cut, but never at a PV node.
        assert_eq!(verdict(100, 100, 90, 110, false, 0), Verdict::MultiCut(100));
        assert_eq!(verdict(100, 100, 90, 110, true, 0), Verdict::Extend(-1));
        // Above the bound but below beta: shortened only when the TT score beats beta.
        assert_eq!(verdict(100, 100, 105, 110, false, 0), Verdict::Extend(-1));
        assert_eq!(verdict(100, 100, 120, 110, false, 0), Verdict::Extend(0));
    }
}
