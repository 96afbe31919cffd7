//! SGD with (Nesterov) momentum, Adam and RMSprop, all with L2 weight decay, written out here rather
//! than taken from `tch::nn::Optimizer` because that one hides its momentum buffers: owning
//! them lets a checkpoint store them and a resumed run continue exactly. The SGD update is
//! PyTorch's (`torch.optim.SGD`, dampening 0), which a test checks against `tch::nn::Sgd`.

use super::config::{OptimKind, TrainConfig};
use anyhow::{bail, Result};
use tch::nn::VarStore;
use tch::{Kind, Tensor};

const ADAM_BETA1: f64 = 0.9;
const ADAM_BETA2: f64 = 0.999;
const ADAM_EPS: f64 = 1e-8;
/// RMSprop's decay of the mean square, ConvChess's 0.999 (the decay rate of the CS231n
/// solver the study used).
const RMSPROP_DECAY: f64 = 0.999;
const RMSPROP_EPS: f64 = 1e-8;

pub struct Optimiser {
    kind: OptimKind,
    momentum: f64,
    nesterov: bool,
    l2: f64,
    /// Updates applied so far (Adam's bias correction needs it).
    pub updates: u64,
    /// (name, parameter), sorted by name so the state order is stable.
    params: Vec<(String, Tensor)>,
    /// SGD: [momentum buffer]; Adam: [first moment, second moment]; RMSprop: [mean square];
    /// per parameter.
    state: Vec<Vec<Tensor>>,
}

impl Optimiser {
    /// The optimiser a training config names, with its momentum, Nesterov flag and L2.
    pub fn for_config(vs: &VarStore, config: &TrainConfig) -> Self {
        Self::new(
            vs,
            config.optimiser,
            config.momentum,
            config.nesterov,
            config.l2,
        )
    }

    pub fn new(vs: &VarStore, kind: OptimKind, momentum: f64, nesterov: bool, l2: f64) -> Self {
        // Batch-norm running statistics are variables without gradients: state, not
        // parameters.
        let mut params: Vec<(String, Tensor)> = vs
            .variables()
            .into_iter()
            .filter(|(_, t)| t.requires_grad())
            .collect();
        params.sort_by(|a, b| a.0.cmp(&b.0));
        let slots = match kind {
            OptimKind::Sgd | OptimKind::Rmsprop => 1,
            OptimKind::Adam => 2,
        };
        // Zero buffers give PyTorch's first step (buffer = gradient) with no special case.
        let state = params
            .iter()
            .map(|(_, p)| (0..slots).map(|_| p.zeros_like()).collect())
            .collect();
        Optimiser {
            kind,
            momentum,
            nesterov,
            l2,
            updates: 0,
            params,
            state,
        }
    }

    pub fn zero_grad(&mut self) {
        for (_, p) in &self.params {
            let mut g = p.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
    }

    /// One update with learning rate `lr` from the gradients now held by the parameters.
    pub fn step(&mut self, lr: f64) {
        self.updates += 1;
        let t = self.updates as i32;
        tch::no_grad(|| {
            for ((_, p), state) in self.params.iter().zip(&mut self.state) {
                let g = p.grad();
                if !g.defined() {
                    continue;
                }
                let d = if self.l2 > 0.0 { &g + p * self.l2 } else { g };
                let mut p = p.shallow_clone();
                match self.kind {
                    OptimKind::Sgd => {
                        let buf = &mut state[0];
                        let _ = buf.g_mul_scalar_(self.momentum).g_add_(&d);
                        let step = if self.nesterov {
                            d + &*buf * self.momentum
                        } else {
                            buf.shallow_clone()
                        };
                        let _ = p.g_sub_(&(step * lr));
                    }
                    OptimKind::Adam => {
                        let _ = state[0]
                            .g_mul_scalar_(ADAM_BETA1)
                            .g_add_(&(&d * (1.0 - ADAM_BETA1)));
                        let _ = state[1]
                            .g_mul_scalar_(ADAM_BETA2)
                            .g_add_(&(&d * &d * (1.0 - ADAM_BETA2)));
                        let m_hat = &state[0] / (1.0 - ADAM_BETA1.powi(t));
                        let v_hat = &state[1] / (1.0 - ADAM_BETA2.powi(t));
                        let _ = p.g_sub_(&(m_hat / (v_hat.sqrt() + ADAM_EPS) * lr));
                    }
                    OptimKind::Rmsprop => {
                        let _ = state[0]
                            .g_mul_scalar_(RMSPROP_DECAY)
                            .g_add_(&(&d * &d * (1.0 - RMSPROP_DECAY)));
                        let _ = p.g_sub_(&(&d / (state[0].sqrt() + RMSPROP_EPS) * lr));
                    }
                }
            }
        });
    }

    /// Named copies of the optimiser state, for a checkpoint.
    pub fn state_tensors(&self) -> Vec<(String, Tensor)> {
        let mut out = vec![(
            "updates".to_string(),
            Tensor::from_slice(&[self.updates as i64]),
        )];
        for ((name, _), state) in self.params.iter().zip(&self.state) {
            for (k, s) in state.iter().enumerate() {
                out.push((format!("{name}.s{k}"), s.to_device(tch::Device::Cpu)));
            }
        }
        out
    }

    /// Restores what [`Optimiser::state_tensors`] wrote; the names and shapes must match.
    pub fn load_state(&mut self, tensors: &[(String, Tensor)]) -> Result<()> {
        let find = |name: &str| tensors.iter().find(|(n, _)| n == name).map(|(_, t)| t);
        let Some(updates) = find("updates") else {
            bail!("optimiser state lacks `updates`; the checkpoint is from another optimiser");
        };
        self.updates = updates.int64_value(&[0]) as u64;
        for ((name, p), state) in self.params.iter().zip(&mut self.state) {
            for (k, s) in state.iter_mut().enumerate() {
                let key = format!("{name}.s{k}");
                let Some(saved) = find(&key) else {
                    bail!("optimiser state lacks `{key}`; was the checkpoint written with another optimiser or preset?");
                };
                if saved.size() != p.size() {
                    bail!(
                        "optimiser state `{key}` has shape {:?}, the parameter {:?}",
                        saved.size(),
                        p.size()
                    );
                }
                *s = saved.to_kind(Kind::Float).to_device(p.device());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::nn::{OptimizerConfig, Sgd};
    use tch::Device;

    fn quadratic_grads(vs: &VarStore, x: &Tensor) {
        let w = vs.variables()["w"].shallow_clone();
        let loss = ((w * x).sum(Kind::Float) - 3.0).square();
        loss.backward();
    }

    fn make(seed: f32) -> (VarStore, Tensor) {
        let vs = VarStore::new(Device::Cpu);
        let _ = vs
            .root()
            .var_copy("w", &Tensor::from_slice(&[seed, -seed, 0.5]));
        (vs, Tensor::from_slice(&[1.0f32, 2.0, -1.0]))
    }

    #[test]
    fn sgd_nesterov_matches_libtorch() {
        let (vs_a, x) = make(0.3);
        let (vs_b, _) = make(0.3);
        let mut mine = Optimiser::new(&vs_a, OptimKind::Sgd, 0.9, true, 0.01);
        let mut theirs = Sgd {
            momentum: 0.9,
            dampening: 0.0,
            wd: 0.01,
            nesterov: true,
        }
        .build(&vs_b, 0.05)
        .expect("sgd builds");
        for step in 0..5 {
            let lr = 0.05 * 0.9f64.powi(step);
            mine.zero_grad();
            quadratic_grads(&vs_a, &x);
            mine.step(lr);
            theirs.zero_grad();
            quadratic_grads(&vs_b, &x);
            theirs.set_lr(lr);
            theirs.step();
        }
        let a = vs_a.variables()["w"].copy();
        let b = vs_b.variables()["w"].copy();
        let diff = (a - b).abs().max().double_value(&[]);
        assert!(diff < 1e-6, "differs from tch::nn::Sgd by {diff}");
    }

    #[test]
    fn adam_descends_and_state_round_trips() {
        let (vs, x) = make(0.3);
        let mut opt = Optimiser::new(&vs, OptimKind::Adam, 0.9, false, 0.0);
        let loss = |vs: &VarStore| {
            let w = vs.variables()["w"].shallow_clone();
            ((w * &x).sum(Kind::Float) - 3.0).square().double_value(&[])
        };
        let before = loss(&vs);
        for _ in 0..20 {
            opt.zero_grad();
            quadratic_grads(&vs, &x);
            opt.step(0.05);
        }
        assert!(loss(&vs) < before);
        let saved = opt.state_tensors();
        let mut other = Optimiser::new(&vs, OptimKind::Adam, 0.9, false, 0.0);
        other.load_state(&saved).expect("same shapes");
        assert_eq!(other.updates, 20);
        assert_eq!(other.state_tensors().len(), saved.len());
        for ((n1, t1), (n2, t2)) in saved.iter().zip(other.state_tensors()) {
            assert_eq!(n1, &n2);
            assert!(t1.equal(&t2), "{n1}");
        }
    }

    #[test]
    fn rmsprop_matches_its_formula_and_descends() {
        let (vs, x) = make(0.3);
        let mut opt = Optimiser::new(&vs, OptimKind::Rmsprop, 0.9, false, 0.0);
        let w0 = vs.variables()["w"].copy();
        opt.zero_grad();
        quadratic_grads(&vs, &x);
        let g = vs.variables()["w"].grad().copy();
        opt.step(0.01);
        // First step: v = (1 − ρ)·g², so w moves by lr·g / (|g|·sqrt(1 − ρ)).
        let want = &w0 - &g / ((&g * &g * (1.0 - RMSPROP_DECAY)).sqrt() + RMSPROP_EPS) * 0.01;
        let diff = (vs.variables()["w"].copy() - want)
            .abs()
            .max()
            .double_value(&[]);
        assert!(diff < 1e-6, "{diff}");
        let loss = |vs: &VarStore| {
            let w = vs.variables()["w"].shallow_clone();
            ((w * &x).sum(Kind::Float) - 3.0).square().double_value(&[])
        };
        let before = loss(&vs);
        for _ in 0..20 {
            opt.zero_grad();
            quadratic_grads(&vs, &x);
            opt.step(0.001);
        }
        assert!(loss(&vs) < before);
        assert_eq!(opt.state_tensors().len(), 2, "updates and one mean square");
    }
}
