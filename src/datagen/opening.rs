//! Where a self-play game starts: a Chess960 or double Chess960 position for the share of
//! games asked for, else a book position (if a book is given), chosen by the game's seed;
//! then `random_plies` uniformly random legal moves. Different starts are what make
//! self-play games differ at all, since the search itself is deterministic.

use crate::chess::{chess960, Position};
use crate::data::rng::SplitMix64;
use anyhow::{bail, Context, Result};
use std::path::Path;

/// The start positions of a book: one FEN (or EPD line, whose first four fields are read)
/// a line; `#` starts a comment.
#[derive(Clone, Debug, Default)]
pub struct Book {
    pub positions: Vec<Position>,
}

impl Book {
    pub fn load(path: &Path) -> Result<Book> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the book {}", path.display()))?;
        let mut positions = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line
                .split(';')
                .next()
                .unwrap_or_default()
                .split_whitespace()
                .collect();
            if fields.len() < 4 {
                bail!(
                    "{}:{}: expected a FEN or an EPD line, got '{line}'",
                    path.display(),
                    n + 1
                );
            }
            // EPD lines carry no move counters; FEN lines keep theirs.
            let counters = if fields.len() >= 6 && fields[4].parse::<u32>().is_ok() {
                format!("{} {}", fields[4], fields[5])
            } else {
                "0 1".to_string()
            };
            let fen = format!("{} {counters}", fields[..4].join(" "));
            let pos = Position::from_fen(&fen)
                .with_context(|| format!("{}:{}: not a position", path.display(), n + 1))?;
            positions.push(pos);
        }
        if positions.is_empty() {
            bail!("the book {} holds no positions", path.display());
        }
        Ok(Book { positions })
    }
}

/// Shares of a run's games, in percent, that start from a Chess960 position (both sides
/// the same back rank, one of 960) and from a double Chess960 one (each side its own, one
/// of 921,600), so that the net sees the structures Chess960 players reach.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Variants {
    pub chess960: u32,
    pub double: u32,
}

/// Separates the variant draw's stream from the start's own (any odd constant would do).
const VARIANT_STREAM: u64 = 0x960_0960_0960_0961;

impl Variants {
    /// The back ranks (White's, Black's) that game `index` starts from, or `None` for the
    /// standard start or the book. The draw has a stream of its own, so a game that starts
    /// the standard way is the same game whatever the shares: a run without them makes the
    /// same file as before they existed.
    pub fn draw(&self, seed: u64, index: u64) -> Option<(u16, u16)> {
        if self.chess960 + self.double == 0 {
            return None;
        }
        let mut rng = SplitMix64::for_stream(seed ^ VARIANT_STREAM, index);
        let roll = rng.below(100) as u32;
        let count = usize::from(chess960::COUNT);
        if roll < self.double {
            Some((rng.below(count) as u16, rng.below(count) as u16))
        } else if roll < self.double + self.chess960 {
            let n = rng.below(count) as u16;
            Some((n, n))
        } else {
            None
        }
    }
}

/// The start of a game and the keys of the positions before it (for repetitions), or `None`
/// if its random plies ran into a finished game (mate or stalemate). `variant` (from
/// [`Variants::draw`]) starts it from those back ranks instead of the book.
pub fn start_position(
    book: Option<&Book>,
    variant: Option<(u16, u16)>,
    random_plies: u32,
    rng: &mut SplitMix64,
) -> Option<(Position, Vec<u64>)> {
    let mut pos = match (variant, book) {
        (Some((white, black)), _) => chess960::start(white, black),
        (None, Some(book)) => book.positions[rng.below(book.positions.len())].clone(),
        (None, None) => Position::startpos(),
    };
    let mut keys = Vec::with_capacity(random_plies as usize);
    for _ in 0..random_plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let m = moves[rng.below(moves.len())];
        keys.push(pos.key());
        pos = pos.play(&m);
    }
    if !pos.has_legal_move() {
        return None;
    }
    Some((pos, keys))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_stream_gives_the_same_start_and_another_a_different_one() {
        let a = start_position(None, None, 8, &mut SplitMix64::for_stream(1, 5)).unwrap();
        let b = start_position(None, None, 8, &mut SplitMix64::for_stream(1, 5)).unwrap();
        let c = start_position(None, None, 8, &mut SplitMix64::for_stream(1, 6)).unwrap();
        assert_eq!(a.0.fen(), b.0.fen());
        assert_ne!(a.0.fen(), c.0.fen());
        assert_eq!(a.1.len(), 8);
        assert_eq!(a.1[0], Position::startpos().key());
    }

    #[test]
    fn variants_take_their_share_and_leave_the_standard_games_alone() {
        assert_eq!(Variants::default().draw(7, 3), None);
        let shares = Variants {
            chess960: 30,
            double: 10,
        };
        let draws: Vec<_> = (0..2000).map(|g| shares.draw(7, g)).collect();
        let single = draws.iter().flatten().filter(|(w, b)| w == b).count();
        let double = draws.iter().flatten().filter(|(w, b)| w != b).count();
        assert!(
            (500..700).contains(&single),
            "{single} Chess960 starts of 2000"
        );
        assert!(
            (150..250).contains(&double),
            "{double} double starts of 2000"
        );
        assert!(draws.iter().flatten().all(|&(w, b)| w < 960 && b < 960));
        assert_eq!(
            draws,
            (0..2000).map(|g| shares.draw(7, g)).collect::<Vec<_>>()
        );
        // A Chess960 start, then its random plies, in Chess960 mode.
        let (w, b) = draws.iter().flatten().next().copied().unwrap();
        let (pos, keys) = start_position(None, Some((w, b)), 4, &mut SplitMix64::new(1)).unwrap();
        assert!(pos.is_chess960());
        assert_eq!(keys[0], chess960::start(w, b).key());
    }

    #[test]
    fn a_book_is_read_and_bad_lines_are_named() {
        let dir = std::env::temp_dir().join(format!("cerise-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.epd");
        std::fs::write(
            &good,
            "# two openings\n\
             rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n\
             \n\
             rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n",
        )
        .unwrap();
        let book = Book::load(&good).unwrap();
        assert_eq!(book.positions.len(), 2);
        let (pos, _) = start_position(Some(&book), None, 0, &mut SplitMix64::new(3)).unwrap();
        assert!(book.positions.iter().any(|p| p.fen() == pos.fen()));
        let bad = dir.join("bad.epd");
        std::fs::write(&bad, "rnbqkbnr/pppppppp w\n").unwrap();
        let err = format!("{:#}", Book::load(&bad).unwrap_err());
        assert!(err.contains("bad.epd:1"), "{err}");
        std::fs::write(&bad, "# nothing\n").unwrap();
        let err = format!("{:#}", Book::load(&bad).unwrap_err());
        assert!(err.contains("no positions"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
