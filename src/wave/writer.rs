//! The VCD writer.

use crate::rtl::trace::{Hierarchy, SignalId, SignalValue, TraceState, WaveSink};
use crate::{Error, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use vcd::{IdCode, ReferenceIndex, SimulationCommand, TimescaleUnit, VarType};

/// The time unit of a dump and the clock in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timescale {
    /// Multiplier of the unit: 1, 10 or 100.
    pub mult: u32,
    /// The unit.
    pub unit: TimescaleUnit,
    /// Clock period in units.
    pub period: u64,
}

impl Timescale {
    /// The largest VCD time unit in which a clock of `cycle_ps` picoseconds
    /// has both edges on whole units (5 ns gives 100 ps, a period of 50).
    pub fn for_cycle(cycle_ps: u64) -> Timescale {
        let period_fs = cycle_ps * 1000;
        let half_fs = period_fs / 2;
        let units = [
            (TimescaleUnit::S, 1_000_000_000_000_000u64),
            (TimescaleUnit::MS, 1_000_000_000_000),
            (TimescaleUnit::US, 1_000_000_000),
            (TimescaleUnit::NS, 1_000_000),
            (TimescaleUnit::PS, 1_000),
            (TimescaleUnit::FS, 1),
        ];
        for (unit, fs) in units {
            for mult in [100u64, 10, 1] {
                let u = fs * mult;
                if half_fs.is_multiple_of(u) {
                    return Timescale {
                        mult: mult as u32,
                        unit,
                        period: period_fs / u,
                    };
                }
            }
        }
        unreachable!("1 fs divides every half period")
    }
}

/// Writes a VCD file from the tracer's value changes.
///
/// The header (scopes, variables, timescale) is written with the `vcd`
/// crate; value changes go straight to the output with identifier codes
/// formatted once, which keeps tracing of every register affordable.
pub struct VcdWriter<W: Write> {
    out: Option<vcd::Writer<W>>,
    codes: Vec<Vec<u8>>,
    widths: Vec<u32>,
    clk: Vec<u8>,
    ts: Option<Timescale>,
    buf: Vec<u8>,
    comment: String,
}

impl VcdWriter<BufWriter<File>> {
    /// A writer to a new file.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let f = File::create(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(VcdWriter::new(BufWriter::with_capacity(1 << 16, f)))
    }
}

fn io(e: std::io::Error) -> Error {
    Error::Vcd(e.to_string())
}

impl<W: Write> VcdWriter<W> {
    /// A writer to `w`.
    pub fn new(w: W) -> Self {
        VcdWriter {
            out: Some(vcd::Writer::new(w)),
            codes: Vec::new(),
            widths: Vec::new(),
            clk: Vec::new(),
            ts: None,
            buf: Vec::with_capacity(256),
            comment: String::new(),
        }
    }

    /// Adds a `$comment` to the header (for example the run's seed).
    pub fn with_comment(mut self, text: &str) -> Self {
        self.comment = text.to_string();
        self
    }

    /// The timescale chosen at `begin`.
    pub fn timescale(&self) -> Option<Timescale> {
        self.ts
    }

    fn w(&mut self) -> &mut vcd::Writer<W> {
        self.out.as_mut().expect("writer present until dropped")
    }

    fn push_value(buf: &mut Vec<u8>, width: u32, v: SignalValue<'_>, code: &[u8]) {
        if width == 1 {
            buf.push(match v {
                SignalValue::Unknown => b'x',
                SignalValue::Narrow(b) => b'0' + (b & 1) as u8,
                SignalValue::Wide(w) => b'0' + (w[0] & 1) as u8,
            });
            buf.extend_from_slice(code);
        } else {
            buf.push(b'b');
            match v {
                // One `x` stands for all (the VCD rule of extension).
                SignalValue::Unknown => buf.push(b'x'),
                v => push_bits(buf, width, v),
            }
            buf.push(b' ');
            buf.extend_from_slice(code);
        }
        buf.push(b'\n');
    }

    fn write_changes(&mut self, state: &TraceState, changed: &[u32]) -> Result<()> {
        let mut buf = std::mem::take(&mut self.buf);
        for &i in changed {
            buf.clear();
            Self::push_value(
                &mut buf,
                self.widths[i as usize],
                state.value(SignalId(i)),
                &self.codes[i as usize],
            );
            self.w().writer().write_all(&buf).map_err(io)?;
        }
        self.buf = buf;
        Ok(())
    }

    fn clock(&mut self, t: u64, level: u8) -> Result<()> {
        let mut line = format!("#{t}\n").into_bytes();
        line.push(level);
        line.extend_from_slice(&self.clk);
        line.push(b'\n');
        self.w().writer().write_all(&line).map_err(io)
    }
}

/// The time of the rising edge of `cycle`, in the dump's units; an error
/// past 2^64 units (a clock period so long the times would wrap).
pub(crate) fn edge_time(cycle: u64, ts: &Timescale) -> Result<u64> {
    cycle
        .checked_add(1)
        .and_then(|c| c.checked_mul(ts.period))
        .map(|_| cycle * ts.period)
        .ok_or_else(|| {
            Error::Wave(format!(
                "cycle {cycle} is past the last time a waveform of this clock period can hold"
            ))
        })
}

/// Each byte's eight bits as characters, most significant first.
const BYTE_CHARS: [[u8; 8]; 256] = {
    let mut t = [[b'0'; 8]; 256];
    let mut v = 0;
    while v < 256 {
        let mut j = 0;
        while j < 8 {
            t[v][j] = b'0' + (v >> (7 - j) & 1) as u8;
            j += 1;
        }
        v += 1;
    }
    t
};

/// Appends the low `width` bits of `x` (at most 64), most significant
/// first.
fn push_word(buf: &mut Vec<u8>, width: usize, x: u64) {
    let top = width % 8;
    for b in (width - top..width).rev() {
        buf.push(b'0' + (x >> b & 1) as u8);
    }
    let mut b = width - top;
    while b > 0 {
        b -= 8;
        buf.extend_from_slice(&BYTE_CHARS[(x >> b & 0xff) as usize]);
    }
}

/// Appends a value's bits as `width` characters, most significant first
/// (`x`s when unknown).
pub(crate) fn push_bits(buf: &mut Vec<u8>, width: u32, v: SignalValue<'_>) {
    let width = width as usize;
    match v {
        SignalValue::Unknown => buf.extend(std::iter::repeat_n(b'x', width)),
        SignalValue::Narrow(x) => push_word(buf, width, x),
        SignalValue::Wide(words) => {
            let top = width % 64;
            let full = width / 64;
            if top > 0 {
                push_word(buf, top, words[full]);
            }
            for w in words[..full].iter().rev() {
                push_word(buf, 64, *w);
            }
        }
    }
}

impl VcdWriter<Vec<u8>> {
    /// A writer to memory.
    pub fn in_memory() -> Self {
        VcdWriter::new(Vec::new())
    }

    /// The bytes written so far.
    pub fn bytes(&mut self) -> &[u8] {
        self.w().writer().as_slice()
    }
}

impl<W: Write> WaveSink for VcdWriter<W> {
    fn begin(&mut self, h: &Hierarchy, cycle_ps: u64, state: &TraceState) -> Result<()> {
        self.begin_at(h, cycle_ps, state, 0)
    }

    fn begin_at(
        &mut self,
        h: &Hierarchy,
        cycle_ps: u64,
        state: &TraceState,
        first: u64,
    ) -> Result<()> {
        let ts = Timescale::for_cycle(cycle_ps);
        self.ts = Some(ts);
        let comment = std::mem::take(&mut self.comment);
        let w = self.w();
        w.version(concat!("wormcast ", env!("CARGO_PKG_VERSION")))
            .map_err(io)?;
        if !comment.is_empty() {
            w.comment(&comment).map_err(io)?;
        }
        w.timescale(ts.mult, ts.unit).map_err(io)?;
        let mut codes: Vec<Option<IdCode>> = vec![None; h.signals.len()];
        let mut clk = None;
        // Scopes depth first, each scope's own signals before its children.
        fn emit<W: Write>(
            w: &mut vcd::Writer<W>,
            h: &Hierarchy,
            scope: u32,
            codes: &mut [Option<IdCode>],
            clk: &mut Option<IdCode>,
        ) -> std::io::Result<()> {
            w.add_module(&h.scopes[scope as usize].name)?;
            if scope == 0 {
                *clk = Some(w.add_wire(1, "clk")?);
            }
            for s in h.scope_signals(scope) {
                let d = &h.signals[s.0 as usize];
                let idx = (d.width > 1).then(|| ReferenceIndex::Range(d.width as i32 - 1, 0));
                codes[s.0 as usize] = Some(w.add_var(VarType::Wire, d.width, &d.name, idx)?);
            }
            let children: Vec<u32> = h.child_scopes(scope).collect();
            for c in children {
                emit(w, h, c, codes, clk)?;
            }
            w.upscope()
        }
        emit(w, h, 0, &mut codes, &mut clk).map_err(io)?;
        w.enddefinitions().map_err(io)?;
        self.codes = codes
            .into_iter()
            .map(|c| {
                c.expect("every signal is in a scope")
                    .to_string()
                    .into_bytes()
            })
            .collect();
        self.widths = h.signals.iter().map(|s| s.width).collect();
        self.clk = clk.expect("root scope declared").to_string().into_bytes();
        let all: Vec<u32> = (0..h.signals.len() as u32).collect();
        let t0 = edge_time(first, &ts)?;
        let w = self.w();
        w.timestamp(t0).map_err(io)?;
        w.begin(SimulationCommand::Dumpvars).map_err(io)?;
        let clk = self.clk.clone();
        self.w().writer().write_all(b"1").map_err(io)?;
        self.w().writer().write_all(&clk).map_err(io)?;
        self.w().writer().write_all(b"\n").map_err(io)?;
        self.write_changes(state, &all)?;
        self.w().end().map_err(io)?;
        self.clock(t0 + ts.period / 2, b'0')
    }

    fn cycle(&mut self, cycle: u64, state: &TraceState, changed: &[u32]) -> Result<()> {
        let ts = self.ts.expect("begin called first");
        let t = edge_time(cycle, &ts)?;
        self.clock(t, b'1')?;
        self.write_changes(state, changed)?;
        self.clock(t + ts.period / 2, b'0')
    }

    fn finish(&mut self, last_cycle: u64) -> Result<()> {
        if let Some(ts) = self.ts {
            // Close the last cycle so viewers show it whole.
            let end = (last_cycle + 1) * ts.period;
            let line = format!("#{end}\n");
            self.w().writer().write_all(line.as_bytes()).map_err(io)?;
        }
        self.w().flush().map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timescale_puts_both_clock_edges_on_whole_units() {
        assert_eq!(
            Timescale::for_cycle(5000),
            Timescale {
                mult: 100,
                unit: TimescaleUnit::PS,
                period: 50
            }
        );
        assert_eq!(
            Timescale::for_cycle(10_000),
            Timescale {
                mult: 1,
                unit: TimescaleUnit::NS,
                period: 10
            }
        );
        assert_eq!(
            Timescale::for_cycle(1),
            Timescale {
                mult: 100,
                unit: TimescaleUnit::FS,
                period: 10
            }
        );
    }

    /// The bit-at-a-time reference `push_bits` replaced.
    fn reference(width: usize, v: SignalValue<'_>) -> Vec<u8> {
        match v {
            SignalValue::Unknown => vec![b'x'; width],
            SignalValue::Narrow(x) => (0..width)
                .rev()
                .map(|b| b'0' + (x >> b & 1) as u8)
                .collect(),
            SignalValue::Wide(words) => (0..width)
                .rev()
                .map(|b| b'0' + (words[b / 64] >> (b % 64) & 1) as u8)
                .collect(),
        }
    }

    proptest::proptest! {
        #[test]
        fn push_bits_writes_every_bit_most_significant_first(
            width in 1usize..=200,
            words in proptest::collection::vec(proptest::prelude::any::<u64>(), 4),
        ) {
            let mut buf = Vec::new();
            let v = if width <= 64 {
                let mask = if width == 64 { u64::MAX } else { (1 << width) - 1 };
                SignalValue::Narrow(words[0] & mask)
            } else {
                SignalValue::Wide(&words[..width.div_ceil(64)])
            };
            push_bits(&mut buf, width as u32, v);
            proptest::prop_assert_eq!(&buf, &reference(width, v));
            buf.clear();
            push_bits(&mut buf, width as u32, SignalValue::Unknown);
            proptest::prop_assert_eq!(buf, reference(width, SignalValue::Unknown));
        }
    }
}
