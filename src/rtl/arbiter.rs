//! Round-robin arbiter.

/// A round-robin arbiter over up to 64 requesters.
///
/// [`arbitrate`](RoundRobin::arbitrate) is the combinational part: the
/// winner is the first requester at or after the priority pointer, wrapping
/// around. [`update`](RoundRobin::update) is the registered part: after a
/// grant the pointer moves just past the winner, so the winner has the lowest
/// priority next time and every requester is served within `n` grants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundRobin {
    n: u8,
    next: u8,
}

impl RoundRobin {
    /// An arbiter over `n` requesters (1 to 64), priority to requester 0.
    pub fn new(n: usize) -> Self {
        assert!(
            (1..=64).contains(&n),
            "round-robin arbiter over {n} requesters"
        );
        RoundRobin {
            n: n as u8,
            next: 0,
        }
    }

    /// Number of requesters.
    pub fn len(&self) -> usize {
        self.n as usize
    }

    /// Always false: an arbiter has at least one requester.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The requester with the highest priority now.
    pub fn pointer(&self) -> usize {
        self.next as usize
    }

    /// The winner among the requesters whose bits are set in `requests`
    /// (bit `i` = requester `i`), without changing any state.
    #[inline]
    pub fn arbitrate(&self, requests: u64) -> Option<usize> {
        first_at_or_after(requests, self.next as u32)
    }

    /// Commits a grant to `winner`.
    #[inline]
    pub fn update(&mut self, winner: usize) {
        let n = self.next_after(winner);
        self.next = n as u8;
    }

    fn next_after(&self, winner: usize) -> usize {
        if winner + 1 >= self.n as usize {
            0
        } else {
            winner + 1
        }
    }
}

/// The lowest set bit of `mask` at position `start` or above, else the
/// lowest set bit overall.
#[inline]
pub(crate) fn first_at_or_after(mask: u64, start: u32) -> Option<usize> {
    if mask == 0 {
        return None;
    }
    let high = if start >= 64 {
        0
    } else {
        mask & (u64::MAX << start)
    };
    let pick = if high != 0 { high } else { mask };
    Some(pick.trailing_zeros() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The naive reference: scan from the pointer, wrapping.
    fn reference(n: usize, next: usize, req: u64) -> Option<usize> {
        (0..n).map(|i| (next + i) % n).find(|&i| req >> i & 1 == 1)
    }

    proptest! {
        #[test]
        fn agrees_with_a_scan_from_the_pointer(n in 1usize..=64, seq in proptest::collection::vec(any::<u64>(), 1..50)) {
            let mut arb = RoundRobin::new(n);
            let mut next = 0;
            let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            for req in seq {
                let req = req & mask;
                let g = arb.arbitrate(req);
                prop_assert_eq!(g, reference(n, next, req));
                if let Some(w) = g {
                    arb.update(w);
                    next = (w + 1) % n;
                }
            }
        }
    }

    #[test]
    fn every_requester_is_served_within_n_grants() {
        let mut arb = RoundRobin::new(5);
        let mut order = Vec::new();
        for _ in 0..10 {
            let w = arb.arbitrate(0b11111).unwrap();
            arb.update(w);
            order.push(w);
        }
        assert_eq!(order, vec![0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
        assert_eq!(arb.arbitrate(0), None);
        arb.update(3);
        assert_eq!(arb.arbitrate(0b01001), Some(0), "pointer 4 wraps to 0");
    }
}
