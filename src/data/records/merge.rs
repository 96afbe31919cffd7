//! What every merge of record files shares: where it writes, the checks of its inputs and
//! output, and opening them. The kind decides the merged header and copies the records.

use super::reader::RecordReader;
use super::writer::{refuse_existing, RecordWriter};
use super::FileHeader;
use anyhow::{bail, Result};
use std::path::PathBuf;

/// Where a merge writes; the arguments of every merge command, flattened into them.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct MergeOutput {
    /// The merged file; written as `<out>.partial` and renamed when complete.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Replace an existing output file.
    #[arg(long)]
    pub force: bool,
}

/// A merge under way: its inputs, opened and validated, each with its path, and the merged
/// file.
pub struct Merge<H: FileHeader> {
    pub inputs: Vec<(PathBuf, RecordReader<H>)>,
    pub writer: RecordWriter<H>,
}

impl<H: FileHeader> Merge<H> {
    /// Checks that there are two inputs at least, that the output is none of them and that,
    /// without `--force`, it does not exist; opens the inputs, which validates their headers;
    /// and starts the output with the header `merged_header` makes of theirs (or the error
    /// that says why they cannot be merged, before anything is written).
    pub fn open(
        inputs: &[PathBuf],
        output: &MergeOutput,
        merged_header: impl FnOnce(&[(PathBuf, H)]) -> Result<H>,
    ) -> Result<Self> {
        if inputs.len() < 2 {
            bail!("give at least two {}s to merge", H::FORMAT.name);
        }
        if inputs.contains(&output.out) {
            bail!(
                "--out {} is one of the inputs; write the merged file somewhere else",
                output.out.display()
            );
        }
        refuse_existing(std::slice::from_ref(&output.out), output.force)?;
        let mut readers = Vec::with_capacity(inputs.len());
        for path in inputs {
            readers.push((path.clone(), RecordReader::<H>::open(path)?));
        }
        let headers: Vec<(PathBuf, H)> = readers
            .iter()
            .map(|(p, r)| (p.clone(), r.header().clone()))
            .collect();
        let writer = RecordWriter::create(&output.out, merged_header(&headers)?)?;
        Ok(Merge {
            inputs: readers,
            writer,
        })
    }

    /// The records of all the inputs.
    pub fn total(&self) -> u64 {
        self.inputs.iter().map(|(_, r)| r.len()).sum()
    }
}
