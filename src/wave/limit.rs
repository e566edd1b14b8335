//! Waveforms limited to a window of cycles and to some scopes of the
//! hierarchy (`--trace-from`, `--trace-to`, `--trace-scope` on the
//! command line; `output.trace_from` and so on in a run configuration).
//!
//! A run of a million cycles over a thousand switches is too much to dump
//! whole; an engineer chasing one event wants the cycles around it and the
//! units on its path. [`TraceLimits::wrap`] puts a [`WaveSink`] behind a
//! filter that keeps its own [`TraceState`] of the selected signals, starts
//! the file at the window's first cycle (its initial values are the values
//! during that cycle, not cycle 0's) and ends it after the window's last.
//! The root scope, with its clock, is always kept; a scope named that does
//! not exist is an error that lists the root's scopes.
//!
//! The filter tells the simulation what it writes ([`WaveSink::wants`]),
//! and every router model's system samples nothing else: no register
//! before the window's first cycle or after its last, and no component
//! without a selected signal. At the window's first cycle the selected
//! components are sampled whole, which brings the filter every change
//! since cycle 0. So a window late in a long run costs about what the run
//! costs untraced until the window, and one switch of a large network
//! about what that switch's registers cost. The file is the same, byte
//! for byte, as the one filtered from every register sampled in every
//! cycle (`tests/trace_window.rs` and the tree and wormhole systems'
//! tests compare the two).

use crate::rtl::trace::{
    Hierarchy, ScopeDecl, SignalDecl, SignalId, TraceState, Wants, WaveSink, Window,
};
use crate::{Error, Result};
use rustc_hash::FxHashMap;
use std::borrow::Cow;

/// What a front end calls a window's three settings and the waveform they
/// limit, so that a refusal names the setting the user gave: the command
/// line's `--trace-from`, a configuration file's `output.trace_from`, a
/// Python keyword argument `trace_from`, a C argument `from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowNames {
    /// The first cycle's name.
    pub from: &'static str,
    /// The last cycle's name.
    pub to: &'static str,
    /// The scopes' name.
    pub scope: &'static str,
    /// The waveform's name, which the window limits.
    pub vcd: &'static str,
}

impl WindowNames {
    /// The command line's options (`--trace-from`, `--trace-to`,
    /// `--trace-scope`), written as its other refusals write an option,
    /// without the dashes.
    pub const CLI: WindowNames = WindowNames {
        from: "trace-from",
        to: "trace-to",
        scope: "trace-scope",
        vcd: "vcd",
    };
    /// A run configuration's `[output]` keys.
    pub const CONFIG: WindowNames = WindowNames {
        from: "output.trace_from",
        to: "output.trace_to",
        scope: "output.trace_scope",
        vcd: "output.vcd",
    };
    /// The library's and the Python package's argument names, the
    /// default.
    pub const API: WindowNames = WindowNames {
        from: "trace_from",
        to: "trace_to",
        scope: "trace_scope",
        vcd: "vcd",
    };
}

impl Default for WindowNames {
    fn default() -> Self {
        WindowNames::API
    }
}

/// A window of cycles and a set of scopes to write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceLimits {
    /// First cycle written (its values are the file's initial values).
    pub from: u64,
    /// Last cycle written; `None`: to the end of the run.
    pub to: Option<u64>,
    /// Dotted scope paths (`top.sw3`, `top.sw3.in2`) or signal paths whose
    /// signals are written; empty: every scope.
    pub scopes: Vec<String>,
    /// What the refusals call these settings ([`WindowNames::API`] by
    /// default).
    pub names: WindowNames,
}

/// The part of a hierarchy a [`TraceLimits`] keeps.
#[derive(Clone, Debug)]
pub struct Selection {
    /// The hierarchy written: the kept scopes (and the scopes above them)
    /// and their signals, in the original order.
    pub hierarchy: Hierarchy,
    /// For each kept signal, its id in the original hierarchy.
    pub kept: Vec<SignalId>,
    /// For each original signal, its id in `hierarchy`, if kept.
    pub map: Vec<Option<SignalId>>,
}

impl TraceLimits {
    /// The cycles `from` to `to` (`None`: to the end of the run) of the
    /// signals under `scopes` (none: every scope), named in refusals by
    /// the library's argument names ([`WindowNames::API`]).
    pub fn new(from: u64, to: Option<u64>, scopes: &[&str]) -> Self {
        TraceLimits {
            from,
            to,
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
            names: WindowNames::API,
        }
    }

    /// These limits with refusals naming the settings `names`.
    pub fn named(self, names: WindowNames) -> Self {
        TraceLimits { names, ..self }
    }

    /// Refuses limits that limit something when no waveform is `written`,
    /// naming the first setting given (the first cycle, the last, the
    /// scopes): they would be dropped without a word.
    pub fn check_written(&self, written: bool) -> Result<()> {
        if written || self.is_whole() {
            return Ok(());
        }
        let n = self.names;
        let (field, value) = match (self.from, self.to) {
            (1.., _) => (n.from, self.from.to_string()),
            (_, Some(to)) => (n.to, to.to_string()),
            _ => (n.scope, self.scopes.join(",")),
        };
        Err(Error::config(
            field,
            value,
            format!(
                "limits a waveform, and none is written (no {} is given)",
                n.vcd
            ),
        ))
    }

    /// True when nothing is limited (the whole run, every scope).
    pub fn is_whole(&self) -> bool {
        self.from == 0 && self.to.is_none() && self.scopes.is_empty()
    }

    /// Checks that the window is not empty.
    pub fn check(&self) -> Result<()> {
        if let Some(to) = self.to
            && to < self.from
        {
            return Err(Error::Config {
                field: self.names.to,
                value: to.to_string(),
                reason: format!(
                    "before {} = {}; the window is empty",
                    self.names.from, self.from
                ),
            });
        }
        Ok(())
    }

    /// The scopes and signals of `h` these limits keep; an error names a
    /// scope that matches nothing.
    pub fn select(&self, h: &Hierarchy) -> Result<Selection> {
        let paths: Vec<String> = (0..h.scopes.len() as u32)
            .map(|s| h.scope_path(s))
            .collect();
        let under = |path: &str, sel: &str| {
            path == sel || (path.starts_with(sel) && path.as_bytes().get(sel.len()) == Some(&b'.'))
        };
        // A scope is kept whole when it lies under a selection; a scope
        // above a selection is kept for its path but not its signals. Each
        // selection is found by its path, and the scopes under the ones
        // selected are marked in one pass after (parents come first): a
        // walk of every scope for each selection made 4,096 selections of
        // a 4,096-switch network's trace take 9 s.
        let mut by_path: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        for (i, p) in paths.iter().enumerate() {
            by_path.entry(p.as_str()).or_default().push(i);
        }
        let mut whole = vec![self.scopes.is_empty(); h.scopes.len()];
        let mut path_only = vec![false; h.scopes.len()];
        let mut signals_named = vec![false; h.signals.len()];
        for sel in &self.scopes {
            let sel = sel.trim().trim_end_matches('.');
            let mut hit = false;
            for &i in by_path.get(sel).into_iter().flatten() {
                whole[i] = true;
                hit = true;
                let mut s = h.scopes[i].parent;
                while let Some(a) = s {
                    path_only[a as usize] = true;
                    s = h.scopes[a as usize].parent;
                }
            }
            if !hit && let Some(sig) = h.find(sel) {
                signals_named[sig.0 as usize] = true;
                hit = true;
                let mut s = Some(h.signals[sig.0 as usize].scope);
                while let Some(i) = s {
                    path_only[i as usize] = true;
                    s = h.scopes[i as usize].parent;
                }
            }
            if !hit {
                let root = paths.first().map(String::as_str).unwrap_or("top");
                let children: Vec<&str> = h
                    .child_scopes(0)
                    .take(12)
                    .map(|c| h.scopes[c as usize].name.as_str())
                    .collect();
                let more = if h.child_scopes(0).count() > children.len() {
                    ", ..."
                } else {
                    ""
                };
                // Paths start at the root scope: the path the user left it
                // off, when that names something.
                let rooted = format!("{root}.{sel}");
                let hint = if paths.iter().any(|p| under(p, &rooted)) || h.find(&rooted).is_some() {
                    format!(" (paths start at {root}: {rooted})")
                } else {
                    String::new()
                };
                return Err(Error::Config {
                    field: self.names.scope,
                    value: sel.to_string(),
                    reason: format!(
                        "no scope or signal of the waveform has that path{hint}; {root} holds {}{more}",
                        children.join(", ")
                    ),
                });
            }
        }
        for i in 0..h.scopes.len() {
            if let Some(p) = h.scopes[i].parent {
                debug_assert!((p as usize) < i, "parents come first");
                whole[i] |= whole[p as usize];
            }
        }
        let mut out = Hierarchy {
            scopes: Vec::new(),
            signals: Vec::new(),
        };
        let mut scope_map = vec![None; h.scopes.len()];
        for (i, s) in h.scopes.iter().enumerate() {
            if i == 0 || whole[i] || path_only[i] {
                scope_map[i] = Some(out.scopes.len() as u32);
                out.scopes.push(ScopeDecl {
                    name: s.name.clone(),
                    parent: s
                        .parent
                        .map(|p| scope_map[p as usize].expect("parents come first")),
                });
            }
        }
        let mut kept = Vec::new();
        let mut map = vec![None; h.signals.len()];
        for (i, d) in h.signals.iter().enumerate() {
            if whole[d.scope as usize] || signals_named[i] {
                map[i] = Some(SignalId(out.signals.len() as u32));
                kept.push(SignalId(i as u32));
                out.signals.push(SignalDecl {
                    scope: scope_map[d.scope as usize].expect("kept scope"),
                    ..d.clone()
                });
            }
        }
        Ok(Selection {
            hierarchy: out,
            kept,
            map,
        })
    }

    /// The hierarchy a waveform written under these limits declares (for
    /// its GTKWave and Surfer views): `h` itself when no scope is limited
    /// (a window of cycles keeps every signal), a copy of the part kept
    /// otherwise.
    pub fn view<'h>(&self, h: &'h Hierarchy) -> Result<Cow<'h, Hierarchy>> {
        if self.scopes.is_empty() {
            return Ok(Cow::Borrowed(h));
        }
        Ok(Cow::Owned(self.select(h)?.hierarchy))
    }

    /// `inner` behind these limits (`inner` itself when nothing is
    /// limited).
    pub fn wrap(&self, inner: Box<dyn WaveSink>) -> Result<Box<dyn WaveSink>> {
        self.check()?;
        if self.is_whole() {
            return Ok(inner);
        }
        Ok(Box::new(Limited {
            inner,
            limits: self.clone(),
            sel: None,
            state: None,
            cycle_ps: 0,
            started: false,
            ended: false,
        }))
    }
}

/// A sink that passes on a window and a selection of signals.
struct Limited {
    inner: Box<dyn WaveSink>,
    limits: TraceLimits,
    sel: Option<Selection>,
    state: Option<TraceState>,
    cycle_ps: u64,
    started: bool,
    ended: bool,
}

impl Limited {
    /// Copies the selected signals that changed in `full` to our state.
    fn copy(&mut self, full: &TraceState, changed: &[u32]) {
        let (sel, st) = (
            self.sel.as_ref().expect("begun"),
            self.state.as_mut().expect("begun"),
        );
        for &i in changed {
            if let Some(to) = sel.map[i as usize] {
                st.copy_from(to, full, SignalId(i));
            }
        }
    }

    fn start(&mut self, at: u64) -> Result<()> {
        let sel = self.sel.as_ref().expect("begun");
        let st = self.state.as_mut().expect("begun");
        self.inner.begin_at(&sel.hierarchy, self.cycle_ps, st, at)?;
        st.clear_changes();
        self.started = true;
        Ok(())
    }
}

impl WaveSink for Limited {
    fn begin(&mut self, h: &Hierarchy, cycle_ps: u64, state: &TraceState) -> Result<()> {
        let sel = self.limits.select(h)?;
        let mut own = TraceState::new(&sel.hierarchy);
        for (new, &old) in sel.kept.iter().enumerate() {
            own.copy_from(SignalId(new as u32), state, old);
        }
        self.sel = Some(sel);
        self.state = Some(own);
        self.cycle_ps = cycle_ps;
        if self.limits.from == 0 {
            self.start(0)?;
        }
        Ok(())
    }

    fn cycle(&mut self, cycle: u64, state: &TraceState, changed: &[u32]) -> Result<()> {
        if self.ended {
            return Ok(());
        }
        if let Some(to) = self.limits.to
            && cycle > to
        {
            if !self.started {
                // Nothing changed from the window's first cycle to its last.
                self.start(self.limits.from)?;
            }
            self.ended = true;
            return self.inner.finish(to);
        }
        let from = self.limits.from;
        if !self.started && cycle > from {
            // Nothing changed between the window's start and this cycle:
            // the values now are those during `from`.
            self.start(from)?;
        }
        self.copy(state, changed);
        if !self.started {
            if cycle == from {
                self.start(from)?;
            } else {
                self.state.as_mut().expect("begun").clear_changes();
            }
            return Ok(());
        }
        let st = self.state.as_mut().expect("begun");
        self.inner.cycle(cycle, st, st.changed())?;
        st.clear_changes();
        Ok(())
    }

    /// The window and the selected signals: a simulation that knows them
    /// leaves the cycles before the window, those after it and the
    /// components with no selected signal unsampled, and gives the
    /// window's first cycle with every selected signal that changed since
    /// `begin` (which [`cycle`](WaveSink::cycle) above copies, and then
    /// starts the file with).
    fn wants(&self) -> Wants<'_> {
        Wants {
            window: Window {
                from: self.limits.from,
                to: self.limits.to,
            },
            signals: self.sel.as_ref().map(|s| s.map.as_slice()),
        }
    }

    fn finish(&mut self, last_cycle: u64) -> Result<()> {
        if self.ended {
            return Ok(());
        }
        self.ended = true;
        if !self.started {
            if last_cycle < self.limits.from {
                return Err(Error::WindowNotReached {
                    field: self.limits.names.from,
                    from: self.limits.from,
                    last: last_cycle,
                });
            }
            self.start(self.limits.from)?;
        }
        let end = self.limits.to.map_or(last_cycle, |t| t.min(last_cycle));
        self.inner.finish(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtl::trace::MemorySink;

    fn hier() -> Hierarchy {
        let mut h = Hierarchy::new("top");
        let mut r = h.root();
        r.scope("sw0", |s| {
            s.signal("a", 4);
            s.scope("in0", |s| {
                s.signal("b", 1);
            });
        });
        r.scope("sw1", |s| {
            s.signal("a", 70);
        });
        r.scope("sw10", |s| {
            s.signal("a", 2);
        });
        h
    }

    #[test]
    fn selection_keeps_the_scope_its_parents_and_nothing_else() {
        let h = hier();
        let l = TraceLimits {
            scopes: vec!["top.sw1".into()],
            ..TraceLimits::default()
        };
        let s = l.select(&h).unwrap();
        let paths: Vec<String> = (0..s.hierarchy.signals.len() as u32)
            .map(|i| s.hierarchy.path(SignalId(i)))
            .collect();
        // top.sw10 is not under top.sw1.
        assert_eq!(paths, ["top.sw1.a"]);
        assert_eq!(s.kept, [SignalId(2)]);
        let l = TraceLimits {
            scopes: vec!["top.sw0.in0".into(), "top.sw10.a".into()],
            ..TraceLimits::default()
        };
        let s = l.select(&h).unwrap();
        let paths: Vec<String> = (0..s.hierarchy.signals.len() as u32)
            .map(|i| s.hierarchy.path(SignalId(i)))
            .collect();
        assert_eq!(paths, ["top.sw0.in0.b", "top.sw10.a"]);
        // A scope and one under it, named either way round and twice: the
        // outer one is kept whole, with everything under it.
        for scopes in [
            ["top.sw0.in0", "top.sw0", "top.sw0"],
            ["top.sw0", "top.sw0.in0", "top.sw0.in0"],
        ] {
            let l = TraceLimits {
                scopes: scopes.iter().map(|s| s.to_string()).collect(),
                ..TraceLimits::default()
            };
            let s = l.select(&h).unwrap();
            let paths: Vec<String> = (0..s.hierarchy.signals.len() as u32)
                .map(|i| s.hierarchy.path(SignalId(i)))
                .collect();
            assert_eq!(paths, ["top.sw0.a", "top.sw0.in0.b"], "{scopes:?}");
            assert_eq!(s.hierarchy.scopes.len(), 3, "top, sw0, in0");
        }
        let e = TraceLimits {
            scopes: vec!["top.sw7".into()],
            ..TraceLimits::default()
        }
        .select(&h)
        .unwrap_err()
        .to_string();
        assert!(e.contains("top.sw7") && e.contains("sw0, sw1, sw10"), "{e}");
    }

    /// Drives a limited memory sink through 10 cycles where signal
    /// `top.sw0.a` takes the cycle number at every cycle and `top.sw1.a`
    /// changes at cycle 3 only.
    fn drive(l: &TraceLimits) -> Result<MemorySink> {
        let h = hier();
        let mem = MemorySink::new();
        let mut sink = l.wrap(Box::new(mem.clone()))?;
        let mut st = TraceState::new(&h);
        let sample = |st: &mut TraceState, c: u64| {
            let mut s = st.sampler(0, 4);
            s.value(c % 16);
            s.bit(false);
            s.bits(&crate::BitString::from_indices(70, [(c >= 3) as usize]));
            s.value(1);
            s.finish();
        };
        sample(&mut st, 0);
        sink.begin(&h, 5000, &st)?;
        st.clear_changes();
        for c in 1..10 {
            sample(&mut st, c);
            let ch = st.changed().to_vec();
            sink.cycle(c, &st, &ch)?;
            st.clear_changes();
        }
        sink.finish(9)?;
        Ok(mem)
    }

    #[test]
    fn a_window_starts_with_the_values_during_its_first_cycle() {
        let l = TraceLimits::new(4, Some(6), &[]);
        let m = drive(&l).unwrap();
        assert_eq!(
            m.history("top.sw0.a"),
            [(4, "0100".into()), (5, "0101".into()), (6, "0110".into())]
        );
        let wide = m.history("top.sw1.a");
        assert_eq!(wide.len(), 1);
        assert_eq!(wide[0].0, 4);
        assert!(wide[0].1.ends_with("10"));
        // Scopes and window together.
        let l = TraceLimits::new(2, None, &["top.sw1"]);
        let m = drive(&l).unwrap();
        assert!(m.try_history("top.sw0.a").is_none());
        let wide = m.history("top.sw1.a");
        assert_eq!(wide.iter().map(|c| c.0).collect::<Vec<_>>(), [2, 3]);
    }

    #[test]
    fn a_window_past_the_run_or_empty_is_refused() {
        let e = drive(&TraceLimits {
            from: 20,
            ..TraceLimits::default()
        })
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "configuration: trace_from = 20: past the run's last cycle, 9: the waveform holds nothing"
        );
        // Each front end's names: the library's by default.
        for (names, want) in [
            (
                WindowNames::API,
                "configuration: trace_to = 4: before trace_from = 5; the window is empty",
            ),
            (
                WindowNames::CLI,
                "configuration: trace-to = 4: before trace-from = 5; the window is empty",
            ),
            (
                WindowNames::CONFIG,
                "configuration: output.trace_to = 4: before output.trace_from = 5; the window \
                 is empty",
            ),
        ] {
            let l = TraceLimits::new(5, Some(4), &[]).named(names);
            assert_eq!(drive(&l).unwrap_err().to_string(), want);
        }
        let e = drive(&TraceLimits::new(0, None, &["top.sw9"]).named(WindowNames::CONFIG))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "configuration: output.trace_scope = top.sw9: no scope or signal of the waveform has \
             that path; top holds sw0, sw1, sw10"
        );
    }
}
