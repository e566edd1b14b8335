//! GHW files (GHDL's own waveform format, `ghdl -r ... --wave=f.ghw`),
//! read through the `wellen` crate.
//!
//! `wellen` reads a GHW file whole into its compressed signal store; the
//! changes of every signal are then merged into one time-ordered stream.
//! Memory is therefore proportional to the file (GHW files are compact:
//! a few bytes a change). Every call into `wellen` runs behind
//! [`super::stream`]'s guard, so a panic on a malformed file becomes an
//! error. VHDL values of type `std_logic` map to four values as
//! [`super::header`] says; enumerations other than `std_logic` and
//! `boolean` compare by the index `wellen` gives them.

use super::header::{
    CodeInfo, Event, Format, VarKind, WaveHeader, WaveVar, check_width, logic_char,
};
use super::stream::{Sink, WaveReader, guarded};
use crate::{Error, Result};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::Cursor;
use std::path::Path;
use wellen::{LoadOptions, SignalRef, SignalValueRef, TimescaleUnit};

fn ghw_err(e: impl std::fmt::Display) -> Error {
    let text = e.to_string();
    let text: Vec<&str> = text.split_whitespace().collect();
    Error::Wave(format!("malformed GHW: {}", text.join(" ")))
}

const OPTIONS: LoadOptions = LoadOptions {
    multi_thread: false,
    remove_scopes_with_empty_name: false,
};

/// The GHW file at `path`.
pub(crate) fn open(path: &Path) -> Result<WaveReader> {
    let p = path.to_path_buf();
    let w = guarded("this GHW file", move || {
        wellen::simple::read_with_options(&p, &OPTIONS).map_err(ghw_err)
    })?;
    start(w)
}

/// A GHW file held in memory.
pub(crate) fn from_bytes(bytes: Vec<u8>) -> Result<WaveReader> {
    let w = guarded("this GHW file", move || {
        wellen::simple::read_from_reader(Cursor::new(bytes)).map_err(ghw_err)
    })?;
    start(w)
}

fn start(mut w: wellen::simple::Waveform) -> Result<WaveReader> {
    let (h, signals) = guarded("this GHW file", || header_of(&w))?;
    guarded("this GHW file", || {
        w.load_signals(&signals);
        Ok(())
    })?;
    Ok(WaveReader::spawn(
        h.clone(),
        Box::new(move |sink: &mut Sink| produce(&w, &h, &signals, sink)),
    ))
}

/// The header, and the signal of each code.
fn header_of(w: &wellen::simple::Waveform) -> Result<(WaveHeader, Vec<SignalRef>)> {
    let hi = w.hierarchy();
    let timescale_fs = match hi.timescale() {
        Some(ts) => {
            let unit: u64 = match ts.unit {
                TimescaleUnit::FemtoSeconds => 1,
                TimescaleUnit::PicoSeconds => 1_000,
                TimescaleUnit::NanoSeconds => 1_000_000,
                TimescaleUnit::MicroSeconds => 1_000_000_000,
                TimescaleUnit::MilliSeconds => 1_000_000_000_000,
                TimescaleUnit::Seconds => 1_000_000_000_000_000,
                u => {
                    return Err(Error::Wave(format!(
                        "the GHW time unit is {u:?}; wormcast reads time units from 1 fs to 1 s"
                    )));
                }
            };
            Some(u64::from(ts.factor).saturating_mul(unit))
        }
        None => None,
    };
    let mut h = WaveHeader {
        format: Format::Ghw,
        timescale_fs,
        timescale: timescale_fs.map(|f| format!("{f} fs")).unwrap_or_default(),
        date: hi.date().to_string(),
        version: hi.version().to_string(),
        ..WaveHeader::default()
    };
    for s in hi.all_scopes() {
        h.scopes.push(hi[s].full_name(hi));
    }
    let mut signals: Vec<SignalRef> = Vec::new();
    let mut code_of = rustc_hash::FxHashMap::default();
    for vr in hi.all_vars() {
        let v = &hi[vr];
        let mut name = v.name(hi).to_string();
        let full = v.full_name(hi);
        let mut scope = full
            .strip_suffix(&name)
            .map(|s| s.trim_end_matches('.').to_string())
            .unwrap_or_default();
        // `wellen` makes an array a scope of elements named `[i]`; name
        // them `array[i]`, as Verilog simulators do.
        while name.starts_with('[') && !scope.is_empty() {
            let (parent, array) = match scope.rsplit_once('.') {
                Some((p, a)) => (p.to_string(), a.to_string()),
                None => (String::new(), scope.clone()),
            };
            name = format!("{array}{name}");
            scope = parent;
        }
        let kind = if v.is_real(hi) {
            VarKind::Real
        } else if v.is_string(hi) {
            VarKind::Str
        } else {
            VarKind::Logic
        };
        let width = match kind {
            VarKind::Logic => check_width(u64::from(v.length(hi).unwrap_or(0)), &full)?,
            VarKind::Real => 64,
            _ => 0,
        };
        let range = v
            .index()
            .map(|i| (i.msb(), i.lsb()))
            .filter(|(m, l)| m.abs_diff(*l).saturating_add(1) == u64::from(width));
        let sr = v.signal_ref();
        let code = *code_of.entry(sr).or_insert_with(|| {
            signals.push(sr);
            h.codes.push(CodeInfo {
                text: (sr.index() + 1).to_string(),
                width,
                kind,
            });
            h.codes.len() as u32 - 1
        });
        h.vars.push(WaveVar {
            scope: scope.into(),
            name,
            width,
            range,
            var_type: VarKind::type_name(
                &v.vhdl_type_name(hi)
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("{:?}", v.var_type()).to_lowercase()),
            ),
            kind,
            code,
            line: 0,
        });
    }
    Ok((h, signals))
}

/// Every signal's changes, merged in time order.
fn produce(
    w: &wellen::simple::Waveform,
    h: &WaveHeader,
    signals: &[SignalRef],
    sink: &mut Sink,
) -> Result<()> {
    let times = w.time_table();
    let mut iters: Vec<_> = signals
        .iter()
        .map(|&s| {
            w.get_signal(s)
                .ok_or_else(|| ghw_err("a signal is missing"))
                .map(|sig| sig.iter_changes().peekable())
        })
        .collect::<Result<_>>()?;
    let mut heap: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
    for (code, it) in iters.iter_mut().enumerate() {
        if let Some((t, _)) = it.peek() {
            heap.push(Reverse((*t, code as u32)));
        }
    }
    let mut last: Option<u32> = None;
    let mut norm: Vec<u8> = Vec::new();
    while let Some(Reverse((ti, code))) = heap.pop() {
        let it = &mut iters[code as usize];
        let Some((_, value)) = it.next() else {
            continue;
        };
        if last != Some(ti) {
            last = Some(ti);
            let t = *times
                .get(ti as usize)
                .ok_or_else(|| ghw_err("a change past the time table"))?;
            if sink.push(Event::Time(t)).is_err() {
                return Ok(());
            }
        }
        let info = &h.codes[code as usize];
        let e = match value {
            SignalValueRef::Real(v) => Event::Real { code, value: v },
            SignalValueRef::String(s) => Event::Str {
                code,
                value: s.as_bytes(),
            },
            SignalValueRef::Event => {
                norm.clear();
                norm.push(b'1');
                Event::Logic { code, bits: &norm }
            }
            SignalValueRef::BitVec(_) => {
                let s = value.to_bit_string().unwrap_or_default();
                norm.clear();
                norm.extend(s.bytes().map(|c| logic_char(c).unwrap_or(b'x')));
                if norm.len() != info.width as usize {
                    return Err(ghw_err(format!(
                        "a {}-bit value for a {}-bit signal",
                        norm.len(),
                        info.width
                    )));
                }
                Event::Logic { code, bits: &norm }
            }
        };
        if sink.push(e).is_err() {
            return Ok(());
        }
        if let Some((t, _)) = it.peek() {
            heap.push(Reverse((*t, code)));
        }
    }
    Ok(())
}
