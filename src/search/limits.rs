//! What `go` asked for.

use std::time::Duration;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub wtime: Option<Duration>,
    pub btime: Option<Duration>,
    pub winc: Option<Duration>,
    pub binc: Option<Duration>,
    pub movestogo: Option<u32>,
    pub movetime: Option<Duration>,
    /// Clamped by the search to its maximum ply; any u32 is accepted.
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    /// Restrict the root to these moves (UCI notation, already validated as legal).
    pub searchmoves: Vec<String>,
}
