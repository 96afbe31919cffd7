//! Syzygy endgame tablebases (`SyzygyPath`), read by `shakmaty-syzygy`.
//!
//! Two uses, as in Stockfish:
//! - **In the search**, WDL (win/draw/loss) at nodes right after a capture or a pawn move
//!   (the tables' WDL is exact only when the halfmove clock is 0), with few enough pieces.
//! - **At the root**, DTZ (distance to the next capture or pawn move) keeps only the moves
//!   that hold the position's result, and when winning only those that make the fastest
//!   progress, so the 50-move rule cannot steal a won ending from a search that shuffles.
//!
//! Positions with castling rights are never in the tables.

use super::Position;
use shakmaty::{Chess, Position as _};
use shakmaty_syzygy::{AmbiguousWdl, Dtz, MaybeRounded, Tablebase, Wdl};
use std::path::Path;

/// The tables found in one or more directories.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    files: usize,
    /// What `SyzygyPath` named, for messages.
    pub path: String,
}

/// What a table says about the side to move, with the 50-move rule counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TbOutcome {
    Win,
    Draw,
    Loss,
}

impl TbOutcome {
    fn of(wdl: Wdl) -> TbOutcome {
        match wdl {
            Wdl::Win => TbOutcome::Win,
            // A cursed win or blessed loss is a draw under the 50-move rule, which is how
            // games are played.
            Wdl::CursedWin | Wdl::Draw | Wdl::BlessedLoss => TbOutcome::Draw,
            Wdl::Loss => TbOutcome::Loss,
        }
    }
}

impl Tablebases {
    /// Opens every table in `path`, a list of directories separated by `:` (`;` on
    /// Windows), as UCI's `SyzygyPath` is written. A directory that cannot be read, or a
    /// path with no table in it, is an error that says which.
    pub fn open(path: &str) -> Result<Tablebases, String> {
        let mut tables = Tablebase::new();
        let mut files = 0;
        let separator = if cfg!(windows) { ';' } else { ':' };
        for dir in path.split(separator).filter(|d| !d.trim().is_empty()) {
            let dir = dir.trim();
            if !Path::new(dir).is_dir() {
                return Err(format!("SyzygyPath: '{dir}' is not a directory"));
            }
            files += tables
                .add_directory(dir)
                .map_err(|e| format!("SyzygyPath: cannot read '{dir}': {e}"))?;
        }
        if files == 0 {
            return Err(format!(
                "SyzygyPath: no Syzygy table (.rtbw, .rtbz) in '{path}'; name the \
                 directories that hold them, separated by '{separator}'"
            ));
        }
        Ok(Tablebases {
            tables,
            files,
            path: path.to_string(),
        })
    }

    /// Table files found.
    pub fn files(&self) -> usize {
        self.files
    }

    /// The most pieces (kings included) of any table found.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// Whether `pos` could be in a table of at most `limit` pieces.
    pub fn covers(&self, pos: &Position, limit: usize) -> bool {
        let inner = pos.inner();
        let pieces = inner.board().occupied().count();
        pieces <= limit.min(self.max_pieces()) && inner.castles().is_empty()
    }

    /// WDL of a position whose halfmove clock is 0 (right after a capture or pawn move),
    /// where the tables are exact. `None` when it is not, or no table has it.
    pub fn probe_wdl_after_zeroing(&self, pos: &Position) -> Option<TbOutcome> {
        if pos.halfmoves() != 0 {
            return None;
        }
        self.tables
            .probe_wdl_after_zeroing(pos.inner())
            .ok()
            .map(TbOutcome::of)
    }

    /// The root moves that keep the best outcome, with that outcome: when winning, only the
    /// winning moves with the shortest distance to the next zeroing move (a zeroing move that
    /// wins counts as shortest). `None` when a table is missing for a move.
    pub fn root_moves(&self, pos: &Position) -> Option<(TbOutcome, Vec<shakmaty::Move>)> {
        let mut ranked = Vec::new();
        for m in pos.legal_moves() {
            let child = pos.play(&m);
            let inner = child.inner();
            let (outcome, distance) = if inner.is_checkmate() {
                (TbOutcome::Win, 0)
            } else if inner.is_stalemate() || inner.is_insufficient_material() {
                (TbOutcome::Draw, 0)
            } else {
                let dtz = self.tables.probe_dtz(inner).ok()?;
                let Dtz(n) = match dtz {
                    MaybeRounded::Precise(d) | MaybeRounded::Rounded(d) => d,
                };
                let zeroing = child.halfmoves() == 0;
                // The child's result for the opponent, with the 50-move rule counted from
                // the plies already played; a rounded DTZ that lands exactly on the limit is
                // ambiguous, and counts as the draw it may be.
                let outcome = match AmbiguousWdl::from_dtz_and_halfmoves(dtz, child.halfmoves()) {
                    AmbiguousWdl::Loss => TbOutcome::Win,
                    AmbiguousWdl::Win => TbOutcome::Loss,
                    _ => TbOutcome::Draw,
                };
                let distance = if zeroing { 0 } else { n.unsigned_abs() };
                (outcome, distance)
            };
            ranked.push((m, outcome, distance));
        }
        let rank = |o: TbOutcome| match o {
            TbOutcome::Win => 2,
            TbOutcome::Draw => 1,
            TbOutcome::Loss => 0,
        };
        let best = ranked.iter().map(|r| rank(r.1)).max()?;
        ranked.retain(|r| rank(r.1) == best);
        let outcome = ranked[0].1;
        if outcome == TbOutcome::Win {
            let shortest = ranked.iter().map(|r| r.2).min()?;
            ranked.retain(|r| r.2 == shortest);
        }
        Some((outcome, ranked.into_iter().map(|r| r.0).collect()))
    }

    /// `cerise tb-probe`: for each FEN of the file at `fens` (one a line; blank lines and `#`
    /// comments skipped), `FEN ; wdl W ; dtz D` or `FEN ; error E` to `out`.
    pub fn probe_file(&self, fens: &Path, out: &mut dyn FnMut(String)) -> Result<(), String> {
        let text = std::fs::read_to_string(fens)
            .map_err(|e| format!("cannot read {}: {e}", fens.display()))?;
        for (n, line) in text.lines().enumerate() {
            let fen = line.trim();
            if fen.is_empty() || fen.starts_with('#') {
                continue;
            }
            let pos = Position::from_fen(fen)
                .map_err(|e| format!("{}:{}: {e}", fens.display(), n + 1))?;
            match self.probe_raw(&pos) {
                Ok((wdl, dtz)) => out(format!("{fen} ; wdl {wdl} ; dtz {dtz}")),
                Err(e) => out(format!("{fen} ; error {e}")),
            }
        }
        Ok(())
    }

    /// The tables' own numbers for `pos`, as `cerise tb-probe` prints them to be checked
    /// against another prober: WDL as if the position came right after a zeroing move
    /// (−2 loss, −1 blessed loss, 0 draw, 1 cursed win, 2 win) and DTZ (plies to the next
    /// zeroing move, negative when losing, possibly rounded as the tables store it).
    pub fn probe_raw(&self, pos: &Position) -> Result<(i32, i32), String> {
        let wdl = self
            .tables
            .probe_wdl_after_zeroing(pos.inner())
            .map_err(|e| e.to_string())?;
        let dtz = self
            .tables
            .probe_dtz(pos.inner())
            .map_err(|e| e.to_string())?;
        let Dtz(dtz) = match dtz {
            MaybeRounded::Precise(d) | MaybeRounded::Rounded(d) => d,
        };
        Ok((wdl as i32, dtz))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables() -> Tablebases {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/syzygy");
        Tablebases::open(dir).expect("the shared 3- and 4-piece tables")
    }

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    #[test]
    fn opens_the_shared_tables_and_refuses_bad_paths() {
        let tb = tables();
        assert_eq!((tb.files(), tb.max_pieces()), (70, 4));
        let e = Tablebases::open("/nonexistent/tables").err().unwrap();
        assert!(e.contains("not a directory"), "{e}");
        let empty = std::env::temp_dir().join(format!("cerise-no-tables-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let e = Tablebases::open(empty.to_str().unwrap()).err().unwrap();
        assert!(e.contains("no Syzygy table"), "{e}");
        std::fs::remove_dir_all(&empty).unwrap();
    }

    #[test]
    fn wins_draws_and_losses() {
        let tb = tables();
        // KQ v K: a win for the queen's side, a loss for the other.
        let (wdl, dtz) = tb.probe_raw(&pos("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")).unwrap();
        assert!(wdl == 2 && dtz > 0, "{wdl} {dtz}");
        let (wdl, dtz) = tb.probe_raw(&pos("8/8/8/4k3/8/8/8/KQ6 b - - 0 1")).unwrap();
        assert!(wdl == -2 && dtz < 0, "{wdl} {dtz}");
        // KN v K is a draw.
        assert_eq!(
            tb.probe_raw(&pos("8/8/8/4k3/8/8/8/KN6 w - - 0 1")).unwrap(),
            (0, 0)
        );
        // Covered: four pieces, no castling; not: five pieces.
        assert!(tb.covers(&pos("8/8/8/4k3/8/8/8/KQ6 w - - 0 1"), 7));
        assert!(!tb.covers(&pos("8/8/8/4k3/8/8/8/KQ6 w - - 0 1"), 2));
        assert!(!tb.covers(&pos("8/8/8/3pk3/8/8/8/KQR5 w - - 0 1"), 7));
    }

    /// At the root, only moves that keep the win are left, and of those the ones that
    /// zero soonest: in K+P v K the winning pawn push, not a king shuffle that draws.
    #[test]
    fn root_moves_keep_the_result_and_make_progress() {
        let tb = tables();
        // White: Kc6, Pc5 v Kc8 (a win); Kb6/Kd6 also win, but the pawn must move in time.
        let p = pos("2k5/8/2K5/2P5/8/8/8/8 w - - 0 1");
        let (outcome, keep) = tb.root_moves(&p).unwrap();
        assert_eq!(outcome, TbOutcome::Win);
        assert!(!keep.is_empty());
        for m in &keep {
            let child = p.play(m);
            let (wdl, _) = tb.probe_raw(&child).unwrap();
            assert!(wdl < 0, "{} should leave Black lost", p.move_to_uci(m));
        }
        // A drawn position keeps only drawing moves: K+R v K+R, nothing hangs.
        let p = pos("8/8/3k4/3r4/8/3R4/3K4/8 w - - 0 1");
        let (outcome, keep) = tb.root_moves(&p).unwrap();
        assert_eq!(outcome, TbOutcome::Draw);
        assert!(
            keep.len() < p.legal_moves().len(),
            "a rook move that hangs it loses"
        );
    }
}
