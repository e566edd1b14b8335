//! Waveforms: reading every format real tools write (VCD, FST, GHW),
//! comparing a waveform with a unit's model or with another waveform, and
//! writing the model's own waveforms (VCD or FST) with views for GTKWave
//! and Surfer.
//!
//! Conventions of the model's dumps: one scope per component instance
//! named like a Verilog hierarchy under `top` (`top.sw3.in2.buf_count`), a
//! `top.clk` clock whose rising edge starts each cycle, a timescale chosen
//! so that both clock edges fall on whole time units, values written only
//! when they change, vectors with their widths and `[msb:lsb]` ranges, most
//! significant bit first, `x` for values that are not meaningful.

mod background;
mod convert;
mod cosim;
mod diff;
mod fst;
mod fst_diff;
mod fst_enc;
mod fst_out;
#[cfg(feature = "ghw")]
mod ghw;
/// Without the `ghw` feature a GHW file is told by its first bytes and
/// refused with an error that names the feature.
#[cfg(not(feature = "ghw"))]
mod ghw {
    use super::WaveReader;
    use crate::{Error, Result};

    fn refuse() -> Error {
        Error::Wave(
            "a GHW waveform: this build of wormcast reads GHW only with its `ghw` feature \
             (on by default)"
                .into(),
        )
    }

    pub(crate) fn open(_path: &std::path::Path) -> Result<WaveReader> {
        Err(refuse())
    }

    pub(crate) fn from_bytes(_bytes: Vec<u8>) -> Result<WaveReader> {
        Err(refuse())
    }
}
mod gtkw;
mod header;
mod limit;
mod map;
mod open;
mod read;
mod report;
mod runzlib;
mod stream;
mod writer;

pub use background::Background;
pub use convert::{open_isolated, write_vcd, write_vcd_named};
pub use cosim::{CosimOptions, cosim};
pub use diff::{DiffOptions, diff};
pub use fst::{MAX_INFLATED, check as check_fst};
pub use fst_diff::diff_files;
pub use fst_out::{FstWriter, STDOUT, Views, create, is_stdout, write_views};
pub use gtkw::{GTKW_MARK, gtkw_text, surfer_text, write_gtkw};
pub use header::{
    CodeInfo, Event, Format, MAX_WIDTH, VarKind, WaveHeader, WaveVar, logic_char, parse_timescale,
    split_name,
};
pub use limit::{Selection, TraceLimits, WindowNames};
pub use map::{Mapping, SignalMap};
pub use read::{MAX_TOKEN, VcdReader, detect_format};
pub use report::{CompareReport, Mismatch, TypeClash};
pub use stream::{MAX_STREAMED, STDIN, WaveReader};
pub use writer::{KeptUntilWritten, Timescale, VcdWriter, check_not_input, is_same_file};
