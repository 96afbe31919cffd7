//! The train, valid and test files of one run, split by game, and what the run wrote.

use super::writer::{refuse_existing, RecordWriter};
use super::FileHeader;
use crate::data::filter::SkipReason;
use crate::data::split::Split;
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `<prefix>.train.<ext>`, `<prefix>.valid.<ext>`, `<prefix>.test.<ext>`.
pub fn split_paths(prefix: &Path, ext: &str) -> [PathBuf; 3] {
    Split::ALL.map(|s| {
        let mut name = prefix.as_os_str().to_os_string();
        name.push(format!(".{}.{ext}", s.name()));
        PathBuf::from(name)
    })
}

/// Refuses to replace any of `outputs` unless `force`, and makes the folder of `prefix`.
pub fn prepare_outputs(outputs: &[PathBuf], prefix: &Path, force: bool) -> Result<()> {
    refuse_existing(outputs, force)?;
    if let Some(dir) = prefix.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output directory {}", dir.display()))?;
    }
    Ok(())
}

/// What one kind of run counts beyond the common counts, and how its summary shows it.
pub trait SummaryExtra: Clone + fmt::Debug + Default + PartialEq {
    /// What the records are called in the summary: "triplets", "positions".
    const NOUN: &'static str;
    /// Text after the count of games used.
    fn used_note(&self) -> String {
        String::new()
    }
    /// Lines between the skip reasons and the splits.
    fn middle_lines(&self) -> Vec<String> {
        Vec::new()
    }
}

/// What a run read, skipped and wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SplitSummary<X> {
    pub games_read: u64,
    /// Games that gave at least one record.
    pub games_used: u64,
    pub skipped: BTreeMap<SkipReason, u64>,
    /// Indexed by `Split as usize`: train, valid, test.
    pub games_per_split: [u64; 3],
    pub records_per_split: [u64; 3],
    pub outputs: Vec<PathBuf>,
    pub elapsed_s: f64,
    /// The kind's own counts.
    pub extra: X,
}

impl<X> SplitSummary<X> {
    pub fn records(&self) -> u64 {
        self.records_per_split.iter().sum()
    }

    pub fn games_skipped(&self) -> u64 {
        self.skipped.values().sum()
    }

    pub fn skip(&mut self, reason: SkipReason) {
        *self.skipped.entry(reason).or_default() += 1;
    }

    /// Counts a game that gave `records` records to `split`.
    pub fn used(&mut self, split: Split, records: u64) {
        let i = split as usize;
        self.games_used += 1;
        self.games_per_split[i] += 1;
        self.records_per_split[i] += records;
    }
}

impl<X: SummaryExtra> fmt::Display for SplitSummary<X> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rate = self.games_read as f64 / self.elapsed_s.max(1e-9);
        writeln!(
            f,
            "games read     {:>10}  ({:.1} s, {:.0} games/s)",
            self.games_read, self.elapsed_s, rate
        )?;
        writeln!(
            f,
            "games used     {:>10}{}",
            self.games_used,
            self.extra.used_note()
        )?;
        writeln!(f, "games skipped  {:>10}", self.games_skipped())?;
        for (reason, n) in &self.skipped {
            writeln!(f, "  {:<28}{:>10}", reason.describe(), n)?;
        }
        for line in self.extra.middle_lines() {
            writeln!(f, "{line}")?;
        }
        let noun = X::NOUN;
        for split in Split::ALL {
            let i = split as usize;
            writeln!(
                f,
                "{:<6} {:>10} {noun} from {:>8} games -> {}",
                split.name(),
                self.records_per_split[i],
                self.games_per_split[i],
                self.outputs
                    .get(i)
                    .map_or(String::new(), |p| p.display().to_string())
            )?;
        }
        // "triplets total" and "positions total" end in the same column.
        let width = 18usize.saturating_sub(noun.len());
        write!(f, "{noun} total {:>width$}", self.records())
    }
}

/// The three split files of a run being written, and its summary so far.
pub struct SplitRun<H: FileHeader, X> {
    writers: Vec<RecordWriter<H>>,
    pub summary: SplitSummary<X>,
    started: Instant,
}

impl<H: FileHeader, X: Default> SplitRun<H, X> {
    /// Starts `<prefix>.{train,valid,test}.<ext>`, each with the header `header` gives it.
    pub fn create(prefix: &Path, ext: &str, mut header: impl FnMut(Split) -> H) -> Result<Self> {
        let paths = split_paths(prefix, ext);
        let mut writers = Vec::with_capacity(3);
        for (split, path) in Split::ALL.iter().zip(&paths) {
            writers.push(RecordWriter::create(path, header(*split))?);
        }
        Ok(SplitRun {
            writers,
            summary: SplitSummary {
                outputs: paths.to_vec(),
                ..SplitSummary::default()
            },
            started: Instant::now(),
        })
    }

    pub fn writer(&mut self, split: Split) -> &mut RecordWriter<H> {
        &mut self.writers[split as usize]
    }

    /// Finishes the three files and returns the summary with the time taken.
    pub fn finish(self) -> Result<SplitSummary<X>> {
        for writer in self.writers {
            writer.finish()?;
        }
        let mut summary = self.summary;
        summary.elapsed_s = self.started.elapsed().as_secs_f64();
        Ok(summary)
    }
}
