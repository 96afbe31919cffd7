//! Each model definition, once, shared by engine and trainer, and the safetensors file format
//! that holds any of them (the `arch` metadata names the family; see [`family`]).
//!
//! The architectures and the file format need no libtorch; the libtorch modules built from
//! them (`mlp`, `module`, `sparse`, `init`, `seed` and the `torch` parts of `cnn` and `policy`) come
//! with the `torch` feature.

pub mod any;
pub mod buckets;
pub mod cnn;
pub mod device;
pub mod error;
pub mod family;
pub mod file;
#[cfg(feature = "torch")]
pub mod init;
pub mod mirror;
#[cfg(feature = "torch")]
pub mod mlp;
#[cfg(feature = "torch")]
pub mod module;
pub mod planes;
pub mod policy;
pub mod presets;
pub mod rbf;
#[cfg(feature = "torch")]
pub mod seed;
#[cfg(feature = "torch")]
pub mod sparse;

pub use any::{load_any, load_any_bytes, AnyNet};
pub use buckets::output_bucket;
#[cfg(feature = "torch")]
pub use cnn::Cnn;
pub use cnn::{CnnArch, FcAct, CNN_PRESETS};
pub use device::DeviceChoice;
pub use error::NetError;
pub use family::{preset_names, ModelArch};
pub use file::{content_id, load, load_bytes, NetFile, NetMeta};
#[cfg(feature = "torch")]
pub use file::{save, to_bytes};
#[cfg(feature = "torch")]
pub use init::init_net;
pub use mirror::{ViewMaps, KING_MIRROR_ENCODING};
#[cfg(feature = "torch")]
pub use mlp::Mlp;
#[cfg(feature = "torch")]
pub use module::NetModule;
pub use planes::Planes;
#[cfg(feature = "torch")]
pub use policy::Policy;
pub use policy::{PolicyArch, HEADS, POLICY_PRESETS};
pub use presets::{Arch, Form};
#[cfg(feature = "torch")]
pub use sparse::SparseBoards;
