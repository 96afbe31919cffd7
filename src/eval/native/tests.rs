//! The native backend gives libtorch's answers: every shipped net, plain and
//! antisymmetric, from scratch and incrementally, for every kind of move.

use super::kernels::Simd;
use super::NativeEvaluator;
use crate::chess::{CompactBoard, Move, Position};
use crate::eval::Evaluator;
use crate::net::NetFile;
#[cfg(feature = "torch")]
use crate::{
    eval::{NetEvaluator, NetEvaluatorConfig},
    net::DeviceChoice,
};

/// The bar: native and libtorch agree within 0.05 cp.
pub(super) const TOLERANCE_CP: f32 = 0.05;

/// Parents whose moves include every kind: quiet, capture, both castlings, en passant,
/// promotion and capture-promotion (both colours to move), plus checks and a walk.
const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "rnbqkbnr/pppp1ppp/8/8/3PpP2/8/PPP1P1PP/RNBQKBNR b KQkq f3 0 3",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
];

pub(super) fn shipped(name: &str) -> NetFile {
    let path = format!("{}/nets/{name}.safetensors", env!("CARGO_MANIFEST_DIR"));
    crate::net::load(std::path::Path::new(&path)).expect("a shipped net loads")
}

/// Every shipped MLP net in nets/: all three forms, four widths.
pub(super) fn shipped_nets() -> Vec<(&'static str, NetFile)> {
    [
        "cerise-persp-256-a65255c99aad",
        "cerise-persp-256-96cdd861f83e",
        "cerise-persp-256-5e64ad9e9b60",
        "cerise-persp-256-6c18f86880f2",
        "cerise-persp-256-a1bb6e26ffa6",
        "cerise-persp-256-0bdae2e48e18",
        "cerise-persp-256-e1433c91d00b",
        "cerise-persp-256-77403bb2952a",
        "cerise-persp-256-c88b04d1429c",
        "cerise-persp-256-a8ae782569b8",
        "cerise-persp-256-a3fe2e51a962",
        "cerise-persp-256-9d672b8e6100",
        "cerise-persp-256-771c2ac8a3b7",
        "cerise-persp-256-d1b349aab251",
        "cerise-persp-256-0a1a51cd1e3b",
        "cerise-persp-256-be434f7dd428",
        "cerise-persp-256-e3c96c31acd4",
        "cerise-persp-256-76be14d928e2",
        "cerise-narrow-as-07afa601d5e3",
        "cerise-narrow-as-f532d5f2c62e",
        "cerise-narrow-as-4d5eebc5ebf8",
        "cerise-small-as-d95ae74c41f6",
        "cerise-mid-as-c8f40c84a8a6",
        "cerise-small-8ed4031111e2",
        "cerise-small-ef2577c6bef3",
    ]
    .into_iter()
    .map(|n| (n, shipped(n)))
    .collect()
}

#[cfg(feature = "torch")]
pub(super) fn torch(net: &NetFile) -> NetEvaluator {
    NetEvaluator::from_net(
        net.clone(),
        "reference",
        DeviceChoice::Cpu,
        NetEvaluatorConfig::default(),
    )
    .expect("libtorch loads the net")
}

/// Each parent with its children, over the FENs and a deterministic walk of real moves.
pub(super) fn families(walk: usize) -> Vec<(Position, Vec<(Move, CompactBoard)>)> {
    let mut parents: Vec<Position> = FENS
        .iter()
        .map(|f| Position::from_fen(f).expect("test FEN valid"))
        .collect();
    let mut pos = Position::startpos();
    for i in 0..walk {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.halfmoves() > 30 {
            pos = Position::startpos();
            continue;
        }
        pos = pos.play(&moves[(i * 13 + 5) % moves.len()]);
        parents.push(pos.clone());
    }
    parents
        .into_iter()
        .map(|p| {
            let kids = p
                .legal_moves()
                .iter()
                .map(|m| (*m, p.play(m).compact()))
                .collect();
            (p, kids)
        })
        .collect()
}

pub(super) fn assert_close(what: &str, native: &[f32], reference: &[f32]) {
    assert_eq!(native.len(), reference.len(), "{what}");
    for (i, (n, r)) in native.iter().zip(reference).enumerate() {
        assert!(
            (n - r).abs() <= TOLERANCE_CP,
            "{what}, board {i}: native {n} vs libtorch {r}"
        );
    }
}

/// [`families`] of the shared walk, then each of `fens` with its children, as (parent,
/// children) boards.
#[cfg(feature = "torch")]
pub(super) fn walk_then(fens: &[&str]) -> Vec<(CompactBoard, Vec<CompactBoard>)> {
    let extra = fens.iter().map(|f| {
        let p = Position::from_fen(f).expect("test FEN valid");
        let kids = p
            .legal_moves()
            .iter()
            .map(|m| p.play(m).compact())
            .collect();
        (p.compact(), kids)
    });
    families(120)
        .into_iter()
        .map(|(p, kids)| (p.compact(), kids.into_iter().map(|(_, b)| b).collect()))
        .chain(extra)
        .collect()
}

/// Every instruction set this CPU runs, the baseline included.
pub(super) fn simds() -> Vec<Simd> {
    Simd::available()
}

/// `file` natively in f32, from scratch and incrementally, against libtorch on each of
/// `calls`, with every instruction set.
#[cfg(feature = "torch")]
pub(super) fn assert_f32_matches_libtorch(
    file: &NetFile,
    name: &str,
    calls: &[(CompactBoard, Vec<CompactBoard>)],
) {
    let reference = torch(file);
    for simd in simds() {
        let native = NativeEvaluator::with_simd(file, name, simd).unwrap();
        let (mut want, mut scratch, mut incremental) = (vec![], vec![], vec![]);
        for (i, (parent, kids)) in calls.iter().enumerate() {
            reference.evaluate(kids, &mut want).unwrap();
            native.evaluate(kids, &mut scratch).unwrap();
            native
                .evaluate_children(parent, kids, &mut incremental)
                .unwrap();
            let what = format!("{name} {simd:?} parent {i}");
            assert_close(&format!("{what} from scratch"), &scratch, &want);
            assert_close(&format!("{what} incremental"), &incremental, &want);
        }
    }
}

/// `file` in int8 on each of `calls`, with every instruction set: incremental updates give
/// the bits of a refresh, and the scores stay within the int8 bounds of libtorch's.
#[cfg(feature = "torch")]
pub(super) fn assert_int8_exact_and_near_libtorch(
    file: &NetFile,
    name: &str,
    calls: &[(CompactBoard, Vec<CompactBoard>)],
) {
    let reference = torch(file);
    for simd in simds() {
        let quant = int8(file, name, simd);
        let (mut want, mut scratch, mut got) = (vec![], vec![], vec![]);
        let mut deviation = Int8Deviation::default();
        for (i, (parent, kids)) in calls.iter().enumerate() {
            reference.evaluate(kids, &mut want).unwrap();
            quant.evaluate(kids, &mut scratch).unwrap();
            quant.evaluate_children(parent, kids, &mut got).unwrap();
            assert_eq!(
                scratch, got,
                "{name} {simd:?} call {i}: integer updates are exact"
            );
            deviation.add(&got, &want);
        }
        deviation.assert_within_bounds(&format!("{name} {simd:?}: int8 against libtorch"));
    }
}

#[test]
#[cfg(feature = "torch")]
fn native_matches_libtorch_from_scratch_and_incrementally_on_every_shipped_net() {
    let families = families(120);
    for (name, file) in shipped_nets() {
        let reference = torch(&file);
        for simd in simds() {
            let native = NativeEvaluator::with_simd(&file, name, simd).expect("native loads");
            let (mut want, mut scratch, mut incremental) = (vec![], vec![], vec![]);
            for (parent, kids) in &families {
                let boards: Vec<CompactBoard> = kids.iter().map(|(_, b)| *b).collect();
                reference.evaluate(&boards, &mut want).unwrap();
                native.evaluate(&boards, &mut scratch).unwrap();
                native
                    .evaluate_children(&parent.compact(), &boards, &mut incremental)
                    .unwrap();
                let what = format!("{name} {simd:?} {}", parent.fen());
                assert_close(&format!("{what} from scratch"), &scratch, &want);
                assert_close(&format!("{what} incremental"), &incremental, &want);
            }
        }
    }
}

#[test]
fn the_walk_covers_every_move_kind() {
    let (mut capture, mut castle, mut ep, mut promo, mut capture_promo) = (0, 0, 0, 0, 0);
    for (_, kids) in families(120) {
        for (m, _) in kids {
            capture += usize::from(m.is_capture());
            castle += usize::from(m.is_castle());
            ep += usize::from(m.is_en_passant());
            promo += usize::from(m.is_promotion());
            capture_promo += usize::from(m.is_promotion() && m.is_capture());
        }
    }
    for (kind, n) in [
        ("capture", capture),
        ("castle", castle),
        ("en passant", ep),
        ("promotion", promo),
        ("capture-promotion", capture_promo),
    ] {
        assert!(n >= 2, "only {n} {kind} moves among the test children");
    }
}

#[test]
#[cfg(feature = "torch")]
fn a_random_plain_and_a_single_layer_net_match_too() {
    let dir = std::env::temp_dir().join(format!("cerise-native-eq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("small.safetensors");
    crate::net::init_net("small", 7, &path).unwrap();
    let mut nets = vec![crate::net::load(&path).unwrap()];
    // 768 → 1: the first layer is the output.
    let mut linear = nets[0].clone();
    linear.meta.arch = crate::net::ModelArch::Mlp(crate::net::Arch::new(vec![768, 1]).unwrap());
    linear.tensors = vec![
        (
            "l0.weight".to_string(),
            crate::net::file::TensorData {
                shape: vec![1, 768],
                values: (0..768)
                    .map(|i| ((i * 37) % 101) as f32 / 500.0 - 0.1)
                    .collect(),
            },
        ),
        (
            "l0.bias".to_string(),
            crate::net::file::TensorData {
                shape: vec![1],
                values: vec![0.25],
            },
        ),
    ];
    nets.push(linear);
    let families = families(40);
    for file in &nets {
        let reference = torch(file);
        let native = NativeEvaluator::from_net(file, "test").unwrap();
        let (mut want, mut got) = (vec![], vec![]);
        for (parent, kids) in &families {
            let boards: Vec<CompactBoard> = kids.iter().map(|(_, b)| *b).collect();
            reference.evaluate(&boards, &mut want).unwrap();
            native
                .evaluate_children(&parent.compact(), &boards, &mut got)
                .unwrap();
            assert_close(&file.meta.arch.describe(), &got, &want);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unrelated_boards_passed_as_children_are_still_scored_right() {
    let file = shipped("cerise-small-as-d95ae74c41f6");
    let native = NativeEvaluator::from_net(&file, "t").unwrap();
    let boards = crate::chess::sample_boards(64);
    let (mut scratch, mut as_children) = (vec![], vec![]);
    native.evaluate(&boards, &mut scratch).unwrap();
    // The start position is no parent of most of these: far-off boards are rebuilt.
    native
        .evaluate_children(&Position::startpos().compact(), &boards, &mut as_children)
        .unwrap();
    assert_close("unrelated", &as_children, &scratch);
}

#[test]
fn names_itself_native_on_the_cpu() {
    let native = NativeEvaluator::from_net(&shipped("cerise-small-as-d95ae74c41f6"), "x/n.st")
        .expect("loads");
    let info = native.info();
    assert_eq!(info.backend, Some(crate::eval::Backend::Native));
    assert_eq!(info.device, "cpu");
    assert!(info.name.contains("native"), "{}", info.name);
}

/// A search-like sequence of calls: down a long line (so the accumulator stack chains
/// updates past its refresh bound), with null moves and revisits of earlier parents.
pub(super) fn search_like_calls() -> Vec<(CompactBoard, Vec<CompactBoard>)> {
    let mut calls = Vec::new();
    let mut line = vec![Position::startpos()];
    for i in 0..400usize {
        let pos = line.last().expect("never empty").clone();
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.halfmoves() > 60 {
            line.truncate(1);
            continue;
        }
        let kids: Vec<CompactBoard> = moves.iter().map(|m| pos.play(m).compact()).collect();
        calls.push((pos.compact(), kids));
        if i % 5 == 0 {
            if let Some(null) = pos.null_move() {
                let kids = null
                    .legal_moves()
                    .iter()
                    .map(|m| null.play(m).compact())
                    .collect();
                calls.push((null.compact(), kids));
            }
        }
        if i % 7 == 3 && line.len() > 3 {
            line.truncate(line.len() - 2); // back up, as a search returns from a subtree
            continue;
        }
        line.push(pos.play(&moves[(i * 11 + 1) % moves.len()]));
    }
    calls
}

#[test]
#[cfg(feature = "torch")]
fn a_long_search_like_sequence_stays_within_tolerance() {
    let calls = search_like_calls();
    assert!(calls.len() > 300);
    for name in ["cerise-small-as-d95ae74c41f6", "cerise-small-8ed4031111e2"] {
        let file = shipped(name);
        let reference = torch(&file);
        let native = NativeEvaluator::from_net(&file, name).unwrap();
        let (mut want, mut got) = (vec![], vec![]);
        for (i, (parent, kids)) in calls.iter().enumerate() {
            reference.evaluate(kids, &mut want).unwrap();
            native.evaluate_children(parent, kids, &mut got).unwrap();
            assert_close(&format!("{name} call {i}"), &got, &want);
        }
    }
}

/// FNV-1a over the bits of every score `eval` gives on `calls`, in order.
fn score_bits(eval: &NativeEvaluator, calls: &[(CompactBoard, Vec<CompactBoard>)]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut out = vec![];
    for (parent, kids) in calls {
        eval.evaluate_children(parent, kids, &mut out).unwrap();
        for score in &out {
            for byte in score.to_bits().to_le_bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    hash
}

/// FNV-1a over the bits of every score the native backend gives on [`search_like_calls`],
/// one per shipped net: SAME BITS ON EVERY CPU (see `kernels`) made a record, so that the
/// baseline code is checked on a CPU without AVX2 too, and each set against the other
/// where a CPU has both.
const RECORDED_BITS: &[(&str, u64)] = &[
    ("cerise-persp-256-a65255c99aad", 0x29e7_415a_7f62_5afc),
    ("cerise-persp-256-96cdd861f83e", 0x7103_d07f_e2ef_70db),
    ("cerise-persp-256-5e64ad9e9b60", 0x6c4b_d44f_9eee_05e8),
    ("cerise-persp-256-6c18f86880f2", 0xfcbb_85cd_6fac_48cb),
    ("cerise-persp-256-a1bb6e26ffa6", 0xf1c3_d88a_9ea7_da79),
    ("cerise-persp-256-0bdae2e48e18", 0xae6d_6196_f651_ee0f),
    ("cerise-persp-256-e1433c91d00b", 0x5abb_2acb_4e71_3d33),
    ("cerise-persp-256-77403bb2952a", 0xff05_261c_6856_a49c),
    ("cerise-persp-256-c88b04d1429c", 0xba2c_018b_781f_9367),
    ("cerise-persp-256-a8ae782569b8", 0x1970_42ba_2756_cafe),
    ("cerise-persp-256-a3fe2e51a962", 0x9baf_fd8d_1963_6b4f),
    ("cerise-persp-256-9d672b8e6100", 0x1113_194b_d314_c922),
    ("cerise-persp-256-771c2ac8a3b7", 0x8a40_0e52_bc3f_95fa),
    ("cerise-persp-256-d1b349aab251", 0x45dc_5c12_d922_5476),
    ("cerise-persp-256-0a1a51cd1e3b", 0x0762_6c93_b5a1_778f),
    ("cerise-persp-256-be434f7dd428", 0x5041_c248_241b_9df0),
    ("cerise-persp-256-e3c96c31acd4", 0x2c1d_7cfe_2ab9_7de1),
    ("cerise-persp-256-76be14d928e2", 0x51b5_4055_62f7_2fb5),
    ("cerise-narrow-as-07afa601d5e3", 0xc4a2_e8f1_5932_808c),
    ("cerise-narrow-as-f532d5f2c62e", 0x6331_c88e_24a6_5559),
    ("cerise-narrow-as-4d5eebc5ebf8", 0xb8b2_aa01_47a4_fa68),
    ("cerise-small-as-d95ae74c41f6", 0xddda_9e63_1bd3_cb77),
    ("cerise-mid-as-c8f40c84a8a6", 0xc8f0_6c40_ab45_a65d),
    ("cerise-small-8ed4031111e2", 0xcf2f_ff61_0e2a_350d),
    ("cerise-small-ef2577c6bef3", 0xa291_f027_abd3_b1a8),
];

#[test]
fn the_baseline_and_every_present_instruction_set_give_the_recorded_bits() {
    let calls = search_like_calls();
    let mut found = Vec::new();
    for (name, file) in shipped_nets() {
        for simd in simds() {
            let native = NativeEvaluator::with_simd(&file, name, simd).unwrap();
            found.push((name, simd, score_bits(&native, &calls)));
        }
    }
    let recorded: std::collections::BTreeMap<&str, u64> = RECORDED_BITS.iter().copied().collect();
    let wrong: Vec<String> = found
        .iter()
        .filter(|(name, _, hash)| recorded.get(name) != Some(hash))
        .map(|(name, simd, hash)| format!("(\"{name}\", {hash:#018x}) from {simd:?}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "not the recorded bits:\n{}",
        wrong.join("\n")
    );
}

// --- The int8 path (see `quant`) ------------------------------------------------------------

pub(super) fn int8(file: &NetFile, name: &str, simd: Simd) -> NativeEvaluator {
    NativeEvaluator::with(file, name, simd, super::Arithmetic::Int8).expect("int8 covers the net")
}

/// The int8 path's error against the f32 reference on the tests' boards (every kind of
/// move, a search-like sequence); `cerise net compare --precision int8` measures it on game
/// positions (bench/records/integer-inference.md).
const INT8_MAX_CP: f32 = 40.0;
const INT8_MEAN_CP: f64 = 6.0;

/// The worst and mean |int8 − reference| over every score a test compares, checked against
/// the bounds above once at the end (one outlier or a drift both fail).
#[derive(Default)]
pub(super) struct Int8Deviation {
    worst: f32,
    sum: f64,
    n: u64,
}

impl Int8Deviation {
    pub(super) fn add(&mut self, got: &[f32], want: &[f32]) {
        assert_eq!(got.len(), want.len(), "one score for each board");
        for (g, w) in got.iter().zip(want) {
            let d = (g - w).abs();
            self.worst = self.worst.max(d);
            self.sum += f64::from(d);
            self.n += 1;
        }
    }

    /// Prints the figures (run the tests with --nocapture to read them) and fails when either
    /// passes its bound.
    pub(super) fn assert_within_bounds(&self, what: &str) {
        assert!(self.n > 0, "{what}: no scores compared");
        let mean = self.sum / self.n as f64;
        let line = format!(
            "{what}: max {:.2} cp, mean {mean:.3} cp over {} scores",
            self.worst, self.n
        );
        eprintln!("{line}");
        assert!(self.worst <= INT8_MAX_CP && mean <= INT8_MEAN_CP, "{line}");
    }
}

#[test]
fn int8_stays_within_its_bound_of_the_f32_reference_on_every_shipped_net() {
    let calls = search_like_calls();
    for (name, file) in shipped_nets() {
        let reference = NativeEvaluator::from_net(&file, name).unwrap();
        let quant = int8(&file, name, Simd::detect());
        let (mut want, mut got) = (vec![], vec![]);
        let mut deviation = Int8Deviation::default();
        for (parent, kids) in &calls {
            reference.evaluate(kids, &mut want).unwrap();
            quant.evaluate_children(parent, kids, &mut got).unwrap();
            deviation.add(&got, &want);
        }
        deviation.assert_within_bounds(&format!("{name}: int8 against f32"));
    }
}

/// Integer updates are exact: a child updated from its parent (down a long chain) gets the
/// bits of the same child built from scratch, on every instruction set.
#[test]
fn int8_incremental_scores_equal_scores_from_scratch_bit_for_bit() {
    let calls = search_like_calls();
    let file = shipped("cerise-narrow-as-4d5eebc5ebf8");
    for simd in simds() {
        let quant = int8(&file, "narrow", simd);
        let (mut scratch, mut incremental) = (vec![], vec![]);
        for (i, (parent, kids)) in calls.iter().enumerate() {
            quant.evaluate(kids, &mut scratch).unwrap();
            quant
                .evaluate_children(parent, kids, &mut incremental)
                .unwrap();
            assert_eq!(scratch, incremental, "{simd:?} call {i}");
        }
    }
}

/// FNV-1a of every int8 score on [`search_like_calls`], as [`RECORDED_BITS`] for f32.
const RECORDED_INT8_BITS: &[(&str, u64)] = &[
    ("cerise-persp-256-a65255c99aad", 0x9d08_008a_2ef3_1dae),
    ("cerise-persp-256-96cdd861f83e", 0x4e79_c18a_6513_310f),
    ("cerise-persp-256-5e64ad9e9b60", 0x4e90_aebc_1dd9_fc17),
    ("cerise-persp-256-6c18f86880f2", 0xa7cc_94e3_ee91_cc14),
    ("cerise-persp-256-a1bb6e26ffa6", 0x524a_4b4d_4fdf_b03d),
    ("cerise-persp-256-0bdae2e48e18", 0xf58d_af22_f0fb_0565),
    ("cerise-persp-256-e1433c91d00b", 0xb6f4_247a_4050_9b88),
    ("cerise-persp-256-77403bb2952a", 0xc879_780d_eeaf_72cb),
    ("cerise-persp-256-c88b04d1429c", 0xf806_524c_cdb3_a37a),
    ("cerise-persp-256-a8ae782569b8", 0x2ec3_9b53_709f_fde3),
    ("cerise-persp-256-a3fe2e51a962", 0x7b21_6051_8aa2_e2d0),
    ("cerise-persp-256-9d672b8e6100", 0xb2aa_7a4b_8c88_c849),
    ("cerise-persp-256-771c2ac8a3b7", 0x7e9f_f4c2_6bb2_3bac),
    ("cerise-persp-256-d1b349aab251", 0xdf54_1e8e_3d02_adfd),
    ("cerise-persp-256-0a1a51cd1e3b", 0x0ffb_a864_ad41_6031),
    ("cerise-persp-256-be434f7dd428", 0xfde2_b0e2_dc69_8553),
    ("cerise-persp-256-e3c96c31acd4", 0xfebf_9d75_71cd_2ef7),
    ("cerise-persp-256-76be14d928e2", 0x37e0_3e92_09c3_812b),
    ("cerise-narrow-as-07afa601d5e3", 0x5939_1182_fa1a_f724),
    ("cerise-narrow-as-f532d5f2c62e", 0x1c0f_a037_1564_0ad5),
    ("cerise-narrow-as-4d5eebc5ebf8", 0x9388_f52e_ca39_8d88),
    ("cerise-small-as-d95ae74c41f6", 0xfef4_ef6d_5fc4_4dcc),
    ("cerise-mid-as-c8f40c84a8a6", 0x85be_0e28_e240_6c3d),
    ("cerise-small-8ed4031111e2", 0xe058_3336_12b4_b136),
    ("cerise-small-ef2577c6bef3", 0xfd2c_40cb_6035_5102),
];

#[test]
fn every_int8_kernel_gives_the_recorded_bits() {
    let calls = search_like_calls();
    let mut wrong = Vec::new();
    let recorded: std::collections::BTreeMap<&str, u64> =
        RECORDED_INT8_BITS.iter().copied().collect();
    for (name, file) in shipped_nets() {
        for simd in simds() {
            let hash = score_bits(&int8(&file, name, simd), &calls);
            if recorded.get(name) != Some(&hash) {
                wrong.push(format!("(\"{name}\", {hash:#018x}) from {simd:?}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "not the recorded bits:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn int8_names_its_arithmetic_and_kernels_and_refuses_what_it_cannot_run() {
    let file = shipped("cerise-narrow-as-4d5eebc5ebf8");
    let quant = int8(&file, "n", Simd::detect());
    assert_eq!(quant.arithmetic(), super::Arithmetic::Int8);
    let name = quant.info().name;
    assert!(
        name.contains("native int8") && name.contains(Simd::detect().name()),
        "{name}"
    );
    assert!(quant.quantisation().unwrap().contains("i16 accumulators"));
    let f32_name = NativeEvaluator::from_net(&file, "n").unwrap().info().name;
    assert!(f32_name.contains("native f32"), "{f32_name}");
}
