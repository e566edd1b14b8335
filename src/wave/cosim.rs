//! A unit's waveform against its model (seed 000's units with Verilog
//! twins, [`crate::switch::twin`]).
//!
//! [`cosim`] reads a Verilog testbench's dump of one unit (VCD, FST or
//! GHW): at every rising edge of the clock it takes the unit's inputs as
//! they were just before the edge, drives the model's unit with them, and
//! compares every output the model registers at that edge with the value
//! the waveform shows through the following cycle (just before the next
//! rising edge, or at the end of the file after the last one). Cycle `k`
//! is the cycle that starts at the `k`-th rising edge, counting from 0; a
//! clock that goes from `x` to 1 has no edge.
//!
//! Nothing is accepted silently: a parameter the unit does not have, a map
//! entry naming no port, a missing port, a width that does not fit, an
//! input at `x` outside reset are errors; a dump with fewer cycles than
//! [`CosimOptions::expect_cycles`] fails.

use super::header::{Event, VarKind, WaveHeader, WaveVar};
use super::map::SignalMap;
use super::report::{CompareReport, Mismatch};
use super::stream::WaveReader;
use crate::rtl::BitString;
use crate::switch::twin::{Dir, Params, Twin, Unit};
use crate::{Error, Result};
use std::collections::BTreeMap;

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
    /// The cycles the dump must have at least; fewer is a failure (a dump
    /// cut short).
    pub expect_cycles: Option<u64>,
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
pub(crate) struct Values {
    pub(crate) cur: Vec<Vec<u8>>,
    next: Vec<Vec<u8>>,
    pub(crate) dirty: Vec<usize>,
    is_dirty: Vec<bool>,
    /// Slots of each identifier code.
    by_code: Vec<Vec<usize>>,
}

impl Values {
    pub(crate) fn new(codes: usize) -> Self {
        Values {
            cur: Vec::new(),
            next: Vec::new(),
            dirty: Vec::new(),
            is_dirty: Vec::new(),
            by_code: vec![Vec::new(); codes],
        }
    }

    pub(crate) fn add(&mut self, code: u32, width: u32) -> usize {
        let slot = self.cur.len();
        self.cur.push(vec![b'x'; width as usize]);
        self.next.push(vec![b'x'; width as usize]);
        self.is_dirty.push(false);
        self.by_code[code as usize].push(slot);
        slot
    }

    #[inline]
    pub(crate) fn stage(&mut self, code: u32, bits: &[u8]) {
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
    pub(crate) fn staged(&self, s: usize) -> &[u8] {
        if self.is_dirty[s] {
            &self.next[s]
        } else {
            &self.cur[s]
        }
    }

    pub(crate) fn commit(&mut self) {
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

fn find_var<'a>(h: &'a WaveHeader, scope: &str, name: &str) -> Option<&'a WaveVar> {
    h.vars.iter().find(|v| &*v.scope == scope && v.name == name)
}

/// The variable `path`, or the only one whose path ends with `.path`.
pub(crate) fn find_by_path<'a>(h: &'a WaveHeader, path: &str) -> Result<&'a WaveVar> {
    if let Some(v) = h.find(path) {
        return Ok(v);
    }
    let suffix = format!(".{path}");
    let hits: Vec<&WaveVar> = h
        .vars
        .iter()
        .filter(|v| v.path().ends_with(&suffix))
        .collect();
    match hits.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::Wave(format!("no signal `{path}` in the waveform"))),
        many => Err(Error::Wave(format!(
            "`{path}` is ambiguous: {}",
            super::header::preview(&many.iter().map(|v| v.path()).collect::<Vec<_>>())
        ))),
    }
}

/// Checks that a clock is one logic bit.
pub(crate) fn check_clock(clk: &WaveVar) -> Result<()> {
    if clk.width != 1 || !matches!(clk.kind, VarKind::Logic | VarKind::Event) {
        return Err(Error::Wave(format!(
            "the clock `{}` is {} of {}; a clock is one logic bit",
            clk.path(),
            crate::error::counted(clk.width.into(), "bits"),
            clk.kind.word()
        )));
    }
    Ok(())
}

/// The clock variable: as given, or `clk` in `scope` or the nearest
/// enclosing scope.
fn find_clock<'a>(h: &'a WaveHeader, scope: &str, given: Option<&str>) -> Result<&'a WaveVar> {
    let clk = match given {
        Some(path) => find_by_path(h, path)
            .map_err(|_| Error::Wave(format!("no clock `{path}` in the waveform")))?,
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
    check_clock(clk)?;
    Ok(clk)
}

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
                    "`{}.{}` is {}; the {} unit with {} has a {}-bit `{}`",
                    self.scope,
                    t.foreign,
                    crate::error::counted(t.width.into(), "bits"),
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
        *self.report.cycles.get_or_insert(0) += 1;
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

/// The names of the unit's parameters (`N`, `P`, ...).
fn param_names(unit: Unit) -> Vec<&'static str> {
    unit.verilog_params(&Params::default())
        .into_iter()
        .map(|(n, _)| n)
        .collect()
}

/// Checks a unit's waveform against its model (see the module docs).
pub fn cosim(r: &mut WaveReader, o: &CosimOptions) -> Result<CompareReport> {
    let h = r.header().clone();
    let scope = h.resolve_scope(&o.scope)?;
    let clk = find_clock(&h, &scope, o.clock.as_deref())?;
    // Every variable of the scope that can be a port of the unit (whatever
    // its sizes) or one of its parameters.
    let names: Vec<&'static str> = o
        .unit
        .build(&Params::default())?
        .ports()
        .iter()
        .map(|p| p.name)
        .collect();
    let params = param_names(o.unit);
    for (p, _) in &o.params {
        if !params.contains(&p.as_str()) {
            return Err(Error::Wave(format!(
                "the {} unit has no parameter `{p}` (its parameters: {})",
                o.unit.name(),
                params.join(", ")
            )));
        }
    }
    for m in o.map.entries() {
        if !names.contains(&m.model.as_str()) && !params.contains(&m.model.as_str()) {
            return Err(Error::Wave(format!(
                "the map names `{}` (for `{}`), which is no port or parameter of the {} unit \
                 (its ports: {})",
                m.model,
                m.foreign,
                o.unit.name(),
                names.join(", ")
            )));
        }
    }
    let mut vals = Values::new(h.codes.len());
    let mut tracked = Vec::new();
    let mut slot_of = BTreeMap::new();
    for model in names.iter().copied().chain(params.iter().copied()) {
        let (foreign, reverse) = o.map.foreign_of(model);
        let Some(v) = find_var(&h, &scope, &foreign) else {
            continue;
        };
        if v.kind != VarKind::Logic {
            return Err(Error::Wave(format!(
                "`{}` is a {} variable; the unit's ports are logic vectors",
                v.path(),
                v.kind.word()
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
    let clock_path = clk.path();
    let mut c = Cosim {
        o,
        scope,
        ns_per_unit: h.fs_per_unit() as f64 / 1e6,
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
        report: CompareReport {
            cycles: Some(0),
            expect_cycles: o.expect_cycles,
            ..CompareReport::default()
        },
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
            "the clock `{clock_path}` never rises: nothing to compare"
        )));
    }
    Ok(c.report)
}
