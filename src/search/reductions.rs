//! The late-move-reduction table.

use super::params::{LMR_BASE, LMR_DIVISOR};
use std::sync::OnceLock;

const SIZE: usize = 64;

fn table() -> &'static [[u8; SIZE]; SIZE] {
    static TABLE: OnceLock<[[u8; SIZE]; SIZE]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [[0u8; SIZE]; SIZE];
        for (depth, row) in t.iter_mut().enumerate().skip(1) {
            for (n, r) in row.iter_mut().enumerate().skip(1) {
                let plies = LMR_BASE + (depth as f64).ln() * (n as f64).ln() / LMR_DIVISOR;
                *r = plies.max(0.0) as u8;
            }
        }
        t
    })
}

/// Plies to reduce the `move_number`-th move (0-based, in search order) of a node of
/// `depth`, before the caller's clamp to what the node can afford. Late moves of deep nodes
/// are reduced most: they rarely become best, and when one does the re-search finds it.
pub fn late_move_reduction(depth: i32, move_number: usize, pv_node: bool) -> i32 {
    let d = (depth.max(1) as usize).min(SIZE - 1);
    // 1-based move count: the first move has ln 1 = 0 and is never reduced by the table.
    let n = (move_number + 1).min(SIZE - 1);
    let r = i32::from(table()[d][n]);
    r - i32::from(pv_node)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_with_depth_and_move_number() {
        assert_eq!(late_move_reduction(3, 0, false), 0);
        assert_eq!(late_move_reduction(3, 3, false), 1);
        assert!(late_move_reduction(10, 20, false) >= 3);
        for d in 1..40 {
            for n in 0..60 {
                let r = late_move_reduction(d, n, false);
                assert!(r <= late_move_reduction(d + 1, n, false));
                assert!(r <= late_move_reduction(d, n + 1, false));
            }
        }
    }

    #[test]
    fn pv_nodes_reduce_one_ply_less() {
        assert_eq!(
            late_move_reduction(12, 30, true),
            late_move_reduction(12, 30, false) - 1
        );
    }
}
