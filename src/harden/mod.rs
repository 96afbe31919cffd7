//! Hard examples for the triplet objective (issue #6; Deep Pink's own proposal): rewrite a
//! triplet file so that, where the net disagrees with the move played, `r` is the child the
//! net likes best instead of a random one.
//!
//! A random `r` is usually a bad move, so `f(q) > f(r)` is soon easy and stops teaching. The
//! net's own favourite among the other moves is the contrast it gets wrong: the objective
//! then pushes the played move above it. Where the net already prefers the played move, the
//! triplet keeps its random `r` (there is no disagreement to learn from), and `--share`
//! hardens only a fraction of the triplets, so the file mixes both kinds.
//!
//! The net's favourite is the child with the lowest score: every evaluator scores a board
//! for its side to move, which at a child is the opponent. Children are regenerated from the
//! stored board `p` (side to move as White, castling rights guessed from the pieces; en
//! passant is not stored), with the file's quiet filter applied; a triplet whose `q` is not
//! among them is copied unchanged and counted.
//!
//! This module sits above `eval` and `data`: `data` never runs a net.

use crate::chess::compact::position_of;
use crate::chess::CompactBoard;
use crate::data::rng::SplitMix64;
use crate::data::{Triplet, TripletReader, TripletWriter};
use crate::eval::Evaluator;
use crate::net::device::DeviceChoice;
use anyhow::{bail, Context, Result};
use shakmaty::Position as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Rewrite a triplet file with hard negatives: where the net prefers another move to the
/// one played, `r` becomes that move's child.
#[derive(clap::Args, Clone, Debug)]
pub struct HardenArgs {
    /// The triplet file to read (from `cerise data triplets`).
    #[arg(long)]
    pub input: PathBuf,
    /// Where the rewritten file goes; written as `<out>.partial` and renamed when complete.
    #[arg(long)]
    pub out: PathBuf,
    /// The net that chooses (`EvalFile` syntax: a path, or `<embedded>`).
    #[arg(long, default_value = "<embedded>")]
    pub eval: String,
    /// Fraction of the triplets offered to the net; the others keep their random `r`.
    #[arg(long, default_value_t = 0.5)]
    pub share: f64,
    /// Seed of the draw that picks the offered triplets.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (each scores its share of a batch).
    #[arg(long, default_value_t = 2)]
    pub jobs: usize,
    /// Replace an existing output file.
    #[arg(long)]
    pub force: bool,
}

/// What happened to one triplet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not offered to the net (`--share`).
    NotOffered,
    /// The net's favourite is the move played: `r` stays random.
    Agrees,
    /// `r` replaced by the net's favourite.
    Hardened,
    /// `q` is not among the regenerated children (e.g. castling with lost rights): copied.
    Unmatched,
}

/// Counts by outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HardenCounts {
    pub not_offered: u64,
    pub agrees: u64,
    pub hardened: u64,
    pub unmatched: u64,
}

impl HardenCounts {
    fn add(&mut self, o: Outcome) {
        match o {
            Outcome::NotOffered => self.not_offered += 1,
            Outcome::Agrees => self.agrees += 1,
            Outcome::Hardened => self.hardened += 1,
            Outcome::Unmatched => self.unmatched += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.not_offered + self.agrees + self.hardened + self.unmatched
    }

    /// How often the net's favourite is the move played, among the triplets it judged.
    pub fn agreement(&self) -> f64 {
        let judged = self.agrees + self.hardened;
        self.agrees as f64 / judged.max(1) as f64
    }

    /// `cerise data harden`'s report, for the file written at `out`.
    pub fn report(&self, out: &Path) -> String {
        format!(
            "{} triplets written to {}: {} hardened, {} kept random where the net agrees with \
             the move played ({:.1}% of those it judged), {} not offered, {} whose played \
             move could not be regenerated",
            self.total(),
            out.display(),
            self.hardened,
            self.agrees,
            100.0 * self.agreement(),
            self.not_offered,
            self.unmatched
        )
    }
}

/// Offers `t` to `eval`: returns the triplet to write and what happened. `quiet` applies
/// the file's quiet filter to the children.
pub fn harden_one(
    t: &Triplet,
    quiet: bool,
    eval: &dyn Evaluator,
    scores: &mut Vec<f32>,
) -> Result<(Triplet, Outcome)> {
    let Some(pos) = position_of(&t.p) else {
        return Ok((*t, Outcome::Unmatched));
    };
    let mut moves = pos.legal_moves();
    if quiet {
        moves.retain(|m| !m.is_capture() && !m.is_promotion());
    }
    let children: Vec<CompactBoard> = moves
        .iter()
        .map(|m| {
            let mut c = pos.clone();
            c.play_unchecked(*m);
            CompactBoard::from_chess(&c)
        })
        .collect();
    let Some(played) = children.iter().position(|c| *c == t.q) else {
        return Ok((*t, Outcome::Unmatched));
    };
    eval.evaluate_children(&t.p, &children, scores)
        .map_err(|e| anyhow::anyhow!("the net failed: {e}"))?;
    // The lowest child score is the parent's best; ties go to the first, so the played
    // move must be strictly beaten to count as a disagreement.
    let favourite =
        (0..children.len()).fold(
            played,
            |best, i| if scores[i] < scores[best] { i } else { best },
        );
    if favourite == played {
        return Ok((*t, Outcome::Agrees));
    }
    Ok((
        Triplet {
            r: children[favourite],
            ..*t
        },
        Outcome::Hardened,
    ))
}

/// Runs `cerise data harden`: progress on stderr, the counts returned.
pub fn run_harden_cli(args: &HardenArgs) -> Result<HardenCounts> {
    if !(0.0..=1.0).contains(&args.share) {
        bail!("--share {} is not a fraction; give 0 to 1", args.share);
    }
    if args.jobs == 0 {
        bail!("--jobs 0: give at least one worker");
    }
    if args.out.exists() && !args.force {
        bail!(
            "{} already exists; pass --force to replace it or choose another --out",
            args.out.display()
        );
    }
    if args.out == args.input {
        bail!("--out is --input; write the hardened file somewhere else");
    }
    let mut reader = TripletReader::open(&args.input)?;
    let eval = crate::eval::open::open_text(&args.eval, DeviceChoice::Cpu, Default::default())
        .map_err(|e| anyhow::anyhow!("--eval {}: {e}", args.eval))?;
    let info = eval.info();
    let mut header = reader.header().clone();
    let quiet = header.quiet;
    header.source = format!(
        "{} hardened by {} (share {}, seed {})",
        header.source, info.name, args.share, args.seed
    );
    let total = reader.len();
    let mut writer = TripletWriter::create(&args.out, header)?;
    let mut rng = SplitMix64::new(args.seed);
    let mut counts = HardenCounts::default();
    let mut batch = Vec::new();
    let started = Instant::now();
    let mut last_report = Instant::now();
    eprintln!(
        "[harden] {} triplets of {} with {}, {} workers",
        total,
        args.input.display(),
        info.name,
        args.jobs
    );
    loop {
        let n = reader.read_batch(8192, &mut batch)?;
        if n == 0 {
            break;
        }
        // The draw is made here, in file order, so the result does not depend on --jobs.
        let offered: Vec<bool> = batch.iter().map(|_| rng.next_unit() < args.share).collect();
        let chunk = batch.len().div_ceil(args.jobs);
        let results: Vec<Result<Vec<(Triplet, Outcome)>>> = std::thread::scope(|s| {
            let workers: Vec<_> = batch
                .chunks(chunk)
                .zip(offered.chunks(chunk))
                .map(|(ts, offers)| {
                    let eval = &eval;
                    s.spawn(move || {
                        let mut scores = Vec::new();
                        ts.iter()
                            .zip(offers)
                            .map(|(t, &offer)| {
                                if offer {
                                    harden_one(t, quiet, eval.as_ref(), &mut scores)
                                } else {
                                    Ok((*t, Outcome::NotOffered))
                                }
                            })
                            .collect()
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("a harden worker panicked"))
                .collect()
        });
        for part in results {
            for (t, o) in part? {
                writer.write(&t)?;
                counts.add(o);
            }
        }
        if last_report.elapsed().as_secs() >= 10 {
            last_report = Instant::now();
            let done = counts.total();
            let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-9);
            eprintln!(
                "[harden] {done}/{total} ({rate:.0}/s, eta {:.0} min): {} hardened, net agrees \
                 with the move played {:.1}%",
                (total - done) as f64 / rate.max(1e-9) / 60.0,
                counts.hardened,
                100.0 * counts.agreement()
            );
        }
    }
    let written = writer
        .finish()
        .with_context(|| format!("cannot finish {}", args.out.display()))?;
    debug_assert_eq!(written, counts.total());
    Ok(counts)
}

#[cfg(test)]
mod tests;
