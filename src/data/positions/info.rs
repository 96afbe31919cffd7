//! `cerise data positions-info`: a positions file's header and what its records hold. Every
//! record is read and validated on the way, so this also checks a file end to end.

use super::PositionReader;
use anyhow::Result;
use std::fmt;
use std::path::PathBuf;

/// Print a positions file's header and counts (results, side to move); validates every record.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct PositionsInfoArgs {
    /// A `.pos` file written by `cerise data positions`.
    pub file: PathBuf,
}

/// Counts over all records of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PositionCounts {
    pub records: u64,
    pub white_to_move: u64,
    /// Results from White's view: 1-0, draw, 0-1.
    pub white_results: [u64; 3],
    /// Results from the side to move's view: won, drew, lost.
    pub stm_results: [u64; 3],
    pub promotions: u64,
    /// Records of the first move of a game (ply 0), a lower bound on the games when
    /// `--skip-plies` is 0 and `--every` is 1.
    pub first_moves: u64,
}

impl PositionCounts {
    pub fn add(&mut self, p: &super::record::LabelledPosition) {
        self.records += 1;
        self.white_to_move += u64::from(p.white_to_move);
        self.white_results[(1 - p.result) as usize] += 1;
        self.stm_results[(1 - p.stm_result()) as usize] += 1;
        self.promotions += u64::from(p.promotion.is_some());
        self.first_moves += u64::from(p.ply == 0);
    }
}

pub struct PositionsInfo {
    pub path: PathBuf,
    pub header: super::header::PositionHeader,
    pub counts: PositionCounts,
}

/// Reads and validates the whole file.
pub fn run_positions_info(args: &PositionsInfoArgs) -> Result<PositionsInfo> {
    let mut reader = PositionReader::open(&args.file)?;
    let mut counts = PositionCounts::default();
    let mut batch = Vec::new();
    while reader.read_batch(1 << 16, &mut batch)? > 0 {
        for p in &batch {
            counts.add(p);
        }
    }
    Ok(PositionsInfo {
        path: args.file.clone(),
        header: reader.header().clone(),
        counts,
    })
}

impl fmt::Display for PositionsInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.header;
        let c = &self.counts;
        let pct = |n: u64| 100.0 * n as f64 / c.records.max(1) as f64;
        writeln!(f, "file           {}", self.path.display())?;
        writeln!(f, "format         CRSPOS01 version {}", h.version)?;
        writeln!(f, "source         {}", h.source)?;
        writeln!(f, "encoding       {}", h.encoding)?;
        writeln!(
            f,
            "split          {} (weights {}/{}/{} per mille{})",
            h.split.map_or("unsplit", |s| s.name()),
            h.split_weights[0],
            h.split_weights[1],
            h.split_weights[2],
            h.test_after
                .map_or(String::new(), |d| format!(", test = games from {d} on"))
        )?;
        writeln!(
            f,
            "filters        ending {}, min Elo {}, skip {} plies, every {}, seed {}",
            h.ending, h.min_elo, h.skip_plies, h.every, h.seed
        )?;
        writeln!(f, "records        {}", c.records)?;
        writeln!(
            f,
            "side to move   white {} ({:.1}%), black {} ({:.1}%)",
            c.white_to_move,
            pct(c.white_to_move),
            c.records - c.white_to_move,
            pct(c.records - c.white_to_move)
        )?;
        let [w, d, b] = c.white_results;
        writeln!(
            f,
            "result (White) 1-0 {w} ({:.1}%), draw {d} ({:.1}%), 0-1 {b} ({:.1}%)",
            pct(w),
            pct(d),
            pct(b)
        )?;
        let [won, drew, lost] = c.stm_results;
        writeln!(
            f,
            "result (mover) won {won} ({:.1}%), drew {drew} ({:.1}%), lost {lost} ({:.1}%)",
            pct(won),
            pct(drew),
            pct(lost)
        )?;
        write!(
            f,
            "promotions     {}; first-move records {}",
            c.promotions, c.first_moves
        )
    }
}
