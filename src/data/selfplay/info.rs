//! `cerise datagen info`: what a self-play file holds: its settings, its games and their
//! results, and the spread of the search's scores. Every record is read and checked on the
//! way, so this also validates a file end to end.

use super::record::Outcome;
use super::{SelfPlayHeader, SelfPlayReader};
use crate::data::records::progress::{Progress, Unit};
use anyhow::{Context, Result};
use std::fmt;
use std::path::PathBuf;

/// Print a self-play file's settings, games, results and score histogram.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayInfoArgs {
    /// A file written by `cerise datagen`.
    pub file: PathBuf,
    /// Also replay every position and check its best move is legal (slower).
    #[arg(long)]
    pub check: bool,
    /// No progress display on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

/// Upper edges (centipawns, absolute score) of the histogram's buckets; the last is open.
pub const SCORE_EDGES: [i32; 8] = [25, 50, 100, 200, 400, 800, 1600, 3200];

/// Counts over all records of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SelfPlayCounts {
    pub positions: u64,
    pub games: u64,
    /// Games by result, from White's view: 1-0, draw, 0-1.
    pub game_results: [u64; 3],
    /// Positions by the game's result: 1-0, draw, 0-1.
    pub position_results: [u64; 3],
    pub white_to_move: u64,
    /// Positions whose score is a mate.
    pub mates: u64,
    /// Positions by |score|: one bucket per edge of [`SCORE_EDGES`], then the rest.
    pub histogram: [u64; SCORE_EDGES.len() + 1],
    pub longest_game: u16,
    pub checked: bool,
}

fn result_index(result: Outcome) -> usize {
    match result {
        Outcome::WhiteWins => 0,
        Outcome::Draw => 1,
        Outcome::BlackWins => 2,
    }
}

pub struct SelfPlayInfo {
    pub path: PathBuf,
    pub header: SelfPlayHeader,
    pub counts: SelfPlayCounts,
}

/// Reads and validates the whole file.
pub fn run_selfplay_info(args: &SelfPlayInfoArgs) -> Result<SelfPlayInfo> {
    let mut reader = SelfPlayReader::open(&args.file)?;
    let mut counts = SelfPlayCounts {
        checked: args.check,
        ..SelfPlayCounts::default()
    };
    let mut progress = Progress::new("info", reader.len(), Unit::Items, args.no_progress)?;
    let mut batch = Vec::new();
    let mut last_game = None;
    while reader.read_batch(1 << 16, &mut batch)? > 0 {
        for r in &batch {
            counts.positions += 1;
            if last_game != Some(r.game) {
                last_game = Some(r.game);
                counts.games += 1;
                counts.game_results[result_index(r.result)] += 1;
            }
            counts.position_results[result_index(r.result)] += 1;
            counts.white_to_move += u64::from(r.turn == shakmaty::Color::White);
            counts.longest_game = counts.longest_game.max(r.ply.saturating_add(1));
            let score = i32::from(r.score).abs();
            if score >= crate::data::selfplay::record::MATE_BOUND {
                counts.mates += 1;
            }
            let bucket = SCORE_EDGES
                .iter()
                .position(|&edge| score < edge)
                .unwrap_or(SCORE_EDGES.len());
            counts.histogram[bucket] += 1;
            if args.check {
                r.position_and_move()
                    .with_context(|| format!("{} is damaged", args.file.display()))?;
            }
        }
        progress.update(counts.positions, format!("{} games", counts.games));
    }
    progress.finish();
    Ok(SelfPlayInfo {
        path: args.file.clone(),
        header: reader.header().clone(),
        counts,
    })
}

impl fmt::Display for SelfPlayInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.header;
        let c = &self.counts;
        let pct = |n: u64, of: u64| 100.0 * n as f64 / of.max(1) as f64;
        writeln!(f, "file           {}", self.path.display())?;
        writeln!(f, "format         CRSSELF1 version {}", h.version)?;
        writeln!(f, "net            {}", h.net)?;
        writeln!(
            f,
            "engine         {} (search signature {})",
            h.engine, h.search
        )?;
        writeln!(
            f,
            "play           {} nodes a move, hash {} MiB, seed {}, {} random plies{}",
            h.nodes,
            h.hash_mib,
            h.seed,
            h.random_plies,
            if h.book.is_empty() {
                String::new()
            } else {
                format!(" after a line of {}", h.book)
            }
        )?;
        if h.depth > 0 {
            writeln!(
                f,
                "depth          every search stops at depth {} (or at the node budget)",
                h.depth
            )?;
        }
        if h.chess960_percent + h.double_chess960_percent > 0 {
            writeln!(
                f,
                "starts         {}% Chess960, {}% double Chess960",
                h.chess960_percent, h.double_chess960_percent
            )?;
        }
        writeln!(
            f,
            "adjudication   starts beyond {} cp skipped; win at {} cp for {} plies; draw within \
             {} cp for {} plies after ply {}; draw at ply {}",
            h.opening_bound,
            h.win_bound,
            h.win_plies,
            h.draw_bound,
            h.draw_plies,
            h.draw_after,
            h.max_plies
        )?;
        writeln!(
            f,
            "positions      {} in {} games ({:.1} a game, longest {} plies)",
            c.positions,
            c.games,
            c.positions as f64 / c.games.max(1) as f64,
            c.longest_game
        )?;
        let [w, d, b] = c.game_results;
        writeln!(
            f,
            "games          1-0 {w} ({:.1}%), draw {d} ({:.1}%), 0-1 {b} ({:.1}%)",
            pct(w, c.games),
            pct(d, c.games),
            pct(b, c.games)
        )?;
        let [w, d, b] = c.position_results;
        writeln!(
            f,
            "positions by   1-0 {w} ({:.1}%), draw {d} ({:.1}%), 0-1 {b} ({:.1}%)",
            pct(w, c.positions),
            pct(d, c.positions),
            pct(b, c.positions)
        )?;
        writeln!(
            f,
            "side to move   white {} ({:.1}%)",
            c.white_to_move,
            pct(c.white_to_move, c.positions)
        )?;
        writeln!(f, "|score| (cp)   positions")?;
        let mut low = 0;
        for (i, &n) in c.histogram.iter().enumerate() {
            let label = match SCORE_EDGES.get(i) {
                Some(&edge) => format!("{low}-{}", edge - 1),
                None => format!("{low}+"),
            };
            writeln!(f, "  {label:<11} {n:>12} ({:.1}%)", pct(n, c.positions))?;
            low = SCORE_EDGES.get(i).copied().unwrap_or(low);
        }
        write!(
            f,
            "mate scores    {} ({:.1}%){}",
            c.mates,
            pct(c.mates, c.positions),
            if c.checked {
                "; every position and best move checked"
            } else {
                ""
            }
        )
    }
}
