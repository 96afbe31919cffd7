//! How many threads libtorch may use, decided by measurement on few cores: shared by the
//! batcher (per forward), the model (its cap at build) and the throughput tool.

/// Below this many rows a forward is too short for extra intra-op threads to pay for waking.
pub const SMALL_BATCH: usize = 64;

/// The intra-op thread rule for the CPU: a batch of fewer than [`SMALL_BATCH`] rows gets
/// one thread; a larger one gets the cores not taken by searchers still running
/// (`running` = registered searchers without a queued request), at least one. When the
/// flush came from "everyone is waiting" that is every core; when it came from a full
/// batch, running searchers keep theirs, so the two never fight over a core.
pub fn auto_torch_threads(cores: usize, running: usize, rows: usize) -> usize {
    if rows < SMALL_BATCH {
        1
    } else {
        cores.saturating_sub(running).max(1)
    }
}

/// Cores this process may run on (1 if the OS will not say).
pub fn available_cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
