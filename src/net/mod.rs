//! The one model definition shared by engine and trainer, and its safetensors file format.

pub mod device;
pub mod error;
pub mod file;
pub mod init;
pub mod mlp;
pub mod presets;
pub mod sparse;

pub use device::DeviceChoice;
pub use error::NetError;
pub use file::{content_id, load, load_bytes, save, to_bytes, NetFile, NetMeta};
pub use init::init_net;
pub use mlp::Mlp;
pub use presets::{Arch, Form};
pub use sparse::SparseBoards;
