//! Hostile self-play files: a valid file truncated and with bytes changed (a thousand seeded
//! mutations), read end to end as `datagen info --check` and the trainer read it. Each must
//! read or be refused with an error, never panic.

use super::header::selfplay_header;
use super::record::{Outcome, SelfPlayRecord};
use super::{SelfPlayAppender, SelfPlayReader};
use crate::data::rng::SplitMix64;
use crate::data::testing::temp_dir;
use shakmaty::{Chess, Position as _};

/// Every record, replayed; the first error stops it.
fn read_everything(path: &std::path::Path) -> anyhow::Result<u64> {
    let mut reader = SelfPlayReader::open(path)?;
    let (mut batch, mut n) = (Vec::new(), 0);
    while reader.read_batch(1000, &mut batch)? > 0 {
        for r in &batch {
            r.position_and_move()?;
            n += 1;
        }
    }
    Ok(n)
}

#[test]
fn mutated_selfplay_files_are_read_or_refused_never_a_panic() {
    let dir = temp_dir("corrupt-selfplay");
    let good_path = dir.join("good.self");
    let (mut out, _) = SelfPlayAppender::open(&good_path, selfplay_header()).unwrap();
    let mut pos = Chess::default();
    for ply in 0..40u16 {
        let moves = pos.legal_moves();
        let m = moves[usize::from(ply) * 7 % moves.len()];
        out.push(&SelfPlayRecord::new(&pos, 10, &m, ply, Outcome::Draw, 0));
        pos = pos.play(m).unwrap();
    }
    out.commit().unwrap();
    drop(out);
    assert_eq!(read_everything(&good_path).unwrap(), 40);
    let good = std::fs::read(&good_path).unwrap();
    let path = dir.join("mutated.self");
    let mut rng = SplitMix64::new(0xDA7A);
    let (mut read, mut refused) = (0, 0);
    for case in 0..1000 {
        let mut bytes = good.clone();
        if case % 3 == 0 {
            bytes.truncate((rng.next_u64() % good.len() as u64) as usize);
        } else {
            for _ in 0..1 + rng.next_u64() % 3 {
                let at = (rng.next_u64() % good.len() as u64) as usize;
                bytes[at] = rng.next_u64() as u8;
            }
        }
        std::fs::write(&path, &bytes).unwrap();
        match std::panic::catch_unwind(|| read_everything(&path)) {
            Ok(Ok(_)) => read += 1,
            Ok(Err(e)) => {
                assert!(!format!("{e:#}").is_empty());
                refused += 1;
            }
            Err(_) => panic!("case {case}: reading a mutated self-play file panicked"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(refused > 300, "{read} read, {refused} refused");
}
