//! Multicast planning (seed 000 sections 4 and 5.2-5.3): multicast trees,
//! the step model of FPFS forwarding, k-binomial trees and their optimal
//! `k`, the ordering of participants on irregular networks, and the plans
//! of every scheme, switch-based ones included ([`Plan`]).
//!
//! `N(s, k)`, the number of nodes a k-binomial tree covers in `s` steps, is
//! `2^s` for `s <= k` and `1 + N(s-1, k) + ... + N(s-k, k)` beyond (Lemma 4).
//! A multicast of an `m`-packet message to a set of `n` nodes (the source
//! included) over a k-binomial tree takes `L1 + (m - 1) k` steps, where
//! `L1` is the least `s` with `N(s, k) >= n`; the optimal tree is the
//! k-binomial tree that minimises this over `1 <= k <= ceil(log2 n)`
//! (Theorem 3; ties go to the smallest `k`).

pub mod hamilton;
mod order;
mod plan;
mod tree;

pub use order::{ChainOrder, PocOrderer, poc_order};
pub use plan::{
    Cover, Plan, PlanScheme, PlanScratch, PlannedWorm, Planner, hex, path_covers, schedule,
    ssr_covers,
};
pub use tree::{Discipline, StepSchedule, Tree};

use crate::{Error, Result};
use serde::Serialize;

/// `ceil(log2 n)` (0 for `n <= 1`).
pub fn log2_ceil(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

/// `N(s, k)` of Lemma 4, saturating at `u64::MAX`; `N(s, 0) = 1`.
pub fn covered(s: u32, k: u32) -> u64 {
    if k == 0 {
        return 1;
    }
    if s <= k {
        return 1u64.checked_shl(s).unwrap_or(u64::MAX);
    }
    // N(t, k) for t = 0..=s, by the recurrence.
    let mut n: Vec<u64> = (0..=k).map(|t| 1u64 << t.min(63)).collect();
    for t in k + 1..=s {
        let sum = n[(t - k) as usize..t as usize]
            .iter()
            .fold(1u64, |a, &x| a.saturating_add(x));
        n.push(sum);
    }
    n[s as usize]
}

/// `L1`: the least number of steps in which a k-binomial tree covers `n`
/// nodes (the source included).
pub fn steps_to_cover(n: u64, k: u32) -> u32 {
    if n <= 1 {
        return 0;
    }
    if k <= 1 {
        // The linear tree: one more node a step (N(s, 1) = s + 1).
        return u32::try_from(n - 1).unwrap_or(u32::MAX);
    }
    // N(t, k) for t = 0, 1, ... by the recurrence, the last k in a window:
    // at least doubling every k steps, so a few hundred steps at most.
    let mut window: std::collections::VecDeque<u64> = std::collections::VecDeque::new();
    let mut sum = 0u64;
    let mut t = 0u32;
    loop {
        let v = if t <= k {
            1u64.checked_shl(t).unwrap_or(u64::MAX)
        } else {
            sum.saturating_add(1)
        };
        if v >= n {
            return t;
        }
        window.push_back(v);
        sum = sum.saturating_add(v);
        if window.len() > k as usize {
            sum -= window.pop_front().expect("a value");
        }
        t += 1;
    }
}

/// The optimal k-binomial tree for a multicast set and message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct KBinomial {
    /// `n`: nodes of the multicast set, the source included.
    pub nodes: u64,
    /// `m`: packets of the message.
    pub packets: u32,
    /// The optimal `k` (the smallest of those that tie).
    pub k: u32,
    /// `L1`: steps until every node has the first packet.
    pub l1: u32,
    /// `L1 + (m - 1) k`.
    pub steps: u64,
    /// Steps of the binomial tree (`k = ceil(log2 n)`).
    pub binomial_steps: u64,
    /// Steps of the linear tree (`k = 1`).
    pub linear_steps: u64,
}

/// Total steps of an `m`-packet multicast over the k-binomial tree of `n`
/// nodes: `L1 + (m - 1) k`.
pub fn kbinomial_steps(n: u64, m: u32, k: u32) -> u64 {
    steps_to_cover(n, k) as u64 + (m.max(1) as u64 - 1) * k as u64
}

/// The optimal k-binomial tree for `n` nodes (the source included, at
/// least 2) and `m` packets (Theorem 3).
pub fn optimal_k(n: u64, m: u32) -> Result<KBinomial> {
    if n > u64::from(u32::MAX) {
        return Err(Error::BadTree(format!(
            "a multicast set of {n} nodes: wormcast plans for at most {} nodes",
            u32::MAX
        )));
    }
    if n < 2 {
        return Err(Error::BadTree(format!(
            "a multicast set of {} has no destination; it needs the source and at least one more",
            crate::error::counted(n, "nodes")
        )));
    }
    if m == 0 {
        return Err(Error::BadTree("a message has at least one packet".into()));
    }
    let top = log2_ceil(n);
    let k = (1..=top)
        .min_by_key(|&k| (kbinomial_steps(n, m, k), k))
        .expect("k = 1 is in the range");
    Ok(KBinomial {
        nodes: n,
        packets: m,
        k,
        l1: steps_to_cover(n, k),
        steps: kbinomial_steps(n, m, k),
        binomial_steps: kbinomial_steps(n, m, top),
        linear_steps: kbinomial_steps(n, m, 1),
    })
}

/// The precomputed table of optimal `k` (section 4.3.4): for every `n`, the
/// optimal `k` is the same over runs of `m` and falls to 1 as `m` grows, so
/// each row keeps only where it changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OptimalKTable {
    /// Largest `m` covered.
    pub max_packets: u32,
    /// Row `i` is for `n = i + 2`: the runs `(first m, k)`.
    pub rows: Vec<Vec<(u32, u32)>>,
}

impl OptimalKTable {
    /// The table for `2 <= n <= max_nodes` and `1 <= m <= max_packets`.
    pub fn new(max_nodes: u64, max_packets: u32) -> Result<Self> {
        if max_nodes < 2 || max_packets == 0 {
            return Err(Error::BadTree(format!(
                "a table of optimal k needs at least 2 nodes and 1 packet, not {max_nodes} and {max_packets}"
            )));
        }
        // Every (n, m) is computed: bound the table, not the user's wait.
        if max_nodes.saturating_mul(u64::from(max_packets)) > 1 << 24 {
            return Err(Error::BadTree(format!(
                "a table of {max_nodes} nodes by {max_packets} packets has more than 2^24 entries; \
                 ask for fewer (one n: without --table)"
            )));
        }
        let rows = (2..=max_nodes)
            .map(|n| {
                let mut runs: Vec<(u32, u32)> = Vec::new();
                for m in 1..=max_packets {
                    let k = optimal_k(n, m).expect("n >= 2, m >= 1").k;
                    if runs.last().is_none_or(|&(_, last)| last != k) {
                        runs.push((m, k));
                    }
                }
                runs
            })
            .collect();
        Ok(OptimalKTable { max_packets, rows })
    }

    /// The optimal `k` for `n` nodes and `m` packets, if in the table.
    pub fn lookup(&self, n: u64, m: u32) -> Option<u32> {
        if n < 2 || m == 0 || m > self.max_packets {
            return None;
        }
        let row = self.rows.get((n - 2) as usize)?;
        row.iter()
            .rev()
            .find(|&&(from, _)| from <= m)
            .map(|&(_, k)| k)
    }

    /// Entries stored (runs), against the `n * m` of a full table.
    pub fn entries(&self) -> usize {
        self.rows.iter().map(Vec::len).sum()
    }
}

#[cfg(test)]
mod tests {

    /// The windowed recurrence agrees with N(s, k) step by step, and large
    /// sets are answered at once.
    #[test]
    fn steps_to_cover_agrees_with_the_recurrence() {
        for k in 1..=6u32 {
            for n in 1..=600u64 {
                let mut s = 0;
                while covered(s, k) < n {
                    s += 1;
                }
                assert_eq!(steps_to_cover(n, k), s, "n = {n}, k = {k}");
            }
        }
        let r = optimal_k(4_294_967_295, 1).unwrap();
        assert_eq!((r.k, r.l1, r.linear_steps), (31, 32, 4_294_967_294));
        assert!(optimal_k(1 << 33, 1).is_err());
        assert!(OptimalKTable::new(4_294_967_295, 1).is_err());
    }

    use super::*;

    #[test]
    fn lemma4_values() {
        // k = 1: a chain covers s + 1 nodes; k >= s: 2^s.
        assert_eq!(
            (0..6).map(|s| covered(s, 1)).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5, 6]
        );
        assert_eq!(
            (0..5).map(|s| covered(s, 4)).collect::<Vec<_>>(),
            [1, 2, 4, 8, 16]
        );
        // k = 2: 1, 2, 4, 1 + 4 + 2 = 7, 1 + 7 + 4 = 12, 1 + 12 + 7 = 20.
        assert_eq!(
            (0..6).map(|s| covered(s, 2)).collect::<Vec<_>>(),
            [1, 2, 4, 7, 12, 20]
        );
        // k = 3 (Fig. 9a: 16 nodes): 1, 2, 4, 8, 15, 28.
        assert_eq!(
            (0..6).map(|s| covered(s, 3)).collect::<Vec<_>>(),
            [1, 2, 4, 8, 15, 28]
        );
        assert_eq!(steps_to_cover(16, 3), 5);
        assert_eq!(steps_to_cover(16, 4), 4);
        assert_eq!(covered(200, 3), u64::MAX, "saturates");
    }

    #[test]
    fn theorem3_optimal_k() {
        // One packet: the binomial tree; many packets: the chain.
        let one = optimal_k(32, 1).unwrap();
        assert_eq!((one.k, one.l1, one.steps), (5, 5, 5));
        let many = optimal_k(32, 100).unwrap();
        assert_eq!((many.k, many.l1, many.steps), (1, 31, 31 + 99));
        // 8 nodes, 3 packets: k = 1 gives 7 + 2 = 9, k = 2 gives 4 + 4 = 8
        // (N(3, 2) = 7 < 8), k = 3 gives 3 + 6 = 9.
        let r = optimal_k(8, 3).unwrap();
        assert_eq!(
            (r.k, r.steps, r.binomial_steps, r.linear_steps),
            (2, 8, 9, 9)
        );
        // Ties go to the smallest k: 4 nodes, 3 packets: k = 1 gives 3 + 2 = 5,
        // k = 2 gives 2 + 4 = 6.
        assert_eq!(optimal_k(4, 3).unwrap().k, 1);
        // 4 nodes, 2 packets: k = 1: 3 + 1 = 4, k = 2: 2 + 2 = 4: tie -> 1.
        assert_eq!(optimal_k(4, 2).unwrap().k, 1);
        assert!(
            optimal_k(1, 1)
                .unwrap_err()
                .to_string()
                .contains("no destination")
        );
    }

    #[test]
    fn the_table_is_compact_and_agrees() {
        let t = OptimalKTable::new(64, 64).unwrap();
        for n in 2..=64 {
            for m in 1..=64 {
                assert_eq!(
                    t.lookup(n, m),
                    Some(optimal_k(n, m).unwrap().k),
                    "n {n} m {m}"
                );
            }
        }
        assert!(t.entries() < 63 * 64 / 8, "{} runs", t.entries());
        assert_eq!(t.lookup(65, 1), None);
    }
}
