//! Two-Phase and Six-Phase multicast on meshes with a Hamiltonian
//! labelling (seed 002, "The proposed algorithms").
//!
//! Both split the destinations at the source `u0`: `D_U` (labels above
//! `l(u0)`), sorted ascending, for the high-channel subnetwork, and `D_L`
//! (labels below), sorted descending, for the low-channel subnetwork. TP
//! sends one path-based worm per non-empty set. SP splits each set again by
//! the `x` coordinate against the source's: `x > x0` (`D_U1`, `D_L1`),
//! `x < x0` (`D_U2`, `D_L2`), `x = x0` (`D_U3`, `D_L3`), keeping the order,
//! and sends up to six worms at once through the source's ports.
//!
//! GTDMPM, the baseline of the paper's figures, is given there in one
//! sentence (destinations placed into submulticast messages by columns,
//! rows and diagonals; a multi-phase scheme that suffers source
//! congestion and needs more message-passing steps as the multicast grows)
//! and its reference is not available. This module reconstructs it as the
//! 3-D column-path scheme: one path-based worm per mesh row holding
//! destinations (the nodes sharing `y` and `z`, whose labels are
//! consecutive under the labelling), split at the source into the high-
//! and low-channel sides, every worm sent by the source, nearest row
//! first. Its worm count grows with the number of rows the destinations
//! touch (up to `2 * m * r`) where TP has 2 and SP 6 (docs/reproduction.md).

use crate::direct::mesh::{Coord, Mesh};
use crate::{Error, Result};
use serde::Serialize;

/// The algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum HamAlgo {
    /// Two-Phase.
    Tp,
    /// Six-Phase.
    Sp,
    /// The GTDMPM baseline as reconstructed here: a worm per row and side.
    Gtdmpm,
}

impl HamAlgo {
    /// `tp`, `sp` or `gtdmpm`.
    pub fn parse(s: &str) -> Result<HamAlgo> {
        match s {
            "tp" => Ok(HamAlgo::Tp),
            "sp" => Ok(HamAlgo::Sp),
            "gtdmpm" => Ok(HamAlgo::Gtdmpm),
            _ => Err(Error::Config {
                field: "algo",
                value: s.into(),
                reason: "expected tp, sp or gtdmpm".into(),
            }),
        }
    }

    /// `tp`, `sp` or `gtdmpm`.
    pub fn name(self) -> &'static str {
        match self {
            HamAlgo::Tp => "tp",
            HamAlgo::Sp => "sp",
            HamAlgo::Gtdmpm => "gtdmpm",
        }
    }
}

/// One worm of a TP, SP or GTDMPM multicast.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HamWorm {
    /// Which set it carries: `D_U`, `D_L`, `D_U1` ... `D_L3`; `R_U` or
    /// `R_L` for a row of GTDMPM above or below the source.
    pub set: &'static str,
    /// True for the high-channel subnetwork.
    pub high: bool,
    /// Destination labels in the order the worm visits them.
    pub list: Vec<u32>,
}

/// Prepares the worms of a multicast from label `src` to the labels `dests`
/// (distinct, not the source, all in the mesh).
pub fn prepare(mesh: &Mesh, src: u32, dests: &[u32], algo: HamAlgo) -> Result<Vec<HamWorm>> {
    crate::dests::check(mesh.nodes(), src, dests)?;
    let mut up: Vec<u32> = dests.iter().copied().filter(|&d| d > src).collect();
    let mut low: Vec<u32> = dests.iter().copied().filter(|&d| d < src).collect();
    up.sort_unstable();
    low.sort_unstable_by(|a, b| b.cmp(a));
    let mut out = Vec::new();
    match algo {
        HamAlgo::Tp => {
            for (set, high, list) in [("D_U", true, up), ("D_L", false, low)] {
                if !list.is_empty() {
                    out.push(HamWorm { set, high, list });
                }
            }
        }
        HamAlgo::Sp => {
            let x0 = mesh.coord(src).x;
            let split = |list: &[u32], pick: fn(u32, u32) -> bool| -> Vec<u32> {
                list.iter()
                    .copied()
                    .filter(|&d| pick(mesh.coord(d).x, x0))
                    .collect()
            };
            let parts: [(&'static str, bool, Vec<u32>); 6] = [
                ("D_U1", true, split(&up, |x, x0| x > x0)),
                ("D_U2", true, split(&up, |x, x0| x < x0)),
                ("D_U3", true, split(&up, |x, x0| x == x0)),
                ("D_L1", false, split(&low, |x, x0| x > x0)),
                ("D_L2", false, split(&low, |x, x0| x < x0)),
                ("D_L3", false, split(&low, |x, x0| x == x0)),
            ];
            for (set, high, list) in parts {
                if !list.is_empty() {
                    out.push(HamWorm { set, high, list });
                }
            }
        }
        HamAlgo::Gtdmpm => {
            // Rows are runs of the sorted lists sharing (y, z).
            let row = |l: u32| {
                let c = mesh.coord(l);
                (c.y, c.z)
            };
            for (set, high, list) in [("R_U", true, up), ("R_L", false, low)] {
                for &d in &list {
                    match out.last_mut() {
                        Some(w) if w.set == set && row(w.list[0]) == row(d) => w.list.push(d),
                        _ => out.push(HamWorm {
                            set,
                            high,
                            list: vec![d],
                        }),
                    }
                }
            }
            out.sort_by_key(|w| w.list[0].abs_diff(src));
        }
    }
    Ok(out)
}

/// The nodes a worm's head visits under R, from `src` along `list`.
pub fn route(mesh: &Mesh, src: u32, list: &[u32]) -> Vec<u32> {
    let mut path = vec![src];
    let mut at = src;
    for &d in list {
        while at != d {
            at = mesh
                .neighbor(at, mesh.route(at, d))
                .expect("R gives a connected port");
            path.push(at);
        }
    }
    path
}

/// Parses `x,y,z` (or `x,y` for a 2-D mesh).
pub fn parse_coord(s: &str) -> Result<Coord> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| Error::Config {
            field: "node",
            value: s.into(),
            reason: "expected x,y,z".into(),
        })?;
    match v[..] {
        [x, y] => Ok(Coord { x, y, z: 0 }),
        [x, y, z] => Ok(Coord { x, y, z }),
        _ => Err(Error::Config {
            field: "node",
            value: s.into(),
            reason: "expected x,y,z".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked example of seed 002: 4x4x4, source (1,1,1) = 25.
    pub(crate) const EXAMPLE: [u32; 21] = [
        0, 15, 31, 23, 40, 56, 9, 17, 38, 54, 5, 21, 42, 61, 50, 3, 11, 28, 19, 35, 59,
    ];

    #[test]
    fn worked_example_sets() {
        let mesh = Mesh::parse("4x4x4").unwrap();
        let tp = prepare(&mesh, 25, &EXAMPLE, HamAlgo::Tp).unwrap();
        assert_eq!(tp.len(), 2);
        assert_eq!(tp[0].list, [28, 31, 35, 38, 40, 42, 50, 54, 56, 59, 61]);
        assert_eq!(tp[1].list, [23, 21, 19, 17, 15, 11, 9, 5, 3, 0]);
        let sp = prepare(&mesh, 25, &EXAMPLE, HamAlgo::Sp).unwrap();
        let sets: Vec<(&str, Vec<u32>)> = sp.iter().map(|w| (w.set, w.list.clone())).collect();
        assert_eq!(
            sets,
            [
                ("D_U1", vec![28, 35, 42, 50, 59, 61]),
                ("D_U2", vec![31, 40, 56]),
                ("D_U3", vec![38, 54]),
                ("D_L1", vec![21, 19, 11, 5, 3]),
                ("D_L2", vec![23, 15, 0]),
                ("D_L3", vec![17, 9]),
            ]
        );
        // GTDMPM: a worm per row and side, nearest first.
        let g = prepare(&mesh, 25, &EXAMPLE, HamAlgo::Gtdmpm).unwrap();
        let rows: Vec<(&str, Vec<u32>)> = g.iter().map(|w| (w.set, w.list.clone())).collect();
        assert_eq!(
            rows,
            [
                ("R_L", vec![23, 21]),
                ("R_U", vec![28, 31]),
                ("R_L", vec![19, 17]),
                ("R_U", vec![35]),
                ("R_L", vec![15]),
                ("R_U", vec![38]),
                ("R_L", vec![11, 9]),
                ("R_U", vec![40, 42]),
                ("R_L", vec![5]),
                ("R_L", vec![3, 0]),
                ("R_U", vec![50]),
                ("R_U", vec![54]),
                ("R_U", vec![56, 59]),
                ("R_U", vec![61]),
            ]
        );
        for w in &g {
            let r0 = (mesh.coord(w.list[0]).y, mesh.coord(w.list[0]).z);
            assert!(
                w.list
                    .iter()
                    .all(|&d| (mesh.coord(d).y, mesh.coord(d).z) == r0)
            );
        }
        assert!(prepare(&mesh, 25, &[25], HamAlgo::Tp).is_err());
        assert!(prepare(&mesh, 25, &[64], HamAlgo::Tp).is_err());
        assert!(prepare(&mesh, 25, &[3, 3], HamAlgo::Sp).is_err());
    }
}
