//! End-to-end tests on the data fixture: PGN → triplets → train → checkpoint/resume → engine
//! load → evalnet. Small batches and few steps keep the whole file to seconds on a CPU.

use super::checkpoint;
use super::config::{OptimKind, TrainConfig};
use super::evalnet::{evalnet, EvalnetArgs};
use super::run::{metrics_path, train};
use crate::data::{split_paths, write_triplets, Split, TripletConfig};
use crate::eval::{Evaluator, NetEvaluator, NetEvaluatorConfig};
use crate::net::DeviceChoice;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/data/fixtures/mini.pgn");

pub(crate) fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cerise-train-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir is writable");
    dir
}

/// The fixture's triplets, written once per test process: `[train, valid, test]` paths.
fn fixture_triplets() -> &'static [PathBuf; 3] {
    static PATHS: OnceLock<[PathBuf; 3]> = OnceLock::new();
    PATHS.get_or_init(|| {
        let prefix = temp_dir("data").join("mini");
        let pgn = std::fs::read(FIXTURE).expect("fixture exists");
        let config = TripletConfig::default();
        let summary = write_triplets(pgn.as_slice(), FIXTURE, &prefix, &config, |_| {})
            .expect("fixture converts");
        assert!(
            summary.records_per_split.iter().all(|&n| n > 0),
            "{summary}"
        );
        split_paths(&prefix)
    })
}

fn config(out: &Path, steps: u64) -> TrainConfig {
    let [train, valid, _] = fixture_triplets().clone();
    TrainConfig {
        train,
        valid,
        kappa: 1.0,
        optimiser: OptimKind::Adam,
        lr0: 0.003,
        tau: 0.0,
        batch: 64,
        steps,
        eval_every: 10,
        checkpoint_every: 10,
        valid_batches: 4,
        seed: 7,
        torch_threads: 1,
        device: "cpu".to_string(),
        out_dir: out.to_path_buf(),
        ..TrainConfig::default()
    }
}

fn quiet() -> impl FnMut(&str) {
    |_| {}
}

#[test]
fn loss_falls_and_train_ordering_beats_chance() {
    let out = temp_dir("learn");
    let [train_path, ..] = fixture_triplets().clone();
    // Validate on the training file itself: the fixture is too small to generalise from.
    let c = TrainConfig {
        valid: train_path,
        steps: 60,
        ..config(&out, 60)
    };
    let outcome = train(&c, false, &AtomicBool::new(false), &mut quiet()).expect("trains");
    assert_eq!(outcome.step, 60);
    let rows = super::metrics::read(&metrics_path(&out)).expect("metrics");
    assert_eq!(rows.len(), 6);
    let (first, last) = (rows[0], rows[rows.len() - 1]);
    assert!(
        last.valid_loss < first.valid_loss,
        "loss {} -> {}",
        first.valid_loss,
        last.valid_loss
    );
    assert!(
        last.valid_accuracy > 0.5,
        "accuracy {}",
        last.valid_accuracy
    );
    assert!(out.join("curves.png").exists());

    // The engine's own loader accepts the result and scores boards with it.
    let eval = NetEvaluator::load(
        &outcome.net,
        DeviceChoice::Cpu,
        NetEvaluatorConfig::default(),
    )
    .expect("the engine loads a trained net");
    assert_eq!(eval.content_id(), outcome.net_id);
    let start = crate::chess::Position::startpos().compact();
    let mut scores = Vec::new();
    eval.evaluate(&[start, start], &mut scores)
        .expect("evaluates");
    assert_eq!(scores.len(), 2);
    assert!(scores[0].is_finite() && scores[0] == scores[1]);
}

#[test]
fn resume_continues_to_the_same_weights_as_an_uninterrupted_run() {
    let straight = temp_dir("straight");
    let full = train(
        &config(&straight, 20),
        false,
        &AtomicBool::new(false),
        &mut quiet(),
    )
    .expect("trains");

    let split = temp_dir("split");
    let first = train(
        &config(&split, 10),
        false,
        &AtomicBool::new(false),
        &mut quiet(),
    )
    .expect("first half");
    assert_eq!(first.step, 10);
    // Without --resume an existing run is never overwritten.
    assert!(train(
        &config(&split, 20),
        false,
        &AtomicBool::new(false),
        &mut quiet()
    )
    .is_err());
    let second = train(
        &config(&split, 20),
        true,
        &AtomicBool::new(false),
        &mut quiet(),
    )
    .expect("resumes");
    assert_eq!(second.step, 20);
    assert_eq!(
        second.net_id, full.net_id,
        "optimiser state, data order and step all resume exactly"
    );
    let steps: Vec<u64> = super::metrics::read(&metrics_path(&split))
        .expect("metrics")
        .iter()
        .map(|r| r.step)
        .collect();
    assert_eq!(steps, [10, 20]);
}

#[test]
fn a_stopped_run_leaves_a_loadable_checkpoint() {
    let out = temp_dir("stop");
    let stop = AtomicBool::new(true);
    let c = TrainConfig {
        checkpoint_every: 1000,
        ..config(&out, 50)
    };
    let outcome = train(&c, false, &stop, &mut quiet()).expect("stops cleanly");
    assert!(outcome.stopped);
    assert_eq!(outcome.step, 0);
    let newest = checkpoint::newest(&out)
        .expect("lists")
        .expect("a checkpoint");
    assert_eq!(checkpoint::read_state(&newest).expect("state").step, 0);
    crate::net::load(&checkpoint::net_path(&newest)).expect("the checkpoint net loads");
    let resumed = train(&c, true, &AtomicBool::new(false), &mut quiet()).expect("resumes");
    assert_eq!((resumed.step, resumed.stopped), (50, false));
    assert_eq!(
        checkpoint::list(&out).expect("lists").len(),
        2,
        "older ones are pruned"
    );
}

#[test]
fn curves_are_redrawn_from_the_metrics_alone() {
    let out = temp_dir("replot");
    let c = config(&out, 10);
    assert!(
        super::redraw_curves(&c).is_err(),
        "no metrics yet: an error, not an empty plot"
    );
    train(&c, false, &AtomicBool::new(false), &mut quiet()).expect("trains");
    let png = super::run::plot_path(&out);
    std::fs::remove_file(&png).expect("the run drew its curves");
    assert_eq!(super::redraw_curves(&c).expect("redraws"), png);
    assert_eq!(&std::fs::read(&png).expect("png exists")[1..4], b"PNG");
}

#[test]
fn data_train_evalnet_end_to_end() {
    let out = temp_dir("e2e");
    let outcome = train(
        &config(&out, 30),
        false,
        &AtomicBool::new(false),
        &mut quiet(),
    )
    .expect("trains");
    let [_, _, test] = fixture_triplets().clone();
    let args = EvalnetArgs {
        net: outcome.net.clone(),
        games: PathBuf::from(FIXTURE),
        seed: TripletConfig::default().seed,
        split: Split::Test,
        split_ratios: TripletConfig::default().split,
        skip_plies: TripletConfig::default().skip_plies,
        triplets: Some(test.clone()),
        max_games: None,
        markdown: true,
        device: DeviceChoice::Cpu,
        no_progress: true,
    };
    let report = evalnet(&args, &indicatif::ProgressBar::hidden()).expect("evaluates");
    let test_triplets = crate::data::TripletReader::open(&test)
        .expect("opens")
        .len();
    assert_eq!(report.ordering.expect("triplets given").n, test_triplets);
    // Every test-split position with a choice is a move-matching trial, and each trial
    // yielded exactly one triplet when the data was written.
    assert_eq!(report.top1.n, test_triplets);
    assert!(report.games > 0);
    assert!(report.top3.hits >= report.top1.hits);
    // Move-selector trials leave out pieces with a single legal move, so they are a strict
    // subset of the move-matching trials (the fixture has such moves, e.g. forced recaptures).
    let per_piece: u64 = report.move_selector.iter().map(|r| r.n).sum();
    assert!(
        per_piece > 0 && per_piece < report.top1.n,
        "{per_piece} vs {}",
        report.top1.n
    );
    assert_eq!(report.piece_selector.n, report.top1.n);
    assert!(report.to_markdown().contains("| move match top-1 |"));

    // A triplet file from another split is refused rather than silently mismatched.
    let wrong = EvalnetArgs {
        triplets: Some(fixture_triplets()[0].clone()),
        ..args
    };
    let err = evalnet(&wrong, &indicatif::ProgressBar::hidden()).unwrap_err();
    assert!(format!("{err:#}").contains("--split"), "{err:#}");
}

#[test]
fn init_starts_from_the_nets_weights_and_refuses_another_shape() {
    // A stopped run checkpoints at step 0, so its net holds the weights it started from.
    let start_net = |out: &Path, c: &TrainConfig| {
        train(c, false, &AtomicBool::new(true), &mut quiet()).expect("stops cleanly");
        let newest = checkpoint::newest(out)
            .expect("lists")
            .expect("a checkpoint");
        checkpoint::net_path(&newest)
    };
    let source_dir = temp_dir("init-source");
    let source = start_net(&source_dir, &config(&source_dir, 50));
    let fresh_dir = temp_dir("init-fresh");
    let fresh_config = TrainConfig {
        seed: 99,
        ..config(&fresh_dir, 50)
    };
    let fresh = start_net(&fresh_dir, &fresh_config);
    let warm_dir = temp_dir("init-warm");
    let warm_config = TrainConfig {
        init: Some(source.clone()),
        ..config(&warm_dir, 50)
    };
    let warm_config = TrainConfig {
        seed: 99,
        ..warm_config
    };
    let warm = start_net(&warm_dir, &warm_config);
    let tensors = |p: &Path| crate::net::load(p).expect("loads").tensors;
    assert_ne!(tensors(&fresh), tensors(&source), "seeds 7 and 99 differ");
    assert_eq!(
        tensors(&warm),
        tensors(&source),
        "seed 99 with init = seed 7's net"
    );

    let other_dir = temp_dir("init-other");
    let other = TrainConfig {
        preset: "narrow-as".to_string(),
        init: Some(source),
        ..config(&other_dir, 50)
    };
    let err = train(&other, false, &AtomicBool::new(true), &mut quiet())
        .expect_err("a small net cannot start a narrow-as run");
    assert!(
        format!("{err:#}").contains("not the preset narrow-as's shape"),
        "{err:#}"
    );
}
