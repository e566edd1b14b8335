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
    // A sorted copy finds repeats in any size of system without a table of
    // every node.
    let mut sorted = dests.to_vec();
    sorted.sort_unstable();
    for w in sorted.windows(2) {
        if w[0] == w[1] {
            exists(w[0])?;
            return Err(Error::BadDests(format!(
                "node {} is listed twice among the destinations",
                w[0]
            )));
        }
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
    }
}
