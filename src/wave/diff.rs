//! Waveform against waveform (`wormcast wave diff`).
//!
//! Signals are paired by their paths relative to the compared scopes
//! (`--scope`; the whole file without it), after the second waveform's
//! names are mapped (`--map`: a map entry names a signal by its relative
//! path or by the end of it, so `dest_bits = "dests"` works with or
//! without a scope). Every signal is accounted for: a signal present in
//! one waveform only, or with different types in the two, is a
//! difference, unless it is left out by name (`--ignore`). Escaped
//! identifiers compare by their unescaped names, reals by value whatever
//! their declared width, strings as strings, logic values after the
//! nine-to-four mapping of [`super::header`].
//!
//! Two ways to step:
//!
//! - **On times** (the default): at every time either file changes, on a
//!   common time axis in femtoseconds whatever the two timescales, the
//!   signals that changed are compared. Values written before the first
//!   time are the time-0 values. A difference is a (change time, signal)
//!   pair.
//! - **On clock edges** (`--clock`): each file is cut into cycles at the
//!   rising edges of its own clock (cycle `k` starts at the `k`-th rising
//!   edge), and each signal's value at the end of cycle `k` (just before
//!   edge `k + 1`, or at the end of the file) is compared with the other
//!   file's. This aligns files whose clocks differ in phase or timescale
//!   (a model's dump against a testbench's). A difference is a (cycle,
//!   signal) pair; two files with different numbers of cycles differ.
//!
//! Both files are read at once, each on its own thread; the work is linear
//! in the signals and the changes.

use super::cosim::{check_clock, find_by_path};
use super::header::{Event, VarKind, WaveHeader, WaveVar};
use super::map::SignalMap;
use super::report::{CompareReport, Mismatch, TypeClash};
use super::stream::WaveReader;
use crate::{Error, Result};
use rustc_hash::FxHashMap;

/// What [`diff`] compares.
#[derive(Clone, Debug, Default)]
pub struct DiffOptions {
    /// Compare the signals under this scope of the first file (paths
    /// relative to it); all signals if `None` or empty.
    pub scope_a: Option<String>,
    /// The same for the second file; `scope_a` if `None`; the whole file
    /// if empty.
    pub scope_b: Option<String>,
    /// Names in the second file that differ from the first's.
    pub map: SignalMap,
    /// Only these signals (relative paths in the first file); every signal
    /// if empty.
    pub signals: Vec<String>,
    /// Signals to leave out (relative paths; `*` matches any text).
    pub ignore: Vec<String>,
    /// Compare on the rising edges of this clock (a path, relative to the
    /// scope or whole, or a unique end of one) instead of on times.
    pub clock: Option<String>,
}

/// The type of a compared signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Logic(u32),
    Real,
    Str,
}

impl Ty {
    fn of(v: &WaveVar) -> Ty {
        match v.kind {
            VarKind::Logic | VarKind::Event => Ty::Logic(v.width),
            VarKind::Real => Ty::Real,
            VarKind::Str => Ty::Str,
        }
    }

    fn word(self) -> String {
        match self {
            Ty::Logic(w) => format!("{w}-bit logic"),
            Ty::Real => "real".into(),
            Ty::Str => "string".into(),
        }
    }
}

/// `*` matches any text.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// The variables under `scope` (all if `None`) by their relative paths; a
/// path declared again gets `#2`, `#3`, ...
fn under(h: &WaveHeader, scope: Option<&str>) -> Result<Vec<(String, usize)>> {
    // An empty scope is the whole file (for a file whose signals sit at
    // the top, compared with another's scope).
    let scope = scope
        .filter(|s| !s.is_empty())
        .map(|s| h.resolve_scope(s))
        .transpose()?;
    let prefix = scope.as_ref().map(|s| format!("{s}."));
    let mut seen: FxHashMap<String, u32> = FxHashMap::default();
    let mut out = Vec::new();
    for (i, v) in h.vars.iter().enumerate() {
        let p = v.path();
        let rel = match &prefix {
            None => p,
            Some(pre) => match p.strip_prefix(pre.as_str()) {
                Some(r) => r.to_string(),
                None => continue,
            },
        };
        let n = seen.entry(rel.clone()).or_insert(0);
        *n += 1;
        let key = if *n == 1 { rel } else { format!("{rel}#{n}") };
        out.push((key, i));
    }
    Ok(out)
}

/// Applies the map to the second waveform's relative names: the new name
/// and whether the bits run the other way. A map entry matching nothing is
/// an error.
fn map_names(vb: &mut [(String, usize, bool)], map: &SignalMap) -> Result<()> {
    for m in map.entries() {
        let suffix = format!(".{}", m.foreign);
        let mut hit = false;
        for (name, _, rev) in vb.iter_mut() {
            let new = if *name == m.foreign {
                m.model.clone()
            } else if let Some(stem) = name.strip_suffix(&suffix) {
                format!("{stem}.{}", m.model)
            } else {
                continue;
            };
            *name = new;
            *rev = m.reverse;
            hit = true;
        }
        if !hit {
            return Err(Error::Wave(format!(
                "the map names `{}`, which is no signal of the second waveform \
                 (map entries are paths relative to --scope, or ends of paths)",
                m.foreign
            )));
        }
    }
    Ok(())
}

/// A compared signal.
pub(crate) struct Pair {
    pub(crate) name: String,
    pub(crate) ty: Ty,
    /// Read the second waveform's value right to left.
    pub(crate) flip: bool,
}

/// How the signals pair up, and what is left over.
pub(crate) struct Pairing {
    pub(crate) pairs: Vec<Pair>,
    /// Variable index of each pair in each file.
    pub(crate) var_a: Vec<usize>,
    pub(crate) var_b: Vec<usize>,
    pub(crate) report: CompareReport,
}

pub(crate) fn pairing(ha: &WaveHeader, hb: &WaveHeader, o: &DiffOptions) -> Result<Pairing> {
    let va = under(ha, o.scope_a.as_deref())?;
    let vb0 = under(hb, o.scope_b.as_deref().or(o.scope_a.as_deref()))?;
    let mut vb: Vec<(String, usize, bool)> = vb0.into_iter().map(|(n, i)| (n, i, false)).collect();
    map_names(&mut vb, &o.map)?;
    let mut report = CompareReport::default();
    for pat in &o.ignore {
        let hits_a = va.iter().filter(|(n, _)| glob(pat, n)).count();
        let hits_b = vb.iter().filter(|(n, _, _)| glob(pat, n)).count();
        if hits_a + hits_b == 0 {
            return Err(Error::Wave(format!(
                "--ignore `{pat}` names no signal of either waveform"
            )));
        }
    }
    let ignored = |n: &str| o.ignore.iter().any(|p| glob(p, n));
    let wanted = |n: &str| o.signals.is_empty() || o.signals.iter().any(|s| s == n);
    let a_of: FxHashMap<&str, usize> = va.iter().map(|(n, i)| (n.as_str(), *i)).collect();
    let b_of: FxHashMap<&str, (usize, bool)> =
        vb.iter().map(|(n, i, r)| (n.as_str(), (*i, *r))).collect();
    for s in &o.signals {
        if !a_of.contains_key(s.as_str()) {
            return Err(Error::Wave(format!(
                "signal `{s}` is not in the first waveform"
            )));
        }
        if !b_of.contains_key(s.as_str()) {
            return Err(Error::Wave(format!(
                "signal `{s}` is not in the second waveform"
            )));
        }
    }
    let mut pairs = Vec::new();
    let (mut var_a, mut var_b) = (Vec::new(), Vec::new());
    let mut ignored_names = std::collections::BTreeSet::new();
    for (name, ia) in &va {
        if !wanted(name) {
            continue;
        }
        if ignored(name) {
            ignored_names.insert(name.clone());
            continue;
        }
        let Some(&(ib, flip)) = b_of.get(name.as_str()) else {
            report.only_in_first.push(name.clone());
            continue;
        };
        let (a, b) = (&ha.vars[*ia], &hb.vars[ib]);
        let (ta, tb) = (Ty::of(a), Ty::of(b));
        if ta != tb {
            report.type_clashes.push(TypeClash {
                signal: name.clone(),
                first: ta.word(),
                second: tb.word(),
            });
            continue;
        }
        pairs.push(Pair {
            name: name.clone(),
            ty: ta,
            flip: a.ascending() ^ b.ascending() ^ flip,
        });
        var_a.push(*ia);
        var_b.push(ib);
    }
    for (name, _, _) in &vb {
        if !wanted(name) {
            continue;
        }
        if ignored(name) {
            ignored_names.insert(name.clone());
            continue;
        }
        if !a_of.contains_key(name.as_str()) {
            report.only_in_second.push(name.clone());
        }
    }
    report.ignored = ignored_names.into_iter().collect();
    report.signals = pairs.len();
    if pairs.is_empty() && report.only_in_first.is_empty() && report.only_in_second.is_empty() {
        return Err(Error::Wave(
            "nothing to compare: no signal under the scopes asked for (check --scope, --signals and --ignore)"
                .into(),
        ));
    }
    Ok(Pairing {
        pairs,
        var_a,
        var_b,
        report,
    })
}

/// Logic signals wider than this are stored packed, four bits to a byte
/// (a 4,096-bit reachability string takes 1 KB, not 4 KB: a 1,024-switch
/// network's values would otherwise take over 250 MB a file).
const PACK_ABOVE: u32 = 64;

/// The most bytes the values of one file's compared signals may take:
/// 4 GiB (a 4,096-switch network's traced signals take about 1 GiB; a
/// 16,384-switch network's, with 978,294 strings of 65,536 bits, 16 GiB).
const MAX_VALUE_BYTES: u64 = 4 << 30;

/// The two-bit code of each four-valued logic character (`0`, `1`, `x`,
/// `z`; the readers give no other, and anything else reads as `x`).
const CODE: [u8; 256] = {
    let mut t = [2u8; 256];
    t[b'0' as usize] = 0;
    t[b'1' as usize] = 1;
    t[b'z' as usize] = 3;
    t
};

/// Four characters (or the last few) as one byte of codes, the first in
/// the top bits.
#[inline]
fn pack4(chars: impl Iterator<Item = u8>) -> u8 {
    chars
        .zip([6u8, 4, 2, 0])
        .fold(0, |b, (c, shift)| b | CODE[c as usize] << shift)
}

/// The bytes of a store's arena a value of type `ty` takes (a string's
/// are kept apart).
fn room(ty: Ty) -> usize {
    match ty {
        Ty::Logic(w) if w > PACK_ABOVE => w.div_ceil(4) as usize,
        Ty::Logic(w) => w as usize,
        Ty::Real => 9,
        Ty::Str => 0,
    }
}

/// Where a slot's value lives.
#[derive(Clone, Copy)]
enum Place {
    /// Logic characters, or a real as a set flag and 8 bytes, in the arena.
    Fixed { off: usize, len: u32 },
    /// A logic value of `bits` bits, wider than [`PACK_ABOVE`], as two-bit
    /// codes in `bits.div_ceil(4)` bytes of the arena, most significant bit
    /// first (in the first file's bit order: the second file's value is
    /// turned round as it is stored when the pair is read right to left).
    Packed { off: usize, bits: u32 },
    /// An index into the strings.
    Str(u32),
}

/// One file's values of the compared signals (slot `k` is pair `k`).
struct Store {
    place: Vec<Place>,
    arena: Vec<u8>,
    strings: Vec<Vec<u8>>,
    /// Slots of each identifier code (compressed rows).
    code_start: Vec<u32>,
    code_slots: Vec<u32>,
    /// Clock-edge mode: changes held until the end of their time.
    staging: bool,
    staged: Vec<(u32, u32, u32)>,
    staged_bytes: Vec<u8>,
    /// Store packed values turned round when their pair is read right to
    /// left (the second file's store).
    turn: Vec<bool>,
    /// Slots changed since the last comparison.
    changed: Vec<u32>,
    is_changed: Vec<bool>,
    /// The clock's code, its value before and after the current time.
    clock: Option<u32>,
    clk_cur: u8,
    clk_next: u8,
}

impl Store {
    /// The store of the file whose compared variables are `vars`; `second`
    /// for the second file (its values of pairs read right to left are
    /// turned round when packed). Refused, naming the sizes, when the
    /// values would take more than [`MAX_VALUE_BYTES`].
    fn new(
        h: &WaveHeader,
        pairs: &[Pair],
        vars: &[usize],
        staging: bool,
        second: bool,
    ) -> Result<Store> {
        let ncodes = h.codes.len();
        // The arena's size, so that it is allocated once (grown by
        // doubling, a large network's would take up to twice the room).
        let size: u64 = pairs.iter().map(|p| room(p.ty) as u64).sum();
        if size > MAX_VALUE_BYTES {
            let bits: u64 = pairs
                .iter()
                .map(|p| match p.ty {
                    Ty::Logic(w) => u64::from(w),
                    _ => 0,
                })
                .sum();
            return Err(Error::Wave(format!(
                "the {} compared signals ({bits} bits of logic) would take {size} bytes of \
                 values a file, more than the {MAX_VALUE_BYTES} a diff holds: compare part of \
                 the waveforms with --scope, --signals or --ignore",
                pairs.len()
            )));
        }
        let mut place = Vec::with_capacity(pairs.len());
        let mut arena = Vec::with_capacity(size as usize);
        let mut strings = Vec::new();
        for p in pairs {
            let off = arena.len();
            let end = off + room(p.ty);
            place.push(match p.ty {
                Ty::Logic(w) if w > PACK_ABOVE => {
                    // Every bit `x` (code 2).
                    arena.resize(end, 0b1010_1010);
                    Place::Packed { off, bits: w }
                }
                Ty::Logic(w) => {
                    arena.resize(end, b'x');
                    Place::Fixed { off, len: w }
                }
                Ty::Real => {
                    arena.resize(end, 0);
                    Place::Fixed { off, len: 9 }
                }
                Ty::Str => {
                    strings.push(Vec::new());
                    Place::Str(strings.len() as u32 - 1)
                }
            });
        }
        // Compressed rows: the slots of each code.
        let mut start = vec![0u32; ncodes + 1];
        for &v in vars {
            start[h.vars[v].code as usize + 1] += 1;
        }
        for i in 0..ncodes {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut code_slots = vec![0u32; vars.len()];
        for (slot, &v) in vars.iter().enumerate() {
            let c = h.vars[v].code as usize;
            code_slots[fill[c] as usize] = slot as u32;
            fill[c] += 1;
        }
        Ok(Store {
            place,
            arena,
            strings,
            code_start: start,
            code_slots,
            staging,
            staged: Vec::new(),
            staged_bytes: Vec::new(),
            turn: pairs.iter().map(|p| second && p.flip).collect(),
            changed: Vec::new(),
            is_changed: vec![false; pairs.len()],
            clock: None,
            clk_cur: b'x',
            clk_next: b'x',
        })
    }

    /// Writes a slot's value and marks it changed (whether or not the
    /// value is new: the comparison decides).
    #[inline]
    fn write(&mut self, slot: u32, bytes: &[u8]) {
        match self.place[slot as usize] {
            Place::Fixed { off, len } => {
                self.arena[off..off + len as usize].copy_from_slice(bytes);
            }
            Place::Packed { off, bits } => {
                let out = &mut self.arena[off..off + bits.div_ceil(4) as usize];
                if self.turn[slot as usize] {
                    // From the last character: each chunk of four from the
                    // end, read backwards.
                    for (o, c) in out.iter_mut().zip(bytes.rchunks(4)) {
                        *o = pack4(c.iter().rev().copied());
                    }
                } else {
                    for (o, c) in out.iter_mut().zip(bytes.chunks(4)) {
                        *o = pack4(c.iter().copied());
                    }
                }
            }
            Place::Str(i) => {
                let s = &mut self.strings[i as usize];
                s.clear();
                s.extend_from_slice(bytes);
            }
        }
        if !self.is_changed[slot as usize] {
            self.is_changed[slot as usize] = true;
            self.changed.push(slot);
        }
    }

    #[inline]
    fn apply(&mut self, code: u32, bytes: &[u8]) {
        let (a, b) = (
            self.code_start[code as usize] as usize,
            self.code_start[code as usize + 1] as usize,
        );
        for i in a..b {
            let slot = self.code_slots[i];
            // The readers give every value its variable's width (and a
            // type clash keeps a pair out), so a fixed slot always fits.
            debug_assert!(match self.place[slot as usize] {
                Place::Fixed { len, .. } => len as usize == bytes.len(),
                Place::Packed { bits, .. } => bits as usize == bytes.len(),
                Place::Str(_) => true,
            });
            if self.staging {
                let at = self.staged_bytes.len() as u32;
                self.staged_bytes.extend_from_slice(bytes);
                self.staged.push((slot, at, bytes.len() as u32));
            } else {
                self.write(slot, bytes);
            }
        }
    }

    /// Clock-edge mode: applies the staged changes.
    fn commit(&mut self) {
        let staged = std::mem::take(&mut self.staged);
        let bytes = std::mem::take(&mut self.staged_bytes);
        for &(slot, at, len) in &staged {
            self.write(slot, &bytes[at as usize..(at + len) as usize]);
        }
        self.staged = staged;
        self.staged.clear();
        self.staged_bytes = bytes;
        self.staged_bytes.clear();
        self.clk_cur = self.clk_next;
    }

    /// A slot's stored bytes (packed codes for a packed slot).
    fn bytes(&self, slot: usize) -> &[u8] {
        match self.place[slot] {
            Place::Fixed { off, len } => &self.arena[off..off + len as usize],
            Place::Packed { off, bits } => &self.arena[off..off + bits.div_ceil(4) as usize],
            Place::Str(i) => &self.strings[i as usize],
        }
    }

    /// Whether slot `k` holds the same value here as in `other`, the
    /// second file's store.
    #[inline]
    fn agrees(&self, other: &Store, k: usize, p: &Pair) -> bool {
        match self.place[k] {
            // Both packed in the first file's bit order.
            Place::Packed { .. } => self.bytes(k) == other.bytes(k),
            _ => same(p, self.bytes(k), other.bytes(k)),
        }
    }

    /// A value as text, in the first file's bit order (`flip`: the value
    /// is the second file's, of a pair read right to left).
    fn text(&self, slot: usize, ty: Ty, flip: bool) -> String {
        match self.place[slot] {
            Place::Packed { bits, .. } => {
                let b = self.bytes(slot);
                (0..bits as usize)
                    .map(|i| b"01xz"[(b[i / 4] >> (6 - 2 * (i % 4)) & 3) as usize] as char)
                    .collect()
            }
            _ => value_text(ty, self.bytes(slot), flip),
        }
    }
}

/// A stored value as text: logic characters (reversed when `flip`), a
/// real's value or `x` when unset, a string.
pub(crate) fn value_text(ty: Ty, b: &[u8], flip: bool) -> String {
    match ty {
        Ty::Real if b.first().is_none_or(|&f| f == 0) => "x".into(),
        Ty::Real => real(b).to_string(),
        Ty::Str => String::from_utf8_lossy(b).into_owned(),
        Ty::Logic(_) => {
            let mut t = b.to_vec();
            if flip {
                t.reverse();
            }
            String::from_utf8_lossy(&t).into_owned()
        }
    }
}

fn real(b: &[u8]) -> f64 {
    f64::from_bits(u64::from_le_bytes(b[1..9].try_into().expect("8 bytes")))
}

/// Whether pair `k`'s values agree.
#[inline]
pub(crate) fn same(p: &Pair, a: &[u8], b: &[u8]) -> bool {
    match p.ty {
        Ty::Real => {
            a[0] == b[0]
                && (a[0] == 0 || {
                    let (x, y) = (real(a), real(b));
                    x == y || (x.is_nan() && y.is_nan())
                })
        }
        Ty::Logic(_) if p.flip => a.iter().eq(b.iter().rev()),
        _ => a == b,
    }
}

/// One file being read.
struct Side {
    r: WaveReader,
    s: Store,
    fs: u128,
    /// The time (file units) of the group of changes the next pull
    /// applies; `None` at the end of the file. Changes before the first
    /// time are at time 0.
    next: Option<u64>,
}

impl Side {
    /// Applies one group of changes (those before the next time event)
    /// and moves `next` on.
    fn pull(&mut self) -> Result<()> {
        let mut real = [0u8; 9];
        let s = &mut self.s;
        loop {
            let Some(e) = self.r.next_event()? else {
                self.next = None;
                return Ok(());
            };
            match e {
                Event::Time(t) => {
                    self.next = Some(t);
                    return Ok(());
                }
                Event::Logic { code, bits } => {
                    if Some(code) == s.clock {
                        s.clk_next = bits.first().copied().unwrap_or(b'x');
                    }
                    s.apply(code, bits);
                }
                Event::Real { code, value } => {
                    real[0] = 1;
                    real[1..].copy_from_slice(&value.to_bits().to_le_bytes());
                    s.apply(code, &real);
                }
                Event::Str { code, value } => s.apply(code, value),
            }
        }
    }

    fn next_fs(&self) -> Option<u128> {
        self.next.map(|t| u128::from(t) * self.fs)
    }
}

/// Compares the waveforms in two files (see the module docs): two FST
/// files on times signal by signal (docs/cosim.md, "Speed"), anything else
/// through `open` (a reader of any format; the command-line tool reads GHW
/// files in a child process) and [`diff`].
pub fn diff_files(
    a: &std::path::Path,
    b: &std::path::Path,
    o: &DiffOptions,
    open: impl Fn(&std::path::Path) -> Result<WaveReader>,
) -> Result<CompareReport> {
    if o.clock.is_none()
        && let Some((xa, ha)) = super::fst_diff::load(a)
        && let Some((xb, hb)) = super::fst_diff::load(b)
        && let Ok(r) = super::fst_diff::diff_fst(xa, xb, &ha, &hb, o)
    {
        return Ok(r);
    }
    diff(open(a)?, open(b)?, o)
}

/// Compares two waveforms (see the module docs).
pub fn diff(a: WaveReader, b: WaveReader, o: &DiffOptions) -> Result<CompareReport> {
    let p = pairing(a.header(), b.header(), o)?;
    let staging = o.clock.is_some();
    let side = |r: WaveReader, vars: &[usize], second: bool| -> Result<Side> {
        Ok(Side {
            fs: u128::from(r.header().fs_per_unit()),
            s: Store::new(r.header(), &p.pairs, vars, staging, second)?,
            r,
            next: Some(0),
        })
    };
    let mut sa = side(a, &p.var_a, false)?;
    let mut sb = side(b, &p.var_b, true)?;
    match &o.clock {
        None => on_times(&mut sa, &mut sb, &p.pairs, p.report),
        Some(clk) => {
            for (s, scope) in [
                (&mut sa, o.scope_a.as_deref()),
                (&mut sb, o.scope_b.as_deref().or(o.scope_a.as_deref())),
            ] {
                let h = s.r.header();
                let rel = scope
                    .and_then(|sc| h.resolve_scope(sc).ok())
                    .and_then(|sc| find_by_path(h, &format!("{sc}.{clk}")).ok());
                let v = match rel {
                    Some(v) => v,
                    None => find_by_path(h, clk)?,
                };
                check_clock(v)?;
                s.s.clock = Some(v.code);
            }
            on_edges(&mut sa, &mut sb, &p.pairs, p.report)
        }
    }
}

/// Compares the changed pairs in `touched`, recording each difference at
/// `at`; the first difference reported is the one of the lowest pair.
fn compare_touched(
    sa: &Store,
    sb: &Store,
    pairs: &[Pair],
    touched: &[u32],
    report: &mut CompareReport,
    at: (Option<u64>, f64),
) {
    let mut lowest: Option<usize> = None;
    for &k in touched {
        let k = k as usize;
        let p = &pairs[k];
        report.comparisons += 1;
        if !sa.agrees(sb, k, p) {
            report.mismatches += 1;
            *report.per_signal.entry(p.name.clone()).or_default() += 1;
            lowest = Some(lowest.map_or(k, |l| l.min(k)));
        }
    }
    if let (None, Some(k)) = (&report.first, lowest) {
        let p = &pairs[k];
        report.first = Some(Mismatch {
            signal: p.name.clone(),
            cycle: at.0,
            time_ns: at.1,
            expected: sa.text(k, p.ty, false),
            actual: sb.text(k, p.ty, p.flip),
        });
    }
}

/// The pairs either side changed since the last call (in no order);
/// clears the change marks.
fn take_changed(sa: &mut Store, sb: &mut Store, buf: &mut Vec<u32>, seen: &mut [bool]) {
    buf.clear();
    for s in [&mut *sa, &mut *sb] {
        for &k in &s.changed {
            s.is_changed[k as usize] = false;
            if !seen[k as usize] {
                seen[k as usize] = true;
                buf.push(k);
            }
        }
        s.changed.clear();
    }
    for &k in buf.iter() {
        seen[k as usize] = false;
    }
}

fn on_times(
    sa: &mut Side,
    sb: &mut Side,
    pairs: &[Pair],
    mut report: CompareReport,
) -> Result<CompareReport> {
    let mut touched = Vec::new();
    let mut seen = vec![false; pairs.len()];
    let mut times = 0u64;
    let mut t: u128 = 0;
    loop {
        // Every change at time t, in both files.
        while sa.next_fs() == Some(t) {
            sa.pull()?;
        }
        while sb.next_fs() == Some(t) {
            sb.pull()?;
        }
        take_changed(&mut sa.s, &mut sb.s, &mut touched, &mut seen);
        if !touched.is_empty() {
            times += 1;
            compare_touched(
                &sa.s,
                &sb.s,
                pairs,
                &touched,
                &mut report,
                (None, t as f64 / 1e6),
            );
        }
        t = match (sa.next_fs(), sb.next_fs()) {
            (None, None) => break,
            (Some(x), None) | (None, Some(x)) => x,
            (Some(x), Some(y)) => x.min(y),
        };
    }
    report.times = Some(times);
    Ok(report)
}

/// One file cut into cycles at its clock's rising edges.
struct Cycles {
    /// Rising edges seen.
    edges: u64,
    /// Times (femtoseconds) of the last two rising edges.
    last_edge: u128,
    prev_edge: u128,
    /// A group of changes read but held back (the one at an edge).
    held: bool,
    /// The values at the end of the file were handed out.
    finished: bool,
}

impl Cycles {
    fn new() -> Cycles {
        Cycles {
            edges: 0,
            last_edge: 0,
            prev_edge: 0,
            held: false,
            finished: false,
        }
    }

    /// Reads on until the values at the end of the next cycle are in
    /// `side`'s store; returns the time (fs) of the edge that started that
    /// cycle, or `None` when the file has no more cycles.
    fn next(&mut self, side: &mut Side) -> Result<Option<u128>> {
        if self.held {
            side.s.commit();
            self.held = false;
        }
        if self.finished {
            return Ok(None);
        }
        loop {
            let Some(t) = side.next_fs() else {
                side.s.commit();
                self.finished = true;
                return Ok((self.edges > 0).then_some(self.last_edge));
            };
            // Every change at time t.
            while side.next_fs() == Some(t) {
                side.pull()?;
            }
            let rising = side.s.clk_cur == b'0' && side.s.clk_next == b'1';
            if rising {
                self.edges += 1;
                self.prev_edge = self.last_edge;
                self.last_edge = t;
                if self.edges > 1 {
                    // The values before this edge end the previous cycle.
                    self.held = true;
                    return Ok(Some(self.prev_edge));
                }
            }
            side.s.commit();
        }
    }
}

fn on_edges(
    sa: &mut Side,
    sb: &mut Side,
    pairs: &[Pair],
    mut report: CompareReport,
) -> Result<CompareReport> {
    let (mut ca, mut cb) = (Cycles::new(), Cycles::new());
    let mut touched = Vec::new();
    let mut seen = vec![false; pairs.len()];
    let mut since = vec![u64::MAX; pairs.len()];
    let mut per_pair = vec![0u64; pairs.len()];
    let mut cycle = 0u64;
    let all: Vec<u32> = (0..pairs.len() as u32).collect();
    loop {
        let ea = ca.next(sa)?;
        let eb = cb.next(sb)?;
        let (Some(edge), Some(_)) = (ea, eb) else {
            // Count the rest of the longer file's cycles.
            let mut left = (ea.is_some(), eb.is_some());
            let (mut na, mut nb) = (cycle + u64::from(left.0), cycle + u64::from(left.1));
            while left.0 {
                left.0 = ca.next(sa)?.is_some();
                na += u64::from(left.0);
            }
            while left.1 {
                left.1 = cb.next(sb)?.is_some();
                nb += u64::from(left.1);
            }
            report.cycles = Some(na);
            if na != nb {
                report.cycles_second = Some(nb);
            }
            break;
        };
        take_changed(&mut sa.s, &mut sb.s, &mut touched, &mut seen);
        let list = if cycle == 0 { &all } else { &touched };
        let mut lowest: Option<usize> = None;
        for &k in list {
            let k = k as usize;
            report.comparisons += 1;
            let ok = sa.s.agrees(&sb.s, k, &pairs[k]);
            if !ok && since[k] == u64::MAX {
                since[k] = cycle;
                lowest = Some(lowest.map_or(k, |l| l.min(k)));
            } else if ok && since[k] != u64::MAX {
                per_pair[k] += cycle - since[k];
                since[k] = u64::MAX;
            }
        }
        if let (None, Some(k)) = (&report.first, lowest) {
            let p = &pairs[k];
            report.first = Some(Mismatch {
                signal: p.name.clone(),
                cycle: Some(cycle),
                time_ns: edge as f64 / 1e6,
                expected: sa.s.text(k, p.ty, false),
                actual: sb.s.text(k, p.ty, p.flip),
            });
        }
        // Unchanged pairs keep their verdict; they are compared again in
        // spirit each cycle.
        report.comparisons += (pairs.len() - list.len()) as u64;
        cycle += 1;
    }
    for (k, s) in since.iter().enumerate() {
        if *s != u64::MAX {
            per_pair[k] += cycle - s;
        }
    }
    for (k, n) in per_pair.iter().enumerate() {
        if *n > 0 {
            report.mismatches += n;
            report.per_signal.insert(pairs[k].name.clone(), *n);
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("a.*", "a.b.c"));
        assert!(glob("*clk", "tb.clk"));
        assert!(!glob("*clk", "tb.clk2"));
        assert!(glob("a*b*c", "aXXbYYc"));
        assert!(!glob("a*b*c", "aXXcYYb"));
        assert!(glob("exact", "exact"));
        assert!(!glob("exact", "exactly"));
    }

    /// A VCD of `t.clk`, a 100-bit `t.<wide>` declared `range` and an 8-bit
    /// `t.n`: the clock rises at 5, 15, 25 and each of `wide_values`
    /// (most significant character first) is written at 0, 10, 20.
    fn wide_vcd(wide: &str, range: &str, wide_values: [&str; 3]) -> WaveReader {
        let mut v = format!(
            "$timescale 1ns $end\n$scope module t $end\n$var wire 1 ! clk $end\n\
             $var wire 100 \" {wide} {range} $end\n$var wire 8 # n [7:0] $end\n\
             $upscope $end\n$enddefinitions $end\n"
        );
        for (k, w) in wide_values.iter().enumerate() {
            v += &format!(
                "#{}\n0!\nb{w} \"\nb{:08b} #\n#{}\n1!\n",
                10 * k,
                k + 1,
                10 * k + 5
            );
        }
        v += "#30\n0!\n";
        WaveReader::from_bytes(v.into_bytes()).unwrap()
    }

    /// Values that would take more than `MAX_VALUE_BYTES` a file are
    /// refused before any is read, naming the sizes; a scope that holds
    /// fewer is compared.
    #[test]
    fn values_too_large_to_hold_are_refused_by_their_size() {
        let n = 16_385;
        let mut v =
            String::from("$timescale 1ns $end\n$scope module t $end\n$scope module big $end\n");
        for i in 0..n {
            v += &format!("$var wire 1048576 w{i} s{i} [1048575:0] $end\n");
        }
        v += "$upscope $end\n$scope module small $end\n$var wire 4 n q [3:0] $end\n";
        v += "$upscope $end\n$upscope $end\n$enddefinitions $end\n#0\nb101 n\n#10\nb111 n\n";
        let open = || WaveReader::from_bytes(v.clone().into_bytes()).unwrap();
        let e = diff(open(), open(), &DiffOptions::default())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "the {} compared signals ({} bits of logic) would take {} bytes of \
                 values a file, more than the 4294967296 a diff holds: compare part of the \
                 waveforms with --scope, --signals or --ignore",
                n + 1,
                n as u64 * (1 << 20) + 4,
                n as u64 * (1 << 18) + 4
            )
        );
        let o = DiffOptions {
            scope_a: Some("t.small".into()),
            ..Default::default()
        };
        let r = diff(open(), open(), &o).unwrap();
        assert!(r.ok(), "{r}");
        assert_eq!(r.signals, 1);
    }

    /// A VCD of signals `t.s<i>` of the given widths (declared descending,
    /// or ascending where `asc`), with `values[k][i]` written at `10 k`
    /// (each given most significant character first, turned round where
    /// ascending).
    fn signals_vcd(widths: &[u32], asc: &[bool], values: &[Vec<String>]) -> WaveReader {
        let mut v = String::from("$timescale 1ns $end\n$scope module t $end\n");
        for (i, (&w, &a)) in widths.iter().zip(asc).enumerate() {
            let range = if a {
                format!("[0:{}]", w - 1)
            } else {
                format!("[{}:0]", w - 1)
            };
            v += &format!("$var wire {w} c{i} s{i} {range} $end\n");
        }
        v += "$upscope $end\n$enddefinitions $end\n";
        for (k, row) in values.iter().enumerate() {
            v += &format!("#{}\n", 10 * k);
            for (i, x) in row.iter().enumerate() {
                let x: String = if asc[i] {
                    x.chars().rev().collect()
                } else {
                    x.clone()
                };
                v += &format!("b{x} c{i}\n");
            }
        }
        WaveReader::from_bytes(v.into_bytes()).unwrap()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Signals on both sides of the packing width, either bit order in
        /// the second file, values of `0`, `1`, `x` and `z` with planted
        /// differences: the diff counts exactly the (time, signal) pairs
        /// whose values differ, and reports the first in full.
        #[test]
        fn packed_and_unpacked_values_compare_as_characters(
            sigs in proptest::collection::vec((60u32..140, proptest::bool::ANY), 1..5),
            seed in proptest::prelude::any::<u64>(),
            plant in 0.0f64..0.6,
        ) {
            use rand::{RngExt, SeedableRng};
            let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
            let widths: Vec<u32> = sigs.iter().map(|s| s.0).collect();
            let asc: Vec<bool> = sigs.iter().map(|s| s.1).collect();
            let mut va = Vec::new();
            let mut vb = Vec::new();
            for _ in 0..3 {
                let row: Vec<String> = widths
                    .iter()
                    .map(|&w| (0..w).map(|_| b"01xz"[rng.random_range(0..4)] as char).collect())
                    .collect();
                let other: Vec<String> = row
                    .iter()
                    .map(|x| {
                        let mut b = x.clone().into_bytes();
                        if rng.random_bool(plant) {
                            let at = rng.random_range(0..b.len());
                            b[at] = if b[at] == b'1' { b'z' } else { b'1' };
                        }
                        String::from_utf8(b).unwrap()
                    })
                    .collect();
                va.push(row);
                vb.push(other);
            }
            let a = signals_vcd(&widths, &vec![false; widths.len()], &va);
            let b = signals_vcd(&widths, &asc, &vb);
            let r = diff(a, b, &DiffOptions::default()).unwrap();
            let mut want = std::collections::BTreeMap::new();
            for k in 0..3 {
                for i in 0..widths.len() {
                    if va[k][i] != vb[k][i] {
                        *want.entry(format!("t.s{i}")).or_insert(0u64) += 1;
                    }
                }
            }
            proptest::prop_assert_eq!(&r.per_signal, &want);
            proptest::prop_assert_eq!(r.mismatches, want.values().sum::<u64>());
            if let Some(m) = &r.first {
                let k = (m.time_ns / 10.0) as usize;
                let i: usize = m.signal.trim_start_matches("t.s").parse().unwrap();
                proptest::prop_assert_eq!(&m.expected, &va[k][i]);
                proptest::prop_assert_eq!(&m.actual, &vb[k][i]);
            }
        }
    }

    /// Wide values are stored packed, four bits to a byte; the second
    /// file's, read right to left, turned round as they are stored. A
    /// planted bit is found on times and on clock edges, and reported
    /// in full, `x` and `z` included.
    #[test]
    fn wide_values_packed_compare_and_report_in_full() {
        let v0 = format!("1{}xz1", "0".repeat(96));
        let v1 = format!("z{}01x", "1x".repeat(48));
        let v2 = format!("0{}1", "z".repeat(98));
        let mut planted = v1.clone().into_bytes();
        planted[37] = b'0';
        let planted = String::from_utf8(planted).unwrap();
        assert_ne!(planted, v1);
        let rev = |s: &str| s.chars().rev().collect::<String>();
        // Declared `[0:99]`, the second file's leftmost character is bit 0.
        let map = SignalMap::from_toml_str("[signals]\nw_r = \"w\"\n").unwrap();
        for clock in [None, Some("clk".to_string())] {
            let o = DiffOptions {
                map: map.clone(),
                clock: clock.clone(),
                ..Default::default()
            };
            let a = wide_vcd("w", "[99:0]", [&v0, &v1, &v2]);
            let b = wide_vcd("w_r", "[0:99]", [&rev(&v0), &rev(&v1), &rev(&v2)]);
            let r = diff(a, b, &o).unwrap();
            assert!(r.ok(), "{clock:?}: {r}");
            let a = wide_vcd("w", "[99:0]", [&v0, &v1, &v2]);
            let b = wide_vcd("w_r", "[0:99]", [&rev(&v0), &rev(&planted), &rev(&v2)]);
            let r = diff(a, b, &o).unwrap();
            assert_eq!(r.mismatches, 1, "{clock:?}: {r}");
            let m = r.first.clone().unwrap();
            assert_eq!(m.signal, "t.w", "{r}");
            assert_eq!(
                (m.expected.as_str(), m.actual.as_str()),
                (v1.as_str(), planted.as_str())
            );
            match clock {
                None => assert_eq!((m.cycle, m.time_ns), (None, 10.0)),
                // Cycle 0 runs from the edge at 5 ns to the one at 15.
                Some(_) => assert_eq!(m.cycle, Some(0)),
            }
            // Unmapped, the same signal in the same order.
            let a = wide_vcd("w", "[99:0]", [&v0, &v1, &v2]);
            let b = wide_vcd("w", "[99:0]", [&v0, &planted, &v2]);
            let o = DiffOptions {
                clock,
                ..Default::default()
            };
            let r = diff(a, b, &o).unwrap();
            assert_eq!(r.mismatches, 1, "{r}");
            let m = r.first.unwrap();
            assert_eq!((m.expected, m.actual), (v1.clone(), planted.clone()));
        }
    }
}
