//! Reading every game of a PGN stream, with unreadable games counted as skipped and a clear
//! error when the input is not PGN at all.

use super::filter::SkipReason;
use super::pgn::{GameFilter, GameOutcome, GameVisitor};
use anyhow::{bail, Context, Result};
use pgn_reader::Reader;
use std::io::{self, Read};
use std::ops::ControlFlow;

/// Give up after this many PGN syntax errors in a row: the input is not PGN (or the
/// decompressor keeps failing), and counting forever would hide it.
pub const MAX_CONSECUTIVE_ERRORS: u32 = 1000;

/// Calls `each(game_index, outcome)` for every game of `input` (uncompressed PGN), in order,
/// until the input ends, `limit` games have been read, or `each` breaks. Every game read counts in the index, kept or not,
/// so that splits by game index agree between the data commands. `source` names the input in
/// errors.
pub fn for_each_game<R: Read>(
    input: R,
    source: &str,
    filter: GameFilter,
    limit: Option<u64>,
    mut each: impl FnMut(u64, GameOutcome) -> Result<ControlFlow<()>>,
) -> Result<()> {
    let mut reader = Reader::new(input);
    let mut visitor = GameVisitor::new(filter);
    let mut consecutive_errors = 0u32;
    let mut index = 0u64;
    while limit.is_none_or(|max| index < max) {
        let outcome = match reader.read_game(&mut visitor) {
            Ok(None) => return Ok(()),
            Ok(Some(outcome)) => {
                consecutive_errors = 0;
                outcome
            }
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                consecutive_errors += 1;
                if consecutive_errors >= MAX_CONSECUTIVE_ERRORS {
                    bail!(
                        "{source}: {consecutive_errors} unreadable games in a row, last: {e}; \
                         is this a PGN file?"
                    );
                }
                Err(SkipReason::PgnSyntax)
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read {source}")),
        };
        if each(index, outcome)?.is_break() {
            return Ok(());
        }
        index += 1;
    }
    Ok(())
}
