//! Crash-safe positions file writer, like `super::super::writer::TripletWriter`: records go
//! to `<out>.partial`, the header count is patched at the end and only then is the file
//! renamed to `<out>`. A reader therefore never sees a half-written file under the final name,
//! and refuses a `.partial` left by a killed run (its count is still 0).

use super::super::writer::partial_path;
use super::header::{PositionHeader, COUNT_OFFSET};
use super::record::{LabelledPosition, RECORD_BYTES};
use anyhow::{Context, Result};
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

pub struct PositionWriter {
    out: Option<BufWriter<File>>,
    partial: PathBuf,
    path: PathBuf,
    header: PositionHeader,
}

impl PositionWriter {
    /// Starts `<path>.partial` with `header` (its count is ignored and rewritten at the end).
    pub fn create(path: &Path, header: PositionHeader) -> Result<Self> {
        let partial = partial_path(path);
        let file = File::create(&partial)
            .with_context(|| format!("cannot create {}", partial.display()))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let header = PositionHeader { count: 0, ..header };
        out.write_all(&header.to_bytes()?)
            .with_context(|| format!("cannot write header to {}", partial.display()))?;
        Ok(PositionWriter {
            out: Some(out),
            partial,
            path: path.to_path_buf(),
            header,
        })
    }

    pub fn write(&mut self, p: &LabelledPosition) -> Result<()> {
        let mut buf = [0u8; RECORD_BYTES];
        p.to_bytes(&mut buf);
        let out = self
            .out
            .as_mut()
            .context("positions writer already finished")?;
        out.write_all(&buf)
            .with_context(|| format!("cannot write to {} (disk full?)", self.partial.display()))?;
        self.header.count += 1;
        Ok(())
    }

    pub fn count(&self) -> u64 {
        self.header.count
    }

    /// Flushes, patches the count, syncs and renames to the final path; returns the count.
    pub fn finish(mut self) -> Result<u64> {
        let out = self
            .out
            .take()
            .context("positions writer already finished")?;
        let mut file = out
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(|| format!("cannot flush {} (disk full?)", self.partial.display()))?;
        file.seek(SeekFrom::Start(COUNT_OFFSET))?;
        file.write_all(&self.header.count.to_le_bytes())?;
        file.sync_all()
            .with_context(|| format!("cannot sync {}", self.partial.display()))?;
        drop(file);
        std::fs::rename(&self.partial, &self.path).with_context(|| {
            format!(
                "cannot rename {} to {}",
                self.partial.display(),
                self.path.display()
            )
        })?;
        Ok(self.header.count)
    }
}

impl Drop for PositionWriter {
    fn drop(&mut self) {
        // Abandoned on an error path: the partial file is useless, so do not leave it behind.
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}
