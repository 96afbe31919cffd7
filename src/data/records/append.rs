//! Append-only record files that a killed run resumes: records are pushed into a pending
//! buffer, and [`RecordAppender::commit`] writes them, syncs them, and only then patches the
//! header's count. A kill at any moment leaves a file whose count names only whole commits;
//! the bytes of a commit that did not finish lie past the count, and the next
//! [`RecordAppender::open`] cuts them off. A writer commits at unit boundaries (whole games),
//! so a resumed run neither loses nor repeats a unit.

use super::header::{encode, COUNT_OFFSET};
use super::reader::read_header;
use super::{FileHeader, Record};
use anyhow::{bail, Context, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub struct RecordAppender<H: FileHeader> {
    file: File,
    path: PathBuf,
    header: H,
    data_start: u64,
    pending: Vec<u8>,
    buf: Vec<u8>,
}

/// What opening an existing file found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resumed {
    /// Records committed by earlier runs.
    pub committed: u64,
    /// Bytes of an unfinished commit that were cut off.
    pub dropped_bytes: u64,
}

/// Why `existing` (the file's header) and `wanted` (this run's) may not share a file: each
/// setting that differs, by name.
pub fn setting_differences<H: FileHeader>(existing: &H, wanted: &H) -> Vec<String> {
    let theirs = existing.settings();
    let ours = wanted.settings();
    let mut out = Vec::new();
    for (name, value) in &ours {
        match theirs.iter().find(|(n, _)| n == name) {
            Some((_, old)) if old == value => {}
            Some((_, old)) => out.push(format!("{name} is {old} in the file, {value} in this run")),
            None => out.push(format!(
                "{name} is missing from the file, {value} in this run"
            )),
        }
    }
    out
}

impl<H: FileHeader> RecordAppender<H> {
    /// Opens `path` for appending. A new file is created with `header`; an existing one must
    /// have been made with the same [`FileHeader::settings`], and any tail past its count is
    /// cut off. Returns what an existing file held.
    pub fn open(path: &Path, header: H) -> Result<(Self, Option<Resumed>)> {
        let exists = path.exists();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot open {} for writing", path.display()))?;
        let size = file
            .metadata()
            .with_context(|| format!("cannot stat {}", path.display()))?
            .len();
        let record_bytes = H::Record::BYTES as u64;
        if !exists || size == 0 {
            let mut header = header;
            header.set_count(0);
            let bytes = encode(&header)?;
            file.write_all_at(&bytes, 0)
                .with_context(|| format!("cannot write the header of {}", path.display()))?;
            file.sync_all()
                .with_context(|| format!("cannot sync {}", path.display()))?;
            super::writer::sync_parent(path)?;
            let appender = RecordAppender {
                file,
                path: path.to_path_buf(),
                header,
                data_start: bytes.len() as u64,
                pending: Vec::new(),
                buf: vec![0; H::Record::BYTES],
            };
            return Ok((appender, None));
        }
        let (existing, header_len) = read_header::<H>(&file, path, size)?;
        let differences = setting_differences(&existing, &header);
        if !differences.is_empty() {
            bail!(
                "{} was made with other settings: {}; run with the file's settings to add to \
                 it, or write to another file",
                path.display(),
                differences.join("; ")
            );
        }
        let committed = existing.count();
        let end = header_len + committed * record_bytes;
        if size < end {
            bail!(
                "{}: file truncated: header says {committed} records, file holds {}; the file \
                 is damaged, start a new one",
                path.display(),
                (size - header_len) / record_bytes
            );
        }
        if size > end {
            file.set_len(end)
                .with_context(|| format!("cannot cut the unfinished tail of {}", path.display()))?;
            file.sync_all()
                .with_context(|| format!("cannot sync {}", path.display()))?;
        }
        let appender = RecordAppender {
            file,
            path: path.to_path_buf(),
            header: existing,
            data_start: header_len,
            pending: Vec::new(),
            buf: vec![0; H::Record::BYTES],
        };
        Ok((
            appender,
            Some(Resumed {
                committed,
                dropped_bytes: size - end,
            }),
        ))
    }

    /// The file's header; its count is the committed records.
    pub fn header(&self) -> &H {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records committed so far, by this run and earlier ones.
    pub fn count(&self) -> u64 {
        self.header.count()
    }

    /// Records pushed since the last commit.
    pub fn pending(&self) -> u64 {
        (self.pending.len() / H::Record::BYTES) as u64
    }

    /// Adds a record to the next commit.
    pub fn push(&mut self, record: &H::Record) {
        record.encode(&mut self.buf);
        self.pending.extend_from_slice(&self.buf);
    }

    /// Writes the pending records, syncs them, then patches and syncs the count; returns the
    /// committed total.
    pub fn commit(&mut self) -> Result<u64> {
        if self.pending.is_empty() {
            return Ok(self.count());
        }
        let records = self.pending();
        let at = self.data_start + self.count() * H::Record::BYTES as u64;
        let path = self.path.display();
        self.file
            .write_all_at(&self.pending, at)
            .with_context(|| format!("cannot write to {path} (disk full?)"))?;
        self.file
            .sync_data()
            .with_context(|| format!("cannot sync {path}"))?;
        let count = self.count() + records;
        self.file
            .write_all_at(&count.to_le_bytes(), COUNT_OFFSET)
            .with_context(|| format!("cannot update the record count of {path}"))?;
        self.file
            .sync_data()
            .with_context(|| format!("cannot sync {path}"))?;
        self.header.set_count(count);
        self.pending.clear();
        Ok(count)
    }

    /// The last committed record, if any.
    pub fn last(&self) -> Result<Option<H::Record>> {
        let count = self.count();
        if count == 0 {
            return Ok(None);
        }
        let bytes = H::Record::BYTES;
        let mut rec = vec![0u8; bytes];
        self.file
            .read_exact_at(&mut rec, self.data_start + (count - 1) * bytes as u64)
            .with_context(|| format!("cannot read {}", self.path.display()))?;
        H::Record::decode(&rec, count - 1).map(Some)
    }
}
