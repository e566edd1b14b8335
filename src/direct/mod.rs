//! Direct networks: a wormhole router at every node, joined to its
//! neighbours by external channels and to its local processor by internal
//! channels (seed 001 section 2.1).
//!
//! - [`cube`]: binary n-cubes, the routing restrictions of seed 001 (e-cube,
//!   Restriction 1 and 2, unrestricted minimal) as functions giving the legal
//!   channels, the natural list, list legality and multicast paths;
//! - [`count`]: the number of legal shortest paths counted by enumeration,
//!   beside the paper's closed forms and Table 1;
//! - [`Router`]: the router, built from the same RTL parts as the switch
//!   (small input buffers, a header latch and decode unit, a crossbar with
//!   round-robin output arbiters, credit flow control);
//! - [`DirectSystem`]: routers and processors ticked together, path-based
//!   multicast worms with ordered destination lists (a copy is made at every
//!   destination while the worm goes on), random multicast traffic, exact
//!   delivery bookkeeping, every hop checked against the routing function,
//!   and a deadlock watchdog that names the channels of the waiting cycle.
//!
//! The topology and its routing function are a [`Fabric`]: [`CubeFabric`] is
//! the hypercube with one of the seed 001 routing functions, [`MeshFabric`]
//! the mesh with the Hamiltonian routing of seed 002, [`DorMesh`] the mesh
//! with dimension-order routing of seed 003.

pub mod count;
pub mod cube;
pub mod dor;
pub mod grid;
mod memo;
pub mod mesh;
pub mod tree;
pub mod wormhole;

pub use crate::deadlock::{TreeWaitReport, WaitReport, WaitStep};
pub use cube::{Hypercube, Routing, Turn};
pub use dor::{DorMesh, pseudo_multicast};
pub use grid::{Grid, GridHop};
pub use mesh::{Coord, Mesh, MeshFabric};
pub use tree::{
    MAX_THREADS, PruneEvent, Pruning, Release, Scheme, TreeConfig, TreeDelivery, TreeNet,
    TreeStats, TreeTraffic, threads_used,
};
pub use wormhole::{
    Delivery, DirectConfig, DirectSystem, DirectTraffic, Hop, InState, Planner, PortModel, Router,
    RouterIo, RouterPort, TrafficStats, Waiting, WormInfo,
};

use crate::rtl::PortIter;
use crate::{Error, Result};
pub(crate) use memo::LegalMemo;
use std::fmt;

/// A direct network's topology and routing function, as its routers see
/// them.
///
/// A fabric never changes: every method answers from its arguments alone,
/// always alike. The system relies on it to remember the lists and hops
/// it has found legal rather than ask again.
pub trait Fabric: Send + Sync + fmt::Debug {
    /// Number of nodes (routers), numbered from 0.
    fn nodes(&self) -> u32;

    /// External ports per router (a port may be unconnected).
    fn external_ports(&self) -> usize;

    /// The router port `port` of `node` leads to, and the port it arrives on
    /// there; `None` when unconnected.
    fn neighbor(&self, node: u32, port: usize) -> Option<(u32, usize)>;

    /// The legal external ports (a mask) for a worm at `node` that arrived on
    /// external port `arrived` (`None`: from the local processor), toward
    /// `target != node`.
    fn candidates(&self, node: u32, arrived: Option<usize>, target: u32) -> u64;

    /// True when [`candidates`](Self::candidates) is never empty: from
    /// every node, whichever port a worm arrived on, the routing offers a
    /// channel toward every other node. Every list of distinct nodes is
    /// then legal ([`check_list`] walks none of them). A deterministic
    /// routing function defined for every pair of nodes (a mesh's
    /// Hamiltonian R, dimension order) is such, and so is unrestricted
    /// minimal routing on a hypercube; one that forbids some turns after
    /// the channel a worm arrived on (e-cube and seed 001's restrictions)
    /// is not. The default, false, is always safe: the lists are walked.
    fn offers_every_hop(&self) -> bool {
        false
    }

    /// Checks one hop against the routing rules, independently of
    /// [`candidates`](Self::candidates): `Err` says what rule it breaks.
    fn check_hop(
        &self,
        node: u32,
        arrived: Option<usize>,
        out: usize,
        target: u32,
    ) -> std::result::Result<(), String>;

    /// The name of the channel leaving `node` by `port`, as the paper
    /// writes it.
    fn channel_name(&self, node: u32, port: usize) -> String;

    /// The name of the channel a worm arrived on at `node` through `port`.
    fn arrival_name(&self, node: u32, port: Option<usize>) -> String {
        match port.and_then(|p| self.neighbor(node, p)) {
            Some((from, back)) => self.channel_name(from, back),
            None => format!("OUT[{node}]"),
        }
    }

    /// The routing function's name, for messages.
    fn routing_name(&self) -> String;

    /// Flits per address in a header: enough bytes for the largest node.
    fn address_flits(&self) -> u8 {
        let bits = 32 - (self.nodes().max(2) - 1).leading_zeros();
        bits.div_ceil(8) as u8
    }
}

/// A hypercube with one of the routing functions of seed 001. Port `k` of a
/// router is dimension `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubeFabric {
    /// The cube.
    pub cube: Hypercube,
    /// Its routing function.
    pub routing: Routing,
}

impl CubeFabric {
    fn arrival_turn(&self, node: u32, arrived: Option<usize>) -> Option<Turn> {
        arrived.map(|p| Turn::leaving(node ^ (1 << p), p as u32))
    }
}

impl Fabric for CubeFabric {
    fn nodes(&self) -> u32 {
        self.cube.nodes()
    }

    fn external_ports(&self) -> usize {
        self.cube.dims() as usize
    }

    fn neighbor(&self, node: u32, port: usize) -> Option<(u32, usize)> {
        (port < self.cube.dims() as usize).then(|| (node ^ (1 << port), port))
    }

    fn candidates(&self, node: u32, arrived: Option<usize>, target: u32) -> u64 {
        self.routing
            .candidates(node, self.arrival_turn(node, arrived), target) as u64
    }

    /// Unrestricted minimal routing offers every dimension still to be
    /// corrected; the restrictions and e-cube forbid some turns.
    fn offers_every_hop(&self) -> bool {
        self.routing == Routing::Minimal
    }

    fn check_hop(
        &self,
        node: u32,
        arrived: Option<usize>,
        out: usize,
        target: u32,
    ) -> std::result::Result<(), String> {
        if (node ^ target) >> out & 1 == 0 {
            return Err(format!(
                "{} does not lead closer to {target}",
                self.channel_name(node, out)
            ));
        }
        let next = Turn::leaving(node, out as u32);
        let last = self.arrival_turn(node, arrived);
        if !self.routing.allows(last, next) {
            return Err(format!(
                "{} may not forward to {} under {}",
                self.arrival_name(node, arrived),
                self.channel_name(node, out),
                self.routing
            ));
        }
        Ok(())
    }

    fn channel_name(&self, node: u32, port: usize) -> String {
        self.cube.channel_name(node, port as u32)
    }

    fn routing_name(&self) -> String {
        self.routing.to_string()
    }
}

/// Checks the nodes of a multicast list: all exist, none twice, the source
/// not among them, at least one.
pub fn check_list_nodes(fabric: &dyn Fabric, src: u32, list: &[u32]) -> Result<()> {
    crate::dests::check(fabric.nodes(), src, list).map_err(|e| match e {
        Error::BadDests(m) => Error::BadDests(format!("{}: {m}", format_list(src, list))),
        e => e,
    })?;
    if list.len() > u8::MAX as usize {
        return Err(Error::BadPacket(format!(
            "{}: {} destinations; a header lists at most 255",
            format_list(src, list),
            list.len()
        )));
    }
    Ok(())
}

/// Checks that a multicast list is *legal* (seed 001 section 3.2): whichever
/// legal channels the routers choose, a worm always has a legal channel
/// toward its next destination. Every state the worm can reach (node, port
/// it arrived on, destinations left) is visited.
pub fn check_list(fabric: &dyn Fabric, src: u32, list: &[u32]) -> Result<()> {
    check_list_in(fabric, src, list, &mut ListWalk::default())
}

/// A state a worm can reach: the node its head is at, the port it arrived
/// on (`None` at the source) and how many destinations it has passed.
type WalkState = (u32, Option<usize>, usize);

/// The room [`check_list_in`] walks a list's states in, kept between calls
/// by a caller that checks many lists (a system's sends), so that a check
/// allocates nothing once the room has grown.
#[derive(Debug, Default)]
pub(crate) struct ListWalk {
    seen: rustc_hash::FxHashSet<WalkState>,
    stack: Vec<WalkState>,
    /// For [`ListWalk::reach`]: the states (node, port arrived on) in
    /// which the worm can have reached the last destination added to the
    /// list walked so far (the source, before the first).
    ends: Vec<(u32, Option<usize>)>,
}

impl ListWalk {
    /// Starts a list from `src`, to be walked one destination at a time
    /// ([`reach`](Self::reach)).
    fn start(&mut self, src: u32) {
        self.ends.clear();
        self.ends.push((src, None));
    }

    /// Adds `target` to the end of the list being walked: whether, from
    /// every state in which the worm can have reached the list's last
    /// destination so far, it always has a legal channel toward `target`
    /// whichever legal channels the routers choose. These are exactly the
    /// states [`check_list_in`] visits between the two destinations, so a
    /// list built by calls that all answer true is one it finds legal.
    /// The states reaching `target` are the next call's start; after a
    /// false the walk is spent until [`start`](Self::start).
    fn reach(&mut self, fabric: &dyn Fabric, target: u32) -> bool {
        let ListWalk { seen, stack, ends } = self;
        seen.clear();
        stack.clear();
        stack.extend(ends.drain(..).map(|(n, a)| (n, a, 0)));
        while let Some(s @ (cur, arrived, _)) = stack.pop() {
            if !seen.insert(s) {
                continue;
            }
            if cur == target {
                ends.push((cur, arrived));
                continue;
            }
            let c = fabric.candidates(cur, arrived, target);
            if c == 0 {
                return false;
            }
            for p in PortIter(c) {
                if let Some((nb, back)) = fabric.neighbor(cur, p) {
                    stack.push((nb, Some(back), 0));
                }
            }
        }
        true
    }

    /// Cuts `order`, distinct destinations other than `src` in the order
    /// a worm is to visit them, into consecutive lists for path worms
    /// from `src`: a list ends where its next destination would make it
    /// illegal ([`check_list`]) or where it holds 255, a header's most.
    /// `cuts` gets each list's end in `order` and whether the list is
    /// legal: every list of two or more is; a list of one is not when the
    /// routing offers no way from `src` to it at all. Each destination is
    /// walked to once, where checking each longer list afresh walks the
    /// list's first destinations again and again.
    pub(crate) fn cut_legal(
        &mut self,
        fabric: &dyn Fabric,
        src: u32,
        order: &[u32],
        cuts: &mut Vec<(usize, bool)>,
    ) {
        if fabric.offers_every_hop() {
            // Every list is legal: the lists end only at a header's most.
            let max = u8::MAX as usize;
            cuts.extend((max..order.len()).step_by(max).map(|end| (end, true)));
            if !order.is_empty() {
                cuts.push((order.len(), true));
            }
            return;
        }
        let mut start = 0;
        let mut legal = true;
        for (i, &d) in order.iter().enumerate() {
            if i > start {
                if legal && i - start < u8::MAX as usize && self.reach(fabric, d) {
                    continue;
                }
                cuts.push((i, legal));
                start = i;
            }
            self.start(src);
            legal = self.reach(fabric, d);
        }
        if !order.is_empty() {
            cuts.push((order.len(), legal));
        }
    }
}

/// [`check_list`] in the room `walk`.
pub(crate) fn check_list_in(
    fabric: &dyn Fabric,
    src: u32,
    list: &[u32],
    walk: &mut ListWalk,
) -> Result<()> {
    check_list_nodes(fabric, src, list)?;
    if fabric.offers_every_hop() {
        // No state can lack a channel: the walk below would find none.
        return Ok(());
    }
    walk_list(fabric, src, list, walk)
}

/// The walk of [`check_list_in`] over a list whose nodes are checked:
/// every state the worm can reach, each asked for a legal channel.
fn walk_list(fabric: &dyn Fabric, src: u32, list: &[u32], walk: &mut ListWalk) -> Result<()> {
    let ListWalk { seen, stack, .. } = walk;
    seen.clear();
    stack.clear();
    stack.push((src, None, 0));
    while let Some((cur, arrived, mut idx)) = stack.pop() {
        if !seen.insert((cur, arrived, idx)) {
            continue;
        }
        while idx < list.len() && cur == list[idx] {
            idx += 1;
        }
        if idx == list.len() {
            continue;
        }
        let target = list[idx];
        let c = fabric.candidates(cur, arrived, target);
        if c == 0 {
            let how = match arrived {
                Some(_) => format!("arriving at {cur} on {}", fabric.arrival_name(cur, arrived)),
                None => format!("at {cur}"),
            };
            return Err(Error::BadPacket(format!(
                "the multicast list {} is illegal under {}: {how}, no legal channel toward {target}",
                format_list(src, list),
                fabric.routing_name()
            )));
        }
        for p in PortIter(c) {
            if let Some((nb, back)) = fabric.neighbor(cur, p) {
                stack.push((nb, Some(back), idx));
            }
        }
    }
    Ok(())
}

/// Every multicast path (the sequence of nodes, source first) the routers
/// may give a list, in order of increasing port choices. Fails if the list
/// is illegal or has more than `limit` paths.
pub fn multicast_paths(
    fabric: &dyn Fabric,
    src: u32,
    list: &[u32],
    limit: usize,
) -> Result<Vec<Vec<u32>>> {
    check_list(fabric, src, list)?;
    let mut out = Vec::new();
    let mut path = vec![src];
    walk(fabric, list, 0, None, &mut path, &mut out, limit)?;
    Ok(out)
}

fn walk(
    fabric: &dyn Fabric,
    list: &[u32],
    mut idx: usize,
    arrived: Option<usize>,
    path: &mut Vec<u32>,
    out: &mut Vec<Vec<u32>>,
    limit: usize,
) -> Result<()> {
    let cur = *path.last().expect("a path starts at its source");
    while idx < list.len() && cur == list[idx] {
        idx += 1;
    }
    if idx == list.len() {
        if out.len() == limit {
            return Err(Error::BadPacket(format!(
                "more than {limit} multicast paths"
            )));
        }
        out.push(path.clone());
        return Ok(());
    }
    for p in PortIter(fabric.candidates(cur, arrived, list[idx])) {
        if let Some((nb, back)) = fabric.neighbor(cur, p) {
            path.push(nb);
            walk(fabric, list, idx, Some(back), path, out, limit)?;
            path.pop();
        }
    }
    Ok(())
}

/// Formats a multicast list as the paper does: `<0: 3, 6, 7>`.
pub fn format_list(src: u32, list: &[u32]) -> String {
    let rest: Vec<String> = list.iter().map(|d| d.to_string()).collect();
    format!("<{src}: {}>", rest.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`check_list`] with every list walked, whatever the fabric says it
    /// offers.
    fn check_walked(fabric: &dyn Fabric, src: u32, list: &[u32]) -> Result<()> {
        check_list_nodes(fabric, src, list)?;
        walk_list(fabric, src, list, &mut ListWalk::default())
    }

    /// The cut as the engine first made it: each longer list checked
    /// afresh by a full walk (a list of one is never checked; a list of
    /// 256 is refused by its node check).
    fn cut_afresh(fabric: &dyn Fabric, src: u32, order: &[u32]) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        let mut cur: Vec<u32> = Vec::new();
        for &d in order {
            cur.push(d);
            if cur.len() > 1 && check_walked(fabric, src, &cur).is_err() {
                cur.pop();
                out.push(std::mem::replace(&mut cur, vec![d]));
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    /// [`ListWalk::cut_legal`]'s lists, each with whether it is legal.
    fn cut(fabric: &dyn Fabric, src: u32, order: &[u32]) -> Vec<(Vec<u32>, bool)> {
        let mut cuts = Vec::new();
        ListWalk::default().cut_legal(fabric, src, order, &mut cuts);
        let mut start = 0;
        cuts.iter()
            .map(|&(end, legal)| {
                let l = order[start..end].to_vec();
                start = end;
                (l, legal)
            })
            .collect()
    }

    fn fabric(kind: u8, size: u32) -> Box<dyn Fabric> {
        let routing = [
            Routing::Ecube,
            Routing::Restriction1,
            Routing::Restriction2,
            Routing::Minimal,
        ];
        match kind {
            0..=3 => Box::new(CubeFabric {
                cube: Hypercube::new(3 + size % 4).unwrap(),
                routing: routing[kind as usize],
            }),
            4 => Box::new(MeshFabric {
                mesh: Mesh::new(2 + size % 4, 3, 1 + size % 2).unwrap(),
            }),
            _ => Box::new(DorMesh::new(2 + size % 4, 3, 1 + size % 3).unwrap()),
        }
    }

    proptest! {
        /// Walking each destination once cuts an order where checking
        /// each longer list afresh does, and a list it calls legal is one
        /// the full check passes (one it does not is a single destination
        /// the check refuses).
        #[test]
        fn a_cut_walked_once_is_the_cut_checked_afresh(
            kind in 0u8..6,
            size in 0u32..8,
            picks in proptest::collection::vec(any::<u32>(), 1..40),
            sorted in any::<bool>(),
        ) {
            let f = fabric(kind, size);
            let n = f.nodes();
            let src = picks[0] % n;
            let mut order: Vec<u32> = Vec::new();
            for p in &picks[1..] {
                let d = p % n;
                if d != src && !order.contains(&d) {
                    order.push(d);
                }
            }
            if sorted {
                order.sort_unstable();
            }
            let got = cut(f.as_ref(), src, &order);
            let want = cut_afresh(f.as_ref(), src, &order);
            let lists: Vec<Vec<u32>> = got.iter().map(|(l, _)| l.clone()).collect();
            prop_assert_eq!(&lists, &want);
            for (l, legal) in &got {
                prop_assert_eq!(*legal, check_walked(f.as_ref(), src, l).is_ok(), "{:?}", l);
                prop_assert!(*legal || l.len() == 1);
            }
        }

        /// The check answers as the full walk does, with the same error,
        /// on every fabric: one that offers every hop and skips the walk
        /// included. The lists are any nodes in any order, nodes out of
        /// range, repeated or the source among them too.
        #[test]
        fn a_list_check_answers_as_the_full_walk(
            kind in 0u8..6,
            size in 0u32..8,
            picks in proptest::collection::vec(any::<u32>(), 1..30),
            wild in any::<bool>(),
        ) {
            let f = fabric(kind, size);
            let n = f.nodes();
            let src = picks[0] % n;
            let list: Vec<u32> = picks[1..]
                .iter()
                .map(|&p| if wild { p % (n + 2) } else { p % n })
                .collect();
            let err = |r: Result<()>| r.map_err(|e| e.to_string());
            prop_assert_eq!(
                err(check_list(f.as_ref(), src, &list)),
                err(check_walked(f.as_ref(), src, &list))
            );
        }
    }

    /// The fabrics that say they offer every hop do: exhaustively, from
    /// every node, having arrived from the processor or through any
    /// connected port, toward every other node, on 2-D and 3-D meshes of
    /// odd and even sides (the Hamiltonian labelling turns on both) and on
    /// hypercubes under unrestricted minimal routing.
    #[test]
    fn a_fabric_offering_every_hop_offers_one_from_every_state() {
        let mut fabrics: Vec<Box<dyn Fabric>> = Vec::new();
        for dims in 1..=6 {
            fabrics.push(Box::new(CubeFabric {
                cube: Hypercube::new(dims).unwrap(),
                routing: Routing::Minimal,
            }));
        }
        for (m, n, r) in [
            (1, 2, 1),
            (3, 4, 1),
            (4, 3, 1),
            (5, 5, 1),
            (3, 2, 3),
            (2, 3, 4),
        ] {
            fabrics.push(Box::new(MeshFabric {
                mesh: Mesh::new(m, n, r).unwrap(),
            }));
            fabrics.push(Box::new(DorMesh::new(n, m, r).unwrap()));
        }
        for f in &fabrics {
            assert!(f.offers_every_hop(), "{f:?}");
            for node in 0..f.nodes() {
                let mut arrivals = vec![None];
                arrivals.extend(
                    (0..f.external_ports()).filter_map(|p| f.neighbor(node, p).map(|_| Some(p))),
                );
                for &a in &arrivals {
                    for target in (0..f.nodes()).filter(|&t| t != node) {
                        let c = f.candidates(node, a, target);
                        assert!(c != 0, "{f:?}: none at {node} from {a:?} toward {target}");
                        for p in PortIter(c) {
                            assert!(f.neighbor(node, p).is_some(), "{f:?}: port {p} of {node}");
                        }
                    }
                }
            }
        }
    }

    /// The hypercube's routing functions do not say they offer every hop,
    /// and under each restriction some state has none: their lists are
    /// walked.
    #[test]
    fn a_restricted_routing_has_a_state_without_a_hop() {
        for routing in [Routing::Ecube, Routing::Restriction1, Routing::Restriction2] {
            let f = CubeFabric {
                cube: Hypercube::new(3).unwrap(),
                routing,
            };
            assert!(!f.offers_every_hop());
            let stuck = (0..8).any(|node| {
                (0..3).any(|p| (0..8).any(|t| t != node && f.candidates(node, Some(p), t) == 0))
            });
            assert!(stuck, "{routing}");
        }
    }

    /// A header lists at most 255 destinations: 300 that are all legal in
    /// one list under Restriction 2 go as 255 and 45, as the full check
    /// (which refuses 256) cuts them.
    #[test]
    fn a_cut_list_holds_at_most_255() {
        let f = CubeFabric {
            cube: Hypercube::new(9).unwrap(),
            routing: Routing::Restriction2,
        };
        let order: Vec<u32> = (1..=300).collect();
        let got = cut(&f, 0, &order);
        assert_eq!(
            got.iter().map(|(l, ok)| (l.len(), *ok)).collect::<Vec<_>>(),
            [(255, true), (45, true)]
        );
        assert_eq!(
            cut_afresh(&f, 0, &order)
                .iter()
                .map(Vec::len)
                .collect::<Vec<_>>(),
            [255, 45]
        );
        assert!(cut(&f, 0, &[]).is_empty());
        // A mesh whose routing offers every hop cuts only there.
        let m = MeshFabric {
            mesh: Mesh::new(20, 20, 1).unwrap(),
        };
        let order: Vec<u32> = (1..=300).rev().collect();
        assert_eq!(
            cut(&m, 0, &order)
                .iter()
                .map(|(l, ok)| (l.len(), *ok))
                .collect::<Vec<_>>(),
            [(255, true), (45, true)]
        );
        assert_eq!(
            cut_afresh(&m, 0, &order)
                .iter()
                .map(Vec::len)
                .collect::<Vec<_>>(),
            [255, 45]
        );
        let order: Vec<u32> = (1..=255).collect();
        assert_eq!(cut(&m, 0, &order).len(), 1);
        let order: Vec<u32> = (1..=399).collect();
        assert_eq!(
            cut(&m, 0, &order)
                .iter()
                .map(|(l, _)| l.len())
                .collect::<Vec<_>>(),
            [255, 144]
        );
        assert!(cut(&m, 0, &[]).is_empty());
    }

    /// Under e-cube routing a worm from 0 reaches 7 on dimension 2 and
    /// may not turn back to a lower dimension toward 6: the list ends at
    /// 7, and 6 and 1 go as lists of their own.
    #[test]
    fn an_illegal_next_destination_starts_a_new_list() {
        let f = CubeFabric {
            cube: Hypercube::new(3).unwrap(),
            routing: Routing::Ecube,
        };
        assert_eq!(
            cut(&f, 0, &[3, 7, 6, 1]),
            [(vec![3, 7], true), (vec![6], true), (vec![1], true)]
        );
    }
}
