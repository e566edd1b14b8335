//! FST files (GTKWave's Fast Signal Trace), read through the `fst-reader`
//! crate (the reader inside the `wellen` crate and the Surfer viewer).
//!
//! Before `fst-reader` sees a file, [`check`] walks its block structure and
//! bounds every size the file declares and the reader would allocate from:
//! block lengths within the file, the signal count, every signal's width
//! (at most [`super::MAX_WIDTH`]), decompressed lengths within what the
//! compressed bytes can expand to (zlib 1032:1, LZ4 255:1), time-table and
//! blackout counts within their bytes, and each value-change block's
//! signal table. A malformed file is refused there with the byte offset of
//! the block at fault; anything `fst-reader` still panics on becomes an
//! error through [`super::stream`]'s guard. A file wrapped whole in gzip
//! (GTKWave's `-z`... `fstWriterSetPackType` wrapper) is inflated here,
//! within the same limits, and checked again.
//!
//! A well-formed file can still be too large to read: every decompressed
//! area (a frame, a block's signal data) is held whole, so each must be at
//! most [`MAX_INFLATED`] and at most a quarter of the memory available
//! (see [`View::holds`]), and the signals the geometry
//! declares must fit as a header does ([`super::header`]). Such a file is
//! refused with the area's size and the memory it would need, before
//! anything is allocated for it.
//!
//! The FST block layout is GTKWave's (`fstapi.c`); the offsets below follow
//! it as `fst-reader` reads it.

use super::header::{
    CodeInfo, Event, Format, HEADER_CHECK_EVERY, MAX_WIDTH, VarKind, WaveHeader, WaveVar,
    check_width, header_room, join_scopes, signals_room, split_name,
};
use super::stream::{Sink, WaveReader, guarded};
use crate::{Error, Result};
use fst_reader::{FstFilter, FstHierarchyEntry, FstReader, FstSignalValue, FstVarType};
use rustc_hash::FxHashMap;
use std::io::{BufRead, BufReader, Cursor, Read, Seek, SeekFrom};
use std::path::Path;

/// The largest decompressed area (a frame, a hierarchy, a geometry, a
/// block's signal data, a whole gzip-wrapped file) wormcast accepts: 4 GiB,
/// room for the largest frame an FST holds (2^32 - 1 characters, one per
/// bit of every signal; GTKWave's limit, which wormcast's writer keeps).
/// The 4,096-switch network's trace has a frame of 4.0 G characters.
pub const MAX_INFLATED: u64 = 1 << 32;

const ZLIB_RATIO: u64 = 1032;
const LZ4_RATIO: u64 = 255;

// Block types (fstapi.c).
const BL_HDR: u8 = 0;
const BL_VCDATA: u8 = 1;
const BL_BLACKOUT: u8 = 2;
const BL_GEOM: u8 = 3;
const BL_HIER: u8 = 4;
const BL_VCDATA_DYN_ALIAS: u8 = 5;
const BL_HIER_LZ4: u8 = 6;
const BL_HIER_LZ4DUO: u8 = 7;
const BL_VCDATA_DYN_ALIAS2: u8 = 8;
const BL_ZWRAPPER: u8 = 254;
const BL_SKIP: u8 = 255;

const HEADER_LEN: u64 = 329;

fn bad(offset: u64, what: impl std::fmt::Display) -> Error {
    Error::Wave(format!("malformed FST: byte {offset}: {what}"))
}

/// A well-formed area too large to hold.
fn too_large(offset: u64, what: impl std::fmt::Display) -> Error {
    Error::Wave(format!("FST too large to read: byte {offset}: {what}"))
}

/// A bounds-checked view of the file for the checks.
struct View<'a, R> {
    r: &'a mut R,
    len: u64,
    /// Bytes of memory available, where the system says.
    available: Option<u64>,
}

impl<R> View<'_, R> {
    /// A decompressed area of `declared` bytes from `compressed`: within
    /// what they can expand to at `ratio`, and one that can be held.
    fn inflated(
        &self,
        at: u64,
        what: &str,
        declared: u64,
        compressed: u64,
        ratio: u64,
    ) -> Result<()> {
        check_inflated(at, what, declared, compressed, ratio)?;
        self.holds(at, what, declared)
    }

    /// An area of `bytes` held whole: at most [`MAX_INFLATED`] and a
    /// quarter of the memory available. A reader holds a frame and, in a
    /// comparison, every signal's value beside it, and a comparison reads
    /// two files at once: `wave diff --clock` of the 4,096-switch trace
    /// (a frame of 4.0 GB) against itself peaked at 12.6 GB, 1.6 times
    /// the two frames.
    fn holds(&self, at: u64, what: &str, bytes: u64) -> Result<()> {
        if bytes > MAX_INFLATED {
            return Err(too_large(
                at,
                format!(
                    "the {what} inflates to {bytes} bytes; wormcast reads at most {MAX_INFLATED} in one piece"
                ),
            ));
        }
        if let Some(a) = self.available
            && bytes.saturating_mul(4) > a
        {
            return Err(too_large(
                at,
                format!(
                    "the {what} inflates to {} MB, more than a quarter of the {} MB of memory available (reckoned at twice the area a file, and two files at once for a comparison)",
                    bytes / 1_000_000,
                    a / 1_000_000
                ),
            ));
        }
        Ok(())
    }
}

impl<R: Read + Seek> View<'_, R> {
    fn at(&mut self, pos: u64) -> Result<()> {
        if pos > self.len {
            return Err(bad(pos, "a position past the end of the file"));
        }
        self.r
            .seek(SeekFrom::Start(pos))
            .map_err(|e| bad(pos, format!("cannot seek: {e}")))?;
        Ok(())
    }

    fn bytes(&mut self, pos: u64, n: u64) -> Result<Vec<u8>> {
        if pos.checked_add(n).is_none_or(|e| e > self.len) {
            return Err(bad(
                pos,
                format!("{n} bytes declared here run past the end of the file"),
            ));
        }
        self.at(pos)?;
        let mut v = vec![0; n as usize];
        self.r
            .read_exact(&mut v)
            .map_err(|e| bad(pos, format!("cannot read: {e}")))?;
        Ok(v)
    }

    fn u64(&mut self, pos: u64) -> Result<u64> {
        let b = self.bytes(pos, 8)?;
        Ok(u64::from_be_bytes(b.try_into().expect("8 bytes")))
    }

    fn u8(&mut self, pos: u64) -> Result<u8> {
        Ok(self.bytes(pos, 1)?[0])
    }

    /// An unsigned LEB128 number at `pos` and its length in bytes.
    fn varint(&mut self, pos: u64) -> Result<(u64, u64)> {
        let n = 10.min(self.len.saturating_sub(pos));
        let b = self.bytes(pos, n)?;
        varint(&b).ok_or_else(|| bad(pos, "a malformed variable-length number"))
    }
}

/// An unsigned LEB128 number at the start of `b` and its length.
pub(super) fn varint(b: &[u8]) -> Option<(u64, u64)> {
    let mut v = 0u64;
    for (i, &c) in b.iter().take(10).enumerate() {
        v |= u64::from(c & 0x7f).checked_shl(7 * i as u32)?;
        if c & 0x80 == 0 {
            return Some((v, i as u64 + 1));
        }
    }
    None
}

/// A signed LEB128 number at the start of `b` and its length.
fn varint_signed(b: &[u8]) -> Option<(i64, u64)> {
    let mut v = 0u64;
    for (i, &c) in b.iter().take(10).enumerate() {
        let shift = 7 * i as u32;
        v |= u64::from(c & 0x7f).checked_shl(shift).unwrap_or(0);
        if c & 0x80 == 0 {
            if c & 0x40 != 0 && shift + 7 < 64 {
                v |= u64::MAX << (shift + 7);
            }
            return Some((v as i64, i as u64 + 1));
        }
    }
    None
}

/// A decompressed length that `compressed` bytes can produce at `ratio`.
fn check_inflated(at: u64, what: &str, declared: u64, compressed: u64, ratio: u64) -> Result<()> {
    let most = compressed.saturating_mul(ratio).saturating_add(64);
    if declared > most {
        return Err(bad(
            at,
            format!(
                "the {what} declares {declared} bytes uncompressed from {compressed} compressed \
                 (at most {most})"
            ),
        ));
    }
    Ok(())
}

/// Value-change blocks, checked once the geometry (which usually follows
/// them) is known.
struct VcBlock {
    kind: u8,
    /// Offset of the section length (just past the type byte).
    start: u64,
    len: u64,
}

/// Walks the blocks of an (unwrapped) FST file and bounds what they
/// declare (see the module docs).
fn check_blocks<R: Read + Seek>(v: &mut View<'_, R>) -> Result<()> {
    let mut pos = 0u64;
    let mut header = false;
    let mut widths: Option<Vec<u32>> = None;
    let mut hierarchy = false;
    let mut vc = Vec::new();
    // The file's first and last times, from its header block.
    let mut span = (0u64, 0u64);
    while pos < v.len {
        let kind = v.u8(pos)?;
        let start = pos + 1;
        if start + 8 > v.len {
            return Err(bad(pos, "a block cut short before its length"));
        }
        let len = v.u64(start)?;
        if kind == BL_SKIP && len == 0 {
            break;
        }
        if len < 8 || start.checked_add(len).is_none_or(|e| e > v.len) {
            return Err(bad(
                pos,
                format!(
                    "block of type {kind} declares {len} bytes; the file has {} left",
                    v.len - start
                ),
            ));
        }
        match kind {
            BL_HDR => {
                if len != HEADER_LEN {
                    return Err(bad(
                        pos,
                        format!("the header block is {len} bytes, not {HEADER_LEN}"),
                    ));
                }
                if header {
                    return Err(bad(pos, "a second header block"));
                }
                header = true;
                span = (v.u64(start + 8)?, v.u64(start + 16)?);
            }
            BL_GEOM => {
                if widths.is_some() {
                    return Err(bad(pos, "a second geometry block"));
                }
                widths = Some(check_geometry(v, start, len)?);
            }
            BL_HIER | BL_HIER_LZ4 | BL_HIER_LZ4DUO => {
                if hierarchy {
                    return Err(bad(pos, "a second hierarchy block"));
                }
                hierarchy = true;
                check_hierarchy(v, kind, start, len)?;
            }
            BL_BLACKOUT => {
                let (count, _) = v.varint(start + 8)?;
                if count > len {
                    return Err(bad(pos, format!("{count} blackouts in {len} bytes")));
                }
            }
            BL_VCDATA | BL_VCDATA_DYN_ALIAS | BL_VCDATA_DYN_ALIAS2 => {
                vc.push(VcBlock { kind, start, len });
            }
            BL_SKIP => {}
            BL_ZWRAPPER => return Err(bad(pos, "a gzip wrapper block inside the file")),
            _ => return Err(bad(pos, format!("unknown block type {kind}"))),
        }
        pos = start + len;
    }
    if !header {
        return Err(Error::Wave("malformed FST: no header block".into()));
    }
    let Some(widths) = widths else {
        return Err(Error::Wave(
            "malformed FST: no geometry block (an FST file whose writer did not finish?)".into(),
        ));
    };
    if !hierarchy {
        return Err(Error::Wave(
            "malformed FST: no hierarchy block (an FST file whose writer did not finish?)".into(),
        ));
    }
    // Every block's time span lies within the file's (the header's start
    // and end times, just past the block's type and length): readers that
    // trust a block's start time place its changes by it, and two readers
    // of one library were seen to disagree on a block that starts past its
    // end.
    let (t0, t1) = span;
    for b in &vc {
        let (s, e) = (v.u64(b.start + 8)?, v.u64(b.start + 16)?);
        if s > e || s < t0 || e > t1 {
            return Err(bad(
                b.start - 1,
                format!("a value-change block spans times {s} to {e}; the file spans {t0} to {t1}"),
            ));
        }
        check_vc_block(v, b, &widths)?;
    }
    Ok(())
}

/// The geometry: every signal's width (0 for variable-length strings).
fn check_geometry<R: Read + Seek>(v: &mut View<'_, R>, start: u64, len: u64) -> Result<Vec<u32>> {
    if len < 24 {
        return Err(bad(start - 1, "a geometry block too short for its lengths"));
    }
    let raw = v.u64(start + 8)?;
    let count = v.u64(start + 16)?;
    let comp = len - 24;
    if raw != comp {
        v.inflated(start - 1, "geometry", raw, comp, ZLIB_RATIO)?;
    }
    if count > raw {
        return Err(bad(
            start - 1,
            format!("{count} signals in {raw} bytes of geometry"),
        ));
    }
    if let Some(a) = v.available {
        signals_room(count, a).map_err(|m| too_large(start - 1, m))?;
    }
    let data = v.bytes(start + 24, comp)?;
    let bytes = if raw == comp {
        data
    } else {
        miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&data, raw as usize)
            .map_err(|_| bad(start - 1, "the geometry does not inflate"))?
    };
    let mut rest = bytes.as_slice();
    let mut widths = Vec::with_capacity(count as usize);
    for i in 0..count {
        let (w, n) = varint(rest).ok_or_else(|| bad(start - 1, "the geometry ends early"))?;
        rest = &rest[n as usize..];
        let w = match w {
            0 => 64,          // a real
            0xffff_ffff => 0, // a variable-length string
            w if w > u64::from(MAX_WIDTH) => {
                return Err(bad(
                    start - 1,
                    format!(
                        "signal {} is {w} bits wide; wormcast reads at most {MAX_WIDTH}",
                        i + 1
                    ),
                ));
            }
            w => w as u32,
        };
        widths.push(w);
    }
    Ok(widths)
}

fn check_hierarchy<R: Read + Seek>(
    v: &mut View<'_, R>,
    kind: u8,
    start: u64,
    len: u64,
) -> Result<()> {
    let at = start - 1;
    let min = if kind == BL_HIER { 26 } else { 17 };
    if len < min {
        return Err(bad(at, "a hierarchy block too short for its lengths"));
    }
    let raw = v.u64(start + 8)?;
    let comp = len - 16;
    match kind {
        BL_HIER => v.inflated(at, "hierarchy", raw, comp, ZLIB_RATIO),
        BL_HIER_LZ4 => v.inflated(at, "hierarchy", raw, comp, LZ4_RATIO),
        _ => {
            let (mid, n) = v.varint(start + 16)?;
            if n >= comp {
                return Err(bad(at, "a hierarchy block too short for its lengths"));
            }
            v.inflated(at, "hierarchy", mid, comp - n, LZ4_RATIO)?;
            v.inflated(at, "hierarchy", raw, mid, LZ4_RATIO)
        }
    }
}

fn check_vc_block<R: Read + Seek>(v: &mut View<'_, R>, b: &VcBlock, widths: &[u32]) -> Result<()> {
    let at = b.start - 1;
    let end = b.start + b.len;
    if b.len < 32 + 3 + 24 {
        return Err(bad(at, "a value-change block too short for its lengths"));
    }
    // The time table, at the end.
    let t_raw = v.u64(end - 24)?;
    let t_comp = v.u64(end - 16)?;
    let t_items = v.u64(end - 8)?;
    if t_comp > b.len - 32 - 24 {
        return Err(bad(
            at,
            format!("a time table of {t_comp} bytes in a block of {}", b.len),
        ));
    }
    if t_raw != t_comp {
        v.inflated(at, "time table", t_raw, t_comp, ZLIB_RATIO)?;
    }
    if t_items > t_raw {
        return Err(bad(at, format!("{t_items} times in {t_raw} bytes")));
    }
    // The frame (initial values), after start, end and memory required.
    let mut pos = b.start + 32;
    let (f_raw, n1) = v.varint(pos)?;
    let (f_comp, n2) = v.varint(pos + n1)?;
    let (f_handles, n3) = v.varint(pos + n1 + n2)?;
    pos += n1 + n2 + n3;
    if f_comp > end.saturating_sub(pos) {
        return Err(bad(
            at,
            format!("a frame of {f_comp} bytes past the block's end"),
        ));
    }
    if f_raw != f_comp {
        v.inflated(at, "frame", f_raw, f_comp, ZLIB_RATIO)?;
    } else {
        // A frame stored as it is is read whole all the same.
        v.holds(at, "frame", f_raw)?;
    }
    if f_handles != widths.len() as u64 {
        return Err(bad(
            at,
            format!(
                "a frame of {f_handles} signals; the geometry has {}",
                widths.len()
            ),
        ));
    }
    pos += f_comp;
    // The value changes: their signal count, then the pack type.
    let (handles, n) = v.varint(pos)?;
    if handles > widths.len() as u64 {
        return Err(bad(
            at,
            format!(
                "value changes of {handles} signals; the geometry has {}",
                widths.len()
            ),
        ));
    }
    let vc_start = pos + n;
    let pack = v.u8(vc_start)?;
    // The signal table (chain) sits before its length, before the times.
    let time_section = t_comp + 24;
    let chain_len_at = end
        .checked_sub(time_section + 8)
        .filter(|&x| x > vc_start)
        .ok_or_else(|| bad(at, "the value changes overlap the time table"))?;
    let chain_len = v.u64(chain_len_at)?;
    let chain_start = chain_len_at
        .checked_sub(chain_len)
        .filter(|&x| x > vc_start)
        .ok_or_else(|| {
            bad(
                at,
                format!("a signal table of {chain_len} bytes before the data"),
            )
        })?;
    let chain = v.bytes(chain_start, chain_len)?;
    let last = chain_start - vc_start;
    let table = chain_table(&chain, handles, b.kind == BL_VCDATA_DYN_ALIAS2, last)
        .ok_or_else(|| bad(at, "a malformed signal table"))?;
    // Each signal's data: its uncompressed length first.
    let mut total = 0u64;
    for l in table {
        let Loc::Data { off: offset, len } = l else {
            continue;
        };
        let p = vc_start + offset;
        if p + len > chain_start {
            return Err(bad(at, "signal data past the signal table"));
        }
        let (raw, skip) = v.varint(p)?;
        if skip > len {
            return Err(bad(at, "signal data shorter than its length"));
        }
        if raw != 0 {
            let ratio = match pack {
                b'4' | b'F' => LZ4_RATIO,
                _ => ZLIB_RATIO,
            };
            check_inflated(at, "signal data", raw, len - skip, ratio)?;
        }
        total = total.saturating_add(raw.max(len));
    }
    v.holds(at, "block's signal data", total)?;
    Ok(())
}

/// Where a signal's data lies in a value-change block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    /// No change in this block.
    None,
    /// `len` bytes at `off` past the block's value-change start.
    Data { off: u64, len: u64 },
    /// The same data as signal `i`.
    Alias(u64),
}

/// The signal table of a value-change block (type 8 when `dyn2`, else 1 or
/// 5): where each signal's data lies, for at most `handles` signals; the
/// last data runs to `last`. `None` if it is malformed.
pub(crate) fn chain_table(mut b: &[u8], handles: u64, dyn2: bool, last: u64) -> Option<Vec<Loc>> {
    let mut out: Vec<Loc> = Vec::new();
    let mut offset: Option<(u64, usize)> = None;
    let mut prev_alias = None;
    let push = |out: &mut Vec<Loc>, l: Loc| {
        if out.len() as u64 >= handles {
            return false;
        }
        out.push(l);
        true
    };
    // A new offset: the data before it ends there.
    let open = |out: &mut Vec<Loc>, offset: &mut Option<(u64, usize)>, new: u64| -> Option<()> {
        if let Some((o, i)) = *offset {
            out[i] = Loc::Data {
                off: o,
                len: new.checked_sub(o).filter(|&l| l > 0)?,
            };
        }
        *offset = Some((new, out.len()));
        Some(())
    };
    while !b.is_empty() {
        if dyn2 {
            if b[0] & 1 == 1 {
                let (v, n) = varint_signed(b)?;
                b = &b[n as usize..];
                let sh = v >> 1;
                if sh > 0 {
                    let new = offset.map_or(0, |(o, _)| o).checked_add(sh as u64)?;
                    open(&mut out, &mut offset, new)?;
                    push(&mut out, Loc::None).then_some(())?;
                } else {
                    if sh < 0 {
                        prev_alias = Some((-(sh + 1)) as u64);
                    }
                    push(&mut out, Loc::Alias(prev_alias?)).then_some(())?;
                }
            } else {
                let (v, n) = varint(b)?;
                b = &b[n as usize..];
                for _ in 0..v >> 1 {
                    push(&mut out, Loc::None).then_some(())?;
                }
            }
        } else {
            let (raw, n) = varint(b)?;
            b = &b[n as usize..];
            if raw == 0 {
                let (a, n) = varint(b)?;
                b = &b[n as usize..];
                push(&mut out, Loc::Alias(a.checked_sub(1)?)).then_some(())?;
            } else if raw & 1 == 1 {
                let new = offset.map_or(0, |(o, _)| o).checked_add(raw >> 1)?;
                open(&mut out, &mut offset, new)?;
                push(&mut out, Loc::None).then_some(())?;
            } else {
                for _ in 0..raw >> 1 {
                    push(&mut out, Loc::None).then_some(())?;
                }
            }
        }
    }
    open(&mut out, &mut offset, last)?;
    // Aliases name signals with data.
    for l in &out {
        if let Loc::Alias(a) = *l
            && !matches!(out.get(a as usize), Some(Loc::Data { .. }))
        {
            return None;
        }
    }
    Some(out)
}

/// Checks a whole FST file (see the module docs) and returns it unwrapped:
/// `None` if it is not gzip-wrapped, else the inflated file.
pub fn check<R: Read + Seek>(r: &mut R, len: u64) -> Result<Option<Vec<u8>>> {
    check_within(r, len, crate::memory::available())
}

/// [`check`], with `available` bytes of memory (`None`: not known).
fn check_within<R: Read + Seek>(
    r: &mut R,
    len: u64,
    available: Option<u64>,
) -> Result<Option<Vec<u8>>> {
    let mut v = View { r, len, available };
    if len >= 1 && v.u8(0)? == BL_ZWRAPPER {
        if len < 1 + 8 + 8 + 10 {
            return Err(bad(0, "a gzip wrapper too short for its lengths"));
        }
        let sec = v.u64(1)?;
        let raw = v.u64(9)?;
        if sec < 16 || 1 + sec > len {
            return Err(bad(
                0,
                format!("a gzip wrapper of {sec} bytes in a file of {len}"),
            ));
        }
        v.inflated(0, "gzip-wrapped file", raw, sec - 16, ZLIB_RATIO)?;
        let gz = v.bytes(17, sec - 16)?;
        if gz.len() < 10 || gz[0] != 0x1f || gz[1] != 0x8b || gz[2] != 8 || gz[3] != 0 {
            return Err(bad(17, "the wrapper is not plain gzip"));
        }
        let inner = miniz_oxide::inflate::decompress_to_vec_with_limit(&gz[10..], raw as usize)
            .map_err(|_| bad(17, "the wrapped file does not inflate"))?;
        if inner.len() as u64 != raw {
            return Err(bad(
                17,
                format!(
                    "the wrapped file inflates to {} bytes, not {raw}",
                    inner.len()
                ),
            ));
        }
        let n = inner.len() as u64;
        let mut c = Cursor::new(&inner[..]);
        check_blocks(&mut View {
            r: &mut c,
            len: n,
            // The unwrapped file is held while it is read.
            available: available.map(|a| a.saturating_sub(n)),
        })?;
        return Ok(Some(inner));
    }
    check_blocks(&mut v)?;
    Ok(None)
}

/// The FST file at `path`, checked and opened.
pub(crate) fn open(path: &Path) -> Result<WaveReader> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let len = f.metadata().map_err(io)?.len();
    match check(&mut f, len)? {
        Some(inner) => start(Cursor::new(inner)),
        None => {
            f.seek(SeekFrom::Start(0)).map_err(io)?;
            start(BufReader::with_capacity(1 << 16, f))
        }
    }
}

/// An FST file held in memory, checked and opened.
pub(crate) fn from_bytes(bytes: Vec<u8>) -> Result<WaveReader> {
    let len = bytes.len() as u64;
    match check(&mut Cursor::new(&bytes[..]), len)? {
        Some(inner) => start(Cursor::new(inner)),
        None => start(Cursor::new(bytes)),
    }
}

fn fst_err(e: impl std::fmt::Display) -> Error {
    Error::Wave(format!("malformed FST: {e}"))
}

/// The hierarchy as a header, and the signal handle of each code.
///
/// Aliases make more variables than the geometry's signals, so the
/// variables are held against `available` bytes of memory (none: no
/// bound) every [`HEADER_CHECK_EVERY`], as a VCD header's are.
fn header_of<R: BufRead + Seek>(
    r: &mut FstReader<R>,
    available: Option<u64>,
) -> Result<(WaveHeader, Vec<u32>)> {
    let info = r.get_header();
    let exp = i32::from(info.timescale_exponent);
    let timescale_fs = match exp + 15 {
        e @ 0..=18 => 10u64.pow(e as u32),
        _ => {
            return Err(Error::Wave(format!(
                "the FST timescale is 1e{exp} s; wormcast reads time units from 1 fs to 1 s"
            )));
        }
    };
    let unit = match exp {
        -15..=-13 => "fs",
        -12..=-10 => "ps",
        -9..=-7 => "ns",
        -6..=-4 => "us",
        -3..=-1 => "ms",
        _ => "s",
    };
    let mut h = WaveHeader {
        format: Format::Fst,
        timescale_fs: Some(timescale_fs),
        timescale: format!("{} {unit}", 10u64.pow(((exp + 15) % 3) as u32)),
        date: info.date.clone(),
        version: info.version.clone(),
        ..WaveHeader::default()
    };
    let mut scope: Vec<String> = Vec::new();
    let mut current: Option<std::sync::Arc<str>> = None;
    let mut code_of: FxHashMap<usize, u32> = FxHashMap::default();
    let mut handle_of: Vec<u32> = Vec::new();
    let mut failure: Option<Error> = None;
    r.read_hierarchy(|e| {
        if failure.is_some() {
            return;
        }
        match e {
            FstHierarchyEntry::Scope { name, .. } => {
                scope.push(name);
                if !scope.last().is_some_and(|s| s.is_empty()) {
                    h.scopes.push(join_scopes(&scope));
                }
            }
            FstHierarchyEntry::UpScope => {
                scope.pop();
            }
            FstHierarchyEntry::Var {
                tpe,
                name,
                length,
                handle,
                ..
            } => {
                let kind = match tpe {
                    t if t.is_real() => VarKind::Real,
                    FstVarType::GenericString => VarKind::Str,
                    FstVarType::Event => VarKind::Event,
                    _ => VarKind::Logic,
                };
                let width = match kind {
                    VarKind::Str => 0,
                    _ => match check_width(u64::from(length), &name) {
                        Ok(w) => w,
                        Err(e) => {
                            failure = Some(e);
                            return;
                        }
                    },
                };
                let words: Vec<&str> = name.split_whitespace().collect();
                let (name, range) = match split_name(&words, width) {
                    Ok(x) => x,
                    Err(e) => {
                        failure = Some(e);
                        return;
                    }
                };
                let idx = handle.get_index();
                let code = *code_of.entry(idx).or_insert_with(|| {
                    h.codes.push(CodeInfo {
                        text: (idx + 1).to_string(),
                        width,
                        kind,
                    });
                    handle_of.push(idx as u32);
                    h.codes.len() as u32 - 1
                });
                h.vars.push(WaveVar {
                    scope: {
                        let p = join_scopes(&scope);
                        if current.as_deref() != Some(p.as_str()) {
                            current = Some(std::sync::Arc::from(p));
                        }
                        current.clone().expect("set")
                    },
                    name,
                    width,
                    range,
                    var_type: VarKind::type_name(&format!("{tpe:?}").to_lowercase()),
                    kind,
                    code,
                    line: 0,
                });
                // Aliases make more variables than the geometry's signals:
                // the header is held against memory as a VCD's is.
                let n = h.vars.len();
                if n.is_multiple_of(HEADER_CHECK_EVERY)
                    && let Some(available) = available
                    && let Err(m) = header_room(n, available)
                {
                    failure = Some(Error::Wave(format!("FST too large to read: {m}")));
                }
            }
            _ => {}
        }
    })
    .map_err(fst_err)?;
    if let Some(e) = failure {
        return Err(e);
    }
    Ok((h, handle_of))
}

/// The header of a checked FST file held in memory, read without its
/// values.
pub(crate) fn header_from_bytes(bytes: &[u8]) -> Result<WaveHeader> {
    let input = Cursor::new(bytes.to_vec());
    guarded("this FST file", || {
        let mut reader = FstReader::open(input).map_err(fst_err)?;
        Ok(header_of(&mut reader, crate::memory::available())?.0)
    })
}

/// Reads the header of a checked file and starts its value changes on a
/// reader thread.
fn start<R: BufRead + Seek + Send + 'static>(input: R) -> Result<WaveReader> {
    let (mut reader, h, handles) = guarded("this FST file", || {
        let mut reader = FstReader::open(input).map_err(fst_err)?;
        let (h, handles) = header_of(&mut reader, crate::memory::available())?;
        Ok((reader, h, handles))
    })?;
    // The code of each handle (the check bounded the handles).
    let most = handles.iter().max().map_or(0, |&m| m as usize + 1);
    let mut by_handle = vec![u32::MAX; most];
    for (code, &idx) in handles.iter().enumerate() {
        by_handle[idx as usize] = code as u32;
    }
    let codes = h.codes.clone();
    Ok(WaveReader::spawn(
        h,
        Box::new(move |sink: &mut Sink| {
            let mut last: Option<u64> = None;
            let mut failure: Option<Error> = None;
            let mut closed = false;
            let r = reader.read_signals(&FstFilter::all(), |t, handle, value| {
                let code = match by_handle.get(handle.get_index()) {
                    Some(&c) if c != u32::MAX => c,
                    _ => return Ok(()),
                };
                if last != Some(t) {
                    last = Some(t);
                    if sink.push(Event::Time(t)).is_err() {
                        closed = true;
                        return Err(());
                    }
                }
                let info = &codes[code as usize];
                let e = match (info.kind, value) {
                    (VarKind::Real, FstSignalValue::Real(value)) => Event::Real { code, value },
                    (VarKind::Str, FstSignalValue::String(s)) => Event::Str { code, value: s },
                    (VarKind::Logic | VarKind::Event, FstSignalValue::String(s)) => {
                        if s.len() != info.width as usize {
                            failure = Some(fst_err(format!(
                                "a {}-bit value for the {}-bit signal {} at time {t}",
                                s.len(),
                                info.width,
                                info.text
                            )));
                            return Err(());
                        }
                        // Mapped to four values straight into the batch.
                        if sink.push_logic_mapped(code, s).is_err() {
                            closed = true;
                            return Err(());
                        }
                        return Ok(());
                    }
                    _ => {
                        failure = Some(fst_err(format!(
                            "a value of the wrong kind for the {} signal {} at time {t}",
                            info.kind.word(),
                            info.text
                        )));
                        return Err(());
                    }
                };
                if sink.push(e).is_err() {
                    closed = true;
                    return Err(());
                }
                Ok(())
            });
            if closed {
                return Ok(());
            }
            if let Some(e) = failure {
                return Err(e);
            }
            r.map_err(fst_err)
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_both_signs() {
        assert_eq!(varint(&[0x05]), Some((5, 1)));
        assert_eq!(varint(&[0x80, 0x01]), Some((128, 2)));
        assert_eq!(varint(&[0x80]), None);
        assert_eq!(varint_signed(&[0x13]), Some((19, 1)));
        assert_eq!(varint_signed(&[0x7b]), Some((-5, 1)));
    }

    #[test]
    fn garbage_is_refused_with_an_offset() {
        let e = check(&mut Cursor::new(vec![0u8; 20]), 20)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("malformed FST: byte 0: block of type 0 declares 0 bytes"),
            "{e}"
        );
        let mut f = vec![BL_ZWRAPPER];
        f.extend(40u64.to_be_bytes());
        f.extend(u64::MAX.to_be_bytes());
        f.extend([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
        f.extend([0; 14]);
        let n = f.len() as u64;
        let e = check(&mut Cursor::new(f), n).unwrap_err().to_string();
        assert!(
            e.contains("declares 18446744073709551615 bytes uncompressed"),
            "{e}"
        );
    }

    /// An FST of three signals of 2^20 bits, all unknown: a frame of
    /// 3,145,728 characters packed into a few kB.
    fn wide_fst() -> Vec<u8> {
        let vars = [("a", MAX_WIDTH), ("b", MAX_WIDTH), ("c", MAX_WIDTH)];
        let (mut e, _) = crate::wave::fst_enc::tests::encoder(&vars, 0);
        e.time(0);
        e.time(5);
        e.finish().unwrap().into_inner()
    }

    /// `check` (of a file with a frame of 3,145,728 characters, given the
    /// memory available) passes with four times the frame in memory and
    /// refuses the file, naming the frame, with a byte less.
    fn frame_of_3_mb_needs_12_mb(check: &dyn Fn(Option<u64>) -> Result<Option<Vec<u8>>>) {
        assert!(check(None).is_ok());
        assert!(check(Some(12_582_912)).is_ok(), "four times the frame fits");
        let e = check(Some(12_582_911)).unwrap_err().to_string();
        assert!(e.starts_with("FST too large to read: byte "), "{e}");
        assert!(
            e.ends_with(": the frame inflates to 3 MB, more than a quarter of the 12 MB of memory available (reckoned at twice the area a file, and two files at once for a comparison)"),
            "{e}"
        );
    }

    #[test]
    fn a_well_formed_file_too_large_for_memory_is_refused_by_its_size() {
        let f = wide_fst();
        let n = f.len() as u64;
        let check = |available| check_within(&mut Cursor::new(&f[..]), n, available);
        assert!(n < 100_000, "{n} bytes");
        frame_of_3_mb_needs_12_mb(&check);
        // The geometry's three signals are held against memory before
        // any frame is inflated.
        let e = check(Some(767)).unwrap_err().to_string();
        assert!(
            e.ends_with(": the file declares 3 signals; reading them takes about 768 bytes (256 bytes a signal), more than the 767 bytes of memory available"),
            "{e}"
        );
        // And so the file reads whole, to every signal's unknown value.
        let r = super::super::stream::WaveReader::from_bytes(f.clone()).unwrap();
        assert_eq!(r.header().vars.len(), 3);
    }

    /// `f` with its value-change block's frame stored as it is, unpacked,
    /// as GTKWave's writer stores a frame that zlib does not shrink, and
    /// changed by `edit`; the block's length grows by what the frame did.
    fn with_stored_frame(f: &[u8], edit: impl FnOnce(&mut [u8])) -> Vec<u8> {
        let mut pos = 0;
        while ![BL_VCDATA, BL_VCDATA_DYN_ALIAS, BL_VCDATA_DYN_ALIAS2].contains(&f[pos]) {
            let len = u64::from_be_bytes(f[pos + 1..pos + 9].try_into().unwrap());
            pos += 1 + len as usize;
        }
        let start = pos + 1;
        let len = u64::from_be_bytes(f[start..start + 8].try_into().unwrap());
        let mut at = start + 32;
        let (raw, n1) = varint(&f[at..]).unwrap();
        let (comp, n2) = varint(&f[at + n1 as usize..]).unwrap();
        let (handles, n3) = varint(&f[at + (n1 + n2) as usize..]).unwrap();
        at += (n1 + n2 + n3) as usize;
        let packed = &f[at..at + comp as usize];
        let mut frame = miniz_oxide::inflate::decompress_to_vec_zlib(packed).unwrap();
        assert_eq!(frame.len() as u64, raw);
        edit(&mut frame);
        let mut head = Vec::new();
        for v in [raw, raw, handles] {
            crate::wave::fst_enc::varint(&mut head, v);
        }
        let mut out = f[..start + 32].to_vec();
        let grown = (head.len() + frame.len()) as u64 - (n1 + n2 + n3 + comp);
        out[start..start + 8].copy_from_slice(&(len + grown).to_be_bytes());
        out.extend(head);
        out.extend(frame);
        out.extend(&f[at + comp as usize..]);
        out
    }

    /// A frame stored unpacked is held against memory as a packed one is,
    /// and read for the signals' first values.
    #[test]
    fn a_stored_frame_too_large_for_memory_is_refused_by_its_size() {
        let w = MAX_WIDTH as usize;
        // The first signal all ones, the second all zeros, the third
        // unknown but for its last bit.
        // The first time after the block's start, so that a reader takes
        // the signals' first values from the frame.
        let vars = [("a", MAX_WIDTH), ("b", MAX_WIDTH), ("c", MAX_WIDTH)];
        let (mut e, _) = crate::wave::fst_enc::tests::encoder(&vars, 0);
        e.time(5);
        e.time(9);
        let packed = e.finish().unwrap().into_inner();
        let f = with_stored_frame(&packed, |frame| {
            frame[..w].fill(b'1');
            frame[w..2 * w].fill(b'0');
            frame[3 * w - 1] = b'z';
        });
        let n = f.len() as u64;
        assert!(n > 3_145_728, "{n} bytes: the frame is stored whole");
        let check = |available| check_within(&mut Cursor::new(&f[..]), n, available);
        frame_of_3_mb_needs_12_mb(&check);
        let mut r = super::super::stream::WaveReader::from_bytes(f).unwrap();
        let mut first = Vec::new();
        while let Some(ev) = r.next_event().unwrap() {
            if let Event::Logic { code, bits } = ev {
                let ones = bits.iter().filter(|&&b| b == b'1').count();
                first.push((code, bits.len(), ones, bits[0], bits[bits.len() - 1]));
            }
        }
        assert_eq!(
            first,
            [
                (0, w, w, b'1', b'1'),
                (1, w, 0, b'0', b'0'),
                (2, w, 0, b'x', b'z')
            ]
        );
    }

    /// A hierarchy of more variables than signals (aliases) is held
    /// against memory every 2^20 variables, as a VCD header is: one signal
    /// named 2^20 + 1 times reads with room for 2^20 more variables and is
    /// refused, by its size, with a byte less.
    #[test]
    fn aliases_past_memory_are_refused_by_their_count() {
        let mut h = crate::wave::fst_enc::HierarchyRecords::default();
        h.scope("top");
        let a = h.var("a", 1);
        for i in 0..HEADER_CHECK_EVERY {
            h.alias(&format!("b{i}"), a);
        }
        h.up();
        let info = crate::wave::fst_enc::Info {
            timescale: -9,
            version: "t",
            date: "d",
            start: 0,
        };
        let mut e = crate::wave::fst_enc::Encoder::new(Cursor::new(Vec::new()), &info, h).unwrap();
        e.time(0);
        e.change_narrow(a, 1);
        let f = e.finish().unwrap().into_inner();
        let header = |available| {
            let mut r = FstReader::open(Cursor::new(&f[..])).unwrap();
            header_of(&mut r, available)
        };
        let room = HEADER_CHECK_EVERY as u64 * crate::wave::header::HEADER_VAR_BYTES;
        for available in [None, Some(room)] {
            let (h, handles) = header(available).unwrap();
            assert_eq!(h.vars.len(), HEADER_CHECK_EVERY + 1);
            assert_eq!((h.codes.len(), handles), (1, vec![0]));
            assert!(h.vars.iter().all(|v| v.code == 0));
        }
        let e = header(Some(room - 1)).unwrap_err().to_string();
        assert_eq!(
            e,
            "FST too large to read: the header declares more than 1048576 variables; as many \
             again take about 268 MB (256 bytes a variable), more than the 268 MB of memory \
             available"
        );
    }

    #[test]
    fn an_area_past_four_gib_is_refused_whatever_the_memory() {
        let mut c = Cursor::new(Vec::<u8>::new());
        let v = View {
            r: &mut c,
            len: 0,
            available: None,
        };
        assert!(v.holds(9, "frame", u64::from(u32::MAX)).is_ok());
        assert_eq!(
            v.holds(9, "frame", MAX_INFLATED + 1)
                .unwrap_err()
                .to_string(),
            "FST too large to read: byte 9: the frame inflates to 4294967297 bytes; wormcast reads at most 4294967296 in one piece"
        );
    }
}
