//! A description of a network for `wormcast topo show`: levels, the up end of
//! every link, and a summary of the routing tables.

use super::routing::UdLengths;
use super::{Network, Phase, PortConn, PortRef, RouteLengths, RoutingTables, TreeParent, UpDown};
use serde::Serialize;
use std::fmt::Write;

/// One port of a switch.
#[derive(Clone, Debug, Serialize)]
pub struct PortSummary {
    /// Port number.
    pub port: u32,
    /// `open`, `node N` or `switch S port P`.
    pub to: String,
    /// `up`, `down`, or `-` for an open port. Node ports are down.
    pub dir: &'static str,
}

/// One switch.
#[derive(Clone, Debug, Serialize)]
pub struct SwitchSummary {
    /// Switch id.
    pub id: u32,
    /// BFS level.
    pub level: u32,
    /// Tree parent.
    pub parent: Option<TreeParent>,
    /// Attached nodes.
    pub nodes: Vec<u32>,
    /// All ports.
    pub ports: Vec<PortSummary>,
    /// Average number of candidate ports over destination switches, phase up.
    pub avg_candidates: f64,
}

/// One link.
#[derive(Clone, Debug, Serialize)]
pub struct LinkSummary {
    /// End a.
    pub a: PortRef,
    /// End b.
    pub b: PortRef,
    /// The up end.
    pub up_end: PortRef,
    /// `tree` or `cross`.
    pub kind: &'static str,
}

/// Routing over all ordered pairs of different switches.
#[derive(Clone, Debug, Serialize)]
pub struct RoutingSummary {
    /// Mean up*/down* route length in links.
    pub avg_ud_hops: f64,
    /// Longest up*/down* route in links.
    pub max_ud_hops: u32,
    /// Mean shortest-path length ignoring the up*/down* rule.
    pub avg_shortest_hops: f64,
    /// Pairs whose up*/down* route is longer than the shortest path.
    pub pairs_detoured: usize,
    /// Table entries (switch, destination switch, phase up) with more than one candidate port.
    pub adaptive_entries: usize,
    /// Ordered pairs of different switches.
    pub pairs: usize,
}

/// A whole network.
#[derive(Clone, Debug, Serialize)]
pub struct NetworkSummary {
    /// Number of switches.
    pub switches: usize,
    /// Number of nodes.
    pub nodes: usize,
    /// Number of inter-switch links.
    pub links: usize,
    /// Root of the spanning tree.
    pub root: u32,
    /// Per switch.
    pub switch: Vec<SwitchSummary>,
    /// Per link.
    pub link: Vec<LinkSummary>,
    /// Routing tables.
    pub routing: RoutingSummary,
}

/// Describes `net`.
pub fn summarize(net: &Network) -> NetworkSummary {
    let (ud, rt) = RoutingTables::for_network(net);
    let s = net.num_switches() as u32;
    let (routing, candidates) = routing_summary(net, &ud, &rt);
    let switch = (0..s)
        .map(|x| {
            let ports = net
                .ports_of(x)
                .map(|(p, c)| PortSummary {
                    port: p,
                    to: match c {
                        PortConn::Open => "open".to_string(),
                        PortConn::Node(n) => format!("node {n}"),
                        PortConn::Link { peer, .. } => {
                            format!("switch {} port {}", peer.switch, peer.port)
                        }
                    },
                    dir: match c {
                        PortConn::Open => "-",
                        _ if ud.goes_up(x, p) => "up",
                        _ => "down",
                    },
                })
                .collect();
            let cand = candidates[x as usize];
            SwitchSummary {
                id: x,
                level: ud.level(x),
                parent: ud.parent(x),
                nodes: net.nodes_of(x),
                ports,
                avg_candidates: if s > 1 {
                    cand as f64 / (s - 1) as f64
                } else {
                    0.0
                },
            }
        })
        .collect();
    let link = net
        .links()
        .iter()
        .enumerate()
        .map(|(i, l)| LinkSummary {
            a: l.a,
            b: l.b,
            up_end: if ud.a_is_up(i as u32) { l.a } else { l.b },
            kind: if ud.is_tree_link(i as u32) {
                "tree"
            } else {
                "cross"
            },
        })
        .collect();
    NetworkSummary {
        switches: s as usize,
        nodes: net.num_nodes(),
        links: net.links().len(),
        root: 0,
        switch,
        link,
        routing,
    }
}

/// Sums over the ordered pairs `(x, d)` of one group of destinations.
#[derive(Clone, Debug)]
struct PairSums {
    sum_ud: u64,
    max_ud: u32,
    sum_sp: u64,
    detour: usize,
    adaptive: usize,
    pairs: usize,
    /// Each switch's candidate ports, summed over the group (phase up).
    candidates: Vec<u64>,
}

impl PairSums {
    fn new(s: usize) -> PairSums {
        PairSums {
            sum_ud: 0,
            max_ud: 0,
            sum_sp: 0,
            detour: 0,
            adaptive: 0,
            pairs: 0,
            candidates: vec![0; s],
        }
    }

    fn add(mut self, o: PairSums) -> PairSums {
        self.sum_ud += o.sum_ud;
        self.max_ud = self.max_ud.max(o.max_ud);
        self.sum_sp += o.sum_sp;
        self.detour += o.detour;
        self.adaptive += o.adaptive;
        self.pairs += o.pairs;
        for (a, b) in self.candidates.iter_mut().zip(o.candidates) {
            *a += b;
        }
        self
    }
}

/// The routing summary, and each switch's count of candidate ports summed
/// over the other switches (phase up). Destinations are taken 64 at a
/// time: one breadth-first search of the group gives every switch's
/// shortest distance from each of them ([`Neighbours::shortest_from64`];
/// links being two-way, those are the distances to them), one backward
/// search of the legal routes gives the length of every switch's route to
/// them ([`UdLengths`]: the tables are as built, and their routes are
/// those shortest legal ones), and the tables, stored destination by
/// destination, are read in that order for the candidates. Groups run
/// in parallel; the sums are of integers, so their order does not matter.
fn routing_summary(net: &Network, ud: &UpDown, rt: &RoutingTables) -> (RoutingSummary, Vec<u64>) {
    let s = net.num_switches();
    let nb = Neighbours::new(net);
    let lengths = UdLengths::new(net, ud);
    let group = |g: usize| {
        let d0 = 64 * g;
        let n = (s - d0).min(64);
        let sp = nb.shortest_from64(d0, n);
        let mut lv = Vec::new();
        lengths.group(d0, n, &mut lv);
        let mut acc = PairSums::new(s);
        for j in 0..n {
            let d = (d0 + j) as u32;
            let sp = &sp[j * s..(j + 1) * s];
            let ud = &lv[j * s..(j + 1) * s];
            for x in 0..s as u32 {
                if x == d {
                    continue;
                }
                acc.pairs += 1;
                let h = ud[x as usize];
                assert!(h != RouteLengths::NEVER, "up*/down* connects every pair");
                acc.sum_ud += h as u64;
                acc.max_ud = acc.max_ud.max(h);
                acc.sum_sp += sp[x as usize] as u64;
                if h > sp[x as usize] {
                    acc.detour += 1;
                }
                let c = rt.switch_candidates(x, d, Phase::Up).count();
                acc.candidates[x as usize] += c as u64;
                if c > 1 {
                    acc.adaptive += 1;
                }
            }
        }
        acc
    };
    let groups = s.div_ceil(64);
    let in_order = || {
        (0..groups)
            .map(&group)
            .fold(PairSums::new(s), PairSums::add)
    };
    #[cfg(feature = "parallel")]
    let sums = if crate::par::spread() {
        use rayon::prelude::*;
        (0..groups)
            .into_par_iter()
            .map(&group)
            .reduce(|| PairSums::new(s), PairSums::add)
    } else {
        in_order()
    };
    #[cfg(not(feature = "parallel"))]
    let sums = in_order();
    let pairs = sums.pairs;
    let avg = |v: u64| {
        if pairs > 0 {
            v as f64 / pairs as f64
        } else {
            0.0
        }
    };
    let r = RoutingSummary {
        avg_ud_hops: avg(sums.sum_ud),
        max_ud_hops: sums.max_ud,
        avg_shortest_hops: avg(sums.sum_sp),
        pairs_detoured: sums.detour,
        adaptive_entries: sums.adaptive,
        pairs,
    };
    (r, sums.candidates)
}

/// Each switch's neighbours over its links (a neighbour once per link to
/// it), kept as one array with an offset per switch.
struct Neighbours {
    start: Vec<u32>,
    peer: Vec<u32>,
}

impl Neighbours {
    fn new(net: &Network) -> Neighbours {
        let s = net.num_switches();
        let mut start = Vec::with_capacity(s + 1);
        let mut peer = Vec::new();
        start.push(0);
        for x in 0..s as u32 {
            for (_, c) in net.ports_of(x) {
                if let PortConn::Link { peer: p, .. } = c {
                    peer.push(p.switch);
                }
            }
            start.push(peer.len() as u32);
        }
        Neighbours { start, peer }
    }

    fn of(&self, x: u32) -> &[u32] {
        &self.peer[self.start[x as usize] as usize..self.start[x as usize + 1] as usize]
    }

    /// Shortest distances in links (ignoring the up*/down* rule) from each
    /// of the switches `d0..d0 + n` (`n` at most 64) to every switch:
    /// entry `j * s + x` is the distance between `d0 + j` and `x`, or
    /// `u32::MAX` where no path joins them. One breadth-first search
    /// carries the 64 sources as the bits of a word: a switch's word in the
    /// frontier says which sources reached it at this distance, and only
    /// switches on the frontier are visited, so no search costs more than
    /// the 64 it stands for.
    fn shortest_from64(&self, d0: usize, n: usize) -> Vec<u32> {
        debug_assert!((1..=64).contains(&n));
        let s = self.start.len() - 1;
        let mut dist = vec![u32::MAX; n * s];
        let mut seen = vec![0u64; s];
        let mut front = vec![0u64; s];
        let mut next = vec![0u64; s];
        let mut on_front: Vec<u32> = (d0..d0 + n).map(|x| x as u32).collect();
        let mut on_next = Vec::new();
        for j in 0..n {
            seen[d0 + j] = 1 << j;
            front[d0 + j] = 1 << j;
            dist[j * s + d0 + j] = 0;
        }
        let mut level = 0;
        while !on_front.is_empty() {
            level += 1;
            for &y in &on_front {
                let f = std::mem::take(&mut front[y as usize]);
                for &p in self.of(y) {
                    let new = f & !seen[p as usize];
                    if new != 0 {
                        if next[p as usize] == 0 {
                            on_next.push(p);
                        }
                        next[p as usize] |= new;
                        seen[p as usize] |= new;
                    }
                }
            }
            for &p in &on_next {
                let mut bits = next[p as usize];
                while bits != 0 {
                    let j = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    dist[j * s + p as usize] = level;
                }
            }
            on_front.clear();
            std::mem::swap(&mut on_front, &mut on_next);
            std::mem::swap(&mut front, &mut next);
        }
        dist
    }
}

impl NetworkSummary {
    /// A human-readable rendering.
    pub fn to_text(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{} switches, {} nodes, {} links; spanning tree rooted at switch {}",
            self.switches, self.nodes, self.links, self.root
        );
        for s in &self.switch {
            let parent = match s.parent {
                Some(p) => format!("parent {} (link {})", p.switch, p.link),
                None => "root".to_string(),
            };
            let _ = writeln!(
                o,
                "switch {:>3}  level {}  {}  nodes {:?}  avg candidates {:.2}",
                s.id, s.level, parent, s.nodes, s.avg_candidates
            );
            for p in &s.ports {
                if p.to.starts_with("switch") {
                    let _ = writeln!(o, "    port {:>2} -> {:<20} {}", p.port, p.to, p.dir);
                }
            }
        }
        let _ = writeln!(o, "links (up end first):");
        for l in &self.link {
            let down = if l.up_end == l.a { l.b } else { l.a };
            let _ = writeln!(o, "    {} <- {}  {}", l.up_end, down, l.kind);
        }
        let r = &self.routing;
        let _ = writeln!(
            o,
            "routing: {} switch pairs, up*/down* hops avg {:.3} max {}, shortest-path avg {:.3}, \
             {} pairs detoured, {} table entries with a choice of ports",
            r.pairs,
            r.avg_ud_hops,
            r.max_ud_hops,
            r.avg_shortest_hops,
            r.pairs_detoured,
            r.adaptive_entries
        );
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::irregular::IrregularParams;
    use proptest::prelude::*;

    /// One source's distances by a plain breadth-first search.
    fn bfs(net: &Network, x: u32) -> Vec<u32> {
        let mut d = vec![u32::MAX; net.num_switches()];
        d[x as usize] = 0;
        let mut q = std::collections::VecDeque::from([x]);
        while let Some(y) = q.pop_front() {
            for (_, c) in net.ports_of(y) {
                if let PortConn::Link { peer, .. } = c
                    && d[peer.switch as usize] == u32::MAX
                {
                    d[peer.switch as usize] = d[y as usize] + 1;
                    q.push_back(peer.switch);
                }
            }
        }
        d
    }

    fn network(switches: u32, ports: u32, connectivity: f64, seed: u64) -> Option<Network> {
        let prm = IrregularParams {
            switches,
            ports,
            nodes: switches,
            connectivity,
            seed,
        };
        prm.generate().ok().map(|t| Network::new(&t).unwrap())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// The backward search of up to 64 destinations at once gives the
        /// length of every switch's route in phase Up as the tables, as
        /// built, route it, walked hop by hop ([`RouteLengths`]), for groups
        /// that start anywhere, on networks sparse and dense, with masks of
        /// one and two bytes.
        #[test]
        fn the_routes_searched_64_at_a_time_are_the_routes_walked(
            s in 2u32..150, ports in 4u32..13, conn in 0.3f64..=1.0, seed in any::<u64>(),
            start in any::<prop::sample::Index>(), len in 1usize..=64,
        ) {
            let Some(net) = network(s, ports, conn, seed) else { return Ok(()) };
            let (ud, rt) = RoutingTables::for_network(&net);
            let d0 = start.index(s as usize);
            let n = len.min(s as usize - d0);
            let mut got = vec![7; 3];
            UdLengths::new(&net, &ud).group(d0, n, &mut got);
            prop_assert_eq!(got.len(), n * s as usize);
            let mut walker = RouteLengths::new(&rt);
            for j in 0..n {
                let want = walker.to((d0 + j) as u32);
                for x in 0..s as usize {
                    prop_assert_eq!(
                        got[j * s as usize + x],
                        want[2 * x + Phase::Up as usize],
                        "switch {} to {}", x, d0 + j
                    );
                }
            }
        }

        /// The search of 64 sources at once gives each source's distances
        /// as its own search does, for groups that start anywhere and hold
        /// 1 to 64 sources, on networks sparse (long paths, a frontier
        /// that splits and meets) and dense.
        #[test]
        fn a_search_of_64_sources_is_64_searches(
            s in 2u32..150, ports in 4u32..9, conn in 0.3f64..=1.0, seed in any::<u64>(),
            start in any::<prop::sample::Index>(), len in 1usize..=64,
        ) {
            let Some(net) = network(s, ports, conn, seed) else { return Ok(()) };
            let nb = Neighbours::new(&net);
            let d0 = start.index(s as usize);
            let n = len.min(s as usize - d0);
            let got = nb.shortest_from64(d0, n);
            for j in 0..n {
                let want = bfs(&net, (d0 + j) as u32);
                prop_assert_eq!(&got[j * s as usize..(j + 1) * s as usize], &want[..], "source {}", d0 + j);
            }
        }
    }

    /// The summary's routing figures, summed group by group, are those of
    /// the pairs one by one: route lengths walked hop by hop and shortest
    /// paths by one search per switch (150 switches: three groups, the
    /// last of 22).
    #[test]
    fn routing_figures_are_the_pairs_one_by_one() {
        for (conn, seed) in [(0.4, 1), (0.7, 2), (1.0, 3)] {
            let net = network(150, 8, conn, seed).expect("a valid network");
            let (ud, rt) = RoutingTables::for_network(&net);
            let (r, cand) = routing_summary(&net, &ud, &rt);
            let s = net.num_switches() as u32;
            let (mut sum_ud, mut max_ud, mut sum_sp, mut detour, mut adaptive, mut pairs) =
                (0u64, 0u32, 0u64, 0usize, 0usize, 0usize);
            let mut want_cand = vec![0u64; s as usize];
            for d in 0..s {
                let sp = bfs(&net, d);
                for x in (0..s).filter(|&x| x != d) {
                    pairs += 1;
                    let h = rt.distance(x, d, Phase::Up).unwrap();
                    sum_ud += h as u64;
                    max_ud = max_ud.max(h);
                    sum_sp += sp[x as usize] as u64;
                    detour += usize::from(h > sp[x as usize]);
                    let c = rt.switch_candidates(x, d, Phase::Up).count();
                    want_cand[x as usize] += c as u64;
                    adaptive += usize::from(c > 1);
                }
            }
            assert_eq!(r.pairs, pairs);
            assert_eq!(r.max_ud_hops, max_ud);
            assert_eq!(r.avg_ud_hops, sum_ud as f64 / pairs as f64);
            assert_eq!(r.avg_shortest_hops, sum_sp as f64 / pairs as f64);
            assert_eq!(r.pairs_detoured, detour);
            assert_eq!(r.adaptive_entries, adaptive);
            assert_eq!(cand, want_cand);
            assert!(
                detour > 0 || conn == 1.0,
                "a sparse network detours somewhere"
            );
        }
    }
}
