//! Deep Pink triplets from one game: for each position `p` past the skipped opening plies,
//! `q` is the position after the move played and `r` the position after a uniformly random
//! OTHER legal move. Positions with a single legal move give no contrast and are skipped.
//!
//! With `quiet`, a position gives a triplet only if its side to move is not in check and the
//! played move is neither a capture nor a promotion, and `r` is drawn from the other such
//! quiet moves. A search evaluates quiet leaves (quiescence resolves the captures), and a
//! static eval cannot see an exchange in progress: on noisy triplets the objective's
//! `f(p) = −f(q)` term and random captures that are really blunders both teach the net that
//! material is worth little (the net trained on all triplets valued a queen at 3 pawns).

use super::format::Triplet;
use crate::chess::CompactBoard;
use crate::data::pgn::ParsedGame;
use crate::data::rng::SplitMix64;
use shakmaty::{Chess, MoveList, Position as _};

/// Per-game counts, to report how many positions were used and passed over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameCounts {
    pub triplets: u64,
    /// Positions past the skipped plies that had only one legal move.
    pub forced: u64,
    /// Positions passed over by the `quiet` filter.
    pub noisy: u64,
}

fn is_quiet(m: &shakmaty::Move) -> bool {
    !m.is_capture() && !m.is_promotion()
}

/// Why a position gives no triplet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// One legal move: no contrast.
    Forced,
    /// Turned away by the `quiet` filter.
    Noisy,
    /// The move said to be played is not legal in the position (a defect of the source).
    Illegal,
}

/// The moves `played` and `r` are drawn from at `pos` (all legal moves, or the quiet ones
/// with `quiet`), at least two of them.
fn candidates(pos: &Chess, played: &shakmaty::Move, quiet: bool) -> Result<MoveList, Skip> {
    if quiet && (pos.is_check() || !is_quiet(played)) {
        return Err(Skip::Noisy);
    }
    let mut legal = pos.legal_moves();
    if legal.len() < 2 {
        return Err(Skip::Forced);
    }
    if quiet {
        legal.retain(|m| is_quiet(m));
        if legal.len() < 2 {
            return Err(Skip::Noisy);
        }
    }
    Ok(legal)
}

/// The triplet of `pos` where `played` was played: `r` after a uniformly random other
/// candidate move, drawn from `rng` (one draw, only when a triplet is made). `result` is
/// the game's result for `pos`'s side to move.
pub fn triplet_of(
    pos: &Chess,
    played: shakmaty::Move,
    quiet: bool,
    rng: &mut SplitMix64,
    result: i8,
) -> Result<Triplet, Skip> {
    let legal = candidates(pos, &played, quiet)?;
    let played_at = legal
        .iter()
        .position(|m| *m == played)
        .ok_or(Skip::Illegal)?;
    // Draw from the other len-1 moves by skipping over the played one.
    let mut k = rng.below(legal.len() - 1);
    if k >= played_at {
        k += 1;
    }
    let child = |m| -> Chess {
        let mut c = pos.clone();
        c.play_unchecked(m);
        c
    };
    Ok(Triplet {
        p: CompactBoard::from_chess(pos),
        q: CompactBoard::from_chess(&child(played)),
        r: CompactBoard::from_chess(&child(legal[k])),
        result,
    })
}

/// Calls `emit` for each triplet of `game`, in move order, drawing random moves from `rng`.
pub fn game_triplets(
    game: &ParsedGame,
    skip_plies: u32,
    quiet: bool,
    rng: &mut SplitMix64,
    mut emit: impl FnMut(Triplet) -> anyhow::Result<()>,
) -> anyhow::Result<GameCounts> {
    let mut counts = GameCounts::default();
    let mut pos = game.start.clone();
    for (ply, &played) in game.moves.iter().enumerate() {
        if ply as u64 >= u64::from(skip_plies) {
            match triplet_of(&pos, played, quiet, rng, game.result.score_for(pos.turn())) {
                Err(Skip::Noisy) => counts.noisy += 1,
                Err(Skip::Forced) => counts.forced += 1,
                Err(Skip::Illegal) => {
                    anyhow::bail!("internal error: a validated game move is not legal")
                }
                Ok(triplet) => {
                    emit(triplet)?;
                    counts.triplets += 1;
                }
            }
        }
        pos.play_unchecked(played);
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::filter::GameResult;
    use crate::data::testing::game_of;

    fn collect(g: &ParsedGame, skip: u32, seed: u64) -> (Vec<Triplet>, GameCounts) {
        collect_with(g, skip, false, seed)
    }

    fn collect_with(
        g: &ParsedGame,
        skip: u32,
        quiet: bool,
        seed: u64,
    ) -> (Vec<Triplet>, GameCounts) {
        let mut out = Vec::new();
        let mut rng = SplitMix64::new(seed);
        let counts = game_triplets(g, skip, quiet, &mut rng, |t| {
            out.push(t);
            Ok(())
        })
        .expect("valid game");
        (out, counts)
    }

    #[test]
    fn quiet_filter_keeps_only_quiet_moves_out_of_check() {
        // Plies: e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7# -- the last is a capture (and gives mate).
        let g = game_of(
            &["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"],
            GameResult::WhiteWins,
        );
        let (all, _) = collect_with(&g, 0, false, 5);
        assert_eq!(all.len(), 7);
        for seed in 0..20 {
            let (trips, counts) = collect_with(&g, 0, true, seed);
            assert_eq!(counts.triplets, 6, "every quiet ply, not Qxf7#");
            assert_eq!(counts.noisy, 1);
            let mut pos = g.start.clone();
            for (ply, t) in trips.iter().enumerate() {
                let quiet_children: Vec<CompactBoard> = pos
                    .legal_moves()
                    .iter()
                    .filter(|m| !m.is_capture() && !m.is_promotion())
                    .map(|m| {
                        let mut c = pos.clone();
                        c.play_unchecked(*m);
                        CompactBoard::from_chess(&c)
                    })
                    .collect();
                assert!(quiet_children.contains(&t.r), "ply {ply}: r is quiet");
                assert_ne!(t.r, t.q);
                pos.play_unchecked(g.moves[ply]);
            }
        }
        // Black to move in check (after Bb5+) gives no quiet triplet.
        let check = game_of(&["e4", "d6", "Bb5+", "c6"], GameResult::Draw);
        let (trips, counts) = collect_with(&check, 0, true, 1);
        assert_eq!((trips.len(), counts.noisy), (3, 1));
    }

    #[test]
    fn q_is_played_child_and_r_another_legal_child() {
        let g = game_of(
            &["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"],
            GameResult::WhiteWins,
        );
        let (trips, counts) = collect(&g, 2, 5);
        assert_eq!(counts.triplets, 5);
        assert_eq!(trips.len(), 5);
        let mut pos = g.start.clone();
        for (ply, &m) in g.moves.iter().enumerate() {
            if ply >= 2 {
                let t = trips[ply - 2];
                assert_eq!(t.p, CompactBoard::from_chess(&pos));
                let mut q = pos.clone();
                q.play_unchecked(m);
                assert_eq!(t.q, CompactBoard::from_chess(&q));
                assert_ne!(t.r, t.q);
                let children: Vec<CompactBoard> = pos
                    .legal_moves()
                    .iter()
                    .filter(|&&c| c != m)
                    .map(|&c| {
                        let mut x = pos.clone();
                        x.play_unchecked(c);
                        CompactBoard::from_chess(&x)
                    })
                    .collect();
                assert!(children.contains(&t.r), "ply {ply}: r is a legal child");
                // White won: +1 when White is to move in p.
                let expect = if pos.turn().is_white() { 1 } else { -1 };
                assert_eq!(t.result, expect);
            }
            pos.play_unchecked(m);
        }
    }

    #[test]
    fn forced_positions_are_skipped_and_seed_matters() {
        // After 1. e4 f5 2. Qh5+ the only legal reply is g6 (Kf7 stays on the queen's
        // diagonal), so that position gives no triplet.
        let g = game_of(&["e4", "f5", "Qh5+", "g6", "Qxg6+"], GameResult::WhiteWins);
        let mut forced_pos = g.start.clone();
        for &m in &g.moves[..3] {
            forced_pos.play_unchecked(m);
        }
        assert_eq!(forced_pos.legal_moves().len(), 1);
        let (trips, counts) = collect(&g, 0, 1);
        assert_eq!(counts.forced, 1);
        assert_eq!(counts.triplets + counts.forced, 5);
        assert_eq!(trips.len() as u64, counts.triplets);
        // Different seeds pick different random children somewhere in a long-enough game.
        let long = game_of(
            &[
                "d4", "d5", "c4", "e6", "Nc3", "Nf6", "Bg5", "Be7", "e3", "O-O",
            ],
            GameResult::Draw,
        );
        let (a, _) = collect(&long, 0, 1);
        let (b, _) = collect(&long, 0, 2);
        let (a2, _) = collect(&long, 0, 1);
        assert_eq!(a, a2);
        assert_ne!(a, b);
        assert!(a.iter().all(|t| t.result == 0));
        // Skipping past the end leaves nothing.
        assert_eq!(collect(&long, 10, 1).1.triplets, 0);
    }
}
