//! Opening a waveform of any format: the format told by its first bytes
//! (FST and GHW by their magic, anything else as VCD) and the reader of
//! that format, each giving the one stream of events of [`super::stream`].

use super::header::Format;
use super::read::{VcdReader, detect_format};
use super::stream::{Stream, WaveReader, read_up_to};
use super::{fst, ghw};
use crate::{Error, Result};
use std::path::Path;

impl Stream {
    /// A reader of the stream, which names it in its errors.
    pub(crate) fn reader(self) -> Result<WaveReader> {
        let name = self.name.clone();
        let mut r = match self.format {
            Format::Vcd => WaveReader::from_vcd(VcdReader::named(self.src, &name)?),
            Format::Fst => fst::from_bytes(self.into_bytes()?).map_err(|e| e.in_file(&name))?,
            Format::Ghw => ghw::from_bytes(self.into_bytes()?).map_err(|e| e.in_file(&name))?,
        };
        r.set_path(&name);
        Ok(r)
    }
}

impl WaveReader {
    /// Opens the waveform at `path` (VCD, FST or GHW) and reads its
    /// header; errors name the file. `-` ([`STDIN`](super::STDIN)) reads
    /// standard input, and a path that is not a regular file (a named
    /// pipe, `/dev/fd/N`) is read as a stream: a VCD as it comes, an FST
    /// or GHW waveform whole into memory (at most
    /// [`MAX_STREAMED`](super::MAX_STREAMED) bytes, and at most three
    /// quarters of the memory available).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        if let Some(s) = Stream::open(path)? {
            return s.reader();
        }
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut f = std::fs::File::open(path).map_err(io)?;
        let mut first = [0u8; 16];
        let n = read_up_to(&mut f, &mut first).map_err(io)?;
        drop(f);
        let mut r = match detect_format(&first[..n]) {
            Format::Vcd => {
                let r = VcdReader::open(path)?;
                Self::from_vcd(r)
            }
            Format::Fst => fst::open(path).map_err(|e| e.in_file(path))?,
            Format::Ghw => ghw::open(path).map_err(|e| e.in_file(path))?,
        };
        r.set_path(path);
        Ok(r)
    }

    /// A waveform held in memory (any format).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self> {
        match detect_format(&bytes[..bytes.len().min(16)]) {
            Format::Vcd => Ok(Self::from_vcd(VcdReader::new(std::io::Cursor::new(bytes))?)),
            Format::Fst => fst::from_bytes(bytes),
            Format::Ghw => ghw::from_bytes(bytes),
        }
    }
}
