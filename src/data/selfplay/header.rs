//! The self-play file's header: how the games were made. Its fields after the common prefix
//! ([`crate::data::records`]), integers little-endian:
//!
//! | size | field                                                                        |
//! |------|------------------------------------------------------------------------------|
//! | 8    | seed (u64): game `g` is played from the seed stream (seed, g)                |
//! | 4    | nodes (u32): the node budget of every search                                 |
//! | 4    | random plies (u32) played from the start position or the book line           |
//! | 4    | opening bound (u32, cp): starts searched beyond it are skipped               |
//! | 4    | win bound (u32, cp), then 4: win plies (u32): a game whose score stays at or |
//! |      | beyond the bound (for the same side) for that many plies is adjudicated won  |
//! | 4    | draw bound (u32, cp), 4: draw plies, 4: draw after (ply): a long run of      |
//! |      | scores within the bound, after that ply, is adjudicated drawn (0 plies = off)|
//! | 4    | hash (u32, MiB) of each game's transposition table                           |
//! | 4    | max plies (u32): a game still going after them is drawn                      |
//! | 2+N  | net: the evaluator's name (with its content id)                              |
//! | 2+N  | search: the search's bench signature, which names the search's behaviour     |
//! | 2+N  | book: the opening book's path, empty for none                                |
//! | 4+N  | engine: the version that started the file (not compared on resume)           |
//! | 12   | only when one is not 0: the percent of games from a Chess960 start (u32),    |
//! |      | the percent from a double Chess960 start (u32), and the depth limit of every |
//! |      | search (u32, 0 for none, the node budget alone); files without them read as  |
//! |      | 0, 0 and 0, so every file made before they existed keeps its bytes           |
//!
//! Every field but the count and the engine is a setting: a run resumes a file only with the
//! same settings, so all its games were made alike.

use super::super::records::{file_header_items, formats, ByteReader, ByteWriter, FileHeader};
use super::record::SelfPlayRecord;
use anyhow::{ensure, Result};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayHeader {
    pub version: u32,
    pub count: u64,
    pub seed: u64,
    pub nodes: u32,
    pub random_plies: u32,
    pub opening_bound: u32,
    pub win_bound: u32,
    pub win_plies: u32,
    pub draw_bound: u32,
    pub draw_plies: u32,
    pub draw_after: u32,
    pub hash_mib: u32,
    pub max_plies: u32,
    pub net: String,
    pub search: String,
    pub book: String,
    pub engine: String,
    /// Percent of the games started from a Chess960 position.
    pub chess960_percent: u32,
    /// Percent of the games started from a double Chess960 position.
    pub double_chess960_percent: u32,
    /// The depth limit of every search beside the node budget; 0 for none.
    pub depth: u32,
}

impl FileHeader for SelfPlayHeader {
    file_header_items!(SelfPlayRecord, &formats::SELFPLAY);

    fn write_fields(&self, out: &mut ByteWriter) -> Result<()> {
        out.u64(self.seed);
        for v in [
            self.nodes,
            self.random_plies,
            self.opening_bound,
            self.win_bound,
            self.win_plies,
            self.draw_bound,
            self.draw_plies,
            self.draw_after,
            self.hash_mib,
            self.max_plies,
        ] {
            out.u32(v);
        }
        out.str16(&self.net, "net name")?;
        out.str16(&self.search, "search signature")?;
        out.str16(&self.book, "book path")?;
        out.str32(&self.engine, "engine version")?;
        let extras = [
            self.chess960_percent,
            self.double_chess960_percent,
            self.depth,
        ];
        if extras.iter().any(|&v| v > 0) {
            for v in extras {
                out.u32(v);
            }
        }
        Ok(())
    }

    fn read_fields(version: u32, count: u64, input: &mut ByteReader) -> Result<Self> {
        let seed = input.u64("seed")?;
        let mut v = [0u32; 10];
        for (value, name) in v.iter_mut().zip([
            "nodes",
            "random plies",
            "opening bound",
            "win bound",
            "win plies",
            "draw bound",
            "draw plies",
            "draw after",
            "hash",
            "max plies",
        ]) {
            *value = input.u32(name)?;
        }
        ensure!(v[0] > 0, "header node budget is 0; the file is corrupt");
        let (net, search, book) = (
            input.str16("net name")?,
            input.str16("search signature")?,
            input.str16("book path")?,
        );
        let engine = input.str32("engine version")?;
        let (chess960_percent, double_chess960_percent, depth) = if input.remaining() > 0 {
            (
                input.u32("Chess960 percent")?,
                input.u32("double Chess960 percent")?,
                input.u32("depth")?,
            )
        } else {
            (0, 0, 0)
        };
        Ok(SelfPlayHeader {
            version,
            count,
            seed,
            nodes: v[0],
            random_plies: v[1],
            opening_bound: v[2],
            win_bound: v[3],
            win_plies: v[4],
            draw_bound: v[5],
            draw_plies: v[6],
            draw_after: v[7],
            hash_mib: v[8],
            max_plies: v[9],
            net,
            search,
            book,
            engine,
            chess960_percent,
            double_chess960_percent,
            depth,
        })
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("seed", self.seed.to_string()),
            ("nodes", self.nodes.to_string()),
            ("random plies", self.random_plies.to_string()),
            ("opening bound", self.opening_bound.to_string()),
            ("win bound", self.win_bound.to_string()),
            ("win plies", self.win_plies.to_string()),
            ("draw bound", self.draw_bound.to_string()),
            ("draw plies", self.draw_plies.to_string()),
            ("draw after", self.draw_after.to_string()),
            ("hash", self.hash_mib.to_string()),
            ("max plies", self.max_plies.to_string()),
            ("net", format!("'{}'", self.net)),
            ("search signature", self.search.clone()),
            ("book", format!("'{}'", self.book)),
            ("Chess960 percent", self.chess960_percent.to_string()),
            (
                "double Chess960 percent",
                self.double_chess960_percent.to_string(),
            ),
            ("depth", self.depth.to_string()),
        ]
    }
}

/// A self-play header with every setting given, for the tests of the files that read and
/// write self-play records.
#[cfg(test)]
pub fn selfplay_header() -> SelfPlayHeader {
    SelfPlayHeader {
        version: 1,
        count: 0,
        seed: 42,
        nodes: 5000,
        random_plies: 8,
        opening_bound: 300,
        win_bound: 1000,
        win_plies: 8,
        draw_bound: 10,
        draw_plies: 16,
        draw_after: 80,
        hash_mib: 8,
        max_plies: 400,
        net: "cerise-narrow-as-4d5eebc5ebf8".into(),
        search: "1164211".into(),
        book: String::new(),
        engine: "cerise 0.1.0".into(),
        chess960_percent: 0,
        double_chess960_percent: 0,
        depth: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::records::header::decode;
    use super::super::super::testing::assert_header_round_trips;
    use super::*;

    #[test]
    fn header_round_trips_and_names_its_settings() {
        let h = SelfPlayHeader {
            count: 17,
            ..selfplay_header()
        };
        let bytes = assert_header_round_trips(&h);
        assert_eq!(&bytes[..8], b"CRSSELF1");
        let names: Vec<_> = h.settings().into_iter().map(|(n, _)| n).collect();
        assert!(names.contains(&"nodes") && names.contains(&"net") && !names.contains(&"engine"));
        let mut bad = bytes.clone();
        bad[36..40].copy_from_slice(&0u32.to_le_bytes());
        let err = decode::<SelfPlayHeader>(&bad).unwrap_err().to_string();
        assert!(err.contains("node budget is 0"), "{err}");
    }

    #[test]
    fn chess960_shares_and_a_depth_are_stored_only_when_asked_for() {
        let plain = assert_header_round_trips(&selfplay_header());
        let h = SelfPlayHeader {
            chess960_percent: 20,
            double_chess960_percent: 5,
            ..selfplay_header()
        };
        let shares = assert_header_round_trips(&h);
        assert_eq!(shares.len(), plain.len() + 12);
        let deep = assert_header_round_trips(&SelfPlayHeader {
            depth: 9,
            ..selfplay_header()
        });
        assert_eq!(decode::<SelfPlayHeader>(&deep).unwrap().depth, 9);
        let back: SelfPlayHeader = decode(&shares).unwrap();
        assert_eq!(
            (back.chess960_percent, back.double_chess960_percent),
            (20, 5)
        );
        let names: Vec<_> = h.settings().into_iter().map(|(n, _)| n).collect();
        assert!(names.contains(&"Chess960 percent"), "{names:?}");
    }
}
