//! Ordering the participants of a multicast on an irregular network so
//! that a k-binomial tree built on the ordering has little link contention
//! (seed 000 section 4.3.4, with the partial ordered chains of Fig. 13).
//!
//! A tree built by the construction of Fig. 10 gives every vertex a range
//! of consecutive places of the ordering; two vertices' messages can only
//! meet on a link if their ranges' paths do. No ordering is contention-free
//! under up*/down* routing (seed 000 reference \[16\]), so the ordering
//! follows the down links instead: the participating switches are split
//! into partial ordered chains (POCs), each a list of switches joined by
//! down links between levels, heaviest (most participants below) first,
//! and the ordering lists the source, then the participants chain by chain,
//! a chain from its top switch down, a switch's nodes by port. A range of
//! consecutive places then lies on one chain, or on the lower part of one
//! chain and the next, and the messages inside it follow the chain's down
//! links, which the messages of another range (on another chain) do not
//! use.
//!
//! The steps of Fig. 13: (1) the DAG of down links between levels (tree
//! links and cross links; same-level links are left out), its children in
//! port order; (2) the participating switches (a destination or the source
//! on them); (3) the DAG reduced to them (a removed switch's parents get its
//! children); (4) each switch's weight, the participants on it and on all
//! its descendants; (5) repeatedly the heaviest remaining switch and then
//! its heaviest remaining child, until none is left, make a chain. Ties go
//! to the lower switch id.

use crate::Result;
use crate::net::{Network, PortConn, UpDown};
use std::collections::{BTreeSet, HashSet};

/// A participant ordering and the chains it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainOrder {
    /// The source, then every destination.
    pub order: Vec<u32>,
    /// The chains of switches, in the order they were formed.
    pub chains: Vec<Vec<u32>>,
}

/// The POC ordering of `dests` for a multicast from `source`.
pub fn poc_order(net: &Network, ud: &UpDown, source: u32, dests: &[u32]) -> Result<ChainOrder> {
    let n = net.num_nodes() as u32;
    crate::dests::check(n, source, dests)?;
    let seen: HashSet<u32> = std::iter::once(source)
        .chain(dests.iter().copied())
        .collect();
    let s = net.num_switches();
    // (1) Down links between levels.
    let down: Vec<Vec<u32>> = (0..s as u32)
        .map(|x| {
            net.ports_of(x)
                .filter_map(|(p, c)| match c {
                    PortConn::Link { peer, .. }
                        if !ud.goes_up(x, p) && ud.level(peer.switch) > ud.level(x) =>
                    {
                        Some(peer.switch)
                    }
                    _ => None,
                })
                .collect()
        })
        .collect();
    // (2) Participants per switch, by port.
    let mut on: Vec<Vec<u32>> = vec![Vec::new(); s];
    for x in 0..s as u32 {
        for (_, c) in net.ports_of(x) {
            if let PortConn::Node(d) = c
                && seen.contains(&d)
            {
                on[x as usize].push(d);
            }
        }
    }
    let part: Vec<bool> = on.iter().map(|v| !v.is_empty()).collect();
    // (3) Reduced DAG: each participating switch's nearest participating
    // descendants through non-participating ones.
    let mut kids: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); s];
    for x in 0..s {
        if !part[x] {
            continue;
        }
        let mut stack: Vec<u32> = down[x].clone();
        let mut visited = HashSet::new();
        while let Some(y) = stack.pop() {
            if !visited.insert(y) {
                continue;
            }
            if part[y as usize] {
                kids[x].insert(y);
            } else {
                stack.extend(&down[y as usize]);
            }
        }
    }
    // (4) Weights: participants on a switch and all its descendants.
    let weight: Vec<usize> = (0..s)
        .map(|x| {
            if !part[x] {
                return 0;
            }
            let mut all = HashSet::from([x as u32]);
            let mut stack: Vec<u32> = kids[x].iter().copied().collect();
            while let Some(y) = stack.pop() {
                if all.insert(y) {
                    stack.extend(kids[y as usize].iter().copied());
                }
            }
            all.iter().map(|&y| on[y as usize].len()).sum()
        })
        .collect();
    // (5) Chains, heaviest first.
    let mut left: BTreeSet<u32> = (0..s as u32).filter(|&x| part[x as usize]).collect();
    let heaviest = |set: &mut dyn Iterator<Item = u32>| {
        set.max_by_key(|&x| (weight[x as usize], std::cmp::Reverse(x)))
    };
    let mut chains = Vec::new();
    while let Some(top) = heaviest(&mut left.iter().copied()) {
        let mut chain = vec![top];
        left.remove(&top);
        let mut at = top;
        while let Some(next) = heaviest(
            &mut kids[at as usize]
                .iter()
                .copied()
                .filter(|y| left.contains(y)),
        ) {
            chain.push(next);
            left.remove(&next);
            at = next;
        }
        chains.push(chain);
    }
    let mut order = vec![source];
    for chain in &chains {
        for &x in chain {
            order.extend(on[x as usize].iter().copied().filter(|&d| d != source));
        }
    }
    Ok(ChainOrder { order, chains })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::test_network;

    /// 0 - 1, 0 - 2, 1 - 3, 2 - 3 (3 is below both 1 and 2), 3 - 4: one
    /// node per switch on port 0. From node 1 to all: the chain 0, 1, 3, 4
    /// (weight 5 at 0, 3 at 1 and 2), then the chain 2.
    #[test]
    fn chains_follow_down_links_heaviest_first() {
        let net = test_network(
            5,
            4,
            &[
                ((0, 1), (1, 1)),
                ((0, 2), (2, 1)),
                ((1, 2), (3, 1)),
                ((2, 2), (3, 2)),
                ((3, 3), (4, 1)),
            ],
        );
        let ud = UpDown::new(&net);
        let o = poc_order(&net, &ud, 1, &[0, 2, 3, 4]).unwrap();
        assert_eq!(o.chains, vec![vec![0, 1, 3, 4], vec![2]]);
        assert_eq!(o.order, vec![1, 0, 3, 4, 2]);
        // Switch 3 not participating: 1's child becomes 4 through it.
        let o = poc_order(&net, &ud, 0, &[1, 4]).unwrap();
        assert_eq!(o.chains, vec![vec![0, 1, 4]]);
        assert_eq!(
            poc_order(&net, &ud, 0, &[1, 1]).unwrap_err().to_string(),
            "bad destination list: node 1 is listed twice among the destinations"
        );
        assert_eq!(
            poc_order(&net, &ud, 0, &[9]).unwrap_err().to_string(),
            "node 9 does not exist (the network has nodes 0 to 4)"
        );
    }
}
