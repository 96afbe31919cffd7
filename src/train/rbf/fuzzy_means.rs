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

/// The squared radius of a grid point's hypersphere: (δ√N)².
pub fn radius2(s: u32, n: usize) -> f32 {
    let delta = 1.0 / (s as f32 - 1.0);
    delta * delta * n as f32
}

/// The grid point nearest to `x` (clamped to the grid), written into `out`.
pub fn nearest_grid_point(x: &[f32], s: u32, out: &mut [f32]) {
    let steps = (s - 1) as f32;
    for (o, &v) in out.iter_mut().zip(x) {
        *o = (v.clamp(0.0, 1.0) * steps).round() / steps;
    }
}

fn distance2(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// Runs symmetric FM over `data` (row-major, `n` values per vector, scaled to [0, 1]) with
/// `s` ≥ 2 sets per dimension, stopping with an error past `max_centres`.
pub fn select_centres(
    data: &[f32],
    n: usize,
    s: u32,
    max_centres: usize,
) -> Result<Centres, TooManyCentres> {
    assert!(s >= 2, "fuzzy means needs at least 2 sets per dimension");
    assert!(
        n > 0 && data.len().is_multiple_of(n),
        "data of {n}-value vectors"
    );
    let r2 = radius2(s, n);
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
        nearest_grid_point(x, s, &mut grid);
        centres.values.extend_from_slice(&grid);
        last_hit = count;
    }
    Ok(centres)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn every_training_vector_is_covered() {
        // Pseudo-random vectors in 5 dimensions, for several s.
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
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
