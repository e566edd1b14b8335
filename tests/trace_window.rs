//! Waveforms limited to a window of cycles and to some scopes
//! ([`TraceLimits`], `--trace-from`, `--trace-to`, `--trace-scope`): the
//! cut-through system samples only what the file holds (no cycle outside
//! the window, no component outside the scopes) and writes the same bytes
//! as when it samples every component in every cycle and the limits filter
//! what it sampled, on one thread and on two.

mod common;

use proptest::prelude::*;
use wormcast::Result;
use wormcast::header::Kind;
use wormcast::net::{IrregularParams, Network};
use wormcast::rtl::HandOver;
use wormcast::rtl::trace::{Hierarchy, SignalId, TraceState, Wants, WaveSink, Window};
use wormcast::sim::{SimConfig, System, Traffic};
use wormcast::wave::{TraceLimits, VcdWriter};

fn traffic(k: usize) -> Traffic {
    match k {
        0 => Traffic::uniform(0.2, 20),
        1 => Traffic::uniform(0.1, 1),
        2 => Traffic::multicast(0.05, 8, 4, Kind::BitString),
        3 => Traffic::multicast(0.05, 4, 3, Kind::Ssr),
        // Light: quiet cycles, which a traced network skips outside its
        // window.
        _ => Traffic::uniform(0.002, 4),
    }
}

/// 128 switches of 8 ports and 256 nodes: two ranges of 64 switches.
fn two_ranges() -> Network {
    let p = IrregularParams {
        switches: 128,
        ports: 8,
        nodes: 256,
        seed: 5,
        ..Default::default()
    };
    Network::new(&p.generate().unwrap()).unwrap()
}

/// The VCD of `cycles` cycles of `traffic` written under `limits`: the
/// system sampling what the limits keep (`every` false) or every
/// component in every cycle.
fn limited_vcd(
    net: &Network,
    cfg: &SimConfig,
    traffic: &Traffic,
    cycles: u64,
    limits: &TraceLimits,
    every: bool,
) -> Vec<u8> {
    let out = common::Shared::default();
    let mut sys = System::new(net, cfg, traffic).unwrap();
    let sink = limits.wrap(Box::new(VcdWriter::new(out.clone()))).unwrap();
    sys.attach_tracer(sink).unwrap();
    sys.trace_every_component(every);
    sys.run(cycles).unwrap();
    sys.finish_trace().unwrap();
    out.bytes()
}

/// Every scope path and signal path of `net`'s waveform.
fn paths(net: &Network, cfg: &SimConfig) -> Vec<String> {
    let mut sys = System::new(net, cfg, &Traffic::Idle).unwrap();
    sys.attach_tracer(Box::new(wormcast::rtl::trace::NullSink))
        .unwrap();
    let h = sys.trace_hierarchy().unwrap();
    let mut p: Vec<String> = (1..h.scopes.len() as u32)
        .map(|s| h.scope_path(s))
        .collect();
    p.extend((0..h.signals.len() as u32).map(|i| h.path(SignalId(i))));
    p
}

/// Limits from a strategy's draws: `from`, an optional length, and picks
/// into `paths` (none: every scope).
fn limits(paths: &[String], from: u64, len: Option<u64>, picks: &[usize]) -> TraceLimits {
    TraceLimits {
        from,
        to: len.map(|l| from + l),
        scopes: picks
            .iter()
            .map(|&i| paths[i % paths.len()].clone())
            .collect(),
        ..TraceLimits::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Windows anywhere in the run (from its first cycle, ending before it
    /// ends or not), with scopes of whole components, of units and of
    /// single signals, or none; loads with quiet cycles among them.
    #[test]
    fn a_limited_waveform_is_the_one_filtered_from_every_sample(
        k in 0usize..5,
        from in 0u64..1_500,
        len in proptest::option::of(0u64..400),
        picks in proptest::collection::vec(any::<usize>(), 0..4),
    ) {
        let _one = common::one_at_a_time();
        let net = common::default_net();
        let cfg = SimConfig { seed: 3, ..SimConfig::default() };
        let l = limits(&paths(&net, &cfg), from, len, &picks);
        let t = traffic(k);
        let got = limited_vcd(&net, &cfg, &t, 1_600, &l, false);
        let want = limited_vcd(&net, &cfg, &t, 1_600, &l, true);
        prop_assert!(got.len() > 200, "{} bytes", got.len());
        prop_assert!(got == want, "{l:?}, {t:?}: another waveform");
    }
}

/// The same on two threads, handing every cycle over or the busy ones,
/// and at a load light enough for quiet cycles.
#[test]
fn a_limited_waveform_is_the_same_on_two_threads() {
    let _one = common::one_at_a_time();
    let net = two_ranges();
    let one = SimConfig::default();
    let p = paths(&net, &one);
    let sw = |s: &str| p.iter().position(|x| x == s).unwrap();
    for (l, t) in [
        (
            limits(&p, 300, Some(200), &[sw("top.sw3"), sw("top.sw100")]),
            Traffic::uniform(0.01, 12),
        ),
        (limits(&p, 450, None, &[]), Traffic::uniform(0.01, 12)),
        (
            limits(&p, 1, Some(500), &[sw("top.sw70.out1")]),
            Traffic::multicast(0.005, 6, 4, Kind::BitString),
        ),
        (limits(&p, 400, Some(450), &[]), Traffic::uniform(0.0003, 4)),
    ] {
        let want = limited_vcd(&net, &one, &t, 700, &l, true);
        assert!(want.len() > 1_000, "{l:?}: {} bytes", want.len());
        assert!(
            limited_vcd(&net, &one, &t, 700, &l, false) == want,
            "{l:?}: one thread"
        );
        for hand_over in [HandOver::Always, HandOver::Busy] {
            let cfg = SimConfig {
                threads: 2,
                hand_over,
                ..SimConfig::default()
            };
            assert!(
                limited_vcd(&net, &cfg, &t, 700, &l, false) == want,
                "{l:?}, {hand_over:?}: two threads"
            );
        }
    }
}

/// The cycles a sink was given, each with the signals that changed.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<(u64, Vec<u32>)>>>;

/// A sink that wants a window and one component's signals, and keeps the
/// cycles it was given and the signals that changed in them.
struct Recorder {
    from: u64,
    to: u64,
    signals: Vec<Option<SignalId>>,
    range: std::ops::Range<u32>,
    seen: Seen,
}

impl WaveSink for Recorder {
    fn begin(&mut self, h: &Hierarchy, _: u64, _: &TraceState) -> Result<()> {
        self.signals = (0..h.signals.len() as u32)
            .map(|i| self.range.contains(&i).then_some(SignalId(i)))
            .collect();
        Ok(())
    }
    fn cycle(&mut self, cycle: u64, _: &TraceState, changed: &[u32]) -> Result<()> {
        self.seen.lock().unwrap().push((cycle, changed.to_vec()));
        Ok(())
    }
    fn wants(&self) -> Wants<'_> {
        Wants {
            window: Window {
                from: self.from,
                to: Some(self.to),
            },
            signals: Some(&self.signals),
        }
    }
    fn finish(&mut self, _: u64) -> Result<()> {
        Ok(())
    }
}

/// What is not written is not sampled: the sink is given exactly the
/// cycles of its window, and only changes of the component it wants
/// (switch 2's signals; every other component's change too when every
/// component is sampled).
#[test]
fn cycles_and_components_outside_the_limits_are_not_sampled() {
    let net = common::default_net();
    let cfg = SimConfig::default();
    let h = {
        let mut sys = System::new(&net, &cfg, &Traffic::Idle).unwrap();
        sys.attach_tracer(Box::new(wormcast::rtl::trace::NullSink))
            .unwrap();
        sys.trace_hierarchy().unwrap().clone()
    };
    let sw2: Vec<u32> = (0..h.signals.len() as u32)
        .filter(|&i| h.path(SignalId(i)).starts_with("top.sw2."))
        .collect();
    let range = sw2[0]..sw2[sw2.len() - 1] + 1;
    assert_eq!(range.len(), sw2.len(), "switch 2's signals are contiguous");
    let record = |every: bool| {
        let seen = Seen::default();
        let mut sys = System::new(&net, &cfg, &Traffic::uniform(0.3, 20)).unwrap();
        sys.attach_tracer(Box::new(Recorder {
            from: 400,
            to: 700,
            signals: Vec::new(),
            range: range.clone(),
            seen: std::sync::Arc::clone(&seen),
        }))
        .unwrap();
        sys.trace_every_component(every);
        sys.run(1_000).unwrap();
        sys.finish_trace().unwrap();
        std::sync::Arc::try_unwrap(seen)
            .unwrap()
            .into_inner()
            .unwrap()
    };
    let seen = record(false);
    let cycles: Vec<u64> = seen.iter().map(|c| c.0).collect();
    assert_eq!(cycles, (400..=700).collect::<Vec<_>>());
    let changes: Vec<u32> = seen.iter().flat_map(|c| c.1.iter().copied()).collect();
    assert!(changes.len() > 300, "{} changes", changes.len());
    assert!(
        changes.iter().all(|i| range.contains(i)),
        "a change outside switch 2"
    );
    // Every component sampled in every cycle: the sink is given every
    // cycle and every component's changes, as before it could say what it
    // wants.
    let all = record(true);
    assert_eq!(all.len(), 1_000);
    assert!(all.iter().flat_map(|c| &c.1).any(|i| !range.contains(i)));
}
