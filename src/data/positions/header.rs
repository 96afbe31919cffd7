//! The labelled-position file format, version 1 (`.pos`): a header, then `count` fixed-size
//! records (see [`super::record`] for their 72-byte layout). All integers are little-endian.
//!
//! Header:
//!
//! | offset | size | field                                                                   |
//! |--------|------|-------------------------------------------------------------------------|
//! | 0      | 8    | magic `CRSPOS01`                                                        |
//! | 8      | 4    | version (u32) = 1                                                       |
//! | 12     | 4    | header length in bytes (u32); records start here                        |
//! | 16     | 8    | record count (u64), patched when the writer finishes                    |
//! | 24     | 4    | record size (u32) = 72                                                  |
//! | 28     | 8    | seed (u64) of the split and of the `--every` offsets                    |
//! | 36     | 4    | plies skipped at the start of every game (u32)                          |
//! | 40     | 4    | `--every` (u32): one position in this many is kept, 1 = all             |
//! | 44     | 4    | minimum Elo of both players (u32), 0 = no Elo filter                    |
//! | 48     | 4    | `--test-after` date as the number YYYYMMDD (u32), 0 = none              |
//! | 52     | 1    | results kept: bit 0 = 1-0, bit 1 = 0-1, bit 2 = 1/2-1/2                 |
//! | 53     | 1    | ending filter: 0 = all, 1 = decisive, 2 = mate                          |
//! | 54     | 1    | split: 0 = train, 1 = valid, 2 = test, 255 = unsplit                    |
//! | 55     | 1    | reserved, 0                                                             |
//! | 56     | 6    | split per-mille weights: train, valid, test (3 × u16)                   |
//! | 62     | 2    | encoding name length E (u16), then E bytes of UTF-8 (`ENCODING_NAME`)   |
//! | 64+E   | 4    | source length S (u32), then S bytes of UTF-8 (the input path)           |
//!
//! With a test-after date, the test file holds exactly the games dated on or after it and the
//! other games are split between train and valid in the ratio of their two weights; the
//! stored test weight is then not used.

use super::super::date::Cutoff;
use super::super::format::{self as trip, string_at, u32_at, ResultMask, Split};
use super::ending::Ending;
use super::record::RECORD_BYTES;
use crate::chess::ENCODING_NAME;
use anyhow::{ensure, Context, Result};

pub const MAGIC: &[u8; 8] = b"CRSPOS01";
pub const VERSION: u32 = 1;
/// Byte offset of the record count, rewritten when a writer finishes.
pub const COUNT_OFFSET: u64 = 16;
/// Fixed part of the header, before the two variable-length strings.
const FIXED_HEADER_BYTES: usize = 62;
/// Largest header accepted; protects the reader from a garbage length field.
const MAX_HEADER_BYTES: u32 = 1 << 20;

/// Everything the header records about how a file was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionHeader {
    pub version: u32,
    pub count: u64,
    pub seed: u64,
    pub skip_plies: u32,
    /// One position in `every` is kept (at a seeded offset per game); 1 keeps all.
    pub every: u32,
    /// 0 when no Elo filter was applied.
    pub min_elo: u32,
    /// Games dated on or after this went to the test file.
    pub test_after: Option<Cutoff>,
    pub results: ResultMask,
    pub ending: Ending,
    /// `None` for a file that is not part of a split.
    pub split: Option<Split>,
    /// Per-mille weights of train, valid and test used to split the games.
    pub split_weights: [u16; 3],
    /// The board encoding of the records; a trainer must refuse a name it does not know.
    pub encoding: String,
    /// The input the positions came from (path as given).
    pub source: String,
}

impl PositionHeader {
    /// A header for a new file, with count 0 and the current encoding.
    pub fn new(source: &str, seed: u64) -> Self {
        PositionHeader {
            version: VERSION,
            count: 0,
            seed,
            skip_plies: 0,
            every: 1,
            min_elo: 0,
            test_after: None,
            results: Ending::default().results().0,
            ending: Ending::default(),
            split: None,
            split_weights: [1000, 0, 0],
            encoding: ENCODING_NAME.to_string(),
            source: source.to_string(),
        }
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let enc_len =
            u16::try_from(self.encoding.len()).context("encoding name longer than 65535 bytes")?;
        let src_len =
            u32::try_from(self.source.len()).context("source string longer than 4 GiB")?;
        let total = FIXED_HEADER_BYTES + 2 + self.encoding.len() + 4 + self.source.len();
        ensure!(
            total <= MAX_HEADER_BYTES as usize,
            "header would be {total} bytes; shorten the source path"
        );
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&self.count.to_le_bytes());
        out.extend_from_slice(&(RECORD_BYTES as u32).to_le_bytes());
        out.extend_from_slice(&self.seed.to_le_bytes());
        out.extend_from_slice(&self.skip_plies.to_le_bytes());
        out.extend_from_slice(&self.every.to_le_bytes());
        out.extend_from_slice(&self.min_elo.to_le_bytes());
        out.extend_from_slice(&self.test_after.map_or(0, |c| c.0).to_le_bytes());
        out.push(self.results & 0b111);
        out.push(self.ending.code());
        out.push(self.split.map_or(255, Split::code));
        out.push(0);
        for w in self.split_weights {
            out.extend_from_slice(&w.to_le_bytes());
        }
        debug_assert_eq!(out.len(), FIXED_HEADER_BYTES);
        out.extend_from_slice(&enc_len.to_le_bytes());
        out.extend_from_slice(self.encoding.as_bytes());
        out.extend_from_slice(&src_len.to_le_bytes());
        out.extend_from_slice(self.source.as_bytes());
        debug_assert_eq!(out.len(), total);
        Ok(out)
    }

    /// Reads the fixed prefix and returns the total header length it announces, so the caller
    /// can read the rest. `prefix` must hold at least 16 bytes.
    pub fn announced_len(prefix: &[u8]) -> Result<u32> {
        ensure!(
            prefix.len() >= 16,
            "file is {} bytes, too short for a positions header (at least {FIXED_HEADER_BYTES})",
            prefix.len()
        );
        let magic = &prefix[..8];
        ensure!(
            magic != trip::MAGIC,
            "this is a triplet file (`cerise data triplets`), not a labelled-positions file; \
             make one with `cerise data positions`"
        );
        ensure!(
            magic == MAGIC,
            "not a labelled-positions file: magic is {:?}, expected \"CRSPOS01\"",
            String::from_utf8_lossy(magic)
        );
        let version = u32_at(prefix, 8);
        ensure!(
            version == VERSION,
            "positions file version {version} is not supported (this build reads version \
             {VERSION}); regenerate it with `cerise data positions`"
        );
        let len = u32_at(prefix, 12);
        ensure!(
            (FIXED_HEADER_BYTES as u32 + 6..=MAX_HEADER_BYTES).contains(&len),
            "header length {len} is implausible; the file is corrupt"
        );
        Ok(len)
    }

    /// Parses a complete header (exactly the announced length).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let len = Self::announced_len(bytes)? as usize;
        ensure!(
            bytes.len() == len,
            "header announces {len} bytes but {} were given",
            bytes.len()
        );
        let record = u32_at(bytes, 24);
        ensure!(
            record as usize == RECORD_BYTES,
            "record size {record} in header, expected {RECORD_BYTES}; the file is corrupt"
        );
        let every = u32_at(bytes, 40);
        ensure!(every >= 1, "header `every` is 0; the file is corrupt");
        ensure!(
            bytes[55] == 0,
            "reserved header byte 55 is {}, not 0; the file is corrupt",
            bytes[55]
        );
        let mut split_weights = [0u16; 3];
        for (i, w) in split_weights.iter_mut().enumerate() {
            *w = u16::from_le_bytes([bytes[56 + 2 * i], bytes[57 + 2 * i]]);
        }
        let mut at = FIXED_HEADER_BYTES;
        let enc_len = u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize;
        at += 2;
        let encoding = string_at(bytes, at, enc_len, "encoding name")?;
        at += enc_len;
        ensure!(
            at + 4 <= len,
            "header too short for its source length field"
        );
        let src_len = u32_at(bytes, at) as usize;
        at += 4;
        let source = string_at(bytes, at, src_len, "source")?;
        at += src_len;
        ensure!(
            at == len,
            "header announces {len} bytes but its fields fill {at}; the file is corrupt"
        );
        Ok(PositionHeader {
            version: u32_at(bytes, 8),
            count: u64::from_le_bytes(bytes[16..24].try_into()?),
            seed: u64::from_le_bytes(bytes[28..36].try_into()?),
            skip_plies: u32_at(bytes, 36),
            every,
            min_elo: u32_at(bytes, 44),
            test_after: Cutoff::from_number(u32_at(bytes, 48)),
            results: bytes[52] & 0b111,
            ending: Ending::from_code(bytes[53])?,
            split: Split::from_code(bytes[54])?,
            split_weights,
            encoding,
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_header() -> PositionHeader {
        PositionHeader {
            count: 4321,
            skip_plies: 10,
            every: 3,
            min_elo: 2400,
            test_after: Some(Cutoff(20150101)),
            results: 0b011,
            ending: Ending::Mate,
            split: Some(Split::Test),
            split_weights: [950, 50, 0],
            ..PositionHeader::new("games/ü.pgn.bz2", 0xfeed)
        }
    }

    #[test]
    fn header_round_trips() {
        let h = sample_header();
        let bytes = h.to_bytes().expect("header encodes");
        assert_eq!(&bytes[..8], MAGIC);
        assert_eq!(
            bytes.len(),
            FIXED_HEADER_BYTES + 2 + ENCODING_NAME.len() + 4 + "games/ü.pgn.bz2".len()
        );
        assert_eq!(
            PositionHeader::announced_len(&bytes).expect("valid prefix") as usize,
            bytes.len()
        );
        assert_eq!(PositionHeader::from_bytes(&bytes).expect("decodes"), h);
        let at = COUNT_OFFSET as usize;
        assert_eq!(
            u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()),
            4321
        );
        assert_eq!(u32_at(&bytes, 48), 20150101, "test-after as YYYYMMDD");
        assert_eq!(bytes[53], 2, "ending code of mate");
    }

    #[test]
    fn header_rejects_foreign_and_corrupt_headers() {
        let good = sample_header().to_bytes().expect("header encodes");
        let expect_err = |bytes: &[u8], text: &str| {
            let err = PositionHeader::from_bytes(bytes).unwrap_err().to_string();
            assert!(err.contains(text), "expected '{text}' in: {err}");
        };
        let mut bad = good.clone();
        bad[..8].copy_from_slice(trip::MAGIC);
        expect_err(&bad, "this is a triplet file");
        let mut bad = good.clone();
        bad[0] = b'X';
        expect_err(&bad, "not a labelled-positions file");
        let mut bad = good.clone();
        bad[8] = 2;
        expect_err(&bad, "version 2 is not supported");
        let mut bad = good.clone();
        bad[24] = 193;
        expect_err(&bad, "record size 193");
        let mut bad = good.clone();
        bad[40..44].copy_from_slice(&0u32.to_le_bytes());
        expect_err(&bad, "`every` is 0");
        let mut bad = good.clone();
        bad[53] = 7;
        expect_err(&bad, "ending code 7");
        let mut bad = good.clone();
        bad[54] = 3;
        expect_err(&bad, "split code 3");
        let mut bad = good.clone();
        bad[55] = 1;
        expect_err(&bad, "reserved header byte");
        let mut bad = good.clone();
        bad[12..16].copy_from_slice(&5u32.to_le_bytes());
        expect_err(&bad, "header length 5 is implausible");
        expect_err(&good[..10], "too short");
    }
}
