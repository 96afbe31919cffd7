//! Which implementation runs a net: libtorch (the reference, the trainer's, the GPU path) or
//! the native CPU code in `eval::native`. Both read the same `.safetensors` file. Which one
//! a setting means on a device is the opener's rule, in `eval::route`.

/// How a build without the `torch` feature starts refusing what needs libtorch.
pub const NO_LIBTORCH: &str = "this build has no libtorch (it was built without the `torch` \
     feature, e.g. by `make`); build with default features (`cargo build --release`, or \
     scripts/setup.sh) for the torch backend, CUDA, and CNN and policy nets";

choice_enum! {
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub enum Backend("backend") {
        /// Native unless CUDA is asked for by name (`Device cuda`): on one H200 the native
        /// code on that machine's CPUs searched 11× the nodes a second of libtorch on the GPU
        /// fed by 16 threads (bench/records/gpu.md), so a GPU found by `Device auto` is left to
        /// the nets the native code does not run.
        #[default]
        Auto = "auto",
        Native = "native",
        Torch = "torch",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_every_name() {
        for b in [Backend::Auto, Backend::Native, Backend::Torch] {
            assert_eq!(b.to_string().parse::<Backend>(), Ok(b));
        }
        assert_eq!(" NATIVE ".parse::<Backend>(), Ok(Backend::Native));
        let e = "onnx".parse::<Backend>().unwrap_err();
        assert!(e.contains("onnx") && e.contains("native"), "{e}");
    }
}
