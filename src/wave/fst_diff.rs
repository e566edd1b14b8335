//! `wave diff` of two FST files on times, signal by signal, and
//! [`diff_files`], which chooses between this path and the streaming one.
//!
//! An FST file keeps each signal's changes together in every value-change
//! block; rebuilding one time-ordered stream of all of them (what a reader
//! of events must do) costs more than the comparison itself. Here each
//! compared signal's changes are decoded straight from the blocks of both
//! files and compared with each other, on every core, with the same
//! semantics as the streaming diff ([`super::diff()`]): the same report, to
//! the counts. `tests/fuzz_waves.rs` checks that on pairs of equal,
//! planted and mutated files.
//!
//! Every signal of both files is decoded, the ones not compared (outside
//! the scope or signals asked for, or in one file only) with their changes
//! thrown away, so that a file broken anywhere is refused as the streaming
//! reader refuses it.
//!
//! The fast path is taken only when it applies: both files FST, no
//! `--clock`, blocks packed with LZ4, zlib or not at all (FastLZ-packed
//! blocks are left to the streaming path), files of at most 1 GiB, and
//! all it holds within half the memory available (the files, their
//! times, and the changes of the signals being compared; docs/cosim.md,
//! "Speed"); on anything else, or on any surprise while decoding, the
//! streaming diff runs instead and gives the answer or the error.

use super::diff::{DiffOptions, Pair, Ty, diff, pairing, same, value_text};
use super::fst::{Loc, chain_table};
use super::header::{Format, WaveHeader, push_logic};
use super::report::{CompareReport, Mismatch};
use super::stream::{WaveReader, guarded};
use crate::{Error, Result};
use bitvec::prelude::*;
use std::sync::atomic::AtomicU64;

/// Compares the waveforms in two files as [`diff()`] compares two
/// readers: two FST files on times signal by signal, as this module does
/// (docs/cosim.md, "Speed"), anything else through `open` (a reader of any
/// format; the command-line tool reads GHW files in a child process) and
/// [`diff()`].
pub fn diff_files(
    a: &std::path::Path,
    b: &std::path::Path,
    o: &DiffOptions,
    open: impl Fn(&std::path::Path) -> Result<WaveReader>,
) -> Result<CompareReport> {
    let stdin = std::path::Path::new(super::stream::STDIN);
    if a == stdin && b == stdin {
        return Err(Error::Wave(
            "both waveforms are `-`: only one of them can be read from standard input".into(),
        ));
    }
    let room = crate::memory::available().map_or(u64::MAX, |m| m / 2);
    if o.clock.is_none()
        && let Some(r) = fast(a, b, o, room)
    {
        return Ok(r);
    }
    diff(open(a)?, open(b)?, o)
}

/// The fast path's report on two files, if it takes them: both FST and
/// both compared within `room` bytes, the files' own included (half the
/// memory available: the streaming diff, which holds far less, takes any
/// pair the fast path would need more for).
fn fast(
    a: &std::path::Path,
    b: &std::path::Path,
    o: &DiffOptions,
    room: u64,
) -> Option<CompareReport> {
    let (xa, ha) = load(a, room)?;
    let room = room.checked_sub(xa.len() as u64)?;
    let (xb, hb) = load(b, room)?;
    let room = room.checked_sub(xb.len() as u64)?;
    diff_fst(xa, xb, &ha, &hb, o, room).ok()
}

/// The largest FST file compared in memory by the fast path.
const MAX_BYTES: u64 = 1 << 30;

/// A signal's geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Geo {
    Bits(u32),
    Real,
    VarLen,
}

/// One value-change block, ready for signals to be decoded from it.
struct Block {
    start: u64,
    /// The block's times: `Parsed::all_times[first..first + times]`.
    times: usize,
    /// Index of the block's first time among every block's times.
    first: usize,
    frame: Option<Vec<u8>>,
    vc_start: usize,
    pack: u8,
    locs: Vec<Loc>,
}

/// An FST file in memory, its blocks parsed.
struct Parsed {
    bytes: Vec<u8>,
    fs: u128,
    little: bool,
    geo: Vec<Geo>,
    /// Offset of each signal's initial value in a frame.
    frame_at: Vec<usize>,
    blocks: Vec<Block>,
    /// Every block's times, in order (for counting times).
    all_times: Vec<u64>,
    /// Bytes held besides the file's and the times: frames and signal
    /// tables.
    tables: u64,
}

fn fail(what: &str) -> Error {
    Error::Wave(format!("fast FST diff: {what}"))
}

fn varint_at(b: &[u8], pos: usize) -> Result<(u64, usize)> {
    let mut v = 0u64;
    for i in 0..10 {
        let c = *b
            .get(pos + i)
            .ok_or_else(|| fail("a number past the end"))?;
        v |= u64::from(c & 0x7f).checked_shl(7 * i as u32).unwrap_or(0);
        if c & 0x80 == 0 {
            return Ok((v, i + 1));
        }
    }
    Err(fail("a malformed number"))
}

fn u64_at(b: &[u8], pos: usize) -> Result<u64> {
    let s = b
        .get(pos..pos + 8)
        .ok_or_else(|| fail("a number past the end"))?;
    Ok(u64::from_be_bytes(s.try_into().expect("8 bytes")))
}

fn slice(b: &[u8], from: usize, len: u64) -> Result<&[u8]> {
    let to = from
        .checked_add(len as usize)
        .ok_or_else(|| fail("a length past the end"))?;
    b.get(from..to).ok_or_else(|| fail("a length past the end"))
}

/// zlib data, or the bytes themselves when they are not compressed.
fn inflate(data: &[u8], raw: u64) -> Result<Vec<u8>> {
    if data.len() as u64 == raw {
        return Ok(data.to_vec());
    }
    miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(data, raw as usize)
        .map_err(|_| fail("a zlib section does not inflate"))
}

impl Parsed {
    /// Parses the blocks of `bytes`, holding at most `room` bytes besides
    /// them (times, frames, signal tables).
    fn new(bytes: Vec<u8>, h: &WaveHeader, room: u64) -> Result<Parsed> {
        let b = &bytes[..];
        let mut geo = None;
        let mut blocks = Vec::new();
        let mut little = true;
        let mut pos = 0usize;
        while pos < b.len() {
            let kind = b[pos];
            let start = pos + 1;
            let len = u64_at(b, start)? as usize;
            if kind == 255 && len == 0 {
                break;
            }
            let end = start
                .checked_add(len)
                .ok_or_else(|| fail("a block past the end"))?;
            if end > b.len() || len < 8 {
                return Err(fail("a block past the end"));
            }
            match kind {
                0 => {
                    let d = slice(b, start + 24, 8)?;
                    let e = std::f64::consts::E;
                    little = if f64::from_le_bytes(d.try_into().expect("8")) == e {
                        true
                    } else if f64::from_be_bytes(d.try_into().expect("8")) == e {
                        false
                    } else {
                        return Err(fail("no endian test value"));
                    };
                }
                3 => {
                    let raw = u64_at(b, start + 8)?;
                    let count = u64_at(b, start + 16)?;
                    let data = inflate(slice(b, start + 24, len as u64 - 24)?, raw)?;
                    let mut g = Vec::new();
                    let mut p = 0;
                    for _ in 0..count {
                        let (v, n) = varint_at(&data, p)?;
                        p += n;
                        g.push(match v {
                            0 => Geo::Real,
                            0xffff_ffff => Geo::VarLen,
                            v => Geo::Bits(v as u32),
                        });
                    }
                    geo = Some(g);
                }
                1 | 5 | 8 => blocks.push((kind, start, end)),
                _ => {}
            }
            pos = end;
        }
        let geo = geo.ok_or_else(|| fail("no geometry"))?;
        // Every variable as the geometry declares it; anything else is left
        // to the streaming reader to judge.
        for v in &h.vars {
            let code = &h.codes[v.code as usize];
            let hd = code
                .text
                .parse::<usize>()
                .ok()
                .and_then(|x| x.checked_sub(1))
                .ok_or_else(|| fail("a code that is no handle"))?;
            let fits = match (geo.get(hd), v.kind) {
                (
                    Some(Geo::Bits(n)),
                    super::header::VarKind::Logic | super::header::VarKind::Event,
                ) => *n == v.width,
                (Some(Geo::Real), super::header::VarKind::Real) => true,
                (Some(Geo::VarLen), super::header::VarKind::Str) => true,
                _ => false,
            };
            if !fits {
                return Err(fail("a variable unlike its geometry"));
            }
        }
        let mut frame_at = Vec::with_capacity(geo.len());
        let mut at = 0usize;
        for g in &geo {
            frame_at.push(at);
            at += match g {
                Geo::Bits(n) => *n as usize,
                Geo::Real => 8,
                Geo::VarLen => 0,
            };
        }
        let mut parsed = Vec::new();
        let mut all_times = Vec::new();
        // Bytes held besides the file's: frames and signal tables.
        let mut tables = 0u64;
        for (k, &(kind, start, end)) in blocks.iter().enumerate() {
            let block_start = u64_at(b, start + 8)?;
            let t_raw = u64_at(b, end - 24)?;
            let t_comp = u64_at(b, end - 16)?;
            let t_items = u64_at(b, end - 8)?;
            let t_at = (end - 24)
                .checked_sub(t_comp as usize)
                .ok_or_else(|| fail("a time table past the block"))?;
            let t_data = inflate(slice(b, t_at, t_comp)?, t_raw)?;
            let first = all_times.len();
            // 16 bytes a time: the vector may double as it grows.
            let held = (first as u64).saturating_add(t_items).saturating_mul(16) + tables;
            if held > room {
                return Err(fail(&format!(
                    "{held} bytes of times, more than the {room} it may hold"
                )));
            }
            all_times.reserve(t_items as usize);
            let (mut p, mut t) = (0usize, 0u64);
            for _ in 0..t_items {
                let (d, n) = varint_at(&t_data, p)?;
                p += n;
                t = t.checked_add(d).ok_or_else(|| fail("a time past 2^64"))?;
                all_times.push(t);
            }
            // Times in order across blocks too (the distinct times are
            // counted by merging the two files' in order).
            if let (Some(last), Some(next)) = (
                first.checked_sub(1).and_then(|i| all_times.get(i)),
                all_times.get(first),
            ) && next < last
            {
                return Err(fail("a block's times before the last block's"));
            }
            let times = &all_times[first..];
            // The frame, read for the first block only when its first time
            // is after the block's start (as `fst-reader` does).
            let mut q = start + 32;
            let (f_raw, n1) = varint_at(b, q)?;
            let (f_comp, n2) = varint_at(b, q + n1)?;
            let (_, n3) = varint_at(b, q + n1 + n2)?;
            q += n1 + n2 + n3;
            let frame = if k == 0 && times.first().is_none_or(|&t0| t0 > block_start) {
                let f = inflate(slice(b, q, f_comp)?, f_raw)?;
                if f.len() < at {
                    return Err(fail("a frame shorter than its signals"));
                }
                tables += f.len() as u64;
                Some(f)
            } else {
                None
            };
            q += f_comp as usize;
            let (handles, n) = varint_at(b, q)?;
            let vc_start = q + n;
            let pack = *b.get(vc_start).ok_or_else(|| fail("no pack type"))?;
            if pack == b'F' {
                return Err(fail("FastLZ-packed blocks"));
            }
            let chain_len_at = end - (t_comp as usize + 24) - 8;
            let chain_len = u64_at(b, chain_len_at)?;
            let chain_at = chain_len_at
                .checked_sub(chain_len as usize)
                .ok_or_else(|| fail("a signal table past the block"))?;
            let locs = chain_table(
                slice(b, chain_at, chain_len)?,
                handles,
                kind == 8,
                (chain_at - vc_start) as u64,
            )
            .ok_or_else(|| fail("a malformed signal table"))?;
            tables += (locs.len() * std::mem::size_of::<Loc>()) as u64;
            parsed.push(Block {
                start: block_start,
                first,
                times: all_times.len() - first,
                frame,
                vc_start,
                pack,
                locs,
            });
        }
        if all_times.len() >= FRAME as usize {
            return Err(fail("more than 2^32 times"));
        }
        Ok(Parsed {
            bytes,
            fs: u128::from(h.fs_per_unit()),
            little,
            geo,
            frame_at,
            blocks: parsed,
            all_times,
            tables,
        })
    }

    /// The times (fs) marked in `used`, in order, after the first block's
    /// start if `frame`.
    fn used_times<'a>(&'a self, used: &'a Used, frame: bool) -> impl Iterator<Item = u128> + 'a {
        let start = self.blocks.first().filter(|_| frame).map(|blk| blk.start);
        start
            .into_iter()
            .chain(used.iter_ones().map(|x| self.all_times[x]))
            .map(|t| u128::from(t) * self.fs)
    }

    /// Signal `h`'s changes: `(global time index or usize::MAX for the
    /// frame, value)` in order, values in the streaming diff's form (logic
    /// characters; a real as a set flag and 8 bytes).
    fn changes(&self, h: usize, out: &mut Changes) -> Result<()> {
        out.clear();
        let g = *self
            .geo
            .get(h)
            .ok_or_else(|| fail("a handle past the geometry"))?;
        for blk in &self.blocks {
            if let Some(f) = &blk.frame
                && g != Geo::VarLen
            {
                let at = self.frame_at[h];
                let v = match g {
                    Geo::Bits(n) => slice(f, at, u64::from(n))?,
                    _ => slice(f, at, 8)?,
                };
                out.push_frame(g, v, self.little);
            }
            let loc = match blk.locs.get(h).copied().unwrap_or(Loc::None) {
                Loc::Alias(a) => blk.locs[a as usize],
                l => l,
            };
            let Loc::Data { off, len } = loc else {
                continue;
            };
            let p = blk.vc_start + off as usize;
            let (raw, skip) = varint_at(&self.bytes, p)?;
            let owned;
            let data: &[u8] = if raw == 0 {
                slice(&self.bytes, p + skip, len.saturating_sub(skip as u64))?
            } else if blk.pack == b'4' {
                let c = slice(&self.bytes, p + skip, len.saturating_sub(skip as u64))?;
                owned = lz4_flex::decompress(c, raw as usize)
                    .map_err(|_| fail("an LZ4 block does not decompress"))?;
                &owned
            } else {
                // zlib: `fst-reader` reads `len` bytes from past the
                // length, running into what follows; zlib stops at its end.
                let end = (p + skip + len as usize).min(self.bytes.len());
                let c = self
                    .bytes
                    .get(p + skip..end)
                    .ok_or_else(|| fail("zlib data"))?;
                owned = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(c, raw as usize)
                    .map_err(|_| fail("a zlib block does not inflate"))?;
                &owned
            };
            // The streaming reader reads a first time delta from every
            // signal's data, so it refuses data that is empty (an LZ4
            // block can decompress to nothing); so must this path.
            if data.is_empty() {
                return Err(fail("a signal's changes are empty"));
            }
            decode(data, g, blk, self.little, out)?;
        }
        Ok(())
    }
}

/// A signal's changes.
struct Changes {
    /// Global time index of each change ([`FRAME`]: the initial value).
    index: Vec<u32>,
    ends: Vec<u32>,
    bytes: Vec<u8>,
    /// The most bytes the changes may come to ([`Changes::held`]).
    cap: u64,
}

/// The index of a change that is the first block's initial value.
const FRAME: u32 = u32::MAX;

impl Changes {
    /// No changes, to come to at most `cap` bytes.
    fn within(cap: u64) -> Changes {
        Changes {
            index: Vec::new(),
            ends: Vec::new(),
            bytes: Vec::new(),
            cap,
        }
    }

    /// The bytes the changes come to: a time index and an end a change,
    /// and the values. The vectors' capacity is at most twice this.
    fn held(&self) -> u64 {
        self.index.len() as u64 * 8 + self.bytes.len() as u64
    }

    fn clear(&mut self) {
        self.index.clear();
        self.ends.clear();
        self.bytes.clear();
    }

    fn len(&self) -> usize {
        self.index.len()
    }

    fn value(&self, i: usize) -> &[u8] {
        let from = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[from..self.ends[i] as usize]
    }

    fn push_real(&mut self, raw: &[u8], little: bool) {
        let a: [u8; 8] = raw.try_into().expect("8 bytes");
        let v = if little {
            f64::from_le_bytes(a)
        } else {
            f64::from_be_bytes(a)
        };
        self.bytes.push(1);
        self.bytes.extend_from_slice(&v.to_bits().to_le_bytes());
    }

    fn push_logic(&mut self, raw: &[u8]) {
        push_logic(&mut self.bytes, raw);
    }

    fn push_frame(&mut self, g: Geo, v: &[u8], little: bool) {
        match g {
            Geo::Real => self.push_real(v, little),
            _ => self.push_logic(v),
        }
        self.index.push(FRAME);
        self.ends.push(self.bytes.len() as u32);
    }
}

const ONE_BIT: [u8; 8] = *b"xzhuwl-?";

/// Decodes one block's data of a signal (`fst-reader`'s value-change
/// encoding: a time delta and a value per change).
fn decode(data: &[u8], g: Geo, blk: &Block, little: bool, out: &mut Changes) -> Result<()> {
    let mut p = 0usize;
    let mut ti = 0usize;
    let mut first = true;
    while p < data.len() {
        let (vli, n) = varint_at(data, p)?;
        p += n;
        let delta = match g {
            Geo::Bits(1) if vli & 1 == 0 => vli >> 2,
            Geo::Bits(1) => vli >> 4,
            _ => vli >> 1,
        };
        ti = if first {
            delta as usize
        } else {
            ti.checked_add(delta as usize)
                .ok_or_else(|| fail("a time index"))?
        };
        first = false;
        if ti >= blk.times {
            return Err(fail("a change past the time table"));
        }
        match g {
            Geo::Bits(1) => {
                let c = if vli & 1 == 0 {
                    b'0' + ((vli >> 1) & 1) as u8
                } else {
                    ONE_BIT[((vli >> 1) & 7) as usize]
                };
                out.push_logic(&[c]);
            }
            Geo::Bits(w) => {
                let w = w as usize;
                if vli & 1 == 0 {
                    let packed = slice(data, p, w.div_ceil(8) as u64)?;
                    p += packed.len();
                    out.bytes
                        .extend((0..w).map(|i| b'0' + (packed[i / 8] >> (7 - (i & 7)) & 1)));
                } else {
                    let chars = slice(data, p, w as u64)?;
                    p += w;
                    out.push_logic(chars);
                }
            }
            Geo::Real => {
                if vli & 1 == 0 {
                    return Err(fail("a two-state real"));
                }
                let v = slice(data, p, 8)?;
                p += 8;
                out.push_real(v, little);
            }
            Geo::VarLen => {
                let (len, n) = varint_at(data, p)?;
                p += n;
                let v = slice(data, p, len)?;
                p += v.len();
                out.bytes.extend_from_slice(v);
            }
        }
        out.index.push((blk.first + ti) as u32);
        out.ends.push(out.bytes.len() as u32);
        if out.held() > out.cap {
            return Err(fail(&format!(
                "a signal's changes past the {} bytes it may hold",
                out.cap
            )));
        }
    }
    Ok(())
}

/// What a group of pairs contributes to the report.
#[derive(Default)]
struct Part {
    mismatches: Vec<(usize, u64)>,
    comparisons: u64,
    /// (time in fs, pair) of the first difference, with its values.
    first: Option<(u128, usize, String, String)>,
    /// A frame value was compared (of `a`, of `b`).
    frame_a: bool,
    frame_b: bool,
}

/// The global time indices of a file at which a compared signal changed,
/// one bit each, set from any worker (one set for every group of pairs).
type Used = BitVec<AtomicU64, Lsb0>;

/// Marks time index `x` used (a read first: most are set already, and a
/// read leaves the word shared between the workers' caches).
fn mark(used: &Used, x: usize) {
    if !used[x] {
        used.set_aliased(x, true);
    }
}

fn initial(ty: Ty) -> Vec<u8> {
    match ty {
        Ty::Logic(w) => vec![b'x'; w as usize],
        Ty::Real => vec![0; 9],
        Ty::Str => Vec::new(),
    }
}

/// Compares pair `k` (signal `ha` of `a`, `hb` of `b`).
#[allow(clippy::too_many_arguments)]
fn compare_pair(
    k: usize,
    p: &Pair,
    a: &Parsed,
    b: &Parsed,
    (ha, hb): (usize, usize),
    ca: &mut Changes,
    cb: &mut Changes,
    part: &mut Part,
    used: (&Used, &Used),
) -> Result<()> {
    a.changes(ha, ca)?;
    b.changes(hb, cb)?;
    // A logic signal's geometry must be its declared width.
    if let Ty::Logic(w) = p.ty {
        for (f, h) in [(a, ha), (b, hb)] {
            if f.geo[h] != Geo::Bits(w) {
                return Err(fail("a width that is not the declared one"));
            }
        }
    }
    let (mut va, mut vb) = (initial(p.ty), initial(p.ty));
    let (mut i, mut j) = (0usize, 0usize);
    let mut count = 0u64;
    let time = |f: &Parsed, x: u32| -> u128 {
        let t = match x {
            FRAME => f.blocks.first().map_or(0, |b| b.start),
            x => f.all_times[x as usize],
        };
        u128::from(t) * f.fs
    };
    while i < ca.len() || j < cb.len() {
        let ta = ca.index.get(i).map(|&x| time(a, x));
        let tb = cb.index.get(j).map(|&x| time(b, x));
        let t = match (ta, tb) {
            (Some(x), Some(y)) => x.min(y),
            (Some(x), None) | (None, Some(x)) => x,
            (None, None) => break,
        };
        while i < ca.len() && time(a, ca.index[i]) == t {
            va.clear();
            va.extend_from_slice(ca.value(i));
            match ca.index[i] {
                FRAME => part.frame_a = true,
                x => mark(used.0, x as usize),
            }
            i += 1;
        }
        while j < cb.len() && time(b, cb.index[j]) == t {
            vb.clear();
            vb.extend_from_slice(cb.value(j));
            match cb.index[j] {
                FRAME => part.frame_b = true,
                x => mark(used.1, x as usize),
            }
            j += 1;
        }
        part.comparisons += 1;
        if !same(p, &va, &vb) {
            count += 1;
            let better = part
                .first
                .as_ref()
                .is_none_or(|(ft, fk, _, _)| (t, k) < (*ft, *fk));
            if better {
                part.first = Some((
                    t,
                    k,
                    value_text(p.ty, &va, false),
                    value_text(p.ty, &vb, p.flip),
                ));
            }
        }
    }
    if count > 0 {
        part.mismatches.push((k, count));
    }
    Ok(())
}

/// The signal handle of each code of an FST file's header.
fn handle(h: &WaveHeader, var: usize) -> Result<usize> {
    let code = h.vars[var].code as usize;
    h.codes[code]
        .text
        .parse::<usize>()
        .ok()
        .and_then(|x| x.checked_sub(1))
        .ok_or_else(|| fail("a code that is no handle"))
}

/// Compares two FST files (already checked, `ha`/`hb` their headers) on
/// times, signal by signal, holding at most `room` bytes besides the
/// files' (an error, which leaves the comparison to the streaming diff,
/// where it would take more).
pub(crate) fn diff_fst(
    a_bytes: Vec<u8>,
    b_bytes: Vec<u8>,
    ha: &WaveHeader,
    hb: &WaveHeader,
    o: &DiffOptions,
    room: u64,
) -> Result<CompareReport> {
    let pr = pairing(ha, hb, o)?;
    guarded("this FST file", move || {
        // Each file's times and tables may take a quarter of the room.
        let (a, b) = crate::par::join(
            || Parsed::new(a_bytes, ha, room / 4),
            || Parsed::new(b_bytes, hb, room / 4),
        );
        let (a, b) = (a?, b?);
        let (ta, tb) = (a.all_times.len(), b.all_times.len());
        let used: (Used, Used) = (BitVec::repeat(false, ta), BitVec::repeat(false, tb));
        // The rest, less the marks, is the workers' changes: two signals'
        // a worker, each at most a third of its share (a vector doubling
        // holds the old and the new).
        let taken = (ta + tb).div_ceil(8) as u64
            + [&a, &b]
                .iter()
                .map(|f| f.all_times.capacity() as u64 * 8 + f.tables)
                .sum::<u64>();
        let cap = room.saturating_sub(taken) / (6 * crate::par::workers() as u64);
        let handles: Vec<(usize, usize)> = pr
            .var_a
            .iter()
            .zip(&pr.var_b)
            .map(|(&x, &y)| Ok((handle(ha, x)?, handle(hb, y)?)))
            .collect::<Result<_>>()?;
        let chunk = (pr.pairs.len() / 64).max(64);
        let ks: Vec<usize> = (0..pr.pairs.len()).collect();
        let chunks: Vec<&[usize]> = ks.chunks(chunk).collect();
        let parts: Vec<Part> = crate::par::map(&chunks, |ks| {
            let mut part = Part::default();
            let (mut ca, mut cb) = (Changes::within(cap), Changes::within(cap));
            for &k in ks.iter() {
                compare_pair(
                    k,
                    &pr.pairs[k],
                    &a,
                    &b,
                    handles[k],
                    &mut ca,
                    &mut cb,
                    &mut part,
                    (&used.0, &used.1),
                )?;
            }
            Ok(part)
        })
        .into_iter()
        .collect::<Result<_>>()?;
        // Every other signal is decoded too, its changes thrown away: a
        // file whose data is broken where no compared signal reads is
        // refused, as the streaming reader refuses it.
        for (f, paired) in [(&a, 0usize), (&b, 1usize)] {
            let mut skip = vec![false; f.geo.len()];
            for h in &handles {
                let h = if paired == 0 { h.0 } else { h.1 };
                if let Some(s) = skip.get_mut(h) {
                    *s = true;
                }
            }
            let rest: Vec<usize> = (0..f.geo.len()).filter(|&h| !skip[h]).collect();
            let chunks: Vec<&[usize]> = rest.chunks(chunk).collect();
            crate::par::map(&chunks, |hs| {
                let mut c = Changes::within(cap);
                for &h in hs.iter() {
                    f.changes(h, &mut c)?;
                }
                Ok(())
            })
            .into_iter()
            .collect::<Result<()>>()?;
        }
        let mut report = pr.report;
        let (mut frame_a, mut frame_b) = (false, false);
        let mut first: Option<(u128, usize, String, String)> = None;
        for part in parts {
            report.comparisons += part.comparisons;
            for (k, n) in part.mismatches {
                report.mismatches += n;
                report.per_signal.insert(pr.pairs[k].name.clone(), n);
            }
            if let Some(f) = part.first
                && first.as_ref().is_none_or(|g| (f.0, f.1) < (g.0, g.1))
            {
                first = Some(f);
            }
            frame_a |= part.frame_a;
            frame_b |= part.frame_b;
        }
        if let Some((t, k, e, act)) = first {
            report.first = Some(Mismatch {
                signal: pr.pairs[k].name.clone(),
                cycle: None,
                time_ns: t as f64 / 1e6,
                expected: e,
                actual: act,
            });
        }
        // Distinct times (fs) at which a compared signal changed in
        // either: each file's in order (a frame's first), merged.
        let (mut xs, mut ys) = (
            a.used_times(&used.0, frame_a).peekable(),
            b.used_times(&used.1, frame_b).peekable(),
        );
        let (mut times, mut last) = (0u64, None);
        while let Some(t) = match (xs.peek(), ys.peek()) {
            (Some(&x), Some(&y)) if x <= y => xs.next(),
            (_, Some(_)) => ys.next(),
            _ => xs.next(),
        } {
            if last != Some(t) {
                times += 1;
                last = Some(t);
            }
        }
        report.times = Some(times);
        Ok(report)
    })
}

/// The file's bytes, unwrapped, if the fast path can take it.
pub(crate) fn load(path: &std::path::Path, room: u64) -> Option<(Vec<u8>, WaveHeader)> {
    // A regular file only: reading a pipe here would take what the
    // streaming reader is to read.
    let len = std::fs::metadata(path).ok().filter(|m| m.is_file())?.len();
    if len > MAX_BYTES.min(room) {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    if super::read::detect_format(&bytes[..bytes.len().min(16)]) != Format::Fst {
        return None;
    }
    let inner = super::fst::check(&mut std::io::Cursor::new(&bytes[..]), len).ok()?;
    let bytes = inner.unwrap_or(bytes);
    let h = super::fst::header_from_bytes(&bytes).ok()?;
    Some((bytes, h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wave::fst_enc::tests::encoder;

    /// `n` times of a clock and a 64-bit count, the count one too many at
    /// `wrong_at`.
    fn counting(n: u64, wrong_at: Option<u64>) -> Vec<u8> {
        let (mut e, ids) = encoder(&[("clk", 1), ("count", 64)], 0);
        for t in 0..n {
            e.time(t);
            e.change_narrow(ids[0], t & 1);
            e.change_narrow(ids[1], t + u64::from(wrong_at == Some(t)));
        }
        e.finish().unwrap().into_inner()
    }

    /// Whatever room it is given, the fast path gives the streaming diff's
    /// report or declines, naming the bytes it would have held past the
    /// room: its times when they do not fit, a signal's changes when they
    /// do not; and it declines before reading files that alone pass it.
    #[test]
    fn the_fast_path_answers_within_its_room_or_leaves_the_diff_to_the_stream() {
        let (a, b) = (counting(20_000, None), counting(20_000, Some(12_345)));
        let (ha, hb) = (
            super::super::fst::header_from_bytes(&a).unwrap(),
            super::super::fst::header_from_bytes(&b).unwrap(),
        );
        let o = DiffOptions::default();
        let want = diff(
            WaveReader::from_bytes(a.clone()).unwrap(),
            WaveReader::from_bytes(b.clone()).unwrap(),
            &o,
        )
        .unwrap();
        assert_eq!((want.mismatches, want.times), (1, Some(20_000)));
        let (mut times, mut changes, mut answered) = (false, false, None);
        for room in [
            0,
            100_000,
            1_000_000,
            4_000_000,
            40_000_000,
            400_000_000,
            u64::MAX,
        ] {
            match diff_fst(a.clone(), b.clone(), &ha, &hb, &o, room) {
                Ok(r) => {
                    assert_eq!(r, want, "room {room}");
                    answered.get_or_insert(room);
                }
                Err(e) => {
                    let e = e.to_string();
                    assert!(
                        answered.is_none(),
                        "room {room} declined after a smaller answered: {e}"
                    );
                    times |= e.contains(" bytes of times, more than the ");
                    changes |= e.contains("a signal's changes past the ");
                    assert!(e.ends_with(" it may hold"), "room {room}: {e}");
                }
            }
        }
        assert!(
            times && changes && answered.is_some(),
            "{times} {changes} {answered:?}"
        );
        // Files past the room are not read.
        let dir = std::env::temp_dir().join(format!("wormcast-fst-room-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (pa, pb) = (dir.join("a.fst"), dir.join("b.fst"));
        std::fs::write(&pa, &a).unwrap();
        std::fs::write(&pb, &b).unwrap();
        let files = (a.len() + b.len()) as u64;
        assert_eq!(fast(&pa, &pb, &o, files - 1), None);
        assert_eq!(fast(&pa, &pb, &o, u64::MAX), Some(want));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
