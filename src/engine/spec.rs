//! Topology specs: one string names any network the engine runs — a
//! topology file (seed 000's irregular switch networks), or a family with its
//! sizes: `mesh:8x8`, `torus:8x8x8` (seed 003), `hypercube:6` (seed 001),
//! `irregular:switches=32,ports=8,nodes=128,seed=3` (seed 000 section 6.3's
//! generator).

use crate::net::{IrregularParams, Topology};
use crate::{Error, Result};
use std::fmt;
use std::path::PathBuf;

/// A network named by a spec string.
#[derive(Clone, Debug, PartialEq)]
pub enum TopoSpec {
    /// A topology file of switches, links and nodes.
    File(PathBuf),
    /// A mesh, sides x, y (and z).
    Mesh([u32; 3]),
    /// A torus, sides x, y (and z).
    Torus([u32; 3]),
    /// A binary hypercube of this many dimensions.
    Hypercube(u32),
    /// A random irregular network from the generator.
    Irregular(IrregularParams),
}

/// The families a spec may name, for error messages.
pub const FAMILIES: &str = "mesh:KXxKY[xKZ], torus:KXxKY[xKZ], hypercube:N, \
     irregular:switches=S,ports=K,nodes=P[,connectivity=C][,seed=N], or a topology file";

impl TopoSpec {
    /// Parses a spec; anything without a family prefix is a file name.
    pub fn parse(text: &str) -> Result<TopoSpec> {
        let bad = |reason: String| Error::Config {
            field: "topology",
            value: text.into(),
            reason,
        };
        let Some((family, rest)) = text.split_once(':') else {
            return Ok(TopoSpec::File(text.into()));
        };
        match family {
            "mesh" | "torus" => {
                let sides: Vec<u32> = rest
                    .split('x')
                    .map(|s| s.trim().parse::<u32>())
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|_| bad(format!("{family} sides are numbers, as in {family}:8x8")))?;
                if !(2..=3).contains(&sides.len()) || sides.contains(&0) {
                    return Err(bad(format!(
                        "a {family} has 2 or 3 sides of at least 1, as in {family}:8x8 or {family}:4x4x4"
                    )));
                }
                let k = [sides[0], sides[1], sides.get(2).copied().unwrap_or(1)];
                if k.iter().map(|&s| s as u64).product::<u64>()
                    > crate::direct::grid::MAX_GRID_NODES
                {
                    return Err(bad(format!("a {family} has at most 16,777,216 nodes")));
                }
                Ok(if family == "mesh" {
                    TopoSpec::Mesh(k)
                } else {
                    TopoSpec::Torus(k)
                })
            }
            "hypercube" => {
                let n: u32 = rest.trim().parse().map_err(|_| {
                    bad("a hypercube's dimensions are a number, as in hypercube:6".into())
                })?;
                let most = crate::direct::cube::MAX_DIMENSIONS;
                if !(1..=most).contains(&n) {
                    return Err(bad(format!("a hypercube has 1 to {most} dimensions")));
                }
                Ok(TopoSpec::Hypercube(n))
            }
            "irregular" => {
                let mut p = IrregularParams::default();
                for kv in rest.split(',').filter(|s| !s.trim().is_empty()) {
                    let (k, v) = kv
                        .split_once('=')
                        .ok_or_else(|| bad(format!("`{kv}`: expected name=value")))?;
                    let num = |what: &str| {
                        v.trim()
                            .parse::<u64>()
                            .map_err(|_| bad(format!("{what} = `{v}` is not a whole number")))
                    };
                    let count = |what: &str| {
                        u32::try_from(num(what)?).map_err(|_| {
                            bad(format!("{what} = {}: at most {}", v.trim(), u32::MAX))
                        })
                    };
                    match k.trim() {
                        "switches" => p.switches = count("switches")?,
                        "ports" => p.ports = count("ports")?,
                        "nodes" => p.nodes = count("nodes")?,
                        "seed" => p.seed = num("seed")?,
                        "connectivity" => {
                            p.connectivity = v
                                .trim()
                                .parse()
                                .map_err(|_| bad(format!("connectivity = `{v}` is not a number")))?
                        }
                        other => {
                            return Err(bad(format!(
                                "unknown parameter `{other}`; an irregular network takes switches, ports, nodes, connectivity and seed"
                            )));
                        }
                    }
                }
                Ok(TopoSpec::Irregular(p))
            }
            other => Err(bad(format!("unknown family `{other}`; give {FAMILIES}"))),
        }
    }

    /// Refuses a file spec that names no file (a mistyped family or file
    /// name), saying what a topology may be; checked before the router
    /// models a spec allows are, which would otherwise take the name for
    /// a file's network and refuse the router instead.
    pub fn check_file(&self) -> Result<()> {
        if let TopoSpec::File(p) = self
            && let Some(why) = Topology::not_a_file(p)
        {
            return Err(Error::Config {
                field: "topology",
                value: p.display().to_string(),
                reason: format!("{why}; give {FAMILIES}"),
            });
        }
        Ok(())
    }

    /// Number of nodes.
    pub fn nodes(&self) -> Option<u32> {
        match self {
            TopoSpec::File(_) => None,
            TopoSpec::Mesh(k) | TopoSpec::Torus(k) => Some(k.iter().product()),
            TopoSpec::Hypercube(n) => Some(1 << n),
            TopoSpec::Irregular(p) => Some(p.nodes),
        }
    }

    /// The sides of a mesh, torus or hypercube (2 per dimension), by
    /// dimension; `None` for irregular networks.
    pub fn sides(&self) -> Option<Vec<u32>> {
        match self {
            TopoSpec::Mesh(k) | TopoSpec::Torus(k) => {
                Some(k.iter().copied().filter(|&s| s > 1).collect())
            }
            TopoSpec::Hypercube(n) => Some(vec![2; *n as usize]),
            _ => None,
        }
    }

    /// The network as switches, links and nodes: one switch per node, its
    /// node on port 0 and a link per neighbour (port `1 + 2d` toward +d,
    /// `2 + 2d` toward -d; a hypercube's port `1 + d` is dimension `d`).
    /// This is how the cut-through switch of seed 000 runs on a direct
    /// network's graph.
    pub fn topology(&self) -> Result<Topology> {
        use crate::net::{LinkSpec, NodeSpec, PortRef, SwitchSpec};
        match self {
            TopoSpec::File(p) => Topology::load(p),
            TopoSpec::Irregular(p) => {
                // What the network built from it will be reckoned at, checked
                // before the generator spends seconds on one that cannot be
                // built.
                if let Some(avail) = crate::memory::available() {
                    crate::net::fits_shape(
                        p.switches as usize,
                        p.ports,
                        p.switches as u128 * p.ports as u128,
                        p.nodes as usize,
                        avail,
                    )?;
                }
                p.generate()
            }
            TopoSpec::Hypercube(n) => {
                let nodes = 1u32 << n;
                let mut t = Topology::default();
                for s in 0..nodes {
                    t.switches.push(SwitchSpec {
                        id: s,
                        ports: 1 + n,
                    });
                    t.nodes.push(NodeSpec {
                        id: s,
                        at: PortRef::new(s, 0),
                    });
                    for d in 0..*n {
                        let o = s ^ (1 << d);
                        if s < o {
                            t.links.push(LinkSpec {
                                a: PortRef::new(s, 1 + d),
                                b: PortRef::new(o, 1 + d),
                            });
                        }
                    }
                }
                Ok(t)
            }
            TopoSpec::Mesh(k) | TopoSpec::Torus(k) => {
                let torus = matches!(self, TopoSpec::Torus(_));
                let nodes: u32 = k.iter().product();
                let dims = k.iter().filter(|&&s| s > 1).count() as u32;
                let id = |c: [u32; 3]| c[0] + k[0] * (c[1] + k[1] * c[2]);
                let mut t = Topology::default();
                for s in 0..nodes {
                    t.switches.push(SwitchSpec {
                        id: s,
                        ports: 1 + 2 * dims.max(1),
                    });
                    t.nodes.push(NodeSpec {
                        id: s,
                        at: PortRef::new(s, 0),
                    });
                }
                let mut d = 0;
                for (axis, &side) in k.iter().enumerate() {
                    if side < 2 {
                        continue;
                    }
                    for s in 0..nodes {
                        let mut c = [s % k[0], (s / k[0]) % k[1], s / (k[0] * k[1])];
                        if c[axis] + 1 == side && !(torus && side > 2) {
                            continue;
                        }
                        c[axis] = (c[axis] + 1) % side;
                        t.links.push(LinkSpec {
                            a: PortRef::new(s, 1 + 2 * d),
                            b: PortRef::new(id(c), 2 + 2 * d),
                        });
                    }
                    d += 1;
                }
                Ok(t)
            }
        }
    }
}

impl fmt::Display for TopoSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sides = |k: &[u32; 3]| {
            let v: Vec<String> = k
                .iter()
                .take(if k[2] > 1 { 3 } else { 2 })
                .map(u32::to_string)
                .collect();
            v.join("x")
        };
        match self {
            TopoSpec::File(p) => write!(f, "{}", p.display()),
            TopoSpec::Mesh(k) => write!(f, "mesh:{}", sides(k)),
            TopoSpec::Torus(k) => write!(f, "torus:{}", sides(k)),
            TopoSpec::Hypercube(n) => write!(f, "hypercube:{n}"),
            TopoSpec::Irregular(p) => write!(
                f,
                "irregular:switches={},ports={},nodes={},connectivity={},seed={}",
                p.switches, p.ports, p.nodes, p.connectivity, p.seed
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Network;

    #[test]
    fn every_family_parses_and_prints_back() {
        for s in [
            "mesh:8x8",
            "torus:8x8x8",
            "hypercube:6",
            "irregular:switches=32,ports=8,nodes=128,connectivity=0.8,seed=3",
        ] {
            assert_eq!(TopoSpec::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(
            TopoSpec::parse("net.toml").unwrap(),
            TopoSpec::File("net.toml".into())
        );
        let e = |s: &str| TopoSpec::parse(s).unwrap_err().to_string();
        assert!(
            e("ring:8").contains("unknown family `ring`"),
            "{}",
            e("ring:8")
        );
        assert!(e("mesh:8").contains("2 or 3 sides"));
        assert!(e("mesh:0x8").contains("2 or 3 sides"));
        assert!(e("mesh:axb").contains("sides are numbers"));
        assert!(e("torus:5000x5000").contains("at most 16,777,216 nodes"));
        assert!(e("hypercube:25").contains("1 to 24 dimensions"));
        assert!(e("irregular:switches=4,colour=3").contains("unknown parameter `colour`"));
        assert!(e("irregular:switches=x").contains("not a whole number"));
        // Past 32 bits, a count is refused as written, not wrapped.
        assert!(
            e("irregular:switches=99999999999,ports=8,nodes=4")
                .contains("switches = 99999999999: at most 4294967295"),
            "{}",
            e("irregular:switches=99999999999,ports=8,nodes=4")
        );
        assert!(e("irregular:nodes=4294967296").contains("nodes = 4294967296: at most"));
    }

    #[test]
    fn direct_networks_become_valid_switch_networks() {
        for (s, links) in [
            ("mesh:4x4", 24),
            ("torus:4x4", 32),
            ("torus:2x3", 3 + 6),
            ("mesh:3x3x3", 54),
            ("hypercube:4", 32),
        ] {
            let spec = TopoSpec::parse(s).unwrap();
            let t = spec.topology().unwrap();
            assert_eq!(t.links.len(), links, "{s}");
            let net = Network::new(&t).unwrap();
            assert_eq!(net.num_nodes() as u32, spec.nodes().unwrap(), "{s}");
        }
    }
}
