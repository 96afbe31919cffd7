//! The batcher: one thread owns the tch module; search threads send owned requests carrying
//! their own reply channel, and the thread drains them into one no-grad forward pass.

pub struct NetEvaluatorConfig {
    pub max_batch: usize,
}

pub struct NetEvaluator;
