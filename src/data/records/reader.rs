//! Reading record files: sequential batches for training and random access for shuffling.
//! Positioned reads (`pread`) serve both, so `get` needs only `&self` and can be called from
//! several threads at once.

use super::header::{announced_len, decode};
use super::{FileHeader, Record};
use anyhow::{ensure, Context, Result};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Records read per `pread` in `read_batch`; large enough to amortise the system call.
const CHUNK_RECORDS: usize = 8192;

#[derive(Debug)]
pub struct RecordReader<H: FileHeader> {
    file: File,
    path: PathBuf,
    header: H,
    data_start: u64,
    next: u64,
    buf: Vec<u8>,
}

/// Reads the header of the file at `path` and returns it with its length in bytes.
pub fn read_header<H: FileHeader>(file: &File, path: &Path, size: u64) -> Result<(H, u64)> {
    let describe = |e: anyhow::Error| e.context(format!("{} is not readable", path.display()));
    let mut prefix = [0u8; 16];
    let prefix_len = (size as usize).min(16);
    file.read_exact_at(&mut prefix[..prefix_len], 0)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let header_len = announced_len(H::FORMAT, &prefix[..prefix_len]).map_err(describe)?;
    ensure!(
        size >= u64::from(header_len),
        "{}: file truncated inside its header ({size} of {header_len} bytes)",
        path.display()
    );
    let mut header_bytes = vec![0u8; header_len as usize];
    file.read_exact_at(&mut header_bytes, 0)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let header: H = decode(&header_bytes).map_err(describe)?;
    Ok((header, u64::from(header_len)))
}

impl<H: FileHeader> RecordReader<H> {
    /// Opens and validates `path`: magic, version, record size, the kind's own checks, and
    /// that the file holds exactly the number of records the header announces (at least that
    /// many, for an appendable kind, whose uncommitted tail is ignored).
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let size = file
            .metadata()
            .with_context(|| format!("cannot stat {}", path.display()))?
            .len();
        let (header, header_len) = read_header::<H>(&file, path, size)?;
        header
            .check()
            .with_context(|| format!("{} cannot be used", path.display()))?;
        let bytes = H::Record::BYTES as u64;
        let data = size - header_len;
        let held = data / bytes;
        let count = header.count();
        ensure!(
            held >= count,
            "{}: file truncated: header says {count} records, file holds {held}",
            path.display(),
        );
        ensure!(
            H::FORMAT.appendable || data == count * bytes,
            "{}: {} bytes follow the {count} records the header announces; the file is corrupt \
             (a `.partial` file left by an interrupted run? run the command again)",
            path.display(),
            data - count * bytes,
        );
        Ok(RecordReader {
            file,
            path: path.to_path_buf(),
            header,
            data_start: header_len,
            next: 0,
            buf: Vec::new(),
        })
    }

    pub fn header(&self) -> &H {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn len(&self) -> u64 {
        self.header.count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index of the record the next `read_batch` starts at.
    pub fn position(&self) -> u64 {
        self.next
    }

    /// Moves the sequential cursor; `index == len()` means "at the end".
    pub fn seek(&mut self, index: u64) -> Result<()> {
        ensure!(
            index <= self.len(),
            "cannot seek to record {index}: {} holds {}",
            self.path.display(),
            self.len()
        );
        self.next = index;
        Ok(())
    }

    /// Clears `out` and fills it with up to `n` records from the cursor on; returns how many
    /// were read (0 at the end of the file).
    pub fn read_batch(&mut self, n: usize, out: &mut Vec<H::Record>) -> Result<usize> {
        let bytes = H::Record::BYTES;
        out.clear();
        let want = (n as u64).min(self.len() - self.next) as usize;
        out.reserve(want);
        while out.len() < want {
            let k = (want - out.len()).min(CHUNK_RECORDS);
            self.buf.resize(k * bytes, 0);
            let offset = self.data_start + self.next * bytes as u64;
            self.file
                .read_exact_at(&mut self.buf, offset)
                .with_context(|| format!("cannot read {}", self.path.display()))?;
            for (i, rec) in self.buf.chunks_exact(bytes).enumerate() {
                out.push(H::Record::decode(rec, self.next + i as u64)?);
            }
            self.next += k as u64;
        }
        Ok(want)
    }

    /// Record `index`, independent of the sequential cursor.
    pub fn get(&self, index: u64) -> Result<H::Record> {
        ensure!(
            index < self.len(),
            "record {index} out of range: {} holds {}",
            self.path.display(),
            self.len()
        );
        let bytes = H::Record::BYTES;
        let mut rec = vec![0u8; bytes];
        self.file
            .read_exact_at(&mut rec, self.data_start + index * bytes as u64)
            .with_context(|| format!("cannot read {}", self.path.display()))?;
        H::Record::decode(&rec, index)
    }
}
