use super::*;
use crate::data::TripletHeader;
use crate::eval::{EvalError, EvalInfo};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess};

/// Scores `favourite` −100 and every other board 0.
struct Prefers(CompactBoard);

impl Evaluator for Prefers {
    fn evaluate(&self, boards: &[CompactBoard], out: &mut Vec<f32>) -> Result<(), EvalError> {
        out.clear();
        out.extend(
            boards
                .iter()
                .map(|b| if *b == self.0 { -100.0 } else { 0.0 }),
        );
        Ok(())
    }

    fn info(&self) -> EvalInfo {
        crate::eval::FakeEvaluator::new().info()
    }
}

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn child(p: &Chess, uci: &str) -> CompactBoard {
    let m = uci.parse::<UciMove>().unwrap().to_move(p).unwrap();
    let mut c = p.clone();
    c.play_unchecked(m);
    CompactBoard::from_chess(&c)
}

fn triplet(p: &Chess, q: &str, r: &str) -> Triplet {
    Triplet {
        p: CompactBoard::from_chess(p),
        q: child(p, q),
        r: child(p, r),
        result: 1,
    }
}

#[test]
fn the_nets_favourite_replaces_r_only_where_it_disagrees() {
    let start = Chess::default();
    let t = triplet(&start, "e2e4", "a2a3");
    let mut scores = Vec::new();
    // It prefers d4 to the e4 played: r becomes d4, the rest is unchanged.
    let d4 = Prefers(child(&start, "d2d4"));
    let (out, o) = harden_one(&t, true, &d4, &mut scores).unwrap();
    assert_eq!(o, Outcome::Hardened);
    assert_eq!(out, Triplet { r: d4.0, ..t });
    // It prefers the move played: the random r stays.
    let e4 = Prefers(t.q);
    assert_eq!(
        harden_one(&t, true, &e4, &mut scores).unwrap(),
        (t, Outcome::Agrees)
    );
    // Every child equal: the played move is not beaten, so nothing changes.
    let none = Prefers(CompactBoard([0; 64]));
    assert_eq!(
        harden_one(&t, false, &none, &mut scores).unwrap(),
        (t, Outcome::Agrees)
    );
}

#[test]
fn black_to_move_and_the_quiet_filter_are_respected() {
    // Black to move can take the queen on d4 (exd4), but a quiet file never offers captures.
    let p = pos("rnbqkbnr/pppp1ppp/8/4p3/3Q4/8/PPP1PPPP/RNB1KBNR b KQkq - 0 3");
    let t = triplet(&p, "g8f6", "a7a6");
    let mut scores = Vec::new();
    let capture = Prefers(child(&p, "e5d4"));
    assert_eq!(
        harden_one(&t, true, &capture, &mut scores).unwrap(),
        (t, Outcome::Agrees),
        "quiet: the capture is not a candidate"
    );
    let (out, o) = harden_one(&t, false, &capture, &mut scores).unwrap();
    assert_eq!((out.r, o), (capture.0, Outcome::Hardened));
}

#[test]
fn a_q_that_is_no_child_of_p_is_copied() {
    let start = Chess::default();
    let mut t = triplet(&start, "e2e4", "a2a3");
    t.q = CompactBoard::from_chess(&pos(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ));
    let any = Prefers(child(&start, "d2d4"));
    assert_eq!(
        harden_one(&t, true, &any, &mut Vec::new()).unwrap(),
        (t, Outcome::Unmatched)
    );
}

fn temp_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cerise-harden-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir is writable");
    dir
}

/// A file of the triplets along a short game, from each position's played move and a
/// fixed other move.
fn write_game_file(path: &std::path::Path) -> Vec<Triplet> {
    let line = [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6",
    ];
    let mut p = Chess::default();
    let mut ts = Vec::new();
    for m in line {
        let other = p
            .legal_moves()
            .iter()
            .map(|x| x.to_uci(CastlingMode::Standard).to_string())
            .find(|u| u != m)
            .unwrap();
        ts.push(triplet(&p, m, &other));
        let mv = m.parse::<UciMove>().unwrap().to_move(&p).unwrap();
        p.play_unchecked(mv);
    }
    let mut header = TripletHeader::new("test game", 3);
    header.quiet = true;
    let mut w = TripletWriter::create(path, header).unwrap();
    for t in &ts {
        w.write(t).unwrap();
    }
    w.finish().unwrap();
    ts
}

fn read_all(path: &std::path::Path) -> (Vec<Triplet>, TripletHeader) {
    let mut r = TripletReader::open(path).unwrap();
    let mut out = Vec::new();
    r.read_batch(1000, &mut out).unwrap();
    (out, r.header().clone())
}

#[test]
fn the_command_rewrites_a_file_the_same_way_with_any_number_of_workers() {
    let dir = temp_dir();
    let input = dir.join("in.trip");
    let ts = write_game_file(&input);
    let args = |out: &str, share: f64, jobs: usize| HardenArgs {
        input: input.clone(),
        out: dir.join(out),
        eval: "<fake>".into(),
        share,
        seed: 7,
        jobs,
        force: false,
    };
    let one = run_harden_cli(&args("one.trip", 1.0, 1)).unwrap();
    let two = run_harden_cli(&args("two.trip", 1.0, 2)).unwrap();
    assert_eq!(one, two);
    assert_eq!(one.total(), ts.len() as u64);
    assert_eq!(one.not_offered, 0);
    assert!(one.hardened > 0, "{one:?}");
    let (a, header) = read_all(&dir.join("one.trip"));
    assert_eq!(a, read_all(&dir.join("two.trip")).0);
    assert!(header.quiet && header.source.starts_with("test game hardened by fake"));
    // p, q and the result never change; r changes exactly where the net disagreed.
    let changed = a.iter().zip(&ts).filter(|(x, y)| x.r != y.r).count();
    assert_eq!(changed as u64, one.hardened);
    assert!(a
        .iter()
        .zip(&ts)
        .all(|(x, y)| (x.p, x.q, x.result) == (y.p, y.q, y.result)));
    // Share 0 offers nothing: the same records.
    let none = run_harden_cli(&args("none.trip", 0.0, 2)).unwrap();
    assert_eq!(none.not_offered, ts.len() as u64);
    assert_eq!(read_all(&dir.join("none.trip")).0, ts);
    // Bad requests are refused with what to do.
    let err = run_harden_cli(&args("one.trip", 1.0, 1)).unwrap_err();
    assert!(err.to_string().contains("--force"), "{err}");
    let err = run_harden_cli(&args("x.trip", 1.5, 1)).unwrap_err();
    assert!(err.to_string().contains("--share 1.5"), "{err}");
    let mut bad = args("y.trip", 0.5, 1);
    bad.eval = dir.join("missing.safetensors").display().to_string();
    let err = run_harden_cli(&bad).unwrap_err();
    assert!(err.to_string().contains("--eval"), "{err}");
    assert!(!dir.join("y.trip").exists());
}
