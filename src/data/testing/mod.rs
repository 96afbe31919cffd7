//! What the tests of `data` share, written once: the PGN fixture and its reference reader
//! ([`fixture`]), the checks every PGN command must pass ([`pgn_command`]), and small
//! builders of test inputs.

#[cfg(feature = "pgn")]
pub mod fixture;
#[cfg(feature = "pgn")]
pub mod pgn_command;

#[cfg(feature = "pgn")]
use super::filter::GameResult;
#[cfg(feature = "pgn")]
use super::pgn::ParsedGame;
use super::records::header::{announced_len, decode, encode, COUNT_OFFSET};
use super::records::{FileHeader, Record, RecordReader};
#[cfg(feature = "pgn")]
use shakmaty::san::San;
#[cfg(feature = "pgn")]
use shakmaty::{Chess, Position as _};
use std::path::{Path, PathBuf};

/// A fresh, empty folder for one test; `tag` keeps tests that run at once apart.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cerise-data-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Every record of the file at `path`, read in batches of an odd size so that the last batch
/// is a short one; checks that the count is the header's.
pub fn read_all<H: FileHeader>(path: &Path) -> Vec<H::Record>
where
    H::Record: Clone,
{
    let mut r = RecordReader::<H>::open(path).expect("output opens");
    let mut out = Vec::new();
    let mut batch = Vec::new();
    while r.read_batch(17, &mut batch).expect("batch") > 0 {
        out.extend_from_slice(&batch);
    }
    assert_eq!(out.len() as u64, r.len());
    out
}

/// Encodes `h` and checks what every kind's header must keep: its magic first, the length
/// its prefix announces, its count where writers patch it, and that it decodes to `h`.
/// Returns the bytes, for the kind's own checks.
pub fn assert_header_round_trips<H: FileHeader>(h: &H) -> Vec<u8> {
    let bytes = encode(h).expect("header encodes");
    assert_eq!(&bytes[..8], H::FORMAT.magic);
    assert_eq!(
        announced_len(H::FORMAT, &bytes).expect("valid prefix") as usize,
        bytes.len()
    );
    assert_eq!(&decode::<H>(&bytes).expect("decodes"), h);
    let at = COUNT_OFFSET as usize;
    assert_eq!(
        u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()),
        h.count()
    );
    bytes
}

/// Each of `cases` (a byte offset, the value put there, and a part of the error it must
/// cause) turns the valid record `good` into one that [`Record::decode`] refuses, naming the
/// record.
pub fn assert_corrupt_bytes_refused<R: Record + std::fmt::Debug>(
    good: &[u8],
    cases: &[(usize, u8, &str)],
) {
    for &(at, value, expect) in cases {
        let mut bad = good.to_vec();
        bad[at] = value;
        let err = R::decode(&bad, 9).unwrap_err().to_string();
        assert!(err.starts_with("record 9: "), "{err}");
        assert!(err.contains(expect), "byte {at} = {value}: {err}");
    }
}

/// A game from the start position with the moves `sans` (legal SAN) and `result`.
#[cfg(feature = "pgn")]
pub fn game_of(sans: &[&str], result: GameResult) -> ParsedGame {
    let start = Chess::default();
    let mut pos = start.clone();
    let moves = sans
        .iter()
        .map(|s| {
            let m = s
                .parse::<San>()
                .expect("test SAN")
                .to_move(&pos)
                .expect("legal");
            pos.play_unchecked(m);
            m
        })
        .collect();
    ParsedGame {
        start,
        moves,
        result,
        date: None,
    }
}
