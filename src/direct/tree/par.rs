//! The tree router's cycle on several threads (seed 003's routers, section
//! 3, evaluated as the one-thread model does, cut at the registered
//! channels between them).
//!
//! The routers are cut into contiguous ranges, one per thread. For the
//! length of a cycle a range's thread owns its routers, their network
//! interfaces (injection and consumption sides), their words of the live
//! sets and its own record ([`Events`]). It evaluates its live routers
//! (each reads and writes only itself and appends to the record), then
//! applies the clock edge's writes that land in its own routers (no other
//! thread reads them), checks the flits that reached its nodes' consumption
//! channels, returns its interfaces' credits and injects their next flits.
//! A write into another range's router goes to the range's list of
//! crossing writes ([`XBuf`]), which the receiving range applies first
//! thing in the next cycle, before it evaluates (the last cycle's lists,
//! range by range); the rest of what concerns the network (a copy
//! delivered, a worm started, a prune, a fault) goes to the record's
//! outbox, which the calling thread takes afterwards in range order. Both
//! keep the order one thread makes them in, so a run gives the same
//! results, faults and waveform bytes whatever the thread count.
//!
//! The helper threads ([`Crew`](crate::rtl::crew::Crew)) live as long
//! as the network; when the network's steps overlap
//! ([`TreeNet::step_batched`](super::TreeNet)), the calling thread returns
//! once its own range is done and waits for the others as the next step
//! begins. The messages sent to a range's interfaces while it runs wait in the range's
//! list ([`Stage`]) until its next job begins: a range reads nothing the
//! calling thread writes between cycles.

use super::{
    Events, NONE32, Ni, NiEject, Stage, Tables, TreeConfig, TreeRouter, Write, XBuf, apply_range,
    eject_range, eval_router, inject_node,
};
use crate::rtl::crew::{COUNT_TO, CrewJob};

/// One range's work for a cycle: raw pointers, as the ranges are disjoint
/// parts of the same vectors that the threads work on at once.
#[derive(Clone, Copy)]
pub(super) struct Job {
    pub(super) t: *const Tables,
    pub(super) cfg: *const TreeConfig,
    /// The network interfaces (those of the range's nodes are its own).
    pub(super) nis: *mut Ni,
    /// The consumption sides of the interfaces (likewise).
    pub(super) ejs: *mut NiEject,
    /// The words of the set of interfaces with a worm.
    pub(super) ni_words: *mut u64,
    pub(super) cycle: u64,
    pub(super) routers: *mut TreeRouter,
    /// The words of the live-router set.
    pub(super) words: *mut u64,
    /// The range: words `lo..hi` of the set (routers `64 lo` to `64 hi`).
    pub(super) range: (usize, usize),
    /// Every range's record.
    pub(super) records: *mut Events,
    /// This range's index.
    pub(super) k: usize,
    /// Every range's crossing writes ([`XBuf`]).
    pub(super) xbuf: *mut XBuf,
    /// The last cycle's crossing writes are still to be applied: the
    /// range applies those that land in its routers before it evaluates.
    pub(super) take_cross: bool,
    /// The number of ranges.
    pub(super) n_ranges: usize,
    /// Whether the range counts the routers and interfaces it leaves live
    /// for the hand-over rule (every handed-over cycle; every few light
    /// ones, `Shift::count_due`); otherwise its outbox keeps the last
    /// count.
    pub(super) count: bool,
    /// Every range's messages for its interfaces, sent while it ran.
    pub(super) stage: *mut Stage,
}

/// Phase 1 of the range's live routers, in index order; a router left
/// with no active input leaves the live set. A function of its own, so
/// that the tables, read-only for the whole loop, are read once for it and
/// not again for every router.
///
/// # Safety
/// The words of `range` of the set at `words`, and the routers they
/// cover at `routers`, are valid and the caller's alone while it runs.
#[inline(never)]
unsafe fn eval_routers(
    t: &Tables,
    cfg: &TreeConfig,
    words: *mut u64,
    routers: *mut TreeRouter,
    range: (usize, usize),
    ev: &mut Events,
) {
    for w in range.0..range.1 {
        // SAFETY: word `w` is in the range.
        let word = unsafe { &mut *words.add(w) };
        let mut bits = *word;
        while bits != 0 {
            let b = bits.trailing_zeros();
            bits &= bits - 1;
            let r = w << 6 | b as usize;
            // SAFETY: router `r` is in the range.
            let router = unsafe { &mut *routers.add(r) };
            eval_router(t, cfg, r as u32, router, ev);
            if router.active == 0 {
                *word &= !(1 << b);
            }
        }
    }
}

impl Job {
    /// Applies the last cycle's writes from other ranges into the range's
    /// routers (when `take_cross`), evaluates them (phase 1), then writes
    /// into them what the range's own routers drive at the clock edge;
    /// what goes to another range is kept in the range's list of this
    /// cycle's crossing writes.
    ///
    /// # Safety
    /// The pointers are valid. While it runs, no other thread touches the
    /// range's routers, interfaces and set words, its record or its list of
    /// this cycle's crossing writes, and none writes the last cycle's
    /// lists.
    pub(super) unsafe fn run(&self) {
        // SAFETY: by the caller.
        let (t, cfg) = unsafe { (&*self.t, &*self.cfg) };
        // SAFETY: by the caller, this range's record is its alone.
        let ev = unsafe { &mut *self.records.add(self.k) };
        // The messages sent to the range's interfaces while it last ran
        // (the calling thread hands over the others itself).
        // SAFETY: by the caller, this cycle's list is the range's alone.
        let staged = unsafe { &mut (*self.stage.add(self.k)).0[(self.cycle & 1) as usize] };
        for (node, q, first) in staged.drain(..) {
            // SAFETY: a staged message's source is in the range.
            unsafe { (*self.nis.add(node as usize)).queue_msg(q, first) };
            // SAFETY: the interface's set word is the range's.
            unsafe { *self.ni_words.add(node as usize >> 6) |= 1 << (node & 63) };
        }
        // SAFETY: by the caller.
        if self.take_cross && unsafe { self.take_crossing(t, ev) } {
            // An overrun: the run ends with the last cycle's fault.
            ev.out.any = true;
            return;
        }
        // SAFETY: by the caller, the range's routers and set words are its
        // alone.
        unsafe { eval_routers(t, cfg, self.words, self.routers, self.range, ev) };
        // Every router of the range has been evaluated, and no other
        // thread reads them: the edge's writes into them can go in now.
        // SAFETY: by the caller, this cycle's list is the range's alone
        // (the other ranges read last cycle's).
        let cross = unsafe { &mut (*self.xbuf.add(self.k)).0[(self.cycle & 1) as usize] };
        // SAFETY: by the caller.
        ev.out.edge_fault =
            unsafe { apply_range(t, self.routers, self.words, self.range, ev, cross) };
        // The consumption channels of the range's nodes.
        let (first, end) = (self.range.0 << 6, (self.range.1 << 6).min(t.n as usize));
        // SAFETY: by the caller, the range's interfaces are its alone.
        let ejs = unsafe { std::slice::from_raw_parts_mut(self.ejs.add(first), end - first) };
        eject_range(t, ejs, first as u32, ev);
        // The interfaces of the range's nodes (node `i` is router `i`'s):
        // the credits their routers returned, then a flit each.
        for r in ev.ni_credits.drain(..) {
            // SAFETY: a credit comes from the node's own router, in range.
            unsafe { (*self.nis.add(r as usize)).credits += 1 };
        }
        for w in self.range.0..self.range.1 {
            // SAFETY: word `w` is in the range.
            let word = unsafe { &mut *self.ni_words.add(w) };
            let mut bits = *word;
            while bits != 0 {
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                let node = w << 6 | b as usize;
                // SAFETY: node `node` and router `node` are in the range.
                let (ni, router) =
                    unsafe { (&mut *self.nis.add(node), &mut *self.routers.add(node)) };
                match inject_node(t, cfg.startup, self.cycle, node, ni, router, ev) {
                    Ok(true) => {
                        // SAFETY: word `w` of the routers' set is the range's.
                        unsafe { *self.words.add(w) |= 1 << b };
                    }
                    Ok(false) => {}
                    Err(what) => {
                        ev.out.lists.inject_fault.get_or_insert(what);
                    }
                }
                if ni.cur == NONE32 && ni.queue.is_empty() {
                    *word &= !(1 << b);
                }
            }
        }
        // Publish the cycle: one write of the outbox's first line, and the
        // rest only when there is something for the calling thread.
        let out = &mut ev.out;
        if self.count {
            let mut work = 0;
            for w in self.range.0..self.range.1 {
                // SAFETY: word `w` of both sets is the range's.
                work += unsafe { *self.words.add(w) }.count_ones() as usize
                    + unsafe { *self.ni_words.add(w) }.count_ones() as usize;
            }
            out.work = work.min(COUNT_TO);
        }
        out.moved = std::mem::take(&mut ev.moved);
        out.fault = ev.fault.take();
        out.crossed = !cross.is_empty();
        out.any = out.fault.is_some()
            || out.edge_fault.is_some()
            || !out.lists.copies.is_empty()
            || out.lists.eject_fault.is_some()
            || !out.lists.started.is_empty()
            || !out.lists.prunes.is_empty()
            || !out.lists.hops.is_empty()
            || out.lists.inject_fault.is_some();
    }

    /// Applies the writes of the last cycle's other ranges that land in
    /// this range's routers, range by range and each in its order (the
    /// order the calling thread would apply them in). True on an overrun,
    /// kept in the outbox as the sending range's, with its flit's place in
    /// that range's record.
    ///
    /// # Safety
    /// As [`Job::run`]; besides, no thread writes the last cycle's lists
    /// while the ranges run.
    unsafe fn take_crossing(&self, t: &Tables, ev: &mut Events) -> bool {
        let p = ((self.cycle - 1) & 1) as usize;
        let (first, end) = ((self.range.0 << 6) as u32, (self.range.1 << 6) as u32);
        for k in (0..self.n_ranges).filter(|&k| k != self.k) {
            // SAFETY: by the caller, only read while the ranges run.
            let list = unsafe { &(*self.xbuf.add(k)).0[p] };
            for &w in list {
                let r = w.router();
                if !(first..end).contains(&r) {
                    continue;
                }
                // SAFETY: router `r` is in the range.
                let router = unsafe { &mut *self.routers.add(r as usize) };
                // SAFETY: the router and its set word are the range's.
                let fault = unsafe { w.apply(t, router, self.words) };
                if let Some(what) = fault {
                    // Only a flit overruns; its place orders the faults.
                    let j = if let Write::Send(_, j) = w { j } else { 0 };
                    ev.out.cross_fault = Some((k as u32, j, what));
                    return true;
                }
            }
        }
        false
    }
}

// SAFETY: a job is handed to exactly one thread per cycle, points into
// ranges no other thread touches during that cycle (the other ranges' lists
// of the last cycle's crossing writes it reads are only read), and the
// calling thread waits for every helper to finish before it touches them
// again.
unsafe impl Send for Job {}

impl CrewJob for Job {
    unsafe fn run(&self) {
        // SAFETY: by the caller, as `Job::run` states.
        unsafe { Job::run(self) }
    }
}
