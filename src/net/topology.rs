//! Topology files and their validation.
//!
//! A topology is a set of switches with numbered ports, full-duplex links
//! between ports of two different switches (several links may join the same
//! two switches), and processing nodes attached to switch ports (seed 000
//! section 2.1). It is written by hand or by the generator in TOML:
//!
//! ```toml
//! [[switch]]
//! id = 0
//! ports = 8
//! [[link]]            # full-duplex link between two switch ports
//! a = [0, 3]          # [switch, port]
//! b = [5, 1]
//! [[node]]            # a processing node attached to a switch port
//! id = 0
//! at = [0, 0]
//! ```
//!
//! [`Topology`] is the file's content; [`Network`] is a topology that passed
//! every check, with the port-level connection table the rest of the crate
//! reads.

use crate::error::{Error, Item, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// A port of a switch, written `[switch, port]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "[u32; 2]", into = "[u32; 2]")]
pub struct PortRef {
    /// Switch id.
    pub switch: u32,
    /// Port number on that switch, from 0.
    pub port: u32,
}

impl PortRef {
    /// `[switch, port]`.
    pub fn new(switch: u32, port: u32) -> Self {
        PortRef { switch, port }
    }
}

impl From<[u32; 2]> for PortRef {
    fn from(a: [u32; 2]) -> Self {
        PortRef::new(a[0], a[1])
    }
}

impl From<PortRef> for [u32; 2] {
    fn from(p: PortRef) -> Self {
        [p.switch, p.port]
    }
}

impl fmt::Display for PortRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.switch, self.port)
    }
}

/// Most switches a network may have. The real bound is memory: the routing
/// tables take `2 s²` port masks (one byte each up to 8 ports), and a
/// network whose tables would not fit the memory available is refused
/// ([`Network::new`]).
pub const MAX_SWITCHES: usize = 1 << 20;

/// Most nodes a network may have (a packet tag names its source in at most
/// 20 of its 32 bits).
pub const MAX_NODES: usize = 1 << 20;

/// Bytes a simulation of the network takes per switch port besides the
/// routing tables, as [`Network::new`] reckons before anything is built:
/// about twice what whole `wormcast run`s measured (0.6 - 0.9 kB a port
/// and 1.0 kB a node, from runs of 4,096 and 16,384 switches of 8, 16 and
/// 32 ports; docs/performance-log.md, "A header scratch per switch, and
/// what a network is refused by"), so that a network refused is
/// one whose build would not fit, not merely one near the edge.
const PORT_BYTES: u128 = 1536;

/// Bytes per node besides the routing tables (as [`PORT_BYTES`]).
const NODE_BYTES: u128 = 2048;

/// Refuses a topology whose simulation would take more than `available`
/// bytes: its routing tables, and the rest reckoned by [`PORT_BYTES`] and
/// [`NODE_BYTES`].
fn fits_in(t: &Topology, available: u64) -> Result<()> {
    let widest = t.switches.iter().map(|s| s.ports).max().unwrap_or(0);
    let ports: u128 = t.switches.iter().map(|s| s.ports as u128).sum();
    fits_shape(t.switches.len(), widest, ports, t.nodes.len(), available)
}

/// Bytes a simulation of `t` is reckoned to take: its routing tables, and
/// the rest.
fn reckon(t: &Topology) -> (u128, u128) {
    let widest = t.switches.iter().map(|s| s.ports).max().unwrap_or(0);
    let ports: u128 = t.switches.iter().map(|s| s.ports as u128).sum();
    reckon_shape(t.switches.len(), widest, ports, t.nodes.len())
}

/// [`Network::reckoned_bytes`] of a topology not yet checked: what a run
/// of it would be refused by, for a caller that must know before it builds
/// one (a sweep sharing memory between its jobs).
pub(crate) fn reckoned_bytes(t: &Topology) -> u128 {
    let (tables, rest) = reckon(t);
    tables + rest
}

/// [`Network::reckoned_bytes`] of a network known by its shape (see
/// [`fits_shape`]).
pub(crate) fn shape_bytes(switches: usize, widest: u32, ports: u128, nodes: usize) -> u128 {
    let (tables, rest) = reckon_shape(switches, widest, ports, nodes);
    tables + rest
}

/// [`reckon`] of a network known by its shape (see [`fits_shape`]).
fn reckon_shape(switches: usize, widest: u32, ports: u128, nodes: usize) -> (u128, u128) {
    (
        table_bytes(switches, widest),
        ports * PORT_BYTES + nodes as u128 * NODE_BYTES,
    )
}

/// Bytes of the tables of a network of `switches` switches of at most
/// `ports` ports (what [`RoutingTables::new`](super::RoutingTables::new)
/// allocates for them).
fn table_bytes(switches: usize, ports: u32) -> u128 {
    let width = match ports {
        0..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        _ => 8,
    };
    switches as u128 * switches as u128 * 2 * width
}

/// [`Network::new`]'s memory check on a network known only by its shape:
/// `switches` switches of at most `widest` ports, `ports` ports in all,
/// and `nodes` nodes. A generated network is checked this way before it
/// is generated, so that one far too large is refused at once.
pub(crate) fn fits_shape(
    switches: usize,
    widest: u32,
    ports: u128,
    nodes: usize,
    available: u64,
) -> Result<()> {
    let (tables, rest) = reckon_shape(switches, widest, ports, nodes);
    if tables + rest > available as u128 {
        return Err(Error::TablesTooLarge {
            switches,
            bytes: tables,
            rest,
            available,
        });
    }
    Ok(())
}

/// A `[[switch]]` entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    /// Switch id; ids run 0..s-1.
    pub id: u32,
    /// Number of ports (1 to 64).
    pub ports: u32,
}

/// A `[[link]]` entry: a full-duplex link between two switch ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// One end.
    pub a: PortRef,
    /// The other end.
    pub b: PortRef,
}

/// A `[[node]]` entry: a processing node on a switch port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Node id; ids run 0..N-1.
    pub id: u32,
    /// The switch port it is attached to.
    pub at: PortRef,
}

/// A topology as written in a file (not yet checked).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// The switches.
    #[serde(rename = "switch", default)]
    pub switches: Vec<SwitchSpec>,
    /// The inter-switch links.
    #[serde(rename = "link", default)]
    pub links: Vec<LinkSpec>,
    /// The nodes.
    #[serde(rename = "node", default)]
    pub nodes: Vec<NodeSpec>,
    /// 1-based lines of each entry when parsed from text, for error messages.
    #[serde(skip)]
    pub lines: Option<SourceLines>,
}

/// Lines of the `[[switch]]`, `[[link]]` and `[[node]]` headers of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceLines {
    /// Line of each switch entry.
    pub switches: Vec<usize>,
    /// Line of each link entry.
    pub links: Vec<usize>,
    /// Line of each node entry.
    pub nodes: Vec<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpannedFile {
    #[serde(rename = "switch", default)]
    switches: Vec<toml::Spanned<SwitchSpec>>,
    #[serde(rename = "link", default)]
    links: Vec<toml::Spanned<LinkSpec>>,
    #[serde(rename = "node", default)]
    nodes: Vec<toml::Spanned<NodeSpec>>,
}

/// 1-based line and column of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

/// The lines of many offsets in one text: the newlines are found once and
/// each offset's line by a binary search among them (counting from the
/// start for each entry made a 4,096-switch file take 18 s to read).
struct LineIndex {
    newlines: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        LineIndex {
            newlines: text
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        }
    }

    /// The 1-based line of byte `offset`.
    fn line(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&n| n < offset) + 1
    }
}

/// Converts a TOML error to [`Error::Toml`] with its line and column.
pub(crate) fn toml_error(text: &str, e: toml::de::Error) -> Error {
    let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
    Error::Toml {
        line,
        column,
        message: toml_message(&e),
    }
}

/// A TOML error's message, with a float serde writes out in full (`1e300`
/// as its 301 digits, in "invalid type: floating point `...`") put back
/// in exponent form, so that the refusal stays a line. Any quoted run of
/// more than 24 characters that reads as a number is shortened, whatever
/// words serde puts around it.
pub(crate) fn toml_message(e: &toml::de::Error) -> String {
    shorten_numbers(e.message())
}

/// `m` with each `` `...` `` of more than 24 characters that parses as a
/// float written by [`crate::error::show_number`]. Only a float's text
/// with its decimal point is taken (serde writes one into every float):
/// a key of 25 digits (`unknown field `...``) is a name, not a number.
fn shorten_numbers(m: &str) -> String {
    let mut out = String::with_capacity(m.len());
    let mut rest = m;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        let quoted = &rest[open + 1..open + 1 + len];
        out.push_str(&rest[..=open]);
        match quoted.parse::<f64>() {
            Ok(x) if len > 24 && quoted.contains('.') => {
                out.push_str(&crate::error::show_number(x))
            }
            _ => out.push_str(quoted),
        }
        out.push('`');
        rest = &rest[open + len + 2..];
    }
    out.push_str(rest);
    out
}

/// Bytes parsing a topology's TOML takes a byte of text, reckoned before
/// it is parsed: the parser holds the whole document, each value with its
/// place, and a 50 MB file of 200,000 switches took 2.85 GB (57 bytes a
/// byte, December 7). A file past the memory available is refused before
/// it is parsed, rather than killed by the kernel part way through.
pub const TOML_PARSE_BYTES: u64 = 64;

impl Topology {
    /// Parses a topology from TOML text, remembering each entry's line,
    /// if parsing it fits the memory available ([`TOML_PARSE_BYTES`] a
    /// byte of text).
    pub fn from_toml_str(text: &str) -> Result<Topology> {
        Self::from_toml_str_within(text, crate::memory::available())
    }

    /// [`Self::from_toml_str`] with `available` bytes of memory.
    fn from_toml_str_within(text: &str, available: Option<u64>) -> Result<Topology> {
        let bytes = text.len() as u128 * u128::from(TOML_PARSE_BYTES);
        if let Some(available) = available
            && bytes > u128::from(available)
        {
            return Err(Error::ParseTooLarge {
                text: text.len(),
                per_byte: TOML_PARSE_BYTES,
                bytes,
                available,
            });
        }
        let f: SpannedFile = toml::from_str(text).map_err(|e| toml_error(text, e))?;
        let index = LineIndex::new(text);
        let line = |s: std::ops::Range<usize>| index.line(s.start);
        let lines = SourceLines {
            switches: f.switches.iter().map(|s| line(s.span())).collect(),
            links: f.links.iter().map(|s| line(s.span())).collect(),
            nodes: f.nodes.iter().map(|s| line(s.span())).collect(),
        };
        Ok(Topology {
            switches: f.switches.into_iter().map(|s| s.into_inner()).collect(),
            links: f.links.into_iter().map(|s| s.into_inner()).collect(),
            nodes: f.nodes.into_iter().map(|s| s.into_inner()).collect(),
            lines: Some(lines),
        })
    }

    /// The topology as TOML, in the file format above.
    pub fn to_toml_string(&self) -> String {
        let mut out = Vec::new();
        self.write_toml(&mut out, "")
            .expect("writing to memory cannot fail");
        String::from_utf8(out).expect("the TOML written is ASCII")
    }

    /// Writes the topology as TOML (the file format above) to `w`, with
    /// `comment` lines on top, as it goes: a network of a million switches
    /// is 190 MB of text, which is not held.
    pub fn write_toml(&self, w: &mut impl std::io::Write, comment: &str) -> std::io::Result<()> {
        for l in comment.lines() {
            writeln!(w, "# {l}")?;
        }
        if !comment.is_empty() {
            writeln!(w)?;
        }
        for s in &self.switches {
            write!(w, "[[switch]]\nid = {}\nports = {}\n\n", s.id, s.ports)?;
        }
        for l in &self.links {
            write!(
                w,
                "[[link]]\na = [{}, {}]\nb = [{}, {}]\n\n",
                l.a.switch, l.a.port, l.b.switch, l.b.port
            )?;
        }
        for n in &self.nodes {
            write!(
                w,
                "[[node]]\nid = {}\nat = [{}, {}]\n\n",
                n.id, n.at.switch, n.at.port
            )?;
        }
        Ok(())
    }

    /// Writes the topology to a file, with `comment` lines on top. A write
    /// that fails part way (a full disk) leaves no file: cut short at a
    /// line, it would read as another network, with fewer links or nodes.
    pub fn save(&self, path: impl AsRef<Path>, comment: &str) -> Result<()> {
        crate::error::write_whole(path.as_ref(), |w| self.write_toml(w, comment))
    }

    fn item(&self, kind: &'static str, i: usize) -> Item {
        let line = self.lines.as_ref().and_then(|l| match kind {
            "switch" => l.switches.get(i).copied(),
            "link" => l.links.get(i).copied(),
            _ => l.nodes.get(i).copied(),
        });
        Item {
            kind,
            index: i + 1,
            line,
        }
    }
}

/// What a switch port is connected to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortConn {
    /// Nothing (an open port).
    Open,
    /// A processing node.
    Node(u32),
    /// Another switch's port, over link `link` (index in [`Network::links`]).
    Link {
        /// The link index.
        link: u32,
        /// The port at the other end.
        peer: PortRef,
    },
}

/// A topology that passed every check: ids run 0..n-1, every port is used at
/// most once and exists, no link joins a switch to itself, and the switch
/// graph is connected.
#[derive(Clone, Debug)]
pub struct Network {
    topology: Topology,
    port_base: Vec<u32>,
    conn: Vec<PortConn>,
    nodes: Vec<PortRef>,
    links: Vec<LinkSpec>,
}

impl Network {
    /// Checks a topology.
    pub fn new(topology: &Topology) -> Result<Network> {
        let t = topology;
        if t.switches.is_empty() {
            return Err(Error::NoSwitches);
        }
        if t.nodes.is_empty() {
            return Err(Error::NoNodes);
        }
        for (what, count, max) in [
            ("switches", t.switches.len(), MAX_SWITCHES),
            ("nodes", t.nodes.len(), MAX_NODES),
        ] {
            if count > max {
                return Err(Error::TooLarge { what, count, max });
            }
        }
        // Switch ids: unique, 0..s-1, sane port counts (before the memory
        // check, so that an absurd port count is named as one).
        let s = t.switches.len();
        let mut seen: Vec<Option<usize>> = vec![None; s];
        let mut ports = vec![0u32; s];
        for (i, sw) in t.switches.iter().enumerate() {
            if !(1..=64).contains(&sw.ports) {
                return Err(Error::BadPortCount {
                    item: t.item("switch", i),
                    id: sw.id,
                    ports: sw.ports,
                });
            }
            if let Some(Some(first)) = seen.get(sw.id as usize) {
                return Err(Error::DuplicateId {
                    kind: "switch",
                    id: sw.id,
                    first: t.item("switch", *first),
                    second: t.item("switch", i),
                });
            }
            if (sw.id as usize) < s {
                seen[sw.id as usize] = Some(i);
                ports[sw.id as usize] = sw.ports;
            }
        }
        if let Some(missing) = seen.iter().position(|x| x.is_none()) {
            return Err(Error::IdGap {
                kind: "switch",
                missing: missing as u32,
                count: s,
            });
        }
        if let Some(avail) = crate::memory::available() {
            fits_in(t, avail)?;
        }
        let mut port_base = Vec::with_capacity(s + 1);
        let mut total = 0u32;
        for &p in &ports {
            port_base.push(total);
            total += p;
        }
        port_base.push(total);
        let mut conn = vec![PortConn::Open; total as usize];
        let mut owner: Vec<Option<Item>> = vec![None; total as usize];
        let check_port = |item: &Item, p: PortRef| -> Result<usize> {
            if p.switch as usize >= s {
                return Err(Error::UnknownSwitch {
                    item: item.clone(),
                    switch: p.switch,
                });
            }
            let n = ports[p.switch as usize];
            if p.port >= n {
                return Err(Error::PortOutOfRange {
                    item: item.clone(),
                    switch: p.switch,
                    port: p.port,
                    ports: n,
                });
            }
            Ok((port_base[p.switch as usize] + p.port) as usize)
        };
        let claim =
            |owner: &mut Vec<Option<Item>>, item: &Item, p: PortRef, at: usize| -> Result<()> {
                if let Some(first) = &owner[at] {
                    return Err(Error::PortUsedTwice {
                        switch: p.switch,
                        port: p.port,
                        first: first.clone(),
                        second: item.clone(),
                    });
                }
                owner[at] = Some(item.clone());
                Ok(())
            };
        for (i, l) in t.links.iter().enumerate() {
            let item = t.item("link", i);
            let a = check_port(&item, l.a)?;
            let b = check_port(&item, l.b)?;
            if l.a.switch == l.b.switch {
                return Err(Error::SelfLink {
                    item,
                    switch: l.a.switch,
                });
            }
            claim(&mut owner, &item, l.a, a)?;
            claim(&mut owner, &item, l.b, b)?;
            conn[a] = PortConn::Link {
                link: i as u32,
                peer: l.b,
            };
            conn[b] = PortConn::Link {
                link: i as u32,
                peer: l.a,
            };
        }
        // Node ids: unique, 0..N-1.
        let n = t.nodes.len();
        let mut node_seen: Vec<Option<usize>> = vec![None; n];
        let mut nodes = vec![PortRef::new(0, 0); n];
        for (i, node) in t.nodes.iter().enumerate() {
            let item = t.item("node", i);
            if let Some(Some(first)) = node_seen.get(node.id as usize) {
                return Err(Error::DuplicateId {
                    kind: "node",
                    id: node.id,
                    first: t.item("node", *first),
                    second: item,
                });
            }
            let at = check_port(&item, node.at)?;
            claim(&mut owner, &item, node.at, at)?;
            if (node.id as usize) < n {
                node_seen[node.id as usize] = Some(i);
                nodes[node.id as usize] = node.at;
            }
            conn[at] = PortConn::Node(node.id);
        }
        if let Some(missing) = node_seen.iter().position(|x| x.is_none()) {
            return Err(Error::IdGap {
                kind: "node",
                missing: missing as u32,
                count: n,
            });
        }
        let net = Network {
            topology: t.clone(),
            port_base,
            conn,
            nodes,
            links: t.links.clone(),
        };
        let reach = net.reachable_from(0);
        let unreachable: Vec<u32> = (0..s as u32).filter(|&x| !reach[x as usize]).collect();
        if !unreachable.is_empty() {
            return Err(Error::Disconnected { unreachable });
        }
        Ok(net)
    }

    /// Reads and checks a topology file.
    pub fn load(path: impl AsRef<Path>) -> Result<Network> {
        let path = path.as_ref();
        let t = Topology::load(path)?;
        Network::new(&t).map_err(|e| e.in_file(path))
    }

    fn reachable_from(&self, start: u32) -> Vec<bool> {
        let mut seen = vec![false; self.num_switches()];
        let mut stack = vec![start];
        seen[start as usize] = true;
        while let Some(s) = stack.pop() {
            for (_, c) in self.ports_of(s) {
                if let PortConn::Link { peer, .. } = c
                    && !seen[peer.switch as usize]
                {
                    seen[peer.switch as usize] = true;
                    stack.push(peer.switch);
                }
            }
        }
        seen
    }

    /// The topology this network was built from.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Bytes a simulation of the network is reckoned to take before it is
    /// built: its routing tables, 1,536 bytes per switch port and 2,048 per
    /// node. [`Network::new`] refuses a network whose reckoning exceeds the
    /// memory available.
    pub fn reckoned_bytes(&self) -> u128 {
        reckoned_bytes(&self.topology)
    }

    /// Number of switches.
    pub fn num_switches(&self) -> usize {
        self.port_base.len() - 1
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// Number of ports of switch `s`.
    pub fn num_ports(&self, s: u32) -> u32 {
        self.port_base[s as usize + 1] - self.port_base[s as usize]
    }

    /// Largest port count of any switch.
    pub fn max_ports(&self) -> u32 {
        (0..self.num_switches() as u32)
            .map(|s| self.num_ports(s))
            .max()
            .unwrap_or(0)
    }

    /// What port `p` of switch `s` is connected to.
    pub fn conn(&self, s: u32, p: u32) -> PortConn {
        self.conn[(self.port_base[s as usize] + p) as usize]
    }

    /// The ports of switch `s` with their connections, in port order.
    pub fn ports_of(&self, s: u32) -> impl Iterator<Item = (u32, PortConn)> + '_ {
        (0..self.num_ports(s)).map(move |p| (p, self.conn(s, p)))
    }

    /// The switch port node `n` is attached to.
    pub fn node_port(&self, n: u32) -> PortRef {
        self.nodes[n as usize]
    }

    /// The inter-switch links, in file order.
    pub fn links(&self) -> &[LinkSpec] {
        &self.links
    }

    /// Nodes attached to switch `s`, in port order.
    pub fn nodes_of(&self, s: u32) -> Vec<u32> {
        self.ports_of(s)
            .filter_map(|(_, c)| match c {
                PortConn::Node(n) => Some(n),
                _ => None,
            })
            .collect()
    }
}

/// A link as ((switch, port), (switch, port)), for tests.
#[cfg(test)]
pub(crate) type Wire = ((u32, u32), (u32, u32));

/// `switches` switches of `ports` ports with the given links and one node on
/// port 0 of each switch, for tests.
#[cfg(test)]
pub(crate) fn test_network(switches: u32, ports: u32, links: &[Wire]) -> Network {
    let t = Topology {
        switches: (0..switches).map(|id| SwitchSpec { id, ports }).collect(),
        links: links
            .iter()
            .map(|&(a, b)| LinkSpec {
                a: PortRef::new(a.0, a.1),
                b: PortRef::new(b.0, b.1),
            })
            .collect(),
        nodes: (0..switches)
            .map(|id| NodeSpec {
                id,
                at: PortRef::new(id, 0),
            })
            .collect(),
        lines: None,
    };
    Network::new(&t).expect("test network is valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A topology's TOML is parsed only if its reckoning fits the memory
    /// available: refused one byte short, naming both, parsed at it.
    #[test]
    fn a_topology_too_large_to_parse_is_refused_before_it_is() {
        let text = crate::net::IrregularParams {
            switches: 2_000,
            ports: 8,
            nodes: 8_000,
            ..Default::default()
        }
        .generate_within(None)
        .unwrap()
        .to_toml_string();
        assert_eq!(text.len(), 455_399);
        let need = 455_399 * 64;
        let e = Topology::from_toml_str_within(&text, Some(need - 1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "parsing 0.46 MB of TOML takes about 29 MB (64 bytes a byte of text), more than the \
             29 MB of memory available"
        );
        let t = Topology::from_toml_str_within(&text, Some(need)).unwrap();
        assert_eq!((t.switches.len(), t.nodes.len()), (2_000, 8_000));
    }

    #[test]
    fn a_long_number_in_a_message_is_shortened_whatever_the_words_around_it() {
        let huge = format!("1{}.0", "0".repeat(300));
        for (m, want) in [
            (
                format!("invalid type: floating point `{huge}`, expected u32"),
                "invalid type: floating point `1e300`, expected u32".to_string(),
            ),
            // Other words, two quotes, one of them not a number.
            (
                format!("found `{huge}` where `an unsigned integer` belongs"),
                "found `1e300` where `an unsigned integer` belongs".to_string(),
            ),
            // Short numbers, a quote left open and text past it are kept.
            (
                "expected `2.5` or `-1` and `é".to_string(),
                "expected `2.5` or `-1` and `é".to_string(),
            ),
            (format!("`{huge}"), format!("`{huge}")),
            // A key of digits alone is a name.
            (
                format!("unknown field `{}`", "9".repeat(30)),
                format!("unknown field `{}`", "9".repeat(30)),
            ),
            (String::new(), String::new()),
        ] {
            assert_eq!(shorten_numbers(&m), want);
        }
    }

    proptest::proptest! {
        /// The index gives every offset the line a count from the start
        /// gives, at and beside newlines, at the ends, and past the end.
        #[test]
        fn a_line_index_agrees_with_counting(
            text in "[a\\n=\\[\\]]{0,60}",
            picks in proptest::collection::vec(0usize..70, 1..20),
        ) {
            let index = LineIndex::new(&text);
            for o in picks.into_iter().chain([0, text.len()]) {
                proptest::prop_assert_eq!(index.line(o), line_col(&text, o).0, "offset {}", o);
            }
        }
    }

    const SMALL: &str = "\
[[switch]]
id = 0
ports = 4

[[switch]]
id = 1
ports = 4

[[link]]
a = [0, 3]
b = [1, 3]

[[node]]
id = 0
at = [0, 0]

[[node]]
id = 1
at = [1, 0]
";

    fn err(text: &str) -> Error {
        let t = Topology::from_toml_str(text).unwrap();
        Network::new(&t).unwrap_err()
    }

    #[test]
    fn a_valid_file_loads_and_round_trips() {
        let t = Topology::from_toml_str(SMALL).unwrap();
        let net = Network::new(&t).unwrap();
        assert_eq!(net.num_switches(), 2);
        assert_eq!(net.num_nodes(), 2);
        assert_eq!(
            net.conn(0, 3),
            PortConn::Link {
                link: 0,
                peer: PortRef::new(1, 3)
            }
        );
        assert_eq!(net.conn(1, 0), PortConn::Node(1));
        assert_eq!(net.conn(1, 1), PortConn::Open);
        let again = Topology::from_toml_str(&t.to_toml_string()).unwrap();
        assert_eq!(again.switches, t.switches);
        assert_eq!(again.links, t.links);
        assert_eq!(again.nodes, t.nodes);
    }

    #[test]
    fn a_network_is_refused_by_its_whole_memory_not_its_tables_alone() {
        // Two 4-port switches and two nodes: tables 2 x 2² bytes, the rest
        // 8 x 1,536 + 2 x 2,048 = 16,384 bytes.
        let t = Topology::from_toml_str(SMALL).unwrap();
        assert!(fits_in(&t, 16_392).is_ok());
        let e = fits_in(&t, 16_391).unwrap_err();
        assert!(
            matches!(
                e,
                Error::TablesTooLarge {
                    switches: 2,
                    bytes: 8,
                    rest: 16_384,
                    available: 16_391
                }
            ),
            "{e:?}"
        );
        // Tables that fit alone are not enough.
        assert!(fits_in(&t, 100).is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// A generated network's shape, as the engine checks it before
        /// generating, is reckoned at exactly what the network generated
        /// from it is: the early check refuses what the later one would,
        /// and nothing else.
        #[test]
        fn a_generated_networks_shape_reckons_as_the_network(
            switches in 1u32..40,
            ports in 6u32..20,
            per in 1u32..3,
            seed in 0u64..1000,
        ) {
            let prm = crate::net::IrregularParams {
                switches,
                ports,
                nodes: switches * per,
                connectivity: 0.8,
                seed,
            };
            let t = prm.generate().unwrap();
            let shape = reckon_shape(
                switches as usize,
                ports,
                switches as u128 * ports as u128,
                prm.nodes as usize,
            );
            proptest::prop_assert_eq!(shape, reckon(&t));
            let need = (shape.0 + shape.1) as u64;
            for avail in [need - 1, need] {
                let early = fits_shape(
                    switches as usize,
                    ports,
                    switches as u128 * ports as u128,
                    prm.nodes as usize,
                    avail,
                );
                proptest::prop_assert_eq!(early.is_ok(), fits_in(&t, avail).is_ok());
                proptest::prop_assert_eq!(early.is_ok(), avail == need);
            }
        }
    }

    #[test]
    fn port_used_twice_names_both_items_and_lines() {
        let text = SMALL.replace("at = [1, 0]", "at = [0, 3]");
        let e = err(&text);
        assert_eq!(
            e.to_string(),
            "line 17: node #2: port [0, 3] is already used by line 9: link #1"
        );
    }

    #[test]
    fn port_out_of_range_is_named() {
        let e = err(&SMALL.replace("b = [1, 3]", "b = [1, 4]"));
        assert!(
            matches!(
                e,
                Error::PortOutOfRange {
                    switch: 1,
                    port: 4,
                    ports: 4,
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "line 9: link #1: port [1, 4] is out of range: switch 1 has ports 0 to 3"
        );
    }

    #[test]
    fn self_link_is_refused() {
        let e = err(&SMALL.replace("b = [1, 3]", "b = [0, 2]"));
        assert_eq!(
            e.to_string(),
            "line 9: link #1: link from switch 0 to itself (a link must join two different switches)"
        );
    }

    #[test]
    fn disconnected_graph_is_refused() {
        let text = SMALL.replace("[[link]]\na = [0, 3]\nb = [1, 3]\n", "");
        let e = err(&text);
        assert_eq!(
            e.to_string(),
            "the switch graph is disconnected: switch(es) [1] cannot be reached from switch 0"
        );
    }

    #[test]
    fn duplicate_ids_and_gaps_are_refused() {
        let e = err(&SMALL.replace("id = 1\nports", "id = 0\nports"));
        assert_eq!(
            e.to_string(),
            "line 5: switch #2: duplicate switch id 0 (first used at line 1: switch #1)"
        );
        let e = err(&SMALL.replace("id = 1\nat", "id = 0\nat"));
        assert_eq!(
            e.to_string(),
            "line 17: node #2: duplicate node id 0 (first used at line 13: node #1)"
        );
        let e = err(&SMALL.replace("id = 1\nat", "id = 2\nat"));
        assert_eq!(
            e.to_string(),
            "node ids must run from 0 to 1: id 1 is missing"
        );
        let e = err(&SMALL.replace("id = 1\nports", "id = 7\nports"));
        assert_eq!(
            e.to_string(),
            "switch ids must run from 0 to 1: id 1 is missing"
        );
    }

    #[test]
    fn unknown_switch_and_bad_port_count_are_named() {
        let e = err(&SMALL.replace("at = [1, 0]", "at = [9, 0]"));
        assert_eq!(e.to_string(), "line 17: node #2: switch 9 does not exist");
        let e = err(&SMALL.replace("ports = 4\n\n[[switch]]", "ports = 0\n\n[[switch]]"));
        assert_eq!(
            e.to_string(),
            "line 1: switch #1: switch 0 has 0 ports; a switch has 1 to 64 ports"
        );
        // A port count too large for any memory is named as a port count,
        // not reckoned in bytes first.
        let e = err(&SMALL.replace(
            "ports = 4\n\n[[switch]]",
            "ports = 4294967295\n\n[[switch]]",
        ));
        assert_eq!(
            e.to_string(),
            "line 1: switch #1: switch 0 has 4294967295 ports; a switch has 1 to 64 ports"
        );
    }

    #[test]
    fn syntax_and_unknown_fields_give_line_and_column() {
        let e = Topology::from_toml_str("[[switch]]\nid = 0\nport = 4\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 3, column 1: unknown field `port`"),
            "{e}"
        );
        let e = Topology::from_toml_str("[[link]]\na = [0, 3\n").unwrap_err();
        assert!(e.to_string().starts_with("line 2,"), "{e}");
    }
}
