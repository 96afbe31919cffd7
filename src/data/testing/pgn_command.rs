//! The arguments and the checks of every command that reads PGN games into split record files
//! ([`PgnArgs`]), whatever its kind: so that a new kind gets them by calling them, not by
//! copying.

use super::super::cli::{PgnArgs, PgnSettings};
use super::super::records::{partial_path, split_paths, SplitSummary, SummaryExtra};
use super::super::split::SplitRatios;
use super::temp_dir;
use anyhow::Result;
use std::path::Path;

/// The arguments of a command with `settings` that reads `input` and writes under `out`,
/// replacing nothing and showing no progress.
pub fn pgn_args<S: PgnSettings>(input: &Path, out: &Path, settings: S) -> PgnArgs<S> {
    PgnArgs {
        input: input.to_path_buf(),
        out: out.to_path_buf(),
        settings,
        force: false,
        no_progress: true,
    }
}

/// `run` on `args` reads `games` games; run again on the same outputs it is refused without
/// `--force` (so nothing is replaced by mistake), and with it it runs.
pub fn assert_force_needed_to_replace<S: PgnSettings, X: SummaryExtra>(
    mut args: PgnArgs<S>,
    games: u64,
    run: impl Fn(&PgnArgs<S>) -> Result<SplitSummary<X>>,
) {
    assert_eq!(run(&args).expect("runs").games_read, games);
    let err = run(&args).unwrap_err().to_string();
    assert!(err.contains("--force"), "{err}");
    args.force = true;
    assert_eq!(run(&args).expect("forced").games_read, games);
}

/// Given a `.pgn.bz2` that is not bzip2 at all, `run` fails naming the input and leaves none
/// of its files behind, under the final or the partial name. `args` makes the command's
/// arguments from an input and an output prefix; `tag` names the test's folder.
pub fn assert_unreadable_input_leaves_nothing<S: PgnSettings, X: SummaryExtra>(
    tag: &str,
    args: impl Fn(&Path, &Path) -> PgnArgs<S>,
    run: impl Fn(&PgnArgs<S>) -> Result<SplitSummary<X>>,
) {
    let dir = temp_dir(tag);
    let input = dir.join("fake.pgn.bz2");
    std::fs::write(&input, b"this is not bzip2 data at all").expect("write");
    let args = args(&input, &dir.join("x"));
    let err = format!("{:#}", run(&args).unwrap_err());
    assert!(err.contains("fake.pgn.bz2"), "{err}");
    for p in split_paths(&args.out, S::EXT) {
        assert!(!p.exists() && !partial_path(&p).exists(), "{}", p.display());
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Game `index` of the input went to one split file only, the one `split` with `seed`
/// assigns it: of the records of the train, valid and test `files`, only that file's hold
/// one that `is_probe` (a record of that game alone) accepts.
pub fn assert_only_in_its_split<R>(
    files: &[Vec<R>; 3],
    is_probe: impl Fn(&R) -> bool,
    split: &SplitRatios,
    seed: u64,
    index: usize,
) {
    let holders: Vec<usize> = (0..3).filter(|&s| files[s].iter().any(&is_probe)).collect();
    assert_eq!(
        holders,
        vec![split.assign(seed, index as u64) as usize],
        "game {index}"
    );
}
