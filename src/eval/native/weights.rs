//! The weights of a net file rearranged for the native forward pass.
//!
//! libtorch stores a linear layer as `[out, in]`, so one output is a row. The native code
//! works input by input instead (output-major accumulation): the first layer adds one column
//! per set feature, and each layer above adds `h[i]` times the `i`-th column to its outputs.
//! Both want a column to be contiguous, so every weight matrix is stored transposed,
//! `[in][out]`. On this machine the 256→32 layer of `small-as` ran 16× faster that way than
//! as 32 dot products over 256 inputs (issue #5's C sketch: 1.5M vs 92k evaluations/s).

use crate::chess::ENCODING_WIDTH;
use crate::net::{Form, NetError, NetFile, ViewMaps};

/// One linear layer above the first, transposed.
#[derive(Clone, Debug)]
pub struct Layer {
    pub inputs: usize,
    pub outputs: usize,
    /// `[inputs][outputs]`: input `i`'s weights are `columns[i * outputs..][..outputs]`.
    pub columns: Vec<f32>,
    pub bias: Vec<f32>,
    /// Skip inputs that are zero after the ReLU: worth a branch only when a column is long.
    pub skip_zeros: bool,
}

impl Layer {
    #[inline(always)]
    pub fn column(&self, i: usize) -> &[f32] {
        &self.columns[i * self.outputs..(i + 1) * self.outputs]
    }
}

/// A net ready for the native backend.
#[derive(Clone, Debug)]
pub struct NativeNet {
    pub form: Form,
    /// Outputs of the first layer (the accumulator width).
    pub hidden: usize,
    /// First layer, `[768][hidden]`.
    pub first: Vec<f32>,
    pub first_bias: Vec<f32>,
    /// The layers after the first; empty for a single-layer net, whose first layer is then
    /// the output (`hidden` = 1, no ReLU).
    pub upper: Vec<Layer>,
    /// Antisymmetric form: the linear piece-square term, one weight per feature.
    pub psqt: Option<Vec<f32>>,
    /// Perspective form: output buckets (`net::buckets`), 1 without them.
    pub buckets: usize,
    /// Perspective form: the output weights as libtorch holds them, `[buckets][2 · hidden]`,
    /// so that the row of a board's bucket is contiguous (for one bucket, the same floats as
    /// `upper[0].columns`); empty for the other forms.
    pub head: Vec<f32>,
    /// The first-layer column each view reads for each (block, feature) (`net::mirror`):
    /// the feature itself and its swap in a plain net, mirrored by king file in a mirrored
    /// one. The plain and antisymmetric forms read it as a plain net.
    pub maps: ViewMaps,
    pub cp_per_unit: f32,
    /// Widest layer output, for scratch buffers.
    pub widest: usize,
}

/// Columns at least this long are skipped when their input is zero (see [`Layer`]).
const SKIP_ZEROS_FROM: usize = 128;

impl NativeNet {
    /// Rearranges a validated net file; refuses nothing `net::load` accepted, but checks the
    /// shapes again since a wrong index here would read the wrong weights.
    pub fn from_file(net: &NetFile) -> Result<Self, NetError> {
        let arch = net.meta.arch.require_mlp("the native backend")?;
        let widths: Vec<usize> = arch.widths.iter().map(|&w| w as usize).collect();
        let tensor = |name: &str, shape: &[usize]| -> Result<&[f32], NetError> {
            let (_, data) = net.tensors.iter().find(|(n, _)| n == name).ok_or_else(|| {
                NetError::MissingTensor {
                    origin: "the net".to_string(),
                    name: name.to_string(),
                    widths: arch.widths_string(),
                }
            })?;
            if data.shape != shape || data.values.len() != shape.iter().product::<usize>() {
                return Err(NetError::ShapeMismatch {
                    origin: "the net".to_string(),
                    name: name.to_string(),
                    expected: shape.to_vec(),
                    found: data.shape.clone(),
                    widths: arch.widths_string(),
                });
            }
            Ok(&data.values)
        };
        let head = match arch.form {
            Form::Perspective => {
                let (inputs, outputs) = arch.layer_dims()[1];
                tensor("l1.weight", &[outputs, inputs])?.to_vec()
            }
            Form::Plain | Form::Antisym => Vec::new(),
        };
        let mut layers = Vec::with_capacity(widths.len() - 1);
        for (i, (inputs, outputs)) in arch.layer_dims().into_iter().enumerate() {
            let weight = tensor(&format!("l{i}.weight"), &[outputs, inputs])?;
            let bias = tensor(&format!("l{i}.bias"), &[outputs])?;
            layers.push(Layer {
                inputs,
                outputs,
                columns: transpose(weight, outputs, inputs),
                bias: bias.to_vec(),
                skip_zeros: outputs >= SKIP_ZEROS_FROM,
            });
        }
        let first = layers.remove(0);
        let psqt = match arch.form {
            Form::Plain | Form::Perspective => None,
            Form::Antisym => Some(tensor("psqt.weight", &[1, ENCODING_WIDTH])?.to_vec()),
        };
        let widest = arch
            .layer_dims()
            .iter()
            .map(|&(inputs, outputs)| inputs.max(outputs))
            .skip(1)
            .chain(std::iter::once(widths[1]))
            .max()
            .unwrap_or(1);
        Ok(NativeNet {
            form: arch.form,
            hidden: first.outputs,
            first: first.columns,
            first_bias: first.bias,
            upper: layers,
            psqt,
            buckets: arch.output_buckets(),
            head,
            maps: ViewMaps::new(arch.king_mirror),
            cp_per_unit: net.meta.cp_per_unit,
            widest,
        })
    }

    /// The first-layer column of feature `f`.
    #[inline(always)]
    pub fn first_column(&self, f: usize) -> &[f32] {
        &self.first[f * self.hidden..(f + 1) * self.hidden]
    }
}

/// `[rows][cols]` → `[cols][rows]`.
fn transpose(m: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut t = vec![0f32; m.len()];
    for r in 0..rows {
        for c in 0..cols {
            t[c * rows + r] = m[r * cols + c];
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_swaps_indices() {
        let m = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2 rows, 3 cols
        assert_eq!(transpose(&m, 2, 3), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    }

    #[test]
    fn every_preset_rearranges_with_its_shapes() {
        for (preset, widths, form) in crate::net::presets::PRESETS {
            if widths[1] > 512 {
                continue; // deeppink: 20M parameters, slow to build in a unit test
            }
            let net = NativeNet::from_file(&crate::net::file::arbitrary(preset, 1)).unwrap();
            assert_eq!(net.form, *form);
            assert_eq!(net.maps.is_mirrored(), preset.ends_with("-hm"), "{preset}");
            assert_eq!(net.hidden, widths[1] as usize);
            assert_eq!(net.upper.len(), widths.len() - 2);
            assert_eq!(net.psqt.is_some(), *form == Form::Antisym);
            if *form == Form::Perspective {
                let buckets = widths[2] as usize;
                assert_eq!(net.buckets, buckets);
                assert_eq!(net.head.len(), buckets * 2 * net.hidden);
                // Row b of the head is column b of the transposed layer.
                let out = &net.upper[0];
                let b = buckets - 1;
                let column: Vec<f32> = (0..out.inputs).map(|i| out.column(i)[b]).collect();
                assert_eq!(&net.head[b * out.inputs..], &column[..]);
            }
        }
    }
}
