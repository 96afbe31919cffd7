//! Hostile input for the UCI reader: a million seeded lines, real commands mutated at the
//! token and the character level, each parsed with no panic. The black-box side (the engine
//! answering `isready` after such a stream) is engine-tests/test_fuzz.py.

use super::parse_line;

/// Commands a GUI sends, the seeds of the mutations.
const CORPUS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "debug on",
    "position startpos",
    "position startpos moves e2e4 e7e5 g1f3 b8c6",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4",
    "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "go wtime 300000 btime 300000 winc 2000 binc 2000 movestogo 40",
    "go depth 5 searchmoves e2e4 d2d4",
    "go nodes 1000",
    "go movetime 100",
    "go infinite",
    "go ponder wtime 1000 btime 1000",
    "go mate 3",
    "stop",
    "ponderhit",
    "setoption name Hash value 16",
    "setoption name Move Overhead value 100",
    "setoption name MultiPV value 3",
    "setoption name UCI_ShowWDL value true",
    "setoption name UCI_LimitStrength value true",
    "setoption name UCI_Elo value 1600",
    "setoption name Clear Hash",
    "setoption name EvalFile value <material>",
    "setoption name SyzygyPath value /tmp/tb",
    "perft 3",
    "bench 2 1",
    "eval",
    "d",
    "register later",
];

/// Tokens spliced in: keywords in the wrong place, extreme numbers, odd text.
const ODD: &[&str] = &[
    "go",
    "position",
    "fen",
    "moves",
    "startpos",
    "setoption",
    "name",
    "value",
    "depth",
    "wtime",
    "searchmoves",
    "-1",
    "0",
    "18446744073709551616",
    "99999999999999999999",
    "-9223372036854775808",
    "e1g1",
    "e7e8q",
    "a1a1",
    "zz",
    "",
    "\u{0}",
    "\t",
    "é",
    "🙂",
    "8/8/8/8/8/8/8/8",
    "w",
    "-",
    "KQkq",
    "infinite",
];

/// splitmix64: small, seeded and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One hostile line: a corpus command with a few token edits, then maybe character edits.
fn mutated_line(rng: &mut Rng) -> String {
    let base = CORPUS[rng.below(CORPUS.len())];
    let mut tokens: Vec<String> = base.split(' ').map(str::to_string).collect();
    for _ in 0..rng.below(4) {
        let at = rng.below(tokens.len() + 1);
        match rng.below(4) {
            0 => tokens.insert(at, ODD[rng.below(ODD.len())].to_string()),
            1 if at < tokens.len() => {
                tokens.remove(at);
            }
            2 if at < tokens.len() => tokens[at] = ODD[rng.below(ODD.len())].to_string(),
            _ if !tokens.is_empty() => {
                let n = tokens.len();
                let (a, b) = (rng.below(n), rng.below(n));
                tokens.swap(a, b);
            }
            _ => tokens.push(ODD[rng.below(ODD.len())].to_string()),
        }
    }
    let mut chars: Vec<char> = tokens.join(" ").chars().collect();
    if rng.below(3) == 0 {
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(chars.len() + 1);
            let c = char::from_u32(rng.below(0x3000) as u32).unwrap_or('?');
            if at < chars.len() && rng.below(2) == 0 {
                chars[at] = c;
            } else {
                chars.insert(at, c);
            }
        }
    }
    chars.into_iter().collect()
}

#[test]
fn a_million_mutated_lines_parse_without_panic() {
    let mut rng = Rng(0x5EED_C0DE);
    let (mut accepted, mut refused) = (0u32, 0u32);
    for _ in 0..1_000_000 {
        let line = mutated_line(&mut rng);
        match parse_line(&line) {
            Ok(_) => accepted += 1,
            Err(e) => {
                // A refusal must say something a GUI log can show.
                assert!(!e.to_string().is_empty(), "{line:?}");
                refused += 1;
            }
        }
    }
    // Both sides are exercised: the mutations are neither all harmless nor all garbage.
    assert!(
        accepted > 100_000 && refused > 100_000,
        "{accepted} {refused}"
    );
}
