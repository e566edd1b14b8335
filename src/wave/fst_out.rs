//! The FST writer: the model's waveform in GTKWave's compressed format,
//! with the same hierarchy, clock, timescale and values as
//! [`super::VcdWriter`] writes, so that `wormcast wave diff` finds no
//! difference between the two dumps of one run. The blocks are encoded by
//! [`super::fst_enc`].
//!
//! [`create`] picks the format from the file name (`.fst`, else VCD) and
//! [`write_views`] writes the GTKWave save file and the Surfer command
//! file beside a waveform.

use super::fst_enc::{Encoder, HierarchyRecords, Info};
use super::gtkw::{gtkw_text_in, surfer_text_in};
use super::writer::{Timescale, VcdWriter};
use crate::rtl::trace::{Hierarchy, HierarchyIndex, SignalId, SignalValue, TraceState, WaveSink};
use crate::{Error, Result};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// Bytes of value changes collected before a value-change block is
/// written, at the least ([`block_bytes`] for a large network). A reader
/// decompresses a block whole; 4 MB keeps that quick.
const FLUSH_BYTES: usize = 4 << 20;

/// A larger network's blocks hold at least an eighth of a byte of
/// changes per bit of its signals ([`block_bytes`]).
const FRAME_SHARE: usize = 8;

/// Bytes of value changes a block collects, for signals of `frame_bits`
/// bits in all. Every block starts with a frame, a character per bit of
/// every signal, which the writer makes and packs at each block: at
/// 1,024 switches 252 M characters, and with 4 MB blocks packing frames
/// took most of the writing thread's time. A block of at least an eighth
/// of that many bytes keeps the frames a small part of the work, and its
/// changes no larger than the frame's bits, which the writer holds anyway.
fn block_bytes(frame_bits: usize) -> usize {
    FLUSH_BYTES.max(frame_bits / FRAME_SHARE)
}

enum State {
    /// Created, and empty: the file is opened (and an existing one
    /// truncated) once, here. Opening it again with truncation at the
    /// first cycle made ext4 take the file for one replaced by truncation
    /// (`auto_da_alloc`) and write all of it out when it was closed: 13 -
    /// 20 ms at the end of a 57 MB trace.
    Start(File),
    Body(Box<Encoder<BufWriter<File>>>),
    Done,
}

/// Writes an FST file from the tracer's value changes.
pub struct FstWriter {
    state: State,
    /// The file, when opening it made it, until the waveform begins.
    made: super::writer::Made,
    path: PathBuf,
    /// Per signal, its handle index.
    ids: Vec<u32>,
    clk: u32,
    /// Bytes of changes a block collects ([`block_bytes`]).
    block_bytes: usize,
    ts: Option<Timescale>,
    comment: String,
}

impl FstWriter {
    /// A writer to a new file at `path` (created now, written from the
    /// first cycle).
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        // Fail now, not at the first cycle, if the file cannot be made;
        // empty it only when the waveform starts (`begin`), so that a run
        // refused before then leaves a file already there as it was.
        // The header's counts are written last, at the file's start: a
        // pipe cannot take that (`/dev/null` can). A named pipe is refused
        // before it is opened, which would wait for a reader.
        let unseekable = |source: std::io::Error| Error::Io {
            path: path.clone(),
            source: std::io::Error::new(
                source.kind(),
                format!(
                    "an FST file is written with seeks back to its header, which this target \
                     cannot take ({source}): write VCD to a pipe (a name not ending in .fst)"
                ),
            ),
        };
        #[cfg(unix)]
        if let Ok(m) = std::fs::metadata(&path) {
            use std::os::unix::fs::FileTypeExt;
            let t = m.file_type();
            if t.is_fifo() || t.is_socket() {
                return Err(unseekable(std::io::Error::new(
                    std::io::ErrorKind::Unsupported,
                    "a pipe",
                )));
            }
        }
        let (mut file, made) = super::writer::open_kept(&path)?;
        if !super::writer::is_regular(&file) {
            use std::io::Seek;
            file.stream_position().map_err(unseekable)?;
        }
        Ok(FstWriter {
            state: State::Start(file),
            made,
            path,
            ids: Vec::new(),
            clk: 0,
            block_bytes: FLUSH_BYTES,
            ts: None,
            comment: String::new(),
        })
    }

    /// A note for the file's date field (the run's seed, say).
    pub fn with_comment(mut self, text: &str) -> Self {
        self.comment = text.to_string();
        self
    }

    fn io(&self, source: std::io::Error) -> Error {
        Error::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// The error of a write that failed once the body began (a full disk,
    /// say): the file cannot be finished, and an FST without its end is
    /// one no reader opens, so it is removed (a regular file; a device is
    /// left alone), freeing the room it took, and the error says so.
    fn lost(&mut self, source: std::io::Error) -> Error {
        self.state = State::Done;
        let what = if crate::error::remove_written(&self.path) {
            "the unfinished FST file was removed: no reader opens one without its end"
        } else {
            "the FST file is unfinished: no reader opens it"
        };
        self.io(std::io::Error::new(
            source.kind(),
            format!("{source}; {what}"),
        ))
    }

    fn enc(&mut self) -> &mut Encoder<BufWriter<File>> {
        match &mut self.state {
            State::Body(b) => b,
            _ => panic!("FstWriter used before begin or after finish"),
        }
    }

    /// One cycle: the rising edge at `t` with the changes, the falling edge
    /// half a period later; a full block is written after the cycle.
    fn edge(&mut self, t: u64, state: &TraceState, changed: &[u32]) -> Result<()> {
        self.edge_with(t, |e, ids| {
            for &i in changed {
                e.change(ids[i as usize], state.value(SignalId(i)));
            }
        })
    }

    /// [`edge`](Self::edge) with the changes as exported words
    /// ([`WaveSink::cycle_exported`]).
    fn edge_exported(
        &mut self,
        t: u64,
        changed: &[u32],
        words: &[u64],
        wide: &[u64],
        unknown: u32,
    ) -> Result<()> {
        self.edge_with(t, |e, ids| {
            for (&id, &w) in changed.iter().zip(words) {
                let h = ids[(id & !unknown) as usize];
                let bits = e.width(h);
                if id & unknown != 0 {
                    e.change(h, SignalValue::Unknown);
                } else if bits <= 64 {
                    e.change_narrow(h, w);
                } else {
                    let n = bits.div_ceil(64) as usize;
                    e.change(h, SignalValue::Wide(&wide[w as usize..w as usize + n]));
                }
            }
        })
    }

    /// The clock's rising edge at `t`, the changes `changes` records, the
    /// falling edge; then the block, when full.
    #[inline(always)]
    fn edge_with(
        &mut self,
        t: u64,
        changes: impl FnOnce(&mut Encoder<BufWriter<File>>, &[u32]),
    ) -> Result<()> {
        let half = self.ts.expect("begin called first").period / 2;
        let (clk, ids) = (self.clk, std::mem::take(&mut self.ids));
        let e = self.enc();
        e.time(t);
        e.change(clk, SignalValue::Narrow(1));
        changes(e, &ids);
        e.time(t + half);
        e.change(clk, SignalValue::Narrow(0));
        self.ids = ids;
        if self.enc().pending() > self.block_bytes {
            let r = self.enc().flush();
            r.map_err(|e| self.lost(e))?;
        }
        Ok(())
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
        let State::Start(file) = std::mem::replace(&mut self.state, State::Done) else {
            return Err(Error::Wave("FST: begin called twice".into()));
        };
        let ts = Timescale::for_cycle(cycle_ps);
        self.ts = Some(ts);
        let t0 = super::writer::edge_time(first, &ts)?;
        let mut rec = HierarchyRecords::default();
        let mut ids = vec![u32::MAX; h.signals.len()];
        // Scopes depth first, each scope's own signals before its children,
        // the clock first in the root: the VCD writer's order.
        fn emit(
            rec: &mut HierarchyRecords,
            h: &Hierarchy,
            ix: &HierarchyIndex,
            scope: u32,
            ids: &mut [u32],
            name: &mut String,
        ) {
            rec.scope(&h.scopes[scope as usize].name);
            if scope == 0 {
                rec.var("clk", 1);
            }
            for s in ix.signals(scope) {
                let d = &h.signals[s.0 as usize];
                // `name [w-1:0]` for a bus, made in one buffer (a million
                // signals at 4,096 switches).
                name.clear();
                name.push_str(&d.name);
                if d.width > 1 {
                    name.push_str(" [");
                    name.push_str(itoa::Buffer::new().format(d.width - 1));
                    name.push_str(":0]");
                }
                ids[s.0 as usize] = rec.var(name, d.width);
            }
            for &c in ix.children(scope) {
                emit(rec, h, ix, c, ids, name);
            }
            rec.up();
        }
        emit(&mut rec, h, &h.index(), 0, &mut ids, &mut String::new());
        assert!(
            ids.iter().all(|&i| i != u32::MAX),
            "every signal is in a scope"
        );
        // A waveform refused is refused before the file is touched: one
        // already at the path stays as it was, and none is left where there
        // was none.
        rec.check_frame().map_err(|e| self.io(e))?;
        if super::writer::is_regular(&file) {
            file.set_len(0).map_err(|e| self.io(e))?;
        }
        self.made.keep();
        let date: String = self.comment.chars().take(100).collect();
        let info = Info {
            timescale: exponent(&ts),
            version: concat!("wormcast ", env!("CARGO_PKG_VERSION")),
            date: &date,
            start: t0,
        };
        let mut enc = Encoder::new(BufWriter::new(file), &info, rec).map_err(|e| self.lost(e))?;
        self.block_bytes = block_bytes(enc.frame_bits());
        enc.reserve(self.block_bytes);
        self.state = State::Body(Box::new(enc));
        self.ids = ids;
        self.clk = 0;
        // The first block starts with every value unknown; the values at
        // the first edge are its first changes.
        let all: Vec<u32> = (0..h.signals.len() as u32).collect();
        self.edge(t0, state, &all)
    }

    fn cycle(&mut self, cycle: u64, state: &TraceState, changed: &[u32]) -> Result<()> {
        let ts = self.ts.expect("begin called first");
        let t = super::writer::edge_time(cycle, &ts)?;
        self.edge(t, state, changed)
    }

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
        let t = super::writer::edge_time(cycle, &ts)?;
        self.edge_exported(t, ids, words, wide, unknown)
    }

    fn finish(&mut self, last_cycle: u64) -> Result<()> {
        match std::mem::replace(&mut self.state, State::Done) {
            State::Body(mut e) => {
                let ts = self.ts.expect("begin called first");
                // Close the last cycle so viewers show it whole.
                e.time((last_cycle + 1) * ts.period);
                e.finish().map_err(|e| self.lost(e))?;
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// The path that names standard output as a waveform's target
/// ([`create`]): VCD, with no views beside it.
pub const STDOUT: &str = "-";

/// Whether `path` names standard output: [`STDOUT`] (`-`), or
/// `/dev/stdout`, which is taken the same way (opened as a file of its
/// own, it would write over what the process prints to standard output,
/// and its views would go into `/dev`).
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == STDOUT || path == Path::new("/dev/stdout")
}

/// A waveform writer for `path`: FST when the name ends in `.fst`, VCD
/// otherwise, and VCD to standard output for [`STDOUT`] (`-`, and
/// `/dev/stdout`: [`is_stdout`]); `comment`
/// goes into the file (the run and its seed). It encodes on a thread of
/// its own ([`super::Background`]). A target that is not a regular file
/// (`/dev/null`, a named pipe) is written as it is; an FST file needs one
/// it can seek in, so a pipe is refused for it by name.
pub fn create(path: &Path, comment: &str) -> Result<Box<dyn WaveSink>> {
    let is_fst = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fst"));
    let sink: Box<dyn WaveSink + Send> = if is_stdout(path) {
        let out = BufWriter::with_capacity(1 << 16, std::io::stdout());
        Box::new(
            VcdWriter::new(out)
                .named("standard output")
                .with_comment(comment),
        )
    } else if is_fst {
        Box::new(FstWriter::create(path)?.with_comment(comment))
    } else {
        Box::new(VcdWriter::create(path)?.with_comment(comment))
    };
    Ok(Box::new(super::Background::new(sink)))
}

/// The views [`write_views`] put beside a waveform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Views {
    /// The GTKWave save file, `<name>.gtkw`.
    pub gtkw: PathBuf,
    /// The Surfer command file, `<name>.sucl`.
    pub sucl: PathBuf,
    /// The save file already at `gtkw` was not one wormcast wrote (it
    /// lacks [`GTKW_MARK`](super::gtkw::GTKW_MARK): GTKWave wrote it when
    /// a user arranged the signals and saved), so it was left as it was,
    /// for GTKWave to show the new waveform with that arrangement.
    pub kept_gtkw: bool,
}

impl Views {
    /// What a command line says about views it did not write (`None`:
    /// it wrote both).
    pub fn note(&self) -> Option<String> {
        self.kept_gtkw.then(|| {
            format!(
                "{} was left as it was: it is a save file wormcast did not write (remove it for \
                 wormcast's view)",
                self.gtkw.display()
            )
        })
    }
}

/// Writes the views beside the waveform at `wave`: `<name>.gtkw` for
/// GTKWave and `<name>.sucl` for Surfer (`surfer <wave> -c <name>.sucl`),
/// both with the signals grouped per unit. A `.gtkw` already there that
/// wormcast did not write is kept ([`Views::kept_gtkw`]). Returns the two
/// paths; `None`, writing nothing, when the waveform went to standard
/// output ([`STDOUT`]) or to something other than a regular file
/// (`/dev/null`, a pipe), beside which there is nowhere to put them.
pub fn write_views(wave: &Path, h: &Hierarchy) -> Result<Option<Views>> {
    if !has_room_beside(wave) {
        return Ok(None);
    }
    let name = wave.to_string_lossy();
    let g = wave.with_extension("gtkw");
    let s = wave.with_extension("sucl");
    let kept_gtkw = saved_by_another(&g);
    // The two texts are made and written side by side, from one index of
    // the hierarchy: at a million signals each takes a few hundred
    // milliseconds.
    let ix = h.index();
    // Where no thread can be started (a limit on tasks), one after the other.
    let write_gtkw = || crate::error::write_bytes(&g, gtkw_text_in(&name, h, &ix));
    std::thread::scope(|scope| {
        let gtkw =
            (!kept_gtkw).then(|| std::thread::Builder::new().spawn_scoped(scope, write_gtkw));
        let sucl = crate::error::write_bytes(&s, surfer_text_in(&name, h, &ix));
        let gtkw = match gtkw {
            None => Ok(()),
            Some(Ok(t)) => t.join().expect("writing the GTKWave view"),
            Some(Err(_)) => write_gtkw(),
        };
        gtkw.and(sucl)
    })?;
    Ok(Some(Views {
        gtkw: g,
        sucl: s,
        kept_gtkw,
    }))
}

/// Whether the GTKWave save file at `path` holds something wormcast did not
/// write: it starts with anything but [`GTKW_MARK`](super::gtkw::GTKW_MARK).
/// A file that is missing, empty, unreadable or not a regular file is not
/// (writing it then names any error).
fn saved_by_another(path: &Path) -> bool {
    use std::io::Read;
    // Only a regular file is read (opening a pipe would wait).
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mark = super::gtkw::GTKW_MARK.as_bytes();
    let mut first = Vec::with_capacity(mark.len());
    if f.take(mark.len() as u64).read_to_end(&mut first).is_err() {
        return false;
    }
    !first.is_empty() && first != mark
}

/// Whether files can be written beside the waveform at `wave`: it is a
/// regular file (or one that cannot be looked at, which the write then
/// names), not standard output, a device or a pipe.
fn has_room_beside(wave: &Path) -> bool {
    !is_stdout(wave) && std::fs::metadata(wave).map_or(true, |m| m.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtl::trace::SignalValue;

    /// The value-change blocks an FST file says it holds (its header's
    /// last count).
    fn blocks(bytes: &[u8]) -> u64 {
        u64::from_be_bytes(bytes[65..73].try_into().unwrap())
    }

    /// Writes `cycles` cycles of five signals of 8,000,000 bits (a frame
    /// of 40 M characters), unknown throughout, and 1,000 of 64 bits that
    /// change at every edge; returns the file.
    fn wide_run(cycles: u64) -> Vec<u8> {
        let mut h = Hierarchy::new("top");
        let mut r = h.root();
        for k in 0..5 {
            r.signal(&format!("wide{k}"), 8_000_000);
        }
        let narrow: Vec<_> = (0..1_000).map(|k| r.signal(&format!("n{k}"), 64)).collect();
        let mut state = TraceState::new(&h);
        let path = std::env::temp_dir().join(format!(
            "wormcast-blocks-{}-{cycles}.fst",
            std::process::id()
        ));
        let mut w = FstWriter::create(&path).unwrap();
        w.begin(&h, 1_000, &state).unwrap();
        let ids: Vec<u32> = narrow.iter().map(|s| s.0).collect();
        for c in 1..=cycles {
            for (k, &s) in narrow.iter().enumerate() {
                state.set(s, SignalValue::Narrow(c << 16 | k as u64));
            }
            w.cycle(c, &state, &ids).unwrap();
        }
        w.finish(cycles).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        bytes
    }

    /// Signals of more bits than an FST frame holds (2^32 - 1 characters;
    /// the whole 16,384-switch network's 13.8 G) are refused before the
    /// file is touched, with the two ways out named (here 2^32 - 1 bits,
    /// one and the clock's one). An FST refused so
    /// emptied a file already at the path and left an empty one where
    /// there was none. (The refusal comes before the values are read, so
    /// a state of a smaller network stands in for one of 4 G bits.)
    #[test]
    fn a_frame_too_large_leaves_the_file_as_it_was() {
        let mut big = Hierarchy::new("top");
        let mut r = big.root();
        r.signal("wide", u32::MAX);
        r.signal("more", 1);
        let mut small = Hierarchy::new("top");
        small.root().signal("more", 1);
        let state = TraceState::new(&small);
        let dir = std::env::temp_dir();
        let kept = dir.join(format!("wormcast-frame-kept-{}.fst", std::process::id()));
        let fresh = dir.join(format!("wormcast-frame-fresh-{}.fst", std::process::id()));
        std::fs::write(&kept, b"an older waveform").unwrap();
        let _ = std::fs::remove_file(&fresh);
        for path in [&kept, &fresh] {
            let mut w = FstWriter::create(path).unwrap();
            let e = w.begin(&big, 1_000, &state).unwrap_err().to_string();
            assert!(
                e.contains(
                    "4294967297 bits of signals: an FST frame holds at most 4294967295 (a \
                     character per bit of every signal): trace part of the network \
                     (--trace-scope) or write VCD"
                ),
                "{e}"
            );
            drop(w);
        }
        assert_eq!(std::fs::read(&kept).unwrap(), b"an older waveform");
        assert!(!fresh.exists(), "a refused waveform made {fresh:?}");
        std::fs::remove_file(&kept).unwrap();
    }

    /// A block of a network with 40 M bits of signals collects 5 M bytes
    /// of changes (an eighth of a byte a bit), not 4 MB: each cycle's
    /// 1,000 changes count 17 bytes each (a record of 9 and 8 more) and
    /// the clock's two 9, 17,018 bytes, so a block is written after the
    /// 294th cycle (5,003,292 bytes), not the 247th (4,203,446). The
    /// first edge, every value unknown, counts each wide signal's 8 M
    /// characters and is a block of its own. 500 cycles: that block, one
    /// at cycle 294 and the last; 4 MB blocks made four. The file reads
    /// back with every value as written.
    #[test]
    fn a_wide_network_s_blocks_hold_an_eighth_of_a_byte_a_bit() {
        let bytes = wide_run(500);
        assert_eq!(blocks(&bytes), 3);
        assert_eq!(block_bytes(40_000_000), 5_000_000);
        assert_eq!(block_bytes(1_000), FLUSH_BYTES);
        let mut r = fst_reader::FstReader::open(std::io::Cursor::new(bytes)).unwrap();
        let mut n7 = Vec::new();
        let mut wide_values = 0;
        r.read_signals(&fst_reader::FstFilter::all(), |t, h, v| {
            if let fst_reader::FstSignalValue::String(s) = v {
                match h.get_index() {
                    // The clock is declared first, the wide signals next.
                    1..=5 => {
                        assert!(s.iter().all(|&c| c == b'x'));
                        wide_values += 1;
                    }
                    // Unknown at the first edge, before its first value.
                    13 if t > 0 => {
                        let text = std::str::from_utf8(s).unwrap();
                        n7.push((t, u64::from_str_radix(text, 2).unwrap()));
                    }
                    _ => {}
                }
            }
            Ok::<(), ()>(())
        })
        .unwrap();
        // Each wide signal once, unknown; n7 at every rising edge (10 c:
        // a 1,000 ps cycle in the file's 100 ps units), with its value of
        // that cycle.
        assert_eq!(wide_values, 5);
        let want: Vec<(u64, u64)> = (1..=500).map(|c| (c * 10, c << 16 | 7)).collect();
        assert_eq!(n7, want);
    }
}
