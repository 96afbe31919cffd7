//! One record-file format for every kind of training data, written once: a header, then
//! `count` fixed-size records. Triplets ([`super::triplets`]), labelled positions
//! ([`super::positions`]) and self-play positions ([`super::selfplay`]) are three record
//! types over it.
//!
//! Every file starts with the same 28-byte prefix (integers little-endian):
//!
//! | offset | size | field                                                          |
//! |--------|------|----------------------------------------------------------------|
//! | 0      | 8    | magic, one per kind ([`formats`])                              |
//! | 8      | 4    | version (u32)                                                  |
//! | 12     | 4    | header length in bytes (u32); records start here               |
//! | 16     | 8    | record count (u64), patched when a writer finishes or commits  |
//! | 24     | 4    | record size (u32)                                              |
//!
//! and the kind's own fields follow ([`FileHeader::write_fields`]). What is shared:
//! - [`header`]: the prefix, and a clear error for a foreign, old or corrupt file;
//! - [`writer::RecordWriter`]: crash-safe, written as `<out>.partial` and renamed when done;
//! - [`append::RecordAppender`]: append-only commits that a killed run resumes from;
//! - [`reader::RecordReader`]: validating, streaming and random-access;
//! - [`split`]: the train/valid/test files of one run and their summary;
//! - [`merge`]: joining files of one kind into one;
//! - [`progress`]: the progress display of a long command.
//!
//! A new record type implements [`Record`] and [`FileHeader`] (the items every kind writes
//! alike through `file_header_items!`), adds its magic to [`formats::ALL`], and gets all of
//! the above.

pub mod append;
pub mod bytes;
pub mod formats;
pub mod header;
pub mod merge;
pub mod progress;
pub mod reader;
pub mod split;
pub mod writer;

pub use append::RecordAppender;
pub use bytes::{ByteReader, ByteWriter};
pub use formats::Format;
pub use reader::RecordReader;
pub use split::{prepare_outputs, split_paths, SplitRun, SplitSummary, SummaryExtra};
pub use writer::{partial_path, RecordWriter};

use anyhow::{ensure, Result};

/// A fixed-size record of a record file.
pub trait Record: Sized {
    /// Bytes per record.
    const BYTES: usize;
    /// Writes the record into `out`, which is exactly [`Record::BYTES`] long.
    fn encode(&self, out: &mut [u8]);
    /// Decodes and validates the fields of one record from exactly [`Record::BYTES`] bytes
    /// ([`Record::decode`] checks the length first); `index` only labels the error.
    fn decode_fields(bytes: &[u8], index: u64) -> Result<Self>;
    /// Decodes and validates one record; `index` only labels the error.
    fn decode(bytes: &[u8], index: u64) -> Result<Self> {
        ensure!(
            bytes.len() == Self::BYTES,
            "record {index}: expected {} bytes, got {}",
            Self::BYTES,
            bytes.len()
        );
        Self::decode_fields(bytes, index)
    }
}

/// The items of a [`FileHeader`] impl that are the same for every kind whose header keeps its
/// record count in a field `count`: the record type, the format, and the count's accessors.
/// Written once here so that a new kind states only what is its own:
/// `file_header_items!(MyRecord, &formats::MINE);`.
macro_rules! file_header_items {
    ($record:ty, $format:expr) => {
        type Record = $record;
        const FORMAT: &'static $crate::data::records::Format = $format;

        fn count(&self) -> u64 {
            self.count
        }

        fn set_count(&mut self, count: u64) {
            self.count = count;
        }
    };
}
pub(crate) use file_header_items;

/// The header of one kind of record file: its fields after the common prefix.
pub trait FileHeader: Clone + std::fmt::Debug + PartialEq + Sized {
    type Record: Record;
    const FORMAT: &'static Format;
    fn count(&self) -> u64;
    fn set_count(&mut self, count: u64);
    /// The kind's fields, in file order, after the common prefix.
    fn write_fields(&self, out: &mut ByteWriter) -> Result<()>;
    /// Parses what [`FileHeader::write_fields`] wrote; `version` and `count` come from the
    /// prefix.
    fn read_fields(version: u32, count: u64, input: &mut ByteReader) -> Result<Self>;
    /// Checks a reader makes of a parsed header (a board encoding it knows, say).
    fn check(&self) -> Result<()> {
        Ok(())
    }
    /// The settings a resumed run must share with the file it appends to, by name, as text.
    fn settings(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests;
