//! `--ending`: which games' positions are kept, by how the game ended.

use super::super::filter::ResultFilter;
use anyhow::{bail, Result};
use std::fmt;
use std::str::FromStr;

/// How a game must have ended for its positions to be kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ending {
    /// Every game with a known result, draws included.
    All,
    /// Only `1-0` and `0-1` games.
    #[default]
    Decisive,
    /// Only games whose moves end in checkmate (replayed, not trusted from the tags), as in
    /// the Mocha.jl study of win/loss classifiers.
    Mate,
}

impl Ending {
    /// The header's ending code.
    pub fn code(self) -> u8 {
        match self {
            Ending::All => 0,
            Ending::Decisive => 1,
            Ending::Mate => 2,
        }
    }

    pub fn from_code(code: u8) -> Result<Ending> {
        Ok(match code {
            0 => Ending::All,
            1 => Ending::Decisive,
            2 => Ending::Mate,
            other => bail!("header ending code {other} is not 0 (all), 1 (decisive) or 2 (mate)"),
        })
    }

    /// The results read from the tags that can pass this filter (a mate is always decisive).
    pub fn results(self) -> ResultFilter {
        match self {
            Ending::All => ResultFilter(0b111),
            Ending::Decisive | Ending::Mate => ResultFilter(0b011),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Ending::All => "all",
            Ending::Decisive => "decisive",
            Ending::Mate => "mate",
        }
    }
}

impl FromStr for Ending {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim() {
            "all" => Ok(Ending::All),
            "decisive" => Ok(Ending::Decisive),
            "mate" | "checkmate" => Ok(Ending::Mate),
            other => Err(format!(
                "'{other}' is not an ending filter; use all, decisive or mate"
            )),
        }
    }
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::GameResult;

    #[test]
    fn parses_round_trips_codes_and_maps_results() {
        for e in [Ending::All, Ending::Decisive, Ending::Mate] {
            assert_eq!(e.name().parse::<Ending>(), Ok(e));
            assert_eq!(Ending::from_code(e.code()).expect("own code"), e);
        }
        assert!("draws".parse::<Ending>().unwrap_err().contains("'draws'"));
        assert!(Ending::from_code(3).is_err());
        assert_eq!(Ending::default(), Ending::Decisive);
        assert!(Ending::All.results().accepts(GameResult::Draw));
        assert!(!Ending::Decisive.results().accepts(GameResult::Draw));
        assert!(!Ending::Mate.results().accepts(GameResult::Draw));
        assert!(Ending::Mate.results().accepts(GameResult::BlackWins));
    }
}
