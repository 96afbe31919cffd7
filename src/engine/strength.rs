//! `UCI_LimitStrength` and `UCI_Elo`: a weaker Cerise for people to play.
//!
//! The limit is a node budget for each move, on top of whatever `go` asked for. Fewer nodes
//! mean a shallower search with the same evaluator: the weaker play stays natural (no
//! random blunders), and the strength does not depend on the machine's speed, as a time
//! budget's would. The budget for a rating comes from [`CALIBRATION`], measured by matches
//! against Stockfish 15.1 at its own `UCI_Elo` levels (bench/records/strength-limit.md);
//! between its points it is interpolated in log2(nodes), since each doubling of the search
//! was worth about the same number of Elo over the whole range.
//!
//! Each move's budget is drawn from ±[`JITTER`] (in log2 units) around the calibrated one, so
//! that a player who repeats a line does not get the same reply every time; its mean
//! strength is the calibrated one.

/// The lowest and highest rating accepted; Stockfish 15.1's lowest `UCI_Elo` is 1350, and no
/// setting is offered that the calibration cannot measure against it.
pub const ELO_MIN: u32 = 1350;
pub const ELO_MAX: u32 = 1800;
pub const ELO_DEFAULT: u32 = 1500;

/// (rating on the Stockfish 10+0.1 scale, nodes a move), rising in both. From six matches of
/// 2026-11-25 (bench/records/strength-limit.md): budgets of 1,600 to 280,000 nodes read
/// 1292 to 1997 against Stockfish; the weighted line through them gives 81 ± 8 Elo for each
/// doubling, and these two points are that line's. The top stays below the unlimited
/// engine's own reading (1886 ± 72), where the line would overstate deeper searches.
pub const CALIBRATION: [(u32, u64); 2] = [(ELO_MIN, 2_000), (ELO_MAX, 96_000)];

/// Half the spread of a move's budget, in log2(nodes): ±0.5 is ×0.71 to ×1.41.
pub const JITTER: f64 = 0.5;

/// The calibrated node budget for `elo` (clamped to the accepted range).
pub fn nodes_for(elo: u32) -> u64 {
    log2_nodes(elo).exp2().round() as u64
}

fn log2_nodes(elo: u32) -> f64 {
    let elo = elo.clamp(ELO_MIN, ELO_MAX) as f64;
    let last = CALIBRATION.len() - 1;
    let i = CALIBRATION[..last]
        .iter()
        .rposition(|&(e, _)| e as f64 <= elo)
        .unwrap_or(0);
    let (e0, n0) = CALIBRATION[i];
    let (e1, n1) = CALIBRATION[i + 1];
    let t = (elo - e0 as f64) / (e1 - e0) as f64;
    let (l0, l1) = ((n0 as f64).log2(), (n1 as f64).log2());
    l0 + t * (l1 - l0)
}

/// One move's budget: the calibrated one moved by `u` (uniform in [0, 1)) within ±JITTER.
pub fn move_budget(elo: u32, u: f64) -> u64 {
    let offset = (2.0 * u.clamp(0.0, 1.0) - 1.0) * JITTER;
    ((log2_nodes(elo) + offset).exp2().round() as u64).max(1)
}

/// splitmix64: enough to vary the budgets; a search never sees it.
#[derive(Clone, Debug)]
pub struct Dice(u64);

impl Dice {
    pub fn new(seed: u64) -> Dice {
        Dice(seed)
    }

    /// Seeded from the clock, so that two sessions differ.
    pub fn from_clock() -> Dice {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Dice(nanos)
    }

    /// Uniform in [0, 1).
    pub fn next_unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_points_are_exact_and_budgets_rise_with_the_rating() {
        for (elo, nodes) in CALIBRATION {
            assert_eq!(nodes_for(elo), nodes, "{elo}");
        }
        assert_eq!(nodes_for(0), nodes_for(ELO_MIN));
        assert_eq!(nodes_for(u32::MAX), nodes_for(ELO_MAX));
        let mut last = 0;
        for elo in ELO_MIN..=ELO_MAX {
            let n = nodes_for(elo);
            assert!(n >= last, "{elo}: {n} < {last}");
            last = n;
        }
        assert!(nodes_for(ELO_MAX) > 32 * nodes_for(ELO_MIN));
    }

    #[test]
    fn calibration_rises_in_both_columns() {
        for pair in CALIBRATION.windows(2) {
            assert!(pair[0].0 < pair[1].0 && pair[0].1 < pair[1].1, "{pair:?}");
        }
        assert_eq!(CALIBRATION[0].0, ELO_MIN);
        assert_eq!(CALIBRATION[CALIBRATION.len() - 1].0, ELO_MAX);
    }

    #[test]
    fn budgets_spread_within_the_jitter_around_the_calibrated_one() {
        let elo = 1600;
        let centre = nodes_for(elo) as f64;
        let low = (centre * (-JITTER).exp2()).floor() as u64;
        let high = (centre * JITTER.exp2()).ceil() as u64;
        assert!(move_budget(elo, 0.0) >= low && move_budget(elo, 0.0) < centre as u64);
        assert!(move_budget(elo, 0.999) <= high && move_budget(elo, 0.999) > centre as u64);
        let mut dice = Dice::new(7);
        let budgets: Vec<u64> = (0..1000)
            .map(|_| move_budget(elo, dice.next_unit()))
            .collect();
        assert!(budgets.iter().all(|&b| (low..=high).contains(&b)));
        let below = budgets.iter().filter(|&&b| (b as f64) < centre).count();
        assert!(
            (400..600).contains(&below),
            "{below} of 1000 below the centre"
        );
        assert!(budgets.iter().any(|&b| b != budgets[0]));
        // The geometric mean is the calibrated budget.
        let mean_log = budgets.iter().map(|&b| (b as f64).log2()).sum::<f64>() / 1000.0;
        assert!((mean_log - centre.log2()).abs() < 0.05, "{mean_log}");
    }
}
