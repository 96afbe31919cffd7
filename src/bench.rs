//! `bench`: fixed positions at a fixed depth, ending with `N nodes M nps`.
//!
//! With one thread the node count is a signature of search behaviour: every position gets
//! a cleared TT and evaluation cache, so the count does not depend on what ran before.

use crate::chess::{KeyHistory, Position};
use crate::eval::{Backend, BatchStats, CachedEvaluator, Evaluator, MovePolicy};
use crate::search::{self, Limits, RootState, SearchConfig, SearchShared, TranspositionTable};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The positions, one FEN per line; `#` starts a comment.
pub const POSITIONS: &str = include_str!("../bench/positions.epd");

/// About 9 s for the material evaluator in a release build on the 2-core dev machine.
pub const DEFAULT_DEPTH: u32 = 9;
/// A net scores fewer nodes per second than material. Depth 12 takes 3.5–5.5 s for the
/// default net on the native backend (2-core dev machine): long enough for a steady speed
/// figure, which OpenBench scales its clocks by (issue #54). libtorch on a CPU is many
/// times slower, so give it a depth there (`bench 6 1 --backend torch`).
pub const NET_DEFAULT_DEPTH: u32 = 12;

/// The node count of `cerise bench` (the embedded net on the native backend, depth
/// [`NET_DEFAULT_DEPTH`], one thread): the search's signature. A test asserts it, so a
/// commit that changes the search must change it and say so.
pub const SIGNATURE_NODES: u64 = 6_877_693;

/// The depth `bench` runs at when none is given: shallower for the nets.
pub fn default_depth(eval: &dyn Evaluator) -> u32 {
    if eval.info().backend.is_some() {
        NET_DEFAULT_DEPTH
    } else {
        DEFAULT_DEPTH
    }
}

#[derive(Clone)]
pub struct BenchConfig {
    pub depth: u32,
    pub threads: usize,
    pub hash_mib: usize,
    pub cache_entries: usize,
    /// A move policy ordering the quiet moves, as the `Policy` option does.
    pub policy: Option<Arc<MovePolicy>>,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            depth: DEFAULT_DEPTH,
            threads: 1,
            hash_mib: 16,
            cache_entries: 1 << 18,
            policy: None,
        }
    }
}

impl BenchConfig {
    /// `depth` or [`default_depth`] for `eval`, and `threads` or one.
    pub fn for_evaluator(eval: &dyn Evaluator, depth: Option<u32>, threads: Option<usize>) -> Self {
        BenchConfig {
            depth: depth.unwrap_or_else(|| default_depth(eval)),
            threads: threads.unwrap_or(1),
            ..BenchConfig::default()
        }
    }
}

/// `cerise bench`'s arguments.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Search depth per position (default 9 for material and fake, 12 for a net).
    pub depth: Option<u32>,
    /// Search threads.
    pub threads: Option<usize>,
    /// `<embedded>` (the default net), `material`, `fake`, or a .safetensors path.
    #[arg(long, default_value = "<embedded>")]
    pub eval: String,
    /// Where a net runs: auto, cpu or cuda.
    #[arg(long, default_value = "auto")]
    pub device: crate::net::DeviceChoice,
    /// Largest forward pass of a net evaluator.
    #[arg(long, default_value_t = crate::engine::options::MAX_BATCH_DEFAULT)]
    pub max_batch: usize,
    /// Net precision: auto (int8 on the native backend, fp32 on libtorch), fp32, int8
    /// (native), or fp16/bf16 on CUDA.
    #[arg(long, default_value = "auto")]
    pub precision: crate::eval::Precision,
    /// Net input encoder: auto (timed at load), dense or sparse.
    #[arg(long, default_value = "auto")]
    pub encoder: crate::eval::Encoder,
    /// What runs a net: native (the default, whose node count is the same on every
    /// machine), torch, or auto (native, unless the device is cuda by name: then torch).
    #[arg(long, default_value = "native")]
    pub backend: Backend,
    /// A convchess-policy file ordering the quiet moves, as the engine's Policy option
    /// does (the node count then differs from the signature).
    #[arg(long)]
    pub policy: Option<String>,
}

/// `cerise bench`: opens the evaluator (and policy) the arguments name and runs the bench,
/// with the header, each position and the timing on stderr.
pub fn run_cli(args: &BenchArgs) -> Result<BenchSummary, String> {
    let config = crate::eval::NetEvaluatorConfig {
        max_batch: args.max_batch,
        precision: args.precision,
        encoder: args.encoder,
        backend: args.backend,
        ..crate::eval::NetEvaluatorConfig::default()
    };
    let eval = crate::eval::open::open_text(&args.eval, args.device, config)?;
    let mut config = BenchConfig::for_evaluator(eval.as_ref(), args.depth, args.threads);
    if let Some(path) = &args.policy {
        config.policy = Some(Arc::new(crate::eval::open::open_policy(path)?));
    }
    eprintln!("{}", header_line(&config, eval.as_ref()));
    let summary = run(&config, eval, &mut |line| eprintln!("{line}"))?;
    eprintln!(
        "{} positions, depth {}, {:.2} s",
        summary.positions,
        config.depth,
        summary.elapsed.as_secs_f64()
    );
    Ok(summary)
}

/// The line before the per-position lines: what runs the bench, and how deep.
pub fn header_line(config: &BenchConfig, eval: &dyn Evaluator) -> String {
    let policy = config
        .policy
        .as_ref()
        .map_or(String::new(), |p| format!(", ordered by {}", p.name));
    format!(
        "bench with {}{policy}; depth {}, threads {}",
        eval.info().describe(),
        config.depth,
        config.threads
    )
}

#[derive(Clone, Debug, PartialEq)]
pub struct BenchSummary {
    pub positions: usize,
    pub nodes: u64,
    /// Nodes the search entered; the rest of `nodes` were scored in a batch and never
    /// searched.
    pub entered: u64,
    pub elapsed: Duration,
    /// Eval-cache probes and hits over the whole bench; every miss is one evaluation.
    pub cache_probes: u64,
    pub cache_hits: u64,
    /// What a batching evaluator did during the bench (`None` for the others).
    pub batches: Option<BatchStats>,
    /// The backend that ran the net (`None` for the built-in evaluators).
    pub backend: Option<Backend>,
}

impl BenchSummary {
    /// Positions the evaluator scored: the batcher's count when it reports one, else the
    /// cache misses (each miss is evaluated exactly once).
    pub fn evaluations(&self) -> u64 {
        match &self.batches {
            Some(b) => b.positions,
            None => self.cache_probes - self.cache_hits,
        }
    }

    pub fn evals_per_second(&self) -> f64 {
        self.evaluations() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The share of scored nodes that the search went on to enter: what batch-first
    /// scoring costs is the evaluations of the other 1 − this.
    pub fn searched_fraction(&self) -> f64 {
        if self.nodes == 0 {
            0.0
        } else {
            self.entered as f64 / self.nodes as f64
        }
    }

    pub fn cache_hit_rate(&self) -> f64 {
        if self.cache_probes == 0 {
            0.0
        } else {
            self.cache_hits as f64 / self.cache_probes as f64
        }
    }

    /// `key=value` figures for the line before [`BenchSummary::final_line`]; batching
    /// figures read `na` for evaluators that do not batch, and `backend=` is there for a
    /// net only.
    pub fn stats_line(&self) -> String {
        let (mean_batch, busy) = match &self.batches {
            Some(b) => (
                format!("{:.1}", b.mean_batch()),
                format!(
                    "{:.3}",
                    b.busy.as_secs_f64() / self.elapsed.as_secs_f64().max(1e-9)
                ),
            ),
            None => ("na".to_string(), "na".to_string()),
        };
        let backend = match self.backend {
            Some(b) => format!(" backend={b}"),
            None => String::new(),
        };
        format!(
            "bench-stats nodes={} nps={} searched={:.3} evals={} evals_per_s={:.0} \
             mean_batch={mean_batch} cache_hit_rate={:.3} eval_busy={busy}{backend}",
            self.nodes,
            self.nps(),
            self.searched_fraction(),
            self.evaluations(),
            self.evals_per_second(),
            self.cache_hit_rate()
        )
    }

    pub fn nps(&self) -> u64 {
        let micros = self.elapsed.as_micros().max(1);
        (u128::from(self.nodes) * 1_000_000 / micros) as u64
    }

    /// The line OpenBench-style tools look for; it must be the last line on stdout.
    pub fn final_line(&self) -> String {
        format!("{} nodes {} nps", self.nodes, self.nps())
    }
}

/// The embedded positions, or the line number and reason of the first bad one.
pub fn positions() -> Result<Vec<Position>, String> {
    parse_positions(POSITIONS)
}

pub fn parse_positions(text: &str) -> Result<Vec<Position>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let fen = raw.split('#').next().unwrap_or_default().trim();
        if fen.is_empty() {
            continue;
        }
        let position =
            Position::from_fen(fen).map_err(|e| format!("bench positions line {}: {e}", i + 1))?;
        out.push(position);
    }
    Ok(out)
}

/// Searches every position to `config.depth`; `progress` gets one line per position.
/// Blocks until done.
pub fn run(
    config: &BenchConfig,
    eval: Arc<dyn Evaluator>,
    progress: &mut dyn FnMut(&str),
) -> Result<BenchSummary, String> {
    if config.depth == 0 {
        return Err("bench depth must be at least 1".to_string());
    }
    if config.threads == 0 {
        return Err("bench threads must be at least 1".to_string());
    }
    let positions = positions()?;
    let shared = SearchShared {
        tt: Arc::new(TranspositionTable::new(config.hash_mib)),
        eval: Arc::new(CachedEvaluator::new(eval, config.cache_entries)),
        policy: config.policy.clone(),
        syzygy: None,
        corrections: Default::default(),
        histories: Default::default(),
    };
    let search_config = SearchConfig {
        threads: config.threads,
        move_overhead: Duration::ZERO,
        ..SearchConfig::default()
    };
    let mut summary = BenchSummary {
        positions: positions.len(),
        nodes: 0,
        entered: 0,
        elapsed: Duration::ZERO,
        cache_probes: 0,
        cache_hits: 0,
        batches: None,
        backend: shared.eval.info().backend,
    };
    let batches_before = shared.eval.batch_stats();
    for (i, position) in positions.into_iter().enumerate() {
        shared.clear_game();
        let fen = position.fen();
        let root = RootState {
            position,
            history: KeyHistory::new(),
        };
        let limits = Limits {
            depth: Some(config.depth),
            ..Limits::default()
        };
        let started = Instant::now();
        let result = search::search_blocking(root, limits, search_config.clone(), shared.clone());
        summary.elapsed += started.elapsed();
        summary.nodes += result.nodes;
        summary.entered += result.entered;
        // The cache counters restart at each clear, so collect them per position.
        let (hits, probes) = shared.eval.stats();
        summary.cache_hits += hits;
        summary.cache_probes += probes;
        progress(&format!(
            "bench {:>2}/{}: {:>10} nodes  {:<6} {} ({fen})",
            i + 1,
            summary.positions,
            result.nodes,
            result.best.as_deref().unwrap_or("0000"),
            result.score,
        ));
    }
    summary.batches = match (shared.eval.batch_stats(), batches_before) {
        (Some(after), Some(before)) => Some(after.since(&before)),
        _ => None,
    };
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_positions_are_legal_and_about_forty() {
        let positions = positions().unwrap();
        assert!((35..=50).contains(&positions.len()), "{}", positions.len());
        for p in &positions {
            assert!(!p.legal_moves().is_empty(), "no legal move in {}", p.fen());
        }
    }

    #[test]
    fn comments_and_blank_lines_are_skipped_and_errors_name_the_line() {
        let text = "# c\n\n8/8/8/4k3/8/8/8/R3K3 w - - 0 1 # KRK\n";
        assert_eq!(parse_positions(text).unwrap().len(), 1);
        let e = parse_positions("# c\nnot a fen\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn nps_and_final_line() {
        let mut s = BenchSummary {
            positions: 1,
            nodes: 3000,
            entered: 1200,
            elapsed: Duration::from_millis(1500),
            cache_probes: 400,
            cache_hits: 100,
            batches: None,
            backend: None,
        };
        assert_eq!(s.final_line(), "3000 nodes 2000 nps");
        assert_eq!(
            s.stats_line(),
            "bench-stats nodes=3000 nps=2000 searched=0.400 evals=300 evals_per_s=200 \
             mean_batch=na cache_hit_rate=0.250 eval_busy=na"
        );
        s.batches = Some(BatchStats {
            batches: 10,
            positions: 240,
            busy: Duration::from_millis(750),
        });
        assert!(s.stats_line().ends_with(
            "evals=240 evals_per_s=160 mean_batch=24.0 cache_hit_rate=0.250 eval_busy=0.500"
        ));
        s.backend = Some(Backend::Torch);
        assert!(s.stats_line().ends_with("eval_busy=0.500 backend=torch"));
    }

    /// The signature: `cerise bench` with every default. The native backend gives the same
    /// bits on every instruction set, so the count is the same on every machine.
    #[test]
    fn the_default_bench_has_the_signature_node_count() {
        let config = crate::eval::NetEvaluatorConfig {
            backend: Backend::Native,
            ..Default::default()
        };
        let eval = crate::eval::open(
            &crate::eval::EvalSpec::Embedded,
            crate::net::DeviceChoice::Cpu,
            config,
        )
        .unwrap();
        let config = BenchConfig::for_evaluator(eval.as_ref(), None, None);
        assert_eq!(config.depth, NET_DEFAULT_DEPTH);
        let summary = run(&config, eval, &mut |_| {}).unwrap();
        assert_eq!(
            summary.nodes, SIGNATURE_NODES,
            "the bench signature changed: a search change must update SIGNATURE_NODES and \
             say so in its commit"
        );
    }

    /// What README's subcommand table and `cerise bench --help` say of the bench: the
    /// signature and the default depths, as the constants have them.
    #[test]
    fn the_docs_state_the_signature_and_the_default_depths() {
        let read = |file: &str| {
            std::fs::read_to_string(format!("{}/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap()
        };
        let digits = SIGNATURE_NODES.to_string();
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(c);
        }
        let readme = read("README.md");
        // The UCI command's row and the subcommand's row.
        let rows: Vec<&str> = readme
            .lines()
            .filter(|l| l.starts_with("| `bench "))
            .collect();
        assert_eq!(rows.len(), 2, "README's two bench rows");
        let rows = rows.join("\n");
        for stated in [
            format!("the same on every machine for the default ({grouped};"),
            format!("at depth {NET_DEFAULT_DEPTH}, 1 thread; {DEFAULT_DEPTH} for `material`"),
            format!(
                "default depth {NET_DEFAULT_DEPTH} for a network, {DEFAULT_DEPTH} for material"
            ),
        ] {
            assert!(
                rows.contains(&stated),
                "README's bench rows do not say {stated:?}"
            );
        }
        let help = format!(
            "(default {DEFAULT_DEPTH} for material and fake, {NET_DEFAULT_DEPTH} for a net)"
        );
        assert!(
            read("src/bench.rs").contains(&help),
            "`cerise bench --help` (BenchArgs) does not say {help}"
        );
    }

    #[test]
    fn shallow_bench_is_deterministic_with_one_thread() {
        let config = BenchConfig {
            depth: 2,
            ..BenchConfig::default()
        };
        let eval: Arc<dyn Evaluator> = Arc::new(crate::eval::MaterialEvaluator);
        let mut lines = Vec::new();
        let a = run(&config, eval.clone(), &mut |l| lines.push(l.to_string())).unwrap();
        let b = run(&config, eval, &mut |_| {}).unwrap();
        assert_eq!(a.nodes, b.nodes);
        assert!(a.nodes > 0);
        // Every entered node was scored by its parent's batch, and at depth 2 most leaves
        // are scored without being entered.
        assert_eq!(a.entered, b.entered);
        assert!(
            a.entered > 0 && a.entered < a.nodes,
            "{} of {}",
            a.entered,
            a.nodes
        );
        assert_eq!(lines.len(), a.positions);
    }

    /// Batching must not change what a single searcher does: same nodes whatever the
    /// batch limit (including one that splits sibling batches) and the encoder.
    #[cfg(feature = "torch")]
    #[test]
    fn node_count_with_one_thread_ignores_batching_settings() {
        use crate::eval::{Encoder, NetEvaluator, NetEvaluatorConfig};
        use crate::net::DeviceChoice;
        let dir = std::env::temp_dir().join(format!("cerise-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("small.safetensors");
        crate::net::init_net("small", 3, &path).unwrap();
        let config = BenchConfig {
            depth: 3,
            ..BenchConfig::default()
        };
        // Per encoder: the two encoders sum the first layer in different orders, so they
        // agree only to float rounding, and a score on a .5 cp edge can round either way.
        let mut counts = Vec::new();
        for (max_batch, encoder) in [
            (1024, Encoder::Dense),
            (16, Encoder::Dense),
            (256, Encoder::Dense),
            (1024, Encoder::Sparse),
            (16, Encoder::Sparse),
            (256, Encoder::Sparse),
        ] {
            let net = NetEvaluatorConfig {
                max_batch,
                encoder,
                ..NetEvaluatorConfig::default()
            };
            let eval: Arc<dyn Evaluator> =
                Arc::new(NetEvaluator::load(&path, DeviceChoice::Cpu, net).unwrap());
            let summary = run(&config, eval, &mut |_| {}).unwrap();
            let batches = summary.batches.expect("a net reports batching");
            assert_eq!(batches.positions, summary.evaluations());
            assert_eq!(
                summary.evaluations(),
                summary.cache_probes - summary.cache_hits,
                "every cache miss is evaluated once"
            );
            assert!(batches.mean_batch() <= max_batch as f64);
            counts.push(summary.nodes);
        }
        assert!(counts[0] > 1000, "{counts:?}");
        assert!(
            counts[..3].iter().all(|&n| n == counts[0]),
            "dense {counts:?}"
        );
        assert!(
            counts[3..].iter().all(|&n| n == counts[3]),
            "sparse {counts:?}"
        );
    }
}
