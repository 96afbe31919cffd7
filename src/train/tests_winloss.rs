//! End-to-end on the data fixture for the win/loss objective: PGN → labelled positions →
//! CNN training → checkpoint/resume → engine load → evalpos.

use super::config::{ObjectiveKind, OptimKind, TrainConfig};
use super::evalpos::{run_evalpos_cli, EvalposArgs};
use super::run::{metrics_path, train};
use crate::data::positions::{split_paths, write_positions, Ending, PositionConfig};
use crate::eval::{Evaluator, NetEvaluator, NetEvaluatorConfig};
use crate::net::DeviceChoice;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/data/fixtures/mini.pgn");

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cerise-winloss-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir is writable");
    dir
}

/// The fixture's positions, every game kept: `[train, valid, test]` paths.
fn fixture_positions() -> &'static [PathBuf; 3] {
    static PATHS: OnceLock<[PathBuf; 3]> = OnceLock::new();
    PATHS.get_or_init(|| {
        let prefix = temp_dir("data").join("mini");
        let pgn = std::fs::read(FIXTURE).expect("fixture exists");
        let config = PositionConfig {
            ending: Ending::All,
            ..PositionConfig::default()
        };
        let summary = write_positions(pgn.as_slice(), FIXTURE, &prefix, &config, |_| {})
            .expect("fixture converts");
        assert!(summary.records_per_split[0] > 0, "{summary}");
        split_paths(&prefix)
    })
}

fn config(out: &Path, preset: &str, steps: u64) -> TrainConfig {
    let [train, ..] = fixture_positions().clone();
    TrainConfig {
        objective: ObjectiveKind::Winloss,
        preset: preset.to_string(),
        // The fixture is too small to generalise from: validate on the training file.
        valid: train.clone(),
        train,
        optimiser: OptimKind::Adam,
        lr0: 0.003,
        tau: 0.0,
        batch: 32,
        steps,
        eval_every: 10,
        checkpoint_every: 10,
        valid_batches: 4,
        seed: 3,
        torch_threads: 1,
        device: "cpu".to_string(),
        out_dir: out.to_path_buf(),
        ..TrainConfig::default()
    }
}

#[test]
fn a_cnn_learns_the_fixture_and_the_engine_runs_it() {
    let out = temp_dir("learn");
    let c = config(&out, "mocha-stm", 40);
    let outcome = train(&c, false, &AtomicBool::new(false), &mut |_| {}).expect("trains");
    assert_eq!(outcome.step, 40);
    let rows = super::metrics::read(&metrics_path(&out)).expect("metrics");
    assert_eq!(rows.len(), 4);
    let (first, last) = (rows[0], rows[3]);
    assert!(
        last.valid_loss < first.valid_loss,
        "loss did not fall: {first:?} → {last:?}"
    );
    assert!(last.valid_accuracy > 0.5, "{last:?}");

    let eval = NetEvaluator::load(
        &outcome.net,
        DeviceChoice::Cpu,
        NetEvaluatorConfig {
            max_batch: 8,
            torch_threads: 1,
            ..Default::default()
        },
    )
    .expect("the engine loads the trained CNN");
    let mut scores = Vec::new();
    eval.evaluate(&crate::chess::sample_boards(5), &mut scores)
        .expect("evaluates");
    assert!(scores.iter().all(|s| s.is_finite()));

    let [_, _, test] = fixture_positions().clone();
    let report = run_evalpos_cli(&EvalposArgs {
        net: outcome.net.clone(),
        positions: test,
        max: None,
        batch: 16,
        device: DeviceChoice::Cpu,
        no_progress: true,
    })
    .expect("evalpos runs");
    assert!(report.positions > 0 && report.trained.count == report.positions);
    assert!(
        report.engine.is_none(),
        "mocha-stm reads side-to-move planes"
    );
    assert!(report.to_string().contains("middlegame"), "{report}");
    let by_phase: u64 = report.phases.iter().map(|p| p.count).sum();
    assert_eq!(by_phase, report.positions, "every position has one phase");
}

#[test]
fn a_stopped_and_resumed_cnn_run_equals_an_uninterrupted_one() {
    // `mocha` has dropout, so this also checks that the resumed run draws the same masks.
    let whole = temp_dir("whole");
    let split = temp_dir("split");
    let stop = AtomicBool::new(false);
    let a = train(&config(&whole, "mocha", 20), false, &stop, &mut |_| {}).expect("trains");
    train(&config(&split, "mocha", 10), false, &stop, &mut |_| {}).expect("first half");
    let b = train(&config(&split, "mocha", 20), true, &stop, &mut |_| {}).expect("resumes");
    assert_eq!((a.step, b.step), (20, 20));
    assert_eq!(a.net_id, b.net_id, "resumed weights differ");
    // An MLP preset is refused for this objective with a message naming the fix.
    let err = train(&config(&split, "small", 20), true, &stop, &mut |_| {}).expect_err("mlp");
    assert!(format!("{err:#}").contains("CNN preset"), "{err:#}");
}

#[test]
fn convchess_policy_nets_learn_the_fixtures_moves() {
    let out = temp_dir("policy");
    let c = TrainConfig {
        objective: ObjectiveKind::Policy,
        optimiser: OptimKind::Rmsprop,
        lr0: 0.0015,
        l2: 1e-4,
        ..config(&out, "convchess", 40)
    };
    let outcome = train(&c, false, &AtomicBool::new(false), &mut |_| {}).expect("trains");
    let rows = super::metrics::read(&metrics_path(&out)).expect("metrics");
    let (first, last) = (rows[0], rows[rows.len() - 1]);
    assert!(last.valid_loss < first.valid_loss, "{first:?} → {last:?}");
    // 64 squares: chance is 1.6%; 40 small steps already lift both above it.
    assert!(last.valid_accuracy > 0.03, "piece selector {last:?}");
    assert!(last.valid_mean_abs_pq > 0.1, "move selectors {last:?}");
    let net = crate::net::load(&outcome.net).expect("the policy file loads");
    assert_eq!(net.meta.arch.family_name(), "convchess-policy");
}
