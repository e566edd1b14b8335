//! `m x n x r` meshes with the Hamiltonian labelling and routing function of
//! seed 002 ("Preliminaries": equation 2, the high- and low-channel
//! subnetworks, and the routing function R of equation 3).
//!
//! A node is `(x, y, z)` with `0 <= x < n` (columns), `0 <= y < m` (rows),
//! `0 <= z < r` (layers); a 2-D mesh is the case `r = 1`. Its label `l(x, y,
//! z)` (equation 2) runs along a Hamiltonian path: consecutive labels are
//! neighbours. In this model a node's id is its label, so headers carry
//! labels, as the paper's worked example does.
//!
//! A channel from a lower to a higher label belongs to the high-channel
//! subnetwork, the others to the low-channel subnetwork. The routing function
//! R sends a worm at `u` toward `v` to the neighbour `w` with the largest
//! label not above `l(v)` when `l(u) < l(v)` (or the smallest not below, when
//! `l(u) > l(v)`): deterministic, and monotone in the label, so a worm whose
//! destinations are sorted stays in one subnetwork.
//!
//! Router ports: 0 `+x`, 1 `-x`, 2 `+y`, 3 `-y`, 4 `+z`, 5 `-z` (a port at
//! the mesh boundary is unconnected).

use super::Fabric;
use crate::{Error, Result};

/// Names of the six ports.
pub const PORT_NAMES: [&str; 6] = ["+x", "-x", "+y", "-y", "+z", "-z"];

/// A node's coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Coord {
    /// Column, `0 <= x < n`.
    pub x: u32,
    /// Row, `0 <= y < m`.
    pub y: u32,
    /// Layer, `0 <= z < r`.
    pub z: u32,
}

impl std::fmt::Display for Coord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({},{},{})", self.x, self.y, self.z)
    }
}

/// An `m x n x r` mesh with its Hamiltonian labelling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mesh {
    m: u32,
    n: u32,
    r: u32,
    /// Label -> coordinates.
    coords: Vec<Coord>,
}

/// Largest mesh the model builds: that of a mesh or torus with dimension
/// order ([`MAX_GRID_NODES`](super::grid::MAX_GRID_NODES), 2^24; a header takes
/// as many address flits as its largest label needs). Memory refuses a
/// smaller one first (`engine::direct_reckoning`).
pub const MAX_MESH_NODES: u32 = 1 << 24;

impl Mesh {
    /// An `m` (rows) x `n` (columns) x `r` (layers) mesh, each at least 1.
    pub fn new(m: u32, n: u32, r: u32) -> Result<Mesh> {
        let total = m as u64 * n as u64 * r as u64;
        if m == 0 || n == 0 || r == 0 || total < 2 || total > MAX_MESH_NODES as u64 {
            return Err(Error::Config {
                field: "dims",
                value: format!("{m}x{n}x{r}"),
                reason: format!("a mesh has 2 to {MAX_MESH_NODES} nodes, every side at least 1"),
            });
        }
        let mut coords = vec![Coord { x: 0, y: 0, z: 0 }; total as usize];
        for y in 0..m {
            for z in 0..r {
                for x in 0..n {
                    let l = label_of(n, r, x, y, z);
                    coords[l as usize] = Coord { x, y, z };
                }
            }
        }
        let mesh = Mesh { m, n, r, coords };
        // Equation 2 must give a Hamiltonian path: checked for every mesh
        // built, not only the sizes the tests try.
        for l in 1..mesh.nodes() {
            if mesh.distance(l - 1, l) != 1 {
                return Err(Error::Config {
                    field: "dims",
                    value: format!("{m}x{n}x{r}"),
                    reason: format!("labels {} and {l} are not neighbours", l - 1),
                });
            }
        }
        Ok(mesh)
    }

    /// Parses `MxNxR` (rows x columns x layers) or `MxN` (a 2-D mesh).
    pub fn parse(s: &str) -> Result<Mesh> {
        let bad = || Error::Config {
            field: "dims",
            value: s.into(),
            reason: "expected rows x columns x layers, like 4x4x4 (or 8x8 for 2-D)".into(),
        };
        let parts: Vec<u32> = s
            .split('x')
            .map(|p| p.trim().parse::<u32>().map_err(|_| bad()))
            .collect::<Result<_>>()?;
        match parts[..] {
            [m, n] => Mesh::new(m, n, 1),
            [m, n, r] => Mesh::new(m, n, r),
            _ => Err(bad()),
        }
    }

    /// Rows, columns, layers.
    pub fn dims(&self) -> (u32, u32, u32) {
        (self.m, self.n, self.r)
    }

    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.coords.len() as u32
    }

    /// The label of `c` (equation 2), or an error if it is outside.
    pub fn label(&self, c: Coord) -> Result<u32> {
        if c.x < self.n && c.y < self.m && c.z < self.r {
            Ok(label_of(self.n, self.r, c.x, c.y, c.z))
        } else {
            Err(Error::Config {
                field: "node",
                value: c.to_string(),
                reason: format!(
                    "outside the {}x{}x{} mesh (x < {}, y < {}, z < {})",
                    self.m, self.n, self.r, self.n, self.m, self.r
                ),
            })
        }
    }

    /// The coordinates of label `l` (which must exist).
    pub fn coord(&self, l: u32) -> Coord {
        self.coords[l as usize]
    }

    /// The neighbour of label `l` through port `p`, if any.
    #[inline]
    pub fn neighbor(&self, l: u32, p: usize) -> Option<u32> {
        let c = self.coords[l as usize];
        super::grid::step([c.x, c.y, c.z], [self.n, self.m, self.r], p)
            .map(|[x, y, z]| label_of(self.n, self.r, x, y, z))
    }

    /// The port of R(u, v) (equation 3) for `u != v`.
    pub fn route(&self, u: u32, v: u32) -> usize {
        // `neighbor` of each port, with `u`'s coordinates read once.
        let c = self.coords[u as usize];
        let (c, k) = ([c.x, c.y, c.z], [self.n, self.m, self.r]);
        let mut best: Option<(u32, usize)> = None;
        for p in 0..6 {
            let Some([x, y, z]) = super::grid::step(c, k, p) else {
                continue;
            };
            let w = label_of(self.n, self.r, x, y, z);
            let better = if u < v {
                w <= v && best.is_none_or(|(b, _)| w > b)
            } else {
                w >= v && best.is_none_or(|(b, _)| w < b)
            };
            if better {
                best = Some((w, p));
            }
        }
        best.expect("the next label on the Hamiltonian path is always a neighbour")
            .1
    }

    /// Manhattan distance between two labels.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        let (p, q) = (self.coord(a), self.coord(b));
        p.x.abs_diff(q.x) + p.y.abs_diff(q.y) + p.z.abs_diff(q.z)
    }
}

/// Equation 2: the label of `(x, y, z)` in a mesh of `n` columns and `r`
/// layers.
pub fn label_of(n: u32, r: u32, x: u32, y: u32, z: u32) -> u32 {
    let base = n * r * y;
    if y.is_multiple_of(2) {
        if z.is_multiple_of(2) {
            base + n * z + x
        } else {
            base + n * z + (n - x - 1)
        }
    } else if z.is_multiple_of(2) {
        base + n * (r - z - 1) + (n - x - 1)
    } else {
        base + n * (r - z - 1) + x
    }
}

/// A mesh with the Hamiltonian routing function R, for the routers.
#[derive(Clone, Debug)]
pub struct MeshFabric {
    /// The mesh.
    pub mesh: Mesh,
}

impl Fabric for MeshFabric {
    fn nodes(&self) -> u32 {
        self.mesh.nodes()
    }

    fn external_ports(&self) -> usize {
        6
    }

    fn neighbor(&self, node: u32, port: usize) -> Option<(u32, usize)> {
        self.mesh.neighbor(node, port).map(|w| (w, port ^ 1))
    }

    fn candidates(&self, node: u32, _arrived: Option<usize>, target: u32) -> u64 {
        1 << self.mesh.route(node, target)
    }

    /// The route is defined for every pair of nodes and ignores the port
    /// the worm arrived on.
    fn offers_every_hop(&self) -> bool {
        true
    }

    fn check_hop(
        &self,
        node: u32,
        _arrived: Option<usize>,
        out: usize,
        target: u32,
    ) -> std::result::Result<(), String> {
        let Some(w) = self.mesh.neighbor(node, out) else {
            return Err(format!(
                "port {} of {node} is not connected",
                PORT_NAMES[out]
            ));
        };
        // Independent of `Mesh::route`: every neighbour is compared.
        let mut all = (0..6).filter_map(|p| self.mesh.neighbor(node, p));
        let ok = if node < target {
            w > node && w <= target && all.all(|z| z > target || z <= w)
        } else {
            w < node && w >= target && all.all(|z| z < target || z >= w)
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{} is not R({node}, {target})",
                self.channel_name(node, out)
            ))
        }
    }

    fn channel_name(&self, node: u32, port: usize) -> String {
        match self.mesh.neighbor(node, port) {
            Some(w) => format!(
                "c[{node}->{w} {} {}]",
                PORT_NAMES[port],
                if w > node { "high" } else { "low" }
            ),
            None => format!("c[{node} {} unconnected]", PORT_NAMES[port]),
        }
    }

    fn routing_name(&self) -> String {
        "the Hamiltonian routing function R".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_labelling_is_a_hamiltonian_path_for_every_size() {
        for m in 1..=6 {
            for n in 1..=6 {
                for r in 1..=6 {
                    let Ok(mesh) = Mesh::new(m, n, r) else {
                        assert_eq!(m * n * r, 1);
                        continue;
                    };
                    let mut seen = vec![false; mesh.nodes() as usize];
                    for y in 0..m {
                        for z in 0..r {
                            for x in 0..n {
                                let l = mesh.label(Coord { x, y, z }).unwrap();
                                assert!(!seen[l as usize], "{m}x{n}x{r}: label {l} twice");
                                seen[l as usize] = true;
                            }
                        }
                    }
                    for l in 1..mesh.nodes() {
                        assert_eq!(mesh.distance(l - 1, l), 1, "{m}x{n}x{r}: {} {}", l - 1, l);
                    }
                }
            }
        }
    }

    #[test]
    fn paper_labels_of_the_worked_example() {
        let mesh = Mesh::parse("4x4x4").unwrap();
        assert_eq!(mesh.label(Coord { x: 1, y: 1, z: 1 }).unwrap(), 25);
        let pairs = [
            ((3, 1, 0), 28),
            ((0, 1, 0), 31),
            ((3, 2, 0), 35),
            ((1, 2, 1), 38),
            ((0, 2, 2), 40),
            ((2, 2, 2), 42),
            ((2, 3, 3), 50),
            ((1, 3, 2), 54),
            ((0, 3, 1), 56),
            ((3, 3, 1), 59),
            ((2, 3, 0), 61),
            ((0, 1, 2), 23),
            ((2, 1, 2), 21),
            ((3, 1, 3), 19),
            ((1, 1, 3), 17),
            ((0, 0, 3), 15),
            ((3, 0, 2), 11),
            ((1, 0, 2), 9),
            ((2, 0, 1), 5),
            ((3, 0, 0), 3),
            ((0, 0, 0), 0),
        ];
        for ((x, y, z), l) in pairs {
            assert_eq!(mesh.label(Coord { x, y, z }).unwrap(), l, "({x},{y},{z})");
        }
    }

    #[test]
    fn r_is_monotone_and_always_arrives() {
        let mesh = Mesh::new(3, 4, 5).unwrap();
        let f = MeshFabric { mesh: mesh.clone() };
        for u in 0..mesh.nodes() {
            for v in 0..mesh.nodes() {
                let mut at = u;
                let mut hops = 0;
                while at != v {
                    let p = mesh.route(at, v);
                    f.check_hop(at, None, p, v).unwrap();
                    let w = mesh.neighbor(at, p).unwrap();
                    assert!(if u < v {
                        w > at && w <= v
                    } else {
                        w < at && w >= v
                    });
                    at = w;
                    hops += 1;
                }
                assert!(hops >= mesh.distance(u, v) && hops <= u.abs_diff(v));
            }
        }
        assert!(Mesh::parse("4x4").is_ok() && Mesh::parse("0x4x4").is_err());
        assert!(Mesh::parse("4by4").is_err());
    }
}
