//! Binary n-cubes and their routing restrictions (seed 001 sections 2.1,
//! 2.4, 3.1 and 3.2).
//!
//! Node `x` of an `n`-cube is an `n`-bit number; the channel from `x` to
//! `x ^ (1 << k)` is at dimension `k`, *positive* when bit `k` of `x` is 0
//! and *negative* otherwise. A routing restriction says from which channel
//! (the one a worm arrived on) a worm may be forwarded to which channel:
//!
//! | [`Routing`] | forward from `c^l` to `c^m` iff |
//! |---|---|
//! | `Ecube` | `m > l` (and always the lowest differing dimension) |
//! | `Restriction1` | `m > l`, or `c^m` is positive |
//! | `Restriction2` | `m < l`, or `c^m` is positive |
//! | `Minimal` | always (unrestricted; deadlocks, as in Fig. 3(c)) |
//!
//! The *legal* channels a router offers a worm are the shortest-path channels
//! toward its current target that the restriction allows and after which the
//! target can still be reached under the restriction (seed 001 section 3.1:
//! under Restriction 2 a required negative channel of the highest dimension
//! must be taken first, or the worm would be stuck). The router chooses among
//! them adaptively. A worm arriving at an intermediate destination keeps the
//! channel it arrived on as its "last" channel, so the restriction binds
//! across destinations too (Theorem 4 relies on that).

use crate::{Error, Result};
use std::fmt;

/// Largest cube the model builds: 2^24 routers, the most nodes a mesh or
/// torus takes (a 16-cube's run of 300 cycles holds about 420 MB, an
/// 18-cube's 2 GB, a 20-cube's 8 GB: a simulation reckons its memory
/// before it builds one and refuses one that would not fit,
/// `engine::check_direct_memory`). Path counting works on the dimension
/// sets alone and goes further.
pub const MAX_DIMENSIONS: u32 = 24;

/// A binary n-cube.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hypercube {
    n: u32,
}

/// One channel crossing, as a routing restriction sees it: its dimension
/// and its sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    /// The dimension.
    pub dim: u32,
    /// True for a positive channel (from a node whose bit `dim` is 0).
    pub positive: bool,
}

impl Turn {
    /// The crossing from `from` along dimension `dim`.
    pub fn leaving(from: u32, dim: u32) -> Turn {
        Turn {
            dim,
            positive: from >> dim & 1 == 0,
        }
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.dim, if self.positive { '+' } else { '-' })
    }
}

impl Hypercube {
    /// An `n`-cube, `1 <= n <= MAX_DIMENSIONS`.
    pub fn new(n: u32) -> Result<Hypercube> {
        if !(1..=MAX_DIMENSIONS).contains(&n) {
            return Err(Error::Config {
                field: "dimensions",
                value: n.to_string(),
                reason: format!("a hypercube has 1 to {MAX_DIMENSIONS} dimensions"),
            });
        }
        Ok(Hypercube { n })
    }

    /// Number of dimensions.
    pub fn dims(&self) -> u32 {
        self.n
    }

    /// Number of nodes, `2^n`.
    pub fn nodes(&self) -> u32 {
        1 << self.n
    }

    /// The neighbour of `x` across dimension `dim`.
    pub fn neighbor(&self, x: u32, dim: u32) -> u32 {
        x ^ (1 << dim)
    }

    /// Checks that `x` is a node of the cube.
    pub fn check_node(&self, x: u32) -> Result<()> {
        if x < self.nodes() {
            Ok(())
        } else {
            Err(Error::UnknownNode {
                node: x as u64,
                nodes: self.nodes(),
            })
        }
    }

    /// The name of the channel from `x` across `dim`, as the paper writes it:
    /// `c[2->3 d0+]`.
    pub fn channel_name(&self, x: u32, dim: u32) -> String {
        format!("c[{}->{} d{}]", x, x ^ (1 << dim), Turn::leaving(x, dim))
    }
}

/// A routing function for hypercubes: a routing restriction plus the
/// shortest-path rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Routing {
    /// Dimension order, lowest dimension first (deterministic).
    Ecube,
    /// Li's minimal restriction (seed 001 section 2.4).
    Restriction1,
    /// The equivalent restriction the natural list needs (section 3.1).
    Restriction2,
    /// Every shortest-path channel, no restriction.
    Minimal,
}

impl Routing {
    /// Every routing function.
    pub const ALL: [Routing; 4] = [
        Routing::Ecube,
        Routing::Restriction1,
        Routing::Restriction2,
        Routing::Minimal,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Routing::Ecube => "ecube",
            Routing::Restriction1 => "r1",
            Routing::Restriction2 => "r2",
            Routing::Minimal => "minimal",
        }
    }

    /// Parses a name given by [`name`](Self::name).
    pub fn parse(s: &str) -> Result<Routing> {
        Routing::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| Error::Config {
                field: "routing",
                value: s.to_string(),
                reason: "expected ecube, r1, r2 or minimal".into(),
            })
    }

    /// Whether the restriction lets a worm that arrived on `last` (`None`:
    /// injected by the local processor) leave on `next`.
    pub fn allows(self, last: Option<Turn>, next: Turn) -> bool {
        let Some(l) = last else { return true };
        match self {
            Routing::Ecube => next.dim > l.dim,
            Routing::Restriction1 => next.dim > l.dim || next.positive,
            Routing::Restriction2 => next.dim < l.dim || next.positive,
            Routing::Minimal => true,
        }
    }

    /// Whether a worm at `cur` whose last channel was `last` can still reach
    /// the node that differs from `cur` in the dimensions `rem`.
    pub fn feasible(self, cur: u32, last: Option<Turn>, rem: u32) -> bool {
        let Some(l) = last else { return true };
        if rem == 0 {
            return true;
        }
        let neg = rem & cur;
        let pos = rem & !cur;
        match self {
            Routing::Minimal => true,
            Routing::Ecube => rem.trailing_zeros() > l.dim,
            Routing::Restriction1 => {
                // Negative channels in increasing order, each entered from a
                // lower dimension: a positive one below the lowest will do.
                neg == 0 || {
                    let lo = neg.trailing_zeros();
                    lo > l.dim || pos & ((1 << lo) - 1) != 0
                }
            }
            Routing::Restriction2 => {
                // Negative channels in decreasing order, each entered from a
                // higher dimension: a positive one above the highest will do.
                neg == 0 || {
                    let hi = 31 - neg.leading_zeros();
                    hi < l.dim || pos >> hi >> 1 != 0
                }
            }
        }
    }

    /// The legal channels (a mask of dimensions) for a worm at `cur` that
    /// arrived on `last`, toward `target`.
    pub fn candidates(self, cur: u32, last: Option<Turn>, target: u32) -> u32 {
        let diff = cur ^ target;
        let mut out = 0u32;
        let mut m = diff;
        while m != 0 {
            let d = m.trailing_zeros();
            m &= m - 1;
            let t = Turn::leaving(cur, d);
            if self.allows(last, t) && self.feasible(cur ^ (1 << d), Some(t), diff & !(1 << d)) {
                out |= 1 << d;
            }
        }
        if self == Routing::Ecube {
            // Deterministic: the lowest legal dimension only.
            out & out.wrapping_neg()
        } else {
            out
        }
    }
}

impl fmt::Display for Routing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Routing::Ecube => "e-cube routing",
            Routing::Restriction1 => "Restriction 1",
            Routing::Restriction2 => "Restriction 2",
            Routing::Minimal => "unrestricted minimal routing",
        })
    }
}

/// The natural list of seed 001 section 3.2: the destinations in increasing
/// order.
pub fn natural_list(dests: &[u32]) -> Vec<u32> {
    let mut l = dests.to_vec();
    l.sort_unstable();
    l.dedup();
    l
}

pub use super::format_list;

/// Checks that a multicast list is *legal* under `routing` (seed 001 section
/// 3.2); see [`super::check_list`].
pub fn check_list(cube: &Hypercube, routing: Routing, src: u32, list: &[u32]) -> Result<()> {
    super::check_list(
        &super::CubeFabric {
            cube: *cube,
            routing,
        },
        src,
        list,
    )
}

/// Every multicast path the routers may give the list under `routing`; see
/// [`super::multicast_paths`].
pub fn multicast_paths(
    cube: &Hypercube,
    routing: Routing,
    src: u32,
    list: &[u32],
    limit: usize,
) -> Result<Vec<Vec<u32>>> {
    super::multicast_paths(
        &super::CubeFabric {
            cube: *cube,
            routing,
        },
        src,
        list,
        limit,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(n: u32) -> Hypercube {
        Hypercube::new(n).unwrap()
    }

    /// Reference for `feasible`: search over every order of the remaining
    /// dimensions.
    fn feasible_by_search(r: Routing, cur: u32, last: Option<Turn>, rem: u32) -> bool {
        if rem == 0 {
            return true;
        }
        (0..32).filter(|d| rem >> d & 1 == 1).any(|d| {
            let t = Turn::leaving(cur, d);
            r.allows(last, t) && feasible_by_search(r, cur ^ (1 << d), Some(t), rem & !(1 << d))
        })
    }

    #[test]
    fn feasibility_agrees_with_a_search_over_orders() {
        let n = 5;
        for r in Routing::ALL {
            for cur in 0..1u32 << n {
                for rem in 0..1u32 << n {
                    for l in 0..n {
                        for positive in [false, true] {
                            let last = Some(Turn { dim: l, positive });
                            let want = feasible_by_search(r, cur, last, rem);
                            assert_eq!(
                                r.feasible(cur, last, rem),
                                want,
                                "{r:?} cur {cur} rem {rem} last {l}{positive}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn example_1b_the_highest_negative_channel_goes_first() {
        // From 10 to 4 under Restriction 2: dimensions 1-, 2+, 3-; only 3.
        assert_eq!(Routing::Restriction2.candidates(10, None, 4), 1 << 3);
        // From 2 to 9: dimensions 0+, 1-, 3+; the highest is positive, all.
        assert_eq!(Routing::Restriction2.candidates(2, None, 9), 0b1011);
        assert_eq!(Routing::Ecube.candidates(2, None, 9), 0b0001);
    }

    #[test]
    fn fig4_list_is_illegal_under_ecube() {
        let e = check_list(&cube(3), Routing::Ecube, 0, &[7, 6])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("<0: 7, 6> is illegal under e-cube routing"),
            "{e}"
        );
        assert!(e.contains("arriving at 7 on c[3->7 d2+]"), "{e}");
        assert!(e.contains("toward 6"), "{e}");
        check_list(&cube(3), Routing::Restriction2, 0, &[6, 7]).unwrap();
    }

    #[test]
    fn fig5_paths_of_the_natural_list() {
        let p = multicast_paths(&cube(3), Routing::Restriction2, 0, &[3, 6, 7], 100).unwrap();
        assert_eq!(
            p,
            vec![
                vec![0, 1, 3, 2, 6, 7],
                vec![0, 1, 3, 7, 6, 7],
                vec![0, 2, 3, 7, 6, 7]
            ]
        );
    }

    #[test]
    fn natural_lists_are_legal_under_restriction2() {
        let c = cube(4);
        for src in 0..16 {
            for set in 1..1u32 << 16 {
                if set >> src & 1 == 1 || set.count_ones() > 4 {
                    continue;
                }
                let dests: Vec<u32> = (0..16).filter(|d| set >> d & 1 == 1).collect();
                check_list(&c, Routing::Restriction2, src, &natural_list(&dests)).unwrap();
            }
        }
    }

    #[test]
    fn bad_lists_are_refused_with_the_reason() {
        let c = cube(3);
        let e = check_list(&c, Routing::Restriction2, 0, &[8])
            .unwrap_err()
            .to_string();
        assert_eq!(e, "node 8 does not exist (the network has nodes 0 to 7)");
        let e = check_list(&c, Routing::Restriction2, 0, &[3, 3])
            .unwrap_err()
            .to_string();
        assert!(e.contains("node 3 is listed twice"), "{e}");
        let e = check_list(&c, Routing::Restriction2, 0, &[0])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the source 0 is among its own destinations"),
            "{e}"
        );
        assert!(Hypercube::new(0).is_err() && Hypercube::new(MAX_DIMENSIONS + 1).is_err());
    }
}
