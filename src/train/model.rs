//! The engine's model of any family in a trainable VarStore; an MLP trains with a sparse
//! first layer.
//!
//! A board sets at most 32 of its 768 inputs, so training uses the engine's sparse first
//! layer (`crate::net::sparse`); the parameters are still the `Mlp`'s own, so the file the
//! engine loads is unchanged, and the result equals the dense forward.

use crate::chess::{CompactBoard, ENCODING_WIDTH};
use crate::net::{Mlp, ModelArch, NetFile, NetMeta, NetModule};
use anyhow::{Context, Result};
use tch::nn::VarStore;
use tch::{Device, Kind, Tensor};

pub use crate::net::SparseBoards;

/// Dense [N, 768] one-hot input, the engine's encoding.
pub fn dense_input(boards: &[CompactBoard], device: Device) -> Tensor {
    let mut x = vec![0f32; boards.len() * ENCODING_WIDTH];
    for (b, row) in boards.iter().zip(x.chunks_exact_mut(ENCODING_WIDTH)) {
        b.encode_into(row);
    }
    Tensor::from_slice(&x)
        .view([boards.len() as i64, ENCODING_WIDTH as i64])
        .to_device(device)
}

pub struct TrainNet {
    pub vs: VarStore,
    pub module: NetModule,
    pub meta: NetMeta,
}

impl TrainNet {
    /// A fresh net with libtorch's default initialisation drawn under `seed`.
    pub fn fresh(meta: NetMeta, seed: u64, device: Device) -> Self {
        let (vs, module) = crate::net::seed::seeded(seed, || {
            let vs = VarStore::new(device);
            let module = NetModule::new(&vs.root(), &meta.arch);
            (vs, module)
        });
        TrainNet { vs, module, meta }
    }

    /// A net holding the weights of a loaded file.
    pub fn from_file(net: &NetFile, device: Device) -> Result<Self> {
        let vs = VarStore::new(device);
        let module = NetModule::zeroed(&vs.root(), &net.meta.arch);
        net.copy_into(&vs)
            .context("cannot copy the net's weights into the model")?;
        Ok(TrainNet {
            vs,
            module,
            meta: net.meta.clone(),
        })
    }

    pub fn device(&self) -> Device {
        self.vs.device()
    }

    pub fn arch(&self) -> &ModelArch {
        &self.meta.arch
    }

    /// The MLP; the triplet objective and `evalnet` run only MLPs, which the config and
    /// `evalnet` check before they get here.
    pub fn mlp(&self) -> &Mlp {
        match self.module.mlp() {
            Some(m) => m,
            None => panic!("a {} net reached MLP-only code", self.arch().family_name()),
        }
    }

    /// Raw scores f (see the sign convention in `crate::net::mlp`), [N].
    pub fn forward_sparse(&self, boards: &SparseBoards) -> Tensor {
        self.mlp().forward_sparse(boards)
    }

    /// f on boards without recording gradients, as host floats.
    pub fn score(&self, boards: &[CompactBoard]) -> Vec<f32> {
        if boards.is_empty() {
            return Vec::new();
        }
        let out = tch::no_grad(|| self.forward_sparse(&SparseBoards::from_boards(boards)));
        tensor_to_vec(&out)
    }

    pub fn save(&self, path: &std::path::Path) -> Result<String> {
        Ok(crate::net::file::save(path, &self.meta, &self.vs)?)
    }
}

pub fn tensor_to_vec(t: &Tensor) -> Vec<f32> {
    let t = t.to_device(Device::Cpu).to_kind(Kind::Float).contiguous();
    let n = t.numel();
    let mut out = vec![0f32; n];
    t.copy_data(&mut out, n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    fn boards() -> Vec<CompactBoard> {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "8/8/4k3/8/2K5/8/8/8 b - - 0 1",
            "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
        ];
        fens.iter()
            .map(|f| Position::from_fen(f).expect("valid fen").compact())
            .collect()
    }

    #[test]
    fn sparse_forward_equals_dense_forward_and_grads_match() {
        for preset in ["small", "mid"] {
            let meta = NetMeta::for_preset(preset).expect("preset");
            let net = TrainNet::fresh(meta, 3, Device::Cpu);
            let b = boards();
            let sparse = net.forward_sparse(&SparseBoards::from_boards(&b));
            let dense = net.mlp().forward(&dense_input(&b, Device::Cpu));
            let diff = (&sparse - &dense).abs().max().double_value(&[]);
            assert!(diff < 1e-5, "{preset}: max |sparse - dense| = {diff}");
            // The sparse path must train the same parameters with the same gradients.
            let w = &net.mlp().layers[0].ws;
            sparse.sum(Kind::Float).backward();
            let g_sparse = w.grad().copy();
            for l in &net.mlp().layers {
                let _ = l.ws.grad().zero_();
                if let Some(b) = &l.bs {
                    let _ = b.grad().zero_();
                }
            }
            dense.sum(Kind::Float).backward();
            let gdiff = (&g_sparse - w.grad()).abs().max().double_value(&[]);
            assert!(gdiff < 1e-5, "{preset}: l0.weight grad differs by {gdiff}");
        }
    }

    #[test]
    fn sparse_layout_lists_features_per_board() {
        let b = boards();
        let s = SparseBoards::from_boards(&b);
        assert_eq!(s.len(), 4);
        assert_eq!(s.offsets[0], 0);
        assert_eq!(s.offsets[1], 32, "the start position has 32 pieces");
        assert_eq!(s.indices.len() as i64 - s.offsets[3], 3, "K+P vs K");
        assert!(s.indices.iter().all(|&i| (0..768).contains(&i)));
    }

    #[test]
    fn score_matches_a_loaded_copy() {
        let meta = NetMeta::for_preset("small").expect("preset");
        let net = TrainNet::fresh(meta.clone(), 5, Device::Cpu);
        let file = NetFile::from_varstore(meta, &net.vs).expect("copy out");
        let copy = TrainNet::from_file(&file, Device::Cpu).expect("copy in");
        assert_eq!(net.score(&boards()), copy.score(&boards()));
    }
}
