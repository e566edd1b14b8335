//! The deadlock watchdog's wait-for graph (seed 000 section 6.5), shared
//! by every router model.
//!
//! The paper asks that deadlock be detected; a long wait alone does not tell
//! a deadlock from a saturated network, where a packet may wait tens of
//! thousands of cycles for a buffer that does drain. So each router model
//! builds the graph of what every stalled place (a switch input or a node's
//! send side on the cut-through switch, a worm's head on the wormhole
//! router, an input virtual channel on the tree router) waits for, and calls deadlocked only the places that can never move
//! again: a place moves again as soon as any one of its waits is met, a
//! place that moved recently (or a node consuming packets) is live, and
//! liveness spreads backwards along the edges. What is left is a set of
//! places each waiting only on others of the set, and it always holds a
//! cycle, which the report names.

/// The wait-for graph: for each stalled place, in the order the places
/// are added, the places it waits for. A wait is `Some(i)`, another stalled
/// place, or `None`, something live (a node that consumes, a place that
/// moved within the bound, an output that is free). The waits of every
/// place sit in one list, so a look at thousands of stalled places
/// allocates a handful of times, not once a place.
#[derive(Clone, Debug)]
pub(crate) struct WaitGraph {
    /// Where each place's waits begin in `to`, and one past the last
    /// place's end.
    start: Vec<u32>,
    /// Every place's waits, place after place: a place's number, or
    /// [`LIVE`].
    to: Vec<u32>,
}

/// A wait on something live, in [`WaitGraph::to`].
const LIVE: u32 = u32::MAX;

impl WaitGraph {
    /// A graph without places.
    pub(crate) fn new() -> WaitGraph {
        WaitGraph {
            start: vec![0],
            to: Vec::new(),
        }
    }

    /// Adds the next place, with its waits.
    ///
    /// Place numbers and the count of waits are held in 32 bits, with
    /// [`LIVE`] kept apart; a network within the topology limits has far
    /// fewer places (every place is an input, a virtual channel or a
    /// node's send side), so a number that does not fit is a broken
    /// caller, and it stops here rather than wrapping into a wrong answer.
    pub(crate) fn place(&mut self, waits: impl IntoIterator<Item = Option<usize>>) {
        self.to.extend(waits.into_iter().map(|w| {
            w.map_or(LIVE, |q| {
                u32::try_from(q)
                    .ok()
                    .filter(|&q| q != LIVE)
                    .expect("a wait-for graph place number fits in 32 bits")
            })
        }));
        self.start
            .push(u32::try_from(self.to.len()).expect("a wait-for graph holds under 2^32 waits"));
    }

    /// The number of places.
    pub(crate) fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// The waits of place `p`, in the order they were given.
    fn waits(&self, p: usize) -> impl Iterator<Item = Option<usize>> + '_ {
        self.to[self.start[p] as usize..self.start[p + 1] as usize]
            .iter()
            .map(|&q| (q != LIVE).then_some(q as usize))
    }

    /// Which places can never move again. A place with no identified wait
    /// is taken as live: the watchdog must never call a live network
    /// deadlocked.
    pub(crate) fn dead(&self) -> Vec<bool> {
        let n = self.len();
        // The waiters of each place, place after place (counted, then
        // laid out), as the waits are.
        let mut first = vec![0u32; n + 1];
        for &q in &self.to {
            if q != LIVE {
                first[q as usize + 1] += 1;
            }
        }
        for q in 0..n {
            first[q + 1] += first[q];
        }
        let mut fill = first.clone();
        let mut waiters = vec![0u32; first[n] as usize];
        let mut dead = vec![true; n];
        let mut live = Vec::new();
        for (p, d) in dead.iter_mut().enumerate() {
            let mut any = false;
            let mut open = false;
            for w in self.waits(p) {
                any = true;
                match w {
                    None => open = true,
                    Some(q) => {
                        waiters[fill[q] as usize] = p as u32;
                        fill[q] += 1;
                    }
                }
            }
            if !any || open {
                *d = false;
                live.push(p);
            }
        }
        while let Some(q) = live.pop() {
            for &p in &waiters[first[q] as usize..first[q + 1] as usize] {
                let p = p as usize;
                if dead[p] {
                    dead[p] = false;
                    live.push(p);
                }
            }
        }
        dead
    }

    /// A cycle of dead places, in wait order (each waits for the next, the
    /// last for the first), or an empty list when no place is dead. Every
    /// wait of a dead place leads to a dead place, so following them must
    /// come back.
    pub(crate) fn cycle(&self, dead: &[bool]) -> Vec<usize> {
        let Some(start) = dead.iter().position(|&d| d) else {
            return Vec::new();
        };
        let mut seen = vec![usize::MAX; self.len()];
        let mut path = Vec::new();
        let mut p = start;
        while seen[p] == usize::MAX {
            seen[p] = path.len();
            path.push(p);
            p = self
                .waits(p)
                .flatten()
                .find(|&q| dead[q])
                .expect("every wait of a dead place is a dead place");
        }
        path.split_off(seen[p])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The graph of the places' waits, place after place.
    fn graph(waits: &[Vec<Option<usize>>]) -> WaitGraph {
        let mut g = WaitGraph::new();
        for w in waits {
            g.place(w.iter().copied());
        }
        g
    }

    fn dead(waits: &[Vec<Option<usize>>]) -> Vec<bool> {
        graph(waits).dead()
    }

    fn cycle(waits: &[Vec<Option<usize>>], dead: &[bool]) -> Vec<usize> {
        graph(waits).cycle(dead)
    }

    /// Liveness spread backwards the plain way: a place is live if it has
    /// no wait or a live wait, or waits for a live place; repeated until
    /// nothing changes.
    fn dead_by_fixpoint(waits: &[Vec<Option<usize>>]) -> Vec<bool> {
        let mut live: Vec<bool> = waits
            .iter()
            .map(|w| w.is_empty() || w.contains(&None))
            .collect();
        loop {
            let mut changed = false;
            for (p, w) in waits.iter().enumerate() {
                if !live[p] && w.iter().flatten().any(|&q| live[q]) {
                    live[p] = true;
                    changed = true;
                }
            }
            if !changed {
                return live.iter().map(|l| !l).collect();
            }
        }
    }

    #[test]
    fn a_ring_is_dead_and_a_chain_to_a_live_place_is_not() {
        // 0 -> 1 -> 2 -> 0, and 3 -> 0: all dead.
        let ring = vec![vec![Some(1)], vec![Some(2)], vec![Some(0)], vec![Some(0)]];
        assert_eq!(dead(&ring), vec![true; 4]);
        assert_eq!(cycle(&ring, &dead(&ring)), vec![0, 1, 2]);
        // The same ring where 2 may also go on by a live place.
        let open = vec![
            vec![Some(1)],
            vec![Some(2)],
            vec![Some(0), None],
            vec![Some(0)],
        ];
        assert_eq!(dead(&open), vec![false; 4]);
        assert!(cycle(&open, &dead(&open)).is_empty());
        // A place with no known wait is live.
        assert_eq!(dead(&[vec![]]), vec![false]);
    }

    #[test]
    #[should_panic(expected = "place number fits in 32 bits")]
    fn a_place_number_that_would_read_as_live_is_refused() {
        // u32::MAX is the live mark: taking it as a place would turn a wait
        // on a stalled place into a wait on something live.
        WaitGraph::new().place([Some(u32::MAX as usize)]);
    }

    proptest! {
        /// Dead places wait only on dead places, a live stalled place has a
        /// path of waits to something live, and the cycle reported is one.
        #[test]
        fn dead_places_are_closed_and_the_cycle_is_real(
            raw in proptest::collection::vec(
                proptest::collection::vec(proptest::option::weighted(0.9, 0usize..12), 0..4),
                1..12,
            )
        ) {
            let n = raw.len();
            let waits: Vec<Vec<Option<usize>>> = raw
                .into_iter()
                .map(|w| w.into_iter().map(|q| q.map(|q| q % n)).collect())
                .collect();
            let d = dead(&waits);
            prop_assert_eq!(&d, &dead_by_fixpoint(&waits));
            for p in 0..n {
                if d[p] {
                    prop_assert!(!waits[p].is_empty());
                    prop_assert!(waits[p].iter().all(|q| q.is_some_and(|q| d[q])));
                } else {
                    // Live: no wait, a live wait, or a wait on a live place.
                    prop_assert!(
                        waits[p].is_empty()
                            || waits[p].iter().any(|q| q.is_none_or(|q| !d[q]))
                    );
                }
            }
            let c = cycle(&waits, &d);
            prop_assert_eq!(c.is_empty(), !d.contains(&true));
            for (k, &p) in c.iter().enumerate() {
                let next = c[(k + 1) % c.len()];
                prop_assert!(d[p]);
                prop_assert!(waits[p].contains(&Some(next)));
            }
        }
    }
}
