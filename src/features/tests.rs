//! Tests of the whole feature vector, and helpers for the families' own tests.

use std::collections::{HashMap, HashSet};

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position};

use super::{extract, extract_stm, family_of, names, COUNT, GLOBAL, PER_SIDE};

pub(crate) const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

pub(crate) fn position(fen: &str) -> Chess {
    let fen: Fen = fen.parse().expect("valid FEN");
    fen.into_position(CastlingMode::Standard)
        .expect("legal position")
}

pub(crate) fn all(pos: &Chess) -> Vec<f32> {
    let mut out = vec![0.0; COUNT];
    extract(pos, &mut out);
    out
}

/// The feature called `name` of `fen`.
pub(crate) fn value(fen: &str, name: &str) -> f32 {
    let i = names()
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("no feature {name}"));
    all(&position(fen))[i]
}

/// The features of `fen` whose names start with `prefix`, keyed without it.
pub(crate) fn values(fen: &str, prefix: &str) -> HashMap<&'static str, f32> {
    let v = all(&position(fen));
    names()
        .iter()
        .zip(v)
        .filter_map(|(n, x)| n.strip_prefix(prefix).map(|k| (k, x)))
        .collect()
}

/// Varied positions: openings, middlegames with both castlings, attacks on kings,
/// endgames with passed pawns, checks.
const POSITIONS: &[&str] = &[
    START,
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8",
    "r2q1rk1/1b1nbppp/pp1ppn2/8/2PNP3/2N1BP2/PP1QB1PP/R4RK1 w - - 2 12",
    "2kr3r/ppp2ppp/2n1bn2/2bqp3/8/2NP1NP1/PPQ1PPBP/R1B2RK1 b - - 5 11",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1b2rk1/2q1bppp/p2p1n2/np2p3/3PP3/5N1P/PPBN1PP1/R1BQR1K1 b - - 0 13",
    "2r2rk1/pp1bqpp1/2n1p2p/3pP3/3P1N1P/P2B1Q2/1P3PP1/R4RK1 w - - 1 18",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkb1r/pp1p1ppp/4pn2/2pP4/2P5/8/PP2PPPP/RNBQKBNR w KQkq c6 0 4",
    "6k1/5ppp/8/3P4/1p6/8/r4PPP/3R2K1 w - - 0 30",
    "8/2P5/8/1k6/8/4K3/6p1/8 w - - 0 50",
    "8/8/1P6/3k4/8/8/6Kp/8 b - - 0 60",
    "4k3/8/8/8/8/8/P6P/4K3 w - - 0 40",
    "3rr1k1/pp3ppp/8/2Q5/8/6P1/PP3P1P/6K1 b - - 0 25",
    "r1bqk2r/pppp1Bpp/2n2n2/2b1p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 0 4",
    "6k1/5p1p/6pQ/8/8/1B6/5PPP/4R1K1 b - - 0 30",
    "r3r1k1/ppq2ppp/2n5/3pN3/3P4/2P1B3/P1Q2PPP/R4RK1 w - - 0 17",
    "1k6/1pp5/p7/8/8/7P/5PP1/1R4K1 w - - 0 35",
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    "r5k1/1R4pp/8/8/8/8/6PP/6K1 w - - 0 40",
    "1r4k1/p4ppp/8/1N6/1B6/8/1PP5/1K1R4 b - - 0 30",
    // Hand-built positions of the families' tests: checks, storms, pawn structure,
    // passers, threats, outposts.
    "r5k1/5ppp/8/5N1Q/8/8/5PPP/6K1 b - - 0 1",
    "6k1/8/8/8/6p1/7p/8/6K1 w - - 0 1",
    "6k1/8/8/8/8/8/4B3/6K1 w - - 0 1",
    "4k3/8/8/3p3p/2PP4/P3P3/P5P1/4K3 w - - 0 1",
    "8/5k2/5P2/1P6/2P5/8/8/6K1 w - - 0 1",
    "6k1/8/8/3b4/4P3/2N5/8/3R2K1 b - - 0 1",
    "4k3/4r3/8/3N4/4P3/8/1B2Q3/4K3 w - - 0 1",
    "4k3/8/8/3B4/4P3/8/8/4K3 w - - 0 1",
];

/// `pos` mirrored vertically with colours, side to move, castling rights and en passant
/// swapped.
fn mirrored(pos: &Chess) -> Chess {
    let setup = pos.to_setup(EnPassantMode::Legal).into_mirrored();
    Chess::from_setup(setup, CastlingMode::Standard).expect("mirror is legal")
}

#[test]
fn names_are_unique_snake_case_and_count() {
    let n = names();
    assert_eq!(n.len(), COUNT);
    assert!((190..=210).contains(&COUNT), "COUNT = {COUNT}");
    let set: HashSet<_> = n.iter().collect();
    assert_eq!(set.len(), COUNT, "duplicate names");
    for name in n {
        assert!(
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                && !name.starts_with('_')
                && !name.ends_with('_')
                && !name.contains("__"),
            "{name} is not snake_case"
        );
    }
    assert_eq!(&n[..GLOBAL.len()], GLOBAL);
    let white = n.iter().filter(|x| x.starts_with("white_")).count();
    let black = n.iter().filter(|x| x.starts_with("black_")).count();
    assert_eq!(white, black);
    assert_eq!(white * 2 + GLOBAL.len(), COUNT);
}

#[test]
fn every_feature_has_its_family() {
    let n = names();
    let index = |name: &str| n.iter().position(|x| *x == name).unwrap();
    assert_eq!(family_of(0), Some("global"));
    assert_eq!(family_of(GLOBAL.len() - 1), Some("global"));
    // The first per-side feature of each colour opens the material family.
    assert_eq!(family_of(GLOBAL.len()), Some("material"));
    assert_eq!(family_of(GLOBAL.len() + PER_SIDE), Some("material"));
    assert_eq!(family_of(COUNT - 1), Some("pieces"));
    assert_eq!(family_of(COUNT), None);
    // Both colours of a feature share its family.
    for (i, name) in n.iter().enumerate().skip(GLOBAL.len()).take(PER_SIDE) {
        assert_eq!(family_of(i), family_of(i + PER_SIDE), "{name}");
    }
    let families: HashSet<_> = (0..COUNT).filter_map(family_of).collect();
    assert_eq!(families.len(), 10, "global and nine per-side families");
    assert_eq!(family_of(index("black_mobility_rook")), Some("mobility"));
    assert_eq!(family_of(index("white_space_weight")), Some("space"));
}

#[test]
fn every_feature_is_live_on_some_test_position() {
    let mut live = vec![false; COUNT];
    // Each position and its colour mirror, so that both colours meet every pattern.
    for fen in POSITIONS {
        let pos = position(fen);
        for p in [mirrored(&pos), pos] {
            for (i, x) in all(&p).iter().enumerate() {
                assert!(x.is_finite(), "{fen}: {} = {x}", names()[i]);
                live[i] |= *x != 0.0;
            }
        }
    }
    let dead: Vec<_> = names()
        .iter()
        .zip(live)
        .filter(|(_, l)| !l)
        .map(|(n, _)| *n)
        .collect();
    assert!(dead.is_empty(), "features zero on every position: {dead:?}");
}

#[test]
fn colour_mirror_swaps_white_and_black_features() {
    let n = names();
    let index: HashMap<&str, usize> = n.iter().enumerate().map(|(i, x)| (*x, i)).collect();
    let mut pairs = 0;
    for fen in POSITIONS {
        let pos = position(fen);
        let a = all(&pos);
        let b = all(&mirrored(&pos));
        for (i, name) in n.iter().enumerate() {
            let partner = if let Some(rest) = name.strip_prefix("white_") {
                index[format!("black_{rest}").as_str()]
            } else if let Some(rest) = name.strip_prefix("black_") {
                index[format!("white_{rest}").as_str()]
            } else {
                i
            };
            let expected = if *name == "side_to_move" {
                1.0 - a[i]
            } else {
                a[i]
            };
            assert_eq!(
                b[partner], expected,
                "{fen}: {name} vs mirrored {}",
                n[partner]
            );
            pairs += 1;
        }
    }
    assert_eq!(pairs, POSITIONS.len() * COUNT);
}

#[test]
fn globals_by_hand() {
    let v = values(START, "");
    assert_eq!(v["side_to_move"], 1.0);
    assert_eq!(v["in_check"], 0.0);
    assert_eq!(v["legal_moves"], 20.0);
    assert_eq!(v["halfmove_clock"], 0.0);
    // Fool's mate: White is mated, in check, no moves, Black's move count was 1.
    let mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    let v = values(mate, "");
    assert_eq!(v["in_check"], 1.0);
    assert_eq!(v["legal_moves"], 0.0);
    assert_eq!(v["halfmove_clock"], 1.0);
    let v = values("8/2P5/8/1k6/8/4K3/6p1/8 w - - 0 50", "");
    assert_eq!(v["side_to_move"], 1.0);
    assert_eq!(v["halfmove_clock"], 0.0);
    let v = values("8/8/1P6/3k4/8/8/6Kp/8 b - - 0 60", "");
    assert_eq!(v["side_to_move"], 0.0);
}

#[test]
#[should_panic(expected = "COUNT")]
fn wrong_output_length_panics() {
    let mut out = vec![0.0; COUNT - 1];
    extract(&position(START), &mut out);
}

#[test]
fn the_engines_view_is_the_side_to_move_as_white() {
    let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 9";
    let white: Chess = fen
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    let mut direct = vec![0.0; COUNT];
    let mut stm = vec![0.0; COUNT];
    extract(&white, &mut direct);
    extract_stm(&crate::chess::CompactBoard::from_chess(&white), &mut stm);
    assert_eq!(
        direct, stm,
        "White to move, a zero clock: the same position"
    );
    // Black to move: the engine sees the colour-mirrored position, White to move.
    let black_fen = "r2qkb1r/pp1b1ppp/2n1pn2/2pp4/3P4/2N1PN2/PP2BPPP/R1BQ1RK1 b kq - 0 9";
    let mirrored_fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 9";
    let black: Chess = black_fen
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    let mirrored: Chess = mirrored_fen
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    extract(&mirrored, &mut direct);
    extract_stm(&crate::chess::CompactBoard::from_chess(&black), &mut stm);
    assert_eq!(direct, stm);
}
