//! The metrics CSV: one row every `eval_every` steps. A resumed run first drops rows past the
//! checkpoint it resumes from, so the file never holds two rows for one step.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

pub const HEADER: &str =
    "step,lr,train_loss,valid_loss,valid_accuracy,valid_mean_abs_pq,elapsed_s,boards_per_s";

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    pub step: u64,
    pub lr: f64,
    /// Mean training loss over the steps since the previous row.
    pub train_loss: f64,
    pub valid_loss: f64,
    /// Fraction of validation triplets with f(q) > f(r).
    pub valid_accuracy: f64,
    pub valid_mean_abs_pq: f64,
    pub elapsed_s: f64,
    /// Boards (three per triplet) through the forward pass per second of training. Files
    /// written before 2026-11-27 name this column `positions_per_s`; it held boards then too.
    pub boards_per_s: f64,
}

impl Row {
    pub fn to_csv(&self) -> String {
        format!(
            "{},{:.6e},{:.6},{:.6},{:.6},{:.6},{:.1},{:.0}",
            self.step,
            self.lr,
            self.train_loss,
            self.valid_loss,
            self.valid_accuracy,
            self.valid_mean_abs_pq,
            self.elapsed_s,
            self.boards_per_s
        )
    }

    pub fn parse(line: &str) -> Option<Row> {
        let v: Vec<f64> = line
            .split(',')
            .map(|f| f.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .ok()?;
        if v.len() != 8 {
            return None;
        }
        Some(Row {
            step: v[0] as u64,
            lr: v[1],
            train_loss: v[2],
            valid_loss: v[3],
            valid_accuracy: v[4],
            valid_mean_abs_pq: v[5],
            elapsed_s: v[6],
            boards_per_s: v[7],
        })
    }
}

pub fn read(path: &Path) -> Result<Vec<Row>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(text.lines().skip(1).filter_map(Row::parse).collect())
}

/// Rewrites `path` with the header and the rows at or before `step`.
pub fn truncate_after(path: &Path, step: u64) -> Result<()> {
    let rows: Vec<Row> = read(path)?.into_iter().filter(|r| r.step <= step).collect();
    let mut text = format!("{HEADER}\n");
    for r in rows {
        text.push_str(&r.to_csv());
        text.push('\n');
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

pub fn append(path: &Path, row: &Row) -> Result<()> {
    let fresh = !path.exists();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    if fresh {
        writeln!(f, "{HEADER}")?;
    }
    writeln!(f, "{}", row.to_csv()).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(step: u64) -> Row {
        Row {
            step,
            lr: 0.03,
            train_loss: 2.1,
            valid_loss: 2.2,
            valid_accuracy: 0.6,
            valid_mean_abs_pq: 0.1,
            elapsed_s: 3.0,
            boards_per_s: 1000.0,
        }
    }

    #[test]
    fn append_read_truncate() {
        let dir = std::env::temp_dir().join(format!("cerise-metrics-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("m.csv");
        let _ = std::fs::remove_file(&path);
        for s in [10, 20, 30] {
            append(&path, &row(s)).expect("append");
        }
        let rows = read(&path).expect("read");
        assert_eq!(
            rows.iter().map(|r| r.step).collect::<Vec<_>>(),
            [10, 20, 30]
        );
        assert_eq!(rows[0], row(10));
        truncate_after(&path, 20).expect("truncate");
        assert_eq!(read(&path).expect("read").len(), 2);
        let text = std::fs::read_to_string(&path).expect("text");
        assert!(text.starts_with(HEADER));
    }
}
