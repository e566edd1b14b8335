//! A description of a network for `wormcast topo show`: levels, the up end of
//! every link, and a summary of the routing tables.

use super::{Network, Phase, PortConn, PortRef, RoutingTables, TreeParent};
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
    let (routing, candidates) = routing_summary(net, &rt);
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

/// The routing summary, and each switch's count of candidate ports summed
/// over the other switches (phase up). The tables are stored destination
/// by destination, so they are read in that order.
fn routing_summary(net: &Network, rt: &RoutingTables) -> (RoutingSummary, Vec<u64>) {
    let s = net.num_switches() as u32;
    let mut candidates = vec![0u64; s as usize];
    let (mut sum_ud, mut max_ud, mut sum_sp, mut detour, mut adaptive, mut pairs) =
        (0u64, 0u32, 0u64, 0, 0, 0);
    // By destination: one pass gives every switch's route length to it,
    // and, links being two-way, the shortest paths from it are those to it.
    for d in 0..s {
        let sp = shortest_from(net, d);
        let ud = rt.distances_to(d);
        for x in 0..s {
            if x == d {
                continue;
            }
            pairs += 1;
            let h = ud[x as usize][Phase::Up as usize].expect("up*/down* connects every pair");
            sum_ud += h as u64;
            max_ud = max_ud.max(h);
            sum_sp += sp[x as usize] as u64;
            if h > sp[x as usize] {
                detour += 1;
            }
            let c = rt.switch_candidates(x, d, Phase::Up).count();
            candidates[x as usize] += c as u64;
            if c > 1 {
                adaptive += 1;
            }
        }
    }
    let avg = |v: u64| {
        if pairs > 0 {
            v as f64 / pairs as f64
        } else {
            0.0
        }
    };
    let r = RoutingSummary {
        avg_ud_hops: avg(sum_ud),
        max_ud_hops: max_ud,
        avg_shortest_hops: avg(sum_sp),
        pairs_detoured: detour,
        adaptive_entries: adaptive,
        pairs,
    };
    (r, candidates)
}

fn shortest_from(net: &Network, x: u32) -> Vec<u32> {
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
