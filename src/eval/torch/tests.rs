//! The net evaluator and its batcher, through the evaluator's public face: batching, splitting,
//! every request answered once, shutdown, and the flush rule with registered searchers.

use super::evaluator::NetEvaluator;
use crate::chess::CompactBoard;
use crate::eval::settings::{Encoder, NetEvaluatorConfig};
use crate::eval::threads::auto_torch_threads;
use crate::eval::{EvalError, Evaluator};
use crate::net::init_net;
use crate::net::NetModule;
use crate::net::{DeviceChoice, NetError};
use crossbeam::channel;
use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tch::{nn::VarStore, Device, Tensor};

fn net_path(seed: u64) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cerise-neteval-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir is writable");
    let path = dir.join(format!("small-{seed}.safetensors"));
    init_net("small", seed, &path).expect("init works");
    path
}

fn evaluator(max_batch: usize) -> NetEvaluator {
    let config = NetEvaluatorConfig {
        max_batch,
        torch_threads: 1,
        ..Default::default()
    };
    NetEvaluator::load(&net_path(11), DeviceChoice::Cpu, config).expect("net loads")
}

/// Distinct positions from a deterministic walk through legal moves.
/// Drops the evaluator on another thread and fails the test if that takes over a minute.
fn drop_within_a_minute(eval: NetEvaluator) {
    let (done_tx, done_rx) = channel::bounded(1);
    std::thread::spawn(move || {
        drop(eval);
        let _ = done_tx.send(());
    });
    done_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("dropping the evaluator must not hang");
}

fn boards(n: usize) -> Vec<CompactBoard> {
    crate::chess::sample_boards(n)
}

/// Scores computed without the batcher: encode_into, a fresh model, one forward.
fn reference(path: &Path, boards: &[CompactBoard]) -> Vec<f32> {
    let net = crate::net::load(path).expect("net loads");
    let vs = VarStore::new(Device::Cpu);
    let arch = &net.meta.arch;
    let module = NetModule::zeroed(&vs.root(), arch);
    net.copy_into(&vs).expect("copies");
    let width = arch.input_width();
    let mut x = vec![0f32; boards.len() * width];
    for (b, row) in boards.iter().zip(x.chunks_mut(width)) {
        arch.encode_engine(b, row);
    }
    let input = Tensor::from_slice(&x).view([boards.len() as i64, width as i64]);
    let raw = tch::no_grad(|| module.f_forward(&input)).expect("forward");
    let mut out = vec![0f32; boards.len()];
    raw.copy_data(&mut out, boards.len());
    let scale = arch.raw_sign() * net.meta.cp_per_unit;
    out.iter().map(|f| f * scale).collect()
}

fn assert_close(a: &[f32], b: &[f32]) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{i}: {x} vs {y}");
    }
}

#[test]
fn batched_equals_unbatched_and_reference() {
    let eval = evaluator(64);
    let bs = boards(100);
    let mut batched = Vec::new();
    eval.evaluate(&bs, &mut batched).expect("evaluates");
    let mut single = Vec::new();
    let mut one = Vec::new();
    for b in &bs {
        eval.evaluate(std::slice::from_ref(b), &mut one)
            .expect("evaluates");
        single.push(one[0]);
    }
    assert_close(&batched, &single);
    assert_close(&batched, &reference(&net_path(11), &bs));
    let distinct: std::collections::BTreeSet<u32> = batched.iter().map(|s| s.to_bits()).collect();
    assert!(
        distinct.len() > 50,
        "a random net should score positions differently"
    );
}

#[test]
fn a_cnn_net_runs_through_the_batcher_like_its_reference() {
    let dir = std::env::temp_dir().join(format!("cerise-cnn-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir is writable");
    for preset in ["mocha", "mocha-stm"] {
        let path = dir.join(format!("{preset}.safetensors"));
        init_net(preset, 4, &path).expect("init works");
        let config = NetEvaluatorConfig {
            max_batch: 16,
            torch_threads: 1,
            ..Default::default()
        };
        let eval = NetEvaluator::load(&path, DeviceChoice::Cpu, config).expect("cnn loads");
        assert_eq!(eval.encoder(), Encoder::Dense, "a CNN reads dense planes");
        assert!(!eval.is_zero_sum());
        let bs = boards(40);
        let mut got = Vec::new();
        eval.evaluate(&bs, &mut got).expect("evaluates");
        assert_close(&got, &reference(&path, &bs));
        let breakdown = eval.breakdown(&bs[3]).expect("breakdown");
        assert!(breakdown[0].0.contains("logit"), "{breakdown:?}");
        // p = σ(logit), and the score is 400·log10(p / (1 − p)) cp.
        let p = breakdown[1].1;
        assert!(breakdown[1].0.contains("win probability") && p > 0.0 && p < 1.0);
        let cp = 400.0 * (p / (1.0 - p)).log10();
        let score = breakdown.last().expect("score").1;
        assert!(
            (cp - score).abs() < 0.05 * (1.0 + score.abs()),
            "{cp} vs {score}"
        );
        let sparse = NetEvaluatorConfig {
            encoder: Encoder::Sparse,
            ..NetEvaluatorConfig::default()
        };
        let err = NetEvaluator::load(&path, DeviceChoice::Cpu, sparse)
            .err()
            .expect("the sparse encoder is refused for a CNN");
        assert!(err.to_string().contains("dense"), "{err}");
    }
}

#[test]
fn oversize_request_is_split() {
    let eval = evaluator(8);
    let bs = boards(50);
    let before = eval.stats();
    let mut out = vec![9.0; 3];
    eval.evaluate(&bs, &mut out).expect("evaluates");
    assert_close(&out, &reference(&net_path(11), &bs));
    let after = eval.stats();
    assert_eq!(after.positions - before.positions, 50);
    assert_eq!(after.batches - before.batches, 7, "ceil(50 / 8) forwards");
    eval.evaluate(&[], &mut out).expect("empty is fine");
    assert!(out.is_empty());
}

#[test]
fn every_request_answered_once_under_contention() {
    let eval = Arc::new(evaluator(32));
    let bs = boards(200);
    let expected: HashMap<CompactBoard, f32> = bs
        .iter()
        .copied()
        .zip(reference(&net_path(11), &bs))
        .collect();
    let expected = Arc::new(expected);
    let bs = Arc::new(bs);
    let threads: Vec<_> = (0..8usize)
        .map(|t| {
            let (eval, bs, expected) = (Arc::clone(&eval), Arc::clone(&bs), Arc::clone(&expected));
            std::thread::spawn(move || {
                let mut answered = 0;
                let mut out = Vec::new();
                for r in 0..60usize {
                    let len = 1 + (t * 13 + r * 7) % 45;
                    let start = (t * 31 + r * 17) % (bs.len() - len);
                    let req = &bs[start..start + len];
                    eval.evaluate(req, &mut out).expect("evaluates");
                    let want: Vec<f32> = req.iter().map(|b| expected[b]).collect();
                    assert_close(&out, &want);
                    answered += 1;
                }
                answered
            })
        })
        .collect();
    let answered: usize = threads
        .into_iter()
        .map(|t| t.join().expect("no panic"))
        .sum();
    assert_eq!(answered, 8 * 60);
    let stats = eval.stats();
    assert!(
        stats.mean_batch > 1.0 && stats.mean_batch <= 32.0,
        "{stats:?}"
    );
}

#[test]
fn drop_with_requests_pending_answers_everything() {
    let eval = evaluator(16);
    let bs = boards(64);
    let receivers: Vec<_> = (0..200).map(|_| eval.submit(bs.clone())).collect();
    drop_within_a_minute(eval);
    let (mut ok, mut stopped) = (0, 0);
    for rx in receivers {
        match rx
            .recv_timeout(Duration::from_secs(5))
            .expect("every request is answered")
        {
            Ok(scores) => {
                assert_eq!(scores.len(), 64);
                ok += 1;
            }
            Err(EvalError::Stopped(_)) => stopped += 1,
            Err(e) => panic!("unexpected error {e}"),
        }
        assert!(rx.try_recv().is_err(), "exactly one reply per request");
    }
    assert_eq!(ok + stopped, 200);
}

#[test]
fn info_breakdown_and_stats() {
    let eval = evaluator(16);
    let info = eval.info();
    assert!(
        info.name.starts_with("net small-11 (small, ") && info.name.contains("fp32"),
        "{}",
        info.name
    );
    assert_eq!(info.device, "cpu");
    assert_eq!(info.max_batch, 16);
    assert_eq!(eval.content_id().len(), 12);
    let b = boards(1)[0];
    let terms = eval.breakdown(&b).expect("evaluates");
    let mut out = Vec::new();
    eval.evaluate(&[b], &mut out).expect("evaluates");
    assert_eq!(terms[2].1, out[0]);
    assert_eq!(terms[1].1, 100.0);
    assert!((terms[0].1 * -terms[1].1 - out[0]).abs() < 1e-3);
    assert_eq!(eval.stats().batches, 2, "warm-up is not counted");
}

#[test]
fn load_errors_come_back_synchronously() {
    let missing = std::env::temp_dir().join("cerise-no-such-net.safetensors");
    let err = NetEvaluator::load(&missing, DeviceChoice::Cpu, NetEvaluatorConfig::default())
        .err()
        .expect("missing file is refused");
    assert!(matches!(err, NetError::Read { .. }), "{err}");
    let err = NetEvaluator::from_bytes(b"junk", "junk.bin", DeviceChoice::Cpu, Default::default())
        .err()
        .expect("junk is refused");
    assert!(matches!(err, NetError::NotSafetensors { .. }), "{err}");
    let config = NetEvaluatorConfig {
        max_batch: 0,
        torch_threads: 1,
        ..Default::default()
    };
    let err = NetEvaluator::load(&net_path(11), DeviceChoice::Cpu, config)
        .err()
        .expect("max_batch 0 is refused");
    assert!(matches!(err, NetError::BadConfig(_)), "{err}");
    if !tch::Cuda::is_available() {
        let err = NetEvaluator::load(&net_path(11), DeviceChoice::Cuda, Default::default())
            .err()
            .expect("no CUDA here");
        assert!(matches!(err, NetError::CudaUnavailable), "{err}");
    }
}

fn evaluator_with(max_batch: usize, encoder: Encoder) -> NetEvaluator {
    let config = NetEvaluatorConfig {
        max_batch,
        torch_threads: 1,
        encoder,
        ..Default::default()
    };
    NetEvaluator::load(&net_path(11), DeviceChoice::Cpu, config).expect("net loads")
}

#[test]
fn both_encoders_match_the_reference() {
    let bs = boards(90);
    let want = reference(&net_path(11), &bs);
    for encoder in [Encoder::Dense, Encoder::Sparse, Encoder::Auto] {
        let eval = evaluator_with(32, encoder);
        assert_ne!(eval.encoder(), Encoder::Auto, "auto is resolved at load");
        assert_eq!(eval.encoder_timing().is_some(), encoder == Encoder::Auto);
        assert!(eval
            .info()
            .name
            .contains(&format!("{} encoder", eval.encoder())));
        let mut out = Vec::new();
        eval.evaluate(&bs, &mut out).expect("evaluates");
        assert_close(&out, &want);
    }
}

#[test]
fn partial_batch_waits_for_every_registered_searcher() {
    let eval = evaluator(64);
    let bs = boards(10);
    // No searcher registered: flushed at once.
    let rx = eval.submit(bs[..3].to_vec());
    rx.recv_timeout(Duration::from_secs(10))
        .expect("answered at once")
        .expect("scores");
    let a = eval.register_searcher();
    let b = eval.register_searcher();
    assert_eq!(eval.active_searchers(), 2);
    let before = eval.stats();
    let first = eval.submit(bs[..3].to_vec());
    // One of two searchers is waiting: the batcher must hold the partial batch. (The
    // timeout only bounds the test; the batcher itself never sleeps.)
    assert!(first.recv_timeout(Duration::from_millis(300)).is_err());
    let second = eval.submit(bs[3..7].to_vec());
    first
        .recv_timeout(Duration::from_secs(10))
        .expect("flushed once both wait")
        .expect("scores");
    second
        .recv_timeout(Duration::from_secs(10))
        .expect("same batch")
        .expect("scores");
    let after = eval.stats();
    assert_eq!(after.batches - before.batches, 1, "one merged forward");
    assert_eq!(after.positions - before.positions, 7);
    // A searcher leaving while the other waits triggers the flush.
    let third = eval.submit(bs[..2].to_vec());
    assert!(third.recv_timeout(Duration::from_millis(200)).is_err());
    drop(b);
    third
        .recv_timeout(Duration::from_secs(10))
        .expect("a leaving searcher wakes the batcher")
        .expect("scores");
    drop(a);
    assert_eq!(eval.active_searchers(), 0);
    let batch = eval.batch_stats().expect("a batching evaluator reports");
    assert_eq!(batch.batches, eval.stats().batches);
    assert!(batch.busy > Duration::ZERO);
}

#[test]
fn a_full_batch_runs_without_waiting_for_searchers() {
    let eval = evaluator(8);
    let _a = eval.register_searcher();
    let _b = eval.register_searcher();
    let bs = boards(20);
    let rx = eval.submit(bs[..8].to_vec());
    rx.recv_timeout(Duration::from_secs(10))
        .expect("a full batch is flushed")
        .expect("scores");
    // 20 boards: two full batches go, the 4 left wait for the other searcher.
    let rx = eval.submit(bs.clone());
    assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    let done = eval.stats();
    assert_eq!(done.positions, 8 + 16);
}

/// 64 searcher threads, each repeatedly registering ("go"), evaluating random requests
/// and unregistering after a random count ("stop"), some keeping a request in flight.
#[test]
fn stress_64_searchers_with_random_stop_and_go() {
    let eval = Arc::new(evaluator(128));
    let bs = Arc::new(boards(300));
    let want: Arc<HashMap<CompactBoard, f32>> = Arc::new(
        bs.iter()
            .copied()
            .zip(reference(&net_path(11), &bs))
            .collect(),
    );
    let (done_tx, done_rx) = channel::unbounded();
    for t in 0..64u64 {
        let (eval, bs, want, done_tx) = (
            Arc::clone(&eval),
            Arc::clone(&bs),
            Arc::clone(&want),
            done_tx.clone(),
        );
        std::thread::spawn(move || {
            // A seeded SplitMix64-style stream, written here so that the test stays in
            // eval's layer (data::rng is above it).
            let mut state = t + 1;
            let mut below = |n: usize| {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let z = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                ((u128::from(z ^ (z >> 31)) * n as u128) >> 64) as usize
            };
            let mut answered = 0usize;
            let mut out = Vec::new();
            for _session in 0..6 {
                let _guard = eval.register_searcher();
                let calls = below(8);
                for _ in 0..calls {
                    let len = 1 + below(40);
                    let start = below(bs.len() - len);
                    let req = &bs[start..start + len];
                    eval.evaluate(req, &mut out).expect("evaluates");
                    let expected: Vec<f32> = req.iter().map(|b| want[b]).collect();
                    assert_close(&out, &expected);
                    answered += 1;
                }
                if below(4) == 0 {
                    // Stop with a request submitted but not waited for.
                    let _ = eval.submit(bs[..3].to_vec());
                }
            }
            let _ = done_tx.send(answered);
        });
    }
    drop(done_tx);
    let mut finished = 0;
    while finished < 64 {
        done_rx
            .recv_timeout(Duration::from_secs(120))
            .expect("every searcher finishes: no deadlock, no panic");
        finished += 1;
    }
    assert_eq!(eval.active_searchers(), 0);
    let stats = eval.stats();
    assert!(stats.mean_batch > 1.0, "{stats:?}");
}

#[test]
fn drop_with_registered_searchers_and_pending_requests_hangs_nothing() {
    let eval = evaluator(64);
    let guards: Vec<_> = (0..3).map(|_| eval.register_searcher()).collect();
    // Two of three searchers waiting: these cannot be flushed by the policy.
    let pending = [eval.submit(boards(5)), eval.submit(boards(6))];
    drop_within_a_minute(eval);
    for rx in pending {
        let reply = rx
            .recv_timeout(Duration::from_secs(5))
            .expect("answered on shutdown");
        assert!(matches!(reply, Ok(_) | Err(EvalError::Stopped(_))));
    }
    drop(guards);
}

#[test]
fn torch_thread_rule() {
    assert_eq!(auto_torch_threads(2, 0, 8), 1, "small batches get one");
    assert_eq!(auto_torch_threads(2, 0, 512), 2);
    assert_eq!(auto_torch_threads(8, 3, 512), 5);
    assert_eq!(auto_torch_threads(2, 7, 512), 1);
}
