//! Crash-safe record file writer: records go to `<out>.partial`, the header count is patched
//! at the end and only then is the file renamed to `<out>`. A reader therefore never sees a
//! half-written file under the final name, and refuses a `.partial` left by a killed run (its
//! count is still 0).

use super::header::{encode, COUNT_OFFSET};
use super::{FileHeader, Record};
use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

pub struct RecordWriter<H: FileHeader> {
    out: Option<BufWriter<File>>,
    partial: PathBuf,
    path: PathBuf,
    header: H,
    buf: Vec<u8>,
}

/// Refuses to replace any of `outputs` unless `force`: a finished file is only ever replaced
/// on purpose.
pub fn refuse_existing(outputs: &[PathBuf], force: bool) -> Result<()> {
    if !force {
        if let Some(existing) = outputs.iter().find(|p| p.exists()) {
            bail!(
                "{} already exists; pass --force to replace it or choose another --out",
                existing.display()
            );
        }
    }
    Ok(())
}

/// `<path>.partial`, next to the final file so the rename stays on one filesystem.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".partial");
    PathBuf::from(name)
}

impl<H: FileHeader> RecordWriter<H> {
    /// Starts `<path>.partial` with `header` (its count is ignored and rewritten at the end).
    pub fn create(path: &Path, mut header: H) -> Result<Self> {
        let partial = partial_path(path);
        let file = File::create(&partial)
            .with_context(|| format!("cannot create {}", partial.display()))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        header.set_count(0);
        out.write_all(&encode(&header)?)
            .with_context(|| format!("cannot write header to {}", partial.display()))?;
        Ok(RecordWriter {
            out: Some(out),
            partial,
            path: path.to_path_buf(),
            header,
            buf: vec![0; H::Record::BYTES],
        })
    }

    pub fn write(&mut self, record: &H::Record) -> Result<()> {
        record.encode(&mut self.buf);
        let name = H::FORMAT.name;
        let out = self
            .out
            .as_mut()
            .with_context(|| format!("{name} writer already finished"))?;
        out.write_all(&self.buf)
            .with_context(|| format!("cannot write to {} (disk full?)", self.partial.display()))?;
        let count = self.header.count() + 1;
        self.header.set_count(count);
        Ok(())
    }

    pub fn count(&self) -> u64 {
        self.header.count()
    }

    /// Flushes, patches the count, syncs and renames to the final path; returns the count.
    pub fn finish(mut self) -> Result<u64> {
        let name = H::FORMAT.name;
        let out = self
            .out
            .take()
            .with_context(|| format!("{name} writer already finished"))?;
        let mut file = out
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(|| format!("cannot flush {} (disk full?)", self.partial.display()))?;
        file.seek(SeekFrom::Start(COUNT_OFFSET))?;
        file.write_all(&self.header.count().to_le_bytes())?;
        publish(file, &self.partial, &self.path)?;
        Ok(self.header.count())
    }
}

/// Syncs a finished `partial` file, renames it to `path` and syncs the directory: the
/// finished file appears under its name whole or not at all.
pub(crate) fn publish(file: File, partial: &Path, path: &Path) -> Result<()> {
    file.sync_all()
        .with_context(|| format!("cannot sync {}", partial.display()))?;
    drop(file);
    std::fs::rename(partial, path)
        .with_context(|| format!("cannot rename {} to {}", partial.display(), path.display()))?;
    sync_parent(path)
}

/// Syncs the directory that holds `path`, so that a rename (or a new file) in it survives a power loss: the
/// file's bytes are already synced, but the new name lives in the directory's own blocks.
pub(super) fn sync_parent(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot sync the directory {}", dir.display()))
}

impl<H: FileHeader> Drop for RecordWriter<H> {
    fn drop(&mut self) {
        // Abandoned on an error path: the partial file is useless, so do not leave it behind.
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}
