//! Multidestination worms a node sends: what the user asks for, checked and
//! encoded (seed 000 sections 5.2.3 and 5.3.1), and random worms for traffic.

use crate::header::{Formats, Header, Kind, MAX_PAIRS};
use crate::marks::Marks;
use crate::net::{Network, Phase, PortConn, RoutingTables};
use crate::rtl::{BitString, PortMask};
use crate::{Error, Result};
use rand::RngExt;
use rand::rngs::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A worm a node can send.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum WormSpec {
    /// One destination, with a unicast header.
    Unicast {
        /// The destination node.
        dest: u32,
    },
    /// Single switch replication: destinations all on one switch.
    Ssr {
        /// The switch.
        switch: u32,
        /// Destination nodes on it.
        dests: Vec<u32>,
    },
    /// Path-based multi-drop: switches of a path in the order the worm
    /// visits them, each with destination nodes on it.
    MultiDrop {
        /// (switch, destination nodes on it) pairs, in order.
        path: Vec<(u32, Vec<u32>)>,
    },
    /// Bit-string: any set of destinations.
    BitString {
        /// Destination nodes.
        dests: Vec<u32>,
    },
}

impl WormSpec {
    /// The worm of `kind` (`unicast`, `ssr`, `multi-drop` or `bit-string`)
    /// to `dests` on `net`, as a user asks for it: an SSR worm replicates
    /// at the switch of its first destination; a multi-drop worm visits the
    /// switches of `path` in order, dropping at each the destinations on
    /// it (every destination must be on a switch of the path). Refused
    /// with what is wrong: no destination, a node that does not exist, a
    /// unicast worm to several nodes, a multi-drop worm without a path,
    /// with a destination off it, or with a path naming a switch that does
    /// not exist or one switch twice, an unknown kind.
    pub fn from_request(
        net: &Network,
        kind: &str,
        dests: &[u32],
        path: &[u32],
    ) -> Result<WormSpec> {
        let bad = |m: String| Err(Error::BadPacket(m));
        if dests.is_empty() {
            return bad("a worm needs at least one destination".into());
        }
        for &d in dests {
            if d as usize >= net.num_nodes() {
                return Err(Error::UnknownNode {
                    node: d as u64,
                    nodes: net.num_nodes() as u32,
                });
            }
        }
        let on = |d: u32| net.node_port(d).switch;
        Ok(match kind {
            "unicast" => {
                if dests.len() != 1 {
                    return bad(format!(
                        "a unicast worm has one destination, not {}",
                        dests.len()
                    ));
                }
                WormSpec::Unicast { dest: dests[0] }
            }
            "ssr" => WormSpec::Ssr {
                switch: on(dests[0]),
                dests: dests.to_vec(),
            },
            "bit-string" => WormSpec::BitString {
                dests: dests.to_vec(),
            },
            "multi-drop" => {
                if path.is_empty() {
                    return bad("a multi-drop worm needs a path, the switches it visits".into());
                }
                let switches = net.num_switches();
                for (i, &s) in path.iter().enumerate() {
                    if s as usize >= switches {
                        return bad(format!(
                            "switch {s} on the path does not exist (the network has \
                             switches 0 to {})",
                            switches - 1
                        ));
                    }
                    if path[..i].contains(&s) {
                        return bad(format!(
                            "switch {s} is twice on the path: a multi-drop worm \
                             visits each switch of its path once"
                        ));
                    }
                }
                if let Some(&d) = dests.iter().find(|&&d| !path.contains(&on(d))) {
                    return bad(format!(
                        "node {d} is on switch {}, which is not on the path",
                        on(d)
                    ));
                }
                let path = path
                    .iter()
                    .map(|&s| {
                        (
                            s,
                            dests
                                .iter()
                                .copied()
                                .filter(|&d| on(d) == s)
                                .collect::<Vec<_>>(),
                        )
                    })
                    .filter(|(_, d)| !d.is_empty())
                    .collect();
                WormSpec::MultiDrop { path }
            }
            other => {
                return bad(format!(
                    "no worm kind `{other}`; the kinds are unicast, ssr, multi-drop, bit-string"
                ));
            }
        })
    }

    /// Number of destinations.
    pub fn dests(&self) -> usize {
        match self {
            WormSpec::Unicast { .. } => 1,
            WormSpec::Ssr { dests, .. } | WormSpec::BitString { dests } => dests.len(),
            WormSpec::MultiDrop { path } => path.iter().map(|(_, d)| d.len()).sum(),
        }
    }
}

/// A worm checked and encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worm {
    /// Its encoding.
    pub kind: Kind,
    /// Its header flits.
    pub header: Vec<u8>,
    /// Its destinations.
    pub dests: BitString,
}

impl Default for Worm {
    /// An empty worm (a unicast kind, no header flits, a destination
    /// string of no nodes), to be filled by [`WormBuilder::random_into`].
    fn default() -> Self {
        Worm {
            kind: Kind::Unicast,
            header: Vec::new(),
            dests: BitString::zeros(0),
        }
    }
}

/// The memory a node keeps for drawing random worms
/// ([`WormBuilder::random_into`]): the pool destinations are drawn from,
/// the route a multi-drop worm follows, its (switch, ports) pairs and the
/// search that checks its path leg by leg. Reused worm after worm, so
/// that drawing a worm allocates nothing once these have grown to the
/// most a worm needs.
#[derive(Clone, Debug, Default)]
pub struct WormScratch {
    pool: Vec<u32>,
    route: Vec<u32>,
    pairs: Vec<(u32, PortMask)>,
    phases: Vec<Phase>,
    arrive: Vec<Phase>,
    search: Search,
}

/// A depth-first search over (switch, phase) states, whose marks are
/// stamps ([`Marks`]).
#[derive(Clone, Debug, Default)]
struct Search {
    /// Per state (`2 * switch + phase`): whether this search reached it.
    seen: Marks,
    stack: Vec<(u32, Phase)>,
}

impl Search {
    /// Starts a search over `states` states: none is reached yet.
    fn begin(&mut self, states: usize) {
        self.seen.begin(states);
        self.stack.clear();
    }

    /// Marks `state` reached; false if it was already.
    fn reach(&mut self, state: usize) -> bool {
        self.seen.mark(state)
    }
}

/// Keeps the first `degree` (at least 1, at most all) of `pool` after
/// moving a uniformly drawn one into each place in turn (a partial
/// Fisher-Yates shuffle): `degree` distinct members in random order.
fn draw(pool: &mut Vec<u32>, degree: usize, rng: &mut Xoshiro256PlusPlus) {
    let k = degree.min(pool.len()).max(1);
    for i in 0..k {
        let j = rng.random_range(i..pool.len());
        pool.swap(i, j);
    }
    pool.truncate(k);
}

/// Checks and encodes worms for one network.
#[derive(Clone, Debug)]
pub struct WormBuilder {
    formats: Formats,
    /// (switch, port) of every node.
    node_at: Vec<(u32, u32)>,
    /// Nodes of every switch, in port order.
    nodes_of: Vec<Vec<u32>>,
    /// Per switch, per port: the switch at the other end of a link.
    peer: Vec<Vec<Option<u32>>>,
    routes: Arc<RoutingTables>,
}

impl WormBuilder {
    /// The builder for `net`, whose routing tables are `routes`.
    pub fn new(net: &Network, routes: Arc<RoutingTables>, formats: Formats) -> Self {
        let s = net.num_switches() as u32;
        WormBuilder {
            formats,
            node_at: (0..net.num_nodes() as u32)
                .map(|n| {
                    let p = net.node_port(n);
                    (p.switch, p.port)
                })
                .collect(),
            nodes_of: (0..s).map(|x| net.nodes_of(x)).collect(),
            peer: (0..s)
                .map(|x| {
                    net.ports_of(x)
                        .map(|(_, c)| match c {
                            PortConn::Link { peer, .. } => Some(peer.switch),
                            _ => None,
                        })
                        .collect()
                })
                .collect(),
            routes,
        }
    }

    /// The header encodings.
    pub fn formats(&self) -> Formats {
        self.formats
    }

    fn node(&self, n: u32) -> Result<(u32, u32)> {
        self.node_at
            .get(n as usize)
            .copied()
            .ok_or(Error::UnknownNode {
                node: n as u64,
                nodes: self.formats.nodes(),
            })
    }

    /// The port string of `dests`, which must all be on switch `s`.
    fn ports_on(&self, s: u32, dests: &[u32]) -> Result<PortMask> {
        if dests.is_empty() {
            return Err(Error::BadPacket(format!(
                "no destination given on switch {s}"
            )));
        }
        let mut m = PortMask::EMPTY;
        for &d in dests {
            let (ds, dp) = self.node(d)?;
            if ds != s {
                return Err(Error::BadPacket(format!(
                    "node {d} is on switch {ds}, not on switch {s}"
                )));
            }
            m.insert(dp as usize);
        }
        Ok(m)
    }

    fn switch(&self, s: u32) -> Result<u32> {
        if s as usize >= self.nodes_of.len() {
            return Err(Error::BadPacket(format!(
                "switch {s} does not exist (switches 0 to {})",
                self.nodes_of.len().saturating_sub(1)
            )));
        }
        Ok(s)
    }

    /// Checks `spec` for a worm sent by node `src` and encodes it.
    pub fn build(&self, src: u32, spec: &WormSpec) -> Result<Worm> {
        self.build_in(src, spec, &mut WormScratch::default())
    }

    /// As [`build`](Self::build), with the path check's marks in
    /// `scratch`: a caller that builds worm after worm keeps one, so that
    /// no check sets out a mark per switch again.
    pub fn build_in(&self, src: u32, spec: &WormSpec, scratch: &mut WormScratch) -> Result<Worm> {
        let (src_sw, _) = self.node(src)?;
        let listed: Vec<u32> = match spec {
            WormSpec::Unicast { dest } => vec![*dest],
            WormSpec::Ssr { dests, .. } | WormSpec::BitString { dests } => dests.clone(),
            WormSpec::MultiDrop { path } => {
                path.iter().flat_map(|(_, d)| d.iter().copied()).collect()
            }
        };
        crate::dests::check(self.formats.nodes(), src, &listed)?;
        let n = self.formats.nodes() as usize;
        let mut dests = BitString::zeros(n);
        let header = match spec {
            WormSpec::Unicast { dest } => {
                self.node(*dest)?;
                dests.set(*dest as usize, true);
                Header::Unicast { dest: *dest }
            }
            WormSpec::Ssr { switch, dests: d } => {
                let ports = self.ports_on(self.switch(*switch)?, d)?;
                d.iter().for_each(|&x| dests.set(x as usize, true));
                self.check_path_in(src_sw, &[*switch], scratch)?;
                Header::Ssr {
                    switch: *switch,
                    ports,
                }
            }
            WormSpec::MultiDrop { path } => {
                if path.is_empty() || path.len() > MAX_PAIRS {
                    return Err(Error::BadPacket(format!(
                        "a multi-drop worm visits 1 to {MAX_PAIRS} switches with destinations, not {}",
                        path.len()
                    )));
                }
                let mut pairs = Vec::with_capacity(path.len());
                for (s, d) in path {
                    pairs.push((*s, self.ports_on(self.switch(*s)?, d)?));
                    d.iter().for_each(|&x| dests.set(x as usize, true));
                }
                let switches: Vec<u32> = path.iter().map(|(s, _)| *s).collect();
                self.check_path_in(src_sw, &switches, scratch)?;
                Header::MultiDrop { pairs }
            }
            WormSpec::BitString { dests: d } => {
                // Checked above: some, all exist, none twice.
                for &x in d {
                    dests.set(x as usize, true);
                }
                Header::BitString {
                    up: true,
                    dests: dests.clone(),
                }
            }
        };
        let mut bytes = Vec::new();
        self.formats.encode(&header, &mut bytes)?;
        Ok(Worm {
            kind: header_kind(&header),
            header: bytes,
            dests,
        })
    }

    /// Checks that a worm entering switch `start` from a node can be routed
    /// through `switches` in order, whatever phase it arrives at each in:
    /// from every phase it may reach a switch in, the switch's routing
    /// tables must lead on to the next one (as the decode units will route
    /// it, adaptively among minimal legal routes).
    pub fn check_path(&self, start: u32, switches: &[u32]) -> Result<()> {
        self.check_path_in(start, switches, &mut WormScratch::default())
    }

    /// As [`check_path`](Self::check_path), with its marks in `scratch`.
    pub fn check_path_in(
        &self,
        start: u32,
        switches: &[u32],
        scratch: &mut WormScratch,
    ) -> Result<()> {
        let WormScratch {
            phases,
            arrive,
            search,
            ..
        } = scratch;
        phases.clear();
        phases.push(Phase::Up);
        let mut at = start;
        for (i, &next) in switches.iter().enumerate() {
            if next == at {
                if i == 0 {
                    continue;
                }
                return Err(Error::BadPacket(format!(
                    "the worm's path names switch {next} twice in a row"
                )));
            }
            self.leg(at, phases, next, arrive, search)
                .map_err(|stuck| {
                    Error::BadPacket(format!(
                        "the worm cannot go on from switch {at} to switch {next}: arriving at switch {} \
                         in phase {:?}, no legal up*/down* route leads on",
                        stuck.0, stuck.1
                    ))
                })?;
            std::mem::swap(phases, arrive);
            at = next;
        }
        Ok(())
    }

    /// One leg of a path: into `arrive` (cleared first), the phases a worm
    /// that left `from` in any of `phases` can arrive at `to` in;
    /// `Err((switch, phase))` at the first state, in the order searched,
    /// with no route on.
    fn leg(
        &self,
        from: u32,
        phases: &[Phase],
        to: u32,
        arrive: &mut Vec<Phase>,
        search: &mut Search,
    ) -> std::result::Result<(), (u32, Phase)> {
        arrive.clear();
        for &ph in phases {
            self.arrival_phases(from, ph, to, arrive, search)?;
        }
        Ok(())
    }

    /// The phases a worm leaving `from` in phase `ph` can arrive at `to` in,
    /// following the routing tables, added to `out`; `Err((switch, phase))`
    /// where it would have no route.
    fn arrival_phases(
        &self,
        from: u32,
        ph: Phase,
        to: u32,
        out: &mut Vec<Phase>,
        search: &mut Search,
    ) -> std::result::Result<(), (u32, Phase)> {
        search.begin(2 * self.nodes_of.len());
        search.reach(2 * from as usize + ph as usize);
        search.stack.push((from, ph));
        while let Some((x, p)) = search.stack.pop() {
            if x == to {
                if !out.contains(&p) {
                    out.push(p);
                }
                continue;
            }
            let c = self.routes.switch_candidates(x, to, p);
            if c.is_empty() {
                return Err((x, p));
            }
            for port in c.iter() {
                let y = self.peer[x as usize][port].expect("candidates are links");
                let q = if self.routes.up_ports(x).contains(port) {
                    Phase::Up
                } else {
                    Phase::Down
                };
                if search.reach(2 * y as usize + q as usize) {
                    search.stack.push((y, q));
                }
            }
        }
        Ok(())
    }

    /// A random worm of `kind` from `src` to about `degree` destinations
    /// other than `src` (SSR: on one switch; multi-drop: on switches along
    /// one route, as many as that route offers).
    pub fn random(
        &self,
        kind: Kind,
        src: u32,
        degree: usize,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Worm {
        let mut worm = Worm::default();
        self.random_into(
            kind,
            src,
            degree,
            rng,
            &mut WormScratch::default(),
            &mut worm,
        );
        worm
    }

    /// Draws the worm [`random`](Self::random) draws (the same draws from
    /// `rng`, the same worm) into `worm`, reusing its header's and
    /// destinations' memory and `scratch`'s: once they have grown, drawing
    /// a worm allocates nothing. A random worm is valid by construction
    /// (its destinations exist, differ and exclude `src`; a multi-drop
    /// worm's path is checked leg by leg as it is drawn), so it is not
    /// checked again as a worm a user asks for is ([`build`](Self::build)).
    /// The tests hold it, worm after worm on random networks, to the worm
    /// `build` makes of the drawing as first written.
    pub fn random_into(
        &self,
        kind: Kind,
        src: u32,
        degree: usize,
        rng: &mut Xoshiro256PlusPlus,
        scratch: &mut WormScratch,
        worm: &mut Worm,
    ) {
        let n = self.formats.nodes();
        if worm.dests.len() == n as usize {
            worm.dests.clear();
        } else {
            worm.dests = BitString::zeros(n as usize);
        }
        let others = |rng: &mut Xoshiro256PlusPlus| {
            let d = rng.random_range(0..n - 1);
            if d >= src { d + 1 } else { d }
        };
        let pool = &mut scratch.pool;
        let header = match kind {
            Kind::Unicast => {
                let dest = others(rng);
                worm.dests.set(dest as usize, true);
                Header::Unicast { dest }
            }
            Kind::BitString => {
                pool.clear();
                pool.extend((0..n).filter(|&x| x != src));
                draw(pool, degree, rng);
                for &x in pool.iter() {
                    worm.dests.set(x as usize, true);
                }
                // The header takes the string for its encoding and gives it
                // back below: no copy.
                Header::BitString {
                    up: true,
                    dests: std::mem::replace(&mut worm.dests, BitString::zeros(0)),
                }
            }
            Kind::Ssr => {
                let (switch, _) = self.node_at[others(rng) as usize];
                pool.clear();
                pool.extend(
                    self.nodes_of[switch as usize]
                        .iter()
                        .copied()
                        .filter(|&x| x != src),
                );
                draw(pool, degree, rng);
                let mut ports = PortMask::EMPTY;
                for &x in pool.iter() {
                    worm.dests.set(x as usize, true);
                    ports.insert(self.node_at[x as usize].1 as usize);
                }
                Header::Ssr { switch, ports }
            }
            Kind::MultiDrop => {
                self.random_path(src, degree, rng, scratch, &mut worm.dests);
                Header::MultiDrop {
                    pairs: std::mem::take(&mut scratch.pairs),
                }
            }
        };
        self.formats
            .encode(&header, &mut worm.header)
            .expect("a random worm's header fits its network's formats");
        worm.kind = kind;
        match header {
            Header::BitString { dests, .. } => worm.dests = dests,
            Header::MultiDrop { pairs } => scratch.pairs = pairs,
            Header::Unicast { .. } | Header::Ssr { .. } => {}
        }
    }

    /// Into `route` (cleared first), the switches from `from` to `goal`
    /// along the route that takes the first candidate port at each.
    fn route(&self, from: u32, goal: u32, route: &mut Vec<u32>) {
        let mut at = from;
        route.clear();
        route.push(at);
        let mut ph = Phase::Up;
        while at != goal {
            let port = self
                .routes
                .switch_candidates(at, goal, ph)
                .iter()
                .next()
                .expect("route exists");
            ph = if self.routes.up_ports(at).contains(port) {
                Phase::Up
            } else {
                Phase::Down
            };
            at = self.peer[at as usize][port].expect("candidates are links");
            route.push(at);
        }
    }

    /// Switches along one route from `src`'s switch to a random node's
    /// switch, with destinations drawn among their nodes, into
    /// `scratch.pairs` and `dests`; pairs whose leg could not be routed
    /// are left out.
    fn random_path(
        &self,
        src: u32,
        degree: usize,
        rng: &mut Xoshiro256PlusPlus,
        s: &mut WormScratch,
        dests: &mut BitString,
    ) {
        let n = self.formats.nodes();
        let target = {
            let d = rng.random_range(0..n - 1);
            if d >= src { d + 1 } else { d }
        };
        let (src_sw, _) = self.node_at[src as usize];
        let (goal, _) = self.node_at[target as usize];
        self.route(src_sw, goal, &mut s.route);
        s.pool.clear();
        for &sw in &s.route {
            s.pool.extend(
                self.nodes_of[sw as usize]
                    .iter()
                    .copied()
                    .filter(|&x| x != src),
            );
        }
        if !s.pool.contains(&target) {
            s.pool.push(target);
        }
        draw(&mut s.pool, degree, rng);
        // The path is checked as it grows, one leg from its last switch
        // (the source's switch at first) to the next: a switch is kept if
        // the worm, in any phase it may reach the last switch in, can go
        // on to it (`check_path` of the path so far and the switch).
        s.pairs.clear();
        s.phases.clear();
        s.phases.push(Phase::Up);
        let mut last = src_sw;
        for &sw in s.route.iter().take(MAX_PAIRS) {
            let mut ports = PortMask::EMPTY;
            for &x in &s.pool {
                let (xs, xp) = self.node_at[x as usize];
                if xs == sw {
                    ports.insert(xp as usize);
                }
            }
            if ports.is_empty() {
                continue;
            }
            // A worm that drops first at its source's switch starts there.
            let first_at_start = sw == last && s.pairs.is_empty();
            if !first_at_start {
                if self
                    .leg(last, &s.phases, sw, &mut s.arrive, &mut s.search)
                    .is_err()
                {
                    continue;
                }
                std::mem::swap(&mut s.phases, &mut s.arrive);
                last = sw;
            }
            s.pairs.push((sw, ports));
            for &x in &s.pool {
                if self.node_at[x as usize].0 == sw {
                    dests.set(x as usize, true);
                }
            }
        }
        if s.pairs.is_empty() {
            let (ts, tp) = self.node_at[target as usize];
            s.pairs.push((ts, PortMask::single(tp as usize)));
            dests.set(target as usize, true);
        }
    }
}

fn header_kind(h: &Header) -> Kind {
    match h {
        Header::Unicast { .. } => Kind::Unicast,
        Header::Ssr { .. } => Kind::Ssr,
        Header::MultiDrop { .. } => Kind::MultiDrop,
        Header::BitString { .. } => Kind::BitString,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::IrregularParams;
    use proptest::prelude::*;
    use rand::SeedableRng;

    /// The drawing as first written, each worm made as a request and
    /// checked by `build` (a multi-drop path checked whole at each switch
    /// it may take): the reference `random_into` must match draw for draw.
    fn reference(
        b: &WormBuilder,
        kind: Kind,
        src: u32,
        degree: usize,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Worm {
        let n = b.formats.nodes();
        let others = |rng: &mut Xoshiro256PlusPlus| {
            let d = rng.random_range(0..n - 1);
            if d >= src { d + 1 } else { d }
        };
        let spec = match kind {
            Kind::Unicast => WormSpec::Unicast { dest: others(rng) },
            Kind::BitString => {
                let mut pool: Vec<u32> = (0..n).filter(|&x| x != src).collect();
                draw(&mut pool, degree, rng);
                WormSpec::BitString { dests: pool }
            }
            Kind::Ssr => {
                let (sw, _) = b.node_at[others(rng) as usize];
                let mut pool: Vec<u32> = b.nodes_of[sw as usize]
                    .iter()
                    .copied()
                    .filter(|&x| x != src)
                    .collect();
                draw(&mut pool, degree, rng);
                WormSpec::Ssr {
                    switch: sw,
                    dests: pool,
                }
            }
            Kind::MultiDrop => {
                let target = others(rng);
                let mut route = Vec::new();
                b.route(
                    b.node_at[src as usize].0,
                    b.node_at[target as usize].0,
                    &mut route,
                );
                let mut pool: Vec<u32> = route
                    .iter()
                    .flat_map(|&s| b.nodes_of[s as usize].iter().copied())
                    .filter(|&x| x != src)
                    .collect();
                if !pool.contains(&target) {
                    pool.push(target);
                }
                draw(&mut pool, degree, rng);
                let (src_sw, _) = b.node_at[src as usize];
                let mut path: Vec<(u32, Vec<u32>)> = Vec::new();
                for &s in route.iter().take(MAX_PAIRS) {
                    let here: Vec<u32> = pool
                        .iter()
                        .copied()
                        .filter(|&x| b.node_at[x as usize].0 == s)
                        .collect();
                    if here.is_empty() {
                        continue;
                    }
                    let mut switches: Vec<u32> = path.iter().map(|(s, _)| *s).collect();
                    switches.push(s);
                    if b.check_path(src_sw, &switches).is_ok() {
                        path.push((s, here));
                    }
                }
                if path.is_empty() {
                    path.push((b.node_at[target as usize].0, vec![target]));
                }
                WormSpec::MultiDrop { path }
            }
        };
        b.build(src, &spec).expect("random worms are valid")
    }

    fn builder(params: &IrregularParams) -> Option<WormBuilder> {
        let net = Network::new(&params.generate().ok()?).ok()?;
        let (_, routes) = RoutingTables::for_network(&net);
        let formats = Formats::new(
            net.num_nodes() as u32,
            net.num_switches() as u32,
            net.max_ports(),
        );
        Some(WormBuilder::new(&net, Arc::new(routes), formats))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// On random irregular networks, worm after worm through one
        /// scratch and one reused worm: `random_into` draws what the
        /// reference draws, the same worm from the same draws of the
        /// generator (left in the same state).
        #[test]
        fn drawn_into_reused_memory_as_the_reference_draws(
            switches in 2u32..40,
            ports in 4u32..10,
            per in 1u32..4,
            seed in any::<u64>(),
            kinds in proptest::collection::vec((0usize..4, 1usize..12), 1..24),
        ) {
            let params = IrregularParams {
                switches,
                ports,
                nodes: switches * per.min(ports - 2),
                connectivity: 0.8,
                seed,
            };
            let Some(b) = builder(&params) else { return Ok(()) };
            let n = b.formats().nodes();
            prop_assume!(n >= 2);
            let mut scratch = WormScratch::default();
            let mut worm = Worm::default();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut ref_rng = rng.clone();
            for (i, &(k, degree)) in kinds.iter().enumerate() {
                let kind = [Kind::Unicast, Kind::BitString, Kind::Ssr, Kind::MultiDrop][k];
                let src = (i as u32 * 7 + seed as u32) % n;
                b.random_into(kind, src, degree, &mut rng, &mut scratch, &mut worm);
                let want = reference(&b, kind, src, degree, &mut ref_rng);
                prop_assert_eq!(&worm, &want, "worm {} ({:?} from {}, degree {})", i, kind, src, degree);
                prop_assert_eq!(rng.clone().random::<u64>(), ref_rng.clone().random::<u64>());
            }
        }
    }
}
