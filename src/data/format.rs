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
use anyhow::{bail, ensure, Context, Result};

pub const MAGIC: &[u8; 8] = b"CRSTRIP1";
pub const VERSION: u32 = 1;
pub const BOARD_BYTES: usize = 64;
pub const RECORD_BYTES: usize = 3 * BOARD_BYTES + 1;
/// Byte offset of the record count, rewritten when a writer finishes.
pub const COUNT_OFFSET: u64 = 16;
/// Fixed part of the header, before the two variable-length strings.
const FIXED_HEADER_BYTES: usize = 52;
/// Bit of the results byte that marks a quiet-only file.
const QUIET_BIT: u8 = 0x80;
/// Largest header accepted; protects the reader from a garbage length field.
const MAX_HEADER_BYTES: u32 = 1 << 20;

/// One training example: a position, its played child and a random other child.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Triplet {
    pub p: CompactBoard,
    pub q: CompactBoard,
    pub r: CompactBoard,
    /// Game result from `p`'s side to move: +1 win, 0 draw, −1 loss.
    pub result: i8,
}

impl Triplet {
    pub fn to_bytes(&self, out: &mut [u8; RECORD_BYTES]) {
        out[..64].copy_from_slice(&self.p.0);
        out[64..128].copy_from_slice(&self.q.0);
        out[128..192].copy_from_slice(&self.r.0);
        out[192] = self.result as u8;
    }

    /// Decodes and validates one record; `index` only labels the error.
    pub fn from_bytes(bytes: &[u8], index: u64) -> Result<Self> {
        ensure!(
            bytes.len() == RECORD_BYTES,
            "record {index}: expected {RECORD_BYTES} bytes, got {}",
            bytes.len()
        );
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

/// Which games' results are kept, as a bit set (bit 0 = 1-0, bit 1 = 0-1, bit 2 = draw).
pub type ResultMask = u8;

/// Which part of the by-game split a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Split {
    Train,
    Valid,
    Test,
}

impl Split {
    pub const ALL: [Split; 3] = [Split::Train, Split::Valid, Split::Test];

    pub fn name(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Valid => "valid",
            Split::Test => "test",
        }
    }

    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_code(code: u8) -> Result<Option<Split>> {
        Ok(match code {
            0 => Some(Split::Train),
            1 => Some(Split::Valid),
            2 => Some(Split::Test),
            255 => None,
            other => bail!("header split code {other} is not 0, 1, 2 or 255"),
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
    /// Only quiet triplets (no check, capture or promotion; see `super::triplets`).
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
        out.extend_from_slice(&self.min_elo.to_le_bytes());
        out.push((self.results & 0b111) | if self.quiet { QUIET_BIT } else { 0 });
        out.push(self.split.map_or(255, Split::code));
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
            "file is {} bytes, too short for a triplet header (at least {FIXED_HEADER_BYTES})",
            prefix.len()
        );
        ensure!(
            &prefix[..8] == MAGIC,
            "not a triplet file: magic is {:?}, expected \"CRSTRIP1\"",
            String::from_utf8_lossy(&prefix[..8])
        );
        let version = u32_at(prefix, 8);
        ensure!(
            version == VERSION,
            "triplet file version {version} is not supported (this build reads version \
             {VERSION}); regenerate it with `cerise data triplets`"
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
        let mut split_weights = [0u16; 3];
        for (i, w) in split_weights.iter_mut().enumerate() {
            *w = u16::from_le_bytes([bytes[46 + 2 * i], bytes[47 + 2 * i]]);
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
        Ok(TripletHeader {
            version: u32_at(bytes, 8),
            count: u64::from_le_bytes(bytes[16..24].try_into()?),
            seed: u64::from_le_bytes(bytes[28..36].try_into()?),
            skip_plies: u32_at(bytes, 36),
            min_elo: u32_at(bytes, 40),
            results: bytes[44] & 0b111,
            quiet: bytes[44] & QUIET_BIT != 0,
            split: Split::from_code(bytes[45])?,
            split_weights,
            encoding,
            source,
        })
    }
}

pub(crate) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

pub(crate) fn string_at(bytes: &[u8], at: usize, len: usize, what: &str) -> Result<String> {
    let slice = bytes
        .get(at..at + len)
        .with_context(|| format!("header too short for its {what} ({len} bytes)"))?;
    String::from_utf8(slice.to_vec()).with_context(|| format!("header {what} is not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let h = sample_header();
        let bytes = h.to_bytes().expect("header encodes");
        assert_eq!(&bytes[..8], MAGIC);
        assert_eq!(
            TripletHeader::announced_len(&bytes).expect("valid prefix") as usize,
            bytes.len()
        );
        assert_eq!(TripletHeader::from_bytes(&bytes).expect("decodes"), h);
        // The count sits where the writer patches it.
        let at = COUNT_OFFSET as usize;
        assert_eq!(
            u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()),
            12345
        );
    }

    #[test]
    fn header_rejects_wrong_magic_version_and_size() {
        let good = sample_header().to_bytes().expect("header encodes");
        let mut bad = good.clone();
        bad[0] = b'X';
        let err = TripletHeader::from_bytes(&bad).unwrap_err().to_string();
        assert!(err.contains("not a triplet file"), "{err}");
        let mut bad = good.clone();
        bad[8] = 2;
        let err = TripletHeader::from_bytes(&bad).unwrap_err().to_string();
        assert!(err.contains("version 2"), "{err}");
        let mut bad = good.clone();
        bad[24] = 100;
        let err = TripletHeader::from_bytes(&bad).unwrap_err().to_string();
        assert!(err.contains("record size"), "{err}");
        assert!(TripletHeader::from_bytes(&good[..10]).is_err());
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
        t.to_bytes(&mut buf);
        assert_eq!(Triplet::from_bytes(&buf, 0).expect("decodes"), t);
        let mut bad = buf;
        bad[70] = 13;
        let err = Triplet::from_bytes(&bad, 7).unwrap_err().to_string();
        assert!(err.contains("record 7") && err.contains("board q"), "{err}");
        let mut bad = buf;
        bad[192] = 2;
        assert!(Triplet::from_bytes(&bad, 0).is_err());
    }
}
