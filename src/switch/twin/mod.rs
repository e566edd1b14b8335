//! Hardware units with Verilog twins in `hdl_tests/rtl/` (seed 000 sections
//! 5.1.2, 5.2.3 and 5.3): the bit-string decode unit, the SSR / multi-drop
//! decode unit, and the replication input buffer.
//!
//! Each twin wraps the very code the switch runs ([`BitStringUnit::step`],
//! [`Decoder::decode`], [`InputBuffer`]) behind a clocked port list: named
//! inputs sampled at a rising clock edge and named outputs registered at
//! it. The port names and widths are the Verilog module's, so a waveform of
//! the Verilog can be checked against the model with no mapping
//! (`wormcast cosim`, [`crate::wave::cosim`]). Stimulus for the Verilog
//! testbenches comes from [`Unit::vectors`] (`wormcast vectors`).
//!
//! [`BitStringUnit::step`]: crate::switch::decode::bitstring::BitStringUnit::step
//! [`Decoder::decode`]: crate::switch::Decoder::decode
//! [`InputBuffer`]: crate::switch::InputBuffer

pub mod bitstring;
pub mod buffer;
pub mod drive;
pub mod pairs;

use crate::rtl::BitString;
use crate::rtl::trace::{Hierarchy, Radix, TraceState, WaveSink};
use crate::{Error, Result};
use std::fmt::Write as _;
use std::path::Path;

/// Direction of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Sampled at the rising edge.
    In,
    /// Registered at the rising edge.
    Out,
}

/// One port of a unit (the clock `clk` is implicit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// Name, as in the Verilog module.
    pub name: &'static str,
    /// Direction.
    pub dir: Dir,
    /// Width in bits.
    pub width: u32,
}

fn input(name: &'static str, width: u32) -> Port {
    Port {
        name,
        dir: Dir::In,
        width,
    }
}

fn output(name: &'static str, width: u32) -> Port {
    Port {
        name,
        dir: Dir::Out,
        width,
    }
}

/// Sets every output of `o` to zeros of its port's width (what a unit
/// registers in reset, and the start of every edge).
fn zero_outputs(ports: &[Port], o: &mut [BitString]) {
    for (x, port) in o.iter_mut().zip(ports.iter().filter(|q| q.dir == Dir::Out)) {
        if x.len() == port.width as usize {
            x.clear();
        } else {
            *x = BitString::zeros(port.width as usize);
        }
    }
}

/// A unit as the model runs it, one rising clock edge at a time.
pub trait Twin {
    /// Which unit.
    fn unit(&self) -> Unit;

    /// Its ports in Verilog declaration order, `rst` first (the clock is
    /// implicit).
    fn ports(&self) -> &[Port];

    /// One rising edge: `inputs` holds the value of every input port (in
    /// port order) as sampled at the edge; `outputs` receives every output
    /// port (in port order) as registered at the edge.
    fn edge(&mut self, inputs: &[BitString], outputs: &mut [BitString]);
}

/// The units with Verilog twins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// The bit-string decode unit (`bitstring_decode.v`).
    BitStringDecode,
    /// The SSR / multi-drop decode unit (`ssr_md_decode.v`).
    SsrMdDecode,
    /// The input buffer with chunk reference counts (`repl_buffer.v`).
    ReplBuffer,
}

/// Sizes of a unit. Each unit uses some of them: the bit-string decode
/// unit `nodes` and `ports`; the SSR / multi-drop unit `ports` and
/// `switches`; the buffer `chunks`, `chunk_flits` and `ports` (its
/// readers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// `N`, nodes (bits of a destination string).
    pub nodes: u32,
    /// `P`, ports of the switch.
    pub ports: u32,
    /// `S`, switches.
    pub switches: u32,
    /// `C`, chunks of the buffer.
    pub chunks: u32,
    /// `K`, flits per chunk.
    pub chunk_flits: u32,
}

impl Default for Params {
    /// 16 nodes, 6 ports, 8 switches, 16 chunks of 4 flits.
    fn default() -> Self {
        Params {
            nodes: 16,
            ports: 6,
            switches: 8,
            chunks: 16,
            chunk_flits: 4,
        }
    }
}

fn bad(what: &str, value: u32, range: &str) -> Error {
    Error::Wave(format!("{what} = {value}: must be {range}"))
}

impl Unit {
    /// Every unit.
    pub const ALL: [Unit; 3] = [Unit::BitStringDecode, Unit::SsrMdDecode, Unit::ReplBuffer];

    /// Its name on the command line (`bitstring-decode`).
    pub fn name(self) -> &'static str {
        match self {
            Unit::BitStringDecode => "bitstring-decode",
            Unit::SsrMdDecode => "ssr-md-decode",
            Unit::ReplBuffer => "repl-buffer",
        }
    }

    /// Its Verilog module name (`bitstring_decode`).
    pub fn module(self) -> &'static str {
        match self {
            Unit::BitStringDecode => "bitstring_decode",
            Unit::SsrMdDecode => "ssr_md_decode",
            Unit::ReplBuffer => "repl_buffer",
        }
    }

    /// The unit named `name`.
    pub fn from_name(name: &str) -> Result<Unit> {
        Unit::ALL
            .into_iter()
            .find(|u| u.name() == name)
            .ok_or_else(|| {
                Error::Wave(format!(
                    "no unit `{name}`; the units are {}",
                    Unit::ALL.map(|u| u.name()).join(", ")
                ))
            })
    }

    /// Checks the sizes this unit uses.
    pub fn check(self, p: &Params) -> Result<()> {
        match self {
            Unit::BitStringDecode => {
                if !(1..=1024).contains(&p.nodes) {
                    return Err(bad("nodes", p.nodes, "1 to 1024"));
                }
                if !(2..=64).contains(&p.ports) {
                    return Err(bad("ports", p.ports, "2 to 64"));
                }
            }
            Unit::SsrMdDecode => {
                if !(2..=64).contains(&p.ports) {
                    return Err(bad("ports", p.ports, "2 to 64"));
                }
                if !(2..=64).contains(&p.switches) {
                    return Err(bad("switches", p.switches, "2 to 64"));
                }
            }
            Unit::ReplBuffer => {
                if !(2..=256).contains(&p.chunks) {
                    return Err(bad("chunks", p.chunks, "2 to 256"));
                }
                if !(1..=64).contains(&p.chunk_flits) {
                    return Err(bad("chunk_flits", p.chunk_flits, "1 to 64"));
                }
                if !(1..=16).contains(&p.ports) {
                    return Err(bad("ports", p.ports, "1 to 16 readers"));
                }
            }
        }
        Ok(())
    }

    /// The model of this unit with sizes `p`.
    pub fn build(self, p: &Params) -> Result<Box<dyn Twin>> {
        self.check(p)?;
        Ok(match self {
            Unit::BitStringDecode => Box::new(bitstring::BitStringTwin::new(p.nodes, p.ports)),
            Unit::SsrMdDecode => Box::new(pairs::SsrMdTwin::new(p.ports, p.switches)),
            Unit::ReplBuffer => Box::new(buffer::BufferTwin::new(p.chunks, p.chunk_flits, p.ports)),
        })
    }

    /// The unit's sizes for a waveform: each is the parameter `given`
    /// returns (a `--param` on the command line, or a parameter the
    /// simulator dumped), or else what the width of a port tells (`width`
    /// gives a port's width). The buffer's `C` and `K` do not follow from
    /// its port widths and must be given.
    pub fn resolve_params(
        self,
        width: &dyn Fn(&str) -> Option<u32>,
        given: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Params> {
        let from = |param: &str, port: &str| -> Result<u32> {
            given(param).or_else(|| width(port)).ok_or_else(|| {
                Error::Wave(format!(
                    "the waveform has no port `{port}` of the {} unit (to tell its parameter {param})",
                    self.name()
                ))
            })
        };
        let must = |param: &str| -> Result<u32> {
            given(param).ok_or_else(|| {
                Error::Wave(format!(
                    "the {} unit's parameter {param} does not follow from its port widths: \
                     give it (--param {param}=...)",
                    self.name()
                ))
            })
        };
        let mut p = Params::default();
        match self {
            Unit::BitStringDecode => {
                p.nodes = from("N", "dests")?;
                p.ports = from("P", "replicate")?;
            }
            Unit::SsrMdDecode => {
                p.ports = from("P", "replicate")?;
                p.switches = match given("S") {
                    Some(s) => s,
                    None => from("S", "route")? / (2 * p.ports),
                };
            }
            Unit::ReplBuffer => {
                p.ports = from("P", "rd_en")?;
                p.chunks = must("C")?;
                p.chunk_flits = must("K")?;
            }
        }
        self.check(&p)?;
        Ok(p)
    }

    /// An endless stream of random and corner-case stimulus for this unit
    /// from `seed`: each item holds every input port's value (in port
    /// order) for one clock edge.
    pub fn stimulus(
        self,
        p: &Params,
        seed: u64,
    ) -> Result<Box<dyn Iterator<Item = Vec<BitString>> + Send>> {
        self.check(p)?;
        Ok(match self {
            Unit::BitStringDecode => Box::new(bitstring::Stimulus::new(p.nodes, p.ports, seed)),
            Unit::SsrMdDecode => Box::new(pairs::Stimulus::new(p.ports, p.switches, seed)),
            Unit::ReplBuffer => Box::new(buffer::Stimulus::new(
                p.chunks,
                p.chunk_flits,
                p.ports,
                seed,
            )),
        })
    }

    /// The first `cycles` vectors of [`Unit::stimulus`], in memory.
    pub fn vectors(self, p: &Params, cycles: usize, seed: u64) -> Result<Vec<Vec<BitString>>> {
        Ok(self.stimulus(p, seed)?.take(cycles).collect())
    }

    /// The Verilog parameters of the twin for sizes `p`, as
    /// `(name, value)`.
    pub fn verilog_params(self, p: &Params) -> Vec<(&'static str, u32)> {
        match self {
            Unit::BitStringDecode => vec![("N", p.nodes), ("P", p.ports)],
            Unit::SsrMdDecode => vec![("P", p.ports), ("S", p.switches)],
            Unit::ReplBuffer => vec![("C", p.chunks), ("K", p.chunk_flits), ("P", p.ports)],
        }
    }
}

/// The most clock edges of stimulus for a testbench: a Verilog `integer`
/// counts them and indexes the vector memory.
pub const MAX_CYCLES: u64 = i32::MAX as u64;

/// Checks a number of clock edges against [`MAX_CYCLES`].
pub fn check_cycles(cycles: u64) -> Result<usize> {
    if cycles == 0 || cycles > MAX_CYCLES {
        return Err(Error::Config {
            field: "cycles",
            value: cycles.to_string(),
            reason: format!(
                "a testbench takes 1 to {MAX_CYCLES} clock edges (a Verilog integer counts them)"
            ),
        });
    }
    Ok(cycles as usize)
}

/// Writes `vectors` for a testbench, one at a time (nothing proportional
/// to their number is held): `path` gets one line per clock edge, the
/// unit's input ports concatenated in port order (first port most
/// significant) as hexadecimal for `$readmemh`; `path` with the extension
/// `vh` gets the defines the testbench includes: `VEC_FILE`, `VEC_CYCLES`,
/// `VEC_WIDTH`, `VEC_INPUTS` (the concatenation to assign a vector to)
/// and the unit's parameters. Returns the number of vectors.
pub fn write_vectors(
    path: &Path,
    twin: &dyn Twin,
    params: &[(&'static str, u32)],
    vectors: impl IntoIterator<Item = Vec<BitString>>,
) -> Result<u64> {
    use std::io::Write as _;
    let ins: Vec<&Port> = twin.ports().iter().filter(|p| p.dir == Dir::In).collect();
    let width: u32 = ins.iter().map(|p| p.width).sum();
    let digits = width.div_ceil(4) as usize;
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| Error::Io { path: p, source }
    };
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("vh"))
    {
        return Err(Error::Config {
            field: "output",
            value: path.display().to_string(),
            reason: "the defines are written beside the vectors, to the same name with .vh, \
                     and would replace them: name the vectors file otherwise (.hex)"
                .into(),
        });
    }
    let mut line = Vec::with_capacity(digits + 1);
    let mut bits = vec![false; digits * 4];
    let mut count = 0u64;
    // Written whole or not at all: cut short at a line, the vectors would
    // read as a shorter run.
    crate::error::write_whole(path, |out| {
        for v in vectors {
            // Most significant first: pad, then each port's bits from its top.
            let mut at = digits * 4 - width as usize;
            bits[..at].fill(false);
            for (port, value) in ins.iter().zip(&v) {
                for i in (0..port.width as usize).rev() {
                    bits[at] = value.get(i);
                    at += 1;
                }
            }
            line.clear();
            for nibble in bits.chunks(4) {
                let d = nibble.iter().fold(0u32, |d, &b| d << 1 | b as u32);
                line.push(char::from_digit(d, 16).expect("nibble") as u8);
            }
            line.push(b'\n');
            out.write_all(&line)?;
            count += 1;
        }
        Ok(())
    })?;
    let abs = std::path::absolute(path).map_err(io(path))?;
    let mut vh = String::new();
    let _ = writeln!(
        vh,
        "// wormcast vectors for the {} unit: {count} edges",
        twin.unit().name()
    );
    let _ = writeln!(vh, "`define VEC_FILE \"{}\"", abs.display());
    let _ = writeln!(vh, "`define VEC_CYCLES {count}");
    let _ = writeln!(vh, "`define VEC_WIDTH {width}");
    let names: Vec<&str> = ins.iter().map(|p| p.name).collect();
    let _ = writeln!(vh, "`define VEC_INPUTS {{{}}}", names.join(", "));
    for (name, value) in params {
        let _ = writeln!(vh, "`define UNIT_{name} {value}");
    }
    let vh_path = path.with_extension("vh");
    crate::error::write_bytes(&vh_path, vh)?;
    Ok(count)
}

/// The display radix of a port in waveform viewers.
fn radix(p: &Port) -> Radix {
    match p.name {
        "hdr" | "hdr_first" | "wr_data" | "rd_data" => Radix::Hex,
        _ if p.width == 1 => Radix::Bin,
        "err" | "kind" | "target" | "my_id" | "free_chunks" | "buf_count" | "packets"
        | "chunks_freed" => Radix::Dec,
        // Port and destination strings, route tables.
        _ => Radix::Bin,
    }
}

/// The hierarchy of a testbench dump of `twin`: scope `tb` (where the
/// writer puts the clock) and `tb.dut` with every port.
pub fn hierarchy(twin: &dyn Twin) -> Hierarchy {
    let mut h = Hierarchy::new("tb");
    h.root().scope("dut", |s| {
        for p in twin.ports() {
            s.signal_as(p.name, p.width, radix(p));
        }
    });
    h
}

/// Runs `vectors` through the model `twin` and writes what a testbench
/// dump of the unit would show: scope `tb` with the clock `clk`, and scope
/// `tb.dut` with every port. The inputs of edge `k` are on the ports during
/// the cycle before it; the outputs registered at edge `k` change with it.
/// `wormcast cosim --scope tb.dut` on the result finds no mismatch.
pub fn trace(
    twin: &mut dyn Twin,
    vectors: impl IntoIterator<Item = Vec<BitString>>,
    cycle_ps: u64,
    sink: &mut dyn WaveSink,
) -> Result<()> {
    let ports = twin.ports().to_vec();
    let h = hierarchy(twin);
    let mut state = TraceState::new(&h);
    let mut outs: Vec<BitString> = ports
        .iter()
        .filter(|p| p.dir == Dir::Out)
        .map(|p| BitString::zeros(p.width as usize))
        .collect();
    let sample = |state: &mut TraceState, ins: &[BitString], outs: Option<&[BitString]>| {
        let mut s = state.sampler(0, ports.len() as u32);
        let (mut i, mut o) = (0, 0);
        for p in &ports {
            if p.dir == Dir::In {
                s.bits(&ins[i]);
                i += 1;
            } else {
                match outs {
                    Some(v) => s.bits(&v[o]),
                    None => s.unknown(),
                }
                o += 1;
            }
        }
        s.finish();
    };
    let mut vectors = vectors.into_iter().peekable();
    let Some(first) = vectors.peek() else {
        return Err(Error::Wave("no vectors to trace".into()));
    };
    sample(&mut state, first, None);
    sink.begin(&h, cycle_ps, &state)?;
    state.clear_changes();
    let mut k = 0u64;
    while let Some(v) = vectors.next() {
        twin.edge(&v, &mut outs);
        let next = vectors.peek().unwrap_or(&v);
        sample(&mut state, next, Some(&outs));
        k += 1;
        sink.cycle(k, &state, state.changed())?;
        state.clear_changes();
    }
    sink.finish(k)
}
