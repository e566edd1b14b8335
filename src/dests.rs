//! Multicast destination lists: the one check every command and every API
//! applies to a source and its destinations (seeds 000 to 003 all take a
//! multicast as a source and a set of other nodes).
//!
//! A list is refused, never changed: every node must exist, there must be
//! at least one destination, the source is not one of its own destinations,
//! and no node is listed twice.

use crate::{Error, Result};

/// Checks a multicast from `src` to `dests` in a system of `nodes` nodes.
pub fn check(nodes: u32, src: u32, dests: &[u32]) -> Result<()> {
    check_named(nodes, src, dests, |x| x.to_string())
}

/// [`check`], its faults naming a node as `name` gives it (a grid's
/// coordinates, for a command that takes them).
pub fn check_named(
    nodes: u32,
    src: u32,
    dests: &[u32],
    name: impl Fn(u32) -> String,
) -> Result<()> {
    let exists = |x: u32| {
        if x < nodes {
            Ok(())
        } else {
            Err(Error::UnknownNode {
                node: x as u64,
                nodes,
            })
        }
    };
    exists(src)?;
    if dests.is_empty() {
        return Err(Error::BadDests(
            "a multicast needs at least one destination".into(),
        ));
    }
    // The smallest node listed twice. A short list (every unicast) is
    // searched pair by pair; a longer one through a sorted copy, which
    // finds repeats in any size of system without a table of every node.
    let twice = if dests.len() <= 16 {
        (1..dests.len())
            .filter(|&i| dests[..i].contains(&dests[i]))
            .map(|i| dests[i])
            .min()
    } else {
        let mut sorted = dests.to_vec();
        sorted.sort_unstable();
        sorted.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
    };
    if let Some(x) = twice {
        exists(x)?;
        return Err(Error::BadDests(format!(
            "node {} is listed twice among the destinations",
            name(x)
        )));
    }
    for &d in dests {
        exists(d)?;
        if d == src {
            return Err(Error::BadDests(format!(
                "the source {} is among its own destinations",
                name(src)
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fault_is_named() {
        let e = |src, d: &[u32]| check(8, src, d).unwrap_err().to_string();
        assert!(check(8, 0, &[1, 7]).is_ok());
        assert!(e(0, &[]).contains("at least one destination"));
        assert!(e(0, &[0, 1, 2]).contains("the source 0 is among its own destinations"));
        assert!(e(0, &[5, 5, 5]).contains("node 5 is listed twice among the destinations"));
        assert!(e(0, &[9]).contains("9"), "{}", e(0, &[9]));
        assert!(e(8, &[1]).contains("8"), "{}", e(8, &[1]));
        assert!(e(0, &[9, 9]).contains("9"));
        let named = |src, d: &[u32]| {
            check_named(8, src, d, |x| format!("({},{})", x % 4, x / 4))
                .unwrap_err()
                .to_string()
        };
        assert!(
            named(0, &[5, 3, 5]).ends_with("node (1,1) is listed twice among the destinations")
        );
        assert!(named(6, &[1, 6]).ends_with("the source (2,1) is among its own destinations"));
    }

    /// The check through a sorted copy, for every length: what the
    /// pair-by-pair search of short lists must agree with.
    fn reference(nodes: u32, src: u32, dests: &[u32]) -> Result<()> {
        let exists = |x: u32| {
            if x < nodes {
                Ok(())
            } else {
                Err(Error::UnknownNode {
                    node: x as u64,
                    nodes,
                })
            }
        };
        exists(src)?;
        if dests.is_empty() {
            return Err(Error::BadDests(
                "a multicast needs at least one destination".into(),
            ));
        }
        let mut sorted = dests.to_vec();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            exists(w[0])?;
            return Err(Error::BadDests(format!(
                "node {} is listed twice among the destinations",
                w[0]
            )));
        }
        for &d in dests {
            exists(d)?;
            if d == src {
                return Err(Error::BadDests(format!(
                    "the source {src} is among its own destinations"
                )));
            }
        }
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn short_and_long_lists_are_checked_alike(
            src in 0u32..24,
            dests in proptest::collection::vec(0u32..24, 0..24),
        ) {
            let got = check(20, src, &dests).map_err(|e| e.to_string());
            let want = reference(20, src, &dests).map_err(|e| e.to_string());
            proptest::prop_assert_eq!(got, want);
        }
    }
}
