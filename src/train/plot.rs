//! Training curves as a PNG: losses, the validation accuracy and the validation's third
//! measure, each named as the run's objective defines it ([`Measures`]).
//!
//! Text needs a font: plotters' `ab_glyph` backend is given DejaVu Sans from the Debian
//! `fonts-dejavu-core` path when it exists; otherwise the curves are drawn without any text.
//! A plot is a convenience, so callers warn on error rather than fail the run.

use super::config::ObjectiveKind;
use super::metrics::Row;
use anyhow::{anyhow, ensure, Result};
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

const FONT_PATH: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Whether a font is registered for labels; tried once per process.
fn font_available() -> bool {
    static FONT: OnceLock<bool> = OnceLock::new();
    *FONT.get_or_init(|| {
        let Ok(bytes) = std::fs::read(FONT_PATH) else {
            return false;
        };
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
    })
}

type Series<'a> = (&'a str, RGBColor, Box<dyn Fn(&Row) -> f64>);

/// What a metrics row's `valid_accuracy` and `valid_mean_abs_pq` columns hold: the CSV keeps
/// one set of column names for every objective, so the plot says what each one is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measures {
    /// The panel title for `valid_accuracy`.
    pub accuracy: &'static str,
    /// The panel title for `valid_mean_abs_pq`, or `None` when the objective leaves it 0.
    pub extra: Option<&'static str>,
}

impl Measures {
    pub fn of(objective: ObjectiveKind) -> Measures {
        let (accuracy, extra) = match objective {
            ObjectiveKind::Triplet => ("valid ordering accuracy", Some("valid mean |f(p)+f(q)|")),
            ObjectiveKind::Winloss => ("valid winner predicted (decisive positions)", None),
            ObjectiveKind::Policy => (
                "valid piece selector top-1",
                Some("valid move selectors top-1"),
            ),
            ObjectiveKind::Value => (
                "valid winner favoured (decisive positions)",
                Some("valid mean |score - search score| (cp)"),
            ),
            ObjectiveKind::Mixed => (
                "valid ordering accuracy (best move over a random one)",
                Some("valid mean |score - search score| (cp)"),
            ),
        };
        Measures { accuracy, extra }
    }
}

pub fn plot(rows: &[Row], path: &Path, title: &str, measures: Measures) -> Result<()> {
    ensure!(!rows.is_empty(), "no metrics rows to plot yet");
    let text = font_available();
    let root = BitMapBackend::new(path, (1200, 900)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let mut groups: Vec<(&str, Vec<Series>)> = vec![
        (
            "loss",
            vec![
                ("train loss", RED, Box::new(|r: &Row| r.train_loss)),
                ("valid loss", BLUE, Box::new(|r: &Row| r.valid_loss)),
            ],
        ),
        (
            measures.accuracy,
            vec![("accuracy", GREEN, Box::new(|r: &Row| r.valid_accuracy))],
        ),
    ];
    if let Some(extra) = measures.extra {
        groups.push((
            extra,
            vec![(extra, MAGENTA, Box::new(|r: &Row| r.valid_mean_abs_pq))],
        ));
    }
    let panels = root.split_evenly((groups.len(), 1));
    let x_max = rows.iter().map(|r| r.step).max().unwrap_or(1).max(1) as f64;
    for (i, (panel, (name, series))) in panels.iter().zip(&groups).enumerate() {
        let values: Vec<f64> = series
            .iter()
            .flat_map(|(_, _, f)| rows.iter().map(f))
            .filter(|v| v.is_finite())
            .collect();
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = if lo.is_finite() && hi > lo {
            let pad = (hi - lo) * 0.05;
            (lo - pad, hi + pad)
        } else {
            (lo.min(0.0) - 1.0, hi.max(0.0) + 1.0)
        };
        let mut builder = ChartBuilder::on(panel);
        builder.margin(10);
        if text {
            let caption = if i == 0 {
                format!("{title}: {name}")
            } else {
                name.to_string()
            };
            builder
                .caption(caption, ("sans-serif", 18))
                .x_label_area_size(30)
                .y_label_area_size(60);
        }
        let mut chart = builder
            .build_cartesian_2d(0f64..x_max, lo..hi)
            .map_err(|e| anyhow!("{e}"))?;
        let mut mesh = chart.configure_mesh();
        if !text {
            mesh.disable_x_mesh()
                .disable_y_mesh()
                .x_labels(0)
                .y_labels(0);
        }
        mesh.draw().map_err(|e| anyhow!("{e}"))?;
        for (label, color, f) in series {
            let color = *color;
            let drawn = chart
                .draw_series(LineSeries::new(
                    rows.iter().map(|r| (r.step as f64, f(r))),
                    color.stroke_width(2),
                ))
                .map_err(|e| anyhow!("{e}"))?;
            if text {
                drawn.label(*label).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            }
        }
        if text {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(|e| anyhow!("{e}"))?;
        }
    }
    root.present()
        .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_png() {
        let rows: Vec<Row> = (1..=5)
            .map(|i| Row {
                step: i * 10,
                lr: 0.03,
                train_loss: 3.0 - i as f64 * 0.1,
                valid_loss: 3.1 - i as f64 * 0.1,
                valid_accuracy: 0.5 + i as f64 * 0.02,
                valid_mean_abs_pq: 0.2,
                elapsed_s: i as f64,
                boards_per_s: 100.0,
            })
            .collect();
        let path = std::env::temp_dir().join(format!("cerise-plot-{}.png", std::process::id()));
        for objective in [ObjectiveKind::Triplet, ObjectiveKind::Winloss] {
            std::fs::remove_file(&path).ok();
            plot(&rows, &path, "test", Measures::of(objective)).expect("plot writes");
            let bytes = std::fs::read(&path).expect("png exists");
            assert_eq!(&bytes[1..4], b"PNG");
        }
        let m = Measures::of(ObjectiveKind::Triplet);
        assert!(plot(&[], &path, "empty", m).is_err());
        std::fs::remove_file(&path).ok();
    }

    #[test]
    fn each_objective_names_its_own_measures() {
        // The value objectives' third column is a centipawn error, not Deep Pink's
        // |f(p)+f(q)|, and win/loss runs leave it 0: the plot must not call them that.
        let mixed = Measures::of(ObjectiveKind::Mixed);
        assert!(mixed.extra.unwrap().contains("search score"));
        assert!(mixed.accuracy.contains("best move"));
        let value = Measures::of(ObjectiveKind::Value);
        assert!(value.accuracy.contains("winner favoured"));
        assert_eq!(Measures::of(ObjectiveKind::Winloss).extra, None);
        assert!(Measures::of(ObjectiveKind::Triplet)
            .extra
            .unwrap()
            .contains("f(p)+f(q)"));
    }
}
