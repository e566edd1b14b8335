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
//!
//! The tables are `2 s²` port masks for `s` switches, so their size decides
//! how large a network can be: each mask takes as many bytes as the widest
//! switch needs (one byte up to 8 ports), laid out destination by
//! destination, and one backward breadth-first search per destination fills
//! its column, gathering each state's mask as it meets the state's ports
//! (the columns are built in parallel). Distances are not stored:
//! [`RoutingTables::distance`] follows the tables' route.

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

/// Port masks stored in the narrowest width that holds the widest switch.
#[derive(Clone, Debug)]
enum Masks {
    B8(Vec<u8>),
    B16(Vec<u16>),
    B32(Vec<u32>),
    B64(Vec<u64>),
}

impl Masks {
    fn new(len: usize, ports: u32) -> Masks {
        match ports {
            0..=8 => Masks::B8(vec![0; len]),
            9..=16 => Masks::B16(vec![0; len]),
            17..=32 => Masks::B32(vec![0; len]),
            _ => Masks::B64(vec![0; len]),
        }
    }

    #[inline]
    fn get(&self, i: usize) -> PortMask {
        PortMask(match self {
            Masks::B8(v) => v[i] as u64,
            Masks::B16(v) => v[i] as u64,
            Masks::B32(v) => v[i] as u64,
            Masks::B64(v) => v[i],
        })
    }

    fn set(&mut self, i: usize, m: PortMask) {
        let fits = match self {
            Masks::B8(_) => m.0 <= u8::MAX as u64,
            Masks::B16(_) => m.0 <= u16::MAX as u64,
            Masks::B32(_) => m.0 <= u32::MAX as u64,
            Masks::B64(_) => true,
        };
        if !fits {
            // A port beyond the widest switch (a what-if entry): keep it.
            *self = Masks::B64((0..self.len()).map(|j| self.get(j).0).collect());
        }
        match self {
            Masks::B8(v) => v[i] = m.0 as u8,
            Masks::B16(v) => v[i] = m.0 as u16,
            Masks::B32(v) => v[i] = m.0 as u32,
            Masks::B64(v) => v[i] = m.0,
        }
    }

    /// Fills the columns of every destination, `col` entries each, in
    /// parallel: `fill(d, scratch, column)` writes the masks of destination
    /// `d`, with a scratch value `init` made once per thread.
    fn fill_columns<S>(
        &mut self,
        col: usize,
        init: impl Fn() -> S + Sync + Send,
        fill: impl Fn(usize, &mut S, &mut [u64]) + Sync + Send,
    ) {
        fn each<T: Copy + Send + TryFrom<u64>, S>(
            v: &mut [T],
            col: usize,
            init: &(impl Fn() -> S + Sync + Send),
            fill: &(impl Fn(usize, &mut S, &mut [u64]) + Sync + Send),
        ) {
            let start = || (vec![0u64; col], init());
            let write = |(tmp, scratch): &mut (Vec<u64>, S), (d, out): (usize, &mut [T])| {
                tmp.fill(0);
                fill(d, scratch, tmp);
                for (o, &m) in out.iter_mut().zip(tmp.iter()) {
                    *o = T::try_from(m).ok().expect("a mask fits the switch width");
                }
            };
            #[cfg(feature = "parallel")]
            {
                use rayon::prelude::*;
                v.par_chunks_mut(col)
                    .enumerate()
                    .for_each_init(start, write);
            }
            #[cfg(not(feature = "parallel"))]
            {
                let mut st = start();
                v.chunks_mut(col)
                    .enumerate()
                    .for_each(|x| write(&mut st, x));
            }
        }
        match self {
            Masks::B8(v) => each(v, col, &init, &fill),
            Masks::B16(v) => each(v, col, &init, &fill),
            Masks::B32(v) => each(v, col, &init, &fill),
            Masks::B64(v) => each(v, col, &init, &fill),
        }
    }

    fn len(&self) -> usize {
        match self {
            Masks::B8(v) => v.len(),
            Masks::B16(v) => v.len(),
            Masks::B32(v) => v.len(),
            Masks::B64(v) => v.len(),
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Masks::B8(v) => v.len(),
            Masks::B16(v) => 2 * v.len(),
            Masks::B32(v) => 4 * v.len(),
            Masks::B64(v) => 8 * v.len(),
        }
    }
}

/// Routing tables of a whole network.
#[derive(Clone, Debug)]
pub struct RoutingTables {
    switches: usize,
    /// By `(destination * switches + switch) * 2 + phase`.
    masks: Masks,
    node_at: Vec<(u32, u32)>,
    up_ports: Vec<PortMask>,
    /// The switch at the far end of each port (`u32::MAX`: none), by
    /// `first_port[switch] + port`.
    peer: Vec<u32>,
    first_port: Vec<u32>,
}

/// A hop count in a search's scratch: 16 bits where the states allow.
trait Hops: Copy + Ord {
    /// The count of a state not reached (yet).
    const FAR: Self;
    /// No hop.
    const ZERO: Self;
    /// One hop more.
    fn next(self) -> Self;
}

impl Hops for u16 {
    const FAR: u16 = u16::MAX;
    const ZERO: u16 = 0;
    fn next(self) -> u16 {
        self + 1
    }
}

impl Hops for u32 {
    const FAR: u32 = u32::MAX;
    const ZERO: u32 = 0;
    fn next(self) -> u32 {
        self + 1
    }
}

/// The links into each switch, split by their direction, as flat arrays
/// (switch `x`'s up links in are `up_in[up_at[x]..up_at[x + 1]]`), each
/// as `(from switch, its port)`: what the backward searches read.
struct Incoming {
    up_at: Vec<u32>,
    up_in: Vec<(u32, u32)>,
    down_at: Vec<u32>,
    down_in: Vec<(u32, u32)>,
}

impl Incoming {
    fn new(net: &Network, ud: &UpDown) -> Incoming {
        let mut inc = Incoming {
            up_at: vec![0],
            up_in: Vec::new(),
            down_at: vec![0],
            down_in: Vec::new(),
        };
        for x in 0..net.num_switches() as u32 {
            for (_, c) in net.ports_of(x) {
                if let PortConn::Link { peer, .. } = c {
                    let from = (peer.switch, peer.port);
                    if ud.goes_up(peer.switch, peer.port) {
                        inc.up_in.push(from);
                    } else {
                        inc.down_in.push(from);
                    }
                }
            }
            inc.up_at.push(inc.up_in.len() as u32);
            inc.down_at.push(inc.down_in.len() as u32);
        }
        inc
    }

    /// Fills `out` (indexed by state `2 * switch + phase`) with the masks
    /// of destination `d`, by a breadth-first search backwards from it
    /// over (switch, phase) states. A state in phase Up is reached over
    /// up links alone and one in phase Down over down links alone, so each
    /// link is read once. A state's mask gathers, as the search meets
    /// them, the ports whose next state is one hop nearer: all of those
    /// leave the queue before any state of the mask's own distance, and
    /// each (state, port) pair is met once. `dist` and `queue` hold `2 s`
    /// entries of scratch; `out` starts empty.
    fn search<D: Hops>(&self, d: usize, dist: &mut [D], queue: &mut [u32], out: &mut [u64]) {
        dist.fill(D::FAR);
        dist[2 * d] = D::ZERO;
        dist[2 * d + 1] = D::ZERO;
        queue[0] = 2 * d as u32;
        queue[1] = 2 * d as u32 + 1;
        let (mut head, mut tail) = (0, 2);
        while head < tail {
            let st = queue[head] as usize;
            head += 1;
            let x = st / 2;
            let dx = dist[st].next();
            // Meets state `f` over its `port` from this state: `f` is `dx`
            // hops away unless it is already nearer.
            let mut meet = |f: usize, port: u32| {
                let df = dist[f];
                if df >= dx {
                    out[f] |= 1 << port;
                    if df != dx {
                        dist[f] = dx;
                        queue[tail] = f as u32;
                        tail += 1;
                    }
                }
            };
            if st & 1 == 0 {
                // An up move leads to phase Up, and is legal only from it.
                let (a, b) = (self.up_at[x] as usize, self.up_at[x + 1] as usize);
                for &(from, port) in &self.up_in[a..b] {
                    meet(2 * from as usize, port);
                }
            } else {
                // A down move leads to phase Down, and is legal from both.
                let (a, b) = (self.down_at[x] as usize, self.down_at[x + 1] as usize);
                for &(from, port) in &self.down_in[a..b] {
                    meet(2 * from as usize, port);
                    meet(2 * from as usize + 1, port);
                }
            }
        }
    }
}

/// Bytes of the tables of a network of `switches` switches of at most
/// `ports` ports (what [`RoutingTables::new`] allocates for them).
pub fn table_bytes(switches: usize, ports: u32) -> u128 {
    let width = match ports {
        0..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        _ => 8,
    };
    switches as u128 * switches as u128 * 2 * width
}

impl RoutingTables {
    /// Builds the tables of `net` with the directions of `ud`.
    pub fn new(net: &Network, ud: &UpDown) -> RoutingTables {
        let s = net.num_switches();
        let inc = Incoming::new(net, ud);
        let mut masks = Masks::new(s * s * 2, net.max_ports());
        // Distances of states fit 16 bits below 32,767 switches (a search
        // reaches each of the `2 s` states once), halving the scratch that
        // a search reads at random.
        if 2 * s < u16::MAX as usize {
            masks.fill_columns(
                2 * s,
                || (vec![u16::MAX; 2 * s], vec![0u32; 2 * s]),
                |d, (dist, queue), out| inc.search(d, dist, queue, out),
            );
        } else {
            masks.fill_columns(
                2 * s,
                || (vec![u32::MAX; 2 * s], vec![0u32; 2 * s]),
                |d, (dist, queue), out| inc.search(d, dist, queue, out),
            );
        }
        let mut first_port = Vec::with_capacity(s);
        let mut peer = Vec::new();
        for x in 0..s as u32 {
            first_port.push(peer.len() as u32);
            peer.extend(net.ports_of(x).map(|(_, c)| match c {
                PortConn::Link { peer, .. } => peer.switch,
                _ => u32::MAX,
            }));
        }
        RoutingTables {
            switches: s,
            masks,
            node_at: (0..net.num_nodes() as u32)
                .map(|n| {
                    let p = net.node_port(n);
                    (p.switch, p.port)
                })
                .collect(),
            up_ports: (0..s as u32).map(|x| ud.up_ports(x)).collect(),
            peer,
            first_port,
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
        (d as usize * self.switches + s as usize) * 2 + ph as usize
    }

    /// Number of switches covered.
    pub fn num_switches(&self) -> usize {
        self.switches
    }

    /// Number of nodes covered.
    pub fn num_nodes(&self) -> usize {
        self.node_at.len()
    }

    /// Bytes the port masks take.
    pub fn table_bytes(&self) -> usize {
        self.masks.bytes()
    }

    /// Output ports of switch `s` on a shortest legal route to switch `d` (empty when
    /// `s == d` or no legal route exists in that phase).
    #[inline]
    pub fn switch_candidates(&self, s: u32, d: u32, ph: Phase) -> PortMask {
        self.masks.get(self.at(s, d, ph))
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

    /// Number of inter-switch links on the route the tables give from `s`
    /// to `d` in phase `ph` (each step by the lowest candidate port), if
    /// they give one: the shortest legal up*/down* distance unless a table
    /// entry was replaced ([`RoutingTables::set_switch_candidates`]).
    pub fn distance(&self, s: u32, d: u32, ph: Phase) -> Option<u32> {
        let (mut x, mut ph) = (s, ph);
        for hops in 0..=2 * self.switches as u32 {
            if x == d {
                return Some(hops);
            }
            let m = self.switch_candidates(x, d, ph);
            let p = m.iter().next()?;
            let up = self.up_ports[x as usize].contains(p);
            if up && ph == Phase::Down {
                return None;
            }
            x = self.peer[self.first_port[x as usize] as usize + p];
            if x == u32::MAX {
                return None;
            }
            ph = Phase::from_arrival(!up);
        }
        None
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
        self.masks.set(i, ports);
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
