use super::*;
use crate::data::rng::SplitMix64;
use crate::data::selfplay::header::selfplay_header;
use crate::data::selfplay::{Outcome, SelfPlayAppender};
use crate::data::testing::temp_dir;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

fn start(fen: &str, mode: CastlingMode) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
}

/// A self-play file of seeded walks from starts with castling, promotions, en passant and
/// Chess960 castling, with one game whose records skip a ply (so it is stored as two runs)
/// and mate scores; returns the number of records and of runs a packer must make.
fn write_games(path: &Path) -> (u64, u64) {
    let (mut out, _) = SelfPlayAppender::open(path, selfplay_header()).unwrap();
    let mut rng = SplitMix64::new(7);
    let starts = [
        start(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            CastlingMode::Standard,
        ),
        start(
            "r3k2r/1P4p1/8/3pP3/8/8/1p4P1/R3K2R w KQkq d6 0 1",
            CastlingMode::Standard,
        ),
        start(
            "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
            CastlingMode::Chess960,
        ),
        start(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            CastlingMode::Standard,
        ),
    ];
    let (mut records, mut runs) = (0u64, 0u64);
    for (game, mut pos) in starts.into_iter().enumerate() {
        let result = [Outcome::WhiteWins, Outcome::Draw, Outcome::BlackWins][game % 3];
        runs += 1;
        for ply in 0..60u16 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
            let score = match ply {
                7 => 31_990,
                8 => -31_989,
                _ => (rng.next_u64() % 2001) as i16 - 1000,
            };
            // The last game leaves out ply 20: ply 21 starts a second run.
            if game == 3 && ply == 20 {
                pos.play_unchecked(m);
                runs += 1;
                continue;
            }
            out.push(&SelfPlayRecord::new(
                &pos,
                score,
                &m,
                ply,
                result,
                game as u32,
            ));
            records += 1;
            pos.play_unchecked(m);
        }
        out.commit().unwrap();
    }
    (records, runs)
}

/// The arguments of `datagen pack` and of `datagen unpack` alike.
fn args(input: &Path, out: &Path) -> PackArgs {
    PackArgs {
        input: input.to_path_buf(),
        out: out.to_path_buf(),
        force: false,
        no_progress: true,
    }
}

/// A fresh directory holding `a.self` from [`write_games`] and its packed form `a.spk`.
fn packed_fixture(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = temp_dir(tag);
    let (plain, packed) = (dir.join("a.self"), dir.join("a.spk"));
    write_games(&plain);
    run_pack(&args(&plain, &packed)).unwrap();
    (dir, plain, packed)
}

#[test]
fn a_file_packs_game_by_game_and_unpacks_byte_for_byte() {
    let dir = temp_dir("sp-pack");
    let (plain, packed, back) = (dir.join("a.self"), dir.join("a.spk"), dir.join("b.self"));
    let (records, runs) = write_games(&plain);
    let summary = run_pack(&args(&plain, &packed)).unwrap();
    assert_eq!((summary.records, summary.runs), (records, runs));
    // The header, a whole record a run, a varint a run and 4 bytes a continuation.
    let header_len = std::fs::metadata(&plain).unwrap().len() - records * 40;
    assert_eq!(
        summary.bytes_out,
        PREFIX_BYTES as u64 + header_len + runs * (40 + 1) + (records - runs) * 4
    );
    let summary = run_unpack(&args(&packed, &back)).unwrap();
    assert_eq!((summary.records, summary.runs), (records, runs));
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&back).unwrap()
    );
    assert!(!partial_path(&back).exists() && !partial_path(&packed).exists());
    // Outputs are replaced only with --force.
    let e = run_pack(&args(&plain, &packed)).unwrap_err();
    assert!(e.to_string().contains("--force"), "{e}");
    let e = run_unpack(&args(&packed, &back)).unwrap_err();
    assert!(e.to_string().contains("--force"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn scores_are_stored_as_small_sums_and_come_back_whole() {
    for (score, prev) in [
        (0, 0),
        (-20, 25),
        (31_990, -31_989),
        (i16::MIN, i16::MAX),
        (-1, -1),
    ] {
        assert_eq!(
            score_of(score_code(score, prev), prev),
            score,
            "{score} after {prev}"
        );
    }
    assert_eq!(score_code(-20, 25), 10, "a sum of 5 is zigzag 10");
    assert_eq!(score_code(25, -26), 1, "a sum of -1 is zigzag 1");
}

#[test]
fn an_empty_file_round_trips() {
    let dir = temp_dir("sp-pack-empty");
    let (plain, packed, back) = (dir.join("a.self"), dir.join("a.spk"), dir.join("b.self"));
    drop(SelfPlayAppender::open(&plain, selfplay_header()).unwrap());
    assert_eq!(run_pack(&args(&plain, &packed)).unwrap().records, 0);
    assert_eq!(run_unpack(&args(&packed, &back)).unwrap().records, 0);
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&back).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_kind_given_for_the_other_is_named() {
    let (dir, plain, packed) = packed_fixture("sp-pack-kinds");
    let e = format!(
        "{:#}",
        run_unpack(&args(&plain, &dir.join("x"))).unwrap_err()
    );
    assert!(e.contains("this is a self-play file"), "{e}");
    let e = format!("{:#}", SelfPlayReader::open(&packed).unwrap_err());
    assert!(
        e.contains("unpack it first with `cerise datagen unpack"),
        "{e}"
    );
    let e = format!(
        "{:#}",
        run_pack(&args(&packed, &dir.join("y"))).unwrap_err()
    );
    assert!(e.contains("packed self-play file"), "{e}");
    assert!(!dir.join("x").exists() && !partial_path(&dir.join("x")).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_packed_files_are_refused_or_read_never_a_panic_nor_a_partial_left() {
    let (dir, _, packed) = packed_fixture("sp-pack-corrupt");
    let good = std::fs::read(&packed).unwrap();
    let (bad, out) = (dir.join("bad.spk"), dir.join("out.self"));
    let mut rng = SplitMix64::new(0xBAD);
    let mut refused = 0;
    for case in 0..600 {
        let mut bytes = good.clone();
        if case % 3 == 0 {
            bytes.truncate((rng.next_u64() % good.len() as u64) as usize);
        } else {
            let at = (rng.next_u64() % good.len() as u64) as usize;
            bytes[at] ^= 1 + (rng.next_u64() % 255) as u8;
        }
        std::fs::write(&bad, &bytes).unwrap();
        let _ = std::fs::remove_file(&out);
        match std::panic::catch_unwind(|| run_unpack(&args(&bad, &out))) {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                refused += 1;
                assert!(!out.exists(), "case {case}: {e:#}");
            }
            Err(_) => panic!("case {case}: unpacking a damaged file panicked"),
        }
        assert!(!partial_path(&out).exists(), "case {case}");
    }
    // Every truncation is refused; most flips are.
    assert!(refused > 300, "{refused} of 600 refused");
    std::fs::remove_dir_all(&dir).unwrap();
}
