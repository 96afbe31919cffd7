//! End-to-end tests of `cerise data triplets` on the committed fixture
//! ([`testing::fixture`]), compared with its independent replay.

use crate::chess::CompactBoard;
use crate::data::pgn::GameFilter;
use crate::data::testing::fixture::{raw_games, replay, RawGame, FIXTURE};
use crate::data::testing::pgn_command::{
    assert_force_needed_to_replace, assert_only_in_its_split,
    assert_unreadable_input_leaves_nothing, pgn_args,
};
use crate::data::testing::{self, temp_dir};
use crate::data::*;
use shakmaty::Position as _;
use std::path::Path;

/// p, q, every legal child but q, and the result for p's side to move.
type ExpectedRecord = (CompactBoard, CompactBoard, Vec<CompactBoard>, i8);

fn args(input: &Path, out: &Path) -> TripletArgs {
    let settings = TripletConfig {
        seed: 7,
        skip_plies: 6,
        quiet: false,
        filter: GameFilter::default(),
        split: "60,20,20".parse().expect("valid split"),
        max_games: None,
    };
    pgn_args(input, out, settings)
}

fn read_all(path: &Path) -> Vec<Triplet> {
    testing::read_all::<TripletHeader>(path)
}

#[test]
fn records_match_an_independent_replay_split_by_game() {
    let dir = temp_dir("replay");
    let a = args(Path::new(FIXTURE), &dir.join("mini"));
    let summary = run_triplets_cli(&a).expect("fixture converts");
    let games = raw_games();
    assert_eq!(summary.games_read, games.len() as u64);

    // Expected records per split, built game by game from the reference replay.
    let mut expected: [Vec<ExpectedRecord>; 3] = Default::default();
    let mut invalid = 0;
    for (index, g) in games.iter().enumerate() {
        let Some((before, moves)) = replay(g) else {
            invalid += 1;
            continue;
        };
        let white_score = match g.tag("Result") {
            Some("1-0") => 1,
            Some("0-1") => -1,
            _ => 0,
        };
        let split = a.settings.split.assign(a.settings.seed, index as u64) as usize;
        for (ply, (p, m)) in before.iter().zip(&moves).enumerate() {
            let legal = p.legal_moves();
            if ply < a.settings.skip_plies as usize || legal.len() < 2 {
                continue;
            }
            let child = |mv: &shakmaty::Move| {
                let mut c = p.clone();
                c.play_unchecked(*mv);
                CompactBoard::from_chess(&c)
            };
            let others = legal.iter().filter(|&x| x != m).map(child).collect();
            let score = if p.turn().is_white() {
                white_score
            } else {
                -white_score
            };
            expected[split].push((CompactBoard::from_chess(p), child(m), others, score));
        }
    }
    // Two corrupt games and one bad FEN in the fixture; everything else is legal.
    assert_eq!(invalid, 3);
    assert_eq!(
        summary
            .skipped
            .get(&SkipReason::IllegalMove)
            .copied()
            .unwrap_or(0)
            + summary
                .skipped
                .get(&SkipReason::BadFen)
                .copied()
                .unwrap_or(0),
        invalid
    );

    let mut total = 0;
    for (i, path) in split_paths(&a.out).iter().enumerate() {
        let got = read_all(path);
        assert_eq!(got.len(), expected[i].len(), "{}", path.display());
        assert_eq!(summary.records_per_split[i], got.len() as u64);
        for (k, (t, (p, q, others, score))) in got.iter().zip(&expected[i]).enumerate() {
            assert_eq!(&t.p, p, "split {i} record {k}: p");
            assert_eq!(
                &t.q, q,
                "split {i} record {k}: q is the played move's result"
            );
            assert_ne!(t.r, t.q);
            assert!(
                others.contains(&t.r),
                "split {i} record {k}: r is another legal child"
            );
            assert_eq!(t.result, *score, "split {i} record {k}: result");
        }
        let header = TripletReader::open(path).expect("opens").header().clone();
        assert_eq!(header.split, Some(Split::ALL[i]));
        assert_eq!((header.seed, header.skip_plies), (7, 6));
        assert_eq!(header.encoding, crate::chess::ENCODING_NAME);
        total += got.len();
    }
    assert_eq!(summary.records(), total as u64);
    assert!(
        summary.records_per_split.iter().all(|&n| n > 0),
        "{summary}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn output_is_reproducible_and_seed_dependent() {
    let dir = temp_dir("repro");
    let run = |name: &str, seed: u64| {
        let mut a = args(Path::new(FIXTURE), &dir.join(name));
        a.settings.seed = seed;
        run_triplets_cli(&a).expect("fixture converts");
        split_paths(&a.out).map(|p| read_all(&p))
    };
    let first = run("a", 7);
    assert_eq!(first, run("b", 7));
    assert_ne!(first, run("c", 8));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn no_game_spans_two_splits() {
    // Every game's first counted position is unique in the fixture, so where a game's
    // positions land identifies where the game went.
    let dir = temp_dir("leak");
    let a = args(Path::new(FIXTURE), &dir.join("mini"));
    run_triplets_cli(&a).expect("fixture converts");
    let files = split_paths(&a.out).map(|p| read_all(&p));
    for (index, g) in raw_games().iter().enumerate() {
        let Some((before, _)) = replay(g) else {
            continue;
        };
        let boards: Vec<CompactBoard> = before
            .iter()
            .skip(a.settings.skip_plies as usize)
            .filter(|p| p.legal_moves().len() >= 2)
            .map(CompactBoard::from_chess)
            .collect();
        // Opening positions recur across games; use the game's middle position.
        let Some(probe) = boards.get(boards.len() / 2) else {
            continue;
        };
        let (split, seed) = (&a.settings.split, a.settings.seed);
        assert_only_in_its_split(&files, |t| t.p == *probe, split, seed, index);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bz2_input_gives_the_same_records() {
    use std::io::Write;
    let dir = temp_dir("bz2");
    let compressed = dir.join("mini.pgn.bz2");
    let mut enc = bzip2::write::BzEncoder::new(
        std::fs::File::create(&compressed).expect("create"),
        bzip2::Compression::fast(),
    );
    enc.write_all(&std::fs::read(FIXTURE).expect("fixture"))
        .expect("compress");
    enc.finish().expect("finish bz2");
    let plain = run_triplets_cli(&args(Path::new(FIXTURE), &dir.join("plain"))).expect("plain");
    let bz = run_triplets_cli(&args(&compressed, &dir.join("bz"))).expect("bz2");
    assert_eq!(plain.games_read, bz.games_read);
    assert_eq!(plain.records_per_split, bz.records_per_split);
    for (p, b) in split_paths(&dir.join("plain"))
        .iter()
        .zip(&split_paths(&dir.join("bz")))
    {
        assert_eq!(read_all(p), read_all(b));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn filters_count_skips_by_reason() {
    let dir = temp_dir("filters");
    let games = raw_games();
    let elo = |g: &RawGame, tag: &str| g.tag(tag).and_then(|v| v.trim().parse::<u32>().ok());
    let legal: Vec<&RawGame> = games.iter().filter(|g| replay(g).is_some()).collect();
    let missing = legal
        .iter()
        .filter(|g| elo(g, "WhiteElo").is_none() || elo(g, "BlackElo").is_none())
        .count() as u64;
    let low = legal
        .iter()
        .filter(|g| matches!((elo(g, "WhiteElo"), elo(g, "BlackElo")), (Some(w), Some(b)) if w.min(b) < 2300))
        .count() as u64;
    assert!(missing > 0 && low > 0, "fixture exercises both Elo reasons");

    let mut a = args(Path::new(FIXTURE), &dir.join("elo"));
    a.settings.filter.min_elo = Some(2300);
    let s = run_triplets_cli(&a).expect("runs");
    assert_eq!(
        s.skipped.get(&SkipReason::MissingElo).copied(),
        Some(missing)
    );
    assert_eq!(s.skipped.get(&SkipReason::LowElo).copied(), Some(low));
    assert_eq!(s.games_used + s.games_skipped(), s.games_read);
    let header = TripletReader::open(&split_paths(&a.out)[0])
        .expect("opens")
        .header()
        .clone();
    assert_eq!(header.min_elo, 2300);

    let draws = legal
        .iter()
        .filter(|g| g.tag("Result") == Some("1/2-1/2"))
        .count() as u64;
    let mut a = args(Path::new(FIXTURE), &dir.join("decisive"));
    a.settings.filter.results = "decisive".parse().expect("valid");
    let s = run_triplets_cli(&a).expect("runs");
    assert_eq!(
        s.skipped.get(&SkipReason::ResultFiltered).copied(),
        Some(draws)
    );
    for path in split_paths(&a.out) {
        assert!(read_all(&path).iter().all(|t| t.result != 0));
    }

    let mut a = args(Path::new(FIXTURE), &dir.join("few"));
    a.settings.max_games = Some(5);
    assert_force_needed_to_replace(a, 5, run_triplets_cli);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn garbage_input_does_not_abort() {
    let dir = temp_dir("garbage");
    let input = dir.join("junk.pgn");
    // A tag missing its closing quote (pgn-reader ends it at the newline), a paragraph of
    // prose (a "game" without moves or result), fool's mate, then a tag cut off by the end
    // of the file, which pgn-reader reports as an error.
    std::fs::write(
        &input,
        "[Event \"x\"]\n[Result \"1-0\"]\n[Broken \"unterminated\n\n1. e4 e5 1-0\n\n\
         just some words, not chess\n\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
         [Event \"cut",
    )
    .expect("write");
    let mut a = args(&input, &dir.join("junk"));
    a.settings.skip_plies = 0;
    a.settings.split = "100,0,0".parse().expect("valid");
    let s = run_triplets_cli(&a).expect("garbage is skipped, not fatal");
    assert_eq!(s.games_read, 4, "{s}");
    assert_eq!(s.skipped.get(&SkipReason::UnknownResult), Some(&1), "{s}");
    assert_eq!(s.skipped.get(&SkipReason::PgnSyntax), Some(&1), "{s}");
    // 1. e4 e5 gives 2 positions, fool's mate 4; each has 2+ legal moves.
    assert_eq!(s.records(), 6, "{s}");
    assert_eq!(read_all(&split_paths(&a.out)[0]).len(), 6);
    assert!(read_all(&split_paths(&a.out)[1]).is_empty());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn non_pgn_input_fails_with_a_clear_error() {
    assert_unreadable_input_leaves_nothing("notpgn", args, run_triplets_cli);
}
