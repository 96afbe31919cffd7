//! Engine-labelled positions as regression data: the hand-made features of each position,
//! plus the study's search inputs for its scenario, against the label in pawns, split
//! train/valid/test by game.
//!
//! Everything is from the side to move's point of view, and the features are computed on the
//! board as the engine's evaluators see it (`CompactBoard`: side to move as White, no
//! castling rights or en passant), so the net learns exactly what it will be asked in play.

use super::rows::RegressionData;
use crate::chess::CompactBoard;
use crate::data::label::{Label, LabelsFile};
use crate::data::{Split, SplitRatios};
use crate::features;
use anyhow::{bail, ensure, Context, Result};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position as _};
use std::path::Path;
use std::time::Instant;

/// A mate found by a low-depth search input counts as this many pawns.
pub const MATE_PAWNS: f32 = 30.0;

/// The study's three input sets: features plus engine evaluations at depths 2, 4 and 8
/// (scenario 1), at 2 and 4 (scenario 2), or features only (scenario 3, the only one a
/// search can use, since the other inputs would need a search at every node).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    One,
    Two,
    Three,
}

impl Scenario {
    pub fn depths(self) -> &'static [u32] {
        match self {
            Scenario::One => &[2, 4, 8],
            Scenario::Two => &[2, 4],
            Scenario::Three => &[],
        }
    }

    pub fn number(self) -> u32 {
        match self {
            Scenario::One => 1,
            Scenario::Two => 2,
            Scenario::Three => 3,
        }
    }
}

impl std::str::FromStr for Scenario {
    type Err = String;
    fn from_str(text: &str) -> Result<Scenario, String> {
        match text {
            "1" => Ok(Scenario::One),
            "2" => Ok(Scenario::Two),
            "3" => Ok(Scenario::Three),
            _ => Err(format!(
                "scenario `{text}`: 1 (features + depths 2, 4, 8), 2 (features + depths 2, 4) \
                 or 3 (features only)"
            )),
        }
    }
}

/// Which labelled positions are used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataFilter {
    /// Drop labels beyond this many pawns either way (the study's second set uses 20);
    /// mates are always dropped.
    pub max_eval_pawns: Option<f32>,
}

fn pawns(label: Label) -> f32 {
    match label {
        Label::Cp(cp) => cp as f32 / 100.0,
        Label::Mate(n) if n > 0 => MATE_PAWNS,
        Label::Mate(_) => -MATE_PAWNS,
    }
}

/// Reads `path` and builds the splits for `scenario`.
pub fn load(
    path: &Path,
    scenario: Scenario,
    filter: DataFilter,
    split: SplitRatios,
    seed: u64,
) -> Result<RegressionData> {
    let file = LabelsFile::open(path)?;
    let mut columns = Vec::new();
    for &depth in scenario.depths() {
        let Some(col) = file.header.extra_depths.iter().position(|&d| d == depth) else {
            bail!(
                "{} has no depth-{depth} evaluations (it has {:?}), which scenario {} needs; \
                 label with --extra-depths 2,4,8 or choose --scenario 3",
                path.display(),
                file.header.extra_depths,
                scenario.number()
            );
        };
        columns.push(col);
    }
    let extra_inputs: Vec<String> = scenario.depths().iter().map(|d| format!("d{d}")).collect();
    let width = features::COUNT + columns.len();
    let mut input_names: Vec<String> = features::names().iter().map(|s| s.to_string()).collect();
    input_names.extend(extra_inputs.iter().cloned());
    let mut data = RegressionData {
        width,
        input_names,
        extra_inputs,
        ..RegressionData::default()
    };
    let mut row = vec![0.0f32; width];
    for r in &file.rows {
        let Label::Cp(cp) = r.score else {
            data.mates_dropped += 1;
            continue;
        };
        let white = cp as f32 / 100.0;
        if filter.max_eval_pawns.is_some_and(|m| white.abs() > m) {
            data.large_dropped += 1;
            continue;
        }
        let pos: Chess = r
            .fen
            .parse::<Fen>()
            .ok()
            .and_then(|f| f.into_position(CastlingMode::Standard).ok())
            .with_context(|| {
                format!(
                    "{}: position {} has a bad FEN {}",
                    path.display(),
                    r.index,
                    r.fen
                )
            })?;
        let sign = if pos.turn().is_white() { 1.0 } else { -1.0 };
        let target = sign * white;
        let board = CompactBoard::from_chess(&pos);
        let started = Instant::now();
        features::extract_stm(&board, &mut row[..features::COUNT]);
        data.feature_seconds += started.elapsed().as_secs_f64();
        for (i, &col) in columns.iter().enumerate() {
            row[features::COUNT + i] = sign * pawns(r.extra[col]);
        }
        let rows = &mut data.splits[split.assign(seed, r.game) as usize];
        rows.inputs.extend_from_slice(&row);
        rows.targets.push(target);
        rows.boards.push(board);
    }
    for (s, rows) in Split::ALL.iter().zip(&data.splits) {
        ensure!(
            !rows.is_empty(),
            "{}: the {} split is empty after filtering; label more positions or change --split",
            path.display(),
            s.name()
        );
    }
    Ok(data)
}
