//! A king-file mirrored perspective net (`net::mirror`) gives libtorch's answers natively, in
//! f32 and in int8, from scratch and along incremental updates, including the children whose
//! king crosses the d/e line (which are rebuilt, not updated).

use super::tests::{
    assert_close, assert_f32_matches_libtorch, assert_int8_exact_and_near_libtorch, int8,
    search_like_calls, shipped, walk_then,
};
use super::NativeEvaluator;
use crate::chess::CompactBoard;
use crate::eval::Evaluator;
use crate::net::mirror::{crosses, flip_board};
use crate::net::{ModelArch, NetFile, KING_MIRROR_ENCODING};

/// Parents with king moves over the d/e line: both sides castling long and short, kings on
/// the d- and e-files in endgames, Black to move as well as White.
const CROSSINGS: &[&str] = &[
    "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1",
    "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R b KQkq - 0 1",
    "8/2p5/8/3k4/8/4K3/5P2/8 w - - 0 1",
    "8/2p5/8/3k4/8/4K3/5P2/8 b - - 0 1",
    "3k4/8/8/8/8/8/8/4K2R w K - 0 1",
    "4k3/3p4/8/8/8/8/3P4/3K4 b - - 0 1",
];

/// The shipped generation-10 net read king-file mirrored: real weights, so that the views'
/// scores are at a trained net's scale, and a mirrored net's (different) answers.
fn mirrored_net() -> NetFile {
    let mut file = shipped("cerise-persp-256-d1b349aab251");
    let ModelArch::Mlp(arch) = &file.meta.arch else {
        panic!("the default is an MLP");
    };
    file.meta.arch = ModelArch::Mlp(arch.clone().mirrored().expect("a perspective net"));
    file.meta.encoding = KING_MIRROR_ENCODING.to_string();
    file
}

/// The shared walk, [`CROSSINGS`] and a search-like sequence, as (parent, children) boards.
fn calls() -> Vec<(CompactBoard, Vec<CompactBoard>)> {
    let mut calls = walk_then(CROSSINGS);
    calls.extend(search_like_calls());
    calls
}

/// Children whose king crosses the d/e line, counted as the native pass finds them.
fn crossing_children(calls: &[(CompactBoard, Vec<CompactBoard>)]) -> usize {
    let king_square = |b: &CompactBoard, code: u8| b.0.iter().position(|&c| c == code);
    calls
        .iter()
        .flat_map(|(parent, kids)| kids.iter().map(move |k| (parent, k)))
        .filter(|(parent, kid)| {
            // The child's other king is the parent's own, seen with ranks flipped (the
            // file is the same).
            let before = king_square(parent, 6).map(|s| s % 8 >= 4);
            let after = king_square(kid, 12).map(|s| s % 8 >= 4);
            before != after
        })
        .count()
}

#[test]
fn the_test_boards_move_kings_over_the_d_e_line() {
    let n = crossing_children(&calls());
    assert!(n >= 20, "{n} children cross");
    // The rule the native pass applies, on one of them: Kd5-e5.
    let king = |sq: usize| 5 * 64 + sq;
    assert!(crosses(&[king(36)], &[king(35)]));
}

#[test]
fn a_mirrored_net_matches_libtorch_from_scratch_and_incrementally() {
    assert_f32_matches_libtorch(&mirrored_net(), "hm", &calls());
}

#[test]
fn int8_runs_a_mirrored_net_within_its_bound_and_incrementally_exact() {
    assert_int8_exact_and_near_libtorch(&mirrored_net(), "hm", &calls());
}

#[test]
fn a_mirrored_net_scores_a_board_and_its_flip_alike_and_unlike_the_plain_net() {
    let file = mirrored_net();
    let plain =
        NativeEvaluator::from_net(&shipped("cerise-persp-256-d1b349aab251"), "plain").unwrap();
    let native = NativeEvaluator::from_net(&file, "hm").unwrap();
    let quant = int8(&file, "hm", super::kernels::Simd::detect());
    let boards = crate::chess::sample_boards(300);
    let flipped: Vec<CompactBoard> = boards.iter().map(flip_board).collect();
    let (mut a, mut b, mut qa, mut qb, mut p) = (vec![], vec![], vec![], vec![], vec![]);
    native.evaluate(&boards, &mut a).unwrap();
    native.evaluate(&flipped, &mut b).unwrap();
    quant.evaluate(&boards, &mut qa).unwrap();
    quant.evaluate(&flipped, &mut qb).unwrap();
    plain.evaluate(&boards, &mut p).unwrap();
    assert_close("f32, a board against its flip", &a, &b);
    // The same columns summed in another order: exact in integers.
    assert_eq!(qa, qb, "int8, a board against its flip");
    let differ = a
        .iter()
        .zip(&p)
        .filter(|(x, y)| (*x - *y).abs() > 1.0)
        .count();
    assert!(
        differ > 100,
        "only {differ} of 300 boards score differently unmirrored"
    );
}
