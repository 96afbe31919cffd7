//! Hand-made static features of a position for an RBF evaluator (issue #9), after
//! Kagkas et al., "Chess position evaluation using radial basis function neural
//! networks": the terms of a Stockfish 10-style evaluation, reported raw (counts,
//! centipawn-like sums, 0/1 flags) instead of being weighted and summed.
//!
//! # Feature order
//!
//! [`names`] fixes the order; [`extract`] writes values in it:
//!
//! 1. Global features, [`GLOBAL`]: `side_to_move` (1 White, 0 Black), `in_check`
//!    (the side to move), `legal_moves` (of the side to move), `halfmove_clock`,
//!    `phase` (0 endgame ..= 128 midgame, Stockfish 10's rule).
//! 2. Every per-side feature for White, prefixed `white_`, family by family:
//!    - [`material`]: piece counts, bishop pair, non-pawn and endgame material;
//!    - [`imbalance`]: the terms of Stockfish 10's quadratic material imbalance;
//!    - [`mobility`]: reachable squares in the mobility area, per piece type;
//!    - [`king_safety`]: attackers of the king ring, safe checks, shelter, storm,
//!      open files by the king, castling rights, pins;
//!    - [`pawns`]: isolated, doubled, backward, supported, phalanx and blocked pawns,
//!      islands, file groups;
//!    - [`passed`]: passed pawns by relative rank, free and supported passers, king
//!      distances to them;
//!    - [`threats`]: enemy pieces attacked by pawns, minors, rooks, queens and the king,
//!      hanging and weak pieces, pawn push threats;
//!    - [`space`]: Stockfish's space term and centre control;
//!    - [`pieces`]: outposts, minors behind pawns, bad bishops, rooks on open files and
//!      the seventh, trapped rooks, exposed queens.
//! 3. The same per-side features for Black, prefixed `black_`, in the same order.
//!
//! Per-side features are measured from that side's point of view (its relative ranks,
//! its king's danger, its threats on the enemy), so mirroring the board vertically and
//! swapping colours swaps every `white_x` with `black_x` (a test checks it).
//!
//! The module uses only shakmaty: it depends on nothing else in the crate.

mod context;
mod imbalance;
mod king_safety;
mod material;
mod mobility;
mod passed;
mod pawns;
mod pieces;
mod space;
mod threats;

use std::sync::OnceLock;

use shakmaty::{Chess, Color, Position};

use crate::chess::compact::position_of;
use crate::chess::CompactBoard;
use context::Context;
pub use material::{non_pawn_material, phase};

/// Names the feature set; model files record it so that a change of features is seen.
pub const VERSION: &str = "cerise-features-v1";

/// The global (not per-side) features, first in [`names`].
pub const GLOBAL: &[&str] = &[
    "side_to_move",
    "in_check",
    "legal_moves",
    "halfmove_clock",
    "phase",
];

type FamilyFn = fn(&Context, Color, &mut [f32]);

/// The per-side families in order: the family's name, its base feature names (without
/// the colour prefix) and the function that writes exactly that many values for one colour.
const FAMILIES: &[(&str, &[&str], FamilyFn)] = &[
    ("material", material::NAMES, material::extract),
    ("imbalance", imbalance::NAMES, imbalance::extract),
    ("mobility", mobility::NAMES, mobility::extract),
    ("king_safety", king_safety::NAMES, king_safety::extract),
    ("pawns", pawns::NAMES, pawns::extract),
    ("passed", passed::NAMES, passed::extract),
    ("threats", threats::NAMES, threats::extract),
    ("space", space::NAMES, space::extract),
    ("pieces", pieces::NAMES, pieces::extract),
];

const fn per_side() -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < FAMILIES.len() {
        n += FAMILIES[i].1.len();
        i += 1;
    }
    n
}

/// Number of per-side features (each appears once for White and once for Black).
pub const PER_SIDE: usize = per_side();

/// Number of features [`extract`] writes.
pub const COUNT: usize = GLOBAL.len() + 2 * PER_SIDE;

/// The `COUNT` feature names, unique, snake_case, in [`extract`]'s order (see the module
/// documentation). Built once on first use.
pub fn names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut v: Vec<&'static str> = GLOBAL.to_vec();
        for prefix in ["white_", "black_"] {
            for (_, names, _) in FAMILIES {
                for n in names.iter() {
                    // Leaked once per name for the life of the program, so that callers
                    // get plain `&'static str`s.
                    v.push(Box::leak(format!("{prefix}{n}").into_boxed_str()));
                }
            }
        }
        v
    })
}

/// The family of feature `index` (in [`names`]' order): `global` for [`GLOBAL`], else the
/// per-side family's name, the same for both colours. `None` past [`COUNT`].
pub fn family_of(index: usize) -> Option<&'static str> {
    if index < GLOBAL.len() {
        return Some("global");
    }
    if index >= COUNT {
        return None;
    }
    let mut i = (index - GLOBAL.len()) % PER_SIDE;
    for (family, names, _) in FAMILIES {
        if i < names.len() {
            return Some(family);
        }
        i -= names.len();
    }
    None
}

/// Writes the `COUNT` features of `pos` into `out`, in [`names`]' order.
///
/// Deterministic and allocation-free. A few microseconds in release.
///
/// # Panics
///
/// If `out.len() != COUNT`, a programming error.
pub fn extract(pos: &Chess, out: &mut [f32]) {
    assert_eq!(out.len(), COUNT, "features::extract needs a slice of COUNT");
    let ctx = Context::new(pos);
    out[0] = if pos.turn().is_white() { 1.0 } else { 0.0 };
    out[1] = if pos.is_check() { 1.0 } else { 0.0 };
    out[2] = pos.legal_moves().len() as f32;
    out[3] = pos.halfmoves() as f32;
    out[4] = material::phase(ctx.board) as f32;
    let mut off = GLOBAL.len();
    for c in [Color::White, Color::Black] {
        for (_, names, f) in FAMILIES {
            f(&ctx, c, &mut out[off..off + names.len()]);
            off += names.len();
        }
    }
    debug_assert_eq!(off, COUNT);
}

/// The features of a board as the engine's evaluators see it: the position rebuilt from the
/// compact board (`chess::compact`: the side to move as White, castling rights guessed, no en
/// passant, a zero halfmove clock). The RBF trainer calls this too, so a net sees in training
/// exactly what it sees in play. A board that is no position (a king missing) gives zeros.
pub fn extract_stm(board: &CompactBoard, out: &mut [f32]) {
    match position_of(board) {
        Some(pos) => extract(&pos, out),
        None => out.fill(0.0),
    }
}

#[cfg(test)]
pub(crate) mod tests;
