//! PGN `Date` tags (`YYYY.MM.DD`, any part may be `??`) and the cutoff of a later-games test
//! set (`cerise data positions --test-after`).
//!
//! A partial date stands for a range: `1984.??.??` is any day of 1984. A game counts as on or
//! after a cutoff only if its EARLIEST possible day is, so a test set built this way holds no
//! game that might have been played before the cutoff.

use std::fmt;
use std::str::FromStr;

/// A game's date as far as its tag tells it. The year is always known (otherwise there is no
/// date at all); an unknown month also makes the day unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PgnDate {
    pub year: u16,
    pub month: Option<u8>,
    pub day: Option<u8>,
}

impl PgnDate {
    /// Parses a tag value; `None` for an unknown year (`????.??.??`) or anything unparsable.
    /// Accepts `.` or `-` between the parts, and a year alone (`1984`).
    pub fn parse(text: &str) -> Option<PgnDate> {
        let mut parts = text.trim().split(['.', '-']);
        let year: u16 = parts.next()?.parse().ok()?;
        let part = |p: Option<&str>, max: u8| -> Result<Option<u8>, ()> {
            match p {
                None => Ok(None),
                Some(s) if s.chars().all(|c| c == '?') => Ok(None),
                Some(s) => match s.parse::<u8>() {
                    Ok(v) if (1..=max).contains(&v) => Ok(Some(v)),
                    _ => Err(()),
                },
            }
        };
        let month = part(parts.next(), 12).ok()?;
        let day = part(parts.next(), 31).ok()?;
        if parts.next().is_some() || year == 0 {
            return None;
        }
        Some(PgnDate {
            year,
            month,
            day: month.and(day),
        })
    }

    /// The earliest day the tag allows, as the number `YYYYMMDD`.
    pub fn earliest(self) -> u32 {
        Self::number(self.year, self.month.unwrap_or(1), self.day.unwrap_or(1))
    }

    /// `true` when every day the tag allows is on or after `cutoff`.
    pub fn is_on_or_after(self, cutoff: Cutoff) -> bool {
        self.earliest() >= cutoff.0
    }

    fn number(year: u16, month: u8, day: u8) -> u32 {
        u32::from(year) * 10_000 + u32::from(month) * 100 + u32::from(day)
    }
}

/// A complete date `YYYY.MM.DD` used as a cutoff, stored as the number `YYYYMMDD` (this is
/// also how file headers record it; 0 means "no cutoff").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cutoff(pub u32);

impl Cutoff {
    /// From a header's `YYYYMMDD` number; `None` for 0.
    pub fn from_number(n: u32) -> Option<Cutoff> {
        (n != 0).then_some(Cutoff(n))
    }
}

impl FromStr for Cutoff {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match PgnDate::parse(text) {
            Some(PgnDate {
                year,
                month: Some(month),
                day: Some(day),
            }) => Ok(Cutoff(PgnDate::number(year, month, day))),
            _ => Err(format!(
                "'{text}' is not a complete date; use YYYY.MM.DD, e.g. 2015.01.01"
            )),
        }
    }
}

impl fmt::Display for Cutoff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        write!(f, "{:04}.{:02}.{:02}", n / 10_000, n / 100 % 100, n % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_full_partial_and_unknown_dates() {
        assert_eq!(
            PgnDate::parse("2014.07.09"),
            Some(PgnDate {
                year: 2014,
                month: Some(7),
                day: Some(9)
            })
        );
        let partial = PgnDate::parse("1984.??.??").expect("year known");
        assert_eq!((partial.month, partial.day), (None, None));
        assert_eq!(partial.earliest(), 19840101);
        assert_eq!(PgnDate::parse("1999").map(|d| d.earliest()), Some(19990101));
        // A day without a month is no more precise than the year.
        assert_eq!(PgnDate::parse("2001.??.15").and_then(|d| d.day), None);
        for bad in [
            "????.??.??",
            "",
            "19x4.01.01",
            "2001.13.01",
            "2001.01.32",
            "1.2.3.4",
        ] {
            assert_eq!(PgnDate::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn cutoff_compares_earliest_day() {
        let cut: Cutoff = "2015.01.01".parse().expect("complete date");
        assert_eq!(cut, Cutoff(20150101));
        assert_eq!(cut.to_string(), "2015.01.01");
        assert_eq!("2015-06-30".parse::<Cutoff>(), Ok(Cutoff(20150630)));
        let on = |s: &str| PgnDate::parse(s).expect("valid").is_on_or_after(cut);
        assert!(on("2015.01.01") && on("2016.??.??") && on("2015.03.??"));
        assert!(!on("2014.12.31") && !on("2014.??.??"));
        // 2015 with unknown month may be 2015.01.01 itself, so it counts; a cutoff inside the
        // year does not take a whole-year date.
        let mid: Cutoff = "2015.06.01".parse().expect("complete date");
        assert!(!PgnDate::parse("2015.??.??").unwrap().is_on_or_after(mid));
        for bad in ["2015", "2015.??.01", "2015.02", "soon"] {
            assert!(bad.parse::<Cutoff>().is_err(), "{bad}");
        }
        assert_eq!(Cutoff::from_number(0), None);
    }
}
