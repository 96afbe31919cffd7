//! The int8 form of a native net, quantised at load from the same f32 `.safetensors` file
//! (no second file format).
//!
//! WHAT IS INTEGER. For the MLP forms (plain and antisymmetric, at least one hidden layer
//! above the first):
//! - the first layer: i16 weights and accumulators at scale `qa` (a power of two), updated
//!   incrementally with exact integer adds, so no chain of updates drifts from a refresh;
//! - its ReLU: the accumulator, rounded and shifted right by `shift`, clamped to 0..=127 (u8);
//! - the next layer: i8 weights at scale `qb`, i32 sums (see `int_kernels`);
//! - the layers after that, and the piece-square term, from those exact integers in f32 (for
//!   `narrow-as` that is one 32-wide dot product): cheap, and the same bits on every CPU,
//!   since the f32 code is (see `kernels`).
//!
//! For the perspective form: i16 accumulators at scale `qa`, the squared clipped ReLU in
//! integers (clamp(acc, 0, qa)², exact in i64) against i32 output weights, one row per
//! output bucket; the row is chosen by the board's piece count, as in f32. Where every sum
//! stays below 2^53 (every shipped net: see [`exact_in_f64`]) the head takes the same whole
//! numbers in f64, which is exact there and far faster on CPUs without a 64-bit multiply.
//!
//! THE SCALES, AND WHY.
//! - `qa`: the largest scale (see below: a power of two, or for the perspective form any
//!   whole number) for which every board's accumulator fits i16, with 33 units spare for
//!   rounding: |acc_j| ≤ |b_j| + the largest sum of |W[f][j]| over the
//!   features a board can light. Every board the engine scores is a legal position's: one
//!   piece a square, no pawn on a back rank, and per colour one king and at most 15 other
//!   pieces (pawns only ever turn into pieces); every view maps squares one to one, pawns to
//!   pawns, kings to kings and one colour's planes to one colour's. So for each unit j the
//!   smaller of two sums bounds it: the 32 largest, over squares, of the square's largest
//!   |W| among its pieces; and, per colour, the king's largest |W| plus the 15 largest, over
//!   squares, of the square's largest |W| among that colour's other pieces. (Summing the 32
//!   largest of all 768 features instead counted a unit's strongest square up to 12 times:
//!   generation 17's bound then read 32.0, not 27.7, and `qa` fell from 1024 to 512,
//!   doubling the int8 error; generation 18's reads 30.6, 35.0 by squares alone.) For the
//!   shipped `narrow-as` nets the bound is about 13, so `qa` = 2048: the accumulator is
//!   exact to 0.0005, far finer than the activation step below; the perspective nets'
//!   bounds are 13–31. The MLP forms need `qa` a power of two (the ReLU shifts the
//!   accumulator right); the perspective form does not (its head clamps at `qa` and divides
//!   by `qa`²), so there `qa` is the largest whole number that fits: 1,181 for generation
//!   17, where the power of two was 1024, and no halving of precision when a bound passes
//!   a power of two.
//! - `shift`: sets the clip of the ReLU at 127 · 2^shift / `qa`. The f32 nets were trained
//!   with an unclipped ReLU, so the clip must lie above the activations that real boards
//!   give: it is the smallest that covers every activation over [`CALIBRATION_PLIES`]
//!   positions of a fixed pseudo-random walk of games. On 5,387 EPD positions (WAC, STS,
//!   …) the default net's largest first-layer activation was 3.48 (99.9th percentile 2.07);
//!   its clip comes out at 3.97, a step of 0.031.
//! - `qb`: 127 / the largest |weight| of the layer, so the weights use the whole i8 range.
//!
//! The error against f32 is measured by `cerise net compare --precision int8` on real game
//! positions; the bound is tested in `tests.rs`.

use super::forward::{refresh, Accumulator};
use super::int_kernels::{Int8Layer, ACT_MAX, MAX_SHIFT};
use super::weights::{Layer, NativeNet};
use crate::chess::{Position, ENCODING_WIDTH};
use crate::net::{Form, NetError, ViewMaps};

/// Positions of the calibration walk that sets the activation clip.
pub const CALIBRATION_PLIES: usize = 4096;
/// Scale of the integer piece-square term.
pub const PSQT_SCALE: f32 = 65536.0;
/// Scale of the perspective head's output weights.
pub const HEAD_SCALE: f32 = 65536.0;

#[derive(Clone, Debug)]
pub struct QuantNet {
    pub form: Form,
    pub hidden: usize,
    /// First layer, `[768][hidden]`, at scale `qa`.
    pub first: Vec<i16>,
    pub first_bias: Vec<i16>,
    /// Antisymmetric form: the piece-square term at [`PSQT_SCALE`].
    pub psqt: Option<Vec<i32>>,
    /// What each view reads (see `NativeNet::maps`).
    pub maps: ViewMaps,
    pub qa: f32,
    pub shift: u32,
    pub body: Body,
    pub cp_per_unit: f32,
    /// Widest f32 layer output, for scratch buffers.
    pub widest: usize,
}

#[derive(Clone, Debug)]
pub enum Body {
    /// The first hidden layer in int8, then the rest in f32 (the last has one output).
    Mlp {
        mid: Int8Layer,
        /// The true outputs of `mid` (it is padded).
        mid_outputs: usize,
        /// f32 value of one unit of `mid`'s sums.
        dequant: f32,
        tail: Vec<Layer>,
    },
    /// Perspective head: per output bucket, weights for [own; swp] at [`HEAD_SCALE`]
    /// (`[buckets][2 · hidden]`) and the bias.
    Perspective {
        weights: HeadWeights,
        bias: Vec<f32>,
        buckets: usize,
    },
}

/// The perspective head's whole-number weights, held once, in the form its sum is taken in:
/// chosen when the net is loaded, by [`exact_in_f64`].
#[derive(Clone, Debug)]
pub enum HeadWeights {
    /// Every term and partial sum is exact in f64, which multiplies several lanes at once.
    F64(Vec<f64>),
    /// A net past that bound sums in i64.
    I32(Vec<i32>),
}

/// Whether one view's head sum, Σ clamp(acc, 0, qa)² · w over `hidden` units with every
/// |w| ≤ `largest`, can be taken in f64 with no rounding: every term and every partial sum
/// is then a whole number below 2^53, so the f64 sum equals the i64 one in any order. It is
/// worth having because x86 has no 64-bit multiply before AVX-512 DQ: LLVM emulates the
/// i64 one with three 32-bit multiplies a lane, and that was over half of an int8
/// evaluation's time on an AVX2 CPU, while f64 multiplies four lanes in one instruction.
pub fn exact_in_f64(qa: f32, largest: i32, hidden: usize) -> bool {
    let qa = f64::from(qa);
    qa * qa * f64::from(largest.unsigned_abs()) * (hidden as f64) < 9_007_199_254_740_992.0
}

impl QuantNet {
    pub fn from_native(net: &NativeNet) -> Result<Self, NetError> {
        let refuse = |why: &str| {
            Err(NetError::BadConfig(format!(
                "Precision int8: {why}; use Precision fp32 for this net"
            )))
        };
        let hidden = net.hidden;
        let bound = accumulator_bound(net);
        let qa = if net.form == Form::Perspective {
            // Its head only clamps at qa and divides by qa² (no shift), so any whole qa
            // serves: the largest that fits, up to twice as fine as a power of two.
            ((32767.0 - 33.0) / bound).floor().min(65536.0) as f32
        } else {
            let mut qa = 1.0f32;
            while f64::from(qa) * 2.0 * bound + 33.0 <= 32767.0 && qa < 65536.0 {
                qa *= 2.0;
            }
            while f64::from(qa) * bound + 33.0 > 32767.0 && qa > 1.0 / 1024.0 {
                qa /= 2.0;
            }
            qa
        };
        if qa < 16.0 {
            return refuse(&format!(
                "the first layer's sums reach {bound:.0}, too large for i16 accumulators"
            ));
        }
        let q16 = |v: f32| (v * qa).round() as i16;
        let first: Vec<i16> = net.first.iter().map(|&w| q16(w)).collect();
        let first_bias: Vec<i16> = net.first_bias.iter().map(|&b| q16(b)).collect();
        let psqt = net
            .psqt
            .as_ref()
            .map(|p| p.iter().map(|&v| (v * PSQT_SCALE).round() as i32).collect());
        let (body, shift) = match net.form {
            Form::Perspective => {
                // Every bucket's row must fit: the i32 weights, and the i64 sum of a whole
                // row of clamp(acc, 0, qa)² · w.
                let largest = net
                    .head
                    .iter()
                    .fold(0f64, |m, &w| m.max(f64::from(w.abs())));
                let weight = largest * f64::from(HEAD_SCALE);
                let sum = weight * f64::from(qa) * f64::from(qa) * (2 * hidden) as f64;
                if weight >= f64::from(i32::MAX) || sum >= i64::MAX as f64 / 2.0 {
                    return refuse(&format!(
                        "an output weight of {largest:.0} is too large for the integer head"
                    ));
                }
                let whole: Vec<i32> = net
                    .head
                    .iter()
                    .map(|&w| (w * HEAD_SCALE).round() as i32)
                    .collect();
                let widest = whole.iter().map(|w| w.saturating_abs()).max().unwrap_or(0);
                let weights = if exact_in_f64(qa, widest, hidden) {
                    HeadWeights::F64(whole.iter().map(|&w| f64::from(w)).collect())
                } else {
                    HeadWeights::I32(whole)
                };
                let body = Body::Perspective {
                    weights,
                    bias: net.upper[0].bias.clone(),
                    buckets: net.buckets,
                };
                (body, 0)
            }
            Form::Plain | Form::Antisym => {
                if net.upper.len() < 2 {
                    return refuse("the net has no hidden layer above the first");
                }
                let top = calibration_max(net);
                let mut shift = 0u32;
                while (ACT_MAX << shift) as f32 / qa < top && shift < MAX_SHIFT {
                    shift += 1;
                }
                let act_scale = qa / (1u32 << shift) as f32; // activation units per f32 unit
                let layer = &net.upper[0];
                let largest = layer.columns.iter().fold(0f32, |m, w| m.max(w.abs()));
                let qb = if largest > 0.0 { 127.0 / largest } else { 1.0 };
                let columns: Vec<i8> = layer
                    .columns
                    .iter()
                    .map(|&w| (w * qb).round().clamp(-127.0, 127.0) as i8)
                    .collect();
                let bias: Vec<i32> = layer
                    .bias
                    .iter()
                    .map(|&b| (b * qb * act_scale).round() as i32)
                    .collect();
                let mid = Int8Layer::new(layer.inputs, layer.outputs, &columns, &bias);
                (
                    Body::Mlp {
                        mid,
                        mid_outputs: layer.outputs,
                        dequant: 1.0 / (qb * act_scale),
                        tail: net.upper[1..].to_vec(),
                    },
                    shift,
                )
            }
        };
        Ok(QuantNet {
            form: net.form,
            hidden,
            first,
            first_bias,
            psqt,
            maps: net.maps.clone(),
            qa,
            shift,
            body,
            cp_per_unit: net.cp_per_unit,
            widest: net.widest.max(hidden),
        })
    }

    /// The first-layer column of feature `f`.
    #[inline(always)]
    pub fn first_column(&self, f: usize) -> &[i16] {
        &self.first[f * self.hidden..(f + 1) * self.hidden]
    }

    /// The activation clip in f32 units (MLP forms), for the record.
    pub fn clip(&self) -> f32 {
        (ACT_MAX << self.shift) as f32 / self.qa
    }

    /// Describes the scales, for `eval` and `net compare`.
    pub fn describe(&self) -> String {
        match &self.body {
            Body::Mlp { .. } => format!(
                "int8: i16 accumulators ×{}, ReLU clipped at {:.2} in 127 steps, i8 weights",
                self.qa,
                self.clip()
            ),
            Body::Perspective { buckets: 1, .. } => {
                format!("int: i16 accumulators ×{}, integer SCReLU head", self.qa)
            }
            Body::Perspective { buckets, .. } => format!(
                "int: i16 accumulators ×{}, integer SCReLU head ×{buckets} output buckets",
                self.qa
            ),
        }
    }
}

/// The largest |first-layer sum| any legal board can give, over units: see the module notes.
fn accumulator_bound(net: &NativeNet) -> f64 {
    const SQUARES: usize = 64;
    // Planes: the side to move's pawn, knight, bishop, rook, queen and king, then the other
    // side's; a view's map keeps each plane's kind and colour.
    const PIECES: usize = 6;
    const KING: usize = 5;
    const _: () = assert!(2 * PIECES * SQUARES == ENCODING_WIDTH);
    let mut worst = 0f64;
    for j in 0..net.hidden {
        let weight = |plane: usize, sq: usize| -> f64 {
            let pawn = plane == 0 || plane == PIECES;
            let pawn_on_back_rank = pawn && matches!(sq / 8, 0 | 7);
            if pawn_on_back_rank {
                0.0
            } else {
                f64::from(net.first[(plane * SQUARES + sq) * net.hidden + j].abs())
            }
        };
        let largest = |planes: std::ops::Range<usize>, sq: usize| {
            planes.map(|p| weight(p, sq)).fold(0f64, f64::max)
        };
        let top = |mut v: Vec<f64>, n: usize| -> f64 {
            v.sort_by(|a, b| b.total_cmp(a));
            v[..n].iter().sum()
        };
        let by_square = top(
            (0..SQUARES).map(|s| largest(0..2 * PIECES, s)).collect(),
            32,
        );
        let by_colour: f64 = [0, PIECES]
            .iter()
            .map(|&c| {
                let king = (0..SQUARES)
                    .map(|s| weight(c + KING, s))
                    .fold(0f64, f64::max);
                king + top((0..SQUARES).map(|s| largest(c..c + KING, s)).collect(), 15)
            })
            .sum();
        let bias = f64::from(net.first_bias[j].abs());
        worst = worst.max(bias + by_square.min(by_colour));
    }
    worst
}

/// The largest first-layer activation (either view) over a fixed walk of pseudo-random
/// games: the clip must lie above what real play gives.
fn calibration_max(net: &NativeNet) -> f32 {
    let mut top = 0f32;
    calibration_walk(net, |acc| {
        top = acc.own.iter().chain(&acc.swp).fold(top, |m, &v| m.max(v));
    });
    top
}

/// Hands `visit` the first-layer accumulator of every position of the calibration walk: a
/// fixed sequence of pseudo-random games of `CALIBRATION_PLIES` positions in all, each
/// restarting from the start position when the last ends.
fn calibration_walk(net: &NativeNet, mut visit: impl FnMut(&Accumulator)) {
    let mut acc = Accumulator::new(net);
    let mut pos = Position::startpos();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..CALIBRATION_PLIES {
        refresh(net, &pos.compact(), &mut acc);
        visit(&acc);
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.halfmoves() >= 100 {
            pos = Position::startpos();
            continue;
        }
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        pos = pos.play(&moves[(state >> 33) as usize % moves.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_net() -> NativeNet {
        let (file, _) = crate::eval::embedded::net().expect("embedded net");
        NativeNet::from_file(&file).expect("native")
    }

    /// A shipped net with an int8 hidden layer (the perspective default has none).
    fn hidden_layer_net() -> NativeNet {
        let file = super::super::tests::shipped("cerise-narrow-as-07afa601d5e3");
        NativeNet::from_file(&file).expect("native")
    }

    #[test]
    fn every_shipped_perspective_net_sums_its_head_in_f64() {
        // The fast head (see `exact_in_f64`) is only worth having if the nets that ship take
        // it; a net that ever needs i64 still scores the same, only slower.
        let mut seen = 0;
        for (name, file) in super::super::tests::shipped_nets() {
            let net = NativeNet::from_file(&file).expect("native");
            if net.form != Form::Perspective {
                continue;
            }
            let q = QuantNet::from_native(&net).unwrap();
            let Body::Perspective { weights, .. } = &q.body else {
                panic!("{name}: a perspective net without a perspective head");
            };
            assert!(
                matches!(weights, HeadWeights::F64(_)),
                "{name} sums its head in i64"
            );
            seen += 1;
        }
        assert!(seen >= 10, "only {seen} perspective nets");
    }

    #[test]
    fn the_scales_keep_every_board_in_i16_and_the_clip_above_the_walk() {
        let nets = [default_net(), hidden_layer_net()];
        for net in &nets {
            let q = QuantNet::from_native(net).unwrap();
            let bound = accumulator_bound(net);
            assert!(f64::from(q.qa) * bound + 33.0 <= 32767.0);
            assert_eq!(q.qa.fract(), 0.0, "qa {} not whole", q.qa);
            // The perspective head takes any whole qa; the MLP's ReLU shifts, so a power of
            // two there.
            let next = if net.form == Form::Perspective {
                q.qa + 1.0
            } else {
                assert_eq!(q.qa.log2().fract(), 0.0, "qa {} not a power of two", q.qa);
                q.qa * 2.0
            };
            assert!(
                f64::from(next) * bound + 33.0 > 32767.0,
                "qa {} not the largest",
                q.qa
            );
        }
        let net = &nets[1];
        let q = QuantNet::from_native(net).unwrap();
        let top = calibration_max(net);
        assert!(
            q.clip() >= top && q.clip() / 2.0 < top,
            "clip {} top {top}",
            q.clip()
        );
    }

    #[test]
    fn the_bound_counts_what_a_legal_board_can_hold_and_holds_on_real_boards() {
        let net = default_net();
        let before = accumulator_bound(&net);
        let with = |planes: &[usize], squares: &[usize], weight: f32| {
            let mut net = net.clone();
            for p in planes {
                for s in squares {
                    net.first[(p * 64 + s) * net.hidden] = weight;
                }
            }
            accumulator_bound(&net)
        };
        // Every piece (pawns aside) on d4 weighs 100 in unit 0: a board holds one at most.
        let after = with(&[1, 2, 3, 4, 5, 7, 8, 9, 10, 11], &[27], 100.0);
        assert!(
            after >= 100.0 && after < 100.0 + before,
            "{before} -> {after}"
        );
        // A pawn on the first rank never lights.
        assert_eq!(with(&[0, 6], &[3], 100.0), before);
        // One king a colour: its plane weighing 100 everywhere adds 100 once a colour.
        let kings = with(&[5, 11], &(0..64).collect::<Vec<_>>(), 100.0);
        assert!(
            kings >= 200.0 && kings < 200.0 + before,
            "{before} -> {kings}"
        );
        // At most 15 pieces a colour besides its king: the side to move's queen plane
        // weighing 10 everywhere adds at most 150 (by squares alone it would be 320).
        let queens = with(&[4], &(0..64).collect::<Vec<_>>(), 10.0);
        assert!(
            queens >= 150.0 && queens < 150.0 + before,
            "{before} -> {queens}"
        );
        // Sound: no accumulator of the calibration walk (either view) exceeds it.
        let net = default_net();
        let bound = accumulator_bound(&net) as f32;
        let mut top = 0f32;
        calibration_walk(&net, |acc| {
            top = acc
                .own
                .iter()
                .chain(&acc.swp)
                .fold(top, |m, v| m.max(v.abs()));
        });
        assert!(top > 0.0 && top <= bound, "{top} > {bound}");
    }

    #[test]
    fn a_net_without_a_hidden_layer_above_the_first_is_refused_by_name() {
        let mut net = hidden_layer_net();
        net.upper.truncate(1);
        let err = QuantNet::from_native(&net).unwrap_err().to_string();
        assert!(err.contains("Precision fp32"), "{err}");
    }
}
