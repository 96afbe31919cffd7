//! `cerise data merge`: join triplet files of one kind into one, so the trainer (which reads
//! a single train file) can learn from several sources at once, e.g. the master games and
//! the TCEC engine games (issue #6).
//!
//! The records are copied in input order; the trainer permutes them every epoch, so the
//! sources mix in its batches. Files are only merged when they were cut the same way: the
//! same board encoding, the same quiet filter and the same split. The header keeps what
//! still holds for every record (the lowest Elo floor and skip, the union of the results)
//! and names each input with its count in `source`.

use super::format::{Triplet, TripletHeader};
use crate::data::records::merge::{Merge, MergeOutput};
use crate::data::split::Split;
use anyhow::{bail, Context, Result};
use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

/// Records copied per read.
const BATCH: usize = 1 << 15;

/// Join triplet files of one kind (same encoding, quiet filter and split) into one.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct MergeArgs {
    /// Triplet files to join, in order (at least two).
    #[arg(required = true, num_args = 2..)]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub output: MergeOutput,
}

/// What a merge wrote: each input with its record count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeSummary {
    pub out: PathBuf,
    pub parts: Vec<(PathBuf, u64)>,
}

impl MergeSummary {
    pub fn total(&self) -> u64 {
        self.parts.iter().map(|(_, n)| n).sum()
    }
}

impl fmt::Display for MergeSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .parts
            .iter()
            .map(|(path, n)| format!("{n} from {}", path.display()))
            .collect();
        write!(
            f,
            "{} triplets written to {}: {}",
            self.total(),
            self.out.display(),
            parts.join(", ")
        )
    }
}

/// The header of the merged file, or why the inputs cannot be merged.
pub fn merged_header(parts: &[(PathBuf, TripletHeader)]) -> Result<TripletHeader> {
    let Some((first_path, first)) = parts.first() else {
        bail!("nothing to merge: give at least two triplet files");
    };
    let mut header = first.clone();
    let mut sources = Vec::with_capacity(parts.len());
    for (path, h) in parts {
        let kind = |quiet: bool| {
            if quiet {
                "quiet triplets"
            } else {
                "all triplets"
            }
        };
        let split = |s: Option<Split>| s.map_or("unsplit", Split::name);
        if h.encoding != first.encoding {
            bail!(
                "{} uses board encoding '{}' but {} uses '{}'; regenerate one of them with \
                 this build's `cerise data triplets`",
                path.display(),
                h.encoding,
                first_path.display(),
                first.encoding
            );
        }
        if h.quiet != first.quiet {
            bail!(
                "{} holds {} but {} holds {}; merge files made with the same --quiet setting",
                path.display(),
                kind(h.quiet),
                first_path.display(),
                kind(first.quiet)
            );
        }
        if h.split != first.split {
            bail!(
                "{} is a {} file but {} is a {} file; merge train with train, valid with valid",
                path.display(),
                split(h.split),
                first_path.display(),
                split(first.split)
            );
        }
        header.skip_plies = header.skip_plies.min(h.skip_plies);
        header.min_elo = header.min_elo.min(h.min_elo);
        header.results |= h.results;
        sources.push(format!(
            "{} ({} triplets: {})",
            path.display(),
            h.count,
            h.source
        ));
    }
    header.count = 0;
    header.source = format!("merge of {}", sources.join(" + "));
    Ok(header)
}

/// Runs `cerise data merge`: validates every record on the way, progress on stderr.
pub fn run_merge_cli(args: &MergeArgs) -> Result<MergeSummary> {
    let out = &args.output.out;
    let merge = Merge::open(&args.inputs, &args.output, merged_header)?;
    let total = merge.total();
    let Merge {
        inputs: mut readers,
        mut writer,
    } = merge;
    let started = Instant::now();
    let mut last_report = Instant::now();
    let mut batch: Vec<Triplet> = Vec::with_capacity(BATCH);
    let mut parts = Vec::with_capacity(readers.len());
    eprintln!(
        "[merge] {total} triplets from {} files into {}",
        readers.len(),
        out.display()
    );
    for (path, reader) in &mut readers {
        let mut copied = 0u64;
        loop {
            let n = reader.read_batch(BATCH, &mut batch)?;
            if n == 0 {
                break;
            }
            for t in &batch {
                writer.write(t)?;
            }
            copied += n as u64;
            if last_report.elapsed().as_secs() >= 10 {
                last_report = Instant::now();
                let done = writer.count();
                let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-9);
                eprintln!(
                    "[merge] {done}/{total} ({rate:.0}/s, eta {:.0} s), now {}",
                    (total - done) as f64 / rate.max(1e-9),
                    path.display()
                );
            }
        }
        parts.push((path.clone(), copied));
    }
    let written = writer
        .finish()
        .with_context(|| format!("cannot finish {}", out.display()))?;
    debug_assert_eq!(written, total);
    Ok(MergeSummary {
        out: out.clone(),
        parts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::CompactBoard;
    use crate::data::records::partial_path;
    use crate::data::testing::{self, temp_dir};
    use crate::data::{Split, TripletReader, TripletWriter};
    use std::path::Path;

    fn read_all(path: &Path) -> Vec<Triplet> {
        testing::read_all::<TripletHeader>(path)
    }

    fn triplet(i: u8) -> Triplet {
        Triplet {
            p: CompactBoard([i % 13; 64]),
            q: CompactBoard([(i + 1) % 13; 64]),
            r: CompactBoard([(i + 2) % 13; 64]),
            result: (i % 3) as i8 - 1,
        }
    }

    fn write(dir: &Path, name: &str, header: TripletHeader, range: std::ops::Range<u8>) -> PathBuf {
        let path = dir.join(name);
        let mut w = TripletWriter::create(&path, header).expect("create");
        for i in range {
            w.write(&triplet(i)).expect("write");
        }
        w.finish().expect("finish");
        path
    }

    fn quiet_train(source: &str, min_elo: u32, results: u8) -> TripletHeader {
        TripletHeader {
            quiet: true,
            split: Some(Split::Train),
            skip_plies: 10,
            min_elo,
            results,
            ..TripletHeader::new(source, 1)
        }
    }

    #[test]
    fn concatenates_records_and_keeps_what_holds_for_all() {
        let dir = temp_dir("merge-ok");
        let a = write(
            &dir,
            "a.trip",
            quiet_train("masters.pgn", 2200, 0b011),
            0..30,
        );
        let b = write(&dir, "b.trip", quiet_train("tcec.pgn", 0, 0b100), 30..41);
        let out = dir.join("ab.trip");
        let args = MergeArgs {
            inputs: vec![a.clone(), b.clone()],
            output: MergeOutput {
                out: out.clone(),
                force: false,
            },
        };
        let summary = run_merge_cli(&args).expect("merge");
        assert_eq!(
            summary.to_string(),
            format!(
                "41 triplets written to {}: 30 from {}, 11 from {}",
                out.display(),
                a.display(),
                b.display()
            )
        );
        assert_eq!(summary.parts, vec![(a, 30), (b, 11)]);
        assert_eq!(summary.total(), 41);
        assert_eq!(read_all(&out), (0..41).map(triplet).collect::<Vec<_>>());
        let h = TripletReader::open(&out).expect("open").header().clone();
        assert_eq!(h.count, 41);
        assert!(h.quiet);
        assert_eq!(h.split, Some(Split::Train));
        assert_eq!((h.min_elo, h.results, h.skip_plies), (0, 0b111, 10));
        assert!(
            h.source.contains("masters.pgn") && h.source.contains("tcec.pgn"),
            "{}",
            h.source
        );
        assert!(!partial_path(&out).exists());
        // Without --force the finished file is not replaced; with it, it is.
        let again = run_merge_cli(&args).unwrap_err().to_string();
        assert!(again.contains("--force"), "{again}");
        run_merge_cli(&MergeArgs {
            output: MergeOutput { out, force: true },
            ..args
        })
        .expect("forced merge");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn refuses_files_of_different_kinds_and_leaves_nothing() {
        let dir = temp_dir("merge-kinds");
        let quiet = write(&dir, "q.trip", quiet_train("a", 0, 0b111), 0..5);
        let all = TripletHeader {
            quiet: false,
            ..quiet_train("b", 0, 0b111)
        };
        let all = write(&dir, "all.trip", all, 0..5);
        let valid = TripletHeader {
            split: Some(Split::Valid),
            ..quiet_train("c", 0, 0b111)
        };
        let valid = write(&dir, "valid.trip", valid, 0..5);
        let out = dir.join("out.trip");
        let merge = |inputs: Vec<PathBuf>| {
            run_merge_cli(&MergeArgs {
                inputs,
                output: MergeOutput {
                    out: out.clone(),
                    force: false,
                },
            })
            .unwrap_err()
            .to_string()
        };
        let err = merge(vec![quiet.clone(), all]);
        assert!(err.contains("--quiet"), "{err}");
        let err = merge(vec![quiet.clone(), valid]);
        assert!(err.contains("train with train"), "{err}");
        let err = merge(vec![quiet.clone(), dir.join("missing.trip")]);
        assert!(err.contains("missing.trip"), "{err}");
        assert!(!out.exists() && !partial_path(&out).exists());
        let err = run_merge_cli(&MergeArgs {
            inputs: vec![quiet.clone(), quiet.clone()],
            output: MergeOutput {
                out: quiet,
                force: true,
            },
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("one of the inputs"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
