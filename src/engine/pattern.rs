//! Traffic patterns: where each source's packets go. The synthetic
//! patterns are those network-on-chip studies use (Dally and Towles,
//! "Principles and Practices of Interconnection Networks", section 3.2):
//! uniform random, and the permutations transpose, bit-complement,
//! bit-reverse, shuffle, tornado and neighbour, plus hot spot.
//!
//! On a mesh or torus, transpose rotates the coordinates by half their
//! number (2-D: (x, y) to (y, x); 3-D: (x, y, z) to (y, z, x); every side
//! equal), and tornado and neighbour move every coordinate. Elsewhere
//! (hypercubes, whose sides of 2 would make tornado the identity, and
//! irregular networks) the nodes are taken as a ring of addresses:
//! transpose rotates the address bits by half their number, tornado and
//! neighbour move along the ring. Bit patterns (bit-complement,
//! bit-reverse, shuffle, and transpose on addresses) need a power-of-two
//! number of nodes. A pattern that does not apply is refused with the
//! reason. A permutation that maps a node to itself leaves that node silent
//! (it sends nothing), as is usual.

use crate::{Error, Result};
use rand::RngExt;
use rand::rngs::Xoshiro256PlusPlus;
use std::fmt;

/// A traffic pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// Every other node with equal probability.
    Uniform,
    /// (x, y) to (y, x) on a square grid (3-D: (y, z, x)); elsewhere the
    /// address bits rotated by half their number.
    Transpose,
    /// Node `i` to `!i` (all address bits flipped).
    BitComplement,
    /// Node `i` to `i` with its address bits in reverse order.
    BitReverse,
    /// Node `i` to `i` rotated left by one bit.
    Shuffle,
    /// Every coordinate `c` to `c + ceil(k/2) - 1` modulo the side `k`.
    Tornado,
    /// Every coordinate `c` to `c + 1` modulo the side.
    Neighbour,
    /// Uniform, except that a `fraction` of all packets go to the `nodes`
    /// (evenly among them).
    Hotspot {
        /// The hot nodes.
        nodes: Vec<u32>,
        /// Fraction of the packets sent to them (0 to 1).
        fraction: f64,
    },
    /// A permutation given node by node (`to[i]` is node `i`'s destination).
    Permutation {
        /// Destination of each node.
        to: Vec<u32>,
    },
}

/// Names the command line takes.
pub const PATTERNS: &str = "uniform, transpose, bit-complement, bit-reverse, shuffle, tornado, \
     neighbour, hotspot:NODES@FRACTION (e.g. hotspot:0,5@0.2), permutation:FILE";

impl Pattern {
    /// Parses a pattern's name (`hotspot:0,5@0.2`, `permutation:perm.txt`).
    pub fn parse(text: &str) -> Result<Pattern> {
        let bad = |reason: String| Error::Config {
            field: "pattern",
            value: text.into(),
            reason,
        };
        Ok(match text {
            "uniform" => Pattern::Uniform,
            "transpose" => Pattern::Transpose,
            "bit-complement" => Pattern::BitComplement,
            "bit-reverse" => Pattern::BitReverse,
            "shuffle" => Pattern::Shuffle,
            "tornado" => Pattern::Tornado,
            "neighbour" | "neighbor" => Pattern::Neighbour,
            t if t.starts_with("hotspot:") => {
                let spec = &t["hotspot:".len()..];
                let (nodes, frac) = spec.split_once('@').ok_or_else(|| {
                    bad("give hotspot:NODES@FRACTION, e.g. hotspot:0,5@0.2".into())
                })?;
                let mut hot: Vec<u32> = Vec::new();
                for n in nodes.split(',').map(str::trim) {
                    let n: u32 = n.parse().map_err(|_| {
                        bad(format!(
                            "hot node `{n}` is not a node number; hot nodes are node \
                             numbers, comma-separated"
                        ))
                    })?;
                    if hot.contains(&n) {
                        // Listed twice, it would draw twice the share.
                        return Err(bad(format!(
                            "node {n} is listed twice: the hot nodes share the fraction evenly"
                        )));
                    }
                    hot.push(n);
                }
                let nodes = hot;
                let fraction: f64 = frac
                    .trim()
                    .parse()
                    .map_err(|_| bad(format!("fraction `{frac}` is not a number")))?;
                if !(0.0..=1.0).contains(&fraction) {
                    return Err(bad(format!("fraction {fraction} is not within 0 to 1")));
                }
                Pattern::Hotspot { nodes, fraction }
            }
            t if t.starts_with("permutation:") => {
                let path = &t["permutation:".len()..];
                let text = crate::read_text(path)?;
                Pattern::Permutation {
                    to: parse_permutation(&text, path)?,
                }
            }
            _ => return Err(bad(format!("unknown pattern; give one of {PATTERNS}"))),
        })
    }

    /// Checks that the pattern applies to a network of `nodes` nodes with
    /// these `sides` (`None`: an irregular network).
    pub fn check(&self, nodes: u32, sides: Option<&[u32]>) -> Result<()> {
        let bad = |reason: String| {
            Err(Error::Config {
                field: "pattern",
                value: self.to_string(),
                reason,
            })
        };
        if nodes < 2 {
            return bad("a network of one node has nowhere to send".into());
        }
        match self {
            Pattern::Uniform => Ok(()),
            Pattern::BitComplement | Pattern::BitReverse | Pattern::Shuffle => {
                if nodes.is_power_of_two() {
                    Ok(())
                } else {
                    bad(format!(
                        "a bit pattern needs a power-of-two number of nodes, not {nodes}"
                    ))
                }
            }
            Pattern::Transpose => match grid(sides) {
                Some(k) if k.iter().all(|&s| s == k[0]) => Ok(()),
                Some(_) => bad("transpose needs every side of the grid equal".into()),
                None if nodes.is_power_of_two() && nodes >= 4 => Ok(()),
                None => bad(format!(
                    "transpose of addresses needs a power-of-two number of nodes (4 or more), not {nodes}"
                )),
            },
            Pattern::Tornado if grid(sides).is_none() && nodes < 3 => {
                bad("tornado on a ring of 2 nodes sends nothing".into())
            }
            Pattern::Tornado | Pattern::Neighbour => Ok(()),
            Pattern::Hotspot { nodes: hot, .. } => {
                if hot.is_empty() {
                    return bad("name at least one hot node".into());
                }
                match hot.iter().find(|&&h| h >= nodes) {
                    Some(&h) => Err(Error::UnknownNode {
                        node: h as u64,
                        nodes,
                    }),
                    None => Ok(()),
                }
            }
            Pattern::Permutation { to } => {
                if to.len() != nodes as usize {
                    return bad(format!(
                        "the permutation names {}; the network has {nodes}",
                        crate::error::counted(to.len() as u64, "nodes")
                    ));
                }
                match to.iter().find(|&&d| d >= nodes) {
                    Some(&d) => Err(Error::UnknownNode {
                        node: d as u64,
                        nodes,
                    }),
                    None => Ok(()),
                }
            }
        }
    }

    /// The destination of a packet from `src` (`None`: this pattern sends
    /// nothing from `src`). `sides` as for [`check`](Self::check).
    pub fn dest(
        &self,
        src: u32,
        nodes: u32,
        sides: Option<&[u32]>,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Option<u32> {
        let bits = nodes.trailing_zeros();
        let uniform = |rng: &mut Xoshiro256PlusPlus| {
            let d = rng.random_range(0..nodes - 1);
            if d >= src { d + 1 } else { d }
        };
        let d = match self {
            Pattern::Uniform => uniform(rng),
            Pattern::BitComplement => !src & (nodes - 1),
            Pattern::BitReverse => src.reverse_bits() >> (32 - bits),
            Pattern::Shuffle => ((src << 1) | (src >> (bits - 1))) & (nodes - 1),
            Pattern::Transpose => match grid(sides) {
                Some(k) => {
                    // Digits of src (x first), rotated by half their number.
                    let n = k.len();
                    let side = k[0];
                    let digits: Vec<u32> =
                        (0..n).map(|i| src / side.pow(i as u32) % side).collect();
                    (0..n)
                        .map(|i| digits[(i + n / 2) % n] * side.pow(i as u32))
                        .sum()
                }
                None => {
                    let h = bits / 2;
                    ((src << h) | (src >> (bits - h))) & (nodes - 1)
                }
            },
            Pattern::Tornado | Pattern::Neighbour if grid(sides).is_none() => {
                let step = if *self == Pattern::Tornado {
                    nodes.div_ceil(2) - 1
                } else {
                    1
                };
                (src + step) % nodes
            }
            Pattern::Tornado | Pattern::Neighbour => {
                let k = grid(sides).expect("a grid");
                let mut rest = src;
                let (mut d, mut scale) = (0, 1);
                for &side in k {
                    let c = rest % side;
                    rest /= side;
                    let step = if *self == Pattern::Tornado {
                        side.div_ceil(2) - 1
                    } else {
                        1
                    };
                    d += ((c + step) % side) * scale;
                    scale *= side;
                }
                d
            }
            Pattern::Hotspot {
                nodes: hot,
                fraction,
            } => {
                if rng.random_bool(*fraction) {
                    let h = hot[rng.random_range(0..hot.len())];
                    if h == src { uniform(rng) } else { h }
                } else {
                    uniform(rng)
                }
            }
            Pattern::Permutation { to } => to[src as usize],
        };
        (d != src).then_some(d)
    }
}

/// The sides of a mesh or torus (`None` for a hypercube, whose sides of 2
/// are taken as a ring of addresses, and for irregular networks).
fn grid(sides: Option<&[u32]>) -> Option<&[u32]> {
    sides.filter(|k| k.iter().any(|&s| s > 2) || k.len() <= 2)
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Uniform => f.write_str("uniform"),
            Pattern::Transpose => f.write_str("transpose"),
            Pattern::BitComplement => f.write_str("bit-complement"),
            Pattern::BitReverse => f.write_str("bit-reverse"),
            Pattern::Shuffle => f.write_str("shuffle"),
            Pattern::Tornado => f.write_str("tornado"),
            Pattern::Neighbour => f.write_str("neighbour"),
            Pattern::Hotspot { nodes, fraction } => {
                let n: Vec<String> = nodes.iter().map(u32::to_string).collect();
                write!(f, "hotspot:{}@{fraction}", n.join(","))
            }
            Pattern::Permutation { to } => write!(f, "permutation of {} nodes", to.len()),
        }
    }
}

/// A permutation file: one destination per line, node 0's first (blank
/// lines and `#` comments ignored), or `SRC DST` pairs covering every node
/// once. A bad line is refused with its number in the file; so is a
/// destination given to two nodes, which would make the file no
/// permutation (several sources' packets to one node).
pub fn parse_permutation(text: &str, name: &str) -> Result<Vec<u32>> {
    let bad = |line: usize, why: String| Error::Config {
        field: "permutation",
        value: format!("{name}:{line}"),
        reason: why,
    };
    // Each source and destination with its line in the file.
    let mut pairs: Vec<(u32, u32, usize)> = Vec::new();
    let mut plain = 0u32;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let not_one_or_two = || {
            bad(
                i + 1,
                format!(
                    "`{line}` is not one or two node numbers (a line holds a destination, node \
                     0's on the first, or a source and its destination)"
                ),
            )
        };
        let nums: Vec<u32> = line
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
            .map(str::parse)
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| not_one_or_two())?;
        match nums[..] {
            [d] => {
                pairs.push((plain, d, i + 1));
                plain += 1;
            }
            [s, d] => pairs.push((s, d, i + 1)),
            _ => return Err(not_one_or_two()),
        }
    }
    let n = pairs.len();
    let mut to = vec![u32::MAX; n];
    // The source each destination is given to, to name a repeat.
    let mut from = vec![u32::MAX; n];
    for &(s, d, line) in &pairs {
        if s as usize >= n || d as usize >= n {
            return Err(bad(
                line,
                format!(
                    "node {} is past the {} listed",
                    s.max(d),
                    crate::counted(n as u64, "nodes")
                ),
            ));
        }
        if to[s as usize] != u32::MAX {
            return Err(bad(line, format!("node {s} is given twice")));
        }
        if from[d as usize] != u32::MAX {
            return Err(bad(
                line,
                format!(
                    "node {d} is the destination of node {} already: a permutation sends each \
                     node's packets to a different node",
                    from[d as usize]
                ),
            ));
        }
        to[s as usize] = d;
        from[d as usize] = s;
    }
    Ok(to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn all(p: &Pattern, nodes: u32, sides: Option<&[u32]>) -> Vec<Option<u32>> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        (0..nodes)
            .map(|s| p.dest(s, nodes, sides, &mut rng))
            .collect()
    }

    #[test]
    fn permutations_go_where_their_definitions_say() {
        let k: &[u32] = &[4, 4];
        // Transpose on 4x4: (1,0)=1 -> (0,1)=4; the diagonal is silent.
        let t = all(&Pattern::Transpose, 16, Some(k));
        assert_eq!((t[1], t[4], t[0], t[5]), (Some(4), Some(1), None, None));
        assert_eq!(all(&Pattern::BitComplement, 8, None)[1], Some(6));
        assert_eq!(all(&Pattern::BitReverse, 8, None)[1], Some(4));
        assert_eq!(all(&Pattern::Shuffle, 8, None)[5], Some(3));
        // Tornado on a side of 8: +3 in each dimension.
        let t = all(&Pattern::Tornado, 64, Some(&[8, 8]));
        assert_eq!(t[0], Some(3 + 8 * 3));
        assert_eq!(all(&Pattern::Neighbour, 64, Some(&[8, 8]))[7], Some(8));
        // Transpose of a 4-cube swaps its address halves.
        assert_eq!(
            all(&Pattern::Transpose, 16, Some(&[2, 2, 2, 2]))[1],
            Some(4)
        );
        // Every permutation is one: no two sources share a destination.
        for p in [
            Pattern::Transpose,
            Pattern::BitComplement,
            Pattern::BitReverse,
            Pattern::Shuffle,
            Pattern::Tornado,
            Pattern::Neighbour,
        ] {
            let d: Vec<u32> = all(&p, 16, Some(k)).into_iter().flatten().collect();
            let mut u = d.clone();
            u.sort_unstable();
            u.dedup();
            assert_eq!(u.len(), d.len(), "{p}");
        }
    }

    #[test]
    fn uniform_and_hotspot_never_send_to_the_source() {
        let hot = Pattern::parse("hotspot:3@0.5").unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut to3 = 0;
        for i in 0..10_000u32 {
            let s = i % 16;
            let d = hot.dest(s, 16, None, &mut rng).unwrap();
            assert_ne!(d, s);
            to3 += (d == 3) as u32;
            assert_ne!(Pattern::Uniform.dest(s, 16, None, &mut rng), Some(s));
        }
        // Half of all packets plus a fifteenth of the rest, node 3 excepted.
        assert!((4_700..5_300).contains(&to3), "{to3}");
    }

    #[test]
    fn patterns_that_do_not_apply_are_refused() {
        let e = |p: &str, n: u32, k: Option<&[u32]>| {
            Pattern::parse(p)
                .unwrap()
                .check(n, k)
                .unwrap_err()
                .to_string()
        };
        assert!(e("bit-complement", 12, None).contains("power-of-two"));
        assert!(e("transpose", 32, Some(&[8, 4])).contains("every side"));
        assert!(e("transpose", 12, None).contains("power-of-two"));
        assert!(e("hotspot:40@0.1", 32, None).contains("node 40 does not exist"));
        // A node listed twice would draw twice the share of the others.
        let p = |t: &str| Pattern::parse(t).unwrap_err().to_string();
        assert_eq!(
            p("hotspot:0,5,0@0.2"),
            "configuration: pattern = hotspot:0,5,0@0.2: node 0 is listed twice: the hot \
             nodes share the fraction evenly"
        );
        assert_eq!(
            p("hotspot:0,x@0.2"),
            "configuration: pattern = hotspot:0,x@0.2: hot node `x` is not a node number; \
             hot nodes are node numbers, comma-separated"
        );
        assert_eq!(
            p("hotspot:@0.2"),
            "configuration: pattern = hotspot:@0.2: hot node `` is not a node number; hot \
             nodes are node numbers, comma-separated"
        );
        assert!(
            Pattern::parse("hotspot:1@2")
                .unwrap_err()
                .to_string()
                .contains("within 0 to 1")
        );
        assert!(
            Pattern::parse("zigzag")
                .unwrap_err()
                .to_string()
                .contains("unknown pattern")
        );
    }

    #[test]
    fn a_permutation_file_is_read_and_a_bad_line_named() {
        assert_eq!(
            parse_permutation("# p\n1\n2\n\n0\n", "p").unwrap(),
            vec![1, 2, 0]
        );
        assert_eq!(
            parse_permutation("0 2\n2 1\n1 0\n", "p").unwrap(),
            vec![2, 0, 1]
        );
        let e = parse_permutation("1\nx\n0\n", "p.txt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("p.txt:2") && e.contains("`x`"), "{e}");
        let e = parse_permutation("0 1\n0 1\n", "p")
            .unwrap_err()
            .to_string();
        assert!(e.contains("node 0 is given twice"), "{e}");
        // Lines are counted in the file, comments and blank lines too.
        let e = parse_permutation("# c\n\n0 1\n1 0\n5 9\n", "p").unwrap_err();
        assert_eq!(
            e.to_string(),
            "configuration: permutation = p:5: node 9 is past the 3 nodes listed"
        );
        let e = parse_permutation("1\n# c\n0\n1\n", "p").unwrap_err();
        assert_eq!(
            e.to_string(),
            "configuration: permutation = p:4: node 1 is the destination of node 0 already: a \
             permutation sends each node's packets to a different node"
        );
        let e = parse_permutation("3 2 1 0\n", "p").unwrap_err();
        assert_eq!(
            e.to_string(),
            "configuration: permutation = p:1: `3 2 1 0` is not one or two node numbers (a \
             line holds a destination, node 0's on the first, or a source and its destination)"
        );
        let e = parse_permutation("1 0\n", "p").unwrap_err();
        assert_eq!(
            e.to_string(),
            "configuration: permutation = p:1: node 1 is past the 1 node listed"
        );
    }
}
