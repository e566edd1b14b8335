//! A timing wheel: wake-up times for sleeping components.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Slots of the wheel; events further ahead wait in an overflow heap.
const SLOTS: usize = 1024;

/// Component wake-ups by cycle, O(1) per event within the next 1024 cycles.
#[derive(Clone, Debug)]
pub(crate) struct Wheel {
    slots: Vec<Vec<u32>>,
    far: BinaryHeap<Reverse<(u64, u32)>>,
    /// The pending wake-up of each component (u64::MAX: none).
    at: Vec<u64>,
    /// Components with a pending wake-up.
    pending: usize,
}

impl Wheel {
    pub(crate) fn new(components: usize) -> Self {
        Wheel {
            slots: vec![Vec::new(); SLOTS],
            far: BinaryHeap::new(),
            at: vec![u64::MAX; components],
            pending: 0,
        }
    }

    /// Wakes `c` at cycle `when` (> `now`), replacing its pending wake-up.
    #[inline]
    pub(crate) fn schedule(&mut self, now: u64, c: u32, when: u64) {
        debug_assert!(when > now);
        self.put(now, c, when);
    }

    /// [`schedule`](Self::schedule), also for a wake-up in cycle `now`
    /// itself (one moved between wheels before the cycle's [`due`](Self::due)).
    #[inline]
    fn put(&mut self, now: u64, c: u32, when: u64) {
        if self.at[c as usize] == when {
            return;
        }
        if self.at[c as usize] == u64::MAX {
            self.pending += 1;
        }
        self.at[c as usize] = when;
        if when - now < SLOTS as u64 {
            self.slots[when as usize % SLOTS].push(c);
        } else {
            self.far.push(Reverse((when, c)));
        }
    }

    /// Calls `wake` for every component due at `now`, in scheduling order.
    #[inline]
    pub(crate) fn due(&mut self, now: u64, mut wake: impl FnMut(u32)) {
        while let Some(&Reverse((when, c))) = self.far.peek() {
            if when >= now + SLOTS as u64 {
                break;
            }
            self.far.pop();
            if when >= now && self.at[c as usize] == when {
                self.slots[when as usize % SLOTS].push(c);
            }
        }
        let slot = &mut self.slots[now as usize % SLOTS];
        for &c in slot.iter() {
            if self.at[c as usize] == now {
                self.at[c as usize] = u64::MAX;
                self.pending -= 1;
                wake(c);
            }
        }
        slot.clear();
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
            }
        }
        for s in &mut self.slots {
            s.clear();
        }
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
        for t in now..far.map_or(end, |f| f.min(end)) {
            if self.slots[t as usize % SLOTS]
                .iter()
                .any(|&c| self.at[c as usize] == t)
            {
                return Some(t);
            }
        }
        match far {
            Some(f) if f < end => Some(f),
            _ if horizon < SLOTS as u64 => Some(end),
            _ => far,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
