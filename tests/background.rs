//! Waveforms encoded on their own thread ([`wormcast::wave::Background`]):
//! the same bytes as on the simulation's thread, for VCD and FST, whole or
//! limited to a window and some scopes, taken as exported words or with a
//! copy of every value on the thread; a writer's failure comes back as an
//! error naming it; a run that fails still leaves its VCD behind.

mod common;

use std::io::Write;
use wormcast::header::Kind;
use wormcast::rtl::trace::WaveSink;
use wormcast::sim::{SimConfig, System, Traffic};
use wormcast::wave::{Background, FstWriter, TraceLimits, VcdWriter};

/// Runs 3,000 cycles of `traffic` on the default network into `sink`.
fn run(traffic: &Traffic, sink: Box<dyn WaveSink>) -> wormcast::Result<()> {
    let net = common::default_net();
    let cfg = SimConfig {
        seed: 4,
        ..Default::default()
    };
    let mut sys = System::new(&net, &cfg, traffic)?;
    sys.attach_tracer(sink)?;
    sys.run(3_000)?;
    sys.finish_trace()?;
    Ok(())
}

#[test]
fn a_null_sink_on_its_own_thread_takes_every_change_and_drops_it() {
    // What `benches/sim.rs` measures as the hand-over alone: the sink must
    // take the changes as exported words, not refuse them.
    let null = wormcast::rtl::trace::NullSink;
    assert!(null.takes_exported());
    for t in traffics() {
        run(&t, Box::new(Background::new(Box::new(null)))).unwrap_or_else(|e| panic!("{t:?}: {e}"));
    }
}

fn traffics() -> [Traffic; 3] {
    [
        Traffic::uniform(0.3, 20),
        Traffic::uniform(0.2, 2),
        Traffic::multicast(0.1, 16, 4, Kind::BitString),
    ]
}

/// A sink that hides how `S` takes changes: it takes them only with a
/// copy of every value ([`WaveSink::takes_exported`] false), so that a
/// [`Background`] around it keeps that copy on its thread and calls
/// [`WaveSink::cycle`], as it does for a sink of a caller's own.
struct ByState<S>(S);

impl<S: WaveSink> WaveSink for ByState<S> {
    fn begin(
        &mut self,
        h: &wormcast::rtl::trace::Hierarchy,
        cycle_ps: u64,
        state: &wormcast::rtl::trace::TraceState,
    ) -> wormcast::Result<()> {
        self.0.begin(h, cycle_ps, state)
    }

    fn cycle(
        &mut self,
        cycle: u64,
        state: &wormcast::rtl::trace::TraceState,
        changed: &[u32],
    ) -> wormcast::Result<()> {
        self.0.cycle(cycle, state, changed)
    }

    fn finish(&mut self, last_cycle: u64) -> wormcast::Result<()> {
        self.0.finish(last_cycle)
    }
}

#[test]
fn a_vcd_written_on_its_own_thread_has_the_same_bytes() {
    // The VCD writer takes the batch's words as they come; the same writer
    // behind `ByState` is given a copy of every value on the thread.
    assert!(VcdWriter::in_memory().takes_exported());
    assert!(!ByState(VcdWriter::in_memory()).takes_exported());
    for t in traffics() {
        let (here, there, copied) = (
            common::Shared::default(),
            common::Shared::default(),
            common::Shared::default(),
        );
        run(&t, Box::new(VcdWriter::new(here.clone()))).unwrap();
        run(
            &t,
            Box::new(Background::new(Box::new(VcdWriter::new(there.clone())))),
        )
        .unwrap();
        run(
            &t,
            Box::new(Background::new(Box::new(ByState(VcdWriter::new(
                copied.clone(),
            ))))),
        )
        .unwrap();
        let (a, b, c) = (here.bytes(), there.bytes(), copied.bytes());
        assert!(a.len() > 50_000, "{t:?}: {} bytes", a.len());
        assert!(a == b, "{t:?}: the thread changed the VCD");
        assert!(
            a == c,
            "{t:?}: the thread's copy of every value changed the VCD"
        );
    }
}

#[test]
fn an_fst_written_on_its_own_thread_has_the_same_bytes() {
    let dir = std::env::temp_dir().join(format!("wormcast-background-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, t) in traffics().iter().enumerate() {
        let (a, b) = (
            dir.join(format!("here{k}.fst")),
            dir.join(format!("there{k}.fst")),
        );
        run(t, Box::new(FstWriter::create(&a).unwrap())).unwrap();
        run(
            t,
            Box::new(Background::new(Box::new(FstWriter::create(&b).unwrap()))),
        )
        .unwrap();
        let (a, b) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
        assert!(a.len() > 10_000, "{t:?}: {} bytes", a.len());
        assert!(a == b, "{t:?}: the thread changed the FST");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `w`, on a thread of its own when `threaded`.
fn on_thread(w: Box<dyn WaveSink + Send>, threaded: bool) -> Box<dyn WaveSink> {
    if threaded {
        Box::new(Background::new(w))
    } else {
        w
    }
}

/// The VCDs of 1,500 cycles of `traffic` on `net` written on the
/// simulation's thread and on a thread of their own; `finish`: the run is
/// finished, otherwise the system is dropped without finishing the trace.
fn vcd_here_and_there(
    net: &wormcast::net::Network,
    traffic: &Traffic,
    finish: bool,
) -> (Vec<u8>, Vec<u8>) {
    let (here, there, copied) = (
        common::Shared::default(),
        common::Shared::default(),
        common::Shared::default(),
    );
    for (out, threaded, by_state) in [
        (&here, false, false),
        (&there, true, false),
        (&copied, true, true),
    ] {
        let mut sys = System::new(net, &SimConfig::default(), traffic).unwrap();
        let w = VcdWriter::new(out.clone());
        let sink = if by_state {
            on_thread(Box::new(ByState(w)), threaded)
        } else {
            on_thread(Box::new(w), threaded)
        };
        sys.attach_tracer(sink).unwrap();
        sys.run(1_500).unwrap();
        if finish {
            sys.finish_trace().unwrap();
        }
    }
    // The thread with a copy of every value writes what the thread
    // without one does.
    assert!(
        there.bytes() == copied.bytes(),
        "the thread's copy of every value changed the VCD"
    );
    (here.bytes(), there.bytes())
}

#[test]
fn values_wider_than_64_bits_come_through_the_thread_unchanged() {
    // 96 nodes: every decode unit's destination and branch registers are
    // 96-bit bit strings, handed over as words of their own.
    let net = wormcast::net::Network::new(
        &wormcast::net::IrregularParams {
            switches: 24,
            nodes: 96,
            ..Default::default()
        }
        .generate()
        .unwrap(),
    )
    .unwrap();
    let t = Traffic::multicast(0.05, 8, 6, Kind::BitString);
    let (a, b) = vcd_here_and_there(&net, &t, true);
    // A 96-bit value change in the VCD: 'b', 96 digits, a space.
    let wide = String::from_utf8_lossy(&a)
        .lines()
        .filter(|l| l.starts_with('b') && l.split(' ').next().unwrap().len() == 97)
        .count();
    assert!(wide > 100, "{wide} changes of 96-bit values");
    assert!(a == b, "the thread changed the VCD");

    // The FST writer takes the batch's words as they come, with no copy
    // of every value on its thread (`WaveSink::takes_exported`): the wide
    // values' words are found through the batch's side array.
    let dir = std::env::temp_dir().join(format!("wormcast-wide-fst-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for threaded in [false, true] {
        let path = dir.join(format!("wide-{threaded}.fst"));
        let mut sys = System::new(&net, &SimConfig::default(), &t).unwrap();
        let w = FstWriter::create(&path).unwrap();
        assert!(w.takes_exported());
        sys.attach_tracer(on_thread(Box::new(w), threaded)).unwrap();
        sys.run(1_500).unwrap();
        sys.finish_trace().unwrap();
        files.push(std::fs::read(&path).unwrap());
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(files[0].len() > 10_000, "{} bytes", files[0].len());
    assert!(files[0] == files[1], "the thread changed the FST");
}

#[test]
fn a_window_of_some_scopes_on_its_own_thread_has_the_same_bytes() {
    let limits = TraceLimits {
        from: 1_000,
        to: Some(2_000),
        scopes: vec!["top.sw2".into(), "top.ep5".into()],
        ..TraceLimits::default()
    };
    let t = Traffic::uniform(0.3, 20);
    let (here, there) = (common::Shared::default(), common::Shared::default());
    run(
        &t,
        limits.wrap(Box::new(VcdWriter::new(here.clone()))).unwrap(),
    )
    .unwrap();
    // The window's filter on the simulation's thread, the writer behind it.
    run(
        &t,
        limits
            .wrap(Box::new(Background::new(Box::new(VcdWriter::new(
                there.clone(),
            )))))
            .unwrap(),
    )
    .unwrap();
    let (a, b) = (here.bytes(), there.bytes());
    assert!(a.len() > 5_000, "{} bytes", a.len());
    assert!(a == b, "the thread changed the limited VCD");
}

/// A `Write` that takes `room` bytes and then fails like a full disk.
struct Full {
    room: usize,
}

impl Write for Full {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.room == 0 {
            return Err(std::io::Error::other("no space left on the test's disk"));
        }
        let n = b.len().min(self.room);
        self.room -= n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_writers_failure_comes_back_as_an_error_that_names_it() {
    let t = Traffic::uniform(0.3, 20);
    for room in [100, 20_000, 200_000] {
        let sink = Background::new(Box::new(VcdWriter::new(Full { room })));
        let err = run(&t, Box::new(sink)).expect_err("the disk fills up");
        let msg = err.to_string();
        assert!(
            msg.contains("no space left on the test's disk"),
            "room {room}: {msg}"
        );
    }
    // The same failure on the simulation's thread says the same.
    let err = run(&t, Box::new(VcdWriter::new(Full { room: 20_000 }))).unwrap_err();
    assert!(err.to_string().contains("no space left on the test's disk"));
}

#[test]
fn a_waveform_whose_writer_failed_is_not_finished_as_if_whole() {
    // The run stops with the writer's error; ending its waveform after that
    // (as a command does for a run that stopped, to write its views) says
    // the waveform was not finished, instead of answering as if it were.
    let net = common::default_net();
    let mut sys = System::new(&net, &SimConfig::default(), &Traffic::uniform(0.3, 20)).unwrap();
    let sink = Background::new(Box::new(VcdWriter::new(Full { room: 200_000 })));
    sys.attach_tracer(Box::new(sink)).unwrap();
    // The writer fails on the first batch it is given; the simulation
    // hears of it when it next hands one over, which may be a batch or two
    // later (the writer's thread has to have ended by then).
    let err = (0..200)
        .find_map(|_| sys.run(1_000).err())
        .expect("the disk fills up within 200,000 cycles");
    assert!(
        err.to_string().contains("no space left on the test's disk"),
        "{err}"
    );
    // Run on, the system hands its next batch to no writer: the same
    // answer, not a waveform "written after it ended".
    let on = sys
        .run(20_000)
        .expect_err("no writer to take the next batch");
    assert_eq!(
        on.to_string(),
        "the waveform was not finished: its writer had failed"
    );
    let again = sys
        .finish_trace()
        .err()
        .expect("an error, not a finished waveform");
    assert_eq!(
        again.to_string(),
        "the waveform was not finished: its writer had failed"
    );
}

#[test]
fn a_run_that_ends_without_finishing_still_leaves_what_it_sampled() {
    // A system dropped mid-run (its caller hit an error): everything up to
    // the last cycle sampled reaches the VCD, as it would have without the
    // thread.
    let t = Traffic::uniform(0.3, 20);
    let (a, b) = vcd_here_and_there(&common::default_net(), &t, false);
    assert!(a.len() > 20_000, "{} bytes", a.len());
    assert!(a == b, "the thread lost the end of an unfinished VCD");
}

/// Counts the changes a run's cycles bring.
struct CountChanges(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl WaveSink for CountChanges {
    fn begin(
        &mut self,
        _: &wormcast::rtl::trace::Hierarchy,
        _: u64,
        _: &wormcast::rtl::trace::TraceState,
    ) -> wormcast::Result<()> {
        Ok(())
    }
    fn cycle(
        &mut self,
        _: u64,
        _: &wormcast::rtl::trace::TraceState,
        changed: &[u32],
    ) -> wormcast::Result<()> {
        self.0
            .fetch_add(changed.len(), std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
    fn finish(&mut self, _: u64) -> wormcast::Result<()> {
        Ok(())
    }
}

#[test]
fn a_long_quiet_run_has_the_same_bytes_across_many_batches() {
    // Few changes a cycle: the simulation's log is handed over every
    // 16,384 cycles rather than when it holds 65,536 changes, four times
    // in the run, and the rest at the end.
    let t = Traffic::uniform(0.003, 4);
    let cycles = 70_000;
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (here, there) = (common::Shared::default(), common::Shared::default());
    let sinks: [Box<dyn WaveSink>; 3] = [
        Box::new(CountChanges(count.clone())),
        Box::new(VcdWriter::new(here.clone())),
        Box::new(Background::new(Box::new(VcdWriter::new(there.clone())))),
    ];
    for sink in sinks {
        let mut sys = System::new(&common::default_net(), &SimConfig::default(), &t).unwrap();
        sys.attach_tracer(sink).unwrap();
        sys.run(cycles).unwrap();
        sys.finish_trace().unwrap();
    }
    let changes = count.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        (10_000..65_536 * 4).contains(&changes),
        "{changes} changes in {cycles} cycles"
    );
    let (a, b) = (here.bytes(), there.bytes());
    assert!(a == b, "the thread changed a long VCD");
}

#[test]
fn cycles_given_both_copied_and_logged_are_refused() {
    use wormcast::rtl::trace::{Hierarchy, TraceState};
    let mut h = Hierarchy::new("top");
    h.root().signal("a", 8);
    for logged_first in [true, false] {
        let mut st = TraceState::new(&h);
        let mut sink = Background::new(Box::new(wormcast::rtl::trace::NullSink));
        sink.begin(&h, 1000, &st).unwrap();
        let err = if logged_first {
            sink.cycle_logged(1, &mut st).unwrap();
            sink.cycle(2, &st, &[]).unwrap_err()
        } else {
            sink.cycle(1, &st, &[]).unwrap();
            sink.cycle_logged(2, &mut st).unwrap_err()
        };
        assert!(
            err.to_string()
                .contains("both as copies and in the change log"),
            "{err}"
        );
    }
}
