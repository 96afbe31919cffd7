//! Little-endian field writing and checked, sequential field reading for record headers.

use anyhow::{ensure, Context, Result};

/// The bytes of a header's fields as they are written.
#[derive(Default)]
pub struct ByteWriter {
    bytes: Vec<u8>,
}

impl ByteWriter {
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    pub fn u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    /// Several u16s, in order.
    pub fn u16s(&mut self, vs: &[u16]) {
        for &v in vs {
            self.u16(v);
        }
    }

    /// A string after its length as a u16.
    pub fn str16(&mut self, s: &str, what: &str) -> Result<()> {
        let len =
            u16::try_from(s.len()).with_context(|| format!("{what} longer than 65535 bytes"))?;
        self.u16(len);
        self.bytes.extend_from_slice(s.as_bytes());
        Ok(())
    }

    /// A string after its length as a u32.
    pub fn str32(&mut self, s: &str, what: &str) -> Result<()> {
        let len = u32::try_from(s.len()).with_context(|| format!("{what} longer than 4 GiB"))?;
        self.u32(len);
        self.bytes.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Reads a header's fields in order; every read names the field it was after when the
/// header ends too soon.
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Where `bytes` starts in the file, so that errors give file offsets.
    base: usize,
}

impl<'a> ByteReader<'a> {
    pub fn new(bytes: &'a [u8], base: usize) -> Self {
        ByteReader { bytes, at: 0, base }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let slice = self
            .bytes
            .get(self.at..self.at + n)
            .with_context(|| format!("header too short for its {what}"))?;
        self.at += n;
        Ok(slice)
    }

    pub fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u16(&mut self, what: &str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.take(2, what)?.try_into()?))
    }

    pub fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into()?))
    }

    pub fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into()?))
    }

    /// `N` u16s written by [`ByteWriter::u16s`].
    pub fn u16s<const N: usize>(&mut self, what: &str) -> Result<[u16; N]> {
        let mut vs = [0u16; N];
        for v in &mut vs {
            *v = self.u16(what)?;
        }
        Ok(vs)
    }

    /// A string written by [`ByteWriter::str16`].
    pub fn str16(&mut self, what: &str) -> Result<String> {
        let len = self.u16(&format!("{what} length field"))? as usize;
        self.string(len, what)
    }

    /// A string written by [`ByteWriter::str32`].
    pub fn str32(&mut self, what: &str) -> Result<String> {
        let len = self.u32(&format!("{what} length field"))? as usize;
        self.string(len, what)
    }

    fn string(&mut self, len: usize, what: &str) -> Result<String> {
        let slice = self.take(len, &format!("{what} ({len} bytes)"))?;
        String::from_utf8(slice.to_vec()).with_context(|| format!("header {what} is not UTF-8"))
    }

    /// Bytes not read yet: a header may end with fields that only some files carry.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// Checks that the fields filled the header exactly.
    pub fn finish(self) -> Result<()> {
        let (len, filled) = (self.base + self.bytes.len(), self.base + self.at);
        ensure!(
            filled == len,
            "header announces {len} bytes but its fields fill {filled}; the file is corrupt"
        );
        Ok(())
    }
}
