//! End-to-end tests of `cerise data triplets` on the committed fixture: 20 master games from
//! `sample_masters_1000.pgn` plus hand-made corrupt, set-up and bad-FEN games. The fixture
//! readers here (`raw_games`, `replay`) are shared with `positions::tests`.

use super::*;
use crate::chess::CompactBoard;
use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position as _};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

pub(super) const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/data/fixtures/mini.pgn");

/// A deliberately naive reference: raw tags and SAN text per game, replayed separately.
#[derive(Default, Debug)]
pub(super) struct RawGame {
    pub(super) tags: Vec<(String, String)>,
    pub(super) sans: Vec<String>,
}

impl RawGame {
    pub(super) fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Collect;

impl Visitor for Collect {
    type Tags = RawGame;
    type Movetext = RawGame;
    type Output = RawGame;
    fn begin_tags(&mut self) -> ControlFlow<RawGame, RawGame> {
        ControlFlow::Continue(RawGame::default())
    }
    fn tag(&mut self, g: &mut RawGame, name: &[u8], value: RawTag<'_>) -> ControlFlow<RawGame> {
        g.tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, g: RawGame) -> ControlFlow<RawGame, RawGame> {
        ControlFlow::Continue(g)
    }
    fn san(&mut self, g: &mut RawGame, san: SanPlus) -> ControlFlow<RawGame> {
        g.sans.push(san.to_string());
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, g: RawGame) -> RawGame {
        g
    }
}

pub(super) fn raw_games() -> Vec<RawGame> {
    let text = std::fs::read(FIXTURE).expect("fixture is committed");
    let mut reader = Reader::new(&text[..]);
    let mut out = Vec::new();
    while let Some(g) = reader.read_game(&mut Collect).expect("fixture reads") {
        out.push(g);
    }
    out
}

/// The positions of a game before each move, or `None` if the game has an illegal move or
/// a bad start.
pub(super) fn replay(g: &RawGame) -> Option<(Vec<Chess>, Vec<shakmaty::Move>)> {
    let mut pos = match g.tag("FEN") {
        Some(fen) => fen
            .parse::<Fen>()
            .ok()?
            .into_position(CastlingMode::Standard)
            .ok()?,
        None => Chess::default(),
    };
    let (mut before, mut moves) = (Vec::new(), Vec::new());
    for s in &g.sans {
        let m = s.parse::<SanPlus>().ok()?.san.to_move(&pos).ok()?;
        before.push(pos.clone());
        moves.push(m);
        pos.play_unchecked(m);
    }
    Some((before, moves))
}

/// p, q, every legal child but q, and the result for p's side to move.
type ExpectedRecord = (CompactBoard, CompactBoard, Vec<CompactBoard>, i8);

pub(super) fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cerise-data-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn args(input: &Path, out: &Path) -> TripletArgs {
    TripletArgs {
        input: input.to_path_buf(),
        out: out.to_path_buf(),
        seed: 7,
        skip_plies: 6,
        quiet: false,
        min_elo: None,
        results: ResultFilter::default(),
        split: "60,20,20".parse().expect("valid split"),
        max_games: None,
        force: false,
        no_progress: true,
    }
}

pub(super) fn read_all(path: &Path) -> Vec<Triplet> {
    let mut r = TripletReader::open(path).expect("output opens");
    let mut out = Vec::new();
    let mut batch = Vec::new();
    while r.read_batch(17, &mut batch).expect("batch") > 0 {
        out.extend_from_slice(&batch);
    }
    assert_eq!(out.len() as u64, r.len());
    out
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
        let split = a.split.assign(a.seed, index as u64) as usize;
        for (ply, (p, m)) in before.iter().zip(&moves).enumerate() {
            let legal = p.legal_moves();
            if ply < a.skip_plies as usize || legal.len() < 2 {
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
        a.seed = seed;
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
            .skip(a.skip_plies as usize)
            .filter(|p| p.legal_moves().len() >= 2)
            .map(CompactBoard::from_chess)
            .collect();
        // Opening positions recur across games; use the game's middle position.
        let Some(probe) = boards.get(boards.len() / 2) else {
            continue;
        };
        let holders: Vec<usize> = (0..3)
            .filter(|&s| files[s].iter().any(|t| t.p == *probe))
            .collect();
        assert_eq!(
            holders,
            vec![a.split.assign(a.seed, index as u64) as usize],
            "game {index}"
        );
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
    a.min_elo = Some(2300);
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
    a.results = "decisive".parse().expect("valid");
    let s = run_triplets_cli(&a).expect("runs");
    assert_eq!(
        s.skipped.get(&SkipReason::ResultFiltered).copied(),
        Some(draws)
    );
    for path in split_paths(&a.out) {
        assert!(read_all(&path).iter().all(|t| t.result != 0));
    }

    let mut a = args(Path::new(FIXTURE), &dir.join("few"));
    a.max_games = Some(5);
    assert_eq!(run_triplets_cli(&a).expect("runs").games_read, 5);
    // The same prefix again is refused without --force and accepted with it.
    let err = run_triplets_cli(&a).unwrap_err().to_string();
    assert!(err.contains("--force"), "{err}");
    a.force = true;
    assert_eq!(run_triplets_cli(&a).expect("forced").games_read, 5);
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
    a.skip_plies = 0;
    a.split = "100,0,0".parse().expect("valid");
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
    let dir = temp_dir("notpgn");
    let input = dir.join("fake.pgn.bz2");
    std::fs::write(&input, b"this is not bzip2 data at all").expect("write");
    let err = format!(
        "{:#}",
        run_triplets_cli(&args(&input, &dir.join("x"))).unwrap_err()
    );
    assert!(err.contains("fake.pgn.bz2"), "{err}");
    // Nothing is left behind under the final or the partial names.
    for p in split_paths(&dir.join("x")) {
        assert!(
            !p.exists() && !records::partial_path(&p).exists(),
            "{}",
            p.display()
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
