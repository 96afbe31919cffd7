//! Where a self-play game starts: a book position (if a book is given) chosen by the game's
//! seed, then `random_plies` uniformly random legal moves. Different starts are what make
//! self-play games differ at all, since the search itself is deterministic.

use crate::chess::Position;
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

/// The start of game `game` and the keys of the positions before it (for repetitions), or
/// `None` if its random plies ran into a finished game (mate or stalemate).
pub fn start_position(
    book: Option<&Book>,
    random_plies: u32,
    rng: &mut SplitMix64,
) -> Option<(Position, Vec<u64>)> {
    let mut pos = match book {
        Some(book) => book.positions[rng.below(book.positions.len())].clone(),
        None => Position::startpos(),
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
        let a = start_position(None, 8, &mut SplitMix64::for_stream(1, 5)).unwrap();
        let b = start_position(None, 8, &mut SplitMix64::for_stream(1, 5)).unwrap();
        let c = start_position(None, 8, &mut SplitMix64::for_stream(1, 6)).unwrap();
        assert_eq!(a.0.fen(), b.0.fen());
        assert_ne!(a.0.fen(), c.0.fen());
        assert_eq!(a.1.len(), 8);
        assert_eq!(a.1[0], Position::startpos().key());
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
        let (pos, _) = start_position(Some(&book), 0, &mut SplitMix64::new(3)).unwrap();
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
