//! Deep Pink's objective in this crate's sign convention.
//!
//! DERIVATION. `crate::net::mlp` defines f(x) as the score of board x for the side that JUST
//! MOVED into it, and every stored board is seen from its own side to move
//! (`crate::data::triplets::format`). For a triplet with p's mover M:
//! - f(p) scores p for the player who moved into p, i.e. M's opponent;
//! - q (after M's played move) and r (after a random other move) were just moved into by M,
//!   so f(q) and f(r) both score for M.
//!
//! Deep Pink asks that (1) the played move look better to M than the random one,
//! f(q) > f(r), and (2) a position's value not depend on whose view it is, so p for M's
//! opponent is minus q for M: f(p) = −f(q), i.e. f(p) + f(q) = 0. Its loss is
//!
//!   L = −log σ(f(q) − f(r)) − log σ(κ·(f(p) + f(q))) − log σ(−κ·(f(p) + f(q)))
//!
//! The last two terms are minimal (2·log 2) at f(p) + f(q) = 0 and grow like κ·|f(p)+f(q)|;
//! without them the first term alone is met by scaling f up without bound. Every term is
//! computed with `log_sigmoid`, which stays finite for large arguments.

use tch::{Kind, Tensor};

/// Per-triplet loss, [N], from f(p), f(q), f(r) each [N].
pub fn per_triplet(fp: &Tensor, fq: &Tensor, fr: &Tensor, kappa: f64) -> Tensor {
    let ordering = -(fq - fr).log_sigmoid();
    let s = (fp + fq) * kappa;
    let consistency = -s.log_sigmoid() - (-&s).log_sigmoid();
    ordering + consistency
}

/// Mean loss over the batch (the training objective).
pub fn mean(fp: &Tensor, fq: &Tensor, fr: &Tensor, kappa: f64) -> Tensor {
    per_triplet(fp, fq, fr, kappa).mean(Kind::Float)
}

/// Sums over a set of triplets, for validation metrics that are means over many batches.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LossStats {
    pub n: u64,
    pub loss_sum: f64,
    /// Triplets where f(q) > f(r): the played move preferred.
    pub ordered: u64,
    pub abs_sum_pq: f64,
}

impl LossStats {
    pub fn add(&mut self, fp: &Tensor, fq: &Tensor, fr: &Tensor, kappa: f64) {
        self.n += fp.size()[0] as u64;
        self.loss_sum += per_triplet(fp, fq, fr, kappa)
            .sum(Kind::Double)
            .double_value(&[]);
        self.ordered += fq.gt_tensor(fr).sum(Kind::Int64).int64_value(&[]) as u64;
        self.abs_sum_pq += (fp + fq).abs().sum(Kind::Double).double_value(&[]);
    }

    pub fn loss(&self) -> f64 {
        self.loss_sum / self.n.max(1) as f64
    }

    pub fn accuracy(&self) -> f64 {
        self.ordered as f64 / self.n.max(1) as f64
    }

    pub fn mean_abs_pq(&self) -> f64 {
        self.abs_sum_pq / self.n.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f32]) -> Tensor {
        Tensor::from_slice(v)
    }

    fn log_sigmoid(x: f64) -> f64 {
        -(1.0 + (-x).exp()).ln()
    }

    #[test]
    fn matches_hand_computed_values() {
        // Triplet 0: f(p)=0.5, f(q)=-0.5, f(r)=-1.5 → ordering −log σ(1) = 0.313262,
        // consistency at s=0 is 2·log 2 = 1.386294.
        // Triplet 1: f(p)=0.2, f(q)=0.3, f(r)=0.3, κ=2 → s=1: log 2 + (log σ(1) + log σ(−1)).
        let fp = t(&[0.5, 0.2]);
        let fq = t(&[-0.5, 0.3]);
        let fr = t(&[-1.5, 0.3]);
        let got = per_triplet(&fp, &fq, &fr, 2.0);
        let mut v = [0f32; 2];
        got.copy_data(&mut v, 2);
        let e0 = 0.313_261_7 + 2.0 * std::f64::consts::LN_2;
        let e1 = std::f64::consts::LN_2 - log_sigmoid(1.0) - log_sigmoid(-1.0);
        assert!((f64::from(v[0]) - e0).abs() < 1e-5, "{} vs {e0}", v[0]);
        assert!((f64::from(v[1]) - e1).abs() < 1e-5, "{} vs {e1}", v[1]);
        let m = mean(&fp, &fq, &fr, 2.0).double_value(&[]);
        assert!((m - (e0 + e1) / 2.0).abs() < 1e-5);
    }

    #[test]
    fn sign_convention_rewards_the_played_move_and_consistency() {
        let fp = t(&[0.0]);
        let good = per_triplet(&(-&t(&[1.0])), &t(&[1.0]), &t(&[-1.0]), 1.0);
        let bad = per_triplet(&(-&t(&[-1.0])), &t(&[-1.0]), &t(&[1.0]), 1.0);
        assert!(good.double_value(&[0]) < bad.double_value(&[0]));
        let consistent = per_triplet(&fp, &t(&[0.0]), &t(&[0.0]), 10.0);
        let inconsistent = per_triplet(&t(&[1.0]), &t(&[0.0]), &t(&[0.0]), 10.0);
        assert!(consistent.double_value(&[0]) < inconsistent.double_value(&[0]));
    }

    #[test]
    fn stays_finite_for_huge_scores() {
        let big = per_triplet(&t(&[1e6]), &t(&[1e6]), &t(&[-1e6]), 10.0);
        let v = big.double_value(&[0]);
        assert!(v.is_finite() && v > 1e6, "{v}");
    }

    #[test]
    fn stats_count_ordering_and_consistency() {
        let mut s = LossStats::default();
        s.add(
            &t(&[0.5, 0.0, 1.0]),
            &t(&[-0.5, 2.0, 0.0]),
            &t(&[-1.0, 3.0, -1.0]),
            1.0,
        );
        assert_eq!(s.n, 3);
        assert_eq!(s.ordered, 2);
        assert!((s.accuracy() - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.mean_abs_pq() - 1.0).abs() < 1e-6);
        assert!(s.loss() > 0.0);
    }
}
