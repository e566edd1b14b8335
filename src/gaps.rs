//! The gaps between a source's packets under random traffic: every seed's
//! sources offer packets as a Bernoulli process of some probability per
//! cycle (seed 000 section 6.1's offered load), and the models draw the
//! cycles to the next packet at once as a geometric variate, so that an idle
//! source is not visited every cycle.

/// `ln(1 - p)`: the logarithm of a cycle's chance of no packet, for a
/// Bernoulli process of probability `p` per cycle. `(1 - p).ln()` where
/// `1 - p` is below 1, and `ln_1p(-p)` for a `p` so small that `1 - p`
/// rounds to 1: a logarithm of 0 there would make every gap infinite, and
/// then zero once cast, a packet every cycle at a load of almost none.
pub(crate) fn ln_no_packet(p: f64) -> f64 {
    let l = (1.0 - p).ln();
    if l < 0.0 { l } else { (-p).ln_1p() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_of_no_packet_is_negative_for_any_probability_above_zero() {
        // Where 1 - p is exact enough, the same value as before.
        for p in [0.5, 0.1, 0.001, 1e-9] {
            assert_eq!(ln_no_packet(p), (1.0 - p).ln());
        }
        // Where 1 - p rounds to 1: still below zero, and close to -p.
        for p in [1e-17, 1e-100, 1e-300, f64::MIN_POSITIVE] {
            assert_eq!(1.0 - p, 1.0);
            let l = ln_no_packet(p);
            assert!(l < 0.0 && (l + p).abs() <= p * 1e-12, "{p}: {l}");
        }
        assert_eq!(ln_no_packet(1.0), f64::NEG_INFINITY);
    }
}
