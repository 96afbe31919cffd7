//! The vector loops of the native backend, written so that LLVM vectorises them, and the
//! runtime choice of instruction set.
//!
//! Every function here is `#[inline(always)]`: the network code that calls them is compiled
//! twice (see `forward`), once inside a `#[target_feature(enable = "avx2")]` function and
//! once plain, and only inlining lets each copy vectorise for its own instruction set. The
//! loops keep eight independent lanes where they reduce, since LLVM will not reorder a float
//! sum by itself.
//!
//! SAME BITS ON EVERY CPU. Both copies do the same float operations in the same order:
//! multiply then add, never a fused multiply-add (whose single rounding would differ), and
//! the same two chains over even and odd inputs. So the scores, and `bench`'s node count,
//! do not depend on the instruction set. On this AMD EPYC, separate multiply and add
//! measured as fast as FMA here: they issue to different pipes.

/// The instruction set the native backend runs with, detected once at load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simd {
    /// 512-bit vectors with VNNI's u8 × i8 dot products (x86-64 AVX-512 F, BW and VNNI);
    /// the int8 path uses them, the f32 path runs its AVX2 code.
    Avx512,
    /// 256-bit vectors (x86-64 AVX2).
    Avx2,
    /// Whatever the baseline target has (SSE2 on x86-64, NEON on aarch64).
    Baseline,
}

impl Simd {
    /// Every set, best first.
    const ALL: [Simd; 3] = [Simd::Avx512, Simd::Avx2, Simd::Baseline];

    /// The best this CPU runs.
    pub fn detect() -> Simd {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512vnni")
                {
                    return Simd::Avx512;
                }
                return Simd::Avx2;
            }
        }
        Simd::Baseline
    }

    /// The set the native backend runs: the best this CPU has, or the one the environment
    /// variable `CERISE_SIMD` names (`avx512-vnni`, `avx2` or `baseline`), so that a tester
    /// can time or check a lower set on a CPU that has a higher one. A name that is not a
    /// set, or a set this CPU lacks, is an error that says which sets it has.
    pub fn chosen() -> Result<Simd, String> {
        match std::env::var("CERISE_SIMD") {
            Err(_) => Ok(Simd::detect()),
            Ok(name) => Simd::choose(&name, Simd::detect()),
        }
    }

    /// `name` as a set that a CPU whose best set is `best` runs.
    fn choose(name: &str, best: Simd) -> Result<Simd, String> {
        let have = || {
            Simd::available_below(best)
                .iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let set = Simd::ALL
            .into_iter()
            .find(|s| s.name() == name.trim())
            .ok_or_else(|| {
                format!(
                    "CERISE_SIMD={name:?} is not an instruction set: use one of {}",
                    have()
                )
            })?;
        if best.runs(set) {
            Ok(set)
        } else {
            Err(format!(
                "CERISE_SIMD={name}: this CPU cannot run it; it runs {}",
                have()
            ))
        }
    }

    fn available_below(best: Simd) -> Vec<Simd> {
        Simd::ALL.into_iter().filter(|&s| best.runs(s)).collect()
    }

    /// The sets this CPU can run, best first: a set may be chosen below the best one (to
    /// compare them, or to check that they give the same bits).
    pub fn available() -> Vec<Simd> {
        Simd::available_below(Simd::detect())
    }

    /// Whether a CPU whose best set is `self` runs `other` too.
    pub fn runs(self, other: Simd) -> bool {
        other.rank() <= self.rank()
    }

    fn rank(self) -> u8 {
        match self {
            Simd::Baseline => 0,
            Simd::Avx2 => 1,
            Simd::Avx512 => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Simd::Avx512 => "avx512-vnni",
            Simd::Avx2 => "avx2",
            Simd::Baseline => "baseline",
        }
    }
}

const LANES: usize = 8;

/// `bias + Σ_i max(input[i], 0) · columns[i]` for a layer of `N` outputs, `N` known at
/// compile time so that the sums can live in registers; even and odd inputs run in two
/// chains (summed at the end), which keeps more multiply-adds in flight. The ReLU of the
/// layer below is folded in here. [`relu_layer_avx2`] and [`relu_layer_pairs`] do exactly
/// the same operations.
#[inline(always)]
pub fn relu_layer_fixed<const N: usize>(
    input: &[f32],
    columns: &[f32],
    bias: &[f32],
    out: &mut [f32],
) {
    let madd = |a: f32, b: f32, c: f32| a * b + c;
    let mut even = [0f32; N];
    let mut odd = [0f32; N];
    even.copy_from_slice(&bias[..N]);
    let pairs = input.len() / 2;
    for p in 0..pairs {
        let (a, b) = (input[2 * p].max(0.0), input[2 * p + 1].max(0.0));
        let ca: &[f32; N] = columns[2 * p * N..][..N].try_into().expect("N columns");
        let cb: &[f32; N] = columns[(2 * p + 1) * N..][..N]
            .try_into()
            .expect("N columns");
        for j in 0..N {
            even[j] = madd(a, ca[j], even[j]);
            odd[j] = madd(b, cb[j], odd[j]);
        }
    }
    if input.len() % 2 == 1 {
        let i = input.len() - 1;
        let a = input[i].max(0.0);
        let ca: &[f32; N] = columns[i * N..][..N].try_into().expect("N columns");
        for j in 0..N {
            even[j] = madd(a, ca[j], even[j]);
        }
    }
    for j in 0..N {
        out[j] = even[j] + odd[j];
    }
}

/// `dst += src`.
#[inline(always)]
pub fn add(dst: &mut [f32], src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += *s;
    }
}

/// `dst -= src`.
#[inline(always)]
pub fn sub(dst: &mut [f32], src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d -= *s;
    }
}

/// `dst += scale * src`.
#[inline(always)]
pub fn axpy(dst: &mut [f32], scale: f32, src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += scale * *s;
    }
}

/// `dst = max(src, 0)`.
#[inline(always)]
pub fn relu_into(dst: &mut [f32], src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = s.max(0.0);
    }
}

/// `a · b` over eight independent partial sums.
#[inline(always)]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; LANES];
    let (a_main, a_tail) = a.split_at(a.len() - a.len() % LANES);
    let (b_main, b_tail) = b.split_at(a_main.len());
    for (x, y) in a_main.chunks_exact(LANES).zip(b_main.chunks_exact(LANES)) {
        for k in 0..LANES {
            lanes[k] += x[k] * y[k];
        }
    }
    let mut sum = 0.0;
    for (x, y) in a_tail.iter().zip(b_tail) {
        sum += x * y;
    }
    lanes.iter().sum::<f32>() + sum
}

/// [`relu_layer_fixed`] for any width, with heap sums: the fallback for wide layers. Inputs
/// that are zero after the ReLU are skipped, which changes no bit (x + 0·w = x) and saves
/// a whole column of a wide layer.
#[inline(always)]
pub fn relu_layer_pairs(
    input: &[f32],
    columns: &[f32],
    outputs: usize,
    bias: &[f32],
    out: &mut [f32],
    odd: &mut [f32],
) {
    let (out, odd) = (&mut out[..outputs], &mut odd[..outputs]);
    out.copy_from_slice(&bias[..outputs]);
    odd.fill(0.0);
    for (i, &v) in input.iter().enumerate() {
        let v = v.max(0.0);
        if v == 0.0 {
            continue;
        }
        let sums = if i % 2 == 0 { &mut *out } else { &mut *odd };
        axpy(sums, v, &columns[i * outputs..][..outputs]);
    }
    add(out, odd);
}

/// For each 8-bit mask, the positions of its set bits, in order (the rest zero).
const BIT_POSITIONS: [[u16; 8]; 256] = {
    let mut table = [[0u16; 8]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut bit, mut n) = (0, 0);
        while bit < 8 {
            if mask & (1 << bit) != 0 {
                table[mask][n] = bit as u16;
                n += 1;
            }
            bit += 1;
        }
        mask += 1;
    }
    table
};

/// Most inputs [`relu_layer_avx2`] takes sparsely; wider layers go dense.
const MAX_SPARSE_INPUTS: usize = 1024;

/// [`relu_layer_fixed`] written with AVX2 intrinsics for any `outputs` that is a multiple of
/// 8, visiting only the inputs that are positive (about 42% of `small-as`'s first layer on
/// real boards). The indices are gathered first, without a branch per input, into two lists:
/// even and odd inputs, so that the two chains of sums get exactly the terms, in exactly the
/// order, of the portable code (a skipped input adds 0·w, which changes no sum). Then blocks
/// of 32 outputs (four registers) run over both lists at once, eight independent
/// multiply-adds in flight. Auto-vectorised, the dense loop kept its sums on the stack and
/// ran at half the speed of the dense version of this one.
///
/// # Safety
/// The CPU must support AVX2; `columns` holds `input.len()` columns of `outputs`
/// floats; `bias` and `out` hold `outputs` floats; `outputs % 8 == 0`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub unsafe fn relu_layer_avx2(
    input: &[f32],
    columns: &[f32],
    outputs: usize,
    bias: &[f32],
    out: &mut [f32],
) {
    use std::arch::x86_64::*;
    debug_assert!(outputs.is_multiple_of(8) && columns.len() >= input.len() * outputs);
    debug_assert!(bias.len() >= outputs && out.len() >= outputs);
    let n = input.len();
    if n > MAX_SPARSE_INPUTS {
        let mut odd = vec![0f32; outputs];
        relu_layer_pairs(input, columns, outputs, bias, out, &mut odd);
        return;
    }
    // Room for a full unconditional 8-wide store past the last index.
    let mut even_idx = [0u16; MAX_SPARSE_INPUTS / 2 + 8];
    let mut odd_idx = [0u16; MAX_SPARSE_INPUTS / 2 + 8];
    let (mut ne, mut no) = (0usize, 0usize);
    let zero = _mm256_setzero_ps();
    let mut base = 0;
    while base < n {
        let mask = if base + 8 <= n {
            let v = _mm256_loadu_ps(input.as_ptr().add(base));
            _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(v, zero)) as usize
        } else {
            (base..n).fold(0, |m, i| m | (usize::from(input[i] > 0.0) << (i - base)))
        };
        let offset = _mm_set1_epi16(base as i16);
        for (bits, idx, count) in [
            (mask & 0x55, &mut even_idx, &mut ne),
            (mask & 0xAA, &mut odd_idx, &mut no),
        ] {
            let lut = _mm_loadu_si128(BIT_POSITIONS[bits].as_ptr().cast());
            _mm_storeu_si128(
                idx.as_mut_ptr().add(*count).cast(),
                _mm_add_epi16(lut, offset),
            );
            *count += bits.count_ones() as usize;
        }
        base += 8;
    }
    let cols = columns.as_ptr();
    let mut block = 0;
    while block < outputs {
        let width = (outputs - block).min(32) / 8; // registers in this block, 1..=4
        let mut even = [zero; 4];
        let mut odd = [zero; 4];
        for (r, acc) in even.iter_mut().enumerate().take(width) {
            *acc = _mm256_loadu_ps(bias.as_ptr().add(block + 8 * r));
        }
        let both = ne.min(no);
        for k in 0..both {
            let (i, j) = (even_idx[k] as usize, odd_idx[k] as usize);
            let a = _mm256_set1_ps(*input.get_unchecked(i));
            let b = _mm256_set1_ps(*input.get_unchecked(j));
            let ca = cols.add(i * outputs + block);
            let cb = cols.add(j * outputs + block);
            for r in 0..width {
                even[r] = _mm256_add_ps(_mm256_mul_ps(a, _mm256_loadu_ps(ca.add(8 * r))), even[r]);
                odd[r] = _mm256_add_ps(_mm256_mul_ps(b, _mm256_loadu_ps(cb.add(8 * r))), odd[r]);
            }
        }
        for (list, count, sums) in [(&even_idx, ne, &mut even), (&odd_idx, no, &mut odd)] {
            for &i in &list[both..count] {
                let i = i as usize;
                let a = _mm256_set1_ps(*input.get_unchecked(i));
                let ca = cols.add(i * outputs + block);
                for (r, acc) in sums.iter_mut().enumerate().take(width) {
                    *acc = _mm256_add_ps(_mm256_mul_ps(a, _mm256_loadu_ps(ca.add(8 * r))), *acc);
                }
            }
        }
        for (r, (e, o)) in even.iter().zip(&odd).enumerate().take(width) {
            _mm256_storeu_ps(out.as_mut_ptr().add(block + 8 * r), _mm256_add_ps(*e, *o));
        }
        block += 8 * width;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loops_compute_what_they_say() {
        let a: Vec<f32> = (0..19).map(|i| i as f32 - 9.0).collect();
        let b: Vec<f32> = (0..19).map(|i| (i % 5) as f32 * 0.5).collect();
        let want: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - want).abs() < 1e-4);
        let mut d = a.clone();
        add(&mut d, &b);
        sub(&mut d, &b);
        assert_eq!(d, a);
        axpy(&mut d, 2.0, &b);
        assert!(d
            .iter()
            .zip(&a)
            .zip(&b)
            .all(|((d, a), b)| *d == a + 2.0 * b));
        let mut r = vec![1.0; 19];
        relu_into(&mut r, &a);
        assert!(r.iter().zip(&a).all(|(r, a)| *r == a.max(0.0)));
    }

    /// The layer's sums in f64, in no particular order: what every float version
    /// must come close to.
    fn reference(input: &[f32], columns: &[f32], outputs: usize, bias: &[f32]) -> Vec<f64> {
        (0..outputs)
            .map(|j| {
                let sum: f64 = input
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| f64::from(v.max(0.0)) * f64::from(columns[i * outputs + j]))
                    .sum();
                sum + f64::from(bias[j])
            })
            .collect()
    }

    #[test]
    fn portable_layers_compute_the_layer_with_the_same_bits_and_avx2_too_where_present() {
        for (inputs, outputs) in [(256, 32), (7, 8), (33, 64), (512, 512), (5, 40), (1030, 16)] {
            let input: Vec<f32> = (0..inputs).map(|i| ((i * 29) % 17) as f32 - 8.0).collect();
            let columns: Vec<f32> = (0..inputs * outputs)
                .map(|i| ((i * 31) % 23) as f32 / 10.0 - 1.1)
                .collect();
            let bias: Vec<f32> = (0..outputs).map(|j| j as f32 * 0.01).collect();
            // The portable wide layer (the baseline's code) computes the layer…
            let mut want = vec![0f32; outputs];
            let mut odd = vec![0f32; outputs];
            relu_layer_pairs(&input, &columns, outputs, &bias, &mut want, &mut odd);
            for (j, (&got, exact)) in want
                .iter()
                .zip(reference(&input, &columns, outputs, &bias))
                .enumerate()
            {
                let error = (f64::from(got) - exact).abs();
                assert!(
                    error < 1e-3 * exact.abs().max(1.0),
                    "{inputs}x{outputs}[{j}]: {got} vs {exact}"
                );
            }
            // …and the fixed-width one gives its bits.
            let mut fixed = vec![0f32; outputs];
            match outputs {
                8 => relu_layer_fixed::<8>(&input, &columns, &bias, &mut fixed),
                32 => relu_layer_fixed::<32>(&input, &columns, &bias, &mut fixed),
                16 => relu_layer_fixed::<16>(&input, &columns, &bias, &mut fixed),
                64 => relu_layer_fixed::<64>(&input, &columns, &bias, &mut fixed),
                _ => fixed.copy_from_slice(&want),
            }
            assert_eq!(fixed, want, "fixed {inputs}x{outputs}: not the same bits");
            #[cfg(target_arch = "x86_64")]
            if Simd::detect() != Simd::Baseline {
                let mut got = vec![0f32; outputs];
                // SAFETY: AVX2 detected just above; the shapes match.
                unsafe { relu_layer_avx2(&input, &columns, outputs, &bias, &mut got) };
                assert_eq!(got, want, "avx2 {inputs}x{outputs}: not the same bits");
            }
        }
    }

    #[test]
    fn a_named_set_is_chosen_only_when_the_cpu_runs_it() {
        assert_eq!(Simd::choose("avx2", Simd::Avx512), Ok(Simd::Avx2));
        assert_eq!(Simd::choose(" baseline ", Simd::Avx2), Ok(Simd::Baseline));
        assert_eq!(Simd::choose("avx512-vnni", Simd::Avx512), Ok(Simd::Avx512));
        let e = Simd::choose("avx512-vnni", Simd::Avx2).unwrap_err();
        assert!(
            e.contains("cannot run") && e.contains("avx2, baseline"),
            "{e}"
        );
        let e = Simd::choose("sse9", Simd::Avx512).unwrap_err();
        assert!(
            e.contains("\"sse9\"") && e.contains("avx512-vnni, avx2, baseline"),
            "{e}"
        );
    }

    #[test]
    fn detection_follows_the_cpu_and_names_the_set() {
        #[cfg(target_arch = "x86_64")]
        let (avx2, avx512) = (
            std::arch::is_x86_feature_detected!("avx2"),
            std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vnni"),
        );
        #[cfg(not(target_arch = "x86_64"))]
        let (avx2, avx512) = (false, false);
        let (want, name) = match (avx2, avx512) {
            (true, true) => (Simd::Avx512, "avx512-vnni"),
            (true, false) => (Simd::Avx2, "avx2"),
            _ => (Simd::Baseline, "baseline"),
        };
        assert_eq!(Simd::detect(), want);
        assert_eq!(Simd::detect().name(), name);
        assert_eq!(Simd::available()[0], want);
        assert_eq!(*Simd::available().last().unwrap(), Simd::Baseline);
        assert!(Simd::Avx512.runs(Simd::Avx2) && !Simd::Avx2.runs(Simd::Avx512));
    }
}
