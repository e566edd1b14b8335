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
}

impl Wheel {
    pub(crate) fn new(components: usize) -> Self {
        Wheel {
            slots: vec![Vec::new(); SLOTS],
            far: BinaryHeap::new(),
            at: vec![u64::MAX; components],
        }
    }

    /// Wakes `c` at cycle `when` (> `now`), replacing its pending wake-up.
    #[inline]
    pub(crate) fn schedule(&mut self, now: u64, c: u32, when: u64) {
        debug_assert!(when > now);
        if self.at[c as usize] == when {
            return;
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
                wake(c);
            }
        }
        slot.clear();
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
}
