//! The VCD writer.

use crate::rtl::trace::{Hierarchy, HierarchyIndex, SignalId, SignalValue, TraceState, WaveSink};
use crate::{Error, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
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
    /// What follows each signal's value on its line: its identifier code
    /// (after a space for a vector) and the newline.
    tails: Vec<Tail>,
    widths: Vec<u32>,
    clk: Vec<u8>,
    ts: Option<Timescale>,
    buf: Vec<u8>,
    comment: String,
    /// Where the dump goes, to name it in an error (`None`: a writer
    /// made by [`VcdWriter::new`], whose errors say only "VCD").
    path: Option<PathBuf>,
}

impl VcdWriter<BufWriter<KeptUntilWritten>> {
    /// A writer to the file at `path`, made now (so that a path that
    /// cannot be written fails at once) but emptied only when the first
    /// byte is written: a run refused before its waveform starts (a
    /// `--trace-scope` naming nothing, say) leaves a file already there as
    /// it was.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let f = KeptUntilWritten::open(path.as_ref())?;
        Ok(VcdWriter::new(BufWriter::with_capacity(1 << 16, f)).named(path.as_ref()))
    }
}

/// A file opened for writing without being emptied, until the first write
/// empties it (see [`VcdWriter::create`]). A target that is not a regular
/// file (`/dev/null`, a named pipe) is written as it is: it has nothing to
/// empty. A file that did not exist before is removed again if it is
/// dropped before its first write.
#[derive(Debug)]
pub struct KeptUntilWritten {
    file: File,
    emptied: bool,
    made: Made,
}

impl KeptUntilWritten {
    /// Opens `path` for writing, making it if it does not exist, and
    /// leaving what it holds until the first write.
    pub fn open(path: &Path) -> Result<Self> {
        let (file, made) = open_kept(path)?;
        Ok(KeptUntilWritten {
            emptied: !is_regular(&file),
            file,
            made,
        })
    }
}

/// The path of a file that opening a waveform made, until the waveform's
/// first bytes are written to it ([`keep`](Self::keep)): dropped before
/// then (a run refused before its waveform starts), it removes the file,
/// so that such a run leaves no empty file behind, as it leaves a file
/// that was already there as it was.
#[derive(Debug)]
pub(crate) struct Made(Option<PathBuf>);

impl Made {
    /// The file holds the waveform now: keep it.
    pub(crate) fn keep(&mut self) {
        self.0 = None;
    }
}

impl Drop for Made {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            // Nothing was written to it; if it cannot be removed, an empty
            // file stays, as before.
            let _ = std::fs::remove_file(p);
        }
    }
}

/// True when `file` is a regular file: one that can be emptied, and that
/// views can be written beside. A device or a pipe is not. One whose
/// metadata cannot be read counts as regular: emptying it then fails with
/// its name, where leaving it unemptied could keep an old file's tail.
pub(crate) fn is_regular(file: &File) -> bool {
    file.metadata().map_or(true, |m| m.is_file())
}

/// Refuses to write `out` (the output of option `field`) over one of
/// `inputs`, the files the same command reads: the output would destroy
/// the input it is made from (`--vcd net.toml` beside `--topology
/// net.toml`, or `wave to-vcd run.fst -o run.fst`). Paths are compared as
/// files ([`is_same_file`]: a link, or another name of the same file, is
/// the same file); an input or output that does not exist, standard output
/// among them, is not one.
pub fn check_not_input<'a>(
    field: &'static str,
    out: &Path,
    inputs: impl IntoIterator<Item = &'a Path>,
) -> Result<()> {
    for input in inputs {
        if is_same_file(out, input) {
            return Err(Error::Config {
                field,
                value: out.display().to_string(),
                reason: format!(
                    "it is {}, which this command reads: writing it would destroy that \
                     input; give another path",
                    input.display()
                ),
            });
        }
    }
    Ok(())
}

/// Whether `a` and `b` name one file (the same device and inode, after
/// links), looked up without opening either: opening a named pipe to ask
/// would wait for its other end. A path that does not exist names no file.
pub fn is_same_file(a: &Path, b: &Path) -> bool {
    let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        x.dev() == y.dev() && x.ino() == y.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (x, y);
        std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
    }
}

/// `path` opened for writing, made if it does not exist (the [`Made`]
/// then names it), not emptied.
pub(crate) fn open_kept(path: &Path) -> Result<(File, Made)> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(f) => Ok((f, Made(Some(path.to_path_buf())))),
        // (A link to a file not made yet is made through, as before.)
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map(|f| (f, Made(None)))
            .map_err(io),
        Err(e) => Err(io(e)),
    }
}

impl Write for KeptUntilWritten {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.emptied {
            // (A file this writer made is regular, so it is kept here, at
            // its first write, and not asked again.)
            self.file.set_len(0)?;
            self.emptied = true;
            self.made.keep();
        }
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// A write error of the dump at `path` (`None`: unnamed), naming it.
fn io_at(path: &Option<PathBuf>, source: std::io::Error) -> Error {
    match path {
        Some(p) => Error::Io {
            path: p.clone(),
            source,
        },
        None => Error::Vcd(source.to_string()),
    }
}

impl<W: Write> VcdWriter<W> {
    /// A writer to `w`.
    pub fn new(w: W) -> Self {
        VcdWriter {
            out: Some(vcd::Writer::new(w)),
            tails: Vec::new(),
            widths: Vec::new(),
            clk: Vec::new(),
            ts: None,
            buf: Vec::with_capacity(256),
            comment: String::new(),
            path: None,
        }
    }

    /// The same writer, naming `path` in its errors (the file, or
    /// `standard output`).
    pub fn named(mut self, path: impl AsRef<Path>) -> Self {
        self.path = Some(path.as_ref().to_path_buf());
        self
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

    /// Appends a value change: the value and `tail` (the signal's code
    /// and the newline).
    #[inline]
    fn push_value(buf: &mut Vec<u8>, width: u32, v: SignalValue<'_>, tail: &Tail) {
        if let SignalValue::Narrow(x) = v
            && width <= 64
        {
            return push_narrow(buf, width, x, tail);
        }
        if width == 1 {
            buf.push(match v {
                SignalValue::Unknown => b'x',
                SignalValue::Narrow(b) => b'0' + (b & 1) as u8,
                SignalValue::Wide(w) => b'0' + (w[0] & 1) as u8,
            });
        } else {
            buf.push(b'b');
            match v {
                // One `x` stands for all (the VCD rule of extension).
                SignalValue::Unknown => buf.push(b'x'),
                v => push_bits(buf, width, v),
            }
        }
        buf.extend_from_slice(tail.bytes());
    }

    /// Appends the values of the signals in `changed` to `buf`.
    fn push_changes(&self, buf: &mut Vec<u8>, state: &TraceState, changed: &[u32]) {
        for &i in changed {
            Self::push_value(
                buf,
                self.widths[i as usize],
                state.value(SignalId(i)),
                &self.tails[i as usize],
            );
        }
    }

    /// Appends the changes a simulation exported
    /// ([`TraceState::export_changes`]) to `buf`.
    fn push_exported(
        &self,
        buf: &mut Vec<u8>,
        ids: &[u32],
        words: &[u64],
        wide: &[u64],
        unknown: u32,
    ) {
        for (&id, &w) in ids.iter().zip(words) {
            let i = (id & !unknown) as usize;
            let width = self.widths[i];
            let v = if id & unknown != 0 {
                SignalValue::Unknown
            } else if width <= 64 {
                SignalValue::Narrow(w)
            } else {
                let at = w as usize;
                SignalValue::Wide(&wide[at..at + width.div_ceil(64) as usize])
            };
            Self::push_value(buf, width, v, &self.tails[i]);
        }
    }

    /// Appends the clock's edge at time `t`: the time and the clock's new
    /// `level`.
    fn push_clock(&self, buf: &mut Vec<u8>, t: u64, level: u8) {
        buf.push(b'#');
        buf.extend_from_slice(itoa::Buffer::new().format(t).as_bytes());
        buf.push(b'\n');
        buf.push(level);
        buf.extend_from_slice(&self.clk);
        buf.push(b'\n');
    }

    /// Writes one cycle: the rising edge at `t`, the changes `push` appends,
    /// the falling edge, in one write.
    fn write_cycle(&mut self, t: u64, push: impl FnOnce(&Self, &mut Vec<u8>)) -> Result<()> {
        let half = self.ts.expect("begin called first").period / 2;
        self.write_built(|me, buf| {
            me.push_clock(buf, t, b'1');
            push(me, buf);
            me.push_clock(buf, t + half, b'0');
        })
    }

    /// Writes what `build` appends to the (emptied) line buffer, in one
    /// write.
    fn write_built(&mut self, build: impl FnOnce(&Self, &mut Vec<u8>)) -> Result<()> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        build(self, &mut buf);
        let r = self.w().writer().write_all(&buf);
        self.buf = buf;
        r.map_err(|e| io_at(&self.path, e))
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
pub(super) const BYTE_CHARS: [[u8; 8]; 256] = {
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

/// What follows a signal's value on its line in a VCD: the identifier
/// code (after a space for a vector) and the newline, at most 7 bytes (a
/// code has at most 5 characters for the 2^32 signals a waveform can
/// hold), kept in 8 so that it is copied as one word.
#[derive(Clone, Copy, Debug)]
struct Tail {
    bytes: [u8; 8],
    len: u8,
}

impl Tail {
    /// The tail of a signal of `width` bits with identifier code `code`.
    fn new(width: u32, code: &str) -> Tail {
        let text = if width == 1 {
            format!("{code}\n")
        } else {
            format!(" {code}\n")
        };
        let mut bytes = [0u8; 8];
        assert!(
            text.len() <= bytes.len(),
            "VCD identifier code {code:?} is longer than any of 2^32 signals"
        );
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Tail {
            bytes,
            len: text.len() as u8,
        }
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

/// Appends the change of a signal of at most 64 bits to the known value
/// `x`: built in a buffer on the stack, eight characters at a time from
/// the least significant end, and appended in one copy.
#[inline]
fn push_narrow(buf: &mut Vec<u8>, width: u32, x: u64, tail: &Tail) {
    // Room before the value for the first chunk's characters above the
    // signal's width (overwritten by the `b`), and after it for the tail
    // copied as a word.
    const PAD: usize = 8;
    let mut line = [0u8; PAD + 1 + 64 + 8];
    let w = width as usize;
    if w == 1 {
        line[PAD] = b'0' + (x & 1) as u8;
    } else {
        let mut end = PAD + 1 + w;
        let mut rest = x;
        loop {
            line[end - 8..end].copy_from_slice(&BYTE_CHARS[(rest & 0xff) as usize]);
            if end - 8 <= PAD + 1 {
                break;
            }
            rest >>= 8;
            end -= 8;
        }
        line[PAD] = b'b';
    }
    let n = PAD + 1 + if w == 1 { 0 } else { w };
    line[n..n + 8].copy_from_slice(&tail.bytes);
    buf.extend_from_slice(&line[PAD..n + tail.len as usize]);
}

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
        let path = self.path.clone();
        let io = |e| io_at(&path, e);
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
            ix: &HierarchyIndex,
            scope: u32,
            codes: &mut [Option<IdCode>],
            clk: &mut Option<IdCode>,
        ) -> std::io::Result<()> {
            w.add_module(&h.scopes[scope as usize].name)?;
            if scope == 0 {
                *clk = Some(w.add_wire(1, "clk")?);
            }
            for s in ix.signals(scope) {
                let d = &h.signals[s.0 as usize];
                let idx = (d.width > 1).then(|| ReferenceIndex::Range(d.width as i32 - 1, 0));
                codes[s.0 as usize] = Some(w.add_var(VarType::Wire, d.width, &d.name, idx)?);
            }
            for &c in ix.children(scope) {
                emit(w, h, ix, c, codes, clk)?;
            }
            w.upscope()
        }
        emit(w, h, &h.index(), 0, &mut codes, &mut clk).map_err(io)?;
        w.enddefinitions().map_err(io)?;
        self.tails = codes
            .into_iter()
            .zip(&h.signals)
            .map(|(c, d)| Tail::new(d.width, &c.expect("every signal is in a scope").to_string()))
            .collect();
        self.widths = h.signals.iter().map(|s| s.width).collect();
        self.clk = clk.expect("root scope declared").to_string().into_bytes();
        let all: Vec<u32> = (0..h.signals.len() as u32).collect();
        let t0 = edge_time(first, &ts)?;
        let w = self.w();
        w.timestamp(t0).map_err(io)?;
        w.begin(SimulationCommand::Dumpvars).map_err(io)?;
        self.write_built(|me, buf| {
            buf.push(b'1');
            buf.extend_from_slice(&me.clk);
            buf.push(b'\n');
            me.push_changes(buf, state, &all);
        })?;
        self.w().end().map_err(io)?;
        // The first falling edge: a time and the clock's level.
        self.write_built(|me, buf| me.push_clock(buf, t0 + ts.period / 2, b'0'))
    }

    fn cycle(&mut self, cycle: u64, state: &TraceState, changed: &[u32]) -> Result<()> {
        let ts = self.ts.expect("begin called first");
        let t = edge_time(cycle, &ts)?;
        self.write_cycle(t, |me, buf| me.push_changes(buf, state, changed))
    }

    /// The changes come as words, so that a writer on its own thread
    /// ([`super::Background`]) need not keep a copy of every value.
    fn takes_exported(&self) -> bool {
        true
    }

    fn cycle_exported(
        &mut self,
        cycle: u64,
        ids: &[u32],
        words: &[u64],
        wide: &[u64],
        unknown: u32,
    ) -> Result<()> {
        let ts = self.ts.expect("begin called first");
        let t = edge_time(cycle, &ts)?;
        self.write_cycle(t, |me, buf| {
            me.push_exported(buf, ids, words, wide, unknown)
        })
    }

    fn finish(&mut self, last_cycle: u64) -> Result<()> {
        let path = self.path.clone();
        let io = |e| io_at(&path, e);
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

        /// A value change line: `<bit><code>` for one bit, `b<bits> <code>`
        /// for a vector, `bx <code>` for an unknown vector, whichever way
        /// it is built (the stack buffer of a known value of at most 64
        /// bits, or the general path), after text already in the buffer.
        #[test]
        fn a_value_change_is_its_bits_then_its_code(
            width in 1u32..=200,
            words in proptest::collection::vec(proptest::prelude::any::<u64>(), 4),
            code in "[!-~]{1,5}",
            unknown in proptest::prelude::any::<bool>(),
        ) {
            let v = if unknown {
                SignalValue::Unknown
            } else if width <= 64 {
                let mask = if width == 64 { u64::MAX } else { (1 << width) - 1 };
                SignalValue::Narrow(words[0] & mask)
            } else {
                SignalValue::Wide(&words[..width.div_ceil(64) as usize])
            };
            let tail = Tail::new(width, &code);
            let mut buf = b"#10\n".to_vec();
            VcdWriter::<Vec<u8>>::push_value(&mut buf, width, v, &tail);
            let bits = reference(width as usize, v);
            let want = match (width, v) {
                (1, _) => format!("#10\n{}{code}\n", bits[0] as char),
                (_, SignalValue::Unknown) => format!("#10\nbx {code}\n"),
                _ => format!("#10\nb{} {code}\n", String::from_utf8(bits).unwrap()),
            };
            proptest::prop_assert_eq!(String::from_utf8(buf).unwrap(), want);
        }
    }
}
