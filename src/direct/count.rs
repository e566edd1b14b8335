//! Counting shortest paths under Restriction 2 by enumeration (seed 001
//! section 4, Table 1).
//!
//! The paper derives the average number of legal shortest paths between two
//! nodes at distance `k` with recurrences (equations 4.1-4.12). Here the same
//! numbers are counted: for every pair of antipodal nodes of a `k`-cube, the
//! legal channel sequences from one to the other are counted by dynamic
//! programming over the set of dimensions still to cross and the last channel
//! taken (the current node and every channel's sign follow from them). A
//! channel sequence counts when every step is allowed by the restriction;
//! sequences that would get stuck contribute nothing, so no separate
//! feasibility rule is used.
//!
//! Unicast pairs `(s, d)` are split as in section 4.1 by the sign of the
//! highest-dimension channel (`t_k^+`, `t_k^-`) and as in section 4.2 by the
//! sign of the first channel (`t_k^P`, `t_k^N`). Consecutive destinations of
//! a natural list (`d'_i < d'_{i+1}`, so the highest channel is positive) give
//! `t'_k`, `t'^P_k` and `t'^N_k`; the average over the `2^{k-1}` such pairs is
//! bounded below by `t'^P_k / 2^{k-1}` (whatever channel the worm arrived on,
//! a positive first channel is always allowed) and above by `t'_k / 2^{k-1}`.

use super::cube::{Routing, Turn};
use serde::Serialize;

/// Path counts of one distance.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PathCounts {
    /// The distance `k`.
    pub k: u32,
    /// Unicast pairs: `2^k`.
    pub pairs: u64,
    /// `t_k`: all legal paths over all pairs.
    pub t: u128,
    /// `t_k^+`: paths of pairs whose highest channel is positive.
    pub t_plus: u128,
    /// `t_k^-`: paths of pairs whose highest channel is negative.
    pub t_minus: u128,
    /// `t_k^P`: paths whose first channel is positive.
    pub t_first_positive: u128,
    /// `t_k^N`: paths whose first channel is negative.
    pub t_first_negative: u128,
    /// Natural-list pairs: `2^{k-1}`.
    pub natural_pairs: u64,
    /// `t'_k`: paths between consecutive natural-list destinations, with a
    /// free first channel.
    pub t_natural: u128,
    /// `t'^P_k`: those whose first channel is positive.
    pub t_natural_first_positive: u128,
    /// `t'^N_k`: those whose first channel is negative.
    pub t_natural_first_negative: u128,
}

impl PathCounts {
    /// `e_k = t_k / 2^k`: the average number of paths of a unicast.
    pub fn unicast_average(&self) -> f64 {
        self.t as f64 / self.pairs as f64
    }

    /// `t'^P_k / 2^{k-1}`: the lower bound of the natural-list average.
    pub fn natural_lower(&self) -> f64 {
        self.t_natural_first_positive as f64 / self.natural_pairs as f64
    }

    /// `t'_k / 2^{k-1}`: the upper bound of the natural-list average.
    pub fn natural_upper(&self) -> f64 {
        self.t_natural as f64 / self.natural_pairs as f64
    }
}

/// The paper's closed forms at distance `k` (equations 4.1-4.11).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClosedForms {
    /// (4.1) `t_k = (k+1)!`.
    pub t: u128,
    /// `t_k^+ = k * t_{k-1} = k * k!`.
    pub t_plus: u128,
    /// `t_k^- = t_{k-1} = k!`.
    pub t_minus: u128,
    /// (4.7) `t_k^N = (k+1)!/2`.
    pub t_first_negative: u128,
    /// (4.3) `t'_k = k * k!`.
    pub t_natural: u128,
    /// (4.10) `t'^P_k = (k+1)!/2`.
    pub t_natural_first_positive: u128,
    /// (4.9) `t'^N_k = (k-1) k!/2`.
    pub t_natural_first_negative: u128,
    /// (4.2) and (4.11) `(k+1)!/2^k`.
    pub lower: f64,
    /// (4.4) `k * k!/2^{k-1}`.
    pub upper: f64,
}

/// The closed forms of seed 001 at distance `k >= 1`.
pub fn closed_forms(k: u32) -> ClosedForms {
    let f = |m: u32| (1..=m as u128).product::<u128>();
    let k128 = k as u128;
    ClosedForms {
        t: f(k + 1),
        t_plus: k128 * f(k),
        t_minus: f(k),
        t_first_negative: f(k + 1) / 2,
        t_natural: k128 * f(k),
        t_natural_first_positive: f(k + 1) / 2,
        t_natural_first_negative: (k128 - 1) * f(k) / 2,
        lower: f(k + 1) as f64 / 2f64.powi(k as i32),
        upper: (k128 * f(k)) as f64 / 2f64.powi(k as i32 - 1),
    }
}

/// Seed 001 Table 1 as printed: (UD-path, natural list lower bound, upper
/// bound) for distances 1 to 10.
pub const TABLE1: [(f64, f64, f64); 10] = [
    (1.00, 1.00, 1.00),
    (1.00, 1.50, 2.00),
    (1.50, 3.00, 4.50),
    (3.00, 7.50, 12.00),
    (7.50, 22.50, 37.50),
    (22.50, 78.75, 135.00),
    (78.75, 315.00, 551.25),
    (315.00, 1417.50, 2520.00),
    (1417.50, 7087.50, 12757.50),
    (7087.50, 38981.25, 70875.00),
];

/// The label of node `x` on the reflected Gray-code Hamiltonian path of a
/// hypercube: its position on that path (the inverse Gray code).
pub fn gray_label(x: u32) -> u32 {
    let mut b = x;
    let mut g = x >> 1;
    while g != 0 {
        b ^= g;
        g >>= 1;
    }
    b
}

/// The UD-path row of Table 1, counted: the average number of shortest
/// paths between two nodes at distance `k` (1 to 20) that the UD-path method
/// may use from one destination to the next.
///
/// Seed 001 section 1 describes the method only by name (its reference
/// \[6\]): nodes are labelled along a Hamiltonian path, and between
/// consecutive destinations a worm takes an up path (labels increasing) or
/// a down path (labels decreasing). With the reflected Gray code as the
/// Hamiltonian path, the count over every pair of antipodal nodes of a
/// `k`-cube equals the printed row at every distance of Table 1 (and
/// `k!/2^(k-1)`); on larger cubes pairs at distance `k` give the same
/// average (checked in the tests for cubes of up to 8 dimensions).
pub fn ud_path_average(k: u32) -> f64 {
    assert!((1..=20).contains(&k), "distance {k} out of 1..=20");
    let full = (1u32 << k) - 1;
    let labels: Vec<u32> = (0..=full).map(gray_label).collect();
    let mut memo = vec![0u64; 1usize << k];
    let mut total: u128 = 0;
    for s in 0..=full {
        total += monotone_paths(&labels, s, s ^ full, &mut memo) as u128;
    }
    total as f64 / (1u64 << k) as f64
}

/// Shortest paths from `s` to `d` in a cube whose nodes have the Gray
/// labels `labels`, taking those whose labels rise all the way (if `d`'s
/// label is higher) or fall all the way. `memo` holds one entry per node,
/// indexed by the dimensions still to cross.
fn monotone_paths(labels: &[u32], s: u32, d: u32, memo: &mut [u64]) -> u64 {
    let up = labels[d as usize] > labels[s as usize];
    memo.fill(u64::MAX);
    fn go(labels: &[u32], d: u32, up: bool, rem: u32, memo: &mut [u64]) -> u64 {
        if rem == 0 {
            return 1;
        }
        if memo[rem as usize] != u64::MAX {
            return memo[rem as usize];
        }
        let cur = d ^ rem;
        let here = labels[cur as usize];
        let mut total = 0;
        let mut m = rem;
        while m != 0 {
            let dim = m.trailing_zeros();
            m &= m - 1;
            let next = cur ^ (1 << dim);
            if (labels[next as usize] > here) == up {
                total += go(labels, d, up, rem & !(1 << dim), memo);
            }
        }
        memo[rem as usize] = total;
        total
    }
    go(labels, d, up, s ^ d, memo)
}

/// Counts the legal paths from `s` to its antipode in a `k`-cube under
/// `routing`, starting from the local processor: `(all, first channel
/// positive)`. `memo` is scratch space of `2^k * (k + 1)` entries.
fn paths_from(routing: Routing, k: u32, s: u32, memo: &mut [u128]) -> (u128, u128) {
    let full = (1u32 << k) - 1;
    let d = s ^ full;
    memo.fill(u128::MAX);
    // count(rem, last): legal completions when the dimensions in `rem` are
    // still to cross and the last channel crossed was at dimension `last`
    // (k = none). The current node is d ^ rem; a crossed dimension now has
    // d's bit, so it was positive iff d's bit is 1.
    fn count(routing: Routing, k: u32, d: u32, rem: u32, last: u32, memo: &mut [u128]) -> u128 {
        if rem == 0 {
            return 1;
        }
        let at = rem as usize * (k as usize + 1) + last as usize;
        if memo[at] != u128::MAX {
            return memo[at];
        }
        let cur = d ^ rem;
        let last_turn = (last < k).then(|| Turn {
            dim: last,
            positive: d >> last & 1 == 1,
        });
        let mut total = 0;
        let mut m = rem;
        while m != 0 {
            let m_dim = m.trailing_zeros();
            m &= m - 1;
            if routing.allows(last_turn, Turn::leaving(cur, m_dim)) {
                total += count(routing, k, d, rem & !(1 << m_dim), m_dim, memo);
            }
        }
        memo[at] = total;
        total
    }
    let all = count(routing, k, d, full, k, memo);
    let mut first_positive = 0;
    for dim in 0..k {
        if s >> dim & 1 == 0 {
            first_positive += count(routing, k, d, full & !(1 << dim), dim, memo);
        }
    }
    (all, first_positive)
}

/// Counts, by enumeration under `routing`, every quantity of [`PathCounts`]
/// at distance `k` (1 to 20).
pub fn count_paths(routing: Routing, k: u32) -> PathCounts {
    assert!((1..=20).contains(&k), "distance {k} out of 1..=20");
    let mut memo = vec![0u128; (1usize << k) * (k as usize + 1)];
    let mut c = PathCounts {
        k,
        pairs: 1 << k,
        t: 0,
        t_plus: 0,
        t_minus: 0,
        t_first_positive: 0,
        t_first_negative: 0,
        natural_pairs: 1 << (k - 1),
        t_natural: 0,
        t_natural_first_positive: 0,
        t_natural_first_negative: 0,
    };
    for s in 0..1u32 << k {
        let (all, fp) = paths_from(routing, k, s, &mut memo);
        c.t += all;
        c.t_first_positive += fp;
        c.t_first_negative += all - fp;
        let highest_positive = s >> (k - 1) & 1 == 0;
        if highest_positive {
            c.t_plus += all;
            // s < d exactly when the highest differing bit is 0 in s.
            c.t_natural += all;
            c.t_natural_first_positive += fp;
            c.t_natural_first_negative += all - fp;
        } else {
            c.t_minus += all;
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_distances_by_hand() {
        // k = 2 under Restriction 2: 00->11 two paths, 01->10 two, 10->01
        // one (the negative dimension 1 first), 11->00 one.
        let c = count_paths(Routing::Restriction2, 2);
        assert_eq!((c.t, c.t_plus, c.t_minus), (6, 4, 2));
        assert_eq!((c.t_first_positive, c.t_first_negative), (3, 3));
        assert_eq!(
            (
                c.t_natural,
                c.t_natural_first_positive,
                c.t_natural_first_negative
            ),
            (4, 3, 1)
        );
        // Unrestricted: k! paths per pair.
        let m = count_paths(Routing::Minimal, 4);
        assert_eq!(m.t, 16 * 24);
        // e-cube: one path per pair.
        assert_eq!(count_paths(Routing::Ecube, 6).t, 64);
    }

    #[test]
    fn enumeration_against_the_closed_forms() {
        let mut prev: Option<PathCounts> = None;
        for k in 1..=10 {
            let c = count_paths(Routing::Restriction2, k);
            let f = closed_forms(k);
            // What the paper's derivation gets right at every distance.
            if let Some(p) = &prev {
                assert_eq!(c.t_minus, p.t, "t-_k = t_(k-1) at {k}");
            }
            assert_eq!(
                c.t_natural, c.t_plus,
                "natural pairs are the + pairs at {k}"
            );
            assert_eq!(
                c.t_first_positive, c.t_first_negative,
                "P and N halves at {k}"
            );
            assert_eq!(
                c.t_natural_first_positive,
                c.t / 2,
                "t'P_k = t_k / 2 at {k}"
            );
            if k <= 2 {
                assert_eq!(
                    (c.t, c.t_plus, c.t_first_negative),
                    (f.t, f.t_plus, f.t_first_negative)
                );
                assert_eq!(
                    (
                        c.t_natural,
                        c.t_natural_first_positive,
                        c.t_natural_first_negative
                    ),
                    (
                        f.t_natural,
                        f.t_natural_first_positive,
                        f.t_natural_first_negative
                    )
                );
            } else {
                // From k = 3 on, t_k^+ = k t_(k-1) undercounts, and with it
                // every closed form built on it.
                assert!(c.t_plus > f.t_plus && c.t > f.t, "k {k}");
                assert!(
                    c.natural_lower() > f.lower && c.natural_upper() > f.upper,
                    "k {k}"
                );
            }
            prev = Some(c);
        }
        let c3 = count_paths(Routing::Restriction2, 3);
        assert_eq!((c3.t, c3.t_plus, c3.t_minus), (26, 20, 6));
        assert_eq!(
            (c3.t_natural_first_positive, c3.t_natural_first_negative),
            (13, 7)
        );
        // Restriction 1 is the mirror image: the same totals.
        for k in 1..=8 {
            assert_eq!(
                count_paths(Routing::Restriction1, k).t,
                count_paths(Routing::Restriction2, k).t
            );
        }
    }

    /// Every order of crossing the `k` dimensions, checked turn by turn.
    fn brute_force(routing: Routing, k: u32) -> (u128, u128) {
        fn orders(left: &mut Vec<u32>, acc: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
            if left.is_empty() {
                out.push(acc.clone());
            }
            for i in 0..left.len() {
                let d = left.remove(i);
                acc.push(d);
                orders(left, acc, out);
                acc.pop();
                left.insert(i, d);
            }
        }
        let mut all = Vec::new();
        orders(&mut (0..k).collect(), &mut Vec::new(), &mut all);
        let (mut t, mut fp) = (0, 0);
        for s in 0..1u32 << k {
            for o in &all {
                let mut cur = s;
                let mut last = None;
                let ok = o.iter().all(|&d| {
                    let turn = Turn::leaving(cur, d);
                    let fine = routing.allows(last, turn);
                    last = Some(turn);
                    cur ^= 1 << d;
                    fine
                });
                if ok {
                    t += 1;
                    if s >> o[0] & 1 == 0 {
                        fp += 1;
                    }
                }
            }
        }
        (t, fp)
    }

    #[test]
    fn dynamic_programming_equals_brute_force() {
        for routing in Routing::ALL {
            for k in 1..=6 {
                let c = count_paths(routing, k);
                let want = brute_force(routing, k);
                assert_eq!((c.t, c.t_first_positive), want, "{routing:?} k {k}");
            }
        }
    }

    #[test]
    fn the_ud_path_row_is_label_monotone_paths_on_the_gray_code() {
        for (k, row) in (1..=10).zip(TABLE1) {
            assert_eq!(ud_path_average(k), row.0, "k {k}");
            let f = (1..=k as u64).product::<u64>() as f64;
            assert_eq!(ud_path_average(k), f / 2f64.powi(k as i32 - 1));
        }
        // Pairs at distance k in a larger cube give the same average.
        for n in [5u32, 8] {
            let labels: Vec<u32> = (0..1u32 << n).map(gray_label).collect();
            for k in 1..=n.min(6) {
                let mut memo = vec![0u64; 1 << n];
                let (mut sum, mut pairs) = (0u64, 0u64);
                for s in 0..1u32 << n {
                    for d in 0..1u32 << n {
                        if (s ^ d).count_ones() == k {
                            sum += monotone_paths(&labels, s, d, &mut memo);
                            pairs += 1;
                        }
                    }
                }
                assert_eq!(sum as f64 / pairs as f64, ud_path_average(k), "n {n} k {k}");
            }
        }
        // The labels are a Hamiltonian path: consecutive labels are
        // neighbours.
        let node_of: Vec<u32> = {
            let mut v = vec![0; 64];
            for x in 0..64 {
                v[gray_label(x) as usize] = x;
            }
            v
        };
        assert!(node_of.windows(2).all(|w| (w[0] ^ w[1]).count_ones() == 1));
    }

    #[test]
    fn the_pair_the_recurrence_misses() {
        // 011 -> 100 crosses 0-, 1- and 2+. The paper counts 3 paths (2+
        // inserted anywhere into the one legal order 1-, 0-), but 0-, 2+, 1-
        // is legal too: 2+ is positive, and 1- comes from the higher 2.
        let mut memo = vec![0u128; 8 * 4];
        assert_eq!(
            paths_from(Routing::Restriction2, 3, 0b011, &mut memo),
            (4, 1)
        );
    }
}
