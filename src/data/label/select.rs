//! Which positions get labelled: middlegame positions (see [`super::phase`]) of the source
//! games, at most `per_game` from each game, drawn with a seeded RNG per game, each distinct
//! position once, until `positions` are chosen. The same source and settings always choose
//! the same positions in the same order, which is what lets a killed run resume.

use super::super::filter::ResultFilter;
use super::super::games::for_each_game;
use super::super::pgn::GameFilter;
use super::super::rng::{mix64, SplitMix64};
use super::phase::is_middlegame;
use anyhow::{ensure, Result};
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position as _};
use std::collections::HashSet;
use std::io::Read;
use std::ops::ControlFlow;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelectConfig {
    /// How many positions to choose in all.
    pub positions: u64,
    pub per_game: u32,
    /// Opening plies that are never chosen.
    pub skip_plies: u32,
    /// Both players' Elo tags at least this (0: no filter).
    pub min_elo: u32,
    /// Take one game in this many (drawn by a seeded hash of the game's index), so the
    /// positions spread over a large source instead of its first games.
    pub game_every: u32,
    pub seed: u64,
}

impl SelectConfig {
    /// The settings as the labels file records them.
    pub fn describe(&self) -> String {
        format!(
            "positions {}, per-game {}, game-every {}, skip-plies {}, min-elo {}, seed {}; \
             middlegame = Stockfish 10 phase > 0 and ply >= skip-plies",
            self.positions,
            self.per_game,
            self.game_every,
            self.skip_plies,
            self.min_elo,
            self.seed
        )
    }
}

/// A position chosen for labelling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Its place in the chosen list, the key a resumed run matches on.
    pub index: u64,
    /// The game's index in the source, counting every game read.
    pub game: u64,
    pub ply: u32,
    pub fen: String,
    pub white_to_move: bool,
}

/// What the selection read and chose.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    pub candidates: Vec<Candidate>,
    pub games_read: u64,
    pub games_used: u64,
    /// Positions left out because an earlier game already gave them.
    pub duplicates: u64,
}

/// Chooses the positions of `input` (uncompressed PGN) by `config`; `source` names it in
/// errors. `on_game` sees the running selection after every game, for progress.
pub fn select_positions<R: Read>(
    input: R,
    source: &str,
    config: &SelectConfig,
    mut on_game: impl FnMut(&Selection),
) -> Result<Selection> {
    ensure!(config.positions > 0, "--positions must be at least 1");
    ensure!(config.per_game > 0, "--per-game must be at least 1");
    ensure!(config.game_every > 0, "--game-every must be at least 1");
    let filter = GameFilter {
        min_elo: (config.min_elo > 0).then_some(config.min_elo),
        results: ResultFilter::default(),
    };
    let mut out = Selection::default();
    // Positions are told apart by placement, side, castling and en passant (not clocks).
    let mut seen: HashSet<String> = HashSet::new();
    let mut eligible: Vec<(u32, String, bool)> = Vec::new();
    for_each_game(input, source, filter, None, |game_index, outcome| {
        out.games_read += 1;
        let taken =
            mix64(config.seed ^ mix64(game_index)).is_multiple_of(u64::from(config.game_every));
        let game = match outcome {
            Ok(game) if taken => game,
            _ => {
                on_game(&out);
                return Ok(ControlFlow::Continue(()));
            }
        };
        eligible.clear();
        let mut pos = game.start.clone();
        for (ply, &m) in game.moves.iter().enumerate() {
            let ply = ply as u32;
            if is_middlegame(pos.board(), ply, config.skip_plies) {
                let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                eligible.push((ply, fen, pos.turn().is_white()));
            }
            pos.play_unchecked(m);
        }
        // A seeded partial shuffle picks `per_game` of them; they are then taken in game order.
        let mut rng = SplitMix64::for_stream(config.seed, game_index);
        let take = eligible.len().min(config.per_game as usize);
        for i in 0..take {
            let j = i + rng.below(eligible.len() - i);
            eligible.swap(i, j);
        }
        let chosen = &mut eligible[..take];
        chosen.sort_by_key(|(ply, _, _)| *ply);
        let mut used = false;
        for (ply, fen, white) in chosen.iter() {
            if out.candidates.len() as u64 >= config.positions {
                break;
            }
            if !seen.insert(position_key(fen)) {
                out.duplicates += 1;
                continue;
            }
            used = true;
            out.candidates.push(Candidate {
                index: out.candidates.len() as u64,
                game: game_index,
                ply: *ply,
                fen: fen.clone(),
                white_to_move: *white,
            });
        }
        out.games_used += u64::from(used);
        on_game(&out);
        Ok(if out.candidates.len() as u64 >= config.positions {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    })?;
    Ok(out)
}

/// A FEN without its halfmove and fullmove counters.
fn position_key(fen: &str) -> String {
    fen.split(' ').take(4).collect::<Vec<_>>().join(" ")
}
