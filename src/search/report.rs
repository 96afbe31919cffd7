//! Typed reports from search; the UCI layer formats them.

use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// Mate in this many moves (not plies); negative when the side to move gets mated.
    Mate(i32),
}

/// `cp 31` or `mate -2`: how UCI writes a score, and how `bench` shows one.
impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(moves) => write!(f, "mate {moves}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Lower,
    Upper,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    pub depth: u32,
    pub seldepth: u32,
    /// The line's rank (1 = best) when more than one root line is searched (`MultiPV`).
    pub multipv: Option<u32>,
    pub score: Score,
    /// Win, draw and loss chances of the side to move in per mille (`UCI_ShowWDL`).
    pub wdl: Option<[u32; 3]>,
    /// Set when the score is only a bound (aspiration fail-high/low).
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub nps: u64,
    /// Per mille of the TT in use.
    pub hashfull: u32,
    /// Tablebase hits, when tablebases are loaded.
    pub tbhits: Option<u64>,
    pub time: Duration,
    /// Principal variation in UCI notation.
    pub pv: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SearchEvent {
    Info(Info),
    /// Free text for `info string`, e.g. an evaluator failure.
    Message(String),
    /// `best` is None only when the root has no legal move (UCI `bestmove 0000`).
    BestMove {
        best: Option<String>,
        ponder: Option<String>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    pub best: Option<String>,
    pub ponder: Option<String>,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    /// Nodes the search entered, of `nodes` scored (see `ThreadData::entered`).
    pub entered: u64,
    pub time: Duration,
}
