//! Each model definition, once, shared by engine and trainer, and the safetensors file format
//! that holds any of them (the `arch` metadata names the family; see [`family`]).

pub mod any;
pub mod cnn;
pub mod device;
pub mod error;
pub mod family;
pub mod file;
pub mod init;
pub mod mlp;
pub mod module;
pub mod planes;
pub mod policy;
pub mod presets;
pub mod rbf;
pub mod sparse;

pub use any::{load_any, load_any_bytes, AnyNet};
pub use cnn::{Cnn, CnnArch, FcAct, CNN_PRESETS};
pub use device::DeviceChoice;
pub use error::NetError;
pub use family::{preset_names, ModelArch};
pub use file::{content_id, load, load_bytes, save, to_bytes, NetFile, NetMeta};
pub use init::init_net;
pub use mlp::Mlp;
pub use module::NetModule;
pub use planes::Planes;
pub use policy::{Policy, PolicyArch, HEADS, POLICY_PRESETS};
pub use presets::{Arch, Form};
pub use sparse::SparseBoards;
