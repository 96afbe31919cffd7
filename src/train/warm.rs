//! Warm starts (`init` in the config): a run that begins from a net file's weights instead of
//! fresh ones, e.g. a generation's net from the one whose games it learns from.

use super::model::TrainNet;
use crate::net::file::TensorData;
use crate::net::{Arch, Form, ModelArch, NetFile, NetMeta};
use anyhow::{bail, Context, Result};
use std::path::Path;

/// The net of `path` as the run's start, refused unless it has the run's shape and scale,
/// since a different shape cannot take the weights and a different scale would silently
/// change what the value objective's centipawns mean. Two shapes differ and are taken: a
/// single-output perspective net starts a bucketed one of its width (see [`into_buckets`]),
/// and an unmirrored perspective net starts a king-file mirrored one of its shape (each view
/// then reads the weights as if its king stood on files a–d, which chess without castling
/// rights allows: the mirrored net starts close to its init, not from nothing).
pub fn warm_start(
    path: &Path,
    meta: NetMeta,
    device: tch::Device,
    log: &mut dyn FnMut(&str),
) -> Result<TrainNet> {
    let mut file = crate::net::file::load(path)
        .with_context(|| format!("cannot load the init net {}", path.display()))?;
    if file.meta.arch != meta.arch {
        let (ModelArch::Mlp(from), ModelArch::Mlp(to)) = (&file.meta.arch, &meta.arch) else {
            bail!(shape_error(path, &file.meta, &meta, "another family"));
        };
        let mut from = from.clone();
        if from.king_mirror != to.king_mirror {
            if from.king_mirror {
                bail!(shape_error(
                    path,
                    &file.meta,
                    &meta,
                    "it is king-file mirrored and the preset is not, and its weights of the \
                     king's wing mean the other wing in an unmirrored net"
                ));
            }
            from = match from.clone().mirrored() {
                Ok(m) => m,
                Err(e) => bail!(shape_error(path, &file.meta, &meta, &e.to_string())),
            };
            file.meta.arch = ModelArch::Mlp(from.clone());
            file.meta.encoding = crate::net::KING_MIRROR_ENCODING.to_string();
            log(&format!(
                "warm start: the weights of {} start a king-file mirrored net (each view reads \
                 them as if its king stood on files a-d)",
                path.display()
            ));
        }
        if from != *to {
            if let Err(why) = buckets_from(&from, to) {
                bail!(shape_error(path, &file.meta, &meta, &why));
            }
            file = into_buckets(&file, to);
            log(&format!(
                "warm start: copied the output layer of {} into each of the {} output buckets",
                path.display(),
                to.output_buckets()
            ));
        }
    }
    if file.meta.cp_per_unit != meta.cp_per_unit {
        bail!(
            "the init net {} has cp_per_unit {}, the config {}; set `cp_per_unit = {}`",
            path.display(),
            file.meta.cp_per_unit,
            meta.cp_per_unit,
            file.meta.cp_per_unit
        );
    }
    let mut net = TrainNet::from_file(&file, device)?;
    net.meta = meta;
    Ok(net)
}

fn shape_error(path: &Path, from: &NetMeta, to: &NetMeta, why: &str) -> String {
    let shape = |m: &NetMeta| match &m.arch {
        ModelArch::Mlp(a) => a.widths_string(),
        other => other.describe(),
    };
    format!(
        "the init net {} is a {} net ({}), not the preset {}'s shape ({}): {why}; name a net \
         of the same preset (or, for a preset with output buckets, a single-output net of its \
         width), or drop `init`",
        path.display(),
        from.preset,
        shape(from),
        to.preset,
        shape(to)
    )
}

/// Ok when `to` is `from` with output buckets added: both perspective nets of one hidden
/// width, `from` with a single output. Otherwise why not, in words.
fn buckets_from(from: &Arch, to: &Arch) -> Result<(), String> {
    if from.form != Form::Perspective || to.form != Form::Perspective {
        return Err("the shapes differ".to_string());
    }
    if from.widths[1] != to.widths[1] {
        return Err(format!(
            "its hidden width is {}, the preset's {}",
            from.widths[1], to.widths[1]
        ));
    }
    if from.output_buckets() != 1 {
        return Err(format!(
            "it has {} output buckets and the preset {}; only a single-output net's row can \
             be copied into buckets",
            from.output_buckets(),
            to.output_buckets()
        ));
    }
    Ok(())
}

/// A single-output perspective net as a bucketed one: its output row and bias copied into
/// every bucket, so that the run starts from exactly the init net's scores, and the buckets
/// part as training sees different stages of the game.
fn into_buckets(file: &NetFile, to: &Arch) -> NetFile {
    let buckets = to.output_buckets();
    let mut out = file.clone();
    out.meta.arch = ModelArch::Mlp(to.clone());
    for (name, t) in &mut out.tensors {
        if name == "l1.weight" || name == "l1.bias" {
            let mut shape = t.shape.clone();
            shape[0] = buckets;
            *t = TensorData {
                shape,
                values: t.values.repeat(buckets),
            };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{CompactBoard, Position};
    use tch::Device;

    fn saved(preset: &str, arch: Option<Arch>, tag: &str) -> std::path::PathBuf {
        let mut meta = NetMeta::for_preset(preset).expect("preset");
        if let Some(a) = arch {
            meta.arch = ModelArch::Mlp(a);
        }
        let net = TrainNet::fresh(meta, 11, Device::Cpu);
        let dir = std::env::temp_dir().join(format!("cerise-warm-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("init.safetensors");
        net.save(&path).expect("saves");
        path
    }

    /// Boards of many piece counts, so that several buckets are read.
    fn boards() -> Vec<CompactBoard> {
        crate::net::buckets::capture_walk(Position::startpos(), 120)
    }

    #[test]
    fn a_single_output_net_starts_a_bucketed_run_with_its_own_scores() {
        let path = saved("persp-128", None, "ob");
        let init = TrainNet::from_file(&crate::net::load(&path).expect("loads"), Device::Cpu)
            .expect("loads");
        let meta = NetMeta::for_preset("persp-128-ob8").expect("preset");
        let mut lines = Vec::new();
        let warm = warm_start(&path, meta.clone(), Device::Cpu, &mut |l| {
            lines.push(l.to_string())
        })
        .expect("a warm start");
        assert_eq!(warm.meta, meta);
        assert!(
            lines.iter().any(|l| l.contains("8 output buckets")),
            "{lines:?}"
        );
        let b = boards();
        let read: std::collections::BTreeSet<usize> = b
            .iter()
            .map(|x| crate::net::output_bucket(x.active_features().count(), 8))
            .collect();
        assert!(read.len() >= 4, "buckets read: {read:?}");
        let (want, got) = (init.score(&b), warm.score(&b));
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            assert!((w - g).abs() <= 1e-5, "board {i}: init {w}, warm {g}");
        }
    }

    #[test]
    fn an_unmirrored_net_starts_a_mirrored_run_reading_each_view_from_files_a_to_d() {
        use crate::net::mirror::{flip_board, mirror_block};
        let path = saved("persp-256", None, "hm");
        let init = TrainNet::from_file(&crate::net::load(&path).expect("loads"), Device::Cpu)
            .expect("loads");
        for preset in ["persp-256-hm", "persp-256-ob8-hm"] {
            let meta = NetMeta::for_preset(preset).expect("preset");
            let mut lines = Vec::new();
            let warm = warm_start(&path, meta.clone(), Device::Cpu, &mut |l| {
                lines.push(l.to_string())
            })
            .expect("a warm start");
            assert_eq!(warm.meta, meta);
            assert!(warm.mlp().king_mirror(), "{preset}");
            assert!(
                lines.iter().any(|l| l.contains("king-file mirrored")),
                "{preset}: {lines:?}"
            );
            // Both kings on a-d: the init's own score; both on e-h: the init's score of the
            // board mirrored, which has them on a-d. Boards with one king on each wing mix.
            let b: Vec<CompactBoard> = boards()
                .into_iter()
                .chain(crate::chess::sample_boards(200))
                .collect();
            let (mut same, mut flipped) = (0, 0);
            let (got, want, want_flip) = (
                warm.score(&b),
                init.score(&b),
                init.score(&b.iter().map(flip_board).collect::<Vec<_>>()),
            );
            for (i, board) in b.iter().enumerate() {
                match mirror_block(board) {
                    0 => {
                        assert!((got[i] - want[i]).abs() <= 1e-4, "{preset} board {i}");
                        same += 1;
                    }
                    3 => {
                        assert!((got[i] - want_flip[i]).abs() <= 1e-4, "{preset} board {i}");
                        flipped += 1;
                    }
                    _ => {}
                }
            }
            assert!(same > 0 && flipped > 0, "{preset}: {same} and {flipped}");
        }
    }

    #[test]
    fn a_mirrored_net_does_not_start_an_unmirrored_run() {
        let path = saved("persp-256-hm", None, "unhm");
        let meta = NetMeta::for_preset("persp-256").expect("preset");
        let err = warm_start(&path, meta, Device::Cpu, &mut |_| {})
            .err()
            .expect("refused")
            .to_string();
        assert!(
            err.contains("king-file mirrored and the preset is not"),
            "{err}"
        );
    }

    #[test]
    fn another_width_or_bucket_count_is_refused_by_name() {
        let meta = NetMeta::for_preset("persp-128-ob8").expect("preset");
        let wide = saved("persp-256", None, "wide");
        let err = warm_start(&wide, meta.clone(), Device::Cpu, &mut |_| {})
            .err()
            .expect("refused")
            .to_string();
        assert!(
            err.contains("not the preset persp-128-ob8's shape")
                && err.contains("hidden width is 256"),
            "{err}"
        );
        let four = Arch::with_form(vec![768, 128, 4], Form::Perspective).expect("valid");
        let four = saved("persp-128", Some(four), "four");
        let err = warm_start(&four, meta, Device::Cpu, &mut |_| {})
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains("it has 4 output buckets"), "{err}");
    }
}
