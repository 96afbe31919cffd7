//! A tiny seeded generator (SplitMix64). The output of `cerise data triplets` must be
//! reproducible from its seed alone, independent of any crate's algorithm choice.

/// The SplitMix64 finaliser: a good 64-bit mix, used to derive per-game streams and buckets.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// An independent stream for `(seed, stream)`, e.g. one per game, so a game's triplets do
    /// not depend on which games before it were filtered out.
    pub fn for_stream(seed: u64, stream: u64) -> Self {
        SplitMix64::new(mix64(
            seed ^ mix64(stream.wrapping_add(0x6a09_e667_f3bc_c909)),
        ))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.state)
    }

    /// Uniform in [0, 1): the top 53 bits, every value a double can hold exactly.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; the bias is below 2^-50 for move counts).
    /// Panics if `n == 0`.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "below(0) has no valid result");
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = SplitMix64::for_stream(7, 3);
                move |_| r.next_u64()
            })
            .collect();
        let mut again = SplitMix64::for_stream(7, 3);
        assert!(a.iter().all(|&x| x == again.next_u64()));
        assert_ne!(a[0], SplitMix64::for_stream(7, 4).next_u64());
        assert_ne!(a[0], SplitMix64::for_stream(8, 3).next_u64());
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = SplitMix64::new(1);
        let mut hist = [0u32; 5];
        for _ in 0..50_000 {
            hist[r.below(5)] += 1;
        }
        // Each bucket expects 10 000; 5 sigma is about 450.
        assert!(
            hist.iter().all(|&h| (9_500..10_500).contains(&h)),
            "{hist:?}"
        );
    }
}
