//! The progress of a long command on stderr: a bar on a terminal, and a line every so often
//! when stderr is a log file, so that a run in the background still says how far it is.

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Progress lines when stderr is not a terminal come this often.
pub const LOG_EVERY: Duration = Duration::from_secs(10);

/// What the bar counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bytes of an input file.
    Bytes,
    /// Things of the command's own (games, records).
    Items,
}

pub struct Progress {
    bar: ProgressBar,
    tag: &'static str,
    total: u64,
    log_lines: bool,
    started: Instant,
    last_line: Instant,
}

impl Progress {
    /// Progress over `total` units, shown as `[tag] ...` lines when stderr is not a terminal;
    /// nothing at all with `hidden`.
    pub fn new(tag: &'static str, total: u64, unit: Unit, hidden: bool) -> Result<Self> {
        let bar = if hidden {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
        };
        let template = match unit {
            Unit::Bytes => {
                "{elapsed_precise} [{bar:30}] {binary_bytes}/{binary_total_bytes} eta {eta} {msg}"
            }
            Unit::Items => "{elapsed_precise} [{bar:30}] {pos}/{len} eta {eta} {msg}",
        };
        bar.set_style(
            ProgressStyle::with_template(template)
                .context("progress template")?
                .progress_chars("=> "),
        );
        let now = Instant::now();
        Ok(Progress {
            bar,
            tag,
            total,
            log_lines: !hidden && !std::io::stderr().is_terminal(),
            started: now,
            last_line: now,
        })
    }

    /// Seconds since the start.
    pub fn elapsed_s(&self) -> f64 {
        self.started.elapsed().as_secs_f64().max(1e-9)
    }

    /// Moves the bar to `done` with `message`; on a log, writes a line every [`LOG_EVERY`].
    pub fn update(&mut self, done: u64, message: String) {
        if self.log_lines && self.last_line.elapsed() >= LOG_EVERY {
            self.last_line = Instant::now();
            let pct = 100.0 * done as f64 / self.total.max(1) as f64;
            eprintln!(
                "[{}] {:.0} s, {pct:.0}%: {message}",
                self.tag,
                self.elapsed_s()
            );
        }
        self.bar.set_position(done);
        self.bar.set_message(message);
    }

    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}
