//! Keeping the memory a training step frees for the next step.
//!
//! WHY. A step of batch 16384 makes tensors of 30–100 MB (the first layer's views of 49,152
//! boards, their activations and gradients). glibc serves every allocation above 32 MB (its
//! largest mmap threshold) with a fresh `mmap` and returns it with `munmap` when freed, so
//! each step faults in and zeroes every page of them again: on this project's 2-core VM that
//! was a large share of a step (bench/records/training-speed.md). With mmap off and the heap
//! never trimmed, freed blocks stay in the process and the next step's tensors of the same
//! sizes reuse them. The cost is that the process keeps its peak footprint (a few GB) until
//! it exits, which a training process does anyway.

/// Tells glibc's allocator to serve large blocks from the heap and never to give freed heap
/// back to the system. A no-op on other C libraries. Call it in a process that trains.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        // glibc's <malloc.h>.
        const M_TRIM_THRESHOLD: i32 = -1;
        const M_MMAP_MAX: i32 = -4;
        // SAFETY: mallopt only sets allocator parameters, both of which glibc documents and
        // which are valid at any time; an allocation glibc cannot serve from the heap falls
        // back to mmap for the main arena regardless of M_MMAP_MAX.
        unsafe {
            mallopt(M_MMAP_MAX, 0);
            mallopt(M_TRIM_THRESHOLD, i32::MAX);
        }
    }
}
