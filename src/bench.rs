//! `bench`: fixed positions at a fixed depth, ending with `N nodes M nps`.
//!
//! With one thread the node count is a signature of search behaviour: every position gets
//! a cleared TT and evaluation cache, so the count does not depend on what ran before.

use crate::chess::{KeyHistory, Position};
use crate::eval::{EvalCache, Evaluator};
use crate::search::{self, Limits, RootState, SearchConfig, SearchShared, TranspositionTable};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The positions, one FEN per line; `#` starts a comment.
pub const POSITIONS: &str = include_str!("../bench/positions.epd");

/// About 9 s for the material evaluator in a release build on the 2-core dev machine.
pub const DEFAULT_DEPTH: u32 = 9;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchConfig {
    pub depth: u32,
    pub threads: usize,
    pub hash_mib: usize,
    pub cache_entries: usize,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            depth: DEFAULT_DEPTH,
            threads: 1,
            hash_mib: 16,
            cache_entries: 1 << 18,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchSummary {
    pub positions: usize,
    pub nodes: u64,
    pub elapsed: Duration,
}

impl BenchSummary {
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
        eval,
        cache: Arc::new(EvalCache::new(config.cache_entries)),
    };
    let search_config = SearchConfig {
        threads: config.threads,
        move_overhead: Duration::ZERO,
    };
    let mut summary = BenchSummary {
        positions: positions.len(),
        nodes: 0,
        elapsed: Duration::ZERO,
    };
    for (i, position) in positions.into_iter().enumerate() {
        shared.tt.clear();
        shared.cache.clear();
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
        progress(&format!(
            "bench {:>2}/{}: {:>10} nodes  {:<6} {} ({fen})",
            i + 1,
            summary.positions,
            result.nodes,
            result.best.as_deref().unwrap_or("0000"),
            crate::uci::format::score_text(result.score),
        ));
    }
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
        let s = BenchSummary {
            positions: 1,
            nodes: 3000,
            elapsed: Duration::from_millis(1500),
        };
        assert_eq!(s.final_line(), "3000 nodes 2000 nps");
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
        assert_eq!(lines.len(), a.positions);
    }
}
