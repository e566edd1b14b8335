//! Multidestination worms a node sends: what the user asks for, checked and
//! encoded (seed 000 sections 5.2.3 and 5.3.1), and random worms for traffic.

use crate::header::{Formats, Header, Kind, MAX_PAIRS};
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
                    return bad(
                        "a multi-drop worm needs a path (--path), the switches it visits".into(),
                    );
                }
                let switches = net.num_switches();
                for (i, &s) in path.iter().enumerate() {
                    if s as usize >= switches {
                        return bad(format!(
                            "switch {s} on the path (--path) does not exist (the network has \
                             switches 0 to {})",
                            switches - 1
                        ));
                    }
                    if path[..i].contains(&s) {
                        return bad(format!(
                            "switch {s} is twice on the path (--path): a multi-drop worm \
                             visits each switch of its path once"
                        ));
                    }
                }
                if let Some(&d) = dests.iter().find(|&&d| !path.contains(&on(d))) {
                    return bad(format!(
                        "node {d} is on switch {}, which is not on the path (--path)",
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
                self.check_path(src_sw, &[*switch])?;
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
                self.check_path(src_sw, &switches)?;
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
        let mut phases = vec![Phase::Up];
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
            let mut arrive = Vec::new();
            for &ph in &phases {
                self.arrival_phases(at, ph, next, &mut arrive).map_err(|stuck| {
                    Error::BadPacket(format!(
                        "the worm cannot go on from switch {at} to switch {next}: arriving at switch {} \
                         in phase {:?}, no legal up*/down* route leads on",
                        stuck.0, stuck.1
                    ))
                })?;
            }
            phases = arrive;
            at = next;
        }
        Ok(())
    }

    /// The phases a worm leaving `from` in phase `ph` can arrive at `to` in,
    /// following the routing tables; `Err((switch, phase))` where it would
    /// have no route.
    fn arrival_phases(
        &self,
        from: u32,
        ph: Phase,
        to: u32,
        out: &mut Vec<Phase>,
    ) -> std::result::Result<(), (u32, Phase)> {
        let s = self.nodes_of.len();
        let mut seen = vec![false; 2 * s];
        let mut stack = vec![(from, ph)];
        seen[2 * from as usize + ph as usize] = true;
        while let Some((x, p)) = stack.pop() {
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
                if !seen[2 * y as usize + q as usize] {
                    seen[2 * y as usize + q as usize] = true;
                    stack.push((y, q));
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
        let n = self.formats.nodes();
        let others = |rng: &mut Xoshiro256PlusPlus| {
            let d = rng.random_range(0..n - 1);
            if d >= src { d + 1 } else { d }
        };
        let spec = match kind {
            Kind::Unicast => WormSpec::Unicast { dest: others(rng) },
            Kind::BitString => {
                let mut pool = Vec::with_capacity(n as usize);
                pool.extend((0..n).filter(|&x| x != src));
                let k = degree.min(pool.len()).max(1);
                for i in 0..k {
                    let j = rng.random_range(i..pool.len());
                    pool.swap(i, j);
                }
                pool.truncate(k);
                WormSpec::BitString { dests: pool }
            }
            Kind::Ssr => {
                let (sw, _) = self.node_at[others(rng) as usize];
                let mut pool: Vec<u32> = self.nodes_of[sw as usize]
                    .iter()
                    .copied()
                    .filter(|&x| x != src)
                    .collect();
                let k = degree.min(pool.len()).max(1);
                for i in 0..k {
                    let j = rng.random_range(i..pool.len());
                    pool.swap(i, j);
                }
                pool.truncate(k);
                WormSpec::Ssr {
                    switch: sw,
                    dests: pool,
                }
            }
            Kind::MultiDrop => self.random_path(src, degree, rng),
        };
        self.build(src, &spec).expect("random worms are valid")
    }

    /// Switches along one route from `src`'s switch to a random node's
    /// switch, with destinations drawn among their nodes; pairs whose leg
    /// could not be routed are left out.
    fn random_path(&self, src: u32, degree: usize, rng: &mut Xoshiro256PlusPlus) -> WormSpec {
        let n = self.formats.nodes();
        let target = {
            let d = rng.random_range(0..n - 1);
            if d >= src { d + 1 } else { d }
        };
        let (mut at, _) = self.node_at[src as usize];
        let (goal, _) = self.node_at[target as usize];
        let mut route = vec![at];
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
        let mut pool: Vec<u32> = route
            .iter()
            .flat_map(|&s| self.nodes_of[s as usize].iter().copied())
            .filter(|&x| x != src)
            .collect();
        if !pool.contains(&target) {
            pool.push(target);
        }
        let k = degree.min(pool.len()).max(1);
        for i in 0..k {
            let j = rng.random_range(i..pool.len());
            pool.swap(i, j);
        }
        pool.truncate(k);
        let mut path: Vec<(u32, Vec<u32>)> = Vec::new();
        let (src_sw, _) = self.node_at[src as usize];
        for &s in route.iter().take(MAX_PAIRS) {
            let here: Vec<u32> = pool
                .iter()
                .copied()
                .filter(|&x| self.node_at[x as usize].0 == s)
                .collect();
            if here.is_empty() {
                continue;
            }
            let mut switches: Vec<u32> = path.iter().map(|(s, _)| *s).collect();
            switches.push(s);
            if self.check_path(src_sw, &switches).is_ok() {
                path.push((s, here));
            }
        }
        if path.is_empty() {
            let (s, _) = self.node_at[target as usize];
            path.push((s, vec![target]));
        }
        WormSpec::MultiDrop { path }
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
