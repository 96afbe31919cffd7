//! The RBF net's output layer by linear least squares: the weights w and bias b minimising
//! ‖Φ·w + b − y‖², where Φ holds every training vector's thin-plate-spline activations.
//!
//! The normal equations (ΦᵀΦ + λI) w = Φᵀy are accumulated over row blocks (Φ itself, M × K,
//! would not fit in memory for 64k positions and thousands of centres), with nalgebra's
//! matrix products, then solved by Cholesky. Thin-plate splines are only conditionally
//! positive definite, so ΦᵀΦ can be near-singular; the ridge λ starts tiny relative to its
//! diagonal and grows tenfold until Cholesky succeeds.

use crate::net::rbf::thin_plate;
use nalgebra::{DMatrix, DVector};

/// Rows of Φ built at once.
const BLOCK: usize = 2048;

/// Output weights and bias of a least-squares fit.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputLayer {
    pub weights: Vec<f32>,
    pub bias: f32,
    /// The ridge that made the system solvable, relative to the mean diagonal.
    pub ridge: f64,
}

/// Φ for the rows `x` (row-major, `n` per row) against `centres` (row-major), with a last
/// column of ones for the bias.
pub fn design_block(x: &[f32], centres: &[f32], n: usize) -> DMatrix<f64> {
    let m = x.len() / n;
    let k = centres.len() / n;
    let xm = DMatrix::from_row_slice(m, n, x).map(f64::from);
    let cm = DMatrix::from_row_slice(k, n, centres).map(f64::from);
    // ‖x − c‖² = ‖x‖² + ‖c‖² − 2 x·c, the cross terms in one product.
    let cross = &xm * cm.transpose();
    let xn: Vec<f64> = xm.row_iter().map(|r| r.norm_squared()).collect();
    let cn: Vec<f64> = cm.row_iter().map(|r| r.norm_squared()).collect();
    DMatrix::from_fn(m, k + 1, |i, j| {
        if j == k {
            1.0
        } else {
            thin_plate((xn[i] + cn[j] - 2.0 * cross[(i, j)]).max(0.0))
        }
    })
}

/// Fits the output layer on scaled inputs `x` (row-major, `n` per row) and targets `y`.
pub fn fit_output(x: &[f32], y: &[f32], centres: &[f32], n: usize) -> OutputLayer {
    let k = centres.len() / n;
    let cols = k + 1;
    let mut gram = DMatrix::<f64>::zeros(cols, cols);
    let mut rhs = DVector::<f64>::zeros(cols);
    for (xb, yb) in x.chunks(BLOCK * n).zip(y.chunks(BLOCK)) {
        let phi = design_block(xb, centres, n);
        let yv = DVector::from_iterator(yb.len(), yb.iter().map(|&v| f64::from(v)));
        gram.gemm_tr(1.0, &phi, &phi, 1.0);
        rhs.gemv_tr(1.0, &phi, &yv, 1.0);
    }
    let mean_diag = (gram.trace() / cols as f64).max(1e-300);
    let mut ridge = 1e-10;
    loop {
        let mut a = gram.clone();
        for i in 0..k {
            // The bias is not shrunk.
            a[(i, i)] += ridge * mean_diag;
        }
        if let Some(chol) = a.cholesky() {
            let w = chol.solve(&rhs);
            if w.iter().all(|v| v.is_finite()) {
                return OutputLayer {
                    weights: w.iter().take(k).map(|&v| v as f32).collect(),
                    bias: w[k] as f32,
                    ridge,
                };
            }
        }
        ridge *= 10.0;
        // Past λ = diag the fit is pure shrinkage; the bias column alone is always solvable.
        if ridge > 1.0 {
            a = gram.clone();
            for i in 0..k {
                a[(i, i)] += mean_diag;
            }
            let chol = a
                .cholesky()
                .expect("a dominant diagonal is positive definite");
            let w = chol.solve(&rhs);
            return OutputLayer {
                weights: w.iter().take(k).map(|&v| v as f32).collect(),
                bias: w[k] as f32,
                ridge: 1.0,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_made_of_the_basis_is_recovered() {
        // y = 3 φ(‖x − c0‖) − 2 φ(‖x − c1‖) + 0.5 on 1-D points: the fit finds it exactly.
        let centres = [0.2f32, 0.8];
        let x: Vec<f32> = (0..50).map(|i| i as f32 / 49.0).collect();
        let y: Vec<f32> = x
            .iter()
            .map(|&v| {
                let p = |c: f32| thin_plate(f64::from((v - c) * (v - c)));
                (3.0 * p(0.2) - 2.0 * p(0.8) + 0.5) as f32
            })
            .collect();
        let fit = fit_output(&x, &y, &centres, 1);
        assert!((fit.weights[0] - 3.0).abs() < 1e-3, "{fit:?}");
        assert!((fit.weights[1] + 2.0).abs() < 1e-3, "{fit:?}");
        assert!((fit.bias - 0.5).abs() < 1e-3, "{fit:?}");
    }

    #[test]
    fn blocks_match_one_design_matrix() {
        // More rows than a block: the accumulated fit equals the direct normal equations.
        let n = 2;
        let rows = BLOCK + 37;
        let x: Vec<f32> = (0..rows * n)
            .map(|i| ((i * 7919) % 1000) as f32 / 1000.0)
            .collect();
        let y: Vec<f32> = (0..rows)
            .map(|i| ((i * 104729) % 100) as f32 / 10.0)
            .collect();
        let centres = [0.1f32, 0.2, 0.7, 0.9, 0.5, 0.4];
        let fit = fit_output(&x, &y, &centres, n);
        let phi = design_block(&x, &centres, n);
        let yv = DVector::from_iterator(rows, y.iter().map(|&v| f64::from(v)));
        let direct = (phi.transpose() * &phi)
            .cholesky()
            .unwrap()
            .solve(&(phi.transpose() * yv));
        for (a, b) in fit.weights.iter().zip(direct.iter()) {
            assert!(
                (f64::from(*a) - b).abs() < 1e-3 * b.abs().max(1.0),
                "{a} vs {b}"
            );
        }
    }
}
