//! The default net, compiled into the binary: the engine needs no file beside it, so it
//! works from any directory a GUI starts it in. `EvalFile` = `<embedded>` selects it.
//!
//! A second net rides along for Chess960: `<embedded>` plays with it while `UCI_Chess960` is
//! on, and `<embedded960>` names it outright. It is the net that played better from Chess960
//! starts than the default, by match; it was not shown to equal the default from standard
//! openings, so standard play keeps the default.
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

/// The file stem of the shipped Chess960 net in nets/ (its card is `nets/<NAME>.md`).
pub const DEFAULT_CHESS960_NAME: &str = env!("CERISE_DEFAULT_CHESS960_NAME");

/// The file stem of the embedded Chess960 net: [`DEFAULT_CHESS960_NAME`] unless the build
/// chose another net, which then serves both.
pub const CHESS960_NAME: &str = env!("CERISE_EMBEDDED_CHESS960_NAME");

pub static CHESS960_BYTES: &[u8] = include_bytes!(env!("CERISE_EMBEDDED_CHESS960_PATH"));

/// The embedded net, validated, and the origin to name it by.
pub fn net() -> Result<(NetFile, String), NetError> {
    validated(BYTES, NAME)
}

/// The embedded Chess960 net, validated, and the origin to name it by.
pub fn chess960_net() -> Result<(NetFile, String), NetError> {
    validated(CHESS960_BYTES, CHESS960_NAME)
}

fn validated(bytes: &[u8], name: &str) -> Result<(NetFile, String), NetError> {
    let origin = format!("{name}.safetensors");
    Ok((load_bytes(bytes, &origin)?, origin))
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

    /// Each shipped slot: the name is the content id of the bytes, the file is in nets/ and
    /// has a card.
    fn check_shipped(name: &str, bytes: &[u8]) {
        let id = crate::net::content_id(bytes);
        assert!(name.ends_with(&format!("-{id}")), "{name} holds {id}");
        let path = format!("{}/nets/{name}.safetensors", env!("CARGO_MANIFEST_DIR"));
        let on_disk = std::fs::read(&path).expect("the embedded net is in nets/");
        assert_eq!(on_disk, bytes, "{path} differs from the embedded bytes");
        let card = format!("{}/nets/{name}.md", env!("CARGO_MANIFEST_DIR"));
        assert!(
            std::path::Path::new(&card).is_file(),
            "{card}: a shipped net needs a card"
        );
    }

    #[test]
    fn the_name_is_the_content_id_of_the_bytes_and_the_file_in_nets() {
        // A build with another net (`make EVALFILE=…`) is not the shipped engine.
        if NAME != DEFAULT_NAME {
            eprintln!("skipped: the embedded net is {NAME}, not the shipped {DEFAULT_NAME}");
            return;
        }
        check_shipped(NAME, BYTES);
    }

    #[test]
    fn the_chess960_net_is_shipped_and_differs_from_the_default() {
        if CHESS960_NAME != DEFAULT_CHESS960_NAME {
            // A build that names its own net embeds it in both slots.
            eprintln!("skipped: the embedded Chess960 net is {CHESS960_NAME}, not the shipped one");
            assert_eq!(CHESS960_BYTES, BYTES, "a named net serves both slots");
            return;
        }
        check_shipped(CHESS960_NAME, CHESS960_BYTES);
        assert_ne!(
            CHESS960_NAME, NAME,
            "two slots holding one net would be named once"
        );
        let (chess960, origin) = chess960_net().expect("the Chess960 net loads");
        assert_eq!(origin, format!("{CHESS960_NAME}.safetensors"));
        let (default, _) = net().expect("the default loads");
        assert_eq!(
            chess960.meta.arch, default.meta.arch,
            "both slots play through one engine path"
        );
    }
}
