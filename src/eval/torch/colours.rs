//! A CNN run on boards in their true colours (White's pieces on White's planes), as the
//! Mocha.jl study trained and tested it, rather than as the engine runs it (the side to
//! move in White's seat; see `crate::net::planes`). Only `cerise evalpos` needs it, to
//! report both views of a colour-aware net; it lives here because all inference does.

use crate::chess::CompactBoard;
use crate::net::{NetError, NetFile, NetModule, Planes};
use tch::nn::VarStore;
use tch::{Device, Kind, Tensor};

pub struct TrueColourCnn {
    _vs: VarStore,
    module: NetModule,
    planes: Planes,
    device: Device,
}

impl TrueColourCnn {
    /// Refuses a net that does not read planes (an MLP has no colour to choose).
    pub fn new(net: &NetFile, device: Device) -> Result<Self, NetError> {
        let Some(planes) = net.meta.arch.planes() else {
            return Err(NetError::BadConfig(format!(
                "a {} net reads no planes; only a CNN has a true-colour view",
                net.meta.arch.family_name()
            )));
        };
        let vs = VarStore::new(device);
        let module = NetModule::zeroed(&vs.root(), &net.meta.arch);
        net.copy_into(&vs)?;
        Ok(TrueColourCnn {
            _vs: vs,
            module,
            planes,
            device,
        })
    }

    /// The raw logits ("White wins" for a colour-aware net), one per board; `white_to_move`
    /// gives each board's true colours (a [`CompactBoard`] is seen from its side to move).
    pub fn logits(
        &self,
        boards: &[CompactBoard],
        white_to_move: &[bool],
    ) -> Result<Vec<f32>, NetError> {
        let width = self.planes.width();
        let mut x = vec![0f32; boards.len() * width];
        for ((board, &white), row) in boards
            .iter()
            .zip(white_to_move)
            .zip(x.chunks_exact_mut(width))
        {
            self.planes.encode_into(board, white, row);
        }
        let x = Tensor::from_slice(&x)
            .view([boards.len() as i64, width as i64])
            .to_device(self.device);
        let out = tch::no_grad(|| self.module.f_forward(&x))
            .map_err(|e| NetError::torch("running the CNN forward", e))?;
        let out = out.to_device(Device::Cpu).to_kind(Kind::Float).contiguous();
        let n = out.numel();
        let mut scores = vec![0f32; n];
        out.copy_data(&mut scores, n);
        Ok(scores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{Backend, Evaluator, NetEvaluator, NetEvaluatorConfig};
    use crate::net::DeviceChoice;

    /// With every board's side to move in White's seat, the true-colour view is the
    /// engine's: its logit is the engine's score over `cp_per_unit` (what evalpos relies on).
    #[test]
    fn white_to_move_boards_score_as_the_engine_scores_them() {
        let dir = std::env::temp_dir().join(format!("cerise-colours-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mocha.safetensors");
        crate::net::init_net("mocha", 3, &path).unwrap();
        let net = crate::net::load(&path).unwrap();
        let boards = crate::chess::sample_boards(12);
        let cnn = TrueColourCnn::new(&net, Device::Cpu).unwrap();
        let z = cnn.logits(&boards, &vec![true; boards.len()]).unwrap();
        let config = NetEvaluatorConfig {
            backend: Backend::Torch,
            ..NetEvaluatorConfig::default()
        };
        let eval = NetEvaluator::from_net(net.clone(), "mocha", DeviceChoice::Cpu, config).unwrap();
        let mut scores = Vec::new();
        eval.evaluate(&boards, &mut scores).unwrap();
        for (z, s) in z.iter().zip(&scores) {
            assert!((z - s / net.meta.cp_per_unit).abs() < 1e-4, "{z} vs {s}");
        }
        // The other colours see another board.
        let black = cnn.logits(&boards, &vec![false; boards.len()]).unwrap();
        assert_ne!(black, z);
        let mlp = crate::eval::embedded::net().unwrap().0;
        assert!(TrueColourCnn::new(&mlp, Device::Cpu).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
