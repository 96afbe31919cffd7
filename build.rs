// tch gives downstream binaries no rpath, so without this the engine needs LD_LIBRARY_PATH.
// It also chooses the net compiled into the binary (see src/eval/embedded.rs).
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    embedded_net();
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

/// The file stem of the shipped default net in nets/ (its card is `nets/<DEFAULT>.md`). This is
/// the one place it is named: the crate reads it as `CERISE_DEFAULT_NAME`.
const DEFAULT: &str = "cerise-persp-256-a65255c99aad";

/// The file stem of the shipped Chess960 net in nets/: what `EvalFile` = `<embedded>` plays
/// with under `UCI_Chess960` (a net that plays Chess960 better than [`DEFAULT`] and was not
/// shown to match it from standard openings). The crate reads it as
/// `CERISE_DEFAULT_CHESS960_NAME`.
const DEFAULT_CHESS960: &str = "cerise-persp-256-96cdd861f83e";

/// `CERISE_EVALFILE` (set by `make EVALFILE=…`, for OpenBench) names a .safetensors net to
/// embed instead of the shipped default; a relative path is taken from the crate root. Such a
/// build embeds that one net for Chess960 too: a tester who names a net means that net.
fn embedded_net() {
    println!("cargo:rustc-env=CERISE_DEFAULT_NAME={DEFAULT}");
    println!("cargo:rustc-env=CERISE_DEFAULT_CHESS960_NAME={DEFAULT_CHESS960}");
    println!("cargo:rerun-if-env-changed=CERISE_EVALFILE");
    let root = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let chosen = std::env::var("CERISE_EVALFILE")
        .ok()
        .filter(|file| !file.trim().is_empty());
    let shipped = |stem: &str| root.join("nets").join(format!("{stem}.safetensors"));
    let (path, path_chess960) = match &chosen {
        Some(file) => (root.join(file.trim()), root.join(file.trim())),
        None => (shipped(DEFAULT), shipped(DEFAULT_CHESS960)),
    };
    let slots = [
        (&path, DEFAULT, ""),
        (&path_chess960, DEFAULT_CHESS960, "_CHESS960"),
    ];
    for (path, stem, slot) in slots {
        // include_bytes! would fail with a less helpful message; each cause names its own fix.
        if !path.is_file() {
            let shown = path.display();
            match chosen {
                Some(_) => panic!(
                    "CERISE_EVALFILE: no net file at {shown} (a relative path is taken from the \
                     crate root); name an existing .safetensors net, or unset CERISE_EVALFILE \
                     to embed the default"
                ),
                None => panic!(
                    "the shipped net {stem} is missing: no file at {shown}. It ships in nets/ \
                     with the sources; restore it (git checkout -- nets/{stem}.safetensors), \
                     or set CERISE_EVALFILE to another .safetensors net"
                ),
            }
        }
        let file_stem = path.file_stem().unwrap_or_default().to_string_lossy();
        println!("cargo:rerun-if-changed={}", path.display());
        println!(
            "cargo:rustc-env=CERISE_EMBEDDED{slot}_PATH={}",
            path.display()
        );
        println!("cargo:rustc-env=CERISE_EMBEDDED{slot}_NAME={file_stem}");
    }
}
