//! Encoding a waveform on its own thread: the simulation samples its
//! registers and hands each cycle's value changes over in batches; a second
//! thread feeds them to the real writer. A writer that takes the changes
//! as they come ([`WaveSink::takes_exported`]: the FST writer, which keeps
//! its blocks' starting values itself, and the VCD writer, which needs only
//! the values that changed) gets the batch's words directly; for any other
//! (a sink of the caller's own that reads values from the state) the
//! thread keeps a copy of every signal's value and makes the same calls
//! the writer would have had on the simulation's thread. The file is byte
//! for byte the one written without the thread.
//!
//! This is how a traced run uses a second core (the speed issue's "encoding
//! off the simulation thread"): the simulation thread's cost per change is
//! its entry in the change log. A simulation that lets the sink keep the
//! log ([`WaveSink::cycle_logged`], as [`crate::sim::System`] does) hands
//! the log itself over once it holds a batch, and logs on in the vectors
//! of a batch the writer is done with; any other caller's changes are
//! copied into the batch cycle by cycle. At most [`IN_FLIGHT`] batches wait for
//! the writer, so a writer slower than the simulation holds the simulation
//! back instead of growing memory without bound.
//!
//! Where no thread can be started (a limit on a control group's tasks, as
//! a container or a cluster's job may set), the batches are written on
//! the simulation's thread as they fill: the same file, more slowly.

use crate::rtl::trace::{Hierarchy, SignalId, SignalValue, TraceState, WaveSink};
use crate::{Error, Result};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Value changes in a batch before it is handed to the writer.
const BATCH_CHANGES: usize = 1 << 16;
/// Cycles in a batch before it is handed over (for cycles without changes).
const BATCH_CYCLES: usize = 1 << 14;
/// Changes a new batch has room for: a full batch and the cycle that
/// filled it, in most cycles.
const BATCH_ROOM: usize = BATCH_CHANGES + (1 << 12);
/// Batches handed over and not yet written, at most.
const IN_FLIGHT: usize = 4;

/// Bit of a signal id in a batch that marks the value unknown.
const UNKNOWN: u32 = 1 << 31;

/// The changes of consecutive cycles.
#[derive(Default)]
struct Batch {
    /// Per cycle: its number and the end of its changes in `ids`.
    cycles: Vec<(u64, u32)>,
    /// Signals that changed, with [`UNKNOWN`] set for `x`.
    ids: Vec<u32>,
    /// Their values, one word each ([`TraceState::export_changes`]): the
    /// value of a signal of at most 64 bits, the index in `wide` of a
    /// wider signal's words.
    words: Vec<u64>,
    /// The words of the values wider than 64 bits.
    wide: Vec<u64>,
}

impl Batch {
    /// An empty batch with room for the changes of a full one, so that a
    /// log that takes its vectors does not grow them from nothing (the
    /// first batches of a run; later ones come back from the writer with
    /// their room).
    fn reserved() -> Self {
        Batch {
            cycles: Vec::new(),
            ids: Vec::with_capacity(BATCH_ROOM),
            words: Vec::with_capacity(BATCH_ROOM),
            wide: Vec::new(),
        }
    }

    fn clear(&mut self) {
        self.cycles.clear();
        self.ids.clear();
        self.words.clear();
        self.wide.clear();
    }

    /// Each cycle's number and the range of its changes in `ids` and
    /// `words`.
    fn each_cycle(&self) -> impl Iterator<Item = (u64, std::ops::Range<usize>)> + '_ {
        let mut at = 0usize;
        self.cycles.iter().map(move |&(cycle, end)| {
            let range = at..end as usize;
            at = end as usize;
            (cycle, range)
        })
    }

    fn full(&self) -> bool {
        self.ids.len() >= BATCH_CHANGES || self.cycles.len() >= BATCH_CYCLES
    }
}

/// The writer thread's side: its copy of every value (none for a sink
/// that takes the changes as they come, [`WaveSink::takes_exported`]),
/// and the real sink.
struct Writer {
    state: Option<TraceState>,
    sink: Box<dyn WaveSink + Send>,
}

impl Writer {
    fn write(&mut self, b: &Batch) -> Result<()> {
        let Some(state) = &mut self.state else {
            for (cycle, range) in b.each_cycle() {
                let (ids, words) = (&b.ids[range.clone()], &b.words[range]);
                self.sink
                    .cycle_exported(cycle, ids, words, &b.wide, UNKNOWN)?;
            }
            return Ok(());
        };
        for (cycle, range) in b.each_cycle() {
            for (&id, &w) in b.ids[range.clone()].iter().zip(&b.words[range]) {
                let s = SignalId(id & !UNKNOWN);
                if id & UNKNOWN != 0 {
                    state.set(s, SignalValue::Unknown);
                } else {
                    let n = state.width(s).div_ceil(64) as usize;
                    let v = if n == 1 {
                        SignalValue::Narrow(w)
                    } else {
                        SignalValue::Wide(&b.wide[w as usize..w as usize + n])
                    };
                    state.set(s, v);
                }
            }
            self.sink.cycle(cycle, state, state.changed())?;
            state.clear_changes();
        }
        Ok(())
    }
}

enum Stage {
    /// Before `begin`: the sink, on this thread.
    Idle(Box<dyn WaveSink + Send>),
    /// Writing: batches go to the thread.
    Running {
        to: SyncSender<Batch>,
        back: Receiver<Batch>,
        thread: JoinHandle<Result<Box<Writer>>>,
    },
    /// Writing on this thread, since no other could be started.
    Here(Box<Writer>),
    /// Finished.
    Done,
    /// The writer failed (its error was returned): the waveform cannot be
    /// finished, and views beside it would show nothing.
    Failed,
}

/// A [`WaveSink`] that runs another on a thread of its own. Errors of the
/// writer (a full disk, say) come back at the next call after they happen,
/// at the latest from [`finish`](WaveSink::finish).
pub struct Background {
    stage: Stage,
    batch: Batch,
    /// Driven by [`WaveSink::cycle_logged`]: the changes of the cycles in
    /// `batch.cycles` are still in the simulation's change log, which the
    /// batch takes when it is full.
    logged: bool,
}

impl Background {
    /// `sink`, to be written on its own thread from `begin` on.
    pub fn new(sink: Box<dyn WaveSink + Send>) -> Self {
        Background {
            stage: Stage::Idle(sink),
            batch: Batch::default(),
            logged: false,
        }
    }

    /// Ends the thread once it has written what it was given, and returns
    /// the writer (`None` when there is no thread), or the writer's error
    /// (the stage is then [`Stage::Failed`]).
    fn join(&mut self) -> Result<Option<Writer>> {
        match std::mem::replace(&mut self.stage, Stage::Done) {
            Stage::Running { to, thread, .. } => {
                drop(to);
                let r = match thread.join() {
                    Ok(r) => r.map(|w| Some(*w)),
                    Err(_) => Err(Error::Wave("the waveform writer's thread panicked".into())),
                };
                if r.is_err() {
                    self.stage = Stage::Failed;
                }
                r
            }
            Stage::Here(w) => Ok(Some(*w)),
            other => {
                self.stage = other;
                Ok(None)
            }
        }
    }

    /// Hands the current batch to the thread (or writes it).
    fn hand_over(&mut self) -> Result<()> {
        if let Stage::Here(w) = &mut self.stage {
            let r = w.write(&self.batch);
            self.batch.clear();
            if r.is_err() {
                self.stage = Stage::Failed;
            }
            return r;
        }
        let Stage::Running { to, back, .. } = &self.stage else {
            return Err(match self.stage {
                Stage::Failed => not_finished(),
                _ => Error::Wave("waveform written after it ended".into()),
            });
        };
        // A batch the writer is done with, or a new one.
        let next: Batch = back.try_recv().unwrap_or_else(|_| Batch::reserved());
        let full = std::mem::replace(&mut self.batch, next);
        if to.send(full).is_err() {
            // The thread stopped: it failed, and says why.
            return match self.join() {
                Err(e) => Err(e),
                Ok(_) => Err(Error::Wave("the waveform writer stopped early".into())),
            };
        }
        Ok(())
    }
}

impl WaveSink for Background {
    fn begin(&mut self, h: &Hierarchy, cycle_ps: u64, state: &TraceState) -> Result<()> {
        self.begin_at(h, cycle_ps, state, 0)
    }

    fn begin_at(
        &mut self,
        h: &Hierarchy,
        cycle_ps: u64,
        state: &TraceState,
        first: u64,
    ) -> Result<()> {
        if state.len() >= UNKNOWN as usize {
            return Err(Error::Wave(format!(
                "{} signals: a waveform written on its own thread holds at most {}",
                state.len(),
                UNKNOWN - 1
            )));
        }
        let Stage::Idle(mut sink) = std::mem::replace(&mut self.stage, Stage::Done) else {
            return Err(Error::Wave("waveform begun twice".into()));
        };
        // On this thread, so that a refusal comes back at once.
        sink.begin_at(h, cycle_ps, state, first)?;
        let copy = (!sink.takes_exported()).then(|| {
            let mut s = state.clone();
            s.clear_changes();
            s
        });
        let w = Box::new(Writer { state: copy, sink });
        let (to, from) = sync_channel::<Batch>(IN_FLIGHT);
        let (give_back, back) = sync_channel::<Batch>(IN_FLIGHT + 1);
        // The writer is sent once the thread runs, so that it stays here
        // when no thread can be started.
        let (give_writer, writer) = sync_channel::<Box<Writer>>(1);
        let started = std::thread::Builder::new()
            .name("wave-writer".into())
            .spawn(move || {
                let Ok(mut w) = writer.recv() else {
                    return Err(Error::Wave("the waveform writer was never given".into()));
                };
                for mut b in from {
                    w.write(&b)?;
                    b.clear();
                    // Back for reuse; when the simulation has not taken
                    // the last ones back yet, this one is dropped.
                    let _ = give_back.try_send(b);
                }
                Ok(w)
            });
        self.stage = match started {
            Ok(thread) => {
                give_writer
                    .send(w)
                    .expect("the writer's thread waits for it");
                Stage::Running { to, back, thread }
            }
            Err(_) => Stage::Here(w),
        };
        Ok(())
    }

    fn cycle(&mut self, cycle: u64, state: &TraceState, changed: &[u32]) -> Result<()> {
        if self.logged {
            return Err(mixed_calls());
        }
        let b = &mut self.batch;
        state.export_changes(changed, UNKNOWN, &mut b.ids, &mut b.words, &mut b.wide);
        b.cycles.push((cycle, b.ids.len() as u32));
        if b.full() {
            self.hand_over()?;
        }
        Ok(())
    }

    /// The cycle's end in the log is noted; the log itself is taken, with
    /// no copy, once it holds a batch.
    fn cycle_logged(&mut self, cycle: u64, state: &mut TraceState) -> Result<()> {
        if !self.logged && !self.batch.cycles.is_empty() {
            return Err(mixed_calls());
        }
        if !self.logged {
            // The log collects a batch before it is first taken.
            state.reserve_changes(BATCH_ROOM);
            self.batch = Batch::reserved();
            self.logged = true;
        }
        let end = state.changed().len();
        let b = &mut self.batch;
        b.cycles.push((cycle, end as u32));
        if end >= BATCH_CHANGES || b.cycles.len() >= BATCH_CYCLES {
            state.take_changes(UNKNOWN, &mut b.ids, &mut b.words, &mut b.wide);
            self.hand_over()?;
        }
        Ok(())
    }

    fn finish_logged(&mut self, last_cycle: u64, state: &mut TraceState) -> Result<()> {
        self.take_logged(state);
        self.finish(last_cycle)
    }

    /// Ends the waveform; one whose writer failed earlier (its error was
    /// returned then) is not ended, and says so.
    fn finish(&mut self, last_cycle: u64) -> Result<()> {
        match self.stage {
            Stage::Running { .. } | Stage::Here(_) => {}
            Stage::Failed => return Err(not_finished()),
            _ => return Ok(()),
        }
        if !self.batch.cycles.is_empty() {
            self.hand_over()?;
        }
        match self.join()? {
            Some(mut w) => w.sink.finish(last_cycle),
            None => Ok(()),
        }
    }
}

impl Background {
    /// Moves the changes the simulation's log holds for the batch's
    /// cycles into the batch.
    fn take_logged(&mut self, state: &mut TraceState) {
        if self.logged && !self.batch.cycles.is_empty() {
            let b = &mut self.batch;
            state.take_changes(UNKNOWN, &mut b.ids, &mut b.words, &mut b.wide);
        }
    }
}

/// What a [`Background`] whose writer failed says when it is given more,
/// or asked to finish (the writer's own error was returned before).
fn not_finished() -> Error {
    Error::Wave("the waveform was not finished: its writer had failed".into())
}

/// A [`Background`] given cycles both ways, copied and logged.
fn mixed_calls() -> Error {
    Error::Wave(
        "a waveform on its own thread was given cycles both as copies and in the change log".into(),
    )
}

impl Drop for Background {
    /// Ended without `finish` (the run failed): what was sampled is still
    /// written, as far as the writer writes without being finished (a VCD
    /// up to the last cycle; an FST is unreadable without its end).
    fn drop(&mut self) {
        if matches!(self.stage, Stage::Running { .. } | Stage::Here(_))
            && !self.batch.cycles.is_empty()
        {
            let _ = self.hand_over();
        }
        let _ = self.join();
    }
}
