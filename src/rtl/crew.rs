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
