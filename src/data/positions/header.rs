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
use super::super::filter::ResultMask;
use super::super::records::header::{read_games_trailer, write_games_trailer};
use super::super::records::{file_header_items, formats, ByteReader, ByteWriter, FileHeader};
use super::super::split::Split;
use super::ending::Ending;
use super::record::LabelledPosition;
use crate::chess::ENCODING_NAME;
use anyhow::{ensure, Result};

pub const MAGIC: &[u8; 8] = formats::POSITIONS.magic;
pub const VERSION: u32 = formats::POSITIONS.version;
/// The extension of labelled-position files.
pub const EXT: &str = "pos";

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
}

impl FileHeader for PositionHeader {
    file_header_items!(LabelledPosition, &formats::POSITIONS);

    fn write_fields(&self, out: &mut ByteWriter) -> Result<()> {
        out.u64(self.seed);
        out.u32(self.skip_plies);
        out.u32(self.every);
        out.u32(self.min_elo);
        out.u32(self.test_after.map_or(0, |c| c.0));
        out.u8(self.results & 0b111);
        out.u8(self.ending.code());
        out.u8(self.split.map_or(255, Split::code));
        out.u8(0);
        write_games_trailer(out, &self.split_weights, &self.encoding, &self.source)
    }

    fn read_fields(version: u32, count: u64, input: &mut ByteReader) -> Result<Self> {
        let seed = input.u64("seed")?;
        let skip_plies = input.u32("skip plies")?;
        let every = input.u32("every")?;
        ensure!(every >= 1, "header `every` is 0; the file is corrupt");
        let min_elo = input.u32("minimum Elo")?;
        let test_after = Cutoff::from_number(input.u32("test-after date")?);
        let results = input.u8("results")? & 0b111;
        let ending = Ending::from_code(input.u8("ending")?)?;
        let split = Split::from_code(input.u8("split")?)?;
        let reserved = input.u8("reserved byte")?;
        ensure!(
            reserved == 0,
            "reserved header byte 55 is {reserved}, not 0; the file is corrupt"
        );
        let (split_weights, encoding, source) = read_games_trailer(input)?;
        Ok(PositionHeader {
            version,
            count,
            seed,
            skip_plies,
            every,
            min_elo,
            test_after,
            results,
            ending,
            split,
            split_weights,
            encoding,
            source,
        })
    }

    /// The boards are only meaningful in the encoding they were written in.
    fn check(&self) -> Result<()> {
        ensure!(
            self.encoding == ENCODING_NAME,
            "boards use the encoding {:?} but this build reads {ENCODING_NAME:?}; regenerate \
             the file with `cerise data positions`",
            self.encoding
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::records::header::{decode, encode};
    use super::super::super::testing::assert_header_round_trips;
    use super::*;
    use crate::data::triplets::format::MAGIC as TRIPLET_MAGIC;

    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

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
        let bytes = assert_header_round_trips(&sample_header());
        assert_eq!(
            bytes.len(),
            62 + 2 + ENCODING_NAME.len() + 4 + "games/ü.pgn.bz2".len()
        );
        assert_eq!(u32_at(&bytes, 48), 20150101, "test-after as YYYYMMDD");
        assert_eq!(bytes[53], 2, "ending code of mate");
    }

    #[test]
    fn header_rejects_foreign_and_corrupt_headers() {
        let good = encode(&sample_header()).expect("header encodes");
        let expect_err = |bytes: &[u8], text: &str| {
            let err = decode::<PositionHeader>(bytes).unwrap_err().to_string();
            assert!(err.contains(text), "expected '{text}' in: {err}");
        };
        let mut bad = good.clone();
        bad[..8].copy_from_slice(TRIPLET_MAGIC);
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
