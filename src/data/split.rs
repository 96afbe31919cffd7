//! Train / validation / test assignment BY GAME: every position of a game lands in the same
//! split, so near-duplicate positions of one game never leak between them. The bucket depends
//! only on the seed and the game's index in the input file (counting every game read, kept or
//! not), so changing a filter never moves a game to another split.

use super::rng::mix64;
use anyhow::{bail, Result};
use std::fmt;
use std::str::FromStr;

/// Which part of the by-game split a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Split {
    Train,
    Valid,
    Test,
}

impl Split {
    pub const ALL: [Split; 3] = [Split::Train, Split::Valid, Split::Test];

    pub fn name(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Valid => "valid",
            Split::Test => "test",
        }
    }

    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_code(code: u8) -> Result<Option<Split>> {
        Ok(match code {
            0 => Some(Split::Train),
            1 => Some(Split::Valid),
            2 => Some(Split::Test),
            255 => None,
            other => bail!("header split code {other} is not 0, 1, 2 or 255"),
        })
    }
}

/// Split weights in per mille; they sum to 1000.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitRatios {
    pub per_mille: [u16; 3],
}

impl Default for SplitRatios {
    fn default() -> Self {
        SplitRatios {
            per_mille: [900, 50, 50],
        }
    }
}

impl SplitRatios {
    /// Which split game number `game_index` (0-based, in file order) belongs to.
    pub fn assign(&self, seed: u64, game_index: u64) -> Split {
        let bucket = (mix64(mix64(seed) ^ game_index) % 1000) as u16;
        let [train, valid, _] = self.per_mille;
        if bucket < train {
            Split::Train
        } else if bucket < train + valid {
            Split::Valid
        } else {
            Split::Test
        }
    }

    /// Train or valid only, in the ratio of their two weights (the test weight is not used):
    /// the split of games that a `--test-after` date keeps out of the test file. With both
    /// weights 0 every game goes to train.
    pub fn assign_train_valid(&self, seed: u64, game_index: u64) -> Split {
        let [train, valid, _] = self.per_mille;
        let total = u64::from(train) + u64::from(valid);
        if total == 0 {
            return Split::Train;
        }
        if mix64(mix64(seed) ^ game_index) % total < u64::from(train) {
            Split::Train
        } else {
            Split::Valid
        }
    }
}

impl FromStr for SplitRatios {
    type Err = String;

    /// `"90,5,5"` (percent, may be fractional like `"99.5,0.25,0.25"`); must sum to 100.
    fn from_str(text: &str) -> Result<Self, String> {
        let usage = "expected three percentages train,valid,test summing to 100, e.g. 90,5,5";
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() != 3 {
            return Err(format!("'{text}': {usage}"));
        }
        let mut per_mille = [0u16; 3];
        for (slot, part) in per_mille.iter_mut().zip(&parts) {
            let pct: f64 = part
                .parse()
                .map_err(|_| format!("'{part}' is not a number; {usage}"))?;
            let pm = pct * 10.0;
            if !(0.0..=1000.0).contains(&pm) || (pm - pm.round()).abs() > 1e-9 {
                return Err(format!(
                    "'{part}' must be between 0 and 100 in steps of 0.1; {usage}"
                ));
            }
            *slot = pm.round() as u16;
        }
        if per_mille.iter().sum::<u16>() != 1000 {
            return Err(format!(
                "'{text}' sums to {}; {usage}",
                f64::from(per_mille.iter().sum::<u16>()) / 10.0
            ));
        }
        Ok(SplitRatios { per_mille })
    }
}

impl fmt::Display for SplitRatios {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c] = self.per_mille.map(|x| f64::from(x) / 10.0);
        write!(f, "{a},{b},{c}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        assert_eq!("90,5,5".parse::<SplitRatios>(), Ok(SplitRatios::default()));
        assert_eq!(
            "99.5, 0.3, 0.2".parse::<SplitRatios>().map(|r| r.per_mille),
            Ok([995, 3, 2])
        );
        for bad in ["90,5", "90,5,6", "a,5,5", "110,-5,-5", "90.05,4.95,5"] {
            assert!(bad.parse::<SplitRatios>().is_err(), "{bad}");
        }
        assert_eq!(SplitRatios::default().to_string(), "90,5,5");
    }

    #[test]
    fn assignment_is_deterministic_and_proportional() {
        let ratios = SplitRatios::default();
        let mut counts = [0u32; 3];
        for g in 0..20_000u64 {
            let s = ratios.assign(42, g);
            assert_eq!(s, ratios.assign(42, g));
            counts[s as usize] += 1;
        }
        assert!((17_600..18_400).contains(&counts[0]), "{counts:?}");
        assert!((800..1_200).contains(&counts[1]), "{counts:?}");
        assert!((800..1_200).contains(&counts[2]), "{counts:?}");
        // Another seed reshuffles games.
        let moved = (0..1000u64)
            .filter(|&g| ratios.assign(42, g) != ratios.assign(43, g))
            .count();
        assert!(moved > 50, "{moved}");
        let all_train = SplitRatios {
            per_mille: [1000, 0, 0],
        };
        assert!((0..1000).all(|g| all_train.assign(1, g) == Split::Train));
    }

    #[test]
    fn train_valid_assignment_never_gives_test() {
        let ratios = SplitRatios::default();
        let mut counts = [0u32; 3];
        for g in 0..19_000u64 {
            let s = ratios.assign_train_valid(42, g);
            assert_eq!(s, ratios.assign_train_valid(42, g));
            counts[s as usize] += 1;
        }
        // 900 : 50 of 19 000 games expects 18 000 : 1 000.
        assert_eq!(counts[2], 0);
        assert!((17_600..18_400).contains(&counts[0]), "{counts:?}");
        assert!((800..1_200).contains(&counts[1]), "{counts:?}");
        let none = SplitRatios {
            per_mille: [0, 0, 1000],
        };
        assert_eq!(none.assign_train_valid(1, 5), Split::Train);
    }
}
