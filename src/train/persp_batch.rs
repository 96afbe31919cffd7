//! The inputs of a perspective net's training step (`super::persp_step`), laid out so that
//! the step reads each position's pieces once.
//!
//! WHY. A triplet's children q and r are p after one move, seen from the other side. The
//! perspective form's first layer has both sides' views of every board, and a child's views
//! are its parent's two views swapped ("half-swapped"), plus the two to four features the
//! move changes. So a child costs its changes (about 3 features) instead of its whole board
//! (about 27), on the way forward and on the way back.
//!
//! LAYOUT (`embedding_bag`'s): `p_*` lists each position's active features in its own frame,
//! one bag a position; `d_*` lists, one bag a child (every q, then every r), the features the
//! child has that its half-swapped parent lacks (weight +1) and the ones it lacks that its
//! parent has (weight −1). `tp_*` and `tk_*` hold the same entries grouped by feature, for
//! the first layer's gradient: feature f's entries name the positions (rows of p's
//! gradient) and the children (rows of [q; r]'s) whose bags hold it.
//!
//! MIRRORED NETS (`net::mirror`). Every index is a (block, feature) row, block × 768 +
//! feature, the block being the board's. A child's block is its parent's with the views
//! exchanged unless the move takes a king over the d/e line; such a child's bag removes
//! every feature of its half-swapped parent and adds every one of its own, in its own block
//! (a few dozen entries instead of three, for one child in a hundred or so).

use crate::chess::{CompactBoard, ENCODING_WIDTH};
use crate::net::mirror::{half_swapped_row, mirror_block, swap_block};

/// A step's boards as the perspective step reads them (see the module notes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PerspBoards {
    /// Positions (p boards); with triplets there are 3·n boards in all.
    pub n: usize,
    pub triplets: bool,
    /// The indices are (block, feature) rows of a king-file mirrored net.
    pub mirror: bool,
    pub p_indices: Vec<i64>,
    pub p_offsets: Vec<i64>,
    pub d_indices: Vec<i64>,
    pub d_offsets: Vec<i64>,
    pub d_weights: Vec<f32>,
    /// Pieces on every board, p's then q's then r's (output buckets choose by it).
    pub pieces: Vec<i64>,
    /// Feature f's positions are `tp_rows[tp_offsets[f]..tp_offsets[f + 1]]` (the last
    /// feature's run to the end).
    pub tp_rows: Vec<i64>,
    pub tp_offsets: Vec<i64>,
    /// The same for the children's changes, each with its weight.
    pub tk_rows: Vec<i64>,
    pub tk_offsets: Vec<i64>,
    pub tk_weights: Vec<f32>,
}

impl PerspBoards {
    /// Rows of the first layer's table the indices name: 768, or 4 × 768 mirrored.
    pub fn rows(&self) -> usize {
        rows(self.mirror)
    }

    /// Every board's active features (rows, when mirrored), sorted: p's, then q's, then
    /// r's. What the layout stands for, spelt out (for tests against whole boards).
    pub fn board_features(&self) -> Vec<Vec<i64>> {
        let sorted = |mut v: Vec<i64>| {
            v.sort_unstable();
            v
        };
        let parents: Vec<Vec<i64>> = runs(&self.p_offsets, self.p_indices.len())
            .map(|run| sorted(self.p_indices[run].to_vec()))
            .collect();
        let mut out = parents.clone();
        for (bag, run) in runs(&self.d_offsets, self.d_indices.len()).enumerate() {
            let mut have: Vec<i64> = parents[bag % self.n]
                .iter()
                .map(|&f| half_swapped_row(f as usize) as i64)
                .collect();
            for k in run {
                let f = self.d_indices[k];
                if self.d_weights[k] > 0.0 {
                    have.push(f);
                } else if let Some(at) = have.iter().position(|&x| x == f) {
                    have.remove(at);
                } else {
                    // A change that removes a feature the parent lacks: not a board.
                    have.push(-1 - f);
                }
            }
            out.push(sorted(have));
        }
        out
    }
}

/// `board` seen with the other side to move: ranks flipped, our pieces theirs.
pub fn half_swapped(board: &CompactBoard) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (sq, &code) in board.0.iter().enumerate() {
        if code != 0 {
            // Codes 1–6 are the side to move's pieces, 7–12 the other side's.
            out[sq ^ 56] = if code <= 6 { code + 6 } else { code - 6 };
        }
    }
    out
}

fn feature(code: u8, sq: usize) -> i64 {
    ((usize::from(code) - 1) * 64 + sq) as i64
}

fn rows(mirror: bool) -> usize {
    if mirror {
        4 * ENCODING_WIDTH
    } else {
        ENCODING_WIDTH
    }
}

/// Builds a [`PerspBoards`] one position at a time.
pub struct PerspBuilder {
    out: PerspBoards,
    mirror: bool,
    /// r's changes, appended after q's (kept in `out.d_*`) when the batch is finished.
    r_indices: Vec<i64>,
    r_offsets: Vec<i64>,
    r_weights: Vec<f32>,
    r_pieces: Vec<i64>,
    q_pieces: Vec<i64>,
}

impl PerspBuilder {
    /// `mirror`: for a king-file mirrored net (see the module notes).
    pub fn new(capacity: usize, triplets: bool, mirror: bool) -> Self {
        let kids = if triplets { capacity } else { 0 };
        PerspBuilder {
            mirror,
            out: PerspBoards {
                triplets,
                mirror,
                p_indices: Vec::with_capacity(capacity * 32),
                p_offsets: Vec::with_capacity(capacity),
                d_indices: Vec::with_capacity(kids * 8),
                d_offsets: Vec::with_capacity(2 * kids),
                d_weights: Vec::with_capacity(kids * 8),
                pieces: Vec::with_capacity(capacity + 2 * kids),
                ..PerspBoards::default()
            },
            r_indices: Vec::with_capacity(kids * 4),
            r_offsets: Vec::with_capacity(kids),
            r_weights: Vec::with_capacity(kids * 4),
            r_pieces: Vec::with_capacity(kids),
            q_pieces: Vec::with_capacity(kids),
        }
    }

    /// Adds position `p`, with its children `(q, r)` when the batch has triplets.
    pub fn push(&mut self, p: &CompactBoard, children: Option<(&CompactBoard, &CompactBoard)>) {
        let mirror = self.mirror;
        let block = move |b: &CompactBoard| if mirror { mirror_block(b) } else { 0 };
        let p_block = block(p);
        let o = &mut self.out;
        o.n += 1;
        o.p_offsets.push(o.p_indices.len() as i64);
        let before = o.p_indices.len();
        let base = (p_block * ENCODING_WIDTH) as i64;
        o.p_indices
            .extend(p.active_features().map(|f| base + f as i64));
        let p_pieces = (o.p_indices.len() - before) as i64;
        o.pieces.push(p_pieces);
        let Some((q, r)) = children else {
            return;
        };
        let parent = Half {
            board: half_swapped(p),
            block: swap_block(p_block),
            pieces: p_pieces,
        };
        let (q_block, r_block) = (block(q), block(r));
        self.q_pieces.push(changes(
            &parent,
            q,
            q_block,
            (&mut o.d_indices, &mut o.d_offsets, &mut o.d_weights),
        ));
        self.r_pieces.push(changes(
            &parent,
            r,
            r_block,
            (
                &mut self.r_indices,
                &mut self.r_offsets,
                &mut self.r_weights,
            ),
        ));
    }

    /// The batch, with r's changes after q's and the feature-major index built.
    pub fn finish(self) -> PerspBoards {
        self.finish_with(true)
    }

    /// The batch without the feature-major index (`tp_*`, `tk_*` left empty): the native
    /// step (`super::native_step`) does not read it.
    pub fn finish_host(self) -> PerspBoards {
        self.finish_with(false)
    }

    fn finish_with(mut self, by_features: bool) -> PerspBoards {
        let mut o = self.out;
        if o.triplets {
            let shift = o.d_indices.len() as i64;
            o.d_offsets.extend(self.r_offsets.iter().map(|x| x + shift));
            o.d_indices.append(&mut self.r_indices);
            o.d_weights.append(&mut self.r_weights);
            o.pieces.append(&mut self.q_pieces);
            o.pieces.append(&mut self.r_pieces);
        }
        if !by_features {
            return o;
        }
        let rows = o.rows();
        (o.tp_rows, o.tp_offsets, _) = by_feature(&o.p_indices, &o.p_offsets, None, rows);
        (o.tk_rows, o.tk_offsets, o.tk_weights) =
            by_feature(&o.d_indices, &o.d_offsets, Some(&o.d_weights), rows);
        o
    }
}

/// A position seen from its children's side: its board half-swapped, that board's block
/// and its piece count.
struct Half {
    board: [u8; 64],
    block: usize,
    pieces: i64,
}

/// Appends to `d` the bag of `child`'s changes from its parent seen from its side; returns
/// the child's piece count. A child in another block than that (a king crossed the d/e line
/// in a mirrored net) takes all of its parent's rows away and all of its own in.
fn changes(
    parent: &Half,
    child: &CompactBoard,
    child_block: usize,
    d: (&mut Vec<i64>, &mut Vec<i64>, &mut Vec<f32>),
) -> i64 {
    let (indices, offsets, weights) = d;
    offsets.push(indices.len() as i64);
    let was_base = (parent.block * ENCODING_WIDTH) as i64;
    let now_base = (child_block * ENCODING_WIDTH) as i64;
    let whole = parent.block != child_block;
    let mut pieces = parent.pieces;
    for (sq, (&was, &now)) in parent.board.iter().zip(&child.0).enumerate() {
        if was == now && !whole {
            continue;
        }
        if was != 0 {
            indices.push(was_base + feature(was, sq));
            weights.push(-1.0);
            pieces -= 1;
        }
        if now != 0 {
            indices.push(now_base + feature(now, sq));
            weights.push(1.0);
            pieces += 1;
        }
    }
    pieces
}

/// The entries of a bag layout grouped by feature: for each feature (in order) the bags that
/// hold it, ascending, with their weights (a stable counting sort). Returns (bags, offsets,
/// weights); the weights are empty without `weights`.
fn by_feature(
    indices: &[i64],
    offsets: &[i64],
    weights: Option<&[f32]>,
    rows: usize,
) -> (Vec<i64>, Vec<i64>, Vec<f32>) {
    let mut next = vec![0i64; rows + 1];
    for &f in indices {
        next[f as usize + 1] += 1;
    }
    for f in 0..rows {
        next[f + 1] += next[f];
    }
    let starts = next[..rows].to_vec();
    let mut bags = vec![0i64; indices.len()];
    let mut out_weights = vec![0f32; if weights.is_some() { indices.len() } else { 0 }];
    for (bag, run) in runs(offsets, indices.len()).enumerate() {
        for k in run {
            let at = &mut next[indices[k] as usize];
            bags[*at as usize] = bag as i64;
            if let Some(w) = weights {
                out_weights[*at as usize] = w[k];
            }
            *at += 1;
        }
    }
    (bags, starts, out_weights)
}

/// The index range of each bag of an `embedding_bag` layout.
pub fn runs(offsets: &[i64], len: usize) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    offsets.iter().enumerate().map(move |(i, &start)| {
        let end = offsets.get(i + 1).map_or(len, |&e| e as usize);
        start as usize..end
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    fn sorted(mut v: Vec<i64>) -> Vec<i64> {
        v.sort_unstable();
        v
    }

    fn features(b: &CompactBoard) -> Vec<i64> {
        sorted(b.active_features().map(|f| f as i64).collect())
    }

    /// The batch of each (FEN, q's move, r's move), and its (p, q, r) boards.
    fn built(
        cases: &[(&str, &str, &str)],
        mirror: bool,
    ) -> (PerspBoards, Vec<(CompactBoard, CompactBoard, CompactBoard)>) {
        let mut b = PerspBuilder::new(cases.len(), true, mirror);
        let mut boards = Vec::new();
        for (fen, m1, m2) in cases {
            let pos = Position::from_fen(fen).expect("valid fen");
            let child = |uci: &str| {
                let m = pos.parse_uci_move(uci).expect("legal move");
                pos.play(&m).compact()
            };
            let (p, q, r) = (pos.compact(), child(m1), child(m2));
            b.push(&p, Some((&q, &r)));
            boards.push((p, q, r));
        }
        (b.finish(), boards)
    }

    /// A child's features are its parent's, swapped, with the bag's changes applied: on
    /// quiet moves, captures, castling, en passant and promotion.
    #[test]
    fn children_are_their_parent_swapped_plus_their_changes() {
        let cases = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "g1f3",
                "e2e4",
            ),
            ("r3k2r/8/8/8/3pP3/8/8/R3K2R b KQkq e3 0 1", "e8c8", "d4e3"),
            ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", "e1d2"),
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "a1a8"),
        ];
        let (s, want) = built(&cases, false);
        let n = cases.len();
        assert_eq!(s.n, n);
        assert_eq!(s.d_offsets.len(), 2 * n);
        let all = s.board_features();
        for (i, (p, q, r)) in want.iter().enumerate() {
            for (k, board) in [p, q, r].into_iter().enumerate() {
                assert_eq!(all[k * n + i], features(board), "case {i}, board {k}");
                assert_eq!(s.pieces[k * n + i], features(board).len() as i64);
            }
        }
    }

    /// The feature-major indexes hold every entry once, with its bag and weight.
    #[test]
    fn by_feature_lists_every_entry_by_feature() {
        let boards = crate::chess::sample_boards(6);
        let mut b = PerspBuilder::new(3, true, false);
        for t in boards.chunks_exact(3) {
            b.push(&t[0], Some((&t[1], &t[2])));
        }
        let s = b.finish();
        let grouped = |rows: &[i64], offsets: &[i64], weights: &[f32]| {
            let mut out = Vec::new();
            for (f, run) in runs(offsets, rows.len()).enumerate() {
                assert!(rows[run.clone()].windows(2).all(|w| w[0] <= w[1]));
                for k in run {
                    out.push((f as i64, rows[k], weights.get(k).map_or(1, |&w| w as i64)));
                }
            }
            out.sort_unstable();
            out
        };
        let direct = |indices: &[i64], offsets: &[i64], weights: &[f32]| {
            let mut out = Vec::new();
            for (bag, run) in runs(offsets, indices.len()).enumerate() {
                for k in run {
                    let w = weights.get(k).map_or(1, |&w| w as i64);
                    out.push((indices[k], bag as i64, w));
                }
            }
            out.sort_unstable();
            out
        };
        assert_eq!(
            grouped(&s.tp_rows, &s.tp_offsets, &[]),
            direct(&s.p_indices, &s.p_offsets, &[])
        );
        assert_eq!(
            grouped(&s.tk_rows, &s.tk_offsets, &s.tk_weights),
            direct(&s.d_indices, &s.d_offsets, &s.d_weights)
        );
        assert_eq!(s.tp_offsets.len(), ENCODING_WIDTH);
    }

    /// Mirrored: every board's rows are its features in its block, children whose king
    /// crosses the d/e line (castling long, Kd2-e3, Ke8-d7) among them.
    #[test]
    fn a_mirrored_layout_names_each_board_s_features_in_its_block() {
        let cases = [
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1", "e1g1"),
            ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8", "a8a1"),
            ("4k3/8/8/8/8/8/3K4/8 w - - 0 1", "d2e3", "d2c3"),
            ("4k3/8/8/8/8/8/3K4/8 b - - 0 1", "e8d7", "e8f7"),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "g1f3",
                "e2e4",
            ),
        ];
        let (s, want) = built(&cases, true);
        let n = cases.len();
        assert_eq!(s.rows(), 4 * ENCODING_WIDTH);
        assert_eq!(s.tp_offsets.len(), 4 * ENCODING_WIDTH);
        let all = s.board_features();
        let mut blocks = std::collections::BTreeSet::new();
        for (i, (p, q, r)) in want.iter().enumerate() {
            for (k, board) in [p, q, r].into_iter().enumerate() {
                let block = mirror_block(board);
                blocks.insert(block);
                let rows: Vec<i64> = features(board)
                    .iter()
                    .map(|f| f + (block * ENCODING_WIDTH) as i64)
                    .collect();
                assert_eq!(all[k * n + i], rows, "case {i}, board {k}");
                assert_eq!(s.pieces[k * n + i], features(board).len() as i64);
            }
        }
        assert_eq!(blocks.len(), 4, "every block: {blocks:?}");
        // A crossing child's bag is long (the whole board out and in), a quiet one's short.
        let bag_len = |k: usize| {
            let end = s
                .d_offsets
                .get(k + 1)
                .map_or(s.d_indices.len() as i64, |&e| e);
            (end - s.d_offsets[k]) as usize
        };
        let (p0, q0) = (&want[0].0, &want[0].1);
        assert_eq!(
            bag_len(0),
            features(p0).len() + features(q0).len(),
            "castling long crosses: the whole board out and in"
        );
        assert!(bag_len(n) <= 4, "castling short does not: {}", bag_len(n));
    }
}
