//! The one model definition shared by engine and trainer, and its safetensors file format.

pub mod device;
pub mod file;
pub mod mlp;
pub mod presets;
