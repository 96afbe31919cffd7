//! Game-level filters and the reasons a game is skipped.

use std::fmt;
use std::str::FromStr;

/// Which games' results are kept, as a bit set (bit 0 = 1-0, bit 1 = 0-1, bit 2 = draw).
pub type ResultMask = u8;

/// A finished game's result from White's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameResult {
    pub fn mask_bit(self) -> ResultMask {
        match self {
            GameResult::WhiteWins => 0b001,
            GameResult::BlackWins => 0b010,
            GameResult::Draw => 0b100,
        }
    }

    /// +1 / 0 / −1 for the player of `color`.
    pub fn score_for(self, color: shakmaty::Color) -> i8 {
        let white = match self {
            GameResult::WhiteWins => 1,
            GameResult::BlackWins => -1,
            GameResult::Draw => 0,
        };
        if color == shakmaty::Color::White {
            white
        } else {
            -white
        }
    }

    /// The PGN result token (`1-0`, `0-1`, `1/2-1/2`); `*` and anything else give `None`.
    pub fn from_pgn(token: &str) -> Option<Self> {
        match token.trim() {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" | "½-½" => Some(GameResult::Draw),
            _ => None,
        }
    }
}

/// Which results to keep: `all`, `decisive`, or a comma list of `1-0`, `0-1`, `1/2-1/2`.
/// Games without a known result (`*`) are always skipped: every record carries the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResultFilter(pub ResultMask);

impl Default for ResultFilter {
    fn default() -> Self {
        ResultFilter(0b111)
    }
}

impl ResultFilter {
    pub fn accepts(self, result: GameResult) -> bool {
        self.0 & result.mask_bit() != 0
    }
}

impl FromStr for ResultFilter {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim() {
            "all" => return Ok(ResultFilter(0b111)),
            "decisive" => return Ok(ResultFilter(0b011)),
            _ => {}
        }
        let mut mask = 0;
        for part in text.split(',') {
            let result = GameResult::from_pgn(part).ok_or_else(|| {
                format!(
                    "'{}' is not a result filter; use all, decisive, or a comma list of \
                     1-0, 0-1, 1/2-1/2",
                    part.trim()
                )
            })?;
            mask |= result.mask_bit();
        }
        Ok(ResultFilter(mask))
    }
}

impl fmt::Display for ResultFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = [
            (GameResult::WhiteWins, "1-0"),
            (GameResult::BlackWins, "0-1"),
            (GameResult::Draw, "1/2-1/2"),
        ]
        .iter()
        .filter(|(r, _)| self.accepts(*r))
        .map(|(_, n)| *n)
        .collect();
        write!(f, "{}", names.join(","))
    }
}

/// An Elo tag's value; empty, `?`, `-`, `0` and non-numbers count as missing.
pub fn parse_elo(value: &str) -> Option<u32> {
    value.trim().parse::<u32>().ok().filter(|&e| e > 0)
}

/// Why a game produced no records (triplets or labelled positions). Every game read gets at
/// most one reason: the first that applies, in the order listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// The PGN reader could not parse the game's tags (e.g. an unterminated tag).
    PgnSyntax,
    /// A `Variant` tag other than standard chess.
    Variant,
    /// A `FEN` tag that does not parse or is not a legal standard-chess position.
    BadFen,
    /// No result, or `*`.
    UnknownResult,
    /// The result is not among those requested.
    ResultFiltered,
    /// `--min-elo` is set and a player's Elo tag is missing or empty.
    MissingElo,
    /// `--min-elo` is set and a player is rated below it.
    LowElo,
    /// A move that is not legal in the position (or unparsable text that hid a move).
    IllegalMove,
    /// The moves end in checkmate but the result says otherwise (`cerise data positions`).
    ResultContradictsMate,
    /// `--ending mate` and the moves do not end in checkmate (`cerise data positions`).
    NotCheckmate,
    /// The game is valid but has no position past `--skip-plies` (for triplets: none with
    /// two or more legal moves), e.g. a short game or an empty movetext.
    NoEligiblePositions,
}

impl SkipReason {
    pub const ALL: [SkipReason; 11] = [
        SkipReason::PgnSyntax,
        SkipReason::Variant,
        SkipReason::BadFen,
        SkipReason::UnknownResult,
        SkipReason::ResultFiltered,
        SkipReason::MissingElo,
        SkipReason::LowElo,
        SkipReason::IllegalMove,
        SkipReason::ResultContradictsMate,
        SkipReason::NotCheckmate,
        SkipReason::NoEligiblePositions,
    ];

    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::PgnSyntax => "unreadable PGN (syntax)",
            SkipReason::Variant => "non-standard variant",
            SkipReason::BadFen => "bad FEN tag",
            SkipReason::UnknownResult => "unknown result (*)",
            SkipReason::ResultFiltered => "result filtered out",
            SkipReason::MissingElo => "missing Elo tag",
            SkipReason::LowElo => "Elo below minimum",
            SkipReason::IllegalMove => "illegal or unparsable move",
            SkipReason::ResultContradictsMate => "result contradicts the mate",
            SkipReason::NotCheckmate => "did not end in checkmate",
            SkipReason::NoEligiblePositions => "no eligible positions",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_filter_parses() {
        assert_eq!("all".parse(), Ok(ResultFilter(0b111)));
        assert_eq!("decisive".parse(), Ok(ResultFilter(0b011)));
        assert_eq!("1/2-1/2".parse(), Ok(ResultFilter(0b100)));
        assert_eq!(" 1-0 , 1/2-1/2".parse(), Ok(ResultFilter(0b101)));
        let err = "1-0,*".parse::<ResultFilter>().unwrap_err();
        assert!(err.contains("'*'"), "{err}");
        let f: ResultFilter = "decisive".parse().unwrap();
        assert!(f.accepts(GameResult::BlackWins) && !f.accepts(GameResult::Draw));
        assert_eq!(f.to_string(), "1-0,0-1");
    }

    #[test]
    fn elo_and_scores() {
        assert_eq!(parse_elo(" 2650 "), Some(2650));
        for missing in ["", "?", "-", "0", "abc"] {
            assert_eq!(parse_elo(missing), None, "{missing}");
        }
        use shakmaty::Color::{Black, White};
        assert_eq!(GameResult::WhiteWins.score_for(Black), -1);
        assert_eq!(GameResult::BlackWins.score_for(Black), 1);
        assert_eq!(GameResult::Draw.score_for(White), 0);
        assert_eq!(GameResult::from_pgn("*"), None);
    }
}
