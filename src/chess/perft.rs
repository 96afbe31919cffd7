//! Move-generation counts, checked against the perft suite.

use super::position::Position;
use shakmaty::CastlingMode;
use std::path::Path;

/// Leaf count at `depth` (bulk-counted at depth 1).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        _ => pos
            .legal_moves()
            .iter()
            .map(|m| perft(&pos.play(m), depth - 1))
            .sum(),
    }
}

/// Per-root-move counts, in move order, as `(uci, count)`.
pub fn divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    let child_depth = depth.saturating_sub(1);
    pos.legal_moves()
        .iter()
        .map(|m| (pos.move_to_uci(m), perft(&pos.play(m), child_depth)))
        .collect()
}

/// Divide lines then the total, the format shared by the UCI command and the CLI.
pub fn perft_lines(position: &Position, depth: u32) -> Vec<String> {
    let mut lines = Vec::new();
    let total = if depth == 0 {
        1
    } else {
        let split = divide(position, depth);
        for (mv, count) in &split {
            lines.push(format!("{mv}: {count}"));
        }
        split.iter().map(|(_, n)| n).sum()
    };
    lines.push(String::new());
    lines.push(format!("Nodes searched: {total}"));
    lines
}

/// One depth of one suite line: what the file expects and what was counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DepthResult {
    pub depth: u32,
    pub expected: u64,
    pub actual: u64,
}

impl DepthResult {
    pub fn ok(&self) -> bool {
        self.expected == self.actual
    }
}

/// The outcome for one line of the suite file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteLine {
    /// 1-based line number in the file.
    pub line_no: usize,
    pub fen: String,
    pub results: Vec<DepthResult>,
    /// Total nodes counted for this line (all depths).
    pub nodes: u64,
}

impl SuiteLine {
    pub fn ok(&self) -> bool {
        self.results.iter().all(DepthResult::ok)
    }
}

/// Totals over a suite run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuiteSummary {
    pub positions: usize,
    pub depths_checked: usize,
    /// `(line_no, depth, expected, actual)` for every mismatch.
    pub mismatches: Vec<(usize, u32, u64, u64)>,
    pub nodes: u64,
}

impl SuiteSummary {
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// A suite line's FEN and its expected `(depth, count)` pairs.
pub type SuiteEntry = (String, Vec<(u32, u64)>);

/// Parses one EPD perft line, `FEN ;D1 20 ;D2 400 ...`, into the FEN and `(depth, count)`s.
/// Blank lines and `#` comments give `Ok(None)`.
pub fn parse_suite_line(line: &str) -> Result<Option<SuiteEntry>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut parts = line.split(';');
    let fen = parts.next().unwrap_or_default().trim().to_string();
    let mut depths = Vec::new();
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let mut fields = part.split_whitespace();
        let tag = fields.next().unwrap_or_default();
        let depth = tag
            .strip_prefix('D')
            .and_then(|d| d.parse::<u32>().ok())
            .ok_or_else(|| format!("expected a depth tag like 'D3', found '{tag}'"))?;
        let count_text = fields.next().unwrap_or_default();
        let count = count_text
            .parse::<u64>()
            .map_err(|_| format!("expected a node count after '{tag}', found '{count_text}'"))?;
        depths.push((depth, count));
    }
    Ok(Some((fen, depths)))
}

/// Runs every line of a perft suite file (e.g. `perftsuite.epd`) up to `max_depth`, calling
/// `on_line` after each position. Errors only for an unreadable file or a malformed line;
/// wrong counts are reported in the summary's `mismatches`.
pub fn run_suite(
    path: &Path,
    max_depth: u32,
    mode: CastlingMode,
    mut on_line: impl FnMut(&SuiteLine),
) -> Result<SuiteSummary, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read perft suite {}: {e}", path.display()))?;
    let mut summary = SuiteSummary::default();
    for (idx, raw) in text.lines().enumerate() {
        let line_no = idx + 1;
        let where_ = || format!("{}:{line_no}", path.display());
        let Some((fen, depths)) =
            parse_suite_line(raw).map_err(|e| format!("{}: {e}", where_()))?
        else {
            continue;
        };
        let pos = Position::from_fen_in(&fen, mode).map_err(|e| format!("{}: {e}", where_()))?;
        let mut line = SuiteLine {
            line_no,
            fen,
            results: Vec::new(),
            nodes: 0,
        };
        for (depth, expected) in depths.into_iter().filter(|&(d, _)| d <= max_depth) {
            let actual = perft(&pos, depth);
            line.nodes += actual;
            if actual != expected {
                summary.mismatches.push((line_no, depth, expected, actual));
            }
            line.results.push(DepthResult {
                depth,
                expected,
                actual,
            });
        }
        summary.positions += 1;
        summary.depths_checked += line.results.len();
        summary.nodes += line.nodes;
        on_line(&line);
    }
    Ok(summary)
}

/// `cerise perft`: the divide lines of `fen` (default: the start position) at `depth`, and
/// the time the count took.
pub fn perft_cli(
    depth: u32,
    fen: Option<&str>,
    chess960: bool,
) -> Result<(Vec<String>, std::time::Duration), String> {
    let mode = castling_mode(chess960);
    let position = match fen {
        Some(fen) => Position::from_fen_in(fen, mode).map_err(|e| e.to_string())?,
        None => Position::startpos_in(mode),
    };
    let started = std::time::Instant::now();
    let lines = perft_lines(&position, depth);
    Ok((lines, started.elapsed()))
}

/// `cerise perft-suite`: a line to `out` per position, then one per mismatch and the totals;
/// an error when any count differs.
pub fn suite_cli(
    file: &Path,
    depth: u32,
    chess960: bool,
    out: &mut dyn FnMut(String),
) -> Result<(), String> {
    let started = std::time::Instant::now();
    let summary = run_suite(file, depth, castling_mode(chess960), |line| {
        let status = if line.ok() { "ok" } else { "MISMATCH" };
        let deepest = line.results.last().map_or(0, |r| r.depth);
        out(format!(
            "line {:>3}: {status:<8} depth {deepest} {:>12} nodes  {}",
            line.line_no, line.nodes, line.fen
        ));
    })?;
    let secs = started.elapsed().as_secs_f64();
    for (line_no, d, expected, actual) in &summary.mismatches {
        out(format!(
            "mismatch: line {line_no} depth {d}: expected {expected}, counted {actual}"
        ));
    }
    out(format!(
        "{} positions, {} depths checked, {} mismatches, {} nodes in {secs:.1} s",
        summary.positions,
        summary.depths_checked,
        summary.mismatches.len(),
        summary.nodes
    ));
    if summary.passed() {
        Ok(())
    } else {
        Err(format!(
            "{} perft mismatches in {}",
            summary.mismatches.len(),
            file.display()
        ))
    }
}

/// How a command's `--chess960` flag reads castling.
pub fn castling_mode(chess960: bool) -> CastlingMode {
    if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perft_lines_sum_the_divide() {
        let lines = perft_lines(&Position::startpos(), 2);
        assert_eq!(lines.len(), 22);
        assert_eq!(lines.last().unwrap(), "Nodes searched: 400");
        assert!(lines.iter().any(|l| l == "e2e4: 20"));
        assert_eq!(
            perft_lines(&Position::startpos(), 0).last().unwrap(),
            "Nodes searched: 1"
        );
    }

    fn suite_path() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/perft/perftsuite.epd")
    }

    #[test]
    fn first_suite_positions_to_depth_3() {
        let path = suite_path();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "cannot read the perft suite {}: {e}; the tests expect the project's shared/ \
                 data beside the checkout (see README)",
                path.display()
            )
        });
        let mut checked = 0;
        for line in text.lines().take(10) {
            let Some((fen, depths)) = parse_suite_line(line).expect("well-formed line") else {
                continue;
            };
            let pos = Position::from_fen(&fen).expect("suite FEN valid");
            for (depth, expected) in depths.into_iter().filter(|&(d, _)| d <= 3) {
                assert_eq!(perft(&pos, depth), expected, "{fen} depth {depth}");
                checked += 1;
            }
        }
        assert_eq!(checked, 30);
    }

    #[test]
    fn divide_sums_to_perft() {
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .expect("kiwipete");
        let parts = divide(&pos, 3);
        assert_eq!(parts.len(), 48);
        assert_eq!(parts.iter().map(|(_, n)| n).sum::<u64>(), perft(&pos, 3));
        assert!(
            parts.iter().any(|(m, _)| m == "e1g1"),
            "castling printed as e1g1"
        );
    }

    #[test]
    fn parse_suite_line_rejects_garbage() {
        assert_eq!(parse_suite_line("   "), Ok(None));
        assert!(parse_suite_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;X1 3").is_err());
        assert!(parse_suite_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 many").is_err());
        let (fen, depths) = parse_suite_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D2 9")
            .expect("valid")
            .expect("not blank");
        assert_eq!(fen, "8/8/8/8/8/8/8/K6k w - - 0 1");
        assert_eq!(depths, vec![(1, 3), (2, 9)]);
    }

    #[test]
    fn run_suite_reports_mismatches() {
        let dir = std::env::temp_dir().join(format!("cerise-perft-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("mini.epd");
        std::fs::write(
            &file,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401 ;D3 8902\n",
        )
        .expect("write temp suite");
        let mut lines = 0;
        let summary = run_suite(&file, 2, CastlingMode::Standard, |l| {
            lines += 1;
            assert_eq!(l.results.len(), 2);
        })
        .expect("suite runs");
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(lines, 1);
        assert_eq!(summary.depths_checked, 2);
        assert_eq!(summary.mismatches, vec![(1, 2, 401, 400)]);
        assert!(run_suite(&dir.join("missing.epd"), 1, CastlingMode::Standard, |_| {}).is_err());
    }

    /// Depths 1-4 of the whole suite; run with `cargo test --release -- --ignored`.
    #[test]
    #[ignore]
    fn whole_suite_to_depth_4() {
        let summary =
            run_suite(&suite_path(), 4, CastlingMode::Standard, |_| {}).expect("suite runs");
        assert_eq!(summary.positions, 128);
        assert!(summary.passed(), "mismatches: {:?}", summary.mismatches);
    }
}

#[cfg(test)]
mod chess960_tests {
    use super::*;

    /// The Chess960 suite to depth 3 (counts from python-chess, bench/chess960/make_perft.py):
    /// 16 starting arrays and 16 later positions that still hold castling rights.
    #[test]
    fn chess960_suite_to_depth_3() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/chess960/perft960.epd");
        let summary = run_suite(&path, 3, CastlingMode::Chess960, |_| {}).expect("suite runs");
        assert_eq!(summary.positions, 32);
        assert!(summary.passed(), "mismatches: {:?}", summary.mismatches);
    }

    /// Standard chess cannot read the suite's castling rights (a king off e1, rooks off the
    /// corners): the test above needs the Chess960 mode, and a refusal names the line.
    #[test]
    fn standard_mode_refuses_the_chess960_castling_rights() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/chess960/perft960.epd");
        let e = run_suite(&path, 3, CastlingMode::Standard, |_| {}).unwrap_err();
        assert!(e.contains("perft960.epd:1"), "{e}");
    }
}
