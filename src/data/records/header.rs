//! The common 28-byte prefix of every record file, and the whole header's encoding.

use super::bytes::{ByteReader, ByteWriter};
use super::formats::{self, Format};
use super::{FileHeader, Record};
use anyhow::{bail, ensure, Result};

/// Magic, version, header length, count, record size.
pub const PREFIX_BYTES: usize = 28;
/// Byte offset of the record count, rewritten when a writer finishes or commits.
pub const COUNT_OFFSET: u64 = 16;
/// Largest header accepted; protects a reader from a garbage length field.
pub const MAX_HEADER_BYTES: u32 = 1 << 20;

/// The whole header of `h`, prefix and fields.
pub fn encode<H: FileHeader>(h: &H) -> Result<Vec<u8>> {
    let mut fields = ByteWriter::default();
    h.write_fields(&mut fields)?;
    let total = PREFIX_BYTES + fields.len();
    ensure!(
        total <= MAX_HEADER_BYTES as usize,
        "header would be {total} bytes; shorten the source path"
    );
    let mut out = Vec::with_capacity(total);
    write_prefix(
        &mut out,
        H::FORMAT,
        total as u32,
        h.count(),
        H::Record::BYTES as u32,
    );
    out.extend_from_slice(&fields.into_bytes());
    Ok(out)
}

/// Appends the common prefix: `format`'s magic and version, the whole header's length, the
/// record count and the record size.
pub fn write_prefix(out: &mut Vec<u8>, format: &Format, header_len: u32, count: u64, record: u32) {
    out.extend_from_slice(format.magic);
    out.extend_from_slice(&format.version.to_le_bytes());
    out.extend_from_slice(&header_len.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&record.to_le_bytes());
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Reads the prefix of a file that should be of `format` and returns the total header length
/// it announces, so that the caller can read the rest. `prefix` must hold at least 16 bytes.
pub fn announced_len(format: &Format, prefix: &[u8]) -> Result<u32> {
    ensure!(
        prefix.len() >= 16,
        "file is {} bytes, too short for a {} header (at least {PREFIX_BYTES})",
        prefix.len(),
        format.name
    );
    let magic = &prefix[..8];
    if magic != format.magic {
        if let Some(other) = formats::ALL.iter().find(|f| f.magic == magic) {
            if let Some((inner, unpack)) = other.packs {
                if inner == format {
                    bail!(
                        "this is a {} (`{}`); unpack it first with `{unpack}`",
                        other.name,
                        other.maker
                    );
                }
            }
            bail!(
                "this is a {} (`{}`), not a {}; make one with `{}`",
                other.name,
                other.maker,
                format.name,
                format.maker
            );
        }
        bail!(
            "not a {}: magic is {:?}, expected {:?}",
            format.name,
            String::from_utf8_lossy(magic),
            String::from_utf8_lossy(format.magic)
        );
    }
    let version = u32_at(prefix, 8);
    ensure!(
        version == format.version,
        "{} version {version} is not supported (this build reads version {}); regenerate it \
         with `{}`",
        format.name,
        format.version,
        format.maker
    );
    let len = u32_at(prefix, 12);
    ensure!(
        (PREFIX_BYTES as u32..=MAX_HEADER_BYTES).contains(&len),
        "header length {len} is implausible; the file is corrupt"
    );
    Ok(len)
}

/// Parses a complete header (exactly the announced length).
pub fn decode<H: FileHeader>(bytes: &[u8]) -> Result<H> {
    let len = announced_len(H::FORMAT, bytes)? as usize;
    ensure!(
        bytes.len() == len,
        "header announces {len} bytes but {} were given",
        bytes.len()
    );
    let record = u32_at(bytes, 24);
    ensure!(
        record as usize == H::Record::BYTES,
        "record size {record} in header, expected {}; the file is corrupt",
        H::Record::BYTES
    );
    let version = u32_at(bytes, 8);
    let count = u64::from_le_bytes(bytes[16..24].try_into()?);
    let mut fields = ByteReader::new(&bytes[PREFIX_BYTES..], PREFIX_BYTES);
    let header = H::read_fields(version, count, &mut fields)?;
    fields.finish()?;
    Ok(header)
}

/// Writes the fields that end the header of both kinds of file made from PGN games (triplets
/// and labelled positions), in file order: the split weights, the board encoding and the
/// source.
pub(crate) fn write_games_trailer(
    out: &mut ByteWriter,
    split_weights: &[u16; 3],
    encoding: &str,
    source: &str,
) -> Result<()> {
    out.u16s(split_weights);
    out.str16(encoding, "encoding name")?;
    out.str32(source, "source string")
}

/// Reads what [`write_games_trailer`] wrote: the split weights, the encoding, the source.
pub(crate) fn read_games_trailer(input: &mut ByteReader) -> Result<([u16; 3], String, String)> {
    Ok((
        input.u16s("split weights")?,
        input.str16("encoding name")?,
        input.str32("source")?,
    ))
}
