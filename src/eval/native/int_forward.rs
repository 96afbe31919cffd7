//! The int8 forward pass (see `quant` for what is integer and why): the same accumulators
//! and views as `forward`'s module comment describes, in i16, and the same stack.

use super::forward::{layers_above, Buffers, Pass, AVX2, AVX512};
use super::int_kernels::{
    activate, add_i16, copy_add_sub2_i16, copy_add_sub_i16, layer_portable, sub_i16,
};
use super::quant::{Body, HeadWeights, QuantNet, HEAD_SCALE, PSQT_SCALE};
use crate::chess::CompactBoard;
use crate::net::mirror::swap_block;
use crate::net::{output_bucket, Form};

/// The i16 accumulators of one board, and the integer piece-square sums.
#[derive(Clone, Debug, Default)]
pub struct IntAccumulator {
    pub own: Vec<i16>,
    pub swp: Vec<i16>,
    pub psqt_own: i32,
    pub psqt_swp: i32,
    /// Pieces on the board, and its block (see `forward::Accumulator`).
    pub pieces: usize,
    pub block: usize,
}

/// Integer updates are exact: a chain of them equals a refresh, so none is ever forced.
const NO_CHAIN_LIMIT: u32 = u32::MAX;

impl QuantNet {
    /// One view's value through the int8 layer and the f32 layers above it.
    #[inline(always)]
    fn mlp_view<const K: u8>(&self, acc: &[i16], s: &mut Buffers) -> f32 {
        let Body::Mlp {
            mid,
            mid_outputs,
            dequant,
            tail,
        } = &self.body
        else {
            unreachable!("mlp_view on a perspective net")
        };
        activate(acc, self.shift, &mut s.act);
        let sums = &mut s.sums[..mid.outputs];
        match K {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: K is AVX512 only inside `run_avx512`, whose caller checked the CPU; the
            // buffers are sized by `widest` rounded up to 64, past the padded layer.
            AVX512 => unsafe { super::int_kernels::layer_avx512(mid, &s.act, sums) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, inside `run_avx2`.
            AVX2 => unsafe { super::int_kernels::layer_avx2(mid, &s.act, sums) },
            _ => layer_portable(mid, &s.act, sums),
        }
        let n = *mid_outputs;
        for (f, &v) in s.deq[..n].iter_mut().zip(&s.sums[..n]) {
            *f = v as f32 * dequant;
        }
        let (a, b, odd) = (&mut s.a[..], &mut s.b[..], &mut s.odd[..]);
        layers_above::<K>(tail, &s.deq[..n], a, b, odd)
    }
}

/// Σ clamp(acc, 0, qa)² · w, exact in i64.
#[inline(always)]
pub fn screlu_dot(qa: f32, acc: &[i16], weights: &[i32]) -> i64 {
    let qa = qa as i64;
    acc.iter()
        .zip(weights)
        .map(|(&x, &w)| {
            let c = i64::from(x).clamp(0, qa);
            c * c * i64::from(w)
        })
        .sum()
}

/// Lanes of [`screlu_dot_f64`]'s partial sums: four AVX2 registers of f64, so that the
/// adds of one lane do not wait on each other.
const F64_LANES: usize = 16;

/// The same sum as `screlu_dot`, taken in f64 where `quant::exact_in_f64` said every term
/// and partial sum is a whole number below 2^53: then no step rounds, the order of the adds
/// does not matter, and the result is the i64 sum's to the bit. Written with separate lanes
/// so that LLVM vectorises it.
#[inline(always)]
pub fn screlu_dot_f64(qa: f32, acc: &[i16], weights: &[f64]) -> i64 {
    let qa = qa as i32;
    // c ≤ i16::MAX, so c² fits i32 (2^30): squared eight lanes at a time, then widened.
    let square = |x: i16| {
        let c = i32::from(x).clamp(0, qa);
        f64::from(c * c)
    };
    let mut lanes = [0f64; F64_LANES];
    let mut a = acc.chunks_exact(F64_LANES);
    let mut w = weights.chunks_exact(F64_LANES);
    for (a, w) in (&mut a).zip(&mut w) {
        for i in 0..F64_LANES {
            lanes[i] += square(a[i]) * w[i];
        }
    }
    let rest: f64 = a
        .remainder()
        .iter()
        .zip(w.remainder())
        .map(|(&x, &w)| square(x) * w)
        .sum();
    (lanes.iter().sum::<f64>() + rest) as i64
}

impl Pass for QuantNet {
    type Acc = IntAccumulator;

    fn new_acc(&self) -> IntAccumulator {
        IntAccumulator {
            own: vec![0; self.hidden],
            swp: vec![0; self.hidden],
            psqt_own: 0,
            psqt_swp: 0,
            pieces: 0,
            block: 0,
        }
    }

    fn widest(&self) -> usize {
        self.widest
    }

    fn max_chain(&self) -> u32 {
        NO_CHAIN_LIMIT
    }

    fn scores_both_views(&self) -> bool {
        self.form != Form::Plain
    }

    #[inline(always)]
    fn breaks(&self, added: &[usize], removed: &[usize]) -> bool {
        self.maps.breaks(added, removed)
    }

    #[inline(always)]
    fn refresh(&self, board: &CompactBoard, acc: &mut IntAccumulator) {
        acc.own.copy_from_slice(&self.first_bias);
        acc.swp.copy_from_slice(&self.first_bias);
        acc.psqt_own = 0;
        acc.psqt_swp = 0;
        let k = self.maps.block(board);
        let mut pieces = 0;
        for f in board.active_features() {
            let (o, s) = (self.maps.own(k, f), self.maps.other(k, f));
            pieces += 1;
            add_i16(&mut acc.own, self.first_column(o));
            add_i16(&mut acc.swp, self.first_column(s));
            if let Some(psqt) = &self.psqt {
                acc.psqt_own += psqt[o];
                acc.psqt_swp += psqt[s];
            }
        }
        acc.pieces = pieces;
        acc.block = k;
    }

    /// As `forward::update`, in integers.
    #[inline(always)]
    fn update(
        &self,
        parent: &IntAccumulator,
        added: &[usize],
        removed: &[usize],
        child: &mut IntAccumulator,
        both: bool,
    ) {
        // A quiet move and a capture (nearly every child) in one pass each, without copying
        // the parent first. The child's own view is the parent's other one (`forward::update`).
        let k = parent.block;
        let col = |f: usize| self.first_column(f);
        let sw = |f: usize| self.maps.other(k, f);
        let ow = |f: usize| self.maps.own(k, f);
        match (added, removed) {
            (&[a], &[r]) => {
                copy_add_sub_i16(&mut child.own, &parent.swp, col(sw(a)), col(sw(r)));
                if both {
                    copy_add_sub_i16(&mut child.swp, &parent.own, col(ow(a)), col(ow(r)));
                }
            }
            (&[a], &[r1, r2]) => {
                copy_add_sub2_i16(
                    &mut child.own,
                    &parent.swp,
                    col(sw(a)),
                    col(sw(r1)),
                    col(sw(r2)),
                );
                if both {
                    copy_add_sub2_i16(
                        &mut child.swp,
                        &parent.own,
                        col(ow(a)),
                        col(ow(r1)),
                        col(ow(r2)),
                    );
                }
            }
            _ => self.update_general(parent, added, removed, child, both),
        }
        child.psqt_own = parent.psqt_swp;
        child.psqt_swp = parent.psqt_own;
        child.pieces = parent.pieces + added.len() - removed.len();
        child.block = swap_block(k);
        if let Some(psqt) = &self.psqt {
            for &g in added {
                child.psqt_own += psqt[sw(g)];
                child.psqt_swp += psqt[ow(g)];
            }
            for &g in removed {
                child.psqt_own -= psqt[sw(g)];
                child.psqt_swp -= psqt[ow(g)];
            }
        }
    }

    /// The score for the side to move: as `forward::score`, f being the output for the side
    /// that just moved.
    #[inline(always)]
    fn score<const K: u8>(&self, acc: &IntAccumulator, s: &mut Buffers) -> f32 {
        let f = match (&self.body, self.form) {
            (
                Body::Perspective {
                    weights,
                    bias,
                    buckets,
                },
                _,
            ) => {
                let bucket = match *buckets {
                    1 => 0,
                    b => output_bucket(acc.pieces, b),
                };
                let width = 2 * self.hidden;
                let row = bucket * width..(bucket + 1) * width;
                let sum = match weights {
                    HeadWeights::F64(w) => {
                        let (w_own, w_swp) = w[row].split_at(self.hidden);
                        screlu_dot_f64(self.qa, &acc.own, w_own)
                            + screlu_dot_f64(self.qa, &acc.swp, w_swp)
                    }
                    HeadWeights::I32(w) => {
                        let (w_own, w_swp) = w[row].split_at(self.hidden);
                        screlu_dot(self.qa, &acc.own, w_own) + screlu_dot(self.qa, &acc.swp, w_swp)
                    }
                };
                let scale = f64::from(self.qa) * f64::from(self.qa) * f64::from(HEAD_SCALE);
                -((sum as f64 / scale) as f32 + bias[bucket])
            }
            (Body::Mlp { .. }, Form::Plain) => self.mlp_view::<K>(&acc.own, s),
            (Body::Mlp { .. }, _) => {
                let own = self.mlp_view::<K>(&acc.own, s);
                let swp = self.mlp_view::<K>(&acc.swp, s);
                let psqt = (acc.psqt_own - acc.psqt_swp) as f32 * (1.0 / PSQT_SCALE);
                (own - swp) + psqt
            }
        };
        -f * self.cp_per_unit
    }
}

impl QuantNet {
    /// Any other update (castling, promotions, boards further apart), accumulators only.
    #[inline(always)]
    fn update_general(
        &self,
        parent: &IntAccumulator,
        added: &[usize],
        removed: &[usize],
        child: &mut IntAccumulator,
        both: bool,
    ) {
        child.own.copy_from_slice(&parent.swp);
        if both {
            child.swp.copy_from_slice(&parent.own);
        }
        let k = parent.block;
        for &g in added {
            add_i16(&mut child.own, self.first_column(self.maps.other(k, g)));
            if both {
                add_i16(&mut child.swp, self.first_column(self.maps.own(k, g)));
            }
        }
        for &g in removed {
            sub_i16(&mut child.own, self.first_column(self.maps.other(k, g)));
            if both {
                sub_i16(&mut child.swp, self.first_column(self.maps.own(k, g)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{screlu_dot, screlu_dot_f64};
    use crate::eval::native::quant::exact_in_f64;

    /// A small deterministic generator (xorshift), so the test needs no seed file.
    fn stream(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    #[test]
    fn the_f64_head_sum_is_the_i64_one_to_the_bit_wherever_it_is_used() {
        // The widest case the f64 path admits: qa of a shipped net, 2 × 256 units, and the
        // largest weight under the bound; sums near 2^53 are where a rounding would show.
        for (qa, hidden) in [
            (1181.0f32, 256usize),
            (2048.0, 512),
            (32767.0, 256),
            (7.0, 19),
        ] {
            let largest = {
                let mut w = i32::MAX;
                while !exact_in_f64(qa, w, hidden) {
                    w = w / 2 + w / 4;
                }
                w
            };
            let mut next = stream(0x9E37_79B9_7F4A_7C15 ^ hidden as u64);
            for pattern in 0..40 {
                let acc: Vec<i16> = (0..hidden)
                    .map(|_| match pattern % 4 {
                        0 => qa as i16, // every unit at the clamp
                        1 => i16::MAX,  // beyond it
                        _ => next() as i16,
                    })
                    .collect();
                let w: Vec<i32> = (0..hidden)
                    .map(|_| match pattern % 3 {
                        0 => largest,
                        1 => -largest,
                        _ => {
                            let span = 2 * u64::from(largest.unsigned_abs()) + 1;
                            ((next() % span) as i64 - i64::from(largest)) as i32
                        }
                    })
                    .collect();
                let w64: Vec<f64> = w.iter().map(|&w| f64::from(w)).collect();
                assert_eq!(
                    screlu_dot_f64(qa, &acc, &w64),
                    screlu_dot(qa, &acc, &w),
                    "qa {qa}, {hidden} units, pattern {pattern}"
                );
            }
        }
    }

    #[test]
    fn a_head_whose_sums_could_pass_2_to_the_53_stays_in_i64() {
        // 256 units at qa 1181 and weights of 2^24: sums up to 2^52.4, still exact.
        assert!(exact_in_f64(1181.0, 1 << 24, 256));
        // Twice the weight passes 2^53: one lost bit would change the score.
        assert!(!exact_in_f64(1181.0, 1 << 25, 256));
        assert!(!exact_in_f64(32767.0, i32::MAX, 512));
        // Where the bound refuses f64, it would round: the i64 sum is needed there.
        let (qa, w) = (32767.0f32, (1 << 20) + 1);
        assert!(!exact_in_f64(qa, w, 512));
        let acc: Vec<i16> = (0..512).map(|i| 32767 - 13 * i as i16).collect();
        let exact = screlu_dot(qa, &acc, &[w; 512]);
        let rounded = screlu_dot_f64(qa, &acc, &[f64::from(w); 512]);
        assert_ne!(exact, rounded, "this sum needs more than 53 bits");
    }
}
