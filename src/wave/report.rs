//! The outcome of a comparison ([`super::cosim()`] and [`super::diff()`]):
//! the first difference, every difference counted per signal, and every
//! signal that could not be compared, so that "OK" is only ever said when
//! every signal was accounted for.

use crate::error::counted;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// The first difference found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mismatch {
    /// The signal, by the model's name (the first waveform's in a diff),
    /// with the other name in parentheses if it differs.
    pub signal: String,
    /// The cycle (rising clock edges from 0) whose value differs; absent
    /// when a diff compares on times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<u64>,
    /// The time in nanoseconds: of the rising edge that starts the cycle
    /// (in the first waveform for a diff), or of the change.
    pub time_ns: f64,
    /// The model's value (cosim) or the first waveform's (diff), most
    /// significant bit first.
    pub expected: String,
    /// The waveform's value (cosim) or the second waveform's (diff).
    pub actual: String,
}

/// A signal both waveforms have but with different types.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TypeClash {
    /// The signal.
    pub signal: String,
    /// Its type in the first waveform (`8-bit logic`, `real`, `string`).
    pub first: String,
    /// Its type in the second.
    pub second: String,
}

/// The outcome of a comparison.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CompareReport {
    /// The first difference of values, if any.
    pub first: Option<Mismatch>,
    /// All differences of values: (cycle, signal) pairs on clock edges,
    /// (change time, signal) pairs on times.
    pub mismatches: u64,
    /// Differences of values per signal.
    pub per_signal: BTreeMap<String, u64>,
    /// Cycles compared (cosim, and a diff on clock edges).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u64>,
    /// Times at which something changed and was compared (a diff on
    /// times).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub times: Option<u64>,
    /// Signals compared.
    pub signals: usize,
    /// Single comparisons made.
    pub comparisons: u64,
    /// Diff: signals only the first waveform has (and not ignored).
    pub only_in_first: Vec<String>,
    /// Diff: signals only the second waveform has (and not ignored).
    pub only_in_second: Vec<String>,
    /// Diff: signals whose types differ.
    pub type_clashes: Vec<TypeClash>,
    /// Diff: signals left out by name (`--ignore`).
    pub ignored: Vec<String>,
    /// Diff on clock edges: the cycles of the second waveform when they
    /// differ from the first's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles_second: Option<u64>,
    /// Cosim: the cycles asked for (`--expect-cycles`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect_cycles: Option<u64>,
}

impl CompareReport {
    /// True when nothing differs: every value agreed, every signal was in
    /// both waveforms with one type, and every cycle asked for was there.
    pub fn ok(&self) -> bool {
        self.mismatches == 0
            && self.only_in_first.is_empty()
            && self.only_in_second.is_empty()
            && self.type_clashes.is_empty()
            && self.cycles_second.is_none()
            && !self.too_short()
    }

    /// Cosim: fewer cycles than `--expect-cycles` asked for.
    pub fn too_short(&self) -> bool {
        matches!((self.expect_cycles, self.cycles), (Some(e), Some(c)) if c < e)
    }

    pub(crate) fn record(&mut self, m: Mismatch) {
        self.mismatches += 1;
        *self.per_signal.entry(m.signal.clone()).or_default() += 1;
        if self.first.is_none() {
            self.first = Some(m);
        }
    }

    /// What was compared: [`span`](Self::span), or with waveforms of
    /// different lengths the cycles both have (only those are compared).
    fn compared(&self) -> String {
        match (self.cycles, self.cycles_second) {
            (Some(c1), Some(c2)) => format!("the {} both have", counted(c1.min(c2), "cycles")),
            _ => self.span(),
        }
    }

    /// What was stepped over: `5000 cycles` or `350002 times`.
    fn span(&self) -> String {
        match (self.cycles, self.times) {
            (Some(c), _) => counted(c, "cycles").to_string(),
            (None, Some(t)) => counted(t, "times").to_string(),
            (None, None) => "nothing".into(),
        }
    }
}

fn list(names: &[String]) -> String {
    let mut s: Vec<String> = names.iter().take(20).map(|n| format!("`{n}`")).collect();
    if names.len() > 20 {
        s.push(format!("and {} more", names.len() - 20));
    }
    s.join(", ")
}

impl fmt::Display for CompareReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ok() {
            return write!(
                f,
                "OK: {}, {} compared ({}), no mismatch",
                self.span(),
                counted(self.signals as u64, "signals"),
                counted(self.comparisons, "comparisons")
            );
        }
        let mut lines: Vec<String> = Vec::new();
        if self.too_short() {
            lines.push(format!(
                "FAIL: the waveform has {}; --expect-cycles asked for {}",
                self.span(),
                self.expect_cycles.unwrap_or(0)
            ));
        }
        if let Some(c2) = self.cycles_second {
            lines.push(format!(
                "DIFFERENT LENGTHS: the first waveform has {}, the second {c2}",
                counted(self.cycles.unwrap_or(0), "cycles")
            ));
        }
        if !self.only_in_first.is_empty() {
            lines.push(format!(
                "ONLY IN THE FIRST WAVEFORM ({}): {}",
                self.only_in_first.len(),
                list(&self.only_in_first)
            ));
        }
        if !self.only_in_second.is_empty() {
            lines.push(format!(
                "ONLY IN THE SECOND WAVEFORM ({}): {}",
                self.only_in_second.len(),
                list(&self.only_in_second)
            ));
        }
        for c in self.type_clashes.iter().take(20) {
            lines.push(format!(
                "DIFFERENT TYPES: `{}` is {} in the first waveform and {} in the second",
                c.signal, c.first, c.second
            ));
        }
        if self.type_clashes.len() > 20 {
            lines.push(format!(
                "and {} more signals of different types",
                self.type_clashes.len() - 20
            ));
        }
        if let Some(m) = &self.first {
            let at = match m.cycle {
                Some(c) => format!("cycle {c} (rising edge at {} ns)", m.time_ns),
                None => format!("{} ns", m.time_ns),
            };
            lines.push(format!(
                "MISMATCH: {} at {at}: expected {}, actual {}",
                m.signal, m.expected, m.actual
            ));
            let per: Vec<String> = self
                .per_signal
                .iter()
                .take(20)
                .map(|(s, n)| format!("{s} ({n})"))
                .collect();
            let more = if self.per_signal.len() > 20 {
                format!(" and {} more signals", self.per_signal.len() - 20)
            } else {
                String::new()
            };
            lines.push(format!(
                "{} in {} of {} over {}: {}{more}",
                match self.mismatches {
                    1 => "1 mismatch".to_string(),
                    n => format!("{n} mismatches"),
                },
                self.per_signal.len(),
                counted(self.signals as u64, "signals"),
                self.compared(),
                per.join(", ")
            ));
        } else {
            lines.push(format!(
                "values: {}, {} compared ({}), no mismatch",
                self.compared(),
                counted(self.signals as u64, "signals"),
                counted(self.comparisons, "comparisons")
            ));
        }
        write!(f, "{}", lines.join("\n"))
    }
}
