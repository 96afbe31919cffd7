//! Tests of pipelines whose steps sit in layers that may not use each other: self-play
//! games written by `datagen` (`cerise datagen`) and learned from by `train`. Like the
//! binary, this file stands outside the layers (see `layers.rs`), so that neither layer has
//! to reach for the other, not even in its tests.

use crate::datagen::tests::{args, run, temp_dir};
use crate::train::{train, ObjectiveKind, OptimKind, TrainConfig};
use std::sync::atomic::AtomicBool;

#[test]
fn datagen_then_value_and_mixed_training_end_to_end() {
    let dir = temp_dir("train");
    let data = dir.join("games.self");
    let mut a = args(&data, 10, 2);
    a.nodes = 200;
    run(&a);
    let mut nets = Vec::new();
    for (objective, loader_threads) in [
        (ObjectiveKind::Value, 1),
        (ObjectiveKind::Mixed, 1),
        (ObjectiveKind::Mixed, 3),
    ] {
        let out = dir.join(format!("{objective:?}-{loader_threads}"));
        let config = TrainConfig {
            objective,
            preset: "narrow-as".into(),
            train: data.clone(),
            valid: data.clone(),
            optimiser: OptimKind::Adam,
            lr0: 0.001,
            tau: 0.0,
            batch: 64,
            steps: 12,
            eval_every: 6,
            checkpoint_every: 6,
            valid_batches: 2,
            torch_threads: 1,
            loader_threads,
            device: "cpu".into(),
            out_dir: out.clone(),
            skip_plies: 8,
            valid_permille: 300,
            ..TrainConfig::default()
        };
        let stop = AtomicBool::new(false);
        let outcome = train(&config, false, &stop, &mut |_| {}).expect("trains");
        assert_eq!(outcome.step, 12);
        let row = outcome.last_row.expect("validated");
        assert!(
            row.valid_loss.is_finite() && row.valid_loss > 0.0,
            "{row:?}"
        );
        assert!((0.0..=1.0).contains(&row.valid_accuracy), "{row:?}");
        assert!(row.valid_mean_abs_pq > 0.0, "the error in cp is measured");
        // The net is one the engine loads.
        crate::net::load(&outcome.net).expect("the trained net loads");
        nets.push(std::fs::read(&outcome.net).expect("the net file reads"));
    }
    // Three loader threads hand the trainer the same batches as one, so the same net.
    assert!(
        nets[1] == nets[2],
        "the net depends on the loader's thread count"
    );
    std::fs::remove_dir_all(&dir).ok();
}
