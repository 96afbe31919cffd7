//! The move-history tables kept from one `go` to the next of the same game, so that a search
//! starts with what the previous move's search learned about quiet moves instead of from
//! zero. The tables are cleared with the transposition table (`ucinewgame`, `Clear Hash`, a
//! new evaluator, each bench position, each self-play game). Killers are not kept: they are
//! indexed by ply, which shifts every move.
//!
//! Kept tables are aged (divided by [`HISTORY_AGE_DIVISOR`]) as each search takes them:
//! queue 0015 kept them whole and lost, since stale scores from earlier moves then weigh as
//! much as what this search learns.

use super::history::{ContRow, PIECE_TO};
use super::params::HISTORY_AGE_DIVISOR;
use parking_lot::Mutex;

/// Butterfly history by [side to move][from][to].
pub type Butterfly = Box<[[[i32; 64]; 64]]>;
/// Continuation history: `[earlier (piece, destination)][reply (piece, destination)]`.
pub type Continuation = Box<[ContRow]>;

/// One search thread's history tables.
pub struct HistoryTables {
    pub quiet: Butterfly,
    pub cont: Continuation,
}

impl HistoryTables {
    /// Tables at zero, as a new game starts.
    pub fn zeroed() -> Self {
        HistoryTables {
            quiet: vec![[[0; 64]; 64]; 2].into_boxed_slice(),
            cont: vec![[0; PIECE_TO]; PIECE_TO].into_boxed_slice(),
        }
    }

    /// Every entry divided by [`HISTORY_AGE_DIVISOR`] (towards zero).
    fn age(&mut self) {
        let quiet = self.quiet.iter_mut().flatten().flatten();
        for entry in quiet.chain(self.cont.iter_mut().flatten()) {
            *entry /= HISTORY_AGE_DIVISOR;
        }
    }

    /// Zero-length placeholders, left in a thread's place while its tables are handed back.
    pub fn empty() -> Self {
        HistoryTables {
            quiet: Box::new([]),
            cont: Box::new([]),
        }
    }
}

/// Each search thread's tables between searches, by thread id (0 is the main thread).
#[derive(Default)]
pub struct HistoryStore {
    slots: Mutex<Vec<Option<HistoryTables>>>,
}

impl HistoryStore {
    /// Thread `id`'s tables from its last search, aged, or zeroed ones if it has none.
    pub fn take(&self, id: usize) -> HistoryTables {
        let kept = self.slots.lock().get_mut(id).and_then(Option::take);
        match kept {
            Some(mut tables) => {
                tables.age();
                tables
            }
            None => HistoryTables::zeroed(),
        }
    }

    /// Keeps thread `id`'s tables for its next search.
    pub fn put(&self, id: usize, tables: HistoryTables) {
        let mut slots = self.slots.lock();
        if slots.len() <= id {
            slots.resize_with(id + 1, || None);
        }
        slots[id] = Some(tables);
    }

    /// How many threads' tables are kept.
    #[cfg(test)]
    pub fn kept(&self) -> usize {
        self.slots.lock().iter().flatten().count()
    }

    /// Forgets every thread's tables: the next search starts from zero.
    pub fn clear(&self) {
        self.slots.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_come_back_to_their_thread_until_cleared() {
        let store = HistoryStore::default();
        assert_eq!(
            store.take(0).quiet[1][12][28],
            0,
            "a first search starts at zero"
        );
        let mut tables = HistoryTables::zeroed();
        tables.quiet[1][12][28] = 700;
        tables.cont[5][9] = -40;
        store.put(1, tables);
        assert_eq!(
            store.take(0).quiet[1][12][28],
            0,
            "thread 0 has its own slot"
        );
        let back = store.take(1);
        assert_eq!(
            (back.quiet[1][12][28], back.cont[5][9]),
            (700 / HISTORY_AGE_DIVISOR, -40 / HISTORY_AGE_DIVISOR),
            "aged as the next search takes them"
        );
        assert_ne!(HISTORY_AGE_DIVISOR, 1, "aged, not kept whole");
        store.put(1, back);
        store.clear();
        assert_eq!(store.take(1).quiet[1][12][28], 0, "cleared with the game");
    }
}
