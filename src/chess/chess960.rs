//! The 960 start positions of Chess960, by Scharnagl's numbering (518 is the standard
//! start), and double Chess960's: each side's back rank chosen on its own.

use super::{CastlingMode, Position};

/// How many start positions one side's back rank has.
pub const COUNT: u16 = 960;

/// The standard start's number.
pub const STANDARD: u16 = 518;

/// Where the two knights stand among the five squares left after the bishops and the queen
/// (Scharnagl's table, by the number's last digit).
const KNIGHTS: [(usize, usize); 10] = [
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (1, 2),
    (1, 3),
    (1, 4),
    (2, 3),
    (2, 4),
    (3, 4),
];

/// The back rank of start `n` (below 960), file a first, as upper-case piece letters.
pub fn back_rank(n: u16) -> [u8; 8] {
    assert!(n < COUNT, "Chess960 start {n} is not below {COUNT}");
    let mut n = usize::from(n);
    let mut rank = [0u8; 8];
    // The light-squared bishop on b, d, f or h; the dark-squared one on a, c, e or g.
    rank[2 * (n % 4) + 1] = b'B';
    n /= 4;
    rank[2 * (n % 4)] = b'B';
    n /= 4;
    let free = |rank: &[u8; 8]| -> Vec<usize> { (0..8).filter(|&f| rank[f] == 0).collect() };
    let queen = free(&rank)[n % 6];
    rank[queen] = b'Q';
    n /= 6;
    let left = free(&rank);
    let (a, b) = KNIGHTS[n];
    rank[left[a]] = b'N';
    rank[left[b]] = b'N';
    // The three squares left take rook, king, rook, in that order.
    for (f, piece) in free(&rank).into_iter().zip(*b"RKR") {
        rank[f] = piece;
    }
    rank
}

/// The FEN of a start with White's back rank `white` and Black's `black` (the same number for
/// Chess960, two for double Chess960), castling rights in Shredder-FEN letters.
pub fn start_fen(white: u16, black: u16) -> String {
    let (w, b) = (back_rank(white), back_rank(black));
    let rooks = |rank: &[u8; 8]| -> String {
        (0..8)
            .rev()
            .filter(|&f| rank[f] == b'R')
            .map(|f| char::from(b'a' + f as u8))
            .collect()
    };
    format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w {}{} - 0 1",
        String::from_utf8_lossy(&b).to_lowercase(),
        String::from_utf8_lossy(&w),
        rooks(&w).to_uppercase(),
        rooks(&b)
    )
}

/// The start position `white`/`black` in Chess960 mode (castling is king takes rook).
pub fn start(white: u16, black: u16) -> Position {
    Position::from_fen_in(&start_fen(white, black), CastlingMode::Chess960)
        .expect("every Chess960 start is a legal position")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn numbers_follow_scharnagl_with_518_the_standard_start() {
        assert_eq!(&back_rank(STANDARD), b"RNBQKBNR");
        assert_eq!(&back_rank(0), b"BBQNNRKR");
        assert_eq!(&back_rank(959), b"RKRNNQBB");
        assert_eq!(
            start_fen(STANDARD, STANDARD),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
        );
    }

    #[test]
    fn every_start_is_distinct_and_obeys_the_rules() {
        let mut seen = HashSet::new();
        for n in 0..COUNT {
            let rank = back_rank(n);
            assert!(seen.insert(rank), "start {n} repeats another");
            let at = |p: u8| -> Vec<usize> { (0..8).filter(|&f| rank[f] == p).collect() };
            let (b, r, k) = (at(b'B'), at(b'R'), at(b'K'));
            assert_eq!(b.len(), 2);
            assert_ne!(b[0] % 2, b[1] % 2, "start {n}: bishops on one colour");
            assert!(
                r[0] < k[0] && k[0] < r[1],
                "start {n}: the king is not between the rooks"
            );
            assert_eq!((at(b'Q').len(), at(b'N').len()), (1, 2));
        }
        assert_eq!(seen.len(), 960);
    }

    #[test]
    fn a_double_start_castles_each_side_with_its_own_rooks() {
        let pos = start(0, 959);
        assert!(pos.is_chess960());
        // BBQNNRKR: sixteen pawn moves, and the knights of d1 and e1 have two each.
        assert_eq!(pos.legal_moves().len(), 20, "{}", pos.fen());
        let fen = start_fen(0, 959);
        assert!(fen.starts_with("rkrnnqbb/pppppppp"), "{fen}");
        assert!(fen.contains(" HFca "), "{fen}");
    }
}
