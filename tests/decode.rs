//! Every decode unit against a plain set-based reference, on random
//! irregular topologies (with same-level and cross-level cross links) and
//! random headers: the same ports to replicate to, the same candidates for
//! the adaptive copy, the same header on every port, the same errors.
//!
//! The reference knows nothing of the crate's routing tables or
//! reachability strings: it walks the network's up*/down* state graph with
//! breadth-first searches for routes, and builds the set of nodes each down
//! port reaches (and the one port responsible for each, seed 000 Fig. 18
//! step 2) with hash sets.

mod common;

use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::collections::{BTreeSet, HashSet, VecDeque};
use wormcast::header::{Formats, Header};
use wormcast::net::{
    IrregularParams, Network, Phase, PortConn, PortMask, Reachability, RoutingTables, UpDown,
};
use wormcast::rtl::BitString;
use wormcast::switch::{DecodeError, DecodeReg, Decoder};

/// What a header asks of one switch: replicated ports, candidates of the
/// adaptive copy, and the header each port's copy carries (`None`: as it
/// arrived).
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    replicate: BTreeSet<usize>,
    choice: BTreeSet<usize>,
    headers: Vec<(usize, Option<Vec<u8>>)>,
}

/// The network seen as sets.
struct Reference<'a> {
    net: &'a Network,
    ud: &'a UpDown,
    formats: Formats,
}

impl Reference<'_> {
    fn is_down(&self, s: u32, p: u32) -> bool {
        !matches!(self.net.conn(s, p), PortConn::Open) && !self.ud.goes_up(s, p)
    }

    /// Legal moves out of (switch, phase) over links: (port, switch, phase).
    fn moves(&self, s: u32, ph: Phase) -> Vec<(u32, u32, Phase)> {
        let mut v = Vec::new();
        for (p, c) in self.net.ports_of(s) {
            if let PortConn::Link { peer, .. } = c {
                let up = self.ud.goes_up(s, p);
                if up && ph == Phase::Down {
                    continue;
                }
                v.push((p, peer.switch, if up { Phase::Up } else { Phase::Down }));
            }
        }
        v
    }

    /// Hops of the shortest legal route from (s, ph) to switch `t`.
    fn dist(&self, s: u32, ph: Phase, t: u32) -> Option<u32> {
        let mut seen = HashSet::from([(s, ph)]);
        let mut q = VecDeque::from([(s, ph, 0u32)]);
        while let Some((x, p, d)) = q.pop_front() {
            if x == t {
                return Some(d);
            }
            for (_, y, r) in self.moves(x, p) {
                if seen.insert((y, r)) {
                    q.push_back((y, r, d + 1));
                }
            }
        }
        None
    }

    /// Ports of `s` on a shortest legal route to switch `t`.
    fn toward(&self, s: u32, ph: Phase, t: u32) -> BTreeSet<usize> {
        let Some(d) = self.dist(s, ph, t) else {
            return BTreeSet::new();
        };
        self.moves(s, ph)
            .into_iter()
            .filter(|&(_, y, r)| self.dist(y, r, t) == Some(d - 1))
            .map(|(p, _, _)| p as usize)
            .collect()
    }

    /// Nodes reached from `s` by down links only.
    fn below(&self, s: u32) -> HashSet<u32> {
        let mut out = HashSet::new();
        for p in 0..self.net.num_ports(s) {
            if self.is_down(s, p) {
                out.extend(self.through(s, p));
            }
        }
        out
    }

    /// Nodes reached through down port `p` of `s` by down links only.
    fn through(&self, s: u32, p: u32) -> HashSet<u32> {
        match self.net.conn(s, p) {
            PortConn::Node(n) => HashSet::from([n]),
            PortConn::Link { peer, .. } => self.below(peer.switch),
            PortConn::Open => HashSet::new(),
        }
    }

    /// The nodes down port `p` of `s` is responsible for: those it reaches
    /// that no higher-numbered down port reaches.
    fn responsible(&self, s: u32, p: u32) -> HashSet<u32> {
        let mut mine = self.through(s, p);
        for q in p + 1..self.net.num_ports(s) {
            if self.is_down(s, q) {
                for n in self.through(s, q) {
                    mine.remove(&n);
                }
            }
        }
        mine
    }

    fn node_ports(&self, s: u32) -> BTreeSet<usize> {
        self.net
            .ports_of(s)
            .filter(|(_, c)| matches!(c, PortConn::Node(_)))
            .map(|(p, _)| p as usize)
            .collect()
    }

    fn to_switch(&self, s: u32, ph: Phase, t: u32) -> Result<BTreeSet<usize>, DecodeError> {
        let c = self.toward(s, ph, t);
        if c.is_empty() {
            return Err(DecodeError::NoRouteToSwitch {
                switch: s,
                target: t,
                phase: ph,
            });
        }
        Ok(c)
    }

    /// The ports of an SSR header (or a multi-drop pair) naming `s` itself.
    fn deliver(&self, s: u32, ports: PortMask) -> Result<BTreeSet<usize>, DecodeError> {
        let set: BTreeSet<usize> = ports.iter().collect();
        if set.is_empty() {
            return Err(DecodeError::NoPorts { switch: s });
        }
        let bad: BTreeSet<usize> = set.difference(&self.node_ports(s)).copied().collect();
        if !bad.is_empty() {
            return Err(DecodeError::NotNodePorts {
                switch: s,
                ports: bad.into_iter().collect(),
            });
        }
        Ok(set)
    }

    fn decide(&self, s: u32, ph: Phase, h: &Header) -> Result<Outcome, DecodeError> {
        let none = BTreeSet::new;
        let same = |ports: &BTreeSet<usize>| ports.iter().map(|&p| (p, None)).collect();
        match h {
            Header::Unicast { dest } => {
                let at = self.net.node_port(*dest);
                let choice = if at.switch == s {
                    BTreeSet::from([at.port as usize])
                } else {
                    self.toward(s, ph, at.switch)
                };
                if choice.is_empty() {
                    return Err(DecodeError::NoRoute {
                        switch: s,
                        node: *dest,
                        phase: ph,
                    });
                }
                Ok(Outcome {
                    headers: same(&choice),
                    replicate: none(),
                    choice,
                })
            }
            Header::Ssr { switch, ports } => {
                if *switch == s {
                    let replicate = self.deliver(s, *ports)?;
                    Ok(Outcome {
                        headers: same(&replicate),
                        replicate,
                        choice: none(),
                    })
                } else {
                    let choice = self.to_switch(s, ph, *switch)?;
                    Ok(Outcome {
                        headers: same(&choice),
                        replicate: none(),
                        choice,
                    })
                }
            }
            Header::MultiDrop { pairs } => {
                let (first, ports) = pairs[0];
                if first != s {
                    let choice = self.to_switch(s, ph, first)?;
                    return Ok(Outcome {
                        headers: same(&choice),
                        replicate: none(),
                        choice,
                    });
                }
                let replicate = self.deliver(s, ports)?;
                let mut headers: Vec<(usize, Option<Vec<u8>>)> = same(&replicate);
                let mut choice = none();
                if let Some(&(next, _)) = pairs.get(1) {
                    if next == s {
                        return Err(DecodeError::RepeatedSwitch { switch: s });
                    }
                    choice = self.to_switch(s, ph, next)?;
                    let mut rest = Vec::new();
                    self.formats
                        .encode(
                            &Header::MultiDrop {
                                pairs: pairs[1..].to_vec(),
                            },
                            &mut rest,
                        )
                        .unwrap();
                    headers.extend(choice.iter().map(|&p| (p, Some(rest.clone()))));
                }
                headers.sort();
                Ok(Outcome {
                    replicate,
                    choice,
                    headers,
                })
            }
            Header::BitString { up, dests } => {
                let d: HashSet<u32> = dests.iter_ones().map(|i| i as u32).collect();
                if d.is_empty() {
                    return Err(DecodeError::NoDestinations);
                }
                let below = self.below(s);
                let missing = d.difference(&below).count();
                if missing > 0 {
                    let ups: BTreeSet<usize> = self.ud.up_ports(s).iter().collect();
                    if *up && !ups.is_empty() {
                        return Ok(Outcome {
                            headers: same(&ups),
                            replicate: none(),
                            choice: ups,
                        });
                    }
                    return Err(DecodeError::Unreachable { dests: missing });
                }
                let mut replicate = BTreeSet::new();
                let mut headers = Vec::new();
                for p in 0..self.net.num_ports(s) {
                    if !self.is_down(s, p) {
                        continue;
                    }
                    let mine: Vec<u32> = self.responsible(s, p).intersection(&d).copied().collect();
                    if mine.is_empty() {
                        continue;
                    }
                    let branch = BitString::from_indices(
                        self.net.num_nodes(),
                        mine.iter().map(|&n| n as usize),
                    );
                    let mut bytes = Vec::new();
                    self.formats
                        .encode(
                            &Header::BitString {
                                up: false,
                                dests: branch,
                            },
                            &mut bytes,
                        )
                        .unwrap();
                    replicate.insert(p as usize);
                    headers.push((p as usize, Some(bytes)));
                }
                Ok(Outcome {
                    replicate,
                    choice: none(),
                    headers,
                })
            }
        }
    }
}

/// The decoders of every switch of `net`.
fn decoders(net: &Network) -> (UpDown, Formats, Vec<Decoder>) {
    let (ud, rt) = RoutingTables::for_network(net);
    let rt = std::sync::Arc::new(rt);
    let formats = Formats::new(
        net.num_nodes() as u32,
        net.num_switches() as u32,
        net.max_ports(),
    );
    let reach = Reachability::new(net, &ud);
    let decs = (0..net.num_switches() as u32)
        .map(|s| Decoder::of_switch(net, &ud, &rt, Some(&reach), formats, s))
        .collect();
    (ud, formats, decs)
}

fn outcome(reg: &DecodeReg, formats: &Formats) -> Outcome {
    let mut headers = Vec::new();
    for p in reg.replicate.iter().chain(reg.choice.iter()) {
        let mut out = Vec::new();
        let changed = reg.header_for(p, formats, &mut out);
        headers.push((p, changed.then_some(out)));
    }
    headers.sort();
    Outcome {
        replicate: reg.replicate.iter().collect(),
        choice: reg.choice.iter().collect(),
        headers,
    }
}

/// A random port string of a `k`-port switch, mostly its node ports.
fn ports(rng: &mut Xoshiro256PlusPlus, net: &Network, s: u32, k: u32) -> PortMask {
    let mut m = PortMask::EMPTY;
    for p in 0..k {
        let odds = if p >= net.num_ports(s) {
            0.01
        } else if matches!(net.conn(s, p), PortConn::Node(_)) {
            0.6
        } else {
            0.03
        };
        if rng.random_bool(odds) {
            m.insert(p as usize);
        }
    }
    m
}

fn random_header(rng: &mut Xoshiro256PlusPlus, net: &Network, f: &Formats) -> Header {
    let n = net.num_nodes() as u32;
    let sws = net.num_switches() as u32;
    let k = f.ports();
    match rng.random_range(0..4) {
        0 => Header::Unicast {
            dest: rng.random_range(0..n),
        },
        1 => {
            let s = rng.random_range(0..sws);
            Header::Ssr {
                switch: s,
                ports: ports(rng, net, s, k),
            }
        }
        2 => {
            let len = rng.random_range(1..=4.min(sws as usize + 1));
            let pairs = (0..len)
                .map(|_| {
                    let s = rng.random_range(0..sws);
                    (s, ports(rng, net, s, k))
                })
                .collect();
            Header::MultiDrop { pairs }
        }
        _ => {
            let density = rng.random_range(0.0..0.5);
            let mut dests = BitString::zeros(n as usize);
            for i in 0..n as usize {
                dests.set(i, rng.random_bool(density));
            }
            Header::BitString {
                up: rng.random_bool(0.7),
                dests,
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn decode_units_agree_with_the_set_reference(
        switches in 2u32..12,
        ports in 4u32..9,
        per_switch in 1u32..4,
        conn in 0.4f64..=1.0,
        topo_seed in any::<u64>(),
        seed in any::<u64>(),
    ) {
        let p = IrregularParams { switches, ports, nodes: switches * per_switch, connectivity: conn, seed: topo_seed };
        let Ok(t) = p.generate() else { return Ok(()) };
        let net = Network::new(&t).unwrap();
        let (ud, formats, decs) = decoders(&net);
        let reference = Reference { net: &net, ud: &ud, formats };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut reg = DecodeReg::new(net.num_nodes(), net.max_ports() as usize);
        for _ in 0..64 {
            let h = random_header(&mut rng, &net, &formats);
            let mut bytes = Vec::new();
            formats.encode(&h, &mut bytes).unwrap();
            let s = rng.random_range(0..switches);
            let ph = if rng.random_bool(0.5) { Phase::Up } else { Phase::Down };
            let want = reference.decide(s, ph, &h);
            let got = decs[s as usize].decode(&bytes, ph, &mut reg).map(|()| outcome(&reg, &formats));
            prop_assert_eq!(&got, &want, "switch {} phase {:?} header {:?}", s, ph, h);
            if let Ok(o) = got {
                // The chunks' reference count is the number of copies.
                prop_assert_eq!(reg.fanout() as usize, o.replicate.len() + usize::from(!o.choice.is_empty()));
            }
        }
    }
}

/// Headers the decoder must refuse, each with the error that names the
/// problem.
#[test]
fn malformed_headers_are_refused_by_name() {
    // Six switches: switch ids take 3 bits, so ids 6 and 7 fit but do not
    // exist.
    let p = IrregularParams {
        switches: 6,
        ports: 6,
        nodes: 12,
        connectivity: 0.8,
        seed: 2,
    };
    let net = Network::new(&p.generate().unwrap()).unwrap();
    let (_, formats, decs) = decoders(&net);
    let mut reg = DecodeReg::new(net.num_nodes(), net.max_ports() as usize);
    let mut err = |bytes: &[u8]| {
        decs[0]
            .decode(bytes, Phase::Up, &mut reg)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(formats.ssr_len(), 2);
    assert_eq!(
        err(&[0x87, 0x01]),
        "switch 7 does not exist (switches 0 to 5)"
    );
    assert_eq!(
        err(&[0xa0]),
        "multi-drop header with no (switch, ports) pair"
    );
    let mut b = vec![0u8; formats.bitstring_len()];
    formats.write_bitstring(true, &BitString::zeros(12), &mut b);
    assert_eq!(err(&b), "bit-string header with no destination");
    // Node 12's bit: bit 4 of the first (most significant) destination
    // byte.
    b[1] = 0x10;
    assert_eq!(
        err(&b),
        "destination node 12 does not exist (the network has nodes 0 to 11)"
    );
    // Port 1 of switch 0 is not a node port (node 0 is on port 0).
    let e = err(&[0x80, 0x02]);
    assert!(e.contains("do not lead to nodes"), "{e}");
}
