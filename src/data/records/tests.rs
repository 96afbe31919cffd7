//! The generic record file, exercised with triplets (a plain kind) and a small appendable
//! kind of its own.

use super::append::{RecordAppender, Resumed};
use super::formats;
use super::header::encode;
use super::*;
use crate::chess::CompactBoard;
use crate::data::split::Split;
use crate::data::triplets::format::{Triplet, TripletHeader, MAGIC, RECORD_BYTES};
use crate::data::{TripletReader, TripletWriter};
use anyhow::ensure;
use std::path::{Path, PathBuf};

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

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cerise-records-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
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

    // A file of another known kind is named for what it is.
    let mut other = bytes.clone();
    other[..8].copy_from_slice(formats::POSITIONS.magic);
    std::fs::write(&foreign, &other).expect("write");
    let err = format!("{:#}", TripletReader::open(&foreign).unwrap_err());
    assert!(
        err.contains(
            "this is a labelled-positions file (`cerise data positions`), not a triplet file"
        ),
        "{err}"
    );

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
        let mut w = TripletWriter::create(&path, TripletHeader::new("unit", 1)).expect("create");
        w.write(&triplet(3)).expect("write");
    }
    assert!(!path.exists() && !partial_path(&path).exists());
    std::fs::remove_dir_all(&dir).ok();
}

// --- An appendable kind, for the appender ---------------------------------------------------

const APPEND_FORMAT: Format = Format {
    magic: b"CRSTEST1",
    version: 3,
    name: "test file",
    maker: "the unit tests",
    appendable: true,
    packs: None,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pair(u32, u32);

impl Record for Pair {
    const BYTES: usize = 8;
    fn encode(&self, out: &mut [u8]) {
        out[..4].copy_from_slice(&self.0.to_le_bytes());
        out[4..].copy_from_slice(&self.1.to_le_bytes());
    }
    fn decode_fields(bytes: &[u8], index: u64) -> anyhow::Result<Self> {
        let a = u32::from_le_bytes(bytes[..4].try_into()?);
        let b = u32::from_le_bytes(bytes[4..].try_into()?);
        ensure!(b >= a, "record {index}: {b} < {a}");
        Ok(Pair(a, b))
    }
}

#[derive(Clone, Debug, PartialEq)]
struct PairHeader {
    count: u64,
    nodes: u32,
    note: String,
}

impl FileHeader for PairHeader {
    file_header_items!(Pair, &APPEND_FORMAT);
    fn write_fields(&self, out: &mut ByteWriter) -> anyhow::Result<()> {
        out.u32(self.nodes);
        out.str16(&self.note, "note")
    }
    fn read_fields(_: u32, count: u64, input: &mut ByteReader) -> anyhow::Result<Self> {
        Ok(PairHeader {
            count,
            nodes: input.u32("nodes")?,
            note: input.str16("note")?,
        })
    }
    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![("nodes", self.nodes.to_string())]
    }
}

fn pair_header(nodes: u32) -> PairHeader {
    PairHeader {
        count: 0,
        nodes,
        note: "résumé".into(),
    }
}

#[test]
fn appender_commits_resumes_and_cuts_an_unfinished_commit() {
    let dir = temp_dir("append");
    let path = dir.join("a.self");
    let (mut a, resumed) = RecordAppender::open(&path, pair_header(5000)).expect("create");
    assert_eq!(resumed, None);
    for i in 0..5 {
        a.push(&Pair(i, i + 1));
    }
    assert_eq!((a.count(), a.pending()), (0, 5));
    assert_eq!(a.commit().expect("commit"), 5);
    a.push(&Pair(7, 7));
    a.push(&Pair(8, 9));
    // Killed before the commit: the pending records are gone, nothing half-written.
    drop(a);
    let reader = RecordReader::<PairHeader>::open(&path).expect("readable while appended");
    assert_eq!(reader.len(), 5);
    // A commit whose records were written but whose count was not: the tail is ignored by a
    // reader and cut off on resume.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(&[1, 0, 0, 0, 2]);
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(RecordReader::<PairHeader>::open(&path).unwrap().len(), 5);
    let (mut a, resumed) = RecordAppender::open(&path, pair_header(5000)).expect("resume");
    assert_eq!(
        resumed,
        Some(Resumed {
            committed: 5,
            dropped_bytes: 5
        })
    );
    assert_eq!(a.last().unwrap(), Some(Pair(4, 5)));
    assert_eq!(a.header().note, "résumé");
    a.push(&Pair(10, 20));
    assert_eq!(a.commit().unwrap(), 6);
    let mut r = RecordReader::<PairHeader>::open(&path).unwrap();
    let mut all = Vec::new();
    r.read_batch(100, &mut all).unwrap();
    assert_eq!(
        all,
        [
            Pair(0, 1),
            Pair(1, 2),
            Pair(2, 3),
            Pair(3, 4),
            Pair(4, 5),
            Pair(10, 20)
        ]
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn appender_refuses_a_file_made_with_other_settings_and_names_them() {
    let dir = temp_dir("settings");
    let path = dir.join("a.self");
    let (mut a, _) = RecordAppender::open(&path, pair_header(5000)).unwrap();
    a.push(&Pair(1, 1));
    a.commit().unwrap();
    drop(a);
    let err = match RecordAppender::open(&path, pair_header(8000)) {
        Ok(_) => panic!("a file with other settings was resumed"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("nodes is 5000 in the file, 8000 in this run"),
        "{err}"
    );
    // And a triplet file is not taken for one.
    let (trip, _) = write_file(&dir, "t.trip", 3);
    let err = match RecordAppender::open(&trip, pair_header(5000)) {
        Ok(_) => panic!("a triplet file was appended to"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("this is a triplet file"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn header_prefix_is_common_to_every_kind() {
    let h = TripletHeader::new("x", 1);
    let bytes = encode(&h).unwrap();
    assert_eq!(&bytes[..8], formats::TRIPLETS.magic);
    assert_eq!(
        u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize,
        bytes.len()
    );
    assert_eq!(
        u32::from_le_bytes(bytes[24..28].try_into().unwrap()) as usize,
        RECORD_BYTES
    );
    let magics: Vec<_> = formats::ALL.iter().map(|f| f.magic).collect();
    let mut unique = magics.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(magics.len(), unique.len());
}
