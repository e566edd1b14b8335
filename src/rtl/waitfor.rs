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

/// Where the places a stalled place waits for are: `Some(i)` another
/// stalled place, `None` something live (a node that consumes, a place that
/// moved within the bound, an output that is free).
pub(crate) type Waits = Vec<Option<usize>>;

/// Which places can never move again. A place with no identified wait is
/// taken as live: the watchdog must never call a live network deadlocked.
pub(crate) fn dead(waits: &[Waits]) -> Vec<bool> {
    let n = waits.len();
    let mut waiters: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut dead = vec![true; n];
    let mut live = Vec::new();
    for (p, w) in waits.iter().enumerate() {
        if w.is_empty() || w.iter().any(Option::is_none) {
            dead[p] = false;
            live.push(p);
        }
        for &q in w.iter().flatten() {
            waiters[q].push(p);
        }
    }
    while let Some(q) = live.pop() {
        for &p in &waiters[q] {
            if dead[p] {
                dead[p] = false;
                live.push(p);
            }
        }
    }
    dead
}

/// A cycle of dead places, in wait order (each waits for the next, the last
/// for the first), or an empty list when no place is dead. Every wait of a
/// dead place leads to a dead place, so following them must come back.
pub(crate) fn cycle(waits: &[Waits], dead: &[bool]) -> Vec<usize> {
    let Some(start) = dead.iter().position(|&d| d) else {
        return Vec::new();
    };
    let mut seen = vec![usize::MAX; waits.len()];
    let mut path = Vec::new();
    let mut p = start;
    while seen[p] == usize::MAX {
        seen[p] = path.len();
        path.push(p);
        p = waits[p]
            .iter()
            .flatten()
            .copied()
            .find(|&q| dead[q])
            .expect("every wait of a dead place is a dead place");
    }
    path.split_off(seen[p])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
            let waits: Vec<Waits> = raw
                .into_iter()
                .map(|w| w.into_iter().map(|q| q.map(|q| q % n)).collect())
                .collect();
            let d = dead(&waits);
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
