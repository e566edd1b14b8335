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
//! This is the first part of the seed 003 work: the tree-based multicast
//! worm with pruning and the tori with virtual channels are not built yet.

use super::Fabric;
use crate::{Error, Result};

/// A mesh with dimension-order routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DorMesh {
    /// Sides in x, y, z (z = 1 for a 2-D mesh).
    pub k: [u32; 3],
}

const PORTS: [&str; 6] = ["+x", "-x", "+y", "-y", "+z", "-z"];

impl DorMesh {
    /// A `kx x ky x kz` mesh (each side at least 1, 2 to 65,536 nodes).
    pub fn new(kx: u32, ky: u32, kz: u32) -> Result<DorMesh> {
        let n = kx as u64 * ky as u64 * kz as u64;
        if kx == 0 || ky == 0 || kz == 0 || !(2..=65_536).contains(&n) {
            return Err(Error::Config {
                field: "dims",
                value: format!("{kx}x{ky}x{kz}"),
                reason: "a mesh has 2 to 65,536 nodes, every side at least 1".into(),
            });
        }
        Ok(DorMesh { k: [kx, ky, kz] })
    }

    /// The coordinates of node `id`.
    pub fn coords(&self, id: u32) -> [u32; 3] {
        let [kx, ky, _] = self.k;
        [id % kx, id / kx % ky, id / (kx * ky)]
    }

    /// The node at `c`.
    pub fn id(&self, c: [u32; 3]) -> u32 {
        c[0] + self.k[0] * (c[1] + self.k[1] * c[2])
    }

    /// The dimension-order port from `u` toward `v != u`.
    pub fn route(&self, u: u32, v: u32) -> usize {
        let (a, b) = (self.coords(u), self.coords(v));
        let d = (0..3).find(|&d| a[d] != b[d]).expect("u != v");
        2 * d + usize::from(b[d] < a[d])
    }
}

/// The coordinates one hop from `c` through `port` (0 `+x`, 1 `-x`, 2 `+y`,
/// 3 `-y`, 4 `+z`, 5 `-z`) in a mesh of sides `k`; `None` past the edge.
pub(crate) fn step(mut c: [u32; 3], k: [u32; 3], port: usize) -> Option<[u32; 3]> {
    let d = port / 2;
    if d >= 3 {
        return None;
    }
    if port % 2 == 0 {
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
        step(self.coords(node), self.k, port).map(|c| (self.id(c), port ^ 1))
    }

    fn candidates(&self, node: u32, _arrived: Option<usize>, target: u32) -> u64 {
        1 << self.route(node, target)
    }

    fn check_hop(
        &self,
        node: u32,
        _arrived: Option<usize>,
        out: usize,
        target: u32,
    ) -> std::result::Result<(), String> {
        let (a, b) = (self.coords(node), self.coords(target));
        let d = out / 2;
        let lower_done = (0..d).all(|e| a[e] == b[e]);
        let toward = if out % 2 == 0 {
            b[d] > a[d]
        } else {
            b[d] < a[d]
        };
        if lower_done && toward {
            Ok(())
        } else {
            Err(format!(
                "{} is not the dimension-order channel toward {target}",
                self.channel_name(node, out)
            ))
        }
    }

    fn channel_name(&self, node: u32, port: usize) -> String {
        let c = self.coords(node);
        match self.neighbor(node, port) {
            Some((w, _)) => {
                let e = self.coords(w);
                format!(
                    "c[({},{},{})->({},{},{}) {}]",
                    c[0], c[1], c[2], e[0], e[1], e[2], PORTS[port]
                )
            }
            None => format!(
                "c[({},{},{}) {} unconnected]",
                c[0], c[1], c[2], PORTS[port]
            ),
        }
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
