//! Hostile net files: the default net's bytes, truncated and with bytes changed (a thousand
//! seeded mutations, most in the header where the parser is), opened as `EvalFile` is.
//! Each must load or be refused with a message naming the file, never panic.

use super::open::{open, EvalSpec};
use super::NetEvaluatorConfig;
use crate::net::device::DeviceChoice;

/// splitmix64, seeded: the same mutations on every machine.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn mutated_net_files_are_loaded_or_refused_never_a_panic() {
    let good = super::embedded::BYTES;
    let header_end = 8 + u64::from_le_bytes(good[..8].try_into().unwrap()) as usize;
    let dir = std::env::temp_dir().join(format!("cerise-corrupt-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mutated.safetensors");
    let mut state = 0xC0FF_EE00_u64;
    let (mut loaded, mut refused) = (0, 0);
    for case in 0..1000 {
        let mut bytes = good.to_vec();
        match case % 4 {
            0 => bytes.truncate((next(&mut state) % good.len() as u64) as usize),
            // The length prefix and the JSON header: where a parser can be led astray.
            1 | 2 => {
                for _ in 0..1 + next(&mut state) % 4 {
                    let at = (next(&mut state) % header_end as u64) as usize;
                    bytes[at] = next(&mut state) as u8;
                }
            }
            _ => {
                let at = (next(&mut state) % good.len() as u64) as usize;
                bytes[at] ^= 1 << (next(&mut state) % 8);
            }
        }
        std::fs::write(&path, &bytes).unwrap();
        let result = std::panic::catch_unwind(|| {
            open(
                &EvalSpec::File(path.clone()),
                DeviceChoice::Cpu,
                NetEvaluatorConfig::default(),
            )
        });
        match result {
            Ok(Ok(_)) => loaded += 1,
            Ok(Err(e)) => {
                assert!(e.contains("mutated.safetensors"), "case {case}: {e}");
                refused += 1;
            }
            Err(_) => panic!("case {case}: opening a mutated net panicked"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(refused > 500, "{loaded} loaded, {refused} refused");
}
