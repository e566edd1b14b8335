//! 2-D and 3-D meshes with dimension-order (X-first) routing, and the
//! pseudo-multicast baseline of seed 003 section 3.4 (one unicast per
//! destination).
//!
//! Node `(x, y, z)` of a `kx x ky x kz` mesh has id `x + kx (y + ky z)`
//! (`kz = 1` for 2-D). Router ports: 0 `+x`, 1 `-x`, 2 `+y`, 3 `-y`, 4 `+z`,
//! 5 `-z`. The routing function corrects `x` first, then `y`, then `z`: one
//! legal channel, minimal, and deadlock-free for unicasts without virtual
//! channels (seed 003 section 3.1 uses it as the base routing on meshes).
//!
//! The tree-based multicast of seed 003 runs on its own routers with
//! virtual channels ([`super::tree`]); this adapter lets the path-based
//! routers of seed 001 run the pseudo-multicast baseline on a mesh too.

use super::Fabric;
use super::grid::{Grid, GridHop};
use crate::Result;

/// A mesh with dimension-order routing, as a [`Fabric`] for the
/// path-based routers (the routing itself is [`Grid`]'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DorMesh {
    /// Sides in x, y, z (z = 1 for a 2-D mesh).
    pub k: [u32; 3],
    grid: Grid,
}

impl DorMesh {
    /// A `kx x ky x kz` mesh (each side at least 1, 2 to 16,777,216 nodes).
    pub fn new(kx: u32, ky: u32, kz: u32) -> Result<DorMesh> {
        Ok(DorMesh {
            k: [kx, ky, kz],
            grid: Grid::mesh(kx, ky, kz)?,
        })
    }

    /// The coordinates of node `id`.
    pub fn coords(&self, id: u32) -> [u32; 3] {
        self.grid.coords(id)
    }

    /// The node at `c`.
    pub fn id(&self, c: [u32; 3]) -> u32 {
        self.grid.id(c)
    }

    /// The dimension-order port from `u` toward `v != u`.
    pub fn route(&self, u: u32, v: u32) -> usize {
        self.grid.route(u, v).expect("u != v").port as usize
    }
}

/// One unicast worm per destination (the pseudo-multicast of seed 003).
pub fn pseudo_multicast(dests: &[u32]) -> Vec<Vec<u32>> {
    dests.iter().map(|&d| vec![d]).collect()
}

impl Fabric for DorMesh {
    fn nodes(&self) -> u32 {
        self.k.iter().product()
    }

    fn external_ports(&self) -> usize {
        if self.k[2] == 1 { 4 } else { 6 }
    }

    fn neighbor(&self, node: u32, port: usize) -> Option<(u32, usize)> {
        self.grid.neighbor(node, port).map(|w| (w, port ^ 1))
    }

    fn candidates(&self, node: u32, _arrived: Option<usize>, target: u32) -> u64 {
        1 << self.route(node, target)
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
        let hop = GridHop {
            port: out as u8,
            vc: 0,
        };
        self.grid.check_hop(node, hop, target)
    }

    fn channel_name(&self, node: u32, port: usize) -> String {
        let hop = GridHop {
            port: port as u8,
            vc: 0,
        };
        self.grid.channel_name(node, hop)
    }

    fn routing_name(&self) -> String {
        "dimension-order (X-first) routing".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_minimal_and_dimension_ordered() {
        for m in [
            DorMesh::new(4, 3, 1).unwrap(),
            DorMesh::new(3, 2, 4).unwrap(),
        ] {
            for u in 0..m.nodes() {
                for v in 0..m.nodes() {
                    let mut at = u;
                    let mut hops = 0;
                    let mut last_dim = 0;
                    while at != v {
                        let p = m.route(at, v);
                        m.check_hop(at, None, p, v).unwrap();
                        assert!(p / 2 >= last_dim, "dimension order");
                        last_dim = p / 2;
                        at = m.neighbor(at, p).unwrap().0;
                        hops += 1;
                    }
                    let (a, b) = (m.coords(u), m.coords(v));
                    let dist: u32 = (0..3).map(|d| a[d].abs_diff(b[d])).sum();
                    assert_eq!(hops, dist);
                }
            }
        }
        let m = DorMesh::new(8, 8, 1).unwrap();
        assert_eq!(m.external_ports(), 4);
        assert!(m.check_hop(0, None, 2, 9).is_err(), "y before x");
        assert!(DorMesh::new(1, 1, 1).is_err());
        assert_eq!(pseudo_multicast(&[3, 5]), vec![vec![3], vec![5]]);
    }
}
