//! The bit-string decode unit as a clocked twin of
//! `hdl_tests/rtl/bitstring_decode.v` (seed 000 section 5.3.3).
//!
//! Ports (`N` nodes, `P` ports):
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `rst` | in | 1 | synchronous reset: every output 0 |
//! | `hdr_valid` | in | 1 | a header is presented |
//! | `ud_in` | in | 1 | its up-down bit |
//! | `dests` | in | N | its destination string |
//! | `total` | in | N | the switch's total reachability string |
//! | `restricted` | in | P*N | port `q`'s restricted string in bits `q*N ..` (used as given for every port; a consistent table has 0 for the ports that go up) |
//! | `up_ports` | in | P | ports whose links go up |
//! | `valid` | out | 1 | `hdr_valid` of the edge (set also when `err` is) |
//! | `err` | out | 2 | 0 decoded; 1 no destination; 2 a destination the switch cannot reach going down (with the up-down bit clear, or no up port) |
//! | `ud_out` | out | 1 | up-down bit of the copies |
//! | `replicate` | out | P | ports the worm is replicated to |
//! | `choice` | out | P | the up ports it may take (the whole `up_ports` mask) |
//! | `hdr_out` | out | P*N | port `q`'s header string in bits `q*N ..` (0 for ports not in `replicate`) |
//!
//! Every output is registered at every edge from the inputs sampled at it,
//! whether or not `hdr_valid` is set; with `err` set the others but `valid`
//! are 0. Destinations that no restricted string holds are dropped without
//! an error. docs/cosim.md gives the whole contract.

use super::{Port, Twin, Unit, input, output, zero_outputs};
use crate::net::{IrregularParams, Network, Reachability, UpDown};
use crate::rtl::{BitString, PortMask};
use crate::switch::decode::DecodeError;
use crate::switch::decode::bitstring::BitStringUnit;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// The twin.
pub struct BitStringTwin {
    n: usize,
    p: usize,
    ports: Vec<Port>,
    branch: Vec<BitString>,
    /// The unit built from the last edge's `total`, `restricted` and
    /// `up_ports` (the switch's configuration, which rarely changes), kept
    /// with those inputs so the next edge rebuilds it only when they do.
    unit: Option<(BitString, BitString, u64, BitStringUnit)>,
}

impl BitStringTwin {
    /// A unit for `nodes` nodes and `ports` ports.
    pub fn new(nodes: u32, ports: u32) -> Self {
        let (n, p) = (nodes, ports);
        BitStringTwin {
            n: n as usize,
            p: p as usize,
            ports: vec![
                input("rst", 1),
                input("hdr_valid", 1),
                input("ud_in", 1),
                input("dests", n),
                input("total", n),
                input("restricted", p * n),
                input("up_ports", p),
                output("valid", 1),
                output("err", 2),
                output("ud_out", 1),
                output("replicate", p),
                output("choice", p),
                output("hdr_out", p * n),
            ],
            branch: vec![BitString::zeros(n as usize); p as usize],
            unit: None,
        }
    }
}

impl Twin for BitStringTwin {
    fn unit(&self) -> Unit {
        Unit::BitStringDecode
    }

    fn ports(&self) -> &[Port] {
        &self.ports
    }

    fn edge(&mut self, i: &[BitString], o: &mut [BitString]) {
        let (n, p) = (self.n, self.p);
        zero_outputs(&self.ports, o);
        if i[0].get(0) {
            return;
        }
        o[0].set(0, i[1].get(0));
        let up = i[6].field(0, p);
        let same = matches!(&self.unit,
            Some((t, r, u, _)) if *u == up && t == &i[4] && r == &i[5]);
        if !same {
            let restricted = (0..p).map(|q| Some(i[5].slice(q * n, n))).collect();
            let unit = BitStringUnit::new(i[4].clone(), restricted, PortMask(up));
            self.unit = Some((i[4].clone(), i[5].clone(), up, unit));
        }
        let (.., unit) = self.unit.as_ref().expect("built above");
        match unit.step(&i[3], i[2].get(0), &mut self.branch) {
            Ok(s) => {
                o[2].set(0, s.ud_out);
                o[3].set_field(0, p, s.ports.0);
                o[4].set_field(0, p, s.up.0);
                for q in s.ports.iter() {
                    o[5].set_slice(q * n, &self.branch[q]);
                }
            }
            Err(DecodeError::NoDestinations) => o[1].set_field(0, 2, 1),
            Err(_) => o[1].set_field(0, 2, 2),
        }
    }
}

/// The strings of one switch of a random network.
struct Context {
    total: BitString,
    restricted: BitString,
    up_ports: u64,
}

fn context(n: u32, p: u32, rng: &mut Xoshiro256PlusPlus, want_same_level: bool) -> Context {
    for _ in 0..200 {
        let switches = rng.random_range(2..=n.clamp(2, 12));
        let params = IrregularParams {
            switches,
            ports: p,
            nodes: n,
            connectivity: rng.random_range(0.5..=1.0),
            seed: rng.random(),
        };
        let Ok(t) = params.generate() else { continue };
        let Ok(net) = Network::new(&t) else { continue };
        let ud = UpDown::new(&net);
        let reach = Reachability::new(&net, &ud);
        // A switch with a same-level down link, if asked and there is one.
        let pick = (0..switches).filter(|&s| {
            net.ports_of(s).any(|(q, c)| {
                matches!(c, crate::net::PortConn::Link { peer, .. }
                    if !ud.goes_up(s, q) && ud.level(peer.switch) == ud.level(s))
            })
        });
        let candidates: Vec<u32> = pick.collect();
        let s = if want_same_level {
            match candidates.first() {
                Some(_) => candidates[rng.random_range(0..candidates.len())],
                None => continue,
            }
        } else {
            rng.random_range(0..switches)
        };
        let mut restricted = BitString::zeros((p * n) as usize);
        for (q, r) in reach.down_ports(s) {
            restricted.set_slice(q as usize * n as usize, r);
        }
        return Context {
            total: reach.total(s).clone(),
            restricted,
            up_ports: ud.up_ports(s).0,
        };
    }
    // Sizes no random network fits: arbitrary strings.
    random_context(n, p, rng)
}

fn random_bits(len: usize, density: f64, rng: &mut Xoshiro256PlusPlus) -> BitString {
    let mut b = BitString::zeros(len);
    for i in 0..len {
        b.set(i, rng.random_bool(density));
    }
    b
}

fn random_context(n: u32, p: u32, rng: &mut Xoshiro256PlusPlus) -> Context {
    Context {
        total: random_bits(n as usize, 0.6, rng),
        restricted: random_bits((p * n) as usize, 0.3, rng),
        up_ports: rng.random_range(0..1u64 << p.min(63)),
    }
}

/// Stimulus: the strings of a switch of a random network (a new one every
/// 64 edges; every fourth one chosen to have a same-level down link, and
/// some with arbitrary, inconsistent strings), and headers that are
/// random, all destinations, none, only up (destinations outside the
/// switch's reach with the up-down bit set), unreachable going down, and
/// within the switch's reach; reset in the first two edges and now and
/// then. An endless stream: one vector per clock edge.
pub struct Stimulus {
    n: u32,
    p: u32,
    rng: Xoshiro256PlusPlus,
    ctx: Context,
    c: usize,
}

impl Stimulus {
    /// The stream for `n` nodes and `p` ports from `seed`.
    pub fn new(n: u32, p: u32, seed: u64) -> Self {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let ctx = context(n, p, &mut rng, false);
        Stimulus {
            n,
            p,
            rng,
            ctx,
            c: 0,
        }
    }
}

impl Iterator for Stimulus {
    type Item = Vec<BitString>;

    fn next(&mut self) -> Option<Vec<BitString>> {
        let (n, p, c) = (self.n, self.p, self.c);
        let rng = &mut self.rng;
        self.c += 1;
        if c % 64 == 0 && c > 0 {
            self.ctx = match (c / 64) % 8 {
                3 | 7 => context(n, p, rng, true),
                5 => random_context(n, p, rng),
                _ => context(n, p, rng, false),
            };
        }
        let ctx = &self.ctx;
        let nn = n as usize;
        let rst = c < 2 || rng.random_bool(0.01);
        let hdr_valid = !rng.random_bool(0.05);
        let (up, dests) = match rng.random_range(0..100) {
            0..=4 => (rng.random_bool(0.5), BitString::ones(nn)),
            5..=7 => (rng.random_bool(0.5), BitString::zeros(nn)),
            8..=22 => {
                // Only up: at least one destination outside the reach.
                let mut d = random_bits(nn, 0.2, rng);
                let outside: Vec<usize> = (0..nn).filter(|&i| !ctx.total.get(i)).collect();
                if let Some(&x) = outside.get(rng.random_range(0..outside.len().max(1))) {
                    d.set(x, true);
                }
                (true, d)
            }
            23..=27 => {
                let mut d = random_bits(nn, 0.3, rng);
                let outside: Vec<usize> = (0..nn).filter(|&i| !ctx.total.get(i)).collect();
                if let Some(&x) = outside.first() {
                    d.set(x, true);
                }
                (false, d)
            }
            28..=69 => {
                // Within reach (going down, or up at a switch that covers
                // them all), the common case.
                let density = rng.random_range(0.05..0.9);
                let mut d = random_bits(nn, density, rng);
                d.and_assign(&ctx.total);
                (rng.random_bool(0.5), d)
            }
            _ => {
                let up = rng.random_bool(0.5);
                let density = rng.random_range(0.0..1.0);
                (up, random_bits(nn, density, rng))
            }
        };
        let bit = |b: bool| BitString::from_indices(1, b.then_some(0));
        let mut up_ports = BitString::zeros(p as usize);
        up_ports.set_field(0, p as usize, ctx.up_ports);
        Some(vec![
            bit(rst),
            bit(hdr_valid),
            bit(up),
            dests,
            ctx.total.clone(),
            ctx.restricted.clone(),
            up_ports,
        ])
    }
}

/// The first `cycles` vectors of [`Stimulus`].
pub fn vectors(n: u32, p: u32, cycles: usize, seed: u64) -> Vec<Vec<BitString>> {
    Stimulus::new(n, p, seed).take(cycles).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The twin agrees with the switch's own decode on the Fig. 17(b)
    /// strings of switch 1 (see tests/multicast.rs): ports 2 and 3
    /// responsible for nodes 4 and 7.
    #[test]
    fn edge_registers_the_decode_of_the_sampled_inputs() {
        let (n, p) = (8, 6);
        let mut t = BitStringTwin::new(n, p);
        let s = |text: &str| BitString::parse(text).unwrap();
        let mut restricted = BitString::zeros(48);
        restricted.set_slice(0, &s("01000000"));
        restricted.set_slice(16, &s("00001000"));
        restricted.set_slice(24, &s("00000001"));
        restricted.set_slice(32, &s("00100000"));
        let bit = |b: bool| BitString::from_indices(1, b.then_some(0));
        let mut up = BitString::zeros(6);
        up.set(1, true);
        let inputs = vec![
            bit(false),
            bit(true),
            bit(false),
            s("00001001"),
            s("01101001"),
            restricted,
            up,
        ];
        let mut o: Vec<BitString> = Vec::new();
        o.resize(6, BitString::zeros(1));
        t.edge(&inputs, &mut o);
        assert!(o[0].get(0));
        assert_eq!(o[1].field(0, 2), 0);
        assert_eq!(o[3].to_msb_text(), "001100");
        assert_eq!(o[4].to_msb_text(), "000000");
        assert_eq!(o[5].slice(16, 8).to_string(), "00001000");
        assert_eq!(o[5].slice(24, 8).to_string(), "00000001");
        // Node 0 is not below switch 1: up by port 1 with the bit set, or
        // an error going down.
        let mut up_hdr = inputs.clone();
        up_hdr[2] = bit(true);
        up_hdr[3] = s("10001000");
        t.edge(&up_hdr, &mut o);
        assert_eq!((o[1].field(0, 2), o[4].to_msb_text()), (0, "000010".into()));
        assert!(o[2].get(0));
        up_hdr[2] = bit(false);
        t.edge(&up_hdr, &mut o);
        assert_eq!(o[1].field(0, 2), 2);
        assert_eq!(o[4].field(0, 6), 0);
    }

    #[test]
    fn vectors_cover_every_corner() {
        let v = vectors(16, 6, 2_000, 7);
        assert_eq!(v.len(), 2_000);
        let mut t = BitStringTwin::new(16, 6);
        let mut o: Vec<BitString> = vec![BitString::zeros(1); 6];
        let (mut up, mut none, mut unreach, mut down, mut all) = (0, 0, 0, 0, 0);
        for x in &v {
            t.edge(x, &mut o);
            if x[0].get(0) || !x[1].get(0) {
                continue;
            }
            match o[1].field(0, 2) {
                1 => none += 1,
                2 => unreach += 1,
                _ if !o[4].is_zero() => up += 1,
                _ => down += 1,
            }
            all += usize::from(x[3].count_ones() == 16);
        }
        assert!(
            up > 100 && none > 20 && unreach > 20 && down > 500 && all > 20,
            "{up} up, {none} none, {unreach} unreachable, {down} down, {all} all"
        );
    }
}
