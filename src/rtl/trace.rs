//! Signal tracing: the hooks components use to expose their registers.
//!
//! A component declares its signals once ([`Traced::declare`]) in a scope of
//! the Verilog-like hierarchy (`top.sw3.in2.buf_count`) and is sampled after
//! every clock edge in the same order ([`Traced::sample`]). The
//! [`TraceState`] keeps each signal's last value and the list of signals that
//! changed in the cycle, which a [`WaveSink`] writes out: the VCD writer of
//! [`crate::wave`], the in-memory [`MemorySink`] that unit tests read, or the
//! [`NullSink`]. With no tracer attached nothing here runs at all.

use crate::{BitString, Result};

/// Identifies one declared signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SignalId(pub u32);

/// A scope of the hierarchy (a Verilog module instance).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeDecl {
    /// Instance name, e.g. `sw3`.
    pub name: String,
    /// Enclosing scope, `None` for the root.
    pub parent: Option<u32>,
}

/// A declared signal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignalDecl {
    /// Scope the signal is declared in.
    pub scope: u32,
    /// Signal name, e.g. `buf_count`.
    pub name: String,
    /// Width in bits (at least 1).
    pub width: u32,
    /// How a waveform viewer should show it.
    pub radix: Radix,
}

/// How a viewer shows a signal's value: bit strings (port and destination
/// masks) in binary, bytes in hexadecimal, counters and ids in decimal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Radix {
    /// Binary, bit 0 rightmost.
    Bin,
    /// Hexadecimal.
    Hex,
    /// Unsigned decimal.
    Dec,
}

/// All scopes and signals, in declaration order. Scope 0 is the root `top`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hierarchy {
    /// The scopes; a scope is declared before its children.
    pub scopes: Vec<ScopeDecl>,
    /// The signals.
    pub signals: Vec<SignalDecl>,
}

impl Default for Hierarchy {
    fn default() -> Self {
        Self::new("top")
    }
}

/// Bytes a traced run is reckoned to take per signal once its hierarchy is
/// declared (its value slot, change logs, the writer's copy and codes),
/// besides a byte for every [`TRACE_BITS_A_BYTE`] bits of its width. Whole traced runs, against
/// the same runs untraced (December 2, peak resident sets): 210 bytes a
/// signal with wormhole routers (a 256x256 mesh, a 16-cube), 290 with
/// tree routers (256x256 meshes and tori, a 64x64x16 mesh), and with
/// cut-through switches, whose destination strings are as wide as the
/// network has nodes, 253, 361 and 401 at 256, 2,048 and 4,096 switches:
/// about 312 bytes a signal and 0.02 a bit. (256 bytes a signal, the
/// reckoning before, fell short of both.)
pub const TRACE_SIGNAL_BYTES: u64 = 320;

/// Bits of its signals' widths for which a traced run is reckoned to take
/// one byte more (see [`TRACE_SIGNAL_BYTES`]).
pub const TRACE_BITS_A_BYTE: u64 = 32;

/// Refuses to trace `signals` signals of `bits` bits in all in
/// `available` bytes.
fn room_in(signals: usize, bits: u64, available: u64) -> Result<()> {
    let bytes = signals as u128 * TRACE_SIGNAL_BYTES as u128 + (bits / TRACE_BITS_A_BYTE) as u128;
    if bytes > available as u128 {
        return Err(crate::Error::TraceTooLarge {
            signals,
            per_signal: (bytes / signals.max(1) as u128) as u64,
            bytes,
            available,
        });
    }
    Ok(())
}

impl Hierarchy {
    /// Refuses a trace of this hierarchy whose state would not fit the
    /// memory available ([`TRACE_SIGNAL_BYTES`] a signal and a byte for
    /// [`TRACE_BITS_A_BYTE`] bits of their widths; `MemAvailable`
    /// of `/proc/meminfo`), before any of it is made: the router models
    /// call it as they attach a tracer.
    pub fn check_room(&self) -> Result<()> {
        match crate::memory::available() {
            Some(a) => {
                let bits = self.signals.iter().map(|s| s.width as u64).sum();
                room_in(self.signals.len(), bits, a)
            }
            None => Ok(()),
        }
    }

    /// A hierarchy with only its root scope.
    pub fn new(root: &str) -> Self {
        Hierarchy {
            scopes: vec![ScopeDecl {
                name: root.to_string(),
                parent: None,
            }],
            signals: Vec::new(),
        }
    }

    /// A builder for the root scope.
    pub fn root(&mut self) -> ScopeBuilder<'_> {
        ScopeBuilder { h: self, scope: 0 }
    }

    /// The dotted path of a scope, e.g. `top.sw3.in2`.
    pub fn scope_path(&self, scope: u32) -> String {
        let mut parts = Vec::new();
        let mut s = Some(scope);
        while let Some(i) = s {
            parts.push(self.scopes[i as usize].name.as_str());
            s = self.scopes[i as usize].parent;
        }
        parts.reverse();
        parts.join(".")
    }

    /// The dotted path of a signal, e.g. `top.sw3.in2.buf_count`.
    pub fn path(&self, sig: SignalId) -> String {
        let d = &self.signals[sig.0 as usize];
        format!("{}.{}", self.scope_path(d.scope), d.name)
    }

    /// The signal with the given dotted path.
    pub fn find(&self, path: &str) -> Option<SignalId> {
        (0..self.signals.len() as u32)
            .map(SignalId)
            .find(|&s| self.path(s) == path)
    }

    /// Every scope's children and signals, found in one pass (see
    /// [`HierarchyIndex`]).
    pub fn index(&self) -> HierarchyIndex {
        let n = self.scopes.len();
        let mut child_at = vec![0u32; n + 1];
        for s in &self.scopes {
            if let Some(p) = s.parent {
                child_at[p as usize + 1] += 1;
            }
        }
        let mut signal_at = vec![0u32; n + 1];
        for d in &self.signals {
            signal_at[d.scope as usize + 1] += 1;
        }
        for i in 0..n {
            child_at[i + 1] += child_at[i];
            signal_at[i + 1] += signal_at[i];
        }
        // Filled in declaration order, so each scope's run keeps it.
        let mut children = vec![0u32; child_at[n] as usize];
        let mut next = child_at.clone();
        for (i, s) in self.scopes.iter().enumerate() {
            if let Some(p) = s.parent {
                children[next[p as usize] as usize] = i as u32;
                next[p as usize] += 1;
            }
        }
        let mut signals = vec![SignalId(0); signal_at[n] as usize];
        let mut next = signal_at.clone();
        for (i, d) in self.signals.iter().enumerate() {
            let at = &mut next[d.scope as usize];
            signals[*at as usize] = SignalId(i as u32);
            *at += 1;
        }
        HierarchyIndex {
            child_at,
            children,
            signal_at,
            signals,
        }
    }

    /// The children of a scope, in declaration order. It looks at every
    /// scope: a walk of the whole hierarchy takes [`Hierarchy::index`].
    pub fn child_scopes(&self, scope: u32) -> impl Iterator<Item = u32> + '_ {
        (0..self.scopes.len() as u32)
            .filter(move |&i| self.scopes[i as usize].parent == Some(scope))
    }

    /// The signals declared directly in a scope, in declaration order. It
    /// looks at every signal: a walk of the whole hierarchy takes
    /// [`Hierarchy::index`].
    pub fn scope_signals(&self, scope: u32) -> impl Iterator<Item = SignalId> + '_ {
        (0..self.signals.len() as u32)
            .filter(move |&i| self.signals[i as usize].scope == scope)
            .map(SignalId)
    }
}

/// Each scope's children and signals of a [`Hierarchy`], in declaration
/// order, built once in time proportional to the hierarchy's size: the
/// writers walk a hierarchy of hundreds of thousands of signals (a traced
/// network of a thousand switches) with it, where asking the hierarchy
/// scope by scope would take time proportional to the square of its size.
#[derive(Clone, Debug)]
pub struct HierarchyIndex {
    /// Scope `s`'s children are `children[child_at[s]..child_at[s + 1]]`.
    child_at: Vec<u32>,
    children: Vec<u32>,
    /// Scope `s`'s signals are `signals[signal_at[s]..signal_at[s + 1]]`.
    signal_at: Vec<u32>,
    signals: Vec<SignalId>,
}

impl HierarchyIndex {
    /// The children of `scope`, in declaration order.
    pub fn children(&self, scope: u32) -> &[u32] {
        let s = scope as usize;
        &self.children[self.child_at[s] as usize..self.child_at[s + 1] as usize]
    }

    /// The signals declared directly in `scope`, in declaration order.
    pub fn signals(&self, scope: u32) -> &[SignalId] {
        let s = scope as usize;
        &self.signals[self.signal_at[s] as usize..self.signal_at[s + 1] as usize]
    }
}

/// Declares signals and sub-scopes inside one scope.
pub struct ScopeBuilder<'a> {
    h: &'a mut Hierarchy,
    scope: u32,
}

impl ScopeBuilder<'_> {
    /// Declares a child scope and fills it with `f`.
    pub fn scope(&mut self, name: &str, f: impl FnOnce(&mut ScopeBuilder<'_>)) {
        let id = self.h.scopes.len() as u32;
        self.h.scopes.push(ScopeDecl {
            name: name.to_string(),
            parent: Some(self.scope),
        });
        f(&mut ScopeBuilder {
            h: self.h,
            scope: id,
        });
    }

    /// Declares a signal of `width` bits in this scope.
    pub fn signal(&mut self, name: &str, width: u32) -> SignalId {
        let radix = if width == 1 { Radix::Bin } else { Radix::Dec };
        self.signal_as(name, width, radix)
    }

    /// Declares a signal shown in `radix` (a mask in binary, a byte in
    /// hexadecimal).
    pub fn signal_as(&mut self, name: &str, width: u32, radix: Radix) -> SignalId {
        assert!(width >= 1, "signal {name} declared with width 0");
        let id = SignalId(self.h.signals.len() as u32);
        self.h.signals.push(SignalDecl {
            scope: self.scope,
            name: name.to_string(),
            width,
            radix,
        });
        id
    }

    /// Number of signals declared so far in the whole hierarchy.
    pub fn signal_count(&self) -> u32 {
        self.h.signals.len() as u32
    }
}

/// A component whose registers can be traced.
pub trait Traced {
    /// What besides the component itself is read when sampling (for example
    /// the channels it drives).
    type Env;

    /// Declares the component's signals in `scope`. Called once.
    fn declare(&self, scope: &mut ScopeBuilder<'_>);

    /// Writes the current value of every declared signal, in declaration
    /// order.
    fn sample(&self, env: &Self::Env, s: &mut Sampler<'_>);

    /// Like [`sample`](Self::sample), for the units in the mask `units`
    /// only: bit `u` stands for unit `u`, and a unit's signals are one
    /// contiguous run of the declaration. The signals of the other units
    /// are skipped ([`Sampler::skip`], [`Sampler::seek`]), so the caller
    /// must know they did not change. A component with ports has two units
    /// per port: unit `p` ([`in_unit`]) is what port `p` receives and keeps
    /// (a switch's input buffer and decode unit), unit `64 + p`
    /// ([`out_unit`]) what it sends (the output unit and its link). The
    /// default has one unit, the whole component, and samples everything.
    fn sample_units(&self, env: &Self::Env, units: u128, s: &mut Sampler<'_>) {
        let _ = units;
        self.sample(env, s)
    }
}

/// The unit mask ([`Traced::sample_units`]) of what port `port` receives:
/// every unit when the port is past 63.
#[inline]
pub fn in_unit(port: u16) -> u128 {
    if port < 64 { 1 << port } else { u128::MAX }
}

/// The unit mask ([`Traced::sample_units`]) of what port `port` sends:
/// every unit when the port is past 63.
#[inline]
pub fn out_unit(port: u16) -> u128 {
    if port < 64 {
        1 << (64 + port)
    } else {
        u128::MAX
    }
}

/// The value of one signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalValue<'a> {
    /// Not yet reset or not meaningful (`x`).
    Unknown,
    /// A signal of at most 64 bits.
    Narrow(u64),
    /// A wider signal, least significant word first.
    Wide(&'a [u64]),
}

/// One signal's last value: its bits (a signal of at most 64 bits) and
/// whether it is unknown, side by side so that a sample reads one place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    /// The value; [`UNKNOWN_V`] while the signal is unknown. A value that
    /// fits fewer than 64 bits is never [`UNKNOWN_V`], so a sample that
    /// finds its value here learns the signal is known without reading
    /// `unknown` ([`put`]).
    v: u64,
    unknown: bool,
    /// The signal is wider than 64 bits: its value is in
    /// [`TraceState::wide`], not in `v` (what its width says, kept here so
    /// that reading a value takes one place).
    wide: bool,
}

/// What an unknown signal's [`Slot::v`] holds: all ones, a value no signal
/// narrower than 64 bits can take.
const UNKNOWN_V: u64 = u64::MAX;

/// The signals that changed since the log was last cleared, with their
/// new values as they were written: what a sink that hands changes on
/// ([`TraceState::export_changes`] of the state's own changes) copies as it is, instead of reading every
/// changed signal's value back.
#[derive(Debug, Default)]
struct ChangeLog {
    /// The signals, in the order they changed.
    ids: Vec<u32>,
    /// Per change: the value of a signal of at most 64 bits, the index in
    /// `wide` of a wider one's words, 0 for an unknown value.
    words: Vec<u64>,
    /// The changes (places in `ids`) to an unknown value.
    unknown_at: Vec<u32>,
    /// The changes (places in `ids`) of signals wider than 64 bits.
    wide_at: Vec<u32>,
    /// The words of the wide values, least significant first.
    wide: Vec<u64>,
    /// Changes `ids` and `words` both have room for: at most the smaller
    /// of their capacities, so that a change checks one bound, not one
    /// per list ([`value`](Self::value)). Every change of either list's
    /// capacity goes through [`sync_room`](Self::sync_room).
    room: usize,
}

impl Clone for ChangeLog {
    /// A copy whose `room` is its own lists' (a cloned list's capacity
    /// need not be the original's).
    fn clone(&self) -> Self {
        let mut c = ChangeLog {
            ids: self.ids.clone(),
            words: self.words.clone(),
            unknown_at: self.unknown_at.clone(),
            wide_at: self.wide_at.clone(),
            wide: self.wide.clone(),
            room: 0,
        };
        c.sync_room();
        c
    }
}

impl ChangeLog {
    /// Appends one change to `ids` and `words`, which are of one length:
    /// signal `id` took `word` (a value, or where a value is kept).
    #[inline(always)]
    fn value(&mut self, id: u32, word: u64) {
        let n = self.ids.len();
        debug_assert_eq!(n, self.words.len(), "a change log's lists of one length");
        if n >= self.room {
            self.grow();
        }
        debug_assert!(n < self.ids.capacity() && n < self.words.capacity());
        // SAFETY: `n < room`, and `room` is at most either list's
        // capacity: the place `n` of both is allocated, and the first `n`
        // are written.
        unsafe {
            self.ids.as_mut_ptr().add(n).write(id);
            self.ids.set_len(n + 1);
            self.words.as_mut_ptr().add(n).write(word);
            self.words.set_len(n + 1);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.reserve(self.ids.len() + 1);
    }

    /// Takes the lists' capacities as they are now.
    fn sync_room(&mut self) {
        self.room = self.ids.capacity().min(self.words.capacity());
    }

    /// Makes room for `n` changes in all.
    fn reserve(&mut self, n: usize) {
        self.ids.reserve(n.saturating_sub(self.ids.len()));
        self.words.reserve(n.saturating_sub(self.words.len()));
        self.sync_room();
    }

    /// Swaps the lists with `ids`, `words` and `wide`.
    fn swap_lists(&mut self, ids: &mut Vec<u32>, words: &mut Vec<u64>, wide: &mut Vec<u64>) {
        std::mem::swap(&mut self.ids, ids);
        std::mem::swap(&mut self.words, words);
        std::mem::swap(&mut self.wide, wide);
        self.sync_room();
    }

    #[inline(always)]
    fn unknown(&mut self, id: u32) {
        self.unknown_at.push(self.ids.len() as u32);
        self.value(id, 0);
    }

    fn wide(&mut self, id: u32, ws: &[u64]) {
        self.wide_at.push(self.ids.len() as u32);
        self.value(id, self.wide.len() as u64);
        self.wide.extend_from_slice(ws);
    }

    fn clear(&mut self) {
        self.ids.clear();
        self.words.clear();
        self.unknown_at.clear();
        self.wide_at.clear();
        self.wide.clear();
    }
}

/// No place in [`WideStore::values`] yet.
const NO_WIDE: u32 = u32::MAX;

/// The values of the signals wider than 64 bits, each given its words the
/// first time it takes a known value: a switch's decode unit declares
/// signals of one bit per node (`dests`, `hdr_out{q}`) that stay unknown
/// unless bit-string worms pass, and words kept for every one of them
/// from the start took 8 GB at 16,384 switches (address space, untouched)
/// and failed to allocate at 32,768.
#[derive(Clone, Debug, Default)]
struct WideStore {
    /// Per signal, its place in `values` ([`NO_WIDE`]: none yet).
    at: Vec<u32>,
    /// The words of each signal given a place, least significant first.
    values: Vec<Box<[u64]>>,
}

impl WideStore {
    /// Signal `i`'s words, given their place (all zeros) if it has none.
    #[inline]
    fn words_mut(&mut self, i: usize, width: u32) -> &mut [u64] {
        if self.at[i] == NO_WIDE {
            // Fewer places than signals, whose ids are u32.
            self.at[i] = self.values.len() as u32;
            self.values
                .push(vec![0; width.div_ceil(64) as usize].into_boxed_slice());
        }
        &mut self.values[self.at[i] as usize]
    }

    /// Signal `i`'s words; only for a signal that has taken a known value.
    #[inline]
    fn words(&self, i: usize) -> &[u64] {
        debug_assert_ne!(
            self.at[i], NO_WIDE,
            "wide signal {i} read before it was known"
        );
        &self.values[self.at[i] as usize]
    }
}

/// Last value of every signal and the signals that changed this cycle.
#[derive(Clone, Debug)]
pub struct TraceState {
    widths: Vec<u32>,
    slots: Vec<Slot>,
    wide: WideStore,
    log: ChangeLog,
}

impl TraceState {
    /// Every signal of `h`, all unknown.
    pub fn new(h: &Hierarchy) -> Self {
        TraceState {
            widths: h.signals.iter().map(|s| s.width).collect(),
            slots: h
                .signals
                .iter()
                .map(|s| Slot {
                    v: UNKNOWN_V,
                    unknown: true,
                    wide: s.width > 64,
                })
                .collect(),
            wide: WideStore {
                at: vec![NO_WIDE; h.signals.len()],
                values: Vec::new(),
            },
            log: ChangeLog::default(),
        }
    }

    /// A sampler that writes signals `first..first + count`.
    pub fn sampler(&mut self, first: u32, count: u32) -> Sampler<'_> {
        let range = first as usize..(first + count) as usize;
        Sampler {
            slots: &mut self.slots[range],
            widths: &self.widths,
            wide: &mut self.wide,
            changed: &mut self.log,
            first,
            k: 0,
        }
    }

    /// Signals that changed since [`clear_changes`](Self::clear_changes).
    pub fn changed(&self) -> &[u32] {
        &self.log.ids
    }

    /// Forgets the changes of the last cycle.
    pub fn clear_changes(&mut self) {
        self.log.clear();
    }

    /// Width of a signal.
    pub fn width(&self, sig: SignalId) -> u32 {
        self.widths[sig.0 as usize]
    }

    /// Number of signals.
    pub fn len(&self) -> usize {
        self.widths.len()
    }

    /// True when no signal is declared.
    pub fn is_empty(&self) -> bool {
        self.widths.is_empty()
    }

    /// Sets signal `to` to the value `from` has for `src` (of the same
    /// width), recording a change when it differs: how a waveform limited
    /// to some scopes keeps its own, smaller state.
    pub fn copy_from(&mut self, to: SignalId, from: &TraceState, src: SignalId) {
        let (i, j) = (to.0 as usize, src.0 as usize);
        debug_assert_eq!(self.widths[i], from.widths[j]);
        let mut changed = self.slots[i].unknown != from.slots[j].unknown;
        self.slots[i].unknown = from.slots[j].unknown;
        if self.slots[i].wide {
            // An unknown value's words mean nothing, and are not compared.
            if !from.slots[j].unknown {
                let ws = from.wide.words(j);
                let mine = self.wide.words_mut(i, self.widths[i]);
                if *mine != *ws {
                    mine.copy_from_slice(ws);
                    changed = true;
                }
            }
        } else if self.slots[i].v != from.slots[j].v {
            self.slots[i].v = from.slots[j].v;
            changed = true;
        }
        if changed {
            self.log_change(i);
        }
    }

    /// Records signal `i`'s current value as a change.
    fn log_change(&mut self, i: usize) {
        let slot = self.slots[i];
        if slot.unknown {
            self.log.unknown(i as u32);
        } else if slot.wide {
            self.log.wide(i as u32, self.wide.words(i));
        } else {
            self.log.value(i as u32, slot.v);
        }
    }

    /// Sets a signal's value (of its width) and records it as changed,
    /// without comparing it with the last: for a copy of another state fed
    /// only with that state's changes.
    pub fn set(&mut self, sig: SignalId, v: SignalValue<'_>) {
        let i = sig.0 as usize;
        match v {
            SignalValue::Unknown => {
                self.slots[i].unknown = true;
                self.slots[i].v = UNKNOWN_V;
            }
            SignalValue::Narrow(x) => {
                self.slots[i] = Slot {
                    v: x,
                    unknown: false,
                    wide: false,
                }
            }
            SignalValue::Wide(ws) => {
                self.slots[i].unknown = false;
                self.wide.words_mut(i, self.widths[i]).copy_from_slice(ws);
            }
        }
        self.log_change(i);
    }

    /// Current value of a signal.
    #[inline]
    pub fn value(&self, sig: SignalId) -> SignalValue<'_> {
        let i = sig.0 as usize;
        let slot = self.slots[i];
        if slot.unknown {
            SignalValue::Unknown
        } else if slot.wide {
            SignalValue::Wide(self.wide.words(i))
        } else {
            SignalValue::Narrow(slot.v)
        }
    }

    /// Appends the values of the signals in `changed` (ids of this state's
    /// signals), for a sink that hands them on, one entry per signal in
    /// `ids` and `words`: the id, with `unknown` or'ed in when the value
    /// is unknown; and the value of a signal of at most 64 bits, or for a
    /// wider one the index in `wide` where its words (least significant
    /// first) are appended (the word of an unknown value means nothing).
    /// The same as calling [`value`](Self::value) for each. When `changed`
    /// is this state's own [`changed`](Self::changed) (as a simulation
    /// passes it to its sink), the values logged as they were written are
    /// copied as they are (an unknown value's word is then 0), instead of
    /// every changed signal being read back: the cheap way to hand a
    /// cycle's changes to another thread.
    pub fn export_changes(
        &self,
        changed: &[u32],
        unknown: u32,
        ids: &mut Vec<u32>,
        words: &mut Vec<u64>,
        wide: &mut Vec<u64>,
    ) {
        let own = &self.log.ids;
        if changed.as_ptr() == own.as_ptr() && changed.len() == own.len() {
            return self.copy_log(unknown, ids, words, wide);
        }
        // Any other list: two straight passes over the values.
        let slots = &self.slots[..];
        ids.extend(changed.iter().map(|&i| {
            let flag = if slots[i as usize].unknown {
                unknown
            } else {
                0
            };
            i | flag
        }));
        words.extend(changed.iter().map(|&i| {
            let slot = slots[i as usize];
            if slot.wide && !slot.unknown {
                let at = wide.len();
                wide.extend_from_slice(self.wide.words(i as usize));
                at as u64
            } else {
                slot.v
            }
        }));
    }

    /// Makes room in the change log for `n` changes in all, for a sink
    /// that lets it collect many cycles before it takes them
    /// ([`take_changes`](Self::take_changes)).
    pub fn reserve_changes(&mut self, n: usize) {
        self.log.reserve(n);
    }

    /// [`export_changes`](Self::export_changes) of this state's own
    /// changes followed by [`clear_changes`](Self::clear_changes), without
    /// the copy when `ids`, `words` and `wide` are empty: the log's
    /// vectors are handed over as they are (the unknown values flagged in
    /// place) and the state logs on in the empty vectors it gets in
    /// exchange. For a log that collected the changes of many cycles.
    pub fn take_changes(
        &mut self,
        unknown: u32,
        ids: &mut Vec<u32>,
        words: &mut Vec<u64>,
        wide: &mut Vec<u64>,
    ) {
        if !(ids.is_empty() && words.is_empty() && wide.is_empty()) {
            self.copy_log(unknown, ids, words, wide);
            self.log.clear();
            return;
        }
        let log = &mut self.log;
        for &k in &log.unknown_at {
            log.ids[k as usize] |= unknown;
        }
        log.swap_lists(ids, words, wide);
        log.clear();
    }

    /// [`export_changes`](Self::export_changes) of this state's own
    /// changes: the log copied, and its few unknown and wide entries fixed
    /// up for where they land.
    fn copy_log(
        &self,
        unknown: u32,
        ids: &mut Vec<u32>,
        words: &mut Vec<u64>,
        wide: &mut Vec<u64>,
    ) {
        let log = &self.log;
        let (base, wide_base) = (ids.len(), wide.len() as u64);
        ids.extend_from_slice(&log.ids);
        words.extend_from_slice(&log.words);
        for &k in &log.unknown_at {
            ids[base + k as usize] |= unknown;
        }
        if !log.wide_at.is_empty() {
            wide.extend_from_slice(&log.wide);
            for &k in &log.wide_at {
                words[base + k as usize] += wide_base;
            }
        }
    }

    /// Current value as binary text, most significant bit first, `x` when
    /// unknown (as a VCD vector would show it).
    pub fn format(&self, sig: SignalId) -> String {
        let w = self.width(sig) as usize;
        match self.value(sig) {
            SignalValue::Unknown => "x".repeat(w),
            SignalValue::Narrow(v) => (0..w)
                .rev()
                .map(|b| if v >> b & 1 == 1 { '1' } else { '0' })
                .collect(),
            SignalValue::Wide(words) => (0..w)
                .rev()
                .map(|b| {
                    if words[b / 64] >> (b % 64) & 1 == 1 {
                        '1'
                    } else {
                        '0'
                    }
                })
                .collect(),
        }
    }
}

/// Writes the values of one component's signals, in declaration order, and
/// records which changed.
pub struct Sampler<'a> {
    /// The component's signals.
    slots: &'a mut [Slot],
    /// Every signal's width (indexed from `first`, not sliced: a value's
    /// write reads it only where it checks).
    widths: &'a [u32],
    /// Every signal's words, if wider than 64 bits.
    wide: &'a mut WideStore,
    changed: &'a mut ChangeLog,
    /// Id of the component's first signal.
    first: u32,
    /// The next signal, from `first`.
    k: usize,
}

/// True when `v` fits a signal of `width` bits, at most 64 (what a debug
/// build checks of every value written).
fn fits(width: u32, v: u64) -> bool {
    width <= 64 && (width == 64 || v >> width == 0)
}

/// Writes `v` into signal `id`'s slot, recording a change when it differs
/// from the last value.
#[inline(always)]
fn put(slot: &mut Slot, id: u32, v: u64, changed: &mut ChangeLog) {
    debug_assert!(!slot.wide, "wide signal {id} written as a word");
    // An unknown slot holds `UNKNOWN_V`: only a value of all ones (of a
    // 64-bit signal) needs `unknown` read, and for most values the
    // compiler knows it is not that.
    if slot.v != v || (v == UNKNOWN_V && slot.unknown) {
        *slot = Slot {
            v,
            unknown: false,
            wide: false,
        };
        changed.value(id, v);
    }
}

/// Makes signal `id` unknown, recording a change when it was known.
#[inline(always)]
fn put_unknown(slot: &mut Slot, id: u32, changed: &mut ChangeLog) {
    if !slot.unknown {
        slot.unknown = true;
        slot.v = UNKNOWN_V;
        changed.unknown(id);
    }
}

#[cold]
#[inline(never)]
fn run_out_of_place(k: usize, n: usize, at: usize, len: usize) -> ! {
    panic!("component took {n} signals from signal {k}, at signal {at} of {len}")
}

#[cold]
#[inline(never)]
fn sampled_too_few() -> ! {
    panic!("component sampled fewer signals than it declared")
}

#[cold]
#[inline(never)]
fn sampled_too_many() -> ! {
    panic!("component sampled more signals than it declared")
}

impl Sampler<'_> {
    /// The next signal's slot and index among the component's.
    #[inline(always)]
    fn take(&mut self) -> usize {
        let k = self.k;
        if k >= self.slots.len() {
            sampled_too_many()
        }
        self.k = k + 1;
        k
    }

    /// The next signal's value (`v` must fit its width).
    #[inline(always)]
    pub fn value(&mut self, v: u64) {
        let k = self.take();
        let id = self.first + k as u32;
        debug_assert!(
            fits(self.widths[id as usize], v),
            "value {v} does not fit signal {id} of {} bits",
            self.widths[id as usize]
        );
        put(&mut self.slots[k], id, v, self.changed);
    }

    /// The next signal's value, one bit.
    #[inline(always)]
    pub fn bit(&mut self, b: bool) {
        self.value(b as u64)
    }

    /// The next signal is unknown (`x`).
    #[inline(always)]
    pub fn unknown(&mut self) {
        let k = self.take();
        put_unknown(&mut self.slots[k], self.first + k as u32, self.changed);
    }

    /// The next signal's value, or `x` for `None`.
    #[inline(always)]
    pub fn maybe(&mut self, v: Option<u64>) {
        match v {
            Some(v) => self.value(v),
            None => self.unknown(),
        }
    }

    /// The next `n` signals are unknown (`x`): one bounds check for all.
    #[inline]
    pub fn unknowns(&mut self, n: u32) {
        let (k, n) = (self.k, n as usize);
        if k + n > self.slots.len() {
            sampled_too_many()
        }
        self.k = k + n;
        let first = self.first + k as u32;
        for (j, slot) in self.slots[k..k + n].iter_mut().enumerate() {
            put_unknown(slot, first + j as u32, self.changed);
        }
    }

    /// The next signal's value as a bit string (any width).
    pub fn bits(&mut self, b: &BitString) {
        let k = self.take();
        let w = self.widths[self.first as usize + k] as usize;
        assert_eq!(
            b.len(),
            w,
            "bit string of {} bits for a {w}-bit signal",
            b.len()
        );
        let words = b.as_bitslice();
        let mut changed = self.slots[k].unknown;
        let id = self.first + k as u32;
        if w > 64 {
            let mine = self.wide.words_mut(id as usize, w as u32);
            for (n, chunk) in words.chunks(64).enumerate() {
                let v = chunk.iter_ones().fold(0u64, |acc, j| acc | 1 << j);
                if mine[n] != v {
                    mine[n] = v;
                    changed = true;
                }
            }
            if changed {
                self.slots[k].unknown = false;
                self.changed.wide(id, mine);
            }
        } else {
            let v = words.iter_ones().fold(0u64, |acc, j| acc | 1 << j);
            if self.slots[k].v != v {
                self.slots[k].v = v;
                changed = true;
            }
            if changed {
                self.slots[k].unknown = false;
                self.changed.value(id, v);
            }
        }
    }

    /// Takes the next `N` signals at once, for a unit whose signals are
    /// written one after the other: one bounds check for all of them.
    #[inline(always)]
    pub fn run<const N: usize>(&mut self) -> Run<'_, N> {
        let k = self.k;
        if k + N > self.slots.len() {
            sampled_too_many()
        }
        self.run_from(k)
    }

    /// The run of `N` signals from the component's `k`-th, which the
    /// caller has checked lies within the component.
    #[inline(always)]
    fn run_from<const N: usize>(&mut self, k: usize) -> Run<'_, N> {
        self.k = k + N;
        let slots: &mut [Slot; N] = (&mut self.slots[k..k + N]).try_into().expect("N slots");
        Run {
            slots,
            widths: self.widths,
            changed: self.changed,
            first: self.first + k as u32,
            k: 0,
        }
    }

    /// Takes the `N` signals from the component's `k`-th (counted from its
    /// first) at once, like [`seek`](Self::seek) to `k` and then
    /// [`run`](Self::run): the signals passed over keep their values and
    /// are not changes.
    #[inline(always)]
    pub fn run_at<const N: usize>(&mut self, k: u32) -> Run<'_, N> {
        // `k` is a `u32`: `k + N` cannot overflow, and one comparison
        // checks both that the run starts within the component and that
        // it ends there.
        let k = k as usize;
        if k < self.k || k + N > self.slots.len() {
            run_out_of_place(k, N, self.k, self.slots.len())
        }
        self.run_from(k)
    }

    /// The next signal's place among the component's (counted from its
    /// first).
    #[inline]
    pub fn at(&self) -> u32 {
        self.k as u32
    }

    /// Moves to the component's `k`-th signal (counted from its first):
    /// the signals passed over keep their values and are not changes.
    #[inline]
    pub fn seek(&mut self, k: u32) {
        assert!(
            k as usize >= self.k && k as usize <= self.slots.len(),
            "component sought signal {k} from {} of {}",
            self.k,
            self.slots.len()
        );
        self.k = k as usize;
    }

    /// Skips the next `n` signals: they keep their values and are not
    /// changes.
    #[inline]
    pub fn skip(&mut self, n: u32) {
        assert!(
            self.slots.len() - self.k >= n as usize,
            "component skipped more signals than it declared"
        );
        self.k += n as usize;
    }

    /// Checks that every declared signal was written or skipped.
    ///
    /// By reference and inline: taken by value, the sampler (ten words)
    /// was copied right after the component's sampling had stored its
    /// position, a copy that waits for that store on every component
    /// sampled.
    #[inline(always)]
    pub fn finish(&self) {
        if self.k != self.slots.len() {
            sampled_too_few()
        }
    }
}

/// `N` consecutive signals of a component, taken at once from a
/// [`Sampler`] ([`Sampler::run`]) and written in order like the sampler's.
/// Written in straight-line code, the position is known where each value
/// is written, so no value pays a bounds check.
pub struct Run<'s, const N: usize> {
    slots: &'s mut [Slot; N],
    /// Every signal's width (indexed by id), for a debug build's checks.
    widths: &'s [u32],
    changed: &'s mut ChangeLog,
    /// Id of the run's first signal.
    first: u32,
    /// The next signal, from `first`.
    k: usize,
}

impl<const N: usize> Run<'_, N> {
    /// The next signal's value (`v` must fit its width).
    #[inline(always)]
    pub fn value(&mut self, v: u64) {
        let k = self.k;
        self.k = k + 1;
        let id = self.first + k as u32;
        debug_assert!(
            fits(self.widths[id as usize], v),
            "value {v} does not fit signal {id} of {} bits",
            self.widths[id as usize]
        );
        put(&mut self.slots[k], id, v, self.changed);
    }

    /// The next signal's value, one bit.
    #[inline(always)]
    pub fn bit(&mut self, b: bool) {
        self.value(b as u64)
    }

    /// The next signal is unknown (`x`).
    #[inline(always)]
    pub fn unknown(&mut self) {
        let k = self.k;
        self.k = k + 1;
        put_unknown(&mut self.slots[k], self.first + k as u32, self.changed);
    }

    /// The next signal's value, or `x` for `None`.
    #[inline(always)]
    pub fn maybe(&mut self, v: Option<u64>) {
        match v {
            Some(v) => self.value(v),
            None => self.unknown(),
        }
    }

    /// Checks that all `N` signals were written.
    #[inline(always)]
    pub fn finish(self) {
        assert_eq!(self.k, N, "a run of {N} signals wrote {}", self.k);
    }
}

/// A window of cycles, both ends included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// The first cycle.
    pub from: u64,
    /// The last cycle (`None`: no end).
    pub to: Option<u64>,
}

impl Window {
    /// Whether `cycle` lies in the window.
    #[inline]
    pub fn holds(&self, cycle: u64) -> bool {
        cycle >= self.from && self.to.is_none_or(|to| cycle <= to)
    }

    /// Cycles a simulation whose clock reads `cycle` may skip, when
    /// nothing happens in them, without leaving out a cycle the window
    /// samples: a step from `cycle` samples the values during `cycle + 1`,
    /// and the window's first cycle must be stepped into (it samples every
    /// chosen component whole). Those before the window, up to the one
    /// before its first; every cycle after its last; none within it.
    pub fn skippable(&self, cycle: u64) -> u64 {
        if cycle.saturating_add(1) < self.from {
            self.from - 1 - cycle
        } else if self.to.is_some_and(|to| cycle >= to) {
            u64::MAX
        } else {
            0
        }
    }
}

/// The part of what a simulation samples that a [`WaveSink`] writes
/// ([`WaveSink::wants`]): a window of cycles and a choice of signals. A
/// simulation need not sample outside it. What it does sample must be
/// right: every signal the sink writes, in every cycle of the window, with
/// the window's first cycle given with every such signal that changed
/// since the sink's `begin`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wants<'a> {
    /// The cycles written: the sink takes no cycle outside them (the
    /// values during the first are the waveform's first).
    pub window: Window,
    /// Per signal of the hierarchy given to `begin`, its id in the
    /// waveform written, `None` for a signal not written (`None` for the
    /// whole: every signal is written).
    pub signals: Option<&'a [Option<SignalId>]>,
}

impl Wants<'_> {
    /// Whether any of the `count` signals from signal `first` (one
    /// component's) is written.
    pub fn any_of(&self, first: u32, count: u32) -> bool {
        match self.signals {
            None => true,
            Some(s) => s[first as usize..(first + count) as usize]
                .iter()
                .any(Option::is_some),
        }
    }

    /// The components with a signal written, a bit each (bit `c % 64` of
    /// word `c / 64`), of components whose signals start at `first[c]`
    /// and number `count[c]`.
    pub fn components(&self, first: &[u32], count: &[u32]) -> Vec<u64> {
        let mut bits = vec![0u64; first.len().div_ceil(64)];
        for (c, (&f, &n)) in first.iter().zip(count).enumerate() {
            if self.any_of(f, n) {
                bits[c >> 6] |= 1 << (c & 63);
            }
        }
        bits
    }
}

/// Where sampled waveforms go.
pub trait WaveSink {
    /// Called once, before the first cycle: the hierarchy, the clock period in
    /// picoseconds, and the values at cycle 0.
    fn begin(&mut self, h: &Hierarchy, cycle_ps: u64, state: &TraceState) -> Result<()>;

    /// Like [`begin`](Self::begin), for a waveform that starts at cycle
    /// `first` (a window of a run): `state` holds the values during that
    /// cycle. The default accepts only cycle 0.
    fn begin_at(
        &mut self,
        h: &Hierarchy,
        cycle_ps: u64,
        state: &TraceState,
        first: u64,
    ) -> Result<()> {
        if first != 0 {
            return Err(crate::Error::Wave(format!(
                "this waveform sink cannot start at cycle {first}, only at 0"
            )));
        }
        self.begin(h, cycle_ps, state)
    }

    /// The values that changed at the clock edge that starts `cycle`.
    fn cycle(&mut self, cycle: u64, state: &TraceState, changed: &[u32]) -> Result<()>;

    /// The cycles and signals this sink writes, once [`begin`](Self::begin)
    /// has been called ([`Wants`]). A simulation may leave the rest
    /// unsampled and not call [`cycle`](Self::cycle) for cycles outside the
    /// window, provided the window's first cycle comes with every written
    /// signal that changed since `begin`. The default: every signal of
    /// every cycle.
    fn wants(&self) -> Wants<'_> {
        Wants::default()
    }

    /// True when the sink takes a cycle's changes as exported words
    /// ([`cycle_exported`](Self::cycle_exported)) and keeps no copy of
    /// every value of its own: a waveform written on its own thread
    /// ([`crate::wave::Background`]) then keeps none either. The default
    /// is false.
    fn takes_exported(&self) -> bool {
        false
    }

    /// The values that changed at the clock edge that starts `cycle`, as
    /// [`TraceState::export_changes`] gives them: the signals in `ids`
    /// (with `unknown` or'ed in for an unknown value) and one word each in
    /// `words` (the value of a signal of at most 64 bits, or the index in
    /// `wide` of a wider one's words). Called only on a sink whose
    /// [`takes_exported`](Self::takes_exported) is true; the default
    /// refuses.
    fn cycle_exported(
        &mut self,
        cycle: u64,
        ids: &[u32],
        words: &[u64],
        wide: &[u64],
        unknown: u32,
    ) -> Result<()> {
        let _ = (cycle, ids, words, wide, unknown);
        Err(crate::Error::Wave(
            "this waveform sink takes changes only with a copy of every value".into(),
        ))
    }

    /// Called once at the end; flushes.
    fn finish(&mut self, last_cycle: u64) -> Result<()>;

    /// The changes at the clock edge that starts `cycle`, as they stand in
    /// `state`'s change log ([`TraceState::changed`]), which is the sink's
    /// to clear or to keep. The default hands them to
    /// [`cycle`](Self::cycle) and clears the log. A sink that keeps the
    /// log lets it collect the changes of many cycles and then takes them
    /// all at once ([`TraceState::take_changes`]), instead of copying each
    /// cycle's: a waveform written on its own thread
    /// ([`crate::wave::Background`]). A caller that uses this method ends
    /// with [`finish_logged`](Self::finish_logged), so that the changes
    /// still in the log are not lost.
    fn cycle_logged(&mut self, cycle: u64, state: &mut TraceState) -> Result<()> {
        let r = self.cycle(cycle, state, state.changed());
        state.clear_changes();
        r
    }

    /// [`finish`](Self::finish), after [`cycle_logged`](Self::cycle_logged)
    /// calls: `state` is the one those calls logged into. The default
    /// finishes.
    fn finish_logged(&mut self, last_cycle: u64, state: &mut TraceState) -> Result<()> {
        let _ = state;
        self.finish(last_cycle)
    }
}

/// A sink that discards everything (measures the cost of sampling alone;
/// behind [`crate::wave::Background`], of sampling and handing every change
/// to another thread, which takes them as exported words).
#[derive(Clone, Copy, Debug, Default)]
pub struct NullSink;

impl WaveSink for NullSink {
    fn begin(&mut self, _: &Hierarchy, _: u64, _: &TraceState) -> Result<()> {
        Ok(())
    }
    fn begin_at(&mut self, _: &Hierarchy, _: u64, _: &TraceState, _: u64) -> Result<()> {
        Ok(())
    }
    fn cycle(&mut self, _: u64, _: &TraceState, _: &[u32]) -> Result<()> {
        Ok(())
    }
    fn takes_exported(&self) -> bool {
        true
    }
    fn cycle_exported(&mut self, _: u64, _: &[u32], _: &[u64], _: &[u64], _: u32) -> Result<()> {
        Ok(())
    }
    fn finish(&mut self, _: u64) -> Result<()> {
        Ok(())
    }
}

/// One recorded value change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// Cycle at whose starting edge the value took effect.
    pub cycle: u64,
    /// The signal.
    pub signal: SignalId,
    /// Binary text, most significant bit first, `x`s when unknown.
    pub value: String,
}

/// A sink that keeps every change in memory, for tests. It is a handle:
/// clones share the same record, so a test keeps one clone and gives the
/// other to the system.
#[derive(Clone, Debug, Default)]
pub struct MemorySink {
    inner: std::sync::Arc<std::sync::Mutex<Recorded>>,
}

#[derive(Clone, Debug, Default)]
struct Recorded {
    hierarchy: Hierarchy,
    changes: Vec<Change>,
}

impl MemorySink {
    /// An empty record.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Recorded> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The hierarchy seen at `begin`.
    pub fn hierarchy(&self) -> Hierarchy {
        self.lock().hierarchy.clone()
    }

    /// Every change, in time order (cycle 0 holds every signal's first value).
    pub fn changes(&self) -> Vec<Change> {
        self.lock().changes.clone()
    }

    /// The changes of one signal, by dotted path, as (cycle, binary text);
    /// `None` when no signal has that path.
    pub fn try_history(&self, path: &str) -> Option<Vec<(u64, String)>> {
        let r = self.lock();
        let sig = r.hierarchy.find(path)?;
        Some(
            r.changes
                .iter()
                .filter(|c| c.signal == sig)
                .map(|c| (c.cycle, c.value.clone()))
                .collect(),
        )
    }

    /// The changes of one signal, by dotted path, as (cycle, binary text).
    ///
    /// # Panics
    /// When no signal has that path (this is a helper for tests, where a
    /// misspelt name must not pass as a signal that never changes).
    pub fn history(&self, path: &str) -> Vec<(u64, String)> {
        self.try_history(path)
            .unwrap_or_else(|| panic!("no traced signal is named {path}"))
    }

    /// The value of a signal (by path) during `cycle`.
    pub fn value_at(&self, path: &str, cycle: u64) -> Option<String> {
        self.try_history(path)?
            .into_iter()
            .take_while(|(c, _)| *c <= cycle)
            .last()
            .map(|(_, v)| v)
    }
}

impl WaveSink for MemorySink {
    fn begin(&mut self, h: &Hierarchy, ps: u64, state: &TraceState) -> Result<()> {
        self.begin_at(h, ps, state, 0)
    }

    fn begin_at(&mut self, h: &Hierarchy, _: u64, state: &TraceState, first: u64) -> Result<()> {
        let mut r = self.lock();
        r.hierarchy = h.clone();
        for i in 0..state.len() as u32 {
            r.changes.push(Change {
                cycle: first,
                signal: SignalId(i),
                value: state.format(SignalId(i)),
            });
        }
        Ok(())
    }

    fn cycle(&mut self, cycle: u64, state: &TraceState, changed: &[u32]) -> Result<()> {
        let mut r = self.lock();
        for &i in changed {
            r.changes.push(Change {
                cycle,
                signal: SignalId(i),
                value: state.format(SignalId(i)),
            });
        }
        Ok(())
    }

    fn finish(&mut self, _: u64) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index gives each scope the children and signals the scans give,
    /// in declaration order, with signals declared after a child scope,
    /// empty scopes, and a scope with signals and no children.
    #[test]
    fn the_index_agrees_with_scanning_every_scope() {
        let mut h = Hierarchy::new("top");
        let mut root = h.root();
        root.signal("first", 1);
        root.scope("a", |s| {
            s.signal("x", 2);
            s.scope("a0", |s| {
                s.signal("y", 3);
            });
            s.signal("after_a0", 1);
            s.scope("empty", |_| {});
            s.scope("a1", |s| {
                s.signal("z", 8);
                s.signal("w", 9);
            });
        });
        root.signal("between", 4);
        root.scope("b", |s| {
            s.signal("v", 5);
        });
        let ix = h.index();
        for scope in 0..h.scopes.len() as u32 {
            assert_eq!(
                ix.children(scope),
                h.child_scopes(scope).collect::<Vec<_>>(),
                "children of {}",
                h.scope_path(scope)
            );
            assert_eq!(
                ix.signals(scope),
                h.scope_signals(scope).collect::<Vec<_>>(),
                "signals of {}",
                h.scope_path(scope)
            );
        }
        let names = |sc: u32| -> Vec<&str> {
            ix.signals(sc)
                .iter()
                .map(|s| h.signals[s.0 as usize].name.as_str())
                .collect()
        };
        assert_eq!(names(0), ["first", "between"]);
        assert_eq!(names(1), ["x", "after_a0"]);
        assert_eq!(ix.children(1).len(), 3);
        assert!(ix.children(3).is_empty() && ix.signals(3).is_empty());
    }

    #[test]
    fn only_changes_are_recorded() {
        let mut h = Hierarchy::new("top");
        let mut root = h.root();
        root.scope("u0", |s| {
            s.signal("a", 4);
            s.signal("wide", 70);
        });
        assert_eq!(h.path(SignalId(1)), "top.u0.wide");
        assert_eq!(h.find("top.u0.a"), Some(SignalId(0)));
        let mut st = TraceState::new(&h);
        assert_eq!(st.format(SignalId(0)), "xxxx");
        let wide = BitString::from_indices(70, [0, 69]);
        {
            let mut s = st.sampler(0, 2);
            s.value(5);
            s.bits(&wide);
            s.finish();
        }
        assert_eq!(st.changed(), &[0, 1]);
        assert_eq!(st.format(SignalId(0)), "0101");
        assert_eq!(st.format(SignalId(1)), format!("1{}1", "0".repeat(68)));
        st.clear_changes();
        {
            let mut s = st.sampler(0, 2);
            s.value(5);
            s.bits(&wide);
            s.finish();
        }
        assert!(st.changed().is_empty(), "same values are not changes");
        {
            let mut s = st.sampler(0, 2);
            s.unknown();
            s.bits(&BitString::zeros(70));
            s.finish();
        }
        assert_eq!(st.changed(), &[0, 1]);
        assert_eq!(st.value(SignalId(0)), SignalValue::Unknown);
    }

    #[test]
    fn a_trace_is_refused_by_the_memory_its_signals_take() {
        assert!(room_in(1000, 32_000, 321_000).is_ok());
        assert!(room_in(1000, 32_000, 320_999).is_err());
        let e = room_in(4_000_000, 1_000_000_000, 1_000_000_000).unwrap_err();
        assert_eq!(
            e.to_string(),
            "tracing 4000000 signals takes about 1311 MB (327 bytes a signal), more than the 1000 MB of memory available"
        );
    }

    /// A signal wider than 64 bits is given its words when it first takes
    /// a known value, not before: 10,000 signals of 2^20 bits declared
    /// take no words while they are unknown (1.3 GB if each had its words
    /// from the start), one known takes its own, and its changes, to
    /// unknown and back to the same value, through a sampler, `set` and
    /// `copy_from`, are those of a state that kept every word.
    #[test]
    fn a_wide_signal_takes_its_words_when_first_known() {
        const W: u32 = 1 << 20;
        let mut h = Hierarchy::new("top");
        h.root().scope("u", |s| {
            for i in 0..10_000 {
                s.signal(&format!("w{i}"), W);
            }
        });
        let mut st = TraceState::new(&h);
        assert!(st.wide.values.is_empty());
        {
            let mut s = st.sampler(0, 10_000);
            s.unknowns(10_000);
            s.finish();
        }
        assert!(st.wide.values.is_empty(), "unknown values take no words");
        let v = BitString::from_indices(W as usize, [3, W as usize - 1]);
        let sample = |st: &mut TraceState, b: Option<&BitString>| {
            st.clear_changes();
            let mut s = st.sampler(7, 1);
            match b {
                Some(b) => s.bits(b),
                None => s.unknown(),
            }
            s.finish();
            st.changed().to_vec()
        };
        assert_eq!(sample(&mut st, Some(&v)), [7]);
        assert_eq!(st.wide.values.len(), 1);
        assert_eq!(st.wide.values[0].len(), (W / 64) as usize);
        let SignalValue::Wide(ws) = st.value(SignalId(7)) else {
            panic!("a known wide value")
        };
        assert_eq!((ws[0], ws[ws.len() - 1]), (1 << 3, 1 << 63));
        assert_eq!(sample(&mut st, Some(&v)), [] as [u32; 0], "the same value");
        assert_eq!(sample(&mut st, None), [7], "to unknown");
        assert_eq!(sample(&mut st, Some(&v)), [7], "back to the same value");
        assert_eq!(st.wide.values.len(), 1, "its words kept");
        // A copy: an unknown source takes no words, a known one its own.
        let mut other = TraceState::new(&h);
        other.copy_from(SignalId(1), &st, SignalId(2));
        assert!(other.wide.values.is_empty() && other.changed().is_empty());
        other.copy_from(SignalId(1), &st, SignalId(7));
        assert_eq!(other.changed(), &[1]);
        assert_eq!(other.value(SignalId(1)), st.value(SignalId(7)));
        other.clear_changes();
        other.copy_from(SignalId(1), &st, SignalId(7));
        assert!(other.changed().is_empty(), "the same value");
        other.set(SignalId(4), st.value(SignalId(7)));
        assert_eq!(other.wide.values.len(), 2);
        assert_eq!(other.value(SignalId(4)), st.value(SignalId(7)));
    }

    /// An unknown slot holds all ones: a 64-bit signal whose value is all
    /// ones must still be told apart from unknown, both ways, through a
    /// run of a sampler, `set` and `copy_from`.
    #[test]
    fn all_ones_of_64_bits_is_not_unknown() {
        let mut h = Hierarchy::new("top");
        h.root().signal("w", 64);
        h.root().signal("n", 8);
        let mut st = TraceState::new(&h);
        let step = |st: &mut TraceState, v: Option<u64>, n: Option<u64>| {
            st.clear_changes();
            let mut s = st.sampler(0, 2);
            let mut r = s.run::<2>();
            r.maybe(v);
            r.maybe(n);
            r.finish();
            s.finish();
            st.changed().to_vec()
        };
        assert_eq!(step(&mut st, None, None), Vec::<u32>::new());
        assert_eq!(step(&mut st, Some(u64::MAX), Some(255)), [0, 1]);
        assert_eq!(st.value(SignalId(0)), SignalValue::Narrow(u64::MAX));
        assert_eq!(step(&mut st, Some(u64::MAX), Some(255)), Vec::<u32>::new());
        assert_eq!(step(&mut st, None, None), [0, 1]);
        assert_eq!(st.value(SignalId(0)), SignalValue::Unknown);
        assert_eq!(step(&mut st, Some(u64::MAX), None), [0]);
        assert_eq!(step(&mut st, Some(0), Some(0)), [0, 1]);
        assert_eq!(step(&mut st, None, None), [0, 1]);
        assert_eq!(step(&mut st, Some(0), Some(0)), [0, 1], "known again");
        // `set` keeps the same two states apart.
        st.set(SignalId(0), SignalValue::Unknown);
        assert_eq!(step(&mut st, Some(u64::MAX), Some(0)), [0]);
        st.set(SignalId(0), SignalValue::Narrow(u64::MAX));
        assert_eq!(step(&mut st, Some(u64::MAX), Some(0)), Vec::<u32>::new());
        assert_eq!(step(&mut st, None, Some(0)), [0]);
        // And a copy of one state into another.
        let mut other = TraceState::new(&h);
        other.copy_from(SignalId(0), &st, SignalId(0));
        assert!(other.changed().is_empty(), "unknown copied onto unknown");
        assert_eq!(step(&mut st, Some(u64::MAX), Some(0)), [0]);
        other.copy_from(SignalId(0), &st, SignalId(0));
        assert_eq!(other.changed(), &[0]);
        assert_eq!(other.value(SignalId(0)), SignalValue::Narrow(u64::MAX));
    }

    #[test]
    fn exported_changes_give_what_value_gives() {
        let mut h = Hierarchy::new("top");
        for (name, w) in [("a", 4), ("w", 70), ("b", 1), ("v", 130), ("c", 64)] {
            h.root().signal(name, w);
        }
        let mut st = TraceState::new(&h);
        let w70 = BitString::from_indices(70, (0..70).filter(|i| i % 3 == 0));
        let w130 = BitString::from_indices(130, (0..130).filter(|i| i % 5 == 1));
        let mut s = st.sampler(0, 5);
        s.value(9);
        s.bits(&w70);
        s.unknown(); // was unknown: no change
        s.bits(&w130);
        s.value(u64::MAX);
        s.finish();
        let mut s = st.sampler(0, 5);
        s.unknown();
        s.skip(1);
        s.bit(true);
        s.skip(2);
        s.finish();
        // Changes out of order and repeated, as a caller may list them.
        let changed = [4, 0, 3, 2, 1, 1];
        let (mut ids, mut words, mut wide) = (vec![7], vec![70], vec![1, 2]);
        st.export_changes(&changed, 1 << 31, &mut ids, &mut words, &mut wide);
        assert_eq!(ids, [7, 4, 1 << 31, 3, 2, 1, 1]);
        assert_eq!(words.len(), ids.len());
        for (k, &i) in changed.iter().enumerate() {
            let w = words[k + 1];
            match st.value(SignalId(i)) {
                SignalValue::Unknown => assert_eq!(ids[k + 1], i | 1 << 31),
                SignalValue::Narrow(v) => assert_eq!(w, v, "signal {i}"),
                SignalValue::Wide(ws) => {
                    assert_eq!(&wide[w as usize..w as usize + ws.len()], ws, "signal {i}")
                }
            }
        }
        // The wide values' words follow those already there, in order.
        assert_eq!(
            (words[1], words[3], words[4], words[5], words[6]),
            (u64::MAX, 2, 1, 5, 7)
        );
        let mut expect = vec![1, 2];
        expect.extend_from_slice(w130.words());
        expect.extend_from_slice(w70.words());
        expect.extend_from_slice(w70.words());
        assert_eq!(wide, expect);
    }

    /// One signal's write in a cycle of the proptest below.
    #[derive(Clone, Debug)]
    enum Op {
        Skip,
        Unknown,
        Value(u64),
        Bits(Vec<u16>),
        Set(u64),
    }

    use proptest::prelude::*;

    proptest! {
        /// The log copied as it is (the state's own changes given to
        /// [`TraceState::export_changes`]) gives what reading every changed
        /// signal back (any other list of them) gives, cycle after cycle into one batch, whatever the widths and
        /// the mix of values, unknowns, wide values and direct sets.
        #[test]
        fn the_log_exports_what_reading_back_exports(
            widths in proptest::collection::vec(1u32..200, 1..10),
            cycles in proptest::collection::vec(
                proptest::collection::vec(
                    prop_oneof![
                        Just(Op::Skip),
                        Just(Op::Unknown),
                        any::<u64>().prop_map(Op::Value),
                        proptest::collection::vec(0u16..200, 0..6).prop_map(Op::Bits),
                        any::<u64>().prop_map(Op::Set),
                    ],
                    10,
                ),
                1..6,
            ),
        ) {
            let mut h = Hierarchy::new("top");
            for (k, &w) in widths.iter().enumerate() {
                h.root().signal(&format!("s{k}"), w);
            }
            let mut st = TraceState::new(&h);
            // The same writes into a state whose log is kept over every
            // cycle and taken at the end ([`TraceState::take_changes`]).
            let mut kept = st.clone();
            let (mut a_ids, mut a_words, mut a_wide) = (vec![3], vec![9], vec![1]);
            let (mut b_ids, mut b_words, mut b_wide) = (vec![3], vec![9], vec![1]);
            for ops in &cycles {
                apply(&mut st, &widths, ops);
                apply(&mut kept, &widths, ops);
                let from = a_ids.len();
                // The state's own list copies the log; a copy of the list
                // reads every value back.
                st.export_changes(st.changed(), 1 << 31, &mut a_ids, &mut a_words, &mut a_wide);
                let listed = st.changed().to_vec();
                st.export_changes(&listed, 1 << 31, &mut b_ids, &mut b_words, &mut b_wide);
                prop_assert_eq!(&a_ids, &b_ids);
                for k in from..a_ids.len() {
                    if a_ids[k] & 1 << 31 != 0 {
                        continue; // an unknown value's word means nothing
                    }
                    if widths[a_ids[k] as usize] > 64 {
                        let len = widths[a_ids[k] as usize].div_ceil(64) as usize;
                        let (x, y) = (a_words[k] as usize, b_words[k] as usize);
                        prop_assert_eq!(&a_wide[x..x + len], &b_wide[y..y + len]);
                    } else {
                        prop_assert_eq!(a_words[k], b_words[k]);
                    }
                }
                st.clear_changes();
            }
            let (mut c_ids, mut c_words, mut c_wide) = (vec![], vec![], vec![]);
            kept.take_changes(1 << 31, &mut c_ids, &mut c_words, &mut c_wide);
            prop_assert!(kept.changed().is_empty());
            prop_assert_eq!(&c_ids[..], &a_ids[1..]);
            for (k, &id) in c_ids.iter().enumerate() {
                let w = widths[(id & !(1 << 31)) as usize];
                if id & 1 << 31 != 0 {
                    prop_assert_eq!(c_words[k], 0);
                } else if w > 64 {
                    let len = w.div_ceil(64) as usize;
                    let (x, y) = (c_words[k] as usize, a_words[k + 1] as usize);
                    prop_assert_eq!(&c_wide[x..x + len], &a_wide[y..y + len]);
                } else {
                    prop_assert_eq!(c_words[k], a_words[k + 1]);
                }
            }
            // Taken into vectors that are not empty: appended, as
            // `export_changes` appends.
            apply(&mut kept, &widths, &cycles[0]);
            let (mut d_ids, mut d_words, mut d_wide) = (vec![3], vec![9], vec![1]);
            let listed = kept.changed().to_vec();
            kept.export_changes(&listed, 1 << 31, &mut d_ids, &mut d_words, &mut d_wide);
            let (mut e_ids, mut e_words, mut e_wide) = (vec![3], vec![9], vec![1]);
            kept.take_changes(1 << 31, &mut e_ids, &mut e_words, &mut e_wide);
            prop_assert!(kept.changed().is_empty());
            prop_assert_eq!(&e_ids, &d_ids);
            prop_assert_eq!(e_words.len(), d_words.len());
            prop_assert_eq!(e_wide.len(), d_wide.len());
        }
    }

    /// One cycle of the proptest's writes into `st`.
    fn apply(st: &mut TraceState, widths: &[u32], ops: &[Op]) {
        let n = widths.len() as u32;
        let mut sets = Vec::new();
        {
            let mut s = st.sampler(0, n);
            for (k, &w) in widths.iter().enumerate() {
                match &ops[k] {
                    Op::Skip => s.skip(1),
                    Op::Unknown => s.unknown(),
                    Op::Value(v) if w <= 64 => s.value(v & (u64::MAX >> (64 - w))),
                    Op::Value(_) => s.unknown(),
                    Op::Bits(ix) => s.bits(&BitString::from_indices(
                        w as usize,
                        ix.iter().map(|&i| i as usize % w as usize),
                    )),
                    Op::Set(v) => {
                        s.skip(1);
                        sets.push((k, v));
                    }
                }
            }
            s.finish();
        }
        for (k, v) in sets {
            let w = widths[k];
            if w <= 64 {
                st.set(
                    SignalId(k as u32),
                    SignalValue::Narrow(v & (u64::MAX >> (64 - w))),
                );
            } else {
                let words: Vec<u64> = (0..w.div_ceil(64) as u64)
                    .map(|j| {
                        v.rotate_left(j as u32 * 7)
                            & if (j + 1) * 64 > w as u64 {
                                u64::MAX >> ((j + 1) * 64 - w as u64)
                            } else {
                                u64::MAX
                            }
                    })
                    .collect();
                st.set(SignalId(k as u32), SignalValue::Wide(&words));
            }
        }
    }

    #[test]
    fn skipped_signals_keep_their_values_and_are_not_changes() {
        let mut h = Hierarchy::new("top");
        for name in ["a", "b", "c"] {
            h.root().signal(name, 8);
        }
        let mut st = TraceState::new(&h);
        {
            let mut s = st.sampler(0, 3);
            s.value(1);
            s.value(2);
            s.value(3);
            s.finish();
        }
        st.clear_changes();
        {
            let mut s = st.sampler(0, 3);
            s.value(9);
            s.skip(1);
            s.value(3);
            s.finish();
        }
        assert_eq!(st.changed(), &[0]);
        assert_eq!(st.value(SignalId(1)), SignalValue::Narrow(2));
    }

    #[test]
    fn unknowns_logs_only_the_signals_that_were_known() {
        let mut st = four_signals();
        {
            let mut s = st.sampler(0, 4);
            s.value(1);
            s.unknown();
            s.value(3);
            s.value(4);
            s.finish();
        }
        st.clear_changes();
        {
            let mut s = st.sampler(0, 4);
            s.value(1);
            s.unknowns(2);
            s.value(4);
            s.finish();
        }
        // b was unknown already: only c changes.
        assert_eq!(st.changed(), &[2]);
        assert_eq!(st.value(SignalId(1)), SignalValue::Unknown);
        assert_eq!(st.value(SignalId(2)), SignalValue::Unknown);
        assert_eq!(st.value(SignalId(3)), SignalValue::Narrow(4));
    }

    #[test]
    #[should_panic(expected = "sampled more signals")]
    fn unknowns_past_the_components_signals_is_caught() {
        let mut st = four_signals();
        let mut s = st.sampler(0, 4);
        s.value(0);
        s.value(0);
        s.value(0);
        s.unknowns(2);
    }

    #[test]
    #[should_panic(expected = "took 2 signals from signal 3")]
    fn a_run_ending_past_the_component_is_caught() {
        let mut st = four_signals();
        let mut s = st.sampler(0, 4);
        s.run_at::<2>(3);
    }

    #[test]
    #[should_panic(expected = "skipped more signals")]
    fn skipping_past_the_components_signals_is_caught() {
        let mut h = Hierarchy::new("top");
        h.root().signal("a", 1);
        let mut st = TraceState::new(&h);
        let mut s = st.sampler(0, 1);
        s.skip(2);
    }

    #[test]
    #[should_panic(expected = "fewer signals")]
    fn sampling_fewer_signals_than_declared_is_caught() {
        let mut h = Hierarchy::new("top");
        h.root().signal("a", 1);
        h.root().signal("b", 1);
        let mut st = TraceState::new(&h);
        let mut s = st.sampler(0, 2);
        s.bit(true);
        s.finish();
    }

    fn four_signals() -> TraceState {
        let mut h = Hierarchy::new("top");
        for name in ["a", "b", "c", "d"] {
            h.root().signal(name, 8);
        }
        TraceState::new(&h)
    }

    #[test]
    fn a_run_records_only_changes_at_the_right_ids() {
        let mut st = four_signals();
        {
            let mut s = st.sampler(0, 4);
            s.value(1);
            let mut r = s.run::<3>();
            r.value(2);
            r.unknown();
            r.maybe(Some(4));
            r.finish();
            s.finish();
        }
        assert_eq!(st.changed(), &[0, 1, 3], "c stays unknown: no change");
        st.clear_changes();
        {
            let mut s = st.sampler(0, 4);
            s.skip(1);
            let mut r = s.run::<3>();
            r.value(2);
            r.bit(true);
            r.maybe(None);
            r.finish();
            s.finish();
        }
        assert_eq!(st.changed(), &[2, 3]);
        assert_eq!(st.value(SignalId(2)), SignalValue::Narrow(1));
        assert_eq!(st.value(SignalId(3)), SignalValue::Unknown);
    }

    /// The change log checks one bound for both its lists: it must follow
    /// their capacities through a copy of the state, and through lists
    /// swapped in by [`TraceState::take_changes`] that are smaller than
    /// its own (a debug build checks every change against both).
    #[test]
    fn the_log_keeps_its_room_through_copies_and_swaps() {
        let mut h = Hierarchy::new("top");
        for k in 0..300 {
            h.root().signal(&format!("s{k}"), 16);
        }
        let mut st = TraceState::new(&h);
        let write = |st: &mut TraceState, v: u64| {
            let mut s = st.sampler(0, 300);
            for _ in 0..300 {
                s.value(v);
            }
            s.finish();
        };
        write(&mut st, 1);
        assert_eq!(st.changed().len(), 300);
        // A copy's lists hold its length, not the original's capacity.
        let mut copy = st.clone();
        write(&mut copy, 2);
        assert_eq!(copy.changed().len(), 600);
        assert_eq!(copy.changed()[599], 299);
        // Lists of no capacity swapped in, then 300 changes more.
        let (mut ids, mut words, mut wide) = (Vec::new(), Vec::new(), Vec::new());
        st.take_changes(0, &mut ids, &mut words, &mut wide);
        assert_eq!((ids.len(), words.len()), (300, 300));
        write(&mut st, 3);
        assert_eq!(st.changed(), (0..300).collect::<Vec<u32>>());
        assert_eq!(st.value(SignalId(7)), SignalValue::Narrow(3));
    }

    /// A step from cycle `c` samples cycle `c + 1`: a skip may go as far
    /// as the cycle before the window's first (which a step then samples
    /// whole), never into the window, and without end after it.
    #[test]
    fn a_window_is_skipped_up_to_the_cycle_before_its_first() {
        let w = Window {
            from: 10,
            to: Some(20),
        };
        let got: Vec<u64> = (0..23).map(|c| w.skippable(c)).collect();
        let mut want = vec![9, 8, 7, 6, 5, 4, 3, 2, 1, 0];
        want.extend([0; 10]);
        want.extend([u64::MAX; 3]);
        assert_eq!(got, want);
        assert!(!w.holds(9) && w.holds(10) && w.holds(20) && !w.holds(21));
        // From cycle 0 to the end: nothing is skipped.
        let all = Window::default();
        assert_eq!(all.skippable(0), 0);
        assert_eq!(all.skippable(u64::MAX), 0);
        // A window at the very end of the clock.
        let late = Window {
            from: u64::MAX,
            to: None,
        };
        assert_eq!(late.skippable(0), u64::MAX - 1);
        assert_eq!(late.skippable(u64::MAX - 1), 0);
    }

    #[test]
    fn seeking_passes_over_signals_without_changing_them() {
        let mut st = four_signals();
        {
            let mut s = st.sampler(0, 4);
            s.seek(2);
            s.value(7);
            s.seek(4);
            s.finish();
        }
        assert_eq!(st.changed(), &[2]);
        assert_eq!(st.value(SignalId(0)), SignalValue::Unknown);
    }

    #[test]
    #[should_panic(expected = "sampled more signals")]
    fn a_run_past_the_components_signals_is_caught() {
        let mut st = four_signals();
        let mut s = st.sampler(0, 4);
        s.value(0);
        let _ = s.run::<4>();
    }

    #[test]
    #[should_panic(expected = "a run of 3 signals wrote 2")]
    fn a_run_left_short_is_caught() {
        let mut st = four_signals();
        let mut s = st.sampler(0, 4);
        let mut r = s.run::<3>();
        r.value(0);
        r.value(0);
        r.finish();
    }

    #[test]
    #[should_panic(expected = "sought signal 1 from 2")]
    fn seeking_back_is_caught() {
        let mut st = four_signals();
        let mut s = st.sampler(0, 4);
        s.seek(2);
        s.seek(1);
    }

    #[test]
    fn a_run_at_a_place_writes_there_and_passes_over_the_rest() {
        let mut st = four_signals();
        let mut s = st.sampler(0, 4);
        s.value(1);
        let mut r = s.run_at::<2>(2);
        r.value(5);
        r.value(6);
        r.finish();
        assert_eq!(s.at(), 4);
        s.finish();
        assert_eq!(st.changed(), &[0, 2, 3]);
        assert_eq!(st.value(SignalId(1)), SignalValue::Unknown);
        assert_eq!(st.value(SignalId(3)), SignalValue::Narrow(6));
    }

    #[test]
    #[should_panic(expected = "took 2 signals from signal 0, at signal 1 of 4")]
    fn a_run_at_a_place_already_passed_is_caught() {
        let mut st = four_signals();
        let mut s = st.sampler(0, 4);
        s.value(1);
        s.run_at::<2>(0);
    }

    #[test]
    #[should_panic(expected = "took 2 signals from signal 3, at signal 0 of 4")]
    fn a_run_at_past_the_components_signals_is_caught() {
        let mut st = four_signals();
        st.sampler(0, 4).run_at::<2>(3);
    }
}
