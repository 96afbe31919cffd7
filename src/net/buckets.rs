//! Output buckets of the perspective form: B output rows instead of one, the row chosen by
//! the number of pieces on the board. This is the one definition of the choice; the
//! libtorch model (`mlp`, `sparse`), the native f32 and int8 heads and the trainer all call
//! or mirror [`output_bucket`], and tests hold each of them to it.
//!
//! WHY. NNUE engines' "material output buckets": a piece on e4 means something different
//! with 30 pieces on the board than with 6, and one output row must weigh it the same in
//! both. With a row per stage of the game, the last layer weighs the same first-layer
//! features differently in the opening and the endgame. It costs nothing in the
//! accumulator (the first layer is shared); the head reads B times the weights, of which
//! it uses one row.

/// The bucket counts a perspective net may have; 1 is the single-output net.
pub const OUTPUT_BUCKETS: &[usize] = &[1, 2, 4, 8];

/// Pieces on a board at most (kings included): the bucket boundaries split 2..=32.
pub const MAX_PIECES: usize = 32;

/// The bucket of a board with `pieces` pieces (kings included, i.e. the number of its
/// active input features, 2..=32) in a net of `buckets` buckets (one of
/// [`OUTPUT_BUCKETS`]): equal stretches of 32 / B piece counts from 2 up, the last bucket
/// also taking the full board. For B = 8: 2–5 → 0, 6–9 → 1, …, 30–32 → 7.
///
/// That is min((pieces − 2) / (32 / B), B − 1), computed with a shift: B is a power of two,
/// and the native head calls this on every evaluation, where two divisions would show.
#[inline(always)]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    debug_assert!(buckets.is_power_of_two() && buckets <= MAX_PIECES);
    let stretch_log2 = MAX_PIECES.trailing_zeros() - buckets.trailing_zeros();
    (pieces.saturating_sub(2) >> stretch_log2).min(buckets - 1)
}

/// Whether `buckets` is an allowed bucket count.
pub fn is_allowed(buckets: i64) -> bool {
    OUTPUT_BUCKETS.iter().any(|&b| b as i64 == buckets)
}

/// The allowed counts in words, for error messages: "1, 2, 4 or 8".
pub fn allowed_words() -> String {
    let names: Vec<String> = OUTPUT_BUCKETS.iter().map(usize::to_string).collect();
    let (last, rest) = names.split_last().expect("not empty");
    format!("{} or {last}", rest.join(", "))
}

/// Boards of a game that captures whenever it can from `start`, one piece fewer at a time:
/// every stage of the game, for the tests of each backend's bucket choice (all of which
/// need libtorch).
#[cfg(all(test, feature = "torch"))]
pub(crate) fn capture_walk(
    start: crate::chess::Position,
    count: usize,
) -> Vec<crate::chess::CompactBoard> {
    let mut pos = start;
    let mut out = vec![pos.compact()];
    while out.len() < count {
        let moves = pos.legal_moves();
        let Some(m) = moves.iter().find(|m| m.is_capture()).or(moves.first()) else {
            break;
        };
        pos = pos.play(m);
        out.push(pos.compact());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_count_maps_into_range_monotonically_and_uses_every_bucket() {
        for &b in OUTPUT_BUCKETS {
            let all: Vec<usize> = (0..=MAX_PIECES).map(|p| output_bucket(p, b)).collect();
            assert!(all.iter().all(|&k| k < b), "B = {b}: {all:?}");
            assert!(all.windows(2).all(|w| w[0] <= w[1]), "B = {b}: {all:?}");
            for k in 0..b {
                assert!(all[2..].contains(&k), "B = {b}: bucket {k} unused");
            }
        }
    }

    #[test]
    fn the_shift_is_the_division() {
        for &b in OUTPUT_BUCKETS {
            for p in 0..=64usize {
                let divided = p.saturating_sub(2) / (MAX_PIECES / b);
                assert_eq!(
                    output_bucket(p, b),
                    divided.min(b - 1),
                    "{p} pieces, B = {b}"
                );
            }
        }
    }

    #[test]
    fn one_bucket_is_always_bucket_zero() {
        assert!((0..=64).all(|p| output_bucket(p, 1) == 0));
    }

    #[test]
    fn the_edges_of_eight_buckets() {
        let b = |p| output_bucket(p, 8);
        assert_eq!([b(0), b(2), b(5), b(6), b(9), b(10)], [0, 0, 0, 1, 1, 2]);
        assert_eq!([b(29), b(30), b(31), b(32)], [6, 7, 7, 7]);
        // Two buckets: up to 17 pieces is the endgame's, 18 and more the opening's.
        assert_eq!([output_bucket(17, 2), output_bucket(18, 2)], [0, 1]);
        assert_eq!([output_bucket(9, 4), output_bucket(10, 4)], [0, 1]);
    }

    #[test]
    fn allowed_counts_in_words() {
        assert_eq!(allowed_words(), "1, 2, 4 or 8");
        assert!(is_allowed(8) && !is_allowed(3) && !is_allowed(16) && !is_allowed(0));
    }
}
