//! Waveforms: the VCD writer the model's tracer feeds, and GTKWave save
//! files that open a dump with its signals grouped per unit.
//!
//! Conventions (ARCHITECTURE.md "Waveforms"): one VCD scope per component
//! instance named like a Verilog hierarchy under `top` (`top.sw3.in2.buf_count`),
//! a `top.clk` clock whose rising edge starts each cycle, a timescale chosen
//! so that both clock edges fall on whole time units, values written only
//! when they change, vectors with their widths and `[msb:lsb]` ranges, most
//! significant bit first, `x` for values that are not meaningful.

mod gtkw;
mod writer;

pub use gtkw::{gtkw_text, write_gtkw};
pub use writer::{Timescale, VcdWriter};
