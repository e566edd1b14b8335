//! Reachability strings (seed 000 section 5.3.2, Fig. 18).
//!
//! For every switch, the *total* string holds the nodes it reaches by down
//! links only; for every down port, the *restricted* string holds the nodes
//! that port alone is responsible for. The restricted strings of a switch
//! partition its total string, so a bit-string worm that replicates by them
//! (and restricts each copy's header to its port's string) reaches every
//! destination exactly once.
//!
//! Step 1 computes, from the deepest level up to the root, each port's
//! string: a node port holds its node; a port whose link goes down to switch
//! `k` holds `k`'s total. A switch's total is the union of its ports'.
//! Down links join a switch to a deeper level or, between switches of the
//! same level, the lower id (the up end) to the higher id. So within a level
//! switches are processed in decreasing id order: a switch's same-level
//! down neighbours all have higher ids and are done first.
//!
//! Step 2 makes one down port responsible for each node: a port keeps only
//! the nodes no higher-numbered down port reaches (the paper's pairwise
//! `r_ij = r_ij AND NOT r_ik` for `k > j`, with the unrestricted strings of
//! step 1).

use super::{Network, PortConn, UpDown};
use crate::rtl::BitString;
use serde::Serialize;

/// Total and restricted reachability strings of every switch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reachability {
    total: Vec<BitString>,
    /// Per switch, per port: `Some` for down ports (links going down and
    /// node ports), `None` for up ports and open ports.
    restricted: Vec<Vec<Option<BitString>>>,
}

impl Reachability {
    /// Computes the strings of `net` with the directions of `ud` (Fig. 18).
    pub fn new(net: &Network, ud: &UpDown) -> Reachability {
        let s = net.num_switches();
        let n = net.num_nodes();
        let mut total = vec![BitString::zeros(n); s];
        let mut port: Vec<Vec<Option<BitString>>> = (0..s as u32)
            .map(|x| vec![None; net.num_ports(x) as usize])
            .collect();
        // Step 1: deepest level first; within a level, highest id first.
        let mut order: Vec<u32> = (0..s as u32).collect();
        order.sort_by_key(|&x| (std::cmp::Reverse(ud.level(x)), std::cmp::Reverse(x)));
        for x in order {
            let mut t = BitString::zeros(n);
            for (p, c) in net.ports_of(x) {
                let r = match c {
                    PortConn::Node(node) => BitString::from_indices(n, [node as usize]),
                    PortConn::Link { peer, .. } if !ud.goes_up(x, p) => {
                        total[peer.switch as usize].clone()
                    }
                    _ => continue,
                };
                t.or_assign(&r);
                port[x as usize][p as usize] = Some(r);
            }
            total[x as usize] = t;
        }
        // Step 2: a port keeps what no higher-numbered down port reaches.
        for ports in port.iter_mut() {
            let mut above = BitString::zeros(n);
            for r in ports.iter_mut().rev().flatten() {
                let keep = r.and_not(&above);
                above.or_assign(r);
                *r = keep;
            }
        }
        Reachability {
            total,
            restricted: port,
        }
    }

    /// The total reachability string of switch `s`.
    pub fn total(&self, s: u32) -> &BitString {
        &self.total[s as usize]
    }

    /// The restricted reachability string of port `p` of switch `s`, if it
    /// is a down port.
    pub fn restricted(&self, s: u32, p: u32) -> Option<&BitString> {
        self.restricted[s as usize][p as usize].as_ref()
    }

    /// The down ports of switch `s` with their restricted strings.
    pub fn down_ports(&self, s: u32) -> impl Iterator<Item = (u32, &BitString)> {
        self.restricted[s as usize]
            .iter()
            .enumerate()
            .filter_map(|(p, r)| r.as_ref().map(|r| (p as u32, r)))
    }

    /// A description for `wormcast reach`: every switch's level, total
    /// string and down ports' restricted strings, as '0'/'1' text with node 0
    /// first.
    pub fn summary(&self, ud: &UpDown) -> Vec<SwitchReach> {
        (0..self.switches()).map(|s| self.describe(ud, s)).collect()
    }

    /// The number of switches.
    pub fn switches(&self) -> u32 {
        self.total.len() as u32
    }

    /// Switch `s`'s part of [`Reachability::summary`]: a large network's
    /// text (a character a node, a string a down port) is written one
    /// switch at a time rather than held whole.
    pub fn describe(&self, ud: &UpDown, s: u32) -> SwitchReach {
        SwitchReach {
            switch: s,
            level: ud.level(s),
            total: self.total(s).to_string(),
            down_ports: self
                .down_ports(s)
                .map(|(port, r)| PortReach {
                    port,
                    restricted: r.to_string(),
                })
                .collect(),
        }
    }
}

/// One switch's strings, as text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SwitchReach {
    /// Switch id.
    pub switch: u32,
    /// BFS level.
    pub level: u32,
    /// Total reachability string, node 0 first.
    pub total: String,
    /// Every down port with its restricted string.
    pub down_ports: Vec<PortReach>,
}

/// One down port's restricted string, as text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PortReach {
    /// Port number.
    pub port: u32,
    /// Restricted reachability string, node 0 first.
    pub restricted: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::test_network;
    use crate::net::{IrregularParams, Network};
    use proptest::prelude::*;

    /// 0 - 1, 1 - 2, 1 - 3, 2 - 4 (levels 0, 1, 2, 2, 3) and a cross link
    /// 3 - 4 between levels 2 and 3: 3 is its up end, so 3 reaches 4's node
    /// by going down, and two of switch 1's down ports reach node 4.
    #[test]
    fn cross_links_between_levels_are_folded_in_and_restricted() {
        let net = test_network(
            5,
            4,
            &[
                ((0, 1), (1, 1)),
                ((1, 2), (2, 1)),
                ((1, 3), (3, 1)),
                ((2, 2), (4, 1)),
                ((3, 2), (4, 2)),
            ],
        );
        let ud = UpDown::new(&net);
        assert_eq!(
            (0..5).map(|s| ud.level(s)).collect::<Vec<_>>(),
            vec![0, 1, 2, 2, 3]
        );
        let r = Reachability::new(&net, &ud);
        assert_eq!(r.total(4).to_string(), "00001");
        assert_eq!(
            r.total(3).to_string(),
            "00011",
            "3 reaches 4 by its down cross link"
        );
        assert_eq!(r.total(2).to_string(), "00101");
        assert_eq!(r.total(1).to_string(), "01111");
        assert_eq!(r.total(0).to_string(), "11111");
        // At 1, ports 2 (to 2) and 3 (to 3) both reach node 4: the higher
        // port keeps it.
        assert_eq!(r.restricted(1, 2).unwrap().to_string(), "00100");
        assert_eq!(r.restricted(1, 3).unwrap().to_string(), "00011");
        assert_eq!(r.restricted(1, 1), None, "port 1 goes up");
    }

    /// Root 0 with children 1, 2, 3 (all at level 1) and same-level links
    /// 1 - 2 and 2 - 3: down from 1 to 2 and from 2 to 3, so 1 reaches 2 and
    /// 3. Processed in increasing id order, 1 would miss 2's and 3's nodes.
    #[test]
    fn a_same_level_chain_needs_decreasing_id_order() {
        let net = test_network(
            4,
            4,
            &[
                ((0, 1), (1, 1)),
                ((0, 2), (2, 1)),
                ((0, 3), (3, 1)),
                ((1, 2), (2, 2)),
                ((2, 3), (3, 2)),
            ],
        );
        let ud = UpDown::new(&net);
        let r = Reachability::new(&net, &ud);
        assert_eq!(r.total(3).to_string(), "0001");
        assert_eq!(r.total(2).to_string(), "0011");
        assert_eq!(r.total(1).to_string(), "0111");
    }

    proptest! {
        /// At every switch the restricted strings of the down ports are
        /// disjoint and cover the total string; the root reaches every node;
        /// every node reachable by down links alone is in the total.
        #[test]
        fn restricted_strings_partition_the_total(s in 2u32..16, conn in 0.5f64..=1.0, seed in any::<u64>()) {
            let p = IrregularParams { switches: s, ports: 6, nodes: s * 2, connectivity: conn, seed };
            let Ok(t) = p.generate() else { return Ok(()) };
            let net = Network::new(&t).unwrap();
            let ud = UpDown::new(&net);
            let r = Reachability::new(&net, &ud);
            prop_assert_eq!(r.total(0).count_ones(), net.num_nodes());
            for x in 0..s {
                let mut union = BitString::zeros(net.num_nodes());
                for (_, rs) in r.down_ports(x) {
                    prop_assert!(!union.intersects(rs), "switch {} ports overlap", x);
                    union.or_assign(rs);
                }
                prop_assert_eq!(&union, r.total(x));
                // Reference: nodes reached by a down-only search from x.
                let mut seen = vec![false; s as usize];
                let mut stack = vec![x];
                let mut reach = BitString::zeros(net.num_nodes());
                seen[x as usize] = true;
                while let Some(y) = stack.pop() {
                    for (port, c) in net.ports_of(y) {
                        match c {
                            PortConn::Node(node) => reach.set(node as usize, true),
                            PortConn::Link { peer, .. } if !ud.goes_up(y, port) && !seen[peer.switch as usize] => {
                                seen[peer.switch as usize] = true;
                                stack.push(peer.switch);
                            }
                            _ => {}
                        }
                    }
                }
                prop_assert_eq!(&reach, r.total(x), "switch {}", x);
            }
        }
    }
}
