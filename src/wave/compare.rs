//! Waveform against model, and waveform against waveform.
//!
//! [`cosim`] reads a Verilog testbench's VCD of one unit with a twin
//! ([`crate::switch::twin`]): at every rising edge of the clock it takes
//! the unit's inputs as they were just before the edge, drives the model's
//! unit with them, and compares every output the model registers at that
//! edge with the value the waveform shows through the following cycle
//! (just before the next rising edge, or at the end of the file after the
//! last one). Cycle `k` is the cycle that starts at the `k`-th rising edge,
//! counting from 0.
//!
//! [`diff`] compares two waveforms signal by signal at every time either
//! changes, on a common time axis (femtoseconds) whatever their
//! timescales.
//!
//! Both read their files as streams: only the current value of each
//! compared signal is held.

use super::map::SignalMap;
use super::read::{Event, VarKind, VcdHeader, VcdReader, VcdVar};
use crate::rtl::BitString;
use crate::switch::twin::{Dir, Params, Twin, Unit};
use crate::{Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;

/// The first difference found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mismatch {
    /// The signal, by the model's name (the reference waveform's in a
    /// diff), with the foreign name in parentheses if it differs.
    pub signal: String,
    /// Cosim: the cycle (rising edges from 0) whose value differs.
    pub cycle: Option<u64>,
    /// The time: cosim, of the rising edge that starts the cycle; diff, of
    /// the change; in nanoseconds.
    pub time_ns: f64,
    /// The model's value (cosim) or the first waveform's (diff), most
    /// significant bit first.
    pub expected: String,
    /// The waveform's value (cosim) or the second waveform's (diff).
    pub actual: String,
}

/// The outcome of a comparison.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CompareReport {
    /// The first difference, if any.
    pub first: Option<Mismatch>,
    /// All differences: (cycle, signal) pairs for cosim, (change time,
    /// signal) pairs for a diff.
    pub mismatches: u64,
    /// Differences per signal.
    pub per_signal: BTreeMap<String, u64>,
    /// Cosim: cycles compared; diff: times at which something changed.
    pub cycles: u64,
    /// Signals compared.
    pub signals: usize,
    /// Single comparisons made.
    pub comparisons: u64,
}

impl CompareReport {
    /// True when nothing differs.
    pub fn ok(&self) -> bool {
        self.mismatches == 0
    }

    fn record(&mut self, m: Mismatch) {
        self.mismatches += 1;
        *self.per_signal.entry(m.signal.clone()).or_default() += 1;
        if self.first.is_none() {
            self.first = Some(m);
        }
    }
}

impl fmt::Display for CompareReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.first {
            None => write!(
                f,
                "OK: {} cycles, {} signals compared ({} comparisons), no mismatch",
                self.cycles, self.signals, self.comparisons
            ),
            Some(m) => {
                let at = match m.cycle {
                    Some(c) => format!("cycle {c} (rising edge at {} ns)", m.time_ns),
                    None => format!("{} ns", m.time_ns),
                };
                writeln!(
                    f,
                    "MISMATCH: {} at {at}: expected {}, actual {}",
                    m.signal, m.expected, m.actual
                )?;
                let per: Vec<String> = self
                    .per_signal
                    .iter()
                    .map(|(s, n)| format!("{s} ({n})"))
                    .collect();
                write!(
                    f,
                    "{} mismatches in {} of {} signals over {} cycles: {}",
                    self.mismatches,
                    self.per_signal.len(),
                    self.signals,
                    self.cycles,
                    per.join(", ")
                )
            }
        }
    }
}

/// What [`cosim`] checks.
#[derive(Clone, Debug)]
pub struct CosimOptions {
    /// The unit.
    pub unit: Unit,
    /// The scope of the unit's instance (`tb.dut`; a unique suffix of a
    /// scope path is enough, so `tb.dut` finds Verilator's `TOP.tb.dut`).
    pub scope: String,
    /// The clock's full path; by default `clk` in the scope or the nearest
    /// enclosing scope that has one.
    pub clock: Option<String>,
    /// Foreign names and bit orders.
    pub map: SignalMap,
    /// Unit parameters given by hand (`C`, `K`, ...), over those the
    /// waveform tells.
    pub params: Vec<(String, u32)>,
}

/// One tracked variable: how to read its value as the model's bits.
struct Tracked {
    /// Model name (port or parameter).
    model: String,
    /// Foreign name, for messages.
    foreign: String,
    /// Read the characters right to left.
    flip: bool,
    width: u32,
}

/// Current and staged values of tracked variables, by slot.
struct Values {
    cur: Vec<Vec<u8>>,
    next: Vec<Vec<u8>>,
    dirty: Vec<usize>,
    is_dirty: Vec<bool>,
    /// Slots of each identifier code.
    by_code: Vec<Vec<usize>>,
}

impl Values {
    fn new(codes: usize) -> Self {
        Values {
            cur: Vec::new(),
            next: Vec::new(),
            dirty: Vec::new(),
            is_dirty: Vec::new(),
            by_code: vec![Vec::new(); codes],
        }
    }

    fn add(&mut self, code: u32, width: u32) -> usize {
        let slot = self.cur.len();
        self.cur.push(vec![b'x'; width as usize]);
        self.next.push(vec![b'x'; width as usize]);
        self.is_dirty.push(false);
        self.by_code[code as usize].push(slot);
        slot
    }

    #[inline]
    fn stage(&mut self, code: u32, bits: &[u8]) {
        for &s in &self.by_code[code as usize] {
            self.next[s].clear();
            self.next[s].extend_from_slice(bits);
            if !self.is_dirty[s] {
                self.is_dirty[s] = true;
                self.dirty.push(s);
            }
        }
    }

    /// The value a slot will have after the staged changes.
    fn staged(&self, s: usize) -> &[u8] {
        if self.is_dirty[s] {
            &self.next[s]
        } else {
            &self.cur[s]
        }
    }

    fn commit(&mut self) {
        for &s in &self.dirty {
            std::mem::swap(&mut self.cur[s], &mut self.next[s]);
            self.is_dirty[s] = false;
        }
        self.dirty.clear();
    }
}

/// A value in the model's bit order (most significant first).
fn model_order(v: &[u8], flip: bool) -> Vec<u8> {
    if flip {
        v.iter().rev().copied().collect()
    } else {
        v.to_vec()
    }
}

fn text(v: &[u8]) -> String {
    String::from_utf8_lossy(v).into_owned()
}

fn find_var<'a>(h: &'a VcdHeader, scope: &str, name: &str) -> Option<&'a VcdVar> {
    h.vars.iter().find(|v| v.scope == scope && v.name == name)
}

/// The clock variable: as given, or `clk` in `scope` or the nearest
/// enclosing scope.
fn find_clock<'a>(h: &'a VcdHeader, scope: &str, given: Option<&str>) -> Result<&'a VcdVar> {
    let clk = match given {
        Some(path) => h
            .find(path)
            .or_else(|| {
                let suffix = format!(".{path}");
                let hits: Vec<&VcdVar> = h
                    .vars
                    .iter()
                    .filter(|v| v.path().ends_with(&suffix))
                    .collect();
                (hits.len() == 1).then(|| hits[0])
            })
            .ok_or_else(|| Error::Wave(format!("no clock `{path}` in the VCD")))?,
        None => {
            let mut s = scope.to_string();
            loop {
                if let Some(v) = find_var(h, &s, "clk") {
                    break v;
                }
                match s.rfind('.') {
                    Some(i) => s.truncate(i),
                    None => {
                        return Err(Error::Wave(format!(
                            "no `clk` in scope `{scope}` or any scope above it: name the clock with --clock"
                        )));
                    }
                }
            }
        }
    };
    if clk.width != 1 || clk.kind != VarKind::Logic {
        return Err(Error::Wave(format!(
            "the clock `{}` is {} bits wide; a clock is one bit",
            clk.path(),
            clk.width
        )));
    }
    Ok(clk)
}

const PARAMS: [&str; 5] = ["N", "P", "S", "C", "K"];

/// The state of a co-simulation between edges.
struct Cosim<'o> {
    o: &'o CosimOptions,
    scope: String,
    ns_per_unit: f64,
    vals: Values,
    tracked: Vec<Tracked>,
    slot_of: BTreeMap<String, usize>,
    clk: usize,
    twin: Option<Box<dyn Twin>>,
    ins: Vec<usize>,
    outs: Vec<usize>,
    rst: Option<usize>,
    inputs: Vec<BitString>,
    outputs: Vec<BitString>,
    /// The model's outputs of the last edge, most significant bit first.
    expected: Option<Vec<String>>,
    /// Rising edges so far, and the time of the last.
    edges: u64,
    edge_time: u64,
    report: CompareReport,
}

impl Cosim<'_> {
    fn ns(&self, t: u64) -> f64 {
        t as f64 * self.ns_per_unit
    }

    /// Builds the model once the first edge has shown the parameters the
    /// simulator dumped, and checks every port is there with its width.
    fn build(&mut self) -> Result<()> {
        let o = self.o;
        let width = |name: &str| self.slot_of.get(name).map(|&s| self.tracked[s].width);
        let given = |name: &str| {
            o.params
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| *v)
                .or_else(|| {
                    let s = *self.slot_of.get(name)?;
                    let v = model_order(&self.vals.cur[s], self.tracked[s].flip);
                    BitString::from_msb_text(&v).map(|b| b.field(0, b.len().min(32)) as u32)
                })
        };
        let params = o.unit.resolve_params(&width, &given)?;
        let twin = o.unit.build(&params)?;
        for p in twin.ports() {
            let Some(&s) = self.slot_of.get(p.name) else {
                let (foreign, _) = o.map.foreign_of(p.name);
                return Err(Error::Wave(format!(
                    "scope `{}` has no signal `{foreign}` for the {} unit's {} `{}`",
                    self.scope,
                    o.unit.name(),
                    if p.dir == Dir::In { "input" } else { "output" },
                    p.name
                )));
            };
            let t = &self.tracked[s];
            if t.width != p.width {
                let sizes: Vec<String> = o
                    .unit
                    .verilog_params(&params)
                    .iter()
                    .map(|(n, v)| format!("{n} = {v}"))
                    .collect();
                return Err(Error::Wave(format!(
                    "`{}.{}` is {} bits; the {} unit with {} has a {}-bit `{}`",
                    self.scope,
                    t.foreign,
                    t.width,
                    o.unit.name(),
                    sizes.join(", "),
                    p.width,
                    p.name
                )));
            }
            if p.dir == Dir::In {
                self.ins.push(s);
            } else {
                self.outs.push(s);
            }
        }
        self.rst = self.slot_of.get("rst").copied();
        self.inputs = self
            .ins
            .iter()
            .map(|&s| BitString::zeros(self.tracked[s].width as usize))
            .collect();
        self.outputs = self
            .outs
            .iter()
            .map(|&s| BitString::zeros(self.tracked[s].width as usize))
            .collect();
        self.report.signals = self.outs.len();
        self.twin = Some(twin);
        Ok(())
    }

    /// Compares the model's outputs of the last edge with the current
    /// values (those of the cycle that edge started).
    fn compare(&mut self) {
        let Some(exp) = self.expected.take() else {
            return;
        };
        let cycle = self.edges - 1;
        let time_ns = self.ns(self.edge_time);
        self.report.cycles += 1;
        for (k, &s) in self.outs.iter().enumerate() {
            self.report.comparisons += 1;
            let tr = &self.tracked[s];
            let actual = model_order(&self.vals.cur[s], tr.flip);
            if actual != exp[k].as_bytes() {
                let signal = if tr.foreign == tr.model {
                    tr.model.clone()
                } else {
                    format!("{} ({})", tr.model, tr.foreign)
                };
                self.report.record(Mismatch {
                    signal,
                    cycle: Some(cycle),
                    time_ns,
                    expected: exp[k].clone(),
                    actual: text(&actual),
                });
            }
        }
    }

    /// The end of the changes at time `t`: a rising clock edge samples the
    /// inputs (the values before `t`) and steps the model.
    fn boundary(&mut self, t: u64) -> Result<()> {
        let rising = self.vals.cur[self.clk] == b"0" && self.vals.staged(self.clk) == b"1";
        if rising {
            if self.twin.is_none() {
                self.build()?;
            }
            self.compare();
            let in_reset = self.rst.is_some_and(|s| self.vals.cur[s] == b"1");
            for (k, &s) in self.ins.iter().enumerate() {
                let v = model_order(&self.vals.cur[s], self.tracked[s].flip);
                self.inputs[k] = match BitString::from_msb_text(&v) {
                    Some(b) => b,
                    None if in_reset => BitString::zeros(v.len()),
                    None => {
                        return Err(Error::Wave(format!(
                            "input `{}` is `{}` at the rising edge of cycle {} ({} ns): \
                             the unit cannot be driven with x or z outside reset",
                            self.tracked[s].foreign,
                            text(&v),
                            self.edges,
                            self.ns(t)
                        )));
                    }
                };
            }
            let twin = self.twin.as_mut().expect("built");
            twin.edge(&self.inputs, &mut self.outputs);
            self.expected = Some(self.outputs.iter().map(|b| b.to_msb_text()).collect());
            self.edge_time = t;
            self.edges += 1;
        }
        self.vals.commit();
        Ok(())
    }
}

/// Checks a unit's VCD against its model (see the module docs).
pub fn cosim<R: Read>(r: &mut VcdReader<R>, o: &CosimOptions) -> Result<CompareReport> {
    let h = r.header().clone();
    let scope = h.resolve_scope(&o.scope)?;
    let clk = find_clock(&h, &scope, o.clock.as_deref())?;
    // Track every variable of the scope that can be a port of the unit
    // (whatever its sizes) or one of its parameters.
    let names: Vec<&'static str> = o
        .unit
        .build(&Params::default())?
        .ports()
        .iter()
        .map(|p| p.name)
        .collect();
    let mut vals = Values::new(h.codes.len());
    let mut tracked = Vec::new();
    let mut slot_of = BTreeMap::new();
    for model in names.iter().copied().chain(PARAMS) {
        let (foreign, reverse) = o.map.foreign_of(model);
        let Some(v) = find_var(&h, &scope, &foreign) else {
            continue;
        };
        if v.kind != VarKind::Logic {
            return Err(Error::Wave(format!(
                "`{}` is a {:?} variable; the unit's ports are logic vectors",
                v.path(),
                v.kind
            )));
        }
        slot_of.insert(model.to_string(), vals.add(v.code, v.width));
        tracked.push(Tracked {
            model: model.to_string(),
            foreign,
            flip: v.ascending() ^ reverse,
            width: v.width,
        });
    }
    for model in &names {
        if !slot_of.contains_key(*model) {
            let (foreign, _) = o.map.foreign_of(model);
            return Err(Error::Wave(format!(
                "scope `{scope}` has no signal `{foreign}` for the {} unit's port `{model}`",
                o.unit.name()
            )));
        }
    }
    let clk_slot = vals.add(clk.code, 1);
    tracked.push(Tracked {
        model: "clk".into(),
        foreign: clk.path(),
        flip: false,
        width: 1,
    });
    let mut c = Cosim {
        o,
        scope,
        ns_per_unit: h.timescale_fs.unwrap_or(1) as f64 / 1e6,
        vals,
        tracked,
        slot_of,
        clk: clk_slot,
        twin: None,
        ins: Vec::new(),
        outs: Vec::new(),
        rst: None,
        inputs: Vec::new(),
        outputs: Vec::new(),
        expected: None,
        edges: 0,
        edge_time: 0,
        report: CompareReport::default(),
    };
    let mut now = 0;
    while let Some(e) = r.next_event()? {
        match e {
            Event::Time(t) => {
                if t != now {
                    c.boundary(now)?;
                    now = t;
                }
            }
            Event::Logic { code, bits } => c.vals.stage(code, bits),
            Event::Real { .. } | Event::Str { .. } => {}
        }
    }
    c.boundary(now)?;
    c.compare();
    if c.edges == 0 {
        return Err(Error::Wave(format!(
            "the clock `{}` never rises: nothing to compare",
            clk.path()
        )));
    }
    Ok(c.report)
}

/// What [`diff`] compares.
#[derive(Clone, Debug, Default)]
pub struct DiffOptions {
    /// Compare the signals under this scope of the first file (paths
    /// relative to it); all signals if `None`.
    pub scope_a: Option<String>,
    /// The same for the second file; `scope_a` if `None`.
    pub scope_b: Option<String>,
    /// Names in the second file that differ from the first's.
    pub map: SignalMap,
    /// Only these signals (relative paths in the first file); every signal
    /// the two have in common if empty.
    pub signals: Vec<String>,
}

/// One side of a diff.
struct Side<R> {
    r: VcdReader<R>,
    vals: Values,
    fs: u128,
    next: Option<u128>,
}

impl<R: Read> Side<R> {
    /// Applies changes up to the next `#t`; returns that time (fs), or
    /// `None` at the end.
    fn pull(&mut self) -> Result<Option<u128>> {
        while let Some(e) = self.r.next_event()? {
            match e {
                Event::Time(t) => return Ok(Some(t as u128 * self.fs)),
                Event::Logic { code, bits } => self.vals.stage(code, bits),
                Event::Real { code, value } => self.vals.stage(code, format!("{value}").as_bytes()),
                Event::Str { code, value } => self.vals.stage(code, value.as_bytes()),
            }
        }
        Ok(None)
    }
}

/// The variables under `scope` (all if `None`), with their paths relative
/// to it.
fn under(h: &VcdHeader, scope: Option<&str>) -> Result<Vec<(String, VcdVar)>> {
    let scope = scope.map(|s| h.resolve_scope(s)).transpose()?;
    let vars = h
        .vars
        .iter()
        .filter_map(|v| {
            let p = v.path();
            match &scope {
                None => Some((p, v.clone())),
                Some(s) => p
                    .strip_prefix(&format!("{s}."))
                    .map(|rel| (rel.to_string(), v.clone())),
            }
        })
        .collect();
    Ok(vars)
}

/// Compares two waveforms (see the module docs).
pub fn diff<RA: Read, RB: Read>(
    a: VcdReader<RA>,
    b: VcdReader<RB>,
    o: &DiffOptions,
) -> Result<CompareReport> {
    let ha = a.header().clone();
    let hb = b.header().clone();
    let va = under(&ha, o.scope_a.as_deref())?;
    let vb = under(&hb, o.scope_b.as_deref().or(o.scope_a.as_deref()))?;
    let mut sa = Side {
        r: a,
        vals: Values::new(ha.codes.len()),
        fs: ha.timescale_fs.unwrap_or(1) as u128,
        next: None,
    };
    let mut sb = Side {
        r: b,
        vals: Values::new(hb.codes.len()),
        fs: hb.timescale_fs.unwrap_or(1) as u128,
        next: None,
    };
    // Pairs: (name, slot in a, slot in b, flip b).
    let mut pairs: Vec<(String, usize, usize, bool)> = Vec::new();
    let mut seen_a = std::collections::HashSet::new();
    for (rel_b, vbv) in &vb {
        let (model, reverse) = o.map.model_of(rel_b);
        let Some((_, vav)) = va.iter().find(|(rel, _)| *rel == model) else {
            continue;
        };
        if !o.signals.is_empty() && !o.signals.contains(&model) {
            continue;
        }
        if !seen_a.insert(model.clone()) {
            continue;
        }
        if vav.width != vbv.width || vav.kind != vbv.kind {
            return Err(Error::Wave(format!(
                "`{model}` is {} bits ({:?}) in the first waveform and {} bits ({:?}) in the second",
                vav.width, vav.kind, vbv.width, vbv.kind
            )));
        }
        let flip = vav.ascending() ^ vbv.ascending() ^ reverse;
        let x = sa.vals.add(vav.code, vav.width);
        let y = sb.vals.add(vbv.code, vbv.width);
        pairs.push((model, x, y, flip));
    }
    for s in &o.signals {
        if !seen_a.contains(s) {
            let where_ = if va.iter().any(|(rel, _)| rel == s) {
                "the second waveform"
            } else {
                "the first waveform"
            };
            return Err(Error::Wave(format!("signal `{s}` is not in {where_}")));
        }
    }
    if pairs.is_empty() {
        return Err(Error::Wave(
            "the two waveforms have no signal in common (check --scope and --map)".into(),
        ));
    }
    let mut report = CompareReport {
        signals: pairs.len(),
        ..Default::default()
    };
    // Pair of each slot, to find the pairs a change touches.
    let mut pair_of_a = vec![usize::MAX; sa.vals.cur.len()];
    let mut pair_of_b = vec![usize::MAX; sb.vals.cur.len()];
    for (k, (_, x, y, _)) in pairs.iter().enumerate() {
        pair_of_a[*x] = k;
        pair_of_b[*y] = k;
    }
    let mut marked = vec![false; pairs.len()];
    let mut touched: Vec<usize> = Vec::new();
    sa.next = sa.pull()?;
    sb.next = sb.pull()?;
    // Changes before the first #t count as time 0.
    let mut t: u128 = 0;
    loop {
        for (&s, pair_of) in sa
            .vals
            .dirty
            .iter()
            .map(|s| (s, &pair_of_a))
            .chain(sb.vals.dirty.iter().map(|s| (s, &pair_of_b)))
        {
            let k = pair_of[s];
            if !marked[k] {
                marked[k] = true;
                touched.push(k);
            }
        }
        sa.vals.commit();
        sb.vals.commit();
        if !touched.is_empty() {
            report.cycles += 1;
            touched.sort_unstable();
            for &k in &touched {
                marked[k] = false;
                let (name, x, y, flip) = &pairs[k];
                report.comparisons += 1;
                let av = &sa.vals.cur[*x];
                let bv = model_order(&sb.vals.cur[*y], *flip);
                if *av != bv {
                    report.record(Mismatch {
                        signal: name.clone(),
                        cycle: None,
                        time_ns: t as f64 / 1e6,
                        expected: text(av),
                        actual: text(&bv),
                    });
                }
            }
            touched.clear();
        }
        let next = match (sa.next, sb.next) {
            (None, None) => break,
            (Some(x), None) | (None, Some(x)) => x,
            (Some(x), Some(y)) => x.min(y),
        };
        t = next;
        if sa.next == Some(next) {
            sa.next = sa.pull()?;
        }
        if sb.next == Some(next) {
            sb.next = sb.pull()?;
        }
    }
    Ok(report)
}
