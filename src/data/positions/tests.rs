//! End-to-end tests of `cerise data positions` on the committed fixture (`mini.pgn`: 20
//! master games dated 1984-1986, two corrupt games, a set-up position and a bad FEN) and on
//! small inline PGNs. Expected records come from an independent replay of the raw SAN.

use super::super::records::partial_path;
use super::super::testing::fixture::{raw_games, replay, RawGame, FIXTURE};
use super::super::testing::pgn_command::{
    assert_force_needed_to_replace, assert_only_in_its_split,
    assert_unreadable_input_leaves_nothing, pgn_args,
};
use super::super::testing::{self, temp_dir};
use super::super::{SkipReason, Split, TripletHeader, TripletWriter};
use super::*;
use crate::chess::CompactBoard;
use shakmaty::{CastlingMode, Chess, Position as _, Role};
use std::path::{Path, PathBuf};

fn args(input: &Path, out: &Path) -> PositionArgs {
    let settings = PositionConfig {
        ending: Ending::All,
        seed: 7,
        split: "60,20,20".parse().expect("valid split"),
        ..PositionConfig::default()
    };
    pgn_args(input, out, settings)
}

fn read_all(path: &Path) -> Vec<LabelledPosition> {
    testing::read_all::<PositionHeader>(path)
}

fn white_score(g: &RawGame) -> i8 {
    match g.tag("Result") {
        Some("1-0") => 1,
        Some("0-1") => -1,
        _ => 0,
    }
}

/// What a record must hold, built without `extract`: board, White to move, White's result,
/// the move in standard UCI (castling as the king's move), role, promotion, ply.
type Expected = (CompactBoard, bool, i8, String, Role, Option<Role>, u16);

fn expected_records(g: &RawGame) -> Option<Vec<Expected>> {
    let (before, moves) = replay(g)?;
    Some(
        before
            .iter()
            .zip(&moves)
            .enumerate()
            .map(|(ply, (p, m))| {
                (
                    CompactBoard::from_chess(p),
                    p.turn().is_white(),
                    white_score(g),
                    m.to_uci(CastlingMode::Standard).to_string(),
                    m.role(),
                    m.promotion(),
                    ply as u16,
                )
            })
            .collect(),
    )
}

fn as_expected(r: &LabelledPosition) -> Expected {
    (
        r.board,
        r.white_to_move,
        r.result,
        r.uci(),
        r.role,
        r.promotion,
        r.ply,
    )
}

/// Writes `pgn` to a file in `dir` and returns its path.
fn pgn_file(dir: &Path, pgn: &str) -> PathBuf {
    let path = dir.join("games.pgn");
    std::fs::write(&path, pgn).expect("write PGN");
    path
}

#[test]
fn fixture_records_match_an_independent_replay() {
    let dir = temp_dir("pos-replay");
    let games = raw_games();
    // `decisive` drops the draws scattered through the fixture, so kept games and game
    // indices part ways early: the split must follow the index in the file.
    for ending in [Ending::Decisive, Ending::All] {
        let mut a = args(Path::new(FIXTURE), &dir.join(ending.name()));
        a.settings.ending = ending;
        let summary = run_positions_cli(&a).expect("fixture converts");
        assert_eq!(summary.games_read, games.len() as u64);
        let mut expected: [Vec<Expected>; 3] = Default::default();
        let (mut used, mut draws) = (0, 0);
        for (index, g) in games.iter().enumerate() {
            let Some(records) = expected_records(g) else {
                continue;
            };
            if ending == Ending::Decisive && white_score(g) == 0 {
                draws += 1;
                continue;
            }
            used += 1;
            let split = a.settings.split.assign(a.settings.seed, index as u64) as usize;
            expected[split].extend(records);
        }
        assert_eq!(summary.games_used, used, "{summary}");
        assert_eq!(
            summary.games_skipped(),
            3 + draws,
            "two corrupt games, a bad FEN and the draws: {summary}"
        );
        if ending == Ending::Decisive {
            assert!(draws >= 5, "{draws}");
            let filtered = summary.skipped.get(&SkipReason::ResultFiltered);
            assert_eq!(filtered, Some(&draws), "{summary}");
        }
        for (i, path) in split_paths(&a.out).iter().enumerate() {
            let got: Vec<Expected> = read_all(path).iter().map(as_expected).collect();
            assert_eq!(got.len(), expected[i].len(), "{ending} {}", path.display());
            for (k, (g, e)) in got.iter().zip(&expected[i]).enumerate() {
                assert_eq!(g, e, "{ending}: split {i} record {k}");
            }
            assert_eq!(summary.records_per_split[i], got.len() as u64);
            assert!(!got.is_empty(), "split {i} is empty: {summary}");
            let h = PositionReader::open(path).expect("opens").header().clone();
            assert_eq!(h.split, Some(Split::ALL[i]));
            assert_eq!((h.seed, h.ending, h.every), (7, ending, 1));
            assert_eq!(h.results, ending.results().0);
            assert_eq!(h.split_weights, [600, 200, 200]);
            assert_eq!(h.encoding, crate::chess::ENCODING_NAME);
            assert_eq!(h.source, FIXTURE);
        }
    }
    let a = args(Path::new(FIXTURE), &dir.join("all"));
    // The fixture's castles are stored as king moves.
    let castles: Vec<String> = split_paths(&a.out)
        .iter()
        .flat_map(|p| read_all(p))
        .filter(|r| r.role == Role::King && r.from.abs_diff(r.to) == 2)
        .map(|r| r.uci())
        .collect();
    assert!(!castles.is_empty());
    assert!(
        castles
            .iter()
            .all(|u| ["e1g1", "e1c1", "e8g8", "e8c8"].contains(&u.as_str())),
        "{castles:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

const ENDINGS: &str = r#"[Event "scholar's mate"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "resigned"]
[Result "0-1"]

1. e4 e5 2. Nf3 Nc6 0-1

[Event "mate with the wrong result"]
[Result "1-0"]

1. f3 e5 2. g4 Qh4# 1-0

[Event "draw"]
[Result "1/2-1/2"]

1. d4 d5 1/2-1/2

[Event "fool's mate"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1
"#;

fn ending_run(dir: &Path, ending: Ending) -> (PositionSummary, Vec<LabelledPosition>) {
    let mut a = args(&pgn_file(dir, ENDINGS), &dir.join(ending.name()));
    a.settings.ending = ending;
    a.settings.split = "100,0,0".parse().expect("valid");
    let s = run_positions_cli(&a).expect("runs");
    let records = read_all(&split_paths(&a.out)[0]);
    (s, records)
}

#[test]
fn mate_filter_keeps_mates_and_drops_resignations() {
    let dir = temp_dir("pos-mate");
    let (s, recs) = ending_run(&dir, Ending::Mate);
    assert_eq!(s.games_used, 2, "{s}");
    assert_eq!(s.extra.mates, 2);
    assert_eq!(s.skipped.get(&SkipReason::NotCheckmate), Some(&1), "{s}");
    assert_eq!(s.skipped.get(&SkipReason::ResultContradictsMate), Some(&1));
    assert_eq!(
        s.skipped.get(&SkipReason::ResultFiltered),
        Some(&1),
        "the draw"
    );
    // Scholar's mate (7 plies) then fool's mate (4).
    assert_eq!(recs.len(), 11);
    assert!(recs[..7].iter().all(|r| r.result == 1));
    assert!(recs[7..].iter().all(|r| r.result == -1));
    let qxf7 = recs[6];
    assert_eq!(
        (qxf7.uci(), qxf7.role, qxf7.ply),
        ("h5f7".to_string(), Role::Queen, 6)
    );
    // Black's moves in the won game: stm_result is the loser's -1.
    assert!(recs[..7]
        .iter()
        .all(|r| r.stm_result() == if r.white_to_move { 1 } else { -1 }));
    let qh4 = recs[10];
    assert!(!qh4.white_to_move);
    assert_eq!((qh4.stm_result(), qh4.uci()), (1, "d8h4".to_string()));
    assert_eq!(
        (qh4.from, qh4.to),
        (3, 39),
        "d8 (59) -> h4 (31) mirrored to d1 -> h5"
    );
    let h = PositionReader::open(&split_paths(&dir.join("mate"))[0])
        .expect("opens")
        .header()
        .clone();
    assert_eq!((h.ending, h.results), (Ending::Mate, 0b011));

    let (s, recs) = ending_run(&dir, Ending::Decisive);
    assert_eq!((s.games_used, s.extra.mates), (3, 2), "{s}");
    assert_eq!(s.skipped.get(&SkipReason::ResultContradictsMate), Some(&1));
    assert_eq!(recs.len(), 7 + 4 + 4);
    assert!(recs.iter().all(|r| r.result != 0));

    let (s, recs) = ending_run(&dir, Ending::All);
    assert_eq!(s.games_used, 4, "{s}");
    assert_eq!(s.extra.results, [1, 2, 1], "1-0, 0-1, draws");
    assert_eq!(s.skipped.get(&SkipReason::ResultContradictsMate), Some(&1));
    assert_eq!(recs.iter().filter(|r| r.result == 0).count(), 2);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn no_game_spans_two_splits() {
    let dir = temp_dir("pos-leak");
    let a = args(Path::new(FIXTURE), &dir.join("mini"));
    let summary = run_positions_cli(&a).expect("fixture converts");
    let files = split_paths(&a.out).map(|p| read_all(&p));
    // With skip 0 and every 1 each game starts at ply 0: count the games in every file.
    for (i, f) in files.iter().enumerate() {
        let starts = f.iter().filter(|r| r.ply == 0).count() as u64;
        assert_eq!(starts, summary.games_per_split[i], "split {i}");
    }
    for (index, g) in raw_games().iter().enumerate() {
        let Some(records) = expected_records(g) else {
            continue;
        };
        // Openings recur across games; a game's middle record identifies it.
        let probe = &records[records.len() / 2];
        let (split, seed) = (&a.settings.split, a.settings.seed);
        assert_only_in_its_split(&files, |r| as_expected(r) == *probe, split, seed, index);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn test_after_puts_later_games_in_test_only() {
    let dir = temp_dir("pos-date");
    let mut a = args(Path::new(FIXTURE), &dir.join("dated"));
    a.settings.split = "90,5,5".parse().expect("valid");
    a.settings.test_after = Some("1986.01.01".parse().expect("date"));
    let s = run_positions_cli(&a).expect("runs");
    let games = raw_games();
    let later: Vec<&RawGame> = games
        .iter()
        .filter(|g| g.tag("Date").is_some_and(|d| d.starts_with("1986")))
        .collect();
    assert_eq!(later.len(), 2, "the fixture has two 1986 games");
    let later_plies: usize = later.iter().map(|g| g.sans.len()).sum();
    assert_eq!(
        (s.games_per_split[2], s.extra.dated_test_games),
        (2, 2),
        "{s}"
    );
    let files = split_paths(&a.out).map(|p| read_all(&p));
    assert_eq!(files[2].len(), later_plies);
    // Exactly the 1986 games' records, in order.
    let want: Vec<Expected> = later
        .iter()
        .flat_map(|g| expected_records(g).expect("legal"))
        .collect();
    let got: Vec<Expected> = files[2].iter().map(as_expected).collect();
    assert_eq!(got, want);
    // Everything else, undated games included, is in train or valid.
    assert_eq!(
        s.games_per_split[0] + s.games_per_split[1],
        s.games_used - 2
    );
    assert!(s.games_per_split[0] > 0);
    let h = PositionReader::open(&split_paths(&a.out)[0])
        .expect("opens")
        .header()
        .clone();
    assert_eq!(h.test_after, Some(crate::data::Cutoff(19860101)));
    // A cutoff before every game leaves undated ones in train/valid.
    let mut early = args(Path::new(FIXTURE), &dir.join("early"));
    early.settings.test_after = Some("1900.01.01".parse().expect("date"));
    let s = run_positions_cli(&early).expect("runs");
    assert_eq!(s.games_per_split[2], 20, "every dated game: {s}");
    assert_eq!(
        s.games_per_split[0] + s.games_per_split[1],
        1,
        "the set-up game"
    );
    // No train or valid weight leaves nowhere for the undated games.
    let mut none = args(Path::new(FIXTURE), &dir.join("none"));
    none.settings.split = "0,0,100".parse().expect("valid");
    none.settings.test_after = Some("1986.01.01".parse().expect("date"));
    let err = run_positions_cli(&none).unwrap_err().to_string();
    assert!(err.contains("--test-after needs"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_skip_and_elo_filters_thin_the_data() {
    let dir = temp_dir("pos-every");
    let all = run_positions_cli(&args(Path::new(FIXTURE), &dir.join("all"))).expect("runs");
    let mut a = args(Path::new(FIXTURE), &dir.join("third"));
    a.settings.every = 3;
    a.settings.skip_plies = 4;
    let s = run_positions_cli(&a).expect("runs");
    let recs: Vec<LabelledPosition> = split_paths(&a.out)
        .iter()
        .flat_map(|p| read_all(p))
        .collect();
    assert!(recs.iter().all(|r| r.ply >= 4));
    // Within a game kept plies are 3 apart (a game's first kept ply is 4, 5 or 6).
    for pair in recs.windows(2) {
        if pair[1].ply > 6 {
            assert_eq!(
                pair[1].ply,
                pair[0].ply + 3,
                "{:?}",
                (pair[0].ply, pair[1].ply)
            );
        }
    }
    // The offset is drawn per game, so both colours' moves are kept.
    let white = recs.iter().filter(|r| r.white_to_move).count();
    assert!(white > 0 && white < recs.len(), "{white} of {}", recs.len());
    // A game of n plies keeps floor or ceil of (n - 4) / 3, whatever its offset.
    let lengths: Vec<u64> = raw_games()
        .iter()
        .filter_map(expected_records)
        .map(|r| r.len() as u64 - 4)
        .collect();
    let low: u64 = lengths.iter().map(|n| n / 3).sum();
    let high: u64 = lengths.iter().map(|n| n.div_ceil(3)).sum();
    assert!(
        (low..=high).contains(&s.records()),
        "{low} <= {} <= {high}",
        s.records()
    );
    assert!(s.records() * 3 < all.records());
    let h = PositionReader::open(&split_paths(&a.out)[0])
        .expect("opens")
        .header()
        .clone();
    assert_eq!((h.every, h.skip_plies), (3, 4));

    let mut a = args(Path::new(FIXTURE), &dir.join("elo"));
    a.settings.min_elo = 2300;
    let s = run_positions_cli(&a).expect("runs");
    assert!(
        s.skipped.get(&SkipReason::MissingElo).copied().unwrap_or(0) > 0,
        "{s}"
    );
    assert!(
        s.skipped.get(&SkipReason::LowElo).copied().unwrap_or(0) > 0,
        "{s}"
    );
    assert!(s.games_used < all.games_used && s.games_used > 0, "{s}");
    let h = PositionReader::open(&split_paths(&a.out)[0])
        .expect("opens")
        .header()
        .clone();
    assert_eq!(h.min_elo, 2300);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn failed_or_killed_runs_leave_no_final_file() {
    assert_unreadable_input_leaves_nothing("pos-fail-input", args, run_positions_cli);
    let dir = temp_dir("pos-fail");
    // A writer dropped on an error path removes its partial file.
    let path = dir.join("dropped.pos");
    let record = {
        let mut out = Vec::new();
        let g = pgn_reader::Reader::new(ENDINGS.as_bytes())
            .read_game(&mut crate::data::pgn::GameVisitor::new(Default::default()))
            .expect("reads")
            .expect("a game")
            .expect("valid");
        extract::game_positions(
            &g,
            extract::PlySelection {
                skip: 0,
                every: 1,
                offset: 0,
            },
            &mut out,
        );
        out[0]
    };
    {
        let mut w = PositionWriter::create(&path, PositionHeader::new("unit", 1)).expect("create");
        w.write(&record).expect("write");
        assert!(partial_path(&path).exists());
    }
    assert!(!path.exists() && !partial_path(&path).exists());
    // A killed process never renames: only the partial exists, and it is refused. (Enough
    // records to overflow the 1 MiB write buffer, so some reach the disk before the "kill".)
    let mut w = PositionWriter::create(&path, PositionHeader::new("unit", 1)).expect("create");
    for _ in 0..20_000 {
        w.write(&record).expect("write");
    }
    std::mem::forget(w);
    let partial = partial_path(&path);
    assert!(!path.exists() && partial.exists());
    let on_disk = std::fs::metadata(&partial).expect("stat").len();
    assert!(on_disk > 1_000_000, "{on_disk}");
    let err = format!("{:#}", PositionReader::open(&partial).unwrap_err());
    assert!(
        err.contains("follow the 0 records") && err.contains("interrupted run"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn reader_refuses_truncated_corrupt_and_triplet_files() {
    let dir = temp_dir("pos-reader");
    let mut a = args(Path::new(FIXTURE), &dir.join("ok"));
    a.settings.split = "100,0,0".parse().expect("valid");
    run_positions_cli(&a).expect("runs");
    let path = split_paths(&a.out)[0].clone();
    let mut r = PositionReader::open(&path).expect("opens");
    let n = r.len();
    let all = read_all(&path);
    assert_eq!(r.get(n - 1).expect("last"), all[n as usize - 1]);
    assert!(r.get(n).is_err());
    r.seek(n - 2).expect("seek");
    let mut batch = Vec::new();
    assert_eq!(r.read_batch(100, &mut batch).expect("tail"), 2);
    assert_eq!(batch[1], all[n as usize - 1]);
    let bytes = std::fs::read(&path).expect("read back");
    let header_len = bytes.len() - n as usize * RECORD_BYTES;

    let cut = dir.join("cut.pos");
    std::fs::write(&cut, &bytes[..bytes.len() - RECORD_BYTES - 10]).expect("write");
    let err = format!("{:#}", PositionReader::open(&cut).unwrap_err());
    assert!(
        err.contains(&format!(
            "file truncated: header says {n} records, file holds {}",
            n - 2
        )),
        "{err}"
    );
    let tiny = dir.join("tiny.pos");
    std::fs::write(&tiny, &bytes[..40]).expect("write");
    let err = format!("{:#}", PositionReader::open(&tiny).unwrap_err());
    assert!(err.contains("truncated inside its header"), "{err}");

    // A record whose moving piece is not on its from square: found when read.
    let corrupt = dir.join("corrupt.pos");
    let mut bad = bytes.clone();
    let rec5 = header_len + 5 * RECORD_BYTES;
    let from = bad[rec5 + 66] as usize;
    bad[rec5 + from] = 0;
    std::fs::write(&corrupt, &bad).expect("write");
    let r = PositionReader::open(&corrupt).expect("the header is fine");
    let err = format!("{:#}", r.get(5).unwrap_err());
    assert!(err.contains("record 5: the mover's"), "{err}");

    // Another board encoding.
    let enc = dir.join("enc.pos");
    let mut bad = bytes.clone();
    bad[64 + crate::chess::ENCODING_NAME.len() - 1] ^= 1;
    std::fs::write(&enc, &bad).expect("write");
    let err = format!("{:#}", PositionReader::open(&enc).unwrap_err());
    assert!(err.contains("this build reads"), "{err}");

    // A triplet file is named as such.
    let trip = dir.join("t.trip");
    TripletWriter::create(&trip, TripletHeader::new("unit", 1))
        .expect("create")
        .finish()
        .expect("finish");
    let err = format!("{:#}", PositionReader::open(&trip).unwrap_err());
    assert!(
        err.contains("this is a triplet file") && err.contains("cerise data positions"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn info_counts_match_the_records() {
    let dir = temp_dir("pos-info");
    let mut a = args(Path::new(FIXTURE), &dir.join("i"));
    a.settings.split = "100,0,0".parse().expect("valid");
    let s = run_positions_cli(&a).expect("runs");
    let path = split_paths(&a.out)[0].clone();
    let info = run_positions_info(&PositionsInfoArgs { file: path.clone() }).expect("info");
    let recs = read_all(&path);
    let c = &info.counts;
    assert_eq!(c.records, s.records());
    assert_eq!(
        c.white_to_move,
        recs.iter().filter(|r| r.white_to_move).count() as u64
    );
    assert_eq!(c.first_moves, s.games_used);
    assert_eq!(c.white_results.iter().sum::<u64>(), c.records);
    assert_eq!(
        c.stm_results[0],
        recs.iter().filter(|r| r.stm_result() == 1).count() as u64
    );
    let text = info.to_string();
    assert!(
        text.contains(&format!("records        {}", c.records)),
        "{text}"
    );
    assert!(text.contains("ending all"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn command_line_defaults_and_errors() {
    use clap::Parser;
    #[derive(Parser)]
    struct Wrap {
        #[command(flatten)]
        args: PositionArgs,
    }
    let w = Wrap::try_parse_from(["cerise", "g.pgn.bz2", "--out", "p"]).expect("parses");
    let c = &w.args.settings;
    assert_eq!(
        (c.ending, c.every, c.skip_plies, c.min_elo),
        (Ending::Decisive, 1, 0, 0)
    );
    assert_eq!(
        (c.split.per_mille, c.test_after, c.seed),
        ([900, 50, 50], None, 1)
    );
    let w = Wrap::try_parse_from([
        "cerise",
        "g.pgn",
        "--out",
        "p",
        "--ending",
        "mate",
        "--every",
        "4",
        "--test-after",
        "2015.01.01",
        "--split",
        "95,5,0",
    ])
    .expect("parses");
    assert_eq!(w.args.settings.ending, Ending::Mate);
    assert_eq!(w.args.settings.every, 4);
    assert_eq!(
        w.args.settings.test_after,
        Some(crate::data::Cutoff(20150101))
    );
    for bad in [
        ["--every", "0"],
        ["--test-after", "2015"],
        ["--ending", "won"],
        ["--split", "90,5"],
    ] {
        let mut argv = vec!["cerise", "g.pgn", "--out", "p"];
        argv.extend(bad);
        assert!(Wrap::try_parse_from(argv).is_err(), "{bad:?}");
    }
    // Existing outputs are not overwritten without --force.
    let dir = temp_dir("pos-force");
    let mut a = args(Path::new(FIXTURE), &dir.join("f"));
    a.settings.max_games = Some(3);
    assert_force_needed_to_replace(a, 3, run_positions_cli);
    std::fs::remove_dir_all(&dir).ok();
}

/// A checkmate position reached from a set-up start counts too (the final position, not the
/// tags, decides).
#[test]
fn mate_from_a_set_up_position() {
    let dir = temp_dir("pos-fen");
    let pgn = "[Result \"1-0\"]\n[SetUp \"1\"]\n[FEN \"6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\"]\n\n\
               1. Ra8# 1-0\n";
    let mut a = args(&pgn_file(&dir, pgn), &dir.join("fen"));
    a.settings.ending = Ending::Mate;
    a.settings.split = "100,0,0".parse().expect("valid");
    let s = run_positions_cli(&a).expect("runs");
    assert_eq!((s.games_used, s.extra.mates), (1, 1), "{s}");
    let recs = read_all(&split_paths(&a.out)[0]);
    assert_eq!(recs.len(), 1);
    assert_eq!(
        (recs[0].uci(), recs[0].role),
        ("a1a8".to_string(), Role::Rook)
    );
    let end: Chess = {
        let mut p: Chess = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .expect("FEN")
            .into_position(CastlingMode::Standard)
            .expect("legal");
        let m = p
            .legal_moves()
            .into_iter()
            .find(|m| m.to() == shakmaty::Square::A8);
        p.play_unchecked(m.expect("Ra8"));
        p
    };
    assert!(end.is_checkmate());
    std::fs::remove_dir_all(&dir).ok();
}
