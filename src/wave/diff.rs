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
//! in the signals and the changes. Each side holds every compared
//! signal's current value, one wider than 64 bits packed and without the
//! run of equal characters it starts with, and stops with an error that
//! names the sizes once its values come to more than 4 GiB.

use super::cosim::{check_clock, find_by_path};
use super::header::{Event, VarKind, WaveHeader, WaveVar, pad_of};
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

/// The path `scope.name` (`name` when `scope` is empty) without `pre`, if
/// it starts with it, made without making the whole path first.
fn rel_path(scope: &str, name: &str, pre: &str) -> Option<String> {
    if scope.is_empty() {
        return name.strip_prefix(pre).map(str::to_string);
    }
    if pre.len() <= scope.len() {
        let rest = scope.strip_prefix(pre)?;
        return Some(format!("{rest}.{name}"));
    }
    // `pre` runs past the scope: into its dot and the name.
    let tail = pre.strip_prefix(scope)?.strip_prefix('.')?;
    name.strip_prefix(tail).map(str::to_string)
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
    let mut out = Vec::with_capacity(h.vars.len());
    for (i, v) in h.vars.iter().enumerate() {
        let rel = match &prefix {
            None => v.path(),
            Some(pre) => match rel_path(&v.scope, &v.name, pre) {
                Some(r) => r,
                None => continue,
            },
        };
        out.push((rel, i));
    }
    let mut again = Vec::new();
    {
        let mut seen: FxHashMap<&str, u32> = FxHashMap::default();
        seen.reserve(out.len());
        for (k, (rel, _)) in out.iter().enumerate() {
            let n = seen.entry(rel.as_str()).or_insert(0);
            *n += 1;
            if *n > 1 {
                again.push((k, *n));
            }
        }
    }
    for (k, n) in again {
        out[k].0 = format!("{}#{n}", out[k].0);
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
    let asked: rustc_hash::FxHashSet<&str> = o.signals.iter().map(String::as_str).collect();
    let wanted = |n: &str| asked.is_empty() || asked.contains(n);
    // Where each of the first file's names is in the second's list: the
    // same place when the two lists name the same signals in the same
    // order (a file against itself, or two files of one writer), else
    // looked up. A name the second list holds twice (a name mapped onto
    // one the file has already) pairs with its last place; `dups` has
    // each earlier place with the next.
    let same_order = va.len() == vb.len() && va.iter().zip(&vb).all(|(x, y)| x.0 == y.0);
    let mut b_of: FxHashMap<&str, usize> = FxHashMap::default();
    let mut dups = Vec::new();
    if !same_order {
        b_of.reserve(vb.len());
        for (k, (name, _, _)) in vb.iter().enumerate() {
            if let Some(before) = b_of.insert(name.as_str(), k) {
                dups.push((before, k));
            }
        }
    }
    let find_b = |k: usize, name: &str| -> Option<usize> {
        if same_order {
            Some(k)
        } else {
            b_of.get(name).copied()
        }
    };
    if !o.signals.is_empty() {
        let names_a: rustc_hash::FxHashSet<&str> = va.iter().map(|x| x.0.as_str()).collect();
        let names_b: rustc_hash::FxHashSet<&str> = vb.iter().map(|x| x.0.as_str()).collect();
        for s in &o.signals {
            if !names_a.contains(s.as_str()) {
                return Err(Error::Wave(format!(
                    "signal `{s}` is not in the first waveform"
                )));
            }
            if !names_b.contains(s.as_str()) {
                return Err(Error::Wave(format!(
                    "signal `{s}` is not in the second waveform"
                )));
            }
        }
    }
    let mut in_a = vec![false; vb.len()];
    let mut pairs = Vec::new();
    let (mut var_a, mut var_b) = (Vec::new(), Vec::new());
    let mut ignored_names = std::collections::BTreeSet::new();
    for (k, (name, ia)) in va.into_iter().enumerate() {
        let kb = find_b(k, &name);
        if let Some(kb) = kb {
            in_a[kb] = true;
        }
        if !wanted(&name) {
            continue;
        }
        if ignored(&name) {
            ignored_names.insert(name);
            continue;
        }
        let Some(kb) = kb else {
            report.only_in_first.push(name);
            continue;
        };
        let (ib, flip) = (vb[kb].1, vb[kb].2);
        let (a, b) = (&ha.vars[ia], &hb.vars[ib]);
        let (ta, tb) = (Ty::of(a), Ty::of(b));
        if ta != tb {
            report.type_clashes.push(TypeClash {
                signal: name,
                first: ta.word(),
                second: tb.word(),
            });
            continue;
        }
        pairs.push(Pair {
            name,
            ty: ta,
            flip: a.ascending() ^ b.ascending() ^ flip,
        });
        var_a.push(ia);
        var_b.push(ib);
    }
    // From the last: an earlier one takes its next's answer once that
    // has its own.
    for (before, last) in dups.into_iter().rev() {
        in_a[before] = in_a[last];
    }
    for (k, (name, _, _)) in vb.iter().enumerate() {
        if !wanted(name) {
            continue;
        }
        if ignored(name) {
            ignored_names.insert(name.clone());
            continue;
        }
        if !in_a[k] {
            report.only_in_second.push(name.clone());
        }
    }
    report.ignored = ignored_names.into_iter().collect();
    report.signals = pairs.len();
    // Signals of different types are a difference to report, not
    // nothing to compare.
    if pairs.is_empty()
        && report.only_in_first.is_empty()
        && report.only_in_second.is_empty()
        && report.type_clashes.is_empty()
    {
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

/// Logic signals wider than this are stored packed, four bits to a byte,
/// and without the run of equal characters their value starts with (a
/// 4,096-bit reachability string takes at most 1 KB, not 4 KB, and a
/// 65,536-bit string that is all `0` but its last few bits takes a few
/// bytes: the values of a 16,384-switch network's trace would otherwise
/// take 16 GB a file).
const PACK_ABOVE: u32 = 64;

/// The most bytes the values of one file's compared signals may take at
/// once: 4 GiB.
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

/// The bytes of a store's arena a value of type `ty` takes (a string's
/// and a wide logic value's are kept apart).
fn room(ty: Ty) -> usize {
    match ty {
        Ty::Logic(w) if w > PACK_ABOVE => 0,
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
    /// A logic value of `bits` bits, wider than [`PACK_ABOVE`]: `Wide`
    /// `i` of the store (in the first file's bit order: the second file's
    /// value is turned round as it is stored when the pair is read right
    /// to left).
    Wide { i: u32, bits: u32 },
    /// An index into the strings.
    Str(u32),
}

/// A logic value wider than [`PACK_ABOVE`], in a form that two equal
/// values of one width share: the value's characters are cut into groups
/// of four from the last (the first group may be short, and is then
/// thought of as filled out in front with the value's first character);
/// the groups at the front made only of the first character are left
/// out, and the rest kept as two-bit codes, four to a byte, first
/// character in the top bits.
#[derive(Default)]
struct Wide {
    /// The code of the value's first character.
    lead: u8,
    /// The groups after the ones left out.
    groups: Vec<u8>,
}

impl Wide {
    /// Stores the `w`-bit value `bits`, written shorter than `w` when its
    /// first characters are its first written character's extension
    /// ([`pad_of`]); returns how many bytes the store holds more (or
    /// fewer) than before.
    fn set(&mut self, w: usize, bits: &[u8]) -> i64 {
        let n = bits.len();
        let pad = w - n;
        let first = if pad > 0 { pad_of(bits[0]) } else { bits[0] };
        let lead = CODE[first as usize];
        let run = pad
            + bits
                .iter()
                .take_while(|&&c| CODE[c as usize] == lead)
                .count();
        // The groups start at 0, r, r + 4, ... (r = w % 4): those that end
        // within the run are left out.
        let r = w % 4;
        let from = if run < r { 0 } else { run - (run - r) % 4 };
        let before = self.groups.capacity();
        self.lead = lead;
        self.groups.clear();
        let mut acc = 0u8;
        let mut k = 0;
        let mut put = |code: u8, g: &mut Vec<u8>| {
            acc = acc << 2 | code;
            k += 1;
            if k == 4 {
                g.push(acc);
                (acc, k) = (0, 0);
            }
        };
        // The first group filled out in front.
        for _ in 0..(4 - (w - from) % 4) % 4 {
            put(lead, &mut self.groups);
        }
        for _ in from..pad {
            put(CODE[first as usize], &mut self.groups);
        }
        for &c in &bits[from.saturating_sub(pad)..] {
            put(CODE[c as usize], &mut self.groups);
        }
        debug_assert_eq!(k, 0);
        // Memory a value no longer needs is given back, unless little.
        if self.groups.capacity() > 4 * self.groups.len() + 64 {
            self.groups.shrink_to_fit();
        }
        self.groups.capacity() as i64 - before as i64
    }

    /// The `w`-bit value as text.
    fn text(&self, w: usize) -> String {
        let held = 4 * self.groups.len();
        let mut t = String::with_capacity(w);
        for _ in held..w {
            t.push(b"01xz"[self.lead as usize] as char);
        }
        for i in held.saturating_sub(w)..held {
            let code = self.groups[i / 4] >> (6 - 2 * (i % 4)) & 3;
            t.push(b"01xz"[code as usize] as char);
        }
        t
    }
}

/// One file's values of the compared signals (slot `k` is pair `k`).
struct Store {
    place: Vec<Place>,
    arena: Vec<u8>,
    wide: Vec<Wide>,
    strings: Vec<Vec<u8>>,
    /// Bytes the arena and the wide values hold, and the most they may.
    held: u64,
    max: u64,
    /// Which file this is ("first" or "second"), for errors.
    which: &'static str,
    /// Slots of each identifier code (compressed rows).
    code_start: Vec<u32>,
    code_slots: Vec<u32>,
    /// Clock-edge mode: changes held until the end of their time.
    staging: bool,
    staged: Vec<(u32, u32, u32)>,
    staged_bytes: Vec<u8>,
    /// Store wide values turned round when their pair is read right to
    /// left (the second file's store).
    turn: Vec<bool>,
    /// A value turned round, whole.
    turned: Vec<u8>,
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
    /// turned round when stored wide). Refused, naming the sizes, when
    /// the values of the signals up to [`PACK_ABOVE`] bits wide would take
    /// more than `max` bytes (wider values are counted as they come,
    /// [`Store::check`]).
    fn new(
        h: &WaveHeader,
        pairs: &[Pair],
        vars: &[usize],
        staging: bool,
        second: bool,
        max: u64,
    ) -> Result<Store> {
        let ncodes = h.codes.len();
        let which = if second { "second" } else { "first" };
        // The arena's size, so that it is allocated once (grown by
        // doubling, a large network's would take up to twice the room).
        let size: u64 = pairs.iter().map(|p| room(p.ty) as u64).sum();
        if size > max {
            return Err(Error::Wave(format!(
                "the values of the {} compared signals would take {size} bytes in the {which} \
                 waveform, more than the {max} a diff holds a file: compare part of the \
                 waveforms with --scope, --signals or --ignore",
                pairs.len()
            )));
        }
        let mut place = Vec::with_capacity(pairs.len());
        let mut arena = Vec::with_capacity(size as usize);
        let mut wide = Vec::new();
        let mut strings = Vec::new();
        for p in pairs {
            let off = arena.len();
            let end = off + room(p.ty);
            place.push(match p.ty {
                Ty::Logic(w) if w > PACK_ABOVE => {
                    // Every bit `x`.
                    wide.push(Wide {
                        lead: CODE[b'x' as usize],
                        groups: Vec::new(),
                    });
                    Place::Wide {
                        i: wide.len() as u32 - 1,
                        bits: w,
                    }
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
            wide,
            strings,
            held: size,
            max,
            which,
            code_start: start,
            code_slots,
            staging,
            staged: Vec::new(),
            staged_bytes: Vec::new(),
            turn: pairs.iter().map(|p| second && p.flip).collect(),
            turned: Vec::new(),
            changed: Vec::new(),
            is_changed: vec![false; pairs.len()],
            clock: None,
            clk_cur: b'x',
            clk_next: b'x',
        })
    }

    /// Writes a slot's value (given as the reader wrote it: shorter than
    /// the variable when extended on the left) and marks it changed
    /// (whether or not the value is new: the comparison decides).
    #[inline]
    fn write(&mut self, slot: u32, bytes: &[u8]) {
        match self.place[slot as usize] {
            Place::Fixed { off, len } => {
                let out = &mut self.arena[off..off + len as usize];
                let pad = out.len() - bytes.len();
                if pad > 0 {
                    out[..pad].fill(pad_of(bytes[0]));
                }
                out[pad..].copy_from_slice(bytes);
            }
            Place::Wide { i, bits } => {
                let w = bits as usize;
                let grew = if self.turn[slot as usize] {
                    // The whole value, from its last character.
                    let t = &mut self.turned;
                    t.clear();
                    t.extend(bytes.iter().rev());
                    t.resize(w, pad_of(bytes[0]));
                    self.wide[i as usize].set(w, t)
                } else {
                    self.wide[i as usize].set(w, bytes)
                };
                self.held = self.held.wrapping_add_signed(grew);
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
            // The readers give every value at most its variable's width,
            // and a logic value of a variable wider than none at least one
            // character (and a type clash keeps a pair out).
            debug_assert!(match self.place[slot as usize] {
                Place::Fixed { len, .. } =>
                    bytes.len() <= len as usize && (len == 0 || !bytes.is_empty()),
                Place::Wide { bits, .. } => bytes.len() <= bits as usize && !bytes.is_empty(),
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

    /// Refuses the values held once they take more than the store may
    /// hold, naming the sizes; `at`: the time (file units) of the changes
    /// read last.
    fn check(&self, at: Option<u64>) -> Result<()> {
        if self.held <= self.max {
            return Ok(());
        }
        Err(Error::Wave(format!(
            "the values of the {} compared signals came to {} bytes in the {} waveform by \
             time {}, more than the {} a diff holds a file: compare part of the waveforms \
             with --scope, --signals or --ignore",
            self.place.len(),
            self.held,
            self.which,
            at.unwrap_or(0),
            self.max
        )))
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

    /// A slot's stored bytes (not for a wide slot).
    fn bytes(&self, slot: usize) -> &[u8] {
        match self.place[slot] {
            Place::Fixed { off, len } => &self.arena[off..off + len as usize],
            Place::Wide { .. } => unreachable!("a wide value is not held as characters"),
            Place::Str(i) => &self.strings[i as usize],
        }
    }

    /// Whether slot `k` holds the same value here as in `other`, the
    /// second file's store.
    #[inline]
    fn agrees(&self, other: &Store, k: usize, p: &Pair) -> bool {
        match self.place[k] {
            // Both in the first file's bit order.
            Place::Wide { i, .. } => {
                let (x, y) = (&self.wide[i as usize], &other.wide[i as usize]);
                x.lead == y.lead && x.groups == y.groups
            }
            _ => same(p, self.bytes(k), other.bytes(k)),
        }
    }

    /// A value as text, in the first file's bit order (`flip`: the value
    /// is the second file's, of a pair read right to left).
    fn text(&self, slot: usize, ty: Ty, flip: bool) -> String {
        match self.place[slot] {
            Place::Wide { i, bits } => self.wide[i as usize].text(bits as usize),
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
        let at = self.next;
        let mut real = [0u8; 9];
        let s = &mut self.s;
        loop {
            // Values as written: a wide value's run of leading characters
            // is not widened only to be packed away.
            let Some(e) = self.r.next_event_short()? else {
                self.next = None;
                break;
            };
            match e {
                Event::Time(t) => {
                    self.next = Some(t);
                    break;
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
        s.check(at)
    }

    fn next_fs(&self) -> Option<u128> {
        self.next.map(|t| u128::from(t) * self.fs)
    }
}

/// Compares two waveforms (see the module docs).
pub fn diff(a: WaveReader, b: WaveReader, o: &DiffOptions) -> Result<CompareReport> {
    diff_holding(a, b, o, MAX_VALUE_BYTES)
}

/// [`diff`], holding at most `max` bytes of values a file.
fn diff_holding(a: WaveReader, b: WaveReader, o: &DiffOptions, max: u64) -> Result<CompareReport> {
    let p = pairing(a.header(), b.header(), o)?;
    let staging = o.clock.is_some();
    let side = |r: WaveReader, vars: &[usize], second: bool| -> Result<Side> {
        Ok(Side {
            fs: u128::from(r.header().fs_per_unit()),
            s: Store::new(r.header(), &p.pairs, vars, staging, second, max)?,
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
            let r = on_edges(&mut sa, &mut sb, &p.pairs, p.report)?;
            // No cycle on either side compares nothing: an error, not "OK".
            if r.cycles == Some(0) && r.cycles_second.is_none() {
                return Err(Error::Wave(format!(
                    "the clock `{clk}` never rises in either waveform: nothing to compare"
                )));
            }
            Ok(r)
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

    proptest::proptest! {
        /// The relative path is the whole path without the prefix, whatever
        /// dots the scope, the name and the prefix hold.
        #[test]
        fn relative_paths_are_the_whole_path_less_the_prefix(
            scope in "[ab.]{0,5}",
            name in "[ab.]{1,4}",
            pre in "[ab.]{0,7}",
        ) {
            let whole = if scope.is_empty() { name.clone() } else { format!("{scope}.{name}") };
            proptest::prop_assert_eq!(
                rel_path(&scope, &name, &pre),
                whole.strip_prefix(pre.as_str()).map(str::to_string)
            );
        }
    }

    /// Names pair by their paths under the scopes: a path declared twice
    /// gets `#2`, a name with a dot in it is found under a scope that
    /// ends inside it, and what either file alone has is reported; a
    /// name mapped onto one the file has already pairs the last, and
    /// neither is left over.
    #[test]
    fn signals_pair_by_relative_path() {
        let vcd = |vars: &str| {
            let v = format!(
                "$scope module t $end\n{vars}$scope module u $end\n$var wire 1 % v $end\n\
                 $upscope $end\n$upscope $end\n$enddefinitions $end\n"
            );
            WaveReader::from_bytes(v.into_bytes()).unwrap()
        };
        let a = vcd(
            "$var wire 1 ! a $end\n$var wire 1 \" a $end\n$var wire 2 # b $end\n\
                     $var wire 1 $ \\u.w $end\n$var wire 1 & c $end\n",
        );
        let names = |p: &Pairing| p.pairs.iter().map(|x| x.name.clone()).collect::<Vec<_>>();
        let o = DiffOptions::default();
        let p = pairing(a.header(), a.header(), &o).unwrap();
        assert_eq!(names(&p), ["t.a", "t.a#2", "t.b", "t.u.w", "t.c", "t.u.v"]);
        let o = DiffOptions {
            scope_a: Some("t.u".into()),
            ..Default::default()
        };
        let p = pairing(a.header(), a.header(), &o).unwrap();
        assert_eq!(names(&p), ["w", "v"]);
        // In another order, without `b`, with `d`, and `b` 1 bit wide.
        let b = vcd(
            "$var wire 1 & c $end\n$var wire 1 ! a $end\n$var wire 1 ' d $end\n\
                     $var wire 1 \" a $end\n$var wire 1 $ \\u.w $end\n",
        );
        let p = pairing(a.header(), b.header(), &DiffOptions::default()).unwrap();
        assert_eq!(names(&p), ["t.a", "t.a#2", "t.u.w", "t.c", "t.u.v"]);
        assert_eq!(p.report.only_in_first, ["t.b"]);
        assert_eq!(p.report.only_in_second, ["t.d"]);
        let b2 = vcd("$var wire 2 # b $end\n$var wire 1 & c $end\n");
        let p = pairing(b2.header(), a.header(), &DiffOptions::default()).unwrap();
        assert_eq!(p.report.only_in_first, Vec::<String>::new());
        assert_eq!(p.report.only_in_second, ["t.a", "t.a#2", "t.u.w"]);
        // `x` mapped to `c` beside a `c` of its own, after it: `c` pairs
        // with `x`.
        let b = vcd("$var wire 1 ( c $end\n$var wire 1 ) x $end\n");
        let o = DiffOptions {
            scope_a: Some("t".into()),
            map: SignalMap::from_toml_str("[signals]\nx = \"c\"\n").unwrap(),
            ignore: vec!["a*".into(), "b".into(), "u.*".into()],
            ..Default::default()
        };
        let p = pairing(a.header(), b.header(), &o).unwrap();
        assert_eq!(names(&p), ["c"]);
        assert_eq!(b.header().vars[p.var_b[0]].name, "x");
        assert!(p.report.only_in_first.is_empty() && p.report.only_in_second.is_empty());
        assert_eq!(p.report.ignored, ["a", "a#2", "b", "u.v", "u.w"]);
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

    /// A file of 16,385 signals of 1,048,576 bits (16 GiB of characters,
    /// 4 GiB packed) written short is compared holding a few bytes of
    /// each; values that come to more than a diff may hold are refused
    /// when they do, naming the sizes and the time, and a scope that
    /// holds fewer is compared.
    #[test]
    fn values_are_held_short_and_refused_by_their_size() {
        let n = 16_385;
        let mut v =
            String::from("$timescale 1ns $end\n$scope module t $end\n$scope module big $end\n");
        for i in 0..n {
            v += &format!("$var wire 1048576 w{i} s{i} [1048575:0] $end\n");
        }
        v += "$upscope $end\n$scope module small $end\n$var wire 4 n q [3:0] $end\n";
        v += "$upscope $end\n$upscope $end\n$enddefinitions $end\n#0\nb101 n\n";
        for i in 0..n {
            v += &format!("b{:b} w{i}\n", i + 1);
        }
        v += "#10\nb111 n\nbz1 w3\n#20\nb1";
        v += &"0".repeat(999_999);
        v += " w7\n";
        let open = || WaveReader::from_bytes(v.clone().into_bytes()).unwrap();
        let r = diff(open(), open(), &DiffOptions::default()).unwrap();
        assert!(r.ok(), "{r}");
        assert_eq!(
            (r.signals, r.comparisons, r.times),
            (n + 1, n as u64 + 4, Some(3))
        );
        let refused = |max: u64| {
            diff_holding(open(), open(), &DiffOptions::default(), max)
                .unwrap_err()
                .to_string()
        };
        // At time 0 each value takes a byte or more (a few: at most 8);
        // the value of a million characters at time 20, 250,000 bytes.
        let r = diff_holding(open(), open(), &DiffOptions::default(), 1 << 20).unwrap();
        assert!(r.ok(), "{r}");
        let e = refused(n as u64 / 2);
        let (start, end) = e.split_once(" bytes in ").expect(&e);
        assert_eq!(
            start.rsplit_once(' ').unwrap().0,
            format!("the values of the {} compared signals came to", n + 1),
        );
        assert_eq!(
            end,
            format!(
                "the first waveform by time 0, more than the {} a diff holds a file: \
                 compare part of the waveforms with --scope, --signals or --ignore",
                n / 2
            )
        );
        let e = refused(200_000);
        assert!(
            e.contains(" bytes in the first waveform by time 20, "),
            "{e}"
        );
        let o = DiffOptions {
            scope_a: Some("t.small".into()),
            ..Default::default()
        };
        let r = diff_holding(open(), open(), &o, 4).unwrap();
        assert!(r.ok(), "{r}");
        assert_eq!(r.signals, 1);
        // The signals up to 64 bits wide are held as characters from the
        // start.
        let e = diff_holding(open(), open(), &o, 3).unwrap_err().to_string();
        assert_eq!(
            e,
            "the values of the 1 compared signals would take 4 bytes in the first waveform, \
             more than the 3 a diff holds a file: compare part of the waveforms with --scope, \
             --signals or --ignore"
        );
    }

    /// `x` (a value as written in a VCD) without the first `j` characters,
    /// `j` drawn from those the reader puts back when it extends the rest
    /// on the left.
    fn written_short(x: &str, rng: &mut impl rand::Rng) -> String {
        use rand::RngExt;
        let b = x.as_bytes();
        let run = b.iter().take_while(|&&c| c == b[0]).count();
        let after = b.get(run).copied();
        let most = match b[0] {
            b'x' | b'z' => run - 1,
            b'0' if after == Some(b'1') => run,
            b'0' => run - 1,
            _ => 0,
        };
        x[rng.random_range(0..=most)..].to_string()
    }

    /// A VCD of signals `t.s<i>` of the given widths (declared descending,
    /// or ascending where `asc`), with `values[k][i]` written at `10 k`
    /// (each given most significant character first, turned round where
    /// ascending), with some of its first characters left out where
    /// `short` gives a generator.
    fn signals_vcd(
        widths: &[u32],
        asc: &[bool],
        values: &[Vec<String>],
        mut short: Option<rand::rngs::Xoshiro256PlusPlus>,
    ) -> WaveReader {
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
                let mut x: String = if asc[i] {
                    x.chars().rev().collect()
                } else {
                    x.clone()
                };
                if let Some(rng) = &mut short {
                    x = written_short(&x, rng);
                }
                v += &format!("b{x} c{i}\n");
            }
        }
        WaveReader::from_bytes(v.into_bytes()).unwrap()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Signals on both sides of the packing width, either bit order in
        /// the second file, values of `0`, `1`, `x` and `z` that start with
        /// runs of one character, written whole or short, with planted
        /// differences: the diff counts exactly the (time, signal) pairs
        /// whose values differ, and reports the first in full.
        #[test]
        fn packed_and_unpacked_values_compare_as_characters(
            sigs in proptest::collection::vec((60u32..140, proptest::bool::ANY), 1..5),
            seed in proptest::prelude::any::<u64>(),
            plant in 0.0f64..0.6,
            short_a in proptest::bool::ANY,
            short_b in proptest::bool::ANY,
        ) {
            use rand::{RngExt, SeedableRng};
            let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
            let widths: Vec<u32> = sigs.iter().map(|s| s.0).collect();
            let asc: Vec<bool> = sigs.iter().map(|s| s.1).collect();
            let mut va = Vec::new();
            let mut vb = Vec::new();
            for _ in 0..3 {
                // A run of one character, then any.
                let row: Vec<String> = widths
                    .iter()
                    .map(|&w| {
                        let c = b"01xz"[rng.random_range(0..4)] as char;
                        let k = rng.random_range(0..=w);
                        (0..w)
                            .map(|i| if i < k { c } else { b"01xz"[rng.random_range(0..4)] as char })
                            .collect()
                    })
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
            let short = |on: bool| on.then(|| rand::rngs::Xoshiro256PlusPlus::seed_from_u64(!seed));
            let a = signals_vcd(&widths, &vec![false; widths.len()], &va, short(short_a));
            let b = signals_vcd(&widths, &asc, &vb, short(short_b));
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
