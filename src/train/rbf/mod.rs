//! Training the RBF evaluator (issue #9): centres by symmetric fuzzy means
//! ([`fuzzy_means`]), output weights by least squares ([`lstsq`]), the number of fuzzy sets
//! chosen on validation ([`fit`]).

pub mod cli;
pub mod dataset;
pub mod fit;
pub mod fuzzy_means;
pub mod lstsq;
pub mod rows;

pub use cli::{run_rbf_cli, RbfArgs};

#[cfg(test)]
mod tests;

/// Test inputs: a fixed stream of uniform values in [0, 1) from a 64-bit LCG, the same on
/// every machine.
#[cfg(test)]
pub(crate) fn uniform_stream(seed: u64) -> impl FnMut() -> f32 {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    }
}
