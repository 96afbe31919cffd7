//! Creating a fresh, randomly initialised net file.

use super::{file, NetError, NetMeta, NetModule};
use std::path::Path;
use tch::nn::VarStore;

/// libtorch has one global RNG; holding this while seeding and drawing keeps concurrent
/// initialisations in one process from interleaving draws.
static INIT_LOCK: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

/// Writes a net of `preset` with weights drawn from libtorch's default initialisation under
/// `seed`; the same preset and seed give a byte-identical file (for one libtorch version).
/// Returns the file's content id.
pub fn init_net(preset: &str, seed: u64, out: &Path) -> Result<String, NetError> {
    let meta = NetMeta::for_preset(preset)?;
    let vs = seeded(seed, || {
        let vs = VarStore::new(tch::Device::Cpu);
        NetModule::new(&vs.root(), &meta.arch);
        vs
    });
    file::save(out, &meta, &vs)
}

/// Runs `f` with libtorch's global RNG seeded to `seed` and no other `seeded` call drawing
/// from it meanwhile. Code that draws random tensors outside `seeded` can still disturb it.
pub fn seeded<T>(seed: u64, f: impl FnOnce() -> T) -> T {
    let _guard = INIT_LOCK.lock();
    tch::manual_seed(seed as i64);
    f()
}
