//! BookSim's anynet network files read as topologies, so that a network
//! written for BookSim runs here unchanged (N. Jiang et al., "A Detailed
//! and Flexible Cycle-Accurate Network-on-Chip Simulator", ISPASS 2013;
//! the format is that of its `anynet` topology).
//!
//! Each line names a router or a node and then what it is connected to:
//!
//! ```text
//! router 0 node 0 node 1 router 1 router 2
//! router 1 node 2 node 3 router 2
//! router 2 node 4 node 5
//! ```
//!
//! A link between two routers is full duplex, whichever line lists it (and
//! listed twice it is one link); a node is attached to exactly one router.
//! A link may be followed by its latency in cycles; the switch model's links
//! take one cycle (seed 000 section 6.2), so any other latency is refused
//! rather than run as something else.
//!
//! Ports are numbered as BookSim numbers them, so that a port named in
//! either simulator's output is the same port: first a router's nodes in
//! ascending id order, then its neighbouring routers in ascending id order.
//! A router has as many ports as it has nodes and neighbours.
//!
//! BookSim reads an id with `atoi`, so that a mistyped id quietly becomes
//! router or node 0; here every token that is not what its place asks for
//! is refused with its line.
//!
//! A topology is written as an anynet file too ([`to_anynet_string`]), for
//! BookSim to run a network generated or written here.

use super::topology::{LinkSpec, NodeSpec, PortRef, SourceLines, SwitchSpec, Topology};
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};

/// True when `text` looks like an anynet file: its first line that is not
/// blank starts with the word `router` or `node`, not followed by `=` (a
/// TOML key of that name, which a topology file does not have, is left to
/// the TOML reader to name).
pub fn is_anynet(text: &str) -> bool {
    let Some(line) = text.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return false;
    };
    let mut words = line.split_whitespace();
    words.next().is_some_and(|w| w == "router" || w == "node")
        && !words.next().is_some_and(|w| w.starts_with('='))
}

/// What a line connects its head to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Router,
    Node,
}

impl Kind {
    fn parse(word: &str) -> Option<Kind> {
        match word {
            "router" => Some(Kind::Router),
            "node" => Some(Kind::Node),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Router => "router",
            Kind::Node => "node",
        }
    }
}

/// Parses an anynet file into a topology (not yet checked: [`Network::new`]
/// checks it as it checks a TOML file, naming the line of each switch, link
/// and node).
///
/// [`Network::new`]: super::topology::Network::new
pub fn from_anynet_str(text: &str) -> Result<Topology> {
    // Routers by id with the line each first appears on, each router's
    // nodes, each node's router, and the links (lower id first), each
    // with the line that first named it.
    let mut routers: BTreeMap<u32, usize> = BTreeMap::new();
    let mut attached: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    let mut nodes: BTreeMap<u32, (u32, usize)> = BTreeMap::new();
    let mut links: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let bad = |message: String| Error::Anynet { line, message };
        let words: Vec<&str> = raw.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        let kind = |w: &str| {
            Kind::parse(w).ok_or_else(|| bad(format!("`{w}` where `router` or `node` belongs")))
        };
        let id = |k: Kind, w: Option<&&str>| -> Result<u32> {
            let w = w.ok_or_else(|| bad(format!("`{}` without its id", k.name())))?;
            w.parse::<u32>().map_err(|_| {
                bad(format!(
                    "{} id `{w}` is not a whole number from 0 to {}",
                    k.name(),
                    u32::MAX
                ))
            })
        };
        let head = kind(words[0])?;
        let h = id(head, words.get(1))?;
        if head == Kind::Router {
            routers.entry(h).or_insert(line);
        }
        let mut at = 2;
        while at < words.len() {
            let body = kind(words[at])?;
            let b = id(body, words.get(at + 1))?;
            at += 2;
            // An optional latency, in cycles.
            if let Some(w) = words.get(at)
                && Kind::parse(w).is_none()
            {
                let lat: u64 = w.parse().map_err(|_| {
                    bad(format!(
                        "`{w}` after {} {b}: a link's latency in cycles, or `router` or `node`",
                        body.name()
                    ))
                })?;
                if lat != 1 {
                    return Err(bad(format!(
                        "the link from {} {h} to {} {b} takes {lat} cycles; the model's links \
                         take one cycle (seed 000 section 6.2), so only a latency of 1 is read",
                        head.name(),
                        body.name()
                    )));
                }
                at += 1;
            }
            match (head, body) {
                (Kind::Node, Kind::Node) => {
                    return Err(bad(format!(
                        "node {h} is connected to node {b}: a node connects to a router"
                    )));
                }
                (Kind::Router, Kind::Router) => {
                    if h == b {
                        return Err(bad(format!("router {h} is connected to itself")));
                    }
                    routers.entry(b).or_insert(line);
                    links.entry((h.min(b), h.max(b))).or_insert(line);
                }
                _ => {
                    let (node, router) = if head == Kind::Node { (h, b) } else { (b, h) };
                    routers.entry(router).or_insert(line);
                    match nodes.get(&node) {
                        Some(&(r, first)) if r != router => {
                            return Err(bad(format!(
                                "node {node} is connected to router {router} and, on line \
                                 {first}, to router {r}: a node connects to one router"
                            )));
                        }
                        Some(_) => {}
                        None => {
                            nodes.insert(node, (router, line));
                        }
                    }
                    attached.entry(router).or_default().insert(node);
                }
            }
        }
    }
    if routers.is_empty() && nodes.is_empty() {
        return Err(Error::Anynet {
            line: 0,
            message: "no router or node is named".into(),
        });
    }
    let mut neighbours: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for &(a, b) in links.keys() {
        neighbours.entry(a).or_default().insert(b);
        neighbours.entry(b).or_default().insert(a);
    }
    // BookSim's port order: nodes, then neighbouring routers, each by id.
    let empty = BTreeSet::new();
    let port_of = |r: u32, n: u32, is_node: bool| -> u32 {
        let own = attached.get(&r).unwrap_or(&empty);
        let pos = if is_node {
            own.range(..n).count()
        } else {
            own.len() + neighbours[&r].range(..n).count()
        };
        pos as u32
    };
    let mut t = Topology::default();
    let mut lines = SourceLines::default();
    for (&r, &line) in &routers {
        let ports =
            attached.get(&r).map_or(0, BTreeSet::len) + neighbours.get(&r).map_or(0, BTreeSet::len);
        t.switches.push(SwitchSpec {
            id: r,
            ports: u32::try_from(ports).unwrap_or(u32::MAX),
        });
        lines.switches.push(line);
    }
    for (&(a, b), &line) in &links {
        t.links.push(LinkSpec {
            a: PortRef::new(a, port_of(a, b, false)),
            b: PortRef::new(b, port_of(b, a, false)),
        });
        lines.links.push(line);
    }
    for (&n, &(r, line)) in &nodes {
        t.nodes.push(NodeSpec {
            id: n,
            at: PortRef::new(r, port_of(r, n, true)),
        });
        lines.nodes.push(line);
    }
    t.lines = Some(lines);
    Ok(t)
}

/// Writes `t` as an anynet file: a line per router, its nodes and then its
/// neighbours of higher id, each by id (the lower end's line lists a
/// link). BookSim numbers the ports itself, nodes first, so the network it
/// builds is this one with its ports in that order: a file read back by
/// [`from_anynet_str`] gives the same switches, links and nodes where the
/// ports already were in that order. Two switches joined by more than one
/// link are refused: an anynet file joins two routers once.
pub fn to_anynet_string(t: &Topology) -> Result<String> {
    let mut nodes: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for n in &t.nodes {
        nodes.entry(n.at.switch).or_default().insert(n.id);
    }
    let mut up: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for l in &t.links {
        let (a, b) = (l.a.switch.min(l.b.switch), l.a.switch.max(l.b.switch));
        if !up.entry(a).or_default().insert(b) {
            return Err(Error::Anynet {
                line: 0,
                message: format!(
                    "switches {a} and {b} are joined by more than one link, and an anynet file \
                     joins two routers once"
                ),
            });
        }
    }
    let mut out = String::new();
    for s in &t.switches {
        out.push_str(&format!("router {}", s.id));
        for n in nodes.get(&s.id).into_iter().flatten() {
            out.push_str(&format!(" node {n}"));
        }
        for r in up.get(&s.id).into_iter().flatten() {
            out.push_str(&format!(" router {r}"));
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Network;

    /// BookSim's own example: three routers of three nodes each.
    const EXAMPLE: &str = "router 0 node 0 node 1 node 2 router 1\n\
                           router 1 node 3 node 4 node 5\n\
                           router 2 node 6 node 7 node 8 router 1 router 0\n";

    #[test]
    fn ports_follow_booksims_order_and_links_are_full_duplex() {
        assert!(is_anynet(EXAMPLE) && is_anynet("\n  node 0 router 1\n"));
        assert!(!is_anynet("# router 0\n[[switch]]\n") && !is_anynet(""));
        assert!(!is_anynet("router = 5\n") && !is_anynet("node =5\n") && !is_anynet("routers 1\n"));
        let t = from_anynet_str(EXAMPLE).unwrap();
        let ports: Vec<(u32, u32)> = t.switches.iter().map(|s| (s.id, s.ports)).collect();
        assert_eq!(ports, [(0, 5), (1, 5), (2, 5)]);
        let links: Vec<([u32; 2], [u32; 2])> =
            t.links.iter().map(|l| (l.a.into(), l.b.into())).collect();
        // Router 0's neighbours 1 and 2 follow its three nodes; router 1's
        // are 0 and 2, router 2's 0 and 1.
        assert_eq!(
            links,
            [([0, 3], [1, 3]), ([0, 4], [2, 3]), ([1, 4], [2, 4])]
        );
        let at: Vec<[u32; 2]> = t.nodes.iter().map(|n| n.at.into()).collect();
        assert_eq!(
            at,
            [
                [0, 0],
                [0, 1],
                [0, 2],
                [1, 0],
                [1, 1],
                [1, 2],
                [2, 0],
                [2, 1],
                [2, 2]
            ]
        );
        let lines = t.lines.clone().unwrap();
        assert_eq!(lines.links, [1, 3, 3]);
        assert_eq!(lines.nodes, [1, 1, 1, 2, 2, 2, 3, 3, 3]);
        let net = Network::new(&t).unwrap();
        assert_eq!((net.num_switches(), net.num_nodes()), (3, 9));
        // A node may name its router, a link may be listed from both ends
        // and carry a latency of one cycle: the same network.
        let again = from_anynet_str(
            "node 0 router 0\nrouter 0 node 1 node 2 1 router 1 1\n\
             router 1 node 3 node 4 node 5 router 0\n\
             router 2 router 1 router 0 node 8 node 7 node 6\n",
        )
        .unwrap();
        assert_eq!(
            (&again.switches, &again.links, &again.nodes),
            (&t.switches, &t.links, &t.nodes)
        );
    }

    #[test]
    fn a_topology_written_as_anynet_reads_back() {
        let t = from_anynet_str(EXAMPLE).unwrap();
        let text = to_anynet_string(&t).unwrap();
        assert_eq!(
            text,
            "router 0 node 0 node 1 node 2 router 1 router 2\n\
             router 1 node 3 node 4 node 5 router 2\n\
             router 2 node 6 node 7 node 8\n"
        );
        let back = from_anynet_str(&text).unwrap();
        assert_eq!(
            (&back.switches, &back.links, &back.nodes),
            (&t.switches, &t.links, &t.nodes)
        );
        let mut twice = t.clone();
        twice.links.push(twice.links[0]);
        assert_eq!(
            to_anynet_string(&twice).unwrap_err().to_string(),
            "switches 0 and 1 are joined by more than one link, and an anynet file joins two \
             routers once (BookSim anynet file)"
        );
    }

    #[test]
    fn what_booksim_would_misread_is_refused_by_line() {
        let e = |t: &str| from_anynet_str(t).unwrap_err().to_string();
        assert_eq!(
            e("router 0 node 0\nrouter 1 node x\n"),
            "line 2: node id `x` is not a whole number from 0 to 4294967295 (BookSim anynet file)"
        );
        assert_eq!(
            e("router 0 node 0 router 1 10\n"),
            "line 1: the link from router 0 to router 1 takes 10 cycles; the model's links take \
             one cycle (seed 000 section 6.2), so only a latency of 1 is read (BookSim anynet file)"
        );
        assert!(
            e("router 0 node 0\nnode 0 router 1\n")
                .contains("line 2: node 0 is connected to router 1 and, on line 1, to router 0")
        );
        assert!(e("node 0 node 1\n").contains("line 1: node 0 is connected to node 1"));
        assert!(e("router 3 router 3\n").contains("router 3 is connected to itself"));
        assert!(e("router 0 switch 1\n").contains("`switch` where `router` or `node` belongs"));
        assert!(e("router 0 node\n").contains("`node` without its id"));
        assert!(e("router 0 node 1 fast\n").contains("`fast` after node 1"));
        assert!(e("\n\n").contains("no router or node"));
        // What the topology's own checks find is named by its line.
        let t = from_anynet_str("router 0 node 0 router 2\nrouter 2 node 1\n").unwrap();
        let e = Network::new(&t).unwrap_err().to_string();
        assert!(e.contains("id 1 is missing"), "{e}");
    }
}
