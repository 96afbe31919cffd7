//! The integer loops of the native backend's int8 path (see `quant`): the activation of the
//! i16 accumulators into u8, and the u8 × i8 layer above them, in three versions (portable,
//! AVX2, AVX-512 VNNI).
//!
//! SAME BITS ON EVERY CPU. Integer sums are exact, so the versions agree bit for bit as long
//! as nothing saturates or overflows: activations are at most [`ACT_MAX`] = 127 and weights
//! at most 127 in size, so AVX2's `vpmaddubsw` (two products summed in i16, saturating) stays
//! within 2 · 127 · 127 = 32,258 < 32,767, and every i32 sum is far inside its range
//! (inputs · 127 · 127 + bias). The accumulators are updated with wrapping i16 adds, which
//! are exact modulo 2¹⁶; `quant` chooses the scale so that every board's sums fit.

/// Largest activation: 127, so that `vpmaddubsw` never saturates (see the module comment).
pub const ACT_MAX: i32 = 127;
/// Inputs of the int8 layer come in groups of this many bytes (one i32 lane of `vpdpbusd`).
pub const GROUP: usize = 4;
/// Outputs of the int8 layer are padded to a multiple of this (one 512-bit register of i32).
pub const OUT_BLOCK: usize = 16;

/// `dst += src` on i16 accumulators, wrapping (exact modulo 2¹⁶).
#[inline(always)]
pub fn add_i16(dst: &mut [i16], src: &[i16]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = d.wrapping_add(*s);
    }
}

/// `dst -= src` on i16 accumulators, wrapping.
#[inline(always)]
pub fn sub_i16(dst: &mut [i16], src: &[i16]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = d.wrapping_sub(*s);
    }
}

/// `dst = src + a − r`, in one pass (no copy of `src` first): the update of a quiet move.
#[inline(always)]
pub fn copy_add_sub_i16(dst: &mut [i16], src: &[i16], a: &[i16], r: &[i16]) {
    for (((d, s), a), r) in dst.iter_mut().zip(src).zip(a).zip(r) {
        *d = s.wrapping_add(*a).wrapping_sub(*r);
    }
}

/// `dst = src + a − r1 − r2`: the update of a capture.
#[inline(always)]
pub fn copy_add_sub2_i16(dst: &mut [i16], src: &[i16], a: &[i16], r1: &[i16], r2: &[i16]) {
    for ((((d, s), a), r1), r2) in dst.iter_mut().zip(src).zip(a).zip(r1).zip(r2) {
        *d = s.wrapping_add(*a).wrapping_sub(*r1).wrapping_sub(*r2);
    }
}

/// Largest `shift` [`activate`] takes: beyond it the rounding add could saturate below the
/// clip and change a result (see there).
pub const MAX_SHIFT: u32 = 8;

/// `act[i]` = clamp(round(acc[i] / 2^shift), 0, 127), in i16 lanes so that LLVM vectorises
/// it 32 to a register. The rounding add saturates: only an accumulator within `half` of
/// 32,767 saturates, and its result is ≥ 32,767 >> 8 = 127 anyway for `shift` ≤
/// [`MAX_SHIFT`], so the clamp gives the exact result. `act` may be longer than `acc`
/// (padding): its tail is left as it is (zero).
#[inline(always)]
pub fn activate(acc: &[i16], shift: u32, act: &mut [u8]) {
    debug_assert!(shift <= MAX_SHIFT);
    let half = ((1i32 << shift) >> 1) as i16;
    for (a, &x) in act.iter_mut().zip(acc) {
        *a = (x.saturating_add(half) >> shift).clamp(0, ACT_MAX as i16) as u8;
    }
}

/// The int8 layer's weights: `[inputs / GROUP][outputs][GROUP]`, so that the weights of one
/// input group for 16 consecutive outputs are 64 contiguous bytes (one `vpdpbusd` operand).
#[derive(Clone, Debug)]
pub struct Int8Layer {
    /// Padded to a multiple of [`GROUP`].
    pub inputs: usize,
    /// Padded to a multiple of [`OUT_BLOCK`]; the padding outputs have zero weights and bias.
    pub outputs: usize,
    pub weights: Vec<i8>,
    /// The same weights as `[inputs][outputs]` rows of i16, for [`layer_portable`]: a row
    /// times one activation is a run of i16 products that any vector unit (SSE2, NEON)
    /// multiplies several at a time, where the grouped layout would need a gather.
    pub rows: Vec<i16>,
    pub bias: Vec<i32>,
}

impl Int8Layer {
    /// From `[inputs][outputs]` weights (as `weights::Layer` stores them), already rounded.
    pub fn new(inputs: usize, outputs: usize, columns: &[i8], bias: &[i32]) -> Self {
        let padded_in = inputs.div_ceil(GROUP) * GROUP;
        let padded_out = outputs.div_ceil(OUT_BLOCK) * OUT_BLOCK;
        let mut weights = vec![0i8; padded_in * padded_out];
        for i in 0..inputs {
            for j in 0..outputs {
                let (g, k) = (i / GROUP, i % GROUP);
                weights[(g * padded_out + j) * GROUP + k] = columns[i * outputs + j];
            }
        }
        let mut rows = vec![0i16; padded_in * padded_out];
        for i in 0..inputs {
            for j in 0..outputs {
                rows[i * padded_out + j] = i16::from(columns[i * outputs + j]);
            }
        }
        let mut padded_bias = vec![0i32; padded_out];
        padded_bias[..outputs].copy_from_slice(bias);
        Int8Layer {
            inputs: padded_in,
            outputs: padded_out,
            weights,
            rows,
            bias: padded_bias,
        }
    }

    /// The weight of input `i` to output `j`.
    #[cfg(test)]
    fn weight(&self, i: usize, j: usize) -> i8 {
        self.weights[((i / GROUP) * self.outputs + j) * GROUP + i % GROUP]
    }
}

/// `out` = bias + Σ_i act[i] · w[i], portable, a row of weights at a time; zero
/// activations are skipped (a sum unchanged). Each product is at most 127 · 127 and fits
/// i16, which baseline vector units multiply 8 at a time (SSE2 has no i32 multiply; with one,
/// this path ran at a quarter of the f32 path's speed).
#[inline(always)]
pub fn layer_portable(layer: &Int8Layer, act: &[u8], out: &mut [i32]) {
    let n = layer.outputs;
    out[..n].copy_from_slice(&layer.bias);
    for (row, &a) in layer.rows.chunks_exact(n).zip(&act[..layer.inputs]) {
        if a == 0 {
            continue;
        }
        let a = i16::from(a);
        for (o, &w) in out[..n].iter_mut().zip(row) {
            *o += i32::from(a * w);
        }
    }
}

/// [`layer_portable`] with AVX2: per group, `vpmaddubsw` (u8 × i8, pairs summed in i16)
/// and `vpmaddwd` by ones (pairs of those summed in i32), eight outputs a register.
///
/// # Safety
/// The CPU must support AVX2; `act` holds at least `layer.inputs` bytes, `out` at least
/// `layer.outputs` values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub unsafe fn layer_avx2(layer: &Int8Layer, act: &[u8], out: &mut [i32]) {
    use std::arch::x86_64::*;
    debug_assert!(act.len() >= layer.inputs && out.len() >= layer.outputs);
    let n = layer.outputs;
    let ones = _mm256_set1_epi16(1);
    let w = layer.weights.as_ptr();
    let mut block = 0;
    while block < n {
        // Up to 64 outputs (eight registers) at a time, from the bias.
        let regs = ((n - block) / 8).min(8);
        let mut sums = [_mm256_setzero_si256(); 8];
        for (r, s) in sums.iter_mut().enumerate().take(regs) {
            *s = _mm256_loadu_si256(layer.bias.as_ptr().add(block + 8 * r).cast());
        }
        for g in 0..layer.inputs / GROUP {
            let four = (act.as_ptr().add(g * GROUP) as *const i32).read_unaligned();
            if four == 0 {
                continue;
            }
            let a = _mm256_set1_epi32(four);
            let base = w.add((g * n + block) * GROUP);
            for (r, s) in sums.iter_mut().enumerate().take(regs) {
                let wv = _mm256_loadu_si256(base.add(32 * r).cast());
                let pairs = _mm256_maddubs_epi16(a, wv);
                *s = _mm256_add_epi32(*s, _mm256_madd_epi16(pairs, ones));
            }
        }
        for (r, s) in sums.iter().enumerate().take(regs) {
            _mm256_storeu_si256(out.as_mut_ptr().add(block + 8 * r).cast(), *s);
        }
        block += 8 * regs;
    }
}

/// [`layer_portable`] with AVX-512 VNNI: one `vpdpbusd` per group and 16 outputs.
///
/// Blocks of up to 128 outputs (eight registers), each by [`block_avx512`] with the
/// register count fixed at compile time, so that the sums live in registers rather than in
/// a stack array (the first version's runtime count spilled them: a store and reload around
/// every `vpdpbusd`).
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VNNI; the lengths as for [`layer_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
#[inline]
pub unsafe fn layer_avx512(layer: &Int8Layer, act: &[u8], out: &mut [i32]) {
    debug_assert!(act.len() >= layer.inputs && out.len() >= layer.outputs);
    let n = layer.outputs;
    let mut block = 0;
    while block < n {
        let regs = ((n - block) / 16).min(8);
        let f = match regs {
            1 => block_avx512::<1>,
            2 => block_avx512::<2>,
            3 => block_avx512::<3>,
            4 => block_avx512::<4>,
            5 => block_avx512::<5>,
            6 => block_avx512::<6>,
            7 => block_avx512::<7>,
            _ => block_avx512::<8>,
        };
        f(layer, act, out, block);
        block += 16 * regs;
    }
}

/// `R` registers (16·R outputs from `block` on) of [`layer_avx512`]. Two interleaved sets
/// of sums, even and odd input groups, halve the chain of dependent `vpdpbusd`s (five cycles
/// each) that one set makes; integer sums are exact, so the order changes no bit. No group
/// is skipped (a zero group adds nothing), so the loop has no data-dependent branch; the
/// change was timed as a whole (bench/records/integer-inference.md), not piece by piece.
///
/// # Safety
/// As [`layer_avx512`]; `block + 16·R` ≤ `layer.outputs`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
#[inline]
unsafe fn block_avx512<const R: usize>(
    layer: &Int8Layer,
    act: &[u8],
    out: &mut [i32],
    block: usize,
) {
    use std::arch::x86_64::*;
    let n = layer.outputs;
    let w = layer.weights.as_ptr();
    let a = act.as_ptr() as *const i32;
    let mut even = [_mm512_setzero_si512(); R];
    let mut odd = [_mm512_setzero_si512(); R];
    for (r, s) in even.iter_mut().enumerate() {
        *s = _mm512_loadu_si512(layer.bias.as_ptr().add(block + 16 * r).cast());
    }
    let groups = layer.inputs / GROUP;
    let mut g = 0;
    while g + 1 < groups {
        let a0 = _mm512_set1_epi32(a.add(g).read_unaligned());
        let a1 = _mm512_set1_epi32(a.add(g + 1).read_unaligned());
        let b0 = w.add((g * n + block) * GROUP);
        let b1 = w.add(((g + 1) * n + block) * GROUP);
        for r in 0..R {
            even[r] = _mm512_dpbusd_epi32(even[r], a0, _mm512_loadu_si512(b0.add(64 * r).cast()));
            odd[r] = _mm512_dpbusd_epi32(odd[r], a1, _mm512_loadu_si512(b1.add(64 * r).cast()));
        }
        g += 2;
    }
    if g < groups {
        let a0 = _mm512_set1_epi32(a.add(g).read_unaligned());
        let b0 = w.add((g * n + block) * GROUP);
        for (r, s) in even.iter_mut().enumerate() {
            *s = _mm512_dpbusd_epi32(*s, a0, _mm512_loadu_si512(b0.add(64 * r).cast()));
        }
    }
    for r in 0..R {
        let sum = _mm512_add_epi32(even[r], odd[r]);
        _mm512_storeu_si512(out.as_mut_ptr().add(block + 16 * r).cast(), sum);
    }
}

#[cfg(test)]
mod tests {
    use super::super::kernels::Simd;
    use super::*;

    fn layer(inputs: usize, outputs: usize) -> (Int8Layer, Vec<i8>, Vec<i32>) {
        let columns: Vec<i8> = (0..inputs * outputs)
            .map(|i| ((i * 37 + 11) % 255) as i32 - 127)
            .map(|v| v as i8)
            .collect();
        let bias: Vec<i32> = (0..outputs).map(|j| j as i32 * 1000 - 7000).collect();
        (
            Int8Layer::new(inputs, outputs, &columns, &bias),
            columns,
            bias,
        )
    }

    #[test]
    fn the_layout_keeps_every_weight_and_pads_with_zeros() {
        let (l, columns, _) = layer(10, 20);
        assert_eq!((l.inputs, l.outputs), (12, 32));
        for i in 0..12 {
            for j in 0..32 {
                let want = if i < 10 && j < 20 {
                    columns[i * 20 + j]
                } else {
                    0
                };
                assert_eq!(l.weight(i, j), want, "({i}, {j})");
            }
        }
    }

    /// Every version against the definition, on the largest activations and weights (the
    /// saturation bound) and on sparse ones, for widths that leave partial blocks.
    #[test]
    fn every_version_gives_the_definition_bit_for_bit() {
        for (inputs, outputs) in [
            (128, 32),
            (256, 32),
            (512, 512),
            (64, 16),
            (12, 48),
            (7, 5),
            (20, 144),
        ] {
            let (l, columns, bias) = layer(inputs, outputs);
            for pattern in 0..3 {
                let mut act = vec![0u8; l.inputs];
                for (i, a) in act.iter_mut().enumerate().take(inputs) {
                    *a = match pattern {
                        0 => ACT_MAX as u8,
                        1 => ((i * 29) % 128) as u8,
                        _ => u8::from(i % 9 == 0) * 127,
                    };
                }
                let want: Vec<i32> = (0..outputs)
                    .map(|j| {
                        bias[j]
                            + (0..inputs)
                                .map(|i| i32::from(act[i]) * i32::from(columns[i * outputs + j]))
                                .sum::<i32>()
                    })
                    .collect();
                let mut got = vec![0i32; l.outputs];
                layer_portable(&l, &act, &mut got);
                assert_eq!(&got[..outputs], &want[..], "portable {inputs}x{outputs}");
                assert!(got[outputs..].iter().all(|&v| v == 0));
                #[cfg(target_arch = "x86_64")]
                {
                    if Simd::detect() != Simd::Baseline {
                        let mut v = vec![0i32; l.outputs];
                        // SAFETY: AVX2 found (every detected set has it); shapes as built.
                        unsafe { layer_avx2(&l, &act, &mut v) };
                        assert_eq!(v, got, "avx2 {inputs}x{outputs} pattern {pattern}");
                    }
                    if Simd::detect() == Simd::Avx512 {
                        let mut v = vec![0i32; l.outputs];
                        // SAFETY: AVX-512 VNNI found; shapes as built.
                        unsafe { layer_avx512(&l, &act, &mut v) };
                        assert_eq!(v, got, "avx512 {inputs}x{outputs} pattern {pattern}");
                    }
                }
            }
        }
    }

    #[test]
    fn activation_rounds_and_clamps() {
        let acc = [-300i16, -1, 0, 15, 16, 17, 47, 48, 4064, 4080, 32767];
        let mut act = [9u8; 12];
        activate(&acc, 5, &mut act);
        assert_eq!(act, [0, 0, 0, 0, 1, 1, 1, 2, 127, 127, 127, 9]);
        // Every accumulator and shift against the exact i32 formula.
        for shift in 0..=MAX_SHIFT {
            let half = (1i32 << shift) >> 1;
            for x in i16::MIN..=i16::MAX {
                let mut a = [0u8];
                activate(&[x], shift, &mut a);
                let want = ((i32::from(x) + half) >> shift).clamp(0, ACT_MAX) as u8;
                assert_eq!(a[0], want, "x {x} shift {shift}");
            }
        }
    }

    #[test]
    fn fused_updates_equal_copy_then_add_and_sub() {
        let v = |k: i32| -> Vec<i16> { (0..40i32).map(|i| (i * 977 + k * 131) as i16).collect() };
        let (src, a, r1, r2) = (v(1), v(2), v(3), v(4));
        let mut want = src.clone();
        add_i16(&mut want, &a);
        sub_i16(&mut want, &r1);
        let mut got = vec![0i16; 40];
        copy_add_sub_i16(&mut got, &src, &a, &r1);
        assert_eq!(got, want);
        sub_i16(&mut want, &r2);
        copy_add_sub2_i16(&mut got, &src, &a, &r1, &r2);
        assert_eq!(got, want);
    }

    #[test]
    fn accumulator_updates_wrap_and_come_back() {
        let mut a = vec![32000i16, -32000, 5];
        let b = vec![1000i16, -1000, 7];
        add_i16(&mut a, &b);
        sub_i16(&mut a, &b);
        assert_eq!(a, vec![32000, -32000, 5]);
    }
}
