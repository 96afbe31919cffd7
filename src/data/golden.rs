//! The files `cerise data triplets` and `cerise data positions` write from the fixture games,
//! pinned by digest: the record-file module that writes them is shared by every kind of data
//! file, and a change to it must not change a byte of what the existing commands write.
//!
//! The digests were taken from the files the commands wrote before that module existed
//! (commit eee3e26, with the input named `mini.pgn` as the headers record it).

use super::positions::{write_positions, Ending, PositionConfig};
use super::testing::fixture::FIXTURE;
use super::testing::temp_dir;
use super::{write_triplets, TripletConfig};
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

/// 64-bit FNV-1a: a short, dependency-free digest of a file's bytes.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn digests(prefix: &Path, ext: &str) -> Vec<(String, u64, usize)> {
    ["train", "valid", "test"]
        .iter()
        .map(|split| {
            let bytes = std::fs::read(format!("{}.{split}.{ext}", prefix.display())).unwrap();
            (split.to_string(), fnv1a(&bytes), bytes.len())
        })
        .collect()
}

fn input() -> BufReader<File> {
    BufReader::new(File::open(FIXTURE).expect("fixture is committed"))
}

fn expect(got: Vec<(String, u64, usize)>, want: [(u64, usize); 3]) {
    let want: Vec<_> = ["train", "valid", "test"]
        .iter()
        .zip(want)
        .map(|(s, (h, n))| (s.to_string(), h, n))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn triplet_files_are_byte_identical_to_the_recorded_ones() {
    let dir = temp_dir("golden-trip");
    // `cerise data triplets mini.pgn` with its defaults.
    let plain = dir.join("t1");
    write_triplets(
        input(),
        "mini.pgn",
        &plain,
        &TripletConfig::default(),
        |_| {},
    )
    .unwrap();
    expect(
        digests(&plain, "trip"),
        [
            (0x0bc8_c4cb_0ff2_984d, 257_931),
            (0xa9a3_58c9_973c_c49d, 18_032),
            (0xacd1_107a_8ed0_e542, 10_698),
        ],
    );
    // `--quiet --split 80,10,10 --seed 7`.
    let quiet = dir.join("t2");
    let config = TripletConfig {
        quiet: true,
        split: "80,10,10".parse().unwrap(),
        seed: 7,
        ..TripletConfig::default()
    };
    write_triplets(input(), "mini.pgn", &quiet, &config, |_| {}).unwrap();
    expect(
        digests(&quiet, "trip"),
        [
            (0x61e6_7eea_ec72_6a38, 189_995),
            (0x82a6_ba04_bb49_1a3b, 30_963),
            (0x2131_3119_3ca1_882e, 83),
        ],
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn position_files_are_byte_identical_to_the_recorded_ones() {
    let dir = temp_dir("golden-pos");
    // `cerise data positions mini.pgn --ending all`.
    let all = dir.join("p1");
    let config = PositionConfig {
        ending: Ending::All,
        ..PositionConfig::default()
    };
    write_positions(input(), "mini.pgn", &all, &config, |_| {}).unwrap();
    expect(
        digests(&all, "pos"),
        [
            (0xd337_b05b_81c4_ded8, 107_661),
            (0xfdc9_b8b8_be23_c9bf, 7_365),
            (0x8c79_3872_14cb_7df7, 4_629),
        ],
    );
    // `--every 3 --skip-plies 4 --test-after 2000.01.01`.
    let sparse = dir.join("p2");
    let config = PositionConfig {
        every: 3,
        skip_plies: 4,
        test_after: Some("2000.01.01".parse().unwrap()),
        ..PositionConfig::default()
    };
    write_positions(input(), "mini.pgn", &sparse, &config, |_| {}).unwrap();
    expect(
        digests(&sparse, "pos"),
        [
            (0xf877_6045_5dd5_c12e, 26_085),
            (0xa9d2_bf02_6d75_ed09, 93),
            (0x7bb8_255d_b8fc_6dd0, 93),
        ],
    );
    std::fs::remove_dir_all(&dir).ok();
}
