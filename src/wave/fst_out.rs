//! The FST writer (through the `fst-writer` crate): the model's waveform in
//! GTKWave's compressed format, with the same hierarchy, clock, timescale
//! and values as [`super::VcdWriter`] writes, so that `wormcast wave diff`
//! finds no difference between the two dumps of one run.
//!
//! [`create`] picks the format from the file name (`.fst`, else VCD) and
//! [`write_views`] writes the GTKWave save file and the Surfer command
//! file beside a waveform.

use super::gtkw::{gtkw_text, surfer_text};
use super::writer::{Timescale, VcdWriter, push_bits};
use crate::rtl::trace::{Hierarchy, SignalId, TraceState, WaveSink};
use crate::{Error, Result};
use fst_writer::{
    FstBodyWriter, FstFileType, FstHeaderWriter, FstInfo, FstScopeType, FstSignalId, FstSignalType,
    FstVarDirection, FstVarType,
};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// Value changes buffered before a value-change block is written.
const FLUSH_BYTES: usize = 4 << 20;

fn fst(e: fst_writer::FstWriteError) -> Error {
    Error::Wave(format!("FST: {e}"))
}

enum State {
    Start(PathBuf),
    Body(Box<FstBodyWriter<BufWriter<File>>>),
    Done,
}

/// Writes an FST file from the tracer's value changes.
pub struct FstWriter {
    state: State,
    ids: Vec<FstSignalId>,
    widths: Vec<u32>,
    clk: Option<FstSignalId>,
    ts: Option<Timescale>,
    buf: Vec<u8>,
    comment: String,
}

impl FstWriter {
    /// A writer to a new file at `path` (created at the first cycle).
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        // Fail now, not at the first cycle, if the file cannot be made.
        File::create(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        Ok(FstWriter {
            state: State::Start(path),
            ids: Vec::new(),
            widths: Vec::new(),
            clk: None,
            ts: None,
            buf: Vec::new(),
            comment: String::new(),
        })
    }

    /// A note for the file's date field (the run's seed, say).
    pub fn with_comment(mut self, text: &str) -> Self {
        self.comment = text.to_string();
        self
    }

    fn body(&mut self) -> &mut FstBodyWriter<BufWriter<File>> {
        match &mut self.state {
            State::Body(b) => b,
            _ => panic!("FstWriter used before begin or after finish"),
        }
    }

    fn value(&mut self, id: FstSignalId, bits: &[u8]) -> Result<()> {
        self.body().signal_change(id, bits).map_err(fst)
    }

    fn write_changes(&mut self, state: &TraceState, changed: &[u32]) -> Result<()> {
        let mut buf = std::mem::take(&mut self.buf);
        for &i in changed {
            buf.clear();
            push_bits(&mut buf, self.widths[i as usize], state.value(SignalId(i)));
            let id = self.ids[i as usize];
            self.value(id, &buf)?;
        }
        self.buf = buf;
        if self.body().size() > FLUSH_BYTES {
            self.body().flush().map_err(fst)?;
        }
        Ok(())
    }

    fn clock(&mut self, t: u64, level: u8) -> Result<()> {
        self.body().time_change(t).map_err(fst)?;
        let clk = self.clk.expect("declared");
        self.value(clk, &[level])
    }
}

/// The FST timescale exponent of a VCD timescale (100 ps is 10^-10 s).
fn exponent(ts: &Timescale) -> i8 {
    use vcd::TimescaleUnit as U;
    let unit = match ts.unit {
        U::S => 0,
        U::MS => -3,
        U::US => -6,
        U::NS => -9,
        U::PS => -12,
        U::FS => -15,
    };
    unit + match ts.mult {
        100 => 2,
        10 => 1,
        _ => 0,
    }
}

impl WaveSink for FstWriter {
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
        let State::Start(path) = std::mem::replace(&mut self.state, State::Done) else {
            return Err(Error::Wave("FST: begin called twice".into()));
        };
        let ts = Timescale::for_cycle(cycle_ps);
        self.ts = Some(ts);
        let t0 = super::writer::edge_time(first, &ts)?;
        let info = FstInfo {
            start_time: t0,
            timescale_exponent: exponent(&ts),
            version: concat!("wormcast ", env!("CARGO_PKG_VERSION")).into(),
            date: self.comment.chars().take(100).collect(),
            file_type: FstFileType::Verilog,
        };
        let mut w = FstHeaderWriter::open(&path, &info).map_err(fst)?;
        let mut ids: Vec<Option<FstSignalId>> = vec![None; h.signals.len()];
        // Scopes depth first, each scope's own signals before its children,
        // the clock first in the root: the VCD writer's order.
        fn emit(
            w: &mut FstHeaderWriter<BufWriter<File>>,
            h: &Hierarchy,
            scope: u32,
            ids: &mut [Option<FstSignalId>],
            clk: &mut Option<FstSignalId>,
        ) -> fst_writer::Result<()> {
            w.scope(&h.scopes[scope as usize].name, "", FstScopeType::Module)?;
            let var = |w: &mut FstHeaderWriter<_>, name: &str, width: u32| {
                w.var(
                    name,
                    FstSignalType::bit_vec(width),
                    FstVarType::Wire,
                    FstVarDirection::Implicit,
                    None,
                )
            };
            if scope == 0 {
                *clk = Some(var(w, "clk", 1)?);
            }
            for s in h.scope_signals(scope) {
                let d = &h.signals[s.0 as usize];
                let name = if d.width > 1 {
                    format!("{} [{}:0]", d.name, d.width - 1)
                } else {
                    d.name.clone()
                };
                ids[s.0 as usize] = Some(var(w, &name, d.width)?);
            }
            let children: Vec<u32> = h.child_scopes(scope).collect();
            for c in children {
                emit(w, h, c, ids, clk)?;
            }
            w.up_scope()
        }
        emit(&mut w, h, 0, &mut ids, &mut self.clk).map_err(fst)?;
        let mut body = w.finish().map_err(fst)?;
        // The tracer already writes only changes.
        body.set_deduplicate(false);
        self.state = State::Body(Box::new(body));
        self.ids = ids
            .into_iter()
            .map(|i| i.expect("every signal is in a scope"))
            .collect();
        self.widths = h.signals.iter().map(|s| s.width).collect();
        self.clock(t0, b'1')?;
        let all: Vec<u32> = (0..h.signals.len() as u32).collect();
        self.write_changes(state, &all)?;
        self.clock(t0 + ts.period / 2, b'0')
    }

    fn cycle(&mut self, cycle: u64, state: &TraceState, changed: &[u32]) -> Result<()> {
        let ts = self.ts.expect("begin called first");
        let t = super::writer::edge_time(cycle, &ts)?;
        self.clock(t, b'1')?;
        self.write_changes(state, changed)?;
        self.clock(t + ts.period / 2, b'0')
    }

    fn finish(&mut self, last_cycle: u64) -> Result<()> {
        match std::mem::replace(&mut self.state, State::Done) {
            State::Body(mut b) => {
                let ts = self.ts.expect("begin called first");
                // Close the last cycle so viewers show it whole.
                b.time_change((last_cycle + 1) * ts.period).map_err(fst)?;
                b.finish().map_err(fst)?;
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// A waveform writer for `path`: FST when the name ends in `.fst`, VCD
/// otherwise; `comment` goes into the file (the run and its seed). It
/// encodes on a thread of its own ([`super::Background`]).
pub fn create(path: &Path, comment: &str) -> Result<Box<dyn WaveSink>> {
    let is_fst = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fst"));
    let sink: Box<dyn WaveSink + Send> = if is_fst {
        Box::new(FstWriter::create(path)?.with_comment(comment))
    } else {
        Box::new(VcdWriter::create(path)?.with_comment(comment))
    };
    Ok(Box::new(super::Background::new(sink)))
}

/// Writes the views beside the waveform at `wave`: `<name>.gtkw` for
/// GTKWave and `<name>.sucl` for Surfer (`surfer <wave> -c <name>.sucl`),
/// both with the signals grouped per unit. Returns the two paths.
pub fn write_views(wave: &Path, h: &Hierarchy) -> Result<(PathBuf, PathBuf)> {
    let name = wave.to_string_lossy();
    let g = wave.with_extension("gtkw");
    let s = wave.with_extension("sucl");
    for (p, text) in [(&g, gtkw_text(&name, h)), (&s, surfer_text(&name, h))] {
        std::fs::write(p, text).map_err(|source| Error::Io {
            path: p.clone(),
            source,
        })?;
    }
    Ok((g, s))
}
