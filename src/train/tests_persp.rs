//! The perspective step trains what the plain sparse path trains: the same records and
//! boards, the same loss, the same gradients and, after a few Adam steps, the same weights,
//! to float rounding. The plain path (every board whole through `Mlp::f_forward_sparse`,
//! autograd throughout) is what trained every net before 2026-11-27.

use super::config::OptimKind;
use super::model::TrainNet;
use super::objective::Objective;
use super::optim::Optimiser;
use super::value::{
    make_batch, make_in, make_native_batch, make_persp_batch, persp_boards, Inputs, Layout,
    ValueObjective,
};
use crate::data::rng::SplitMix64;
use crate::data::selfplay::{Outcome, SelfPlayRecord};
use crate::net::NetMeta;
use shakmaty::{Chess, Position as _};
use tch::Device;

/// Records of a few random games: every position with a random legal move as "best", a
/// random score and the game's (random) result.
fn records(games: u32, plies: u16) -> Vec<SelfPlayRecord> {
    let mut rng = SplitMix64::new(17);
    let mut out = Vec::new();
    for game in 0..games {
        let result = [Outcome::WhiteWins, Outcome::Draw, Outcome::BlackWins][rng.below(3)];
        let mut pos = Chess::default();
        for ply in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let best = moves[rng.below(moves.len())];
            let score = rng.below(1200) as i16 - 600;
            out.push(SelfPlayRecord::new(&pos, score, &best, ply, result, game));
            pos.play_unchecked(best);
        }
    }
    out
}

fn objective(layout: Layout, triplets: bool) -> ValueObjective {
    ValueObjective {
        lambda: 0.5,
        valid_lambda: 0.5,
        scale: 400.0,
        triplet_weight: if triplets { 0.1 } else { 0.0 },
        kappa: 1.0,
        cp_per_unit: 100.0,
        layout,
        mirror: false,
    }
}

/// [`objective`] for a net of `preset` (king-file mirrored or not).
fn objective_for(preset: &str, layout: Layout, triplets: bool) -> ValueObjective {
    ValueObjective {
        mirror: preset.ends_with("-hm"),
        ..objective(layout, triplets)
    }
}

/// The largest |a − b| over the named gradients (or parameters) of two nets, and the
/// largest |a|, to scale it.
fn compare(a: &TrainNet, b: &TrainNet, grads: bool) -> (f64, f64) {
    let (va, vb) = (a.vs.variables(), b.vs.variables());
    let (mut diff, mut scale) = (0f64, 0f64);
    for (name, ta) in &va {
        let tb = &vb[name];
        let (x, y) = if grads {
            (ta.grad(), tb.grad())
        } else {
            (ta.shallow_clone(), tb.shallow_clone())
        };
        assert!(x.defined() && y.defined(), "{name} has a gradient in both");
        diff = diff.max((&x - &y).abs().max().double_value(&[]));
        scale = scale.max(x.abs().max().double_value(&[]));
    }
    (diff, scale)
}

/// The perspective layout holds the plain batch's records, targets and boards exactly.
#[test]
fn the_perspective_batch_holds_the_plain_batch() {
    let recs = records(6, 70);
    for triplets in [true, false] {
        let plain = make_batch(&recs, triplets, 5);
        let (boards, score, result) = persp_boards(&recs, triplets, false, 5);
        assert_eq!(boards.n, plain.n);
        assert_eq!((score, result), (plain.score.clone(), plain.result.clone()));
        let Inputs::Boards(whole) = &plain.inputs else {
            panic!("make_batch makes whole boards");
        };
        let mut want = Vec::new();
        for run in super::persp_batch::runs(&whole.offsets, whole.indices.len()) {
            let mut f = whole.indices[run].to_vec();
            f.sort_unstable();
            want.push(f);
        }
        assert_eq!(boards.board_features(), want, "triplets {triplets}");
        let native = make_native_batch(&recs, triplets, false, 5);
        let Inputs::Native(host) = &native.inputs else {
            panic!("make_native_batch makes the host layout");
        };
        assert_eq!(
            (native.n, &native.score, &native.result),
            (plain.n, &plain.score, &plain.result)
        );
        assert_eq!(host.board_features(), want, "native, triplets {triplets}");
        assert_eq!(host.pieces, boards.pieces);
        // Mirrored: each board's features in its block, read off its kings.
        let block = |f: &[i64]| {
            let right = |lo: i64| f.iter().any(|&x| (lo..lo + 64).contains(&x) && x % 8 >= 4);
            2 * usize::from(right(5 * 64)) + usize::from(right(11 * 64))
        };
        let rows: Vec<Vec<i64>> = want
            .iter()
            .map(|f| f.iter().map(|x| x + (block(f) * 768) as i64).collect())
            .collect();
        let (mirrored, _, _) = persp_boards(&recs, triplets, true, 5);
        assert_eq!(
            mirrored.board_features(),
            rows,
            "mirrored, triplets {triplets}"
        );
        assert_eq!(mirrored.pieces, boards.pieces);
        if triplets {
            // Some child's king crosses the d/e line: its bag holds whole boards.
            let long = super::persp_batch::runs(&mirrored.d_offsets, mirrored.d_indices.len())
                .filter(|run| run.len() > 8)
                .count();
            assert!(long > 0, "no child crosses");
        }
    }
}

/// Same loss and gradients step by step, and the same weights after Adam's steps, for a
/// single-output and a bucketed perspective net, with and without triplets.
#[test]
fn the_perspective_step_trains_what_the_plain_path_trains() {
    trains_what_the_plain_path_trains(Layout::Persp);
}

/// The same for the native step.
#[test]
fn the_native_step_trains_what_the_plain_path_trains() {
    trains_what_the_plain_path_trains(Layout::Native);
}

fn trains_what_the_plain_path_trains(layout: Layout) {
    let recs = records(8, 90);
    let steps = 4;
    for preset in ["persp-128", "persp-128-ob8", "persp-256-hm"] {
        for triplets in [true, false] {
            let meta = NetMeta::for_preset(preset).expect("preset");
            let plain_net = TrainNet::fresh(meta.clone(), 3, Device::Cpu);
            let persp_net = TrainNet::fresh(meta, 3, Device::Cpu);
            let adam = |net: &TrainNet| Optimiser::new(&net.vs, OptimKind::Adam, 0.9, false, 0.0);
            let (mut plain_opt, mut persp_opt) = (adam(&plain_net), adam(&persp_net));
            let (plain_obj, persp_obj) = (
                objective_for(preset, Layout::Boards, triplets),
                objective_for(preset, layout, triplets),
            );
            for (step, chunk) in recs.chunks(recs.len() / steps).take(steps).enumerate() {
                let what = format!("{layout:?} {preset}, triplets {triplets}, step {step}");
                let plain = make_batch(chunk, triplets, 9);
                let persp = make_in(layout, chunk, triplets, persp_obj.mirror, 9);
                plain_opt.zero_grad();
                persp_opt.zero_grad();
                let lp = plain_obj
                    .loss_and_grads(&plain_net, &plain)
                    .double_value(&[]);
                let lq = persp_obj
                    .loss_and_grads(&persp_net, &persp)
                    .double_value(&[]);
                assert!(
                    (lp - lq).abs() < 1e-6 * lp.abs().max(1.0),
                    "{what}: {lp} {lq}"
                );
                let (diff, scale) = compare(&plain_net, &persp_net, true);
                assert!(scale > 0.0, "{what}: some gradient is not zero");
                assert!(
                    diff <= 1e-5 * scale,
                    "{what}: gradients differ by {diff} of {scale}"
                );
                plain_opt.step(1e-3);
                persp_opt.step(1e-3);
            }
            let (diff, _) = compare(&plain_net, &persp_net, false);
            assert!(
                diff < 1e-5,
                "{preset}: weights differ by {diff} after {steps} steps"
            );
        }
    }
}

/// The perspective batch under autograd all the way (`loss`, as validation runs it) gives
/// the loss and gradients of the hand-written backward.
#[test]
fn the_hand_written_backward_equals_autograd() {
    let recs = records(4, 80);
    for preset in ["persp-128", "persp-256-hm"] {
        let meta = NetMeta::for_preset(preset).expect("preset");
        let a = TrainNet::fresh(meta.clone(), 4, Device::Cpu);
        let b = TrainNet::fresh(meta, 4, Device::Cpu);
        let obj = objective_for(preset, Layout::Persp, true);
        let batch = make_persp_batch(&recs, true, obj.mirror, 1);
        let la = obj.loss(&a, &batch);
        la.backward();
        let lb = obj.loss_and_grads(&b, &batch);
        let diff = (&la - &lb).abs().double_value(&[]);
        assert!(diff < 1e-6, "{preset}: losses differ by {diff}");
        let (diff, scale) = compare(&a, &b, true);
        assert!(
            diff <= 1e-5 * scale,
            "{preset}: gradients differ by {diff} of {scale}"
        );
    }
}

/// Validation's scores (no graph) of the native layout are the plain path's.
#[test]
fn the_native_forward_scores_what_the_plain_path_scores() {
    let recs = records(5, 80);
    for preset in ["persp-128", "persp-128-ob8", "persp-256-hm"] {
        let net = TrainNet::fresh(NetMeta::for_preset(preset).expect("preset"), 6, Device::Cpu);
        for triplets in [true, false] {
            let plain = objective_for(preset, Layout::Boards, triplets);
            let native = objective_for(preset, Layout::Native, triplets);
            let a = plain.validate(&net, &[make_batch(&recs, triplets, 2)]);
            let b = native.validate(
                &net,
                &[make_native_batch(&recs, triplets, native.mirror, 2)],
            );
            let what = format!("{preset}, triplets {triplets}");
            assert!((a.loss - b.loss).abs() < 1e-6, "{what}: {a:?} {b:?}");
            // A score within rounding of a threshold may fall either side.
            assert!(
                (a.accuracy - b.accuracy).abs() < 0.02,
                "{what}: {a:?} {b:?}"
            );
            assert!((a.extra - b.extra).abs() < 1e-3, "{what}: {a:?} {b:?}");
        }
    }
}

/// The native step gives the same gradients on one thread and on several (each thread sums
/// its share; the shares are then added).
#[test]
fn the_native_step_is_the_same_on_one_thread_and_three() {
    use super::native_step::Weights;
    let recs = records(3, 60);
    let Inputs::Native(boards) = make_native_batch(&recs, true, false, 4).inputs else {
        panic!("native layout");
    };
    let net = TrainNet::fresh(
        NetMeta::for_preset("persp-128").expect("preset"),
        8,
        Device::Cpu,
    );
    let w = Weights::of(net.mlp());
    let (f1, f3) = (w.forward(&boards, 1), w.forward(&boards, 3));
    assert_eq!(f1, f3, "scores are per board");
    let df: Vec<f32> = (0..f1.len())
        .map(|i| ((i % 7) as f32 - 3.0) * 1e-3)
        .collect();
    let (g1, g3) = (w.backward(&boards, &df, 1), w.backward(&boards, &df, 3));
    let (a, b) = (g1.flat(), g3.flat());
    assert_eq!(a.len(), b.len());
    let scale = a.iter().fold(0f32, |m, x| m.max(x.abs()));
    assert!(scale > 0.0);
    let diff = a
        .iter()
        .zip(&b)
        .fold(0f32, |m, (x, y)| m.max((x - y).abs()));
    assert!(diff <= 1e-5 * scale, "{diff} of {scale}");
}
