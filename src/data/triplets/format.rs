//! The triplet file format, version 1 (`.trip`).
//!
//! All integers are little-endian. A file is a header followed by `count` fixed-size records.
//!
//! Header:
//!
//! | offset | size | field                                                              |
//! |--------|------|--------------------------------------------------------------------|
//! | 0      | 8    | magic `CRSTRIP1`                                                   |
//! | 8      | 4    | version (u32) = 1                                                  |
//! | 12     | 4    | header length in bytes (u32); records start here                   |
//! | 16     | 8    | record count (u64), patched when the writer finishes               |
//! | 24     | 4    | record size (u32) = 193                                            |
//! | 28     | 8    | seed (u64) used for the random moves and the split                 |
//! | 36     | 4    | plies skipped at the start of every game (u32)                     |
//! | 40     | 4    | minimum Elo of both players (u32), 0 = no Elo filter               |
//! | 44     | 1    | results kept: bit 0 = 1-0, bit 1 = 0-1, bit 2 = 1/2-1/2; bit 7 set:  |
//! |        |      | quiet triplets only (`cerise data triplets --quiet`)                |
//! | 45     | 1    | split: 0 = train, 1 = valid, 2 = test, 255 = unsplit               |
//! | 46     | 2    | split per-mille weights: train, valid, test (3 × u16) at 46..52    |
//! | 52     | 2    | encoding name length E (u16), then E bytes of UTF-8                |
//! | 54+E   | 4    | source length S (u32), then S bytes of UTF-8 (the input path)      |
//!
//! Record (193 bytes): `p`, `q`, `r` as 64-byte [`CompactBoard`]s, then the game result as an
//! `i8` from the point of view of the side to move in `p`: +1 it won, 0 draw, −1 it lost.
//!
//! PERSPECTIVE: every board is stored from ITS OWN side to move (the convention in
//! `crate::chess::board`). `p` is seen from the player about to move; `q` (after the move
//! actually played) and `r` (after a random other legal move) are seen from the opponent,
//! who is to move in them. So a network `f` that scores "how good is this for the side to
//! move" should satisfy Deep Pink's inequality as `f(q) < f(r)` (the played move left the
//! opponent worse off than a random move) and `f(p) = −f(q)`.

use crate::chess::{CompactBoard, ENCODING_NAME};
use crate::data::filter::ResultMask;
use crate::data::records::header::{read_games_trailer, write_games_trailer};
use crate::data::records::{
    file_header_items, formats, ByteReader, ByteWriter, FileHeader, Record,
};
use crate::data::split::Split;
use anyhow::{bail, ensure, Result};

pub const MAGIC: &[u8; 8] = formats::TRIPLETS.magic;
pub const VERSION: u32 = formats::TRIPLETS.version;
/// The extension of triplet files.
pub const EXT: &str = "trip";
pub const BOARD_BYTES: usize = 64;
pub const RECORD_BYTES: usize = 3 * BOARD_BYTES + 1;
/// Bit of the results byte that marks a quiet-only file.
const QUIET_BIT: u8 = 0x80;

/// One training example: a position, its played child and a random other child.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Triplet {
    pub p: CompactBoard,
    pub q: CompactBoard,
    pub r: CompactBoard,
    /// Game result from `p`'s side to move: +1 win, 0 draw, −1 loss.
    pub result: i8,
}

impl Record for Triplet {
    const BYTES: usize = RECORD_BYTES;

    fn encode(&self, out: &mut [u8]) {
        out[..64].copy_from_slice(&self.p.0);
        out[64..128].copy_from_slice(&self.q.0);
        out[128..192].copy_from_slice(&self.r.0);
        out[192] = self.result as u8;
    }

    fn decode_fields(bytes: &[u8], index: u64) -> Result<Self> {
        let board = |k: usize| -> Result<CompactBoard> {
            let mut b = [0u8; BOARD_BYTES];
            b.copy_from_slice(&bytes[k * BOARD_BYTES..(k + 1) * BOARD_BYTES]);
            if let Some(sq) = b.iter().position(|&c| c > 12) {
                bail!(
                    "record {index}: board {} square {sq} holds {}, not a piece code 0..=12; \
                     the file is corrupt",
                    ["p", "q", "r"][k],
                    b[sq]
                );
            }
            Ok(CompactBoard(b))
        };
        let result = bytes[192] as i8;
        ensure!(
            (-1..=1).contains(&result),
            "record {index}: result byte {result} is not -1, 0 or 1; the file is corrupt"
        );
        Ok(Triplet {
            p: board(0)?,
            q: board(1)?,
            r: board(2)?,
            result,
        })
    }
}

/// Everything the header records about how a file was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TripletHeader {
    pub version: u32,
    pub count: u64,
    pub seed: u64,
    pub skip_plies: u32,
    /// Only quiet triplets (no check, capture or promotion; see `super::extract`).
    pub quiet: bool,
    /// 0 when no Elo filter was applied.
    pub min_elo: u32,
    pub results: ResultMask,
    /// `None` for a file that is not part of a split.
    pub split: Option<Split>,
    /// Per-mille weights of train, valid and test used to split the games.
    pub split_weights: [u16; 3],
    /// The board encoding of the records; a trainer must refuse a name it does not know.
    pub encoding: String,
    /// The input the triplets came from (path as given).
    pub source: String,
}

impl TripletHeader {
    /// A header for a new file, with count 0 and the current encoding.
    pub fn new(source: &str, seed: u64) -> Self {
        TripletHeader {
            version: VERSION,
            count: 0,
            seed,
            skip_plies: 0,
            quiet: false,
            min_elo: 0,
            results: 0b111,
            split: None,
            split_weights: [1000, 0, 0],
            encoding: ENCODING_NAME.to_string(),
            source: source.to_string(),
        }
    }
}

impl FileHeader for TripletHeader {
    file_header_items!(Triplet, &formats::TRIPLETS);

    fn write_fields(&self, out: &mut ByteWriter) -> Result<()> {
        out.u64(self.seed);
        out.u32(self.skip_plies);
        out.u32(self.min_elo);
        out.u8((self.results & 0b111) | if self.quiet { QUIET_BIT } else { 0 });
        out.u8(self.split.map_or(255, Split::code));
        write_games_trailer(out, &self.split_weights, &self.encoding, &self.source)
    }

    fn read_fields(version: u32, count: u64, input: &mut ByteReader) -> Result<Self> {
        let seed = input.u64("seed")?;
        let skip_plies = input.u32("skip plies")?;
        let min_elo = input.u32("minimum Elo")?;
        let results = input.u8("results")?;
        let split = Split::from_code(input.u8("split")?)?;
        let (split_weights, encoding, source) = read_games_trailer(input)?;
        Ok(TripletHeader {
            version,
            count,
            seed,
            skip_plies,
            min_elo,
            results: results & 0b111,
            quiet: results & QUIET_BIT != 0,
            split,
            split_weights,
            encoding,
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::records::header::{decode, encode};
    use crate::data::testing::assert_header_round_trips;

    fn sample_header() -> TripletHeader {
        TripletHeader {
            count: 12345,
            skip_plies: 8,
            quiet: true,
            min_elo: 2200,
            results: 0b011,
            split: Some(Split::Valid),
            split_weights: [900, 50, 50],
            ..TripletHeader::new("games/é.pgn.bz2", 0xdead_beef)
        }
    }

    #[test]
    fn header_round_trips() {
        assert_header_round_trips(&sample_header());
    }

    #[test]
    fn header_rejects_wrong_magic_version_and_size() {
        let good = encode(&sample_header()).expect("header encodes");
        let mut bad = good.clone();
        bad[0] = b'X';
        let err = decode::<TripletHeader>(&bad).unwrap_err().to_string();
        assert!(err.contains("not a triplet file"), "{err}");
        let mut bad = good.clone();
        bad[8] = 2;
        let err = decode::<TripletHeader>(&bad).unwrap_err().to_string();
        assert!(err.contains("version 2"), "{err}");
        let mut bad = good.clone();
        bad[24] = 100;
        let err = decode::<TripletHeader>(&bad).unwrap_err().to_string();
        assert!(err.contains("record size"), "{err}");
        assert!(decode::<TripletHeader>(&good[..10]).is_err());
    }

    #[test]
    fn record_round_trips_and_rejects_bad_codes() {
        let mut t = Triplet {
            p: CompactBoard([0; 64]),
            q: CompactBoard([12; 64]),
            r: CompactBoard([3; 64]),
            result: -1,
        };
        t.p.0[5] = 6;
        let mut buf = [0u8; RECORD_BYTES];
        t.encode(&mut buf);
        assert_eq!(Triplet::decode(&buf, 0).expect("decodes"), t);
        let mut bad = buf;
        bad[70] = 13;
        let err = Triplet::decode(&bad, 7).unwrap_err().to_string();
        assert!(err.contains("record 7") && err.contains("board q"), "{err}");
        let mut bad = buf;
        bad[192] = 2;
        assert!(Triplet::decode(&bad, 0).is_err());
    }
}
