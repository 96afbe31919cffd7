//! Symmetric fuzzy means (Sarimveis, Alexandridis, Tsekouras and Bafas, 2002), the centre
//! selection of the RBF study.
//!
//! Inputs are scaled to [0, 1]. Each dimension is split into `s` triangular fuzzy sets whose
//! centres are the grid values `j / (s − 1)`, `j = 0..s`, so the candidate centres are the
//! `s^N` grid points, spaced `δ = 1 / (s − 1)` apart. A grid point covers a vector when the
//! vector lies in its hypersphere, of radius `δ·√N` (the relative distance of the paper,
//! ‖x − c‖ / (δ√N), is at most 1). One pass over the training vectors: a vector that no
//! selected centre covers adds the grid point nearest to it, which covers it, since that
//! point is at most `δ√N / 2` away. So every training vector ends up covered, and `s` is the
//! only parameter.
//!
//! The non-symmetric variant (Alexandridis, Chondrodima and Sarimveis, 2013) gives every
//! dimension its own number of sets `s_i`, so its own spacing `δ_i = 1 / (s_i − 1)`, and the
//! hypersphere becomes a hyperellipsoid: a grid point covers `x` when
//! `Σ_i ((x_i − c_i) / δ_i)² ≤ N`. With every `s_i = s` that is the symmetric rule. The
//! nearest grid point is within `δ_i / 2` in every dimension, so it still covers the vector
//! that adds it. How the `s_i` are chosen is [`super::fit`]'s business.

/// The selected centres, row-major (`len / n` of them), in the scaled space.
#[derive(Clone, Debug, PartialEq)]
pub struct Centres {
    pub n: usize,
    pub values: Vec<f32>,
}

impl Centres {
    pub fn count(&self) -> usize {
        self.values.len() / self.n.max(1)
    }

    pub fn row(&self, k: usize) -> &[f32] {
        &self.values[k * self.n..(k + 1) * self.n]
    }
}

/// Selection stopped: more centres than the caller allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyCentres {
    pub limit: usize,
    /// Training vectors seen when the limit was passed.
    pub seen: usize,
}

/// The squared radius of a grid point's hypersphere: (δ√N)². The tests' symmetric reference.
#[cfg(test)]
pub fn radius2(s: u32, n: usize) -> f32 {
    let delta = 1.0 / (s as f32 - 1.0);
    delta * delta * n as f32
}

/// The grid point nearest to `x` (clamped to the grid) under the partition `sets` (one
/// number of sets per dimension), written into `out`.
pub fn nearest_grid_point(x: &[f32], sets: &[u32], out: &mut [f32]) {
    for ((o, &v), &s) in out.iter_mut().zip(x).zip(sets) {
        let steps = (s - 1) as f32;
        *o = (v.clamp(0.0, 1.0) * steps).round() / steps;
    }
}

/// `Σ_i w_i (a_i − b_i)²`.
fn weighted_distance2(a: &[f32], b: &[f32], w: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .zip(w)
        .map(|((x, y), w)| w * (x - y) * (x - y))
        .sum()
}

/// Runs symmetric FM over `data` (row-major, `n` values per vector, scaled to [0, 1]) with
/// `s` ≥ 2 sets per dimension, stopping with an error past `max_centres`. The fit runs
/// [`select_centres_nonsymmetric`] with equal sets, which is the same; the tests keep this
/// form for the symmetric rule's worked examples.
#[cfg(test)]
pub fn select_centres(
    data: &[f32],
    n: usize,
    s: u32,
    max_centres: usize,
) -> Result<Centres, TooManyCentres> {
    select_centres_nonsymmetric(data, &vec![s; n], max_centres)
}

/// Runs FM with `sets[i]` ≥ 2 sets in dimension `i` (`n = sets.len()` values per vector of
/// `data`), stopping with an error past `max_centres`.
pub fn select_centres_nonsymmetric(
    data: &[f32],
    sets: &[u32],
    max_centres: usize,
) -> Result<Centres, TooManyCentres> {
    let n = sets.len();
    assert!(
        sets.iter().all(|&s| s >= 2),
        "fuzzy means needs at least 2 sets per dimension"
    );
    assert!(
        n > 0 && data.len().is_multiple_of(n),
        "data of {n}-value vectors"
    );
    // Covered when Σ ((x_i − c_i) / δ_i)² ≤ N, with 1 / δ_i = s_i − 1.
    let w: Vec<f32> = sets.iter().map(|&s| ((s - 1) * (s - 1)) as f32).collect();
    let r2 = n as f32;
    let distance2 = |a: &[f32], b: &[f32]| weighted_distance2(a, b, &w);
    let mut centres = Centres {
        n,
        values: Vec::new(),
    };
    let mut grid = vec![0.0; n];
    // The centre that covered the previous vector is tried first: neighbouring training
    // vectors (positions of one game) are often covered by the same centre.
    let mut last_hit = 0usize;
    for (i, x) in data.chunks_exact(n).enumerate() {
        let count = centres.count();
        let covered = count > 0
            && (distance2(centres.row(last_hit), x) <= r2
                || (0..count).any(|k| {
                    let hit = distance2(centres.row(k), x) <= r2;
                    if hit {
                        last_hit = k;
                    }
                    hit
                }));
        if covered {
            continue;
        }
        if count >= max_centres {
            return Err(TooManyCentres {
                limit: max_centres,
                seen: i,
            });
        }
        nearest_grid_point(x, sets, &mut grid);
        centres.values.extend_from_slice(&grid);
        last_hit = count;
    }
    Ok(centres)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance2(a: &[f32], b: &[f32]) -> f32 {
        weighted_distance2(a, b, &vec![1.0; a.len()])
    }

    /// Whether some centre covers `x` under `sets`.
    fn covered(c: &Centres, x: &[f32], sets: &[u32]) -> bool {
        let w: Vec<f32> = sets.iter().map(|&s| ((s - 1) * (s - 1)) as f32).collect();
        (0..c.count()).any(|k| weighted_distance2(c.row(k), x, &w) <= sets.len() as f32)
    }

    #[test]
    fn a_two_dimensional_example_worked_by_hand() {
        // s = 3: grid values 0, 0.5, 1; δ = 0.5; radius δ√2 ≈ 0.7071 (r² = 0.5).
        assert_eq!(radius2(3, 2), 0.5);
        let data = [
            0.1, 0.1, // no centres yet: adds the nearest grid point (0, 0)
            0.4, 0.3, // ‖(0.4, 0.3)‖² = 0.25 ≤ 0.5: covered by (0, 0)
            0.9, 0.8, // from (0, 0): 1.45 > 0.5; adds (1, 1)
            0.6, 0.6, // from (1, 1): 0.32 ≤ 0.5: covered
            0.1, 0.9, // from (0, 0): 0.82; from (1, 1): 0.82; adds (0, 1)
            0.7, 0.2, // from (0, 0): 0.53; (1, 1): 0.73; (0, 1): 1.13; adds (0.5, 0)
        ];
        let c = select_centres(&data, 2, 3, 100).unwrap();
        assert_eq!(
            c.values,
            vec![0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.5, 0.0],
            "centres (0,0), (1,1), (0,1), (0.5,0)"
        );
    }

    #[test]
    fn a_non_symmetric_example_worked_by_hand() {
        // sets (2, 5): x on {0, 1} (δ = 1), y on {0, 0.25, .., 1} (δ = 0.25); a grid point
        // covers when (Δx / 1)² + (Δy / 0.25)² ≤ 2, an ellipse four times taller than wide.
        let data = [
            0.3, 0.1, // no centres yet: adds (0, 0)
            0.9,
            0.2, // 0.81 + 16 · 0.04 = 1.45 ≤ 2: covered (s = 5 in both would not cover)
            0.2, 0.6, // 0.04 + 16 · 0.36 = 5.8: adds (0, 0.5)
            0.8, 0.7, // from (0, 0.5): 0.64 + 16 · 0.04 = 1.28: covered
            0.4,
            0.95, // from (0, 0.5): 0.16 + 16 · 0.2025 = 3.4; from (0, 0): 14.6; adds (0, 1)
        ];
        let c = select_centres_nonsymmetric(&data, &[2, 5], 100).unwrap();
        assert_eq!(c.values, vec![0.0, 0.0, 0.0, 0.5, 0.0, 1.0]);
        // The symmetric rule is the special case of equal sets.
        assert_eq!(
            select_centres_nonsymmetric(&data, &[5, 5], 100).unwrap(),
            select_centres(&data, 2, 5, 100).unwrap()
        );
        assert_ne!(
            select_centres(&data, 2, 5, 100).unwrap().count(),
            3,
            "the partition matters"
        );
    }

    #[test]
    fn every_training_vector_is_covered_under_non_symmetric_partitions() {
        let mut next = super::super::uniform_stream(777u64);
        let n = 4;
        let data: Vec<f32> = (0..1500 * n).map(|_| next()).collect();
        for sets in [[2, 9, 3, 5], [7, 2, 2, 4], [3, 3, 12, 2]] {
            let c = select_centres_nonsymmetric(&data, &sets, 10_000).unwrap();
            for x in data.chunks_exact(n) {
                assert!(covered(&c, x, &sets), "{sets:?}: {x:?} is not covered");
            }
            // Every centre lies on its dimension's grid.
            for row in c.values.chunks_exact(n) {
                for (v, &s) in row.iter().zip(&sets) {
                    let steps = (s - 1) as f32;
                    assert!(((v * steps).round() - v * steps).abs() < 1e-5, "{row:?}");
                }
            }
        }
        // A finer partition of one dimension never needs fewer centres here.
        let count = |sets: &[u32]| {
            select_centres_nonsymmetric(&data, sets, 10_000)
                .unwrap()
                .count()
        };
        assert!(count(&[3, 3, 3, 3]) <= count(&[3, 3, 3, 8]));
    }

    #[test]
    fn every_training_vector_is_covered() {
        // Pseudo-random vectors in 5 dimensions, for several s.
        let mut next = super::super::uniform_stream(12345u64);
        let n = 5;
        let data: Vec<f32> = (0..2000 * n).map(|_| next()).collect();
        for s in [2, 3, 5, 9] {
            let c = select_centres(&data, n, s, 10_000).unwrap();
            let r2 = radius2(s, n);
            for x in data.chunks_exact(n) {
                let covered = (0..c.count()).any(|k| distance2(c.row(k), x) <= r2);
                assert!(covered, "s = {s}: {x:?} is not covered");
            }
            // Every centre is a grid point.
            let steps = (s - 1) as f32;
            assert!(c
                .values
                .iter()
                .all(|v| ((v * steps).round() - v * steps).abs() < 1e-5));
        }
        // Finer partitions give more centres; s = 2 needs one (its sphere holds the cube).
        let count = |s| select_centres(&data, n, s, 10_000).unwrap().count();
        assert_eq!(count(2), 1);
        assert!(
            count(3) <= count(5) && count(5) <= count(9),
            "{} {} {}",
            count(3),
            count(5),
            count(9)
        );
    }

    #[test]
    fn the_centre_limit_stops_selection() {
        let data = [0.0, 0.0, 1.0, 1.0, 0.0, 1.0];
        let err = select_centres(&data, 2, 9, 2).unwrap_err();
        assert_eq!(err, TooManyCentres { limit: 2, seen: 2 });
    }
}
