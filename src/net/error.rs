//! Everything that can go wrong choosing a device or reading, checking and writing a net.

/// Each message names what was wrong and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error(
        "cannot read net file {path}: {source}; check the path, or create a net with `init_net`"
    )]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "cannot write net file {path}: {source}; check that the directory exists and is writable"
    )]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("{origin} is not a safetensors file ({reason}); pass a cerise .safetensors net")]
    NotSafetensors { origin: String, reason: String },
    #[error("{origin} is not a cerise net: metadata `format` is {found}, expected `cerise-net`; pass a net written by cerise")]
    WrongFormat { origin: String, found: String },
    #[error("{origin} has net format version {found}, this engine reads version {supported}; use a matching engine or re-export the net")]
    UnsupportedVersion {
        origin: String,
        found: String,
        supported: u32,
    },
    #[error(
        "{origin} has architecture `{found}`, this engine runs `mlp`, `mlp-antisym`, `cnn`, `convchess-policy` and `rbf-fm`; use a matching engine"
    )]
    UnknownArch { origin: String, found: String },
    #[error("{origin} has invalid metadata `{key}` = {value:?}: {reason}")]
    BadMetadata {
        origin: String,
        key: String,
        value: String,
        reason: String,
    },
    #[error("{origin} was trained on input encoding `{file}`, but its architecture reads `{engine}`; retrain the net on `{engine}` or use a matching engine")]
    EncodingMismatch {
        origin: String,
        file: String,
        engine: String,
    },
    #[error("{origin} lacks tensor `{name}` required by widths {widths}; the file is truncated or was written for another architecture")]
    MissingTensor {
        origin: String,
        name: String,
        widths: String,
    },
    #[error("{origin} has unexpected tensor `{name}` for widths {widths}; the metadata does not describe these weights")]
    UnexpectedTensor {
        origin: String,
        name: String,
        widths: String,
    },
    #[error("{origin}: tensor `{name}` has shape {found:?}, widths {widths} need {expected:?}; the metadata does not match the weights")]
    ShapeMismatch {
        origin: String,
        name: String,
        expected: Vec<usize>,
        found: Vec<usize>,
        widths: String,
    },
    #[error(
        "{origin}: tensor `{name}` is {found}, nets must be F32; convert the weights to float32"
    )]
    WrongDtype {
        origin: String,
        name: String,
        found: String,
    },
    #[error("unknown net preset `{name}`; valid presets: {valid}")]
    UnknownPreset { name: String, valid: String },
    #[error("invalid architecture {widths}: {reason}")]
    BadArch { widths: String, reason: String },
    #[error("CUDA was requested but is unavailable in this build or on this machine; install a CUDA libtorch with `scripts/libtorch.sh --cuda`, point LIBTORCH at it and build with `cargo build --release --features cuda`, or choose device cpu")]
    CudaUnavailable,
    #[error("invalid evaluator setting: {0}")]
    BadConfig(String),
    #[error("libtorch error while {context}: {message}")]
    Torch { context: String, message: String },
    #[error("the net evaluator thread stopped before it finished loading: {0}")]
    ThreadFailed(String),
    #[error(transparent)]
    Rbf(#[from] RbfError),
    #[error("{origin} is an RBF net (arch `{family}`, from `cerise train-rbf`); this command reads tensor nets (mlp, cnn, convchess-policy); use it as EvalFile, where every family opens")]
    RbfNotTensors { origin: String, family: String },
}

/// Why an RBF file cannot be used (`net::rbf` reads and writes them).
#[derive(Debug, thiserror::Error)]
pub enum RbfError {
    #[error("cannot read RBF file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "cannot write RBF file {path}: {source}; check that the directory exists and is writable"
    )]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("{origin} is not an RBF net ({reason}); pass a file written by `cerise train-rbf`")]
    Invalid { origin: String, reason: String },
}

impl NetError {
    #[cfg(feature = "torch")]
    pub(crate) fn torch(context: &str, err: tch::TchError) -> Self {
        NetError::Torch {
            context: context.to_string(),
            message: err.to_string(),
        }
    }
}
