//! The SSR / multi-drop decode unit as a clocked twin of
//! `hdl_tests/rtl/ssr_md_decode.v` (seed 000 section 5.2.3, Fig. 12).
//!
//! It decodes the first bytes of a header: an SSR header (switch id and
//! port string), or a multi-drop header's first byte and first two
//! (switch id, port string) pairs. Sizes: `P` ports, `S` switches, switch
//! ids of `SWB = ceil(log2 S)` bits, a header window of `W` bytes, enough
//! for an SSR header and for the first byte and two pairs of a multi-drop
//! header (docs/headers.md gives the layouts).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `rst` | in | 1 | synchronous reset: every output 0 |
//! | `hdr_valid` | in | 1 | a header is presented |
//! | `phase_down` | in | 1 | the worm came down a link (routing phase Down) |
//! | `my_id` | in | SWB | this switch's id |
//! | `node_ports` | in | P | ports that lead to nodes |
//! | `route` | in | 2*S*P | candidate ports toward switch `d` in phase `ph` (0 up, 1 down) in bits `(2d + ph)*P ..` |
//! | `hdr` | in | 8*W | the header's first `W` bytes, byte 0 in the top bits (what follows a shorter header is ignored) |
//! | `valid` | out | 1 | `hdr_valid` of the edge (set also when `err` is) |
//! | `err` | out | 4 | 0 decoded; 1 not an SSR or multi-drop header; 2 reserved bits set; 3 a switch id beyond the last switch; 4 no pair; 5 no port named; 6 a port that does not lead to a node; 7 one switch in the first two pairs; 8 no legal route to the switch |
//! | `kind` | out | 2 | 1 SSR, 2 multi-drop (as the switch traces it) |
//! | `target` | out | SWB | the switch the header (first pair) names |
//! | `ports_in` | out | P | its port string |
//! | `replicate` | out | P | node ports to replicate to (this switch is named) |
//! | `choice` | out | P | candidates for the copy that goes on (toward the named switch, or the next pair's) |
//! | `strip` | out | 1 | the copy that goes on drops the first pair |
//! | `hdr_first` | out | 8 | the first byte of the header the copy that goes on carries |
//!
//! With `err` set the outputs other than `valid` and `err` are 0.

use super::{Port, Twin, Unit, input, output, zero_outputs};
use crate::header::{Formats, Header, HeaderError, Kind};
use crate::net::{IrregularParams, Network, Phase, PortConn, RoutingTables};
use crate::rtl::{BitString, PortMask, bits_for};
use crate::switch::decode::bitstring::BitStringUnit;
use crate::switch::{DecodeError, DecodeReg, Decoder, HdrOut};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Sizes derived from `P` and `S`.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Ports.
    pub p: usize,
    /// Switches.
    pub s: usize,
    /// Switch id bits.
    pub swb: usize,
    /// Header window, bytes.
    pub w: usize,
    /// Bytes of a multi-drop pair.
    pub pair_bytes: usize,
}

impl Layout {
    /// The layout for `ports` and `switches`.
    pub fn new(ports: u32, switches: u32) -> Self {
        let f = Formats::new(1, switches, ports);
        Layout {
            p: ports as usize,
            s: switches as usize,
            swb: bits_for(switches - 1) as usize,
            w: f.ssr_len().max(f.multidrop_len(2)),
            pair_bytes: f.pair_len(),
        }
    }

    fn formats(&self) -> Formats {
        Formats::new(1, self.s as u32, self.p as u32)
    }
}

/// The twin.
pub struct SsrMdTwin {
    l: Layout,
    ports: Vec<Port>,
    reg: DecodeReg,
    bytes: Vec<u8>,
}

impl SsrMdTwin {
    /// A unit for `ports` ports and `switches` switches.
    pub fn new(ports: u32, switches: u32) -> Self {
        let l = Layout::new(ports, switches);
        let (p, s, swb) = (ports, switches, l.swb as u32);
        SsrMdTwin {
            l,
            ports: vec![
                input("rst", 1),
                input("hdr_valid", 1),
                input("phase_down", 1),
                input("my_id", swb),
                input("node_ports", p),
                input("route", 2 * s * p),
                input("hdr", 8 * l.w as u32),
                output("valid", 1),
                output("err", 4),
                output("kind", 2),
                output("target", swb),
                output("ports_in", p),
                output("replicate", p),
                output("choice", p),
                output("strip", 1),
                output("hdr_first", 8),
            ],
            reg: DecodeReg::new(1, ports as usize),
            // Room for the longest multi-drop header, so that stripping
            // it never reads past the window (the rest is not an output).
            bytes: vec![0; l.formats().max_len()],
        }
    }
}

/// The `err` code of a decode error.
fn code(e: &DecodeError) -> u64 {
    match e {
        DecodeError::Header(HeaderError::Reserved { .. }) => 2,
        DecodeError::Header(HeaderError::NoSuchSwitch { .. }) => 3,
        DecodeError::Header(HeaderError::NoPairs) => 4,
        DecodeError::Header(_) => 1,
        DecodeError::NoPorts { .. } => 5,
        DecodeError::NotNodePorts { .. } => 6,
        DecodeError::RepeatedSwitch { .. } => 7,
        DecodeError::NoRouteToSwitch { .. } | DecodeError::NoRoute { .. } => 8,
        DecodeError::NoDestinations
        | DecodeError::Unreachable { .. }
        | DecodeError::NoBitStringUnit { .. } => 1,
    }
}

impl Twin for SsrMdTwin {
    fn unit(&self) -> Unit {
        Unit::SsrMdDecode
    }

    fn ports(&self) -> &[Port] {
        &self.ports
    }

    fn edge(&mut self, i: &[BitString], o: &mut [BitString]) {
        let l = self.l;
        zero_outputs(&self.ports, o);
        if i[0].get(0) {
            return;
        }
        o[0].set(0, i[1].get(0));
        let hdr = &i[6];
        self.bytes.fill(0);
        for (b, byte) in self.bytes.iter_mut().take(l.w).enumerate() {
            *byte = hdr.field(8 * (l.w - 1 - b), 8) as u8;
        }
        let first = self.bytes[0];
        let f = l.formats();
        if !matches!(f.kind(first), Ok(Kind::Ssr | Kind::MultiDrop)) {
            o[1].set_field(0, 4, 1);
            return;
        }
        let me = i[3].field(0, l.swb) as u32;
        let table: Box<[PortMask]> = (0..2 * l.s)
            .map(|r| PortMask(i[5].field(r * l.p, l.p)))
            .collect();
        let dec = Decoder::from_tables(
            me,
            f,
            Box::new([]),
            table,
            PortMask(i[4].field(0, l.p)),
            BitStringUnit::new(BitString::zeros(1), Vec::new(), PortMask::EMPTY),
        );
        let phase = if i[2].get(0) { Phase::Down } else { Phase::Up };
        match dec.decode(&self.bytes, phase, &mut self.reg) {
            Ok(()) => {
                let r = &self.reg;
                let strip = r.choice_hdr == HdrOut::Stripped;
                o[2].set_field(0, 2, r.kind.code());
                o[3].set_field(0, l.swb, r.target as u64);
                o[4].set_field(0, l.p, r.ports_in.0);
                o[5].set_field(0, l.p, r.replicate.0);
                o[6].set_field(0, l.p, r.choice.0);
                o[7].set(0, strip);
                o[8].set_field(0, 8, if strip { r.stripped[0] } else { first } as u64);
            }
            Err(e) => o[1].set_field(0, 4, code(&e)),
        }
    }
}

/// A switch of a random network: its id, node ports and routing rows.
struct Context {
    me: u32,
    node_ports: u64,
    route: BitString,
    /// Node ports of every switch (to build valid port strings).
    nodes_of: Vec<u64>,
}

fn context(l: &Layout, rng: &mut Xoshiro256PlusPlus) -> Context {
    let (p, s) = (l.p as u32, l.s as u32);
    for _ in 0..200 {
        let params = IrregularParams {
            switches: s,
            ports: p,
            nodes: rng.random_range(s..=(s * p / 2).max(s)),
            connectivity: rng.random_range(0.5..=1.0),
            seed: rng.random(),
        };
        let Ok(t) = params.generate() else { continue };
        let Ok(net) = Network::new(&t) else { continue };
        let (_, rt) = RoutingTables::for_network(&net);
        let me = rng.random_range(0..s);
        let mut route = BitString::zeros(2 * l.s * l.p);
        for d in 0..s {
            for (k, ph) in [Phase::Up, Phase::Down].into_iter().enumerate() {
                let row = (2 * d as usize + k) * l.p;
                route.set_field(row, l.p, rt.switch_candidates(me, d, ph).0);
            }
        }
        let nodes_of: Vec<u64> = (0..s)
            .map(|x| {
                net.ports_of(x)
                    .filter(|(_, c)| matches!(c, PortConn::Node(_)))
                    .fold(0u64, |m, (q, _)| m | 1 << q)
            })
            .collect();
        return Context {
            me,
            node_ports: nodes_of[me as usize],
            route,
            nodes_of,
        };
    }
    // No network of these sizes: arbitrary tables.
    let mut route = BitString::zeros(2 * l.s * l.p);
    for b in 0..route.len() {
        route.set(b, rng.random_bool(0.3));
    }
    let mask = (1u64 << l.p.min(63)) - 1;
    let node_ports = rng.random::<u64>() & mask;
    Context {
        me: rng.random_range(0..s),
        node_ports,
        route,
        nodes_of: (0..s).map(|_| rng.random::<u64>() & mask).collect(),
    }
}

/// A port string of switch `sw`: mostly a non-empty subset of its node
/// ports, sometimes empty or naming other ports.
fn ports_of(ctx: &Context, sw: u32, p: usize, rng: &mut Xoshiro256PlusPlus) -> PortMask {
    let nodes = ctx.nodes_of[sw as usize];
    let mask = (1u64 << p.min(63)) - 1;
    match rng.random_range(0..20) {
        0 => PortMask::EMPTY,
        1 => PortMask(rng.random::<u64>() & mask),
        _ => {
            let mut m = rng.random::<u64>() & nodes;
            if m == 0 && nodes != 0 {
                m = 1 << nodes.trailing_zeros();
            }
            PortMask(m)
        }
    }
}

/// Stimulus: the tables of a switch of a random network (a new one every
/// 64 edges), and SSR and multi-drop headers naming this switch or others,
/// with valid and invalid port strings, 1 to 4 pairs (sometimes one switch
/// twice in a row), no pair, switch ids past the last switch, reserved
/// bits, other encodings and random bytes; both routing phases; the bytes
/// after a header are random. An endless stream: one vector per clock
/// edge.
pub struct Stimulus {
    l: Layout,
    rng: Xoshiro256PlusPlus,
    ctx: Context,
    bytes: Vec<u8>,
    c: usize,
}

impl Stimulus {
    /// The stream for `ports` ports and `switches` switches from `seed`.
    pub fn new(ports: u32, switches: u32, seed: u64) -> Self {
        let l = Layout::new(ports, switches);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let ctx = context(&l, &mut rng);
        Stimulus {
            l,
            rng,
            ctx,
            bytes: Vec::new(),
            c: 0,
        }
    }
}

impl Iterator for Stimulus {
    type Item = Vec<BitString>;

    fn next(&mut self) -> Option<Vec<BitString>> {
        let l = self.l;
        let f = l.formats();
        let c = self.c;
        self.c += 1;
        let rng = &mut self.rng;
        let bit = |b: bool| BitString::from_indices(1, b.then_some(0));
        if c.is_multiple_of(64) && c > 0 {
            self.ctx = context(&l, rng);
        }
        let ctx = &self.ctx;
        let bytes = &mut self.bytes;
        let s = l.s as u32;
        let other = |rng: &mut Xoshiro256PlusPlus| rng.random_range(0..s);
        let pick = |rng: &mut Xoshiro256PlusPlus, me: u32| {
            if rng.random_bool(0.5) {
                me
            } else {
                rng.random_range(0..s)
            }
        };
        bytes.clear();
        match rng.random_range(0..100) {
            0..=34 => {
                let sw = pick(rng, ctx.me);
                let h = Header::Ssr {
                    switch: sw,
                    ports: ports_of(ctx, sw, l.p, rng),
                };
                f.encode(&h, bytes).expect("valid SSR header");
            }
            35..=74 => {
                let n = rng.random_range(1..=4usize);
                let mut pairs: Vec<(u32, PortMask)> = Vec::new();
                for k in 0..n {
                    let sw = if k == 0 {
                        pick(rng, ctx.me)
                    } else if k == 1 && pairs[0].0 == ctx.me && rng.random_bool(0.1) {
                        ctx.me
                    } else {
                        other(rng)
                    };
                    pairs.push((sw, ports_of(ctx, sw, l.p, rng)));
                }
                f.encode(&Header::MultiDrop { pairs }, bytes)
                    .expect("valid multi-drop header");
            }
            75..=79 => bytes.push(0xa0),
            80..=87 => {
                // A field past its range: an id beyond the last switch (or
                // in padding bits), port bits beyond P.
                let sw = pick(rng, ctx.me);
                let ssr = rng.random_bool(0.5);
                let h = if ssr {
                    Header::Ssr {
                        switch: sw,
                        ports: ports_of(ctx, sw, l.p, rng),
                    }
                } else {
                    Header::MultiDrop {
                        pairs: vec![(sw, ports_of(ctx, sw, l.p, rng)); 2],
                    }
                };
                f.encode(&h, bytes).expect("valid header");
                let k = rng.random_range(0..8 * bytes.len());
                let at = if ssr {
                    k / 8
                } else {
                    1 + k / 8 % (bytes.len() - 1)
                };
                bytes[at] ^= 1 << (k % 8);
            }
            // Bit-string and unknown encodings.
            88..=91 => bytes
                .push(if rng.random_bool(0.5) { 0xe0 } else { 0xc0 } | rng.random::<u8>() & 0x1f),
            92..=94 => bytes.push(rng.random::<u8>() & 0x7f),
            _ => {}
        }
        // Fill the window with random bytes after the header.
        while bytes.len() < l.w {
            bytes.push(rng.random());
        }
        bytes.truncate(l.w);
        let mut hdr = BitString::zeros(8 * l.w);
        for (b, &byte) in bytes.iter().enumerate() {
            hdr.set_field(8 * (l.w - 1 - b), 8, byte as u64);
        }
        let mut my_id = BitString::zeros(l.swb);
        my_id.set_field(0, l.swb, ctx.me as u64);
        let mut node_ports = BitString::zeros(l.p);
        node_ports.set_field(0, l.p, ctx.node_ports);
        Some(vec![
            bit(c < 2 || rng.random_bool(0.01)),
            bit(!rng.random_bool(0.05)),
            bit(rng.random_bool(0.4)),
            my_id,
            node_ports,
            ctx.route.clone(),
            hdr,
        ])
    }
}

/// The first `cycles` vectors of [`Stimulus`].
pub fn vectors(ports: u32, switches: u32, cycles: usize, seed: u64) -> Vec<Vec<BitString>> {
    Stimulus::new(ports, switches, seed).take(cycles).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_reach_every_outcome() {
        let (p, s) = (6, 8);
        let v = vectors(p, s, 3_000, 11);
        let mut t = SsrMdTwin::new(p, s);
        let mut o: Vec<BitString> = vec![BitString::zeros(1); 9];
        let mut seen = [0usize; 9];
        let (mut deliver, mut strip, mut forward) = (0, 0, 0);
        for x in &v {
            t.edge(x, &mut o);
            if x[0].get(0) || !x[1].get(0) {
                continue;
            }
            seen[o[1].field(0, 4) as usize] += 1;
            deliver += usize::from(!o[5].is_zero());
            strip += usize::from(o[7].get(0));
            forward += usize::from(!o[6].is_zero() && !o[7].get(0));
        }
        assert!(seen.iter().all(|&n| n >= 10), "error codes seen {seen:?}");
        assert!(
            deliver > 300 && strip > 100 && forward > 300,
            "{deliver} {strip} {forward}"
        );
    }
}
