//! The numbers `cerise evalnet` reports, and their Markdown and plain-text forms with the
//! published bars to beat beside them.

use std::fmt;

/// Hits out of trials.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rate {
    pub hits: u64,
    pub n: u64,
}

impl Rate {
    pub fn add(&mut self, hit: bool) {
        self.n += 1;
        self.hits += u64::from(hit);
    }

    pub fn value(&self) -> Option<f64> {
        (self.n > 0).then(|| self.hits as f64 / self.n as f64)
    }

    fn pct(&self) -> String {
        self.value()
            .map_or_else(|| "n/a".to_string(), |v| format!("{:.1}%", 100.0 * v))
    }
}

pub const PIECES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];
/// ConvChess (Oshri & Khandwala 2015), Table 2: move selector accuracy given the piece.
pub const CONVCHESS_MOVE_SELECTOR: [f64; 6] = [52.2, 56.2, 40.5, 29.3, 26.5, 47.3];
pub const CONVCHESS_PIECE_SELECTOR: f64 = 38.3;
/// The Mocha CNN's win prediction on positions of games ended by mate.
pub const MOCHA_WIN_PREDICTION: f64 = 71.8;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct EvalnetReport {
    pub net: String,
    pub net_id: String,
    pub games_file: String,
    pub split: String,
    pub seed: u64,
    pub skip_plies: u32,
    /// Games of the split evaluated.
    pub games: u64,
    /// f(q) > f(r) on the triplet file, when one was given.
    pub ordering: Option<Rate>,
    pub top1: Rate,
    pub top3: Rate,
    /// The net's best move starts on the played move's from-square.
    pub piece_selector: Rate,
    /// Per role of the moved piece: among that piece's legal moves, the net's best is played.
    /// Pieces with a single legal move are left out.
    pub move_selector: [Rate; 6],
    /// Positions of decisive games where the sign of f names the winner.
    pub win_all: Rate,
    /// The same, restricted to games whose final position is checkmate.
    pub win_mate: Rate,
    pub mate_games: u64,
}

impl EvalnetReport {
    /// A Markdown table, ready to paste into a net card.
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "Net `{}` (id {}) on {} games of the `{}` split of `{}` (split seed {}, first {} \
             plies skipped).\n\n| metric | cerise | bar to beat | n |\n|---|---:|---:|---:|\n",
            self.net,
            self.net_id,
            self.games,
            self.split,
            self.games_file,
            self.seed,
            self.skip_plies
        );
        let mut row = |name: &str, r: &Rate, bar: &str| {
            s.push_str(&format!("| {name} | {} | {bar} | {} |\n", r.pct(), r.n));
        };
        if let Some(o) = &self.ordering {
            row("ordering accuracy f(q) > f(r) (test triplets)", o, "");
        }
        row("move match top-1", &self.top1, "");
        row("move match top-3", &self.top3, "");
        row(
            "piece selector (from-square of best move)",
            &self.piece_selector,
            &format!("{CONVCHESS_PIECE_SELECTOR}% ConvChess"),
        );
        for (i, name) in PIECES.iter().enumerate() {
            row(
                &format!("move selector given the piece: {name}"),
                &self.move_selector[i],
                &format!("{}% ConvChess", CONVCHESS_MOVE_SELECTOR[i]),
            );
        }
        row("win prediction, decisive games", &self.win_all, "");
        row(
            &format!("win prediction, games ended by mate ({})", self.mate_games),
            &self.win_mate,
            &format!("{MOCHA_WIN_PREDICTION}% Mocha CNN"),
        );
        s
    }
}

impl fmt::Display for EvalnetReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "net {} ({}), {} {} games of {}",
            self.net, self.net_id, self.games, self.split, self.games_file
        )?;
        let line = |f: &mut fmt::Formatter<'_>, name: &str, r: &Rate, bar: String| {
            writeln!(f, "{name:<40} {:>7} {bar:>18}  n={}", r.pct(), r.n)
        };
        if let Some(o) = &self.ordering {
            line(f, "ordering accuracy (triplets)", o, String::new())?;
        }
        line(f, "move match top-1", &self.top1, String::new())?;
        line(f, "move match top-3", &self.top3, String::new())?;
        line(
            f,
            "piece selector",
            &self.piece_selector,
            format!("ConvChess {CONVCHESS_PIECE_SELECTOR}%"),
        )?;
        for (i, name) in PIECES.iter().enumerate() {
            line(
                f,
                &format!("move selector | {name}"),
                &self.move_selector[i],
                format!("ConvChess {}%", CONVCHESS_MOVE_SELECTOR[i]),
            )?;
        }
        line(f, "win prediction (decisive)", &self.win_all, String::new())?;
        line(
            f,
            &format!("win prediction (mate, {} games)", self.mate_games),
            &self.win_mate,
            format!("Mocha {MOCHA_WIN_PREDICTION}%"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_tables() {
        let mut r = Rate::default();
        assert_eq!(r.value(), None);
        r.add(true);
        r.add(false);
        assert_eq!(r.value(), Some(0.5));
        let report = EvalnetReport {
            top1: r,
            ..EvalnetReport::default()
        };
        let md = report.to_markdown();
        assert!(md.contains("| move match top-1 | 50.0% |  | 2 |"), "{md}");
        assert!(md.contains("38.3% ConvChess") && md.contains("71.8% Mocha CNN"));
        assert!(md.contains("move selector given the piece: knight | n/a | 56.2% ConvChess"));
        assert!(report.to_string().contains("50.0%"));
    }
}
