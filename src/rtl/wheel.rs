//! A timing wheel: wake-up times for sleeping components (the cut-through
//! system's nodes), and the engine harness's sources' next messages. It is
//! the kernel's because both use it: a scheduler of the simulation, not a
//! unit of the modelled hardware.
//!
//! Each slot is a list threaded through its components' own links, so that
//! scheduling, replacing and waking never allocate: a component is in at
//! most one slot, and replacing its wake-up takes it out of the old one.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Slots of the wheel; events further ahead wait in an overflow heap.
const SLOTS: usize = 1024;

/// No component (the end of a slot's list).
const NIL: u32 = u32::MAX;
/// `prev` of a component in no slot's list.
const UNLINKED: u32 = u32::MAX - 1;

/// Component wake-ups by cycle, O(1) per event within the next 1024 cycles.
#[derive(Clone, Debug)]
pub(crate) struct Wheel {
    /// The first component of each slot's list ([`NIL`]: none).
    head: Vec<u32>,
    /// Each component's successor in its slot's list.
    next: Vec<u32>,
    /// Each component's predecessor in its slot's list ([`NIL`]: it is
    /// the first; [`UNLINKED`]: it is in no list).
    prev: Vec<u32>,
    /// Wake-ups further than the slots reach, with entries replaced since
    /// (told by `at`) left in until they come up.
    far: BinaryHeap<Reverse<(u64, u32)>>,
    /// The pending wake-up of each component (u64::MAX: none).
    at: Vec<u64>,
    /// Components with a pending wake-up.
    pending: usize,
}

impl Wheel {
    pub(crate) fn new(components: usize) -> Self {
        Wheel {
            head: vec![NIL; SLOTS],
            next: vec![NIL; components],
            prev: vec![UNLINKED; components],
            far: BinaryHeap::new(),
            at: vec![u64::MAX; components],
            pending: 0,
        }
    }

    /// Wakes `c` at cycle `when` (> `now`), replacing its pending wake-up.
    #[inline(always)]
    pub(crate) fn schedule(&mut self, now: u64, c: u32, when: u64) {
        debug_assert!(when > now);
        self.put(now, c, when);
    }

    /// Puts `c` first in the list of the slot of cycle `when`.
    #[inline(always)]
    fn link(&mut self, c: u32, when: u64) {
        let slot = when as usize % SLOTS;
        let first = self.head[slot];
        self.next[c as usize] = first;
        self.prev[c as usize] = NIL;
        if first != NIL {
            self.prev[first as usize] = c;
        }
        self.head[slot] = c;
    }

    /// Takes `c` out of its slot's list, if it is in one; `at` still holds
    /// the cycle of that slot.
    #[inline(always)]
    fn unlink(&mut self, c: u32) {
        let p = self.prev[c as usize];
        if p == UNLINKED {
            return;
        }
        let n = self.next[c as usize];
        if p == NIL {
            self.head[self.at[c as usize] as usize % SLOTS] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        }
        self.prev[c as usize] = UNLINKED;
    }

    /// [`schedule`](Self::schedule), also for a wake-up in cycle `now`
    /// itself, before that cycle's [`due`](Self::due) (one moved between
    /// wheels, or a source that starts in the first cycle).
    #[inline(always)]
    pub(crate) fn put(&mut self, now: u64, c: u32, when: u64) {
        debug_assert!(when >= now);
        if self.at[c as usize] == when {
            return;
        }
        if self.at[c as usize] == u64::MAX {
            self.pending += 1;
        } else {
            self.unlink(c);
        }
        self.at[c as usize] = when;
        if when - now < SLOTS as u64 {
            self.link(c, when);
        } else {
            self.far.push(Reverse((when, c)));
        }
    }

    /// Whether `c` has a wake-up pending.
    #[inline]
    pub(crate) fn is_pending(&self, c: u32) -> bool {
        self.at[c as usize] != u64::MAX
    }

    /// Calls `wake` for every component due at `now`, in no set order.
    #[inline]
    pub(crate) fn due(&mut self, now: u64, mut wake: impl FnMut(u32)) {
        while let Some(&Reverse((when, c))) = self.far.peek() {
            if when >= now + SLOTS as u64 {
                break;
            }
            self.far.pop();
            // An entry replaced since is dropped; one whose component has
            // been put in the slots at the same cycle meanwhile is there.
            if when >= now && self.at[c as usize] == when && self.prev[c as usize] == UNLINKED {
                self.link(c, when);
            }
        }
        let slot = now as usize % SLOTS;
        let mut c = self.head[slot];
        // Every component in the slot is due now: one is put in a slot
        // less than a turn of the wheel ahead, and the cycles skipped
        // ([`next_due`](Self::next_due)) hold none due.
        while c != NIL {
            debug_assert_eq!(
                self.at[c as usize], now,
                "component {c} in another cycle's slot"
            );
            let n = self.next[c as usize];
            self.prev[c as usize] = UNLINKED;
            self.at[c as usize] = u64::MAX;
            self.pending -= 1;
            wake(c);
            c = n;
        }
        self.head[slot] = NIL;
    }
}

impl Wheel {
    /// Moves every pending wake-up to the wheel of `to` that `which` names
    /// for its component, as of the start of cycle `now` (before that
    /// cycle's [`due`](Self::due)), and leaves this wheel empty. A
    /// component keeps its time; the order in which a wheel wakes the
    /// components of one cycle does not matter (they go into a set).
    pub(crate) fn move_to(
        &mut self,
        now: u64,
        to: &mut [&mut Wheel],
        which: impl Fn(u32) -> usize,
    ) {
        if self.pending == 0 {
            return;
        }
        for (c, at) in self.at.iter_mut().enumerate() {
            if *at != u64::MAX {
                debug_assert!(*at >= now, "a wake-up left behind");
                to[which(c as u32)].put(now, c as u32, *at);
                *at = u64::MAX;
                self.prev[c] = UNLINKED;
            }
        }
        self.head.fill(NIL);
        self.far.clear();
        self.pending = 0;
    }

    /// The first cycle from `now` on with a component due, or `None` when
    /// none is scheduled; a cycle past `now + horizon` may be answered as
    /// `now + horizon`, and a stale entry in the far heap (rescheduled
    /// since) may answer early: never late.
    pub(crate) fn next_due(&self, now: u64, horizon: u64) -> Option<u64> {
        if self.pending == 0 {
            return None;
        }
        // A far entry not yet moved to its slot may come before any slot's.
        let far = self.far.peek().map(|&Reverse((when, _))| when.max(now));
        let end = now + horizon.min(SLOTS as u64);
        if let Some(t) = self.first_linked(now, far.map_or(end, |f| f.min(end))) {
            return Some(t);
        }
        match far {
            Some(f) if f < end => Some(f),
            _ if horizon < SLOTS as u64 => Some(end),
            _ => far,
        }
    }

    /// The first cycle of `from..to` (at most a turn of the wheel) whose
    /// slot holds a component. The slots are read 16 at a time while all
    /// of them are empty: a run's sources are mostly far off at a light
    /// load, and the walk to the next one, slot by slot, was most of what
    /// a skip cost there (docs/performance-log.md, "The wheel's walk to
    /// its next slot, 16 slots at a time").
    fn first_linked(&self, from: u64, to: u64) -> Option<u64> {
        debug_assert!(to.saturating_sub(from) <= SLOTS as u64);
        let mut t = from;
        while t < to {
            let s = t as usize % SLOTS;
            // The range's slots up to the end of the vector of slots.
            let run = &self.head[s..s + ((to - t) as usize).min(SLOTS - s)];
            // An empty slot is NIL, all ones: a block is empty when the
            // AND of its slots is (a reduction without a branch a slot).
            let blocks = run
                .chunks_exact(16)
                .take_while(|b| b.iter().fold(NIL, |a, &h| a & h) == NIL)
                .count();
            let rest = &run[blocks * 16..];
            if let Some(i) = rest.iter().position(|&h| h != NIL) {
                return Some(t + (blocks * 16 + i) as u64);
            }
            t += run.len() as u64;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Against a map of each component's one pending wake-up: every
        /// cycle wakes exactly the components whose time it is, once
        /// each, whatever was scheduled and replaced before (near, far,
        /// past a turn of the wheel, and back to a time it had);
        /// `next_due` is never late; and
        /// a move to two other wheels keeps every wake-up.
        #[test]
        fn wakes_what_a_map_of_pending_times_says(
            ops in proptest::collection::vec((0u64..3, 0u32..12, 1u64..2_600, proptest::bool::ANY), 0..120),
            move_at in 0u64..400,
        ) {
            let n = 12;
            let mut w = Wheel::new(n);
            let mut model: Vec<Option<u64>> = vec![None; n];
            let mut ops = ops.into_iter().peekable();
            let (mut even, mut odd) = (Wheel::new(n), Wheel::new(n));
            let mut moved = false;
            for t in 0..6_000u64 {
                if t == move_at {
                    w.move_to(t, &mut [&mut even, &mut odd], |c| c as usize % 2);
                    moved = true;
                }
                let mut woke = Vec::new();
                for x in [&mut w, &mut even, &mut odd] {
                    x.due(t, |c| woke.push(c));
                }
                woke.sort_unstable();
                let mut want: Vec<u32> = (0..n as u32).filter(|&c| model[c as usize] == Some(t)).collect();
                want.sort_unstable();
                proptest::prop_assert_eq!(&woke, &want, "cycle {}", t);
                for &c in &want {
                    model[c as usize] = None;
                }
                // This cycle's scheduling, as components evaluated in it
                // do: a wake-up from the next cycle on.
                // Half of the times are on a grid of 100 cycles, so that a
                // component comes back to a time it had (in the far heap,
                // then the slots, then the same time again).
                while let Some(&(every, c, ahead, grid)) = ops.peek() {
                    if t % 50 != every * 17 % 50 {
                        break;
                    }
                    ops.next();
                    let on_grid = ahead % 30 * 100 + 100;
                    let when = if grid && on_grid > t { on_grid } else { t + ahead };
                    let x = if !moved { &mut w } else if c.is_multiple_of(2) { &mut even } else { &mut odd };
                    x.schedule(t, c, when);
                    model[c as usize] = Some(when);
                }
                // Each wheel's components: all of them before the move,
                // then the even ones and the odd ones.
                let holds = |k: usize, c: usize| match (moved, k) {
                    (false, 0) => true,
                    (true, 1) => c.is_multiple_of(2),
                    (true, 2) => c % 2 == 1,
                    _ => false,
                };
                for (k, x) in [&w, &even, &odd].into_iter().enumerate() {
                    for (c, due) in model.iter().enumerate() {
                        proptest::prop_assert_eq!(
                            x.is_pending(c as u32),
                            holds(k, c) && due.is_some(),
                            "cycle {}: wheel {}, component {}", t, k, c
                        );
                    }
                    let first = (0..n).filter(|&c| holds(k, c)).filter_map(|c| model[c]).min();
                    match (x.next_due(t + 1, u64::MAX), first) {
                        (None, None) => {}
                        (Some(d), Some(f)) => proptest::prop_assert!(
                            d > t && d <= f,
                            "cycle {}: wheel {} says {} is next, its first is {}", t, k, d, f
                        ),
                        (d, f) => proptest::prop_assert!(
                            false,
                            "cycle {}: wheel {} says {:?} is next, its first is {:?}", t, k, d, f
                        ),
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// The walk 16 slots at a time finds the slot a walk slot by slot
        /// finds, over ranges that wrap past the end of the slots and end
        /// short of a block.
        #[test]
        fn the_next_linked_slot_is_the_first_a_plain_walk_finds(
            times in proptest::collection::vec(0u64..3_000, 0..6),
            from in 0u64..3_000,
            len in 0u64..=SLOTS as u64,
        ) {
            let mut w = Wheel::new(times.len());
            for (c, &t) in times.iter().enumerate() {
                // Within a turn of `from`: in the slots, not the far heap.
                w.put(from, c as u32, from + t % SLOTS as u64);
            }
            let to = from + len;
            let plain = (from..to).find(|&t| w.head[t as usize % SLOTS] != NIL);
            proptest::prop_assert_eq!(w.first_linked(from, to), plain);
        }
    }

    #[test]
    fn wakes_each_component_once_at_its_latest_time() {
        let mut w = Wheel::new(3);
        w.schedule(0, 0, 5);
        w.schedule(0, 1, 5000);
        w.schedule(0, 2, 7);
        w.schedule(0, 2, 9); // replaces 7
        let mut seen = Vec::new();
        for t in 0..6000 {
            w.due(t, |c| seen.push((t, c)));
        }
        assert_eq!(seen, vec![(5, 0), (9, 2), (5000, 1)]);
    }

    /// A component sent far ahead, brought near, then sent to the same far
    /// cycle again has two entries for that cycle in the far heap; it is
    /// put in the cycle's slot once and woken once, and the slot's other
    /// component with it.
    #[test]
    fn a_far_time_given_twice_wakes_once() {
        let mut w = Wheel::new(2);
        w.schedule(0, 0, 3000);
        w.schedule(0, 0, 10);
        w.schedule(0, 0, 3000);
        w.schedule(0, 1, 10);
        let mut seen = Vec::new();
        for t in 0..6000 {
            // A component linked into its slot twice would make the
            // slot's list a loop: stop at the first wake-up too many.
            w.due(t, |c| {
                seen.push((t, c));
                assert!(seen.len() <= 3, "woken again: {seen:?}");
            });
            if t == 2000 {
                w.schedule(t, 1, 3000);
            }
        }
        seen.sort_unstable();
        assert_eq!(seen, vec![(10, 1), (3000, 0), (3000, 1)]);
        assert_eq!(w.next_due(6000, u64::MAX), None);
    }

    /// Wake-ups moved to other wheels (one due in the cycle of the move,
    /// one in the slots, one in the far heap, one rescheduled) wake the
    /// same components at the same cycles, and the wheel moved from is
    /// empty.
    #[test]
    fn moved_wake_ups_keep_their_cycles() {
        let mut w = Wheel::new(4);
        w.schedule(0, 0, 10);
        w.schedule(0, 1, 3000);
        w.schedule(0, 2, 12);
        w.schedule(0, 2, 11); // replaces 12
        w.schedule(5, 3, 10);
        for t in 0..10 {
            w.due(t, |_| panic!("nothing is due before 10"));
        }
        let (mut even, mut odd) = (Wheel::new(4), Wheel::new(4));
        w.move_to(10, &mut [&mut even, &mut odd], |c| c as usize % 2);
        assert_eq!(w.next_due(10, u64::MAX), None);
        assert_eq!((even.pending, odd.pending), (2, 2));
        let mut seen = Vec::new();
        for t in 10..4000 {
            even.due(t, |c| seen.push((t, c)));
            odd.due(t, |c| seen.push((t, c)));
            w.due(t, |c| panic!("{c} left in the old wheel"));
        }
        assert_eq!(seen, vec![(10, 0), (10, 3), (11, 2), (3000, 1)]);
    }

    #[test]
    fn next_due_finds_the_first_live_entry() {
        let mut w = Wheel::new(3);
        assert_eq!(w.next_due(0, u64::MAX), None);
        w.schedule(0, 0, 7);
        w.schedule(0, 0, 9); // the entry at 7 is stale
        w.schedule(0, 1, 5000);
        assert_eq!(w.next_due(0, u64::MAX), Some(9));
        assert_eq!(w.next_due(0, 5), Some(5), "no further than asked");
        assert_eq!(w.next_due(9, u64::MAX), Some(9));
        for t in 9..11 {
            w.due(t, |_| {});
        }
        assert_eq!(w.next_due(10, u64::MAX), Some(5000));
        for t in 11..=5000 {
            w.due(t, |_| {});
        }
        assert_eq!(w.next_due(5001, u64::MAX), None);
        // A far entry that has come within the slots' reach before the
        // wheel moved it comes before a later slot entry.
        let mut w = Wheel::new(2);
        w.schedule(0, 0, 1500);
        w.schedule(1000, 1, 1800);
        assert_eq!(w.next_due(1000, u64::MAX), Some(1500));
    }
}
