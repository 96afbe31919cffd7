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
