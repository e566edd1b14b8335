//! Minimal up*/down* routing tables (seed 000 section 2.2).
//!
//! For every switch, every destination switch and each routing phase, the
//! table holds the set of output ports that lie on a shortest legal
//! up*/down* route. The phase is what the switch knows of the route so far:
//! [`Phase::Up`] if the packet has only gone up (or has just been injected),
//! [`Phase::Down`] once it has taken a down link, after which only down links
//! are legal. A switch learns the phase from the port a packet arrived on
//! ([`UpDown::arrived_down`]). The switch picks one port of the set
//! adaptively when the packet is routed.

use super::topology::{Network, PortConn};
use super::updown::UpDown;
use crate::rtl::PortMask;

/// Where a packet is in its up*/down* route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Only up links taken so far: up and down links are both legal.
    Up = 0,
    /// A down link has been taken: only down links are legal.
    Down = 1,
}

impl Phase {
    /// The phase of a packet that arrived on a port: `Down` when it came
    /// down a link.
    pub fn from_arrival(arrived_down: bool) -> Phase {
        if arrived_down { Phase::Down } else { Phase::Up }
    }
}

/// Routing tables of a whole network.
#[derive(Clone, Debug)]
pub struct RoutingTables {
    switches: usize,
    masks: Vec<PortMask>,
    dist: Vec<u32>,
    node_at: Vec<(u32, u32)>,
    up_ports: Vec<PortMask>,
}

/// Distance of a state that cannot reach the destination.
const UNREACHABLE: u32 = u32::MAX;

impl RoutingTables {
    /// Builds the tables of `net` with the directions of `ud`.
    pub fn new(net: &Network, ud: &UpDown) -> RoutingTables {
        let s = net.num_switches();
        let mut masks = vec![PortMask::EMPTY; s * s * 2];
        let mut dist = vec![UNREACHABLE; s * s * 2];
        // Incoming links of each switch: (from switch, from port, goes up).
        let incoming: Vec<Vec<(u32, bool)>> = (0..s as u32)
            .map(|x| {
                net.ports_of(x)
                    .filter_map(|(_, c)| match c {
                        PortConn::Link { peer, .. } => {
                            Some((peer.switch, ud.goes_up(peer.switch, peer.port)))
                        }
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let mut queue = std::collections::VecDeque::new();
        for d in 0..s {
            let at = |x: usize, ph: usize| (x * s + d) * 2 + ph;
            // Backward BFS over (switch, phase) states from the destination.
            dist[at(d, 0)] = 0;
            dist[at(d, 1)] = 0;
            queue.clear();
            queue.push_back((d, 0usize));
            queue.push_back((d, 1usize));
            while let Some((x, ph)) = queue.pop_front() {
                let dx = dist[at(x, ph)];
                for &(from, up) in &incoming[x] {
                    let from = from as usize;
                    // An up move leads to phase Up and is legal only from Up;
                    // a down move leads to phase Down and is legal from both.
                    let preds: &[usize] = match (ph, up) {
                        (0, true) => &[0],
                        (1, false) => &[0, 1],
                        _ => &[],
                    };
                    for &pp in preds {
                        if dist[at(from, pp)] == UNREACHABLE {
                            dist[at(from, pp)] = dx + 1;
                            queue.push_back((from, pp));
                        }
                    }
                }
            }
            for x in 0..s {
                if x == d {
                    continue;
                }
                for ph in 0..2 {
                    let dx = dist[at(x, ph)];
                    if dx == UNREACHABLE {
                        continue;
                    }
                    let mut m = PortMask::EMPTY;
                    for (p, c) in net.ports_of(x as u32) {
                        if let PortConn::Link { peer, .. } = c {
                            let up = ud.goes_up(x as u32, p);
                            if up && ph == 1 {
                                continue;
                            }
                            let next = at(peer.switch as usize, if up { 0 } else { 1 });
                            if dist[next] != UNREACHABLE && dist[next] + 1 == dx {
                                m.insert(p as usize);
                            }
                        }
                    }
                    masks[at(x, ph)] = m;
                }
            }
        }
        RoutingTables {
            switches: s,
            masks,
            dist,
            node_at: (0..net.num_nodes() as u32)
                .map(|n| {
                    let p = net.node_port(n);
                    (p.switch, p.port)
                })
                .collect(),
            up_ports: (0..s as u32).map(|x| ud.up_ports(x)).collect(),
        }
    }

    /// Builds the BFS tree, the directions and the tables of `net`.
    pub fn for_network(net: &Network) -> (UpDown, RoutingTables) {
        let ud = UpDown::new(net);
        let rt = RoutingTables::new(net, &ud);
        (ud, rt)
    }

    #[inline]
    fn at(&self, s: u32, d: u32, ph: Phase) -> usize {
        (s as usize * self.switches + d as usize) * 2 + ph as usize
    }

    /// Number of switches covered.
    pub fn num_switches(&self) -> usize {
        self.switches
    }

    /// Number of nodes covered.
    pub fn num_nodes(&self) -> usize {
        self.node_at.len()
    }

    /// Output ports of switch `s` on a shortest legal route to switch `d` (empty when
    /// `s == d` or no legal route exists in that phase).
    #[inline]
    pub fn switch_candidates(&self, s: u32, d: u32, ph: Phase) -> PortMask {
        self.masks[self.at(s, d, ph)]
    }

    /// Output ports of switch `s` toward node `n`: the node's own port on its
    /// switch, else the switch-level candidates.
    #[inline]
    pub fn candidates(&self, s: u32, n: u32, ph: Phase) -> PortMask {
        let (ds, dp) = self.node_at[n as usize];
        if ds == s {
            PortMask::single(dp as usize)
        } else {
            self.switch_candidates(s, ds, ph)
        }
    }

    /// Number of inter-switch links on a shortest legal route from `s` to
    /// `d` in phase `ph`, if there is one.
    pub fn distance(&self, s: u32, d: u32, ph: Phase) -> Option<u32> {
        let x = self.dist[self.at(s, d, ph)];
        (x != UNREACHABLE).then_some(x)
    }

    /// The switch a node is attached to.
    pub fn node_switch(&self, n: u32) -> u32 {
        self.node_at[n as usize].0
    }

    /// Ports of switch `s` that go up.
    pub fn up_ports(&self, s: u32) -> PortMask {
        self.up_ports[s as usize]
    }

    /// Replaces one table entry: for what-if studies, and for tests that
    /// check the model catches an illegal route.
    pub fn set_switch_candidates(&mut self, s: u32, d: u32, ph: Phase, ports: PortMask) {
        let i = self.at(s, d, ph);
        self.masks[i] = ports;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::{Wire, test_network};

    fn net(links: &[Wire]) -> Network {
        test_network(4, 4, links)
    }

    #[test]
    fn routes_between_two_leaves_go_up_then_down() {
        // Star around 0: leaves 1, 2, 3. From 1 to 2: up to 0, down to 2.
        let n = net(&[((0, 1), (1, 1)), ((0, 2), (2, 1)), ((0, 3), (3, 1))]);
        let (_, rt) = RoutingTables::for_network(&n);
        assert_eq!(rt.switch_candidates(1, 2, Phase::Up), PortMask::single(1));
        assert_eq!(rt.distance(1, 2, Phase::Up), Some(2));
        assert_eq!(
            rt.switch_candidates(1, 2, Phase::Down),
            PortMask::EMPTY,
            "1 has no down path to 2"
        );
        assert_eq!(rt.distance(1, 2, Phase::Down), None);
        assert_eq!(rt.switch_candidates(0, 2, Phase::Down), PortMask::single(2));
        assert_eq!(
            rt.candidates(2, 2, Phase::Down),
            PortMask::single(0),
            "own node port"
        );
    }

    #[test]
    fn a_cross_link_gives_a_shorter_route_only_when_legal() {
        // Ring 0-1-2-3-0: levels 0,1,2,1. Link 2-3: 3 is up end (level 1).
        let n = net(&[
            ((0, 1), (1, 1)),
            ((1, 2), (2, 1)),
            ((2, 2), (3, 1)),
            ((3, 2), (0, 2)),
        ]);
        let (ud, rt) = RoutingTables::for_network(&n);
        assert!(ud.goes_up(2, 2), "2 -> 3 is up");
        // 2 -> 3 directly (one up link).
        assert_eq!(rt.switch_candidates(2, 3, Phase::Up), PortMask::single(2));
        // 3 -> 2 directly is a down link: legal in both phases.
        assert_eq!(rt.switch_candidates(3, 2, Phase::Down), PortMask::single(1));
        // 1 -> 3: up to 0 then down to 3 (2 hops), or down to 2 then up to 3
        // (illegal). Only the first.
        assert_eq!(rt.switch_candidates(1, 3, Phase::Up), PortMask::single(1));
        assert_eq!(rt.distance(1, 3, Phase::Up), Some(2));
        // From 1 in phase Down, 3 is unreachable (only down: 1 -> 2, then 2->3 is up).
        assert_eq!(rt.distance(1, 3, Phase::Down), None);
    }

    #[test]
    fn ties_give_several_candidates() {
        // Two parallel links between 0 and 1.
        let n = net(&[
            ((0, 1), (1, 1)),
            ((0, 2), (1, 2)),
            ((1, 3), (2, 1)),
            ((2, 2), (3, 1)),
        ]);
        let (_, rt) = RoutingTables::for_network(&n);
        assert_eq!(
            rt.switch_candidates(1, 0, Phase::Up),
            PortMask::from_iter([1, 2])
        );
        assert_eq!(
            rt.switch_candidates(0, 3, Phase::Up),
            PortMask::from_iter([1, 2])
        );
    }
}
