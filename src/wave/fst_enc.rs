//! The FST container, written from the tracer's bits: the header, the
//! hierarchy, the geometry, and value-change blocks of the "dynamic alias
//! 2" kind that GTKWave's `fstapi` writes and every FST reader reads
//! (GTKWave, Surfer, wellen, the `fst-reader` crate).
//!
//! Why not the `fst-writer` crate, which writes the same blocks: its value
//! API takes one ASCII character per bit, which it packs back into bits,
//! and it keeps each signal's changes in a list it walks backwards at every
//! block. At the rate a traced network changes (about 100 values per
//! cycle) that was most of the writing thread's time
//! (docs/performance-log.md, "Traced runs: halves of ports, runs of
//! signals, our own FST encoder"). Here a change is encoded straight from
//! the sampled word into the signal's own run of records for the block,
//! which is the form a block stores: writing the block sorts nothing.
//!
//! The layout (all integers big-endian unless a varint):
//! - header block (type 0): times, counts, timescale, version and date;
//! - hierarchy block (type 6): scope, variable and up-scope records,
//!   compressed with LZ4;
//! - geometry block (type 3): each handle's width;
//! - value-change blocks (type 8): the values at the block's start (the
//!   "frame", one character per bit, zlib-packed), each signal's changes
//!   as (time-index delta, value) records, LZ4-compressed per signal when
//!   that helps, a table of where each signal's changes start, and the
//!   block's times.

use std::io::{Seek, SeekFrom, Write};

use super::runzlib::RunZlib;
use super::writer::BYTE_CHARS;
use crate::rtl::trace::SignalValue;

const HEADER_LEN: u64 = 329;
const VERSION_LEN: usize = 128;
const DATE_LEN: usize = 119;
const BLOCK_HEADER: u8 = 0;
const BLOCK_GEOMETRY: u8 = 3;
const BLOCK_HIERARCHY_LZ4: u8 = 6;
const BLOCK_VC_ALIAS2: u8 = 8;
const SCOPE: u8 = 254;
const UPSCOPE: u8 = 255;
const SCOPE_MODULE: u8 = 0;
const VAR_WIRE: u8 = 16;
const DIR_IMPLICIT: u8 = 0;
/// A signal's changes shorter than this are stored as they are.
const MIN_COMPRESS: usize = 32;
/// zlib level for the time table.
const ZLIB_LEVEL: u8 = 3;

/// Appends `v` as an unsigned LEB128 varint.
#[inline]
pub(crate) fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` as a signed LEB128 varint.
fn svarint(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0);
        if done {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// The characters of a frame are made and handed on in pieces of about
/// this many, when a frame is stored as it is (a piece stays in the cache
/// while it is copied).
const FRAME_PIECE: usize = 1 << 16;

/// The values every signal holds at the start of a block, kept packed: a
/// bit per bit of a known value, each signal from a byte of its own and
/// most significant bit first (as a change record stores it), and a flag
/// for a signal whose value is unknown. The block stores them as its
/// frame, one character per bit: at 1,024 switches 252 M characters, held
/// here in 32 MB and handed to zlib as runs of equal characters
/// ([`Frame::runs`]), never made.
///
/// The encoder writes no values but binary ones and all-unknown ones
/// ([`SignalValue`]), so a flag and the bits say every value.
struct Frame {
    /// Where each handle's bytes start in `bits`.
    at: Vec<u32>,
    bits: Vec<u8>,
    /// Per handle: its value is unknown (each of its bits `x`).
    unknown: Vec<bool>,
    /// Characters of the frame: the sum of the widths.
    len: usize,
}

/// Refuses signals of more bits in all than an FST frame holds (a
/// character per bit of every signal: 2^32 - 1, GTKWave's limit).
pub(crate) fn check_frame(widths: &[u32]) -> std::io::Result<()> {
    let chars: u64 = widths.iter().map(|&w| w as u64).sum();
    if chars > u32::MAX as u64 {
        return Err(std::io::Error::other(format!(
            "{chars} bits of signals: an FST frame holds at most {} (a character per bit of \
             every signal): trace part of the network (--trace-scope) or write VCD (a name not \
             ending in .fst)",
            u32::MAX
        )));
    }
    Ok(())
}

impl Frame {
    /// Every handle of `widths` unknown.
    fn new(widths: &[u32]) -> std::io::Result<Frame> {
        check_frame(widths)?;
        let chars: u64 = widths.iter().map(|&w| w as u64).sum();
        let mut at = Vec::with_capacity(widths.len());
        let mut bytes = 0usize;
        for &w in widths {
            at.push(bytes as u32);
            bytes += w.div_ceil(8) as usize;
        }
        Ok(Frame {
            at,
            bits: vec![0; bytes],
            unknown: vec![true; widths.len()],
            len: chars as usize,
        })
    }

    /// Handle `h`, of `w` bits, takes the value of the change record
    /// (as [`Encoder::change`] writes it) at the start of `rec`.
    fn set(&mut self, h: usize, w: u32, rec: &[u8]) {
        let (v, n) = super::fst::varint(rec).expect("a record this encoder wrote");
        let at = self.at[h] as usize;
        if w == 1 {
            // A value other than 0 and 1 is a code; the only one written
            // is x's (0).
            debug_assert!(v & 1 == 0 || v >> 1 & 7 == 0, "a 1-bit code other than x");
            self.unknown[h] = v & 1 == 1;
            self.bits[at] = ((v >> 1 & 1) as u8) << 7;
        } else if v & 1 == 1 {
            // An unknown value, whose characters the run leaves out.
            self.unknown[h] = true;
        } else {
            let bytes = w.div_ceil(8) as usize;
            self.unknown[h] = false;
            self.bits[at..at + bytes].copy_from_slice(&rec[n as usize..][..bytes]);
        }
    }

    /// The frame's characters, one per bit, in handle order, handed to
    /// `out` a piece at a time (`piece` is the room they are made in).
    fn chars(&self, widths: &[u32], piece: &mut Vec<u8>, mut out: impl FnMut(&[u8])) {
        piece.clear();
        for (h, &w) in widths.iter().enumerate() {
            let w = w as usize;
            if self.unknown[h] {
                piece.resize(piece.len() + w, b'x');
            } else {
                let at = self.at[h] as usize;
                let bytes = &self.bits[at..at + w.div_ceil(8)];
                let (full, rest) = (w / 8, w % 8);
                for &b in &bytes[..full] {
                    piece.extend_from_slice(&BYTE_CHARS[b as usize]);
                }
                if rest > 0 {
                    piece.extend_from_slice(&BYTE_CHARS[bytes[full] as usize][..rest]);
                }
            }
            if piece.len() >= FRAME_PIECE {
                out(piece);
                piece.clear();
            }
        }
        if !piece.is_empty() {
            out(piece);
        }
    }

    /// [`chars`](Self::chars), handed to `z` as runs: an unknown value is
    /// one run of `x`, and a value's bytes are read 8 at a time while they
    /// are all zeros or all ones (a bit string as wide as the network has
    /// nodes is nearly all zeros).
    fn runs(&self, widths: &[u32], z: &mut RunZlib<'_>) {
        for (h, &w) in widths.iter().enumerate() {
            if self.unknown[h] {
                z.push(b'x', w as u64);
                continue;
            }
            let at = self.at[h] as usize;
            let (full, rest) = ((w / 8) as usize, (w % 8) as usize);
            let bytes = &self.bits[at..at + full];
            let mut words = bytes.chunks_exact(8);
            for word in &mut words {
                match u64::from_ne_bytes(word.try_into().expect("8 bytes")) {
                    0 => z.push(b'0', 64),
                    u64::MAX => z.push(b'1', 64),
                    _ => word.iter().for_each(|&b| byte_runs(z, b)),
                }
            }
            words.remainder().iter().for_each(|&b| byte_runs(z, b));
            if rest > 0 {
                z.push_bytes(&BYTE_CHARS[self.bits[at + full] as usize][..rest]);
            }
        }
    }
}

/// The 8 characters of byte `b`, most significant bit first, as runs.
#[inline]
fn byte_runs(z: &mut RunZlib<'_>, b: u8) {
    match b {
        0 => z.push(b'0', 8),
        0xff => z.push(b'1', 8),
        _ => z.push_bytes(&BYTE_CHARS[b as usize]),
    }
}

/// Packs `frame`'s characters with zlib into `packed`, from the frame's
/// runs of equal characters ([`Frame::runs`]), without making them.
fn pack_frame(frame: &Frame, widths: &[u32], packed: &mut Vec<u8>) {
    packed.clear();
    let mut z = RunZlib::new(packed);
    frame.runs(widths, &mut z);
    z.finish();
}

/// A part of a signal's run whose records of unknown values are kept
/// without their characters ([`Encoder::change_other`]).
enum Part<'a> {
    /// Bytes of the records as the block stores them.
    Bytes(&'a [u8]),
    /// A record's `w` characters `x`.
    Unknown,
}

/// The parts of `run`, a signal of `w` (more than 64) bits, in order.
fn record_parts<'a>(run: &'a [u8], w: u32, mut part: impl FnMut(Part<'a>)) {
    debug_assert!(w > 64);
    let bytes = w.div_ceil(8) as usize;
    let mut p = 0;
    while p < run.len() {
        let (v, n) = super::fst::varint(&run[p..]).expect("a record this encoder wrote");
        let n = n as usize;
        if v & 1 == 1 {
            part(Part::Bytes(&run[p..p + n]));
            part(Part::Unknown);
            p += n;
        } else {
            part(Part::Bytes(&run[p..p + n + bytes]));
            p += n + bytes;
        }
    }
}

/// The records of `run`, a signal of `w` (more than 64) bits, into
/// `out` as the block stores them: each record of an unknown value,
/// written without its characters, with its `w` characters `x`.
fn expand_unknowns(run: &[u8], w: u32, out: &mut Vec<u8>) {
    out.clear();
    record_parts(run, w, |p| match p {
        Part::Bytes(b) => out.extend_from_slice(b),
        Part::Unknown => out.resize(out.len() + w as usize, b'x'),
    });
}

/// The length of what [`expand_unknowns`] makes of `run`.
fn expanded_len(run: &[u8], w: u32) -> usize {
    let mut unknowns = 0;
    record_parts(run, w, |p| unknowns += matches!(p, Part::Unknown) as usize);
    run.len() + unknowns * w as usize
}

/// What [`expand_unknowns`] makes of `run` (`total` bytes), as an LZ4
/// block appended to `out`, written from the records without making the
/// characters `x`: each unknown value is a literal `x` and a match of
/// the rest at offset 1 (at 4,096 switches the first edge's records hold
/// about 250,000 bit strings of 16,384 `x`, which the LZ4 compressor
/// read).
/// `lits` is scratch.
fn lz4_unknowns(run: &[u8], w: u32, total: usize, lits: &mut Vec<u8>, out: &mut Vec<u8>) {
    lits.clear();
    let mut z = Lz4Runs {
        out,
        lits,
        pos: 0,
        total,
    };
    record_parts(run, w, |p| match p {
        Part::Bytes(b) => z.bytes(b),
        Part::Unknown => z.run(b'x', w as usize),
    });
    z.finish();
}

/// An LZ4 block (the format's block, as FST stores a signal's changes)
/// written from bytes as they are and from runs of one byte.
struct Lz4Runs<'a> {
    out: &'a mut Vec<u8>,
    /// Literals not yet written (a sequence writes its literals' count
    /// first).
    lits: &'a mut Vec<u8>,
    /// Bytes so far, of `total`.
    pos: usize,
    total: usize,
}

impl Lz4Runs<'_> {
    fn bytes(&mut self, b: &[u8]) {
        self.lits.extend_from_slice(b);
        self.pos += b.len();
    }

    /// `n` copies of `c`: a literal, then a match of the rest at offset 1.
    /// The format's end rules hold for every match: the last 5 bytes of a
    /// block are literals, and its last match starts 12 bytes or more
    /// before the end; what a match cannot take stays literal.
    fn run(&mut self, c: u8, n: usize) {
        if n == 0 {
            return;
        }
        self.lits.push(c);
        let start = self.pos + 1;
        self.pos += n;
        let len = (n - 1).min(self.total.saturating_sub(5).saturating_sub(start));
        if len < 4 || start + 12 > self.total {
            self.lits.resize(self.lits.len() + n - 1, c);
            return;
        }
        self.sequence(Some(len));
        self.lits.resize(n - 1 - len, c);
    }

    /// A sequence: the literals kept, then a match of `len` (at least 4)
    /// at offset 1, or none (the block's last sequence).
    fn sequence(&mut self, len: Option<usize>) {
        let l = self.lits.len();
        let m = len.map_or(0, |m| m - 4);
        self.out.push((l.min(15) as u8) << 4 | m.min(15) as u8);
        if l >= 15 {
            lz4_length(self.out, l - 15);
        }
        self.out.extend_from_slice(self.lits);
        self.lits.clear();
        if len.is_some() {
            self.out.extend_from_slice(&1u16.to_le_bytes());
            if m >= 15 {
                lz4_length(self.out, m - 15);
            }
        }
    }

    fn finish(mut self) {
        debug_assert_eq!(self.pos, self.total);
        self.sequence(None);
    }
}

/// The rest of an LZ4 length past its token's 15: bytes of 255, then the
/// remainder.
fn lz4_length(out: &mut Vec<u8>, mut n: usize) {
    while n >= 255 {
        out.push(255);
        n -= 255;
    }
    out.push(n as u8);
}

/// Appends the record of a change of a signal of `w` bits, `delta` time
/// steps after its last, to an unknown or a wide value (or any value, which
/// the narrow path writes faster).
fn other_record(d: &mut Vec<u8>, w: u32, delta: u64, v: SignalValue<'_>) {
    if w == 1 {
        match v {
            SignalValue::Unknown => varint(d, delta << 4 | 1),
            SignalValue::Narrow(b) => varint(d, delta << 2 | (b & 1) << 1),
            SignalValue::Wide(ws) => varint(d, delta << 2 | (ws[0] & 1) << 1),
        }
        return;
    }
    match v {
        SignalValue::Unknown => {
            varint(d, delta << 1 | 1);
            d.resize(d.len() + w as usize, b'x');
        }
        SignalValue::Narrow(x) => {
            varint(d, delta << 1);
            // Most significant bit first, the last byte padded with zeros
            // on the right.
            let n = w.div_ceil(8) as usize;
            let packed = x << (64 - w);
            d.extend_from_slice(&packed.to_be_bytes()[..n]);
        }
        SignalValue::Wide(words) => {
            varint(d, delta << 1);
            let n = w.div_ceil(8) as usize;
            for j in 0..n {
                let mut byte = 0u8;
                for k in 0..8 {
                    let pos = j * 8 + k;
                    if pos < w as usize {
                        let b = w as usize - 1 - pos;
                        byte |= ((words[b / 64] >> (b % 64) & 1) as u8) << (7 - k);
                    }
                }
                d.push(byte);
            }
        }
    }
}

/// `input` compressed as an LZ4 block into `out` (grown as needed, never
/// cleared: the compressor writes what it returns). The same bytes as
/// `lz4_flex::compress`, which picks the table with 16-bit entries below
/// 64 KB and the one with 32-bit entries above, without its two zeroed
/// allocations per call. `None` if the compressor fails, which it does
/// not with room for its worst case.
fn lz4<'a>(
    input: &[u8],
    out: &'a mut Vec<u8>,
    small: &mut lz4_flex::block::CompressTable,
    large: &mut lz4_flex::block::CompressTable,
) -> Option<&'a [u8]> {
    let max = lz4_flex::block::get_maximum_output_size(input.len());
    if out.len() < max {
        out.resize(max, 0);
    }
    let table = if input.len() < u16::MAX as usize {
        small
    } else {
        large
    };
    let n = lz4_flex::block::compress_into_with_table(input, &mut out[..max], table).ok()?;
    Some(&out[..n])
}

fn c_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

/// `s` in a field of `len` bytes, padded with zeros; cut to fit (the
/// format needs at least one zero).
fn fixed_str(out: &mut Vec<u8>, s: &str, len: usize) {
    let mut end = s.len().min(len - 1);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    out.extend_from_slice(&s.as_bytes()[..end]);
    out.resize(out.len() + len - end, 0);
}

/// What the header says about the file.
pub(crate) struct Info<'a> {
    /// Timescale as a power of ten of seconds.
    pub timescale: i8,
    /// The writing program.
    pub version: &'a str,
    /// The date field (free text).
    pub date: &'a str,
    /// The time of the first value (the header's start time; its "time
    /// zero", an offset readers add to every time, stays 0).
    pub start: u64,
}

/// The hierarchy as records, in declaration order, with each variable's
/// handle (1, 2, ... in order of declaration).
#[derive(Default)]
pub(crate) struct HierarchyRecords {
    bytes: Vec<u8>,
    widths: Vec<u32>,
    scopes: u64,
    depth: u32,
    /// Variables declared as aliases of another's signal.
    aliases: u64,
}

impl HierarchyRecords {
    /// Refuses a hierarchy whose signals an FST frame cannot hold
    /// ([`check_frame`]), as [`Encoder::new`] does.
    pub(crate) fn check_frame(&self) -> std::io::Result<()> {
        check_frame(&self.widths)
    }

    /// Opens a module scope.
    pub fn scope(&mut self, name: &str) {
        self.bytes.push(SCOPE);
        self.bytes.push(SCOPE_MODULE);
        c_str(&mut self.bytes, name);
        c_str(&mut self.bytes, "");
        self.scopes += 1;
        self.depth += 1;
    }

    /// Closes the innermost scope.
    pub fn up(&mut self) {
        assert!(self.depth > 0, "no scope to close");
        self.bytes.push(UPSCOPE);
        self.depth -= 1;
    }

    /// Declares a wire of `width` bits; returns its handle's index (the
    /// handle less one).
    pub fn var(&mut self, name: &str, width: u32) -> u32 {
        assert!(width >= 1, "signal {name} of width 0");
        self.bytes.push(VAR_WIRE);
        self.bytes.push(DIR_IMPLICIT);
        c_str(&mut self.bytes, name);
        varint(&mut self.bytes, width as u64);
        varint(&mut self.bytes, 0);
        self.widths.push(width);
        self.widths.len() as u32 - 1
    }

    /// Declares a wire that is another name for the signal of handle
    /// index `of` (an alias: a variable without a signal of its own).
    #[cfg(test)]
    pub fn alias(&mut self, name: &str, of: u32) {
        let width = self.widths[of as usize];
        self.bytes.push(VAR_WIRE);
        self.bytes.push(DIR_IMPLICIT);
        c_str(&mut self.bytes, name);
        varint(&mut self.bytes, width as u64);
        varint(&mut self.bytes, of as u64 + 1);
        self.aliases += 1;
    }
}

/// Writes an FST file: [`Encoder::new`] writes everything up to the first
/// value change; then times ([`Encoder::time`]) and changes
/// ([`Encoder::change`]) are collected into blocks ([`Encoder::flush`],
/// each starting from the values the last one left),
/// and [`Encoder::finish`] writes the last block and completes the header.
pub(crate) struct Encoder<W: Write + Seek> {
    out: W,
    widths: Vec<u32>,
    vars: u64,
    /// Variables that alias another's signal (counted among the header's
    /// variables, not its signals).
    aliases: u64,
    scopes: u64,
    blocks: u64,
    /// The current block.
    start: u64,
    last: u64,
    /// Time steps recorded in the block (the time table's length).
    steps: u32,
    time_table: Vec<u8>,
    /// The values at the block's start.
    frame: Frame,
    /// Scratch for a block's frame: a piece of its characters, and the
    /// whole packed.
    frame_piece: Vec<u8>,
    frame_packed: Vec<u8>,
    /// Per handle, the time index of its last change in the block.
    prev: Vec<u32>,
    /// Per handle, its change records in the block, in time order (kept
    /// with their room from block to block).
    runs: Vec<Vec<u8>>,
    /// Per handle, where its last record in the block starts in its run
    /// (`u32::MAX`: no change in the block).
    last_at: Vec<u32>,
    /// Per handle: its run holds a record of an unknown value without its
    /// characters ([`Encoder::change_other`]).
    short_x: Vec<bool>,
    /// Scratch: a run with its unknown values' characters, or the
    /// literals of its LZ4 block ([`lz4_unknowns`]).
    expanded: Vec<u8>,
    /// The block's changes, and the bytes of their records.
    changes: usize,
    bytes: usize,
    /// Scratch for writing a block.
    block: Vec<u8>,
    /// Scratch for LZ4: a signal's compressed changes, and the
    /// compressor's hash tables for inputs under and over 64 KB, kept
    /// across calls (each call would otherwise allocate and zero both).
    packed: Vec<u8>,
    lz4_small: lz4_flex::block::CompressTable,
    lz4_large: lz4_flex::block::CompressTable,
}

impl<W: Write + Seek> Encoder<W> {
    /// Writes the header (to be completed by [`finish`](Self::finish)),
    /// the hierarchy and the geometry; the first block starts at
    /// `info.start` with every signal unknown.
    pub fn new(mut out: W, info: &Info<'_>, h: HierarchyRecords) -> std::io::Result<Self> {
        assert_eq!(h.depth, 0, "every scope closed");
        // Refused before anything is written.
        let frame = Frame::new(&h.widths)?;
        let mut b = Vec::with_capacity(HEADER_LEN as usize + 1);
        b.push(BLOCK_HEADER);
        b.extend_from_slice(&HEADER_LEN.to_be_bytes());
        b.extend_from_slice(&info.start.to_be_bytes());
        b.extend_from_slice(&0u64.to_be_bytes()); // end time, at finish
        b.extend_from_slice(&std::f64::consts::E.to_le_bytes()); // endianness
        b.extend_from_slice(&0u64.to_be_bytes()); // writer memory
        for _ in 0..4 {
            b.extend_from_slice(&0u64.to_be_bytes()); // counts, at finish
        }
        b.push(info.timescale as u8);
        fixed_str(&mut b, info.version, VERSION_LEN);
        fixed_str(&mut b, info.date, DATE_LEN);
        b.push(0); // Verilog
        b.extend_from_slice(&0u64.to_be_bytes()); // time zero
        debug_assert_eq!(b.len() as u64, HEADER_LEN + 1);

        b.push(BLOCK_HIERARCHY_LZ4);
        let packed = lz4_flex::compress(&h.bytes);
        b.extend_from_slice(&(16 + packed.len() as u64).to_be_bytes());
        b.extend_from_slice(&(h.bytes.len() as u64).to_be_bytes());
        b.extend_from_slice(&packed);

        let mut g = Vec::new();
        for &w in &h.widths {
            varint(&mut g, w as u64);
        }
        b.push(BLOCK_GEOMETRY);
        b.extend_from_slice(&(24 + g.len() as u64).to_be_bytes());
        b.extend_from_slice(&(g.len() as u64).to_be_bytes());
        b.extend_from_slice(&(h.widths.len() as u64).to_be_bytes());
        b.extend_from_slice(&g);
        out.write_all(&b)?;

        let n = h.widths.len();
        Ok(Encoder {
            out,
            frame,
            frame_piece: Vec::new(),
            frame_packed: Vec::new(),
            vars: n as u64,
            aliases: h.aliases,
            scopes: h.scopes,
            widths: h.widths,
            blocks: 0,
            start: info.start,
            last: info.start,
            steps: 0,
            time_table: Vec::new(),
            prev: vec![0; n],
            runs: vec![Vec::new(); n],
            last_at: vec![u32::MAX; n],
            short_x: vec![false; n],
            expanded: Vec::new(),
            changes: 0,
            bytes: 0,
            block: Vec::new(),
            packed: Vec::new(),
            lz4_small: lz4_flex::block::CompressTable::small(),
            lz4_large: lz4_flex::block::CompressTable::large(),
        })
    }

    /// Starts time step `t` (at least the last one; the same time again
    /// continues it).
    pub fn time(&mut self, t: u64) {
        if self.steps > 0 && t == self.last {
            return;
        }
        assert!(
            t >= self.last,
            "time {t} before the last time step {}",
            self.last
        );
        let base = if self.steps == 0 { 0 } else { self.last };
        varint(&mut self.time_table, t - base);
        self.steps += 1;
        self.last = t;
    }

    /// Handle `h`'s width in bits.
    #[inline]
    pub fn width(&self, h: u32) -> u32 {
        self.widths[h as usize]
    }

    /// Records handle `h`'s new value at the current time step.
    #[inline]
    pub fn change(&mut self, h: u32, v: SignalValue<'_>) {
        match v {
            SignalValue::Narrow(x) => self.change_narrow(h, x),
            v => self.change_other(h, v),
        }
    }

    /// Records handle `h`'s new value `x`, of at most 64 bits (the common
    /// case, kept short: every change of a traced run comes through here).
    #[inline(always)]
    pub fn change_narrow(&mut self, h: u32, x: u64) {
        debug_assert!(self.steps > 0, "a change before the first time step");
        let idx = self.steps - 1;
        let hi = h as usize;
        let delta = (idx - self.prev[hi]) as u64;
        self.prev[hi] = idx;
        let w = self.widths[hi];
        debug_assert!(w <= 64, "a narrow value for a signal of {w} bits");
        // A varint (at most ten bytes) and at most eight value bytes,
        // built in place and appended at once.
        let mut buf = [0u8; 18];
        let (mut v, mut n) = (
            if w == 1 {
                delta << 2 | (x & 1) << 1
            } else {
                delta << 1
            },
            0,
        );
        while v >= 0x80 {
            buf[n] = v as u8 | 0x80;
            v >>= 7;
            n += 1;
        }
        buf[n] = v as u8;
        n += 1;
        if w > 1 {
            // Most significant bit first, the last byte padded with zeros
            // on the right.
            let bytes = w.div_ceil(8) as usize;
            buf[n..n + 8].copy_from_slice(&(x << (64 - w)).to_be_bytes());
            n += bytes;
        }
        // All 18 bytes, then the length cut back: a copy of a fixed size
        // is a few moves, one of a variable size a call.
        let run = &mut self.runs[hi];
        let len = run.len();
        self.last_at[hi] = len as u32;
        run.extend_from_slice(&buf);
        run.truncate(len + n);
        self.changes += 1;
        self.bytes += n;
    }

    /// Records an unknown or a wide value.
    #[inline(never)]
    fn change_other(&mut self, h: u32, v: SignalValue<'_>) {
        debug_assert!(self.steps > 0, "a change before the first time step");
        let idx = self.steps - 1;
        let hi = h as usize;
        let delta = (idx - self.prev[hi]) as u64;
        self.prev[hi] = idx;
        let w = self.widths[hi];
        let d = &mut self.runs[hi];
        let before = d.len();
        if w > 64 && matches!(v, SignalValue::Unknown) {
            // The record's `w` characters `x` are left out until the
            // block is written ([`expand_unknowns`]): a large network's
            // first values are mostly unknown bit strings as wide as it
            // has nodes, 250 MB of `x` at 1,024 switches. Counted as
            // written. (A narrower signal's are written at once: putting
            // them back would cost more than they take.)
            varint(d, delta << 1 | 1);
            self.bytes += d.len() - before + w as usize;
            self.short_x[hi] = true;
        } else {
            other_record(d, w, delta, v);
            self.bytes += d.len() - before;
        }
        self.last_at[hi] = before as u32;
        self.changes += 1;
    }

    /// Makes room for a block of about `bytes` ([`pending`](Self::pending)
    /// counts them), so that the first block does not grow its buffers
    /// from nothing, copying them at each doubling.
    pub fn reserve(&mut self, bytes: usize) {
        // The block is written through one buffer: the frame, then each
        // signal's run (compressed when that helps), about a third of the
        // changes' count (a change is counted as its record of about 3
        // bytes and 8 more). The frame, packed, is mostly far smaller.
        self.block.reserve(bytes / 3);
    }

    /// Bits of all signals together: the characters of a block's frame.
    pub fn frame_bits(&self) -> usize {
        self.frame.len
    }

    /// Bytes of changes collected in the current block: their records and
    /// 8 more per change (the measure a block's size is decided by).
    pub fn pending(&self) -> usize {
        self.bytes + self.changes * 8
    }

    /// Writes the current block; the next starts with the values the
    /// block's changes left (its frame, kept by the encoder).
    pub fn flush(&mut self) -> std::io::Result<()> {
        let n = self.widths.len();
        let Encoder {
            frame,
            frame_piece,
            frame_packed,
            widths,
            block: b,
            ..
        } = self;
        b.clear();
        b.push(BLOCK_VC_ALIAS2);
        let len_at = b.len();
        b.extend_from_slice(&0u64.to_be_bytes()); // length, below
        b.extend_from_slice(&self.start.to_be_bytes());
        b.extend_from_slice(&self.last.to_be_bytes());
        let mem_at = b.len();
        b.extend_from_slice(&0u64.to_be_bytes()); // memory, below
        // The frame, one character per bit of every signal, is most of a
        // block for a large network (252 M characters at 1,024 switches,
        // most of them bit strings as wide as the network has nodes,
        // against 31 MB of changes, `fst_out`'s block size there); it is
        // nearly all alike, and zlib takes it to a fraction of a percent,
        // packed from its runs. Stored as it is when that does not help
        // (a length equal to the stored one means "as it is").
        pack_frame(frame, widths, frame_packed);
        let frame_len = frame.len;
        varint(b, frame_len as u64);
        if frame_packed.len() < frame_len {
            varint(b, frame_packed.len() as u64);
            varint(b, n as u64);
            b.extend_from_slice(frame_packed);
        } else {
            varint(b, frame_len as u64);
            varint(b, n as u64);
            frame.chars(widths, frame_piece, |p| b.extend_from_slice(p));
        }
        varint(b, n as u64);
        b.push(b'4'); // LZ4
        let mut prev_at = b.len() as i64 - 1;
        let mut offsets = Vec::new();
        let mut zeros = 0u64;
        let mut memory = 0u64;
        for h in 0..n {
            let s = &self.runs[h][..];
            if s.is_empty() {
                zeros += 1;
                continue;
            }
            if zeros > 0 {
                varint(&mut offsets, zeros << 1);
                zeros = 0;
            }
            let here = b.len() as i64;
            let (len, packed) = if self.short_x[h] {
                // Unknown values' characters, packed without being made
                // (and made only to be stored as they are, when packing
                // does not help).
                let w = self.widths[h];
                let total = expanded_len(s, w);
                self.packed.clear();
                lz4_unknowns(s, w, total, &mut self.expanded, &mut self.packed);
                if self.packed.len() >= total {
                    expand_unknowns(s, w, &mut self.expanded);
                }
                (total, Some(&self.packed[..]))
            } else if s.len() >= MIN_COMPRESS {
                let p = lz4(
                    s,
                    &mut self.packed,
                    &mut self.lz4_small,
                    &mut self.lz4_large,
                );
                (s.len(), p)
            } else {
                (s.len(), None)
            };
            memory += len as u64;
            match packed.filter(|p| p.len() < len) {
                Some(p) => {
                    varint(b, len as u64);
                    b.extend_from_slice(p);
                }
                None => {
                    varint(b, 0);
                    b.extend_from_slice(if self.short_x[h] { &self.expanded } else { s });
                }
            }
            svarint(&mut offsets, (here - prev_at) << 1 | 1);
            prev_at = here;
        }
        if zeros > 0 {
            varint(&mut offsets, zeros << 1);
        }
        b.extend_from_slice(&offsets);
        b.extend_from_slice(&(offsets.len() as u64).to_be_bytes());
        let tt = miniz_oxide::deflate::compress_to_vec_zlib(&self.time_table, ZLIB_LEVEL);
        if tt.len() < self.time_table.len() {
            b.extend_from_slice(&tt);
            b.extend_from_slice(&(self.time_table.len() as u64).to_be_bytes());
            b.extend_from_slice(&(tt.len() as u64).to_be_bytes());
        } else {
            b.extend_from_slice(&self.time_table);
            b.extend_from_slice(&(self.time_table.len() as u64).to_be_bytes());
            b.extend_from_slice(&(self.time_table.len() as u64).to_be_bytes());
        }
        b.extend_from_slice(&(self.steps as u64).to_be_bytes());
        let len = (b.len() - len_at) as u64;
        b[len_at..len_at + 8].copy_from_slice(&len.to_be_bytes());
        b[mem_at..mem_at + 8].copy_from_slice(&memory.to_be_bytes());
        self.out.write_all(b)?;

        // The next block starts from the values this one left.
        for (h, &off) in self.last_at.iter().enumerate() {
            if off != u32::MAX {
                self.frame
                    .set(h, self.widths[h], &self.runs[h][off as usize..]);
                self.runs[h].clear();
            }
        }
        self.blocks += 1;
        self.start = self.last;
        self.steps = 0;
        self.time_table.clear();
        self.prev.fill(0);
        self.last_at.fill(u32::MAX);
        self.short_x.fill(false);
        self.changes = 0;
        self.bytes = 0;
        Ok(())
    }

    /// Writes the last block, completes the header and flushes the output.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.flush()?;
        self.out.seek(SeekFrom::Start(1 + 2 * 8))?;
        self.out.write_all(&self.last.to_be_bytes())?;
        self.out.seek(SeekFrom::Current(2 * 8))?;
        for v in [
            self.scopes,
            self.vars + self.aliases,
            self.vars,
            self.blocks,
        ] {
            self.out.write_all(&v.to_be_bytes())?;
        }
        self.out.seek(SeekFrom::End(0))?;
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn varints_are_leb128() {
        let mut v = Vec::new();
        varint(&mut v, 0);
        varint(&mut v, 127);
        varint(&mut v, 128);
        varint(&mut v, 300);
        assert_eq!(v, [0, 127, 0x80, 1, 0xac, 2]);
        let mut s = Vec::new();
        svarint(&mut s, 63);
        svarint(&mut s, 64);
        svarint(&mut s, -1);
        svarint(&mut s, -65);
        assert_eq!(s, [63, 0xc0, 0, 0x7f, 0xbf, 0x7f]);
    }

    #[test]
    fn lz4_with_kept_tables_gives_the_crates_bytes() {
        let mut out = Vec::new();
        let mut small = lz4_flex::block::CompressTable::small();
        let mut large = lz4_flex::block::CompressTable::large();
        // Repetitive and not, under and over the 64 KB where the crate
        // changes tables, large before small so that a table left over
        // from a larger input would show; each table reused dirty.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let noise: Vec<u8> = (0..200_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 7) as u8
            })
            .collect();
        for len in [
            100_000, 32, 1_000, 65_534, 65_535, 65_536, 200_000, 40, 5_000,
        ] {
            for input in [&noise[..len], &vec![7u8; len][..]] {
                let got = lz4(input, &mut out, &mut small, &mut large).unwrap();
                assert_eq!(got, lz4_flex::compress(input), "{len} bytes");
            }
        }
    }

    #[test]
    fn fixed_strings_are_cut_to_leave_a_zero() {
        let mut v = Vec::new();
        fixed_str(&mut v, "abc", 5);
        assert_eq!(v, b"abc\0\0");
        v.clear();
        fixed_str(&mut v, "abcdef", 4);
        assert_eq!(v, b"abc\0");
    }

    impl<W: Write + Seek> Encoder<W> {
        /// The frame's characters, whole.
        fn frame_chars(&mut self) -> Vec<u8> {
            let mut all = Vec::new();
            self.frame.chars(&self.widths, &mut self.frame_piece, |p| {
                all.extend_from_slice(p)
            });
            all
        }
    }

    /// An encoder to memory starting at `start`, and the handles of `vars`
    /// (name, width) in one scope.
    pub(crate) fn encoder(
        vars: &[(&str, u32)],
        start: u64,
    ) -> (Encoder<std::io::Cursor<Vec<u8>>>, Vec<u32>) {
        let mut h = HierarchyRecords::default();
        h.scope("top");
        let ids = vars.iter().map(|&(n, w)| h.var(n, w)).collect();
        h.up();
        let info = Info {
            timescale: -9,
            version: "t",
            date: "d",
            start,
        };
        let e = Encoder::new(std::io::Cursor::new(Vec::new()), &info, h).unwrap();
        (e, ids)
    }

    proptest::proptest! {
        /// The short path for values of at most 64 bits writes exactly
        /// what the general path writes, for any width, value and time
        /// between changes (varints of one to several bytes).
        #[test]
        fn the_narrow_path_writes_what_the_general_one_does(
            changes in proptest::collection::vec((0usize..6, proptest::num::u64::ANY, 0u64..300), 1..60)
        ) {
            let widths = [1u32, 2, 8, 9, 33, 64];
            let vars: Vec<(String, u32)> =
                widths.iter().enumerate().map(|(i, &w)| (format!("s{i}"), w)).collect();
            let named: Vec<(&str, u32)> = vars.iter().map(|(n, w)| (n.as_str(), *w)).collect();
            let (mut fast, ids) = encoder(&named, 0);
            let (mut slow, _) = encoder(&named, 0);
            let mut t = 0;
            for (k, x, gap) in changes {
                t += gap;
                let w = widths[k];
                let x = if w == 64 { x } else { x & ((1 << w) - 1) };
                fast.time(t);
                slow.time(t);
                fast.change_narrow(ids[k], x);
                slow.change_other(ids[k], SignalValue::Narrow(x));
            }
            proptest::prop_assert_eq!(&fast.runs, &slow.runs);
            proptest::prop_assert_eq!(&fast.last_at, &slow.last_at);
            proptest::prop_assert_eq!(fast.pending(), slow.pending());
        }
    }

    #[test]
    fn values_are_packed_most_significant_bit_first() {
        let (mut e, ids) = encoder(&[("a", 10), ("b", 1), ("c", 70)], 0);
        let (a, b, c) = (ids[0], ids[1], ids[2]);
        e.time(0);
        e.change(a, SignalValue::Narrow(0b10_0000_0011));
        e.change(b, SignalValue::Narrow(1));
        e.time(5);
        e.change(b, SignalValue::Unknown);
        e.change(c, SignalValue::Wide(&[1, 0b10_0000]));
        e.change(a, SignalValue::Unknown);
        e.time(6);
        e.change(c, SignalValue::Unknown);
        // a: delta 0, then 1000000011 as 10000000 11000000; then delta 1
        // and x as characters.
        let mut want_a = vec![0, 0b1000_0000, 0b1100_0000];
        want_a.push(1 << 1 | 1);
        want_a.extend([b'x'; 10]);
        // b: delta 0 and value 1; then delta 1 and x (code 0).
        let want_b = vec![0b10, 1 << 4 | 1];
        // c: delta 1, then bits 69 and 0 set: 10000000, seven zero bytes,
        // 00000100 (the last six bits are padding); then delta 1 and x as
        // characters.
        let mut want_c = vec![1 << 1, 0b1000_0000];
        want_c.extend([0; 7]);
        want_c.push(0b0000_0100);
        want_c.push(1 << 1 | 1);
        want_c.extend([b'x'; 70]);
        // Each run as the block stores it. c, wider than 64 bits, keeps
        // its unknown value without the characters until then; a, no
        // wider, has them at once.
        assert_eq!(
            (e.runs[a as usize].len(), e.runs[c as usize].len()),
            (14, 11)
        );
        let run = |h: u32| {
            let mut out = e.runs[h as usize].clone();
            if e.short_x[h as usize] {
                expand_unknowns(&e.runs[h as usize], e.widths[h as usize], &mut out);
            }
            out
        };
        assert_eq!((run(a), run(b), run(c)), (want_a, want_b, want_c));
        // Where each signal's last record starts, for the next frame.
        assert_eq!(
            (
                e.last_at[a as usize],
                e.last_at[b as usize],
                e.last_at[c as usize]
            ),
            (3, 1, 10)
        );
        // Three records of 3, 1 and 1 bytes, then 11 and 10, then 71 (as
        // stored): 97 bytes and 6 changes.
        assert_eq!(e.pending(), 97 + 6 * 8);
    }

    /// Signals of more bits than a frame holds (2^32 - 1 characters) are
    /// refused by name, before anything is written.
    #[test]
    fn a_frame_too_large_is_refused_before_any_byte() {
        let mut h = HierarchyRecords::default();
        h.scope("top");
        h.var("a", u32::MAX);
        h.var("b", 1);
        h.up();
        let info = Info {
            timescale: -9,
            version: "t",
            date: "d",
            start: 0,
        };
        let mut out = Vec::new();
        let e = Encoder::new(std::io::Cursor::new(&mut out), &info, h);
        let msg = e.err().expect("refused").to_string();
        assert_eq!(
            msg,
            "4294967296 bits of signals: an FST frame holds at most 4294967295 (a character per \
             bit of every signal): trace part of the network (--trace-scope) or write VCD (a \
             name not ending in .fst)"
        );
        assert!(out.is_empty());
    }

    /// A frame's characters, made a piece at a time (as a frame stored as
    /// it is is written), are the values set: known ones a bit each,
    /// unknown ones `x`; packed from its runs, the frame inflates to the
    /// same characters.
    #[test]
    fn a_frame_made_in_pieces_or_packed_from_its_runs_is_its_characters() {
        // 3 x 70,000 + 13 + 1 + 200 + 5,003 characters, handed on once a
        // piece passes 65,536: three pieces, and the rest.
        let widths = [70_000u32, 13, 1, 70_000, 200, 70_000, 5_003];
        let mut f = Frame::new(&widths).unwrap();
        let rec = |w: u32, delta: u64, v: SignalValue<'_>| {
            let mut d = Vec::new();
            other_record(&mut d, w, delta, v);
            d
        };
        let wide: Vec<u64> = (0..70_000u64.div_ceil(64))
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        f.set(0, 70_000, &rec(70_000, 3, SignalValue::Wide(&wide)));
        f.set(1, 13, &rec(13, 1, SignalValue::Narrow(0b1_0110_0000_0101)));
        f.set(2, 1, &rec(1, 200, SignalValue::Narrow(1)));
        f.set(
            4,
            200,
            &rec(200, 0, SignalValue::Wide(&[u64::MAX, 5, 0, 0xff])),
        );
        // Signal 3 stays unknown; 5 is set, then made unknown again (its
        // record without its characters, as a run keeps it).
        f.set(5, 70_000, &rec(70_000, 0, SignalValue::Wide(&wide)));
        f.set(5, 70_000, &[1 << 1 | 1]);
        // Mostly zeros, as a bit string as wide as the network is: whole
        // words of zeros and of ones, and bytes of both.
        let mut sparse = vec![0u64; 5_003usize.div_ceil(64)];
        sparse[3] = u64::MAX;
        sparse[7] = 1 << 40 | 0xff00;
        sparse[78] = 0b101;
        f.set(6, 5_003, &rec(5_003, 0, SignalValue::Wide(&sparse)));
        let mut chars = Vec::new();
        let mut piece = Vec::new();
        let mut pieces = 0;
        f.chars(&widths, &mut piece, |p| {
            pieces += 1;
            chars.extend_from_slice(p)
        });
        assert_eq!(pieces, 4);
        let bits = |words: &[u64], w: u32| bit_chars(words, w).into_bytes();
        let mut want = bits(&wide, 70_000);
        want.extend(bits(&[0b1_0110_0000_0101], 13));
        want.push(b'1');
        want.extend([b'x'; 70_000]);
        want.extend(bits(&[u64::MAX, 5, 0, 0xff], 200));
        want.extend([b'x'; 70_000]);
        want.extend(bits(&sparse, 5_003));
        assert_eq!(chars.len(), f.len);
        assert!(chars == want, "the frame's characters");
        let mut packed = Vec::new();
        pack_frame(&f, &widths, &mut packed);
        assert_eq!(
            miniz_oxide::inflate::decompress_to_vec_zlib(&packed).unwrap(),
            want
        );
    }

    /// Two blocks, read back by the `fst-reader` crate: every change, and,
    /// read from the second block's start, the values its frame holds.
    #[test]
    fn blocks_and_frames_read_back() {
        let (mut e, ids) = encoder(&[("a", 12), ("b", 1)], 10);
        let (a, b) = (ids[0], ids[1]);
        e.time(10);
        e.change(a, SignalValue::Narrow(0xabc));
        e.change(b, SignalValue::Narrow(1));
        e.time(20);
        e.change(a, SignalValue::Unknown);
        e.flush().unwrap();
        e.time(30);
        e.change(b, SignalValue::Narrow(0));
        e.change(a, SignalValue::Narrow(5));
        e.time(40);
        let bytes = e.finish().unwrap().into_inner();
        let mut r = fst_reader::FstReader::open(std::io::Cursor::new(bytes)).unwrap();
        let hd = r.get_header();
        assert_eq!((hd.start_time, hd.end_time, hd.var_count), (10, 40, 2));
        let mut read = |start| {
            let mut got = Vec::new();
            let f = fst_reader::FstFilter::filter_time(start, 40);
            r.read_signals(&f, |t, h, v| {
                if let fst_reader::FstSignalValue::String(s) = v {
                    got.push((t, h.get_index(), String::from_utf8_lossy(s).into_owned()));
                }
                Ok::<(), ()>(())
            })
            .unwrap();
            // Within a time step, the reader's order is its own.
            got.sort();
            got
        };
        let s = |t, h, v: &str| (t, h, v.to_string());
        assert_eq!(
            read(0),
            [
                s(10, 0, "101010111100"),
                s(10, 1, "1"),
                s(20, 0, "xxxxxxxxxxxx"),
                s(30, 0, "000000000101"),
                s(30, 1, "0"),
            ]
        );
        // From the second block on, the reader starts from its frame.
        let late = read(25);
        assert!(late.contains(&s(20, 1, "1")), "{late:?}");
        assert!(late.contains(&s(30, 0, "000000000101")), "{late:?}");
    }

    /// Where each match of an LZ4 block starts in the unpacked bytes, and
    /// its length.
    fn lz4_matches(block: &[u8]) -> Vec<(usize, usize)> {
        let (mut p, mut pos, mut out) = (0, 0, Vec::new());
        let length = |p: &mut usize, mut n: usize| {
            if n == 15 {
                loop {
                    let b = block[*p];
                    *p += 1;
                    n += b as usize;
                    if b != 255 {
                        break;
                    }
                }
            }
            n
        };
        while p < block.len() {
            let token = block[p];
            p += 1;
            let lits = length(&mut p, (token >> 4) as usize);
            p += lits;
            pos += lits;
            if p == block.len() {
                break;
            }
            p += 2;
            let len = length(&mut p, (token & 15) as usize) + 4;
            out.push((pos, len));
            pos += len;
        }
        out
    }

    /// The value of `words` (least significant word first) as `w` bit
    /// characters, most significant first.
    fn bit_chars(words: &[u64], w: u32) -> String {
        (0..w)
            .rev()
            .map(|b| {
                if words[b as usize / 64] >> (b % 64) & 1 == 1 {
                    '1'
                } else {
                    '0'
                }
            })
            .collect()
    }

    proptest::proptest! {
        /// A run of a wide signal with records of unknown values kept
        /// without their characters, packed as LZ4 from its parts,
        /// unpacks (by the `lz4_flex` crate, as the `fst-reader` crate
        /// reads FST) to the run with the characters made, whatever the
        /// widths, the mix of records and where the block ends (a match
        /// near the end is cut to the format's end rules).
        #[test]
        fn unknowns_packed_from_their_records_unpack_to_their_characters(
            w in proptest::sample::select(vec![65u32, 72, 130, 1000, 16_384]),
            records in proptest::collection::vec(
                (proptest::bool::ANY, 0u64..100_000, proptest::num::u64::ANY), 1..12),
        ) {
            let mut run = Vec::new();
            for &(unknown, delta, seed) in &records {
                if unknown {
                    varint(&mut run, delta << 1 | 1);
                } else {
                    let words: Vec<u64> = (0..w.div_ceil(64) as u64)
                        .map(|i| seed.wrapping_mul(i | 1).rotate_left(i as u32))
                        .collect();
                    other_record(&mut run, w, delta, SignalValue::Wide(&words));
                }
            }
            let mut want = Vec::new();
            expand_unknowns(&run, w, &mut want);
            let total = expanded_len(&run, w);
            proptest::prop_assert_eq!(total, want.len());
            let (mut lits, mut packed) = (Vec::new(), Vec::new());
            lz4_unknowns(&run, w, total, &mut lits, &mut packed);
            let back = lz4_flex::block::decompress(&packed, total).unwrap();
            proptest::prop_assert!(back == want);
            // The end rules, which the `lz4_flex` decoder does not hold
            // a block to but GTKWave's does: no match starts within 12
            // bytes of the end or ends within 5.
            for (start, len) in lz4_matches(&packed) {
                proptest::prop_assert!(start + 12 <= total && start + len + 5 <= total);
            }
            if records.iter().all(|r| r.0) {
                // Unknown values alone: a few bytes a record.
                proptest::prop_assert!(packed.len() < 100 * records.len(), "{} bytes", packed.len());
            }
        }

        /// Every change comes back from the `fst-reader` crate as written,
        /// whatever the mix of record lengths in a block: narrow values
        /// (appended as one fixed-size copy cut back), and wide or unknown
        /// values of wide signals (written by the general path),
        /// interleaved over the handles and over two blocks.
        #[test]
        fn every_change_reads_back_whatever_the_record_lengths(
            changes in proptest::collection::vec(
                (0usize..6, proptest::num::u64::ANY, proptest::num::u64::ANY,
                 proptest::num::u64::ANY, 0u8..8, 1u64..300),
                1..80),
            split in 0usize..80,
        ) {
            let widths = [1u32, 7, 64, 100, 129, 200];
            let vars: Vec<(String, u32)> =
                widths.iter().enumerate().map(|(i, &w)| (format!("s{i}"), w)).collect();
            let named: Vec<(&str, u32)> = vars.iter().map(|(n, w)| (n.as_str(), *w)).collect();
            let (mut e, ids) = encoder(&named, 0);
            // The values each handle holds, for the second block's frame.
            let mut now = vec!["x".to_string(); widths.len()];
            for (k, &w) in widths.iter().enumerate() {
                now[k] = "x".repeat(w as usize);
            }
            let mut want = Vec::new();
            let mut t = 0;
            for (j, &(k, a, b, c, unknown, gap)) in changes.iter().enumerate() {
                if j == split {
                    e.flush().unwrap();
                    // The frame of the block that starts: what the
                    // changes so far left.
                    let frame: Vec<u8> = now.iter().flat_map(|v| v.bytes()).collect();
                    proptest::prop_assert_eq!(e.frame_chars(), frame);
                }
                t += gap;
                e.time(t);
                let w = widths[k];
                let mut words = [a, b, c, 0];
                let n = w.div_ceil(64) as usize;
                if !w.is_multiple_of(64) {
                    words[n - 1] &= (1u64 << (w % 64)) - 1;
                }
                let text = if unknown == 0 {
                    e.change(ids[k], SignalValue::Unknown);
                    "x".repeat(w as usize)
                } else {
                    if n == 1 {
                        e.change(ids[k], SignalValue::Narrow(words[0]));
                    } else {
                        e.change(ids[k], SignalValue::Wide(&words[..n]));
                    }
                    bit_chars(&words, w)
                };
                now[k] = text.clone();
                want.push((t, ids[k] as usize, text));
            }
            e.time(t + 1);
            let bytes = e.finish().unwrap().into_inner();
            let mut r = fst_reader::FstReader::open(std::io::Cursor::new(bytes)).unwrap();
            let mut got = Vec::new();
            let f = fst_reader::FstFilter::filter_time(0, t + 1);
            r.read_signals(&f, |t, h, v| {
                if let fst_reader::FstSignalValue::String(s) = v {
                    got.push((t, h.get_index(), String::from_utf8_lossy(s).into_owned()));
                }
                Ok::<(), ()>(())
            })
            .unwrap();
            // Within a time step, the reader's order is its own; a
            // handle changed twice in one step shows its last value.
            let mut last = std::collections::BTreeMap::new();
            for (t, h, v) in want {
                last.insert((t, h), v);
            }
            let want: Vec<(u64, usize, String)> =
                last.into_iter().map(|((t, h), v)| (t, h, v)).collect();
            let mut seen = std::collections::BTreeMap::new();
            // The first block's frame (all unknown) shows at time 0, before
            // the first change.
            for (t, h, v) in got.into_iter().filter(|c| c.0 > 0) {
                seen.insert((t, h), v);
            }
            let got: Vec<(u64, usize, String)> =
                seen.into_iter().map(|((t, h), v)| (t, h, v)).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
