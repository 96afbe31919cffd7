//! Reading positions files: sequential batches for training and random access for shuffling,
//! both by positioned reads (`pread`), as `super::super::reader::TripletReader` does, so `get`
//! needs only `&self` and can be called from several threads at once.

use super::header::PositionHeader;
use super::record::{LabelledPosition, RECORD_BYTES};
use crate::chess::ENCODING_NAME;
use anyhow::{ensure, Context, Result};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Records read per `pread` in `read_batch`; large enough to amortise the system call.
const CHUNK_RECORDS: usize = 8192;

#[derive(Debug)]
pub struct PositionReader {
    file: File,
    path: PathBuf,
    header: PositionHeader,
    data_start: u64,
    next: u64,
    buf: Vec<u8>,
}

impl PositionReader {
    /// Opens and validates `path`: magic, version, record size, board encoding, and that the
    /// file holds exactly the number of records the header announces.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let size = file
            .metadata()
            .with_context(|| format!("cannot stat {}", path.display()))?
            .len();
        let describe = |e: anyhow::Error| e.context(format!("{} is not readable", path.display()));
        let mut prefix = [0u8; 16];
        let prefix_len = (size as usize).min(16);
        file.read_exact_at(&mut prefix[..prefix_len], 0)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let header_len = PositionHeader::announced_len(&prefix[..prefix_len]).map_err(describe)?;
        ensure!(
            size >= u64::from(header_len),
            "{}: file truncated inside its header ({size} of {header_len} bytes)",
            path.display()
        );
        let mut header_bytes = vec![0u8; header_len as usize];
        file.read_exact_at(&mut header_bytes, 0)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let header = PositionHeader::from_bytes(&header_bytes).map_err(describe)?;
        ensure!(
            header.encoding == ENCODING_NAME,
            "{}: boards use the encoding {:?} but this build reads {ENCODING_NAME:?}; \
             regenerate the file with `cerise data positions`",
            path.display(),
            header.encoding
        );
        let data = size - u64::from(header_len);
        let held = data / RECORD_BYTES as u64;
        ensure!(
            held >= header.count,
            "{}: file truncated: header says {} records, file holds {held}",
            path.display(),
            header.count
        );
        ensure!(
            data == header.count * RECORD_BYTES as u64,
            "{}: {} bytes follow the {} records the header announces; the file is corrupt \
             (a `.partial` file left by an interrupted run? run the command again)",
            path.display(),
            data - header.count * RECORD_BYTES as u64,
            header.count
        );
        Ok(PositionReader {
            file,
            path: path.to_path_buf(),
            header,
            data_start: u64::from(header_len),
            next: 0,
            buf: Vec::new(),
        })
    }

    pub fn header(&self) -> &PositionHeader {
        &self.header
    }

    pub fn len(&self) -> u64 {
        self.header.count
    }

    pub fn is_empty(&self) -> bool {
        self.header.count == 0
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
    pub fn read_batch(&mut self, n: usize, out: &mut Vec<LabelledPosition>) -> Result<usize> {
        out.clear();
        let want = (n as u64).min(self.len() - self.next) as usize;
        out.reserve(want);
        while out.len() < want {
            let k = (want - out.len()).min(CHUNK_RECORDS);
            self.buf.resize(k * RECORD_BYTES, 0);
            let offset = self.data_start + self.next * RECORD_BYTES as u64;
            self.file
                .read_exact_at(&mut self.buf, offset)
                .with_context(|| format!("cannot read {}", self.path.display()))?;
            for (i, rec) in self.buf.chunks_exact(RECORD_BYTES).enumerate() {
                out.push(
                    LabelledPosition::from_bytes(rec, self.next + i as u64)
                        .with_context(|| self.path.display().to_string())?,
                );
            }
            self.next += k as u64;
        }
        Ok(want)
    }

    /// Record `index`, independent of the sequential cursor.
    pub fn get(&self, index: u64) -> Result<LabelledPosition> {
        ensure!(
            index < self.len(),
            "record {index} out of range: {} holds {}",
            self.path.display(),
            self.len()
        );
        let mut rec = [0u8; RECORD_BYTES];
        self.file
            .read_exact_at(&mut rec, self.data_start + index * RECORD_BYTES as u64)
            .with_context(|| format!("cannot read {}", self.path.display()))?;
        LabelledPosition::from_bytes(&rec, index).with_context(|| self.path.display().to_string())
    }
}
