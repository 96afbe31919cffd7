//! `cerise datagen` end to end on small budgets: the same command gives the same bytes, with
//! one thread or two, in one run or resumed after a kill; other settings are refused.

use super::run::{run_datagen, DatagenArgs};
use crate::data::records::partial_path;
use crate::data::selfplay::{Outcome, SelfPlayReader};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub(crate) fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cerise-datagen-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) fn args(out: &Path, games: u32, threads: usize) -> DatagenArgs {
    DatagenArgs {
        out: out.to_path_buf(),
        nodes: 300,
        depth: 0,
        threads: Some(threads),
        games,
        seed: 11,
        random_plies: 8,
        book: None,
        chess960: 0,
        double_chess960: 0,
        opening_bound: 400,
        win_bound: 600,
        win_plies: 6,
        draw_bound: 10,
        draw_plies: 12,
        draw_after: 40,
        max_plies: 160,
        hash: 1,
        eval: "<embedded>".into(),
        quiet: true,
    }
}

pub(crate) fn run(a: &DatagenArgs) -> super::DatagenSummary {
    run_datagen(a, Arc::new(AtomicBool::new(false))).expect("datagen runs")
}

/// The error of a run that must be refused; `what` says what it tried, should it run.
fn refusal(a: &DatagenArgs, what: &str) -> String {
    match run_datagen(a, Arc::new(AtomicBool::new(false))) {
        Ok(_) => panic!("{what}"),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn a_seeded_run_is_the_same_bytes_again_and_with_two_threads() {
    let dir = temp_dir("same");
    let (a, b, c) = (dir.join("a.self"), dir.join("b.self"), dir.join("c.self"));
    let summary = run(&args(&a, 6, 1));
    run(&args(&b, 6, 1));
    run(&args(&c, 6, 2));
    let bytes = std::fs::read(&a).unwrap();
    assert_eq!(bytes, std::fs::read(&b).unwrap(), "one thread, twice");
    assert_eq!(bytes, std::fs::read(&c).unwrap(), "two threads");
    assert_eq!(summary.games, 6);
    assert_eq!(summary.next_game, 6);
    assert!(summary.positions > 0 && summary.positions == summary.file_positions);
    // Every record reads back, games in order, each with one result and rising plies.
    let mut reader = SelfPlayReader::open(&a).unwrap();
    assert_eq!(reader.len(), summary.positions);
    let mut records = Vec::new();
    reader.read_batch(1 << 20, &mut records).unwrap();
    for pair in records.windows(2) {
        let (x, y) = (&pair[0], &pair[1]);
        assert!(
            y.game > x.game || (y.game == x.game && y.ply == x.ply + 1 && y.result == x.result)
        );
    }
    for r in &records {
        let (pos, _) = r.position_and_move().expect("legal position and move");
        assert!(r.ply >= 8, "the random plies are not recorded");
        let _ = pos;
    }
    assert!(!partial_path(&a).exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_killed_run_resumes_without_losing_or_repeating_a_game() {
    let dir = temp_dir("resume");
    let (whole, parts) = (dir.join("whole.self"), dir.join("parts.self"));
    run(&args(&whole, 8, 1));
    // Three games, then a commit cut short by a kill (its records written, not its count),
    // then the same command with the full target.
    run(&args(&parts, 3, 2));
    let mut bytes = std::fs::read(&parts).unwrap();
    bytes.extend_from_slice(&[7u8; 100]);
    std::fs::write(&parts, &bytes).unwrap();
    let resumed = run(&args(&parts, 8, 2));
    assert_eq!(resumed.resumed_from.map(|(_, cut)| cut), Some(100));
    assert_eq!(resumed.games, 5, "games 3..8 only");
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&parts).unwrap()
    );
    // A finished file is left as it is (a trailing skipped start, which wrote nothing, is
    // only looked at again).
    let before = std::fs::read(&parts).unwrap();
    let again = run(&args(&parts, 8, 1));
    assert_eq!((again.positions, again.games - again.skipped), (0, 0));
    assert_eq!(std::fs::read(&parts).unwrap(), before);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_file_made_with_other_settings_is_refused_by_name() {
    let dir = temp_dir("settings");
    let path = dir.join("a.self");
    run(&args(&path, 1, 1));
    let mut other = args(&path, 2, 1);
    other.nodes = 400;
    let err = refusal(&other, "resumed with another node budget");
    assert!(
        err.contains("nodes is 300 in the file, 400 in this run"),
        "{err}"
    );
    let mut other = args(&path, 2, 1);
    other.eval = "<material>".into();
    let err = refusal(&other, "resumed with another evaluator");
    assert!(err.contains("net is"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn chess960_shares_start_their_games_there_and_leave_the_others_as_they_were() {
    use super::opening::Variants;
    use std::collections::BTreeMap;
    let dir = temp_dir("chess960");
    let (plain, mixed) = (dir.join("plain.self"), dir.join("mixed.self"));
    run(&args(&plain, 8, 2));
    let mut with = args(&mixed, 8, 2);
    (with.chess960, with.double_chess960) = (30, 20);
    run(&with);
    let games = |path: &Path| {
        let mut reader = SelfPlayReader::open(path).unwrap();
        let mut records = Vec::new();
        reader.read_batch(1 << 20, &mut records).unwrap();
        let mut by_game: BTreeMap<u32, Vec<_>> = BTreeMap::new();
        for r in records {
            by_game.entry(r.game).or_default().push(r);
        }
        (reader.header().clone(), by_game)
    };
    let ((_, plain_games), (header, mixed_games)) = (games(&plain), games(&mixed));
    assert_eq!(
        (header.chess960_percent, header.double_chess960_percent),
        (30, 20)
    );
    let shares = Variants {
        chess960: 30,
        double: 20,
    };
    let (mut standard, mut variant, mut chess960_rooks) = (0, 0, 0);
    for g in 0..8u32 {
        match shares.draw(with.seed, u64::from(g)) {
            // The same game, record for record, as the run without shares.
            None => {
                standard += 1;
                assert_eq!(mixed_games.get(&g), plain_games.get(&g), "game {g}");
            }
            Some((white, black)) => {
                variant += 1;
                let Some(records) = mixed_games.get(&g) else {
                    continue; // a skipped start
                };
                // Every position is legal and its move too, castling by king and rook
                // included; a rook that may castle from a file other than a or h says the
                // game began from a Chess960 start.
                for r in records {
                    r.position_and_move().expect("legal position and move");
                }
                let corners = shakmaty::Bitboard::CORNERS;
                if !(white == black && white == crate::chess::chess960::STANDARD)
                    && records
                        .iter()
                        .any(|r| !r.castling.without(corners).is_empty())
                {
                    chess960_rooks += 1;
                }
            }
        }
    }
    assert!(
        standard > 0 && variant > 0,
        "{standard} standard, {variant} variant"
    );
    assert!(chess960_rooks > 0, "no game kept a Chess960 castling right");
    // Resuming with other shares is refused by name.
    let mut other = args(&mixed, 9, 1);
    other.chess960 = 10;
    let err = refusal(&other, "resumed with other Chess960 shares");
    assert!(err.contains("Chess960 percent"), "{err}");
    let mut too_many = args(&dir.join("c.self"), 1, 1);
    (too_many.chess960, too_many.double_chess960) = (80, 30);
    let err = refusal(&too_many, "shares above 100% ran");
    assert!(err.contains("at most 100"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_depth_budget_ends_each_search_before_a_large_node_budget() {
    let dir = temp_dir("depth");
    let path = dir.join("a.self");
    let mut deep = args(&path, 2, 1);
    (deep.depth, deep.nodes) = (2, 10_000_000);
    let summary = run(&deep);
    assert!(summary.positions > 0);
    // Depth 2 scores a few hundred children a move at most; the node budget would allow
    // ten million.
    let per_move = summary.nodes / summary.positions;
    assert!(per_move < 5_000, "{per_move} nodes a move at depth 2");
    let reader = SelfPlayReader::open(&path).unwrap();
    assert_eq!(reader.header().depth, 2);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn adjudication_ends_games_and_labels_them() {
    let dir = temp_dir("adjudicate");
    let path = dir.join("a.self");
    let summary = run(&args(&path, 6, 2));
    let adjudicated: u64 = summary
        .ends
        .iter()
        .filter(|(end, _)| end.name().starts_with("adjudicated"))
        .map(|(_, n)| n)
        .sum();
    assert!(adjudicated > 0, "{summary}");
    // A won game's positions carry the winner; its last searched score favours it.
    let mut reader = SelfPlayReader::open(&path).unwrap();
    let mut records = Vec::new();
    reader.read_batch(1 << 20, &mut records).unwrap();
    let decisive = records.iter().filter(|r| r.result != Outcome::Draw).count();
    assert_eq!(
        summary.results[0] + summary.results[2] > 0,
        decisive > 0,
        "{summary}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_header_names_a_net_file_by_its_content() {
    let dir = temp_dir("header-name");
    let shipped = format!(
        "{}/nets/{}.safetensors",
        env!("CARGO_MANIFEST_DIR"),
        crate::eval::embedded::NAME
    );
    let id = crate::net::content_id(crate::eval::embedded::BYTES);
    let renamed = dir.join("mine.safetensors");
    std::fs::copy(&shipped, &renamed).unwrap();
    let name = |path: &std::path::Path, shown: &str| {
        super::run::header_net_name(&crate::eval::EvalSpec::File(path.into()), shown).unwrap()
    };
    let stem = crate::eval::embedded::NAME;
    // A file named by its id, and the embedded net, keep the name earlier files recorded.
    assert_eq!(
        name(
            std::path::Path::new(&shipped),
            &format!("net {stem} (narrow-as, native avx2)")
        ),
        format!("net {stem}")
    );
    assert_eq!(
        super::run::header_net_name(
            &crate::eval::EvalSpec::Embedded,
            &format!("net {stem} (narrow-as, native avx2)")
        )
        .unwrap(),
        format!("net {stem}")
    );
    // A renamed copy is named by its weights.
    assert_eq!(
        name(&renamed, "net mine (narrow-as, native scalar)"),
        format!("net mine [content {id}]")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
