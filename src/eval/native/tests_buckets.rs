//! A perspective net with output buckets (`net::buckets`) gives libtorch's answers natively,
//! in f32 and in int8, from scratch and along incremental updates whose captures move a
//! board from one bucket to the next.

use super::kernels::Simd;
use super::tests::{
    assert_close, assert_f32_matches_libtorch, assert_int8_exact_and_near_libtorch, int8,
    search_like_calls, torch, walk_then,
};
use super::NativeEvaluator;
use crate::chess::CompactBoard;
use crate::eval::Evaluator;
use crate::net::{output_bucket, NetFile};

/// Parents whose children cross a bucket boundary of eight buckets (6 → 5 and 10 → 9
/// pieces), by captures, a capture-promotion and en passant, beside quiet promotions.
const ENDGAMES: &[&str] = &[
    "r7/1P6/8/3k4/3n4/3R4/3K4/8 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/8/2k5/3pP3/8/8/4K3 b - e3 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
];

/// A seeded random persp-128-ob8 net with the scale of a trained one: the first layer ×4 and
/// the output rows ×8, so that the rows' scores differ by tens of centipawns, and each
/// bucket's bias 50 cp above the one before, so that reading the wrong bucket is far outside
/// every tolerance.
fn bucketed_net() -> NetFile {
    let meta = crate::net::NetMeta::for_preset("persp-128-ob8").unwrap();
    let vs = tch::nn::VarStore::new(tch::Device::Cpu);
    crate::net::seed::seeded(7, || crate::net::NetModule::new(&vs.root(), &meta.arch));
    let mut file = NetFile::from_varstore(meta, &vs).unwrap();
    for (name, t) in &mut file.tensors {
        let scale = match name.as_str() {
            "l0.weight" | "l0.bias" => 4.0,
            "l1.weight" => 8.0,
            _ => 1.0,
        };
        for (i, v) in t.values.iter_mut().enumerate() {
            *v *= scale;
            if name == "l1.bias" {
                *v += 0.5 * i as f32;
            }
        }
    }
    file
}

/// The shared walk and [`ENDGAMES`], as (parent, children) boards.
fn calls_across_stages() -> Vec<(CompactBoard, Vec<CompactBoard>)> {
    walk_then(ENDGAMES)
}

fn bucket(board: &CompactBoard) -> usize {
    output_bucket(board.active_features().count(), 8)
}

#[test]
fn the_test_boards_read_most_buckets_and_cross_between_them() {
    let calls = calls_across_stages();
    let mut read = std::collections::BTreeSet::new();
    let mut crossings = 0;
    for (parent, kids) in calls.iter().chain(&search_like_calls()) {
        for kid in kids {
            read.insert(bucket(kid));
            crossings += usize::from(bucket(kid) != bucket(parent));
        }
    }
    eprintln!("buckets read {read:?}, {crossings} children change bucket");
    assert!(read.len() >= 5, "buckets read: {read:?}");
    assert!(crossings >= 10, "{crossings} children change bucket");
}

#[test]
fn a_bucketed_net_matches_libtorch_from_scratch_and_incrementally() {
    assert_f32_matches_libtorch(&bucketed_net(), "ob8", &calls_across_stages());
}

#[test]
fn a_bucketed_net_stays_within_tolerance_along_a_search_like_sequence() {
    let file = bucketed_net();
    let reference = torch(&file);
    let native = NativeEvaluator::from_net(&file, "ob8").unwrap();
    let (mut want, mut got) = (vec![], vec![]);
    for (i, (parent, kids)) in search_like_calls().iter().enumerate() {
        reference.evaluate(kids, &mut want).unwrap();
        native.evaluate_children(parent, kids, &mut got).unwrap();
        assert_close(&format!("call {i}"), &got, &want);
    }
}

#[test]
fn int8_runs_a_bucketed_net_within_its_bound_and_incrementally_exact() {
    let calls: Vec<_> = calls_across_stages()
        .into_iter()
        .chain(search_like_calls())
        .collect();
    assert_int8_exact_and_near_libtorch(&bucketed_net(), "ob8", &calls);
}

#[test]
fn the_integer_head_names_its_buckets() {
    let quant = int8(&bucketed_net(), "ob8", Simd::detect());
    let scales = quant.quantisation().unwrap();
    assert!(scales.contains("×8 output buckets"), "{scales}");
    let single = super::tests::shipped("cerise-persp-256-0a1a51cd1e3b");
    let scales = int8(&single, "persp", Simd::detect())
        .quantisation()
        .unwrap();
    assert!(!scales.contains("buckets"), "{scales}");
}
