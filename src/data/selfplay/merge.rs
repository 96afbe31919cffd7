//! `cerise datagen merge`: join self-play files made alike (the same settings, net and
//! search) but from different seeds, e.g. runs on two machines, into one file.
//!
//! Every game keeps its records in order; the games of the second file and after are
//! renumbered to follow the games before them, so that game numbers stay unique (the
//! trainer's validation split is by game). Two files with the same seed hold the same
//! games, so they are refused. The merged header keeps the first file's seed (a run resumed
//! on the merged file plays that seed's games after the last number, which no input played)
//! and names every input in its `engine` note.

use super::SelfPlayHeader;
use crate::data::records::merge::{Merge, MergeOutput};
use crate::data::records::progress::{Progress, Unit};
use crate::data::records::FileHeader;
use anyhow::{bail, Context, Result};
use std::path::PathBuf;

/// Join self-play files that differ only in their seed into one, renumbering the games.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayMergeArgs {
    /// Self-play files, in order (at least two).
    #[arg(required = true, num_args = 2..)]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub output: MergeOutput,
    /// No progress display on stderr.
    #[arg(long)]
    pub no_progress: bool,
}

/// What a merge wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayMergeSummary {
    pub out: PathBuf,
    /// Each input with its positions and games.
    pub parts: Vec<(PathBuf, u64, u64)>,
}

impl std::fmt::Display for SelfPlayMergeSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let positions: u64 = self.parts.iter().map(|p| p.1).sum();
        let games: u64 = self.parts.iter().map(|p| p.2).sum();
        writeln!(
            f,
            "{positions} positions of {games} games written to {}",
            self.out.display()
        )?;
        for (path, positions, games) in &self.parts {
            writeln!(
                f,
                "  {positions} positions, {games} games from {}",
                path.display()
            )?;
        }
        Ok(())
    }
}

/// The merged header, or why the files cannot be merged (naming the setting that differs).
pub fn merged_header(parts: &[(PathBuf, SelfPlayHeader)]) -> Result<SelfPlayHeader> {
    let Some((first_path, first)) = parts.first() else {
        bail!("nothing to merge: give at least two self-play files");
    };
    let mut notes = Vec::with_capacity(parts.len());
    for (i, (path, header)) in parts.iter().enumerate() {
        for ((name, theirs), (_, ours)) in header.settings().into_iter().zip(first.settings()) {
            if name != "seed" && theirs != ours {
                bail!(
                    "{} was made with {name} {theirs} but {} with {name} {ours}; merge only \
                     files made alike (they may differ in their seed)",
                    path.display(),
                    first_path.display()
                );
            }
        }
        if let Some((other, _)) = parts[..i].iter().find(|(_, h)| h.seed == header.seed) {
            bail!(
                "{} and {} both have seed {}, so they hold the same games; give each run of \
                 `cerise datagen` its own --seed",
                other.display(),
                path.display(),
                header.seed
            );
        }
        notes.push(format!("{} (seed {})", path.display(), header.seed));
    }
    let mut merged = first.clone();
    merged.count = 0;
    merged.engine = format!(
        "cerise {}: a merge of {}",
        env!("CARGO_PKG_VERSION"),
        notes.join(", ")
    );
    Ok(merged)
}

/// Runs `cerise datagen merge`: every record is validated on the way; progress on stderr.
pub fn run_selfplay_merge(args: &SelfPlayMergeArgs) -> Result<SelfPlayMergeSummary> {
    let merge = Merge::open(&args.inputs, &args.output, merged_header)?;
    let total = merge.total();
    let Merge {
        inputs: readers,
        mut writer,
    } = merge;
    let mut progress = Progress::new("merge", total, Unit::Items, args.no_progress)?;
    let (mut done, mut offset) = (0u64, 0u64);
    let mut parts = Vec::with_capacity(readers.len());
    let mut batch = Vec::new();
    for (path, mut reader) in readers {
        let (mut games, mut last_game) = (0u64, None);
        let mut next_offset = offset;
        while reader.read_batch(1 << 15, &mut batch)? > 0 {
            for record in &mut batch {
                if last_game != Some(record.game) {
                    last_game = Some(record.game);
                    games += 1;
                }
                let game = u64::from(record.game) + offset;
                record.game = u32::try_from(game).with_context(|| {
                    format!(
                        "the merged file would number a game {game}, past the format's {}; \
                         merge fewer files",
                        u32::MAX
                    )
                })?;
                next_offset = next_offset.max(game + 1);
                writer.write(record)?;
            }
            done += batch.len() as u64;
            progress.update(done, format!("{}", path.display()));
        }
        parts.push((path, reader.len(), games));
        offset = next_offset;
    }
    writer.finish()?;
    progress.finish();
    Ok(SelfPlayMergeSummary {
        out: args.output.out.clone(),
        parts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::selfplay::header::selfplay_header;
    use crate::data::selfplay::{Outcome, SelfPlayAppender, SelfPlayReader, SelfPlayRecord};
    use crate::data::testing::temp_dir;
    use shakmaty::{Chess, Position as _};

    /// A file of `games` games of two plies each (1. e4 e5), numbered from 0.
    fn file(path: &std::path::Path, seed: u64, games: u32, nodes: u32) {
        let header = SelfPlayHeader {
            seed,
            nodes,
            ..selfplay_header()
        };
        let (mut out, _) = SelfPlayAppender::open(path, header).unwrap();
        let start = Chess::default();
        let e4 = start
            .legal_moves()
            .into_iter()
            .find(|m| m.to().to_string() == "e4")
            .unwrap();
        let after = start.clone().play(e4).unwrap();
        let e5 = after
            .legal_moves()
            .into_iter()
            .find(|m| m.to().to_string() == "e5")
            .unwrap();
        for g in 0..games {
            out.push(&SelfPlayRecord::new(&start, 20, &e4, 0, Outcome::Draw, g));
            out.push(&SelfPlayRecord::new(&after, -20, &e5, 1, Outcome::Draw, g));
            out.commit().unwrap();
        }
    }

    fn args(inputs: Vec<PathBuf>, out: PathBuf) -> SelfPlayMergeArgs {
        SelfPlayMergeArgs {
            inputs,
            output: MergeOutput { out, force: false },
            no_progress: true,
        }
    }

    #[test]
    fn games_are_renumbered_in_order_and_every_record_is_kept() {
        let dir = temp_dir("sp-merge-ok");
        let (a, b, m) = (dir.join("a.self"), dir.join("b.self"), dir.join("m.self"));
        file(&a, 1, 3, 5000);
        file(&b, 2, 2, 5000);
        let summary = run_selfplay_merge(&args(vec![a.clone(), b.clone()], m.clone())).unwrap();
        assert_eq!(summary.parts, vec![(a, 6, 3), (b, 4, 2)]);
        let reader = SelfPlayReader::open(&m).unwrap();
        let games: Vec<u32> = (0..reader.len())
            .map(|i| reader.get(i).unwrap().game)
            .collect();
        assert_eq!(games, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
        assert_eq!(reader.header().seed, 1);
        assert!(
            reader.header().engine.contains("a merge of"),
            "{:?}",
            reader.header()
        );
        // The output is not overwritten without --force.
        let again = run_selfplay_merge(&args(vec![dir.join("a.self"), dir.join("b.self")], m));
        assert!(again.unwrap_err().to_string().contains("--force"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn other_settings_or_the_same_seed_are_refused_by_name() {
        let dir = temp_dir("sp-merge-refused");
        let (a, b, c) = (dir.join("a.self"), dir.join("b.self"), dir.join("c.self"));
        file(&a, 1, 1, 5000);
        file(&b, 2, 1, 800);
        file(&c, 1, 1, 5000);
        let e = run_selfplay_merge(&args(vec![a.clone(), b], dir.join("m.self"))).unwrap_err();
        assert!(
            e.to_string().contains("nodes 800") && e.to_string().contains("nodes 5000"),
            "{e}"
        );
        let e = run_selfplay_merge(&args(vec![a, c], dir.join("m.self"))).unwrap_err();
        assert!(e.to_string().contains("both have seed 1"), "{e}");
        assert!(!dir.join("m.self").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
