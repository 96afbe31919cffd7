//! Reading triplet files: sequential batches for training and random access for shuffling.
//! Positioned reads (`pread`) serve both, so `get` needs only `&self` and can be called from
//! several threads at once.

use super::format::{Triplet, TripletHeader, RECORD_BYTES};
use anyhow::{ensure, Context, Result};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Records read per `pread` in `read_batch`; large enough to amortise the system call.
const CHUNK_RECORDS: usize = 4096;

#[derive(Debug)]
pub struct TripletReader {
    file: File,
    path: PathBuf,
    header: TripletHeader,
    data_start: u64,
    next: u64,
    buf: Vec<u8>,
}

impl TripletReader {
    /// Opens and validates `path`: magic, version, record size, and that the file holds
    /// exactly the number of records the header announces.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let size = file
            .metadata()
            .with_context(|| format!("cannot stat {}", path.display()))?
            .len();
        let describe = |e: anyhow::Error| e.context(format!("{} is not readable", path.display()));
        let mut prefix = [0u8; 16];
        let prefix_len = (size as usize).min(16);
        file.read_exact_at(&mut prefix[..prefix_len], 0)?;
        let header_len = TripletHeader::announced_len(&prefix[..prefix_len]).map_err(describe)?;
        ensure!(
            size >= u64::from(header_len),
            "{}: file truncated inside its header ({size} of {header_len} bytes)",
            path.display()
        );
        let mut header_bytes = vec![0u8; header_len as usize];
        file.read_exact_at(&mut header_bytes, 0)?;
        let header = TripletHeader::from_bytes(&header_bytes).map_err(describe)?;
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
            "{}: {} bytes follow the {} records the header announces; the file is corrupt",
            path.display(),
            data - header.count * RECORD_BYTES as u64,
            header.count
        );
        Ok(TripletReader {
            file,
            path: path.to_path_buf(),
            header,
            data_start: u64::from(header_len),
            next: 0,
            buf: Vec::new(),
        })
    }

    pub fn header(&self) -> &TripletHeader {
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
    pub fn read_batch(&mut self, n: usize, out: &mut Vec<Triplet>) -> Result<usize> {
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
                out.push(Triplet::from_bytes(rec, self.next + i as u64)?);
            }
            self.next += k as u64;
        }
        Ok(want)
    }

    /// Record `index`, independent of the sequential cursor.
    pub fn get(&self, index: u64) -> Result<Triplet> {
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
        Triplet::from_bytes(&rec, index)
    }
}

#[cfg(test)]
mod tests {
    use super::super::format::{Split, MAGIC};
    use super::super::writer::{partial_path, TripletWriter};
    use super::*;
    use crate::chess::CompactBoard;

    fn triplet(i: u8) -> Triplet {
        let mut p = [0u8; 64];
        p[(i % 64) as usize] = 1 + i % 12;
        Triplet {
            p: CompactBoard(p),
            q: CompactBoard([i % 13; 64]),
            r: CompactBoard([(i + 1) % 13; 64]),
            result: (i % 3) as i8 - 1,
        }
    }

    fn write_file(dir: &Path, name: &str, n: u8) -> (PathBuf, Vec<Triplet>) {
        let path = dir.join(name);
        let header = TripletHeader {
            split: Some(Split::Test),
            ..TripletHeader::new("unit", 9)
        };
        let mut w = TripletWriter::create(&path, header).expect("create");
        assert!(partial_path(&path).exists() && !path.exists());
        let records: Vec<Triplet> = (0..n).map(triplet).collect();
        for t in &records {
            w.write(t).expect("write");
        }
        assert_eq!(w.finish().expect("finish"), u64::from(n));
        assert!(path.exists() && !partial_path(&path).exists());
        (path, records)
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cerise-reader-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[test]
    fn writes_then_reads_batches_and_random_access() {
        let dir = temp_dir("rw");
        let (path, records) = write_file(&dir, "a.trip", 200);
        let mut r = TripletReader::open(&path).expect("open");
        assert_eq!(r.len(), 200);
        assert_eq!(r.header().split, Some(Split::Test));
        assert_eq!(r.header().seed, 9);
        let mut batch = Vec::new();
        let mut all = Vec::new();
        loop {
            let n = r.read_batch(64, &mut batch).expect("batch");
            assert_eq!(n, batch.len());
            if n == 0 {
                break;
            }
            all.extend_from_slice(&batch);
        }
        assert_eq!(all, records);
        for i in [0u64, 77, 199] {
            assert_eq!(r.get(i).expect("get"), records[i as usize]);
        }
        assert!(r.get(200).is_err());
        r.seek(150).expect("seek");
        assert_eq!(r.read_batch(1000, &mut batch).expect("tail"), 50);
        assert_eq!(batch[0], records[150]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn rejects_truncated_trailing_and_foreign_files() {
        let dir = temp_dir("bad");
        let (path, _) = write_file(&dir, "b.trip", 10);
        let bytes = std::fs::read(&path).expect("read back");

        let cut = dir.join("cut.trip");
        std::fs::write(&cut, &bytes[..bytes.len() - RECORD_BYTES - 5]).expect("write");
        let err = TripletReader::open(&cut).unwrap_err().to_string();
        assert!(
            err.contains("file truncated: header says 10 records, file holds 8"),
            "{err}"
        );

        let long = dir.join("long.trip");
        let mut extra = bytes.clone();
        extra.extend_from_slice(&[0; 7]);
        std::fs::write(&long, &extra).expect("write");
        let err = TripletReader::open(&long).unwrap_err().to_string();
        assert!(err.contains("7 bytes follow"), "{err}");

        let foreign = dir.join("foreign.trip");
        let mut wrong = bytes.clone();
        wrong[..8].copy_from_slice(b"NOTTRIP!");
        std::fs::write(&foreign, &wrong).expect("write");
        let err = format!("{:#}", TripletReader::open(&foreign).unwrap_err());
        assert!(err.contains("not a triplet file"), "{err}");
        assert_ne!(&wrong[..8], MAGIC);

        let tiny = dir.join("tiny.trip");
        std::fs::write(&tiny, b"CRS").expect("write");
        assert!(TripletReader::open(&tiny).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn abandoned_writer_leaves_nothing() {
        let dir = temp_dir("drop");
        let path = dir.join("c.trip");
        {
            let mut w =
                TripletWriter::create(&path, TripletHeader::new("unit", 1)).expect("create");
            w.write(&triplet(3)).expect("write");
        }
        assert!(!path.exists() && !partial_path(&path).exists());
        std::fs::remove_dir_all(&dir).ok();
    }
}
