//! k-ary 2-D and 3-D meshes and tori with deterministic dimension-order
//! routing, the base routing of seed 003 (sections 3.1 and 3.4).
//!
//! Node `(x, y, z)` of a `kx x ky x kz` grid has id `x + kx (y + ky z)`
//! (`kz = 1` for 2-D). Router ports: 0 `+x`, 1 `-x`, 2 `+y`, 3 `-y`, 4 `+z`,
//! 5 `-z`. A route corrects `x` first, then `y`, then `z`.
//!
//! On a mesh every physical channel has one virtual channel. On a torus
//! every dimension is a ring with a wrap-around link and every physical
//! channel carries two virtual channels, split by a *dateline* on the wrap
//! link: a hop uses virtual channel 0 while the wrap link of its dimension is
//! still ahead of it (the wrap link itself included) and virtual channel 1
//! once it is not. Within a ring the channels of VC 0 are only ever followed
//! toward the wrap link and those of VC 1 never reach it, so neither class
//! has a cyclic dependency and dimension-order routing stays deadlock-free
//! for unicasts. The virtual channel depends only on the router and the
//! destination, which is what a header routed on its own at every router
//! (the tree multicast of seed 003) needs. A ring takes its shorter way; at
//! an even side's halfway point it goes the positive way.

use crate::{Error, Result};
use std::fmt;

/// Port names, by port number.
pub const PORT_NAMES: [&str; 6] = ["+x", "-x", "+y", "-y", "+z", "-z"];

/// One hop: the output port and the virtual channel on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GridHop {
    /// Output port (0 `+x`, 1 `-x`, 2 `+y`, 3 `-y`, 4 `+z`, 5 `-z`).
    pub port: u8,
    /// Virtual channel on that port (always 0 on a mesh).
    pub vc: u8,
}

/// A 2-D or 3-D mesh or torus with dimension-order routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    k: [u32; 3],
    torus: bool,
}

/// The most nodes of a mesh or torus (2^24): channel numbers are 32-bit,
/// and 2^24 routers leave room for every router's ports. Memory refuses
/// far sooner on most machines (about 2.2 kB a router measured; a run
/// reckons it before building, `engine::direct_reckoning`).
pub const MAX_GRID_NODES: u64 = 1 << 24;

impl Grid {
    /// A `kx x ky x kz` mesh (`kz = 1` for 2-D).
    pub fn mesh(kx: u32, ky: u32, kz: u32) -> Result<Grid> {
        Grid::new([kx, ky, kz], false)
    }

    /// A `kx x ky x kz` torus (`kz = 1` for 2-D); every side above 1 must
    /// be at least 3 so that a ring's two links to a neighbour differ.
    pub fn torus(kx: u32, ky: u32, kz: u32) -> Result<Grid> {
        Grid::new([kx, ky, kz], true)
    }

    fn new(k: [u32; 3], torus: bool) -> Result<Grid> {
        let n = k.iter().map(|&s| s as u64).product::<u64>();
        let kind = if torus { "torus" } else { "mesh" };
        let bad = |reason: &str| Error::Config {
            field: "topology",
            value: if k[2] == 1 {
                format!("{kind}:{}x{}", k[0], k[1])
            } else {
                format!("{kind}:{}x{}x{}", k[0], k[1], k[2])
            },
            reason: reason.into(),
        };
        if k.contains(&0) || !(2..=MAX_GRID_NODES).contains(&n) {
            return Err(bad(&format!(
                "a {kind} has 2 to 16,777,216 nodes, every side at least 1"
            )));
        }
        if torus && k.contains(&2) {
            return Err(bad(
                "a torus side of 2 would join two nodes by two wrap links; use a side of 1 or at least 3",
            ));
        }
        Ok(Grid { k, torus })
    }

    /// Parses `mesh:8x8`, `torus:8x8` or `torus:8x8x8`.
    pub fn parse(text: &str) -> Result<Grid> {
        let bad = |reason: &str| Error::Config {
            field: "topology",
            value: text.into(),
            reason: reason.into(),
        };
        let (kind, dims) = text
            .split_once(':')
            .ok_or_else(|| bad("expected mesh:KXxKY[xKZ] or torus:KXxKY[xKZ]"))?;
        let sides: Vec<u32> = dims
            .split('x')
            .map(|s| s.trim().parse::<u32>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| bad("sides must be whole numbers joined by 'x'"))?;
        if !(2..=3).contains(&sides.len()) {
            return Err(bad("a grid has 2 or 3 dimensions"));
        }
        let kz = sides.get(2).copied().unwrap_or(1);
        match kind {
            "mesh" => Grid::mesh(sides[0], sides[1], kz),
            "torus" => Grid::torus(sides[0], sides[1], kz),
            _ => Err(bad("the kind is mesh or torus")),
        }
    }

    /// Sides in x, y, z.
    pub fn sides(&self) -> [u32; 3] {
        self.k
    }

    /// True for a torus.
    pub fn is_torus(&self) -> bool {
        self.torus
    }

    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.k.iter().product()
    }

    /// External ports per router: 4 for 2-D, 6 for 3-D.
    pub fn ports(&self) -> usize {
        if self.k[2] == 1 { 4 } else { 6 }
    }

    /// Virtual channels per physical channel: 1 on a mesh, 2 on a torus.
    pub fn vcs(&self) -> usize {
        if self.torus { 2 } else { 1 }
    }

    /// The coordinates of node `id`.
    pub fn coords(&self, id: u32) -> [u32; 3] {
        let [kx, ky, kz] = self.k;
        let row = id / kx;
        // A node of a 2-D grid has its row below `ky` and no layer: one
        // division where the general case takes three.
        if kz == 1 && row < ky {
            return [id % kx, row, 0];
        }
        [id % kx, row % ky, id / (kx * ky)]
    }

    /// The node at `c`.
    pub fn id(&self, c: [u32; 3]) -> u32 {
        c[0] + self.k[0] * (c[1] + self.k[1] * c[2])
    }

    /// The node one hop from `node` through `port`; `None` past a mesh edge
    /// or along a dimension of side 1.
    pub fn neighbor(&self, node: u32, port: usize) -> Option<u32> {
        self.step_coords(self.coords(node), port)
            .map(|c| self.id(c))
    }

    /// The coordinates one hop from `c` through `port`, as
    /// [`Grid::neighbor`] gives them.
    fn step_coords(&self, mut c: [u32; 3], port: usize) -> Option<[u32; 3]> {
        let d = port / 2;
        if d >= 3 || self.k[d] == 1 {
            return None;
        }
        if self.torus {
            c[d] = if port.is_multiple_of(2) {
                (c[d] + 1) % self.k[d]
            } else {
                (c[d] + self.k[d] - 1) % self.k[d]
            };
            return Some(c);
        }
        step(c, self.k, port)
    }

    /// The dimension-order hop from `u` toward `v`; `None` when `u == v`.
    pub fn route(&self, u: u32, v: u32) -> Option<GridHop> {
        let (a, b) = (self.coords(u), self.coords(v));
        let d = (0..3).find(|&d| a[d] != b[d])?;
        Some(self.ring_hop(d, a[d], b[d]))
    }

    /// The dimension-order hop in dimension `d` from coordinate `a` toward
    /// coordinate `b` (`a != b`, both below the side): what
    /// [`Grid::route`] takes once the lower dimensions agree.
    pub fn ring_hop(&self, d: usize, a: u32, b: u32) -> GridHop {
        debug_assert!(a != b && a < self.k[d] && b < self.k[d]);
        if !self.torus {
            let port = 2 * d + usize::from(b < a);
            return GridHop {
                port: port as u8,
                vc: 0,
            };
        }
        let k = self.k[d] as u64;
        let forward = (b as u64 + k - a as u64) % k;
        let positive = 2 * forward <= k;
        // The wrap link is ahead when the destination lies behind the
        // current coordinate in the direction of travel.
        let wrap_ahead = if positive { b < a } else { b > a };
        GridHop {
            port: (2 * d + usize::from(!positive)) as u8,
            vc: u8::from(!wrap_ahead),
        }
    }

    /// Minimal hop count from `u` to `v`.
    pub fn distance(&self, u: u32, v: u32) -> u32 {
        self.coord_distance(self.coords(u), self.coords(v))
    }

    /// [`Grid::distance`] between two nodes given by their coordinates.
    fn coord_distance(&self, a: [u32; 3], b: [u32; 3]) -> u32 {
        (0..3)
            .map(|d| {
                let diff = a[d].abs_diff(b[d]);
                if self.torus {
                    diff.min(self.k[d] - diff)
                } else {
                    diff
                }
            })
            .sum()
    }

    /// The hops of the unicast route from `u` to `v`: each router left and
    /// the hop taken there.
    pub fn unicast_route(&self, u: u32, v: u32) -> Vec<(u32, GridHop)> {
        let mut hops = Vec::new();
        let mut at = u;
        while let Some(h) = self.route(at, v) {
            hops.push((at, h));
            at = self
                .neighbor(at, h.port as usize)
                .expect("a route never leaves the grid");
        }
        hops
    }

    /// Checks, independently of [`Grid::route`], that `hop` taken at `node`
    /// toward `dest` is the dimension-order hop: lower dimensions already
    /// done, a step that shortens the distance (the positive way at a tie
    /// on a torus ring), and on a torus the virtual channel of the dateline.
    pub fn check_hop(&self, node: u32, hop: GridHop, dest: u32) -> std::result::Result<(), String> {
        self.check_hop_at(node, self.coords(node), hop, dest, self.coords(dest))
    }

    /// [`Grid::check_hop`] for a caller that holds both nodes' coordinates
    /// (`a` of `node`, `b` of `dest`), as a router's tables do: the check
    /// then costs no division.
    #[inline]
    pub(crate) fn check_hop_at(
        &self,
        node: u32,
        a: [u32; 3],
        hop: GridHop,
        dest: u32,
        b: [u32; 3],
    ) -> std::result::Result<(), String> {
        if self.is_dimension_order_hop(a, hop, b) {
            return Ok(());
        }
        self.explain_hop(node, a, hop, dest, b)
    }

    /// The answer "legal" of [`Grid::check_hop`] in closed form, for a hop
    /// at coordinates `a` toward `b`: the check every header hop passes,
    /// without the walk along a ring or a message. The rule as
    /// [`Grid::explain_hop`] states it; a test holds the two to the same
    /// answer on every question of small meshes and tori.
    #[inline]
    fn is_dimension_order_hop(&self, a: [u32; 3], hop: GridHop, b: [u32; 3]) -> bool {
        let port = hop.port as usize;
        let d = port / 2;
        if d >= 3 || a[d] == b[d] || (0..d).any(|e| a[e] != b[e]) {
            return false;
        }
        let positive = port.is_multiple_of(2);
        if !self.torus {
            return hop.vc == 0 && positive == (b[d] > a[d]);
        }
        let k = self.k[d];
        // Steps from `a` to `b` the positive way; the negative way takes
        // the rest of the ring. The shorter way is taken, the positive one
        // at a tie.
        let up = if b[d] > a[d] {
            b[d] - a[d]
        } else {
            b[d] + k - a[d]
        };
        if positive != (2 * up <= k) {
            return false;
        }
        // The way crosses the wrap link when it passes from the last
        // coordinate to 0 (positive) or from 0 to the last (negative).
        let wraps = if positive { b[d] < a[d] } else { b[d] > a[d] };
        hop.vc == u8::from(!wraps)
    }

    /// [`Grid::check_hop_at`] in full: the verdict, and for an illegal hop
    /// what breaks the rule.
    #[cold]
    fn explain_hop(
        &self,
        node: u32,
        a: [u32; 3],
        hop: GridHop,
        dest: u32,
        b: [u32; 3],
    ) -> std::result::Result<(), String> {
        debug_assert!(a == self.coords(node) && b == self.coords(dest));
        let port = hop.port as usize;
        let d = port / 2;
        let fail = |why: &str| {
            Err(format!(
                "{} toward {} is not the dimension-order hop: {why}",
                self.channel_name(node, hop),
                self.node_name(dest)
            ))
        };
        // Coordinates throughout, as this runs at every header hop.
        let next = if port < self.ports() {
            self.step_coords(a, port)
        } else {
            None
        };
        let Some(next) = next else {
            return fail("no such channel");
        };
        if (hop.vc as usize) >= self.vcs() {
            return fail("no such virtual channel");
        }
        if (0..d).any(|e| a[e] != b[e]) {
            return fail("a lower dimension is not done");
        }
        // The hop moves along dimension `d` only, so it shortens the
        // distance exactly when it shortens it along `d`.
        let along = |x: u32, y: u32| {
            let diff = x.abs_diff(y);
            if self.torus {
                diff.min(self.k[d] - diff)
            } else {
                diff
            }
        };
        if along(next[d], b[d]) + 1 != along(a[d], b[d]) {
            return fail("the hop does not shorten the distance");
        }
        if self.torus {
            let k = self.k[d];
            // At a tie both ways are minimal: the positive way is the rule.
            if 2 * a[d].abs_diff(b[d]) == k && port % 2 == 1 {
                return fail("a tie goes the positive way");
            }
            // Walk the ring: VC 0 exactly when the wrap link is still ahead.
            let mut c = a[d];
            let mut crosses = false;
            while c != b[d] {
                let n = if port.is_multiple_of(2) {
                    (c + 1) % k
                } else {
                    (c + k - 1) % k
                };
                crosses |= (port.is_multiple_of(2) && n == 0) || (port % 2 == 1 && c == 0);
                c = n;
            }
            if hop.vc != u8::from(!crosses) {
                return fail("the dateline decides the virtual channel");
            }
        }
        Ok(())
    }

    /// `(x,y)` or `(x,y,z)`.
    pub fn node_name(&self, node: u32) -> String {
        let c = self.coords(node);
        if self.k[2] == 1 {
            format!("({},{})", c[0], c[1])
        } else {
            format!("({},{},{})", c[0], c[1], c[2])
        }
    }

    /// `c[(x,y)->(x',y') +x vc0]`.
    pub fn channel_name(&self, node: u32, hop: GridHop) -> String {
        match self.neighbor(node, hop.port as usize) {
            Some(w) => format!(
                "c[{}->{} {} vc{}]",
                self.node_name(node),
                self.node_name(w),
                PORT_NAMES[hop.port as usize],
                hop.vc
            ),
            None => format!(
                "c[{} {} unconnected]",
                self.node_name(node),
                PORT_NAMES.get(hop.port as usize).unwrap_or(&"?")
            ),
        }
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.torus { "torus" } else { "mesh" };
        if self.k[2] == 1 {
            write!(f, "{}x{} {kind}", self.k[0], self.k[1])
        } else {
            write!(f, "{}x{}x{} {kind}", self.k[0], self.k[1], self.k[2])
        }
    }
}

/// The coordinates one hop from `c` through `port` in a mesh of sides `k`;
/// `None` past the edge.
pub(crate) fn step(mut c: [u32; 3], k: [u32; 3], port: usize) -> Option<[u32; 3]> {
    let d = port / 2;
    if d >= 3 {
        return None;
    }
    if port.is_multiple_of(2) {
        if c[d] + 1 >= k[d] {
            return None;
        }
        c[d] += 1;
    } else {
        if c[d] == 0 {
            return None;
        }
        c[d] -= 1;
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_is_minimal_ordered_and_checked() {
        for g in [
            Grid::mesh(4, 3, 1).unwrap(),
            Grid::torus(5, 4, 1).unwrap(),
            Grid::torus(3, 4, 5).unwrap(),
            Grid::torus(6, 1, 1).unwrap(),
        ] {
            for u in 0..g.nodes() {
                for v in 0..g.nodes() {
                    let r = g.unicast_route(u, v);
                    assert_eq!(r.len() as u32, g.distance(u, v));
                    let mut last = 0;
                    for &(at, h) in &r {
                        g.check_hop(at, h, v).unwrap();
                        assert!(h.port / 2 >= last);
                        last = h.port / 2;
                    }
                }
            }
        }
    }

    /// The coordinates are those of the general formula for every id, of a
    /// node or past the last one, on 2-D and 3-D grids (the 2-D shortcut
    /// included), and `id` inverts them for every node.
    #[test]
    fn coordinates_follow_the_formula_for_any_id() {
        for g in [
            Grid::mesh(4, 3, 1).unwrap(),
            Grid::mesh(1, 5, 1).unwrap(),
            Grid::mesh(3, 2, 3).unwrap(),
            Grid::torus(5, 4, 1).unwrap(),
        ] {
            let [kx, ky, _] = g.sides();
            for id in 0..g.nodes() * 3 + 7 {
                let want = [id % kx, id / kx % ky, id / (kx * ky)];
                assert_eq!(g.coords(id), want, "{g} {id}");
                if id < g.nodes() {
                    assert_eq!(g.id(want), id);
                }
            }
        }
    }

    /// The check accepts exactly the hop [`Grid::route`] takes: every other
    /// channel and virtual channel, at every node toward every destination,
    /// is refused with a reason. Its closed form (the answer "legal") and
    /// the full check agree on every one of these questions, on meshes and
    /// tori, 2-D and 3-D, with odd and even sides and sides of 1.
    #[test]
    fn the_check_accepts_the_route_and_nothing_else() {
        for g in [
            Grid::mesh(4, 3, 1).unwrap(),
            Grid::mesh(1, 5, 1).unwrap(),
            Grid::mesh(3, 2, 3).unwrap(),
            Grid::torus(5, 4, 1).unwrap(),
            Grid::torus(6, 3, 1).unwrap(),
            Grid::torus(4, 3, 3).unwrap(),
            Grid::torus(4, 4, 4).unwrap(),
            Grid::torus(6, 1, 1).unwrap(),
        ] {
            for u in 0..g.nodes() {
                for v in 0..g.nodes() {
                    let want = g.route(u, v);
                    let (a, b) = (g.coords(u), g.coords(v));
                    for port in 0..7u8 {
                        for vc in 0..3u8 {
                            let h = GridHop { port, vc };
                            let got = g.check_hop(u, h, v);
                            assert_eq!(
                                g.is_dimension_order_hop(a, h, b),
                                g.explain_hop(u, a, h, v, b).is_ok(),
                                "{g} {u} -> {v} {h:?}: closed form against the full check"
                            );
                            if Some(h) == want {
                                assert_eq!(got, Ok(()), "{g} {u} -> {v} {h:?}");
                            } else {
                                let e = got.expect_err("a hop off the route");
                                assert!(e.contains("not the dimension-order hop"), "{e}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn dateline_classes() {
        let g = Grid::torus(8, 8, 1).unwrap();
        // From x = 6 to x = 1: positive way, wrap ahead: VC 0 up to and
        // over the wrap link 7 -> 0, then VC 1.
        let r = g.unicast_route(g.id([6, 0, 0]), g.id([1, 0, 0]));
        let vcs: Vec<u8> = r.iter().map(|h| h.1.vc).collect();
        assert_eq!(vcs, vec![0, 0, 1]);
        assert!(r.iter().all(|h| h.1.port == 0));
        // A tie (distance 4 of 8) goes the positive way.
        assert_eq!(g.route(g.id([2, 0, 0]), g.id([6, 0, 0])).unwrap().port, 0);
        let wrong = GridHop { port: 0, vc: 1 };
        assert!(
            g.check_hop(g.id([6, 0, 0]), wrong, g.id([1, 0, 0]))
                .is_err()
        );
        assert_eq!(Grid::mesh(8, 8, 1).unwrap().vcs(), 1);
        assert!(Grid::torus(2, 4, 1).is_err());
        assert_eq!(Grid::parse("torus:8x8x8").unwrap().nodes(), 512);
        assert!(Grid::parse("ring:8").is_err());
        assert_eq!(Grid::parse("mesh:8x8").unwrap().to_string(), "8x8 mesh");
    }
}
