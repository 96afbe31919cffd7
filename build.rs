// tch gives downstream binaries no rpath, so without this the engine needs LD_LIBRARY_PATH.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        return;
    };
    println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    if std::env::var_os("CARGO_FEATURE_CUDA").is_some() {
        // The linker drops libtorch_cuda as unused (nothing references it by symbol);
        // then CUDA reports unavailable at run time.
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
        println!("cargo:rustc-link-arg=-ltorch_cuda");
        println!("cargo:rustc-link-arg=-Wl,--as-needed");
    }
}
