//! `cerise datagen pack` and `unpack`: a self-play file stored game by game, for keeping data
//! in the repository. Within a game each record but the first follows from the one before
//! (its position is the previous position after the previous best move, its ply one more,
//! its result and game the same), so a packed file stores a run of such records as the first
//! record whole and then only each later record's score and best move: 4 bytes instead of 40.
//! The score is stored as its sum with the previous score (zigzag-coded): the side to move
//! changes every ply, so consecutive scores nearly cancel and the sum is a small number that
//! `xz` packs better (the packed `g3-502` is 9% smaller after `xz` than with plain scores).
//! After `xz` a packed file is under a third of the plain file's `xz` size (2.8 bytes a
//! position against 10.2 on `g3-502`).
//!
//! Packing is lossless by construction: a record is stored as a continuation only when the
//! record derived from its predecessor encodes to exactly its bytes; anything else (a new
//! game, a position the datagen did not reach by the best move) starts a new run. Unpacking
//! therefore gives back the original file byte for byte.
//!
//! The packed file, integers little-endian:
//!
//! | size | field                                                                       |
//! |------|-----------------------------------------------------------------------------|
//! | 28   | the record-file prefix ([`crate::data::records`]): magic `CRSSPAK1`, version, |
//! |      | header length, record count, record size 40 (of the unpacked records)       |
//! | N    | the self-play file's own header, whole, its count equal to the one above    |
//! |      | runs until `count` records: one record (40 bytes), then the number of       |
//! |      | continuations (LEB128 varint), then for each one: its score plus the        |
//! |      | previous record's score (wrapping i16, zigzag-coded as u16) and its best    |
//! |      | move (u16, as in the record)                                                |

use super::record::{SelfPlayRecord, StoredMove};
use super::{SelfPlayHeader, SelfPlayReader};
use crate::data::records::header::{announced_len, decode, encode, write_prefix, PREFIX_BYTES};
use crate::data::records::progress::{Progress, Unit};
use crate::data::records::writer::{publish, refuse_existing};
use crate::data::records::{formats, partial_path, FileHeader, Record, RecordWriter};
use anyhow::{bail, ensure, Context, Result};
use shakmaty::Position;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Bytes a continuation takes: score and best move.
const CONTINUATION_BYTES: usize = 4;

/// The arguments of `datagen pack` (a self-play file in, a packed file out) and of `datagen
/// unpack` (the reverse).
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct PackArgs {
    /// The file to convert: a `cerise datagen` file for `pack` (its committed records), a
    /// `cerise datagen pack` file for `unpack`.
    pub input: PathBuf,
    /// The converted file; written as `<out>.partial` and renamed when complete.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Replace an existing output file.
    #[arg(long)]
    pub force: bool,
    /// No progress display on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

/// What a pack or unpack did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackSummary {
    pub out: PathBuf,
    pub records: u64,
    /// Runs: records stored whole; the rest were continuations.
    pub runs: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
}

impl std::fmt::Display for PackSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} positions ({} stored whole) written to {}: {} bytes from {} ({:.2} bytes a \
             position)",
            self.records,
            self.runs,
            self.out.display(),
            self.bytes_out,
            self.bytes_in,
            self.bytes_out as f64 / self.records.max(1) as f64
        )
    }
}

/// The record that follows `prev` in its game when the search then scored `score` and chose
/// `best`; `None` if `prev` is not a legal position or its best move is not legal.
fn successor(prev: &SelfPlayRecord, score: i16, best: StoredMove) -> Option<SelfPlayRecord> {
    let (mut pos, m) = prev.position_and_move().ok()?;
    pos.play_unchecked(m);
    Some(SelfPlayRecord::with_stored_move(
        &pos,
        score,
        best,
        prev.ply.checked_add(1)?,
        prev.result,
        prev.game,
    ))
}

fn encoded(r: &SelfPlayRecord) -> [u8; SelfPlayRecord::BYTES] {
    let mut out = [0u8; SelfPlayRecord::BYTES];
    r.encode(&mut out);
    out
}

/// The stored score of a continuation: `score + prev` (wrapping), zigzag-coded so that small
/// sums of either sign are small numbers.
fn score_code(score: i16, prev: i16) -> u16 {
    let sum = score.wrapping_add(prev);
    ((sum << 1) ^ (sum >> 15)) as u16
}

/// The inverse of [`score_code`].
fn score_of(code: u16, prev: i16) -> i16 {
    let sum = ((code >> 1) as i16) ^ -((code & 1) as i16);
    sum.wrapping_sub(prev)
}

fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Why `args.out` may not be written: it is the input, or it exists and `--force` is not given.
fn check_output(args: &PackArgs) -> Result<()> {
    ensure!(
        args.input != args.out,
        "--out {} is the input; write somewhere else",
        args.out.display()
    );
    refuse_existing(std::slice::from_ref(&args.out), args.force)
}

/// The output `.partial`, once [`check_output`] allows it.
fn create_output(args: &PackArgs) -> Result<(BufWriter<File>, PathBuf)> {
    check_output(args)?;
    let partial = partial_path(&args.out);
    let file =
        File::create(&partial).with_context(|| format!("cannot create {}", partial.display()))?;
    Ok((BufWriter::with_capacity(1 << 20, file), partial))
}

/// Flushes, syncs and renames a finished output; returns its size.
fn finish_output(out: BufWriter<File>, partial: &Path, path: &Path) -> Result<u64> {
    let file = out
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("cannot flush {} (disk full?)", partial.display()))?;
    let size = file.metadata()?.len();
    publish(file, partial, path)?;
    Ok(size)
}

/// One run being packed: its first record's bytes and its continuations.
struct Run {
    first: [u8; SelfPlayRecord::BYTES],
    continuations: Vec<u8>,
}

impl Run {
    fn flush(&mut self, out: &mut BufWriter<File>, scratch: &mut Vec<u8>) -> Result<()> {
        scratch.clear();
        scratch.extend_from_slice(&self.first);
        write_varint(
            scratch,
            (self.continuations.len() / CONTINUATION_BYTES) as u64,
        );
        scratch.extend_from_slice(&self.continuations);
        out.write_all(scratch).context("cannot write (disk full?)")
    }
}

/// Runs `cerise datagen pack`.
pub fn run_pack(args: &PackArgs) -> Result<PackSummary> {
    let mut reader = SelfPlayReader::open(&args.input)?;
    let header = encode(reader.header())?;
    let (mut out, partial) = create_output(args)?;
    let result = (|| -> Result<(u64, u64)> {
        let mut prefix = Vec::with_capacity(PREFIX_BYTES);
        write_prefix(
            &mut prefix,
            &formats::SELFPLAY_PACKED,
            (PREFIX_BYTES + header.len()) as u32,
            reader.len(),
            SelfPlayRecord::BYTES as u32,
        );
        out.write_all(&prefix)?;
        out.write_all(&header)?;
        let mut progress = Progress::new("pack", reader.len(), Unit::Items, args.no_progress)?;
        let (mut batch, mut scratch) = (Vec::new(), Vec::new());
        let (mut done, mut runs) = (0u64, 0u64);
        let mut run: Option<Run> = None;
        let mut prev: Option<SelfPlayRecord> = None;
        while reader.read_batch(1 << 15, &mut batch)? > 0 {
            for r in batch.drain(..) {
                let bytes = encoded(&r);
                // The stored score if `r` follows `prev` exactly, so is a continuation.
                let continuation = prev
                    .as_ref()
                    .filter(|p| {
                        successor(p, r.score, r.best).is_some_and(|next| encoded(&next) == bytes)
                    })
                    .map(|p| score_code(r.score, p.score));
                match (&mut run, continuation) {
                    (Some(run), Some(code)) => {
                        run.continuations.extend_from_slice(&code.to_le_bytes());
                        run.continuations.extend_from_slice(&bytes[26..28]);
                    }
                    _ => {
                        if let Some(mut done_run) = run.take() {
                            done_run.flush(&mut out, &mut scratch)?;
                        }
                        runs += 1;
                        run = Some(Run {
                            first: bytes,
                            continuations: Vec::new(),
                        });
                    }
                }
                prev = Some(r);
                done += 1;
            }
            progress.update(done, format!("{runs} runs"));
        }
        if let Some(mut last) = run.take() {
            last.flush(&mut out, &mut scratch)?;
        }
        progress.finish();
        Ok((done, runs))
    })();
    let (records, runs) = match result {
        Ok(v) => v,
        Err(e) => {
            drop(out);
            let _ = std::fs::remove_file(&partial);
            return Err(e.context(format!("packing {}", args.input.display())));
        }
    };
    let bytes_out = finish_output(out, &partial, &args.out)?;
    let bytes_in = std::fs::metadata(&args.input)?.len();
    Ok(PackSummary {
        out: args.out.clone(),
        records,
        runs,
        bytes_in,
        bytes_out,
    })
}

/// Reads a packed file's body: exact reads with errors that say the file is cut short.
struct Body<R: Read> {
    input: R,
    path: PathBuf,
}

impl<R: Read> Body<R> {
    fn exact(&mut self, buf: &mut [u8], what: &str) -> Result<()> {
        self.input.read_exact(buf).with_context(|| {
            format!(
                "{}: cannot read {what}: the file is truncated or corrupt",
                self.path.display()
            )
        })
    }

    fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let mut b = [0u8];
            self.exact(&mut b, "a run length")?;
            v |= u64::from(b[0] & 0x7f) << shift;
            if b[0] & 0x80 == 0 {
                return Ok(v);
            }
        }
        bail!(
            "{}: a run length longer than 64 bits; the file is corrupt",
            self.path.display()
        )
    }
}

/// Runs `cerise datagen unpack`: every record is decoded and checked on the way.
pub fn run_unpack(args: &PackArgs) -> Result<PackSummary> {
    check_output(args)?;
    let file =
        File::open(&args.input).with_context(|| format!("cannot open {}", args.input.display()))?;
    let bytes_in = file.metadata()?.len();
    let mut body = Body {
        input: BufReader::with_capacity(1 << 20, file),
        path: args.input.clone(),
    };
    let describe =
        |e: anyhow::Error| e.context(format!("{} is not readable", args.input.display()));
    let mut prefix = [0u8; PREFIX_BYTES];
    body.exact(&mut prefix, "the header")?;
    let len = announced_len(&formats::SELFPLAY_PACKED, &prefix).map_err(describe)? as usize;
    let count = u64::from_le_bytes(prefix[16..24].try_into()?);
    let mut inner = vec![0u8; len - PREFIX_BYTES];
    body.exact(&mut inner, "the self-play header")?;
    let header: SelfPlayHeader = decode(&inner).map_err(describe)?;
    header.check().map_err(describe)?;
    ensure!(
        header.count() == count,
        "{}: the packed count {count} and the self-play header's {} differ; the file is \
         corrupt",
        args.input.display(),
        header.count()
    );
    let mut writer = RecordWriter::create(&args.out, header)?;
    let mut progress = Progress::new("unpack", count, Unit::Items, args.no_progress)?;
    let (mut done, mut runs) = (0u64, 0u64);
    let mut first = [0u8; SelfPlayRecord::BYTES];
    let mut cont = [0u8; CONTINUATION_BYTES];
    while done < count {
        body.exact(&mut first, "a record")?;
        let mut prev = SelfPlayRecord::decode(&first, done)
            .with_context(|| format!("{} is damaged", args.input.display()))?;
        writer.write(&prev)?;
        done += 1;
        runs += 1;
        let n = body.varint()?;
        ensure!(
            n <= count - done,
            "{}: a run of {n} more records, past the {count} the header announces; the file \
             is corrupt",
            args.input.display()
        );
        for _ in 0..n {
            body.exact(&mut cont, "a continuation")?;
            let score = score_of(u16::from_le_bytes([cont[0], cont[1]]), prev.score);
            let code = u16::from_le_bytes([cont[2], cont[3]]);
            let best = StoredMove::from_code(code).with_context(|| {
                format!(
                    "{}: record {done}: move code {code:#x}; the file is corrupt",
                    args.input.display()
                )
            })?;
            let next = successor(&prev, score, best).with_context(|| {
                format!(
                    "{}: record {}: game {} ply {} has no legal best move to continue from; \
                     the file is corrupt",
                    args.input.display(),
                    done,
                    prev.game,
                    prev.ply
                )
            })?;
            writer.write(&next)?;
            prev = next;
            done += 1;
        }
        if runs % 256 == 0 {
            progress.update(done, format!("{runs} runs"));
        }
    }
    let mut rest = [0u8; 1];
    ensure!(
        body.input.read(&mut rest)? == 0,
        "{}: bytes follow the {count} records the header announces; the file is corrupt",
        args.input.display()
    );
    writer.finish()?;
    progress.finish();
    let bytes_out = std::fs::metadata(&args.out)?.len();
    Ok(PackSummary {
        out: args.out.clone(),
        records: done,
        runs,
        bytes_in,
        bytes_out,
    })
}

#[cfg(test)]
#[path = "pack_tests.rs"]
mod tests;
