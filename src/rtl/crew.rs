//! A crew of helper threads that run one job each per cycle, for a
//! network evaluated on several threads (the tree router's and the
//! wormhole system's in [`crate::direct`], the cut-through switch's in
//! [`crate::sim`]). The network is cut at its registered channels into
//! ranges; a job is one range's work for a cycle.
//!
//! The helper threads live as long as the network. Each waits for the next
//! cycle's epoch (spinning briefly, then parked), runs its job, and
//! publishes the epoch it finished; the calling thread runs the first job
//! meanwhile and then waits for the others, or returns once its own job is
//! done and waits for them later ([`Crew::start`], [`Crew::wait`]).
//!
//! A cycle that holds little work is not handed over at all when [`Shift`]
//! says so ([`HandOver`]): the calling thread runs every range itself
//! (the tree router), or the network runs the cycle as
//! one thread's evaluation on state it keeps for that (the wormhole
//! system and the cut-through switch's). Which thread runs a range
//! changes only the time a cycle takes: the ranges of a cycle are
//! independent, so they may run in any order or at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;

/// The most threads a network may ask for.
pub const MAX_THREADS: usize = 256;

/// The threads a network of `routers` routers (or switches) runs on when
/// `asked` are asked for: no more than one per 64 routers, the least a
/// thread's range holds.
pub fn threads_used(routers: u32, asked: usize) -> usize {
    asked.min((routers as usize).div_ceil(64)).max(1)
}

/// Which cycles of a network evaluated on several threads are handed to
/// the other threads. The results, waveforms included, are the same
/// either way; only the time differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HandOver {
    /// The cycles that hold enough work (the default): while the work
    /// outside the busiest range (the routers, switches, processors or
    /// nodes that other threads could take off the calling thread)
    /// averages fewer than 8 components a cycle over the last 64 or so
    /// cycles, the calling thread runs every range itself, and the cycles
    /// are handed over again once it averages more than 24. A hand-over
    /// costs more than so little work would save (docs/performance-log.md,
    /// "Light cycles on the calling thread").
    #[default]
    Busy,
    /// Every cycle, however little it holds: slower at light loads. For
    /// tests of the threads, and to compare with figures taken before
    /// light cycles stayed on the calling thread.
    Always,
}

/// The running choice between handing cycles over and running them on the
/// calling thread alone, per [`HandOver`].
#[derive(Clone, Debug)]
pub(crate) struct Shift {
    mode: HandOver,
    /// The work outside the busiest range, averaged over the last cycles
    /// (an exponential average, the cycle just counted weighing
    /// 2^-[`AVG_SHIFT`]), in 2^-`AVG_SHIFT` of a component.
    avg: u32,
    /// Cycles are being handed over.
    shared: bool,
    /// Cycles run on the calling thread since their work was last counted
    /// ([`Shift::count_due`]).
    uncounted: u32,
}

/// Work outside the busiest range, averaged, below which cycles stay on
/// the calling thread ([`HandOver::Busy`]).
const LIGHT_BELOW: u32 = 8;
/// Work averaged above which cycles are handed over again.
const BUSY_ABOVE: u32 = 24;
/// The average's weight of the cycle just counted is 2^-`AVG_SHIFT`: the
/// choice follows the load over tens of cycles, not each cycle's ups and
/// downs (which, in a network that is light on average, would hand a
/// share of its cycles over anyway).
const AVG_SHIFT: u32 = 6;
/// A range's count of components to evaluate goes no further (the
/// average then climbs past [`BUSY_ABOVE`] within a few cycles).
pub(crate) const COUNT_TO: usize = 4 * BUSY_ABOVE as usize;
/// A network whose cycles run on the calling thread counts the work its
/// ranges would have every this many cycles, and the rule reads the last
/// count in between ([`Shift::count_due`]).
const COUNT_EVERY: u32 = 8;

impl Shift {
    /// Starts with cycles on the calling thread (a network starts idle).
    pub(crate) fn new(mode: HandOver) -> Self {
        Shift {
            mode,
            avg: 0,
            shared: false,
            uncounted: 0,
        }
    }

    /// Whether a light cycle (one the calling thread runs) counts the work
    /// each range has or would have, the components live in its part of
    /// the network: after the cycle in the cut-through and wormhole
    /// systems, in each range's job for tree routers. The count is a pass over the live set's words,
    /// which at the light loads that keep cycles here took about an eighth
    /// of a cycle's instructions when taken every cycle
    /// (docs/performance-log.md, "The hand-over rule's counts, every 8th
    /// light cycle"). Counted every [`COUNT_EVERY`]th cycle, the rule reads a
    /// count up to 7 cycles old, against an average over about 64. The
    /// first light cycle after a hand-over counts. Which thread runs a
    /// cycle changes nothing but the time.
    pub(crate) fn count_due(&mut self) -> bool {
        self.uncounted += 1;
        if self.uncounted < COUNT_EVERY {
            return false;
        }
        self.uncounted = 0;
        true
    }

    /// Whether the last cycle asked about was handed over.
    #[cfg(test)]
    pub(crate) fn handed(&self) -> bool {
        self.mode == HandOver::Always || self.shared
    }

    /// Whether the cycle about to run is handed over, given the number of
    /// components each range is to evaluate (each counted no further than
    /// [`COUNT_TO`]); called once a cycle. Under [`HandOver::Always`] the
    /// counts are not taken.
    pub(crate) fn hand_over(&mut self, work: impl IntoIterator<Item = usize>) -> bool {
        if self.mode == HandOver::Always {
            return true;
        }
        let (mut total, mut most) = (0usize, 0usize);
        for w in work {
            total += w;
            most = most.max(w);
        }
        let outside = (total - most).min(COUNT_TO) as u32;
        self.avg = self.avg - (self.avg >> AVG_SHIFT) + outside;
        self.shared = if self.shared {
            self.avg >= LIGHT_BELOW << AVG_SHIFT
        } else {
            self.avg > BUSY_ABOVE << AVG_SHIFT
        };
        if self.shared {
            // The next light cycle counts at once.
            self.uncounted = COUNT_EVERY - 1;
        }
        self.shared
    }
}

/// One range's work for a cycle, handed to one thread.
pub(crate) trait CrewJob: Copy + Send + 'static {
    /// Runs the job.
    ///
    /// # Safety
    /// What the job points into is valid, and no other thread touches what
    /// it writes while it runs (each job type states what that is).
    unsafe fn run(&self);
}

struct Slot<J> {
    /// What the calling thread writes for the helper: the epoch and, before
    /// it, the job. On a cache line of its own, apart from `done`, which
    /// the helper writes: the two would otherwise cross between the cores
    /// twice more per cycle.
    give: Padded<Give<J>>,
    /// Last epoch this helper finished.
    done: Padded<AtomicU64>,
    /// The helper is (about to be) parked.
    sleeping: AtomicBool,
    /// Spins before the helper parks, or before a thread waiting for it
    /// yields: none when the crew has more threads than the machine has
    /// cores (a spinning thread would hold a core that a thread it waits
    /// for needs).
    spins: u32,
    stop: AtomicBool,
    /// The helper's job panicked (a bug of the model): the payload, for
    /// the calling thread to raise again once every thread is done.
    panicked: AtomicBool,
    panic: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

/// One cache line (two on processors that fetch lines in pairs).
#[repr(align(128))]
struct Padded<T>(T);

struct Give<J> {
    /// Last epoch published to this helper.
    go: AtomicU64,
    /// The job of epoch `go`: written by the calling thread before it
    /// publishes the epoch (release), read by the helper after it sees it
    /// (acquire), and not written again before the helper's `done`.
    job: std::cell::UnsafeCell<Option<J>>,
}

// SAFETY: `job` is handed over by the epoch protocol above: one writer at a
// time, and every read ordered after the write by the epoch's
// release/acquire pair.
unsafe impl<J: Send> Sync for Give<J> {}

/// The helper threads.
pub(crate) struct Crew<J> {
    slots: Vec<Arc<Slot<J>>>,
    handles: Vec<JoinHandle<()>>,
    epoch: u64,
    /// Helpers were handed jobs not yet waited for.
    running: bool,
}

impl<J> std::fmt::Debug for Crew<J> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Crew({} helpers)", self.slots.len())
    }
}

/// Spins before a helper parks, or before the caller yields while waiting
/// (when every thread of the crew has a core of its own).
const SPINS: u32 = 1 << 14;

impl<J: CrewJob> Crew<J> {
    /// `helpers` threads (the caller is one more), named `name-1`,
    /// `name-2` and so on, for a network that asked for `asked` threads:
    /// a thread that cannot start is an error that names the count.
    pub(crate) fn new(helpers: usize, asked: usize, name: &str) -> crate::Result<Crew<J>> {
        let mut crew = Crew {
            slots: Vec::new(),
            handles: Vec::new(),
            epoch: 0,
            running: false,
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let spins = if helpers < cores { SPINS } else { 0 };
        for k in 0..helpers {
            let slot = Arc::new(Slot {
                give: Padded(Give {
                    go: AtomicU64::new(0),
                    job: std::cell::UnsafeCell::new(None),
                }),
                done: Padded(AtomicU64::new(0)),
                sleeping: AtomicBool::new(false),
                spins,
                stop: AtomicBool::new(false),
                panicked: AtomicBool::new(false),
                panic: std::sync::Mutex::new(None),
            });
            let s = slot.clone();
            let h = std::thread::Builder::new()
                .name(format!("{name}-{}", k + 1))
                .spawn(move || helper(&s))
                .map_err(|e| crate::Error::Config {
                    field: "threads",
                    value: asked.to_string(),
                    reason: format!("cannot start a thread: {e}"),
                })?;
            crew.slots.push(slot);
            crew.handles.push(h);
        }
        Ok(crew)
    }

    /// Runs `jobs[0]` here and `jobs[k]` on helper `k - 1`, and returns when
    /// all are done. A job that panics (on any thread) is raised here once
    /// every thread has finished its own: no helper is left working on the
    /// network while the panic unwinds through it.
    pub(crate) fn run(&mut self, jobs: &[J]) {
        self.start(jobs);
        {
            // Waits for the helpers when it goes, whether this thread's
            // range returns or panics.
            let _wait = self.guard();
            // SAFETY: the first range is this thread's alone for the cycle.
            unsafe { jobs[0].run() };
        }
        self.wait();
    }

    /// Hands `jobs[k]` to helper `k - 1` and returns at once (the first
    /// job is the caller's to run); [`wait`](Self::wait) waits for them.
    pub(crate) fn start(&mut self, jobs: &[J]) {
        debug_assert_eq!(jobs.len(), self.slots.len() + 1);
        debug_assert!(!self.running, "a crew started twice");
        self.epoch += 1;
        self.running = true;
        let e = self.epoch;
        for (k, slot) in self.slots.iter().enumerate() {
            // SAFETY: the helper finished the last epoch (`wait` waited
            // for it) and reads the job only once it sees this one.
            unsafe { *slot.give.0.job.get() = Some(jobs[k + 1]) };
            slot.give.0.go.store(e, Ordering::SeqCst);
            if slot.sleeping.load(Ordering::SeqCst) {
                self.handles[k].thread().unpark();
            }
        }
    }

    /// A guard that waits for the helpers when dropped.
    fn guard(&self) -> WaitAll<'_, J> {
        WaitAll {
            slots: &self.slots,
            epoch: self.epoch,
        }
    }

    /// A guard, to be forgotten once the caller's own work is done, that
    /// waits for the helpers if that work panics: so that no helper is left
    /// working on the network while the panic unwinds through it.
    pub(crate) fn pending(&self) -> Pending<J> {
        Pending {
            slots: self.slots.as_slice(),
            epoch: self.epoch,
        }
    }

    /// Waits for the helpers' last jobs, if any, without raising a
    /// helper's panic (for a network being dropped).
    pub(crate) fn settle_quietly(&self) {
        if self.running {
            drop(self.guard());
        }
    }

    /// Waits until every helper has finished the jobs of the last
    /// [`start`](Self::start), and raises a helper's panic here.
    pub(crate) fn wait(&mut self) {
        if !self.running {
            return;
        }
        drop(self.guard());
        self.running = false;
        for slot in &self.slots {
            if slot.panicked.load(Ordering::Acquire) {
                let p = slot.panic.lock().unwrap_or_else(|p| p.into_inner()).take();
                std::panic::resume_unwind(
                    p.unwrap_or_else(|| Box::new("a helper thread panicked")),
                );
            }
        }
    }
}

/// [`WaitAll`] without a borrow of the crew, so that the caller can work
/// on the network meanwhile: the crew outlives it (it lives in the network
/// and is not moved while a step runs).
pub(crate) struct Pending<J> {
    slots: *const [Arc<Slot<J>>],
    epoch: u64,
}

impl<J> Drop for Pending<J> {
    fn drop(&mut self) {
        // SAFETY: the crew, and so its slots, outlive the guard.
        let slots = unsafe { &*self.slots };
        drop(WaitAll {
            slots,
            epoch: self.epoch,
        });
    }
}

/// Waits, when dropped, until every helper has finished epoch `epoch`.
struct WaitAll<'a, J> {
    slots: &'a [Arc<Slot<J>>],
    epoch: u64,
}

impl<J> Drop for WaitAll<'_, J> {
    fn drop(&mut self) {
        for slot in self.slots {
            let mut spins = 0u32;
            while slot.done.0.load(Ordering::Acquire) != self.epoch {
                if spins < slot.spins {
                    spins += 1;
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }
}

impl<J> Drop for Crew<J> {
    fn drop(&mut self) {
        for (k, slot) in self.slots.iter().enumerate() {
            slot.stop.store(true, Ordering::SeqCst);
            slot.give.0.go.store(u64::MAX, Ordering::SeqCst);
            self.handles[k].thread().unpark();
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

fn helper<J: CrewJob>(slot: &Slot<J>) {
    let mut last = 0u64;
    loop {
        let mut spins = 0u32;
        let e = loop {
            let e = slot.give.0.go.load(Ordering::Acquire);
            if e != last {
                break e;
            }
            if spins < slot.spins {
                spins += 1;
                std::hint::spin_loop();
                continue;
            }
            // Park; the caller unparks after publishing an epoch when it
            // sees the flag, and either sees it or this thread sees the
            // epoch (both sequentially consistent).
            slot.sleeping.store(true, Ordering::SeqCst);
            if slot.give.0.go.load(Ordering::SeqCst) == last {
                std::thread::park();
            }
            slot.sleeping.store(false, Ordering::SeqCst);
        };
        if slot.stop.load(Ordering::SeqCst) {
            return;
        }
        last = e;
        // SAFETY: the epoch was published after its job (see `Give`).
        let job = unsafe { *slot.give.0.job.get() }.expect("a job with every epoch");
        // SAFETY: see `Job`.
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { job.run() }));
        if let Err(p) = ran {
            *slot.panic.lock().unwrap_or_else(|p| p.into_inner()) = Some(p);
            slot.panicked.store(true, Ordering::Release);
        }
        slot.done.0.store(e, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread::ThreadId;

    /// The cycles of `work` a cycle, range by range, until the shift hands
    /// one over (none in `limit`).
    fn until_handed(s: &mut Shift, work: &[usize], limit: u32) -> Option<u32> {
        (1..=limit).find(|_| s.hand_over(work.iter().copied()))
    }

    /// The cycles of `work` until the shift keeps one here.
    fn until_here(s: &mut Shift, work: &[usize], limit: u32) -> Option<u32> {
        (1..=limit).find(|_| !s.hand_over(work.iter().copied()))
    }

    #[test]
    fn always_hands_every_cycle_over() {
        let mut s = Shift::new(HandOver::Always);
        assert_eq!(until_here(&mut s, &[0, 0], 1_000), None);
        assert_eq!(until_here(&mut s, &[COUNT_TO, COUNT_TO], 1_000), None);
    }

    #[test]
    fn only_busy_cycles_are_handed_over() {
        let mut s = Shift::new(HandOver::Busy);
        // However busy one range is, no other thread could take its work:
        // the work outside the busiest range is what counts.
        assert_eq!(until_handed(&mut s, &[COUNT_TO, 0], 10_000), None);
        assert_eq!(until_handed(&mut s, &[0, 0, COUNT_TO, 0], 10_000), None);
        // 20 outside the busiest range: under 24, so it stays here.
        let mut s = Shift::new(HandOver::Busy);
        assert_eq!(until_handed(&mut s, &[10, 10, 10], 10_000), None);
        // 30 a cycle outside from none: the average, 30 (1 - (63/64)^n)
        // after n cycles, passes 24 at n = 102.2; the average's decay is
        // rounded down, which brings it to 99.
        let mut s = Shift::new(HandOver::Busy);
        assert_eq!(until_handed(&mut s, &[COUNT_TO, 30], 1_000), Some(99));
        // Handed over, it stays so while the average is 8 or more.
        assert_eq!(until_here(&mut s, &[8, 40], 10_000), None);
        assert_eq!(until_here(&mut s, &[16, 16], 10_000), None);
        // From 16, 4 a cycle: 4 + 12 (63/64)^n falls under 8 at n = 69.8
        // (76 with the rounding).
        assert_eq!(until_here(&mut s, &[4, 4], 1_000), Some(76));
        // A burst counts no more than `COUNT_TO` (96): from 8, it takes
        // 8 + 88 (1 - (63/64)^n) past 24 at n = 12.7 (13).
        assert_eq!(until_handed(&mut s, &[1_000, 1_000], 1_000), Some(13));
    }

    #[test]
    fn light_cycles_count_their_work_every_eighth_and_first_after_a_hand_over() {
        let mut s = Shift::new(HandOver::Busy);
        let due: Vec<bool> = (0..24).map(|_| s.count_due()).collect();
        let want: Vec<bool> = (1..=24).map(|n| n % COUNT_EVERY == 0).collect();
        assert_eq!(due, want);
        s.count_due();
        // Handed over: the first light cycle after it counts, then every
        // eighth again.
        assert_eq!(until_handed(&mut s, &[COUNT_TO, COUNT_TO], 1_000), Some(19));
        assert_eq!(until_here(&mut s, &[0, 0], 1_000), Some(76));
        let due: Vec<bool> = (0..9).map(|_| s.count_due()).collect();
        assert_eq!(
            due,
            [true, false, false, false, false, false, false, false, true]
        );
    }

    /// A job that notes the thread it ran on.
    #[derive(Clone, Copy)]
    struct Note(*const std::sync::Mutex<Vec<(usize, ThreadId)>>, usize);

    // SAFETY: the mutex outlives the crew's jobs (the tests wait for them).
    unsafe impl Send for Note {}

    impl CrewJob for Note {
        unsafe fn run(&self) {
            // SAFETY: as above.
            let log = unsafe { &*self.0 };
            log.lock()
                .unwrap()
                .push((self.1, std::thread::current().id()));
        }
    }

    #[test]
    fn jobs_run_on_the_helpers_cycle_after_cycle() {
        let log = std::sync::Mutex::new(Vec::new());
        let jobs: Vec<Note> = (0..3).map(|k| Note(&log, k)).collect();
        let mut crew = Crew::new(2, 3, "wormcast-test").unwrap();
        let me = std::thread::current().id();
        crew.run(&jobs);
        let mut ran = std::mem::take(&mut *log.lock().unwrap());
        ran.sort_by_key(|&(k, _)| k);
        assert_eq!(ran.iter().map(|&(k, _)| k).collect::<Vec<_>>(), [0, 1, 2]);
        // The first job here, the others on two other threads.
        assert_eq!(ran[0].1, me);
        assert!(ran[1].1 != me && ran[2].1 != me && ran[1].1 != ran[2].1);
        // And handed over again.
        crew.run(&jobs);
        assert_eq!(log.lock().unwrap().len(), 3);
        assert_eq!(
            log.lock()
                .unwrap()
                .iter()
                .filter(|&&(_, t)| t == me)
                .count(),
            1
        );
    }
}
