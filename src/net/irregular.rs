//! Random irregular topologies as in seed 000 section 6.3.
//!
//! `s` switches of `k` ports carry `p` nodes; of the `s*k - p` remaining
//! ports, the fraction `connectivity` (80% by default) is wired to ports of
//! other switches by full-duplex links and the rest stays open. A link never
//! joins two ports of one switch; several links may join the same two
//! switches; the switch graph is connected. Everything is drawn from a seeded
//! generator, so a seed always gives the same file.
//!
//! Choices the paper leaves open, made here and documented in
//! `docs/topology.md`:
//! - nodes are spread evenly: every switch gets `p / s` nodes and `p % s`
//!   switches (drawn at random) get one more, each on randomly drawn ports,
//!   so that the share of node ports is the same everywhere (as the paper's
//!   scaling experiments keep it); node ids run switch by switch, port by
//!   port;
//! - the number of links is `floor((s*k - p) * connectivity / 2)`, and 0
//!   for one switch (there is no other to link to);
//! - connectivity is guaranteed by first wiring a random spanning tree
//!   (each switch, in random order, to a random already-wired switch with a
//!   free port), then adding the remaining links between random free ports
//!   of different switches.

use super::topology::{LinkSpec, MAX_NODES, MAX_SWITCHES, NodeSpec, PortRef, SwitchSpec, Topology};
use crate::{Error, Result, counted};
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// Parameters of a random irregular topology.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IrregularParams {
    /// Number of switches `s`.
    pub switches: u32,
    /// Ports per switch `k`.
    pub ports: u32,
    /// Number of nodes `p`.
    pub nodes: u32,
    /// Fraction of the `s*k - p` non-node ports wired to other switches.
    pub connectivity: f64,
    /// Seed of the random generator.
    pub seed: u64,
}

impl Default for IrregularParams {
    /// The paper's default system: 32 nodes on eight 8-port switches, 80%
    /// connectivity (seed 000 section 6.2).
    fn default() -> Self {
        IrregularParams {
            switches: 8,
            ports: 8,
            nodes: 32,
            connectivity: 0.8,
            seed: 1,
        }
    }
}

/// Bytes generating a topology takes a switch, besides its ports' (the
/// generator's lists and the topology it builds), reckoned from whole
/// `wormcast topo gen` processes and rounded up: 1,000,000 switches of 4,
/// 8 and 16 ports and as many nodes took 133, 187 and 293 MB, about 80
/// bytes a switch and 13 a port, and 262,144 switches of 32 ports with
/// 1,048,576 nodes 134 MB (December 7). A generation past the memory
/// available is refused before anything is drawn, rather than killed by
/// the kernel part way through.
pub const GEN_SWITCH_BYTES: u64 = 96;

/// Bytes generating a topology takes a switch port (see
/// [`GEN_SWITCH_BYTES`]).
pub const GEN_PORT_BYTES: u64 = 16;

/// Bytes generating a topology takes a node (see [`GEN_SWITCH_BYTES`]).
pub const GEN_NODE_BYTES: u64 = 16;

impl IrregularParams {
    /// Number of inter-switch links the generator places.
    pub fn num_links(&self) -> u32 {
        if self.switches <= 1 {
            // A lone switch has no other switch to link to.
            return 0;
        }
        let free = (self.switches as u64 * self.ports as u64).saturating_sub(self.nodes as u64);
        ((free as f64 * self.connectivity) / 2.0).floor() as u32
    }

    /// Generates the topology, if it fits the memory available (see
    /// [`GEN_SWITCH_BYTES`]).
    pub fn generate(&self) -> Result<Topology> {
        self.generate_within(crate::memory::available())
    }

    /// [`Self::generate`] with `available` bytes of memory.
    pub(crate) fn generate_within(&self, available: Option<u64>) -> Result<Topology> {
        let (s, k, p) = (self.switches, self.ports, self.nodes);
        let fail = |m: String| Err(Error::Generator(m));
        if s == 0 {
            return fail("at least one switch is needed".into());
        }
        if !(1..=64).contains(&k) {
            return fail(format!("{k} ports per switch; a switch has 1 to 64 ports"));
        }
        if p == 0 {
            return fail("at least one node is needed".into());
        }
        if s as usize > MAX_SWITCHES || p as usize > MAX_NODES {
            return fail(format!(
                "{s} switches and {p} nodes: a network has at most {MAX_SWITCHES} of each"
            ));
        }
        if !(0.0..=1.0).contains(&self.connectivity) {
            return fail(format!(
                "connectivity {} is not within 0..=1",
                self.connectivity
            ));
        }
        let per = p.div_ceil(s);
        let spare = if s > 1 { 1 } else { 0 };
        if per + spare > k {
            return fail(if spare == 0 {
                format!(
                    "{} on one switch of {}: a node takes a port",
                    counted(p.into(), "nodes"),
                    counted(k.into(), "ports")
                )
            } else {
                format!(
                    "{} on {s} switches of {}: a switch would carry {} \
                     and keep no port for a link",
                    counted(p.into(), "nodes"),
                    counted(k.into(), "ports"),
                    counted(per.into(), "nodes")
                )
            });
        }
        let need = u64::from(s) * (GEN_SWITCH_BYTES + GEN_PORT_BYTES * u64::from(k))
            + u64::from(p) * GEN_NODE_BYTES;
        if let Some(available) = available
            && need > available
        {
            return fail(format!(
                "{s} switches of {} and {} take about {} to generate, more than the {} of memory available",
                counted(k.into(), "ports"),
                counted(p.into(), "nodes"),
                crate::memory::megabytes(need.into()),
                crate::memory::megabytes(available.into())
            ));
        }
        let links = self.num_links();
        if links + 1 < s {
            return fail(format!(
                "connectivity {} gives {}, fewer than the {} a connected graph of {s} switches needs",
                self.connectivity,
                counted(links.into(), "links"),
                s - 1
            ));
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(self.seed);

        // Nodes: p / s each, p % s switches drawn at random get one more.
        let mut order: Vec<u32> = (0..s).collect();
        order.shuffle(&mut rng);
        let mut count = vec![p / s; s as usize];
        for &x in order.iter().take((p % s) as usize) {
            count[x as usize] += 1;
        }
        let mut nodes = Vec::with_capacity(p as usize);
        let mut free: Vec<Vec<u32>> = Vec::with_capacity(s as usize);
        for x in 0..s {
            let mut ports: Vec<u32> = (0..k).collect();
            ports.shuffle(&mut rng);
            let mut mine: Vec<u32> = ports[..count[x as usize] as usize].to_vec();
            mine.sort_unstable();
            for port in mine {
                nodes.push(NodeSpec {
                    id: nodes.len() as u32,
                    at: PortRef::new(x, port),
                });
            }
            free.push(ports[count[x as usize] as usize..].to_vec());
        }

        // Spanning tree: switches with a single free port can only be
        // leaves, so they join last.
        let mut order: Vec<u32> = (0..s).collect();
        order.shuffle(&mut rng);
        order.sort_by_key(|&x| free[x as usize].len() < 2);
        let mut placed: Vec<LinkSpec> = Vec::with_capacity(links as usize);
        // The switches wired so far, in the order they were wired, and
        // which of them have a free port left: the candidates, in that
        // order, are the ones counted.
        let mut wired = vec![order[0]];
        let mut open = Counts::new(s as usize);
        open.add(0, !free[order[0] as usize].is_empty() as i64);
        for &x in &order[1..] {
            let n = open.total() as usize;
            if n == 0 {
                return fail(format!(
                    "the switches wired so far have no free port left for switch {x}; use fewer nodes or more ports"
                ));
            }
            let (at, _) = open.find(rng.random_range(0..n) as u64);
            let y = wired[at];
            let a = PortRef::new(
                x,
                free[x as usize]
                    .pop()
                    .expect("checked above: every switch keeps a port"),
            );
            let b = PortRef::new(
                y,
                free[y as usize].pop().expect("candidate has a free port"),
            );
            placed.push(LinkSpec { a, b });
            if free[y as usize].is_empty() {
                open.add(at, -1);
            }
            open.add(wired.len(), !free[x as usize].is_empty() as i64);
            wired.push(x);
        }

        // The remaining links, between random free ports of different
        // switches. The pool of free ports runs switch by switch, each
        // switch's in the order of its list; `pool` counts them per switch.
        let mut pool = Counts::new(s as usize);
        for (x, f) in free.iter().enumerate() {
            pool.add(x, f.len() as i64);
        }
        let port_at = |pool: &Counts, free: &[Vec<u32>], i: u64| {
            let (x, j) = pool.find(i);
            PortRef::new(x as u32, free[x][j as usize])
        };
        while (placed.len() as u32) < links {
            let n = pool.total();
            let u = port_at(&pool, &free, rng.random_range(0..n as usize) as u64);
            // The pool without u's switch: the ports before it, then
            // those after it.
            let (before, mine) = (
                pool.prefix(u.switch as usize),
                free[u.switch as usize].len() as u64,
            );
            let others = n - mine;
            if others == 0 {
                // Every free port is on u's switch X. Break a link (a, b) that
                // does not touch X and wire X to both a and b: connectivity is
                // kept (both sides of the old link now meet at X) and one link
                // more is placed.
                let x = u.switch;
                let breakable: Vec<usize> = (0..placed.len())
                    .filter(|&i| placed[i].a.switch != x && placed[i].b.switch != x)
                    .collect();
                if breakable.is_empty() || free[x as usize].len() < 2 {
                    return fail(format!(
                        "only switch {x} has free ports left; {} of {links} links placed",
                        placed.len()
                    ));
                }
                let i = breakable[rng.random_range(0..breakable.len())];
                let old = placed.swap_remove(i);
                let x1 = PortRef::new(x, take(&mut free[x as usize], u.port));
                let x2 = PortRef::new(x, free[x as usize].pop().expect("two free ports checked"));
                pool.add(x as usize, -2);
                placed.push(LinkSpec { a: old.a, b: x1 });
                placed.push(LinkSpec { a: old.b, b: x2 });
                continue;
            }
            let i = rng.random_range(0..others as usize) as u64;
            let v = port_at(&pool, &free, if i < before { i } else { i + mine });
            take(&mut free[u.switch as usize], u.port);
            take(&mut free[v.switch as usize], v.port);
            pool.add(u.switch as usize, -1);
            pool.add(v.switch as usize, -1);
            placed.push(LinkSpec { a: u, b: v });
        }
        for l in &mut placed {
            if l.b < l.a {
                std::mem::swap(&mut l.a, &mut l.b);
            }
        }
        placed.sort_by_key(|l| (l.a, l.b));
        Ok(Topology {
            switches: (0..s).map(|id| SwitchSpec { id, ports: k }).collect(),
            links: placed,
            nodes,
            lines: None,
        })
    }
}

/// Counts at positions `0..n`, with the sum of those before a position
/// and the position the `r`-th unit falls at, each in O(log n) (a Fenwick
/// tree): what picks the `r`-th free port, or the `r`-th switch with one,
/// of a list in its order without building the list (which made
/// generation quadratic in the switches).
struct Counts {
    /// 1-based: `tree[i]` holds the sum of positions `i - lowbit(i)..i`.
    tree: Vec<u64>,
}

impl Counts {
    fn new(n: usize) -> Self {
        Counts {
            tree: vec![0; n + 1],
        }
    }

    /// Adds `d` at position `i` (no count goes below 0).
    fn add(&mut self, i: usize, d: i64) {
        let mut j = i + 1;
        while j < self.tree.len() {
            self.tree[j] = self.tree[j].wrapping_add_signed(d);
            j += j & j.wrapping_neg();
        }
    }

    /// The sum of positions `0..i`.
    fn prefix(&self, i: usize) -> u64 {
        let (mut j, mut sum) = (i, 0);
        while j > 0 {
            sum += self.tree[j];
            j &= j - 1;
        }
        sum
    }

    /// The sum of every position.
    fn total(&self) -> u64 {
        self.prefix(self.tree.len() - 1)
    }

    /// The position `r` (below [`total`](Self::total)) falls at, counting
    /// each position's units in turn, and `r`'s place among that
    /// position's units.
    fn find(&self, mut r: u64) -> (usize, u64) {
        let mut at = 0;
        let mut step = (self.tree.len() - 1).next_power_of_two();
        while step > 0 {
            let next = at + step;
            if next < self.tree.len() && self.tree[next] <= r {
                at = next;
                r -= self.tree[next];
            }
            step >>= 1;
        }
        (at, r)
    }
}

fn take(v: &mut Vec<u32>, port: u32) -> u32 {
    let i = v.iter().position(|&q| q == port).expect("port is free");
    v.swap_remove(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Network, PortConn};
    use proptest::prelude::*;

    /// The links of a generated topology, one line each, as `topo gen`
    /// writes them in order.
    fn link_lines(t: &Topology) -> Vec<String> {
        t.links
            .iter()
            .map(|l| format!("{}.{}-{}.{}", l.a.switch, l.a.port, l.b.switch, l.b.port))
            .collect()
    }

    /// The generator picks free ports by counting (`Counts`) instead of
    /// listing them; a seed gives the links it gave when it listed them.
    /// Pinned from the listing generator's output for this seed
    /// (`wormcast topo gen --switches 64 --ports 8 --nodes 256 --seed 3`);
    /// the listing generator and this one were also compared on 470 more
    /// settings and seeds, a topology or the same error each time.
    #[test]
    fn a_seed_gives_the_links_it_always_gave() {
        let prm = IrregularParams {
            switches: 64,
            ports: 8,
            nodes: 256,
            seed: 3,
            ..IrregularParams::default()
        };
        let links = link_lines(&prm.generate().unwrap());
        assert_eq!(links.len(), 102);
        assert_eq!(links[..3], ["0.0-24.2", "0.1-37.1", "0.2-60.6"]);
        assert_eq!(links[101], "56.3-59.5");
        // FNV-1a over every line (the listing generator's file gives the
        // same hash).
        let h = links.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, l| {
            l.bytes()
                .chain([b'\n'])
                .fold(h, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
        });
        assert_eq!(h, 1_528_849_356_318_083_333);
    }

    #[test]
    fn counts_find_the_rth_unit_in_order() {
        // Weights 0, 2, 0, 3, 1: units 0-1 at 1, 2-4 at 3, 5 at 4.
        let mut c = Counts::new(5);
        for (i, w) in [0, 2, 0, 3, 1].into_iter().enumerate() {
            c.add(i, w);
        }
        assert_eq!(c.total(), 6);
        let got: Vec<(usize, u64)> = (0..6).map(|r| c.find(r)).collect();
        assert_eq!(got, [(1, 0), (1, 1), (3, 0), (3, 1), (3, 2), (4, 0)]);
        assert_eq!((c.prefix(0), c.prefix(3), c.prefix(5)), (0, 2, 6));
        c.add(3, -3);
        assert_eq!((c.total(), c.find(2)), (3, (4, 0)));
    }

    /// A generation that would not fit the memory available is refused,
    /// naming both; one byte more lets it run.
    #[test]
    fn a_generation_past_the_memory_available_is_refused() {
        let prm = IrregularParams {
            switches: 1_000,
            ports: 8,
            nodes: 4_000,
            ..IrregularParams::default()
        };
        // 1,000 x (96 + 8 x 16) + 4,000 x 16 bytes.
        let need = 288_000;
        let e = prm.generate_within(Some(need - 1)).unwrap_err().to_string();
        assert_eq!(
            e,
            "cannot generate the topology: 1000 switches of 8 ports and 4000 nodes take about \
             0.29 MB to generate, more than the 0.29 MB of memory available"
        );
        let t = prm.generate_within(Some(need)).unwrap();
        assert_eq!((t.switches.len(), t.nodes.len()), (1_000, 4_000));
        assert_eq!(prm.generate_within(None).unwrap(), t);
    }

    #[test]
    fn too_many_switches_are_refused_before_generating() {
        let prm = IrregularParams {
            switches: 2_000_000,
            ports: 8,
            nodes: 4,
            ..IrregularParams::default()
        };
        let e = prm.generate().unwrap_err().to_string();
        assert!(
            e.contains("2000000 switches and 4 nodes: a network has at most 1048576 of each"),
            "{e}"
        );
        // The link count does not overflow.
        let big = IrregularParams {
            switches: u32::MAX,
            ports: 64,
            nodes: 1,
            ..IrregularParams::default()
        };
        assert_eq!(
            big.num_links() as u64,
            ((u32::MAX as u64 * 64 - 1) as f64 * 0.8 / 2.0) as u32 as u64
        );
    }

    #[test]
    fn default_network_has_the_papers_shape() {
        let prm = IrregularParams::default();
        let t = prm.generate().unwrap();
        let net = Network::new(&t).unwrap();
        assert_eq!(net.num_switches(), 8);
        assert_eq!(net.num_nodes(), 32);
        // (8*8 - 32) * 0.8 = 25.6 ports -> 12 links.
        assert_eq!(t.links.len(), 12);
        for s in 0..8 {
            assert_eq!(net.nodes_of(s).len(), 4);
        }
    }

    /// One switch has no other to link to: its free ports stay open, at
    /// any connectivity (it once asked for a link it could not place).
    #[test]
    fn a_lone_switch_has_no_links() {
        for connectivity in [0.0, 0.8, 1.0] {
            let prm = IrregularParams {
                switches: 1,
                ports: 8,
                nodes: 4,
                connectivity,
                seed: 1,
            };
            assert_eq!(prm.num_links(), 0);
            let t = prm.generate().unwrap();
            assert!(t.links.is_empty());
            let net = Network::new(&t).unwrap();
            assert_eq!(net.nodes_of(0).len(), 4);
        }
    }

    #[test]
    fn same_seed_same_file_other_seed_other_file() {
        let a = IrregularParams::default().generate().unwrap();
        let b = IrregularParams::default().generate().unwrap();
        let c = IrregularParams {
            seed: 2,
            ..Default::default()
        }
        .generate()
        .unwrap();
        assert_eq!(a.to_toml_string(), b.to_toml_string());
        assert_ne!(a.to_toml_string(), c.to_toml_string());
    }

    #[test]
    fn impossible_parameters_are_refused_with_the_reason() {
        let refused = |p: IrregularParams| p.generate().unwrap_err().to_string();
        let sized = |switches, ports, nodes| IrregularParams {
            switches,
            ports,
            nodes,
            ..Default::default()
        };
        let e = refused(sized(8, 8, 64));
        assert!(
            e.contains(
                "64 nodes on 8 switches of 8 ports: a switch would carry 8 nodes and keep no port \
                 for a link"
            ),
            "{e}"
        );
        // One switch needs no link: only its ports bound its nodes.
        let e = refused(sized(1, 8, 9));
        assert!(
            e.contains("9 nodes on one switch of 8 ports: a node takes a port"),
            "{e}"
        );
        let e = refused(IrregularParams {
            connectivity: 0.2,
            ..Default::default()
        });
        assert!(e.contains("fewer than the 7"), "{e}");
        // Counts of one read as one thing, not "1 ports".
        assert_eq!(
            refused(sized(3, 1, 3)),
            "cannot generate the topology: 3 nodes on 3 switches of 1 port: a switch would \
             carry 1 node and keep no port for a link"
        );
        assert_eq!(
            refused(sized(1, 1, 2)),
            "cannot generate the topology: 2 nodes on one switch of 1 port: a node takes a port"
        );
    }

    proptest! {
        /// `find` and `prefix` agree with a list of the units.
        #[test]
        fn counts_agree_with_a_list(weights in proptest::collection::vec(0u64..5, 1..80), edits in proptest::collection::vec((0usize..80, 0u64..5), 0..40)) {
            let mut w = weights.clone();
            let mut c = Counts::new(w.len());
            for (i, &x) in w.iter().enumerate() {
                c.add(i, x as i64);
            }
            for (i, x) in edits {
                let i = i % w.len();
                c.add(i, x as i64 - w[i] as i64);
                w[i] = x;
            }
            let units: Vec<(usize, u64)> = w.iter().enumerate().flat_map(|(i, &x)| (0..x).map(move |j| (i, j))).collect();
            prop_assert_eq!(c.total(), units.len() as u64);
            for (r, &u) in units.iter().enumerate() {
                prop_assert_eq!(c.find(r as u64), u);
            }
            for i in 0..=w.len() {
                prop_assert_eq!(c.prefix(i), w[..i].iter().sum::<u64>());
            }
        }

        /// Every generated topology passes validation, has the requested
        /// counts, and no port carries two things.
        #[test]
        fn generated_topologies_are_valid(s in 2u32..20, k in 4u32..17, conn in 0.5f64..=1.0, seed in any::<u64>()) {
            let p = s * (k / 2);
            let prm = IrregularParams { switches: s, ports: k, nodes: p, connectivity: conn, seed };
            match prm.generate() {
                Ok(t) => {
                    let net = Network::new(&t).unwrap();
                    prop_assert_eq!(net.num_nodes() as u32, p);
                    prop_assert_eq!(t.links.len() as u32, prm.num_links());
                    let open = (0..s).flat_map(|x| net.ports_of(x).map(|(_, c)| c).collect::<Vec<_>>())
                        .filter(|c| *c == PortConn::Open).count() as u32;
                    prop_assert_eq!(open, s * k - p - 2 * prm.num_links());
                }
                Err(Error::Generator(m)) => prop_assert!(prm.num_links() + 1 < s, "unexpected refusal: {}", m),
                Err(e) => prop_assert!(false, "{}", e),
            }
        }
    }
}
