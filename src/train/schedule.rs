//! What changes over a run: the learning rate (Deep Pink's exponential decay, a cosine or a
//! step decay, each after an optional linear warm-up) and the value target's result weight
//! λ. Both are pure functions of the step, so a resumed run continues them exactly.

use super::config::{LrSchedule, TrainConfig};

impl TrainConfig {
    /// The learning rate of step `step` (0-based): a linear warm-up over `warmup_steps`, then
    /// the schedule, counted from the warm-up's end.
    pub fn lr_at(&self, step: u64) -> f64 {
        if step < self.warmup_steps {
            return self.lr0 * (step + 1) as f64 / self.warmup_steps as f64;
        }
        let t = step - self.warmup_steps;
        match self.lr_schedule {
            LrSchedule::Exp if self.tau == 0.0 => self.lr0,
            LrSchedule::Exp => self.lr0 * (-(t as f64) / self.tau).exp(),
            LrSchedule::Cosine => {
                // The last step (steps − 1) gets lr_min exactly.
                let span = self.steps.saturating_sub(self.warmup_steps + 1).max(1);
                let x = (t as f64 / span as f64).min(1.0);
                let half = 0.5 * (1.0 + (std::f64::consts::PI * x).cos());
                self.lr_min + (self.lr0 - self.lr_min) * half
            }
            LrSchedule::Step => {
                let drops = t / self.step_every.max(1);
                self.lr0 * self.step_gamma.powi(drops.min(i32::MAX as u64) as i32)
            }
        }
    }

    /// The value target's result weight at step `step`: `lambda` moving linearly to
    /// `lambda_end` at the last step, or `lambda` throughout.
    pub fn lambda_at(&self, step: u64) -> f64 {
        match self.lambda_end {
            None => self.lambda,
            Some(end) => {
                let x = (step as f64 / self.steps.saturating_sub(1).max(1) as f64).min(1.0);
                self.lambda + (end - self.lambda) * x
            }
        }
    }

    /// The schedule in a few words, for the log and the net's description.
    pub fn lr_description(&self) -> String {
        let shape = match self.lr_schedule {
            LrSchedule::Exp => format!("lr0={} tau={}", self.lr0, self.tau),
            LrSchedule::Cosine => format!("cosine lr {} -> {}", self.lr0, self.lr_min),
            LrSchedule::Step => format!(
                "lr0={} x{} every {} steps",
                self.lr0, self.step_gamma, self.step_every
            ),
        };
        if self.warmup_steps > 0 {
            format!("{shape} after {} warm-up steps", self.warmup_steps)
        } else {
            shape
        }
    }

    /// λ in a few words: `lambda=0.5`, or `lambda=0.2->0.5` on a schedule.
    pub fn lambda_description(&self) -> String {
        match self.lambda_end {
            None => format!("lambda={}", self.lambda),
            Some(end) => format!("lambda={}->{end}", self.lambda),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lr_decays_exponentially() {
        let c = TrainConfig {
            lr0: 0.03,
            tau: 1000.0,
            ..TrainConfig::default()
        };
        assert_eq!(c.lr_at(0), 0.03);
        assert!((c.lr_at(1000) - 0.03 / std::f64::consts::E).abs() < 1e-12);
        let flat = TrainConfig { tau: 0.0, ..c };
        assert_eq!(flat.lr_at(123_456), 0.03);
    }

    #[test]
    fn warm_up_rises_linearly_to_lr0_then_the_cosine_falls_to_lr_min_at_the_last_step() {
        let c = TrainConfig {
            lr0: 1e-3,
            lr_min: 1e-5,
            lr_schedule: LrSchedule::Cosine,
            warmup_steps: 10,
            steps: 110,
            ..TrainConfig::default()
        };
        assert!((c.lr_at(0) - 1e-4).abs() < 1e-15);
        assert!((c.lr_at(4) - 5e-4).abs() < 1e-15);
        assert_eq!(c.lr_at(10), 1e-3);
        // Halfway through the cosine (99 steps after the warm-up): the mean of the two ends.
        let mid = c.lr_at(10 + 99 / 2);
        assert!(mid < 0.51e-3 + 0.5e-5 && mid > 0.49e-3, "{mid}");
        assert!((c.lr_at(109) - 1e-5).abs() < 1e-15);
        assert_eq!(
            c.lr_at(500),
            c.lr_at(109),
            "past the end it stays at lr_min"
        );
        let mut last = f64::INFINITY;
        for s in 10..110 {
            assert!(c.lr_at(s) <= last, "the cosine never rises (step {s})");
            last = c.lr_at(s);
        }
    }

    #[test]
    fn the_step_schedule_drops_by_gamma_every_step_every_steps() {
        let c = TrainConfig {
            lr0: 0.01,
            lr_schedule: LrSchedule::Step,
            step_every: 300,
            step_gamma: 0.1,
            ..TrainConfig::default()
        };
        assert_eq!(c.lr_at(0), 0.01);
        assert_eq!(c.lr_at(299), 0.01);
        assert!((c.lr_at(300) - 0.001).abs() < 1e-15);
        assert!((c.lr_at(900) - 1e-5).abs() < 1e-15);
    }

    #[test]
    fn lambda_moves_linearly_to_lambda_end_or_stays() {
        let c = TrainConfig {
            lambda: 0.2,
            lambda_end: Some(0.5),
            steps: 101,
            ..TrainConfig::default()
        };
        assert_eq!(c.lambda_at(0), 0.2);
        assert!((c.lambda_at(50) - 0.35).abs() < 1e-12);
        assert_eq!(c.lambda_at(100), 0.5);
        assert_eq!(c.lambda_at(1000), 0.5);
        let fixed = TrainConfig {
            lambda_end: None,
            ..c
        };
        assert_eq!(fixed.lambda_at(77), 0.2);
        assert_eq!(fixed.lambda_description(), "lambda=0.2");
    }

    #[test]
    fn a_bad_schedule_is_refused_with_the_setting_to_fix() {
        for (toml, word) in [
            ("lambda_end = 1.5", "lambda_end"),
            ("lr0 = 0.001\nlr_min = 0.01", "lr_min"),
            ("lr_schedule = \"step\"\nstep_every = 0", "step_every"),
            ("step_gamma = 0.0", "step_gamma"),
        ] {
            let err = TrainConfig::from_toml_str(toml, "t").unwrap_err();
            assert!(format!("{err:#}").contains(word), "{toml}: {err:#}");
        }
        let err = TrainConfig::from_toml_str("lr_schedule = \"linear\"", "t").unwrap_err();
        assert!(format!("{err:#}").contains("linear"), "{err:#}");
    }

    #[test]
    fn a_schedule_round_trips_through_toml() {
        let c = TrainConfig::from_toml_str(
            "lr_schedule = \"cosine\"\nwarmup_steps = 200\nlr_min = 0.000005\nlambda_end = 0.6",
            "t",
        )
        .expect("valid");
        assert_eq!(c.lr_schedule, LrSchedule::Cosine);
        assert_eq!(c.lambda_end, Some(0.6));
        let again = TrainConfig::from_toml_str(&c.to_toml().expect("serialises"), "again")
            .expect("round trip");
        assert_eq!(again, c);
        assert!(c.lr_description().contains("cosine"));
        assert!(c.lr_description().contains("200 warm-up"));
    }
}
