//! Self-play positions for training: the records of one or more `cerise datagen` files that
//! pass the load-time filters, split by game into train and valid, read by index so that a
//! file larger than memory trains as well as a small one.
//!
//! Filters (each record is checked once, when the set is opened):
//! - the first `skip_plies` plies of a game (random moves and their aftermath), or, with
//!   `skip_after_random`, the file's own random plies and that many more: files made with
//!   different `--random-plies` then lose the same number of searched plies, so a file of
//!   Chess960 starts with few random plies gives the net the opening positions that a fixed
//!   count would leave out; a file named in `by_file` loses its own count instead;
//! - positions whose side to move is in check (the search resolves them; a static eval
//!   should not learn them);
//! - positions whose best move is a capture or a promotion (an exchange in progress, which
//!   quiescence resolves: the search's leaves are quiet).
//!
//! A training file may also carry a weight (`weight_by_file`): its kept records are drawn
//! that many times an epoch, so that the newest nets' games count for more than the oldest
//! without leaving those out. Validation records are never weighted.

use super::loader::Records;
use crate::data::rng::mix64;
use crate::data::selfplay::{SelfPlayReader, SelfPlayRecord};
use anyhow::{ensure, Context, Result};
use shakmaty::Role;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Which positions of the files a set takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    pub skip_plies: u32,
    /// When set, replaces `skip_plies` file by file: the header's random plies plus this.
    pub skip_after_random: Option<u32>,
    /// Plies left out of each game of these files, in place of both rules above.
    pub by_file: BTreeMap<PathBuf, u32>,
    /// Per mille of games held out for validation.
    pub valid_permille: u32,
    /// Draws per epoch of each kept training record of these files, in thousandths: 2000
    /// twice, 500 a fixed half (chosen by the record's number). Files not named: 1000.
    pub weight_permille: BTreeMap<PathBuf, u32>,
}

/// Why records were left out, for the log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dropped {
    pub early: u64,
    pub in_check: u64,
    pub noisy: u64,
    /// Records of the other split's games.
    pub other_split: u64,
}

/// The records of a split that pass the filter, over several files.
pub struct SelfPlaySet {
    readers: Vec<SelfPlayReader>,
    /// Global record numbers of the kept records: file `k`'s records start at `starts[k]`.
    picked: Vec<u64>,
    starts: Vec<u64>,
    pub dropped: Dropped,
}

/// Whether game `game` of a file made with seed `seed` is a validation game. The file's
/// seed, not its place in a list, names the game, so a file's split is the same in every run.
pub fn is_valid_game(seed: u64, game: u32, permille: u32) -> bool {
    mix64(mix64(seed) ^ u64::from(game)) % 1000 < u64::from(permille)
}

impl Filter {
    /// The plies left out at the start of every game of `path`, made with `random_plies`.
    pub fn skipped_plies(&self, path: &Path, random_plies: u32) -> u32 {
        if let Some(n) = self.by_file.get(path) {
            return *n;
        }
        self.skip_after_random
            .map_or(self.skip_plies, |k| random_plies.saturating_add(k))
    }
}

/// How many times record `index` (its global number), kept for training from a file of
/// weight `permille`, is drawn in an epoch: the whole part of the weight, and one more for a
/// share of records equal to the fraction, chosen by a hash of the number so that every run
/// picks the same ones. A weight of 1000 draws every record once.
fn copies(permille: u32, index: u64) -> u32 {
    let extra = mix64(index ^ 0x5745_4947_4854) % 1000 < u64::from(permille % 1000);
    permille / 1000 + u32::from(extra)
}

/// Why `r` is filtered out, if it is; `skip` is its file's [`Filter::skipped_plies`].
fn rejection(r: &SelfPlayRecord, skip: u32) -> Option<fn(&mut Dropped)> {
    if u32::from(r.ply) < skip {
        return Some(|d| d.early += 1);
    }
    let board = &r.board;
    let king = board.king_of(r.turn)?;
    if board.attacks_to(king, !r.turn, board.occupied()).any() {
        return Some(|d| d.in_check += 1);
    }
    let captures = board.color_at(r.best.to) == Some(!r.turn);
    let en_passant = board.role_at(r.best.from) == Some(Role::Pawn)
        && r.best.from.file() != r.best.to.file()
        && board.piece_at(r.best.to).is_none();
    if captures || en_passant || r.best.promotion.is_some() {
        return Some(|d| d.noisy += 1);
    }
    None
}

impl SelfPlaySet {
    /// Opens `paths` and keeps the records of their `valid` (or train) games that pass
    /// `filter`. `on_file` hears of each file as it is scanned.
    pub fn open(
        paths: &[PathBuf],
        filter: &Filter,
        valid: bool,
        on_file: &mut dyn FnMut(&str),
    ) -> Result<Self> {
        let mut readers = Vec::with_capacity(paths.len());
        let mut starts = Vec::with_capacity(paths.len());
        let mut picked = Vec::new();
        let mut dropped = Dropped::default();
        let mut total = 0u64;
        let mut batch = Vec::new();
        for path in paths {
            let mut reader = SelfPlayReader::open(path).with_context(|| {
                format!(
                    "this objective reads self-play files; make one with `cerise datagen --out {}`",
                    path.display()
                )
            })?;
            let seed = reader.header().seed;
            let skip = filter.skipped_plies(path, reader.header().random_plies);
            // Looked up once a file: validation is never weighted.
            let named = (!valid)
                .then(|| filter.weight_permille.get(path).copied())
                .flatten();
            let permille = named.unwrap_or(1000);
            starts.push(total);
            let mut index = total;
            while reader.read_batch(1 << 16, &mut batch)? > 0 {
                for r in &batch {
                    if is_valid_game(seed, r.game, filter.valid_permille) != valid {
                        dropped.other_split += 1;
                    } else if let Some(count) = rejection(r, skip) {
                        count(&mut dropped);
                    } else {
                        for _ in 0..copies(permille, index) {
                            picked.push(index);
                        }
                    }
                    index += 1;
                }
            }
            reader.seek(0)?;
            let weight = named.map_or_else(String::new, |w| {
                format!("; each drawn {}x an epoch", f64::from(w) / 1000.0)
            });
            on_file(&format!(
                "{}: {} positions, {} kept so far (first {skip} plies of a game left out{weight})",
                path.display(),
                reader.len(),
                picked.len()
            ));
            total = index;
            readers.push(reader);
        }
        ensure!(
            !picked.is_empty(),
            "no {} positions pass the filters in {} (skip_plies {}, skip_after_random {:?}, \
             valid_permille {})",
            if valid { "validation" } else { "training" },
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            filter.skip_plies,
            filter.skip_after_random,
            filter.valid_permille
        );
        Ok(SelfPlaySet {
            readers,
            picked,
            starts,
            dropped,
        })
    }
}

impl Records for SelfPlaySet {
    type Item = SelfPlayRecord;

    fn count(&self) -> u64 {
        self.picked.len() as u64
    }

    fn record(&self, index: u64) -> Result<SelfPlayRecord> {
        let global = self.picked[index as usize];
        let file = self.starts.partition_point(|&s| s <= global) - 1;
        self.readers[file].get(global - self.starts[file])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::selfplay::header::selfplay_header;
    use crate::data::selfplay::{Outcome, SelfPlayAppender, SelfPlayHeader};
    use crate::data::testing::temp_dir;
    use shakmaty::uci::UciMove;
    use shakmaty::{Chess, Position};
    use std::path::Path;

    /// A file of one 30-ply game of quiet moves (the king's knights out and back), as if
    /// made with `random_plies` random plies.
    fn one_game(path: &Path, random_plies: u32) {
        let header = SelfPlayHeader {
            random_plies,
            ..selfplay_header()
        };
        let (mut out, _) = SelfPlayAppender::open(path, header).unwrap();
        let mut pos = Chess::default();
        let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        for ply in 0..30u16 {
            let uci: UciMove = cycle[usize::from(ply) % 4].parse().unwrap();
            let m = uci.to_move(&pos).unwrap();
            out.push(&SelfPlayRecord::new(&pos, 0, &m, ply, Outcome::Draw, 0));
            pos.play_unchecked(m);
        }
        out.commit().unwrap();
    }

    /// Plies left out by one fixed count, no game held out, no file weighted.
    fn unweighted(skip_plies: u32) -> Filter {
        Filter {
            skip_plies,
            skip_after_random: None,
            by_file: BTreeMap::new(),
            valid_permille: 0,
            weight_permille: BTreeMap::new(),
        }
    }

    fn kept(paths: &[PathBuf], filter: &Filter) -> (u64, u64) {
        let set = SelfPlaySet::open(paths, filter, false, &mut |_| {}).unwrap();
        (set.count(), set.dropped.early)
    }

    #[test]
    fn skip_after_random_counts_from_each_files_own_random_plies() {
        let dir = temp_dir("skip-after-random");
        let (eight, two) = (dir.join("eight.self"), dir.join("two.self"));
        one_game(&eight, 8);
        one_game(&two, 2);
        let fixed = unweighted(16);
        assert_eq!(kept(std::slice::from_ref(&eight), &fixed), (14, 16));
        assert_eq!(kept(std::slice::from_ref(&two), &fixed), (14, 16));
        let after = Filter {
            skip_after_random: Some(8),
            ..fixed.clone()
        };
        assert_eq!(kept(std::slice::from_ref(&eight), &after), (14, 16));
        assert_eq!(kept(std::slice::from_ref(&two), &after), (20, 10));
        assert_eq!(kept(&[eight.clone(), two.clone()], &after), (34, 26));
        // The file named alone keeps its plies from 2 on; the other keeps the rule.
        let named = Filter {
            by_file: BTreeMap::from([(two.clone(), 2)]),
            ..after
        };
        assert_eq!(kept(&[eight, two], &named), (42, 18));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_files_weight_draws_its_kept_records_that_many_times() {
        let dir = temp_dir("weight-by-file");
        let (old, new) = (dir.join("old.self"), dir.join("new.self"));
        one_game(&old, 8);
        one_game(&new, 8);
        let plain = unweighted(0);
        let both = [old.clone(), new.clone()];
        assert_eq!(kept(&both, &plain).0, 60);
        // The new file twice: its 30 records appear twice each, the old file's once.
        let twice = Filter {
            weight_permille: BTreeMap::from([(new.clone(), 2000)]),
            ..plain.clone()
        };
        let set = SelfPlaySet::open(&both, &twice, false, &mut |_| {}).unwrap();
        assert_eq!(set.count(), 90);
        let mut counts = BTreeMap::new();
        for i in 0..set.count() {
            *counts.entry(set.picked[i as usize]).or_insert(0) += 1;
        }
        assert!(counts
            .iter()
            .all(|(&g, &n)| n == if g < 30 { 1 } else { 2 }));
        // Half: a fixed share near half, the same in every run.
        let half = Filter {
            weight_permille: BTreeMap::from([(old.clone(), 500)]),
            ..plain.clone()
        };
        let a = SelfPlaySet::open(&both, &half, false, &mut |_| {}).unwrap();
        let b = SelfPlaySet::open(&both, &half, false, &mut |_| {}).unwrap();
        assert_eq!(a.picked, b.picked);
        let from_old = a.picked.iter().filter(|&&g| g < 30).count();
        assert!(
            (8..=22).contains(&from_old),
            "{from_old} of 30 kept at half weight"
        );
        assert_eq!(a.count() as usize, from_old + 30);
        // Validation is never weighted.
        let valid = |f: &Filter| {
            let all = Filter {
                valid_permille: 1000,
                ..f.clone()
            };
            SelfPlaySet::open(&both, &all, true, &mut |_| {}).map(|s| s.count())
        };
        assert_eq!(valid(&twice).unwrap(), valid(&plain).unwrap());
        let _ = std::fs::remove_dir_all(dir);
    }
}
