//! Waveforms: the VCD writer the model's tracer feeds, a streaming VCD
//! reader for any tool's dumps, and GTKWave save files that open a dump with
//! its signals grouped per unit.
//!
//! Conventions (ARCHITECTURE.md "Waveforms"): one VCD scope per component
//! instance named like a Verilog hierarchy under `top` (`top.sw3.in2.buf_count`),
//! a `top.clk` clock whose rising edge starts each cycle, a timescale chosen
//! so that both clock edges fall on whole time units, values written only
//! when they change, vectors with their widths and `[msb:lsb]` ranges, most
//! significant bit first, `x` for values that are not meaningful.

mod compare;
mod gtkw;
mod map;
mod read;
mod writer;

pub use compare::{CompareReport, CosimOptions, DiffOptions, Mismatch, cosim, diff};
pub use gtkw::{gtkw_text, write_gtkw};
pub use map::{Mapping, SignalMap};
pub use read::{CodeInfo, Event, VarKind, VcdHeader, VcdReader, VcdVar};
pub use writer::{Timescale, VcdWriter};
