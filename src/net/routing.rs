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
//! destination. One backward breadth-first search fills the columns of 64
//! destinations at a time, a bit per destination in each word, gathering
//! each state's masks as it meets the state's ports (the groups are
//! searched in parallel). Distances are not stored:
//! [`RoutingTables::distance`] follows the tables' route.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::topology::{Network, PortConn};
use super::updown::UpDown;
use crate::rtl::PortMask;
use crate::{Error, Result};

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

    /// Fills the columns of every destination, `col` entries each, by
    /// searches of up to 64 destinations at once ([`Incoming::search64`]),
    /// the groups in parallel, each rayon job making its scratch once.
    fn fill_groups(&mut self, col: usize, inc: &Incoming) {
        fn each<T: Word>(v: &mut [T], col: usize, inc: &Incoming) {
            let group = 64 * col;
            let start = || Scratch64::new(col);
            let write = |scratch: &mut Scratch64<T>, (g, out): (usize, &mut [T])| {
                inc.search64::<T, true>(64 * g, out.len() / col, scratch, out, |_, _, _| {});
            };
            #[cfg(feature = "parallel")]
            if crate::par::spread() {
                use rayon::prelude::*;
                v.par_chunks_mut(group)
                    .enumerate()
                    .for_each_init(start, write);
                return;
            }
            let mut st = start();
            v.chunks_mut(group)
                .enumerate()
                .for_each(|x| write(&mut st, x));
        }
        match self {
            Masks::B8(v) => each(v, col, inc),
            Masks::B16(v) => each(v, col, inc),
            Masks::B32(v) => each(v, col, inc),
            Masks::B64(v) => each(v, col, inc),
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
    /// Entries replaced by hand ([`RoutingTables::set_switch_candidates`])
    /// that name a port their switch does not have, by index.
    past_ports: BTreeSet<usize>,
}

/// A port mask as stored in the tables.
trait Word: Copy + Send {
    /// No port.
    const ZERO: Self;
    /// The mask of port `p` alone (`p` is below the word's width).
    fn bit(p: u32) -> Self;
    /// The union of two masks.
    fn or(self, o: Self) -> Self;
    /// Whether the mask is one byte.
    const BYTE: bool;
    /// The mask of the ports of a byte (`BYTE` masks).
    fn byte(b: u8) -> Self;
    /// The mask as a word of 64 ports.
    fn wide(self) -> u64;
}

/// Transposes the 8 x 8 bit matrix whose row `r` is byte `r` of `x`.
fn transpose8(mut x: u64) -> u64 {
    let mut t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

macro_rules! word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            const ZERO: $t = 0;
            const BYTE: bool = <$t>::BITS == 8;
            #[inline]
            fn byte(b: u8) -> $t {
                b as $t
            }
            #[inline]
            fn bit(p: u32) -> $t {
                1 << p
            }
            #[inline]
            fn or(self, o: $t) -> $t {
                self | o
            }
            #[inline]
            fn wide(self) -> u64 {
                self as u64
            }
        }
    )*};
}
word!(u8, u16, u32, u64);

/// The scratch of [`Incoming::search64`], made once for each parallel job
/// and reused by its searches: one bit per destination of the group in
/// each word, by state.
struct Scratch64<T> {
    /// The masks found, state by state: the group's 64 masks of a state
    /// share a few cache lines (`64 * state + destination`).
    acc: Vec<T>,
    /// One-byte masks: for each state's port, the destinations it is a
    /// candidate for (`8 * state + port`), turned into masks at the end.
    ports: Vec<u64>,
    /// Each state's words, side by side so that a visit touches one line.
    st: Vec<Words>,
    /// The states of the frontier, and those the level touched.
    frontier: Vec<u32>,
    touched: Vec<u32>,
}

/// A state's words in a search of 64 destinations: a bit per destination.
#[derive(Clone, Copy, Default)]
#[repr(align(32))]
struct Words {
    /// The destinations the state has been reached for.
    seen: u64,
    /// The destinations the state, in the current frontier, is reached for
    /// at this level.
    front: u64,
    /// The destinations the state could be reached for one level further.
    reach: u64,
    /// `reach` less `seen`: what the next level reaches.
    fresh: u64,
}

impl<T: Word> Scratch64<T> {
    /// The scratch of a search that finds only its levels (no masks).
    fn levels(states: usize) -> Scratch64<T> {
        Scratch64 {
            acc: Vec::new(),
            ports: Vec::new(),
            st: vec![Words::default(); states],
            frontier: Vec::new(),
            touched: Vec::new(),
        }
    }

    fn new(states: usize) -> Scratch64<T> {
        Scratch64 {
            acc: vec![T::ZERO; 64 * states],
            ports: vec![0; if T::BYTE { 8 * states } else { 0 }],
            st: vec![Words::default(); states],
            frontier: Vec::new(),
            touched: Vec::new(),
        }
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

    /// Fills the masks of destinations `d0..d0 + n` (`n` at most 64) into
    /// `out`, which holds their columns one after another (entry
    /// `i * states + state` for destination `d0 + i`, a state being
    /// `2 * switch + phase`), by one breadth-first search backwards from
    /// all of them at once: each word of the scratch has a bit per
    /// destination, so a level reads a link once for all the destinations
    /// whose frontier crosses it. A state in phase Up is reached over up
    /// links alone and one in phase Down over down links alone. When a
    /// level reaches state `f` for destination `i`, each link from `f` to
    /// a state of the frontier for `i` is one hop nearer, and its port is
    /// a candidate; each (state, destination) pair is reached at one level
    /// only. One-byte masks (switches of up to 8 ports) are gathered as
    /// a word of destinations for each state's port and turned into masks
    /// by 8 x 8 bit transposes as the search ends; wider ones are set a
    /// destination at a time. `out` starts empty; the scratch's words
    /// other than `seen` (cleared as a search begins) end empty, as they
    /// started. `found(state, destinations, level)` is told each state a
    /// level reaches and for which destinations, `level` being the length
    /// of their shortest legal route from it (the destinations' own states
    /// are at level 0, and not told). Without `MASKS` the search finds the
    /// levels alone: `out` and the scratch's masks are not touched.
    fn search64<T: Word, const MASKS: bool>(
        &self,
        d0: usize,
        n: usize,
        sc: &mut Scratch64<T>,
        out: &mut [T],
        mut found: impl FnMut(usize, u64, u32),
    ) {
        let states = sc.st.len();
        for w in sc.st.iter_mut() {
            w.seen = 0;
        }
        for i in 0..n {
            for st in [2 * (d0 + i), 2 * (d0 + i) + 1] {
                sc.st[st].front |= 1 << i;
                sc.st[st].seen |= 1 << i;
                sc.frontier.push(st as u32);
            }
        }
        // The links a frontier state is reached over, as (switch, port), and
        // whether they go down: a down link is legal from both of the
        // switch's states, an up one from its phase Up alone.
        let from = |t: usize| -> (&[(u32, u32)], bool) {
            let x = t / 2;
            if t & 1 == 0 {
                (
                    &self.up_in[self.up_at[x] as usize..self.up_at[x + 1] as usize],
                    false,
                )
            } else {
                (
                    &self.down_in[self.down_at[x] as usize..self.down_at[x + 1] as usize],
                    true,
                )
            }
        };
        let mut level = 0;
        while !sc.frontier.is_empty() {
            level += 1;
            for &t in &sc.frontier {
                let bits = sc.st[t as usize].front;
                let (links, down) = from(t as usize);
                for &(x, _) in links {
                    for f in 2 * x as usize..2 * x as usize + 1 + down as usize {
                        if sc.st[f].reach == 0 {
                            sc.touched.push(f as u32);
                        }
                        sc.st[f].reach |= bits;
                    }
                }
            }
            for &f in &sc.touched {
                let f = f as usize;
                let fresh = sc.st[f].reach & !sc.st[f].seen;
                sc.st[f].fresh = fresh;
                sc.st[f].seen |= fresh;
                sc.st[f].reach = 0;
                if fresh != 0 {
                    found(f, fresh, level);
                }
            }
            if MASKS {
                for &t in &sc.frontier {
                    let bits = sc.st[t as usize].front;
                    let (links, down) = from(t as usize);
                    for &(x, port) in links {
                        for f in 2 * x as usize..2 * x as usize + 1 + down as usize {
                            let b = bits & sc.st[f].fresh;
                            if T::BYTE {
                                sc.ports[8 * f + port as usize] |= b;
                            } else {
                                let mut b = b;
                                while b != 0 {
                                    let i = b.trailing_zeros() as usize;
                                    b &= b - 1;
                                    let o = &mut sc.acc[64 * f + i];
                                    *o = o.or(T::bit(port));
                                }
                            }
                        }
                    }
                }
            }
            for &t in &sc.frontier {
                sc.st[t as usize].front = 0;
            }
            sc.frontier.clear();
            for &f in &sc.touched {
                let f = f as usize;
                if sc.st[f].fresh != 0 {
                    sc.st[f].front = sc.st[f].fresh;
                    sc.frontier.push(f as u32);
                }
                sc.st[f].fresh = 0;
            }
            sc.touched.clear();
        }
        if !MASKS {
            return;
        }
        if T::BYTE {
            for f in 0..states {
                let w = &mut sc.ports[8 * f..8 * f + 8];
                if w.iter().all(|&x| x == 0) {
                    continue;
                }
                for j in 0..8 {
                    let mut x = 0u64;
                    for (p, &wp) in w.iter().enumerate() {
                        x |= (wp >> (8 * j) & 0xff) << (8 * p);
                    }
                    let y = transpose8(x).to_le_bytes();
                    for (c, &m) in y.iter().enumerate() {
                        sc.acc[64 * f + 8 * j + c] = T::byte(m);
                    }
                }
                w.fill(0);
            }
        }
        // Into the columns, 64 states at a time, leaving `acc` empty.
        for f0 in (0..states).step_by(64) {
            let f1 = states.min(f0 + 64);
            for i in 0..n {
                let col = &mut out[i * states + f0..i * states + f1];
                for (o, f) in col.iter_mut().zip(f0..f1) {
                    *o = std::mem::replace(&mut sc.acc[64 * f + i], T::ZERO);
                }
            }
        }
    }
}

impl RoutingTables {
    /// Builds the tables of `net` with the directions of `ud`.
    pub fn new(net: &Network, ud: &UpDown) -> RoutingTables {
        let s = net.num_switches();
        let inc = Incoming::new(net, ud);
        let mut masks = Masks::new(s * s * 2, net.max_ports());
        masks.fill_groups(2 * s, &inc);
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
            past_ports: BTreeSet::new(),
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
            (x, ph) = self.step(x, d, ph)?;
        }
        None
    }

    /// [`RoutingTables::distance`] from every switch to `d`, starting in
    /// either phase (`[up, down]`, by switch), in time linear in the
    /// switches ([`RouteLengths`]).
    pub fn distances_to(&self, d: u32) -> Vec<[Option<u32>; 2]> {
        let mut w = RouteLengths::new(self);
        let known = |h: u32| (h != RouteLengths::NEVER).then_some(h);
        w.to(d)
            .chunks_exact(2)
            .map(|v| [known(v[0]), known(v[1])])
            .collect()
    }

    /// One step of the tables' route toward `d` from switch `x` in phase
    /// `ph` (by the lowest candidate port): the next switch and its phase,
    /// or `None` where the tables give no legal step.
    fn step(&self, x: u32, d: u32, ph: Phase) -> Option<(u32, Phase)> {
        let p = self.switch_candidates(x, d, ph).iter().next()?;
        let n = self.port_word(x, p);
        RouteLengths::follows(ph == Phase::Down, n)
            .then(|| (n / 2, Phase::from_arrival(n % 2 == 1)))
    }

    /// The ports of switch `x`, as indices into `peer`.
    fn port_range(&self, x: usize) -> std::ops::Range<usize> {
        let ends = self
            .first_port
            .get(x + 1)
            .map_or(self.peer.len(), |&e| e as usize);
        self.first_port[x] as usize..ends
    }

    /// Where port `p` of switch `x` leads: `2 * peer + 1` for a port that
    /// goes down, `2 * peer` for one that goes up, [`RouteLengths::NEVER`]
    /// for an open port or one the switch does not have (an entry
    /// replaced by hand: the switch never grants it).
    fn port_word(&self, x: u32, p: usize) -> u32 {
        let ports = self.port_range(x as usize);
        match ports.clone().nth(p).map(|k| self.peer[k]) {
            Some(y) if y != u32::MAX => 2 * y + u32::from(!self.up_ports[x as usize].contains(p)),
            _ => RouteLengths::NEVER,
        }
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
    /// check the model catches an illegal route. A port the switch does
    /// not have is kept as given: [`RoutingTables::distance`] finds no
    /// route through it, and [`RoutingTables::check_ports`] (which a
    /// simulation's setup calls) refuses the tables. A switch `s` or `d`
    /// the tables do not cover is refused, naming it (it panicked on an
    /// index out of bounds).
    pub fn set_switch_candidates(
        &mut self,
        s: u32,
        d: u32,
        ph: Phase,
        ports: PortMask,
    ) -> Result<()> {
        for (what, x) in [("switch", s), ("destination switch", d)] {
            if x as usize >= self.switches {
                return Err(Error::Config {
                    field: "routing",
                    value: format!("{what} {x}"),
                    reason: format!(
                        "no such switch: the tables cover switches 0 to {}",
                        self.switches - 1
                    ),
                });
            }
        }
        let i = self.at(s, d, ph);
        self.masks.set(i, ports);
        let n = self.port_range(s as usize).len();
        if ports.0.checked_shr(n as u32).is_some_and(|b| b != 0) {
            self.past_ports.insert(i);
        } else {
            self.past_ports.remove(&i);
        }
        Ok(())
    }

    /// Refuses tables, or directions, made for another network than
    /// `net`: other switches, ports, links or node attachments, or other
    /// up*/down* directions than `ud`'s.
    pub fn check_network(&self, net: &Network, ud: &UpDown) -> Result<()> {
        let refuse = |what: &str, reason: String| {
            Err(Error::Config {
                field: "routing",
                value: what.to_string(),
                reason,
            })
        };
        let count = |k: usize, what: &'static str| crate::counted(k as u64, what);
        let s = net.num_switches();
        if ud.num_switches() != s || ud.num_links() != net.links().len() {
            return refuse(
                &format!(
                    "directions of {} and {}",
                    count(ud.num_switches(), "switches"),
                    count(ud.num_links(), "links")
                ),
                format!(
                    "made for another network: this one has {} and {}",
                    count(s, "switches"),
                    count(net.links().len(), "links")
                ),
            );
        }
        if self.switches != s || self.node_at.len() != net.num_nodes() {
            return refuse(
                &format!(
                    "tables of {} and {}",
                    count(self.switches, "switches"),
                    count(self.node_at.len(), "nodes")
                ),
                format!(
                    "made for another network: this one has {} and {}",
                    count(s, "switches"),
                    count(net.num_nodes(), "nodes")
                ),
            );
        }
        for x in 0..s as u32 {
            let ports = self.port_range(x as usize);
            let same = ports.len() == net.num_ports(x) as usize
                && net
                    .ports_of(x)
                    .zip(&self.peer[ports])
                    .all(|((_, c), &y)| match c {
                        PortConn::Link { peer, .. } => peer.switch == y,
                        _ => y == u32::MAX,
                    });
            if !same {
                return refuse(
                    &format!("tables of {}", count(self.switches, "switches")),
                    format!("made for another network: switch {x}'s ports lead elsewhere"),
                );
            }
            if ud.up_ports(x) != self.up_ports[x as usize] {
                return refuse(
                    &format!("tables of {}", count(self.switches, "switches")),
                    format!("made with other up*/down* directions: switch {x}'s up ports differ"),
                );
            }
        }
        for n in 0..net.num_nodes() as u32 {
            let p = net.node_port(n);
            if self.node_at[n as usize] != (p.switch, p.port) {
                return refuse(
                    &format!("tables of {}", count(self.node_at.len(), "nodes")),
                    format!("made for another network: node {n} is attached elsewhere"),
                );
            }
        }
        Ok(())
    }

    /// Refuses tables with an entry that names a port its switch does not
    /// have (one replaced by hand), naming the first such entry: a switch
    /// would wait for that output for ever.
    pub fn check_ports(&self) -> Result<()> {
        let Some(&i) = self.past_ports.first() else {
            return Ok(());
        };
        let (s, d) = (
            (i / 2 % self.switches) as u32,
            (i / 2 / self.switches) as u32,
        );
        let ph = if i % 2 == 0 { "up" } else { "down" };
        let n = self.port_range(s as usize).len();
        let port = (self.masks.get(i).0 >> n).trailing_zeros() as usize + n;
        Err(Error::Config {
            field: "routing",
            value: format!("switch {s}, to switch {d}, phase {ph}"),
            reason: format!(
                "the entry names port {port}, which switch {s} does not have (ports 0 to {})",
                n - 1
            ),
        })
    }
}

/// The length of the shortest legal up*/down* route from every switch, in
/// phase Up, to each of up to 64 destination switches at once: one
/// backward search of the group, the one [`RoutingTables::new`] builds the
/// tables by, without their masks. A table's route takes a candidate one
/// hop nearer at every step, so these are the lengths of the routes of
/// tables as built ([`RouteLengths`] walks the tables' own routes, and
/// must for tables with an entry replaced by hand,
/// [`RoutingTables::set_switch_candidates`]). `wormcast topo show` of
/// 16,384 switches spent most of its time walking routes a destination at
/// a time.
pub(crate) struct UdLengths {
    inc: Incoming,
    switches: usize,
}

impl UdLengths {
    /// The searches of `net` with the directions of `ud`.
    pub(crate) fn new(net: &Network, ud: &UpDown) -> UdLengths {
        UdLengths {
            inc: Incoming::new(net, ud),
            switches: net.num_switches(),
        }
    }

    /// Fills `out` with the lengths to destinations `d0..d0 + n` (`n` at
    /// most 64): entry `j * switches + x` is the length of the route from
    /// switch `x` in phase Up to `d0 + j` (0 at `d0 + j` itself), or
    /// [`RouteLengths::NEVER`] where no legal route joins them.
    pub(crate) fn group(&self, d0: usize, n: usize, out: &mut Vec<u32>) {
        let s = self.switches;
        debug_assert!((1..=64).contains(&n) && d0 + n <= s);
        out.clear();
        out.resize(n * s, RouteLengths::NEVER);
        for j in 0..n {
            out[j * s + d0 + j] = 0;
        }
        let mut sc = Scratch64::<u8>::levels(2 * s);
        self.inc
            .search64::<u8, false>(d0, n, &mut sc, &mut [], |f, fresh, level| {
                if f % 2 == Phase::Up as usize {
                    let x = f / 2;
                    let mut b = fresh;
                    while b != 0 {
                        out[b.trailing_zeros() as usize * s + x] = level;
                        b &= b - 1;
                    }
                }
            });
    }
}

/// The length of the tables' route ([`RoutingTables::distance`]) from every
/// switch, in either phase, to one destination at a time, in time linear in
/// the switches: each route is followed until it meets a switch and phase
/// whose length is known, or itself (a route that never arrives). Walking
/// every pair's route apart made `wormcast topo show` of 16,384 switches
/// run for more than ten minutes.
///
/// A walker keeps its scratch between destinations, and what a step needs
/// of a port (the switch it leads to, the phase a packet arrives there in)
/// in one word, so that a step reads the state's mask, the switch's first
/// port, that word and the state's length, where
/// [`RoutingTables::distance`]'s step also reads the switch's up ports.
/// Clones share the port words and have scratch of their own, so threads
/// walking different destinations each take a clone. The routes of
/// a network of `s` switches take up to `2 s` steps for each of its `s`
/// destinations.
#[derive(Clone)]
pub struct RouteLengths<'a> {
    rt: &'a RoutingTables,
    /// By `first_port[switch] + port`: `2 * peer + 1` for a port that goes
    /// down, `2 * peer` for one that goes up, [`RouteLengths::NEVER`] for
    /// an open port. Built once and shared by the walker's clones.
    next: Arc<[u32]>,
    /// The length of each state's route (`2 * switch + phase`).
    len: Vec<u32>,
    route: Vec<u32>,
}

impl<'a> RouteLengths<'a> {
    /// No route: it ends at an open port or a port a packet may not take,
    /// or goes round in a circle.
    pub const NEVER: u32 = u32::MAX;
    const UNKNOWN: u32 = u32::MAX - 1;
    const ON_ROUTE: u32 = u32::MAX - 2;

    /// Whether a packet at a switch in phase down (`down`) or up may take
    /// a port whose word is `n`: the port leads somewhere, and a packet
    /// that has gone down may not go up.
    fn follows(down: bool, n: u32) -> bool {
        n != Self::NEVER && !(down && n & 1 == 0)
    }

    /// A walker of `rt`'s routes.
    pub fn new(rt: &'a RoutingTables) -> RouteLengths<'a> {
        let next = (0..rt.switches as u32)
            .flat_map(|x| (0..rt.port_range(x as usize).len()).map(move |p| rt.port_word(x, p)))
            .collect();
        RouteLengths {
            rt,
            next,
            len: Vec::new(),
            route: Vec::new(),
        }
    }

    /// The length of the route from each state (`2 * switch + phase`, the
    /// phase `Up` = 0 or `Down` = 1) to switch `d`, or
    /// [`RouteLengths::NEVER`].
    ///
    /// # Panics
    ///
    /// If `d` is not a switch of the tables.
    pub fn to(&mut self, d: u32) -> &[u32] {
        let s = self.rt.switches;
        let states = 2 * s;
        self.len.clear();
        self.len.resize(states, Self::UNKNOWN);
        self.len[2 * d as usize] = 0;
        self.len[2 * d as usize + 1] = 0;
        let col = d as usize * states..(d as usize + 1) * states;
        match &self.rt.masks {
            Masks::B8(v) => self.walk(&v[col]),
            Masks::B16(v) => self.walk(&v[col]),
            Masks::B32(v) => self.walk(&v[col]),
            Masks::B64(v) => self.walk(&v[col]),
        }
        &self.len
    }

    /// Every state's route over `col`, the masks of the destination by
    /// state.
    fn walk<T: Word>(&mut self, col: &[T]) {
        let rt = self.rt;
        let len = &mut self.len[..];
        let route = &mut self.route;
        for start in 0..len.len() {
            let mut i = start;
            let mut end = loop {
                match len[i] {
                    Self::UNKNOWN => {
                        len[i] = Self::ON_ROUTE;
                        route.push(i as u32);
                        let m = col[i].wide();
                        if m == 0 {
                            break Self::NEVER;
                        }
                        let x = i / 2;
                        let p = m.trailing_zeros() as usize;
                        // A port the switch does not have (an entry
                        // replaced by hand) leads nowhere, as an open port.
                        let ports = rt.port_range(x);
                        let n = if p < ports.len() {
                            self.next[ports.start + p]
                        } else {
                            Self::NEVER
                        };
                        if !Self::follows(i % 2 == 1, n) {
                            break Self::NEVER;
                        }
                        i = n as usize;
                    }
                    Self::ON_ROUTE => break Self::NEVER,
                    v => break v,
                }
            };
            while let Some(j) = route.pop() {
                if end != Self::NEVER {
                    end += 1;
                }
                len[j as usize] = end;
            }
        }
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
    fn transpose8_moves_each_bit_across_the_diagonal() {
        for r in 0..8 {
            for c in 0..8 {
                assert_eq!(
                    transpose8(1 << (8 * r + c)),
                    1 << (8 * c + r),
                    "row {r} column {c}"
                );
            }
        }
        let x = 0x0123_4567_89AB_CDEF;
        assert_eq!(transpose8(transpose8(x)), x);
    }

    /// Every switch's distance to every destination in both phases, one
    /// pass a destination, is the route walked pair by pair, and the route
    /// followed over the network's own ports: on generated networks, and
    /// with entries replaced so that routes end nowhere, name a port the
    /// switch does not have or go round in a circle.
    #[test]
    fn distances_by_destination_are_the_routes_walked() {
        // The route followed from the network's own ports: the lowest
        // candidate, a port that leads to another switch, and never up
        // after going down.
        let follow = |n: &Network, rt: &RoutingTables, x: u32, d: u32, ph: Phase| {
            let (mut x, mut ph) = (x, ph);
            for hops in 0..=2 * n.num_switches() as u32 {
                if x == d {
                    return Some(hops);
                }
                let p = rt.switch_candidates(x, d, ph).iter().next()?;
                let (_, PortConn::Link { peer, .. }) = n.ports_of(x).nth(p)? else {
                    return None;
                };
                let up = rt.up_ports(x).contains(p);
                if up && ph == Phase::Down {
                    return None;
                }
                (x, ph) = (peer.switch, Phase::from_arrival(!up));
            }
            None
        };
        let check = |n: &Network, rt: &RoutingTables, s: u32| {
            // One walker for every destination, its scratch reused.
            let mut walker = RouteLengths::new(rt);
            for d in 0..s {
                let all = rt.distances_to(d);
                let lens = walker.to(d);
                for x in 0..s {
                    for ph in [Phase::Up, Phase::Down] {
                        let want = rt.distance(x, d, ph);
                        assert_eq!(want, follow(n, rt, x, d, ph), "{x} to {d} {ph:?}, followed");
                        assert_eq!(all[x as usize][ph as usize], want, "{x} to {d} {ph:?}");
                        let l = lens[2 * x as usize + ph as usize];
                        assert_eq!(
                            (l != RouteLengths::NEVER).then_some(l),
                            want,
                            "{x} to {d} {ph:?}, reused walker"
                        );
                    }
                }
            }
        };
        for (switches, seed) in [(16, 1), (64, 2), (64, 3)] {
            let p = crate::net::IrregularParams {
                switches,
                nodes: switches,
                seed,
                ..Default::default()
            };
            let n = Network::new(&p.generate().unwrap()).unwrap();
            let (_, mut rt) = RoutingTables::for_network(&n);
            check(&n, &rt, switches);
            // Send 5's traffic for 0 out of every port in turn: some
            // routes then turn back up after going down, some end at an
            // open port or loop between two switches.
            let ports = n.ports_of(5).count();
            for p in 0..ports {
                for ph in [Phase::Up, Phase::Down] {
                    rt.set_switch_candidates(5, 0, ph, PortMask::single(p))
                        .unwrap();
                }
                check(&n, &rt, switches);
            }
            // An entry set by hand to a port its switch does not have
            // leads nowhere, as an open port does (the switch never grants
            // it), the last switch's too.
            for x in [0, 7, switches - 1] {
                let ports = n.ports_of(x).count();
                let d = (x + 1) % switches;
                for p in [ports, ports + 3, 63] {
                    let mut e = rt.clone();
                    e.set_switch_candidates(x, d, Phase::Up, PortMask::single(p))
                        .unwrap();
                    assert_eq!(e.distance(x, d, Phase::Up), None, "{x} to {d} by port {p}");
                    assert_eq!(
                        e.distance(x, d, Phase::Down),
                        rt.distance(x, d, Phase::Down)
                    );
                    check(&n, &e, switches);
                }
            }
        }
        // A ring whose route from 1 to 3 is made to circle 1 -> 2 -> 1.
        let n = net(&[
            ((0, 1), (1, 1)),
            ((1, 2), (2, 1)),
            ((2, 2), (3, 1)),
            ((3, 2), (0, 2)),
        ]);
        let (_, mut rt) = RoutingTables::for_network(&n);
        for ph in [Phase::Up, Phase::Down] {
            rt.set_switch_candidates(1, 3, ph, PortMask::single(2))
                .unwrap();
            rt.set_switch_candidates(2, 3, ph, PortMask::single(1))
                .unwrap();
        }
        assert_eq!(rt.distance(1, 3, Phase::Up), None);
        check(&n, &rt, 4);
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
