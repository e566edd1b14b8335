//! The channel-load bound on throughput (Dally and Towles, "Principles and
//! Practices of Interconnection Networks", section 3.3.1): with every node
//! injecting `λ` flits per cycle to a pattern's destinations, a channel
//! carries `λ γ_c` flits per cycle, where `γ_c` is the expected number of
//! packets crossing it per packet injected per node; no channel carries
//! more than one flit a cycle, so `λ <= 1 / max_c γ_c` (and `λ <= 1` at the
//! injection and ejection channels). Computed here for dimension-order
//! routing on meshes and tori ([`Grid`]'s routes,
//! virtual channels sharing their physical channel).

use super::Pattern;
use crate::direct::Grid;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

/// The largest load (flits per node per cycle) `pattern` can offer `grid`
/// under dimension-order routing, by the channel-load bound: the heaviest
/// channel, network or ejection, at one flit per cycle.
pub fn channel_load_bound(grid: &Grid, pattern: &Pattern) -> f64 {
    let n = grid.nodes();
    let ports = grid.ports();
    let mut gamma = vec![0.0f64; n as usize * ports];
    let mut eject = vec![0.0f64; n as usize];
    let sides: Vec<u32> = grid.sides().into_iter().filter(|&s| s > 1).collect();
    let mut add = |s: u32, d: u32, w: f64| {
        for (node, hop) in grid.unicast_route(s, d) {
            gamma[node as usize * ports + hop.port as usize] += w;
        }
        eject[d as usize] += w;
    };
    match pattern {
        Pattern::Uniform => {
            let w = 1.0 / (n - 1) as f64;
            for s in 0..n {
                for d in (0..n).filter(|&d| d != s) {
                    add(s, d, w);
                }
            }
        }
        Pattern::Hotspot { nodes, fraction } => {
            let u = (1.0 - fraction) / (n - 1) as f64;
            for s in 0..n {
                for d in (0..n).filter(|&d| d != s) {
                    add(s, d, u);
                }
                let hot = fraction / nodes.len() as f64;
                for &h in nodes {
                    if h == s {
                        // A source drawing itself sends uniformly instead.
                        for d in (0..n).filter(|&d| d != s) {
                            add(s, d, hot / (n - 1) as f64);
                        }
                    } else {
                        add(s, h, hot);
                    }
                }
            }
        }
        p => {
            // A permutation: deterministic, so any generator will do.
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
            for s in 0..n {
                if let Some(d) = p.dest(s, n, Some(&sides), &mut rng) {
                    add(s, d, 1.0);
                }
            }
        }
    }
    let worst = gamma.iter().chain(&eject).copied().fold(0.0, f64::max);
    if worst <= 1.0 { 1.0 } else { 1.0 / worst }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_matches_the_textbook_values() {
        let mesh = Grid::mesh(8, 8, 1).unwrap();
        let torus = Grid::torus(8, 8, 1).unwrap();
        // Uniform on a k-ary 2-mesh: the middle channels carry k/4 per
        // unit of load (N/(N-1) more here, as a node never sends to
        // itself): 4/k.
        let um = channel_load_bound(&mesh, &Pattern::Uniform);
        assert!((um - 0.5 * 63.0 / 64.0).abs() < 1e-9, "{um}");
        // On the torus dimension order breaks the tie at k/2 the + way, so
        // a + channel carries (1 + 2 + 3 + 4) 8/63 = 80/63 per unit, not
        // the balanced k/8 = 1.
        let ut = channel_load_bound(&torus, &Pattern::Uniform);
        assert!((ut - 63.0 / 80.0).abs() < 1e-9, "{ut}");
        // Tornado on a k-ary ring moves every packet k/2 - 1 hops the same
        // way: 3 on the torus's x ring then 3 on y, each channel of the 8
        // carrying 3 packets: 1/3.
        let t = channel_load_bound(&torus, &Pattern::Tornado);
        assert!((t - 1.0 / 3.0).abs() < 1e-9, "{t}");
        // Bit-complement on the mesh: every packet crosses the bisection.
        let b = channel_load_bound(&mesh, &Pattern::BitComplement);
        assert!((b - 0.25).abs() < 1e-9, "{b}");
    }
}
