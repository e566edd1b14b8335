//! BFS spanning tree and up*/down* link directions (seed 000 section 2.2).
//!
//! The spanning tree is a breadth-first search from the root, the switch with
//! the lowest id. Switches are taken from the BFS queue in order and their
//! ports are scanned in increasing port number, so the tree link to a switch
//! is the first link found to it. The "up" end of every link is the end whose
//! switch is closer to the root, or, at equal levels, the end whose switch
//! has the lower id; links so directed form no cycle. A legal up*/down* route
//! takes zero or more links up, then zero or more links down, never up after
//! down. Node ports count as down links: a packet enters the network going
//! up and leaves it going down.

use super::topology::{Network, PortConn};
use crate::rtl::PortMask;
use serde::Serialize;

/// The link by which the BFS reached a switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TreeParent {
    /// The parent switch.
    pub switch: u32,
    /// The tree link (index in [`Network::links`]).
    pub link: u32,
}

/// The spanning tree, levels and link directions of a network.
#[derive(Clone, Debug)]
pub struct UpDown {
    level: Vec<u32>,
    parent: Vec<Option<TreeParent>>,
    a_is_up: Vec<bool>,
    tree: Vec<bool>,
    up_ports: Vec<PortMask>,
}

impl UpDown {
    /// Computes the BFS tree from switch 0 and the directions.
    pub fn new(net: &Network) -> UpDown {
        let s = net.num_switches();
        let mut level = vec![u32::MAX; s];
        let mut parent = vec![None; s];
        let mut tree = vec![false; net.links().len()];
        let mut queue = std::collections::VecDeque::from([0u32]);
        level[0] = 0;
        while let Some(x) = queue.pop_front() {
            for (_, c) in net.ports_of(x) {
                if let PortConn::Link { link, peer } = c
                    && level[peer.switch as usize] == u32::MAX
                {
                    level[peer.switch as usize] = level[x as usize] + 1;
                    parent[peer.switch as usize] = Some(TreeParent { switch: x, link });
                    tree[link as usize] = true;
                    queue.push_back(peer.switch);
                }
            }
        }
        let a_is_up: Vec<bool> = net
            .links()
            .iter()
            .map(|l| {
                let (la, lb) = (level[l.a.switch as usize], level[l.b.switch as usize]);
                la < lb || (la == lb && l.a.switch < l.b.switch)
            })
            .collect();
        let up_ports = (0..s as u32)
            .map(|x| {
                net.ports_of(x)
                    .filter(|&(p, c)| match c {
                        PortConn::Link { link, .. } => {
                            let l = net.links()[link as usize];
                            // Leaving x goes up when the far end is the up end.
                            let x_is_a = l.a.switch == x && l.a.port == p;
                            a_is_up[link as usize] != x_is_a
                        }
                        _ => false,
                    })
                    .map(|(p, _)| p as usize)
                    .collect()
            })
            .collect();
        UpDown {
            level,
            parent,
            a_is_up,
            tree,
            up_ports,
        }
    }

    /// BFS level of a switch (the root is at level 0).
    pub fn level(&self, s: u32) -> u32 {
        self.level[s as usize]
    }

    /// The tree parent of a switch (`None` for the root).
    pub fn parent(&self, s: u32) -> Option<TreeParent> {
        self.parent[s as usize]
    }

    /// True when end `a` of link `l` is its up end.
    pub fn a_is_up(&self, l: u32) -> bool {
        self.a_is_up[l as usize]
    }

    /// True when link `l` is a spanning-tree link (else a cross link).
    pub fn is_tree_link(&self, l: u32) -> bool {
        self.tree[l as usize]
    }

    /// Number of switches the directions cover.
    pub fn num_switches(&self) -> usize {
        self.level.len()
    }

    /// Number of inter-switch links the directions cover.
    pub fn num_links(&self) -> usize {
        self.a_is_up.len()
    }

    /// The ports of switch `s` through which leaving is an "up" move.
    pub fn up_ports(&self, s: u32) -> PortMask {
        self.up_ports[s as usize]
    }

    /// True when leaving switch `s` by port `p` goes up.
    pub fn goes_up(&self, s: u32, p: u32) -> bool {
        self.up_ports[s as usize].contains(p as usize)
    }

    /// True when a packet arriving at switch `s` on port `p` has just come
    /// down a link (so it may not go up any more). Packets from a node arrive
    /// going up.
    pub fn arrived_down(&self, s: u32, p: u32) -> bool {
        // The link's up end is the far end exactly when leaving by p goes up.
        self.goes_up(s, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::test_network;

    /// A ring 0-1-2-3-0 plus a chord 1-3; nodes on every switch.
    fn ring() -> Network {
        let links = [
            ((0, 1), (1, 1)),
            ((1, 2), (2, 1)),
            ((2, 2), (3, 1)),
            ((3, 2), (0, 2)),
            ((1, 3), (3, 3)),
        ];
        test_network(4, 4, &links)
    }

    #[test]
    fn levels_tree_and_up_ends_follow_the_rules() {
        let net = ring();
        let ud = UpDown::new(&net);
        assert_eq!(
            (0..4).map(|s| ud.level(s)).collect::<Vec<_>>(),
            vec![0, 1, 2, 1]
        );
        assert_eq!(ud.parent(1), Some(TreeParent { switch: 0, link: 0 }));
        assert_eq!(ud.parent(3), Some(TreeParent { switch: 0, link: 3 }));
        assert_eq!(ud.parent(2), Some(TreeParent { switch: 1, link: 1 }));
        assert!(ud.is_tree_link(0) && ud.is_tree_link(1) && ud.is_tree_link(3));
        assert!(!ud.is_tree_link(2) && !ud.is_tree_link(4));
        // Link 2 joins switch 2 (level 2) and switch 3 (level 1): 3 is up.
        assert!(!ud.a_is_up(2));
        assert!(ud.goes_up(2, 2) && !ud.goes_up(3, 1));
        // Link 4 joins switches 1 and 3, both level 1: the lower id (1) is up.
        assert!(ud.a_is_up(4));
        assert!(ud.goes_up(3, 3) && !ud.goes_up(1, 3));
        assert!(ud.arrived_down(3, 3), "arriving at 3 from 1 came down");
        // Node ports are never up.
        assert!((0..4).all(|s| !ud.goes_up(s, 0)));
    }

    #[test]
    fn directed_links_have_no_cycle() {
        // Every up move strictly decreases (level, id): no cycle is possible.
        let net = ring();
        let ud = UpDown::new(&net);
        for l in net.links() {
            let (up, down) = if ud.a_is_up(net.links().iter().position(|x| x == l).unwrap() as u32)
            {
                (l.a.switch, l.b.switch)
            } else {
                (l.b.switch, l.a.switch)
            };
            assert!((ud.level(up), up) < (ud.level(down), down));
        }
    }
}
