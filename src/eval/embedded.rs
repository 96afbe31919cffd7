//! The default net, compiled into the binary: the engine needs no file beside it, so it
//! works from any directory a GUI starts it in. `EvalFile` = `<embedded>` selects it.
//!
//! The file is nets/[`DEFAULT_NAME`].safetensors unless the build names another with the
//! environment variable `CERISE_EVALFILE` (what `make EVALFILE=…` sets): build.rs passes
//! the path and the stem on as `CERISE_EMBEDDED_PATH` and `CERISE_EMBEDDED_NAME`. The default's
//! name is set in build.rs alone (`CERISE_DEFAULT_NAME`), so a switch of default edits one line.

use crate::net::{load_bytes, NetError, NetFile};

/// The file stem of the shipped default net in nets/ (its card is `nets/<NAME>.md`); the
/// suffix is the content id of its bytes, which a test checks.
pub const DEFAULT_NAME: &str = env!("CERISE_DEFAULT_NAME");

/// The file stem of the embedded net: [`DEFAULT_NAME`] unless the build chose another.
pub const NAME: &str = env!("CERISE_EMBEDDED_NAME");

pub static BYTES: &[u8] = include_bytes!(env!("CERISE_EMBEDDED_PATH"));

/// The embedded net, validated, and the origin to name it by.
pub fn net() -> Result<(NetFile, String), NetError> {
    let origin = format!("{NAME}.safetensors");
    Ok((load_bytes(BYTES, &origin)?, origin))
}

/// Starts a libtorch [`super::NetEvaluator`] on the embedded net.
#[cfg(feature = "torch")]
pub fn load(
    device: crate::net::DeviceChoice,
    config: super::NetEvaluatorConfig,
) -> Result<super::NetEvaluator, NetError> {
    super::NetEvaluator::from_bytes(BYTES, &format!("{NAME}.safetensors"), device, config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_is_the_content_id_of_the_bytes_and_the_file_in_nets() {
        // A build with another net (`make EVALFILE=…`) is not the shipped engine.
        if NAME != DEFAULT_NAME {
            eprintln!("skipped: the embedded net is {NAME}, not the shipped {DEFAULT_NAME}");
            return;
        }
        let id = crate::net::content_id(BYTES);
        assert!(NAME.ends_with(&format!("-{id}")), "{NAME} holds {id}");
        let path = format!("{}/nets/{NAME}.safetensors", env!("CARGO_MANIFEST_DIR"));
        let on_disk = std::fs::read(&path).expect("the embedded net is in nets/");
        assert_eq!(on_disk, BYTES, "{path} differs from the embedded bytes");
        let card = format!("{}/nets/{NAME}.md", env!("CARGO_MANIFEST_DIR"));
        assert!(
            std::path::Path::new(&card).is_file(),
            "{card}: a shipped net needs a card"
        );
    }
}
