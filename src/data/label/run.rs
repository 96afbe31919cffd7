//! Labelling chosen positions with engine processes in parallel, appending each finished
//! position to the labels file at once, so a kill loses at most the searches in flight.

use super::file::{Label, LabelRow, LabelsFile, LabelsHeader};
use super::select::Candidate;
use super::uci_client::{EngineSpec, SearchLimit, UciEngine};
use anyhow::{bail, ensure, Context, Result};
use crossbeam::channel::{bounded, unbounded};
use std::collections::HashSet;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// How labelling runs.
#[derive(Clone, Debug)]
pub struct LabelJob {
    pub engine: EngineSpec,
    pub limit: SearchLimit,
    /// Extra fixed-depth evaluations per position (the study's search inputs).
    pub extra_depths: Vec<u32>,
    /// Engine processes, one search thread each.
    pub jobs: usize,
    pub source: String,
    pub selection: String,
}

/// Where labelling stands, for progress display.
#[derive(Clone, Copy, Debug)]
pub struct LabelProgress {
    /// Labelled by this run.
    pub labelled: u64,
    /// Left to label when this run started.
    pub pending: u64,
    pub elapsed_s: f64,
}

#[derive(Clone, Debug)]
pub struct LabelSummary {
    pub out: PathBuf,
    pub engine: String,
    pub limit: SearchLimit,
    pub jobs: usize,
    /// Found in the file from an earlier run.
    pub resumed: u64,
    pub labelled: u64,
    pub total: u64,
    pub elapsed_s: f64,
}

impl fmt::Display for LabelSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "engine         {} ({}, jobs {})",
            self.engine, self.limit, self.jobs
        )?;
        if self.resumed > 0 {
            writeln!(
                f,
                "resumed        {:>8} positions already in the file",
                self.resumed
            )?;
        }
        let per = if self.labelled > 0 {
            self.elapsed_s * self.jobs as f64 / self.labelled as f64
        } else {
            0.0
        };
        writeln!(
            f,
            "labelled       {:>8} positions in {:.0} s ({per:.3} s each per process)",
            self.labelled, self.elapsed_s
        )?;
        write!(
            f,
            "total          {:>8} positions -> {}",
            self.total,
            self.out.display()
        )
    }
}

/// Labels every candidate not already in `out` (created if missing) and returns the counts.
/// A file made with other settings, or whose rows do not match the candidates, is refused.
pub fn label_candidates(
    candidates: &[Candidate],
    out: &Path,
    job: &LabelJob,
    mut on_progress: impl FnMut(&LabelProgress),
) -> Result<LabelSummary> {
    ensure!(job.jobs >= 1, "--jobs must be at least 1");
    let started = Instant::now();
    let jobs = job.jobs.min(candidates.len().max(1));
    let mut engines = Vec::with_capacity(jobs);
    for _ in 0..jobs {
        engines.push(UciEngine::start(&job.engine)?);
    }
    let header = LabelsHeader {
        engine: engines[0].name.clone(),
        limit: job.limit.to_string(),
        extra_depths: job.extra_depths.clone(),
        source: job.source.clone(),
        selection: job.selection.clone(),
    };
    let (mut file, done) = open_output(out, &header, candidates)?;
    let resumed = done.len() as u64;
    let pending: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| !done.contains(&c.index))
        .collect();
    let mut progress = LabelProgress {
        labelled: 0,
        pending: pending.len() as u64,
        elapsed_s: 0.0,
    };
    on_progress(&progress);

    let stop = AtomicBool::new(false);
    let (work_tx, work_rx) = bounded::<&Candidate>(jobs * 2);
    let (result_tx, result_rx) = unbounded::<Result<LabelRow>>();
    let outcome: Result<()> = std::thread::scope(|scope| {
        for mut engine in engines {
            let work_rx = work_rx.clone();
            let result_tx = result_tx.clone();
            let stop = &stop;
            scope.spawn(move || {
                for candidate in work_rx {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let row = label_one(&mut engine, candidate, job);
                    let failed = row.is_err();
                    if result_tx.send(row).is_err() || failed {
                        break;
                    }
                }
            });
        }
        // Only the workers may hold the receiving end: when they have all stopped, the feeder's
        // send fails instead of blocking forever.
        drop(work_rx);
        drop(result_tx);
        let stop = &stop;
        scope.spawn(move || {
            for candidate in pending {
                if stop.load(Ordering::Relaxed) || work_tx.send(candidate).is_err() {
                    break;
                }
            }
        });
        for row in result_rx {
            let row = match row {
                Ok(row) => row,
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            };
            let written = file
                .write_all(row.render().as_bytes())
                .and_then(|_| file.flush());
            if let Err(e) = written {
                stop.store(true, Ordering::Relaxed);
                return Err(e).with_context(|| format!("cannot write {}", out.display()));
            }
            progress.labelled += 1;
            progress.elapsed_s = started.elapsed().as_secs_f64();
            on_progress(&progress);
        }
        Ok(())
    });
    outcome.with_context(|| {
        format!(
            "labelling stopped; the {} positions labelled so far are kept in {}, and the \
             same command resumes",
            resumed + progress.labelled,
            out.display()
        )
    })?;
    file.sync_all()
        .with_context(|| format!("cannot sync {}", out.display()))?;
    Ok(LabelSummary {
        out: out.to_path_buf(),
        engine: header.engine,
        limit: job.limit,
        jobs,
        resumed,
        labelled: progress.labelled,
        total: resumed + progress.labelled,
        elapsed_s: started.elapsed().as_secs_f64(),
    })
}

fn label_one(engine: &mut UciEngine, c: &Candidate, job: &LabelJob) -> Result<LabelRow> {
    let score = engine.evaluate(&c.fen, job.limit)?;
    let mut extra = Vec::with_capacity(job.extra_depths.len());
    for &depth in &job.extra_depths {
        let s = engine.evaluate(&c.fen, SearchLimit::Depth(depth))?;
        extra.push(Label::from_engine(s, c.white_to_move));
    }
    Ok(LabelRow {
        index: c.index,
        game: c.game,
        ply: c.ply,
        fen: c.fen.clone(),
        score: Label::from_engine(score, c.white_to_move),
        extra,
    })
}

/// Opens `out` for appending: creates it with `header`, or checks an existing file against
/// `header` and `candidates`, drops a partial last line, and returns the indices it holds.
fn open_output(
    out: &Path,
    header: &LabelsHeader,
    candidates: &[Candidate],
) -> Result<(File, HashSet<u64>)> {
    if !out.exists() {
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create directory {}", dir.display()))?;
        }
        let mut file =
            File::create(out).with_context(|| format!("cannot create {}", out.display()))?;
        file.write_all(header.render().as_bytes())
            .and_then(|_| file.flush())
            .with_context(|| format!("cannot write {}", out.display()))?;
        return Ok((file, HashSet::new()));
    }
    let existing = LabelsFile::open(out)?;
    if let Some(diff) = existing.header.difference(header) {
        bail!(
            "{} was made with other settings ({diff}); resume with the same settings, or \
             choose another --out",
            out.display()
        );
    }
    let mut done = HashSet::with_capacity(existing.rows.len());
    for row in &existing.rows {
        let matches = candidates
            .get(row.index as usize)
            .is_some_and(|c| c.fen == row.fen && c.game == row.game);
        ensure!(
            matches,
            "{}: the row for position {} ({}) is not the position these settings choose \
             there; was the source file changed? Choose another --out",
            out.display(),
            row.index,
            row.fen
        );
        ensure!(
            done.insert(row.index),
            "{}: position {} appears twice",
            out.display(),
            row.index
        );
    }
    // Drop the partial line a kill may have left; appends then go after the complete rows.
    let file = OpenOptions::new()
        .append(true)
        .open(out)
        .with_context(|| format!("cannot open {} for appending", out.display()))?;
    file.set_len(existing.complete_bytes)
        .with_context(|| format!("cannot truncate {}", out.display()))?;
    Ok((file, done))
}
