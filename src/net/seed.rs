//! libtorch's one global RNG, seeded for reproducible weights. A leaf of `net`: the files
//! that build modules and their tests draw through it, and it uses none of them.

/// libtorch has one global RNG; holding this while seeding and drawing keeps concurrent
/// initialisations in one process from interleaving draws.
static INIT_LOCK: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

/// Runs `f` with libtorch's global RNG seeded to `seed` and no other `seeded` call drawing
/// from it meanwhile. Code that draws random tensors outside `seeded` can still disturb it.
pub fn seeded<T>(seed: u64, f: impl FnOnce() -> T) -> T {
    let _guard = INIT_LOCK.lock();
    tch::manual_seed(seed as i64);
    f()
}
