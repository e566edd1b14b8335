//! The wormhole system's cycle on several threads (seeds 001/002's routers
//! and processors, evaluated as the one-thread step does, cut at the
//! registered channels between them).
//!
//! The routers are cut into contiguous ranges, one per thread; processor
//! `x` goes with router `x`. For the length of a cycle a range's thread
//! owns its routers and processors, their wake-up cycles and its
//! [`Range`]: its own copy of every channel, its live sets, its inboxes and
//! its lists of what the cycle produced (hops, arrivals, injections,
//! faults, wake-ups). It evaluates its live routers, then its live
//! processors, then clocks its copy of the channels: a channel read in the
//! same range is delivered at once, as the one-thread edge does; a value
//! bound for another range's router or processor goes to the range's list
//! of crossing writes ([`Cross`]), which the receiving range puts into its
//! own copy first thing in the next cycle, before it evaluates. The
//! calling thread then takes the ranges' lists in range order (the routers'
//! faults before the processors', as one thread makes them), so a run
//! gives the same deliveries, hops, faults and reports whatever the thread
//! count.
//!
//! A channel's writer's copy is the one that counts what it carried
//! ([`ChannelBank::deliver`](crate::rtl::ChannelBank::deliver) counts
//! nothing), so the links' loads are the sum over the copies.
//!
//! Cycles too light to hand over ([`Shift`](crate::rtl::crew::Shift)) run
//! on the calling thread as one thread's, on the system's own live sets,
//! inboxes and channels: when the choice changes, the state moves between
//! the ranges and the system (the writes the ranges' last edges handed
//! over taken first, each channel taken from its reader's copy, and its
//! count carried from every copy's; back, every copy shows every channel,
//! and counts what its own components drive).
//!
//! A traced range also keeps the routers and processors it ran; the
//! calling thread samples the cycle from those and from the system's own
//! set of channels, which follows the ranges' copies after every edge as
//! one thread's would ([`Channels::follow`]), and so writes one thread's
//! waveform.

use super::processor::{Arrival, ProcIo, Processor, Rest};
use super::router::{Hop, Router, RouterIo};
use crate::rtl::crew::{COUNT_TO, CrewJob};
use crate::rtl::{Bits, Sink, insert_into};
use crate::switch::{Channels, Cross, CrossLists};

/// What one range keeps: its copy of the channels, its live sets and
/// inboxes, and what a cycle produced, for the calling thread to take.
#[derive(Debug)]
pub(super) struct Range {
    /// The first router (and processor) of the range.
    pub(super) lo: u32,
    /// One past the last.
    pub(super) hi: u32,
    /// Every channel, as this range's components see and drive them.
    pub(super) ch: Channels,
    /// The range's routers to evaluate (numbered as in the system).
    pub(super) live_routers: Bits,
    /// The range's processors to evaluate.
    pub(super) live_procs: Bits,
    /// Per router (of the system; the range's own are used), the inputs
    /// a flit was delivered to at the last edge.
    pub(super) inbox: Vec<u64>,
    /// This cycle's grants of external channels, in router order.
    pub(super) hops: Vec<Hop>,
    /// This cycle's worms received whole, in processor order.
    pub(super) arrivals: Vec<Arrival>,
    /// This cycle's worms whose first flit left, in processor order.
    pub(super) injected: Vec<(u32, u64)>,
    /// Faults found by the routers, then by the processors.
    pub(super) router_faults: Vec<String>,
    pub(super) proc_faults: Vec<String>,
    /// A flit moved in the range this cycle.
    pub(super) moved: bool,
    /// The routers and processors live at the end of the range's last
    /// cycle, counted no further than [`COUNT_TO`] by the range's thread
    /// (for [`Shift`](crate::rtl::crew::Shift)), beside `moved`, which the
    /// calling thread reads anyway.
    pub(super) work: usize,
    /// Processors that went to sleep until a cycle: (cycle, processor).
    pub(super) wakes: Vec<(u64, u32)>,
    /// When traced: the routers and processors the range ran this cycle
    /// (its live sets as the evaluation began).
    pub(super) ran_routers: Bits,
    pub(super) ran_procs: Bits,
}

/// Router or processor component `c` (processors are numbered after the
/// `n` routers) belongs to the range of routers `lo..hi`.
#[inline]
pub(super) fn owns(lo: u32, hi: u32, n: u32, c: u32) -> bool {
    (lo..hi).contains(&if c < n { c } else { c - n })
}

impl Range {
    /// The words of 64 routers (or processors) the range holds in a set
    /// of the system's (ranges start on a word).
    pub(super) fn words(&self) -> std::ops::Range<usize> {
        self.lo as usize / 64..(self.hi as usize).div_ceil(64)
    }

    /// Puts into the range's copy of the channels the writes the other
    /// ranges' edges handed over in the cycle before `cycle` whose readers
    /// are this range's (`k` of `n_ranges`; `n` routers), and wakes those
    /// readers.
    ///
    /// # Safety
    /// As [`Channels::take_crossings`]: `cross` points to every range's
    /// lists, and no thread writes the last cycle's while this runs.
    #[inline(always)]
    pub(super) unsafe fn take_crossings(
        &mut self,
        cross: *const Cross,
        n_ranges: usize,
        k: usize,
        cycle: u64,
        n: u32,
    ) {
        let (lo, hi) = (self.lo, self.hi);
        let (rw, rs) = self.live_routers.parts();
        let (pw, ps) = self.live_procs.parts();
        // SAFETY: by the caller.
        unsafe {
            self.ch.take_crossings(
                cross,
                n_ranges,
                k,
                cycle,
                |c| owns(lo, hi, n, c),
                |sink| arrive(rw, rs, pw, ps, &mut self.inbox, n, sink),
            )
        };
    }
}

/// One range's work for a cycle: raw pointers, as the ranges are disjoint
/// parts of the same vectors that the threads work on at once.
#[derive(Clone, Copy)]
pub(super) struct Job {
    pub(super) cycle: u64,
    /// Routers in the system.
    pub(super) n: u32,
    pub(super) routers: *mut Router,
    pub(super) procs: *mut Processor,
    /// Per processor, the cycle it sleeps until (`u64::MAX`: none).
    pub(super) wake_at: *mut u64,
    /// Every range.
    pub(super) ranges: *mut Range,
    /// Every range's crossing writes.
    pub(super) cross: *mut Cross,
    pub(super) n_ranges: usize,
    /// This range's index.
    pub(super) k: usize,
    /// The network is traced: the range keeps the sets it ran.
    pub(super) traced: bool,
}

impl Job {
    /// Puts the last cycle's crossing writes into the range's channels,
    /// evaluates its live routers and then its live processors, and clocks
    /// its channels, keeping what goes to other ranges in this cycle's list.
    ///
    /// # Safety
    /// The pointers are valid. While it runs, no other thread touches the
    /// range's routers, processors, wake-up cycles, its [`Range`] or its
    /// crossing list of this cycle, and none writes the last cycle's lists.
    unsafe fn run_range(&self) {
        let (k, n, cycle) = (self.k, self.n, self.cycle);
        let now = (cycle & 1) as usize;
        // SAFETY: by the caller, the range is this thread's.
        let me = unsafe { &mut *self.ranges.add(k) };
        // SAFETY: the other ranges only read their last cycle's lists.
        unsafe { me.take_crossings(self.cross, self.n_ranges, k, cycle, n) };
        if self.traced {
            me.ran_routers.clear();
            me.ran_routers.union_with(&me.live_routers);
            me.ran_procs.clear();
            me.ran_procs.union_with(&me.live_procs);
        }
        let (lo, hi) = (me.lo as usize, me.hi as usize);
        // SAFETY: by the caller, the range's routers, processors and
        // wake-up cycles are this thread's.
        let (routers, procs, wake_at) = unsafe {
            (
                std::slice::from_raw_parts_mut(self.routers.add(lo), hi - lo),
                std::slice::from_raw_parts_mut(self.procs.add(lo), hi - lo),
                std::slice::from_raw_parts_mut(self.wake_at.add(lo), hi - lo),
            )
        };
        // SAFETY: this cycle's list is the range's alone.
        let out = unsafe { &mut (*self.cross.add(k)).0[now] };
        out.begin(cycle);
        me.moved = evaluate::<true>(Parts {
            cycle,
            n,
            lo: me.lo,
            routers,
            procs,
            wake_at,
            ch: &mut me.ch,
            live_routers: &mut me.live_routers,
            live_procs: &mut me.live_procs,
            inbox: &mut me.inbox,
            hops: &mut me.hops,
            arrivals: &mut me.arrivals,
            injected: &mut me.injected,
            router_faults: &mut me.router_faults,
            proc_faults: &mut me.proc_faults,
            wakes: &mut me.wakes,
            cross: Some(out),
        });
        me.work = me.live_routers.count_to(COUNT_TO) + me.live_procs.count_to(COUNT_TO);
    }
}

/// What one evaluation of routers `lo..lo + routers.len()` and their
/// processors works on: all of a system's on one thread, a range's on
/// several.
pub(super) struct Parts<'a> {
    pub(super) cycle: u64,
    /// Routers in the system.
    pub(super) n: u32,
    /// The first router (and processor).
    pub(super) lo: u32,
    pub(super) routers: &'a mut [Router],
    pub(super) procs: &'a mut [Processor],
    /// The processors' wake-up cycles (`u64::MAX`: none).
    pub(super) wake_at: &'a mut [u64],
    pub(super) ch: &'a mut Channels,
    /// The routers and processors to evaluate, numbered as in the system.
    pub(super) live_routers: &'a mut Bits,
    pub(super) live_procs: &'a mut Bits,
    /// Per router of the system, the inputs a flit was delivered to.
    pub(super) inbox: &'a mut [u64],
    pub(super) hops: &'a mut Vec<Hop>,
    pub(super) arrivals: &'a mut Vec<Arrival>,
    pub(super) injected: &'a mut Vec<(u32, u64)>,
    pub(super) router_faults: &'a mut Vec<String>,
    pub(super) proc_faults: &'a mut Vec<String>,
    /// Processors that went to sleep until a cycle: (cycle, processor).
    pub(super) wakes: &'a mut Vec<(u64, u32)>,
    /// On several threads, this cycle's list of writes whose reader is
    /// another range's (`None`: every reader is here).
    pub(super) cross: Option<&'a mut CrossLists>,
}

/// Evaluates the live routers, then the live processors, and clocks the
/// channels: a flit whose reader is here is delivered (its router's inbox
/// and live set, or its processor's live set), and a write whose reader is
/// elsewhere goes to the list of crossing writes. True when a flit moved.
/// The one place the routers and processors are evaluated from, on one
/// thread or several, so that their evaluation is inlined here alone.
///
/// `CROSS` is false on one thread (every reader is here; `cross` is
/// `None` and `lo` 0), true for a range: the two are compiled apart, so
/// that one thread pays no test of whose a reader is.
pub(super) fn evaluate<const CROSS: bool>(p: Parts<'_>) -> bool {
    let Parts {
        cycle,
        n,
        lo,
        routers,
        procs,
        wake_at,
        ch,
        live_routers,
        live_procs,
        inbox,
        hops,
        arrivals,
        injected,
        router_faults,
        proc_faults,
        wakes,
        cross,
    } = p;
    let mut moved = false;
    {
        let mut io = RouterIo {
            cycle,
            ch,
            hops,
            faults: router_faults,
            moved: &mut moved,
        };
        live_routers.for_each_in_place(|set, x| {
            let r = &mut routers[if CROSS { x - lo } else { x } as usize];
            r.eval(&mut io, std::mem::take(&mut inbox[x as usize]));
            if r.is_idle() {
                set.remove(x);
            }
        });
    }
    {
        let mut io = ProcIo {
            cycle,
            ch,
            arrivals,
            injected,
            faults: proc_faults,
            moved: &mut moved,
        };
        live_procs.for_each_in_place(|set, x| {
            let p = &mut procs[if CROSS { x - lo } else { x } as usize];
            p.eval(&mut io);
            // A processor sleeps when it sends nothing; a flit arriving
            // wakes it at the edge, and its next worm when its start-up
            // ends.
            match p.rest(cycle) {
                Rest::Busy => {}
                Rest::Sleep => set.remove(x),
                Rest::Until(t) => {
                    set.remove(x);
                    let at = &mut wake_at[if CROSS { x - lo } else { x } as usize];
                    if *at != t {
                        *at = t;
                        wakes.push((t, x));
                    }
                }
            }
        });
    }
    let hi = lo + routers.len() as u32;
    let (rw, rs) = live_routers.parts();
    let (pw, ps) = live_procs.parts();
    match cross {
        Some(out) if CROSS => ch.edge_split(
            out,
            |c| owns(lo, hi, n, c),
            |sink| arrive(rw, rs, pw, ps, inbox, n, sink),
        ),
        _ => {
            ch.flits.edge(|sink| arrive(rw, rs, pw, ps, inbox, n, sink));
            ch.credits.edge();
        }
    }
    moved
}

/// A flit delivered to `sink`: its router's inbox and live set (`rw`,
/// `rs`: the set's [`Bits::parts`]), or its processor's live set (`pw`,
/// `ps`).
#[inline(always)]
fn arrive(
    rw: &mut [u64],
    rs: &mut [u64],
    pw: &mut [u64],
    ps: &mut [u64],
    inbox: &mut [u64],
    n: u32,
    sink: Sink,
) {
    if sink.component < n {
        insert_into(rw, rs, sink.component);
        inbox[sink.component as usize] |= 1 << sink.port;
    } else {
        insert_into(pw, ps, sink.component - n);
    }
}

impl CrewJob for Job {
    unsafe fn run(&self) {
        // SAFETY: by the caller, as `Job::run_range` states.
        unsafe { self.run_range() }
    }
}

// SAFETY: a job is handed to exactly one thread per cycle, points into
// ranges no other thread touches during that cycle (the other ranges' lists
// of the last cycle's crossing writes it reads are only read), and the
// calling thread waits for every helper to finish before it touches them
// again.
unsafe impl Send for Job {}
